/* test_io_stream.c - the streaming read path (iostage/readers/stream.h):
 * with pread, TFRecord files and a decode that keeps no body, a reader
 * takes each file in --chunk pieces from its pread thread.  Records cut
 * by a chunk boundary are still verified, whether the cut piece fits the
 * room before the next chunk or not (a record longer than
 * KB_IO_STREAM_ROOM); damage in a later chunk is reported with the file
 * offset of its record; a file cut mid-record is a truncation. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/readers/stream.h"

#include <cjson/cJSON.h>
#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;
static char err[8192];

/* A profile of long records (over KB_IO_STREAM_ROOM), parse-only. */
static const char long_conf[] =
    "[long]\nformat = tfrecord\nbody = random\ndecode = parse\nfiles = 2\n"
    "samples_per_file = 3\nsample_bytes = 150000\nbatch = 2\nreaders = 2\n"
    "compute_seconds = 0\ndims = 1\n";

static int gen(const char *conf, const char *name, const char *dir)
{
    return io_test_cmd(NULL, 0, "gen", "--profiles", conf, "--profile", name,
                       "--dir", dir, "--threads", "2", NULL);
}

/* One epoch with `--chunk 4096` and extra (may be NULL); the exit code,
 * stderr in err. */
static int run(const char *conf, const char *name, const char *dir,
               const char *json, const char *extra)
{
    return io_test_cmd(err, sizeof err, "run", "--profiles", conf,
                       "--profile", name, "--dir", dir, "--quiet", "--json",
                       json, "--engine", "pread", "--decode", "none",
                       "--chunk", "4096", extra, NULL);
}

static double num(const cJSON *o, const char *k)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(o, k));
}

/* The run delivered `samples`, every byte of the dataset (`bytes`) read
 * once, with CRCs on. */
static void delivered(const char *json, double samples, double bytes)
{
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    CHECK(n == 1);
    if (n == 1) {
        CHECK(num(recs[0], "samples") == samples);
        CHECK(num(recs[0], "bytes_read") == bytes);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(recs[0],
                                                           "verify")),
                  "crc");
    }
    io_test_jsonl_free(recs, n);
}

/* The file offset of the TFRecord holding byte `at` of buf[0, n). */
static uint64_t record_at(const uint8_t *b, size_t n, uint64_t at)
{
    uint64_t o = 0;
    while (o + 16 <= n) {
        uint64_t dl = 0;
        for (int i = 0; i < 8; i++)
            dl |= (uint64_t)b[o + i] << (8 * i);
        if (at < o + 16 + dl)
            return o;
        o += 16 + dl;
    }
    return UINT64_MAX;
}

static uint64_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Flip byte `at` of path: the run fails naming the file and the offset of
 * the record holding it; flipped back, the run passes again. */
static void damage(const char *conf, const char *name, const char *dir,
                   const char *file, const char *json, long at,
                   const char *extra)
{
    char path[800], want[900];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t n;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL && (size_t)at < n);
    if (!b)
        return;
    uint64_t rec = record_at(b, n, (uint64_t)at);
    CHECK(at >= 4096 && rec != UINT64_MAX);   /* the byte is past the first chunk */
    free(b);
    CHECK(io_test_flip(path, at, 0x10) == 0);
    CHECK(run(conf, name, dir, json, extra) == 1);
    snprintf(want, sizeof want, "%s: offset %llu: ", file,
             (unsigned long long)rec);
    CHECK(strstr(err, want) != NULL);
    CHECK(strstr(err, "mismatch") != NULL);
    if (!strstr(err, want))
        fprintf(stderr, "expected \"%s\" in: %s\n", want, err);
    CHECK(io_test_flip(path, at, 0x10) == 0);
    CHECK(run(conf, name, dir, json, extra) == 0);
}

/* bert's records (~140 bytes) straddle 4 KiB chunks: the cut piece is
 * joined in the room before the next chunk. */
static void test_short_records(const char *root, const char *direct)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/bert", root);
    snprintf(json, sizeof json, "%s/bert.jsonl", root);
    if (!direct)
        CHECK(gen(profiles, "bert", dir) == 0);
    uint64_t bytes = 0;
    for (int f = 0; f < 3; f++) {
        char p[700];
        snprintf(p, sizeof p, "%s/bert_%06d.tfrecord", dir, f);
        bytes += size_of(p);
    }
    CHECK(bytes > 3 * 4096);
    CHECK(run(profiles, "bert", dir, json, direct) == 0);
    delivered(json, 150, (double)bytes);
    /* a flipped byte in the second chunk of file 1, in a record that
     * began in the first chunk or in the second */
    damage(profiles, "bert", dir, "bert_000001.tfrecord", json, 4096 + 10,
           direct);
    damage(profiles, "bert", dir, "bert_000001.tfrecord", json, 4096 + 1500,
           direct);
}

/* Records of 150 KB: longer than the room, so the pieces are gathered
 * apart; damage deep in the second record, and a truncated last record. */
static void test_long_records(const char *root)
{
    char conf[600], dir[600], json[700], path[700];
    snprintf(conf, sizeof conf, "%s/long.conf", root);
    FILE *f = fopen(conf, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(long_conf, f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/long", root);
    snprintf(json, sizeof json, "%s/long.jsonl", root);
    CHECK(gen(conf, "long", dir) == 0);
    snprintf(path, sizeof path, "%s/long_000001.tfrecord", dir);
    uint64_t size = size_of(path);
    CHECK(size > 3 * 150000);
    CHECK(150000 > KB_IO_STREAM_ROOM);
    char p0[700];
    snprintf(p0, sizeof p0, "%s/long_000000.tfrecord", dir);
    CHECK(run(conf, "long", dir, json, NULL) == 0);
    delivered(json, 6, (double)(size + size_of(p0)));
    damage(conf, "long", dir, "long_000001.tfrecord", json, 150000 + 90000,
           NULL);
    /* cut 10 bytes short: the last record never completes */
    CHECK(truncate(path, (off_t)(size - 10)) == 0);
    CHECK(run(conf, "long", dir, json, NULL) == 1);
    CHECK(strstr(err, "long_000001.tfrecord: offset ") != NULL);
    CHECK(strstr(err, "truncated record") != NULL);
}

int main(void)
{
    char *root = io_test_mkdtemp();
    test_short_records(root, NULL);
    if (io_test_direct_works(root))
        test_short_records(root, "--direct");
    else
        fprintf(stderr, "test_io_stream: %s refuses O_DIRECT; buffered "
                "only\n", root);
    test_long_records(root);
    io_test_rmtree(root);
    free(root);
    return CHECK_DONE();
}
