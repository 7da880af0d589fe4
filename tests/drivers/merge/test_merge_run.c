/* test_merge_run.c - `kbench merge` of real `kbench run` files (tiny
 * shapes, three runs standing for three nodes of one host): the table
 * names each node by host and file, every case is judged, the SVG parses
 * as XML with a strip per case and a dot per node, the JSON parses. */
#define _GNU_SOURCE   /* mkdtemp */
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "tests/check.h"

#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdlib.h>
#include <unistd.h>

#define NODES 3
#define CASES 2

static char dir[] = "/tmp/kb_merge_run_XXXXXX";

static char *at(const char *name)
{
    static char buf[32][256];
    static int k;
    k = (k + 1) % 32;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static char *slurp(const char *path)
{
    static char text[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return text;
}

static int count(xmlDocPtr doc, const char *xpath)
{
    if (!doc)
        return -1;
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST xpath, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return n;
}

/* The fixture, made once by the first sub-test that runs: NODES runs
 * merged into table.md, nodes.svg and merge.json. */
static void merged(void)
{
    static int done;
    if (done++)
        return;
    char *merge_argv[16] = {"merge"};
    char name[32];
    for (int i = 0; i < NODES; i++) {
        snprintf(name, sizeof name, "r%d.jsonl", i);
        char *run_argv[] = {"kbench", "run", "--quiet", "--backend", "omp", "--reps", "3",
                            "--min-time", "0", "--desc", "mb1ic4ih8oc8kh3ph1",
                            "--desc", "m8n12k16", "--json", at(name)};
        CHECK(kb_main(15, run_argv) == KB_EXIT_OK);
        merge_argv[1 + i] = strdup(at(name));
    }
    char *opts[] = {"--md", at("table.md"), "--svg", at("nodes.svg"), "--json",
                    at("merge.json")};
    for (int k = 0; k < 6; k++)
        merge_argv[1 + NODES + k] = opts[k];
    CHECK(kb_verb_main(&kb_verb_merge, NULL, 1 + NODES + 6, merge_argv) == KB_EXIT_OK);
    for (int i = 0; i < NODES; i++)
        free(merge_argv[1 + i]);
}

/* the table names each node by host and file */
static void test_table(void)
{
    merged();
    char host[256] = "", col[400];
    gethostname(host, sizeof host - 1);
    const char *md = slurp(at("table.md"));
    for (int i = 0; i < NODES; i++) {
        snprintf(col, sizeof col, "| %s (r%d.jsonl) |", host, i);
        CHECK(strstr(md, col) != NULL);
    }
    CHECK(strstr(md, "](nodes.svg)") != NULL);
    CHECK(strstr(md, "m8n12k16/gemm/omp") != NULL);
}

/* the SVG: a strip per case, a dot per node and case */
static void test_svg(void)
{
    merged();
    xmlDocPtr doc = xmlReadFile(at("nodes.svg"), NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);
    CHECK(count(doc, "//s:g[contains(@class,'strip')]") == CASES + 1);
    CHECK(count(doc, "//s:g[starts-with(@class,'dot')]") == NODES * (CASES + 1));
    xmlFreeDoc(doc);
}

/* the JSON: every node, every case judged */
static void test_json(void)
{
    merged();
    cJSON *j = cJSON_Parse(slurp(at("merge.json")));
    const cJSON *cases = cJSON_GetObjectItem(j, "cases");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j, "nodes")) == NODES);
    CHECK(cJSON_GetArraySize(cases) == CASES);
    const cJSON *c;
    cJSON_ArrayForEach(c, cases)
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(c, "judged")));
    cJSON_Delete(j);
}

static const check_test tests[] = {
    CHECK_TEST(table), CHECK_TEST(svg), CHECK_TEST(json), CHECK_END};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int status = check_main(argc, argv, tests);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
    return status;
}
