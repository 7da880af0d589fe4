/* omp_bnorm.c - batch normalisation (forward training and inference,
 * backward data and data+weights, 2D and 3D, NCX and NXC) for the omp
 * backend, activations stored as f32, bf16 or f16 (the per-channel
 * tensors are f32 whatever the activations are, as oneDNN has them).
 *
 * Per channel c over the N images and S spatial points:
 *   training:  mean = sum(x)/(N*S), var = sum((x - mean)^2)/(N*S) (biased),
 *              both written to MEAN and VAR;
 *   inference: mean and var read from MEAN and VAR;
 *   dst = scale * (x - mean) / sqrt(var + eps) + shift,
 * with scale = 1 and shift = 0 when the problem has no such tensors.
 * Two passes with double accumulation, so the variance does not suffer
 * the cancellation of the one-pass sum-of-squares form.
 *
 * Backward (BWD_D, BWD_DW), with MEAN and VAR the batch's statistics (the
 * training formula, as oneDNN's backward without global statistics):
 *   diff_shift = sum(dy), diff_scale = sum(dy * (x - mean)) * rstd,
 *   diff_src = scale * rstd * (dy - diff_shift/M
 *                              - (x - mean) * rstd * diff_scale/M),
 * M = N*S, rstd = 1/sqrt(var + eps); BWD_DW also writes diff_scale and
 * diff_shift.  One pass of double sums, one element-wise pass.
 *
 * The loops run along the contiguous dimension, so they vectorise: in NCX
 * a channel's spatial points (one channel per thread step; the sums are
 * SIMD reductions, i.e. several double partial sums), in NXC the channels
 * of a point (a block of channels per thread step, one double sum per
 * channel).  Strided loops the other way ran at 1 GB/s in NXC.  Each
 * loop body is written once per activation type DT (a constant,
 * KB_OMP_PER_DTYPE, switched once per channel or block): elements are
 * widened as read and rounded once as written. */
#include "omp_kernels.h"

#include <math.h>

/* Channels one NXC step owns: its sums live on the stack. */
enum { CBLOCK = 256 };

/* What every channel needs, whatever the layout.  The activations (src,
 * dst, diff_src, diff_dst) are stored as dt. */
typedef struct {
    int64_t mb, spatial, channels;
    bool training;
    double eps;
    kb_dtype dt;
    const void *src;
    void *dst;
    const float *scale, *shift;
    float *mean, *var;
    /* backward only; diff_scale and diff_shift NULL unless BWD_DW */
    const void *diff_dst;
    void *diff_src;
    float *diff_scale, *diff_shift;
} bnorm_args;

/* Mean and variance of channel c as used, stored when training. */
static void channel_stats(const bnorm_args *q, int64_t c, double sum,
                          double sq, double *m, double *v)
{
    double count = (double)(q->mb * q->spatial);
    if (q->training) {
        *m = sum / count;
        *v = sq / count;
        q->mean[c] = (float)*m;
        q->var[c] = (float)*v;
    } else {
        *m = q->mean[c];
        *v = q->var[c];
    }
}

/* y = (x - m)*a + b: subtracting the mean first keeps the result accurate
 * where x is close to it (folding it into b would cancel two large
 * terms).  a and b for channel c of variance v. */
static void channel_affine(const bnorm_args *q, int64_t c, double v, float *a,
                           float *b)
{
    *a = (float)((q->scale ? q->scale[c] : 1.0) / sqrt(v + q->eps));
    *b = q->shift ? q->shift[c] : 0.0f;
}

#define LD(DT, base, off) kb_omp_elem(DT, base, off)

/* NCX: channel c's points of image n are contiguous. */
static inline __attribute__((always_inline)) void
fwd_ncx_body(kb_dtype DT, const bnorm_args *q, int64_t c)
{
    int64_t s = q->spatial, sn = q->channels * s;
    double sum = 0.0, sq = 0.0, m, v;
    if (q->training) {
        for (int64_t n = 0; n < q->mb; n++) {
            int64_t x = c * s + n * sn;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < s; i++)
                sum += LD(DT, q->src, x + i);
        }
        double mu = sum / (double)(q->mb * s);
        for (int64_t n = 0; n < q->mb; n++) {
            int64_t x = c * s + n * sn;
#pragma omp simd reduction(+ : sq)
            for (int64_t i = 0; i < s; i++) {
                double d = LD(DT, q->src, x + i) - mu;
                sq += d * d;
            }
        }
    }
    channel_stats(q, c, sum, sq, &m, &v);
    float a, b, mf = (float)m;
    channel_affine(q, c, v, &a, &b);
    for (int64_t n = 0; n < q->mb; n++) {
        int64_t x = c * s + n * sn;
#pragma omp simd
        for (int64_t i = 0; i < s; i++)
            kb_omp_store_elem(DT, q->dst, x + i,
                              (LD(DT, q->src, x + i) - mf) * a + b);
    }
}

