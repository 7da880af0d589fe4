/* omp_ukernel_f32_8x32.c - the portable 8x32 f32 micro-kernel's entry in
 * the table (the body is omp_ukernel_f32_8x32.h): f32 problems, and
 * bf16/f16 ones on widened panels. */
#include "omp_ukernel_f32_8x32.h"

void kb_omp_ukernel_f32_8x32(int64_t kc, const void *a, const void *b,
                             kb_v16sf acc[][KB_OMP_NR / 16])
{
    kb_omp_f32_8x32_body(kc, a, b, acc);
}
