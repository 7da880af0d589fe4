/* test_omp_bf16_round.c - omp's vector rounding to bf16
 * (kb_omp_bf16_rne16, omp_kernels.h) against the one kbench rounds by
 * everywhere else (kb_f32_to_bf16, kernels/convert.h): bit for bit on
 * the inputs where rounding is delicate, and on random bit patterns. */
#include <stdint.h>
#include <string.h>

#include "backends/omp/omp_kernels.h"
#include "kernels/random.h"
#include "tests/check.h"

/* How many of the 16 lanes of bits round differently from the scalar. */
static int mismatches(const uint32_t bits[16])
{
    kb_v16sf v;
    memcpy(&v, bits, sizeof v);
    kb_v16hu r = kb_omp_bf16_rne16(v);
    int bad = 0;
    for (int i = 0; i < 16; i++)
        if (r[i] != kb_f32_to_bf16(kb_f32_from_bits(bits[i]))) {
            fprintf(stderr, "0x%08x: got 0x%04x, expected 0x%04x\n", bits[i],
                    r[i], kb_f32_to_bf16(kb_f32_from_bits(bits[i])));
            bad++;
        }
    return bad;
}

/* Ties to even (both ways), just past a tie, the largest finite value
 * and the one that rounds to inf, subnormals (kept, not flushed), signed
 * zero, infinities, and NaNs whose payload would round into the
 * exponent. */
static void test_special_values(void)
{
    const uint32_t bits[2][16] = {
        { 0x3f808000, 0x3f818000, 0x3f808001, 0x3f817fff, 0x7f7fffff,
          0x7f7f8000, 0x7f7f7fff, 0x00000001, 0x00008000, 0x00018000,
          0x807fffff, 0x80000000, 0x00000000, 0x7f800000, 0xff800000,
          0x7fffffff },
        { 0x7f800001, 0xff80ffff, 0x7fc00000, 0x7fbfffff, 0x3f7fffff,
          0xbf808000, 0xbf818000, 0x4b7fffff, 0x33800000, 0x00800000,
          0x007fffff, 0x80008000, 0x80018000, 0x3f800000, 0xc2c80000,
          0x4effffff },
    };
    CHECK(mismatches(bits[0]) == 0);
    CHECK(mismatches(bits[1]) == 0);
}

static void test_random_bits(void)
{
    uint64_t state = 42;
    int bad = 0;
    for (int round = 0; round < 1 << 14; round++) {
        uint32_t bits[16];
        for (int i = 0; i < 16; i++)
            bits[i] = (uint32_t)kb_splitmix64(&state);
        bad += mismatches(bits);
    }
    CHECK(bad == 0);
}

static const check_test tests[] = {
    CHECK_TEST(special_values), CHECK_TEST(random_bits), CHECK_END};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
