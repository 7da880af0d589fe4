/* test_gpu_conv_index.c - the GPU kernels' index math
 * (backends/gpu/gpu_conv_index.h) on the CPU, where it can be checked
 * without a GPU: forward convolutions computed through exactly the
 * functions the implicit-GEMM kernel and the depthwise kernel call, and
 * GEMMs through the operand addressing, compared bit for bit with the
 * reference on integer (VALIDATION) data, whose sums are exact.
 *
 * Usage: test_gpu_conv_index FILE... (batch files: every conv line in
 * both layouts, with and without bias; every GEMM line as written, the
 * edge shapes holding all four transpose cases and beta != 0). */
#include "backends/gpu/gpu_conv_index.h"
#include "kernels/batch.h"
#include "reference/reference.h"
#include "tests/check.h"

#include <math.h>
#include <stdlib.h>

/* The conv as gpu_conv.cu's tile engine computes it, element by element:
 * group g's GEMM, row m, column j, reduction index r, each offset from
 * the header (and each checked against the tensor's size). */
static bool implicit_gemm(const kb_problem *p, const kb_arg_info *info,
                          kb_tensors *t)
{
    const kb_conv_geom q = kb_conv_geom_of(&p->conv, p->layout);
    const float *src = t->ptr[KB_ARG_SRC], *wei = t->ptr[KB_ARG_WEI];
    const float *bia = p->dir == KB_FWD_B ? t->ptr[KB_ARG_BIA] : NULL;
    float *dst = t->ptr[KB_ARG_DST];
    bool in_bounds = true;
    for (int64_t g = 0; g < q.g; g++)
        for (int64_t m = 0; m < q.rows; m++) {
            const kb_conv_row row = kb_conv_row_of(&q, m, g);
            const int64_t drow = kb_conv_dst_row(&q, m);
            for (int64_t j = 0; j < q.ocg; j++) {
                const int64_t oc = g * q.ocg + j;
                float acc = 0.0f;
                for (int64_t r = 0; r < q.red; r++) {
                    const kb_conv_tap tap = kb_conv_tap_of(&q, r);
                    const int64_t s = kb_conv_src_at(&q, &row, &tap);
                    const int64_t w = kb_conv_wei_at(&q, oc, &tap);
                    in_bounds &= s < info[KB_ARG_SRC].nelems && w >= 0 &&
                                 w < info[KB_ARG_WEI].nelems;
                    if (s >= 0 && in_bounds)
                        acc = fmaf(src[s], wei[w], acc);
                }
                const int64_t d = drow + oc * q.dst_c;
                in_bounds &= d >= 0 && d < info[KB_ARG_DST].nelems;
                if (in_bounds)
                    dst[d] = bia ? acc + bia[oc] : acc;
            }
        }
    return in_bounds;
}

/* The depthwise conv as its kernel computes it: one dst element at a
 * time, in storage order. */
static bool depthwise(const kb_problem *p, const kb_arg_info *info,
                      kb_tensors *t)
{
    const kb_conv_geom q = kb_conv_geom_of(&p->conv, p->layout);
    const float *src = t->ptr[KB_ARG_SRC], *wei = t->ptr[KB_ARG_WEI];
    const float *bia = p->dir == KB_FWD_B ? t->ptr[KB_ARG_BIA] : NULL;
    float *dst = t->ptr[KB_ARG_DST];
    bool in_bounds = true;
    for (int64_t e = 0; e < info[KB_ARG_DST].nelems; e++) {
        int64_t m, oc;
        kb_conv_dst_elem(&q, e, &m, &oc);
        const kb_conv_row row = kb_conv_row_of(&q, m, oc);
        float acc = 0.0f;
        for (int64_t kd = 0; kd < q.kd; kd++)
            for (int64_t kh = 0; kh < q.kh; kh++)
                for (int64_t kw = 0; kw < q.kw; kw++) {
                    const kb_conv_tap tap = kb_conv_tap_at(&q, 0, kd, kh, kw);
                    const int64_t s = kb_conv_src_at(&q, &row, &tap);
                    const int64_t w = kb_conv_wei_at(&q, oc, &tap);
                    in_bounds &= s < info[KB_ARG_SRC].nelems && w >= 0 &&
                                 w < info[KB_ARG_WEI].nelems;
                    if (s >= 0 && in_bounds)
                        acc = fmaf(src[s], wei[w], acc);
                }
        dst[e] = bia ? acc + bia[oc] : acc;
    }
    return in_bounds;
}

