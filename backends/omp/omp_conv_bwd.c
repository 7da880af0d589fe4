/* omp_conv_bwd.c - the backward convolution plan of the omp backend: which
 * way each problem is computed, the buffers that way needs (allocated and
 * filled in prepare, untimed) and the dispatch.  The kernels are in
 * omp_conv_bwd_data.c (BWD_D) and omp_conv_bwd_weights.c (BWD_W, BWD_WB). */
#include "omp_conv_bwd.h"

#include <stdlib.h>

kb_omp_bwd_geom kb_omp_bwd_geom_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    kb_omp_bwd_geom q = {
        .mb = d->mb, .g = d->g, .ic = d->ic, .oc = d->oc,
        .cg = d->ic / d->g, .kg = d->oc / d->g,
        KB_OMP_CONV_SIZES_OF(d),
        .in_px = d->id * d->ih * d->iw,
        .out_px = d->od * d->oh * d->ow,
        .taps = d->kd * d->kh * d->kw,
        .nxc = p->layout == KB_LAYOUT_NXC,
    };
    return q;
}

static int64_t round16(int64_t n) { return (n + 15) / 16 * 16; }

int64_t kb_omp_bwd_row_elems(const kb_omp_bwd_geom *q, kb_omp_bwd_path path)
{
    if (!q->nxc)
        return round16(q->sw * kb_omp_bwd_phase_len(q));
    return q->iw * (path == KB_OMP_BWD_DATA_DW_NXC ? KB_OMP_BWD_CB : q->ic);
}

int64_t kb_omp_bwd_col_images(const kb_omp_bwd_geom *q)
{
    int64_t per = q->ic * q->taps * q->out_px;
    int64_t n = per > 0 ? KB_OMP_BWD_COL_FLOATS / per : 1;
    return n < 1 ? 1 : n > q->mb ? q->mb : n;
}

/* A vector per tap, the NCX tails' sums, the NCX phase row. */
bool kb_omp_bwd_wei_in_place(const kb_omp_bwd_geom *q)
{
    return !q->nxc && q->mb * q->out_px <= KB_OMP_KC;
}

int64_t kb_omp_bwd_wei_dw_elems(const kb_omp_bwd_geom *q)
{
    return q->taps * KB_OMP_BWD_CB + round16(q->taps) +
           (q->nxc ? 0 : kb_omp_bwd_row_elems(q, KB_OMP_BWD_WEI_DW_NCX));
}

/* Depthwise takes the direct loops (a GEMM of one row wastes the register
 * tile), in NXC only with one output channel per group, where a channel
 * vector of diff_dst lines up with one of src.  A stride-1 BWD_D of any
 * kind is the transposed forward convolution, depthwise included (the
 * forward's own depthwise loops then run). */
static kb_omp_bwd_path path_of(const kb_problem *p)
{
    kb_omp_bwd_geom q = kb_omp_bwd_geom_of(p);
    bool dw = q.cg == 1, dw_nxc = dw && q.kg == 1;
    if (p->dir == KB_BWD_D) {
        if (q.sd == 1 && q.sh == 1 && q.sw == 1)
            return KB_OMP_BWD_DATA_TRANSPOSED;
        if (dw && !q.nxc)
            return KB_OMP_BWD_DATA_DW_NCX;
        if (dw_nxc)
            return KB_OMP_BWD_DATA_DW_NXC;
        return KB_OMP_BWD_DATA_COL2IM;
    }
    if (dw && !q.nxc)
        return KB_OMP_BWD_WEI_DW_NCX;
    if (dw_nxc)
        return KB_OMP_BWD_WEI_DW_NXC;
    return KB_OMP_BWD_WEI_GEMM;
}

bool kb_omp_conv_bwd_supports(const kb_dts *dt)
{
    return kb_dts_all(dt, KB_F32) || kb_dts_all(dt, KB_BF16) ||
           kb_dts_all(dt, KB_F16);
}

