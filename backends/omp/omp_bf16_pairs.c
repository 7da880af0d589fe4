/* omp_bf16_pairs.c - the bf16 pair panels that the dot-product
 * micro-kernels read (x86's vdpbf16ps and AMX's B tiles, Arm's BFDOT):
 * plain C, any architecture; and the direct convolution's pair copies. */
#include "omp_kernels.h"

/* Pair panels: vdpbf16ps multiplies bf16 pairs, (x[2i], x[2i+1]) in each
 * 32-bit lane, so a panel of width w stores, for each pair of k, w words
 * (low half k even, high half k odd); rows past kc, up to kd, are zero.
 * The f32 panels were widened from bf16 (or are zero padding), so each
 * value is a bf16 exactly and taking its upper half is its exact
 * conversion (NaN and inf included).  AMX's B tiles and Arm's BFDOT
 * read the same. */
static uint32_t pair_of(const uint32_t *f, int64_t width, int64_t kc,
                        int64_t k, int64_t j)
{
    uint32_t lo = k < kc ? f[k * width + j] >> 16 : 0;
    uint32_t hi = k + 1 < kc ? f[(k + 1) * width + j] & 0xffff0000u : 0;
    return lo | hi;
}

void kb_omp_bf16_to_pairs(const float *panels, int64_t width,
                          int64_t extent, int64_t kc, int64_t kd,
                          uint32_t *out)
{
    int64_t npanels = (extent + width - 1) / width;
    for (int64_t p = 0; p < npanels; p++) {
        const uint32_t *f = (const uint32_t *)(panels + p * kc * width);
        uint32_t *o = out + p * (kd / 2) * width;
        int64_t k = 0;
        for (; k + 1 < kc; k += 2, o += width)      /* full pairs */
            for (int64_t j = 0; j < width; j++)
                o[j] = f[k * width + j] >> 16 |
                       (f[(k + 1) * width + j] & 0xffff0000u);
        for (; k < kd; k += 2, o += width)          /* the padded tail */
            for (int64_t j = 0; j < width; j++)
                o[j] = pair_of(f, width, kc, k, j);
    }
}

/* The direct convolution pairs channels 2c and 2c+1 of the same tap and
 * pixel, so its copies of the image and the weights interleave two rows
 * (or one and zeros: an odd channel count's last). */
void kb_omp_bf16_pair_row(uint32_t *out, const uint16_t *lo,
                          const uint16_t *hi, int64_t n, int64_t stride)
{
    if (!hi) {
        for (int64_t i = 0; i < n; i++)
            out[i] = lo[i * stride];
        return;
    }
    if (stride == 2) {   /* constant: vector loads and permutes */
        for (int64_t i = 0; i < n; i++)
            out[i] = lo[2 * i] | (uint32_t)hi[2 * i] << 16;
        return;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = lo[i * stride] | (uint32_t)hi[i * stride] << 16;
}