/* kb_conv_dst_elem inverts kb_conv_dst_row + oc * dst_c on every dst
 * element, and kb_conv_src_at agrees with kb_arg_offset (tensors.c) on
 * every in-bounds tap of every row. */
static bool offsets_agree(const kb_problem *p, const kb_arg_info *info)
{
    const kb_conv_geom q = kb_conv_geom_of(&p->conv, p->layout);
    const kb_conv_desc *c = &p->conv;
    for (int64_t e = 0; e < info[KB_ARG_DST].nelems; e++) {
        int64_t m, oc;
        kb_conv_dst_elem(&q, e, &m, &oc);
        if (m < 0 || m >= q.rows || oc < 0 || oc >= c->oc ||
            kb_conv_dst_row(&q, m) + oc * q.dst_c != e)
            return false;
    }
    for (int64_t g = 0; g < q.g; g++)
        for (int64_t m = 0; m < q.rows; m++) {
            const kb_conv_pos o = kb_conv_pos_of(&q, m);
            const kb_conv_row row = kb_conv_row_of(&q, m, g);
            for (int64_t r = 0; r < q.red; r++) {
                const kb_conv_tap tap = kb_conv_tap_of(&q, r);
                const int64_t s = kb_conv_src_at(&q, &row, &tap);
                const int64_t taps = c->kd * c->kh * c->kw;
                const int64_t ci = q.nxc ? r % q.cg : r / taps;
                const int64_t ti = q.nxc ? r / q.cg : r % taps;
                const int64_t kd = ti / (c->kh * c->kw);
                const int64_t kh = ti / c->kw % c->kh, kw = ti % c->kw;
                const int64_t z = o.d * c->sd - c->pd + kd * (c->dd + 1);
                const int64_t y = o.h * c->sh - c->ph + kh * (c->dh + 1);
                const int64_t x = o.w * c->sw - c->pw + kw * (c->dw + 1);
                const bool inside = z >= 0 && z < c->id && y >= 0 &&
                                    y < c->ih && x >= 0 && x < c->iw;
                int64_t idx[KB_MAX_DIMS] = {o.n, g * q.cg + ci};
                int k = 2;
                if (c->ndims == 3)
                    idx[k++] = z;
                idx[k++] = y;
                idx[k] = x;
                if (inside != (s >= 0) ||
                    (inside && s != kb_arg_offset(p, KB_ARG_SRC, idx)))
                    return false;
            }
        }
    return true;
}

static size_t bytes_of(const kb_arg_info *a)
{
    return (size_t)a->nelems * kb_dtype_size(a->dt);
}

/* The problem's tensors in t, filled with validation data, and the
 * reference's result in ref.  false (checked) when out of memory. */
static bool filled_with_reference(const kb_problem *p, kb_tensors *t,
                                  kb_tensors *ref)
{
    if (kb_tensors_alloc(p, t) != 0) {
        CHECK(!"out of memory");
        return false;
    }
    if (kb_tensors_alloc(p, ref) != 0) {
        kb_tensors_free(t);
        CHECK(!"out of memory");
        return false;
    }
    kb_fill_inputs(p, t, KB_FILL_VALIDATION, 1);
    kb_ref_run(p, t, ref);
    return true;
}

/* dst computed by fn, after poisoning, equals the reference's bit for
 * bit (NaN poison left anywhere fails). */
static bool same_as_reference(const kb_problem *p, const kb_arg_info *info,
                              kb_tensors *t, const kb_tensors *ref,
                              bool (*fn)(const kb_problem *,
                                         const kb_arg_info *, kb_tensors *))
{
    kb_poison_outputs(p, t, true);
    if (!fn(p, info, t))
        return false;
    return memcmp(t->ptr[KB_ARG_DST], ref->ptr[KB_ARG_DST],
                  bytes_of(&info[KB_ARG_DST])) == 0;
}

