/* test_convert.c - the f32 <-> bf16/f16 conversions of kernels/convert.h:
 * every 16-bit pattern round-trips, every tie between two neighbours
 * rounds to the even one, and overflow, subnormals and NaN against
 * known values. */
#include <stdbool.h>
#include <stdint.h>

#include "kernels/convert.h"
#include "tests/check.h"

static bool f16_is_nan(uint16_t h)
{
    return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

static bool bf16_is_nan(uint16_t h)
{
    return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

/* All 65536 patterns of each: f16 -> f32 -> f16 and bf16 -> f32 -> bf16
 * give the pattern back (NaN stays NaN, of either sign's payload). */
static void test_round_trips(void)
{
    long f16_bad = 0, bf16_bad = 0;
    for (uint32_t i = 0; i <= 0xffffu; i++) {
        uint16_t h = (uint16_t)i;
        uint16_t f = kb_f32_to_f16(kb_f16_to_f32(h));
        uint16_t b = kb_f32_to_bf16(kb_bf16_to_f32(h));
        f16_bad += f16_is_nan(h) ? !f16_is_nan(f) : f != h;
        bf16_bad += bf16_is_nan(h) ? !bf16_is_nan(b) : b != h;
    }
    CHECK(f16_bad == 0);
    CHECK(bf16_bad == 0);
}

/* The f32 halfway between two neighbouring 16-bit values (exact in f32:
 * one more bit) rounds to the one with the even pattern; one f32 step
 * either side of it rounds to the nearer.  Every positive finite pair of
 * neighbours, and the negative ones by symmetry of the sign bit. */
static void test_ties_to_even(void)
{
    long bad = 0;
    for (uint32_t i = 0; i < 0x7bffu; i++) {          /* f16: below 65504 */
        float lo = kb_f16_to_f32((uint16_t)i), hi = kb_f16_to_f32((uint16_t)(i + 1));
        float mid = (lo + hi) / 2;                     /* exact */
        uint16_t even = (uint16_t)(i & 1u ? i + 1 : i);
        bad += kb_f32_to_f16(mid) != even;
        bad += kb_f32_to_f16(-mid) != (uint16_t)(even | 0x8000u);
        bad += kb_f32_to_f16(nextafterf(mid, 0)) != i;
        bad += kb_f32_to_f16(nextafterf(mid, INFINITY)) != i + 1;
    }
    for (uint32_t i = 0; i < 0x7f7fu; i++) {          /* bf16: finite */
        uint32_t mid = i << 16 | 0x8000u;               /* halfway */
        uint16_t even = (uint16_t)(i & 1u ? i + 1 : i);
        bad += kb_f32_to_bf16(kb_f32_from_bits(mid)) != even;
        bad += kb_f32_to_bf16(kb_f32_from_bits(mid | 0x80000000u)) !=
               (uint16_t)(even | 0x8000u);
        bad += kb_f32_to_bf16(kb_f32_from_bits(mid - 1)) != i;
        bad += kb_f32_to_bf16(kb_f32_from_bits(mid + 1)) != i + 1;
    }
    CHECK(bad == 0);
}

static void test_known_values(void)
{
    /* f16: the largest finite, where overflow starts (65520 is halfway
     * to the next binade's 65536 and rounds to even: inf), inf, NaN */
    CHECK(kb_f32_to_f16(65504.0f) == 0x7bffu);
    CHECK(kb_f32_to_f16(nextafterf(65520.0f, 0)) == 0x7bffu);
    CHECK(kb_f32_to_f16(65520.0f) == 0x7c00u);
    CHECK(kb_f32_to_f16(1e5f) == 0x7c00u);
    CHECK(kb_f32_to_f16(-1e5f) == 0xfc00u);
    CHECK(kb_f32_to_f16(INFINITY) == 0x7c00u);
    CHECK(f16_is_nan(kb_f32_to_f16(NAN)));
    CHECK(kb_f16_to_f32(0x7bffu) == 65504.0f);
    CHECK(isinf(kb_f16_to_f32(0x7c00u)) && kb_f16_to_f32(0xfc00u) < 0);
    CHECK(isnan(kb_f16_to_f32(0x7e00u)));
    /* f16 subnormals: steps of 2^-24; 2^-25 is a tie with 0 (even: 0),
     * 3 * 2^-25 one between 1 and 2 (2); the largest subnormal rounds
     * up into the smallest normal 2^-14 */
    CHECK(kb_f32_to_f16(0x1p-24f) == 0x0001u);
    CHECK(kb_f32_to_f16(0x1p-25f) == 0x0000u);
    CHECK(kb_f32_to_f16(0x1.8p-24f) == 0x0002u);
    CHECK(kb_f32_to_f16(0x1p-26f) == 0x0000u);
    CHECK(kb_f32_to_f16(-0x1p-24f) == 0x8001u);
    CHECK(kb_f32_to_f16(1023.5f * 0x1p-24f) == 0x0400u);
    CHECK(kb_f32_to_f16(0x1p-14f) == 0x0400u);
    CHECK(kb_f16_to_f32(0x0001u) == 0x1p-24f);
    CHECK(kb_f16_to_f32(0x03ffu) == 1023 * 0x1p-24f);
    CHECK(kb_f16_to_f32(0x8000u) == 0 && signbit(kb_f16_to_f32(0x8000u)));
    /* f16 normal: 1, and 1 + 2^-11 (a tie: down to 1), 1 + 3 * 2^-11 (up) */
    CHECK(kb_f32_to_f16(1.0f) == 0x3c00u);
    CHECK(kb_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00u);
    CHECK(kb_f32_to_f16(1.0f + 0x1.8p-10f) == 0x3c02u);
    CHECK(kb_f32_to_f16(2049.0f) == 0x6800u);   /* 2048: 2049 is a tie */
    CHECK(kb_f32_to_f16(2051.0f) == 0x6802u);   /* 2052 */
    /* bf16: 8 significant bits; 257 is a tie (256), 259 too (260) */
    CHECK(kb_f32_to_bf16(1.0f) == 0x3f80u);
    CHECK(kb_bf16_to_f32(kb_f32_to_bf16(257.0f)) == 256.0f);
    CHECK(kb_bf16_to_f32(kb_f32_to_bf16(259.0f)) == 260.0f);
    CHECK(kb_bf16_to_f32(kb_f32_to_bf16(255.0f)) == 255.0f);
    CHECK(kb_f32_to_bf16(kb_f32_from_bits(0x7f7fffffu)) == 0x7f80u);  /* inf */
    CHECK(bf16_is_nan(kb_f32_to_bf16(kb_f32_from_bits(0x7f800001u))));
    CHECK(kb_f32_to_bf16(-0.0f) == 0x8000u);
    CHECK(kb_f32_to_bf16(kb_f32_from_bits(0x00008000u)) == 0x0000u);  /* tie */
    CHECK(kb_f32_to_bf16(kb_f32_from_bits(0x00018000u)) == 0x0002u);
}

static const check_test tests[] = {
    CHECK_TEST(round_trips),
    CHECK_TEST(ties_to_even),
    CHECK_TEST(known_values),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
