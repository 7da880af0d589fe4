/* test_io_pipeline.c - every format generated small, then read over several
 * epochs, seeds, reader counts and engines, with and without decoding:
 * each epoch must deliver every sample exactly once (the stage checks with
 * a bitmap and fails otherwise) and report it in JSON Lines. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"

static const char *profiles = KB_IO_TEST_PROFILES;

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

static void one_profile(const char *root, const char *name, int files_x_spf)
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
        for (int r = 0; r < 2; r++)
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

static void test_usage(const char *root)
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

int main(void)
{
    char *root = io_test_mkdtemp();
    one_profile(root, "resnet50", 30);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/resnet50", root);
    check_jpeg_size(dir);
    one_profile(root, "cosmoflow", 6);
    one_profile(root, "unet3d", 5);
    one_profile(root, "bert", 150);
    one_profile(root, "deepcam", 4);
    test_usage(root);
    io_test_rmtree(root);
    free(root);
    return CHECK_DONE();
}
