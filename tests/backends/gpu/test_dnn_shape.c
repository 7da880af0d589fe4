/* test_dnn_shape.c - the cudnn and miopen backends' descriptors, checked
 * on the CPU (backends/gpu/dnn_shape.h): for every element of every
 * tensor of conv and bnorm problems, 2D and 3D, in both layouts, the
 * offset the dims and strides give is where kbench keeps it
 * (kb_arg_offset; for an NXC conv's weights, kb_dnn_filter_nxc's copy, a
 * permutation into [K][spatial][C/G]); per-channel tensors are the
 * broadcast [1, C, 1, 1(, 1)]; the convolution's parameters are kbench's,
 * depth first, dilation 1-based; a size past int is refused. */
#include "backends/gpu/dnn_shape.h"
#include "tests/check.h"

#include <limits.h>
#include <stdlib.h>

static int parse(const char *text, kb_layout layout, kb_dir dir,
                 kb_problem *p)
{
    kb_settings s;
    char err[256];
    kb_settings_default(&s);
    s.layout = layout;
    s.dir = dir;
    s.dir_given = true;
    if (kb_problem_parse(text, &s, p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", text, err);
        return -1;
    }
    return 0;
}

/* Odometer over a logical shape; false after the last index. */
static bool next_index(const kb_arg_info *t, int64_t *idx)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        if (++idx[i] < t->dims[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

static int64_t offset_of(const kb_arg_info *t, const kb_dnn_shape *s,
                         const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < t->ndims; i++)
        off += idx[i] * s->strides[i];
    return off;
}

/* The descriptor places every element where kbench keeps it. */
static void check_in_place(const kb_problem *p, kb_arg a,
                           const kb_arg_info *t, const kb_dnn_shape *s)
{
    int64_t idx[KB_MAX_DIMS] = {0};
    int bad = 0;
    do
        bad += offset_of(t, s, idx) != kb_arg_offset(p, a, idx);
    while (next_index(t, idx));
    CHECK(bad == 0);
}

/* An NXC conv's weights: the copy holds each element at [K][spatial][C/G]
 * (cuDNN's CUDNN_TENSOR_NHWC filter order), where the descriptor's
 * strides say too, and fills every place once. */
static void check_filter_copy(const kb_problem *p, const kb_arg_info *t,
                              const kb_dnn_shape *s)
{
    float *src = malloc(sizeof(float) * (size_t)t->nelems);
    float *dst = malloc(sizeof(float) * (size_t)t->nelems);
    CHECK(src && dst && t->dt == KB_F32);
    if (!src || !dst || t->dt != KB_F32) {
        free(src);
        free(dst);
        return;
    }
    for (int64_t e = 0; e < t->nelems; e++) {
        src[e] = (float)e;   /* each element its own value */
        dst[e] = -1.0f;
    }
    kb_dnn_filter_nxc(p, src, dst);
    CHECK(s->strides[1] == 1);
    int64_t idx[KB_MAX_DIMS] = {0};
    int bad = 0;
    do {
        int64_t off = idx[0];   /* K, then the spatial dims, then C */
        for (int i = 2; i < t->ndims; i++)
            off = off * t->dims[i] + idx[i];
        off = off * t->dims[1] + idx[1];
        bad += off != offset_of(t, s, idx) || off < 0 ||
               off >= t->nelems ||
               dst[off] != src[kb_arg_offset(p, KB_ARG_WEI, idx)];
    } while (next_index(t, idx));
    CHECK(bad == 0);
    for (int64_t e = 0; e < t->nelems; e++)
        bad += dst[e] < 0;
    CHECK(bad == 0);
    free(src);
    free(dst);
}

/* Every element of every tensor p uses lands where it is stored. */
static void check_problem(const kb_problem *p)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *t = &info[a];
        kb_dnn_shape s;
        char why[192];
        if (!t->used)
            continue;
        CHECK(kb_dnn_shape_of(p, (kb_arg)a, &s, "test", why, sizeof why) ==
              0);
        const int spatial = p->kind == KB_CONV ? p->conv.ndims : p->bnorm.ndims;
        CHECK(s.nbdims == spatial + 2);
        if (t->ndims == 1) {
            /* [1, C, 1, ...], packed */
            for (int i = 0; i < s.nbdims; i++)
                CHECK(s.dims[i] == (i == 1 ? t->dims[0] : 1));
            CHECK(s.strides[0] == t->dims[0] && s.strides[1] == 1);
            continue;
        }
        CHECK(t->ndims == s.nbdims);
        for (int i = 0; i < t->ndims; i++)
            CHECK(s.dims[i] == t->dims[i]);   /* logical, any layout */
        if (a == KB_ARG_WEI && p->layout == KB_LAYOUT_NXC)
            check_filter_copy(p, t, &s);
        else
            check_in_place(p, (kb_arg)a, t, &s);
    }
}

