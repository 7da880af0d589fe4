/* zip.h - the I/O stage's one zip reader (zip.c): archives read from
 * the end, trusting nothing they say.  kbench's npz and DLIO's npz
 * (npz_archive.h) read through it; npz_archive.c also writes them. */
#ifndef KB_IO_FORMATS_ZIP_H
#define KB_IO_FORMATS_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_ZIP_STORED 0
#define KB_ZIP_DEFLATE 8

/* One member, from its central directory entry (zip64 fields resolved)
 * and its local header; data[0, csize) lies inside the buffer. */
typedef struct {
    const char *name;           /* into the buffer, not NUL-terminated */
    size_t name_len;
    uint32_t method, crc;
    uint64_t csize, usize;
    uint64_t header_off;        /* of the local header, for messages */
    const uint8_t *data;
} kb_zip_member;

typedef struct {
    const uint8_t *buf;
    size_t n;
    uint64_t count;             /* entries the end record declares */
    uint64_t cd_start;          /* the central directory */
    uint64_t cd_end;            /* end of the central directory */
    uint64_t next;              /* offset of the next central entry */
    uint64_t index;             /* entries walked */
    uint64_t members_end;       /* end of the last member's data */
} kb_zip;

/* Find the end records (zip64 when present) and check that the central
 * directory lies inside buf.  0 or KB_IO_CORRUPT ("offset N: ..."). */
int kb_zip_open(kb_zip *z, const uint8_t *buf, size_t n, char *err,
                size_t len);
/* The next member, its local header checked against the central entry.
 * 1 with *m filled, 0 after the last, or KB_IO_CORRUPT. */
int kb_zip_next(kb_zip *z, kb_zip_member *m, char *err, size_t len);
/* Check m's uncompressed size (inflating a deflated member in pieces,
 * zlib) and, with crc_check, its CRC-32 over the uncompressed bytes; the first `cap`
 * uncompressed bytes are copied to head (*got of them).  0 or
 * KB_IO_CORRUPT. */
int kb_zip_verify(const kb_zip *z, const kb_zip_member *m, bool crc_check,
                  uint8_t *head, size_t cap, size_t *got, char *err,
                  size_t len);

#endif
