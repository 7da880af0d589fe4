/* omp_gemm.c - the blocked fp32 GEMM engine (BLIS layering) and the GEMM
 * kernel of the omp backend.
 *
 * Loop order, outermost first, each loop in its own function:
 *   gemm_thread     one thread's rectangle of C (threads tile C in 2D)
 *   loop_jc         NC-wide column blocks of the rectangle
 *   loop_pc         KC-deep slices of K; packs the KC x NC block of B
 *   loop_ic         MC-high row blocks; packs the MC x KC block of A
 *   macro_kernel    NR x MR micro-tiles of the block
 *   ukernel_8x32    one MR x NR tile, accumulated in registers */
#include "omp_kernels.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef kb_v16sf v16sf;

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, KC = KB_OMP_KC, MC = KB_OMP_MC,
       NC = KB_OMP_NC, NV = NR / 16 };

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* ---- packers for strided matrices ---- */

void kb_omp_pack_a_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    for (int64_t ip = 0; ip < rows; ip += MR) {
        int64_t mr = min64(MR, rows - ip);
        const float *a = op->ptr + (r0 + ip) * op->rs + c0 * op->cs;
        for (int64_t k = 0; k < cols; k++, buf += MR) {
            int64_t i = 0;
            for (; i < mr; i++)
                buf[i] = a[i * op->rs + k * op->cs];
            for (; i < MR; i++)
                buf[i] = 0.0f;
        }
    }
}

void kb_omp_pack_b_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    for (int64_t jp = 0; jp < cols; jp += NR) {
        int64_t nr = min64(NR, cols - jp);
        const float *b = op->ptr + r0 * op->rs + (c0 + jp) * op->cs;
        if (op->rs == 1 && op->cs != 1) {
            /* Transposed B: each column is contiguous in k, so read
             * columns and scatter into the L1-resident panel rather than
             * gathering NR strided elements for every k. */
            for (int64_t j = 0; j < nr; j++) {
                const float *col = b + j * op->cs;
                for (int64_t k = 0; k < rows; k++)
                    buf[k * NR + j] = col[k];
            }
            for (int64_t j = nr; j < NR; j++)
                for (int64_t k = 0; k < rows; k++)
                    buf[k * NR + j] = 0.0f;
            buf += rows * NR;
            continue;
        }
        for (int64_t k = 0; k < rows; k++, buf += NR) {
            const float *row = b + k * op->rs;
            int64_t j = 0;
            if (op->cs == 1) {          /* the common case: a contiguous row */
                memcpy(buf, row, (size_t)nr * sizeof(float));
                j = nr;
            }
            for (; j < nr; j++)
                buf[j] = row[j * op->cs];
            for (; j < NR; j++)
                buf[j] = 0.0f;
        }
    }
}

/* ---- micro-kernel ---- */

/* How one micro-tile is written back: C = alpha*acc + beta*C + bias. */
typedef struct {
    float alpha, beta;         /* beta == 0: C is not read */
    const float *bias;         /* already offset to the tile, or NULL */
    int64_t bias_rs, bias_cs;
} tile_update;

/* acc[MR][NR] = sum over k of a[k][0..MR) (outer) b[k][0..NR).  a and b
 * are packed micro-panels, 64-byte aligned.  The accumulators are an
 * array indexed by compile-time constants only, so gcc keeps all 16 in
 * registers. */
static void ukernel_8x32(int64_t kc, const float *restrict a,
                         const float *restrict b, v16sf acc[MR][NV])
{
    v16sf c[MR][NV];
    for (int i = 0; i < MR; i++)
        for (int v = 0; v < NV; v++)
            c[i][v] = (v16sf){0};
    for (int64_t k = 0; k < kc; k++, a += MR, b += NR) {
        v16sf b0 = *(const v16sf *)b;
        v16sf b1 = *(const v16sf *)(b + 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            v16sf ai = (v16sf){0} + a[i];   /* broadcast */
            c[i][0] += ai * b0;
            c[i][1] += ai * b1;
        }
    }
    memcpy(acc, c, sizeof(c));
}

