/* test_miopen_shape.c - the miopen backend's tensor descriptors, checked
 * on the CPU: for every element of every tensor of conv and bnorm
 * problems in both layouts, the offset the dims and strides give is
 * where the element is (kbench's kb_arg_offset; for an NXC conv's
 * weights, kb_miopen_filter_nxc's copy), per-channel tensors are
 * MIOpen's broadcast [1, C, 1, 1(, 1)], and a stride past int is
 * refused. */
#include "backends/miopen/miopen_shape.h"
#include "tests/check.h"

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

/* The descriptor places every element where kbench keeps it. */
static void check_in_place(const kb_problem *p, kb_arg a,
                           const kb_arg_info *t, const kb_miopen_shape *s)
{
    int64_t idx[KB_MAX_DIMS] = {0};
    int bad = 0;
    do {
        int64_t off = 0;
        for (int i = 0; i < t->ndims; i++)
            off += idx[i] * s->strides[i];
        bad += off != kb_arg_offset(p, a, idx);
    } while (next_index(t, idx));
    CHECK(bad == 0);
}

/* An NXC conv's weights: the copy holds each element where the
 * descriptor says, channels fastest, and fills every place once. */
static void check_filter_copy(const kb_problem *p, const kb_arg_info *t,
                              const kb_miopen_shape *s)
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
        src[e] = (float)e;
        dst[e] = -1.0f;
    }
    kb_miopen_filter_nxc(p, src, dst);
    CHECK(s->strides[1] == 1);
    int64_t idx[KB_MAX_DIMS] = {0};
    int bad = 0;
    do {
        int64_t off = 0;
        for (int i = 0; i < t->ndims; i++)
            off += idx[i] * s->strides[i];
        bad += off < 0 || off >= t->nelems ||
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
        kb_miopen_shape s;
        char why[192];
        if (!t->used)
            continue;
        CHECK(kb_miopen_shape_of(p, (kb_arg)a, &s, why, sizeof why) == 0);
        const int spatial = p->kind == KB_CONV ? p->conv.ndims : p->bnorm.ndims;
        CHECK(s.nbdims == spatial + 2);
        if (t->ndims == 1) {
            /* [1, C, 1, ...], packed */
            for (int i = 0; i < s.nbdims; i++)
                CHECK(s.dims[i] == (i == 1 ? t->dims[0] : 1));
            CHECK(s.strides[1] == 1);
            continue;
        }
        CHECK(t->ndims == s.nbdims);
        for (int i = 0; i < t->ndims; i++)
            CHECK(s.dims[i] == t->dims[i]);
        if (a == KB_ARG_WEI && p->layout == KB_LAYOUT_NXC)
            check_filter_copy(p, t, &s);
        else
            check_in_place(p, (kb_arg)a, t, &s);
    }
}

int main(void)
{
    static const char *const convs[] = {
        "mb2ic6ih7iw5oc4kh3kw2sh2sw1ph1pw0",
        "g2mb2ic6ih7iw7oc4kh3kw3ph2pw2dh1dw1",
        "g6mb1ic6ih5iw5oc6kh3kw3ph1pw1",
        "mb2ic3id5ih4iw6oc2kd3kh2kw3sd2sh1sw2pd1ph0pw1dd0dh1dw0",
    };
    static const char *const bnorms[] = {"mb2ic3ih5iw4", "mb2ic3id2ih3iw4"};
    const kb_layout layouts[] = {KB_LAYOUT_NCX, KB_LAYOUT_NXC};
    kb_problem p;

    for (int l = 0; l < 2; l++) {
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

    /* NHWC's batch stride is C x H x W: past int here, and said so */
    char why[192] = "";
    kb_miopen_shape s;
    CHECK(parse("mb2ic65536ih200iw200oc1kh1kw1", KB_LAYOUT_NXC, KB_FWD_D,
                &p) == 0);
    CHECK(kb_miopen_shape_of(&p, KB_ARG_SRC, &s, why, sizeof why) == -1);
    CHECK(strstr(why, "src stride") != NULL);
    CHECK(strstr(why, "past int") != NULL);
    /* its weights, 1x1, are small and fine */
    CHECK(kb_miopen_shape_of(&p, KB_ARG_WEI, &s, why, sizeof why) == 0);
    return CHECK_DONE();
}
