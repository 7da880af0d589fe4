/* miopen_bnorm.c - the miopen backend's batchnorm forward, spatial
 * (per channel over N and the spatial dims): inference with the given
 * statistics, and training, which writes the batch's mean and variance
 * as kbench's MEAN and VAR (reference/ref_bnorm.c: the biased variance).
 *
 * Training maps onto MIOpen's outputs as the cudnn backend's does onto
 * cuDNN's: MEAN is resultSaveMean, the batch mean.  MIOpen has no biased
 * variance output (its saved "inverse variance" is 1/sqrt(var + eps)),
 * but its running variance with expAvgFactor 1 is the batch's unbiased
 * variance, var x n/(n-1) over the n = N x spatial values of a channel
 * (just var when n = 1: MIOpen's batchnorm_functions.h; miopen.h
 * documents only the blend, new x factor + old x (1 - factor)):
 * read_output scales it by (n-1)/n into VAR. */
#include "backends/miopen/miopen_internal.h"

#include <stdio.h>

/* The running statistics and the saved inverse std, f32 [C] each, in
 * one buffer. */
enum { RUN_MEAN, RUN_VAR, SAVED_INV_STD, RUNNING_ARRAYS };

static bool training(const kb_problem *p)
{
    return p->dir == KB_FWD_D;   /* the direction that writes MEAN and VAR */
}

/* Values per channel: N x spatial. */
static int64_t per_channel(const kb_problem *p)
{
    const kb_bnorm_desc *b = &p->bnorm;
    return b->mb * b->id * b->ih * b->iw;
}

static size_t running_bytes(const kb_problem *p)
{
    return training(p) ? RUNNING_ARRAYS * (size_t)p->bnorm.ic * sizeof(float)
                       : 0;
}

static float *running_array(const mi_plan *m, int which)
{
    return (float *)m->running + (size_t)which * (size_t)m->p->bnorm.ic;
}

unsigned mi_bnorm_managed(const kb_problem *p)
{
    /* training's VAR comes from the running variance (read_output) */
    return training(p) ? ~(1u << KB_ARG_VAR) : ~0u;
}

size_t mi_bnorm_extra_bytes(const kb_problem *p)
{
    return running_bytes(p);
}

int mi_bnorm_prepare(mi_plan *m, char *err, size_t len)
{
    if (!training(m->p))
        return 0;
    m->running_bytes = running_bytes(m->p);
    if (KB_GPU(alloc)(&m->running, m->running_bytes, err, len) != 0)
        return -1;
    return mi_bnorm_write_input(m, err, len);
}

int mi_bnorm_launch(mi_plan *m, char *err, size_t len)
{
    void *const *dev = m->d.dev;
    const miopenTensorDescriptor_t *d = m->desc;
    /* alpha and beta: "always 1 and 0" (miopen.h), by non-const pointer */
    float one = 1.0f, zero = 0.0f;
    if (!training(m->p))
        return mi_check(miopenBatchNormalizationForwardInference(
                            m->h, miopenBNSpatial, &one, &zero,
                            d[KB_ARG_SRC], dev[KB_ARG_SRC], d[KB_ARG_DST],
                            dev[KB_ARG_DST], d[KB_ARG_SCALE],
                            dev[KB_ARG_SCALE], dev[KB_ARG_SHIFT],
                            dev[KB_ARG_MEAN], dev[KB_ARG_VAR],
                            m->p->bnorm.eps),
                        "miopenBatchNormalizationForwardInference", err, len);
    /* factor 1: the running statistics become this batch's, whatever
     * they held (finite: zeroed by write_input), so every launch does the
     * same work */
    return mi_check(miopenBatchNormalizationForwardTraining(
                        m->h, miopenBNSpatial, &one, &zero, d[KB_ARG_SRC],
                        dev[KB_ARG_SRC], d[KB_ARG_DST], dev[KB_ARG_DST],
                        d[KB_ARG_SCALE], dev[KB_ARG_SCALE], dev[KB_ARG_SHIFT],
                        1.0, running_array(m, RUN_MEAN),
                        running_array(m, RUN_VAR), m->p->bnorm.eps,
                        dev[KB_ARG_MEAN], running_array(m, SAVED_INV_STD)),
                    "miopenBatchNormalizationForwardTraining", err, len);
}

/* Training: VAR = the unbiased running variance x (n-1)/n. */
int mi_bnorm_read_output(mi_plan *m, char *err, size_t len)
{
    if (!training(m->p))
        return 0;
    const kb_arg_info *v = &m->d.info[KB_ARG_VAR];
    void *host = m->d.host->ptr[KB_ARG_VAR];
    if (KB_GPU(download)(host, running_array(m, RUN_VAR),
                         KB_GPU(arg_bytes)(v), err, len) != 0)
        return -1;
    const double n = (double)per_channel(m->p);
    for (int64_t c = 0; c < v->nelems; c++)
        kb_store(v->dt, host, c, kb_load(v->dt, host, c) * ((n - 1.0) / n));
    return 0;
}

/* Training: zero the running statistics (finite, since MIOpen scales
 * them by 1 - factor = 0, and not a stale result), so that only the next
 * run can make VAR pass. */
int mi_bnorm_write_input(mi_plan *m, char *err, size_t len)
{
    if (!training(m->p))
        return 0;
    KB_GPU_TRY(gpuMemset(m->running, 0, m->running_bytes), err, len);
    return 0;
}

void mi_bnorm_info(const mi_plan *m, kb_info *info)
{
    if (!training(m->p)) {
        kb_info_add(info, "algorithm", "miopenBatchNormalizationForward"
                    "Inference, miopenBNSpatial");
    } else {
        kb_info_add(info, "algorithm", "miopenBatchNormalizationForward"
                    "Training, miopenBNSpatial, expAvgFactor 1");
        kb_info_add(info, "mean", "resultSaveMean (the batch mean)");
        kb_info_add(info, "var", "the running variance (unbiased, x "
                    "n/(n-1)) times (n-1)/n on download, n = %lld",
                    (long long)per_channel(m->p));
    }
    kb_info_add(info, "math", "%s data; f32 statistics, scale and shift",
                kb_dtype_name(m->p->dt.src));
}
