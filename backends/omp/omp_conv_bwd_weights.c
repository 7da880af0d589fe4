/* omp_conv_bwd_weights.c - convolution backward weights (BWD_W:
 * diff_wei from src and diff_dst; BWD_WB also diff_bia) for the omp
 * backend, 2D and 3D, NCX and NXC, groups, stride, padding, dilation;
 * f32, bf16 or f16.
 *
 *   diff_wei[k, c, t] = sum over n and output pixels o (whose tap t lands
 *                       inside the input) of diff_dst[n, k, o] *
 *                       src[n, g*CG + c, o*stride - pad + t*dil].
 *
 * Per group that is one GEMM whose reduction runs over every pixel of
 * every image (Q = N*P): diff_wei_g^T[CG*taps, KG] = col[CG*taps, Q] x
 * diff_dst_g^T[Q, KG].  The im2col side is the wide one (CG*taps rows), so
 * it is the A operand the engine packs once per block; its packer builds
 * the panels from src on the fly (reduction rows NCX-ordered c*taps + t,
 * NXC-ordered t*CG + c so that a pixel's channels are copied in runs).
 * Summing the images inside the reduction, not as one GEMM per image,
 * keeps C (the weights, re-read once per KC slice) from being re-read once
 * per image as well: at 7x7 pixels a per-image GEMM is only 49 deep.
 * The GEMM writes [CG*taps][KG] (whole-vector tile stores), reordered into
 * [K][CG][taps] at the end (rounded to the weights' type).  Depthwise
 * (CG == 1) is direct: a GEMM of KG rows would waste the register tile. */
#include "omp_conv_bwd.h"

#include <omp.h>
#include <string.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR, CB = KB_OMP_BWD_CB };

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* What the packers read: group g's channels of image 0, at element
 * offsets src_off and dd_off of the tensors (stored as dt.src and
 * dt.dst). */
typedef struct {
    const kb_omp_bwd_geom *q;
    kb_dts dt;
    const void *src, *dd;
    int64_t src_off, dd_off;
    int64_t k0;                /* the first reduction index (a thread's part) */
} wei_ctx;

/* A pixel of the reduction: output pixel (oz, oy, ox) of image n. */
typedef struct {
    int64_t n, oz, oy, ox;
} opix;

/* The reduction index j as a pixel: the divisions once per packed run,
 * then carried forward by opix_next. */
static opix opix_of(const kb_omp_bwd_geom *q, int64_t j)
{
    int64_t p = j % q->out_px;
    return (opix){j / q->out_px, p / (q->oh * q->ow), p / q->ow % q->oh,
                  p % q->ow};
}

/* Past the end of output row (oz, oy): the first pixel of the next. */
static void opix_next_row(const kb_omp_bwd_geom *q, opix *p)
{
    p->ox = 0;
    if (++p->oy < q->oh)
        return;
    p->oy = 0;
    if (++p->oz < q->od)
        return;
    p->oz = 0;
    p->n++;
}

static void opix_next(const kb_omp_bwd_geom *q, opix *p)
{
    if (++p->ox == q->ow)
        opix_next_row(q, p);
}

/* One tap's kernel offsets. */
typedef struct {
    int64_t kz, ky, kx;
} tap3;

static tap3 tap_of(const kb_omp_bwd_geom *q, int64_t t)
{
    return (tap3){t / (q->kh * q->kw), t / q->kw % q->kh, t % q->kw};
}

/* The input row tap k of output row (p.oz, p.oy) of image p.n falls on,
 * as an element offset from channel 0 of image 0, or -1 in the padding. */
static int64_t input_row(const kb_omp_bwd_geom *q, const opix *p,
                         const tap3 *k)
{
    int64_t iz = p->oz * q->sd - q->pd + k->kz * q->dd;
    int64_t iy = p->oy * q->sh - q->ph + k->ky * q->dh;
    if (iz < 0 || iz >= q->id || iy < 0 || iy >= q->ih)
        return -1;
    int64_t px = (p->n * q->id + iz) * q->ih + iy;
    return q->nxc ? px * q->iw * q->ic : p->n * q->ic * q->in_px +
                                             (iz * q->ih + iy) * q->iw;
}

