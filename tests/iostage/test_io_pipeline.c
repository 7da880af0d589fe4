/* test_io_pipeline.c - every format generated small, then read over several
 * epochs, seeds, reader counts and engines, with and without decoding:
 * each epoch must deliver every sample exactly once (the stage checks with
 * a bitmap and fails otherwise) and report it in JSON Lines. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/bitmap.h"
#include "iostage/decode/decoder.h"
#include "iostage/gen.h"
#include "iostage/pipeline.h"
#include "iostage/profile.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;

/* Ids set in a record's delivered_bitmap. */
static double bitmap_count(const cJSON *o)
{
    int64_t total = (int64_t)cJSON_GetObjectItem(o, "samples_total")
                        ->valuedouble;
    const cJSON *t = cJSON_GetObjectItem(o, "delivered_bitmap");
    uint8_t *bits = calloc((size_t)(total + 7) / 8 + 1, 1);
    char e[KB_IO_ERRLEN];
    double n = -1;
    if (bits && cJSON_IsString(t) &&
        !kb_io_bitmap_decode(t->valuestring, 0, total, bits, e, sizeof e)) {
        n = 0;
        for (int64_t id = 0; id < total; id++)
            n += (bits[id / 8] >> (id % 8)) & 1;
    }
    free(bits);
    return n;
}

/* Check a JSON Lines file: `epochs` records, each with all samples. */
static void check_json(const char *path, int epochs, double samples)
{
    int n;
    cJSON **recs = io_test_jsonl(path, &n);
    CHECK(n == epochs);
    for (int i = 0; i < n; i++) {
        cJSON *o = recs[i];
        CHECK(o != NULL);
        if (!o)
            continue;
        CHECK(cJSON_GetObjectItem(o, "samples")->valuedouble == samples);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "exactly_once")));
        CHECK(cJSON_GetObjectItem(o, "bytes_read")->valuedouble > 0);
        CHECK(cJSON_GetObjectItem(o, "train_au_percentage") != NULL);
        CHECK(cJSON_GetObjectItem(o, "train_throughput_samples_per_second")
                  ->valuedouble > 0);
        CHECK(cJSON_GetObjectItem(o, "train_io_mean_MB_per_second") != NULL);
        CHECK(cJSON_GetObjectItem(o, "kb_read_MB_per_second")->valuedouble >
              0);
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(o, "conventions")));
        /* one rank: the bitmap holds every sample of the dataset */
        CHECK(cJSON_GetObjectItem(o, "samples_total")->valuedouble ==
              samples);
        CHECK(bitmap_count(o) == samples);
        double res = cJSON_GetObjectItem(o, "residency_before")->valuedouble;
        CHECK(res >= 0 && res <= 1);
        CHECK(cJSON_GetObjectItem(o, "epoch")->valuedouble == i);
    }
    io_test_jsonl_free(recs, n);
}

/* The --direct records: every file read with O_DIRECT where the
 * filesystem takes it, else every file buffered and the refusal named. */
static void check_direct(const char *path, bool fs_direct)
{
    int n;
    cJSON **recs = io_test_jsonl(path, &n);
    for (int i = 0; i < n; i++) {
        const cJSON *o = recs[i];
        if (!o)
            continue;
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct_asked")));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct")) == fs_direct);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct_refused")) ==
              !fs_direct);
        double files = cJSON_GetObjectItem(o, "files")->valuedouble;
        CHECK(cJSON_GetObjectItem(o, fs_direct ? "files_direct"
                                               : "files_buffered")
                  ->valuedouble == files);
    }
    io_test_jsonl_free(recs, n);
}

/* Mean bytes of a sample body in a JPEG shard: near the profile's mean. */
static void check_jpeg_size(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/resnet50_000000.tfrecord", dir);
    size_t n;
    uint8_t *b = io_test_slurp(path, &n);
    CHECK(b != NULL);
    if (!b)
        return;
    /* 5 records: framing 16 + header 24 each */
    double mean = (double)(n - 5 * 40) / 5;
    CHECK(mean > 0.75 * 3000 && mean < 1.25 * 3000);
    CHECK(b[12 + 24] == 0xFF && b[12 + 25] == 0xD8);   /* JPEG SOI */
    free(b);
}

