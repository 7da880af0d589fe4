/* test_openblas_warning.c - the check that flags OpenBLAS running kernels
 * narrower than the CPU (0.3.21 falls back to Prescott on CPUs it does not
 * know), and the fix its warning names. */
#include <string.h>

#include "backends/openblas/openblas_backend.h"
#include "tests/check.h"

/* generic or narrower cores than the CPU: a warning naming the fix */
static void test_fallback_warns(void)
{
    char fix[256] = "";

    /* generic core on an AVX-512 CPU: warn and name SkylakeX */
    CHECK(kb_openblas_core_fallback("Prescott", true, true, fix, sizeof fix));
    CHECK(strstr(fix, "Prescott") && strstr(fix, "OPENBLAS_CORETYPE=SkylakeX"));
    /* generic core on an AVX2 CPU: Haswell is the fix */
    fix[0] = '\0';
    CHECK(kb_openblas_core_fallback("Core2", true, false, fix, sizeof fix));
    CHECK(strstr(fix, "OPENBLAS_CORETYPE=Haswell") != NULL);
    /* AVX2 kernels on an AVX-512 CPU */
    CHECK(kb_openblas_core_fallback("Haswell", true, true, fix, sizeof fix));
    CHECK(strstr(fix, "AVX-512") && strstr(fix, "SkylakeX"));
}

static void test_no_warning(void)
{
    char fix[256] = "";

    /* matching cores: no warning */
    CHECK(!kb_openblas_core_fallback("SkylakeX", true, true, fix, sizeof fix));
    CHECK(!kb_openblas_core_fallback("Cooperlake", true, true, fix, sizeof fix));
    CHECK(!kb_openblas_core_fallback("Haswell", true, false, fix, sizeof fix));
    CHECK(!kb_openblas_core_fallback("Zen", true, false, fix, sizeof fix));
    /* a CPU without AVX2 has nothing better to run */
    CHECK(!kb_openblas_core_fallback("Prescott", false, false, fix, sizeof fix));
}

/* case-insensitive, as corenames vary in case across versions */
static void test_case_insensitive(void)
{
    char fix[256] = "";
    CHECK(kb_openblas_core_fallback("PRESCOTT", true, false, fix, sizeof fix));
}

static const check_test tests[] = {
    CHECK_TEST(fallback_warns), CHECK_TEST(no_warning),
    CHECK_TEST(case_insensitive), CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
