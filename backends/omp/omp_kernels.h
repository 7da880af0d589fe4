/* omp_kernels.h - internals of the omp backend: the blocked GEMM engine
 * that GEMM and convolution share, and the kernel entry points.
 *
 * The engine follows BLIS: C[m,n] is split into NC-wide column blocks,
 * KC-deep slices and MC-high row blocks; each A block is packed into
 * MR-row micro-panels and each B block into NR-column micro-panels, and a
 * register-tiled MR x NR micro-kernel multiplies one pair.  Operands are
 * reached only through a packer callback, so a convolution can build its
 * im2col panels on the fly instead of materialising the whole matrix. */
#ifndef KB_OMP_KERNELS_H
#define KB_OMP_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/convert.h"
#include "kernels/problem.h"
#include "kernels/tensors.h"

/* Blocking parameters, all in one place (elements of fp32).
 * MR x NR: 8 rows x two 16-float vectors = 16 accumulator registers, half
 *   of AVX-512's 32, leaving room for the B loads and A broadcasts.
 * KC: a KC x NR packed B micro-panel (32 KiB) stays in the 48 KiB L1d
 *   while the macro-kernel streams the A micro-panels past it.
 * MC: the MC x KC packed A block (192 KiB) stays in the 1 MiB L2.
 * NC: the KC x NC packed B block (2 MiB) is per thread; two threads' worth
 *   stay well inside the 32 MiB L3.
 * MR_MAX: the most rows a micro-kernel's tile has (AMX's: 16, two of
 *   the packers' MR-row panels).
 * A_IN_PLACE_PANELS: an f32 row-major A is read in place, not packed,
 *   when C has at most this many NR-wide panels: each A element is then
 *   used that few times, and packing it (a read and a write) cost as much
 *   as a third of the multiply (a convolution's weights on a 7x7 or 14x14
 *   image, ResNet-50's res4/res5).
 * MC must be a multiple of MR_MAX and NC of NR. */
enum {
    KB_OMP_MR = 8,
    KB_OMP_MR_MAX = 16,
    KB_OMP_NR = 32,
    KB_OMP_KC = 256,
    KB_OMP_MC = 192,
    KB_OMP_NC = 2048,
    KB_OMP_A_IN_PLACE_PANELS = 8
};

/* Index arithmetic every loop file of the backend uses. */
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* 16 floats: one AVX-512 register; gcc splits it on narrower ISAs.
 * Loads and stores go through memcpy, which compiles to unaligned vector
 * moves. */
typedef float kb_v16sf __attribute__((vector_size(64)));

/* ---- micro-kernels (omp_ukernels.c holds the table) ---- */

/* acc (uk->mr rows of NR floats) = the kc-deep product of one packed A
 * micro-panel (uk->mr rows) and one packed B micro-panel (NR columns):
 * f32 panels, or the panels that the entry's to_pairs made of them. */
typedef void (*kb_omp_ukernel_fn)(int64_t kc, const void *a, const void *b,
                                  kb_v16sf acc[][KB_OMP_NR / 16]);

/* Rewrites the packed f32 micro-panels of one block (ceil(extent/width)
 * panels of width MR or NR, depth kc) into out in the kernel's format,
 * kd = kb_omp_kdepth(uk, kc) deep (zero past kc): 2*kd bytes per panel
 * row or column; A's may regroup the rows into uk->mr-row panels (zero
 * rows past the block). */
typedef void (*kb_omp_to_pairs_fn)(const float *panels, int64_t width,
                                   int64_t extent, int64_t kc, int64_t kd,
                                   uint32_t *out);

/* The direct convolution's kernel for a pair format (omp_conv_direct.c):
 * acc (KB_OMP_MR rows of NR floats) = the kc-deep product of MR rows of
 * pairs read in place (row i's pair k at a[i*a_rs + k]) and B's pair
 * rows k, the NR 32-bit words at b + b_off[k] (unaligned). */
typedef void (*kb_omp_direct_fn)(int64_t kc, const uint32_t *a, int64_t a_rs,
                                 const uint32_t *b, const int64_t *b_off,
                                 kb_v16sf acc[][KB_OMP_NR / 16]);

