/* sha256.c - SHA-256 from OpenSSL's libcrypto (EVP), as hex. */
#include "history/sha256.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

void kb_sha256_hex(const void *data, size_t n, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    /* EVP_Digest fails only without memory or a SHA-256 provider:
     * an all-zero hash then, which no file has. */
    if (!EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) || len != 32)
        memset(md, 0, 32);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}
