/* test_io_shard.c - `kbench io run` as ranks of one job: each rank
 * delivers DLIO's shard of the sample ids (a file at the edge read by
 * both, each taking its own ids), the bitmaps in the records are disjoint
 * and cover every sample, an odd split, the rank from Slurm's variables,
 * drop_last per rank, ranks that would get no step, and a record whose
 * id belongs to another file. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/bitmap.h"
#include "iostage/formats/tfrecord.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/checksum.h"

#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;
static char err[8192];

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    CHECK(cJSON_IsNumber(v));
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The first io_epoch record of a JSON Lines file, or NULL. */
static cJSON *first_record(const char *path)
{
    int n;
    cJSON **recs = io_test_jsonl(path, &n);
    cJSON *o = n > 0 ? recs[0] : NULL;
    if (n > 0)
        recs[0] = NULL;
    io_test_jsonl_free(recs, n);
    return o;
}

/* Run rank `rank` of `ranks` (NULL: from the environment) of profile
 * `name`; its record, or NULL when the run failed. */
static cJSON *run_rank(const char *name, const char *dir, const char *json,
                       const char *rank, const char *ranks, const char *extra,
                       const char *extra2)
{
    int rc = rank ? io_test_cmd(err, sizeof err, "run", "--profiles",
                                profiles, "--profile", name, "--dir", dir,
                                "--json", json, "--quiet", "--rank", rank,
                                "--ranks", ranks, extra, extra2, NULL)
                  : io_test_cmd(err, sizeof err, "run", "--profiles",
                                profiles, "--profile", name, "--dir", dir,
                                "--json", json, "--quiet", extra, extra2,
                                NULL);
    CHECK(rc == 0);
    return rc ? NULL : first_record(json);
}

/* Decode a record's delivered bitmap (over all `total` ids) into bits. */
static void decode(const cJSON *o, int64_t total, uint8_t *bits)
{
    const cJSON *t = cJSON_GetObjectItem(o, "delivered_bitmap");
    char e[KB_IO_ERRLEN];
    CHECK(cJSON_IsString(t));
    memset(bits, 0, (size_t)(total + 7) / 8);
    CHECK(cJSON_IsString(t) &&
          kb_io_bitmap_decode(t->valuestring, 0, total, bits, e,
                              sizeof e) == 0);
}

static bool bit(const uint8_t *b, int64_t i)
{
    return b[i / 8] & (1u << (i % 8));
}

/* Ranks 0..n-1 of profile name (n <= 4): each its shard [lo, hi) with
 * `files[r]` files read; bitmaps disjoint, union every sample. */
static char *root;   /* a temporary directory, made in main */

static void check_split(const char *root, const char *name, int n,
                        int64_t total, const int64_t *lo, const int64_t *hi,
                        const int64_t *files)
{
    char dir[600], json[700], rank[16], ranks[16];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(ranks, sizeof ranks, "%d", n);
    uint8_t bits[4][64], seen[64] = {0};
    CHECK((total + 7) / 8 <= 64 && n <= 4);
    for (int r = 0; r < n; r++) {
        snprintf(rank, sizeof rank, "%d", r);
        snprintf(json, sizeof json, "%s/%s-%d.jsonl", root, name, r);
        cJSON *o = run_rank(name, dir, json, rank, ranks, NULL, NULL);
        CHECK(o != NULL);
        if (!o)
            return;
        CHECK(num(o, "rank") == r && num(o, "ranks") == n);
        const cJSON *src = cJSON_GetObjectItem(o, "rank_source");
        CHECK(cJSON_IsString(src) && strcmp(src->valuestring, "--rank") == 0);
        CHECK(num(o, "samples_total") == (double)total);
        CHECK(num(o, "sample_lo") == (double)lo[r]);
        CHECK(num(o, "sample_hi") == (double)hi[r]);
        CHECK(num(o, "samples") == (double)(hi[r] - lo[r]));
        CHECK(num(o, "files") == (double)files[r]);
        decode(o, total, bits[r]);
        for (int64_t id = 0; id < total; id++) {
            CHECK(bit(bits[r], id) == (id >= lo[r] && id < hi[r]));
            if (bit(bits[r], id)) {
                CHECK(!bit(seen, id));   /* no sample on two ranks */
                seen[id / 8] |= (uint8_t)(1u << (id % 8));
            }
        }
        cJSON_Delete(o);
    }
    for (int64_t id = 0; id < total; id++)
        CHECK(bit(seen, id));            /* every sample on one rank */
}

/* The rank from Slurm's variables, when --rank is not given. */
static void test_slurm(void)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/bert", root);
    snprintf(json, sizeof json, "%s/slurm.jsonl", root);
    setenv("SLURM_STEP_ID", "0", 1);   /* a task of a job step */
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "2", 1);
    cJSON *o = run_rank("bert", dir, json, NULL, NULL, NULL, NULL);
    unsetenv("SLURM_PROCID");
    unsetenv("SLURM_NTASKS");
    unsetenv("SLURM_STEP_ID");
    CHECK(o != NULL);
    if (!o)
        return;
    const cJSON *src = cJSON_GetObjectItem(o, "rank_source");
    CHECK(cJSON_IsString(src) && strcmp(src->valuestring, "slurm") == 0);
    CHECK(num(o, "rank") == 1 && num(o, "sample_lo") == 75);
    cJSON_Delete(o);
}

