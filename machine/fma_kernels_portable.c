/* fma_kernels_portable.c - the FMA ceiling kernels (fma_kernels.h) of an
 * architecture kbench has no intrinsics for: 128-bit GCC vectors, which
 * the compiler maps to whatever SIMD the build's flags allow. */
#include "machine/fma_kernel_vec.h"
#include "machine/fma_kernels.h"

typedef double v2d __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

FMA_KERNEL(fma_f64_vec128, v2d, double, )
FMA_KERNEL(fma_f32_vec128, v4f, float, )
FMA_LANES(lanes_2, 2)
FMA_LANES(lanes_4, 4)
static int always(void) { return 1; }

const kb_fma_kernel kb_fma_kernels[] = {
    {"fp64", "vec128", KB_FMA_CHAINS, lanes_2, always, fma_f64_vec128},
    {"fp32", "vec128", KB_FMA_CHAINS, lanes_4, always, fma_f32_vec128},
};
const int kb_fma_nkernels = sizeof kb_fma_kernels / sizeof kb_fma_kernels[0];
