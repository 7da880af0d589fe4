/* omp_conv.c - fp32 convolution (2D and 3D, NCX and NXC) for the omp
 * backend, as implicit GEMM on the engine in omp_gemm.c.
 *
 * Per image and group, with CG = C/G, KG = K/G, P = output pixels and
 * TRS = the kernel's taps:
 *   NCX: dst[KG, P]  = W[KG, CG*TRS] x col[CG*TRS, P]
 *   NXC: dst[P, KG]  = col'[P, TRS*CG] x W'[TRS*CG, KG]
 * col is never materialised: the engine's packer for it gathers each
 * KC x NC (or MC x KC) block straight from src, zero where the window
 * hangs over the padding, so a thread needs only its panel buffers.
 * 1x1 stride-1 unpadded convolutions are plain matrices over src (of
 * few output channels, read in place by the direct path).  A
 * depthwise convolution (CG == 1) is a direct loop, since a GEMM with
 * M == 1 cannot use the register tile, when its kernel is within that
 * loop's limits (omp_conv_dw.c and omp_conv_dw_rows.c state them); past
 * them it is the grouped GEMM.  kb_omp_conv_path_of is the one place
 * that decides, for the dispatcher and for the workspace sizing alike.
 * In NCX, f32 layers run direct: the micro-kernel reads a padded,
 * stride-phase copy of the image in place, one offset per tap, with
 * nothing packed (direct_plan_of, below); deep 2D stride-1 layers of
 * other types take the GEMM on a padded copy, whose B is packed by
 * copying runs (shifted_path). */
#include "omp_conv_geom.h"
#include "omp_kernels.h"
#include "omp_ukernel_f32_8x32.h"

#include <omp.h>
#include <string.h>

enum { MR = KB_OMP_MR, NR = KB_OMP_NR };

/* One reduction index of the implicit GEMM: channel and kernel offsets. */
typedef struct {
    int64_t c, kz, ky, kx;
} conv_tap;

/* An output pixel (its flat index j = (oz*oh + oy)*ow + ox). */
typedef struct {
    int64_t ox, oy, oz;
} pixel_pos;

/* The packers run once per panel of a few dozen elements, so their index
 * arithmetic is carried forward by increments: a handful of integer
 * divisions per panel cost more than the multiply-adds it feeds when the
 * GEMM has few rows (cosmoflow's first layer: 32). */
static pixel_pos pixel_of(const kb_omp_conv_geom *q, int64_t j)
{
    return (pixel_pos){j % q->ow, (j / q->ow) % q->oh, j / (q->ow * q->oh)};
}

static void pixel_advance(const kb_omp_conv_geom *q, pixel_pos *p, int64_t n)
{
    p->ox += n;
    while (p->ox >= q->ow) {
        p->ox -= q->ow;
        if (++p->oy == q->oh) {
            p->oy = 0;
            p->oz++;
        }
    }
}

/* Reduction index kk as a tap: NCX order ((c*kd + kz)*kh + ky)*kw + kx,
 * NXC order ((kz*kh + ky)*kw + kx)*cg + c (channel fastest, as NXC
 * stores src). */
static conv_tap tap_of(const kb_omp_conv_geom *q, bool nxc, int64_t kk)
{
    if (nxc) {
        int64_t tap = kk / q->cg;
        return (conv_tap){kk % q->cg, tap / (q->kw * q->kh),
                          (tap / q->kw) % q->kh, tap % q->kw};
    }
    return (conv_tap){kk / (q->kw * q->kh * q->kd),
                      (kk / (q->kw * q->kh)) % q->kd, (kk / q->kw) % q->kh,
                      kk % q->kw};
}

/* taps[0..n) of the NCX reduction indices first.., carried forward. */
static void taps_ncx(const kb_omp_conv_geom *q, int64_t first, int64_t n,
                     conv_tap *taps)
{
    conv_tap t = tap_of(q, false, first);
    for (int64_t k = 0; k < n; k++) {
        taps[k] = t;
        if (++t.kx < q->kw)
            continue;
        t.kx = 0;
        if (++t.ky < q->kh)
            continue;
        t.ky = 0;
        if (++t.kz < q->kd)
            continue;
        t.kz = 0;
        t.c++;
    }
}

/* Reduction rows one packer call decomposes at a time (the engine asks
 * for at most KC). */
enum { TAP_CHUNK = KB_OMP_KC };

/* The packers' bodies are written once and instantiated per src storage
 * type DT by KB_OMP_PER_DTYPE (omp_kernels.h): the f32 copy is the float
 * loop, the others widen as they gather. */

/* dst[0..n) = positions i.. of an output row segment whose valid input
 * positions are [lo, hi) of the row at element offset row of src (row <
 * 0: the whole segment is padding). */
static inline __attribute__((always_inline)) void
copy_run(kb_dtype DT, const kb_omp_conv_geom *q, int64_t row, int64_t ix0,
         int64_t lo, int64_t hi, int64_t i, int64_t n, float *dst)
{
    int64_t a = row >= 0 ? min64(n, max64(0, lo - i)) : n;
    int64_t b = row >= 0 ? max64(a, min64(n, hi - i)) : n;
    for (int64_t j = 0; j < a; j++)
        dst[j] = 0.0f;
    if (q->sw == 1 && q->px_stride == 1 && b > a)
        kb_omp_widen(DT, q->src, row + ix0 + i + a, b - a, dst + a);
    else
        for (int64_t j = a; j < b; j++)
            dst[j] = kb_omp_elem(DT, q->src,
                                 row + (ix0 + (i + j) * q->sw) * q->px_stride);
    for (int64_t j = b; j < n; j++)
        dst[j] = 0.0f;
}

/* A run of one output row's pixels that lands in one B panel: row (oz,
 * oy), columns ox0 .. ox0+n, at element offset dst of tap 0's row in the
 * panels.  The runs depend only on the columns, so the packer works them
 * out once per call, not once per tap (of which a 3x3 layer has thousands
 * a block), PIECE_CHUNK at a time on the stack. */
typedef struct {
    int64_t oz, oy, ox0, n, dst;
} col_piece;
enum { PIECE_CHUNK = 256 };

/* The next pieces of the block's columns [*col, cols) (pixel *p is
 * column *col), at most PIECE_CHUNK; advances *col and *p past them. */
static int pieces_of(const kb_omp_conv_geom *q, int64_t rows, int64_t cols,
                     int64_t *col, pixel_pos *p, col_piece *out)
{
    int n = 0;
    while (*col < cols && n < PIECE_CHUNK) {
        int64_t len = min64(min64(cols - *col, q->ow - p->ox), NR - *col % NR);
        out[n++] = (col_piece){p->oz, p->oy, p->ox, len,
                               *col / NR * rows * NR + *col % NR};
        *col += len;
        pixel_advance(q, p, len);
    }
    return n;
}

/* ceil(a / b), without the division in the common stride-1 case. */
static int64_t div_up(int64_t a, int64_t b) { return b == 1 ? a : ceil_div(a, b); }

/* B packer for NCX: rows are taps (NCX order), columns output pixels;
 * panel j holds rows x NR floats, tap-major.  For each tap it copies the
 * pieces (above), each a stretch of one input row, zero where the window
 * hangs over the padding. */
static inline __attribute__((always_inline)) void
pack_b_ncx_body(kb_dtype DT, const kb_omp_conv_geom *q, int64_t r0, int64_t c0,
                int64_t rows, int64_t cols, float *buf)
{
    conv_tap taps[TAP_CHUNK];
    col_piece pcs[PIECE_CHUNK];
    pixel_pos p = pixel_of(q, c0);
    for (int64_t col = 0; col < cols;) {
        int np = pieces_of(q, rows, cols, &col, &p, pcs);
        for (int64_t k0 = 0; k0 < rows; k0 += TAP_CHUNK) {
            int64_t kn = min64(TAP_CHUNK, rows - k0);
            taps_ncx(q, r0 + k0, kn, taps);
            for (int64_t k = 0; k < kn; k++) {
                const conv_tap *t = &taps[k];
                int64_t chan = t->c * q->c_stride;
                int64_t dz = t->kz * q->dd - q->pd, dy = t->ky * q->dh - q->ph;
                int64_t dx = t->kx * q->dw - q->pw;
                float *bk = buf + (k0 + k) * NR;    /* tap k's row in panel 0 */
                for (int i = 0; i < np; i++) {
                    const col_piece *c = &pcs[i];
                    int64_t iz = c->oz * q->sd + dz, iy = c->oy * q->sh + dy;
                    int64_t ix0 = c->ox0 * q->sw + dx;
                    int64_t row = -1, lo = 0, hi = 0;
                    if (iz >= 0 && iz < q->id && iy >= 0 && iy < q->ih) {
                        row = chan + (iz * q->ih + iy) * q->iw * q->px_stride;
                        /* i is valid when 0 <= ix0 + i*sw < iw */
                        lo = ix0 >= 0 ? 0 : div_up(-ix0, q->sw);
                        hi = ix0 < q->iw ? div_up(q->iw - ix0, q->sw) : 0;
                    }
                    copy_run(DT, q, row, ix0, lo, hi, 0, c->n, bk + c->dst);
                }
            }
        }
    }
    for (int64_t cc = cols; cc % NR; cc++)     /* the last panel's padding */
        for (int64_t k = 0; k < rows; k++)
            buf[cc / NR * rows * NR + k * NR + cc % NR] = 0.0f;
}

