/* omp_conv_dw_rows.c - depthwise NCX convolution (2D), an output row at
 * a time from zero-bordered copies of the input rows its taps read (a
 * ring of them: each output row copies the rows it is the first to
 * read), split into the stride's column phases.  In the copies every tap
 * of a run of 16 outputs is one unaligned vector load, with no bounds to
 * work out, and the run's sums stay in registers over all the taps.  The
 * row loop of omp_conv.c (each tap a short loop over the row, with its
 * own bounds, set-up and scalar tail, the sums loaded and stored per
 * tap) ran at 4 FLOP a cycle on DeepCAM's 72-wide middle-flow rows, half
 * of oneDNN's speed.  3x3 layers that fit the L3 sum 4 output rows at
 * once from the same copies (row_tiling, tile_body). */
#include "omp_kernels.h"

#include <string.h>

enum {
    V = 16,              /* floats in a vector */
    CHUNK = 4,           /* vectors summed at once: 4 accumulators */
    TILE_ROWS = 4,       /* 3x3 kernels: output rows summed at once */
    TILE_VECS = 4,       /* ... each this many vectors wide at most: 16
                            sums, 9 weights and a loaded vector fill 26
                            of the 32 registers */
    TILE_MAX_BYTES = 32 << 20, /* tiles where src and dst fit the L3;
                            on layers streamed from memory a block's
                            rows copied at once ran 0.75 to 0.9 as fast
                            as a row at a time (the ring's comment) */
    RING_FLOATS = 8192,  /* the rows' copies, on the stack: 32 KiB, L1 */
    MAX_TAPS = 256,      /* the channel's widened weights, on the stack */
    MAX_PHASES = 4,      /* strides up to 4 (their column phases);
                            wider, the row loop of omp_conv_dw.c */
    PREFETCH_ROWS = 2    /* a row at a time, copy_row asks for the input
                            row this far on (tiles: a block's rows on):
                            without, DeepCAM's stride-2 384x576 planes,
                            bound by memory, ran 1.6 times slower than
                            the row loop; 2 did better than 4, 8 or 16 */
};

/* The ring: rows padded input rows (those of `block` output rows),
 * each sw phases of phase_w floats (phase f column c is padded column
 * c*sw + f): the output's whole vectors plus the kernel's reach, so the
 * last vector's taps read zeros, never past the row.  Rows are copied
 * just before the first output row that reads them: copying even four
 * ahead ran DeepCAM's 384x576 planes, bound by memory, a third slower
 * (reading src and writing dst interleave less). */
typedef struct {
    int64_t phase_w, w, rows;
    int64_t reach;   /* the padded rows one output row's taps span */
    /* phase f's columns [lo, hi) are input columns at + c*sw of a row
     * (the others padding): worked out once, not per row, where their
     * divisions cost as much as copying a 72-wide row */
    struct {
        int64_t lo, hi, at;
    } span[MAX_PHASES];
} ring_shape;

static ring_shape ring_of(const kb_conv_desc *d, int64_t block)
{
    int64_t phase_w = ceil_div(d->ow, V) * V + (d->kw - 1) * (d->dw + 1) / d->sw;
    int64_t reach = (d->kh - 1) * (d->dh + 1) + 1;
    ring_shape r = { phase_w, phase_w * d->sw, (block - 1) * d->sh + reach,
                     reach, { { 0 } } };
    for (int64_t f = 0; f < min64(d->sw, MAX_PHASES); f++) {
        /* phase columns c with 0 <= c*sw + f - pw < iw */
        int64_t lo = min64(ceil_div(max64(d->pw - f, 0), d->sw), phase_w);
        int64_t hi = ceil_div(max64(d->iw + d->pw - f, 0), d->sw);
        r.span[f].lo = lo;
        r.span[f].hi = max64(lo, min64(phase_w, hi));
        r.span[f].at = lo * d->sw + f - d->pw;
    }
    return r;
}

/* How a 3x3 layer sums TILE_ROWS output rows at once, so that each
 * loaded input vector serves every output row whose taps read it (one
 * row at a time, each load fed one multiply-add, and 4 sums in a chain
 * of 9 waited on the adder's latency).  Output rows oy0 + j*step, j <
 * TILE_ROWS, tap row ky read padded row oy0*sh + (j*s + ky)*u: stride 1
 * and dilation dy take rows dy apart (s 1, u dy); stride 2, undilated,
 * adjacent rows (s 2, u 1).  step 0: other layers, one row at a time.
 * The ring holds the input rows of `block` output rows: a tiling's
 * TILE_ROWS * step, or one. */
typedef struct {
    int64_t step, s, u, block;
    ring_shape ring;
} row_tiling;

