/* decode_jpeg.c - resnet50's decode: libjpeg-turbo decode to RGB, a random
 * crop (35-100 % of the area, aspect 3:4 to 4:3) and a bilinear resize to
 * the profile's dims (224x224x3), as the training pipeline does. */
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <inttypes.h>
#include <stdio.h>

#ifdef KB_IO_HAVE_JPEG
#include <math.h>
#include <turbojpeg.h>

/* Largest image decoded (8192 x 8192, 192 MiB of RGB): the header's
 * dimensions size the buffer, and a corrupt one can claim 65500 x 65500. */
#define MAX_PIXELS ((int64_t)1 << 26)

static size_t jpeg_out_bytes(const kb_io_profile *p)
{
    return (size_t)p->dims[0] * (size_t)p->dims[1] * 3;
}

/* A random crop rectangle inside w x h. */
static void pick_crop(int w, int h, uint64_t rng, int *x0, int *y0, int *cw,
                      int *ch)
{
    double u1 = (double)(kb_splitmix64(&rng) >> 11) / 9007199254740992.0;
    double u2 = (double)(kb_splitmix64(&rng) >> 11) / 9007199254740992.0;
    double area = (0.35 + 0.65 * u1) * w * h;
    double aspect = 0.75 + (4.0 / 3.0 - 0.75) * u2;
    *cw = (int)sqrt(area * aspect);
    *ch = (int)sqrt(area / aspect);
    if (*cw > w) *cw = w;
    if (*ch > h) *ch = h;
    if (*cw < 1) *cw = 1;
    if (*ch < 1) *ch = 1;
    *x0 = (int)(kb_splitmix64(&rng) % (uint64_t)(w - *cw + 1));
    *y0 = (int)(kb_splitmix64(&rng) % (uint64_t)(h - *ch + 1));
}

/* Bilinear resize of the crop of src (w wide, RGB) to ow x oh. */
static void resize(const uint8_t *src, int w, int x0, int y0, int cw, int ch,
                   uint8_t *dst, int ow, int oh)
{
    for (int y = 0; y < oh; y++) {
        double fy = (y + 0.5) * ch / oh - 0.5;
        int iy = fy < 0 ? 0 : (int)fy;
        int iy1 = iy + 1 < ch ? iy + 1 : ch - 1;
        double ay = fy < 0 ? 0 : fy - iy;
        for (int x = 0; x < ow; x++) {
            double fx = (x + 0.5) * cw / ow - 0.5;
            int ix = fx < 0 ? 0 : (int)fx;
            int ix1 = ix + 1 < cw ? ix + 1 : cw - 1;
            double ax = fx < 0 ? 0 : fx - ix;
            const uint8_t *r0 = src + ((size_t)(y0 + iy) * w + x0) * 3;
            const uint8_t *r1 = src + ((size_t)(y0 + iy1) * w + x0) * 3;
            for (int c = 0; c < 3; c++) {
                double top = r0[ix * 3 + c] * (1 - ax) + r0[ix1 * 3 + c] * ax;
                double bot = r1[ix * 3 + c] * (1 - ax) + r1[ix1 * 3 + c] * ax;
                dst[((size_t)y * ow + x) * 3 + c] =
                    (uint8_t)(top * (1 - ay) + bot * ay + 0.5);
            }
        }
    }
}

static int jpeg_decode(const kb_io_profile *p, const kb_io_sample *s,
                       uint64_t rng, void *out, kb_io_scratch *scratch,
                       char *err, size_t len)
{
    tjhandle tj = tjInitDecompress();
    if (!tj) {
        snprintf(err, len, "libjpeg-turbo: cannot start a decompressor");
        return KB_IO_ERROR;
    }
    int w, h, sub, cs, rc = 0;
    if (tjDecompressHeader3(tj, s->body, s->body_len, &w, &h, &sub, &cs)) {
        snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64 " is not a "
                 "JPEG: %s", s->offset, s->id, tjGetErrorStr2(tj));
        rc = KB_IO_CORRUPT;
    } else if (w < 1 || h < 1 || (int64_t)w * h > MAX_PIXELS) {
        snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64 ": JPEG of "
                 "%dx%d pixels, expected at most %" PRId64 " pixels",
                 s->offset, s->id, w, h, MAX_PIXELS);
        rc = KB_IO_CORRUPT;
    } else if (kb_io_scratch_reserve(scratch, (size_t)w * h * 3)) {
        snprintf(err, len, "out of memory for a %dx%d image", w, h);
        rc = KB_IO_ERROR;
    } else if (tjDecompress2(tj, s->body, s->body_len, scratch->p, w, 0, h,
                             TJPF_RGB, TJFLAG_FASTDCT)) {
        snprintf(err, len, "offset %" PRIu64 ": JPEG decode of sample %"
                 PRIu64 " failed: %s", s->offset, s->id, tjGetErrorStr2(tj));
        rc = KB_IO_CORRUPT;
    } else {
        int x0, y0, cw, ch;
        pick_crop(w, h, rng, &x0, &y0, &cw, &ch);
        resize(scratch->p, w, x0, y0, cw, ch, out, (int)p->dims[1],
               (int)p->dims[0]);
    }
    tjDestroy(tj);
    return rc;
}

const kb_io_decoder kb_io_decode_jpeg = {
    .name = "jpeg",
    .out_elem = KB_IO_ELEM_U8,
    .out_bytes = jpeg_out_bytes,
    .decode = jpeg_decode,
};
#else
const kb_io_decoder kb_io_decode_jpeg = {
    .name = "jpeg",
    .missing = "built without libjpeg-turbo (Debian: libturbojpeg0-dev)",
};
#endif
