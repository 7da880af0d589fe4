/* test_io_merge.c - `kbench io merge` over synthetic rank records (bitmaps
 * made by kb_io_bitmap_encode): good merges of 2 and 3 ranks, each way a
 * merge must fail (exit 1) or refuse its input (exit 2); and the rank
 * detection from the launchers' variables and DLIO's shard split. */
#include "io_test_util.h"
#include "check.h"
#include "iostage/bitmap.h"
#include "iostage/rank.h"
#include "iostage/stage.h"
#include "iostage/record.h"

#include <stdio.h>

static char *dir;

/* A rank's record as the test wants it. */
typedef struct {
    const char *profile;
    int64_t epoch, rank, ranks, total;
    int64_t dropped_last;   /* its shard's last samples, accounted for */
    int64_t extra;          /* a sample it also delivers, or -1 */
    int64_t lost;           /* a sample of its shard it does not, or -1 */
    int64_t lo, hi;         /* its shard as recorded; lo < 0: DLIO's */
    const char *bitmap;     /* the text as recorded; NULL: encoded */
    const char *omit;       /* a field left out, or NULL */
    const char *schema;     /* NULL: KB_IO_SCHEMA */
    int64_t samples_off;    /* added to the "samples" it reports */
} fake;

static char *path_of(const char *name)
{
    static char p[8][1024];
    static int k;
    char *s = p[k++ % 8];
    snprintf(s, sizeof p[0], "%s/%s", dir, name);
    return s;
}

/* Append the io_epoch record f to file `name` (in dir) as one line. */
static void put(const char *name, fake f)
{
    kb_io_rank r = {f.rank, f.ranks, "--rank"};
    int64_t lo, hi;
    kb_io_rank_shard(&r, f.total, &lo, &hi);
    uint8_t *bits = calloc((size_t)(f.total + 8) / 8, 1);
    for (int64_t s = lo; s < hi - f.dropped_last; s++)
        bits[s / 8] |= (uint8_t)(1u << (s % 8));
    if (f.extra >= 0)
        bits[f.extra / 8] |= (uint8_t)(1u << (f.extra % 8));
    if (f.lost >= 0)
        bits[f.lost / 8] &= (uint8_t)~(1u << (f.lost % 8));
    char *text = kb_io_bitmap_encode(bits, 0, f.total);
    double sps = 100.0 * (double)(f.rank + 1);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "io_epoch");
    cJSON_AddStringToObject(o, "schema", f.schema ? f.schema : KB_IO_SCHEMA);
    cJSON_AddStringToObject(o, "profile", f.profile ? f.profile : "bert");
    cJSON_AddNumberToObject(o, "epoch", (double)(f.epoch ? f.epoch : 1));
    cJSON_AddNumberToObject(o, "rank", (double)f.rank);
    cJSON_AddNumberToObject(o, "ranks", (double)f.ranks);
    cJSON_AddStringToObject(o, "rank_source", "--rank");
    cJSON_AddNumberToObject(o, "samples_total", (double)f.total);
    cJSON_AddNumberToObject(o, "sample_lo", (double)(f.lo >= 0 ? f.lo : lo));
    cJSON_AddNumberToObject(o, "sample_hi", (double)(f.lo >= 0 ? f.hi : hi));
    cJSON_AddStringToObject(o, "delivered_bitmap", f.bitmap ? f.bitmap : text);
    int64_t delivered = 0;
    for (int64_t s = 0; s < f.total; s++)
        delivered += bits[s / 8] >> (s % 8) & 1;
    cJSON_AddNumberToObject(o, "samples",
                            (double)(delivered + f.samples_off));
    cJSON_AddNumberToObject(o, "dropped_last_samples", (double)f.dropped_last);
    cJSON_AddNumberToObject(o, "not_reached_samples", 0);
    cJSON_AddNumberToObject(o, "skipped_samples", 0);
    cJSON_AddNumberToObject(o, "dropped_samples", 0);
    cJSON_AddNumberToObject(o, "train_throughput_samples_per_second", sps);
    cJSON_AddNumberToObject(o, "train_au_percentage", 90.0 + (double)f.rank);
    cJSON_AddNumberToObject(o, "train_io_mean_MB_per_second", sps / 2);
    cJSON_AddNumberToObject(o, "kb_steady_samples_per_second", sps * 1.5);
    cJSON_AddNumberToObject(o, "kb_au_percentage", 80.0 + (double)f.rank);
    cJSON_AddNumberToObject(o, "kb_read_MB_per_second", sps / 4);
    cJSON_AddNumberToObject(o, "kb_nominal_MB_per_second", sps / 5);
    if (f.omit)
        cJSON_DeleteItemFromObject(o, f.omit);
    char *line = cJSON_PrintUnformatted(o);
    FILE *out = fopen(path_of(name), "a");
    fprintf(out, "%s\n", line);
    fclose(out);
    free(line);
    cJSON_Delete(o);
    free(text);
    free(bits);
}

