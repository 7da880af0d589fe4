/* fma_kernel_vec.h - the FMA ceiling kernel written once in GCC vector
 * extensions, for x86's SSE, AVX2 and AVX-512 widths and the portable
 * vectors of an architecture without kernels of its own.  (Not Arm's:
 * there the convergent acc * m + a needs a register copy per FMLA, whose
 * addend is its destination; fma_kernels_arm.c uses intrinsics.)  Each
 * fma_kernels_<arch>.c instantiates it for its widths; the file is built
 * with -ffp-contract=fast, which turns acc * m + a into one FMA
 * instruction. */
#ifndef KB_FMA_KERNEL_VEC_H
#define KB_FMA_KERNEL_VEC_H

#include <stdint.h>

/* Independent accumulators per thread.  An FMA unit keeps latency x ports
 * operations in flight (4 x 2 = 8 on current x86 cores); 12 leaves margin
 * and, with the two operand registers, still fits AVX2's 16 registers. */
#define KB_FMA_CHAINS 12

/* FMA_KERNEL defines `static double NAME(int64_t iters, double seed)`:
 * KB_FMA_CHAINS independent chains acc = acc * m + a of vector type VTYPE
 * (elements ETYPE), iters times, compiled with the function attribute
 * ATTR (x86: the ISA, so that one build carries every width and picks
 * one at run time).  acc converges to a / (1 - m), so no value
 * overflows or turns denormal, however long it runs; it returns the mean
 * of the chains' lane 0, 4 x seed once converged. */
#define FMA_KERNEL(NAME, VTYPE, ETYPE, ATTR)                                 \
    ATTR __attribute__((noinline))                                           \
    static double NAME(int64_t iters, double seed)                           \
    {                                                                        \
        VTYPE acc[KB_FMA_CHAINS], m, a;                                      \
        for (int l = 0; l < (int)(sizeof m / sizeof m[0]); l++) {            \
            m[l] = (ETYPE)0.75;                                              \
            a[l] = (ETYPE)seed;                                              \
        }                                                                    \
        /* distinct starts, or the compiler would compute one chain */     \
        for (int c = 0; c < KB_FMA_CHAINS; c++)                              \
            acc[c] = a * (ETYPE)(c + 1);                                     \
        for (int64_t i = 0; i < iters; i++) {                                \
            _Pragma("GCC unroll 16")                                         \
            for (int c = 0; c < KB_FMA_CHAINS; c++)                          \
                acc[c] = acc[c] * m + a;                                     \
        }                                                                    \
        double sum = 0;   /* of every chain, or the others are dropped */  \
        for (int c = 0; c < KB_FMA_CHAINS; c++)                              \
            sum += (double)acc[c][0];                                        \
        return sum / KB_FMA_CHAINS;                                          \
    }

/* `static int NAME(void)` returning the fixed lane count N. */
#define FMA_LANES(NAME, N) static int NAME(void) { return N; }

#endif
