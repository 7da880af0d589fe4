/* omp_gemm.c - the blocked GEMM engine (BLIS layering) and the GEMM
 * kernel of the omp backend, for operands stored as f32, bf16 or f16 and
 * a C stored as any of them, always accumulating in f32.
 *
 * Loop order, outermost first, each loop in its own function:
 *   kb_omp_gemm     one thread's rectangle of C (threads tile C in 2D)
 *   loop_jc         NC-wide column blocks of the rectangle
 *   loop_pc         KC-deep slices of K; packs the KC x NC block of B
 *                   (loop_shared_b does both when the threads of a grid
 *                   column pack one B together)
 *   loop_ic         MC-high row blocks; packs the MC x KC block of A
 *                   (or reads it in place: a_in_place)
 *   macro_kernel    NR x MR micro-tiles of the block
 *   uk->kernel      one MR x NR tile, accumulated in registers (the
 *                   micro-kernel chosen at start-up, omp_ukernels.c) */
#include "omp_kernels.h"
#include "omp_ukernel_f32_8x32.h"

#include <assert.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef kb_v16sf v16sf;

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, KC = KB_OMP_KC, MC = KB_OMP_MC,
       NC = KB_OMP_NC, NV = NR / 16, A_IN_PLACE_PANELS = KB_OMP_A_IN_PLACE_PANELS };

/* ---- packers for strided matrices ----
 * Each body is written once and instantiated per storage type DT by
 * KB_OMP_PER_DTYPE, so the f32 copy is the plain float loop. */

static inline __attribute__((always_inline)) void
pack_a_body(kb_dtype DT, const kb_omp_operand *op, int64_t r0, int64_t c0,
            int64_t rows, int64_t cols, float *buf)
{
    for (int64_t ip = 0; ip < rows; ip += MR) {
        int64_t mr = min64(MR, rows - ip);
        int64_t a = (r0 + ip) * op->rs + c0 * op->cs;
        for (int64_t k = 0; k < cols; k++, buf += MR) {
            int64_t i = 0;
            for (; i < mr; i++)
                buf[i] = kb_omp_elem(DT, op->base, a + i * op->rs +
                                                   k * op->cs);
            for (; i < MR; i++)
                buf[i] = 0.0f;
        }
    }
}

void kb_omp_pack_a_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    KB_OMP_PER_DTYPE(op->dt, pack_a_body, op, r0, c0, rows, cols, buf);
}

static inline __attribute__((always_inline)) void
pack_b_body(kb_dtype DT, const kb_omp_operand *op, int64_t r0, int64_t c0,
            int64_t rows, int64_t cols, float *buf)
{
    for (int64_t jp = 0; jp < cols; jp += NR) {
        int64_t nr = min64(NR, cols - jp);
        int64_t b = r0 * op->rs + (c0 + jp) * op->cs;
        if (op->rs == 1 && op->cs != 1) {
            /* Transposed B: each column is contiguous in k, so read
             * columns and scatter into the L1-resident panel rather than
             * gathering NR strided elements for every k. */
            for (int64_t j = 0; j < nr; j++) {
                int64_t col = b + j * op->cs;
                for (int64_t k = 0; k < rows; k++)
                    buf[k * NR + j] = kb_omp_elem(DT, op->base, col + k);
            }
            for (int64_t j = nr; j < NR; j++)
                for (int64_t k = 0; k < rows; k++)
                    buf[k * NR + j] = 0.0f;
            buf += rows * NR;
            continue;
        }
        for (int64_t k = 0; k < rows; k++, buf += NR) {
            int64_t row = b + k * op->rs;
            int64_t j = 0;
            if (op->cs == 1) {          /* the common case: a contiguous row */
                kb_omp_widen(DT, op->base, row, nr, buf);
                j = nr;
            }
            for (; j < nr; j++)
                buf[j] = kb_omp_elem(DT, op->base, row + j * op->cs);
            for (; j < NR; j++)
                buf[j] = 0.0f;
        }
    }
}

void kb_omp_pack_b_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    KB_OMP_PER_DTYPE(op->dt, pack_b_body, op, r0, c0, rows, cols, buf);
}

/* ---- writing a micro-tile back ---- */

/* A matrix in memory: element (i, j) of type dt at base[i*rs + j*cs]. */
typedef struct {
    kb_dtype dt;
    void *base;
    int64_t rs, cs;
} mview;

static mview mview_at(mview v, int64_t i, int64_t j)
{
    v.base = kb_omp_at(v.dt, v.base, i * v.rs + j * v.cs);
    return v;
}

/* How one KC slice's micro-tile is written: out = alpha*acc + beta*in +
 * bias.  The first slice reads C (beta, bias as asked); later ones read
 * the partial sums (beta 1, no bias).  The last slice writes C, rounding
 * once to its type; earlier ones write the partial sums, which are C
 * itself when C is f32 and the f32 workspace otherwise. */
typedef struct {
    float alpha, beta;         /* beta == 0: in is not read */
    mview in, out;             /* already offset to the block */
    const void *bias;          /* stored as C is; offset likewise, or NULL */
    kb_dtype bias_dt;
    int64_t bias_rs, bias_cs;
} tile_update;