static void pack_b_im2col_ncx(const kb_omp_operand *op, int64_t r0,
                              int64_t c0, int64_t rows, int64_t cols,
                              float *buf)
{
    const kb_omp_conv_geom *q = op->ctx;
    KB_OMP_PER_DTYPE(q->dt, pack_b_ncx_body, q, r0, c0, rows, cols, buf);
}

/* A packer for NXC: rows are output pixels, columns taps (NXC order,
 * channel fastest); panel i holds cols x MR floats, column-major.  A
 * pixel's channels for one kernel offset are contiguous in src, so each
 * pixel is gathered run by run along the columns and scattered down its
 * panel column, which stays in L1. */
static inline __attribute__((always_inline)) void
pack_a_nxc_body(kb_dtype DT, const kb_omp_conv_geom *q, int64_t r0, int64_t c0,
                int64_t rows, int64_t cols, float *buf)
{
    conv_tap first = tap_of(q, true, c0);
    pixel_pos p = pixel_of(q, r0);
    int64_t padded = (rows + MR - 1) / MR * MR;
    for (int64_t r = 0; r < padded; r++) {
        float *pa = buf + r / MR * cols * MR + r % MR;
        if (r >= rows) {                       /* rows past the block */
            for (int64_t k = 0; k < cols; k++)
                pa[k * MR] = 0.0f;
            continue;
        }
        conv_tap t = first;
        for (int64_t k = 0; k < cols;) {
            int64_t n = min64(q->cg - t.c, cols - k);
            int64_t iz = p.oz * q->sd - q->pd + t.kz * q->dd;
            int64_t iy = p.oy * q->sh - q->ph + t.ky * q->dh;
            int64_t ix = p.ox * q->sw - q->pw + t.kx * q->dw;
            if (iz >= 0 && iz < q->id && iy >= 0 && iy < q->ih && ix >= 0 &&
                ix < q->iw) {
                int64_t src = ((iz * q->ih + iy) * q->iw + ix) * q->px_stride +
                              t.c;
                for (int64_t j = 0; j < n; j++)
                    pa[(k + j) * MR] = kb_omp_elem(DT, q->src, src + j);
            } else {
                for (int64_t j = 0; j < n; j++)
                    pa[(k + j) * MR] = 0.0f;
            }
            k += n;
            /* next kernel offset, channel 0 */
            t.c = 0;
            if (++t.kx == q->kw) {
                t.kx = 0;
                if (++t.ky == q->kh) {
                    t.ky = 0;
                    t.kz++;
                }
            }
        }
        pixel_advance(q, &p, 1);
    }
}

static void pack_a_im2col_nxc(const kb_omp_operand *op, int64_t r0,
                              int64_t c0, int64_t rows, int64_t cols,
                              float *buf)
{
    const kb_omp_conv_geom *q = op->ctx;
    KB_OMP_PER_DTYPE(q->dt, pack_a_nxc_body, q, r0, c0, rows, cols, buf);
}

int64_t kb_omp_conv_nxc_weight_elems(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    return d->oc * (d->ic / d->g) * d->kd * d->kh * d->kw;
}

/* out[g][tap*CG + c][k] = wei[g*KG + k][c][tap], elements of the weights'
 * storage type moved as they are. */
void kb_omp_conv_reorder_weights(const kb_problem *p, const void *wei,
                                 void *out)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, kg = d->oc / d->g;
    int64_t taps = d->kd * d->kh * d->kw;
    size_t es = kb_dtype_size(p->dt.wei);
    for (int64_t g = 0; g < d->g; g++)
        for (int64_t k = 0; k < kg; k++)
            for (int64_t c = 0; c < cg; c++)
                for (int64_t t = 0; t < taps; t++)
                    memcpy(kb_omp_at(p->dt.wei, out,
                                     (g * taps * cg + t * cg + c) * kg + k),
                           kb_omp_at(p->dt.wei, wei,
                                     ((g * kg + k) * cg + c) * taps + t),
                           es);
}

/* An NCX pointwise convolution on a few pixels (a 1x1 image: DeepCAM's
 * ASPP pooling branch) is a matrix times a few columns: as written,
 * dst[KG, P] would pad P up to the register tile's NR columns and waste
 * all but P of them, 20x slower than oneDNN.  Its transpose,
 * dst'[P, KG] = src'[P, CG] x W'[CG, KG], pads only to MR rows. */
static bool pointwise_transposed(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    int64_t out_px = d->od * d->oh * d->ow;
    return p->layout == KB_LAYOUT_NCX && kb_conv_is_pointwise(d) &&
           out_px < NR && d->oc / d->g > out_px;
}

/* The GEMM of one image and group, by layout (omp_conv.c's header):
 * m x n with K = red, C's strides and the bias's. */
static void conv_gemm_shape(const kb_problem *p, kb_omp_gemm_args *a)
{
    const kb_conv_desc *d = &p->conv;
    int64_t kg = d->oc / d->g, out_px = d->od * d->oh * d->ow;
    bool ncx = p->layout == KB_LAYOUT_NCX;
    a->k = (d->ic / d->g) * d->kd * d->kh * d->kw;
    a->m = ncx ? kg : out_px;
    a->n = ncx ? out_px : kg;
    a->rs_c = ncx ? out_px : d->oc;
    a->cs_c = 1;
    a->bias_rs = ncx ? 1 : 0;
    a->bias_cs = ncx ? 0 : 1;
    if (pointwise_transposed(p)) {
        int64_t m = a->m, rs = a->rs_c, brs = a->bias_rs;
        a->m = a->n, a->n = m;
        a->rs_c = a->cs_c, a->cs_c = rs;
        a->bias_rs = a->bias_cs, a->bias_cs = brs;
    }
}

/* One image n, one group g, as a GEMM on the engine. */
static void conv_gemm(const kb_problem *p, const kb_tensors *t,
                      const void *wei_nxc, int64_t n, int64_t g,
                      const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, kg = d->oc / d->g;
    int64_t in_px = d->id * d->ih * d->iw, out_px = d->od * d->oh * d->ow;
    int64_t red = cg * d->kd * d->kh * d->kw;
    const void *src = t->ptr[KB_ARG_SRC], *wei = t->ptr[KB_ARG_WEI];
    kb_dtype sdt = p->dt.src, wdt = p->dt.wei;
    bool pw = kb_conv_is_pointwise(d);
    kb_omp_gemm_args a = { .alpha = 1.0f, .beta = 0.0f, .c_dt = p->dt.dst };
    kb_omp_conv_geom q;

    conv_gemm_shape(p, &a);
    if (kb_problem_has_bias(p))
        a.bias = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_BIA], g * kg);
    if (p->layout == KB_LAYOUT_NCX) {
        q = kb_omp_conv_geom_of(p, src, (n * d->ic + g * cg) * in_px);
        a.a = (kb_omp_operand){ kb_omp_pack_a_strided,
                                kb_omp_at(wdt, wei, g * kg * red), red, 1,
                                NULL, wdt };
        a.b = pw ? (kb_omp_operand){ kb_omp_pack_b_strided, q.src, in_px, 1,
                                     NULL, sdt }
                 : (kb_omp_operand){ pack_b_im2col_ncx, NULL, 0, 0, &q,
                                     sdt };
        a.c = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_DST],
                        (n * d->oc + g * kg) * out_px);
        if (pointwise_transposed(p)) {   /* src' x W' (above) */
            a.a = (kb_omp_operand){ kb_omp_pack_a_strided, q.src, 1, in_px,
                                    NULL, sdt };
            a.b = (kb_omp_operand){ kb_omp_pack_b_strided,
                                    kb_omp_at(wdt, wei, g * kg * red), 1, red,
                                    NULL, wdt };
        }
    } else {
        q = kb_omp_conv_geom_of(p, src, n * in_px * d->ic + g * cg);
        a.a = pw ? (kb_omp_operand){ kb_omp_pack_a_strided, q.src, d->ic, 1,
                                     NULL, sdt }
                 : (kb_omp_operand){ pack_a_im2col_nxc, NULL, 0, 0, &q,
                                     sdt };
        a.b = (kb_omp_operand){ kb_omp_pack_b_strided,
                                kb_omp_at(wdt, wei_nxc, g * red * kg), kg, 1,
                                NULL, wdt };
        a.c = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_DST],
                        n * out_px * d->oc + g * kg);
    }
    kb_omp_gemm(&a, ws);
}