/* The depthwise loops are f32 only (memory-bound, so widening on the
 * way costs what the narrower reads save): on bf16 or f16 they run on
 * f32 copies. */
static bool needs_copies(const kb_problem *p, kb_omp_bwd_path path)
{
    bool direct = path == KB_OMP_BWD_DATA_DW_NCX ||
                  path == KB_OMP_BWD_DATA_DW_NXC ||
                  path == KB_OMP_BWD_WEI_DW_NCX ||
                  path == KB_OMP_BWD_WEI_DW_NXC;
    return direct && !kb_dts_all(&p->dt, KB_F32);
}

/* What a path allocates (wei and wei_nxc in bytes, the rest in floats)
 * and whether it needs the engine. */
typedef struct {
    int64_t wei, wei_nxc, scratch, rows, copies;
    bool ws;
    kb_omp_ws_need need;       /* what the engine's GEMMs need, when ws */
} bwd_sizes;

static bwd_sizes sizes_of(const kb_problem *p, int nthreads)
{
    kb_omp_bwd_geom q = kb_omp_bwd_geom_of(p);
    kb_omp_bwd_path path = path_of(p);
    int64_t wei = q.oc * q.cg * q.taps;
    int64_t wsize = (int64_t)kb_dtype_size(p->dt.wei);
    int64_t rows = nthreads * kb_omp_bwd_row_elems(&q, path);
    bwd_sizes s = {0};
    switch (path) {
    case KB_OMP_BWD_DATA_TRANSPOSED: {
        kb_problem f = kb_omp_bwd_data_transposed_problem(p);
        s.wei = wei * wsize;
        s.ws = kb_omp_conv_path_of(&f) == KB_OMP_CONV_GEMM;
        s.need = kb_omp_conv_need(&f);
        s.wei_nxc = s.ws && q.nxc ? kb_omp_conv_nxc_weight_elems(&f) * wsize
                                  : 0;
        break;
    }
    case KB_OMP_BWD_DATA_COL2IM:
        s.ws = true;
        s.need = (kb_omp_ws_need){ .a_dt = q.nxc ? p->dt.dst : p->dt.wei,
                                   .b_dt = q.nxc ? p->dt.wei : p->dt.dst };
        s.wei = q.nxc ? wei * wsize : 0;
        s.scratch = q.ic * q.taps * q.out_px * kb_omp_bwd_col_images(&q);
        s.rows = rows;
        break;
    case KB_OMP_BWD_WEI_GEMM:
        /* the GEMM writes diff_wei itself, or scratch (f32) for the
         * transpose after */
        s.ws = true;
        s.need = (kb_omp_ws_need){ .a_dt = p->dt.src, .b_dt = p->dt.dst };
        s.scratch = kb_omp_bwd_wei_in_place(&q)
                        ? 0
                        : wei + kb_omp_bwd_wei_split_elems(&q, nthreads);
        break;
    case KB_OMP_BWD_DATA_DW_NXC:
        s.wei = (q.ic + KB_OMP_BWD_CB - 1) / KB_OMP_BWD_CB * q.taps *
                KB_OMP_BWD_CB * (int64_t)sizeof(float);
        s.rows = rows;
        break;
    case KB_OMP_BWD_DATA_DW_NCX:
        s.rows = rows;
        break;
    case KB_OMP_BWD_WEI_DW_NCX:
    case KB_OMP_BWD_WEI_DW_NXC:
        s.scratch = nthreads * kb_omp_bwd_wei_dw_elems(&q);
        break;
    }
    if (needs_copies(p, path)) {
        kb_arg_info info[KB_ARG_MAX];
        kb_problem_args(p, info);
        for (int a = 0; a < KB_ARG_MAX; a++)
            if (info[a].used)
                s.copies += round16(info[a].nelems);
    }
    return s;
}

