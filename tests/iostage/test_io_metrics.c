/* test_io_metrics.c - the figures of `kbench io run` under their two
 * conventions: DLIO 2.0.0's (AU, samples/s with the first step, MiB/s)
 * recomputed from the record's own windows, kbench's (steady samples/s,
 * MB/s, first step), the last batch with and without drop_last, the step
 * limit, checkpoints outside both windows, and --skip-corrupt on a
 * dataset of which nothing, or a third, can be read. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/bitmap.h"
#include "iostage/stage.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

static const char *profiles = KB_IO_TEST_PROFILES;
static char err[16384];

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    CHECK(cJSON_IsNumber(v));
    if (!cJSON_IsNumber(v))
        fprintf(stderr, "  no number '%s'\n", key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool near(double a, double b, double tol)
{
    bool ok = fabs(a - b) <= tol;
    if (!ok)
        fprintf(stderr, "  %.12g vs %.12g (tolerance %.3g)\n", a, b, tol);
    return ok;
}

/* Relative to the larger magnitude: formulas over the same doubles. */
static bool same(double a, double b)
{
    return near(a, b, 1e-9 * fmax(fabs(a), fabs(b)));
}

/* The monotonic clock's resolution, in seconds. */
static double clock_res(void)
{
    struct timespec r;
    clock_getres(CLOCK_MONOTONIC, &r);
    return (double)r.tv_sec + (double)r.tv_nsec * 1e-9;
}

/* Records of a JSON Lines file of `want` records of kind `record`
 * (others, such as io_checkpoint, are counted in *other). */
static int epochs_of(const char *path, cJSON **out, int want, int *other)
{
    int n, k = 0;
    cJSON **recs = io_test_jsonl(path, &n);
    if (other)
        *other = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *r = cJSON_GetObjectItem(recs[i], "type");
        if (cJSON_IsString(r) && strcmp(r->valuestring, "io_epoch") == 0 &&
            k < want) {
            out[k++] = recs[i];
            recs[i] = NULL;
        } else if (other) {
            (*other)++;
        }
    }
    io_test_jsonl_free(recs, n);
    return k;
}

/* Ids delivered in a record's bitmap: the count, all in [lo, hi). */
static int64_t bitmap_count(const cJSON *o)
{
    int64_t total = (int64_t)num(o, "samples_total");
    int64_t lo = (int64_t)num(o, "sample_lo"), hi = (int64_t)num(o,
                                                                 "sample_hi");
    const cJSON *t = cJSON_GetObjectItem(o, "delivered_bitmap");
    CHECK(cJSON_IsString(t));
    uint8_t *bits = calloc((size_t)(total + 7) / 8 + 1, 1);
    char e[KB_IO_ERRLEN];
    int64_t n = 0;
    if (bits && cJSON_IsString(t) &&
        kb_io_bitmap_decode(t->valuestring, 0, total, bits, e, sizeof e) == 0)
        for (int64_t id = 0; id < total; id++)
            if (bits[id / 8] & (1u << (id % 8))) {
                n++;
                CHECK(id >= lo && id < hi);
            }
    free(bits);
    return n;
}

/* DLIO's definitions from the record's own windows, kbench's beside. */
static char *root;      /* a temporary directory, made in main */
static char dir[600];   /* root/bert: the bert dataset, generated in main */

static void check_figures(const cJSON *o, double sleep, int64_t sample_bytes)
{
    double tol = 4 * clock_res() + 1e-9;
    double steps = num(o, "steps"), batch = num(o, "batch");
    double window = num(o, "dlio_window_s"), first = num(o,
                                                         "dlio_first_step_s");
    double comp = num(o, "dlio_compute_s"), wall = num(o, "wall_s");
    double au = num(o, "train_au_percentage");
    double tput = num(o, "train_throughput_samples_per_second");
    double mib = num(o, "train_io_mean_MB_per_second");
    CHECK(num(o, "dlio_blocks") == 1);
    /* DLIO records the compute it asked for, each step after the first */
    CHECK(near(comp, (steps - 1) * sleep, 1e-12));
    CHECK(window >= steps * sleep - tol && window <= wall + tol);
    CHECK(first >= sleep - tol && first < window);
    CHECK(same(au, 100 * comp / (window - first)));
    CHECK(au > 0 && au <= 100);
    /* the window includes the first step; steps x batch, as DLIO counts */
    CHECK(same(tput, steps * batch / window));
    CHECK(same(mib, tput * (double)sample_bytes / 1024 / 1024));
    double mb = tput * (double)sample_bytes / 1e6;
    CHECK(near(mb / mib, 1.048576, 1e-12));
    /* kbench: the first step apart, then the steady window */
    double kfirst = num(o, "kb_first_step_s"), steady = num(o, "kb_steady_s");
    CHECK(near(kfirst + steady, window, tol));
    CHECK(kfirst >= sleep - tol);
    CHECK(same(num(o, "kb_steady_samples_per_second"),
               (num(o, "samples") - batch) / steady));
    CHECK(same(num(o, "kb_read_MB_per_second"),
               num(o, "bytes_read") / 1e6 / wall));
    CHECK(same(num(o, "kb_nominal_MB_per_second"),
               num(o, "samples") * (double)sample_bytes / 1e6 / wall));
    /* each figure's convention, and every one named is in the record */
    const cJSON *conv = cJSON_GetObjectItem(o, "conventions");
    CHECK(cJSON_IsObject(conv));
    const char *dlio[] = {"train_au_percentage",
                          "train_throughput_samples_per_second",
                          "train_io_mean_MB_per_second"};
    for (int i = 0; i < 3; i++) {
        const cJSON *c = cJSON_GetObjectItem(conv, dlio[i]);
        CHECK(cJSON_IsString(c) && strcmp(c->valuestring, "dlio-2.0.0") == 0);
    }
    int kb = 0;
    for (const cJSON *c = conv ? conv->child : NULL; c; c = c->next) {
        CHECK(cJSON_GetObjectItem(o, c->string) != NULL);
        if (strncmp(c->string, "kb_", 3) == 0) {
            kb++;
            CHECK(strcmp(c->valuestring, "kbench") == 0);
        }
    }
    CHECK(kb >= 5);
}

