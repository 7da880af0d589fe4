/* onednn_conv_bwd.c - the backward convolutions: backward_data (BWD_D)
 * and backward_weights without and with the bias gradient (BWD_W,
 * BWD_WB), each created against a forward_training hint. */
#include "onednn_conv.h"

#include <stdio.h>

int dn_conv_bwd_desc(const kb_problem *p, const dn_conv_geom *g, dn_desc *d,
                     char *err, size_t len)
{
    const bool data = p->dir == KB_BWD_D, bias = p->dir == KB_BWD_WB;
    const char *pass = data ? "backward_data" : "backward_weights";
    char what[48], hint_what[96];
    dnnl_convolution_desc_t cd;
    dnnl_status_t s;

    /* oneDNN picks the backward implementation that matches the forward
     * one it would run in training, so the hint is that: same tensors,
     * the bias iff the backward pass has its gradient. */
    snprintf(what, sizeof what, "convolution %s", pass);
    snprintf(hint_what, sizeof hint_what,
             "convolution forward_training (%s's hint)", pass);
    int rc = dn_conv_fwd_pd(p, g, dnnl_forward_training, bias, hint_what, &d->hint,
                            err, len);
    if (rc)
        return rc;
    /* Gradients share their primal's descriptor (diff_src as src, ...). */
    if (data)
        s = dnnl_dilated_convolution_backward_data_desc_init(
            &cd, dnnl_convolution_direct, &g->src, &g->wei, &g->dst, g->strides,
            g->dilates, g->pad_l, g->pad_r);
    else
        s = dnnl_dilated_convolution_backward_weights_desc_init(
            &cd, dnnl_convolution_direct, &g->src, &g->wei, bias ? &g->bia : NULL,
            &g->dst, g->strides, g->dilates, g->pad_l, g->pad_r);
    if (dn_check(s, what, err, len))
        return -1;
    return dn_pd_create(&d->pd, &cd, NULL, d->hint, p, what, err, len);
}