/* ---- stride 1 on a padded copy (NCX) ----
 * With the image padded once (inside the timed run), every tap of a
 * stride-1 window is in bounds, and tap (c, kz, ky, kx) of output pixel
 * (oy, ox) in plane oz reads padded element c*P + (oz + kz*dd)*H*W +
 * (oy + ky*dh)*W + ox + kx*dw (P, H, W the padded sizes).  Numbering a
 * plane's pixels j = oy*W + ox, with the W - ow columns past each row's
 * end computed and thrown away, B's row for a tap is one contiguous run
 * of the padded plane: its packer copies runs, where the im2col packer
 * gathers and bounds-checks every element.  The GEMM of a plane writes
 * an f32 buffer that the valid columns are copied out of.
 *
 * The padding and that copy are passes over memory, and the thrown-away
 * columns are work, so the path pays where the reduction is deep and the
 * rows long.  Measured against the im2col path (best of 15 repetitions,
 * Emerald Rapids, 2 threads): ResNet-50's res2a/res4b 3x3 +6/+8 %,
 * DeepCAM's D41 +9 %; but DeepCAM's D2 (K = 288) -29 %, D34 (a sixth of
 * the columns thrown away) -15 %, and CosmoFlow's 3D layers, a GEMM per
 * output plane, -13 to -41 %.  So: 2D only, K of SHIFTED_MIN_K or more,
 * at most 1/SHIFTED_WASTE of the columns thrown away. */
enum { SHIFTED_WASTE = 7, SHIFTED_MIN_K = 512 };

/* A channel of the padded image, per stride phase (stride 1: one
 * phase, the whole padded channel).  With stride s, padded element X
 * goes to phase X % s at X / s, so output pixel ox's tap kx (padded
 * element ox*s + kx*dil) is element ox + kx*dil/s of phase kx*dil % s:
 * consecutive output pixels read consecutive elements of a phase, at any
 * stride.  Each dimension is the output's size plus the window's reach
 * in phase elements. */
typedef struct {
    int64_t d, h, w;
} padded_size;

static padded_size padded_size_of(const kb_conv_desc *d)
{
    return (padded_size){ d->od + (d->kd - 1) * (d->dd + 1) / d->sd,
                          d->oh + (d->kh - 1) * (d->dh + 1) / d->sh,
                          d->ow + (d->kw - 1) * (d->dw + 1) / d->sw };
}

/* One phase's elements, and a channel's phases. */
static int64_t padded_plane(padded_size s)
{
    return s.d * s.h * s.w;
}

static int64_t phases_of(const kb_conv_desc *d)
{
    return d->sd * d->sh * d->sw;
}

/* The padded image's geometry, and the plane (oz) and group a GEMM
 * reads. */
typedef struct {
    kb_omp_conv_geom g;             /* the taps (kd, kh, kw, dilations, cg) */
    const void *pad;         /* the group's channel 0 at plane oz, stored as g.dt */
    padded_size size;
} shifted_geom;

static bool shifted_path(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    int64_t extra = d->kw > 1 ? (d->kw - 1) * (d->dw + 1) : 0;
    return p->layout == KB_LAYOUT_NCX && !kb_conv_is_pointwise(d) &&
           d->kd == 1 && d->od == 1 && d->sh == 1 && d->sw == 1 &&
           p->dt.dst == KB_F32 && extra * SHIFTED_WASTE <= d->ow &&
           d->ic / d->g * d->kh * d->kw >= SHIFTED_MIN_K;
}

/* Columns of a plane's GEMM: every padded row but the last in full. */
static int64_t shifted_cols(const kb_conv_desc *d)
{
    return (d->oh - 1) * padded_size_of(d).w + d->ow;
}

/* The scratch: the padded image, then one plane's GEMM output. */
static size_t padded_image_bytes(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    return (size_t)(d->ic * phases_of(d) * padded_plane(padded_size_of(d))) *
           kb_dtype_size(p->dt.src);
}

static size_t shifted_scratch_bytes(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    return padded_image_bytes(p) +
           (size_t)(d->oc / d->g * shifted_cols(d)) * sizeof(float);
}

static inline __attribute__((always_inline)) void
pack_b_shifted_body(kb_dtype DT, const shifted_geom *q, int64_t r0,
                    int64_t c0, int64_t rows, int64_t cols, float *buf)
{
    const kb_omp_conv_geom *g = &q->g;
    conv_tap taps[TAP_CHUNK];
    int64_t plane = padded_plane(q->size);
    for (int64_t k0 = 0; k0 < rows; k0 += TAP_CHUNK) {
        int64_t kn = min64(TAP_CHUNK, rows - k0);
        taps_ncx(g, r0 + k0, kn, taps);
        for (int64_t k = 0; k < kn; k++) {
            const conv_tap *t = &taps[k];
            int64_t off = t->c * plane +
                          (t->kz * g->dd * q->size.h + t->ky * g->dh) * q->size.w +
                          t->kx * g->dw + c0;
            float *bk = buf + (k0 + k) * NR;
            for (int64_t j = 0; j < cols; j += NR) {
                int64_t n = min64(NR, cols - j);
                float *dst = bk + j / NR * rows * NR;
                kb_omp_widen(DT, q->pad, off + j, n, dst);
                for (int64_t z = n; z < NR; z++)
                    dst[z] = 0.0f;
            }
        }
    }
}

static void pack_b_shifted(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf)
{
    const shifted_geom *q = op->ctx;
    KB_OMP_PER_DTYPE(q->g.dt, pack_b_shifted_body, q, r0, c0, rows, cols, buf);
}

/* Input positions [lo, hi) of a dimension that land inside the padded
 * one (n long) at offset pad; a negative pad (a transposed convolution's)
 * drops the first -pad. */
static void inside(int64_t in, int64_t pad, int64_t n, int64_t *lo, int64_t *hi)
{
    *lo = pad < 0 ? -pad : 0;
    *hi = max64(*lo, min64(in, n - pad));
}

/* The units pad_image copies per group: its channels, or, as bf16
 * pairs, half of them rounded up (channels 2c and 2c+1 in one 32-bit
 * word, so that vdpbf16ps multiplies them with the weights' pair). */
static int64_t copy_units(const kb_problem *p, bool pairs)
{
    int64_t cg = p->conv.ic / p->conv.g;
    return pairs ? (cg + 1) / 2 : cg;
}

/* Phase columns [l, h) of one input row of unit u (in its image) to
 * its phase row out: input columns l*sw + shift on, sw apart, of
 * channel u's row, or of the pair of rows of channels 2c and 2c+1 of
 * u's group (zero for a missing 2c+1). */
static inline __attribute__((always_inline)) void
copy_span(const kb_problem *p, bool pairs, const char *in, int64_t u,
          char *out, int64_t l, int64_t h, int64_t shift)
{
    const kb_conv_desc *d = &p->conv;
    int64_t at = l * d->sw + shift;
    if (!pairs && d->sw == 1) {
        size_t es = kb_dtype_size(p->dt.src);
        memcpy(out + (size_t)l * es, in + (size_t)at * es,
               (size_t)(h - l) * es);
    } else if (pairs) {
        int64_t cg = d->ic / d->g, c = 2 * (u % copy_units(p, true));
        const uint16_t *lo = (const uint16_t *)in + at;
        kb_omp_bf16_pair_row((uint32_t *)out + l, lo,
                             c + 1 < cg ? lo + d->id * d->ih * d->iw : NULL,
                             h - l, d->sw);
    } else {
        kb_omp_strided_row((float *)out + l, (const float *)in + at, h - l,
                           d->sw, sizeof(float));
    }
}

/* Image n of src into pad (zeros around it), split into its stride
 * phases (padded_size above), units (copy_units) split among the
 * threads: the phase rows [row0, row0 + ps.h) of each phase plane, ps
 * the window's size (the whole image: row0 0, ps padded_size_of's).  A
 * stride along the row only comes with f32 or pairs (the shifted path
 * is stride 1, the direct path f32 or bf16 pairs).  A phase's columns
 * are worked out once, not per row, and a row's phase and place step
 * along with it. */
static void pad_image(const kb_problem *p, bool pairs, const void *src,
                      int64_t n, void *pad, padded_size ps, int64_t row0,
                      int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    int64_t plane = padded_plane(ps), phases = phases_of(d);
    int64_t ph = d->ph - row0 * d->sh;   /* the window's own padding */
    int64_t cg = d->ic / d->g, cu = copy_units(p, pairs);
    int64_t z0, z1, y0, y1, x0, x1;
    inside(d->id, d->pd, ps.d * d->sd, &z0, &z1);
    inside(d->ih, ph, ps.h * d->sh, &y0, &y1);
    inside(d->iw, d->pw, ps.w * d->sw, &x0, &x1);
    size_t es = pairs ? sizeof(uint32_t) : kb_dtype_size(p->dt.src);
    /* Unstrided and unpadded along the row, a plane's rows follow each
     * other in src and in the copy: one run (a row at a time, its index
     * arithmetic was most of the bf16 copy of ResNet-50's 1x1 layers). */
    int64_t run = d->sh == 1 && d->sw == 1 && ps.w == d->iw ? y1 - y0 : 1;
    size_t in_row = (size_t)d->iw * kb_dtype_size(p->dt.src);
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t u = 0; u < d->g * cu; u++) {
        int64_t c = u / cu * cg + (pairs ? 2 : 1) * (u % cu);
        char *pc = (char *)pad + (size_t)(u * phases * plane) * es;
        memset(pc, 0, (size_t)(phases * plane) * es);
        for (int64_t fx = 0; fx < d->sw; fx++) {
            /* padded X = Xp*sw + fx: input x = X - pw in [x0, x1) */
            int64_t l = ceil_div(max64(x0 + d->pw - fx, 0), d->sw);
            int64_t h = ceil_div(max64(x0 + run * (x1 - x0) + d->pw - fx, 0),
                                 d->sw);
            for (int64_t z = z0; z < z1; z++) {
                int64_t Z = z + d->pd, Y = y0 + ph;
                int64_t fy = Y % d->sh, yq = Y / d->sh;
                /* the first row's phase plane, and its place in it */
                int64_t first = ((Z % d->sd * d->sh) * d->sw + fx) * ps.d +
                                Z / d->sd;
                const char *in = kb_omp_at(
                    p->dt.src, src,
                    (((n * d->ic + c) * d->id + z) * d->ih + y0) * d->iw);
                for (int64_t y = y0; y < y1; y += run) {
                    /* row y is phase fy's row yq (run > 1: one pass) */
                    int64_t row = (first + fy * d->sw * ps.d) * ps.h + yq;
                    copy_span(p, pairs, in, u,
                              pc + (size_t)(row * ps.w) * es, l, h,
                              fx - d->pw);
                    in += in_row;
                    if (++fy == d->sh) {
                        fy = 0;
                        yq++;
                    }
                }
            }
        }
    }
}