/* A line of text appended to file `name` as it is. */
static void put_text(const char *name, const char *text)
{
    FILE *out = fopen(path_of(name), "a");
    fprintf(out, "%s\n", text);
    fclose(out);
}

/* A rank's record with everything as DLIO's split has it. */
static fake good(int64_t rank, int64_t ranks, int64_t total)
{
    return (fake){.rank = rank, .ranks = ranks, .total = total, .extra = -1,
                  .lost = -1, .lo = -1};
}

static void clear(const char **names)
{
    for (; *names; names++)
        unlink(path_of(*names));
}

static char err[16384], out[16384];

/* merge of files a, b (b may be NULL); stderr in err. */
static int merge2(const char *a, const char *b)
{
    return io_test_cmd(err, sizeof err, "merge", path_of(a),
                       b ? path_of(b) : NULL, NULL);
}

static void test_good_two_ranks(void)
{
    /* two epochs; rank 1 drops its partial last batch (DLIO's drop_last) */
    for (int64_t e = 1; e <= 2; e++) {
        fake f0 = good(0, 2, 10), f1 = good(1, 2, 10);
        f0.epoch = f1.epoch = e;
        f1.dropped_last = 2;
        put("g0.jsonl", f0);
        put("g1.jsonl", f1);
    }
    put_text("g0.jsonl", "{\"type\":\"io_checkpoint\",\"bytes\":3}");
    char *json = path_of("g.merge.jsonl");
    int rc = io_test_cmd_out(out, sizeof out, "merge", "--json", json,
                             path_of("g0.jsonl"), path_of("g1.jsonl"), NULL);
    CHECK(rc == 0);
    CHECK(strstr(out, "exactly-once") && strstr(out, " yes "));
    CHECK(!strstr(out, " no "));
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    CHECK(n == 2);
    for (int i = 0; i < n; i++) {
        cJSON *r = recs[i];
        CHECK(io_test_head_ok(r, "io_merge"));
        CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
                  r, "command_line")), "kbench io merge --json") != NULL);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "epoch")) == i + 1);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "exactly_once")));
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "ranks")) == 2);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(r, "samples_total"))
              == 10);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(
                  r, "samples_delivered")) == 8);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(
                  r, "dropped_last_samples")) == 2);
        /* DLIO sums samples/s and MiB/s, averages AU */
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "train_throughput_samples_per_second")), 300, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "train_throughput_samples_per_second_rank_min")),
                   100, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "train_throughput_samples_per_second_rank_max")),
                   200, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "train_au_percentage")), 90.5, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "train_io_mean_MB_per_second")), 150, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "kb_read_MB_per_second")), 75, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "kb_steady_samples_per_second")), 450, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "kb_au_percentage")), 80.5, 1e-12);
        CHECK_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(
                       r, "kb_au_percentage_rank_max")), 81, 1e-12);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(
                      cJSON_GetObjectItem(r, "conventions"),
                      "train_au_percentage")), "dlio-2.0.0");
        cJSON *files = cJSON_GetObjectItem(r, "files");
        CHECK(cJSON_GetArraySize(files) == 2);
        CHECK(strstr(cJSON_GetStringValue(cJSON_GetArrayItem(files, 1)),
                     "g1.jsonl") != NULL);
    }
    io_test_jsonl_free(recs, n);
}