/* NXC: the channels [c0, c0+cn) of every point are contiguous. */
static inline __attribute__((always_inline)) void
fwd_nxc_body(kb_dtype DT, const bnorm_args *q, int64_t c0, int64_t cn)
{
    int64_t points = q->mb * q->spatial, ld = q->channels;
    double sum[CBLOCK] = {0}, sq[CBLOCK] = {0}, mu[CBLOCK];
    float a[CBLOCK], b[CBLOCK], mf[CBLOCK];
    if (q->training) {
        for (int64_t p = 0; p < points; p++) {
            int64_t x = c0 + p * ld;
#pragma omp simd
            for (int64_t c = 0; c < cn; c++)
                sum[c] += LD(DT, q->src, x + c);
        }
        for (int64_t c = 0; c < cn; c++)
            mu[c] = sum[c] / (double)points;
        for (int64_t p = 0; p < points; p++) {
            int64_t x = c0 + p * ld;
#pragma omp simd
            for (int64_t c = 0; c < cn; c++) {
                double d = LD(DT, q->src, x + c) - mu[c];
                sq[c] += d * d;
            }
        }
    }
    for (int64_t c = 0; c < cn; c++) {
        double m, v;
        channel_stats(q, c0 + c, sum[c], sq[c], &m, &v);
        channel_affine(q, c0 + c, v, &a[c], &b[c]);
        mf[c] = (float)m;
    }
    for (int64_t p = 0; p < points; p++) {
        int64_t x = c0 + p * ld;
#pragma omp simd
        for (int64_t c = 0; c < cn; c++)
            kb_omp_store_elem(DT, q->dst, x + c,
                              (LD(DT, q->src, x + c) - mf[c]) * a[c] + b[c]);
    }
}

/* The backward pass's per-channel constants: diff_src = a * ((dy - k1)
 * - (x - mean) * k2).  Stores diff_scale and diff_shift when asked for. */
typedef struct {
    float mean, a, k1, k2;
} bwd_coef;

static bwd_coef bwd_channel(const bnorm_args *q, int64_t c, double sdy,
                            double sdyx)
{
    double m = (double)(q->mb * q->spatial);
    double rstd = 1.0 / sqrt((double)q->var[c] + q->eps);
    double dscale = sdyx * rstd;
    if (q->diff_scale) {
        q->diff_scale[c] = (float)dscale;
        q->diff_shift[c] = (float)sdy;
    }
    return (bwd_coef){ q->mean[c],
                       (float)((q->scale ? q->scale[c] : 1.0) * rstd),
                       (float)(sdy / m), (float)(rstd * dscale / m) };
}

static inline __attribute__((always_inline)) void
bwd_ncx_body(kb_dtype DT, const bnorm_args *q, int64_t c)
{
    int64_t s = q->spatial, sn = q->channels * s;
    double mean = q->mean[c], sdy = 0.0, sdyx = 0.0;
    for (int64_t n = 0; n < q->mb; n++) {
        int64_t x = c * s + n * sn;
#pragma omp simd reduction(+ : sdy, sdyx)
        for (int64_t i = 0; i < s; i++) {
            double dy = LD(DT, q->diff_dst, x + i);
            sdy += dy;
            sdyx += dy * (LD(DT, q->src, x + i) - mean);
        }
    }
    bwd_coef k = bwd_channel(q, c, sdy, sdyx);
    for (int64_t n = 0; n < q->mb; n++) {
        int64_t x = c * s + n * sn;
#pragma omp simd
        for (int64_t i = 0; i < s; i++)
            kb_omp_store_elem(DT, q->diff_src, x + i,
                              k.a * ((LD(DT, q->diff_dst, x + i) - k.k1) -
                                     (LD(DT, q->src, x + i) - k.mean) * k.k2));
    }
}

