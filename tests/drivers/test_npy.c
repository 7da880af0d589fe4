/* test_npy.c - the .npy writer and --dump, checked byte by byte against
 * the NPY v1.0 format as numpy.lib.format documents it, and the manifest
 * that tells an outside oracle what each file holds. */
#include "drivers/dump_npy.h"

#include "check.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <unistd.h>

/* Magic, version 1.0, header length 118 (0x76, little-endian), the dict,
 * 58 spaces and '\n': 10 + 118 = 128, a multiple of 64. */
static void test_header_2x3_f32(void)
{
    const char dict[] =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    char expect[128];
    memcpy(expect, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(expect + 10, dict, sizeof dict - 1);
    memset(expect + 10 + sizeof dict - 1, ' ', 128 - 10 - (sizeof dict - 1));
    expect[127] = '\n';

    char buf[256];
    int64_t dims[] = {2, 3};
    int n = kb_npy_header(buf, sizeof buf, KB_F32, 2, dims);
    CHECK(n == 128);
    CHECK(n == 128 && memcmp(buf, expect, 128) == 0);
    CHECK(kb_npy_header(buf, 100, KB_F32, 2, dims) == -1);   /* too small */
}

/* A 1-D shape keeps Python's trailing comma; f64 says '<f8'. */
static void test_header_1d_f64(void)
{
    char buf[256];
    int64_t dims[] = {7};
    int n = kb_npy_header(buf, sizeof buf, KB_F64, 1, dims);
    CHECK(n == 128);                           /* 10 + 57 + '\n' > 64 */
    CHECK(n > 0 && memcmp(buf + 10,
                          "{'descr': '<f8', 'fortran_order': False, "
                          "'shape': (7,), }", 57) == 0);
    CHECK(buf[8] == 118 && buf[9] == 0 && buf[127] == '\n' &&
          buf[126] == ' ' && buf[67] == ' ');
}

/* A tiny GEMM: m 2, k 3, n 2, A transposed (stored [K, M]), beta 1. */
static kb_problem tiny_gemm(void)
{
    kb_problem p;
    memset(&p, 0, sizeof p);
    p.kind = KB_GEMM;
    p.gemm = (kb_gemm_desc){.m = 2, .n = 2, .k = 3, .ta = true,
                            .alpha = 1.0, .beta = 1.0};
    p.count = 1;
    p.dt = kb_dts_uniform(KB_F32);
    snprintf(p.name, sizeof p.name, "tiny");
    return p;
}

/* Read a whole file into a malloc'd buffer; NULL when it cannot. */
static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)*len + 1);
    if (b && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
        free(b);
        b = NULL;
    }
    if (b)
        b[*len] = 0;
    fclose(f);
    return b;
}

/* The payload is in logical C order: A's [K, M] storage comes out as
 * [M, K]. */
static void test_payload_transposed(void)
{
    kb_problem p = tiny_gemm();
    float phys[6] = {0, 1, 2, 3, 4, 5};    /* a[i][j] = phys[j * 2 + i] */
    const float logical[6] = {0, 2, 4, 1, 3, 5};
    char path[] = "/tmp/kb_test_npy_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    FILE *f = fopen(path, "wb");
    char err[256] = "";
    CHECK(f && kb_npy_write_arg(f, &p, KB_ARG_SRC, phys, err, sizeof err) == 0);
    if (f)
        fclose(f);
    long len = 0;
    unsigned char *b = slurp(path, &len);
    CHECK(b && len == 128 + 6 * 4);
    if (b && len == 128 + 6 * 4) {
        CHECK(memcmp(b + 10, "{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2, 3), }", 59) == 0);
        CHECK(memcmp(b + 128, logical, sizeof logical) == 0);
    }
    free(b);
    unlink(path);
}

/* Every element of the .npy payload at path equals v; the payload starts
 * after the header length stored in bytes 8 and 9. */
static bool npy_all_equal(const char *path, float v, long nelems)
{
    long len = 0;
    unsigned char *b = slurp(path, &len);
    long start = b && len >= 10 ? 10 + b[8] + 256L * b[9] : 0;
    bool ok = b && start % 64 == 0 && len == start + nelems * 4;
    for (long i = 0; ok && i < nelems; i++) {
        float x;
        memcpy(&x, b + start + i * 4, 4);
        ok = x == v;
    }
    free(b);
    return ok;
}