/* The packer bodies are written once per storage type DT (a constant:
 * KB_OMP_PER_DTYPE), so the f32 copy is the plain float loop; each
 * widens as it gathers. */

/* One row of an NCX A micro-panel: its channel's plane (element offset),
 * tap and the output columns [lo, hi) the tap keeps inside the input
 * row. */
typedef struct {
    int64_t chan;
    tap3 k;
    int64_t ix0, lo, hi;
} col_row;

/* A packer for NCX: rows are c*taps + t, columns reduction pixels; panel
 * i holds cols x MR floats, pixel-major.  The pixels are walked an output
 * row segment at a time for the whole micro-panel; where all its MR rows
 * read inside their input rows (the interior, and every 1x1 unpadded
 * convolution) the segment is a transposing copy of MR runs, else each
 * row is copied with its own padding. */
static inline __attribute__((always_inline)) void
pack_a_col_ncx_body(kb_dtype DT, const wei_ctx *x, int64_t r0, int64_t c0,
                    int64_t rows, int64_t cols, float *buf)
{
    const kb_omp_bwd_geom *q = x->q;
    const void *src = x->src;
    int64_t sw = q->sw;
    for (int64_t ip = 0; ip < rows; ip += MR) {
        float *panel = buf + ip * cols;
        int64_t mr = min64(MR, rows - ip);
        col_row cr[MR];
        for (int64_t i = 0; i < mr; i++) {
            int64_t r = r0 + ip + i;
            col_row *c = &cr[i];
            c->chan = x->src_off + r / q->taps * q->in_px;
            c->k = tap_of(q, r % q->taps);
            c->ix0 = q->xt[c->k.kx].i0;
            c->lo = q->xt[c->k.kx].lo;
            c->hi = q->xt[c->k.kx].hi;
        }
        opix p = opix_of(q, c0);
        for (int64_t kk = 0; kk < cols;) {
            int64_t seg = min64(cols - kk, q->ow - p.ox);
            int64_t s[MR], a[MR], b[MR];
            bool full = mr == MR;
            for (int64_t i = 0; i < mr; i++) {
                int64_t row = input_row(q, &p, &cr[i].k);
                a[i] = row < 0 ? seg : clamp64(cr[i].lo - p.ox, 0, seg);
                b[i] = row < 0 ? seg : clamp64(cr[i].hi - p.ox, a[i], seg);
                s[i] = cr[i].chan + row + cr[i].ix0 + p.ox * sw;
                full = full && a[i] == 0 && b[i] == seg;
            }
            float *d = panel + kk * MR;
            if (full) {
                for (int64_t j = 0; j < seg; j++)
                    for (int i = 0; i < MR; i++)
                        d[j * MR + i] = kb_omp_elem(DT, src, s[i] + j * sw);
            } else {
                for (int64_t i = 0; i < MR; i++) {
                    int64_t ai = i < mr ? a[i] : seg, bi = i < mr ? b[i] : seg;
                    for (int64_t j = 0; j < ai; j++)
                        d[j * MR + i] = 0.0f;
                    for (int64_t j = ai; j < bi; j++)
                        d[j * MR + i] = kb_omp_elem(DT, src, s[i] + j * sw);
                    for (int64_t j = bi; j < seg; j++)
                        d[j * MR + i] = 0.0f;
                }
            }
            kk += seg;
            if (p.ox + seg == q->ow)
                opix_next_row(q, &p);
            else
                p.ox += seg;
        }
    }
}

static void pack_a_col_ncx(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    const wei_ctx *x = op->ctx;
    KB_OMP_PER_DTYPE(x->dt.src, pack_a_col_ncx_body, x, r0, c0 + x->k0, rows,
                     cols, buf);
}

/* A run of rows of one A micro-panel that share a tap (NXC order
 * t*CG + c): rows [i, i+len) are channels c.. of tap k. */
typedef struct {
    int64_t i, len, c;
    tap3 k;
} tap_run;

/* A packer for NXC: rows are t*CG + c, columns reduction pixels.  The
 * runs of a micro-panel are worked out once; then each pixel copies its
 * runs of contiguous channels into its MR-float column. */