static void test_good_three_ranks(void)
{
    /* 7 over 3: [0, 3), [3, 6), [6, 7); 2 over 3 leaves rank 2 nothing;
     * 100003 samples cross whole bytes of the bitmaps */
    const int64_t totals[] = {7, 2, 100003};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
        const char *names[] = {"t0.jsonl", "t1.jsonl", "t2.jsonl", NULL};
        clear(names);
        for (int64_t r = 0; r < 3; r++)
            put(names[r], good(r, 3, totals[t]));
        int rc = io_test_cmd_out(out, sizeof out, "merge", path_of(names[2]),
                                 path_of(names[0]), path_of(names[1]), NULL);
        CHECK(rc == 0);
        char row[128];
        snprintf(row, sizeof row, "%10lld %10lld", (long long)totals[t],
                 (long long)totals[t]);
        CHECK(strstr(out, row) != NULL);   /* samples, all delivered */
        CHECK(strstr(out, " yes ") != NULL);
        CHECK(strstr(out, "600.0") != NULL);   /* 100 + 200 + 300 */
    }
}

static void test_duplicate(void)
{
    fake f1 = good(1, 2, 10);
    f1.extra = 2;                 /* rank 0's */
    put("d0.jsonl", good(0, 2, 10));
    put("d1.jsonl", f1);
    char *json = path_of("d.merge.jsonl");
    int rc = io_test_cmd(err, sizeof err, "merge", "--json", json,
                         path_of("d0.jsonl"), path_of("d1.jsonl"), NULL);
    CHECK(rc == 1);
    CHECK(strstr(err, "epoch 1") != NULL);
    CHECK(strstr(err, "sample 2 delivered twice: by rank 0 (") != NULL);
    CHECK(strstr(err, "d0.jsonl:1) and by rank 1 (") != NULL);
    CHECK(strstr(err, "d1.jsonl:1)") != NULL);
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    CHECK(n == 1 && cJSON_IsFalse(cJSON_GetObjectItem(recs[0],
                                                      "exactly_once")));
    io_test_jsonl_free(recs, n);
}

static void test_missing_sample(void)
{
    fake f0 = good(0, 2, 10);
    f0.lost = 4;
    put("m0.jsonl", f0);
    put("m1.jsonl", good(1, 2, 10));
    CHECK(merge2("m0.jsonl", "m1.jsonl") == 1);
    CHECK(strstr(err, "sample 4 was never delivered") != NULL);
    CHECK(strstr(err, "rank 0's shard [0, 5)") != NULL);
    CHECK(strstr(err, "m0.jsonl:1 accounts for 0") != NULL);

    /* counts that claim more than was left out fail as well */
    fake f1 = good(1, 2, 10);
    f1.dropped_last = 1;
    f1.extra = 9;                 /* delivered after all */
    put("m2.jsonl", good(0, 2, 10));
    put("m3.jsonl", f1);
    CHECK(merge2("m2.jsonl", "m3.jsonl") == 1);
    CHECK(strstr(err, "accounts for 1 undelivered samples") != NULL);
}

static void test_missing_rank(void)
{
    put("r0.jsonl", good(0, 2, 10));
    CHECK(merge2("r0.jsonl", NULL) == 1);
    CHECK(strstr(err, "no record of rank 1 of 2") != NULL);
}

static void test_rank_twice(void)
{
    put("w0.jsonl", good(0, 2, 10));
    put("w1.jsonl", good(1, 2, 10));
    int rc = io_test_cmd(err, sizeof err, "merge", path_of("w0.jsonl"),
                         path_of("w1.jsonl"), path_of("w0.jsonl"), NULL);
    CHECK(rc == 1);
    CHECK(strstr(err, "rank 0 twice: ") != NULL);
    /* the second copy is left out of the sample check */
    CHECK(strstr(err, "delivered twice") == NULL);
}

static void test_inconsistent(void)
{
    /* a shard that is not DLIO's split */
    fake f0 = good(0, 2, 10), f1 = good(1, 2, 10);
    f0.lo = 0, f0.hi = 4;
    f0.lost = 4;
    f0.dropped_last = 0;
    put("s0.jsonl", f0);
    put("s1.jsonl", f1);
    CHECK(merge2("s0.jsonl", "s1.jsonl") == 1);
    CHECK(strstr(err, "read samples [0, 4), DLIO's shard of 10 samples over "
                      "2 ranks is [0, 5)") != NULL);
    /* ranks that disagree on the number of ranks */
    put("n0.jsonl", good(0, 2, 10));
    put("n1.jsonl", good(1, 3, 10));
    CHECK(merge2("n0.jsonl", "n1.jsonl") == 1);
    CHECK(strstr(err, "has ranks 3 and samples_total 10") != NULL);
    /* a count of delivered samples its bitmap does not hold */
    f1.samples_off = 1;
    put("c0.jsonl", good(0, 2, 10));
    put("c1.jsonl", f1);
    CHECK(merge2("c0.jsonl", "c1.jsonl") == 1);
    CHECK(strstr(err, "says it delivered 6 samples (\"samples\"), its "
                      "bitmap holds 5") != NULL);
}

