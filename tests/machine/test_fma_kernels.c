/* test_fma_kernels.c - the FMA kernel table (fma_kernels.h) of this
 * architecture: well formed (grouped by precision, as kb_fma_peaks
 * assumes; names unique), and every kernel the CPU runs computes what it
 * claims: an FMA chain acc = acc * 0.75 + seed ends at 4 x seed, and a
 * bf16 pair-dot chain grows by 2 x (1/64) x (seed/64) per iteration, so
 * that chains x lanes x 2 flops per iteration is the count kbench uses.
 * A kernel that dropped chains (a compiler that kept one of twelve) would
 * still pass this; its figure above the theoretical peak fails
 * test_fma_ceiling. */
#include "machine/fma_kernels.h"
#include "tests/check.h"

#include <stdbool.h>
#include <string.h>

/* each precision's kernels contiguous, names unique within a precision */
static void test_table_well_formed(void)
{
    CHECK(kb_fma_nkernels > 0);
    for (int i = 0; i < kb_fma_nkernels; i++) {
        const kb_fma_kernel *k = &kb_fma_kernels[i];
        CHECK(k->chains > 0 && k->lanes && k->supported && k->run);
        for (int j = i + 1; j < kb_fma_nkernels; j++) {
            const kb_fma_kernel *o = &kb_fma_kernels[j];
            bool same = strcmp(k->precision, o->precision) == 0;
            if (same && strcmp(k->kernel, o->kernel) == 0)
                fprintf(stderr, "%s %s listed twice\n", k->precision, k->kernel);
            CHECK(!same || strcmp(k->kernel, o->kernel) != 0);
            /* j after a different precision: k's group ended before j */
            if (same && strcmp(kb_fma_kernels[j - 1].precision, k->precision) != 0)
                fprintf(stderr, "%s: %s is apart from the others\n", k->precision, o->kernel);
            CHECK(!same || strcmp(kb_fma_kernels[j - 1].precision, k->precision) == 0);
        }
    }
}

/* What one kernel returns, by architecture: x86's and the portable ones
 * (fma_kernels_x86.c, fma_kernel_vec.h) the mean over the chains of lane
 * 0, each converging to 4 x seed, and a pair-dot chain's growth; Arm's
 * (fma_kernels_arm.c) the sum over the chains of lane 0, each chain
 * alternating FMLA and FMLS of 0.75 x seed from 0.75 x (c + 1), and a
 * BFDOT lane growing by one pair-dot, a BFMMLA lane by two (4 products). */
#if defined(__aarch64__)
static void check_fma_result(const kb_fma_kernel *k)
{
    double even = k->run(1000, 0.5), odd = k->run(1001, 0.5);
    printf("%s %s: %.6f, %.6f\n", k->precision, k->kernel, even, odd);
    CHECK_NEAR(even, 0.75 * 78, 1e-3);   /* 0.75 x (1 + ... + 12) */
    CHECK_NEAR(odd - even, k->chains * 0.75 * 0.5, 1e-3);
}
static double pair_dots_per_step(const kb_fma_kernel *k)
{
    return k->chains * (strncmp(k->kernel, "bfmmla", 6) == 0 ? 2 : 1);
}
#else
static void check_fma_result(const kb_fma_kernel *k)
{
    double v = k->run(1000, 0.5);   /* 0.75^1000: converged */
    printf("%s %s: %.6f\n", k->precision, k->kernel, v);
    /* In fp16 (ulp 2^-9 just above 2) x = round(0.75x + 0.5) has fixed
     * points up to two ulps either side of 2, and each chain stops at
     * one of them: the compiler's kernel gave 2.0021 (Emerald Rapids).
     * The tolerance is relative, to 2: 2^-8 is four ulps. */
    CHECK_NEAR(v, 2.0, strcmp(k->precision, "fp16") == 0 ? 0x1p-8 : 1e-3);
}
static double pair_dots_per_step(const kb_fma_kernel *k)
{
    (void)k;
    return 1;
}
#endif

static void test_kernels_compute(void)
{
    int ran = 0;
    for (int i = 0; i < kb_fma_nkernels; i++) {
        const kb_fma_kernel *k = &kb_fma_kernels[i];
        if (!k->supported())
            continue;
        ran++;
        CHECK(k->lanes() > 0);
        if (strcmp(k->precision, "bf16") == 0) {
            /* the growth of 1000 iterations, whatever the chains start at */
            double step = 2 * (1.0 / 64) * (0.5 / 64) * pair_dots_per_step(k);
            double grew = k->run(2000, 0.5) - k->run(1000, 0.5);
            printf("%s %s: +%.6f per 1000 iterations\n", k->precision, k->kernel, grew);
            CHECK_NEAR(grew, 1000 * step, 1e-3);
        } else {
            check_fma_result(k);
        }
    }
    if (ran == 0) {
        CHECK_SKIP("this CPU runs none of the %d FMA kernels", kb_fma_nkernels);
    }
}

static const check_test tests[] = {CHECK_TEST(table_well_formed), CHECK_TEST(kernels_compute),
                                   CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
