/* test_merge.c - `kbench merge` on synthetic nodes: a node slow on one
 * case is flagged there and not overall, a node slow on every case is
 * flagged on each and overall, tight nodes are never flagged, MAD == 0
 * falls back to 1 % of the median, --z moves the threshold, missing and
 * unpassed cases are kept, labels stay distinct, duplicates are listed;
 * the SVG parses and marks the outliers. */
#define _GNU_SOURCE   /* mkdtemp */
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "tests/check.h"

#include <cjson/cJSON.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define NCASES 4
#define MAXNODES 8

static char dir[] = "/tmp/kb_merge_XXXXXX";

static char *at(const char *name)
{
    static char buf[32][256];
    static int k;
    k = (k + 1) % 32;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* A node's file: GFLOP/s per case (flops 1e9, three samples of 1/g s);
 * 0 leaves the case out, a negative value records it FAILED. */
static char *node_file(const char *name, const char *host, const double g[NCASES])
{
    static const double base[NCASES] = {100, 50, 200, 10};
    char *path = at(name);
    FILE *f = fopen(path, "w");
    if (!f)
        return path;
    fprintf(f, "{\"type\":\"run\",\"schema\":\"kbench.results/2\",\"host\":\"%s\"}\n", host);
    for (int c = 0, seq = 1; c < NCASES; c++) {
        if (g[c] == 0)
            continue;
        fprintf(f, "{\"type\":\"case\",\"seq\":%d,\"desc\":\"mb1ic4ih8oc8n%d\",\"model\":"
                "\"m\",\"layer\":\"l%d\",\"count\":1,\"kernel\":\"conv2d\",\"backend\":\"omp\","
                "\"dtype\":\"f32\",\"layout\":\"NCHW\",\"dir\":\"FWD_D\",\"flops\":1e9,"
                "\"bytes\":1e6,", seq++, c, c);
        if (g[c] < 0)
            fprintf(f, "\"status\":\"FAILED\",\"reason\":\"dst[0]: got 1, expected 2\"}\n");
        else {
            double t = 1 / (base[c] * g[c]);
            fprintf(f, "\"samples_s\":[%.17g,%.17g,%.17g],\"status\":\"PASSED\","
                    "\"reason\":\"\"}\n", t, t, t);
        }
    }
    fprintf(f, "{\"type\":\"summary\"}\n");
    fclose(f);
    return path;
}

static int merge(int n, char **args)
{
    char *argv[32] = {"merge"};
    for (int i = 0; i < n; i++)
        argv[i + 1] = args[i];
    return kb_verb_main(&kb_verb_merge, NULL, n + 1, argv);
}

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "r");
    static char text[1 << 20];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    return cJSON_Parse(text);
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

/* "slow", "fast" or "" of cell (case c, node i), or of node i when c < 0. */
static const char *flag(const cJSON *doc, int c, int i)
{
    const cJSON *o;
    if (c < 0)
        o = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), i);
    else
        o = cJSON_GetArrayItem(cJSON_GetObjectItem(
                cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), c), "cells"), i);
    const cJSON *v = cJSON_GetObjectItem(o, "outlier");
    return cJSON_IsString(v) ? v->valuestring : o ? "" : "(absent)";
}

/* Merge nodes with factors x[node][case] into out.json; returns the doc. */
static cJSON *merge_nodes(int n, const double x[][NCASES], const char *extra)
{
    char *args[MAXNODES + 4];
    char name[32], host[32];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "n%d.jsonl", i);
        snprintf(host, sizeof host, "node%d", i);
        args[i] = node_file(name, host, x[i]);
    }
    unlink(at("out.json"));
    args[n] = "--json", args[n + 1] = at("out.json");
    int k = n + 2;
    if (extra)
        args[k++] = "--z", args[k++] = (char *)extra;
    CHECK(merge(k, args) == KB_EXIT_OK);
    return load_json(at("out.json"));
}

static int count_flags(const cJSON *doc, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        k += flag(doc, -1, i)[0] != '\0';
        for (int c = 0; c < NCASES; c++)
            k += flag(doc, c, i)[0] != '\0';
    }
    return k;
}

