/* test_io_checksum.c - the stage's CRC-32 and CRC32C (iostage/checksum.c)
 * on published check values, piecewise, and against bit-at-a-time
 * references over a buffer long enough for the SIMD paths.  Built twice:
 * with the build's implementation (ISA-L when found) and with the fallback
 * (zlib and a table), so both are proven. */
#include "iostage/checksum.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bit at a time, reflected, initial and final inversion: the textbook
 * definition of both CRCs, with polynomial poly. */
static uint32_t crc_bitwise(uint32_t poly, const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ poly : c >> 1;
    }
    return ~c;
}
#define IEEE 0xEDB88320u
#define CASTAGNOLI 0x82F63B78u

/* The check values of "123456789" (the CRC catalogue), the empty input,
 * and RFC 3720's CRC32C vectors (B.4: 32 zeros, 32 x 0xff, 0 .. 31). */
static void test_known_vectors(void)
{
    const uint8_t *s = (const uint8_t *)"123456789";
    CHECK(kb_io_crc32(0, s, 9) == 0xCBF43926u);
    CHECK(kb_io_crc32c(0, s, 9) == 0xE3069283u);
    CHECK(kb_io_crc32(0, s, 0) == 0 && kb_io_crc32c(0, s, 0) == 0);
    uint8_t b[32];
    memset(b, 0, sizeof b);
    CHECK(kb_io_crc32c(0, b, 32) == 0x8A9136AAu);
    memset(b, 0xff, sizeof b);
    CHECK(kb_io_crc32c(0, b, 32) == 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    CHECK(kb_io_crc32c(0, b, 32) == 0x46DD794Eu);
}

/* 1 MiB and 3 bytes of pseudo-random data: whole, and in uneven pieces
 * chained as zlib chains (f(f(0, a), b)), against the references. */
static void test_long_and_piecewise(void)
{
    size_t n = (1u << 20) + 3;
    uint8_t *p = malloc(n);
    CHECK(p != NULL);
    if (!p)
        return;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)x;
    }
    uint32_t want32 = crc_bitwise(IEEE, p, n);
    uint32_t want32c = crc_bitwise(CASTAGNOLI, p, n);
    CHECK(kb_io_crc32(0, p, n) == want32);
    CHECK(kb_io_crc32c(0, p, n) == want32c);
    const size_t cuts[] = {1, 7, 64, 4093, 65536, 300001};
    uint32_t c32 = 0, c32c = 0;
    size_t at = 0;
    for (size_t k = 0; at < n; k++) {
        size_t step = cuts[k % 6] < n - at ? cuts[k % 6] : n - at;
        c32 = kb_io_crc32(c32, p + at, step);
        c32c = kb_io_crc32c(c32c, p + at, step);
        at += step;
    }
    CHECK(c32 == want32 && c32c == want32c);
    free(p);
}

static const char *want_impl_;   /* argv[1] */

/* the implementation built is the one the build found */
static void test_impl(void)
{
    printf("checksums: %s\n", kb_io_checksum_impl());
    CHECK(want_impl_ && strcmp(kb_io_checksum_impl(), want_impl_) == 0);
}

static const check_test tests[] = {
    CHECK_TEST(impl), CHECK_TEST(known_vectors), CHECK_TEST(long_and_piecewise),
    CHECK_END};

/* argv[1]: the implementation this build must have, "isa-l" or
 * "zlib+table"; sub-test names may follow it. */
int main(int argc, char **argv)
{
    want_impl_ = argc >= 2 ? argv[1] : NULL;
    return check_main_args(argc, argv, argc >= 2 ? 1 : 0, tests);
}