static const char *json_str(const cJSON *o, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

/* --dump of one GEMM case: a, b, the initial c and the result dst, and a
 * manifest line naming them with the GEMM parameters. */
static void test_dump_gemm_case(void)
{
    char dir[] = "/tmp/kb_test_dump_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char err[512] = "";
    kb_dump *d = kb_dump_open(dir, err, sizeof err);
    CHECK(d != NULL);
    if (!d)
        return;

    kb_problem p = tiny_gemm();
    float a[6] = {0}, bm[6] = {0}, c0[4] = {7, 7, 7, 7}, dst[4] = {9, 9, 9, 9};
    kb_tensors in = {{0}}, out = {{0}};
    in.ptr[KB_ARG_SRC] = out.ptr[KB_ARG_SRC] = a;
    in.ptr[KB_ARG_WEI] = out.ptr[KB_ARG_WEI] = bm;
    in.ptr[KB_ARG_DST] = c0;
    out.ptr[KB_ARG_DST] = dst;
    CHECK(kb_dump_case(d, 1, "omp", &p, "m2n2k3_ta", &in, &out, err,
                       sizeof err) == 0);
    CHECK(kb_dump_close(d) == 0);

    char path[512];
    const char *names[] = {"a", "b", "c", "dst"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/1_omp_%s.npy", dir, names[i]);
        CHECK(access(path, R_OK) == 0);
    }
    snprintf(path, sizeof path, "%s/1_omp_c.npy", dir);
    CHECK(npy_all_equal(path, 7.0f, 4));
    snprintf(path, sizeof path, "%s/1_omp_dst.npy", dir);
    CHECK(npy_all_equal(path, 9.0f, 4));

    snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
    long len = 0;
    char *text = (char *)slurp(path, &len);
    CHECK(text && len > 0 && text[len - 1] == '\n');
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(json_str(m, "desc"), "m2n2k3_ta");
        CHECK_STR(json_str(m, "kernel"), "gemm");
        CHECK_STR(json_str(m, "backend"), "omp");
        CHECK_STR(json_str(m, "dtype"), "f32");
        const cJSON *prm = cJSON_GetObjectItemCaseSensitive(m, "params");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(prm, "transa")));
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(prm, "transb")));
        CHECK(cJSON_GetNumberValue(
                  cJSON_GetObjectItemCaseSensitive(prm, "beta")) == 1.0);
        CHECK(cJSON_GetObjectItemCaseSensitive(prm, "stride") == NULL);
        CHECK_STR(json_str(m, "dir"), "FWD_D");
        CHECK_STR(json_str(m, "fpmath"), "strict");
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(m, "tensors");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(ts, "c");
        const cJSON *dm = cJSON_GetObjectItemCaseSensitive(ts, "dst");
        CHECK_STR(json_str(c, "file"), "1_omp_c.npy");
        CHECK_STR(json_str(c, "role"), "input");
        CHECK_STR(json_str(dm, "file"), "1_omp_dst.npy");
        CHECK_STR(json_str(dm, "role"), "output");
        CHECK_STR(json_str(dm, "stored"), "f32");
        CHECK(cJSON_GetArraySize(ts) == 4);
    }
    cJSON_Delete(m);
    free(text);

    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/1_omp_%s.npy", dir, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
    unlink(path);
    rmdir(dir);
}

/* The payload of the .npy file at path (after its header), or NULL; *n
 * is its length in bytes. */
static unsigned char *npy_payload(const char *path, unsigned char **whole,
                                  long *n)
{
    long len = 0;
    *whole = slurp(path, &len);
    long start = *whole && len >= 10 ? 10 + (*whole)[8] + 256L * (*whole)[9]
                                     : 0;
    if (!*whole || start > len)
        return NULL;
    *n = len - start;
    return *whole + start;
}

/* Remove every regular file of dir, then dir. */
static void remove_dir(const char *dir, const char *const *files, int n)
{
    char path[512];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        CHECK(unlink(path) == 0);
    }
    rmdir(dir);
}

/* An f16 tensor keeps its bits on disk as '<f2'. */
static void test_f16_stays_half(void)
{
    kb_problem p = tiny_gemm();
    p.dt = kb_dts_uniform(KB_F16);
    p.gemm.ta = false;
    const uint16_t bits[6] = {0x3c00, 0xc000, 0x3555, 0x7bff, 0x0001, 0x8000};
    char path[] = "/tmp/kb_test_npy_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    FILE *f = fopen(path, "wb");
    char err[256] = "";
    CHECK(f && kb_npy_write_arg(f, &p, KB_ARG_SRC, bits, err, sizeof err) == 0);
    if (f)
        fclose(f);
    unsigned char *whole = NULL;
    long n = 0;
    unsigned char *pay = npy_payload(path, &whole, &n);
    CHECK(whole && memcmp(whole + 10, "{'descr': '<f2'", 15) == 0);
    CHECK(pay && n == sizeof bits && memcmp(pay, bits, sizeof bits) == 0);
    free(whole);
    unlink(path);
}

