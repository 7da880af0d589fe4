/* omp_ukernel_amx_bf16_16x32.c - the 16x32 bf16 micro-kernel on AMX's
 * tile multiply (tdpbf16ps), and the A panels it reads.  Compiled for
 * that ISA whatever the build's flags; called only when the CPU has it and
 * Linux granted the tile state (omp_ukernels.c).
 *
 * Tiles: C as two 16 x 16 f32 tiles (tmm0, tmm1: columns 0-15, 16-31),
 * one 16-row A tile of 32 k (tmm2) and two 16-row B tiles of 16 k-pairs
 * (tmm3, tmm4), loaded straight from the vdpbf16ps pair panels (one row
 * per k-pair, 32 words: the halves at stride 128 bytes).  A tile-multiply
 * takes as long for 8 rows as for 16, so the kernel takes two of the
 * packers' 8-row panels at once: twice the work per B tile loaded. */
#include "omp_kernels.h"

#include <immintrin.h>

enum { MR = 16, NR = KB_OMP_NR, KCHUNK = 32 };
_Static_assert((int)MR <= (int)KB_OMP_MR_MAX &&
               (int)MR % (int)KB_OMP_MR == 0,
               "the engine's tile buffer holds the kernel's rows");

/* A panels: MR rows (the f32 panels' rows, width each, regrouped), per
 * 32-deep chunk of k MR rows of 16 pairs (64 bytes), as a tile row is
 * stored; kd is a multiple of 32, zero past kc and past the block's
 * panels.  As in kb_omp_bf16_to_pairs the values are bf16 exactly, so
 * the upper halves are their conversion. */
/* Word q of row i's 32-deep chunk at k = c: the pair (c+2q, c+2q+1). */
static uint32_t a_pair(const uint32_t *f, int64_t width, int64_t kc,
                       int64_t k, int64_t i)
{
    uint32_t lo = k < kc ? f[k * width + i] >> 16 : 0;
    uint32_t hi = k + 1 < kc ? f[(k + 1) * width + i] & 0xffff0000u : 0;
    return lo | hi;
}

void kb_omp_amx_a_panels(const float *panels, int64_t width, int64_t extent,
                         int64_t kc, int64_t kd, uint32_t *out)
{
    int64_t npanels = (extent + width - 1) / width;
    int64_t ngroups = (extent + MR - 1) / MR;
    for (int64_t g = 0; g < ngroups; g++) {
        uint32_t *o = out + g * (kd / 2) * MR;
        for (int64_t c = 0; c < kd; c += KCHUNK)
            for (int64_t r = 0; r < MR; r++, o += KCHUNK / 2) {
                int64_t p = (g * MR + r) / width, i = r % width;
                const uint32_t *f = (const uint32_t *)(panels +
                                                       p * kc * width);
                if (p >= npanels) {                /* rows past the block */
                    memset(o, 0, KCHUNK / 2 * sizeof(uint32_t));
                } else if (c + KCHUNK <= kc) {     /* the common case */
                    for (int64_t q = 0; q < KCHUNK / 2; q++)
                        o[q] = f[(c + 2 * q) * width + i] >> 16 |
                               (f[(c + 2 * q + 1) * width + i] & 0xffff0000u);
                } else {                           /* the padded tail */
                    for (int64_t q = 0; q < KCHUNK / 2; q++)
                        o[q] = a_pair(f, width, kc, c + 2 * q, i);
                }
            }
    }
}

/* LDTILECFG's 64-byte operand, palette 1. */
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed, aligned(64))) tile_config;

static const tile_config config = {
    .palette = 1,
    .colsb = { 64, 64, 64, 64, 64 },
    .rows = { MR, MR, MR, KCHUNK / 2, KCHUNK / 2 },
};

__attribute__((target("amx-tile")))
void kb_omp_amx_begin(void)
{
    _tile_loadconfig(&config);
}

__attribute__((target("amx-tile")))
void kb_omp_amx_end(void)
{
    _tile_release();
}

/* acc = the kc-deep product of one A and one B panel, 32 k per step. */
__attribute__((target("amx-tile,amx-bf16")))
void kb_omp_ukernel_amx_bf16_16x32(int64_t kc, const void *pa,
                                   const void *pb,
                                   kb_v16sf acc[][KB_OMP_NR / 16])
{
    const char *a = pa, *b = pb;
    _tile_zero(0);
    _tile_zero(1);
    for (int64_t k = 0; k < kc; k += KCHUNK) {
        _tile_loadd(2, a, KCHUNK * 2);
        _tile_loadd(3, b, NR * 4);
        _tile_loadd(4, b + 64, NR * 4);
        _tile_dpbf16ps(0, 2, 3);
        _tile_dpbf16ps(1, 2, 4);
        a += MR * KCHUNK * 2;
        b += KCHUNK / 2 * NR * 4;
    }
    _tile_stored(0, acc, NR * 4);
    _tile_stored(1, (float *)acc + 16, NR * 4);
}