/* Image n, group g, plane oz: the GEMM into buf, then its valid columns
 * to dst. */
static void shifted_plane(const kb_problem *p, const kb_tensors *t,
                          const void *pad, float *buf, int64_t n, int64_t g,
                          int64_t oz, const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, kg = d->oc / d->g;
    int64_t red = cg * d->kd * d->kh * d->kw, cols = shifted_cols(d);
    int64_t out_px = d->od * d->oh * d->ow;
    shifted_geom q = { .g = kb_omp_conv_geom_of(p, t->ptr[KB_ARG_SRC], 0),
                       .size = padded_size_of(d) };
    q.pad = kb_omp_at(p->dt.src, pad,
                      (g * cg * q.size.d + oz) * q.size.h * q.size.w);
    kb_omp_gemm_args a = {
        .m = kg, .n = cols, .k = red, .alpha = 1.0f, .c_dt = KB_F32,
        .a = { kb_omp_pack_a_strided,
               kb_omp_at(p->dt.wei, t->ptr[KB_ARG_WEI], g * kg * red), red, 1,
               NULL, p->dt.wei },
        .b = { pack_b_shifted, NULL, 0, 0, &q, p->dt.src },
        .c = buf, .rs_c = cols, .cs_c = 1, .bias_rs = 1,
    };
    if (kb_problem_has_bias(p))
        a.bias = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_BIA], g * kg);
    kb_omp_gemm(&a, ws);
    float *dst = (float *)t->ptr[KB_ARG_DST] + (n * d->oc + g * kg) * out_px +
                 oz * d->oh * d->ow;
#pragma omp parallel for schedule(static) num_threads(ws->nthreads)
    for (int64_t k = 0; k < kg; k++)
        for (int64_t oy = 0; oy < d->oh; oy++)
            memcpy(dst + k * out_px + oy * d->ow, buf + k * cols + oy * q.size.w,
                   (size_t)d->ow * sizeof(float));
}

static void shifted_conv(const kb_problem *p, const kb_tensors *t,
                         const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    void *pad = ws->scratch;
    float *buf = (float *)((char *)ws->scratch + padded_image_bytes(p));
    for (int64_t n = 0; n < d->mb; n++) {
        pad_image(p, false, t->ptr[KB_ARG_SRC], n, pad, padded_size_of(d), 0,
                  ws->nthreads);
        for (int64_t g = 0; g < d->g; g++)
            for (int64_t oz = 0; oz < d->od; oz++)
                shifted_plane(p, t, pad, buf, n, g, oz, ws);
    }
}

/* ---- direct, on a padded phase-split copy (NCX, f32 or bf16) ----
 * The copy of pad_image makes every tap (c, kz, ky, kx) of output pixel
 * (oz, oy, ox) element (oz*H + oy)*W + ox of a phase plane, plus the
 * tap's offset: kb_omp_conv_direct (omp_conv_direct.c) runs the
 * micro-kernel over it in place, one offset per reduction index, with no
 * panel packed.  Any stride and dilation; taken where the padded rows'
 * dropped columns add at most 1/DIRECT_WASTE to the column tiles the
 * im2col path computes (wide dilations add more), with whole MR-row
 * blocks of weights, and either f32 throughout with the f32 micro-kernel
 * it inlines being the start-up choice (x86; Arm's SVE and NEON kernels
 * take the GEMM path), or bf16 src and weights with the start-up choice
 * for bf16 having a direct kernel (AVX512-BF16's; AMX takes the GEMM):
 * then the image is copied as pairs of channels and the weights are
 * rewritten as pairs, in the timed run (direct_pairs).  f32 1x1 layers
 * stay with the GEMM, but for those of few output channels, which run
 * direct on src in place (in_place_path): unstrided they are plain
 * matrices, which its blocking suits better (DeepCAM's 728-channel pw2
 * ran at half the speed direct), and strided their copy would be all
 * phases for one read (D3 a quarter slower).  bf16 1x1 layers run direct
 * all the same: the GEMM rewrites the weights as pairs for every image,
 * the direct path once a run (ResNet-50's at mb 32, idle Zen 5: 1.07 to
 * 2.1x), except where the GEMM takes a batch of images at a time
 * (batch_of, below), rewriting them once a batch (ResNet-50's res5 at
 * mb 32 in bf16: res5b_branch2a 1.37x, res5a_branch1 1.11x,
 * res5a_branch2c 0.95x).  Shallow layers on big
 * images, with fewer than DIRECT_MIN_REUSE multiply-adds per element
 * copied, do not copy the whole image: out in memory and back, the copy
 * costs more than the packing it saves (DeepCAM's D1, 72 per element,
 * ran a fifth slower; the layers that gained have 500 or more). */
enum { DIRECT_WASTE = 7, DIRECT_MIN_REUSE = 256,
       DIRECT_REREAD_BYTES = 256 * 1024 };   /* a quarter of a 1 MB L2 */

/* Shallow 2D layers, below DIRECT_MIN_REUSE, run direct in bands of
 * output rows instead: each thread copies the phase rows its band reads
 * into its own buffer, DIRECT_BAND_BYTES at most so that it stays in L2,
 * and runs the tile loop on it, so the copy never goes out to memory and
 * back.  The buffer is the thread's B block of the GEMM workspace, which
 * the direct path does not otherwise use. */
enum { DIRECT_BAND_BYTES = 512 * 1024 };

/* Layers whose padded rows would drop too many columns (small planes of
 * 3D layers: CosmoFlow's conv3d_4 and conv3d_5, 16^3 and 8^3, a quarter
 * and a half of the tiles thrown away) run direct on a copy of the rows
 * each (ky, kx) tap reads, laid out as the output is (an im2col over a
 * plane's taps; the planes' taps stay offsets into it), so that every
 * column is an output pixel.  The depth stride is 1 (a plane's taps move
 * a whole output plane).  At height stride 1, where no tile spans two
 * output planes (a plane a multiple of NR pixels), the copy's planes
 * also hold the rows the ky taps reach past the output's, and a ky tap
 * is an offset of ky rows into them (the tiles skip the extra rows,
 * plane_gap): the copy is kw times the image, not kh*kw, which was a
 * tenth of conv3d_4's time at mb 4.  Hence the same DIRECT_MIN_REUSE
 * bound on multiply-adds per word copied. */
typedef enum {
    DIRECT_NONE,
    DIRECT_WHOLE,       /* the whole padded image, copied per image */
    DIRECT_BANDS,       /* bands of output rows, each copied per thread */
    DIRECT_ROW_TAPS,    /* the rows each (ky, kx) tap reads, per image */
    DIRECT_IN_PLACE     /* f32 1x1: src itself, nothing copied (below) */
} direct_kind;

/* How p runs direct, worked out once per call: the copy's planes of
 * size (a band's, for BANDS), unit_planes of them per channel or pair
 * (the stride phases, or for ROW_TAPS the kh*kw taps), red words of
 * reduction per output channel. */
typedef struct {
    direct_kind kind;
    bool pairs;
    padded_size size;
    int64_t unit_planes, band, red;
} direct_plan;

/* Whether p's operands suit the direct path, and as bf16 pairs. */
static bool direct_pairs(const kb_problem *p)
{
    return p->dt.src == KB_BF16 && p->dt.wei == KB_BF16 &&
           (p->dt.dst == KB_BF16 || p->dt.dst == KB_F32) &&
           kb_omp_ukernel_for(KB_BF16, KB_BF16)->direct;
}

/* ... or as f32, the f32 kernel being the one the tile loop inlines. */
static bool direct_f32(const kb_problem *p)
{
    return kb_dts_all(&p->dt, KB_F32) &&
           kb_omp_ukernel_for(KB_F32, KB_F32)->kernel ==
               kb_omp_ukernel_f32_8x32;
}

static bool direct_types(const kb_problem *p)
{
    return direct_pairs(p) || direct_f32(p);
}

