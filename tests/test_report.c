/* test_report.c - `kbench report`: the SVG and HTML parse as XML/HTML and
 * hold one point per PASSED case (two files overlaid: both sets), the
 * above-roof case is flagged, and bad inputs give exit code 2. */
#include "drivers/commands.h"
#include "drivers/peaks/ceilings.h"
#include "drivers/roofline/report.h"
#include "tests/check.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdlib.h>

static char dir[] = "/tmp/kb_report_XXXXXX";

static const char *results_text =
    "{\"type\":\"run\",\"host\":\"h1\",\"git_commit\":\"0123456789abcdef\","
    "\"backends\":{\"omp\":{\"device\":\"cpu\"}}}\n"
    "{\"type\":\"case\",\"model\":\"resnet50\",\"layer\":\"res2a<&>\",\"kernel\":\"conv2d\","
    "\"backend\":\"omp\",\"dtype\":\"f32\",\"flops\":2e9,\"bytes\":1e7,\"gflops\":100,"
    "\"status\":\"PASSED\"}\n"
    "{\"type\":\"case\",\"model\":\"resnet50\",\"layer\":\"fc\",\"kernel\":\"gemm\","
    "\"backend\":\"openblas\",\"dtype\":\"f32\",\"flops\":1e8,\"bytes\":1e8,\"gflops\":5,"
    "\"status\":\"PASSED\"}\n"
    "{\"type\":\"case\",\"model\":\"deepcam\",\"layer\":\"bn\",\"kernel\":\"bnorm\","
    "\"backend\":\"omp\",\"dtype\":\"f64\",\"flops\":1e6,\"bytes\":1e6,\"gflops\":1,"
    "\"status\":\"PASSED\"}\n"
    "{\"type\":\"case\",\"model\":\"cosmoflow\",\"layer\":\"c2\",\"kernel\":\"conv3d\","
    "\"backend\":\"onednn\",\"dtype\":\"f32\",\"status\":\"SKIPPED\",\"reason\":\"no 3D\"}\n"
    "{\"type\":\"summary\",\"passed\":3}\n";