static void pack_a_col_nxc(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    const wei_ctx *x = op->ctx;
    const kb_omp_bwd_geom *q = x->q;
    for (int64_t ip = 0; ip < rows; ip += MR) {
        float *panel = buf + ip * cols;
        int64_t mr = min64(MR, rows - ip);
        tap_run runs[MR];
        int nruns = 0;
        for (int64_t i = 0, r = r0 + ip; i < mr; nruns++) {
            int64_t c = r % q->cg, len = min64(q->cg - c, mr - i);
            runs[nruns] = (tap_run){i, len, c, tap_of(q, r / q->cg)};
            i += len;
            r += len;
        }
        opix p = opix_of(q, c0 + x->k0);
        for (int64_t kk = 0; kk < cols; kk++, opix_next(q, &p)) {
            float *d = panel + kk * MR;
            for (int u = 0; u < nruns; u++) {
                const tap_run *ru = &runs[u];
                int64_t row = input_row(q, &p, &ru->k);
                int64_t ix = p.ox * q->sw - q->pw + ru->k.kx * q->dw;
                if (row < 0 || ix < 0 || ix >= q->iw) {
                    memset(d + ru->i, 0, (size_t)ru->len * sizeof(float));
                    continue;
                }
                kb_omp_widen(x->dt.src, x->src,
                             x->src_off + row + ix * q->ic + ru->c, ru->len,
                             d + ru->i);
            }
            for (int64_t i = mr; i < MR; i++)
                d[i] = 0.0f;
        }
    }
}

/* B packer for NCX diff_dst^T: rows reduction pixels, columns the
 * group's output channels; panel j holds rows x NR floats, pixel-major.
 * A channel's pixels are contiguous within an image. */
static inline __attribute__((always_inline)) void
pack_b_dd_ncx_body(kb_dtype DT, const wei_ctx *x, int64_t r0, int64_t c0,
                   int64_t rows, int64_t cols, float *buf)
{
    const kb_omp_bwd_geom *q = x->q;
    for (int64_t jp = 0; jp < cols; jp += NR) {
        float *panel = buf + jp * rows;
        int64_t nr = min64(NR, cols - jp);
        for (int64_t j = 0; j < NR; j++) {
            if (j >= nr) {
                for (int64_t kk = 0; kk < rows; kk++)
                    panel[kk * NR + j] = 0.0f;
                continue;
            }
            for (int64_t kk = 0; kk < rows;) {
                int64_t n = (r0 + kk) / q->out_px, p = (r0 + kk) % q->out_px;
                int64_t seg = min64(rows - kk, q->out_px - p);
                int64_t s = x->dd_off + (n * q->oc + c0 + jp + j) * q->out_px +
                            p;
                for (int64_t u = 0; u < seg; u++)
                    panel[(kk + u) * NR + j] = kb_omp_elem(DT, x->dd, s + u);
                kk += seg;
            }
        }
    }
}

static void pack_b_dd_ncx(const kb_omp_operand *op, int64_t r0, int64_t c0,
                          int64_t rows, int64_t cols, float *buf)
{
    const wei_ctx *x = op->ctx;
    KB_OMP_PER_DTYPE(x->dt.dst, pack_b_dd_ncx_body, x, r0 + x->k0, c0, rows,
                     cols, buf);
}

/* diff_wei[g*KG + k][c][t] = the GEMMs' [G][CG*taps][KG] result (row
 * c*taps + t in NCX, t*CG + c in NXC), rounded to the weights' type.  A transpose, done in CB
 * x CB tiles (each thread
 * takes CB output channels of one group): every tile reads CB runs of
 * CB floats and writes CB runs, where a channel at a time reads one
 * element per cache line and CB rows at a time write CB streams a power
 * of two apart, into one cache set (res5's 1x1s: 2048 rows of 512). */