static inline tile_update tile_update_at(const tile_update *u, int64_t i,
                                         int64_t j)
{
    tile_update t = *u;
    t.in = mview_at(u->in, i, j);
    t.out = mview_at(u->out, i, j);
    if (u->bias)
        t.bias = kb_omp_at(u->bias_dt, u->bias,
                           i * u->bias_rs + j * u->bias_cs);
    return t;
}

/* The element-wise store, specialised per (in, out, bias) type: the all
 * f32 copy is the float loop it always was. */
static inline __attribute__((always_inline)) void
tile_store_elems(kb_dtype IN, kb_dtype OUT, kb_dtype BIAS,
                 const float *t, int64_t m, int64_t n,
                 const tile_update *u)
{
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            float r = u->alpha * t[i * NR + j];
            if (u->beta != 0.0f)
                r += u->beta * kb_omp_elem(IN, u->in.base,
                                           i * u->in.rs + j * u->in.cs);
            if (u->bias)
                r += kb_omp_elem(BIAS, u->bias,
                                 i * u->bias_rs + j * u->bias_cs);
            kb_omp_store_elem(OUT, u->out.base,
                              i * u->out.rs + j * u->out.cs, r);
        }
    }
}

/* The m x n corner of acc element by element: tile edges. */
static void tile_store_corner(const float *t, int64_t m, int64_t n,
                              const tile_update *u)
{
    if (u->in.dt == KB_F32 && u->out.dt == KB_F32 &&
        (!u->bias || u->bias_dt == KB_F32))
        tile_store_elems(KB_F32, KB_F32, KB_F32, t, m, n, u);
    else
        tile_store_elems(u->in.dt, u->out.dt, u->bias_dt, t, m, n, u);
}

/* The 16 elements of base (stored as dt) at off, as f32: one vector load
 * for f32 (widened a float at a time on the stack, they were read back
 * before the stores could be forwarded: a third of tile_store_rows' time
 * on the f32 partial sums of a bf16 GEMM deeper than KC). */
static inline v16sf load16(kb_dtype dt, const void *base, int64_t off)
{
    v16sf t;
    if (dt == KB_F32)
        memcpy(&t, (const float *)base + off, sizeof t);
    else
        kb_omp_widen(dt, base, off, 16, (float *)&t);
    return t;
}

/* Full-width rows (n == NR, contiguous) with a bias, or 16-bit types:
 * 16 at a time, widened on the way in and rounded on the way out; a bias
 * per row (bias_cs == 0) or per contiguous column. */
static void tile_store_rows(v16sf acc[][NV], int64_t m,
                            const tile_update *u)
{
    for (int64_t i = 0; i < m; i++) {
        for (int v = 0; v < NV; v++) {
            v16sf r = u->alpha * acc[i][v];
            if (u->beta != 0.0f)
                r += u->beta * load16(u->in.dt, u->in.base,
                                      i * u->in.rs + 16 * v);
            if (u->bias && u->bias_cs == 0)
                r += kb_omp_elem(u->bias_dt, u->bias, i * u->bias_rs);
            else if (u->bias)
                r += load16(u->bias_dt, u->bias, i * u->bias_rs + 16 * v);
            if (u->out.dt == KB_BF16) {
                /* in registers: staged on the stack for the scalar
                 * rounding, this store was a tenth of ResNet-50's
                 * batched bf16 1x1 layers */
                kb_v16hu h = kb_omp_bf16_rne16(r);
                memcpy((uint16_t *)u->out.base + i * u->out.rs + 16 * v, &h,
                       sizeof h);
            } else {
                kb_omp_narrow(u->out.dt, (const float *)&r, 16, u->out.base,
                              i * u->out.rs + 16 * v);
            }
        }
    }
}

/* Write the m x n corner (m <= the kernel's mr, n <= NR) of acc to the
 * tile at row i0, column j0 of u's block; inline in the macro-kernel, so
 * full f32 tiles go from the kernel's registers to C.  The fast path
 * offsets its pointers itself: a tile_update_at copy per tile (three
 * pointers stored, then the struct read back as vectors) stalled on
 * store forwarding, a third of the macro-kernel's time on DeepCAM's
 * 64-deep 1x1 layers. */
static void tile_store_slow(v16sf acc[][NV], int64_t m, int64_t n,
                            const tile_update *u);
