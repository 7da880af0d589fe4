/* checksum.c - CRC-32 and CRC32C for the read path, which verifies every
 * byte it reads and was CPU-bound on it (24 % of a cold unet3d read in
 * zlib's crc32_z, 8 % in a hand-written SSE4.2 CRC32C that did not build
 * on Arm).  ISA-L (Debian's libisal-dev) has SIMD versions of both for
 * x86-64 and Arm, chosen at run time; without it CRC-32 is zlib's and
 * CRC32C a byte-wise table, portable and slower. */
#include "iostage/checksum.h"

#ifdef KB_IO_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <pthread.h>
#include <zlib.h>
#endif

#ifdef KB_IO_HAVE_ISAL

/* crc32_gzip_refl is zlib's CRC-32, its initial and final inversions
 * inside, so it chains as zlib's does. */
uint32_t kb_io_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    return crc32_gzip_refl(crc, p, n);
}

/* crc32_iscsi leaves both inversions to the caller, and takes an int
 * length: fed at most 1 GiB a call. */
uint32_t kb_io_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;
    while (n) {
        int step = n > (1u << 30) ? 1 << 30 : (int)n;
        c = crc32_iscsi((unsigned char *)p, step, c);
        p += step;
        n -= (size_t)step;
    }
    return ~c;
}

const char *kb_io_checksum_impl(void) { return "isa-l"; }

#else

uint32_t kb_io_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    uLong c = crc;
    while (n) {  /* zlib's length is a uInt: at most 1 GiB a call */
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, step);
        p += step;
        n -= step;
    }
    return (uint32_t)c;
}

/* Reflected polynomial 0x82F63B78, one table lookup a byte. */
static uint32_t crc32c_table[256];

static void crc32c_table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc32c_table[i] = c;
    }
}

uint32_t kb_io_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc32c_table_init);
    uint32_t c = ~crc;
    for (; n; n--, p++)
        c = crc32c_table[(c ^ *p) & 0xff] ^ (c >> 8);
    return ~c;
}

const char *kb_io_checksum_impl(void) { return "zlib+table"; }

#endif