/* Six nodes: node 4 40 % slow on case 1 only, node 5 30 % slow on all. */
static void test_slow_nodes(void)
{
    static const double x[6][NCASES] = {
        {1.00, 1.00, 1.00, 1.00}, {1.01, 0.995, 1.005, 0.99}, {0.99, 1.005, 0.995, 1.01},
        {1.005, 0.99, 1.01, 1.00}, {0.995, 0.60, 1.00, 1.005}, {0.70, 0.70, 0.70, 0.70}};
    cJSON *doc = merge_nodes(6, x, NULL);
    CHECK(doc != NULL);
    CHECK_STR(flag(doc, 1, 4), "slow");
    CHECK_STR(flag(doc, -1, 4), "");          /* one case of four: not overall */
    for (int c = 0; c < NCASES; c++)
        CHECK_STR(flag(doc, c, 5), "slow");
    CHECK_STR(flag(doc, -1, 5), "slow");
    CHECK(count_flags(doc, 6) == 6);          /* nothing else flagged */
    const cJSON *n5 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "nodes"), 5);
    CHECK_NEAR(cJSON_GetObjectItem(n5, "relative")->valuedouble, 0.70, 0.01);
    CHECK_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "rule"), "z_threshold")
                   ->valuedouble, 3.5, 0);
    cJSON_Delete(doc);
}

/* Nodes within +-1.5 % of each other: no flag anywhere. */
static void test_tight(void)
{
    static const double x[6][NCASES] = {
        {1.00, 1.00, 1.00, 1.00}, {1.01, 0.99, 1.015, 0.985}, {0.99, 1.01, 0.985, 1.015},
        {1.015, 0.985, 1.01, 0.99}, {0.985, 1.015, 0.99, 1.01}, {1.005, 0.995, 1.005, 0.995}};
    cJSON *doc = merge_nodes(6, x, NULL);
    CHECK(doc != NULL);
    CHECK(count_flags(doc, 6) == 0);
    cJSON_Delete(doc);
}

/* Five equal nodes (MAD 0): the spread is 1 % of the median, so 10 % off
 * is flagged (z -10), 3 % off is not at 3.5 (z -3) but is at --z 2.5. */
static void test_mad_zero(void)
{
    static const double equal[6][NCASES] = {
        {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    static const double off[6][NCASES] = {
        {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 0.97, 1},
        {1, 0.9, 1, 1}};
    cJSON *doc = merge_nodes(6, equal, NULL);
    CHECK(count_flags(doc, 6) == 0);
    const cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0), "cells"), 3);
    CHECK_NEAR(cJSON_GetObjectItem(cell, "z")->valuedouble, 0, 0);
    cJSON_Delete(doc);

    doc = merge_nodes(6, off, NULL);
    CHECK_STR(flag(doc, 1, 5), "slow");
    CHECK_STR(flag(doc, 2, 4), "");
    cell = cJSON_GetArrayItem(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 1), "cells"), 5);
    CHECK_NEAR(cJSON_GetObjectItem(cell, "z")->valuedouble, -10, 1e-9);
    CHECK(count_flags(doc, 6) == 1);
    cJSON_Delete(doc);

    doc = merge_nodes(6, off, "2.5");
    CHECK_STR(flag(doc, 2, 4), "slow");
    CHECK(count_flags(doc, 6) == 2);
    cJSON_Delete(doc);
}

/* A fast node is flagged fast; a missing and a FAILED case are kept with
 * their state and listed; two nodes alone judge nothing. */
static void test_missing_failed_fast(void)
{
    static const double x[5][NCASES] = {
        {1, 1, 1, 1}, {1, 1, -1, 1}, {1, 1, 1, 1}, {1.5, 1, 1, 1}, {1, 1, 1, 0}};
    cJSON *doc = merge_nodes(5, x, NULL);
    const cJSON *cases = cJSON_GetObjectItem(doc, "cases");
    CHECK(cJSON_GetArraySize(cases) == NCASES);
    CHECK_STR(flag(doc, 0, 3), "fast");
    const cJSON *failed = cJSON_GetArrayItem(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cases, 2), "cells"), 1);
    const cJSON *missing = cJSON_GetArrayItem(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cases, 3), "cells"), 4);
    CHECK_STR(cJSON_GetObjectItem(failed, "status")->valuestring, "FAILED");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(failed, "gflops")));
    CHECK_STR(cJSON_GetObjectItem(missing, "status")->valuestring, "missing");
    cJSON_Delete(doc);

    char *args[] = {at("n0.jsonl"), at("n1.jsonl"), at("n2.jsonl"), at("n3.jsonl"),
                    at("n4.jsonl"), "--md", at("t.md")};
    CHECK(merge(7, args) == KB_EXIT_OK);
    const char *md = slurp(at("t.md"));
    CHECK(strstr(md, "|z| > 3.5") != NULL);
    CHECK(strstr(md, "m/l3/conv2d/omp: missing on node4") != NULL);
    CHECK(strstr(md, "node1 on m/l2/conv2d/omp: FAILED: dst[0]: got 1") != NULL);
    CHECK(strstr(md, "| FAILED |") != NULL);
    CHECK(strstr(md, "↑**") != NULL);

    static const double two[2][NCASES] = {{1, 1, 1, 1}, {0.5, 0.5, 0.5, 0.5}};
    doc = merge_nodes(2, two, NULL);
    CHECK(count_flags(doc, 2) == 0);
    cases = cJSON_GetObjectItem(doc, "cases");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, 0), "judged")));
    cJSON_Delete(doc);
}

