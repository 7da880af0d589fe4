/* test_cudnn_shape.c - the cudnn backend's descriptors on the CPU
 * (backends/cudnn/cudnn_shape.h): the strides it gives cuDNN for src and
 * dst must put every logical element where kbench's layout does
 * (kb_arg_offset), in NCX and NXC, 2D and 3D; the channels-last filter
 * copy must be cuDNN's CUDNN_TENSOR_NHWC order; the convolution's
 * padding, strides and dilations are kbench's, dilation 1-based. */
#include <stdlib.h>

#include "backends/cudnn/cudnn_shape.h"
#include "tests/check.h"

static kb_problem parse(const char *desc, kb_layout layout)
{
    kb_settings s;
    kb_problem p;
    char err[256];
    kb_settings_default(&s);
    s.layout = layout;
    s.dir = KB_FWD_D;
    s.dir_given = true;
    if (kb_problem_parse(desc, &s, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", desc, err);
        exit(1);
    }
    return p;
}

/* The next logical index of a (odometer, last dim fastest). */
static void next_index(const kb_arg_info *a, int64_t *idx)
{
    for (int i = a->ndims - 1; i >= 0; i--) {
        if (++idx[i] < a->dims[i])
            return;
        idx[i] = 0;
    }
}

/* sum idx * stride == kb_arg_offset for every element of tensor arg. */
static void check_strides(const kb_problem *p, kb_arg arg)
{
    kb_arg_info info[KB_ARG_MAX];
    int dims[KB_MAX_DIMS], strides[KB_MAX_DIMS];
    kb_problem_args(p, info);
    const kb_arg_info *a = &info[arg];
    int nd = kb_cudnn_activation(p, a, dims, strides);
    CHECK(nd == a->ndims);
    int64_t idx[KB_MAX_DIMS] = {0}, bad = 0;
    for (int64_t e = 0; e < a->nelems; e++) {
        int64_t off = 0;
        for (int i = 0; i < nd; i++)
            off += idx[i] * strides[i];
        bad += off != kb_arg_offset(p, arg, idx);
        next_index(a, idx);
    }
    CHECK(bad == 0);
}

/* cuDNN's NHWC filter: [K][spatial][C/G], C fastest. */
static void check_filter_nxc(const kb_problem *p)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const kb_arg_info *w = &info[KB_ARG_WEI];
    double *src = malloc((size_t)w->nelems * sizeof *src);
    double *dst = malloc((size_t)w->nelems * sizeof *dst);
    for (int64_t i = 0; i < w->nelems; i++)
        src[i] = (double)i;   /* each element its own value */
    kb_cudnn_filter_to_nxc(w, sizeof *src, src, dst);

    int64_t idx[KB_MAX_DIMS] = {0}, bad = 0;
    for (int64_t e = 0; e < w->nelems; e++) {
        int64_t off = idx[0];   /* K, then the spatial dims, then C */
        for (int i = 2; i < w->ndims; i++)
            off = off * w->dims[i] + idx[i];
        off = off * w->dims[1] + idx[1];
        bad += dst[off] != src[kb_arg_offset(p, KB_ARG_WEI, idx)];
        next_index(w, idx);
    }
    CHECK(bad == 0);
    int dims[KB_MAX_DIMS];
    CHECK(kb_cudnn_filter(w, dims) == w->ndims);
    for (int i = 0; i < w->ndims; i++)
        CHECK(dims[i] == w->dims[i]);   /* K, C/G, (T,) R, S, any format */
    free(src);
    free(dst);
}

int main(void)
{
    static const char *const convs[] = {
        "g2mb2ic4ih5iw6oc6kh3kw2sh2ph1dh1",
        "mb3ic5ih4iw7oc2kh1kw1",
        "g2mb1ic2id4ih5iw6oc4kd4kh5kw6pd1ph2pw1",
        "mb2ic3id5ih4iw3oc2kd2kh2kw2sd2dd1",
    };
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
        for (int l = 0; l < 2; l++) {
            kb_problem p = parse(convs[i], l ? KB_LAYOUT_NXC : KB_LAYOUT_NCX);
            check_strides(&p, KB_ARG_SRC);
            check_strides(&p, KB_ARG_DST);
            check_filter_nxc(&p);
        }

    /* depth first for 3D; dilation is kbench's + 1 */
    int pad[3], stride[3], dil[3];
    kb_problem p = parse("g2mb2ic4ih9iw9oc6kh3kw3sh2sw3ph1pw2dh1dw2",
                         KB_LAYOUT_NCX);
    CHECK(kb_cudnn_conv_params(&p.conv, pad, stride, dil) == 2);
    CHECK(pad[0] == 1 && pad[1] == 2 && stride[0] == 2 && stride[1] == 3);
    CHECK(dil[0] == 2 && dil[1] == 3);
    p = parse("mb1ic2id9ih8iw7oc2kd3kh2kw2sd2pd1dd2", KB_LAYOUT_NXC);
    CHECK(kb_cudnn_conv_params(&p.conv, pad, stride, dil) == 3);
    CHECK(pad[0] == 1 && pad[1] == 0 && stride[0] == 2 && stride[1] == 1);
    CHECK(dil[0] == 3 && dil[1] == 1 && dil[2] == 1);

    /* bnorm's src in both layouts */
    for (int l = 0; l < 2; l++) {
        kb_problem b = parse("mb2ic3ih4iw5", l ? KB_LAYOUT_NXC : KB_LAYOUT_NCX);
        CHECK(b.kind == KB_BNORM);
        check_strides(&b, KB_ARG_SRC);
    }

    /* a stride beyond int is refused, not wrapped */
    kb_problem big = parse("mb1ic65536ih256iw256oc1kh1kw1", KB_LAYOUT_NCX);
    kb_arg_info info[KB_ARG_MAX];
    int dims[KB_MAX_DIMS], strides[KB_MAX_DIMS];
    kb_problem_args(&big, info);   /* N's stride: 2^32 */
    CHECK(kb_cudnn_activation(&big, &info[KB_ARG_SRC], dims, strides) == -1);
    big.layout = KB_LAYOUT_NXC;    /* still N's stride */
    CHECK(kb_cudnn_activation(&big, &info[KB_ARG_SRC], dims, strides) == -1);
    CHECK(kb_cudnn_activation(&big, &info[KB_ARG_DST], dims, strides) ==
          4);                      /* dst has 1 channel: 2^16 values */
    return CHECK_DONE();
}
