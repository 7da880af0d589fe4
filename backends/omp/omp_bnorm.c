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
 * the cancellation of the one-pass sum-of-squares form.  Channels are
 * independent, so threads split the channels. */
#include "omp_kernels.h"

#include <math.h>

/* Element (n, c, i) of src/dst is at n*sn + c*sc + i*si. */
typedef struct {
    int64_t mb, spatial, sn, sc, si;
} bnorm_geom;

static double channel_mean(const bnorm_geom *q, const float *x)
{
    double sum = 0.0;
    for (int64_t n = 0; n < q->mb; n++)
        for (int64_t i = 0; i < q->spatial; i++)
            sum += x[n * q->sn + i * q->si];
    return sum / (double)(q->mb * q->spatial);
}

static double channel_var(const bnorm_geom *q, const float *x, double mean)
{
    double sum = 0.0;
    for (int64_t n = 0; n < q->mb; n++)
        for (int64_t i = 0; i < q->spatial; i++) {
            double v = x[n * q->sn + i * q->si] - mean;
            sum += v * v;
        }
    return sum / (double)(q->mb * q->spatial);
}

/* y = (x - m)*a + b over one channel.  Subtracting the mean first keeps
 * the result accurate where x is close to it (folding it into b would
 * cancel two large terms). */
static void channel_normalise(const bnorm_geom *q, const float *x, float *y,
                              float m, float a, float b)
{
    for (int64_t n = 0; n < q->mb; n++) {
        const float *xn = x + n * q->sn;
        float *yn = y + n * q->sn;
        for (int64_t i = 0; i < q->spatial; i++)
            yn[i * q->si] = (xn[i * q->si] - m) * a + b;
    }
}

void kb_omp_bnorm(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_bnorm_desc *d = &p->bnorm;
    /* A 2D problem has no depth, whatever id holds. */
    int64_t spatial = (d->ndims == 3 ? d->id : 1) * d->ih * d->iw;
    bool nxc = p->layout == KB_LAYOUT_NXC;
    bnorm_geom q = { d->mb, spatial, d->ic * spatial, nxc ? 1 : spatial,
                     nxc ? d->ic : 1 };
    bool training = p->dir != KB_FWD_I;
    const float *src = t->ptr[KB_ARG_SRC];
    const float *scale = t->ptr[KB_ARG_SCALE], *shift = t->ptr[KB_ARG_SHIFT];
    float *dst = t->ptr[KB_ARG_DST];
    float *mean = t->ptr[KB_ARG_MEAN], *var = t->ptr[KB_ARG_VAR];

#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t c = 0; c < d->ic; c++) {
        const float *x = src + c * q.sc;
        double m, v;
        if (training) {
            m = channel_mean(&q, x);
            v = channel_var(&q, x, m);
            mean[c] = (float)m;
            var[c] = (float)v;
        } else {
            m = mean[c];
            v = var[c];
        }
        double a = (scale ? scale[c] : 1.0) / sqrt(v + d->eps);
        float b = shift ? shift[c] : 0.0f;
        channel_normalise(&q, x, dst + c * q.sc, (float)m, (float)a, b);
    }
}