static void put(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *at(const char *name)
{
    static char buf[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static int report(int n, const char **args)
{
    char *argv[16] = {"report"};
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return kb_cmd_report(n + 1, argv);
}

/* Number of nodes matching xpath in doc; -1 when doc is NULL. */
static int count(xmlDocPtr doc, const char *xpath, const char *svg_ns)
{
    if (!doc)
        return -1;
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    if (svg_ns)
        xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST svg_ns);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST xpath, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return n;
}

static const char *SVG = "http://www.w3.org/2000/svg";

static void check_outputs(const char *out, int points, int flagged)
{
    char p[160];
    snprintf(p, sizeof p, "%s/roofline.svg", out);
    xmlDocPtr svg = xmlReadFile(p, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    CHECK(svg != NULL);
    CHECK(count(svg, "//s:g[@class='point']", SVG) == points);
    CHECK(count(svg, "//s:g[@class='legend']", SVG) == 1);
    CHECK(count(svg, "//s:g[@class='point']/s:circle[@stroke='#d00']", SVG) == flagged);
    xmlFreeDoc(svg);

    /* the HTML is well-formed (XML parser) and valid to the HTML parser */
    snprintf(p, sizeof p, "%s/report.html", out);
    xmlDocPtr x = xmlReadFile(p, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    CHECK(x != NULL);
    xmlFreeDoc(x);
    htmlDocPtr h = htmlReadFile(p, NULL, HTML_PARSE_NONET | HTML_PARSE_NOERROR);
    CHECK(h != NULL);
    CHECK(count(h, "//*[local-name()='g'][@class='point']", NULL) == points);
    CHECK(count(h, "//table", NULL) >= 1);
    xmlFreeDoc(h);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    put("r1.jsonl", results_text);
    put("r2.jsonl", results_text);
    put("bad.jsonl", "{\"type\":\"run\"}\nnot json\n");
    put("empty.jsonl", "");
    /* a machine: fp32 200, fp64 100 GFLOP/s, DRAM 20 GB/s */
    kb_ceilings *c = calloc(1, sizeof *c);
    char err[256];
    if (!c)
        return 1;
    c->ndevices = 1;
    snprintf(c->devices[0].kind, sizeof c->devices[0].kind, "cpu");
    kb_device_add_ceiling(&c->devices[0], KB_CEIL_COMPUTE, "fma", "fp32", 200, 0);
    kb_device_add_ceiling(&c->devices[0], KB_CEIL_COMPUTE, "fma", "fp64", 100, 0);
    kb_device_add_ceiling(&c->devices[0], KB_CEIL_MEMORY, "stream-triad", "DRAM", 20, 0);
    CHECK(kb_ceilings_save(c, at("peaks.json"), err, sizeof err) == 0);
    put("notpeaks.json", "{\"schema\":\"other\"}");

    /* one file: 3 PASSED points, none above its roof (the GEMM makes
     * 5 GFLOP/s at AI 1 under a 20 GB/s roof) */
    const char *a1[] = {at("r1.jsonl"), "--peaks", at("peaks.json"), "--out", at("o1")};
    CHECK(report(5, a1) == KB_EXIT_OK);
    check_outputs(at("o1"), 3, 0);

    /* overlay: both sets, 6 points; a tighter roof flags the GEMM
     * (5 GFLOP/s > 1 x 2 GB/s) in both */
    c->devices[0].ceilings[2].value = 2;
    CHECK(kb_ceilings_save(c, at("slow.json"), err, sizeof err) == 0);
    const char *a2[] = {at("r1.jsonl"), at("r2.jsonl"), "--peaks", at("slow.json"),
                        "--out", at("o2")};
    CHECK(report(6, a2) == KB_EXIT_OK);
    check_outputs(at("o2"), 6, 2);

    /* no ceilings: still a chart and tables, and the report says so */
    const char *a3[] = {at("r1.jsonl"), "--out", at("o3")};
    CHECK(report(3, a3) == KB_EXIT_OK);
    check_outputs(at("o3"), 3, 0);
    FILE *md = fopen(at("o3/report.md"), "r");
    char buf[8192] = "";
    if (md) {
        buf[fread(buf, 1, sizeof buf - 1, md)] = '\0';
        fclose(md);
    }
    CHECK(strstr(buf, "No ceilings file") != NULL);
    CHECK(strstr(buf, "SKIPPED: no 3D") != NULL);
    CHECK(strstr(buf, "roofline.svg") != NULL);

    /* bad inputs are usage errors */
    const char *b1[] = {at("r1.jsonl"), "--peaks", at("notpeaks.json"), "--out", at("o4")};
    CHECK(report(5, b1) == KB_EXIT_USAGE);
    const char *b2[] = {at("r1.jsonl"), "--peaks", at("missing.json"), "--out", at("o4")};
    CHECK(report(5, b2) == KB_EXIT_USAGE);
    const char *b3[] = {at("bad.jsonl"), "--out", at("o4")};
    CHECK(report(3, b3) == KB_EXIT_USAGE);
    const char *b4[] = {at("empty.jsonl"), "--out", at("o4")};
    CHECK(report(3, b4) == KB_EXIT_USAGE);
    const char *b5[] = {at("r1.jsonl")};
    CHECK(report(1, b5) == KB_EXIT_USAGE);
    const char *b6[] = {at("nope.jsonl"), "--out", at("o4")};
    CHECK(report(3, b6) == KB_EXIT_USAGE);
    const char *b7[] = {at("r1.jsonl"), "--level", "L4", "--out", at("o4")};
    CHECK(report(5, b7) == KB_EXIT_USAGE);
    free(c);
    xmlCleanupParser();
    return CHECK_DONE();
}
