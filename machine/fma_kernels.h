/* fma_kernels.h - the interface between the FMA-ceiling driver
 * (fma_peak.c: calibrate, measure, choose) and one architecture's FMA
 * kernels (fma_kernels_<arch>.c, the one file CMake builds for the target;
 * only that file includes the ISA's headers).  The table lists each
 * precision's kernels together; the driver measures every one the CPU
 * supports and keeps the best of each precision (a tie goes to the
 * earlier).  run() needs iters >= 1. */
#ifndef KB_FMA_KERNELS_H
#define KB_FMA_KERNELS_H

#include <stdint.h>

typedef struct {
    const char *precision;  /* "fp64", "fp32", "bf16", "fp16" */
    const char *kernel;     /* variant name, e.g. "fma-avx512-x12" */
    int chains;             /* independent accumulator chains */
    int (*lanes)(void);     /* elements per vector (SVE: from the CPU at run time) */
    int (*supported)(void); /* this CPU can run it */
    double (*run)(int64_t iters, double seed); /* chains*lanes FMAs per iter (2 flops each) */
} kb_fma_kernel;
extern const kb_fma_kernel kb_fma_kernels[]; /* per precision, preferred first */
extern const int kb_fma_nkernels;

#endif
