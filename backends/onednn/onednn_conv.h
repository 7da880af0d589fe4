/* onednn_conv.h - a convolution's geometry in oneDNN's terms, shared by
 * the forward (onednn_conv.c) and backward (onednn_conv_bwd.c) passes. */
#ifndef KB_ONEDNN_CONV_H
#define KB_ONEDNN_CONV_H

#include "onednn_internal.h"

/* Memory descriptors in format `any` (the primitive picks a blocked
 * one), in each tensor's storage type; the bias is plain.  Gradients
 * share the descriptor of the tensor they are the gradient of.  The
 * primitive copies what it needs: g is freed once the descriptors are
 * made. */
typedef struct {
    dnnl_memory_desc_t src, wei, bia, dst;
    dnnl_dims_t strides, dilates, pad_l, pad_r;
} dn_conv_geom;

/* Frees what conv_geom (onednn_conv.c) made in g. */
void dn_conv_geom_free(dn_conv_geom *g);

/* A forward convolution primitive descriptor: the FWD_* passes'
 * (forward_inference) and the hint of the backward ones
 * (forward_training); `what` names it for messages.  Returns 0,
 * DN_UNIMPLEMENTED or -1 with err. */
int dn_conv_fwd_pd(const kb_problem *p, const dn_conv_geom *g, dnnl_prop_kind_t prop,
                   bool bias, const char *what, dnnl_primitive_desc_t *pd,
                   char *err, size_t len);

/* d->pd (and d->hint) for BWD_D, BWD_W and BWD_WB.  Same returns. */
int dn_conv_bwd_desc(const kb_problem *p, const dn_conv_geom *g, dn_desc *d,
                     char *err, size_t len);

#endif