static row_tiling tiling_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    row_tiling none = { .block = 1, .ring = ring_of(d, 1) };
    int64_t in = d->ic * d->ih * d->iw, out = d->oc * d->oh * d->ow;
    int64_t bytes = d->mb * (in * (int64_t)kb_dtype_size(p->dt.src) +
                             out * (int64_t)kb_dtype_size(p->dt.dst));
    if (d->kh != 3 || d->kw != 3 || bytes > TILE_MAX_BYTES)
        return none;
    row_tiling t;
    if (d->sh == 1)
        t = (row_tiling){ .step = d->dh + 1, .s = 1, .u = d->dh + 1 };
    else if (d->sh == 2 && d->dh == 0)
        t = (row_tiling){ .step = 1, .s = 2, .u = 1 };
    else
        return none;
    t.block = TILE_ROWS * t.step;
    t.ring = ring_of(d, t.block);
    return t.ring.w * t.ring.rows <= RING_FLOATS ? t : none;
}

bool kb_omp_dw_rows_fit(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    ring_shape r = ring_of(d, 1);
    return p->layout == KB_LAYOUT_NCX && d->ic == d->g && d->id == 1 &&
           d->kd == 1 && d->od == 1 && d->kh * d->kw <= MAX_TAPS &&
           d->sw <= MAX_PHASES &&
           r.w * r.rows <= RING_FLOATS;
}

/* dst[i] = src element off + i*stride, widened, for i in [0, n); stride
 * 2 a constant, so that gcc loads vectors and permutes. */
static inline __attribute__((always_inline)) void
gather_body(kb_dtype DT, const void *src, int64_t off, int64_t n,
            int64_t stride, float *dst)
{
    if (stride == 2)
        for (int64_t i = 0; i < n; i++)
            dst[i] = kb_omp_elem(DT, src, off + 2 * i);
    else
        for (int64_t i = 0; i < n; i++)
            dst[i] = kb_omp_elem(DT, src, off + i * stride);
}

/* Padded input row y (input row y - ph; padded column c input column
 * c - pw) of the plane at element offset plane of src into row, in its
 * phases, widened to f32; a row outside the input is zeroed.  Out of line: inlined
 * into the row loop, it ran DeepCAM's 192x288 planes 1.7 times slower. */
static __attribute__((noinline)) void
copy_row(const kb_problem *p, const ring_shape *r, const void *src,
         int64_t plane, int64_t y, int64_t ahead, float *row)
{
    const kb_conv_desc *d = &p->conv;
    int64_t iy = y - d->ph;
    if (iy < 0 || iy >= d->ih) {
        memset(row, 0, (size_t)r->w * sizeof(float));
        return;
    }
    for (int64_t f = 0; f < d->sw; f++) {
        /* the padding's columns stay zero since the ring was cleared */
        int64_t lo = r->span[f].lo, n = r->span[f].hi - lo;
        int64_t off = plane + iy * d->iw + r->span[f].at;
        float *ph = row + f * r->phase_w + lo;
        if (d->sw == 1)
            kb_omp_widen(p->dt.src, src, off, n, ph);
        else
            KB_OMP_PER_DTYPE(p->dt.src, gather_body, src, off, n, d->sw, ph);
    }
    /* the row `ahead` on (0: none), so that it comes from memory while
     * the output rows between are summed */
    if (ahead && iy + ahead < d->ih) {
        const char *next = kb_omp_at(p->dt.src, src,
                                     plane + (iy + ahead) * d->iw);
        int64_t bytes = d->iw * (int64_t)kb_dtype_size(p->dt.src);
        for (int64_t b = 0; b < bytes; b += 64)
            __builtin_prefetch(next + b);
    }
}

/* out[0 .. NV*V) = b + the taps over the run of NV vectors at column x0
 * of the output: tap (ky, kx) at rows[ky] + x0 + col[kx].  NV a
 * constant, so the accumulators are registers. */
static inline __attribute__((always_inline)) void
run_body(int NV, const float *const *rows, const int64_t *col, int64_t x0,
         const float *wei, int64_t kh, int64_t kw, float b, float *out)
{
    kb_v16sf acc[CHUNK];
    for (int v = 0; v < NV; v++)
        acc[v] = (kb_v16sf){b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b};
    for (int64_t ky = 0; ky < kh; ky++) {
        const float *r = rows[ky] + x0;
        for (int64_t kx = 0; kx < kw; kx++) {
            float x = wei[ky * kw + kx];
            kb_v16sf wv = {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x};
            const float *q = r + col[kx];
            for (int v = 0; v < NV; v++) {
                kb_v16sf s;
                memcpy(&s, q + v * V, sizeof s);
                acc[v] += wv * s;
            }
        }
    }
    memcpy(out, acc, (size_t)NV * sizeof(kb_v16sf));
}