/* Two cases that differ only in dtype get labels that say so; a case
 * recorded twice in one file is merged once and listed. */
static void test_labels_and_duplicates(void)
{
    static const char *const rec =
        "{\"type\":\"case\",\"seq\":1,\"desc\":\"m8n8k8\",\"model\":\"m\","
        "\"layer\":\"fc\",\"count\":1,\"kernel\":\"gemm\",\"backend\":\"omp\","
        "\"dtype\":\"%s\",\"layout\":\"row-major\",\"dir\":\"FWD_D\","
        "\"flops\":1e9,\"bytes\":1e6,\"samples_s\":[0.01],\"status\":\"PASSED\"}\n";
    FILE *f = fopen(at("d.jsonl"), "w");
    if (!f)
        return;
    fprintf(f, "{\"type\":\"run\",\"schema\":\"kbench.results/2\",\"host\":\"d\"}\n");
    fprintf(f, rec, "f32");
    fprintf(f, rec, "f64");
    fprintf(f, rec, "f32");
    fprintf(f, "{\"type\":\"summary\"}\n");
    fclose(f);
    char *args[] = {at("d.jsonl"), "--json", at("d.json")};
    CHECK(merge(3, args) == KB_EXIT_OK);
    cJSON *doc = load_json(at("d.json"));
    const cJSON *cases = cJSON_GetObjectItem(doc, "cases");
    CHECK(cJSON_GetArraySize(cases) == 2);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, 0), "label")->valuestring,
              "m/fc/gemm/omp/f32/row-major/FWD_D");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cases, 1), "label")->valuestring,
              "m/fc/gemm/omp/f64/row-major/FWD_D");
    const cJSON *dups = cJSON_GetObjectItem(doc, "duplicates");
    CHECK(cJSON_GetArraySize(dups) == 1);
    CHECK(cJSON_GetObjectItem(cJSON_GetArrayItem(dups, 0), "line")->valueint == 4);
    cJSON_Delete(doc);
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

/* The figure: a strip per case and the overall strip, a dot per node and
 * strip, the six outliers marked; the Markdown links to it; node names
 * with markup survive as text; repeated hosts get their file's name. */
static void test_figure(void)
{
    static const double x[6][NCASES] = {
        {1.00, 1.00, 1.00, 1.00}, {1.01, 0.995, 1.005, 0.99}, {0.99, 1.005, 0.995, 1.01},
        {1.005, 0.99, 1.01, 1.00}, {0.995, 0.60, 1.00, 1.005}, {0.70, 0.70, 0.70, 0.70}};
    char *args[12];
    char name[32];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "f%d.jsonl", i);
        args[i] = node_file(name, i < 5 ? "a<&>b" : "same", x[i]);
    }
    mkdir(at("sub"), 0777);
    args[6] = "--md", args[7] = at("sub/table.md");
    args[8] = "--svg", args[9] = at("fig.svg");
    CHECK(merge(10, args) == KB_EXIT_OK);
    xmlDocPtr doc = xmlReadFile(at("fig.svg"), NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);
    CHECK(count(doc, "//s:g[contains(@class,'strip')]") == NCASES + 1);
    CHECK(count(doc, "//s:g[starts-with(@class,'dot')]") == 6 * (NCASES + 1));
    CHECK(count(doc, "//s:g[@class='dot outlier']") == 6);
    CHECK(count(doc, "//s:g[@class='dot outlier']/s:text[.='same']") == 5);
    CHECK(count(doc, "//s:title[starts-with(.,'a<&>b (f1.jsonl)')]") == NCASES + 1);
    xmlFreeDoc(doc);
    const char *md = slurp(at("sub/table.md"));
    CHECK(strstr(md, "](../fig.svg)") != NULL);
    CHECK(strstr(md, "| a&lt;&>b (f0.jsonl) |") != NULL);
    CHECK(strstr(md, "| **overall** |") != NULL);
}

static const check_test tests[] = {
    CHECK_TEST(slow_nodes), CHECK_TEST(tight), CHECK_TEST(mad_zero),
    CHECK_TEST(missing_failed_fast), CHECK_TEST(figure),
    CHECK_TEST(labels_and_duplicates), CHECK_END};

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