/* ---- 1x1 in place ----
 * An f32 1x1 stride-1 unpadded layer needs no copy to run direct: every
 * tap is in bounds and a run of pixels is a run of src, so the tile loop
 * reads channel c's row at src + c*P in place (P the pixels), with
 * nothing packed or copied but the last partial column tile, whose
 * columns past P would be read past src's end: it runs on a copy of its
 * rows, NR wide (the tail).  B then streams from memory once, as K
 * scattered rows that the hardware prefetcher does not follow, so the
 * tile loop prefetches the tiles ahead (IN_PLACE_AHEAD words) and runs
 * columns first, each tile's rows read from L1 by every row block.
 * Against the GEMM, which packs B, the path pays where few output
 * channels share each packed word, IN_PLACE_MAX_M or fewer (idle Zen 5,
 * alternating, 3 or 4 rounds): DeepCAM's D39 (48 channels; packing was
 * a third of its time) 1.31x at mb 1 and 1.24x at mb 4, ResNet-50's res2
 * 1x1 layers of 64 channels 1.04 to 1.10x at mb 1 and 1.32 to 1.49x at
 * mb 32.  At 128 and 256 channels, mb 1: 0.91 to 1.21x, no rule seen;
 * at 728 and more 0.34 to 0.94x, the GEMM's blocking reusing each packed
 * word over them all.  Images of fewer than BATCH_MAX_PX pixels batch
 * instead (batch_of), where mb allows. */
enum { IN_PLACE_AHEAD = 2 * NR, IN_PLACE_MAX_M = 64 };

static int64_t batch_of(const kb_problem *p);

static bool in_place_path(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    return p->layout == KB_LAYOUT_NCX && kb_conv_is_pointwise(d) &&
           direct_f32(p) && (d->oc / d->g) % MR == 0 &&
           d->oc / d->g <= IN_PLACE_MAX_M &&
           d->od * d->oh * d->ow >= NR && batch_of(p) == 1;
}

/* The copy's 32-bit words (f32 values or pairs), every group. */
static int64_t direct_copy_words(const kb_problem *p, const direct_plan *pl)
{
    return p->conv.g * copy_units(p, pl->pairs) * pl->unit_planes *
           padded_plane(pl->size);
}

/* A band's window of each phase plane: its output rows plus the taps'
 * reach in phase rows. */
static padded_size direct_band_size(const kb_conv_desc *d, int64_t out_rows)
{
    padded_size ps = padded_size_of(d);
    ps.h = out_rows + (d->kh - 1) * (d->dh + 1) / d->sh;
    return ps;
}

/* Output rows per band: as many as DIRECT_BAND_BYTES holds; 0 when not
 * even one does. */
static int64_t direct_band_rows(const kb_problem *p, direct_plan pl)
{
    const kb_conv_desc *d = &p->conv;
    pl.size = direct_band_size(d, 1);
    int64_t row_bytes = direct_copy_words(p, &pl) / pl.size.h * 4;
    int64_t rows = DIRECT_BAND_BYTES / row_bytes - (pl.size.h - 1);
    return max64(min64(rows, d->oh), 0);
}

static direct_plan direct_plan_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    direct_plan pl = { .kind = DIRECT_NONE, .pairs = direct_pairs(p),
                       .size = padded_size_of(d),
                       .unit_planes = phases_of(d) };
    pl.red = copy_units(p, pl.pairs) * d->kd * d->kh * d->kw;
    int64_t out_px = d->od * d->oh * d->ow;
    kb_omp_direct_args shape = { .od = d->od, .oh = d->oh, .ow = d->ow,
                                 .rows = pl.size.h, .row_w = pl.size.w };
    int64_t cols = kb_omp_direct_cols(&shape);
    int64_t macs = d->oc * (d->ic / d->g) * d->kd * d->kh * d->kw * out_px;
    if (in_place_path(p)) {
        /* size and unit_planes stay those of a copy, which for a 1x1
         * stride-1 unpadded layer is src's own layout: direct_offsets
         * gives k*P from them, channel k's row in place */
        pl.kind = DIRECT_IN_PLACE;
        return pl;
    }
    if (!(p->layout == KB_LAYOUT_NCX && direct_types(p) &&
          (d->kd * d->kh * d->kw > 1 || (pl.pairs && batch_of(p) == 1)) &&
          (d->oc / d->g) % MR == 0 && out_px >= NR))
        return pl;
    /* per channel copied, pairs or not: the copy's cost is its bytes */
    bool reused = macs >= DIRECT_MIN_REUSE * d->ic * pl.unit_planes *
                              padded_plane(pl.size);
    if (ceil_div(cols, NR) * DIRECT_WASTE <=
        ceil_div(out_px, NR) * (DIRECT_WASTE + 1)) {
        if (reused) {
            pl.kind = DIRECT_WHOLE;
        } else if (d->kd == 1 && d->od == 1) {
            pl.band = direct_band_rows(p, pl);
            pl.kind = pl.band > 0 ? DIRECT_BANDS : DIRECT_NONE;
            pl.size = direct_band_size(d, pl.band);
        }
        return pl;
    }
    pl.size = (padded_size){ d->od + (d->kd - 1) * (d->dd + 1), d->oh, d->ow };
    pl.unit_planes = d->kh * d->kw;
    if (d->sh == 1 && (d->od == 1 || d->oh * d->ow % NR == 0)) {
        pl.size.h += (d->kh - 1) * (d->dh + 1);
        pl.unit_planes = d->kw;
    }
    if (d->sd == 1 && d->kd > 1 &&
        macs >= DIRECT_MIN_REUSE * d->ic * pl.unit_planes *
                    padded_plane(pl.size))
        pl.kind = DIRECT_ROW_TAPS;
    return pl;
}

/* The scratch, in this order: the offsets of the reduction indices (in
 * place, then the tail's); for pairs, the weights as pairs; for pairs
 * into a 16-bit dst, whole, one group's f32 partial sums
 * (kb_omp_direct_args's part); per image (not in bands), the copy and
 * NR words a last tile may read past it, or in place the tail. */
typedef struct {
    size_t off, tail_off, wei, part, image, total;
} direct_scratch;

static direct_scratch direct_scratch_of(const kb_problem *p,
                                        const direct_plan *pl)
{
    const kb_conv_desc *d = &p->conv;
    bool whole = pl->kind != DIRECT_BANDS;
    bool in_place = pl->kind == DIRECT_IN_PLACE;
    direct_scratch s = { .off = 0 };
    s.tail_off = s.off + (size_t)pl->red * sizeof(int64_t);
    s.wei = s.tail_off + (in_place ? (size_t)pl->red * sizeof(int64_t) : 0);
    s.part = s.wei + (pl->pairs ? (size_t)(d->oc * pl->red) * 4 : 0);
    s.image = s.part + (pl->pairs && whole && p->dt.dst != KB_F32
                            ? (size_t)(d->oc / d->g * d->od * d->oh * d->ow) *
                                  sizeof(float)
                            : 0);
    s.total = s.image +
              (in_place ? (size_t)(d->ic * NR) * sizeof(float)
               : whole  ? (size_t)direct_copy_words(p, pl) * 4 + NR * 4
                        : 0);
    return s;
}

/* A ROW_TAPS copy's ky units per channel: kh, or 1 where the ky taps
 * share each kx's rows (direct_plan_of). */
static int64_t row_taps_ky_units(const kb_conv_desc *d, const direct_plan *pl)
{
    return pl->unit_planes / d->kw;
}

/* off[k]: where reduction index k = ((u*kd + kz)*kh + ky)*kw + kx (as W
 * stores it, u the channel, or the pair's unit) reads in the copy.  Unit
 * u's taps read where unit 0's do, u units of the copy on: the divisions
 * are the first unit's alone (one for each of 2304 indices, and the
 * other thread waiting, were 7 % of ResNet-50's res4a_branch2b at mb 1). */
static void direct_offsets(const kb_problem *p, const direct_plan *pl,
                           int64_t *off)
{
    const kb_conv_desc *d = &p->conv;
    padded_size ps = pl->size;
    int64_t plane = padded_plane(ps);
    int64_t dz = d->dd + 1, dy = d->dh + 1, dx = d->dw + 1;
    int64_t taps = d->kd * d->kh * d->kw;
    for (int64_t k = 0; k < taps; k++) {
        int64_t kx = k % d->kw, ky = k / d->kw % d->kh;
        int64_t kz = k / (d->kw * d->kh);
        if (pl->kind == DIRECT_ROW_TAPS) {
            /* ky a unit of its own (kh of them), or rows into one */
            bool shared = row_taps_ky_units(d, pl) == 1;
            int64_t unit = (shared ? 0 : ky) * d->kw + kx;
            int64_t row = kz * dz * ps.h + (shared ? ky * dy : 0);
            off[k] = unit * plane + row * ps.w;
            continue;
        }
        int64_t phase = (kz * dz % d->sd * d->sh + ky * dy % d->sh) * d->sw +
                        kx * dx % d->sw;
        off[k] = phase * plane +
                 (kz * dz / d->sd * ps.h + ky * dy / d->sh) * ps.w +
                 kx * dx / d->sw;
    }
    for (int64_t k = taps; k < pl->red; k++)
        off[k] = off[k - taps] + pl->unit_planes * plane;
}