/* Write the m x n corner (m <= MR, n <= NR) of acc into C. */
static void tile_store(v16sf acc[MR][NV], int64_t m, int64_t n,
                       float *c, int64_t rs_c, int64_t cs_c,
                       const tile_update *u)
{
    const float *t = (const float *)acc;
    if (m == MR && n == NR && cs_c == 1 && !u->bias) {
        /* Full tile, contiguous rows: whole vectors. */
        for (int i = 0; i < MR; i++) {
            for (int v = 0; v < NV; v++) {
                v16sf r = u->alpha * acc[i][v], old;
                float *cp = c + i * rs_c + 16 * v;
                if (u->beta != 0.0f) {
                    memcpy(&old, cp, sizeof(old));
                    r += u->beta * old;
                }
                memcpy(cp, &r, sizeof(r));
            }
        }
        return;
    }
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            float *cp = c + i * rs_c + j * cs_c;
            float r = u->alpha * t[i * NR + j];
            if (u->beta != 0.0f)
                r += u->beta * *cp;
            if (u->bias)
                r += u->bias[i * u->bias_rs + j * u->bias_cs];
            *cp = r;
        }
    }
}

/* ---- the loops ---- */

/* Assumes: pa holds ceil(mc/MR) packed A micro-panels of depth kc, pb
 * ceil(nc/NR) packed B micro-panels of depth kc, both zero-padded past
 * mc/nc, so every micro-kernel call computes a full tile and only the
 * store clips.  c points at C[ic, jc]; bias (if any) likewise offset. */
static void macro_kernel(const kb_omp_gemm_args *g, int64_t mc, int64_t nc,
                         int64_t kc, const float *pa, const float *pb,
                         float *c, const tile_update *u)
{
    v16sf acc[MR][NV] __attribute__((aligned(64)));
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const float *b = pb + jr * kc;
        for (int64_t ir = 0; ir < mc; ir += MR) {
            tile_update tu = *u;
            if (u->bias)
                tu.bias = u->bias + ir * u->bias_rs + jr * u->bias_cs;
            ukernel_8x32(kc, pa + ir * kc, b, acc);
            tile_store(acc, min64(MR, mc - ir), min64(NR, nc - jr),
                       c + ir * g->rs_c + jr * g->cs_c, g->rs_c, g->cs_c,
                       &tu);
        }
    }
}

static void loop_ic(const kb_omp_gemm_args *g, int64_t m0, int64_t m1,
                    int64_t pc, int64_t kc, int64_t jc, int64_t nc,
                    const float *pb, float *abuf, const tile_update *u)
{
    for (int64_t ic = m0; ic < m1; ic += MC) {
        int64_t mc = min64(MC, m1 - ic);
        tile_update tu = *u;
        if (u->bias)
            tu.bias = u->bias + ic * u->bias_rs + jc * u->bias_cs;
        g->a.pack(&g->a, ic, pc, mc, kc, abuf);
        macro_kernel(g, mc, nc, kc, abuf, pb,
                     g->c + ic * g->rs_c + jc * g->cs_c, &tu);
    }
}

/* The first KC slice applies beta and the bias; later slices add to the
 * C they left.  k == 0 still runs one (empty) slice, so C = beta*C. */
static void loop_pc(const kb_omp_gemm_args *g, int64_t m0, int64_t m1,
                    int64_t jc, int64_t nc, float *abuf, float *bbuf)
{
    int64_t pc = 0;
    do {
        int64_t kc = min64(KC, g->k - pc);
        tile_update u = { g->alpha, g->beta, g->bias, g->bias_rs,
                          g->bias_cs };
        if (pc > 0) {
            u.beta = 1.0f;
            u.bias = NULL;
        }
        g->b.pack(&g->b, pc, jc, kc, nc, bbuf);
        loop_ic(g, m0, m1, pc, kc, jc, nc, bbuf, abuf, &u);
        pc += kc;
    } while (pc < g->k);
}

static void loop_jc(const kb_omp_gemm_args *g, int64_t m0, int64_t m1,
                    int64_t n0, int64_t n1, float *abuf, float *bbuf)
{
    for (int64_t jc = n0; jc < n1; jc += NC)
        loop_pc(g, m0, m1, jc, min64(NC, n1 - jc), abuf, bbuf);
}

/* ---- small M: a few rows of A against all of B ----
 * Fully connected layers at small batch are matrix-vector products in
 * disguise: B (the weights) is nearly all the traffic and each of its
 * elements is used only M times, so packing it costs more than the
 * multiply (the packed engine reached 6-22 GFLOP/s at M = 1).  Here B is
 * read in place, once, and each thread owns a range of C's columns. */

/* Columns of C per block: M x SMALL_W accumulators (28 KiB at M = 7)
 * stay in L1 while B's rows stream past. */
enum { SMALL_W = 1024 };
_Static_assert((MR - 1) * SMALL_W <= MC * KC,
               "a thread's A buffer holds the small-M accumulators");