static char *root;   /* a temporary directory, made in main */

static void one_profile(const char *name, int files_x_spf)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(json, sizeof json, "%s/%s.jsonl", root, name);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      name, "--dir", dir, "--seed", "3", "--threads", "2",
                      NULL) == 0);
    const char *engines[] = {"pread", "io_uring", "mmap"};
    const char *readers[] = {"1", "3"};
    const char *seeds[] = {"1", "2"};
    for (int e = 0; e < 3; e++)
        for (int r = 0; r < 2 && io_test_engine_usable(engines[e]); r++)
            for (int s = 0; s < 2; s++) {
                int rc = io_test_cmd(NULL, 0, "run", "--profiles", profiles,
                                     "--profile", name, "--dir", dir,
                                     "--epochs", "3", "--engine", engines[e],
                                     "--readers", readers[r], "--seed",
                                     seeds[s], "--json", json, "--quiet",
                                     NULL);
                CHECK(rc == 0);
                if (rc)
                    fprintf(stderr, "  failed: %s %s readers %s seed %s\n",
                            name, engines[e], readers[r], seeds[s]);
                else
                    check_json(json, 3, files_x_spf);
            }
    /* raw read path, O_DIRECT (or its fallback), cold cache, batch 1 */
    CHECK(io_test_cmd(NULL, 0, "run", "--profiles", profiles, "--profile",
                      name, "--dir", dir, "--decode", "none", "--direct",
                      "--cold", "--batch", "1", "--prefetch", "1", "--epochs",
                      "2", "--json", json, "--quiet", NULL) == 0);
    check_json(json, 2, files_x_spf);
    check_direct(json, io_test_direct_works(dir));
}

/* One epoch of kb_io_run on a DLIO-layout dataset, as rank `rank` of
 * `ranks`; its record in *o.  The profile gives no samples_per_file: the
 * run counts the first file's records. */
static int run_dlio(const kb_io_profile *gen, const char *dir,
                    const char *json, int64_t rank, int64_t ranks, cJSON **o)
{
    kb_io_profile p = *gen;
    p.files = 0;
    p.samples_per_file = 0;
    kb_io_run_opts r = {.dir = dir, .json = json,
                        .engine = &kb_io_engine_pread,
                        .decoder = &kb_io_decode_parse, .epochs = 1,
                        .readers = 2, .prefetch = 2, .batch = 2, .seed = 1,
                        .chunk = 1 << 20, .depth = 8, .quiet = true,
                        .rank = {rank, ranks, "--rank"}};
    char err[KB_IO_ERRLEN];
    int rc = kb_io_run(&p, &r, err, sizeof err);
    if (rc)
        fprintf(stderr, "dlio run: %s\n", err);
    int n;
    cJSON **recs = rc ? NULL : io_test_jsonl(json, &n);
    *o = recs && n == 1 ? recs[0] : NULL;
    if (recs)
        free(recs);
    return rc;
}

/* A DLIO-layout dataset (files without ids): positional ids file x spf +
 * k, every sample once, and two ranks' shards of them. */
