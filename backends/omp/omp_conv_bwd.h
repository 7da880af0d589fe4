/* omp_conv_bwd.h - what the backward convolution files of the omp backend
 * (omp_conv_bwd.c, omp_conv_bwd_data.c, omp_conv_bwd_weights.c) share:
 * the geometry, the ways each direction is computed, and the plan. */
#ifndef KB_OMP_CONV_BWD_H
#define KB_OMP_CONV_BWD_H

#include "omp_conv_geom.h"

#include <string.h>

/* Per kernel column kx: the output columns [lo, hi) whose tap kx falls
 * inside the input row, i0 = kx*dil - pad (output column ox reads input
 * column i0 + ox*sw) and m0, where it lands in an NCX phase-major row
 * (m0 + ox, kb_omp_bwd_phase_len).  The same for every row, so made once
 * in prepare: the divisions cost more than a short row's work. */
typedef struct {
    int64_t lo, hi, i0, m0;
} kb_omp_bwd_xtap;

/* A convolution's sizes as the backward loops use them (the shared ones:
 * KB_OMP_CONV_SIZES).  Channels are ic = g*cg and oc = g*kg;
 * in_px/out_px are the pixels of one image, taps = kd*kh*kw. */
typedef struct {
    int64_t mb, g, ic, oc, cg, kg;
    KB_OMP_CONV_SIZES;
    int64_t in_px, out_px, taps;
    bool nxc;
    const kb_omp_bwd_xtap *xt; /* kw entries; set by prepare, else NULL */
} kb_omp_bwd_geom;

kb_omp_bwd_geom kb_omp_bwd_geom_of(const kb_problem *p);

/* The ways a backward convolution is computed (the files state each
 * one's limits):
 *   DATA_TRANSPOSED  stride 1: diff_src is the forward convolution of
 *                    diff_dst with the flipped, transposed weights
 *                    (omp_conv.c does it, with all its paths);
 *   DATA_COL2IM      col = W^T x diff_dst per image and group (the
 *                    engine), scatter-added into diff_src;
 *   DATA_DW_*        depthwise, strided: a direct scatter per input row;
 *   WEI_GEMM         diff_wei^T = col x diff_dst^T per group over every
 *                    image at once (the engine, im2col packed on the fly);
 *   WEI_DW_*         depthwise: direct dot products per tap. */
typedef enum {
    KB_OMP_BWD_DATA_TRANSPOSED,
    KB_OMP_BWD_DATA_COL2IM,
    KB_OMP_BWD_DATA_DW_NCX,
    KB_OMP_BWD_DATA_DW_NXC,
    KB_OMP_BWD_WEI_GEMM,
    KB_OMP_BWD_WEI_DW_NCX,
    KB_OMP_BWD_WEI_DW_NXC
} kb_omp_bwd_path;

/* Floats of one thread's BWD_D row buffer on path (omp_conv_bwd_data.c)
 * and of one thread's depthwise BWD_W scratch (omp_conv_bwd_weights.c):
 * both multiples of 16, so every thread's part is 64-byte aligned. */
int64_t kb_omp_bwd_row_elems(const kb_omp_bwd_geom *q, kb_omp_bwd_path path);
int64_t kb_omp_bwd_wei_dw_elems(const kb_omp_bwd_geom *q);

/* Whether BWD_W's GEMM writes diff_wei itself, column-major (its rows
 * c*taps + t are diff_wei's columns): NCX, one KC slice of reduction.
 * Deeper, each slice would read and write C column-major again, which
 * cost more than the GEMM's f32 scratch and one transpose after
 * (ResNet-50's conv1 and 3x3s at mb 1: 0.85x); NXC's rows are t*CG + c. */
bool kb_omp_bwd_wei_in_place(const kb_omp_bwd_geom *q);

/* Floats of f32 scratch BWD_W's GEMM needs past diff_wei^T when it splits
 * its reduction among the threads (omp_conv_bwd_weights.c): a buffer per
 * thread but the first for one group's result; 0 when it does not. */
int64_t kb_omp_bwd_wei_split_elems(const kb_omp_bwd_geom *q, int nthreads);

/* COL2IM computes col for several images in one GEMM (the weights are
 * packed once for them, and the GEMM is wider), as many as fit in
 * KB_OMP_BWD_COL_FLOATS floats of col, at least one: 4 MiB, which the
 * GEMM writes and col2im reads back while it is still in the L3 (at
 * 16 MiB res3a's 3x3/2 lost more than it gained). */
enum { KB_OMP_BWD_COL_FLOATS = 1 << 20 };
int64_t kb_omp_bwd_col_images(const kb_omp_bwd_geom *q);

/* Channels a depthwise NXC step owns: one vector. */
enum { KB_OMP_BWD_CB = 16 };

struct kb_omp_conv_bwd_plan {
    kb_problem p;
    kb_tensors host;           /* the driver's host tensors, not owned */
    /* What the kernels read and write, stored as dt says: the host
     * tensors, or, for the depthwise loops (f32 only) on bf16 or f16
     * data, f32 copies (copies) widened and narrowed around them. */
    kb_tensors t;
    kb_dts dt;
    float *copies;
    kb_omp_bwd_geom q;
    kb_omp_bwd_path path;
    int nthreads;
    kb_omp_workspace ws;       /* the engine's buffers (GEMM paths) */
    /* Weights rearranged in prepare():
     *   TRANSPOSED: [IC][KG][taps] flipped, the forward's weights;
     *   COL2IM NXC: [G][taps*CG][KG] (kb_omp_conv_reorder_weights);
     *   both stored as the weights are;
     *   DATA_DW_NXC: [ceil(C/CB)][taps][CB], f32. */
    void *wei;
    void *wei_nxc;             /* TRANSPOSED, NXC GEMM: the forward's reorder */
    /* COL2IM: col of kb_omp_bwd_col_images images; WEI_GEMM: diff_wei^T [G][CG*taps][KG];
     * WEI_DW_*: per-thread accumulators (kb_omp_bwd_wei_dw_elems). */
    float *scratch;
    /* COL2IM, DATA_DW_*: per-thread row buffers of row_elems floats
     * (kb_omp_bwd_row_elems, kept: it divides, and rows are short). */
    float *rows;
    int64_t row_elems;
    kb_problem fwd;            /* TRANSPOSED: the forward problem it runs */
    kb_omp_bwd_xtap *xt;       /* q.xt's storage */
};

