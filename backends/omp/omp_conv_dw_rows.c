/* omp_conv_dw_rows.c - depthwise NCX convolution (2D), an output row at
 * a time from zero-bordered copies of the input rows its taps read (a
 * ring of them: each output row copies the rows it is the first to
 * read), split into the stride's column phases.  In the copies every tap
 * of a run of 16 outputs is one unaligned vector load, with no bounds to
 * work out, and the run's sums stay in registers over all the taps.  The
 * row loop of omp_conv.c (each tap a short loop over the row, with its
 * own bounds, set-up and scalar tail, the sums loaded and stored per
 * tap) ran at 4 FLOP a cycle on DeepCAM's 72-wide middle-flow rows, half
 * of oneDNN's speed. */
#include "omp_kernels.h"

#include <string.h>

enum {
    V = 16,              /* floats in a vector */
    CHUNK = 4,           /* vectors summed at once: 4 accumulators */
    RING_FLOATS = 8192,  /* the rows' copies, on the stack: 32 KiB, L1 */
    MAX_TAPS = 256,      /* the channel's widened weights, on the stack */
    PREFETCH_ROWS = 2    /* copy_row asks for the input row this far on:
                            without, DeepCAM's stride-2 384x576 planes,
                            bound by memory, ran 1.6 times slower than
                            the row loop; 2 did better than 4, 8 or 16 */
};

/* The ring: rows (the taps' reach in rows, plus one) padded input rows,
 * each sw phases of phase_w floats (phase f column c is padded column
 * c*sw + f): the output's whole vectors plus the kernel's reach, so the
 * last vector's taps read zeros, never past the row.  Rows are copied
 * just before the first output row that reads them: copying even four
 * ahead ran DeepCAM's 384x576 planes, bound by memory, a third slower
 * (reading src and writing dst interleave less). */
typedef struct {
    int64_t phase_w, w, rows;
} ring_shape;

static ring_shape ring_of(const kb_conv_desc *d)
{
    int64_t phase_w = ceil_div(d->ow, V) * V + (d->kw - 1) * (d->dw + 1) / d->sw;
    return (ring_shape){ phase_w, phase_w * d->sw,
                         (d->kh - 1) * (d->dh + 1) + 1 };
}

bool kb_omp_dw_rows_fit(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    ring_shape r = ring_of(d);
    return p->layout == KB_LAYOUT_NCX && d->ic == d->g && d->id == 1 &&
           d->kd == 1 && d->od == 1 && d->kh * d->kw <= MAX_TAPS &&
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
         int64_t plane, int64_t y, float *row)
{
    const kb_conv_desc *d = &p->conv;
    int64_t iy = y - d->ph;
    if (iy < 0 || iy >= d->ih) {
        memset(row, 0, (size_t)r->w * sizeof(float));
        return;
    }
    for (int64_t f = 0; f < d->sw; f++) {
        /* phase columns c with 0 <= c*sw + f - pw < iw; the others are
         * padding, zero since the ring was cleared */
        float *ph = row + f * r->phase_w;
        int64_t lo = min64(ceil_div(max64(d->pw - f, 0), d->sw), r->phase_w);
        int64_t hi = max64(lo, min64(r->phase_w,
                                     ceil_div(max64(d->iw + d->pw - f, 0), d->sw)));
        int64_t off = plane + iy * d->iw + lo * d->sw + f - d->pw;
        if (d->sw == 1)
            kb_omp_widen(p->dt.src, src, off, hi - lo, ph + lo);
        else
            KB_OMP_PER_DTYPE(p->dt.src, gather_body, src, off, hi - lo, d->sw,
                             ph + lo);
    }
    /* the row PREFETCH_ROWS on, so that it comes from memory while the
     * output rows between are summed */
    if (iy + PREFETCH_ROWS < d->ih) {
        const char *next = kb_omp_at(p->dt.src, src,
                                     plane + (iy + PREFETCH_ROWS) * d->iw);
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

void kb_omp_dw_rows(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    ring_shape rs = ring_of(d);
    int64_t kg = d->oc / d->g, taps = d->kh * d->kw, dy = d->dh + 1;
    int64_t in_plane = d->ih * d->iw, out_plane = d->oh * d->ow;
    const void *src = t->ptr[KB_ARG_SRC], *wei = t->ptr[KB_ARG_WEI];
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
            for (int64_t oy = 0, next = 0; oy < d->oh; oy++) {
                int64_t y0 = oy * d->sh;
                for (next = max64(next, y0); next < y0 + rs.rows; next++)
                    copy_row(p, &rs, src, s, next,
                             ring + next % rs.rows * rs.w);
                for (int64_t ky = 0; ky < d->kh; ky++)
                    rows[ky] = ring + (y0 + ky * dy) % rs.rows * rs.w;
                out_row(p, rows, col, w, b, t->ptr[KB_ARG_DST],
                        o + oy * d->ow);
            }
        }
}