/* One table entry: how operands of storage type dt are multiplied. */
typedef struct {
    const char *isa;           /* KBENCH_OMP_UKERNEL's name for it */
    const char *name;          /* describe()'s words for it */
    kb_dtype dt;               /* storage type of both operands */
    bool (*available)(void);   /* this CPU can run it; NULL: any CPU */
    kb_omp_ukernel_fn kernel;
    /* NULL: the kernel reads the f32 panels; else A's and B's rewrite,
     * kpad the multiple of k they are padded to */
    kb_omp_to_pairs_fn to_pairs_a, to_pairs_b;
    int kpad;
    /* bf16 only: the direct convolution's kernel on pair copies of the
     * image and weights (kb_omp_bf16_pair_rows), or NULL: that type
     * takes the GEMM */
    kb_omp_direct_fn direct;
    /* Per thread, around its share of one GEMM, or NULL (AMX's tile
     * configuration: another library in the process may change it
     * between GEMMs) */
    void (*thread_begin)(void), (*thread_end)(void);
    /* f16 only: widens contiguous runs for the packers and rounds them
     * for the stores; NULL elsewhere */
    void (*widen_f16)(const uint16_t *src, int64_t n, float *dst);
    void (*narrow_f16)(const float *src, int64_t n, uint16_t *dst);
    int mr, nr;                /* the kernel's tile: mr a multiple of MR */
} kb_omp_ukernel;

/* The entry for operands stored as a_dt and b_dt, chosen once at
 * start-up: for bf16 x bf16 or f16 x f16 the first entry of that type
 * whose CPU test passes (or the one KBENCH_OMP_UKERNEL names), else the
 * f32 kernel on widened panels.  Cannot fail. */
const kb_omp_ukernel *kb_omp_ukernel_for(kb_dtype a_dt, kb_dtype b_dt);
/* NULL, or why KBENCH_OMP_UKERNEL's value was refused (prepare() fails
 * with it rather than timing a kernel that was not asked for). */
const char *kb_omp_ukernel_env_error(void);

/* The depth a kc-deep panel has in the kernel's format. */
static inline int64_t kb_omp_kdepth(const kb_omp_ukernel *uk, int64_t kc)
{
    return uk->to_pairs_a ? (kc + uk->kpad - 1) / uk->kpad * uk->kpad : kc;
}

/* One GEMM operand as the engine sees it.  pack() copies the block of
 * rows [r0, r0+rows) and columns [c0, c0+cols) into buf, in the engine's
 * packed format: for A (rows = M side) MR-row micro-panels, each stored
 * k-major with MR values per k; for B (rows = K side) NR-column
 * micro-panels, each stored k-major with NR values per k.  Rows/columns
 * past the block's end inside the last micro-panel are written as zero.
 * Whatever the storage type dt, packed panels hold f32 (widening bf16
 * and f16 is exact); a micro-kernel that wants another format converts
 * the packed block (kb_omp_ukernel's to_pairs_a, to_pairs_b).  Packers
 * cannot fail. */
typedef struct kb_omp_operand kb_omp_operand;
typedef void (*kb_omp_pack_fn)(const kb_omp_operand *op, int64_t r0,
                               int64_t c0, int64_t rows, int64_t cols,
                               float *buf);
struct kb_omp_operand {
    kb_omp_pack_fn pack;
    const void *base;          /* strided packers: (r,c) at base[r*rs + c*cs] */
    int64_t rs, cs;
    const void *ctx;           /* packer-specific geometry (convolution) */
    kb_dtype dt;               /* storage type of the elements: f32, bf16,
                                  f16; last, so that an initializer that
                                  leaves it out means f32 (0) */
};

/* Element off of an array stored as dt, widened to f32 (exact).  Packers
 * call it with a constant dt (KB_OMP_PER_DTYPE below), so the switch is
 * resolved at compile time and the f32 loop is a plain load. */
static inline float kb_omp_elem(kb_dtype dt, const void *base, int64_t off)
{
    switch (dt) {
    case KB_BF16:
        return kb_bf16_to_f32(((const uint16_t *)base)[off]);
    case KB_F16:
        return kb_f16_to_f32(((const uint16_t *)base)[off]);
    default:
        return ((const float *)base)[off];
    }
}

