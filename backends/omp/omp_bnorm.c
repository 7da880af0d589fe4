/* omp_bnorm.c - fp32 batch normalisation (forward training and inference,
 * 2D and 3D, NCX and NXC) for the omp backend.
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
 * The loops run along the contiguous dimension, so they vectorise: in NCX
 * a channel's spatial points (one channel per thread step; the sums are
 * SIMD reductions, i.e. several double partial sums), in NXC the channels
 * of a point (a block of channels per thread step, one double sum per
 * channel).  Strided loops the other way ran at 1 GB/s in NXC. */
#include "omp_kernels.h"

#include <math.h>

/* Channels one NXC step owns: its sums live on the stack. */
enum { CBLOCK = 256 };

/* What every channel needs, whatever the layout. */
typedef struct {
    int64_t mb, spatial, channels;
    bool training;
    double eps;
    const float *src, *scale, *shift;
    float *dst, *mean, *var;
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

/* NCX: channel c's points of image n are contiguous. */
static void bnorm_ncx_channel(const bnorm_args *q, int64_t c)
{
    int64_t s = q->spatial, sn = q->channels * s;
    const float *x = q->src + c * s;
    float *y = q->dst + c * s;
    double sum = 0.0, sq = 0.0, m, v;
    if (q->training) {
        for (int64_t n = 0; n < q->mb; n++) {
            const float *xn = x + n * sn;
#pragma omp simd reduction(+ : sum)
            for (int64_t i = 0; i < s; i++)
                sum += xn[i];
        }
        double mu = sum / (double)(q->mb * s);
        for (int64_t n = 0; n < q->mb; n++) {
            const float *xn = x + n * sn;
#pragma omp simd reduction(+ : sq)
            for (int64_t i = 0; i < s; i++) {
                double d = xn[i] - mu;
                sq += d * d;
            }
        }
    }
    channel_stats(q, c, sum, sq, &m, &v);
    float a, b, mf = (float)m;
    channel_affine(q, c, v, &a, &b);
    for (int64_t n = 0; n < q->mb; n++) {
        const float *xn = x + n * sn;
        float *yn = y + n * sn;
#pragma omp simd
        for (int64_t i = 0; i < s; i++)
            yn[i] = (xn[i] - mf) * a + b;
    }
}

/* NXC: the channels [c0, c0+cn) of every point are contiguous. */
static void bnorm_nxc_block(const bnorm_args *q, int64_t c0, int64_t cn)
{
    int64_t points = q->mb * q->spatial, ld = q->channels;
    const float *x = q->src + c0;
    float *y = q->dst + c0;
    double sum[CBLOCK] = {0}, sq[CBLOCK] = {0}, mu[CBLOCK];
    float a[CBLOCK], b[CBLOCK], mf[CBLOCK];
    if (q->training) {
        for (int64_t p = 0; p < points; p++) {
            const float *xp = x + p * ld;
#pragma omp simd
            for (int64_t c = 0; c < cn; c++)
                sum[c] += xp[c];
        }
        for (int64_t c = 0; c < cn; c++)
            mu[c] = sum[c] / (double)points;
        for (int64_t p = 0; p < points; p++) {
            const float *xp = x + p * ld;
#pragma omp simd
            for (int64_t c = 0; c < cn; c++) {
                double d = xp[c] - mu[c];
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
        const float *xp = x + p * ld;
        float *yp = y + p * ld;
#pragma omp simd
        for (int64_t c = 0; c < cn; c++)
            yp[c] = (xp[c] - mf[c]) * a[c] + b[c];
    }
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
        .src = t->ptr[KB_ARG_SRC],
        .scale = t->ptr[KB_ARG_SCALE],
        .shift = t->ptr[KB_ARG_SHIFT],
        .dst = t->ptr[KB_ARG_DST],
        .mean = t->ptr[KB_ARG_MEAN],
        .var = t->ptr[KB_ARG_VAR],
    };
    if (p->layout != KB_LAYOUT_NXC) {
#pragma omp parallel for schedule(static) num_threads(nthreads)
        for (int64_t c = 0; c < q.channels; c++)
            bnorm_ncx_channel(&q, c);
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
        bnorm_nxc_block(&q, c0, q.channels - c0 < cb ? q.channels - c0 : cb);
    }
}
