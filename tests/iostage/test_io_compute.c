/* test_io_compute.c - `kbench io run --compute backend:NAME`: decoded
 * samples land in the first layer's input at the right logical positions
 * in NCHW and NHWC; a pipeline with the model as its consumer delivers
 * every sample once and reports the model; bad requests are refused; a
 * GPU backend without its device is refused with the runtime's reason,
 * and with one copies every decoded batch to it. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"

#include "backends/backend.h"
#include "backends/gpu/gpu_registry.h"
#include "kernels/tensors.h"
#include "iostage/compute_model.h"
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "kernels/problem.h"

#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;

/* A 3x4x5 (HxWxC) sample profile, the shape of conv `desc`'s input. */
static kb_io_profile sample_profile(void)
{
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    p.ndims = 3;
    p.dims[0] = 3, p.dims[1] = 4, p.dims[2] = 5;
    return p;
}

/* Feed two samples into a 1x1 conv over 3x4 images of 5 channels in
 * `layout` and check every src element against the sample element of the
 * same (n, c, h, w). */
static void check_feed(kb_layout layout, kb_io_elem elem)
{
    static const char desc[] = "mb2ic5ih3iw4oc2oh3ow4kh1kw1ph0pw0";
    kb_settings s;
    kb_settings_default(&s);
    s.layout = layout;
    kb_problem conv;
    char err[256];
    CHECK(kb_problem_parse(desc, &s, &conv, err, sizeof err) == 0);
    kb_io_profile p = sample_profile();
    CHECK(kb_io_feed_fits(&conv, &p, 2));
    CHECK(!kb_io_feed_fits(&conv, &p, 3));   /* batch differs */

    enum { N = 2, H = 3, W = 4, C = 5 };
    uint8_t u8[N * H * W * C];
    float f32[N * H * W * C];
    for (int k = 0; k < N * H * W * C; k++) {
        u8[k] = (uint8_t)(k * 7 % 251);
        f32[k] = (float)k + 0.5f;
    }
    kb_tensors t;
    CHECK(kb_tensors_alloc(&conv, &t) == 0);
    kb_io_feed(&conv, t.ptr[KB_ARG_SRC], elem,
               elem == KB_IO_ELEM_U8 ? (const void *)u8 : (const void *)f32,
               N);
    int bad = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t idx[4] = {n, c, h, w};
                    int64_t k = ((n * H + h) * W + w) * C + c;
                    double want = elem == KB_IO_ELEM_U8 ? u8[k] / 255.0
                                                        : f32[k];
                    double got = kb_load(conv.dt.src, t.ptr[KB_ARG_SRC],
                                         kb_arg_offset(&conv, KB_ARG_SRC,
                                                       idx));
                    bad += got != (double)(float)want;
                }
    CHECK(bad == 0);
    kb_tensors_free(&t);
}

static void test_feed_layouts(void)
{
    check_feed(KB_LAYOUT_NCX, KB_IO_ELEM_F32);
    check_feed(KB_LAYOUT_NCX, KB_IO_ELEM_U8);
    check_feed(KB_LAYOUT_NXC, KB_IO_ELEM_F32);
    check_feed(KB_LAYOUT_NXC, KB_IO_ELEM_U8);
    /* A sample whose shape is not the input's is not fed. */
    kb_settings s;
    kb_settings_default(&s);
    kb_problem conv;
    char err[256];
    CHECK(kb_problem_parse("mb2ic5ih3iw4oc2oh3ow4kh1kw1ph0pw0", &s, &conv,
                           err, sizeof err) == 0);
    kb_io_profile p = sample_profile();
    p.dims[0] = 4;
    CHECK(!kb_io_feed_fits(&conv, &p, 2));
    p = sample_profile();
    p.dims[2] = 3;   /* channels */
    CHECK(!kb_io_feed_fits(&conv, &p, 2));
}

/* Each epoch record describes the model on omp, fed, with its GFLOP/s. */
static void check_compute_json(const char *path, int epochs, double layers)
{
    int n;
    cJSON **recs = io_test_jsonl(path, &n);
    CHECK(n == epochs);
    for (int i = 0; i < n; i++) {
        cJSON *o = recs[i];
        CHECK(o != NULL);
        if (!o)
            continue;
        CHECK(strcmp(cJSON_GetObjectItem(o, "compute")->valuestring,
                     "backend") == 0);
        CHECK(strcmp(cJSON_GetObjectItem(o, "compute_backend")->valuestring,
                     "omp") == 0);
        CHECK(cJSON_GetObjectItem(o, "compute_layers")->valuedouble ==
              layers);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "compute_fed")));
        CHECK(cJSON_GetObjectItem(o, "compute_gflops")->valuedouble > 0);
        CHECK(cJSON_GetObjectItem(o, "compute_s")->valuedouble > 0);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "exactly_once")));
    }
    io_test_jsonl_free(recs, n);
}

