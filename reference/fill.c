/* fill.c - deterministic input data (validation, fine and random modes)
 * and the NaN poison for outputs.
 *
 * Every tensor is cut into fixed chunks of FILL_CHUNK consecutive logical
 * elements; each chunk has its own generator seeded from (seed, tensor
 * role, chunk index).  Which thread fills a chunk therefore never changes
 * a value (benchdnn's idea), and since chunks follow the logical order,
 * NCHW and NHWC problems get the same logical data. */
#include <math.h>
#include <string.h>

#include "kernels/random.h"
#include "reference/ref_internal.h"

#define FILL_CHUNK 4096

/* Each ingredient goes through the mixer, so neighbouring chunks (or
 * sample points) and roles start far apart. */
uint64_t kb_ref_hash(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t s = seed;
    uint64_t h = kb_splitmix64(&s);
    s = h ^ a;
    h = kb_splitmix64(&s);
    s = h ^ b;
    return kb_splitmix64(&s);
}

/* Integer uniform in [lo, hi] (modulo bias is irrelevant for test data). */
static double draw_int(uint64_t *st, int lo, int hi)
{
    return lo + (int)(kb_splitmix64(st) % (uint64_t)(hi - lo + 1));
}

/* Uniform in [lo, hi), 53 random bits. */
static double draw_uniform(uint64_t *st, double lo, double hi)
{
    double u = (double)(kb_splitmix64(st) >> 11) * 0x1p-53;
    return lo + (hi - lo) * u;
}

/* VALIDATION values.  conv and GEMM: |src| <= 4, |wei| <= 2 and
 * |diff_dst| <= 2, so every product of a pass (src*wei forward,
 * diff_dst*wei BWD_D, diff_dst*src BWD_W) is an integer with |x| <= 8;
 * for sums of up to 2^21 terms (the longest forward one, DeepCAM's ASPP,
 * has 2048*9 = 18432; a BWD_W sum has N x output positions terms,
 * CosmoFlow's first layer at mb 1 2^21 = 128^3) every partial sum, in any
 * order, is an integer of at most 2^24 and thus exact in fp32: a correct
 * kernel matches the reference bit for bit, and in bf16/f16 output it
 * stores the exact value rounded once, which is what the reference is
 * compared as (compare.c).  Longer BWD_W sums (a large batch) lose that
 * guarantee but not, in practice, the exactness: the terms are
 * independent, of mean 0 and standard deviation about 3.7, so a partial
 * sum of n of them is about 3.7 sqrt(n), and reaching 2^24 even at n =
 * 2^30 is a deviation of 140 standard deviations.  Every input value is
 * an integer of at most 8 (bnorm: 6) in magnitude, exact in bf16 (8
 * significant bits) and f16 (11).  Bias and the initial GEMM C are small
 * integers too.  bnorm: integer src (see bnorm_balanced_src), mean
 * (backward: the channel's exact mean, as a training step saves it),
 * shift and diff_dst; variances are powers of two in [1/4, 4] and scales
 * nonzero halves, exact binary values (only eps, the sqrt and the
 * division round). */
static double draw_validation(kb_arg a, uint64_t *st)
{
    switch (a) {
    case KB_ARG_SRC:
        return draw_int(st, -4, 4);
    case KB_ARG_WEI:
    case KB_ARG_MEAN:
    case KB_ARG_SHIFT:
    case KB_ARG_DIFF_DST:
        return draw_int(st, -2, 2);
    case KB_ARG_VAR:
        return ldexp(1.0, (int)draw_int(st, -2, 2));
    case KB_ARG_SCALE: {
        double mag = draw_int(st, 1, 4) * 0.5;
        return draw_int(st, 0, 1) ? mag : -mag;
    }
    default:
        break;
    }
    return draw_int(st, -8, 8);   /* bias, GEMM's initial C */
}