/* One output row of one channel, to dst from element offset o. */
static void out_row(const kb_problem *p, const float *const *rows,
                    const int64_t *col, const float *wei, float b, void *dst,
                    int64_t o)
{
    const kb_conv_desc *d = &p->conv;
    float buf[CHUNK * V] __attribute__((aligned(64)));
    for (int64_t x0 = 0; x0 < d->ow; x0 += CHUNK * V) {
        int64_t n = min64(CHUNK * V, d->ow - x0);
        /* whole f32 chunks straight from the registers to dst */
        bool direct = p->dt.dst == KB_F32 && n == CHUNK * V;
        float *out = direct ? (float *)dst + o + x0 : buf;
        switch (ceil_div(n, V)) {
        case 4: run_body(4, rows, col, x0, wei, d->kh, d->kw, b, out); break;
        case 3: run_body(3, rows, col, x0, wei, d->kh, d->kw, b, out); break;
        case 2: run_body(2, rows, col, x0, wei, d->kh, d->kw, b, out); break;
        default: run_body(1, rows, col, x0, wei, d->kh, d->kw, b, out); break;
        }
        if (!direct)
            kb_omp_narrow(p->dt.dst, buf, n, dst, o + x0);
    }
}

/* TILE_ROWS output rows of NV vectors at column x0 of a 3x3 layer (its
 * tiling's S), n of the columns real, to dst at the rows' offsets o:
 * rows[i] is padded row oy0*sh + i*u.  Every loop is of constants, so
 * the sums and weights stay in registers. */
static inline __attribute__((always_inline)) void
tile_body(int S, int NV, const float *const *rows, const int64_t *col,
          int64_t x0, int64_t n, const float *w, float b, kb_dtype dt,
          void *dst, const int64_t *o)
{
    kb_v16sf acc[TILE_ROWS][TILE_VECS];
#pragma GCC unroll 4
    for (int j = 0; j < TILE_ROWS; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++)
            acc[j][v] = (kb_v16sf){b, b, b, b, b, b, b, b,
                                   b, b, b, b, b, b, b, b};
#pragma GCC unroll 9
    for (int i = 0; i < (TILE_ROWS - 1) * S + 3; i++)
#pragma GCC unroll 3
        for (int kx = 0; kx < 3; kx++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                kb_v16sf in;
                memcpy(&in, rows[i] + x0 + col[kx] + v * V, sizeof in);
#pragma GCC unroll 4
                for (int j = 0; j < TILE_ROWS; j++) {
                    int ky = i - j * S;
                    if (ky < 0 || ky > 2)
                        continue;
                    float x = w[ky * 3 + kx];
                    acc[j][v] += (kb_v16sf){x, x, x, x, x, x, x, x,
                                            x, x, x, x, x, x, x, x} * in;
                }
            }
#pragma GCC unroll 4
    for (int j = 0; j < TILE_ROWS; j++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            int64_t at = o[j] + x0 + v * V, left = n - v * V;
            if (dt == KB_F32 && left >= V) {
                memcpy((float *)dst + at, &acc[j][v], sizeof acc[j][v]);
            } else {
                float buf[V];
                memcpy(buf, &acc[j][v], sizeof buf);
                kb_omp_narrow(dt, buf, min64(left, V), dst, at);
            }
        }
}

/* One tile's rows across the output row: its vectors in column tiles
 * of at most TILE_VECS, as even as they divide (a 72-wide row's 5
 * vectors as 3 and 2, not 4 and 1: a lone vector's sums would again
 * wait on latency). */
static void tile_rows(const kb_problem *p, int64_t s, const float *const *rows,
                      const int64_t *col, const float *w, float b, void *dst,
                      const int64_t *o)
{
    int64_t ow = p->conv.ow, vecs = ceil_div(ow, V);
    int64_t tiles = ceil_div(vecs, TILE_VECS);
    kb_dtype dt = p->dt.dst;
    for (int64_t t = 0, x0 = 0; t < tiles; t++) {
        int64_t nv = vecs / tiles + (t < vecs % tiles);
        int64_t n = min64(nv * V, ow - x0);
#define KB_DW_TILE(S, NV)                                                \
    tile_body(S, NV, rows, col, x0, n, w, b, dt, dst, o)
        switch ((s == 2 ? 4 : 0) + nv - 1) {
        case 0: KB_DW_TILE(1, 1); break;
        case 1: KB_DW_TILE(1, 2); break;
        case 2: KB_DW_TILE(1, 3); break;
        case 3: KB_DW_TILE(1, 4); break;
        case 4: KB_DW_TILE(2, 1); break;
        case 5: KB_DW_TILE(2, 2); break;
        case 6: KB_DW_TILE(2, 3); break;
        default: KB_DW_TILE(2, 4); break;
        }
#undef KB_DW_TILE
        x0 += nv * V;
    }
}