static char *root;   /* a temporary directory, made in main */

/* A sub-test run alone: the dataset the pipeline sub-test would have
 * generated (set-up, not checked here). */
static void dataset(const char *name)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    if (access(dir, F_OK) != 0)
        (void)io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                          name, "--dir", dir, NULL);
}

/* gen, then run with the omp backend as the consumer. */
static void pipeline(const char *name, double layers)
{
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(json, sizeof json, "%s/%s.jsonl", root, name);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      name, "--dir", dir, NULL) == 0);
    CHECK(io_test_cmd(NULL, 0, "run", "--profiles", profiles, "--profile",
                      name, "--dir", dir, "--epochs", "2", "--readers", "2",
                      "--compute", "backend:omp", "--json", json, "--quiet",
                      NULL) == 0);
    check_compute_json(json, 2, layers);
}

static void test_refusals(void)
{
    char dir[600], err[4096];
    dataset("cosmoflow");
    snprintf(dir, sizeof dir, "%s/cosmoflow", root);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "cosmoflow", "--dir", dir, "--compute",
                      "backend:frob", NULL) == 2);
    CHECK(strstr(err, "backend:frob") && strstr(err, "no such backend"));
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "cosmoflow", "--dir", dir, "--compute",
                      "gpu", NULL) == 2);
    CHECK(strstr(err, "expected sleep:SECONDS or backend:NAME") != NULL);
    /* unet3d's test profile names no model */
    snprintf(dir, sizeof dir, "%s/unet3d", root);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      "unet3d", "--dir", dir, NULL) == 0);
    CHECK(io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                      "--profile", "unet3d", "--dir", dir, "--compute",
                      "backend:omp", NULL) == 2);
    CHECK(strstr(err, "has no kbench model") != NULL);
}

/* --compute backend:cuda and :hip, in builds that have them, on the
 * resnet50 dataset the pipeline sub-test generated: no device, exit 2 with the
 * runtime's "no CUDA device (...)"; a device, every decoded sample
 * (32x32x3 bytes in the test profile) copied to it, in each epoch. */
static void test_device(void)
{
    static const char *const names[] = {"cuda", "hip"};
    char dir[600], json[700], err[4096], why[256];
    IO_TEST_SKIP_WITHOUT_JPEG();
    dataset("resnet50");
    snprintf(dir, sizeof dir, "%s/resnet50", root);
    for (int i = 0; i < 2; i++) {
        const kb_gpu_runtime *rt = kb_gpu_runtime_find(names[i]);
        char spec[32];
        snprintf(spec, sizeof spec, "backend:%s", names[i]);
        if (!kb_backend_find(names[i]) || !rt) {
            printf("test_io_compute: no %s backend in this build\n", names[i]);
            continue;
        }
        snprintf(json, sizeof json, "%s/%s.jsonl", root, names[i]);
        int rc = io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                             "--profile", "resnet50", "--dir", dir, "--epochs", "2",
                             "--compute", spec, "--json", json, "--quiet", NULL);
        if (rt->device_count(why, sizeof why) == 0) {
            char want[300];
            snprintf(want, sizeof want, "--compute backend:%s: %s", names[i], why);
            CHECK(rc == 2);
            CHECK(strstr(err, want) != NULL);
            CHECK(strstr(why, "device (") != NULL);   /* "no CUDA device (...)" */
            continue;
        }
        CHECK(rc == 0);
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == 2);
        for (int k = 0; k < n; k++) {
            const cJSON *b = cJSON_GetObjectItem(recs[k], "compute_h2d_bytes");
            const cJSON *t = cJSON_GetObjectItem(recs[k], "compute_h2d_s");
            const cJSON *got = cJSON_GetObjectItem(recs[k], "samples");
            CHECK(cJSON_IsNumber(b) && cJSON_IsNumber(t) && cJSON_IsNumber(got));
            if (cJSON_IsNumber(b) && cJSON_IsNumber(got))
                CHECK(b->valuedouble == got->valuedouble * 32 * 32 * 3);
            CHECK(cJSON_IsNumber(t) && t->valuedouble > 0);
        }
        io_test_jsonl_free(recs, n);
    }
}

static void test_pipeline_cosmoflow(void) { pipeline("cosmoflow", 2); }
static void test_pipeline_resnet50(void)
{
    IO_TEST_SKIP_WITHOUT_JPEG();
    pipeline("resnet50", 2);
}

static const check_test tests[] = {
    CHECK_TEST(feed_layouts), CHECK_TEST(pipeline_cosmoflow),
    CHECK_TEST(pipeline_resnet50), CHECK_TEST(device), CHECK_TEST(refusals),
    CHECK_END};

int main(int argc, char **argv)
{
    /* the tiny stand-in catalogs the test profiles name */
    setenv("KBENCH_CATALOG_DIR", KB_IO_TEST_CATALOGS, 1);
    root = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