/* FINE values: the VALIDATION ones, plus on one operand of every
 * product (src, or diff_dst where src is BWD_D's output) a fraction f =
 * +-(2j + 1) 2^-s, 0 <= j < 2^(s-2), so |f| < 1/2 with its bit 2^-s set:
 * |fine| < 4.5, the other operand an integer of at most 2.
 * Reduced precision fails.  TF32 keeps 11 significant bits, so it rounds
 * away the bit 2^-s of every value of magnitude at least 2^(11-s) (s =
 * 12: 1/2, most values; s = 9: 4, one in nine), bf16 (8 bits) of every
 * one of at least 2^(8-s): a kernel that multiplies in either is off by
 * many ulps of the result.
 * f32 stays exact.  Every product is a multiple of 2^-s below 9, every
 * partial sum, in any order, one below 9 L (L the accumulation length);
 * with the epilogue (bias or beta C, at most 8 in size; alpha) the
 * result is at most E = |alpha| 9 L + |beta| 8 (conv: 9 L + 8), a
 * multiple of q = 2^-s times alpha's and beta's common quantum.  All are
 * exact in f32 (24 bits) when 9 L < 2^(24-s) and E < 2^24 q, so a correct
 * f32 kernel matches the reference bit for bit, as on the VALIDATION
 * data.  s is the largest up to 12 for which that holds (s = 12 up to L
 * of about 450, s = 9 up to about 3600).
 * Below 9 (longer sums) a problem keeps the VALIDATION values, as do the
 * types and --fpmath modes that allow rounded inputs or in which the
 * fractions are not exact (bf16, f16; f64 needs no such check), and
 * bnorm, which has no products to round. */
#define FINE_MAX_BITS 12
#define FINE_MIN_BITS 9

int kb_fill_fine_bits(const kb_problem *p)
{
    if (p->kind == KB_BNORM || !kb_dts_all(&p->dt, KB_F32) ||
        p->fpmath != KB_FPMATH_STRICT)
        return 0;
    const double len = (double)kb_problem_accumulation_length(p);
    double e = 9.0 * len + 8.0, quantum = 1.0;
    if (p->kind == KB_GEMM) {
        e = fabs(p->gemm.alpha) * 9.0 * len + fabs(p->gemm.beta) * 8.0;
        quantum = kb_ref_dyadic_quantum(p->gemm.alpha, p->gemm.beta);
    }
    for (int s = FINE_MAX_BITS; s >= FINE_MIN_BITS && quantum > 0; s--)
        if (9.0 * len < ldexp(1.0, 24 - s) && e < ldexp(quantum, 24 - s))
            return s;
    return 0;
}

/* The operand that carries the fractions: one of every product's two. */
static kb_arg fine_operand(const kb_problem *p)
{
    return p->kind == KB_CONV && p->dir == KB_BWD_D ? KB_ARG_DIFF_DST
                                                    : KB_ARG_SRC;
}

static double draw_fraction(uint64_t *st, int bits)
{
    uint64_t h = kb_splitmix64(st);
    double f = ldexp((double)(2 * (h % (UINT64_C(1) << (bits - 2))) + 1),
                     -bits);
    return (h >> 63) ? -f : f;
}

const char *kb_fill_mode_name(kb_fill_mode m)
{
    switch (m) {
    case KB_FILL_VALIDATION: return "integer";
    case KB_FILL_FINE: return "fine";
    case KB_FILL_RANDOM: return "random";
    }
    return "?";
}

/* Only the validation fills: RANDOM data fail the exact comparison. */
int kb_fill_mode_parse(const char *s, kb_fill_mode *out)
{
    if (strcmp(s, "integer") == 0)
        *out = KB_FILL_VALIDATION;
    else if (strcmp(s, "fine") == 0)
        *out = KB_FILL_FINE;
    else
        return -1;
    return 0;
}

/* RANDOM values: uniform in [-1, 1], variances in [0.5, 1.5]. */
static double draw_random(kb_arg a, uint64_t *st)
{
    if (a == KB_ARG_VAR)
        return draw_uniform(st, 0.5, 1.5);
    return draw_uniform(st, -1.0, 1.0);
}

/* The integer mean, in [-2, 2], of channel c's VALIDATION src. */
static double bnorm_balanced_mean(int64_t c, uint64_t seed)
{
    uint64_t h = kb_ref_hash(seed, (uint64_t)KB_ARG_MEAN, (uint64_t)c);
    return (double)(int)(h % 5) - 2.0;
}