/* base advanced by off elements of dt (f32, bf16 or f16). */
static inline void *kb_omp_at(kb_dtype dt, const void *base, int64_t off)
{
    return (char *)base + off * (dt == KB_F32 ? 4 : 2);
}

/* dst[0..n) = the n contiguous elements from base[off], widened; f16
 * goes through the start-up choice's vector conversion (F16C). */
void kb_omp_widen_f16(const uint16_t *src, int64_t n, float *dst);
static inline void kb_omp_widen(kb_dtype dt, const void *base, int64_t off,
                                int64_t n, float *dst)
{
    const uint16_t *h = (const uint16_t *)base + off;
    switch (dt) {
    case KB_BF16:
        for (int64_t j = 0; j < n; j++)
            dst[j] = kb_bf16_to_f32(h[j]);
        return;
    case KB_F16:
        kb_omp_widen_f16(h, n, dst);
        return;
    default:   /* a loop, not memcpy: runs are a panel wide, too short
                  for a library call to pay */
        for (int64_t j = 0; j < n; j++)
            dst[j] = ((const float *)base)[off + j];
    }
}

/* base[off] = v rounded to nearest even to dt (f16: inf past its range). */
static inline void kb_omp_store_elem(kb_dtype dt, void *base, int64_t off,
                                     float v)
{
    switch (dt) {
    case KB_BF16:
        ((uint16_t *)base)[off] = kb_f32_to_bf16(v);
        return;
    case KB_F16:
        ((uint16_t *)base)[off] = kb_f32_to_f16(v);
        return;
    default:
        ((float *)base)[off] = v;
    }
}

/* kb_f32_to_bf16 without a branch (NaN selected by a mask), so that a
 * loop of it vectorises: the same result for every input. */
static inline uint16_t kb_omp_bf16_rne(float f)
{
    uint32_t x = kb_f32_bits(f);
    uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    uint32_t nan = 0u - (uint32_t)((x & 0x7fffffffu) > 0x7f800000u);
    return (uint16_t)((((x >> 16) | 0x40u) & nan) | (rounded & ~nan));
}

/* kb_omp_bf16_rne on 16 lanes at once, in vector registers, for a store
 * that holds its sums in registers (the bf16 direct store's whole runs:
 * a loop of the scalar form staged each row on the stack). */
typedef uint32_t kb_v16su __attribute__((vector_size(64)));
typedef uint16_t kb_v16hu __attribute__((vector_size(32)));
static inline kb_v16hu kb_omp_bf16_rne16(kb_v16sf f)
{
    kb_v16su x = (kb_v16su)f;
    kb_v16su rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    kb_v16su nan = (kb_v16su)((x & 0x7fffffffu) > 0x7f800000u);
    return __builtin_convertvector((((x >> 16) | 0x40u) & nan) |
                                       (rounded & ~nan),
                                   kb_v16hu);
}

/* dst[0..n) = src rounded to f16 by the start-up choice (F16C's
 * vcvtps2ph, or kb_f32_to_f16; both round to nearest even, overflow to
 * inf, keep subnormals). */
void kb_omp_narrow_f16(const float *src, int64_t n, uint16_t *dst);

/* base[off .. off+n) = src[0..n) rounded to dt. */
static inline void kb_omp_narrow(kb_dtype dt, const float *src, int64_t n,
                                 void *base, int64_t off)
{
    uint16_t *h = (uint16_t *)base + off;
    switch (dt) {
    case KB_BF16:
        for (int64_t j = 0; j < n; j++)
            h[j] = kb_omp_bf16_rne(src[j]);
        return;
    case KB_F16:
        kb_omp_narrow_f16(src, n, h);
        return;
    default:
        memcpy((float *)base + off, src, (size_t)n * sizeof(float));
    }
}

/* Runs BODY(dt_const, ...) with the storage type dt as a compile-time
 * constant: the one switch a packer makes per panel, so each type gets
 * its own specialised copy of an always_inline body. */
