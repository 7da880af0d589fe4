/* cudnn_bnorm.c - batchnorm forward on cuDNN (CUDNN_BATCHNORM_SPATIAL):
 * inference with the given statistics, and training, which writes the
 * batch's mean and variance as kbench's MEAN and VAR.
 *
 * Training maps onto cuDNN's outputs this way: MEAN is resultSaveMean,
 * the batch mean.  cuDNN has no biased variance output (its saved
 * "inverse variance" is 1/sqrt(var + eps)), but its running variance with
 * exponentialAverageFactor 1 is the batch's unbiased variance, var x
 * M/(M-1) over the M = N x spatial values of a channel: read_output
 * scales it by (M-1)/M into VAR, kbench's biased variance
 * (reference/ref_bnorm.c).  That is one rounding, where recovering var
 * from the inverse std would lose digits when var is small next to eps. */
#include "backends/cudnn/cudnn_internal.h"
#include "backends/gpu/dnn_shape.h"

#include <stdio.h>

/* The running statistics and the saved inverse std, [C] each, in one
 * buffer of the statistics' type. */
enum { RUN_MEAN, RUN_VAR, SAVED_INV_STD, RUNNING_ARRAYS };

static bool training(const kb_problem *p)
{
    return p->dir == KB_FWD_D;
}

/* Values per channel: N x spatial. */
static int64_t per_channel(const kb_problem *p)
{
    const kb_bnorm_desc *b = &p->bnorm;
    return b->mb * b->id * b->ih * b->iw;
}

static size_t stats_elem(const kb_problem *p)
{
    return kb_dtype_size(kb_problem_acc_dtype(p));
}

static void *running_array(const cdn_plan *pl, int which)
{
    return (char *)pl->running +
           (size_t)which * (size_t)pl->p->bnorm.ic * stats_elem(pl->p);
}

int cdn_bnorm_check(const kb_problem *p, char *why, size_t len)
{
    kb_dnn_shape x;
    if (kb_dnn_shape_of(p, KB_ARG_SRC, &x, "cudnn", why, len) != 0)
        return CDN_UNSUPPORTED;
    if (p->bnorm.eps < CUDNN_BN_MIN_EPSILON) {
        snprintf(why, len, "cudnn: eps %g is below CUDNN_BN_MIN_EPSILON %g",
                 p->bnorm.eps, (double)CUDNN_BN_MIN_EPSILON);
        return CDN_UNSUPPORTED;
    }
    if (training(p) && per_channel(p) < 2) {
        snprintf(why, len, "cudnn: training over one value per channel: "
                 "VAR comes from cuDNN's unbiased running variance, which "
                 "divides by M-1 = 0");
        return CDN_UNSUPPORTED;
    }
    return 0;
}

int cdn_bnorm_prepare(cdn_plan *pl, char *err, size_t len)
{
    const kb_problem *p = pl->p;
    kb_dnn_shape x;
    if (kb_dnn_shape_of(p, KB_ARG_SRC, &x, "cudnn", err, len) != 0)
        return -1;
    CDN_TRY("cudnnCreateTensorDescriptor(x)",
           cudnnCreateTensorDescriptor(&pl->bd.x), err, len);
    CDN_TRY("cudnnSetTensorNdDescriptor(x)",
           cudnnSetTensorNdDescriptor(pl->bd.x, cdn_dtype(p->dt.src), x.nbdims,
                                      x.dims, x.strides), err, len);
    CDN_TRY("cudnnCreateTensorDescriptor(stats)",
           cudnnCreateTensorDescriptor(&pl->bd.stats), err, len);
    /* [1, C, 1, 1(, 1)], float (double for double data): kbench's
     * per-channel tensors have that type */
    CDN_TRY("cudnnDeriveBNTensorDescriptor",
           cudnnDeriveBNTensorDescriptor(pl->bd.stats, pl->bd.x,
                                         CUDNN_BATCHNORM_SPATIAL), err, len);
    if (training(p)) {
        size_t bytes = RUNNING_ARRAYS * (size_t)p->bnorm.ic * stats_elem(p);
        if (KB_GPU(alloc)(&pl->running, bytes, err, len) != 0)
            return -1;
        if (cdn_bnorm_write_input(pl, err, len) != 0)
            return -1;
    }
    return KB_GPU(tensors_upload)(&pl->d, true, err, len);
}

