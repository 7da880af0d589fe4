/* test_report.c - `kbench report`: the SVG and HTML parse as XML/HTML and
 * hold one point per PASSED case (two files overlaid: both sets), the
 * above-roof case is flagged, a CPU case and a GPU case get a chart each
 * under their own device's ceilings (a GPU without ceilings: not placed,
 * with the reason), bad inputs give exit code 2 (a results file of
 * another schema named at its line, as compare and check do), and the
 * old --out still works, with a notice. */
#include "drivers/commands.h"
#include "machine/ceilings/ceilings.h"
#include "drivers/common/options.h"
#include "tests/capture.h"
#include "tests/check.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

static char dir[] = "/tmp/kb_report_XXXXXX";

/* The run record's start, of the schema the reader takes. */
#define RUN_HEAD "{\"type\":\"run\",\"schema\":\"kbench.results/2\","
/* The fields of a case record that report does not show, and where the
 * GFLOP/s come from: flops / the median of samples_s. */
#define CASE(SEQ, DESC, LAYOUT, DIR) \
    "{\"type\":\"case\",\"seq\":" #SEQ ",\"desc\":\"" DESC "\",\"count\":1," \
    "\"layout\":\"" LAYOUT "\",\"dir\":\"" DIR "\","

static const char *results_text =
    RUN_HEAD "\"host\":\"h1\",\"git_commit\":\"0123456789abcdef\","
    "\"backends\":{\"omp\":{\"device\":\"cpu\"}}}\n"
    CASE(1, "mb1ic64ih56oc64kh3ph1", "NCHW", "FWD_D")
    "\"model\":\"resnet50\",\"layer\":\"res2a<&>\",\"kernel\":\"conv2d\","
    "\"backend\":\"omp\",\"dtype\":\"f32\",\"flops\":2e9,\"bytes\":1e7,"
    "\"samples_s\":[0.02],\"status\":\"PASSED\"}\n"
    CASE(2, "m1000n1k2048", "row-major", "FWD_D")
    "\"model\":\"resnet50\",\"layer\":\"fc\",\"kernel\":\"gemm\","
    "\"backend\":\"openblas\",\"dtype\":\"f32\",\"flops\":1e8,\"bytes\":1e8,"
    "\"samples_s\":[0.02],\"status\":\"PASSED\"}\n"
    CASE(3, "mb1ic8ih8", "NCHW", "FWD_D")
    "\"model\":\"deepcam\",\"layer\":\"bn\",\"kernel\":\"bnorm\","
    "\"backend\":\"omp\",\"dtype\":\"f64\",\"flops\":1e6,\"bytes\":1e6,"
    "\"samples_s\":[0.001],\"status\":\"PASSED\"}\n"
    CASE(4, "mb1ic8id8ih8iw8oc8kd3kh3kw3", "NCDHW", "FWD_D")
    "\"model\":\"cosmoflow\",\"layer\":\"c2\",\"kernel\":\"conv3d\","
    "\"backend\":\"onednn\",\"dtype\":\"f32\",\"flops\":1e6,\"bytes\":1e6,"
    "\"status\":\"SKIPPED\",\"reason\":\"no 3D\"}\n"
    "{\"type\":\"summary\",\"passed\":3}\n";

/* SYNTHETIC: one omp case and one cuda case on a made-up GPU (uuid
 * GPU-5e5e...; describe()'s "device" is its name).  Under the GPU's
 * made-up ceilings (fp32 50000 GFLOP/s, DRAM 3000 GB/s) the cuda case,
 * AI 1000, has 50000 attainable and makes 60 %; under the CPU's (200
 * GFLOP/s) it would be far above its roof. */
