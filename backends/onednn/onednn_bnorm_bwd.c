/* onednn_bnorm_bwd.c - the backward batch normalizations, BWD_D
 * (diff_src) and BWD_DW (diff_src, diff_scale, diff_shift), both the
 * training formula: mean and var are the batch's statistics, not global
 * ones (no use_global_stats). */
#include "onednn_internal.h"

int dn_bnorm_bwd_desc(const kb_problem *p, const dnnl_memory_desc_t *data_md,
                      dn_desc *d, char *err, size_t len)
{
    /* oneDNN 2.6's backward_data takes no scale (use_scale is
     * unimplemented there), and kbench's diff_src is scaled: BWD_D runs
     * prop backward with use_scale and drops the diff_scale it writes,
     * a per-channel sum the diff_src needs anyway.  BWD_DW adds use_shift
     * for diff_shift, which makes 2.x (not 3.x) demand a shift argument
     * it does not read: both extras are the plan's own scratch tensors. */
    const bool dw = p->dir == KB_BWD_DW;
    const unsigned flags = dnnl_use_scale | (dw ? dnnl_use_shift : 0u);
    const char *what = "batch_normalization backward";

    d->scratch = !dw                       ? 1u << KB_ARG_DIFF_SCALE
                 : dn_bnorm_bwd_takes_shift ? 1u << KB_ARG_SHIFT
                                            : 0u;
    int rc = dn_bnorm_fwd_pd(p, data_md, dnnl_forward_training, flags,
                             "batch_normalization forward_training (backward's hint)",
                             &d->hint, err, len);
    if (rc)
        return rc;
    const dn_op op = {.kind = DN_BNORM_BWD, .prop = dnnl_backward, .src = data_md,
                      .dst = data_md, .eps = (float)p->bnorm.eps, .flags = flags};
    return dn_pd_create(&d->pd, &op, NULL, d->hint, p, what, err, len);
}
