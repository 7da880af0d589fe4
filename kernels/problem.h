/* problem.h - what a kernel computes: conv, GEMM and batchnorm descriptors.
 *
 * A problem is a shape (the descriptor, in benchdnn's syntax) plus the
 * settings it runs with (data type, layout, direction).  Nothing here
 * implements a kernel; backends/ and reference/ do.  See
 * kernels/descriptor.c for the syntax and kernels/counts.c for FLOP and
 * byte counting. */
#ifndef KB_PROBLEM_H
#define KB_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus   /* the GPU kernels (.cu) include it */
extern "C" {
#endif

typedef enum { KB_CONV, KB_GEMM, KB_BNORM } kb_kind;
#define KB_KIND_COUNT 3

/* Element types (names.c's table gives each its name and size).  bf16 and
 * f16 are stored as their 16-bit patterns; kb_load/kb_store convert.
 * Backends say per problem which they support. */
typedef enum { KB_F32, KB_F64, KB_BF16, KB_F16 } kb_dtype;
#define KB_DTYPE_COUNT 4

/* The data types of one problem, benchdnn's --dt=SRC:WEI:DST.  Each
 * tensor takes one of the three (kb_arg_dtype in tensors.h says which:
 * diff_src as src, diff_wei as wei, diff_dst as dst).  Accumulation is f64
 * when they are f64, else f32 (kb_problem_acc_dtype). */
typedef struct {
    kb_dtype src, wei, dst;
} kb_dts;
#define KB_DTS_INIT(t) {(t), (t), (t)}

/* --fpmath (benchdnn's --attr-fpmath): what an f32 problem may use inside.
 * STRICT, the default, means f32 arithmetic on every backend (no TF32). */
typedef enum { KB_FPMATH_STRICT, KB_FPMATH_TF32, KB_FPMATH_BF16,
               KB_FPMATH_ANY } kb_fpmath;

/* Activation layout: channels before the spatial dims (NCHW, NCDHW) or
 * last (NHWC, NDHWC).  Weights are always [K, C/G, (T,) R, S]. */
typedef enum { KB_LAYOUT_NCX, KB_LAYOUT_NXC } kb_layout;

/* benchdnn's --dir; names.c's table says which kernels have each.
 * conv: FWD_B adds a bias, FWD_D and FWD_I do not; BWD_D computes diff_src
 * from diff_dst and wei, BWD_W diff_wei from src and diff_dst, BWD_WB
 * diff_wei and diff_bia.
 * bnorm: FWD_D is forward training (batch statistics are computed and
 * written), FWD_I is inference with given statistics; BWD_D computes
 * diff_src from src, diff_dst, the saved mean and var and scale, BWD_DW
 * also diff_scale and diff_shift (both treat mean and var as the batch's
 * statistics, as training does).
 * GEMM has only the forward pass (FWD_*, all alike): a fully connected
 * layer's backward passes are GEMMs with transposes, in the catalogs. */
typedef enum { KB_FWD_D, KB_FWD_B, KB_FWD_I, KB_BWD_D, KB_BWD_W, KB_BWD_WB,
               KB_BWD_DW } kb_dir;
#define KB_DIR_COUNT 7

/* Convolution.  2D problems have ndims == 2 and id = od = kd = sd = 1,
 * pd = dd = 0.  Dilation is stored 0-based as in benchdnn: dh == 0 means
 * no dilation, the effective dilation is dh + 1. */
typedef struct {
    int ndims;                 /* spatial dims: 2 or 3 */
    int64_t mb, g, ic, oc;
    int64_t id, ih, iw;
    int64_t od, oh, ow;
    int64_t kd, kh, kw;
    int64_t sd, sh, sw;
    int64_t pd, ph, pw;
    int64_t dd, dh, dw;
} kb_conv_desc;

/* dst[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * dst.  A is stored
 * row-major [M,K], or [K,M] when ta; B [K,N], or [N,K] when tb.
 * m_is_mb marks descriptors written with `mb`: M is the batch, and a
 * run's --mb overrides it.  k_is_mb marks those that give m and leave k
 * out (a fully connected layer's weight gradient, which sums over the
 * batch): K is the batch instead. */
typedef struct {
    int64_t m, n, k;
    bool m_is_mb, k_is_mb;
    bool ta, tb;
    double alpha, beta;
} kb_gemm_desc;

/* Batchnorm over N and the spatial dims, per channel. */
typedef struct {
    int ndims;                 /* spatial dims: 2 or 3 (id given) */
    int64_t mb, ic, id, ih, iw;
    double eps;
} kb_bnorm_desc;

#define KB_NAME_MAX 96

typedef struct {
    kb_kind kind;
    union {
        kb_conv_desc conv;
        kb_gemm_desc gemm;
        kb_bnorm_desc bnorm;
    };
    char name[KB_NAME_MAX];    /* layer name, "" when none */
    int64_t count;             /* occurrences in the model (`*N`), >= 1 */
    kb_dts dt;
    kb_layout layout;
    kb_dir dir;
    kb_fpmath fpmath;
} kb_problem;

/* Settings applied to descriptors as they are parsed; batch-file option
 * lines change them.  mb == 0 keeps each descriptor's own batch. */
typedef struct {
    int64_t mb;
    kb_dts dt;
    kb_layout layout;
    kb_dir dir;
    bool dir_given;            /* false: conv defaults to FWD_B, bnorm to FWD_D */
    kb_fpmath fpmath;
} kb_settings;

void kb_settings_default(kb_settings *s);

/* Parse one descriptor (kind detected from its tokens: `oc` or a kernel
 * size means conv, `m`/`k`/`MxK:KxN` means GEMM, else bnorm), apply the
 * settings, infer and check output sizes.  Returns 0, or -1 with a
 * message in err naming the token, its 1-based column and what was
 * expected (or the impossible shape). */
int kb_problem_parse(const char *text, const kb_settings *s, kb_problem *out,
                     char *err, size_t errlen);

/* Canonical descriptor: parses back (with the same settings) to the same
 * problem.  Returns the length snprintf would have written. */
int kb_problem_format(const kb_problem *p, char *buf, size_t len);

/* The problem's batch: conv/bnorm mb, a GEMM's M or K when the
 * descriptor made it the batch (m_is_mb, k_is_mb), else -1. */
int64_t kb_problem_mb(const kb_problem *p);

/* Apply a batch override to an already parsed problem (conv/bnorm mb,
 * GEMM M when m_is_mb, K when k_is_mb). */
void kb_problem_set_mb(kb_problem *p, int64_t mb);

/* "conv", "gemm" or "bnorm": the kind, whatever its dimensions. */
const char *kb_kind_name(kb_kind kind);
/* "conv2d", "conv3d", "gemm" or "bnorm". */
const char *kb_problem_kernel_name(const kb_problem *p);
const char *kb_dtype_name(kb_dtype dt);
const char *kb_layout_name(const kb_problem *p);   /* "NCHW", "NDHWC", "row-major", ... */
const char *kb_dir_name(kb_dir dir);
size_t kb_dtype_size(kb_dtype dt);
double kb_dtype_epsilon(kb_dtype dt);   /* unit roundoff: 2^-24 for f32 */
int kb_dtype_parse(const char *s, kb_dtype *out);         /* 0 or -1 */
int kb_layout_parse(const char *s, kb_layout *out);       /* nchw, nhwc, ncdhw, ndhwc, abx, axb */
int kb_dir_parse(const char *s, kb_dir *out);             /* FWD_D ... BWD_DW */
int kb_fpmath_parse(const char *s, kb_fpmath *out);       /* strict, tf32, bf16, any */
const char *kb_fpmath_name(kb_fpmath m);

/* The directions this kernel kind has (FWD_* for GEMM), as the bit set
 * 1 << dir, and a "FWD_D, FWD_B, ..." list of them for messages. */
unsigned kb_dir_mask(kb_kind kind);
bool kb_dir_applies(kb_kind kind, kb_dir dir);
const char *kb_dir_list(kb_kind kind);
/* Backward passes: inputs and outputs are gradients. */
bool kb_dir_is_backward(kb_dir dir);

/* --dt: "f32", "bf16" (all three alike) or "SRC:WEI:DST".  Returns 0, or
 * -1 with what was wrong and what is expected in err. */
int kb_dts_parse(const char *s, kb_dts *out, char *err, size_t errlen);
/* "f32" when all three are alike, else "bf16:bf16:f32".  Returns the
 * length snprintf would have written. */
int kb_dts_format(const kb_dts *d, char *buf, size_t len);
bool kb_dts_all(const kb_dts *d, kb_dtype t);     /* src, wei and dst are t */
bool kb_dts_has(const kb_dts *d, kb_dtype t);     /* any of them is t */
kb_dts kb_dts_uniform(kb_dtype t);
/* f64 for f64 problems, else f32: what every backend accumulates in. */
kb_dtype kb_problem_acc_dtype(const kb_problem *p);
/* Whether this kernel kind takes d: bnorm takes one type for all its
 * activations (its statistics are f32, or f64), f64 never mixes.  Writes
 * why not into why. */
bool kb_dts_valid_for(kb_kind kind, const kb_dts *d, char *why, size_t len);

/* Work and compulsory traffic (results/COUNTING.md).  FLOPs count 2 per
 * multiply-add.  kb_problem_flops is the work behind GFLOP/s and the
 * roofline: conv taps that fall on the padding are not counted (benchdnn's
 * count), the bias is included when the problem has one.  The _dense
 * counts take every tap; the _nobias ones leave the bias out.  Model
 * totals are stated without bias, dense and in bounds. */
double kb_problem_flops(const kb_problem *p);
double kb_problem_flops_nobias(const kb_problem *p);
double kb_problem_flops_dense(const kb_problem *p);
double kb_problem_flops_dense_nobias(const kb_problem *p);

/* Minimum bytes, given the last-level cache's size in bytes (all its
 * instances together; 0 when unknown).  Only bnorm's training passes
 * depend on it: forward training reads src a second time, and the
 * backward passes src and diff_dst, when one channel's slices (N x
 * spatial) do not fit, which kb_problem_bytes_reread says (never with an
 * unknown cache). */
double kb_problem_bytes(const kb_problem *p, double llc_bytes);
bool kb_problem_bytes_reread(const kb_problem *p, double llc_bytes);

bool kb_problem_has_bias(const kb_problem *p);

/* A 1x1(x1), stride-1, unpadded convolution: its input, image by image
 * and group by group, already is the column matrix of a GEMM. */
bool kb_conv_is_pointwise(const kb_conv_desc *c);

/* Length of the longest sum behind one output element (a conv or GEMM
 * dot product, BWD_W's sum over images and positions, bnorm's over N and
 * spatial); the tolerance model scales with it. */
int64_t kb_problem_accumulation_length(const kb_problem *p);

#ifdef __cplusplus
}
#endif

#endif
