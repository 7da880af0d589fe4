/* test_blas_geometry.c - the cuBLAS call the cublas backend makes for a
 * row-major GEMM (backends/gpu/blas_geometry.h), replayed on the CPU
 * by a column-major GEMM with BLAS's semantics, must give kbench's C for
 * every transpose case and rectangular shapes: the operand swap, the ops
 * and the leading dimensions are checked without a GPU. */
#include <stdlib.h>

#include "backends/gpu/blas_geometry.h"
#include "tests/check.h"

/* op(X)(i, l) of a column-major X with leading dimension ld. */
static double op_at(const double *x, bool trans, int64_t ld, int64_t i,
                    int64_t l)
{
    return trans ? x[l + i * ld] : x[i + l * ld];
}

/* C = op(X) op(Y), column-major, as cublasGemmEx computes it (alpha 1,
 * beta 0). */
static void blas_gemm(const kb_blas_geometry *g, const double *x,
                      const double *y, double *c)
{
    for (int64_t j = 0; j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++) {
            double s = 0;
            for (int64_t l = 0; l < g->k; l++)
                s += op_at(x, g->trans_first, g->ld_first, i, l) *
                     op_at(y, g->trans_second, g->ld_second, l, j);
            c[i + j * g->ldc] = s;
        }
}

static void check_case(int64_t m, int64_t n, int64_t k, bool ta, bool tb)
{
    kb_problem p = {.kind = KB_GEMM};
    p.gemm = (kb_gemm_desc){.m = m, .n = n, .k = k, .ta = ta, .tb = tb,
                            .alpha = 1.0};
    double *a = calloc((size_t)(m * k), sizeof *a);
    double *b = calloc((size_t)(k * n), sizeof *b);
    double *c = calloc((size_t)(m * n), sizeof *c);
    /* distinct small integers: any misplaced element changes a sum */
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (double)(i % 7 + 1);
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (double)(i % 5 + 2) * 10;

    kb_blas_geometry g;
    kb_blas_geometry_of(&p.gemm, &g);
    CHECK(g.first == KB_ARG_WEI && g.second == KB_ARG_SRC);
    CHECK(g.m == n && g.n == m && g.k == k);
    blas_gemm(&g, b, a, c);

    int bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double want = 0;
            for (int64_t l = 0; l < k; l++) {
                int64_t ia[2] = {i, l}, ib[2] = {l, j};
                want += a[kb_arg_offset(&p, KB_ARG_SRC, ia)] *
                        b[kb_arg_offset(&p, KB_ARG_WEI, ib)];
            }
            int64_t ic[2] = {i, j};
            bad += c[kb_arg_offset(&p, KB_ARG_DST, ic)] != want;
        }
    if (bad)
        fprintf(stderr, "m=%lld n=%lld k=%lld ta=%d tb=%d: %d wrong\n",
                (long long)m, (long long)n, (long long)k, ta, tb, bad);
    CHECK(bad == 0);
    free(a);
    free(b);
    free(c);
}

static void test_shapes(void)
{
    static const int64_t shapes[][3] = {
        {1, 1, 1}, {3, 5, 7}, {7, 3, 5}, {5, 7, 3}, {1, 9, 4}, {6, 1, 2}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++)
            check_case(shapes[s][0], shapes[s][1], shapes[s][2], t & 1,
                       t & 2);
}

/* BLAS wants every leading dimension at least 1, even with K = 0 */
static void test_k_zero(void)
{
    kb_blas_geometry g;
    kb_blas_geometry_of(&(kb_gemm_desc){.m = 4, .n = 3, .k = 0}, &g);
    CHECK(g.ld_first == 3 && g.ld_second == 1 && g.ldc == 3);
}

static const check_test tests[] = {
    CHECK_TEST(shapes),
    CHECK_TEST(k_zero),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
