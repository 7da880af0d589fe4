/* sample.c - the header every generated sample carries (id + checksum) and
 * the random bytes of generated bodies. */
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <limits.h>
#include <string.h>

void kb_io_fill_random(uint8_t *dst, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t r = kb_splitmix64(&s);
        memcpy(dst + i, &r, 8);
    }
    if (i < n) {
        uint64_t r = kb_splitmix64(&s);
        memcpy(dst + i, &r, n - i);
    }
}

static void put32(uint8_t *d, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        d[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *d, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        d[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *s)
{
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
           (uint32_t)s[3] << 24;
}

static uint64_t get64(const uint8_t *s)
{
    return (uint64_t)get32(s) | (uint64_t)get32(s + 4) << 32;
}

void kb_io_hdr_put(uint8_t *dst, const kb_io_hdr *h)
{
    memcpy(dst, "KBS2", 4);
    put32(dst + 4, h->crc);
    put64(dst + 8, h->id);
    put64(dst + 16, h->body_len);
}

int kb_io_hdr_get(const uint8_t *src, kb_io_hdr *h)
{
    if (memcmp(src, "KBS2", 4) != 0)
        return KB_IO_CORRUPT;
    h->crc = get32(src + 4);
    h->id = get64(src + 8);
    h->body_len = get64(src + 16);
    return 0;
}