#define SYNTH_UUID "GPU-5e5e5e5e-0000-0000-0000-000000000001"
static const char *gpu_results_fmt =
    RUN_HEAD "\"host\":\"h2\",\"git_commit\":\"fedcba9876543210\","
    "\"cpu_model\":\"Synthetic CPU\",\"backends\":{"
    "\"omp\":{\"kind\":\"hand\",\"device_kind\":\"cpu\",\"device\":\"cpu\"},"
    "\"cuda\":{\"kind\":\"hand\",\"device_kind\":\"cuda\",\"device\":\"0: Synthetic GPU\","
    "\"device_uuid\":\"%s\"}}}\n"
    CASE(1, "mb1ic3ih224oc64kh7sh2ph3", "NCHW", "FWD_D")
    "\"model\":\"resnet50\",\"layer\":\"conv1\",\"kernel\":\"conv2d\","
    "\"backend\":\"omp\",\"dtype\":\"f32\",\"flops\":2e9,\"bytes\":1e7,"
    "\"samples_s\":[0.02],\"status\":\"PASSED\"}\n"
    CASE(2, "m1000n1k2048", "row-major", "FWD_D")
    "\"model\":\"resnet50\",\"layer\":\"fc1000\",\"kernel\":\"gemm\","
    "\"backend\":\"cuda\",\"dtype\":\"f32\",\"flops\":1e12,\"bytes\":1e9,"
    "\"samples_s\":[0.03333333333333333],\"status\":\"PASSED\"}\n"
    "{\"type\":\"summary\",\"passed\":2}\n";

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
    return kb_verb_main(&kb_verb_report, NULL, n + 1, argv);
}