static inline __attribute__((always_inline)) void
tile_store(v16sf acc[][NV], int64_t m, int64_t n, const tile_update *u,
           int64_t i0, int64_t j0)
{
    bool reads = u->beta != 0.0f;
    bool rows = n == NR && (!reads || u->in.cs == 1) && u->out.cs == 1;
    bool f32 = (!reads || u->in.dt == KB_F32) && u->out.dt == KB_F32;
    bool f32_bias = !u->bias || (u->bias_dt == KB_F32 && u->bias_cs <= 1);
    if (rows && f32 && f32_bias) {
        /* Full-width rows, contiguous f32, a bias per row (bias_cs 0) or
         * per contiguous column: whole vectors (a convolution's bias went
         * through the element-wise store, a quarter of CosmoFlow
         * conv3d_1's GEMM time). */
        const float *bias = u->bias ? (const float *)u->bias +
                                          i0 * u->bias_rs + j0 * u->bias_cs
                                    : NULL;
        const float *in0 = (const float *)u->in.base + i0 * u->in.rs +
                           j0 * u->in.cs;
        float *out0 = (float *)u->out.base + i0 * u->out.rs + j0 * u->out.cs;
        for (int64_t i = 0; i < m; i++) {
            for (int v = 0; v < NV; v++) {
                v16sf r = u->alpha * acc[i][v], t;
                const float *in = in0 + i * u->in.rs + 16 * v;
                float *out = out0 + i * u->out.rs + 16 * v;
                if (reads) {
                    memcpy(&t, in, sizeof(t));
                    r += u->beta * t;
                }
                if (bias && u->bias_cs == 0) {
                    r += bias[i * u->bias_rs];
                } else if (bias) {
                    memcpy(&t, bias + i * u->bias_rs + 16 * v, sizeof(t));
                    r += t;
                }
                memcpy(out, &r, sizeof(r));
            }
        }
        return;
    }
    tile_update tu = tile_update_at(u, i0, j0);
    tile_store_slow(acc, m, n, &tu);
}

/* A full tile of column-major f32 C (rs 1, no bias): each column's MR
 * floats contiguous, with the rows a constant count (BWD_W writes the
 * weights' gradient this way, [K][C*taps] from its [C*taps] x K GEMM; the
 * element-wise store with its strides was as slow as the kernel).  The
 * tile is transposed in registers, 16 columns at a time, three rounds of
 * two-vector shuffles: rows paired (columns of 2 rows), pairs paired (of
 * 4 rows), then halves (2 columns of 8 rows a vector).  Element by
 * element, the store still took as long as the kernel on ResNet-50's
 * res5 1x1 layers, whose reduction is 49 deep. */
_Static_assert(KB_OMP_MR == 8 && NR % 16 == 0, "an 8-row transpose");
#define KB_SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
static void tile_store_cols(v16sf acc[][NV], const tile_update *u)
{
    const float *in = u->in.base;
    float *out = u->out.base;
    for (int v = 0; v < NV; v++) {
        v16sf r[8], s[8], w[8];
        for (int i = 0; i < 8; i++)
            r[i] = u->alpha * acc[i][v];
        for (int i = 0; i < 8; i += 2) {   /* columns 0-7, then 8-15 */
            s[i / 2] = KB_SHUF(r[i], r[i + 1], 0, 16, 1, 17, 2, 18, 3, 19,
                               4, 20, 5, 21, 6, 22, 7, 23);
            s[4 + i / 2] = KB_SHUF(r[i], r[i + 1], 8, 24, 9, 25, 10, 26, 11,
                                   27, 12, 28, 13, 29, 14, 30, 15, 31);
        }
        /* w[h*4 + q*2 + c]: column half h, rows 4q..4q+3, columns 4c.. */
        for (int h = 0; h < 2; h++)
            for (int q = 0; q < 2; q++) {
                v16sf x = s[h * 4 + 2 * q], y = s[h * 4 + 2 * q + 1];
                w[h * 4 + q * 2] = KB_SHUF(x, y, 0, 1, 16, 17, 2, 3, 18, 19,
                                           4, 5, 20, 21, 6, 7, 22, 23);
                w[h * 4 + q * 2 + 1] = KB_SHUF(x, y, 8, 9, 24, 25, 10, 11, 26,
                                               27, 12, 13, 28, 29, 14, 15, 30,
                                               31);
            }
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 2; c++) {
                v16sf x = w[h * 4 + c], y = w[h * 4 + 2 + c];
                v16sf cols[2] = {
                    KB_SHUF(x, y, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20,
                            21, 22, 23),
                    KB_SHUF(x, y, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14,
                            15, 28, 29, 30, 31) };
                for (int e = 0; e < 2; e++) {
                    int64_t j = 16 * v + 8 * h + 4 * c + 2 * e;
                    if (u->beta != 0.0f) {
                        v16sf t;
                        memcpy(&t, in + j * u->in.cs, 8 * sizeof(float));
                        memcpy((float *)&t + 8, in + (j + 1) * u->in.cs,
                               8 * sizeof(float));
                        cols[e] += u->beta * t;
                    }
                    memcpy(out + j * u->out.cs, &cols[e], 8 * sizeof(float));
                    memcpy(out + (j + 1) * u->out.cs, (float *)&cols[e] + 8,
                           8 * sizeof(float));
                }
            }
    }
}
#undef KB_SHUF

/* The other stores: 16-bit types, strided C, tile edges. */
static void tile_store_slow(v16sf acc[][NV], int64_t m, int64_t n,
                            const tile_update *u)
{
    bool rows = n == NR && (u->beta == 0.0f || u->in.cs == 1) &&
                u->out.cs == 1;
    if (rows && (!u->bias || u->bias_cs <= 1)) {
        tile_store_rows(acc, m, u);
        return;
    }
    bool cols = m == KB_OMP_MR && n == NR && u->out.rs == 1 &&
                u->out.dt == KB_F32 && !u->bias &&
                (u->beta == 0.0f || (u->in.rs == 1 && u->in.dt == KB_F32));
    if (cols) {
        tile_store_cols(acc, u);
        return;
    }
    tile_store_corner((const float *)acc, m, n, u);
}