/* VALIDATION src of batchnorm, logical index idx = [n, c, spatial...]:
 * per channel an integer mean m plus deviations in mirrored pairs (the
 * element at position j of the channel's N*S values gets +r, the one at
 * j + L/2 gets -r; an odd last one gets 0).  The channel mean is then
 * exactly m and every deviation an exact integer in any summation order,
 * so a backend computing the statistics in fp32, even in one pass as
 * E[x^2] - E[x]^2, loses no accuracy to the data (benchdnn fills its
 * batchnorm inputs with the same aim).  Plain random integers would give
 * an inexact mean, and such a one-pass kernel would then fail through
 * cancellation, not through a bug. */
static double bnorm_balanced_src(const kb_arg_info *info, const int64_t *idx,
                                 uint64_t seed)
{
    int64_t spatial = 1, s = 0;
    for (int i = 2; i < info->ndims; i++) {
        spatial *= info->dims[i];
        s = s * info->dims[i] + idx[i];
    }
    const int64_t len = info->dims[0] * spatial, half = len / 2;
    const int64_t j = idx[0] * spatial + s, c = idx[1];
    double mean = bnorm_balanced_mean(c, seed), dev = 0.0;
    if (j < 2 * half) {
        int64_t k = j < half ? j : j - half;
        uint64_t h = kb_ref_hash(seed ^ 0x5eedull, (uint64_t)c, (uint64_t)k);
        dev = (double)(int)(h % 9) - 4.0;
        if (j >= half)
            dev = -dev;
    }
    return mean + dev;
}

static void fill_tensor(const kb_problem *p, const kb_arg_info *info,
                        kb_arg a, void *base, kb_fill_mode mode,
                        uint64_t seed)
{
    const int64_t nchunks = (info->nelems + FILL_CHUNK - 1) / FILL_CHUNK;
    const bool balanced = p->kind == KB_BNORM && a == KB_ARG_SRC;
    /* The backward passes read the statistics a forward training pass
     * saved: the mean is the channel's own. */
    const bool saved_mean = p->kind == KB_BNORM && a == KB_ARG_MEAN &&
                            kb_dir_is_backward(p->dir);
    const int fine_bits = mode == KB_FILL_FINE && a == fine_operand(p)
                              ? kb_fill_fine_bits(p)
                              : 0;

#pragma omp parallel for schedule(static)
    for (int64_t ch = 0; ch < nchunks; ch++) {
        uint64_t st = kb_ref_hash(seed, (uint64_t)a, (uint64_t)ch);
        int64_t first = ch * FILL_CHUNK;
        int64_t end = first + FILL_CHUNK < info->nelems ? first + FILL_CHUNK
                                                        : info->nelems;
        int64_t idx[KB_MAX_DIMS];

        kb_ref_unravel(info, first, idx);
        for (int64_t i = first; i < end; i++) {
            double v = mode == KB_FILL_RANDOM ? draw_random(a, &st)
                       : balanced   ? bnorm_balanced_src(info, idx, seed)
                       : saved_mean ? bnorm_balanced_mean(idx[0], seed)
                                    : draw_validation(a, &st);
            if (fine_bits)
                v += draw_fraction(&st, fine_bits);
            kb_store(info->dt, base, kb_arg_offset(p, a, idx), v);
            kb_ref_next_index(info, idx);
        }
    }
}

void kb_fill_inputs(const kb_problem *p, kb_tensors *t, kb_fill_mode mode,
                    uint64_t seed)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (info[a].used && info[a].is_input)
            fill_tensor(p, &info[a], (kb_arg)a, t->ptr[a], mode, seed);
}

/* Only pure outputs are poisoned: a tensor that is also an input (GEMM's
 * dst when beta != 0) holds data the kernel must read, so poisoning it
 * would destroy the problem.  Such a tensor is still fully checked by
 * the non-finite scan and the comparison.  Tensors are dense, so physical
 * offsets 0 .. nelems-1 cover every element whatever the layout. */
void kb_poison_outputs(const kb_problem *p, kb_tensors *t, bool parallel)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used || !info[a].is_output || info[a].is_input)
            continue;
#pragma omp parallel for schedule(static) if (parallel)
        for (int64_t i = 0; i < info[a].nelems; i++)
            kb_store(info[a].dt, t->ptr[a], i, NAN);
    }
}