/* report with stderr captured into err[len].  Returns its exit code. */
static int report_err(int n, const char **args, char *err, size_t len)
{
    check_capture c;
    check_capture_begin(&c, 2);
    int rc = report(n, args);
    check_capture_end(&c, err, len);
    return rc;
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

/* Points in the SVG file out/name; -1 when it does not parse. */
static int svg_points(const char *out, const char *name)
{
    char p[200];
    snprintf(p, sizeof p, "%s/%s", out, name);
    xmlDocPtr svg = xmlReadFile(p, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    int n = count(svg, "//s:g[@class='point']", SVG);
    xmlFreeDoc(svg);
    return n;
}

/* The text of out/name ("" when it cannot be read); free it. */
static char *slurp(const char *out, const char *name)
{
    char p[200];
    snprintf(p, sizeof p, "%s/%s", out, name);
    FILE *f = fopen(p, "r");
    char *buf = calloc(1, 1 << 16);
    if (f && buf)
        buf[fread(buf, 1, (1 << 16) - 1, f)] = '\0';
    if (f)
        fclose(f);
    return buf;
}

/* The table row of the case in `layer` in md ("" when there is none). */
static const char *row_of(const char *md, const char *layer, char *buf, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "| %s |", layer);
    const char *a = strstr(md, key), *e = a ? strchr(a, '\n') : NULL;
    snprintf(buf, len, "%.*s", a && e ? (int)(e - a) : 0, a ? a : "");
    return buf;
}

/* One CPU and one GPU: two charts, each case under its own device. */
static void check_devices(const kb_ceilings *cpu_only)
{
    char text[4096], err[256], row[512];
    snprintf(text, sizeof text, gpu_results_fmt, SYNTH_UUID);
    put("gpu.jsonl", text);
    snprintf(text, sizeof text, gpu_results_fmt, "GPU-5e5e5e5e-0000-0000-0000-000000000002");
    put("gpu_other.jsonl", text);
    kb_ceilings *c = calloc(1, sizeof *c);
    if (!c)
        return;
    *c = *cpu_only;
    kb_device *g = &c->devices[c->ndevices++];
    memset(g, 0, sizeof *g);
    snprintf(g->kind, sizeof g->kind, "cuda");
    snprintf(g->model, sizeof g->model, "Synthetic GPU");
    g->have_gpu = true, g->ecc = -1;   /* its identity is saved */
    snprintf(g->uuid, sizeof g->uuid, "%s", SYNTH_UUID);
    kb_device_add_ceiling(g, KB_CEIL_COMPUTE, "fma-fp32", "fp32", 50000, 0);
    kb_device_add_ceiling(g, KB_CEIL_MEMORY, "stream-triad", "DRAM", 3000, 0);
    CHECK(kb_ceilings_save(c, at("two.json"), err, sizeof err) == 0);

    const char *a[] = {at("gpu.jsonl"), "--peaks", at("two.json"), "--outdir", at("g1")};
    CHECK(report(5, a) == KB_EXIT_OK);
    CHECK(svg_points(at("g1"), "roofline.svg") == 1);     /* the CPU's */
    CHECK(svg_points(at("g1"), "roofline-2.svg") == 1);   /* the GPU's */
    char *md = slurp(at("g1"), "report.md"), *s1 = slurp(at("g1"), "roofline.svg"),
         *s2 = slurp(at("g1"), "roofline-2.svg");
    CHECK(md && s1 && s2);
    if (md && s1 && s2) {
        CHECK(strstr(md, "### CPU: Synthetic CPU") != NULL);
        CHECK(strstr(md, "### cuda GPU: Synthetic GPU (" SYNTH_UUID ")") != NULL);
        CHECK(strstr(md, "](roofline-2.svg)") != NULL);
        CHECK(strstr(s1, "kbench roofline: Synthetic CPU") && !strstr(s1, "Synthetic GPU"));
        CHECK(strstr(s2, "kbench roofline: Synthetic GPU") != NULL);
        /* the CPU case under 200 GFLOP/s, the GPU case under 50000 */
        CHECK(strstr(row_of(md, "conv1", row, sizeof row),
                     "| 100 | 200 | 200 | 50.00 | compute |"));
        CHECK(strstr(row_of(md, "fc1000", row, sizeof row),
                     "| 30000 | 1000 | 50000 | 60.00 | compute |  |"));
        /* the GPU section comes after the CPU's and holds the cuda case */
        const char *gpu = strstr(md, "### cuda GPU");
        CHECK(gpu && strstr(gpu, "| fc1000 |") && !strstr(gpu, "| conv1 |"));
    }
    free(md), free(s1), free(s2);
    char *html = slurp(at("g1"), "report.html");
    CHECK(html && strstr(html, "<h3>cuda GPU: Synthetic GPU"));
    free(html);

    /* another GPU of the kind: under the first cuda device's, said so */
    const char *b[] = {at("gpu_other.jsonl"), "--peaks", at("two.json"), "--outdir", at("g2")};
    CHECK(report(5, b) == KB_EXIT_OK);
    md = slurp(at("g2"), "report.md");
    CHECK(md && strstr(row_of(md, "fc1000", row, sizeof row),
                       "| 50000 | 60.00 | compute | under cuda Synthetic GPU " SYNTH_UUID
                       "'s ceilings: none were measured on this GPU |"));
    free(md);

    /* no cuda device in the ceilings: the GPU case is not placed, and the
     * report says why; the CPU case still is */
    const char *d[] = {at("gpu.jsonl"), "--peaks", at("peaks.json"), "--outdir", at("g3")};
    CHECK(report(5, d) == KB_EXIT_OK);
    CHECK(svg_points(at("g3"), "roofline.svg") == 1);
    CHECK(svg_points(at("g3"), "roofline-2.svg") == 1);
    md = slurp(at("g3"), "report.md");
    CHECK(md && strstr(md, "- resnet50 fc1000 gemm on cuda: no ceilings for cuda device "
                       SYNTH_UUID ": run kbench peaks on that machine"));
    CHECK(md && strstr(row_of(md, "fc1000", row, sizeof row), "| - | - | - |"));
    CHECK(md && strstr(row_of(md, "conv1", row, sizeof row), "| 200 | 50.00 | compute |"));
    free(md);
    free(c);
}

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

/* a machine: fp32 200, fp64 100 GFLOP/s, DRAM 20 GB/s (made in main) */
static kb_ceilings *c;

static void test_devices(void) { check_devices(c); }

/* one file: 3 PASSED points, none above its roof (the GEMM makes
 * 5 GFLOP/s at AI 1 under a 20 GB/s roof) */
static void test_one_file(void)
{
    const char *a1[] = {at("r1.jsonl"), "--peaks", at("peaks.json"), "--outdir", at("o1")};
    CHECK(report(5, a1) == KB_EXIT_OK);
    check_outputs(at("o1"), 3, 0);
}

/* overlay: both sets, 6 points; a tighter roof flags the GEMM
 * (5 GFLOP/s > 1 x 2 GB/s) in both */
static void test_overlay(void)
{
    char err[256];
    double dram = c->devices[0].ceilings[2].value;
    c->devices[0].ceilings[2].value = 2;
    CHECK(kb_ceilings_save(c, at("slow.json"), err, sizeof err) == 0);
    c->devices[0].ceilings[2].value = dram;
    const char *a2[] = {at("r1.jsonl"), at("r2.jsonl"), "--peaks", at("slow.json"),
                        "--outdir", at("o2")};
    CHECK(report(6, a2) == KB_EXIT_OK);
    check_outputs(at("o2"), 6, 2);
}

/* no ceilings: still a chart and tables, and the report says so */
static void test_no_ceilings(void)
{
    const char *a3[] = {at("r1.jsonl"), "--outdir", at("o3")};
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
}

/* bad inputs are usage errors */
static void test_bad_inputs(void)
{
    const char *b1[] = {at("r1.jsonl"), "--peaks", at("notpeaks.json"), "--outdir", at("o4")};
    CHECK(report(5, b1) == KB_EXIT_USAGE);
    const char *b2[] = {at("r1.jsonl"), "--peaks", at("missing.json"), "--outdir", at("o4")};
    CHECK(report(5, b2) == KB_EXIT_USAGE);
    const char *b3[] = {at("bad.jsonl"), "--outdir", at("o4")};
    CHECK(report(3, b3) == KB_EXIT_USAGE);
    const char *b4[] = {at("empty.jsonl"), "--outdir", at("o4")};
    CHECK(report(3, b4) == KB_EXIT_USAGE);
    const char *b5[] = {at("r1.jsonl")};
    CHECK(report(1, b5) == KB_EXIT_USAGE);
    const char *b6[] = {at("nope.jsonl"), "--outdir", at("o4")};
    CHECK(report(3, b6) == KB_EXIT_USAGE);
    const char *b7[] = {at("r1.jsonl"), "--level", "L4", "--outdir", at("o4")};
    CHECK(report(5, b7) == KB_EXIT_USAGE);
}

/* read as compare and check read results: another schema, or a line
 * that is not JSON, is refused with its file and line */
static void test_results_reader(void)
{
    char msg[2048], where[256];
    const char *b8[] = {at("schema1.jsonl"), "--outdir", at("o4")};
    CHECK(report_err(3, b8, msg, sizeof msg) == KB_EXIT_USAGE);
    snprintf(where, sizeof where, "kbench report: %s:1: schema \"kbench.results/1\"",
             at("schema1.jsonl"));
    CHECK(strstr(msg, where) != NULL);
    const char *b9[] = {at("bad.jsonl"), "--outdir", at("o4")};
    CHECK(report_err(3, b9, msg, sizeof msg) == KB_EXIT_USAGE);
    snprintf(where, sizeof where, "kbench report: %s:2: ", at("bad.jsonl"));
    CHECK(strstr(msg, where) != NULL);
    CHECK(access(at("o4"), F_OK) != 0);   /* nothing written */
}

/* --k=v, and the old --out DIR: still written, with a notice */
static void test_spellings(void)
{
    char msg[2048];
    char eq[200];
    snprintf(eq, sizeof eq, "--outdir=%s", at("o5"));
    const char *c1[] = {at("r1.jsonl"), "--level=DRAM", eq};
    CHECK(report(3, c1) == KB_EXIT_OK);
    check_outputs(at("o5"), 3, 0);
    const char *c2[] = {at("r1.jsonl"), "--out", at("o6")};
    CHECK(report_err(3, c2, msg, sizeof msg) == KB_EXIT_OK);
    CHECK(strstr(msg, "kbench report: --out is now --outdir") != NULL);
    check_outputs(at("o6"), 3, 0);
}

static const check_test tests[] = {
    CHECK_TEST(devices), CHECK_TEST(one_file), CHECK_TEST(overlay),
    CHECK_TEST(no_ceilings), CHECK_TEST(bad_inputs), CHECK_TEST(results_reader),
    CHECK_TEST(spellings), CHECK_END};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    put("r1.jsonl", results_text);
    put("r2.jsonl", results_text);
    put("bad.jsonl", RUN_HEAD "\"host\":\"h1\"}\nnot json\n");
    put("schema1.jsonl", "{\"type\":\"run\",\"schema\":\"kbench.results/1\","
                         "\"host\":\"h1\"}\n");
    put("empty.jsonl", "");
    /* a machine: fp32 200, fp64 100 GFLOP/s, DRAM 20 GB/s */
    c = calloc(1, sizeof *c);
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
    int status = check_main(argc, argv, tests);
    free(c);
    xmlCleanupParser();
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
    return status;
}