/* Image n of src into out as DIRECT_ROW_TAPS reads it: per unit u, tap
 * (ky, kx) (ky 0 alone where the ky taps share rows), padded plane Z and
 * row r of the plan's, the input row that tap reads for output row r
 * (zero outside the image), units split among the threads. */
static void row_taps_image(const kb_problem *p, const direct_plan *pl,
                           const void *src, int64_t n, uint32_t *out,
                           int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, cu = copy_units(p, pl->pairs);
    int64_t ow = d->ow;
    int64_t in_plane = d->id * d->ih * d->iw;
    int64_t ky_units = row_taps_ky_units(d, pl);
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t u = 0; u < d->g * cu; u++) {
        int64_t c = u / cu * cg + (pl->pairs ? 2 : 1) * (u % cu);
        bool hi = pl->pairs && 2 * (u % cu) + 1 < cg;
        uint32_t *o = out + u * pl->unit_planes * padded_plane(pl->size);
        for (int64_t ky = 0; ky < ky_units; ky++)
            for (int64_t kx = 0; kx < d->kw; kx++) {
                /* output columns [lo, end) read inside the row */
                int64_t shift = kx * (d->dw + 1) - d->pw;
                int64_t lo = min64(ceil_div(max64(-shift, 0), d->sw), ow);
                int64_t end = max64(
                    lo, min64(ceil_div(max64(d->iw - shift, 0), d->sw), ow));
                for (int64_t Z = 0; Z < pl->size.d; Z++)
                    for (int64_t r = 0; r < pl->size.h; r++, o += ow) {
                        int64_t z = Z - d->pd;
                        int64_t y = r * d->sh + ky * (d->dh + 1) - d->ph;
                        if (z < 0 || z >= d->id || y < 0 || y >= d->ih) {
                            memset(o, 0, (size_t)ow * 4);
                            continue;
                        }
                        memset(o, 0, (size_t)lo * 4);
                        memset(o + end, 0, (size_t)(ow - end) * 4);
                        int64_t at = ((n * d->ic + c) * d->id + z) * d->ih *
                                         d->iw + y * d->iw;
                        at += shift + lo * d->sw;   /* column lo's */
                        if (pl->pairs) {
                            const uint16_t *row = (const uint16_t *)src + at;
                            kb_omp_bf16_pair_row(o + lo, row,
                                                 hi ? row + in_plane : NULL,
                                                 end - lo, d->sw);
                        } else {
                            kb_omp_strided_row(o + lo,
                                               (const float *)src + at,
                                               end - lo, d->sw, sizeof(float));
                        }
                    }
            }
    }
}

/* The weights as pairs, each row's channels 2c and 2c+1 of a tap in one
 * word (the unit's of pad_image), rows split among the threads. */
static void direct_pair_weights(const kb_problem *p, const uint16_t *wei,
                                uint32_t *out, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, cu = copy_units(p, true);
    int64_t taps = d->kd * d->kh * d->kw;
#pragma omp parallel for schedule(static) num_threads(nthreads)
    for (int64_t r = 0; r < d->oc; r++)
        for (int64_t u = 0; u < cu; u++) {
            const uint16_t *lo = wei + (r * cg + 2 * u) * taps;
            kb_omp_bf16_pair_row(out + (r * cu + u) * taps, lo,
                                 2 * u + 1 < cg ? lo + taps : NULL, taps, 1);
        }
}

/* What one direct call computes, for every group: output pixels from
 * dst_at (in an output plane) on, od planes of oh rows of ow pixels,
 * read in padded rows of row_w, rows a plane (and plane_gap words past
 * them), from img (group g's at g * group_words) at the offsets off
 * (kb_omp_direct_args). */
typedef struct {
    const uint32_t *img;
    const int64_t *off;
    int64_t group_words, dst_at;
    int64_t od, oh, ow, rows, row_w, plane_gap;
    int64_t b_ahead;
} direct_window;

/* Output rows [y0, y0 + rows) of every plane (all of them: od planes, y0
 * 0) from the copy img, as plan pl lays it out: a ROW_TAPS copy's rows
 * are the output's, and those its planes hold past them the gap. */
static direct_window copy_window(const kb_problem *p, const direct_plan *pl,
                                 const uint32_t *img, const int64_t *off,
                                 int64_t y0, int64_t rows)
{
    const kb_conv_desc *d = &p->conv;
    bool taps = pl->kind == DIRECT_ROW_TAPS;
    return (direct_window){ .img = img, .off = off,
                            .group_words = direct_copy_words(p, pl) / d->g,
                            .dst_at = y0 * d->ow,
                            .od = d->od, .oh = rows, .ow = d->ow,
                            .rows = taps ? d->oh : pl->size.h,
                            .row_w = pl->size.w,
                            .plane_gap = taps ? (pl->size.h - d->oh) *
                                                    pl->size.w
                                              : 0 };
}

/* Every group of image n over window w, output channels of share
 * `share` of `shares` (in whole row blocks); wei the weights as the
 * kernel reads them, part as in kb_omp_direct_args. */
static void direct_groups(const kb_problem *p, const direct_plan *pl,
                          const kb_tensors *t, const direct_window *w,
                          const void *wei, float *part, int64_t n,
                          int nthreads, int share, int shares)
{
    const kb_conv_desc *d = &p->conv;
    int64_t kg = d->oc / d->g, blocks = kg / MR;
    int64_t out_px = d->od * d->oh * d->ow;
    int64_t m0 = blocks * share / shares * MR;
    int64_t m1 = blocks * (share + 1) / shares * MR;
    for (int64_t g = 0; g < d->g && m1 > m0; g++) {
        kb_omp_direct_args a = {
            .img = w->img + g * w->group_words,
            .img_elems = w->group_words,
            .off = w->off,
            .wei = (const uint32_t *)wei + (g * kg + m0) * pl->red,
            .kernel = pl->pairs
                          ? kb_omp_ukernel_for(KB_BF16, KB_BF16)->direct
                          : NULL,
            .m = m1 - m0, .k = pl->red,
            .dst_dt = p->dt.dst,
            .bias = kb_problem_has_bias(p)
                        ? kb_omp_at(p->dt.dst, t->ptr[KB_ARG_BIA],
                                    g * kg + m0)
                        : NULL,
            .dst = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_DST],
                             (n * d->oc + g * kg + m0) * out_px + w->dst_at),
            .part = part,
            .dst_cs = out_px,
            .od = w->od, .oh = w->oh, .ow = w->ow,
            .rows = w->rows, .row_w = w->row_w, .plane_gap = w->plane_gap,
            .reread_bytes = DIRECT_REREAD_BYTES,
            .b_ahead = w->b_ahead,
        };
        kb_omp_conv_direct(&a, nthreads);
    }
}

/* Image n of an in-place plan: its whole column tiles on src, a run of
 * P columns (od, oh and ow as one row), then a last partial tile on the
 * tail: each channel's last columns, copied NR wide, zero past P. */
static void in_place_image(const kb_problem *p, const direct_plan *pl,
                           const kb_tensors *t, const int64_t *off,
                           const int64_t *tail_off, uint32_t *tail,
                           const void *wei, int64_t n, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    int64_t px = d->od * d->oh * d->ow, whole = px / NR * NR;
    int64_t cg = d->ic / d->g;
    const uint32_t *src = (const uint32_t *)t->ptr[KB_ARG_SRC] +
                          n * d->ic * px;
    direct_window w = { .img = src, .off = off, .group_words = cg * px,
                        .od = 1, .oh = 1, .ow = whole, .rows = 1,
                        .row_w = whole, .b_ahead = IN_PLACE_AHEAD };
    direct_groups(p, pl, t, &w, wei, NULL, n, nthreads, 0, 1);
    if (whole == px)
        return;
    for (int64_t c = 0; c < d->ic; c++) {
        memcpy(tail + c * NR, src + c * px + whole,
               (size_t)(px - whole) * sizeof(float));
        memset(tail + c * NR + px - whole, 0,
               (size_t)(NR - (px - whole)) * sizeof(float));
    }
    w = (direct_window){ .img = tail, .off = tail_off,
                         .group_words = cg * NR, .dst_at = whole,
                         .od = 1, .oh = 1, .ow = px - whole, .rows = 1,
                         .row_w = px - whole };
    direct_groups(p, pl, t, &w, wei, NULL, n, nthreads, 0, 1);
}

/* Image n of src into pad, as a whole-image plan reads it. */
static void direct_image(const kb_problem *p, const direct_plan *pl,
                         const void *src, int64_t n, uint32_t *pad,
                         int nthreads)
{
    if (pl->kind == DIRECT_ROW_TAPS)
        row_taps_image(p, pl, src, n, pad, nthreads);
    else
        pad_image(p, pl->pairs, src, n, pad, pl->size, 0, nthreads);
}

/* Whether a thread can run a whole-image plan's image on a copy of its
 * own, in its B block of the GEMM workspace (as the bands are): the
 * copy fits the block, and the reduction is not cut into slices
 * (kb_omp_conv_direct) whose partial sums a 16-bit dst cannot hold (the
 * part buffer is one, shared). */