static void test_figures(void)
{
    char json[700];
    snprintf(json, sizeof json, "%s/fig.jsonl", root);
    CHECK(io_test_cmd(NULL, 0, "run", "--profiles", profiles, "--profile",
                      "bert", "--dir", dir, "--compute", "sleep:0.002",
                      "--epochs", "2", "--json", json, "--quiet", NULL) == 0);
    cJSON *r[2] = {0};
    CHECK(epochs_of(json, r, 2, NULL) == 2);
    for (int i = 0; i < 2 && r[i]; i++) {
        /* 150 samples, batch 16: the partial last batch is a step */
        CHECK(num(r[i], "steps") == 10 && num(r[i], "samples") == 150);
        /* the head: type, schema, and the run's provenance, its threads
         * the readers and its command line this one */
        CHECK(io_test_head_ok(r[i], "io_epoch"));
        CHECK(num(r[i], "threads") == num(r[i], "readers"));
        CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
                  r[i], "command_line")), "kbench io run --profiles") != NULL);
        check_figures(r[i], 0.002, 100);
        CHECK(bitmap_count(r[i]) == 150);
        cJSON_Delete(r[i]);
    }
}

/* One epoch of bert with extra options: its record in *o (delete it). */
static int run_bert(const char *dir, const char *json, cJSON **o,
                    const char *a, const char *b, const char *c,
                    const char *d)
{
    int rc = io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                         "--profile", "bert", "--dir", dir, "--compute",
                         "sleep:0", "--json", json, "--quiet", a, b, c, d,
                         NULL);
    *o = NULL;
    if (rc == 0)
        CHECK(epochs_of(json, o, 1, NULL) == 1);
    return rc;
}

/* steps, samples, dropped_last, not_reached and the step limit. */
static void expect_counts(const cJSON *o, double steps, double samples,
                          double dropped, double not_reached, double limit)
{
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK(num(o, "steps") == steps);
    CHECK(num(o, "samples") == samples);
    CHECK(num(o, "dropped_last_samples") == dropped);
    CHECK(num(o, "not_reached_samples") == not_reached);
    CHECK(num(o, "steps_limit") == limit);
    CHECK(bitmap_count(o) == samples);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "exactly_once")));
}

static void test_last_batch(void)
{
    char json[700];
    snprintf(json, sizeof json, "%s/last.jsonl", root);
    cJSON *o;
    /* 150 = 9 x 16 + 6: DLIO drops the 6, kbench's profiles keep them */
    CHECK(run_bert(dir, json, &o, "--drop-last", "yes", NULL, NULL) == 0);
    expect_counts(o, 9, 144, 6, 0, 9);
    CHECK(o && cJSON_IsTrue(cJSON_GetObjectItem(o, "drop_last")));
    cJSON_Delete(o);
    CHECK(run_bert(dir, json, &o, "--drop-last", "no", NULL, NULL) == 0);
    expect_counts(o, 10, 150, 0, 0, 0);
    cJSON_Delete(o);
    /* a step limit: the rest is counted as not reached */
    CHECK(run_bert(dir, json, &o, "--steps", "4", NULL, NULL) == 0);
    expect_counts(o, 4, 64, 0, 86, 4);
    cJSON_Delete(o);
    CHECK(run_bert(dir, json, &o, "--steps", "4", "--drop-last", "yes") == 0);
    expect_counts(o, 4, 64, 0, 86, 4);
    cJSON_Delete(o);
    /* a limit beyond the data: the epoch ends with the data */
    CHECK(run_bert(dir, json, &o, "--steps", "20", NULL, NULL) == 0);
    expect_counts(o, 10, 150, 0, 0, 20);
    cJSON_Delete(o);
    CHECK(run_bert(dir, json, &o, "--steps", "9", "--drop-last", "yes") == 0);
    expect_counts(o, 9, 144, 6, 0, 9);
    cJSON_Delete(o);
    /* a batch larger than the data leaves drop_last no step */
    CHECK(run_bert(dir, json, &o, "--drop-last", "yes", "--batch", "151") ==
          2);
    CHECK(strstr(err, "less than a batch of 151") != NULL);
}

