/* gen_jpeg.c - real JPEG samples (libjpeg-turbo), sized to the profile's
 * mean: a smooth random image plus noise, its dimensions corrected once
 * from a first encode so the file lands near the target size.  Without
 * libjpeg-turbo, making one is a clear error. */
#include "iostage/formats/body.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <stdio.h>

#ifdef KB_IO_HAVE_JPEG
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* Fill an RGB image: per-channel gradients plus uniform noise, so the
 * encoder sees photo-like statistics rather than pure noise. */
static void paint(uint8_t *px, int w, int h, uint64_t s)
{
    int gx[3], gy[3], base[3];
    for (int c = 0; c < 3; c++) {
        base[c] = (int)(kb_splitmix64(&s) % 128);
        gx[c] = (int)(kb_splitmix64(&s) % 128);
        gy[c] = (int)(kb_splitmix64(&s) % 128);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint64_t r = kb_splitmix64(&s);
            for (int c = 0; c < 3; c++) {
                int v = base[c] + gx[c] * x / w + gy[c] * y / h +
                        (int)((r >> (16 * c)) % 48);
                px[((size_t)y * w + x) * 3 + c] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
}

/* Encode a w x h image; the result is tjAlloc'd.  0 or KB_IO_ERROR. */
static int encode(tjhandle tj, int w, int h, uint64_t seed, uint8_t **jpg,
                  unsigned long *size, char *err, size_t elen)
{
    uint8_t *px = malloc((size_t)w * h * 3);
    if (!px) {
        snprintf(err, elen, "out of memory for a %dx%d image", w, h);
        return KB_IO_ERROR;
    }
    paint(px, w, h, seed);
    *jpg = NULL;
    int rc = tjCompress2(tj, px, w, 0, h, TJPF_RGB, jpg, size, TJSAMP_420,
                         90, TJFLAG_FASTDCT);
    free(px);
    if (rc) {
        snprintf(err, elen, "JPEG encode of %dx%d failed: %s", w, h,
                 tjGetErrorStr2(tj));
        tjFree(*jpg);
        return KB_IO_ERROR;
    }
    return 0;
}

int kb_io_jpeg_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen)
{
    tjhandle tj = tjInitCompress();
    if (!tj) {
        snprintf(err, elen, "libjpeg-turbo: cannot start a compressor");
        return KB_IO_ERROR;
    }
    double target = (double)kb_io_random_size(p, seed, id);
    uint64_t s = kb_mix64(seed) ^ kb_mix64(id);
    /* first guess: ~1 byte a pixel at quality 90, aspect 4:3 */
    double pixels = target;
    uint8_t *jpg = NULL;
    unsigned long size = 0;
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        int w = (int)sqrt(pixels * 4 / 3), h = w * 3 / 4;
        if (w < 16 || h < 16)
            w = h = 16;
        tjFree(jpg);
        rc = encode(tj, w, h, s, &jpg, &size, err, elen);
        if (!rc)
            pixels *= target / (double)size;
    }
    if (!rc) {
        *body = malloc(size);
        if (!*body) {
            snprintf(err, elen, "out of memory for a %lu-byte JPEG", size);
            rc = KB_IO_ERROR;
        } else {
            memcpy(*body, jpg, size);
            *len = size;
        }
    }
    tjFree(jpg);
    tjDestroy(tj);
    return rc;
}
#else
int kb_io_jpeg_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen)
{
    (void)seed, (void)id, (void)body, (void)len;
    snprintf(err, elen, "profile %s: JPEG samples need libjpeg-turbo, which "
             "this kbench was built without (Debian: libturbojpeg0-dev)",
             p->name);
    return KB_IO_USAGE;
}
#endif