size_t kb_omp_conv_bwd_extra_bytes(const kb_problem *p, int nthreads)
{
    bwd_sizes s = sizes_of(p, nthreads);
    size_t bytes = (size_t)(s.wei + s.wei_nxc) +
                   (size_t)(s.scratch + s.rows + s.copies) * sizeof(float) +
                   (size_t)p->conv.kw * sizeof(kb_omp_bwd_xtap);
    return bytes + (s.ws ? kb_omp_workspace_bytes_for(nthreads, &s.need) : 0);
}

/* 64-byte aligned (the depthwise accumulators are vectors); NULL for
 * n == 0 as for an allocation failure, so the caller asks only for what
 * it needs. */
static void *alloc_bytes(int64_t n)
{
    return n > 0 ? aligned_alloc(64, (size_t)(n + 63) / 64 * 64) : NULL;
}

static float *alloc_floats(int64_t n)
{
    return alloc_bytes(n * (int64_t)sizeof(float));
}

/* Output positions [*lo, *hi) of one dimension whose tap t falls inside
 * the input (0 <= o*s - pad + t*dil < in), clipped to [0, out). */
static void tap_range(int64_t t, int64_t s, int64_t pad, int64_t dil,
                      int64_t in, int64_t out, int64_t *lo, int64_t *hi)
{
    int64_t i0 = -pad + t * dil;
    int64_t l = i0 >= 0 ? 0 : (-i0 + s - 1) / s;
    int64_t h = i0 < in ? (in - i0 + s - 1) / s : 0;
    *lo = l < out ? l : out;
    *hi = h < out ? h : out;
    if (*hi < *lo)
        *hi = *lo;
}

/* The per-kernel-column table of q (kb_omp_bwd_xtap), or NULL when out
 * of memory. */
static kb_omp_bwd_xtap *alloc_xtaps(const kb_omp_bwd_geom *q)
{
    kb_omp_bwd_xtap *xt = malloc((size_t)q->kw * sizeof(*xt));
    int64_t sw = q->sw, pl = kb_omp_bwd_phase_len(q);
    for (int64_t kx = 0; xt && kx < q->kw; kx++) {
        kb_omp_bwd_xtap *x = &xt[kx];
        x->i0 = kx * q->dw - q->pw;
        int64_t r = (x->i0 % sw + sw) % sw;   /* the phase it lands in */
        x->m0 = r * pl + (x->i0 - r) / sw;
        tap_range(kx, sw, q->pw, q->dw, q->iw, q->ow, &x->lo, &x->hi);
    }
    return xt;
}

/* Points t's tensors into the f32 copies, one 16-float-aligned slice
 * each. */
static void point_copies(kb_omp_conv_bwd_plan *pl)
{
    kb_arg_info info[KB_ARG_MAX];
    float *at = pl->copies;
    kb_problem_args(&pl->p, info);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (info[a].used) {
            pl->t.ptr[a] = at;
            at += round16(info[a].nelems);
        }
    pl->dt = kb_dts_uniform(KB_F32);
}