static void dlio_layout(const char *format)
{
    char dir[600], json[700], err[KB_IO_ERRLEN];
    snprintf(dir, sizeof dir, "%s/%s", root, format);
    snprintf(json, sizeof json, "%s/%s.jsonl", root, format);
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "dlio");
    snprintf(p.format, sizeof p.format, "%s", format);
    p.files = 4;
    p.samples_per_file = 3;
    p.sample_bytes = 90;
    p.dlio.layout = true;
    snprintf(p.dlio.prefix, sizeof p.dlio.prefix, "img");
    kb_io_gen_opts g = {.dir = dir, .scale = 1, .seed = 5, .threads = 1};
    int rc = kb_io_gen(&p, &g, err, sizeof err);
    if (rc)
        fprintf(stderr, "gen %s: %s\n", format, err);
    CHECK(rc == 0);
    cJSON *o;
    CHECK(run_dlio(&p, dir, json, 0, 1, &o) == 0);
    CHECK(o != NULL);
    if (o) {
        CHECK(cJSON_GetObjectItem(o, "samples")->valuedouble == 12);
        CHECK(cJSON_GetObjectItem(o, "samples_total")->valuedouble == 12);
        CHECK(bitmap_count(o) == 12);
        cJSON_Delete(o);
    }
    /* 6 ids a rank: files 0-1 and 2-3 */
    for (int64_t r = 0; r < 2; r++) {
        CHECK(run_dlio(&p, dir, json, r, 2, &o) == 0);
        CHECK(o != NULL);
        if (!o)
            continue;
        CHECK(cJSON_GetObjectItem(o, "samples")->valuedouble == 6);
        CHECK(cJSON_GetObjectItem(o, "files")->valuedouble == 2);
        CHECK(cJSON_GetObjectItem(o, "sample_lo")->valuedouble == 6 * r);
        CHECK(bitmap_count(o) == 6);
        cJSON_Delete(o);
    }
}

static void test_usage(void)
{
    char err[4096];
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", root, "--readers", "0",
                      NULL) == 2);
    CHECK(strstr(err, "--readers '0'") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", root, "--engine", "aio",
                      NULL) == 2);
    CHECK(strstr(err, "aio") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", root, NULL) == 2);
    CHECK(strstr(err, "manifest") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "gen", "--profiles", profiles,
                      "--profile", "gpt", "--dir", root, NULL) == 2);
    CHECK(strstr(err, "gpt") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "frob", NULL) == 2);
    /* a dataset an older kbench wrote (no format line) is named as such,
     * not reported as corrupt */
    char dir[600], manifest[700];
    snprintf(dir, sizeof dir, "%s/bert", root);
    snprintf(manifest, sizeof manifest, "%s/kbench-io.manifest", dir);
    (void)mkdir(dir, 0755);   /* the bert sub-test's dataset, when run alone */
    FILE *f = fopen(manifest, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("profile bert\nfiles 3\nsamples_per_file 50\nseed 3\n", f);
        fclose(f);
    }
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "bert", "--dir", dir, NULL) == 2);
    CHECK(strstr(err, "dataset format 1") && strstr(err, "regenerate"));
}

/* each profile: gen, then run (resnet50's JPEGs decode to their size) */
static void test_resnet50(void)
{
    IO_TEST_SKIP_WITHOUT_JPEG();
    one_profile("resnet50", 30);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/resnet50", root);
    check_jpeg_size(dir);
}
static void test_cosmoflow(void) { one_profile("cosmoflow", 6); }
static void test_unet3d(void) { one_profile("unet3d", 5); }
static void test_bert(void) { one_profile("bert", 150); }
static void test_deepcam(void)
{
#ifdef KB_IO_HAVE_HDF5
    one_profile("deepcam", 4);
#else
    CHECK_SKIP("built without libhdf5: deepcam's HDF5 files cannot be read");
#endif
}
/* the DLIO layouts, split across ranks */
static void test_dlio_npz(void) { dlio_layout("dlio-npz"); }
static void test_dlio_tfrecord(void) { dlio_layout("dlio-tfrecord"); }

static const check_test tests[] = {
    CHECK_TEST(resnet50), CHECK_TEST(cosmoflow), CHECK_TEST(unet3d),
    CHECK_TEST(bert), CHECK_TEST(deepcam), CHECK_TEST(dlio_npz),
    CHECK_TEST(dlio_tfrecord), CHECK_TEST(usage), CHECK_END};

int main(int argc, char **argv)
{
    root = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