/* The directions' kernels; none can fail once prepared. */
void kb_omp_bwd_data_transposed_weights(const kb_problem *p, const void *wei,
                                        void *out);
kb_problem kb_omp_bwd_data_transposed_problem(const kb_problem *p);
void kb_omp_bwd_data_transposed(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_data_col2im(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_data_dw_nxc_weights(const kb_problem *p, const void *wei,
                                    float *out);
void kb_omp_bwd_data_dw_ncx(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_data_dw_nxc(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_weights_gemm(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_weights_dw_ncx(const kb_omp_conv_bwd_plan *pl);
void kb_omp_bwd_weights_dw_nxc(const kb_omp_conv_bwd_plan *pl);
/* diff_bia[k] = the sum of diff_dst's channel k (BWD_WB). */
void kb_omp_bwd_bias(const kb_omp_conv_bwd_plan *pl);

/* The output index o with o*s = i + pad - t*dil, or -1 when there is none
 * in [0, out): the output position tap t reaches input position i from. */
static inline int64_t kb_omp_bwd_source_of(int64_t i, int64_t t, int64_t s,
                                           int64_t pad, int64_t dil,
                                           int64_t out)
{
    int64_t num = i + pad - t * dil;
    if (num < 0 || num % s)
        return -1;
    return num / s < out ? num / s : -1;
}

/* NCX rows split by stride phase: input column ix at
 * (ix % sw) * kb_omp_bwd_phase_len + ix / sw, so that the columns one tap
 * meets from consecutive output columns are adjacent. */
static inline int64_t kb_omp_bwd_phase_len(const kb_omp_bwd_geom *q)
{
    return (q->iw + q->sw - 1) / q->sw;
}

/* Stride 2, the common one, splits and merges rows 16 columns of each
 * phase at a time with two shuffles (a scalar loop per element is what
 * bounded the strided depthwise passes); the columns past the last whole
 * pair of vectors, and other strides, go one at a time.  The number of
 * columns of each phase that the vectors take: */
static inline int64_t kb_omp_bwd_phase_vec_cols(const kb_omp_bwd_geom *q)
{
    return q->sw == 2 ? q->iw / 32 * 16 : 0;
}

/* The lanes of the two shuffles each way, as __builtin_shufflevector
 * takes them (GCC 12 and clang alike; __builtin_shuffle is GCC's only). */
#define KB_OMP_LANES_EVEN 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define KB_OMP_LANES_ODD 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#define KB_OMP_LANES_LO 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23
#define KB_OMP_LANES_HI 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31

static inline void kb_omp_bwd_phase_row(const kb_omp_bwd_geom *q,
                                        const float *row, float *out)
{
    int64_t pl = kb_omp_bwd_phase_len(q), sw = q->sw;
    int64_t mv = kb_omp_bwd_phase_vec_cols(q);
    for (int64_t m = 0; m < mv; m += 16) {
        kb_v16sf a, b;
        memcpy(&a, row + 2 * m, sizeof a);
        memcpy(&b, row + 2 * m + 16, sizeof b);
        kb_v16sf e = __builtin_shufflevector(a, b, KB_OMP_LANES_EVEN);
        kb_v16sf o = __builtin_shufflevector(a, b, KB_OMP_LANES_ODD);
        memcpy(out + m, &e, sizeof e);
        memcpy(out + pl + m, &o, sizeof o);
    }
    for (int64_t r = 0; r < sw; r++)
        for (int64_t m = mv; m * sw + r < q->iw; m++)
            out[r * pl + m] = row[m * sw + r];
}

/* The inverse for f32: row[ix] = the phase-major in's column ix. */
static inline void kb_omp_bwd_unphase_row(const kb_omp_bwd_geom *q,
                                          const float *in, float *row)
{
    int64_t pl = kb_omp_bwd_phase_len(q), sw = q->sw;
    int64_t mv = kb_omp_bwd_phase_vec_cols(q);
    for (int64_t m = 0; m < mv; m += 16) {
        kb_v16sf e, o;
        memcpy(&e, in + m, sizeof e);
        memcpy(&o, in + pl + m, sizeof o);
        kb_v16sf a = __builtin_shufflevector(e, o, KB_OMP_LANES_LO);
        kb_v16sf b = __builtin_shufflevector(e, o, KB_OMP_LANES_HI);
        memcpy(row + 2 * m, &a, sizeof a);
        memcpy(row + 2 * m + 16, &b, sizeof b);
    }
    for (int64_t r = 0; r < sw; r++)
        for (int64_t m = mv; m * sw + r < q->iw; m++)
            row[m * sw + r] = in[r * pl + m];
}

/* y[c] += w[c] * x[c] for a channel block; inlined, so a full block's
 * constant length becomes whole vectors. */
static inline __attribute__((always_inline)) void
kb_omp_bwd_axpy_block(float *restrict y, const float *restrict w,
                      const float *restrict x, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        y[c] += w[c] * x[c];
}

#endif
