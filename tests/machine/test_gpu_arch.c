/* test_gpu_arch.c - the GPU architecture table: a known architecture gives
 * SMs x lanes x 2 x clock (vector and matrix units, "fma" falling back to
 * the vector rate), a "-" cell or an unknown architecture gives no figure
 * and a reason naming it, a malformed row is refused with path:line, and
 * every row of the installed gpu_arch.conf parses. */
#include "machine/machine.h"
#include "kernels/data_dir.h"
#include "tests/check.h"

#include <stdlib.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char dir[] = "/tmp/kb_gpuarch_XXXXXX", path[64];

static void write_table(void)
{
    write_text(path,
               "# comment\n"
               "\n"
               "sm_90  *H200*  hopper  64 128 256 256  128 fma 2048 2048  4800\n"
               "sm_90  *       hopper  64 128 256 256  128 fma 2048 2048  -\n"
               "gfx90a *       cdna2   64 128 -   -    128 128 512  512   1638.4\n");
}

/* the first matching row wins; vector and matrix peaks */
static void test_lookup_and_peak(void)
{
    char why[512];
    kb_gpu_arch a;
    write_table();
    /* the first matching row wins: the H200 row, then the catch-all */
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "NVIDIA H200", &a, why, sizeof why) == 1);
    CHECK_STR(a.name, "hopper");
    CHECK(a.dram_gbps == 4800);
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "NVIDIA H100 80GB HBM3", &a, why,
                             sizeof why) == 1);
    CHECK(a.dram_gbps == 0);
    /* vector: SMs x lanes x 2 x clock */
    CHECK_NEAR(kb_gpu_arch_peak(&a, false, "fp32", 132, 1.98, why, sizeof why),
               132 * 128 * 2 * 1.98, 1e-12);
    CHECK_NEAR(kb_gpu_arch_peak(&a, false, "fp64", 132, 1.98, why, sizeof why),
               132 * 64 * 2 * 1.98, 1e-12);
    /* matrix: its own lanes; "fma" is the vector rate */
    CHECK_NEAR(kb_gpu_arch_peak(&a, true, "bf16", 132, 1.98, why, sizeof why),
               132 * 2048 * 2 * 1.98, 1e-12);
    CHECK_NEAR(kb_gpu_arch_peak(&a, true, "fp32", 132, 1.98, why, sizeof why),
               132 * 128 * 2 * 1.98, 1e-12);
    CHECK(kb_gpu_arch_peak(&a, false, "fp8", 132, 1.98, why, sizeof why) == 0);
    CHECK(strstr(why, "fp8") != NULL);
    CHECK(kb_gpu_arch_peak(&a, false, "fp32", 0, 1.98, why, sizeof why) == 0);
    CHECK(strstr(why, "SM count") != NULL);
}

/* a "-" cell, and an architecture not in the table */
static void test_missing_cell_and_arch(void)
{
    char why[512];
    kb_gpu_arch a;
    write_table();
    /* a "-" cell: no figure, and the reason names precision and arch */
    CHECK(kb_gpu_arch_lookup(path, "gfx90a", "AMD Instinct MI250X", &a, why,
                             sizeof why) == 1);
    CHECK(a.dram_gbps == 1638.4);
    CHECK(kb_gpu_arch_peak(&a, false, "fp16", 110, 1.7, why, sizeof why) == 0);
    CHECK(strstr(why, "fp16") && strstr(why, "cdna2") && strstr(why, "gfx90a"));
    CHECK_NEAR(kb_gpu_arch_peak(&a, true, "fp16", 110, 1.7, why, sizeof why),
               110 * 512 * 2 * 1.7, 1e-12);

    /* an unknown architecture: not found, the reason names it */
    CHECK(kb_gpu_arch_lookup(path, "sm_87", "Orin", &a, why, sizeof why) == 0);
    CHECK(strstr(why, "sm_87 not in gpu_arch.conf") != NULL);
}

/* malformed rows: path:line and the column; no file */
static void test_malformed(void)
{
    char why[512];
    kb_gpu_arch a;
    write_text(path, "sm_90 * hopper 64 128 256 256 128 fma 2048\n");
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "x", &a, why, sizeof why) == -1);
    CHECK(strstr(why, "gpu_arch.conf:1") && strstr(why, "columns"));
    write_text(path, "# x\nsm_90 * hopper 64 1.5 256 256 128 fma 2048 2048 -\n");
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "x", &a, why, sizeof why) == -1);
    CHECK(strstr(why, "gpu_arch.conf:2") && strstr(why, "fp32"));
    write_text(path, "sm_90 * hopper 64 fma 256 256 128 fma 2048 2048 -\n");
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "x", &a, why, sizeof why) == -1);
    write_text(path, "sm_90 * hopper 64 128 256 256 128 fma 2048 2048 fast\n");
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "x", &a, why, sizeof why) == -1);
    CHECK(strstr(why, "dram_gbps") != NULL);
    unlink(path);
    CHECK(kb_gpu_arch_lookup(path, "sm_90", "x", &a, why, sizeof why) == -1);
    CHECK(strstr(why, "cannot open") != NULL);
}

static void test_installed_table(void)
{
    char why[512];
    kb_gpu_arch a;
    /* the installed table: an unknown arch walks every row, so 0 (not -1)
     * means all of them parse; the architectures the README names are in */
    char real[4096];
    CHECK(kb_data_path("peaks/gpu_arch.conf", real, sizeof real, why, sizeof why) == 0);
    CHECK(kb_gpu_arch_lookup(real, "sm_xx", "none", &a, why, sizeof why) == 0);
    CHECK(strstr(why, "sm_xx not in gpu_arch.conf") != NULL);
    static const char *const known[] = {"sm_70", "sm_80", "sm_86", "sm_89", "sm_90",
                                        "sm_100", "gfx90a", "gfx942"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CHECK(kb_gpu_arch_lookup(real, known[i], "any", &a, why, sizeof why) == 1);
        CHECK(kb_gpu_arch_peak(&a, false, "fp32", 100, 1.5, why, sizeof why) > 0);
    }
}

static const check_test tests[] = {
    CHECK_TEST(lookup_and_peak), CHECK_TEST(missing_cell_and_arch),
    CHECK_TEST(malformed), CHECK_TEST(installed_table), CHECK_END};

int main(int argc, char **argv)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/gpu_arch.conf", dir);
    int status = check_main(argc, argv, tests);
    unlink(path);
    rmdir(dir);
    return status;
}