/* ---- the loops ---- */

/* What every loop of one GEMM shares: the operands, the micro-kernel,
 * and where the partial sums between KC slices live (C, or the f32
 * workspace when C is not f32). */
typedef struct {
    const kb_omp_gemm_args *g;
    const kb_omp_ukernel *uk;
    mview c, partial;
    bool a_in_place;           /* a_in_place(): A is not packed */
} gemm_ctx;

/* One thread's packing buffers: f32 panels, and the kernel's own format
 * made of them when it has one (NULL otherwise). */
typedef struct {
    float *a, *b;
    uint32_t *apairs, *bpairs;
} thread_bufs;

/* Assumes: pa holds ceil(mc/mr) packed A micro-panels (mr = the kernel's
 * rows) of depth kd (in the kernel's format, esize bytes per element), pb
 * ceil(nc/NR) packed B micro-panels likewise, both zero-padded past
 * mc/nc, so every micro-kernel call computes a full tile and only the
 * store clips.  u is offset to C[ic, jc]. */
static inline __attribute__((always_inline)) void
macro_body(const gemm_ctx *x, int64_t mc, int64_t nc, int64_t kc,
           const char *pa, const char *pb, const tile_update *u,
           kb_omp_ukernel_fn kernel)
{
    v16sf acc[KB_OMP_MR_MAX][NV] __attribute__((aligned(64)));
    int64_t mr = x->uk->mr;
    int64_t kd = kb_omp_kdepth(x->uk, kc);
    int64_t esize = x->uk->to_pairs_a ? 2 : (int64_t)sizeof(float);
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const char *b = pb + jr * kd * esize;
        for (int64_t ir = 0; ir < mc; ir += mr) {
            kernel(kc, pa + ir * kd * esize, b, acc);
            tile_store(acc, min64(mr, mc - ir), min64(NR, nc - jr), u, ir,
                       jr);
        }
    }
}

/* The f32 kernel is called by name, so that it inlines into the loop (as
 * it did when it was the only one); the others through the table. */
static void macro_kernel(const gemm_ctx *x, int64_t mc, int64_t nc,
                         int64_t kc, const char *pa, const char *pb,
                         const tile_update *u)
{
    if (x->uk->kernel == kb_omp_ukernel_f32_8x32)
        macro_body(x, mc, nc, kc, pa, pb, u, kb_omp_f32_8x32_body);
    else
        macro_body(x, mc, nc, kc, pa, pb, u, x->uk->kernel);
}

/* Whether A is read in place by the f32 micro-kernel rather than
 * packed: an f32 row-major matrix (a convolution's weights in NCX) that
 * C's few panels use only a few times each (A_IN_PLACE_PANELS). */
static bool a_in_place(const kb_omp_gemm_args *g, const kb_omp_ukernel *uk)
{
    return uk->kernel == kb_omp_ukernel_f32_8x32 &&
           g->a.pack == kb_omp_pack_a_strided && g->a.dt == KB_F32 &&
           g->a.cs == 1 && ceil_div(g->n, NR) <= A_IN_PLACE_PANELS;
}

/* The kernel on a B panel whose columns end within its first vector:
 * half the multiply-adds (ResNet-50's res4 1x1 layers, 196 pixels, end 4
 * columns into their seventh panel of 32; acc's second vectors are left
 * alone, and the store reads no further than n).  Out of line, so that
 * the whole panels' loop keeps its code. */
static __attribute__((noinline)) void
half_panel_in_place(int64_t kc, const float *a, int64_t rs, const float *b,
                    v16sf acc[][NV])
{
    kb_omp_f32_8xn_general_body(kc, a, rs, 1, b, NULL, 1, 0, acc);
}

/* macro_kernel on A read in place: the MC x KC block at rows [ic, ic+mc),
 * columns [pc, pc+kc) of A.  Whole MR-row micro-panels are read from A's
 * rows; a last partial one is packed (zero rows past mc) into abuf, since
 * reading past A's end is not allowed. */
static void macro_kernel_in_place(const gemm_ctx *x, int64_t ic,
                                  int64_t mc, int64_t nc, int64_t pc,
                                  int64_t kc, const float *pb, float *abuf,
                                  const tile_update *u)
{
    const kb_omp_operand *a = &x->g->a;
    const float *a0 = (const float *)a->base + ic * a->rs + pc;
    int64_t whole = mc / MR * MR;
    v16sf acc[KB_OMP_MR_MAX][NV] __attribute__((aligned(64)));
    if (whole < mc)
        a->pack(a, ic + whole, pc, mc - whole, kc, abuf);
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const float *b = pb + jr * kc;
        int64_t n = min64(NR, nc - jr);
        for (int64_t ir = 0; ir < whole; ir += MR) {
            if (n <= 16)
                half_panel_in_place(kc, a0 + ir * a->rs, a->rs, b, acc);
            else
                kb_omp_f32_8x32_strided_body(kc, a0 + ir * a->rs, a->rs, 1,
                                             b, acc);
            tile_store(acc, MR, n, u, ir, jr);
        }
        if (whole < mc) {
            kb_omp_f32_8x32_body(kc, abuf, b, acc);
            tile_store(acc, mc - whole, n, u, whole, jr);
        }
    }
}

