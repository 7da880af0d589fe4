/* test_batch.c - batch files: comments, options, --reset, errors, loading. */
#include "kernels/batch.h"
#include "tests/check.h"

#include <stdlib.h>
#include <unistd.h>

static void test_options(void)
{
    static const char text[] =
        "# a whole-line comment\n"
        "\n"
        "ic3ih8oc4kh3_nfirst   # trailing comment\n"
        "--mb=16 --dt=f64\n"
        "  --dir=FWD_I --tag=nhwc\r\n"
        "ic3ih8oc4kh3_nsecond\n"
        "m4n5k6 mb2ic8ih4\n"
        "--reset\n"
        "mb3ic8ih4_nlast";
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    kb_settings_default(&s);
    s.mb = 1;
    int rc = kb_batch_parse(text, "t.txt", &s, &l, err, sizeof err);
    CHECK(rc == 0);
    if (rc)
        fprintf(stderr, "  %s\n", err);
    CHECK(l.n == 5);
    if (l.n != 5)
        goto out;
    /* before the options: the base settings (mb 1 overrides, FWD_B) */
    CHECK_STR(l.items[0].name, "first");
    CHECK(l.items[0].conv.mb == 1 && l.items[0].dt.src == KB_F32);
    CHECK(l.items[0].dir == KB_FWD_B && l.items[0].layout == KB_LAYOUT_NCX);
    /* after them */
    CHECK(l.items[1].conv.mb == 16 && l.items[1].dt.src == KB_F64);
    CHECK(l.items[1].dir == KB_FWD_I && l.items[1].layout == KB_LAYOUT_NXC);
    CHECK(l.items[2].kind == KB_GEMM && l.items[2].gemm.m == 4);
    CHECK(l.items[3].kind == KB_BNORM && l.items[3].bnorm.mb == 16);
    /* --reset restores the settings passed in */
    CHECK(l.items[4].bnorm.mb == 1 && l.items[4].dt.src == KB_F32);
    CHECK(l.items[4].dir == KB_FWD_D && l.items[4].layout == KB_LAYOUT_NCX);
out:
    kb_problem_list_free(&l);
    CHECK(l.items == NULL && l.n == 0);
}

/* Mixed data types and the training directions. */
static void test_training_options(void)
{
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    kb_settings_default(&s);
    int rc = kb_batch_parse("--dt=bf16:bf16:f32 --dir=BWD_D --attr-fpmath=any\n"
                            "ic8ih4oc8kh3\n--dt=f16 --dir=BWD_DW\nic8ih4\n",
                            "t.txt", &s, &l, err, sizeof err);
    CHECK(rc == 0 && l.n == 2);
    if (rc == 0 && l.n == 2) {
        CHECK(l.items[0].dt.src == KB_BF16 && l.items[0].dt.wei == KB_BF16 &&
              l.items[0].dt.dst == KB_F32);
        CHECK(l.items[0].dir == KB_BWD_D && l.items[0].fpmath == KB_FPMATH_ANY);
        CHECK(kb_dts_all(&l.items[1].dt, KB_F16) && l.items[1].dir == KB_BWD_DW);
    }
    kb_problem_list_free(&l);
}

/* Parsing text must fail with a message containing want, and append
 * nothing to a list that already holds one problem. */
static void batch_fails(const char *text, const char *want)
{
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    kb_settings_default(&s);
    CHECK(kb_batch_parse("m1n1k1", "pre", &s, &l, err, sizeof err) == 0);
    int rc = kb_batch_parse(text, "b.txt", &s, &l, err, sizeof err);
    CHECK(rc == -1);
    CHECK(l.n == 1);
    bool has = rc == -1 && strstr(err, want) != NULL;
    CHECK(has);
    if (!has)
        fprintf(stderr, "  '%s' lacks '%s'\n", rc == -1 ? err : "(parsed)", want);
    kb_problem_list_free(&l);
}

static void test_errors(void)
{
    batch_fails("m1n1k1\n--frob=2\n", "b.txt:2:1: unknown option '--frob'");
    batch_fails("m1n1k1\n  --dt=f8\n", "b.txt:2:8: bad --dt value 'f8': unknown type 'f8'");
    batch_fails("--dt=bf16:bf16\n", "b.txt:1:6: bad --dt value 'bf16:bf16': two types");
    batch_fails("--dt=bf16:bf16:f32:f32\n", "more than three types");
    batch_fails("--dt=bf16::f32\n", "empty or overlong type");
    batch_fails("--dt=f64:f64:f32\n", "f64 does not mix");
    batch_fails("--dt=bf16:bf16:f32\nic8ih4\n", "b.txt:2:1: bnorm takes one data type");
    batch_fails("--dir=BWD_W\nm8n8k8\n", "b.txt:2:1: direction BWD_W does not apply to gemm; expected FWD_D, FWD_B, FWD_I");
    batch_fails("--dir=BWD_DW\nic8ih4oc8kh3\n", "direction BWD_DW does not apply to conv2d");
    batch_fails("--attr-fpmath=tf16\n", "bad --attr-fpmath value 'tf16'");
    batch_fails("--dir=BWD\n", "b.txt:1:7: bad --dir value 'BWD'");
    batch_fails("--tag=nchw8c\n", "b.txt:1:7: bad --tag value");
    batch_fails("--mb=-1\n", "b.txt:1:6: bad --mb value '-1'");
    batch_fails("--mb\n", "b.txt:1:1: option '--mb' needs a value");
    batch_fails("--reset=1\n", "b.txt:1:1: option '--reset' takes no value");
    /* descriptor errors keep their column, moved into the line */
    batch_fails("# c\nm1n1k1\n   ic3oc4qx3ih5kh3\n",
                "b.txt:3:10: unknown token 'qx3'");
    batch_fails("m1n1k1 ic3ih2oc4kh3 m2n2k2\n", "b.txt:1:17: output 'oh'");
    batch_fails("--dir=FWD_B\nic8ih4\n", "b.txt:2:1: direction FWD_B");
}

static void test_load(void)
{
    char path[] = "/tmp/kb_test_batchXXXXXX";
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    kb_settings_default(&s);
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    static const char text[] = "--mb=3\nic2ih4oc2kh1\n";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    CHECK(kb_batch_load(path, &s, &l, err, sizeof err) == 0);
    CHECK(l.n == 1 && l.items[0].conv.mb == 3);
    /* errors name the file */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("m1n1k1\nbogus!\n", f);
        fclose(f);
    }
    CHECK(kb_batch_load(path, &s, &l, err, sizeof err) == -1);
    CHECK(strstr(err, path) != NULL && strstr(err, ":2:1:") != NULL);
    CHECK(l.n == 1);
    unlink(path);
    /* a missing file: the path and the reason */
    CHECK(kb_batch_load(path, &s, &l, err, sizeof err) == -1);
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, "No such file") != NULL);
    /* a directory cannot be read as a batch file */
    CHECK(kb_batch_load("/tmp", &s, &l, err, sizeof err) == -1);
    CHECK(strstr(err, "'/tmp'") != NULL);
    kb_problem_list_free(&l);
}

static void test_list(void)
{
    kb_problem_list l = {0};
    kb_problem p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 100; i++) {
        p.count = i + 1;
        CHECK(kb_problem_list_push(&l, &p) == 0);
    }
    CHECK(l.n == 100 && l.cap >= 100 && l.items[99].count == 100);
    kb_problem_list_free(&l);
}

static const check_test tests[] = {
    CHECK_TEST(options),
    CHECK_TEST(training_options),
    CHECK_TEST(errors),
    CHECK_TEST(load),
    CHECK_TEST(list),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