/* Checkpoints between steps are outside both windows: DLIO's blocks end
 * before each, kbench's steady window has them taken out. */
static void test_checkpoints(void)
{
    char json[700], ck[700];
    snprintf(json, sizeof json, "%s/ck.jsonl", root);
    snprintf(ck, sizeof ck, "%s/ckpt", root);
    CHECK(mkdir(ck, 0755) == 0);
    int rc = io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                         "--profile", "bert", "--dir", dir, "--compute",
                         "sleep:0.002", "--json", json, "--quiet",
                         "--checkpoint-dir", ck, "--every-steps", "4", NULL);
    CHECK(rc == 0);
    cJSON *o = NULL;
    int other = 0;
    CHECK(rc || epochs_of(json, &o, 1, &other) == 1);
    if (!o)
        return;
    double tol = 4 * clock_res() + 1e-9;
    double stall = num(o, "checkpoint_stall_s");
    /* steps 4 and 8 of 10 */
    CHECK(other == 2);
    CHECK(stall > 0);
    CHECK(num(o, "dlio_blocks") == 3);
    double kb = num(o, "kb_first_step_s") + num(o, "kb_steady_s");
    /* DLIO's windows also leave out the loads between a block's end and
     * its checkpoint, kbench's steady window only the checkpoints */
    CHECK(num(o, "dlio_window_s") <= kb + tol);
    CHECK(kb + stall <= num(o, "wall_s") + tol);
    /* three blocks, the first step of each left out of DLIO's compute */
    CHECK(near(num(o, "dlio_compute_s"), (10 - 3) * 0.002, 1e-12));
    cJSON_Delete(o);
}

static void test_skip_corrupt(void)
{
    char dir[600], path[700], json[700], out[8192];
    snprintf(dir, sizeof dir, "%s/skip", root);
    snprintf(json, sizeof json, "%s/skip.jsonl", root);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      "bert", "--dir", dir, "--threads", "1", NULL) == 0);
    /* a third of the files: counted, and the fractions reported */
    snprintf(path, sizeof path, "%s/bert_000001.tfrecord", dir);
    CHECK(io_test_flip(path, 1000, 0x01) == 0);
    CHECK(io_test_cmd_out(out, sizeof out, "run", "--profiles", profiles,
                          "--profile", "bert", "--dir", dir, "--json", json,
                          "--skip-corrupt", NULL) == 0);
    CHECK(strstr(out, "skipped: 1 of 3 files (33.3 %), 50 of 150 samples "
                      "(33.3 %)") != NULL);
    cJSON *o = NULL;
    CHECK(epochs_of(json, &o, 1, NULL) == 1);
    if (o) {
        CHECK(num(o, "samples") == 100 && num(o, "skipped_samples") == 50);
        CHECK(near(num(o, "skipped_files_fraction"), 1.0 / 3, 1e-12));
        CHECK(near(num(o, "skipped_samples_fraction"), 50.0 / 150, 1e-12));
        cJSON_Delete(o);
    }
    /* every file: nothing could be read, an error whatever --skip-corrupt
     * says */
    for (int f = 0; f < 3; f += 2) {
        snprintf(path, sizeof path, "%s/bert_%06d.tfrecord", dir, f);
        CHECK(io_test_flip(path, 1000, 0x01) == 0);
    }
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", dir, "--json", json,
                      "--skip-corrupt", "--quiet", NULL) == 1);
    CHECK(strstr(err, "nothing could be read") != NULL);
    CHECK(strstr(err, "3 of 3 files skipped") != NULL);
}

static const check_test tests[] = {
    CHECK_TEST(figures), CHECK_TEST(last_batch), CHECK_TEST(checkpoints),
    CHECK_TEST(skip_corrupt), CHECK_END};

int main(int argc, char **argv)
{
    root = io_test_mkdtemp();
    snprintf(dir, sizeof dir, "%s/bert", root);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      "bert", "--dir", dir, "--threads", "1", NULL) == 0);
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