static void loop_ic(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t pc,
                    int64_t kc, int64_t jc, int64_t nc, const void *pb,
                    const thread_bufs *tb, const tile_update *u)
{
    const kb_omp_gemm_args *g = x->g;
    for (int64_t ic = m0; ic < m1; ic += MC) {
        int64_t mc = min64(MC, m1 - ic);
        tile_update tu = tile_update_at(u, ic, jc);
        if (x->a_in_place) {
            macro_kernel_in_place(x, ic, mc, nc, pc, kc, pb, tb->a, &tu);
            continue;
        }
        const void *pa = tb->a;
        g->a.pack(&g->a, ic, pc, mc, kc, tb->a);
        if (x->uk->to_pairs_a) {
            x->uk->to_pairs_a(tb->a, MR, mc, kc, kb_omp_kdepth(x->uk, kc),
                              tb->apairs);
            pa = tb->apairs;
        }
        macro_kernel(x, mc, nc, kc, pa, pb, &tu);
    }
}

/* How the KC slice from pc writes: the first applies beta and the bias;
 * later slices add to the partial sums the earlier ones left; the last
 * writes C. */
static tile_update slice_update(const gemm_ctx *x, int64_t pc, int64_t kc)
{
    const kb_omp_gemm_args *g = x->g;
    bool last = pc + kc >= g->k;
    tile_update u = { g->alpha, g->beta, x->c, last ? x->c : x->partial,
                      g->bias, g->c_dt, g->bias_rs, g->bias_cs };
    if (pc > 0) {
        u.beta = 1.0f;
        u.in = x->partial;
        u.bias = NULL;
    }
    return u;
}

/* k == 0 still runs one (empty) slice, so C = beta*C. */
static void loop_pc(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t jc,
                    int64_t nc, const thread_bufs *tb)
{
    const kb_omp_gemm_args *g = x->g;
    int64_t pc = 0;
    do {
        int64_t kc = min64(KC, g->k - pc);
        tile_update u = slice_update(x, pc, kc);
        const void *pb = tb->b;
        g->b.pack(&g->b, pc, jc, kc, nc, tb->b);
        if (x->uk->to_pairs_b) {
            x->uk->to_pairs_b(tb->b, NR, nc, kc, kb_omp_kdepth(x->uk, kc),
                              tb->bpairs);
            pb = tb->bpairs;
        }
        loop_ic(x, m0, m1, pc, kc, jc, nc, pb, tb, &u);
        pc += kc;
    } while (pc < g->k);
}