static void store_diff_wei(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    void *dw = pl->t.ptr[KB_ARG_DIFF_WEI];
    int64_t rows = q->cg * q->taps, kblocks = (q->kg + CB - 1) / CB;
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t gb = 0; gb < q->g * kblocks; gb++) {
        int64_t g = gb / kblocks, k0 = gb % kblocks * CB;
        int64_t kn = min64(CB, q->kg - k0);
        const float *s = pl->scratch + g * rows * q->kg + k0;
        for (int64_t o0 = 0; o0 < rows; o0 += CB) {
            int64_t on = min64(CB, rows - o0);
            for (int64_t k = 0; k < kn; k++)
                for (int64_t o = o0; o < o0 + on; o++) {
                    /* o = c*taps + t, the row NCX's GEMM gave it; NXC's
                     * gave it row t*CG + c */
                    int64_t r = q->nxc ? o % q->taps * q->cg + o / q->taps
                                       : o;
                    kb_omp_store_elem(pl->dt.wei, dw,
                                      (g * q->kg + k0 + k) * rows + o,
                                      s[r * q->kg + k]);
                }
        }
    }
}

/* A small grid of output tiles over a deep reduction (ResNet-50's
 * res2a_branch2a at mb 1: 64 x 64 weights over 3136 pixels, 16 tiles)
 * gives each thread a sliver of every KC slice, and the threads wait at
 * each slice's barrier (perf: a quarter of the time in libgomp and
 * sched_yield).  Below SPLIT_TILES tiles a thread, each thread runs the
 * whole grid on its own part of the reduction, alone, into its own f32
 * buffer (the first thread's is the result's), and the buffers are summed
 * after; in NCX, where one KC slice writes diff_wei in place, it never
 * splits. */
enum { SPLIT_TILES = 64 };

static bool split_reduction(const kb_omp_bwd_geom *q, int nthreads)
{
    int64_t rows = q->cg * q->taps;
    int64_t tiles = (rows + MR - 1) / MR * ((q->kg + NR - 1) / NR);
    return nthreads > 1 && !kb_omp_bwd_wei_in_place(q) &&
           tiles < SPLIT_TILES * nthreads &&
           q->mb * q->out_px >= 2 * KB_OMP_KC * nthreads;
}

int64_t kb_omp_bwd_wei_split_elems(const kb_omp_bwd_geom *q, int nthreads)
{
    return split_reduction(q, nthreads)
               ? (nthreads - 1) * q->cg * q->taps * q->kg
               : 0;
}

/* The GEMM a over reduction indices [k0, k0 + k) into c, on the calling
 * thread with thread t's buffers. */
static void gemm_part(const kb_omp_conv_bwd_plan *pl, kb_omp_gemm_args a,
                      wei_ctx x, int64_t k0, int64_t k, float *c, int t)
{
    const kb_omp_workspace *ws = &pl->ws;
    kb_omp_workspace one = {
        .nthreads = 1, .abuf = ws->abuf + t, .bbuf = ws->bbuf + t,
        .apairs = ws->apairs ? ws->apairs + t : NULL,
        .bpairs = ws->bpairs ? ws->bpairs + t : NULL,
    };
    x.k0 = k0;
    a.k = k;
    a.c = c;
    a.a.ctx = &x;
    if (a.b.pack == pack_b_dd_ncx)
        a.b.ctx = &x;
    else   /* NXC: diff_dst read in place, rows oc apart */
        a.b.base = kb_omp_at(a.b.dt, a.b.base, k0 * a.b.rs);
    kb_omp_gemm(&a, &one);
}

static void split_gemm(const kb_omp_conv_bwd_plan *pl,
                       const kb_omp_gemm_args *a, const wei_ctx *x)
{
    int64_t elems = a->m * a->n;
    float *c = a->c, *extra = pl->scratch + pl->q.g * elems;
#pragma omp parallel num_threads(pl->nthreads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t k0 = a->k * t / nt, k1 = a->k * (t + 1) / nt;
        gemm_part(pl, *a, *x, k0, k1 - k0,
                  t == 0 ? c : extra + (t - 1) * elems, t);
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t e = 0; e < elems; e++)
            for (int u = 1; u < nt; u++)
                c[e] += extra[(u - 1) * elems + e];
    }
}