#define KB_OMP_PER_DTYPE(dt, BODY, ...)                                 \
    do {                                                                \
        switch (dt) {                                                   \
        case KB_BF16: BODY(KB_BF16, __VA_ARGS__); break;                \
        case KB_F16: BODY(KB_F16, __VA_ARGS__); break;                  \
        default: BODY(KB_F32, __VA_ARGS__); break;                      \
        }                                                               \
    } while (0)

/* Packers for a plain strided matrix, in A and B format. */
void kb_omp_pack_a_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf);
void kb_omp_pack_b_strided(const kb_omp_operand *op, int64_t r0, int64_t c0,
                           int64_t rows, int64_t cols, float *buf);

/* C = alpha * A * B + beta * C + bias, accumulated in f32 and rounded
 * (to nearest even) once to C's storage type c_dt (f32, bf16 or f16).
 * beta == 0 means C is not read (it may hold NaN).  bias, when not NULL,
 * adds bias[i*bias_rs + j*bias_cs] (stored as c_dt, as a bias takes the
 * dst type) to C[i,j] (a per-row bias has bias_cs == 0, a per-column one
 * bias_rs == 0).  A and B may have different storage types; the
 * micro-kernel is the start-up choice for their type when they have the
 * same (kb_omp_ukernel_for), else the f32 one on widened panels. */
typedef struct {
    int64_t m, n, k;
    kb_omp_operand a, b;
    kb_dtype c_dt;             /* 0 (f32) when left out */
    void *c;
    int64_t rs_c, cs_c;
    float alpha, beta;
    const void *bias;
    int64_t bias_rs, bias_cs;
} kb_omp_gemm_args;

/* Per-thread packing buffers and, for a C that is not f32, the f32
 * partial sums between KC slices; allocated once per plan (untimed). */
typedef struct {
    int nthreads;
    float **abuf;              /* nthreads x MC*KC floats */
    float **bbuf;              /* nthreads x KC*NC floats */
    uint32_t **apairs;         /* to_pairs_a's panels, or NULL */
    uint32_t **bpairs;         /* to_pairs_b's */
    float *acc;                /* acc_elems floats, or NULL */
    int64_t acc_elems;
    void *scratch;             /* scratch_bytes for the caller, or NULL */
    size_t scratch_bytes;
} kb_omp_workspace;

/* What one plan's GEMMs need beyond the f32 panels: pair panels when
 * both operands are bf16 and the chosen micro-kernel takes them, and
 * acc_elems >= kb_omp_gemm_acc_elems() of every GEMM it runs. */
typedef struct {
    kb_dtype a_dt, b_dt;
    int64_t acc_elems;
    size_t scratch_bytes;      /* the caller's own (a convolution's copies) */
} kb_omp_ws_need;

/* f32 partial sums a GEMM of m x n x k with C stored as c_dt needs: m*n
 * when C is not f32 and K takes more than one KC slice, else 0. */
int64_t kb_omp_gemm_acc_elems(int64_t m, int64_t n, int64_t k,
                              kb_dtype c_dt);

/* Bytes kb_omp_workspace_init_for allocates. */
size_t kb_omp_workspace_bytes_for(int nthreads, const kb_omp_ws_need *need);
/* Returns 0, or -1 (out of memory) with nothing left allocated. */
int kb_omp_workspace_init_for(kb_omp_workspace *ws, int nthreads,
                              const kb_omp_ws_need *need);
void kb_omp_workspace_free(kb_omp_workspace *ws);

/* Run one GEMM with ws->nthreads OpenMP threads; ws was sized for it
 * (kb_omp_ws_need).  Cannot fail. */
void kb_omp_gemm(const kb_omp_gemm_args *g, const kb_omp_workspace *ws);

/* The ways a convolution is computed (omp_conv.c, omp_conv_dw.c and
 * omp_conv_dw_rows.c state each one's limits): a direct depthwise loop
 * per layout (NCX's 2D layers on rows of a padded copy, below, where
 * they fit), or the grouped implicit GEMM, the only one that needs the
 * workspace and, for NXC, the weight reorder.  The dispatcher and the
 * plan's sizing both ask this. */