int kb_omp_conv_bwd_prepare(const kb_problem *p, const kb_tensors *t,
                            int nthreads, kb_omp_conv_bwd_plan **out)
{
    bwd_sizes s = sizes_of(p, nthreads);
    kb_omp_conv_bwd_plan *pl = calloc(1, sizeof(*pl));
    *out = NULL;
    if (!pl)
        return -1;
    pl->p = *p;
    pl->host = *t;
    pl->t = *t;
    pl->dt = p->dt;
    pl->q = kb_omp_bwd_geom_of(p);
    pl->path = path_of(p);
    pl->nthreads = nthreads;
    pl->row_elems = kb_omp_bwd_row_elems(&pl->q, pl->path);
    if (s.ws && kb_omp_workspace_init_for(&pl->ws, nthreads, &s.need) != 0)
        goto err;
    if ((s.wei && !(pl->wei = alloc_bytes(s.wei))) ||
        (s.wei_nxc && !(pl->wei_nxc = alloc_bytes(s.wei_nxc))) ||
        (s.scratch && !(pl->scratch = alloc_floats(s.scratch))) ||
        (s.rows && !(pl->rows = alloc_floats(s.rows))) ||
        (s.copies && !(pl->copies = alloc_floats(s.copies))))
        goto err;
    if (!(pl->xt = alloc_xtaps(&pl->q)))
        goto err;
    pl->q.xt = pl->xt;
    if (pl->copies)
        point_copies(pl);
    const void *wei = t->ptr[KB_ARG_WEI];
    if (pl->path == KB_OMP_BWD_DATA_TRANSPOSED) {
        pl->fwd = kb_omp_bwd_data_transposed_problem(p);
        kb_omp_bwd_data_transposed_weights(p, wei, pl->wei);
        if (pl->wei_nxc)
            kb_omp_conv_reorder_weights(&pl->fwd, pl->wei, pl->wei_nxc);
    } else if (pl->path == KB_OMP_BWD_DATA_COL2IM && pl->wei) {
        kb_omp_conv_reorder_weights(p, wei, pl->wei);
    } else if (pl->path == KB_OMP_BWD_DATA_DW_NXC) {
        kb_omp_bwd_data_dw_nxc_weights(p, wei, pl->wei);
    }
    *out = pl;
    return 0;
err:
    kb_omp_conv_bwd_free(pl);
    return -1;
}

/* Elements one thread converts at a time. */
enum { CONVERT_CHUNK = 1 << 16 };

/* Between the host tensors and the f32 copies: the inputs widened
 * before the kernel (to_f32), the outputs narrowed after. */
static void convert_copies(const kb_omp_conv_bwd_plan *pl, bool to_f32)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(&pl->p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used || (to_f32 ? !info[a].is_input : !info[a].is_output))
            continue;
        int64_t n = info[a].nelems;
        kb_dtype dt = info[a].dt;
        void *host = pl->host.ptr[a];
        float *f = pl->t.ptr[a];
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
        for (int64_t i = 0; i < n; i += CONVERT_CHUNK) {
            int64_t len = n - i < CONVERT_CHUNK ? n - i : CONVERT_CHUNK;
            if (to_f32)
                kb_omp_widen(dt, host, i, len, f + i);
            else
                kb_omp_narrow(dt, f + i, len, host, i);
        }
    }
}

void kb_omp_conv_bwd(const kb_omp_conv_bwd_plan *pl)
{
    if (pl->copies)
        convert_copies(pl, true);
    switch (pl->path) {
    case KB_OMP_BWD_DATA_TRANSPOSED:
        kb_omp_bwd_data_transposed(pl);
        break;
    case KB_OMP_BWD_DATA_COL2IM:
        kb_omp_bwd_data_col2im(pl);
        break;
    case KB_OMP_BWD_DATA_DW_NCX:
        kb_omp_bwd_data_dw_ncx(pl);
        break;
    case KB_OMP_BWD_DATA_DW_NXC:
        kb_omp_bwd_data_dw_nxc(pl);
        break;
    case KB_OMP_BWD_WEI_GEMM:
        kb_omp_bwd_weights_gemm(pl);
        break;
    case KB_OMP_BWD_WEI_DW_NCX:
        kb_omp_bwd_weights_dw_ncx(pl);
        break;
    case KB_OMP_BWD_WEI_DW_NXC:
        kb_omp_bwd_weights_dw_nxc(pl);
        break;
    }
    if (pl->p.dir == KB_BWD_WB)
        kb_omp_bwd_bias(pl);
    if (pl->copies)
        convert_copies(pl, false);
}

void kb_omp_conv_bwd_free(kb_omp_conv_bwd_plan *pl)
{
    if (!pl)
        return;
    kb_omp_workspace_free(&pl->ws);
    free(pl->wei);
    free(pl->wei_nxc);
    free(pl->scratch);
    free(pl->rows);
    free(pl->copies);
    free(pl->xt);
    free(pl);
}