/* Depth first for 3D; dilation is kbench's + 1; past int refused. */
static void test_conv_params(void)
{
    kb_problem p;
    kb_dnn_conv cv;
    char why[192] = "";
    CHECK(parse("g2mb2ic4ih9iw9oc6kh3kw3sh2sw3ph1pw2dh1dw2", KB_LAYOUT_NCX,
                KB_FWD_D, &p) == 0);
    CHECK(kb_dnn_conv_of(&p.conv, &cv, "test", why, sizeof why) == 0);
    CHECK(cv.nbdims == 2 && cv.groups == 2);
    CHECK(cv.pad[0] == 1 && cv.pad[1] == 2);
    CHECK(cv.stride[0] == 2 && cv.stride[1] == 3);
    CHECK(cv.dilation[0] == 2 && cv.dilation[1] == 3);
    CHECK(parse("mb1ic2id9ih8iw7oc2kd3kh2kw2sd2pd1dd2", KB_LAYOUT_NXC,
                KB_FWD_D, &p) == 0);
    CHECK(kb_dnn_conv_of(&p.conv, &cv, "test", why, sizeof why) == 0);
    CHECK(cv.nbdims == 3 && cv.groups == 1);
    CHECK(cv.pad[0] == 1 && cv.pad[1] == 0 && cv.pad[2] == 0);
    CHECK(cv.stride[0] == 2 && cv.stride[1] == 1 && cv.stride[2] == 1);
    CHECK(cv.dilation[0] == 3 && cv.dilation[1] == 1 && cv.dilation[2] == 1);

    kb_conv_desc c = p.conv;   /* no parser takes these: set by hand */
    c.ph = (int64_t)INT_MAX + 1;
    CHECK(kb_dnn_conv_of(&c, &cv, "test", why, sizeof why) == -1);
    CHECK(strstr(why, "test: conv padding 2147483648 is past int") == why);
    c = p.conv;
    c.dw = INT_MAX;   /* fits, but not once 1-based */
    CHECK(kb_dnn_conv_of(&c, &cv, "test", why, sizeof why) == -1);
    CHECK(strstr(why, "1-based dilation") != NULL);
}

/* A stride past int is refused, not wrapped, and said so. */
static void test_past_int(void)
{
    kb_problem p;
    kb_dnn_shape s;
    char why[192] = "";
    /* N's stride: 2^32 in NCHW and in NHWC */
    CHECK(parse("mb1ic65536ih256iw256oc1kh1kw1", KB_LAYOUT_NCX, KB_FWD_D,
                &p) == 0);
    CHECK(kb_dnn_shape_of(&p, KB_ARG_SRC, &s, "cudnn", why, sizeof why) ==
          -1);
    CHECK(strstr(why, "cudnn: src stride 4294967296 is past int") == why);
    p.layout = KB_LAYOUT_NXC;
    CHECK(kb_dnn_shape_of(&p, KB_ARG_SRC, &s, "cudnn", why, sizeof why) ==
          -1);
    /* dst has 1 channel: 2^16 values */
    CHECK(kb_dnn_shape_of(&p, KB_ARG_DST, &s, "cudnn", why, sizeof why) ==
          0);
    CHECK(s.nbdims == 4);

    /* NHWC's batch stride is C x H x W: past int here */
    CHECK(parse("mb2ic65536ih200iw200oc1kh1kw1", KB_LAYOUT_NXC, KB_FWD_D,
                &p) == 0);
    CHECK(kb_dnn_shape_of(&p, KB_ARG_SRC, &s, "miopen", why, sizeof why) ==
          -1);
    CHECK(strstr(why, "miopen: src stride") == why);
    CHECK(strstr(why, "past int") != NULL);
    /* its weights, 1x1, are small and fine */
    CHECK(kb_dnn_shape_of(&p, KB_ARG_WEI, &s, "miopen", why, sizeof why) ==
          0);
}

/* every descriptor of convs and bnorms, in both layouts */
static void test_problems(void)
{
    static const char *const convs[] = {
        "g2mb2ic4ih5iw6oc6kh3kw2sh2ph1dh1",
        "mb3ic5ih4iw7oc2kh1kw1",
        "g2mb1ic2id4ih5iw6oc4kd4kh5kw6pd1ph2pw1",
        "mb2ic3id5ih4iw3oc2kd2kh2kw2sd2dd1",
        "mb2ic6ih7iw5oc4kh3kw2sh2sw1ph1pw0",
        "g2mb2ic6ih7iw7oc4kh3kw3ph2pw2dh1dw1",
        "g6mb1ic6ih5iw5oc6kh3kw3ph1pw1",
        "mb2ic3id5ih4iw6oc2kd3kh2kw3sd2sh1sw2pd1ph0pw1dd0dh1dw0",
    };
    static const char *const bnorms[] = {"mb2ic3ih4iw5", "mb2ic3ih5iw4",
                                         "mb2ic3id2ih3iw4"};
    const kb_layout layouts[] = {KB_LAYOUT_NCX, KB_LAYOUT_NXC};
    kb_problem p;

    for (int l = 0; l < 2; l++) {
        /* FWD_B: src, wei, bias and dst */
        for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
            if (parse(convs[i], layouts[l], KB_FWD_B, &p) == 0)
                check_problem(&p);
            else
                CHECK(!"conv descriptor parses");
        for (size_t i = 0; i < sizeof bnorms / sizeof bnorms[0]; i++)
            for (int train = 0; train < 2; train++)
                if (parse(bnorms[i], layouts[l], train ? KB_FWD_D : KB_FWD_I,
                          &p) == 0)
                    check_problem(&p);
                else
                    CHECK(!"bnorm descriptor parses");
    }
}

static const check_test tests[] = {
    CHECK_TEST(problems), CHECK_TEST(conv_params), CHECK_TEST(past_int),
    CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
