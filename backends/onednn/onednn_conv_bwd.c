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
    const dn_op op = {.kind = data ? DN_CONV_BWD_DATA : DN_CONV_BWD_WEIGHTS,
                      .src = &g->src, .wei = &g->wei,
                      .bia = bias ? &g->bia : NULL, .dst = &g->dst,
                      .strides = g->strides, .dilates = g->dilates,
                      .pad_l = g->pad_l, .pad_r = g->pad_r};
    return dn_pd_create(&d->pd, &op, NULL, d->hint, p, what, err, len);
}
