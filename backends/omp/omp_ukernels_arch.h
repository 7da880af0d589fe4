/* omp_ukernels_arch.h - what omp_ukernels.c (the choice) asks of the
 * target architecture's micro-kernel table, omp_ukernels_<arch>.c (x86,
 * arm, or portable: none), and what those files share. */
#ifndef KB_OMP_UKERNELS_ARCH_H
#define KB_OMP_UKERNELS_ARCH_H

#include "omp_kernels.h"

/* This architecture's entries, each type's preferred first; *n of them
 * (0: only the portable ones, which omp_ukernels.c appends). */
const kb_omp_ukernel *kb_omp_arch_ukernels(int *n);

/* The pair panels of the bf16 dot-product kernels (omp_bf16_pairs.c). */
void kb_omp_bf16_to_pairs(const float *panels, int64_t width,
                          int64_t extent, int64_t kc, int64_t kd,
                          uint32_t *out);

#endif