static void check_conv(const kb_problem *parsed, int *ran)
{
    static const kb_layout layouts[] = {KB_LAYOUT_NCX, KB_LAYOUT_NXC};
    static const kb_dir dirs[] = {KB_FWD_B, KB_FWD_D};
    for (int l = 0; l < 2; l++)
        for (int d = 0; d < 2; d++) {
            kb_problem p = *parsed;
            p.layout = layouts[l];
            p.dir = dirs[d];
            p.dt = kb_dts_uniform(KB_F32);
            kb_arg_info info[KB_ARG_MAX];
            kb_problem_args(&p, info);
            kb_tensors t, ref;
            if (!filled_with_reference(&p, &t, &ref))
                return;
            char name[160];
            kb_problem_format(&p, name, sizeof name);
            bool ok = offsets_agree(&p, info);
            ok &= same_as_reference(&p, info, &t, &ref, implicit_gemm);
            if (p.conv.g == p.conv.ic && p.conv.g == p.conv.oc)
                ok &= same_as_reference(&p, info, &t, &ref, depthwise);
            if (!ok)
                fprintf(stderr, "conv %s %s %s: differs from the reference\n",
                        name, kb_layout_name(&p), kb_dir_name(p.dir));
            CHECK(ok);
            (*ran)++;
            kb_tensors_free(&t);
            kb_tensors_free(&ref);
        }
}

/* The GEMM as gpu_gemm.cu's kernel computes it, through kb_gemm_a_at and
 * kb_gemm_b_at, alpha and beta in f32 (dst read only when beta != 0). */
static void check_gemm(const kb_problem *parsed, int *ran)
{
    kb_problem p = *parsed;
    p.dt = kb_dts_uniform(KB_F32);
    const kb_gemm_desc *g = &p.gemm;
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(&p, info);
    kb_tensors t, ref;
    if (!filled_with_reference(&p, &t, &ref))
        return;
    const float *a = t.ptr[KB_ARG_SRC], *b = t.ptr[KB_ARG_WEI];
    float *c = t.ptr[KB_ARG_DST];
    const float alpha = (float)g->alpha, beta = (float)g->beta;
    const bool read_c = g->beta != 0.0;
    if (!read_c)
        kb_poison_outputs(&p, &t, true);
    for (int64_t m = 0; m < g->m; m++)
        for (int64_t n = 0; n < g->n; n++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < g->k; k++)
                acc = fmaf(a[kb_gemm_a_at(g->m, g->k, g->ta, m, k)],
                           b[kb_gemm_b_at(g->k, g->n, g->tb, k, n)], acc);
            float *d = c + m * g->n + n;
            *d = read_c ? alpha * acc + beta * *d : alpha * acc;
        }
    bool ok = memcmp(c, ref.ptr[KB_ARG_DST], bytes_of(&info[KB_ARG_DST])) == 0;
    if (!ok) {
        char name[160];
        kb_problem_format(&p, name, sizeof name);
        fprintf(stderr, "gemm %s: differs from the reference\n", name);
    }
    CHECK(ok);
    (*ran)++;
    kb_tensors_free(&t);
    kb_tensors_free(&ref);
}

static char **files;   /* the batch files named on the command line */
static int nfiles;

/* every conv and GEMM of the files, against the reference */
static void test_batch_files(void)
{
    int ran[KB_KIND_COUNT] = {0};
    for (int f = 0; f < nfiles; f++) {
        kb_settings s;
        kb_problem_list list = {0};
        char err[512];
        kb_settings_default(&s);
        if (kb_batch_load(files[f], &s, &list, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            CHECK(!"batch file loads");
            continue;
        }
        for (size_t i = 0; i < list.n; i++) {
            const kb_problem *p = &list.items[i];
            if (p->kind == KB_CONV)
                check_conv(p, &ran[KB_CONV]);
            else if (p->kind == KB_GEMM)
                check_gemm(p, &ran[KB_GEMM]);
        }
        kb_problem_list_free(&list);
    }
    printf("%d conv cases, %d gemm cases\n", ran[KB_CONV], ran[KB_GEMM]);
    CHECK(ran[KB_CONV] > 0 && ran[KB_GEMM] > 0);
}

static const check_test tests[] = {
    CHECK_TEST(batch_files), CHECK_END};

/* test_gpu_conv_index FILE... [-- SUB-TEST...] */
int main(int argc, char **argv)
{
    int own = check_nargs(argc, argv);
    if (own < 1) {
        fprintf(stderr, "usage: test_gpu_conv_index FILE... [-- SUB-TEST...]\n");
        return 2;
    }
    files = argv + 1;
    nfiles = own;
    return check_main_args(argc, argv, own, tests);
}