/* rows[i] = the ring's copy of padded row y + i*u, i < n (u less than
 * the ring's rows): a division per group, not per row. */
static void ring_rows(const ring_shape *r, const float *ring, int64_t y,
                      int64_t u, int64_t n, const float **rows)
{
    for (int64_t i = 0, slot = y % r->rows; i < n; i++) {
        rows[i] = ring + slot * r->w;
        slot += u;
        slot -= slot >= r->rows ? r->rows : 0;
    }
}

/* Copies padded rows [*next, need) into the ring, starting no earlier
 * than first (rows a stride skips are never read): a division a call,
 * not a row (ring_rows). */
static void fill_ring(const kb_problem *p, const ring_shape *r,
                      const void *src, int64_t plane, float *ring,
                      int64_t *next, int64_t first, int64_t need,
                      int64_t ahead)
{
    *next = max64(*next, first);
    for (int64_t slot = *next % r->rows; *next < need; ++*next) {
        copy_row(p, r, src, plane, *next, ahead, ring + slot * r->w);
        slot = slot + 1 == r->rows ? 0 : slot + 1;
    }
}

void kb_omp_dw_rows(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    row_tiling tl = tiling_of(p);
    const ring_shape rs = tl.ring;
    int64_t block = tl.block, reach = rs.reach;
    int64_t kg = d->oc / d->g, taps = d->kh * d->kw, dy = d->dh + 1;
    int64_t tiled_oh = tl.step ? d->oh / block * block : 0;
    int64_t in_plane = d->ih * d->iw, out_plane = d->oh * d->ow;
    const void *src = t->ptr[KB_ARG_SRC], *wei = t->ptr[KB_ARG_WEI];
    void *dst = t->ptr[KB_ARG_DST];
    const void *bias = kb_problem_has_bias(p) ? t->ptr[KB_ARG_BIA] : NULL;
    /* tap kx of output column ox: padded column ox*sw + kx*dx, in phase
     * kx*dx % sw at column ox + kx*dx / sw */
    int64_t col[MAX_TAPS];
    for (int64_t kx = 0; kx < d->kw; kx++) {
        int64_t c = kx * (d->dw + 1);
        col[kx] = c % d->sw * rs.phase_w + c / d->sw;
    }
#pragma omp parallel for collapse(2) schedule(static) num_threads(nthreads)
    for (int64_t n = 0; n < d->mb; n++)
        for (int64_t oc = 0; oc < d->oc; oc++) {
            float ring[RING_FLOATS] __attribute__((aligned(64)));
            float w[MAX_TAPS];
            const float *rows[MAX_TAPS];
            kb_omp_widen(p->dt.wei, wei, oc * taps, taps, w);
            float b = bias ? kb_omp_elem(p->dt.dst, bias, oc) : 0.0f;
            int64_t s = (n * d->ic + oc / kg) * in_plane;
            int64_t o = (n * d->oc + oc) * out_plane;
            /* padded row y lives in slot y % rs.rows; a row of the
             * input writes only its own columns, the padding's stay zero */
            memset(ring, 0, (size_t)(rs.w * rs.rows) * sizeof(float));
            int64_t next = 0;
            for (int64_t oy_b = 0; oy_b < tiled_oh; oy_b += block) {
                fill_ring(p, &rs, src, s, ring, &next, oy_b * d->sh,
                          (oy_b + block - 1) * d->sh + reach, block * d->sh);
                for (int64_t oy0 = oy_b; oy0 < oy_b + tl.step; oy0++) {
                    int64_t out[TILE_ROWS];
                    ring_rows(&rs, ring, oy0 * d->sh, tl.u,
                              (TILE_ROWS - 1) * tl.s + 3, rows);
                    for (int64_t j = 0; j < TILE_ROWS; j++)
                        out[j] = o + (oy0 + j * tl.step) * d->ow;
                    tile_rows(p, tl.s, rows, col, w, b, dst, out);
                }
            }
            for (int64_t oy = tiled_oh; oy < d->oh; oy++) {
                int64_t y0 = oy * d->sh;
                fill_ring(p, &rs, src, s, ring, &next, y0, y0 + reach,
                          PREFETCH_ROWS);
                ring_rows(&rs, ring, y0, dy, d->kh, rows);
                out_row(p, rows, col, w, b, dst, o + oy * d->ow);
            }
        }
}
