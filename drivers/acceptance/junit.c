/* junit.c - check's verdicts as JUnit XML (junit.h): one testsuite per
 * node, one testcase per case; FAIL as <failure>, ERROR as <error>,
 * unjudged as <skipped>. */
#define _GNU_SOURCE   /* open_memstream */
#include "drivers/acceptance/junit.h"

#include "drivers/common/atomic_file.h"
#include "drivers/common/escape.h"
#include "drivers/results/results.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A string member of the run record, "" when absent. */
static const char *run_str(const kb_check_node *node, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(node->file->run, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Seconds the case's timed repetitions took: the testcase's time. */
static double item_time(const kb_check_item *it)
{
    double t = 0;
    for (int64_t i = 0; it->c && i < it->c->nsamples; i++)
        t += it->c->samples[i];
    return t;
}

static void attr(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    kb_xml_escape(out, value);
    fputc('"', out);
}

static void property(FILE *out, const char *name, const char *value)
{
    fputs("      <property", out);
    attr(out, "name", name);
    attr(out, "value", value);
    fputs("/>\n", out);
}

static void testcase(FILE *out, const kb_check_node *node,
                     const kb_check_item *it)
{
    char classname[512], name[KB_KEY_LEN + 32];
    snprintf(classname, sizeof classname, "kbench.%s", node->name);
    const char *key = it->band ? it->band->key : NULL;
    char buf[KB_KEY_LEN];
    if (!key)
        key = kb_result_case_key(it->c, true, buf, sizeof buf);
    if (it->repeated)   /* one key twice in a file: keep the names apart */
        snprintf(name, sizeof name, "%s #%lld", key, (long long)it->c->seq);
    else
        snprintf(name, sizeof name, "%s", key);
    fputs("    <testcase", out);
    attr(out, "classname", classname);
    attr(out, "name", name);
    fprintf(out, " time=\"%.6f\">\n", item_time(it));
    static const char *const element[] = {
        [KB_CHECK_FAIL] = "failure", [KB_CHECK_ERROR] = "error",
        [KB_CHECK_UNJUDGED] = "skipped"};
    if (it->result != KB_CHECK_PASS) {
        fprintf(out, "      <%s", element[it->result]);
        attr(out, "message", it->reason);
        if (it->result != KB_CHECK_UNJUDGED)
            attr(out, "type", it->what);
        fputs("/>\n", out);
    } else {
        fputs("      <system-out>", out);
        kb_xml_escape(out, it->reason);
        fputs("</system-out>\n", out);
    }
    fputs("    </testcase>\n", out);
}

static void testsuite(FILE *out, const kb_check_node *node,
                      const char *bands_path)
{
    double time = 0;
    for (size_t i = 0; i < node->nitems; i++)
        time += item_time(&node->items[i]);
    /* JUnit's timestamp has no time zone; the run record's date is UTC. */
    char stamp[64];
    snprintf(stamp, sizeof stamp, "%s", run_str(node, "date"));
    stamp[strcspn(stamp, "Z")] = '\0';
    fputs("  <testsuite", out);
    attr(out, "name", node->name);
    fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\""
            " time=\"%.6f\"", node->nitems, node->failed, node->errors,
            node->unjudged, time);
    attr(out, "timestamp", stamp);
    attr(out, "hostname", node->file->host ? node->file->host : "");
    fputs(">\n    <properties>\n", out);
    property(out, "results", node->file->path);
    property(out, "bands", bands_path);
    property(out, "verdict", kb_check_node_passed(node) ? "PASS" : "FAIL");
    property(out, "cpu_model", run_str(node, "cpu_model"));
    property(out, "git_commit", run_str(node, "git_commit"));
    property(out, "kbench_version", run_str(node, "kbench_version"));
    fputs("    </properties>\n", out);
    for (size_t i = 0; i < node->nitems; i++)
        testcase(out, node, &node->items[i]);
    fputs("  </testsuite>\n", out);
}

int kb_junit_write(const kb_check_node *nodes, size_t n,
                   const char *bands_path, const char *path, char *err,
                   size_t len)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) {
        snprintf(err, len, "%s: out of memory", path);
        return -1;
    }
    size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        tests += nodes[i].nitems, failures += nodes[i].failed;
        errors += nodes[i].errors, skipped += nodes[i].unjudged;
    }
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"kbench check\" tests=\"%zu\" failures=\"%zu\""
            " errors=\"%zu\" skipped=\"%zu\">\n", tests, failures, errors,
            skipped);
    for (size_t i = 0; i < n; i++)
        testsuite(out, &nodes[i], bands_path);
    fputs("</testsuites>\n", out);
    if (fclose(out) != 0) {
        snprintf(err, len, "%s: out of memory", path);
        free(text);
        return -1;
    }
    int rc = kb_write_atomic(path, text, size, err, len);
    free(text);
    return rc;
}
