/* checksum.h - the only place the I/O stage computes checksums
 * (checksum.c): CRC-32 (IEEE, reflected: zip members, gzip) and CRC32C
 * (Castagnoli: TFRecord framing, kbench's sample header), from ISA-L when
 * the build found it, else zlib's CRC-32 and a portable table CRC32C. */
#ifndef KB_IO_CHECKSUM_H
#define KB_IO_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Both take zlib's convention: start from 0, and the CRC of a + b is
 * f(f(0, a), b), so a buffer can be checked in pieces.  Any length.
 * Cannot fail.
 * CRC-32: "123456789" gives 0xCBF43926 (zlib's crc32). */
uint32_t kb_io_crc32(uint32_t crc, const uint8_t *p, size_t n);
/* CRC32C: "123456789" gives 0xE3069283 (RFC 3720's iSCSI CRC). */
uint32_t kb_io_crc32c(uint32_t crc, const uint8_t *p, size_t n);

/* Which code computes them in this build, for records and messages:
 * "isa-l" or "zlib+table". */
const char *kb_io_checksum_impl(void);

#endif