static bool own_copy_fits(const kb_problem *p, const direct_plan *pl)
{
    const kb_conv_desc *d = &p->conv;
    int64_t words = direct_copy_words(p, pl);
    return pl->kind != DIRECT_BANDS &&
           (words + NR) * (int64_t)sizeof(float) <=
               KB_OMP_KC * KB_OMP_NC * (int64_t)sizeof(float) &&
           (p->dt.dst == KB_F32 ||
            kb_omp_direct_slices(d->oc / d->g, pl->red, words / d->g,
                                 DIRECT_REREAD_BYTES) == 1);
}

/* Whether a whole-image plan runs an image per thread at a time, each
 * thread alone on its images, rather than every thread on each image in
 * turn: that took a fork and a barrier for the copy and another for the
 * tiles, per image, and libgomp's waits were a tenth of ResNet-50's
 * res2a_branch1 at mb 32.  Idle Zen 5, mb 32, alternating: f32 1.01 to
 * 1.12x, bf16 1.03 to 1.11x.  Taken where the images split evenly among
 * the threads (or at least 8 a thread: at most an eighth left waiting)
 * and the copy is the thread's own. */
static bool images_per_thread(const kb_problem *p, const direct_plan *pl,
                              int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    return nthreads > 1 && d->mb >= nthreads &&
           (d->mb % nthreads == 0 || d->mb >= 8 * nthreads) &&
           own_copy_fits(p, pl);
}

/* Otherwise (fewer images than threads: mb 1), where the copy can be a
 * thread's own, each thread copies the whole image itself and runs its
 * share of the output channels, rather than every thread reading one
 * copy that each wrote a part of.  What one core wrote, the other reads
 * from its cache, and on the Zen 5 VM the host moves the two vCPUs apart
 * at times (a cache line's round trip 85 ns, then 370): sharing the
 * copy, ResNet-50's 3x3 layers at mb 1 then ran a fifth slower
 * (OpenBLAS's GEMM too, with its shared packed panels; oneDNN, whose
 * threads read nothing the other wrote, not).  The price is each thread
 * copying the whole image: with the vCPUs close, res3a_branch2b (a
 * 1.7 MB copy, more than L2) lost a seventh (results/omp/README.md). */
static bool channels_per_thread(const kb_problem *p, const direct_plan *pl,
                                int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    return nthreads > 1 && d->oc / d->g / MR >= nthreads &&
           own_copy_fits(p, pl);
}

/* Image n on one thread, on its own copy in buf (its B block), the
 * output channels of share `share` of `shares` (direct_groups). */
static void own_copy_image(const kb_problem *p, const direct_plan *pl,
                           const kb_tensors *t, const int64_t *off,
                           const void *wei, int64_t n, uint32_t *buf,
                           int share, int shares)
{
    direct_image(p, pl, t->ptr[KB_ARG_SRC], n, buf, 1);
    memset(buf + direct_copy_words(p, pl), 0, NR * 4);
    direct_window w = copy_window(p, pl, buf, off, 0, p->conv.oh);
    direct_groups(p, pl, t, &w, wei, NULL, n, 1, share, shares);
}

static void direct_conv(const kb_problem *p, const direct_plan *pl,
                        const kb_tensors *t, const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    direct_scratch s = direct_scratch_of(p, pl);
    char *scratch = ws->scratch;
    int64_t *off = (int64_t *)(scratch + s.off);
    const void *wei = t->ptr[KB_ARG_WEI];
    if (pl->pairs) {
        direct_pair_weights(p, wei, (uint32_t *)(scratch + s.wei),
                            ws->nthreads);
        wei = scratch + s.wei;
    }
    direct_offsets(p, pl, off);
    if (pl->kind == DIRECT_IN_PLACE) {
        int64_t *tail_off = (int64_t *)(scratch + s.tail_off);
        for (int64_t k = 0; k < pl->red; k++)
            tail_off[k] = k * NR;
        for (int64_t n = 0; n < d->mb; n++)
            in_place_image(p, pl, t, off, tail_off,
                           (uint32_t *)(scratch + s.image), wei, n,
                           ws->nthreads);
        return;
    }
    size_t copy_bytes = (size_t)direct_copy_words(p, pl) * 4;
    if (pl->kind == DIRECT_BANDS) {
        int64_t nbands = ceil_div(d->oh, pl->band);
#pragma omp parallel for collapse(2) schedule(static) num_threads(ws->nthreads)
        for (int64_t n = 0; n < d->mb; n++)
            for (int64_t b = 0; b < nbands; b++) {
                uint32_t *buf = (uint32_t *)ws->bbuf[omp_get_thread_num()];
                int64_t y0 = b * pl->band;
                pad_image(p, pl->pairs, t->ptr[KB_ARG_SRC], n, buf, pl->size,
                          y0, 1);
                memset((char *)buf + copy_bytes, 0, NR * 4);
                direct_window w = copy_window(p, pl, buf, off, y0,
                                              min64(pl->band, d->oh - y0));
                direct_groups(p, pl, t, &w, wei, NULL, n, 1, 0, 1);
            }
        return;
    }
    if (images_per_thread(p, pl, ws->nthreads)) {
#pragma omp parallel for schedule(static) num_threads(ws->nthreads)
        for (int64_t n = 0; n < d->mb; n++)
            own_copy_image(p, pl, t, off, wei, n,
                           (uint32_t *)ws->bbuf[omp_get_thread_num()], 0, 1);
        return;
    }
    if (channels_per_thread(p, pl, ws->nthreads)) {
#pragma omp parallel num_threads(ws->nthreads)
        {
            int me = omp_get_thread_num(), nt = omp_get_num_threads();
            for (int64_t n = 0; n < d->mb; n++)
                own_copy_image(p, pl, t, off, wei, n,
                               (uint32_t *)ws->bbuf[me], me, nt);
        }
        return;
    }
    uint32_t *pad = (uint32_t *)(scratch + s.image);
    float *part = s.image > s.part ? (float *)(scratch + s.part) : NULL;
    memset((char *)pad + copy_bytes, 0, NR * 4);
    for (int64_t n = 0; n < d->mb; n++) {
        direct_image(p, pl, t->ptr[KB_ARG_SRC], n, pad, ws->nthreads);
        direct_window w = copy_window(p, pl, pad, off, 0, d->oh);
        direct_groups(p, pl, t, &w, wei, part, n, ws->nthreads, 0, 1);
    }
}

/* ---- NCX 1x1 layers on small images: several images a GEMM ----
 * Image by image, a 1x1 layer on a small image is a GEMM of few columns:
 * ResNet-50's res5 1x1 layers (7x7) fill 49 of the 64 columns of their
 * register tiles, and pack their weights (up to 8 MB) again for every
 * image, a packed weight for every 49 multiply-adds.  Below
 * BATCH_MAX_PX pixels (res4's 196 gained nothing, idle Zen 5), a batch
 * of images, as many as the engine's NC block holds (evened out over the
 * batch), is one GEMM whose columns run over the images: the weights are
 * packed once a batch and only the batch's last tile has spare columns.
 * Its output goes to a buffer, [KG][images x pixels], copied to each
 * image's rows after.  bf16 layers that would otherwise run direct
 * (direct_pairs) batch below BATCH_MAX_PX_PAIRS: against the direct path,
 * mb 32, idle Zen 5, res4's 196 pixels gained (res4b_branch2a 1.18 to
 * 1.24x, res4a_branch1 1.10x, res4a_branch2c 0.96 to 1.04x) and res3's
 * 784 lost a fifth. */
enum { BATCH_MAX_PX = 128, BATCH_MAX_PX_PAIRS = 256 };

/* Images per GEMM of NCX 1x1 unpadded layer p (any stride: the pixels
 * are those of the output); 1 where p runs image by image. */
static int64_t batch_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    int64_t px = d->od * d->oh * d->ow;
    if (p->layout != KB_LAYOUT_NCX || d->kd * d->kh * d->kw != 1 ||
        d->pd || d->ph || d->pw || d->mb == 1 || px < NR ||
        px >= (direct_pairs(p) ? BATCH_MAX_PX_PAIRS : BATCH_MAX_PX))
        return 1;
    return ceil_div(d->mb, ceil_div(d->mb, max64(KB_OMP_NC / px, 1)));
}

/* B over a batch of images: column J is pixel J % px of image J / px
 * (images `image` elements apart from src, rows px apart). */
typedef struct {
    const void *src;
    int64_t px, image;
} images_geom;

static void pack_b_images(const kb_omp_operand *op, int64_t r0, int64_t c0,
                          int64_t rows, int64_t cols, float *buf)
{
    const images_geom *q = op->ctx;
    for (int64_t jp = 0; jp < cols; jp += NR, buf += rows * NR) {
        int64_t nr = min64(NR, cols - jp);
        for (int64_t j = 0; j < nr;) {   /* a run of one image */
            int64_t J = c0 + jp + j, x = J % q->px;
            int64_t len = min64(nr - j, q->px - x);
            int64_t at = J / q->px * q->image + r0 * q->px + x;
            for (int64_t k = 0; k < rows; k++)
                kb_omp_widen(op->dt, q->src, at + k * q->px, len,
                             buf + k * NR + j);
            j += len;
        }
        for (int64_t k = 0; k < rows; k++)
            memset(buf + k * NR + nr, 0, (size_t)(NR - nr) * sizeof(float));
    }
}