static void test_bad_input(void)
{
    put("b0.jsonl", good(0, 2, 10));
    put_text("b0.jsonl", "{\"type\": \"io_epoch\", ");
    put("b1.jsonl", good(1, 2, 10));
    CHECK(merge2("b0.jsonl", "b1.jsonl") == 2);
    CHECK(strstr(err, "b0.jsonl:2: not JSON") != NULL);

    fake f = good(0, 2, 10);
    f.bitmap = "78zz";
    put("b2.jsonl", f);
    CHECK(merge2("b1.jsonl", "b2.jsonl") == 2);
    CHECK(strstr(err, "b2.jsonl:1: field \"delivered_bitmap\"") != NULL);
    f.bitmap = "789c";            /* a zlib header and nothing after */
    put("b3.jsonl", f);
    CHECK(merge2("b3.jsonl", NULL) == 2);
    CHECK(strstr(err, "b3.jsonl:1: field \"delivered_bitmap\": bitmap of "
                      "ids [0, 10)") != NULL);

    f = good(0, 2, 10);
    f.omit = "samples_total";
    put("b4.jsonl", f);
    CHECK(merge2("b4.jsonl", NULL) == 2);
    CHECK(strstr(err, "b4.jsonl:1: field \"samples_total\": missing") != NULL);
    f = good(0, 2, 10);
    f.rank = 2;                   /* not below ranks */
    f.lo = 0, f.hi = 0;
    put("b5.jsonl", f);
    CHECK(merge2("b5.jsonl", NULL) == 2);
    CHECK(strstr(err, "b5.jsonl:1: field \"rank\": bad value") != NULL);

    put_text("b6.jsonl", "[1, 2]");
    CHECK(merge2("b6.jsonl", NULL) == 2);
    CHECK(strstr(err, "b6.jsonl:1: not a JSON object") != NULL);
    put_text("b7.jsonl", "{\"type\":\"io_checkpoint\"}");
    CHECK(merge2("b7.jsonl", NULL) == 2);
    CHECK(strstr(err, "no io_epoch record") != NULL);
    /* an io_epoch record as kbench wrote them before kbench.io/1 */
    put_text("b8.jsonl", "{\"record\":\"io_epoch\",\"epoch\":1}");
    CHECK(merge2("b8.jsonl", NULL) == 2);
    CHECK(strstr(err, "b8.jsonl:1: an io_epoch record of an older kbench")
          != NULL);
    CHECK(strstr(err, "expected schema " KB_IO_SCHEMA) != NULL);
    f = good(0, 2, 10);
    f.schema = "kbench.io/0";
    put("b9.jsonl", f);
    CHECK(merge2("b9.jsonl", NULL) == 2);
    CHECK(strstr(err, "b9.jsonl:1: io_epoch record of schema "
                      "\"kbench.io/0\", expected " KB_IO_SCHEMA) != NULL);
    CHECK(merge2("absent.jsonl", NULL) == 2);
    CHECK(strstr(err, "absent.jsonl: cannot open") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "merge", NULL) == 2);
    CHECK(io_test_cmd(err, sizeof err, "merge", "--bogus", "x", NULL) == 2);
}