void kb_omp_bwd_weights_gemm(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    int64_t rows = q->cg * q->taps;
    bool split = split_reduction(q, pl->nthreads);
    for (int64_t g = 0; g < q->g; g++) {
        wei_ctx x = { q, pl->dt, pl->t.ptr[KB_ARG_SRC],
                      pl->t.ptr[KB_ARG_DIFF_DST],
                      g * q->cg * (q->nxc ? 1 : q->in_px),
                      g * q->kg * (q->nxc ? 1 : q->out_px), 0 };
        kb_omp_gemm_args a = {
            .m = rows, .n = q->kg, .k = q->mb * q->out_px,
            .a = { .pack = q->nxc ? pack_a_col_nxc : pack_a_col_ncx,
                   .ctx = &x, .dt = pl->dt.src },
            .b = q->nxc ? (kb_omp_operand){ .pack = kb_omp_pack_b_strided,
                                            .base = kb_omp_at(pl->dt.dst, x.dd,
                                                              x.dd_off),
                                            .rs = q->oc, .cs = 1,
                                            .dt = pl->dt.dst }
                        : (kb_omp_operand){ .pack = pack_b_dd_ncx,
                                            .ctx = &x, .dt = pl->dt.dst },
            .c_dt = KB_F32, .c = pl->scratch + g * rows * q->kg,
            .rs_c = q->kg, .cs_c = 1,
            .alpha = 1.0f, .beta = 0.0f,
        };
        if (kb_omp_bwd_wei_in_place(q)) {
            /* no transpose after (res5's 1x1s at mb 1 spent twice the
             * GEMM's time in store_diff_wei) */
            a.c_dt = pl->dt.wei;
            a.c = kb_omp_at(pl->dt.wei, pl->t.ptr[KB_ARG_DIFF_WEI],
                            g * q->kg * rows);
            a.rs_c = 1, a.cs_c = rows;
        }
        if (split)
            split_gemm(pl, &a, &x);
        else
            kb_omp_gemm(&a, &pl->ws);
    }
    if (!kb_omp_bwd_wei_in_place(q))
        store_diff_wei(pl);
}

/* ---- depthwise (CG == 1) ----
 * Each thread owns output channels (NCX) or a channel block (NXC) and
 * keeps one accumulator vector per tap in its scratch
 * (kb_omp_bwd_wei_dw_elems floats), reduced once at the end.  The loops
 * walk input rows (NCX) or output rows (NXC) outermost and the taps that
 * pair them inside, so the rows in play stay in L1 across the taps. */