/* Images [n0, n0 + nb) of NCX 1x1 stride-1 layer p, src at image n0's
 * first channel, images `image` elements apart: per group, one GEMM into
 * out, then each image's rows to dst. */
static void batch_gemm(const kb_problem *p, const kb_tensors *t,
                       const void *src, int64_t image, int64_t n0,
                       int64_t nb, void *out, const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    int64_t cg = d->ic / d->g, kg = d->oc / d->g;
    int64_t px = d->od * d->oh * d->ow, cols = nb * px;
    for (int64_t g = 0; g < d->g; g++) {
        images_geom q = { kb_omp_at(p->dt.src, src, g * cg * px), px, image };
        kb_omp_gemm_args a = {
            .m = kg, .n = cols, .k = cg, .alpha = 1.0f, .c_dt = p->dt.dst,
            .a = { kb_omp_pack_a_strided,
                   kb_omp_at(p->dt.wei, t->ptr[KB_ARG_WEI], g * kg * cg), cg,
                   1, NULL, p->dt.wei },
            .b = { pack_b_images, NULL, 0, 0, &q, p->dt.src },
            .c = out, .rs_c = cols, .cs_c = 1, .bias_rs = 1,
        };
        if (kb_problem_has_bias(p))
            a.bias = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_BIA], g * kg);
        kb_omp_gemm(&a, ws);
        size_t es = kb_dtype_size(p->dt.dst);
#pragma omp parallel for collapse(2) schedule(static) num_threads(ws->nthreads)
        for (int64_t n = 0; n < nb; n++)
            for (int64_t k = 0; k < kg; k++)
                memcpy(kb_omp_at(p->dt.dst, t->ptr[KB_ARG_DST],
                                 ((n0 + n) * d->oc + g * kg + k) * px),
                       (char *)out + (size_t)(k * cols + n * px) * es,
                       (size_t)px * es);
    }
}

/* ---- 1x1 strided (NCX): a subsampled copy, then the plain matrix ----
 * A strided 1x1 layer reads one pixel in sd*sh*sw, but its im2col packer
 * gathers them one at a time from the whole image, and a phase-split
 * copy (the direct path) writes every phase for one read (DeepCAM's D3,
 * 64 channels of 384x576 at stride 2, ran at a third of the FMA
 * ceiling).  Copying the read pixels out first, a row at a time, leaves
 * the stride-1 layer on that copy: the plain matrix the GEMM streams
 * (a batch of images at once, as above). */
static bool subsampled_path(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    return p->layout == KB_LAYOUT_NCX && d->kd * d->kh * d->kw == 1 &&
           d->pd == 0 && d->ph == 0 && d->pw == 0 &&
           !kb_conv_is_pointwise(d) && d->od * d->oh * d->ow >= NR;
}

/* The scratch of the two paths above: a batch's copy of the pixels read
 * (strided only), then its GEMM's output (batched only). */
typedef struct {
    size_t copy, out, total;
} pointwise_scratch;

static pointwise_scratch pointwise_scratch_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    int64_t nb = batch_of(p), px = d->od * d->oh * d->ow;
    pointwise_scratch s = { .copy = 0 };
    s.out = subsampled_path(p)
                ? (size_t)(nb * d->ic * px) * kb_dtype_size(p->dt.src)
                : 0;
    s.total = s.out + (nb > 1 ? (size_t)(d->oc / d->g * nb * px) *
                                    kb_dtype_size(p->dt.dst)
                              : 0);
    return s;
}

static void subsampled_conv(const kb_problem *p, const kb_tensors *t,
                            const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    size_t es = kb_dtype_size(p->dt.src);
    int64_t px = d->od * d->oh * d->ow, nb = batch_of(p);
    int64_t rows = d->ic * d->od * d->oh;
    pointwise_scratch s = pointwise_scratch_of(p);
    char *copy = (char *)ws->scratch + s.copy;
    /* the same layer on the copy: stride 1, the output's size */
    kb_problem q = *p;
    q.conv.id = d->od, q.conv.ih = d->oh, q.conv.iw = d->ow;
    q.conv.sd = q.conv.sh = q.conv.sw = 1;
    kb_tensors u = *t;
    u.ptr[KB_ARG_SRC] = copy;
    for (int64_t n0 = 0; n0 < d->mb; n0 += nb) {
        int64_t nn = min64(nb, d->mb - n0);
#pragma omp parallel for schedule(static) num_threads(ws->nthreads)
        for (int64_t r = 0; r < nn * rows; r++) {
            int64_t n = n0 + r / rows, c = r % rows / (d->od * d->oh);
            int64_t z = r / d->oh % d->od, y = r % d->oh;
            const char *in = kb_omp_at(p->dt.src, t->ptr[KB_ARG_SRC],
                                       (((n * d->ic + c) * d->id + z * d->sd) *
                                        d->ih + y * d->sh) * d->iw);
            kb_omp_strided_row(copy + (size_t)(r * d->ow) * es, in, d->ow,
                               d->sw, es);
        }
        if (nb > 1) {
            batch_gemm(&q, t, copy, d->ic * px, n0, nn,
                       (char *)ws->scratch + s.out, ws);
            continue;
        }
        u.ptr[KB_ARG_DST] = kb_omp_at(p->dt.dst, t->ptr[KB_ARG_DST],
                                      n0 * d->oc * px);
        for (int64_t g = 0; g < d->g; g++)
            conv_gemm(&q, &u, NULL, 0, g, ws);
    }
}

/* A stride-1 1x1 layer in batches (batch_of). */
static void batched_conv(const kb_problem *p, const kb_tensors *t,
                         const kb_omp_workspace *ws)
{
    const kb_conv_desc *d = &p->conv;
    int64_t px = d->od * d->oh * d->ow, nb = batch_of(p);
    void *out = (char *)ws->scratch + pointwise_scratch_of(p).out;
    for (int64_t n0 = 0; n0 < d->mb; n0 += nb)
        batch_gemm(p, t,
                   kb_omp_at(p->dt.src, t->ptr[KB_ARG_SRC], n0 * d->ic * px),
                   d->ic * px, n0, min64(nb, d->mb - n0), out, ws);
}

kb_omp_ws_need kb_omp_conv_need(const kb_problem *p)
{
    kb_omp_gemm_args a = {0};
    conv_gemm_shape(p, &a);
    a.n *= batch_of(p);
    /* A is W in NCX (but src when transposed), src in NXC */
    bool wei_is_a = p->layout == KB_LAYOUT_NCX && !pointwise_transposed(p);
    direct_plan pl = direct_plan_of(p);
    return (kb_omp_ws_need){ wei_is_a ? p->dt.wei : p->dt.src,
                             wei_is_a ? p->dt.src : p->dt.wei,
                             kb_omp_gemm_acc_elems(a.m, a.n, a.k, p->dt.dst),
                             pl.kind != DIRECT_NONE
                                 ? direct_scratch_of(p, &pl).total
                             : shifted_path(p)    ? shifted_scratch_bytes(p)
                             : pointwise_scratch_of(p).total };
}

kb_omp_conv_path kb_omp_conv_path_of(const kb_problem *p)
{
    const kb_conv_desc *d = &p->conv;
    if (d->ic != d->g)
        return KB_OMP_CONV_GEMM;
    if (kb_omp_dw_rows_fit(p))
        return KB_OMP_CONV_DW_NCX_ROWS;
    if (p->layout == KB_LAYOUT_NCX)
        return d->kw <= KB_OMP_DW_NCX_MAX_KW ? KB_OMP_CONV_DW_NCX
                                             : KB_OMP_CONV_GEMM;
    return d->kd * d->kh * d->kw <= KB_OMP_DW_NXC_MAX_TAPS ? KB_OMP_CONV_DW_NXC
                                                    : KB_OMP_CONV_GEMM;
}

void kb_omp_conv(const kb_problem *p, const kb_tensors *t,
                 const void *wei_nxc, const kb_omp_workspace *ws,
                 int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    switch (kb_omp_conv_path_of(p)) {
    case KB_OMP_CONV_DW_NCX_ROWS:
        kb_omp_dw_rows(p, t, nthreads);
        return;
    case KB_OMP_CONV_DW_NCX:
        kb_omp_dw_ncx(p, t, nthreads);
        return;
    case KB_OMP_CONV_DW_NXC:
        kb_omp_dw_nxc(p, t, nthreads);
        return;
    case KB_OMP_CONV_GEMM: {
        direct_plan pl = direct_plan_of(p);
        if (pl.kind != DIRECT_NONE) {
            direct_conv(p, &pl, t, ws);
            return;
        }
        if (shifted_path(p)) {
            shifted_conv(p, t, ws);
            return;
        }
        if (subsampled_path(p)) {
            subsampled_conv(p, t, ws);
            return;
        }
        if (batch_of(p) > 1) {
            batched_conv(p, t, ws);
            return;
        }
        for (int64_t n = 0; n < d->mb; n++)
            for (int64_t g = 0; g < d->g; g++)
                conv_gemm(p, t, wei_nxc, n, g, ws);
        return;
    }
    }
}
