/* fma_kernels.h - the FMA ceiling kernels of one architecture
 * (fma_kernels_<arch>.c, the one CMake compiles for the target: x86,
 * arm, or portable GCC vectors), measured by fma_peak.c. */
#ifndef KB_FMA_KERNELS_H
#define KB_FMA_KERNELS_H

#include <stdint.h>

typedef struct {
    const char *precision;  /* "fp64", "fp32", "bf16", "fp16" */
    const char *kernel;     /* variant name, e.g. "fma-neon-x12", "fma-sve-x12" */
    int chains;             /* independent accumulator chains */
    int (*lanes)(void);     /* elements per vector (SVE: from the CPU at run time) */
    int (*supported)(void); /* this CPU can run it */
    double (*run)(int64_t iters, double seed); /* chains*lanes FMAs per iter (2 flops each) */
} kb_fma_kernel;

extern const kb_fma_kernel kb_fma_kernels[]; /* per precision, preferred first */
extern const int kb_fma_nkernels;

#endif
