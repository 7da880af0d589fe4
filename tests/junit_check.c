/* junit_check.c - parses a JUnit XML file with libxml2 and checks that it
 * is what CI servers read: <testsuites> of <testsuite> elements whose
 * tests/failures/errors/skipped counts match their <testcase> children,
 * each testcase with a classname "kbench.<suite name>", a name and a time.
 * Usage: junit_check FILE SUITES TESTS FAILURES ERRORS SKIPPED; prints one
 * "suite NAME tests=.. failures=.. errors=.. skipped=.." line per suite.
 * Exits 0 when all holds and the totals are those given, else 1. */
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *what, const char *name)
{
    fprintf(stderr, "junit_check: %s (%s)\n", what, name ? name : "");
    failures++;
}

static long attr_long(xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    long x = v ? strtol((const char *)v, NULL, 10) : -1;
    if (!v)
        fail("missing attribute", name);
    xmlFree(v);
    return x;
}

static int is(xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Counts of a testcase's outcome children. */
static void testcase(xmlNode *tc, const char *suite, long count[3])
{
    xmlChar *cls = xmlGetProp(tc, (const xmlChar *)"classname");
    xmlChar *name = xmlGetProp(tc, (const xmlChar *)"name");
    xmlChar *time = xmlGetProp(tc, (const xmlChar *)"time");
    char want[1024];
    snprintf(want, sizeof want, "kbench.%s", suite);
    if (!cls || strcmp((const char *)cls, want) != 0)
        fail("testcase classname is not kbench.<suite>", (const char *)cls);
    if (!name || !*name)
        fail("testcase without a name", suite);
    if (!time || strtod((const char *)time, NULL) < 0)
        fail("testcase without a time", (const char *)name);
    static const char *const kinds[] = {"failure", "error", "skipped"};
    for (xmlNode *c = tc->children; c; c = c->next)
        for (int k = 0; k < 3; k++)
            if (is(c, kinds[k])) {
                count[k]++;
                xmlChar *msg = xmlGetProp(c, (const xmlChar *)"message");
                if (!msg || !*msg)
                    fail("outcome without a message", (const char *)name);
                xmlFree(msg);
            }
    xmlFree(cls);
    xmlFree(name);
    xmlFree(time);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fputs("usage: junit_check FILE SUITES TESTS FAILURES ERRORS SKIPPED\n", stderr);
        return 2;
    }
    xmlDoc *doc = xmlReadFile(argv[1], NULL, XML_PARSE_NONET);
    if (!doc) {
        fail("not well-formed XML", argv[1]);
        return 1;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !is(root, "testsuites"))
        fail("root is not <testsuites>", argv[1]);
    long total[5] = {0};   /* suites, tests, failures, errors, skipped */
    for (xmlNode *s = root ? root->children : NULL; s; s = s->next) {
        if (!is(s, "testsuite"))
            continue;
        xmlChar *name = xmlGetProp(s, (const xmlChar *)"name");
        const char *sn = name ? (const char *)name : "";
        long tests = 0, count[3] = {0};
        for (xmlNode *tc = s->children; tc; tc = tc->next)
            if (is(tc, "testcase")) {
                tests++;
                testcase(tc, sn, count);
            }
        long said[4] = {attr_long(s, "tests"), attr_long(s, "failures"),
                        attr_long(s, "errors"), attr_long(s, "skipped")};
        if (said[0] != tests || said[1] != count[0] || said[2] != count[1] ||
            said[3] != count[2])
            fail("testsuite counts disagree with its testcases", sn);
        printf("suite %s tests=%ld failures=%ld errors=%ld skipped=%ld\n", sn,
               tests, count[0], count[1], count[2]);
        total[0]++, total[1] += tests, total[2] += count[0];
        total[3] += count[1], total[4] += count[2];
        xmlFree(name);
    }
    if (root && (attr_long(root, "tests") != total[1] ||
                 attr_long(root, "failures") != total[2] ||
                 attr_long(root, "errors") != total[3] ||
                 attr_long(root, "skipped") != total[4]))
        fail("testsuites counts disagree with its testsuites", argv[1]);
    for (int i = 0; i < 5; i++)
        if (total[i] != strtol(argv[2 + i], NULL, 10)) {
            fprintf(stderr, "junit_check: total %d is %ld, expected %s\n", i,
                    total[i], argv[2 + i]);
            failures++;
        }
    xmlFreeDoc(doc);
    xmlCleanupParser();
    return failures ? 1 : 0;
}
