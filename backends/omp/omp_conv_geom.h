/* omp_conv_geom.h - a convolution's sizes as every omp loop reads them
 * (forward here, backward in omp_conv_bwd.h), and the forward geometry of
 * the loops that read src in place: the im2col packers and the shifted
 * path (omp_conv.c), and the depthwise loops (omp_conv_dw.c). */
#ifndef KB_OMP_CONV_GEOM_H
#define KB_OMP_CONV_GEOM_H

#include "omp_kernels.h"

/* The sizes, strides, pads and dilations of kb_conv_desc, once for both
 * geometries: the fields (KB_OMP_CONV_SIZES, in a struct) and their
 * initialisers from a kb_conv_desc *d (KB_OMP_CONV_SIZES_OF(d)).
 * Dilations are effective (1 = none), the loops' step between taps; a 2D
 * problem has depth 1 and no depth padding. */
#define KB_OMP_CONV_SIZES                                                  \
    int64_t id, ih, iw, od, oh, ow, kd, kh, kw;                            \
    int64_t sd, sh, sw, pd, ph, pw, dd, dh, dw
#define KB_OMP_CONV_SIZES_OF(d)                                            \
    .id = (d)->id, .ih = (d)->ih, .iw = (d)->iw,                           \
    .od = (d)->od, .oh = (d)->oh, .ow = (d)->ow,                           \
    .kd = (d)->kd, .kh = (d)->kh, .kw = (d)->kw,                           \
    .sd = (d)->sd, .sh = (d)->sh, .sw = (d)->sw,                           \
    .pd = (d)->pd, .ph = (d)->ph, .pw = (d)->pw,                           \
    .dd = (d)->dd + 1, .dh = (d)->dh + 1, .dw = (d)->dw + 1

/* The geometry an im2col packer needs.  src points at channel 0 of the
 * group in one image, stored as dt; element (c, z, y, x) of it is at
 * c*c_stride + ((z*ih + y)*iw + x)*px_stride. */
typedef struct {
    const void *src;
    kb_dtype dt;
    int64_t c_stride, px_stride;
    int64_t cg;
    KB_OMP_CONV_SIZES;
} kb_omp_conv_geom;

/* src: the image (and group) at element offset off of the src tensor. */
static inline kb_omp_conv_geom
kb_omp_conv_geom_of(const kb_problem *p, const void *src, int64_t off)
{
    const kb_conv_desc *d = &p->conv;
    bool nxc = p->layout == KB_LAYOUT_NXC;
    kb_omp_conv_geom q = {
        .src = kb_omp_at(p->dt.src, src, off),
        .dt = p->dt.src,
        .c_stride = nxc ? 1 : d->id * d->ih * d->iw,
        .px_stride = nxc ? d->ic : 1,
        .cg = d->ic / d->g,
        KB_OMP_CONV_SIZES_OF(d),
    };
    return q;
}

#endif