static kb_v16sf load16(const float *p)
{
    kb_v16sf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static float hsum16(kb_v16sf v)
{
    float s = 0.0f;
    for (int l = 0; l < 16; l++)
        s += v[l];
    return s;
}

/* acc += d[lo..hi) * s[lo..hi), whole vectors; the tail's sum is
 * returned. */
static float dot_acc(kb_v16sf *acc, const float *d, const float *s,
                     int64_t lo, int64_t hi)
{
    kb_v16sf v = *acc;
    int64_t o = lo;
    for (; o + 16 <= hi; o += 16)
        v += load16(d + o) * load16(s + o);
    *acc = v;
    float tail = 0.0f;
    for (; o < hi; o++)
        tail += d[o] * s[o];
    return tail;
}

/* NCX (any multiplier KG): channel k.  Each input row is split once into
 * its sw phases (kb_omp_bwd_phase_row), where the columns a tap reads
 * from consecutive output columns are adjacent, so every tap is a
 * contiguous dot product. */
static void dw_ncx_channel(const kb_omp_conv_bwd_plan *pl, int64_t k,
                           float *scratch)
{
    const kb_omp_bwd_geom *q = &pl->q;
    kb_v16sf *acc = (kb_v16sf *)scratch;
    float *tail = scratch + q->taps * CB;
    float *phases = tail + (q->taps + CB - 1) / CB * CB;
    int64_t sw = q->sw;
    memset(scratch, 0, (size_t)(q->taps * CB + q->taps) * sizeof(float));
    for (int64_t n = 0; n < q->mb; n++) {
        const float *s = (const float *)pl->t.ptr[KB_ARG_SRC] +
                         (n * q->ic + k / q->kg) * q->in_px;
        const float *d = (const float *)pl->t.ptr[KB_ARG_DIFF_DST] +
                         (n * q->oc + k) * q->out_px;
        for (int64_t iz = 0; iz < q->id; iz++)
            for (int64_t iy = 0; iy < q->ih; iy++) {
                const float *srow = s + (iz * q->ih + iy) * q->iw;
                const float *ph = srow;
                bool split = false;
                for (int64_t kz = 0; kz < q->kd; kz++) {
                    int64_t oz = kb_omp_bwd_source_of(iz, kz, q->sd, q->pd,
                                                      q->dd, q->od);
                    for (int64_t ky = 0; oz >= 0 && ky < q->kh; ky++) {
                        int64_t oy = kb_omp_bwd_source_of(iy, ky, q->sh,
                                                          q->ph, q->dh, q->oh);
                        if (oy < 0)
                            continue;
                        if (sw > 1 && !split) {
                            kb_omp_bwd_phase_row(q, srow, phases);
                            ph = phases;
                            split = true;
                        }
                        const float *drow = d + (oz * q->oh + oy) * q->ow;
                        for (int64_t kx = 0; kx < q->kw; kx++) {
                            int64_t t = (kz * q->kh + ky) * q->kw + kx;
                            const kb_omp_bwd_xtap *x = &q->xt[kx];
                            /* ph[m0 + ox] is input column i0 + ox*sw (the
                             * row itself at stride 1, where m0 == i0) */
                            tail[t] += dot_acc(&acc[t], drow, ph + x->m0,
                                               x->lo, x->hi);
                        }
                    }
                }
            }
    }
    float *w = (float *)pl->t.ptr[KB_ARG_DIFF_WEI] + k * q->taps;
    for (int64_t t = 0; t < q->taps; t++)
        w[t] = hsum16(acc[t]) + tail[t];
}

void kb_omp_bwd_weights_dw_ncx(const kb_omp_conv_bwd_plan *pl)
{
    int64_t per = kb_omp_bwd_wei_dw_elems(&pl->q);
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t k = 0; k < pl->q.oc; k++)
        dw_ncx_channel(pl, k, pl->scratch + omp_get_thread_num() * per);
}

/* NXC (KG == 1): channels [c0, c0+cn), one thread's, a vector per tap:
 * per output row, each tap's products over the row are summed in
 * registers, two chains so the multiply-adds overlap. */
static void dw_nxc_block(const kb_omp_conv_bwd_plan *pl, int64_t c0,
                         int64_t cn, float *scratch)
{
    const kb_omp_bwd_geom *q = &pl->q;
    const float *src = (const float *)pl->t.ptr[KB_ARG_SRC] + c0;
    const float *dd = (const float *)pl->t.ptr[KB_ARG_DIFF_DST] + c0;
    kb_v16sf *acc = (kb_v16sf *)scratch;
    memset(acc, 0, (size_t)q->taps * sizeof(kb_v16sf));
    for (opix p = {0, 0, 0, 0}; p.n < q->mb; opix_next_row(q, &p)) {
        const float *drow =
            dd + (((p.n * q->od + p.oz) * q->oh + p.oy) * q->ow) * q->oc;
        for (int64_t kz = 0; kz < q->kd; kz++)
            for (int64_t ky = 0; ky < q->kh; ky++) {
                tap3 k0 = { kz, ky, 0 };
                int64_t row = input_row(q, &p, &k0);
                if (row < 0)
                    continue;
                for (int64_t kx = 0; kx < q->kw; kx++) {
                    int64_t t = (kz * q->kh + ky) * q->kw + kx;
                    int64_t lo = q->xt[kx].lo, hi = q->xt[kx].hi;
                    const float *s = src + row + q->xt[kx].i0 * q->ic;
                    int64_t ss = q->sw * q->ic;
                    if (cn < CB) {      /* the last block: past it is
                                           another pixel, or the end */
                        float *a = (float *)&acc[t];
                        for (int64_t ox = lo; ox < hi; ox++)
                            for (int64_t c = 0; c < cn; c++)
                                a[c] += drow[ox * q->oc + c] * s[ox * ss + c];
                        continue;
                    }
                    kb_v16sf v0 = acc[t], v1 = {0};
                    int64_t ox = lo;
                    for (; ox + 2 <= hi; ox += 2) {
                        v0 += load16(drow + ox * q->oc) * load16(s + ox * ss);
                        v1 += load16(drow + (ox + 1) * q->oc) *
                              load16(s + (ox + 1) * ss);
                    }
                    if (ox < hi)
                        v0 += load16(drow + ox * q->oc) * load16(s + ox * ss);
                    acc[t] = v0 + v1;
                }
            }
    }
    float *diff_wei = pl->t.ptr[KB_ARG_DIFF_WEI];
    for (int64_t c = 0; c < cn; c++)
        for (int64_t t = 0; t < q->taps; t++)
            diff_wei[(c0 + c) * q->taps + t] = acc[t][c];
}

