/* convert.h - the bit-exact conversions between f32 and the 16-bit
 * storage types (bf16, IEEE f16), round to nearest even, shared by
 * kb_load/kb_store, the fills and the backends' portable paths.
 *
 * Written out rather than left to _Float16/__bf16, which not every
 * compiler this project builds with (gcc 12, clang 14) supports on
 * every x86 ISA level. */
#ifndef KB_CONVERT_H
#define KB_CONVERT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t kb_f32_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return x;
}

static inline float kb_f32_from_bits(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* bf16 is the upper half of an f32. */
static inline float kb_bf16_to_f32(uint16_t h)
{
    return kb_f32_from_bits((uint32_t)h << 16);
}

static inline uint16_t kb_f32_to_bf16(float f)
{
    uint32_t x = kb_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40);        /* quiet NaN stays NaN */
    x += 0x7fffu + ((x >> 16) & 1u);                /* ties to even */
    return (uint16_t)(x >> 16);
}

static inline float kb_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {                                   /* zero or subnormal */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    if (e == 31)                                    /* inf or NaN */
        return kb_f32_from_bits(sign | 0x7f800000u | (m << 13));
    return kb_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

static inline uint16_t kb_f32_to_f16(float f)
{
    uint32_t x = kb_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;
    if (a > 0x7f800000u)
        return sign | 0x7e00u;                      /* NaN */
    if (a >= 0x477ff000u)                           /* rounds to >= 65520 */
        return sign | 0x7c00u;                      /* overflow: inf */
    if (a < 0x38800000u)                            /* below 2^-14 */
        /* Subnormal steps are 2^-24; scaling by 2^24 is exact and rintf
         * rounds ties to even (the default rounding mode).  1024 carries
         * into the smallest normal, as it should. */
        return sign | (uint16_t)rintf(kb_f32_from_bits(a) * 0x1p24f);
    uint32_t h = ((a >> 23) - 112u) << 10 | ((a >> 13) & 0x3ffu);
    uint32_t rest = a & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;                                        /* a carry is right too */
    return sign | (uint16_t)h;
}

#endif