int cdn_bnorm_launch(cdn_plan *pl, char *err, size_t len)
{
    const kb_problem *p = pl->p;
    void *const *dev = pl->d.dev;
    const cdn_bnorm_desc *bd = &pl->bd;
    if (!training(p)) {
        CDN_TRY("cudnnBatchNormalizationForwardInference",
               cudnnBatchNormalizationForwardInference(
                   pl->handle, CUDNN_BATCHNORM_SPATIAL, &pl->one, &pl->zero,
                   bd->x, dev[KB_ARG_SRC], bd->x, dev[KB_ARG_DST], bd->stats,
                   dev[KB_ARG_SCALE], dev[KB_ARG_SHIFT], dev[KB_ARG_MEAN],
                   dev[KB_ARG_VAR], p->bnorm.eps), err, len);
        return 0;
    }
    /* factor 1: the running statistics become this batch's, whatever
     * they held, so every launch does the same work */
    CDN_TRY("cudnnBatchNormalizationForwardTraining",
           cudnnBatchNormalizationForwardTraining(
               pl->handle, CUDNN_BATCHNORM_SPATIAL, &pl->one, &pl->zero,
               bd->x, dev[KB_ARG_SRC], bd->x, dev[KB_ARG_DST], bd->stats,
               dev[KB_ARG_SCALE], dev[KB_ARG_SHIFT], 1.0,
               running_array(pl, RUN_MEAN), running_array(pl, RUN_VAR),
               p->bnorm.eps, dev[KB_ARG_MEAN],
               running_array(pl, SAVED_INV_STD)), err, len);
    return 0;
}

/* Training: VAR = the unbiased running variance x (M-1)/M. */
int cdn_bnorm_read_output(cdn_plan *pl, char *err, size_t len)
{
    const kb_problem *p = pl->p;
    if (!training(p))
        return 0;
    const kb_arg_info *v = &pl->d.info[KB_ARG_VAR];
    void *host = pl->d.host->ptr[KB_ARG_VAR];
    if (KB_GPU(download)(host, running_array(pl, RUN_VAR),
                         KB_GPU(arg_bytes)(v), err, len) != 0)
        return -1;
    const double m = (double)per_channel(p);
    for (int64_t c = 0; c < v->nelems; c++)
        kb_store(v->dt, host, c, kb_load(v->dt, host, c) * ((m - 1.0) / m));
    return 0;
}

/* Training: zero the running statistics (finite, since cuDNN scales them
 * by 1 - factor = 0, and not a stale result), so that only the next run
 * can make VAR pass. */
int cdn_bnorm_write_input(cdn_plan *pl, char *err, size_t len)
{
    if (!training(pl->p))
        return 0;
    size_t bytes = RUNNING_ARRAYS * (size_t)pl->p->bnorm.ic *
                   stats_elem(pl->p);
    KB_GPU_TRY(gpuMemset(pl->running, 0, bytes), err, len);
    return 0;
}

void cdn_bnorm_release(cdn_plan *pl)
{
    if (pl->bd.x)
        (void)cudnnDestroyTensorDescriptor(pl->bd.x);
    if (pl->bd.stats)
        (void)cudnnDestroyTensorDescriptor(pl->bd.stats);
    KB_GPU(free)(pl->running);
}

void cdn_bnorm_info(const cdn_plan *pl, kb_info *info)
{
    if (!training(pl->p)) {
        kb_info_add(info, "algorithm", "cudnnBatchNormalizationForward"
                    "Inference, CUDNN_BATCHNORM_SPATIAL");
        return;
    }
    kb_info_add(info, "algorithm", "cudnnBatchNormalizationForwardTraining, "
                "CUDNN_BATCHNORM_SPATIAL, exponentialAverageFactor 1");
    kb_info_add(info, "mean", "resultSaveMean (the batch mean)");
    kb_info_add(info, "var", "the running variance (unbiased, x M/(M-1)) "
                "times (M-1)/M on download, M = %lld",
                (long long)per_channel(pl->p));
}