static void loop_jc(const gemm_ctx *x, int64_t m0, int64_t m1, int64_t n0,
                    int64_t n1, const thread_bufs *tb)
{
    for (int64_t jc = n0; jc < n1; jc += NC)
        loop_pc(x, m0, m1, jc, min64(NC, n1 - jc), tb);
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

/* Columns of C [j, j+SMALL_COLS) for row-major B (cs == 1), the M rows'
 * accumulators in registers while B's rows stream past, into acc (M x w,
 * from column j).  M is a constant in each copy (small_m_rows). */
enum { SMALL_COLS = 64, SMALL_NV = SMALL_COLS / 16 };

static inline __attribute__((always_inline)) void
small_m_rows_block(int M, const kb_omp_gemm_args *g, int64_t j0, int64_t j,
                   int64_t w, float *acc)
{
    const kb_omp_operand *a = &g->a, *b = &g->b;
    kb_v16sf c[MR][SMALL_NV] = {{{0}}};   /* indexed by constants only */
    for (int64_t k = 0; k < g->k; k++) {
        const float *brow = (const float *)b->base + k * b->rs + j0 + j;
        kb_v16sf bv[SMALL_NV];
#pragma GCC unroll 4
        for (int v = 0; v < SMALL_NV; v++)
            memcpy(&bv[v], brow + 16 * v, sizeof bv[v]);
#pragma GCC unroll 8
        for (int i = 0; i < M; i++) {
            float x = ((const float *)a->base)[i * a->rs + k * a->cs];
            kb_v16sf ai = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
#pragma GCC unroll 4
            for (int v = 0; v < SMALL_NV; v++)
                c[i][v] += ai * bv[v];
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; i++)
#pragma GCC unroll 4
        for (int v = 0; v < SMALL_NV; v++)
            memcpy(acc + i * w + j + 16 * v, &c[i][v], sizeof c[i][v]);
}

/* C[:, j0 .. j0+w) for row-major B (cs == 1): SMALL_COLS-wide blocks in
 * registers, then the last columns with each k's B row segment updating
 * every row in acc (M x w floats). */
static void small_m_rows(const kb_omp_gemm_args *g, int64_t j0, int64_t w,
                         float *acc)
{
    const kb_omp_operand *a = &g->a, *b = &g->b;
    int64_t j = 0;
    for (; j + SMALL_COLS <= w; j += SMALL_COLS)
        switch (g->m) {   /* small_m_kernel: M < MR (M == 0: nothing) */
        case 1: small_m_rows_block(1, g, j0, j, w, acc); break;
        case 2: small_m_rows_block(2, g, j0, j, w, acc); break;
        case 3: small_m_rows_block(3, g, j0, j, w, acc); break;
        case 4: small_m_rows_block(4, g, j0, j, w, acc); break;
        case 5: small_m_rows_block(5, g, j0, j, w, acc); break;
        case 6: small_m_rows_block(6, g, j0, j, w, acc); break;
        case 7: small_m_rows_block(7, g, j0, j, w, acc); break;
        }
    _Static_assert(MR == 8, "small_m_rows has a case for each M below MR");
    for (int64_t i = 0; i < g->m; i++)
        memset(acc + i * w + j, 0, (size_t)(w - j) * sizeof(float));
    for (int64_t k = 0; k < g->k && j < w; k++) {
        const float *brow = (const float *)b->base + k * b->rs + j0;
        for (int64_t i = 0; i < g->m; i++) {
            float aik = ((const float *)a->base)[i * a->rs + k * a->cs];
            float *ci = acc + i * w;
#pragma omp simd
            for (int64_t jj = j; jj < w; jj++)
                ci[jj] += aik * brow[jj];
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
        const float *bt = (const float *)b->base + (j0 + j) * b->cs;
        for (int64_t k0 = 0; k0 < g->k; k0 += SMALL_W) {
            int64_t kn = min64(SMALL_W, g->k - k0);
            for (int64_t i = 0; i < g->m; i++) {
                const float *ai = (const float *)a->base + i * a->rs + k0;
                float s = 0.0f;
#pragma omp simd reduction(+ : s)
                for (int64_t k = 0; k < kn; k++)
                    s += ai[k] * bt[k0 + k];
                acc[i * w + j] += s;
            }
        }
    }
}

/* C = alpha * acc + beta * C + bias over the block (bias f32, as C). */
static void small_m_store(const kb_omp_gemm_args *g, int64_t j0, int64_t w,
                          const float *acc)
{
    const float *bias = g->bias;
    for (int64_t i = 0; i < g->m; i++) {
        float *c = (float *)g->c + i * g->rs_c + j0 * g->cs_c;
        for (int64_t j = 0; j < w; j++) {
            float r = g->alpha * acc[i * w + j];
            if (g->beta != 0.0f)
                r += g->beta * c[j * g->cs_c];
            if (bias)
                r += bias[i * g->bias_rs + (j0 + j) * g->bias_cs];
            c[j * g->cs_c] = r;
        }
    }
}

/* Which small-M kernel suits g, or NULL for the packed engine.  Both
 * read A and B in place, so both must be strided matrices (an im2col
 * operand (conv) has no memory to read) of f32, as C must be: 16-bit
 * types go through the packed engine, which widens them. */
typedef void (*small_m_fn)(const kb_omp_gemm_args *, int64_t, int64_t,
                           float *);
static small_m_fn small_m_kernel(const kb_omp_gemm_args *g)
{
    if (g->m >= MR || g->a.pack != kb_omp_pack_a_strided ||
        g->b.pack != kb_omp_pack_b_strided || g->a.dt != KB_F32 ||
        g->b.dt != KB_F32 || g->c_dt != KB_F32)
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
 * least work for the busiest thread: its tile-rounded rectangle, plus its
 * packing (a tm-th of its B columns, which the tm threads of a column
 * share, and its A rows once per NC block unless A is read in place),
 * weighted as a few multiply-adds per packed element. */
static int pick_tm(const kb_omp_gemm_args *g, int nthreads, bool a_packed)
{
    int best = 1;
    double best_cost = -1;
    for (int tm = 1; tm <= nthreads; tm++) {
        if (nthreads % tm)
            continue;
        int tn = nthreads / tm;
        double mr = (double)ceil_div(ceil_div(g->m, tm), MR) * MR;
        double nr = (double)ceil_div(ceil_div(g->n, tn), NR) * NR;
        double apack = a_packed ? mr * (double)ceil_div((int64_t)nr, NC) : 0;
        double cost = mr * nr + 4.0 * (nr / tm + apack);
        if (best_cost < 0 || cost < best_cost) {
            best_cost = cost;
            best = tm;
        }
    }
    return best;
}

/* Thread t's rectangle of the tm x tn grid, with B shared by the tm
 * threads of its grid column: per KC x NC block, each packs a tm-th of
 * the panels into the column's buffers (those of thread rn: the f32
 * panels, and the pair panels made of its part of them when the kernel
 * reads pairs), and all of them compute once every part is there.  Every thread of the team
 * passes the same barriers: all run the steps of the widest column, an
 * empty rectangle included. */
static void loop_shared_b(const gemm_ctx *x, const kb_omp_workspace *ws,
                          int tm, int tn, int t)
{
    const kb_omp_gemm_args *g = x->g;
    int rm = t / tn, rn = t % tn;
    int64_t m0, m1, n0, n1, w0, w1;
    split(g->m, MR, tm, rm, &m0, &m1);
    split(g->n, NR, tn, rn, &n0, &n1);
    split(g->n, NR, tn, 0, &w0, &w1);          /* the widest column */
    float *fb = ws->bbuf[rn];
    uint32_t *pairs = x->uk->to_pairs_b ? ws->bpairs[rn] : NULL;
    const void *pb = pairs ? (const void *)pairs : fb;
    thread_bufs tb = { ws->abuf[t], NULL, ws->apairs ? ws->apairs[t] : NULL,
                       NULL };
    for (int64_t jc = n0; jc < n0 + max64(1, w1 - w0); jc += NC) {
        int64_t nc = min64(NC, n1 - jc), pc = 0;
        do {
            int64_t kc = min64(KC, g->k - pc), p0 = 0, p1 = 0;
            int64_t kd = kb_omp_kdepth(x->uk, kc);
            if (nc > 0)
                split(ceil_div(nc, NR), 1, tm, rm, &p0, &p1);
#pragma omp barrier   /* the last block's users are done with the buffer */
            if (p0 < p1) {
                int64_t cols = min64(nc, p1 * NR) - p0 * NR;
                g->b.pack(&g->b, pc, jc + p0 * NR, kc, cols, fb + p0 * kc * NR);
                if (pairs)
                    x->uk->to_pairs_b(fb + p0 * kc * NR, NR, cols, kc, kd,
                                      pairs + p0 * (kd / 2) * NR);
            }
#pragma omp barrier   /* every part of this block is packed */
            if (nc > 0 && m0 < m1) {
                tile_update u = slice_update(x, pc, kc);
                loop_ic(x, m0, m1, pc, kc, jc, nc, pb, &tb, &u);
            }
            pc += kc;
        } while (pc < g->k);
    }
}

/* Multiply-adds below which a thread is not worth waking: starting and
 * joining a team costs about a microsecond, as much as this many on one
 * core (CosmoFlow's `out`, 256 of them, took 1.1 us on two threads and
 * 0.6 us on one, Emerald Rapids). */
enum { SMALL_MACS_PER_THREAD = 1 << 15 };

/* Thread t of nt: C's columns split in 16s, SMALL_W-wide blocks at a
 * time with its A buffer (MC x KC floats >= MR x SMALL_W) as the
 * accumulators. */
static void small_m_part(const kb_omp_gemm_args *g, const kb_omp_workspace *ws,
                         small_m_fn kernel, int t, int nt)
{
    int64_t n0, n1;
    split(g->n, 16, nt, t, &n0, &n1);
    for (int64_t j0 = n0; j0 < n1; j0 += SMALL_W) {
        int64_t w = min64(SMALL_W, n1 - j0);
        kernel(g, j0, w, ws->abuf[t]);
        small_m_store(g, j0, w, ws->abuf[t]);
    }
}

static void small_m(const kb_omp_gemm_args *g, const kb_omp_workspace *ws,
                    small_m_fn kernel)
{
    int64_t macs = g->m * g->n * g->k;
    if (ws->nthreads == 1 || macs < 2 * SMALL_MACS_PER_THREAD) {
        small_m_part(g, ws, kernel, 0, 1);
        return;
    }
#pragma omp parallel num_threads(ws->nthreads)
    small_m_part(g, ws, kernel, omp_get_thread_num(), omp_get_num_threads());
}

void kb_omp_gemm(const kb_omp_gemm_args *g, const kb_omp_workspace *ws)
{
    small_m_fn kernel = small_m_kernel(g);
    if (kernel) {
        small_m(g, ws, kernel);
        return;
    }
    gemm_ctx x = { g, kb_omp_ukernel_for(g->a.dt, g->b.dt),
                   { g->c_dt, g->c, g->rs_c, g->cs_c },
                   { g->c_dt, g->c, g->rs_c, g->cs_c }, false };
    x.a_in_place = a_in_place(g, x.uk);
    if (kb_omp_gemm_acc_elems(g->m, g->n, g->k, g->c_dt) > 0) {
        assert(ws->acc_elems >= g->m * g->n);
        x.partial = (mview){ KB_F32, ws->acc, g->n, 1 };
    }
    assert(!x.uk->to_pairs_a || ws->apairs);
    /* The threads of a grid column pack B together (loop_shared_b): each
     * packing it whole would repeat the im2col gather, a convolution's
     * costliest part after the micro-kernel, tm times. */
    int tm = pick_tm(g, ws->nthreads, !x.a_in_place);
    int tn = ws->nthreads / tm;
#pragma omp parallel num_threads(ws->nthreads)
    {
        int t = omp_get_thread_num();
        thread_bufs tb = { ws->abuf[t], ws->bbuf[t],
                           ws->apairs ? ws->apairs[t] : NULL,
                           ws->bpairs ? ws->bpairs[t] : NULL };
        /* Fewer threads than asked for: the missing ones' rectangles are
         * done by thread 0 below, so every element is still written. */
        int nt = omp_get_num_threads();
        if (x.uk->thread_begin)
            x.uk->thread_begin();
        if (tm > 1 && nt == ws->nthreads)
            loop_shared_b(&x, ws, tm, tn, t);
        else
            for (int r = t; r < ws->nthreads; r += nt) {
                int64_t m0, m1, n0, n1;
                split(g->m, MR, tm, r / tn, &m0, &m1);
                split(g->n, NR, tn, r % tn, &n0, &n1);
                if (m0 < m1 && n0 < n1)
                    loop_jc(&x, m0, m1, n0, n1, &tb);
            }
        if (x.uk->thread_end)
            x.uk->thread_end();
    }
}

/* ---- workspace ---- */

int64_t kb_omp_gemm_acc_elems(int64_t m, int64_t n, int64_t k,
                              kb_dtype c_dt)
{
    return c_dt != KB_F32 && k > KC ? m * n : 0;
}

/* Whether need's operands take the chosen kernel's pair panels. */
static bool needs_pairs(const kb_omp_ws_need *need)
{
    return kb_omp_ukernel_for(need->a_dt, need->b_dt)->to_pairs_a != NULL;
}

/* Per thread: f32 panels, and pair panels (16-bit elements, so half the
 * bytes) when needed. */
static size_t thread_bytes(const kb_omp_ws_need *need)
{
    size_t f32 = ((size_t)MC * KC + (size_t)KC * NC) * sizeof(float);
    return needs_pairs(need) ? f32 + f32 / 2 : f32;
}

size_t kb_omp_workspace_bytes_for(int nthreads, const kb_omp_ws_need *need)
{
    return (size_t)nthreads * thread_bytes(need) +
           (size_t)need->acc_elems * sizeof(float) + need->scratch_bytes;
}

/* 64-byte aligned; aligned_alloc wants a multiple of 64 bytes. */
static void *alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

int kb_omp_workspace_init_for(kb_omp_workspace *ws, int nthreads,
                              const kb_omp_ws_need *need)
{
    bool pairs = needs_pairs(need);
    *ws = (kb_omp_workspace){ .nthreads = nthreads };
    ws->abuf = calloc((size_t)nthreads, sizeof(float *));
    ws->bbuf = calloc((size_t)nthreads, sizeof(float *));
    if (!ws->abuf || !ws->bbuf)
        goto err;
    if (pairs) {
        ws->apairs = calloc((size_t)nthreads, sizeof(uint32_t *));
        ws->bpairs = calloc((size_t)nthreads, sizeof(uint32_t *));
        if (!ws->apairs || !ws->bpairs)
            goto err;
    }
    for (int t = 0; t < nthreads; t++) {
        ws->abuf[t] = alloc64((size_t)MC * KC * sizeof(float));
        ws->bbuf[t] = alloc64((size_t)KC * NC * sizeof(float));
        if (!ws->abuf[t] || !ws->bbuf[t])
            goto err;
        if (pairs) {
            /* a pair of bf16 per uint32: half the f32 panels' bytes */
            ws->apairs[t] = alloc64((size_t)MC * KC * 2);
            ws->bpairs[t] = alloc64((size_t)KC * NC * 2);
            if (!ws->apairs[t] || !ws->bpairs[t])
                goto err;
        }
    }
    if (need->acc_elems > 0) {
        ws->acc = alloc64((size_t)need->acc_elems * sizeof(float));
        if (!ws->acc)
            goto err;
        ws->acc_elems = need->acc_elems;
    }
    if (need->scratch_bytes > 0) {
        ws->scratch = alloc64(need->scratch_bytes);
        if (!ws->scratch)
            goto err;
        ws->scratch_bytes = need->scratch_bytes;
    }
    return 0;
err:
    kb_omp_workspace_free(ws);
    return -1;
}

void kb_omp_workspace_free(kb_omp_workspace *ws)
{
    float **bufs[] = { ws->abuf, ws->bbuf };
    uint32_t **pairs[] = { ws->apairs, ws->bpairs };
    for (int t = 0; t < ws->nthreads; t++)
        for (int i = 0; i < 2; i++) {
            if (bufs[i])
                free(bufs[i][t]);
            if (pairs[i])
                free(pairs[i][t]);
        }
    for (int i = 0; i < 2; i++) {
        free(bufs[i]);
        free(pairs[i]);
    }
    free(ws->acc);
    free(ws->scratch);
    *ws = (kb_omp_workspace){0};
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
        .a = { kb_omp_pack_a_strided, t->ptr[KB_ARG_SRC], d->ta ? 1 : d->k,
               d->ta ? d->m : 1, NULL, p->dt.src },
        .b = { kb_omp_pack_b_strided, t->ptr[KB_ARG_WEI], d->tb ? 1 : d->n,
               d->tb ? d->k : 1, NULL, p->dt.wei },
        .c_dt = p->dt.dst, .c = t->ptr[KB_ARG_DST], .rs_c = d->n,
        .cs_c = 1, .alpha = (float)d->alpha, .beta = (float)d->beta,
    };
    kb_omp_gemm(&g, ws);
}

/* What kb_omp_gemm_problem's GEMM needs of the workspace. */
kb_omp_ws_need kb_omp_gemm_problem_need(const kb_problem *p)
{
    const kb_gemm_desc *d = &p->gemm;
    return (kb_omp_ws_need){ .a_dt = p->dt.src, .b_dt = p->dt.wei,
                             .acc_elems = kb_omp_gemm_acc_elems(d->m, d->n, d->k,
                                                                p->dt.dst) };
}