static inline __attribute__((always_inline)) void
bwd_nxc_body(kb_dtype DT, const bnorm_args *q, int64_t c0, int64_t cn)
{
    int64_t points = q->mb * q->spatial, ld = q->channels;
    double sdy[CBLOCK] = {0}, sdyx[CBLOCK] = {0}, mean[CBLOCK];
    for (int64_t c = 0; c < cn; c++)
        mean[c] = q->mean[c0 + c];
    for (int64_t p = 0; p < points; p++) {
        int64_t x = c0 + p * ld;
#pragma omp simd
        for (int64_t c = 0; c < cn; c++) {
            double dy = LD(DT, q->diff_dst, x + c);
            sdy[c] += dy;
            sdyx[c] += dy * (LD(DT, q->src, x + c) - mean[c]);
        }
    }
    float a[CBLOCK], k1[CBLOCK], k2[CBLOCK], mf[CBLOCK];
    for (int64_t c = 0; c < cn; c++) {
        bwd_coef k = bwd_channel(q, c0 + c, sdy[c], sdyx[c]);
        a[c] = k.a;
        k1[c] = k.k1;
        k2[c] = k.k2;
        mf[c] = k.mean;
    }
    for (int64_t p = 0; p < points; p++) {
        int64_t x = c0 + p * ld;
#pragma omp simd
        for (int64_t c = 0; c < cn; c++)
            kb_omp_store_elem(DT, q->diff_src, x + c,
                              a[c] * ((LD(DT, q->diff_dst, x + c) - k1[c]) -
                                      (LD(DT, q->src, x + c) - mf[c]) * k2[c]));
    }
}

#undef LD

/* One channel (NCX) or channel block (NXC) of either direction, its body
 * chosen for the activations' type. */
static void ncx_channel(const bnorm_args *q, int64_t c, bool bwd)
{
    if (bwd)
        KB_OMP_PER_DTYPE(q->dt, bwd_ncx_body, q, c);
    else
        KB_OMP_PER_DTYPE(q->dt, fwd_ncx_body, q, c);
}

static void nxc_block(const bnorm_args *q, int64_t c0, int64_t cn, bool bwd)
{
    if (bwd)
        KB_OMP_PER_DTYPE(q->dt, bwd_nxc_body, q, c0, cn);
    else
        KB_OMP_PER_DTYPE(q->dt, fwd_nxc_body, q, c0, cn);
}

bool kb_omp_bnorm_supports(const kb_dts *dt)
{
    return kb_dts_all(dt, KB_F32) || kb_dts_all(dt, KB_BF16) ||
           kb_dts_all(dt, KB_F16);
}

void kb_omp_bnorm(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_bnorm_desc *d = &p->bnorm;
    bnorm_args q = {
        .mb = d->mb,
        /* A 2D problem has no depth, whatever id holds. */
        .spatial = (d->ndims == 3 ? d->id : 1) * d->ih * d->iw,
        .channels = d->ic,
        .training = p->dir != KB_FWD_I,
        .eps = d->eps,
        .dt = p->dt.src,
        .src = t->ptr[KB_ARG_SRC],
        .dst = t->ptr[KB_ARG_DST],
        .scale = t->ptr[KB_ARG_SCALE],
        .shift = t->ptr[KB_ARG_SHIFT],
        .mean = t->ptr[KB_ARG_MEAN],
        .var = t->ptr[KB_ARG_VAR],
        .diff_dst = t->ptr[KB_ARG_DIFF_DST],
        .diff_src = t->ptr[KB_ARG_DIFF_SRC],
        .diff_scale = t->ptr[KB_ARG_DIFF_SCALE],
        .diff_shift = t->ptr[KB_ARG_DIFF_SHIFT],
    };
    bool bwd = kb_dir_is_backward(p->dir);
    if (p->layout != KB_LAYOUT_NXC) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
        for (int64_t c = 0; c < q.channels; c++)
            ncx_channel(&q, c, bwd);
        return;
    }
    /* Blocks of whole vectors, at least one per thread when C allows. */
    int64_t per = (q.channels + nthreads - 1) / nthreads;
    int64_t cb = (per + 15) / 16 * 16;
    cb = cb < 16 ? 16 : cb > CBLOCK ? CBLOCK : cb;
    int64_t nblocks = (q.channels + cb - 1) / cb;
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t k = 0; k < nblocks; k++) {
        int64_t c0 = k * cb;
        nxc_block(&q, c0, q.channels - c0 < cb ? q.channels - c0 : cb, bwd);
    }
}