/* C[:, j0 .. j0+w) for row-major B (cs == 1): for each k, its B row
 * segment updates every row of the block.  acc holds M x w floats. */
static void small_m_rows(const kb_omp_gemm_args *g, int64_t j0, int64_t w,
                         float *acc)
{
    const kb_omp_operand *a = &g->a, *b = &g->b;
    memset(acc, 0, (size_t)(g->m * w) * sizeof(float));
    for (int64_t k = 0; k < g->k; k++) {
        const float *brow = b->ptr + k * b->rs + j0;
        for (int64_t i = 0; i < g->m; i++) {
            float aik = a->ptr[i * a->rs + k * a->cs];
            float *ci = acc + i * w;
#pragma omp simd
            for (int64_t j = 0; j < w; j++)
                ci[j] += aik * brow[j];
        }
    }
}

/* C[:, j0 .. j0+w) for column-major B (rs == 1) and row-major A (cs ==
 * 1): every element is a dot product of two contiguous rows, taken in
 * K blocks so B's block stays in L1 across the M rows of A. */
static void small_m_dots(const kb_omp_gemm_args *g, int64_t j0, int64_t w,
                         float *acc)
{
    const kb_omp_operand *a = &g->a, *b = &g->b;
    memset(acc, 0, (size_t)(g->m * w) * sizeof(float));
    for (int64_t j = 0; j < w; j++) {
        const float *bt = b->ptr + (j0 + j) * b->cs;
        for (int64_t k0 = 0; k0 < g->k; k0 += SMALL_W) {
            int64_t kn = min64(SMALL_W, g->k - k0);
            for (int64_t i = 0; i < g->m; i++) {
                const float *ai = a->ptr + i * a->rs + k0;
                float s = 0.0f;
#pragma omp simd reduction(+ : s)
                for (int64_t k = 0; k < kn; k++)
                    s += ai[k] * bt[k0 + k];
                acc[i * w + j] += s;
            }
        }
    }
}

/* C = alpha * acc + beta * C over the block. */
static void small_m_store(const kb_omp_gemm_args *g, int64_t j0, int64_t w,
                          const float *acc)
{
    for (int64_t i = 0; i < g->m; i++) {
        float *c = g->c + i * g->rs_c + j0 * g->cs_c;
        for (int64_t j = 0; j < w; j++) {
            float r = g->alpha * acc[i * w + j];
            if (g->beta != 0.0f)
                r += g->beta * c[j * g->cs_c];
            c[j * g->cs_c] = r;
        }
    }
}

/* Which small-M kernel suits g, or NULL for the packed engine.  Both
 * read A and B in place, so both must be strided matrices: an im2col
 * operand (conv) has no memory to read. */
typedef void (*small_m_fn)(const kb_omp_gemm_args *, int64_t, int64_t,
                           float *);
static small_m_fn small_m_kernel(const kb_omp_gemm_args *g)
{
    if (g->m >= MR || g->bias || g->a.pack != kb_omp_pack_a_strided ||
        g->b.pack != kb_omp_pack_b_strided)
        return NULL;
    if (g->b.cs == 1)
        return small_m_rows;
    if (g->b.rs == 1 && g->a.cs == 1)
        return small_m_dots;
    return NULL;
}

/* ---- threading: each thread owns a rectangle of C ---- */

/* Split n items (rounded to units of `unit`) into `parts` parts; part p
 * is [*lo, *hi), possibly empty. */
static void split(int64_t n, int64_t unit, int parts, int p, int64_t *lo,
                  int64_t *hi)
{
    int64_t units = ceil_div(n, unit);
    int64_t per = units / parts, extra = units % parts;
    int64_t u0 = p * per + min64(p, extra);
    int64_t u1 = u0 + per + (p < extra ? 1 : 0);
    *lo = min64(n, u0 * unit);
    *hi = min64(n, u1 * unit);
}

/* Threads form a tm x tn grid over C.  Choose the factorisation with the
 * least work for the busiest thread: its tile-rounded rectangle, plus the
 * packing each thread repeats (its B columns once, its A rows once per NC
 * block), weighted as a few multiply-adds per packed element. */
static int pick_tm(const kb_omp_gemm_args *g, int nthreads)
{
    int best = 1;
    double best_cost = -1;
    for (int tm = 1; tm <= nthreads; tm++) {
        if (nthreads % tm)
            continue;
        int tn = nthreads / tm;
        double mr = (double)ceil_div(ceil_div(g->m, tm), MR) * MR;
        double nr = (double)ceil_div(ceil_div(g->n, tn), NR) * NR;
        double cost = mr * nr + 4.0 * (nr + mr * (double)ceil_div((int64_t)nr, NC));
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = tm;
        }
    }
    return best;
}