typedef enum {
    KB_OMP_CONV_DW_NCX_ROWS,
    KB_OMP_CONV_DW_NCX,
    KB_OMP_CONV_DW_NXC,
    KB_OMP_CONV_GEMM
} kb_omp_conv_path;
kb_omp_conv_path kb_omp_conv_path_of(const kb_problem *p);

/* Depthwise direct loops (omp_conv_dw.c), any type, stride, dilation
 * and channel multiplier: NCX an output row at a time, for kernels up to
 * KB_OMP_DW_NCX_MAX_KW wide (its tap bounds live on the stack); NXC a
 * pixel's channel block at a time, for up to KB_OMP_DW_NXC_MAX_TAPS taps
 * (the block's weights live on the stack). */
enum { KB_OMP_DW_NCX_MAX_KW = 64, KB_OMP_DW_NXC_MAX_TAPS = 125 };
void kb_omp_dw_ncx(const kb_problem *p, const kb_tensors *t, int nthreads);
void kb_omp_dw_nxc(const kb_problem *p, const kb_tensors *t, int nthreads);

/* Depthwise NCX, 2D, an output row at a time from
 * zero-bordered copies of the input rows it reads (omp_conv_dw_rows.c):
 * any type, stride, dilation and channel multiplier, where the copies of one
 * output row's taps fit its stack buffer. */
bool kb_omp_dw_rows_fit(const kb_problem *p);
void kb_omp_dw_rows(const kb_problem *p, const kb_tensors *t, int nthreads);

/* The direct convolution (omp_conv_direct.c), one image and group:
 * dst[m, pixels] = wei[m, k] x B[k, columns], B's row k the 32-bit words
 * of img from off[k] on, the columns the padded output volume's (column
 * j = (oz*rows + oy)*row_w + ox, at img word j + oz*plane_gap), those
 * with oy >= oh or ox >= ow computed and dropped.  img must hold every
 * tile's NR words from off[k] on (a last tile reads a whole NR).  The
 * words are f32 values (kernel NULL: the f32 kernel, inlined) or bf16
 * pairs (kernel: the table entry's direct, k counting pairs); m a
 * multiple of KB_OMP_MR; the rows of wei are k words long.  Sums are
 * f32; dst and bias are stored as dst_dt.  The reduction is cut into
 * slices (reread_bytes) only where the partial sums have an f32 home:
 * dst itself, or part (m planes laid out as dst's) when dst is not
 * f32. */
typedef struct {
    const void *img;
    int64_t img_elems;         /* the image's words, for the loop order */
    const int64_t *off;
    const void *wei;
    kb_omp_direct_fn kernel;
    int64_t m, k;
    kb_dtype dst_dt;           /* 0 (f32) when left out */
    const void *bias;          /* m elements, or NULL */
    void *dst;                 /* m planes of od*oh*ow, dst_cs apart */
    float *part;               /* NULL, or partial sums as dst is laid out */
    int64_t dst_cs;
    int64_t od, oh, ow;
    int64_t rows, row_w;       /* the padded plane's rows and row width */
    int64_t plane_gap;         /* 0, or words img holds between one plane's
                                * columns and the next's (rows*row_w a
                                * multiple of KB_OMP_NR, so that no tile
                                * spans two planes) */
    int64_t reread_bytes;      /* what may be read again from cache (L2) */
    int64_t b_ahead;           /* 0, or img is in memory, not cache: how
                                * far ahead the f32 kernel prefetches */
} kb_omp_direct_args;
/* A strided row copy: out[i] = in[i*stride] for i in [0, n), elements of
 * es bytes (2 or 4), as the convolution paths copy the pixels they read
 * (a phase of a row, a tap's row, a subsampled row).  Inline, with es and
 * a stride of 2 constants in their branches, so that gcc vectorises each
 * (loads and permutes): an element at a time, and out of line, cost
 * ResNet-50's stride-2 layers more than their convolution, and DeepCAM's
 * D3 5 %. */
static inline __attribute__((always_inline)) void
kb_omp_strided_copy(char *restrict out, const char *restrict in, int64_t n,
                    int64_t stride, size_t es)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(out + (size_t)i * es, in + (size_t)(i * stride) * es, es);
}