/* --dump of a bf16 conv BWD_D case: diff_dst and wei read, diff_src
 * written, each widened exactly to f32 on disk and listed in the
 * manifest with its storage type, role and shape beside the direction,
 * the dtype triple and fpmath. */
static void test_dump_bf16_bwd_d(void)
{
    kb_settings s;
    kb_settings_default(&s);
    s.dt = kb_dts_uniform(KB_BF16);
    s.dir = KB_BWD_D;
    s.dir_given = true;
    s.fpmath = KB_FPMATH_BF16;
    kb_problem p;
    char err[512] = "";
    CHECK(kb_problem_parse("mb1ic2oc3ih3iw3kh1kw1", &s, &p, err,
                           sizeof err) == 0);
    /* diff_dst [1,3,3,3], wei [3,2,1,1], diff_src [1,2,3,3] */
    uint16_t dd[27], w[6], ds[18];
    for (int i = 0; i < 27; i++)
        dd[i] = 0x3fc0;                  /* 1.5 */
    for (int i = 0; i < 6; i++)
        w[i] = 0xc080;                   /* -4 */
    for (int i = 0; i < 18; i++)
        ds[i] = 0x3f81;                  /* 1.0078125, the bf16 above 1 */
    kb_tensors t = {{0}};
    t.ptr[KB_ARG_DIFF_DST] = dd;
    t.ptr[KB_ARG_WEI] = w;
    t.ptr[KB_ARG_DIFF_SRC] = ds;

    char dir[] = "/tmp/kb_test_dump_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    kb_dump *d = kb_dump_open(dir, err, sizeof err);
    CHECK(d != NULL);
    if (!d)
        return;
    CHECK(kb_dump_case(d, 3, "omp", &p, "bwd", &t, &t, err, sizeof err) == 0);
    CHECK(kb_dump_close(d) == 0);

    const char *const files[] = {"3_omp_wei.npy", "3_omp_diff_src.npy",
                                 "3_omp_diff_dst.npy", "manifest.jsonl"};
    const float expect[3] = {-4.0f, 1.0078125f, 1.5f};
    const long count[3] = {6, 18, 27};
    char path[512];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        CHECK(npy_all_equal(path, expect[i], count[i]));
    }

    snprintf(path, sizeof path, "%s/manifest.jsonl", dir);
    long len = 0;
    char *text = (char *)slurp(path, &len);
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(json_str(m, "dir"), "BWD_D");
        CHECK_STR(json_str(m, "dtype"), "bf16");
        CHECK_STR(json_str(m, "fpmath"), "bf16");
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(m, "tensors");
        CHECK(cJSON_GetArraySize(ts) == 3);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(ts, "diff_dst");
        CHECK_STR(json_str(e, "file"), "3_omp_diff_dst.npy");
        CHECK_STR(json_str(e, "role"), "input");
        CHECK_STR(json_str(e, "dtype"), "bf16");
        CHECK_STR(json_str(e, "stored"), "f32");
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
        CHECK(cJSON_GetArraySize(shape) == 4 &&
              cJSON_GetNumberValue(cJSON_GetArrayItem(shape, 1)) == 3);
        e = cJSON_GetObjectItemCaseSensitive(ts, "diff_src");
        CHECK_STR(json_str(e, "role"), "output");
        CHECK_STR(json_str(e, "stored"), "f32");
        CHECK(cJSON_GetObjectItemCaseSensitive(ts, "src") == NULL);
    }
    cJSON_Delete(m);
    free(text);
    remove_dir(dir, files, 4);
}

/* A --dump path that is a regular file cannot become a directory. */
static void test_dump_dir_is_a_file(void)
{
    char path[] = "/tmp/kb_test_notdir_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char err[512] = "";
    CHECK(kb_dump_open(path, err, sizeof err) == NULL);
    CHECK(strstr(err, path) != NULL);
    unlink(path);
}

static const check_test tests[] = {
    CHECK_TEST(header_2x3_f32),
    CHECK_TEST(header_1d_f64),
    CHECK_TEST(payload_transposed),
    CHECK_TEST(dump_gemm_case),
    CHECK_TEST(f16_stays_half),
    CHECK_TEST(dump_bf16_bwd_d),
    CHECK_TEST(dump_dir_is_a_file),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