void kb_omp_bwd_weights_dw_nxc(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    int64_t nblocks = (q->oc + CB - 1) / CB, per = kb_omp_bwd_wei_dw_elems(q);
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t c0 = b * CB;
        dw_nxc_block(pl, c0, min64(CB, q->oc - c0),
                     pl->scratch + omp_get_thread_num() * per);
    }
}

/* The sums of diff_dst's channels in double, rounded to diff_bia's type
 * (the same): a body per storage type DT, called inside the parallel
 * loop (a parallel loop inside the body is outlined before DT is known,
 * and its loads switched on the type at every element: the bias took as
 * long as the multiply of ResNet-50's res2a_branch2a BWD_WB).  In NCX a
 * channel's run is summed into BIAS_LANES independent partial sums, not
 * one vector waiting on its add's latency. */
enum { BIAS_LANES = 32 };

static inline __attribute__((always_inline)) void
bias_ncx_body(kb_dtype DT, const kb_omp_conv_bwd_plan *pl, int64_t k)
{
    const kb_omp_bwd_geom *q = &pl->q;
    const void *dd = pl->t.ptr[KB_ARG_DIFF_DST];
    double lanes[BIAS_LANES] = {0}, s = 0.0;
    for (int64_t n = 0; n < q->mb; n++) {
        int64_t d = (n * q->oc + k) * q->out_px, p = 0;
        for (; p + BIAS_LANES <= q->out_px; p += BIAS_LANES)
            for (int e = 0; e < BIAS_LANES; e++)
                lanes[e] += kb_omp_elem(DT, dd, d + p + e);
        for (; p < q->out_px; p++)
            s += kb_omp_elem(DT, dd, d + p);
    }
    for (int e = 0; e < BIAS_LANES; e++)
        s += lanes[e];
    kb_omp_store_elem(DT, pl->t.ptr[KB_ARG_DIFF_BIA], k, (float)s);
}

static inline __attribute__((always_inline)) void
bias_nxc_body(kb_dtype DT, const kb_omp_conv_bwd_plan *pl, int64_t c0)
{
    const kb_omp_bwd_geom *q = &pl->q;
    const void *dd = pl->t.ptr[KB_ARG_DIFF_DST];
    int64_t cn = min64(CB, q->oc - c0), points = q->mb * q->out_px;
    double s[CB] = {0};
    for (int64_t p = 0; p < points; p++) {
        int64_t d = p * q->oc + c0;
#pragma omp simd
        for (int64_t c = 0; c < cn; c++)
            s[c] += kb_omp_elem(DT, dd, d + c);
    }
    for (int64_t c = 0; c < cn; c++)
        kb_omp_store_elem(DT, pl->t.ptr[KB_ARG_DIFF_BIA], c0 + c,
                          (float)s[c]);
}

static void bias_ncx(const kb_omp_conv_bwd_plan *pl, int64_t k)
{
    KB_OMP_PER_DTYPE(pl->dt.dst, bias_ncx_body, pl, k);
}

static void bias_nxc(const kb_omp_conv_bwd_plan *pl, int64_t c0)
{
    KB_OMP_PER_DTYPE(pl->dt.dst, bias_nxc_body, pl, c0);
}

void kb_omp_bwd_bias(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    if (!q->nxc) {
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
        for (int64_t k = 0; k < q->oc; k++)
            bias_ncx(pl, k);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t b = 0; b < (q->oc + CB - 1) / CB; b++)
        bias_nxc(pl, b * CB);
}
