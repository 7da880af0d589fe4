/* sha256.h - SHA-256 (FIPS 180-4, libcrypto) of a buffer, as 64 hex digits: the
 * content hash that keeps a results file added twice stored once. */
#ifndef KB_SHA256_H
#define KB_SHA256_H

#include <stddef.h>

/* hex[65] gets the digest of data[n] in lower-case hex.  Can't fail. */
void kb_sha256_hex(const void *data, size_t n, char hex[65]);

#endif