static const char *const launcher_vars[] = {
    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID", "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMIX_SIZE"};

static void unset_launchers(void)
{
    for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
        unsetenv(launcher_vars[i]);
}

/* kb_io_rank_detect with no explicit rank; rc and *r. */
static int detect(kb_io_rank *r)
{
    char e[KB_IO_ERRLEN] = "";
    int rc = kb_io_rank_detect(-1, 0, r, e, sizeof e);
    snprintf(err, sizeof err, "%s", e);
    return rc;
}

static void test_rank_detect(void)
{
    kb_io_rank r;
    unset_launchers();
    CHECK(detect(&r) == 0 && r.rank == 0 && r.ranks == 1);
    CHECK_STR(r.source, "single");

    /* a batch script: the job's variables, but no step: one rank */
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "2", 1);
    CHECK(detect(&r) == 0 && r.rank == 0 && r.ranks == 1);
    CHECK_STR(r.source, "single");
    setenv("SLURM_STEP_ID", "0", 1);   /* a task of a job step */
    CHECK(detect(&r) == 0 && r.rank == 1 && r.ranks == 2);
    CHECK_STR(r.source, "slurm");
    /* mpirun in a Slurm job: its ranks keep its daemons' step variables */
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    CHECK(detect(&r) == 0 && r.rank == 3 && r.ranks == 4);
    CHECK_STR(r.source, "openmpi");
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("OMPI_COMM_WORLD_SIZE");
    /* explicit --rank/--ranks win over everything */
    char e[KB_IO_ERRLEN];
    CHECK(kb_io_rank_detect(0, 3, &r, e, sizeof e) == 0 && r.rank == 0 &&
          r.ranks == 3);
    CHECK_STR(r.source, "--rank");
    CHECK(kb_io_rank_detect(3, 3, &r, e, sizeof e) == KB_IO_USAGE);
    CHECK(kb_io_rank_detect(-1, 3, &r, e, sizeof e) == KB_IO_USAGE);

    setenv("SLURM_PROCID", "x1", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "SLURM_PROCID='x1'"));
    setenv("SLURM_PROCID", "-1", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "SLURM_PROCID"));
    setenv("SLURM_PROCID", "2", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "SLURM_PROCID=2") &&
          strstr(err, "SLURM_NTASKS"));
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "two", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "SLURM_NTASKS='two'"));

    unset_launchers();
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    CHECK(detect(&r) == 0 && r.rank == 3 && r.ranks == 4);
    CHECK_STR(r.source, "openmpi");
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    CHECK(detect(&r) == KB_IO_USAGE &&
          strstr(err, "OMPI_COMM_WORLD_SIZE"));

    /* PMIx: its rank, a size from PMIX_SIZE or another launcher's */
    unset_launchers();
    setenv("PMIX_RANK", "1", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "PMIX_RANK=1") &&
          strstr(err, "unset"));
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    CHECK(detect(&r) == 0 && r.rank == 1 && r.ranks == 2);
    CHECK_STR(r.source, "pmix");
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    CHECK(detect(&r) == KB_IO_USAGE &&
          strstr(err, "OMPI_COMM_WORLD_SIZE"));
    setenv("PMIX_SIZE", "8", 1);
    CHECK(detect(&r) == 0 && r.ranks == 8);
    setenv("PMIX_RANK", "1.5", 1);
    CHECK(detect(&r) == KB_IO_USAGE && strstr(err, "PMIX_RANK='1.5'"));
    unset_launchers();
}

/* DLIO's split: ceil(total / ranks) a rank, the last ones short. */
static void test_shards(void)
{
    const struct {
        int64_t total, ranks, lo[3], hi[3];
    } c[] = {
        {5, 2, {0, 3}, {3, 5}},
        {7, 3, {0, 3, 6}, {3, 6, 7}},
        {2, 3, {0, 1, 2}, {1, 2, 2}},
        {0, 2, {0, 0}, {0, 0}},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        for (int64_t r = 0; r < c[i].ranks; r++) {
            int64_t lo, hi;
            kb_io_rank_shard(&(kb_io_rank){r, c[i].ranks, "--rank"},
                             c[i].total, &lo, &hi);
            CHECK(lo == c[i].lo[r] && hi == c[i].hi[r]);
        }
}

static const check_test tests[] = {
    CHECK_TEST(good_two_ranks), CHECK_TEST(good_three_ranks),
    CHECK_TEST(duplicate), CHECK_TEST(missing_sample), CHECK_TEST(missing_rank),
    CHECK_TEST(rank_twice), CHECK_TEST(inconsistent), CHECK_TEST(bad_input),
    CHECK_TEST(rank_detect), CHECK_TEST(shards), CHECK_END};

int main(int argc, char **argv)
{
    dir = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(dir);
    free(dir);
    return status;
}
