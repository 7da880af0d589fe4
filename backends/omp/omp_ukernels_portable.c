/* omp_ukernels_portable.c - the micro-kernels of an architecture kbench
 * has no intrinsics for: none beyond omp_ukernels.c's portable ones. */
#include "omp_ukernels_arch.h"

#include <stddef.h>

const kb_omp_ukernel *kb_omp_arch_ukernels(int *n)
{
    *n = 0;
    return NULL;
}