/* drop_last per rank: 75 samples a rank at batch 16 are 4 steps (DLIO's
 * floor(150 / 16 / 2)) and a partial batch of 11, read and dropped. */
static void test_drop_last(void)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/bert", root);
    snprintf(json, sizeof json, "%s/drop.jsonl", root);
    for (int r = 0; r < 2; r++) {
        cJSON *o = run_rank("bert", dir, json, r ? "1" : "0", "2",
                            "--drop-last", "yes");
        CHECK(o != NULL);
        if (!o)
            continue;
        CHECK(num(o, "steps") == 4 && num(o, "samples") == 64);
        CHECK(num(o, "dropped_last_samples") == 11);
        CHECK(num(o, "not_reached_samples") == 0);
        cJSON_Delete(o);
    }
}

/* Ranks that would get nothing to do are refused, naming the rank. */
static void test_empty_ranks(void)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/unet3d", root);
    snprintf(json, sizeof json, "%s/empty.jsonl", root);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "unet3d", "--dir", dir, "--json", json,
                      "--quiet", "--rank", "5", "--ranks", "6", NULL) == 2);
    CHECK(strstr(err, "rank 5 of 6") && strstr(err, "more ranks than"));
    /* 5 samples on 3 ranks: 2, 2, 1; the last holds less than a batch */
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "unet3d", "--dir", dir, "--json", json,
                      "--quiet", "--rank", "2", "--ranks", "3",
                      "--drop-last", "yes", NULL) == 2);
    CHECK(strstr(err, "rank 2 of 3 holds 1 of 5 samples") != NULL);
}

/* A record whose id belongs to another file is corrupt: the shard of the
 * file's ids would no longer be the shard it delivers.  The TFRecord CRC
 * is recomputed, so that only the id is wrong. */
static void test_misplaced_id(void)
{
    char dir[600], path[700], json[700];
    snprintf(dir, sizeof dir, "%s/misplaced", root);
    snprintf(path, sizeof path, "%s/bert_000000.tfrecord", dir);
    snprintf(json, sizeof json, "%s/misplaced.jsonl", root);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      "bert", "--dir", dir, "--threads", "1", NULL) == 0);
    size_t n;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL && n > 12 + KB_IO_HDR_BYTES);
    if (!b)
        return;
    uint64_t len = 0;
    for (int i = 0; i < 8; i++)
        len |= (uint64_t)b[i] << (8 * i);
    uint8_t *data = b + 12;
    CHECK(len >= KB_IO_HDR_BYTES && 12 + len + 4 <= n);
    for (int i = 0; i < 8; i++)           /* id 120: file 2's */
        data[8 + i] = (uint8_t)((uint64_t)120 >> (8 * i));
    uint32_t crc = kb_io_tfrecord_mask(kb_io_crc32c(0, data, len));
    for (int i = 0; i < 4; i++)
        data[len + i] = (uint8_t)(crc >> (8 * i));
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f)
        fclose(f);
    free(b);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", dir, "--json", json,
                      "--quiet", NULL) == 1);
    CHECK(strstr(err, "bert_000000.tfrecord: offset 0: sample id 120 "
                      "outside this file's 0..49") != NULL);
}

/* each rank's range of the ids, and the files it reads */
static void test_splits(void)
{
    /* 3 files of 50: file 1 holds ids 50..99, read by both ranks */
    check_split(root, "bert", 2, 150, (int64_t[]){0, 75},
                (int64_t[]){75, 150}, (int64_t[]){2, 2});
    /* 5 files of 1 on 2 ranks: ceil(5 / 2) = 3, then the short rest */
    check_split(root, "unet3d", 2, 5, (int64_t[]){0, 3},
                (int64_t[]){3, 5}, (int64_t[]){3, 2});
    /* and on 3 ranks: 2, 2, 1 */
    check_split(root, "unet3d", 3, 5, (int64_t[]){0, 2, 4},
                (int64_t[]){2, 4, 5}, (int64_t[]){2, 2, 1});
}

static const check_test tests[] = {
    CHECK_TEST(splits), CHECK_TEST(slurm), CHECK_TEST(drop_last),
    CHECK_TEST(empty_ranks), CHECK_TEST(misplaced_id), CHECK_END};

int main(int argc, char **argv)
{
    root = io_test_mkdtemp();
    const char *names[] = {"bert", "unet3d"};
    for (int i = 0; i < 2; i++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
        CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles,
                          "--profile", names[i], "--dir", dir, "--threads",
                          "1", NULL) == 0);
    }
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