/* Threads split C's columns; each works through SMALL_W-wide blocks with
 * its A buffer (MC x KC floats >= MR x SMALL_W) as the accumulators. */
static void small_m(const kb_omp_gemm_args *g, const kb_omp_workspace *ws,
                    small_m_fn kernel)
{
#pragma omp parallel num_threads(ws->nthreads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t n0, n1;
        split(g->n, 16, nt, t, &n0, &n1);
        for (int64_t j0 = n0; j0 < n1; j0 += SMALL_W) {
            int64_t w = min64(SMALL_W, n1 - j0);
            kernel(g, j0, w, ws->abuf[t]);
            small_m_store(g, j0, w, ws->abuf[t]);
        }
    }
}

void kb_omp_gemm(const kb_omp_gemm_args *g, const kb_omp_workspace *ws)
{
    small_m_fn kernel = small_m_kernel(g);
    if (kernel) {
        small_m(g, ws, kernel);
        return;
    }
    int tm = pick_tm(g, ws->nthreads), tn = ws->nthreads / tm;
#pragma omp parallel num_threads(ws->nthreads)
    {
        int t = omp_get_thread_num();
        /* Fewer threads than asked for: the missing ones' rectangles are
         * done by thread 0 below, so every element is still written. */
        int nt = omp_get_num_threads();
        for (int r = t; r < ws->nthreads; r += nt) {
            int64_t m0, m1, n0, n1;
            split(g->m, MR, tm, r / tn, &m0, &m1);
            split(g->n, NR, tn, r % tn, &n0, &n1);
            if (m0 < m1 && n0 < n1)
                loop_jc(g, m0, m1, n0, n1, ws->abuf[t], ws->bbuf[t]);
        }
    }
}

/* ---- workspace ---- */

size_t kb_omp_workspace_bytes(int nthreads)
{
    return (size_t)nthreads * ((size_t)MC * KC + (size_t)KC * NC) *
           sizeof(float);
}

int kb_omp_workspace_init(kb_omp_workspace *ws, int nthreads)
{
    ws->nthreads = nthreads;
    ws->abuf = calloc((size_t)nthreads, sizeof(float *));
    ws->bbuf = calloc((size_t)nthreads, sizeof(float *));
    if (!ws->abuf || !ws->bbuf)
        goto err;
    for (int t = 0; t < nthreads; t++) {
        /* Sizes are multiples of 64 bytes, as aligned_alloc requires. */
        ws->abuf[t] = aligned_alloc(64, (size_t)MC * KC * sizeof(float));
        ws->bbuf[t] = aligned_alloc(64, (size_t)KC * NC * sizeof(float));
        if (!ws->abuf[t] || !ws->bbuf[t])
            goto err;
    }
    return 0;
err:
    kb_omp_workspace_free(ws);
    return -1;
}

void kb_omp_workspace_free(kb_omp_workspace *ws)
{
    for (int t = 0; t < ws->nthreads; t++) {
        if (ws->abuf)
            free(ws->abuf[t]);
        if (ws->bbuf)
            free(ws->bbuf[t]);
    }
    free(ws->abuf);
    free(ws->bbuf);
    ws->abuf = ws->bbuf = NULL;
    ws->nthreads = 0;
}

/* ---- the GEMM kernel ---- */

/* dst[M,N] = alpha * op(A) * op(B) + beta * dst, all row-major; a
 * transposed operand is the same memory read with swapped strides. */
void kb_omp_gemm_problem(const kb_problem *p, const kb_tensors *t,
                         const kb_omp_workspace *ws)
{
    const kb_gemm_desc *d = &p->gemm;
    kb_omp_gemm_args g = {
        .m = d->m, .n = d->n, .k = d->k,
        .a = { kb_omp_pack_a_strided, t->ptr[KB_ARG_SRC],
               d->ta ? 1 : d->k, d->ta ? d->m : 1, NULL },
        .b = { kb_omp_pack_b_strided, t->ptr[KB_ARG_WEI],
               d->tb ? 1 : d->n, d->tb ? d->k : 1, NULL },
        .c = t->ptr[KB_ARG_DST], .rs_c = d->n, .cs_c = 1,
        .alpha = (float)d->alpha, .beta = (float)d->beta,
    };
    kb_omp_gemm(&g, ws);
}