static inline __attribute__((always_inline)) void
kb_omp_strided_row(void *out, const void *in, int64_t n, int64_t stride,
                   size_t es)
{
    if (es == 4 && stride == 2)
        kb_omp_strided_copy(out, in, n, 2, 4);
    else if (es == 4)
        kb_omp_strided_copy(out, in, n, stride, 4);
    else if (stride == 2)
        kb_omp_strided_copy(out, in, n, 2, 2);
    else
        kb_omp_strided_copy(out, in, n, stride, 2);
}

/* bf16 pairs for the direct convolution (omp_bf16_pairs.c): out[i] =
 * lo[i*stride] in the low half, hi[i*stride] in the high (zero where hi
 * is NULL), for i in [0, n). */
void kb_omp_bf16_pair_row(uint32_t *out, const uint16_t *lo,
                          const uint16_t *hi, int64_t n, int64_t stride);
int64_t kb_omp_direct_cols(const kb_omp_direct_args *a);
void kb_omp_conv_direct(const kb_omp_direct_args *a, int nthreads);
/* The slices kb_omp_conv_direct cuts an m x k by image-of-img_elems-words
 * reduction into where its partial sums have an f32 home, so that the
 * operand read again (the smaller) stays within reread_bytes; 1 where it
 * is not cut. */
int64_t kb_omp_direct_slices(int64_t m, int64_t k, int64_t img_elems,
                             int64_t reread_bytes);

/* Kernel entry points over the host tensors of p (f32, or bf16/f16 as
 * p->dt says).  Each cannot fail once prepared.  nthreads >= 1
 * (OpenMP's num_threads must be positive).  conv: ws and wei_nxc (the
 * weight reorder, see kb_omp_conv_reorder_weights) are read only on the
 * GEMM path, wei_nxc only for NXC; there ws->nthreads == nthreads. */
void kb_omp_gemm_problem(const kb_problem *p, const kb_tensors *t,
                         const kb_omp_workspace *ws);
void kb_omp_conv(const kb_problem *p, const kb_tensors *t,
                 const void *wei_nxc, const kb_omp_workspace *ws,
                 int nthreads);
void kb_omp_bnorm(const kb_problem *p, const kb_tensors *t, int nthreads);
/* bnorm's data types: the activations all f32, bf16 or f16. */
bool kb_omp_bnorm_supports(const kb_dts *dt);

/* What the workspace of kb_omp_gemm_problem and of kb_omp_conv's GEMM
 * path must hold for p. */
kb_omp_ws_need kb_omp_gemm_problem_need(const kb_problem *p);
kb_omp_ws_need kb_omp_conv_need(const kb_problem *p);

/* NXC convolution multiplies by the weights as [G][T*R*S*C/G][K/G]
 * (channel fastest in the reduction, as NXC stores src).  Elements of
 * that buffer (stored as the weights are), and the reorder itself, done
 * in prepare(). */
int64_t kb_omp_conv_nxc_weight_elems(const kb_problem *p);
void kb_omp_conv_reorder_weights(const kb_problem *p, const void *wei,
                                 void *out);

/* Backward convolution (BWD_D, BWD_W, BWD_WB; omp_conv_bwd*.c): its plan,
 * made in prepare(), holds the way chosen and that way's buffers. */
typedef struct kb_omp_conv_bwd_plan kb_omp_conv_bwd_plan;
/* Its data types: one for every tensor, f32, bf16 or f16. */
bool kb_omp_conv_bwd_supports(const kb_dts *dt);
/* Bytes kb_omp_conv_bwd_prepare allocates for p and nthreads. */
size_t kb_omp_conv_bwd_extra_bytes(const kb_problem *p, int nthreads);
/* Keeps t (the host tensors) and rearranges its weights.  Returns 0, or
 * -1 (out of memory) with *out NULL and nothing left allocated. */
int kb_omp_conv_bwd_prepare(const kb_problem *p, const kb_tensors *t,
                            int nthreads, kb_omp_conv_bwd_plan **out);
void kb_omp_conv_bwd(const kb_omp_conv_bwd_plan *pl);   /* cannot fail */
void kb_omp_conv_bwd_free(kb_omp_conv_bwd_plan *pl);    /* NULL: nothing */

#endif
