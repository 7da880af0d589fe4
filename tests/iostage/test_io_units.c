/* test_io_units.c - the I/O stage's pieces on their own: CRC32C, TFRecord
 * framing and its damage detection, shuffles, the prefetch ring, the
 * profile file, a JPEG header's dimensions, a bitmap's id range. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/bitmap.h"
#include "iostage/decode/decoder.h"
#include "iostage/formats/body.h"
#include "iostage/formats/format.h"
#include "iostage/formats/tfrecord.h"
#include "iostage/profile.h"
#include "iostage/ring.h"
#include "iostage/sample.h"
#include "iostage/shuffle.h"
#include "iostage/stage.h"
#include "iostage/checksum.h"

#include <stdio.h>

static int count_cb(void *ctx, const kb_io_sample *s)
{
    int64_t *n = ctx;
    CHECK(s->id == (uint64_t)(100 + *n));
    (*n)++;
    return 0;
}

/* Two framed records with sample ids 100 and 101. */
static size_t make_records(uint8_t *buf)
{
    size_t off = 0;
    for (int k = 0; k < 2; k++) {
        uint8_t data[KB_IO_HDR_BYTES + 10];
        uint8_t *body = data + KB_IO_HDR_BYTES;
        memset(body, 'a' + k, 10);
        kb_io_hdr h = {kb_io_crc32c(0, body, 10), 100 + (uint64_t)k, 10};
        kb_io_hdr_put(data, &h);
        kb_io_tfrecord_put(buf + off, data, sizeof data);
        off += sizeof data + KB_IO_TFRECORD_OVERHEAD;
    }
    return off;
}

static void test_tfrecord(void)
{
    /* the CRC32C check value of "123456789" */
    CHECK(kb_io_crc32c(0, (const uint8_t *)"123456789", 9) == 0xE3069283u);
    const kb_io_format *f = kb_io_format_find("tfrecord");
    uint8_t buf[256], bad[256];
    size_t n = make_records(buf);
    int64_t got = 0;
    char err[KB_IO_ERRLEN];
    CHECK(f->parse(buf, n, KB_IO_VERIFY_CRC, count_cb, &got, err, sizeof err) == 0);
    CHECK(got == 2);
    /* every byte of the second record, flipped, is caught */
    size_t second = n / 2;
    int caught = 0;
    for (size_t i = second; i < n; i++) {
        memcpy(bad, buf, n);
        bad[i] ^= 0x10;
        got = 0;
        int rc = f->parse(bad, n, KB_IO_VERIFY_CRC, count_cb, &got, err, sizeof err);
        caught += rc == KB_IO_CORRUPT && strstr(err, "offset 50") != NULL;
    }
    CHECK(caught == (int)(n - second));
    got = 0;
    CHECK(f->parse(buf, n - 3, KB_IO_VERIFY_CRC, count_cb, &got, err, sizeof err) ==
          KB_IO_CORRUPT);
    CHECK(strstr(err, "truncated") != NULL);
}

/* Walking the records as they arrive, whatever the arrival sizes, finds
 * what one walk over the whole file finds; an incomplete record waits for
 * more data, and is a truncation only in the final walk. */
static void test_tfrecord_parts(void)
{
    const kb_io_format *f = kb_io_format_find("tfrecord");
    CHECK(f->parse_part != NULL);
    uint8_t buf[256];
    size_t n = make_records(buf);
    char err[KB_IO_ERRLEN];
    for (size_t step = 1; step <= n; step++) {
        int64_t got = 0;
        size_t off = 0;
        int rc = 0;
        for (size_t ready = step; ready < n && !rc; ready += step)
            rc = f->parse_part(buf, ready, &off, false, KB_IO_VERIFY_CRC, count_cb, &got, err,
                               sizeof err);
        CHECK(rc == 0 && got <= 2);
        rc = f->parse_part(buf, n, &off, true, KB_IO_VERIFY_CRC, count_cb, &got, err,
                           sizeof err);
        CHECK(rc == 0 && got == 2 && off == n);
    }
    int64_t got = 0;
    size_t off = 0;
    CHECK(f->parse_part(buf, n - 3, &off, false, KB_IO_VERIFY_CRC, count_cb, &got, err,
                        sizeof err) == 0);
    CHECK(got == 1 && off == n / 2);
    CHECK(f->parse_part(buf, n - 3, &off, true, KB_IO_VERIFY_CRC, count_cb, &got, err,
                        sizeof err) == KB_IO_CORRUPT);
    CHECK(strstr(err, "offset 50: truncated") != NULL);
}

static void test_shuffle(void)
{
    int64_t a[100], seen[100] = {0};
    for (int i = 0; i < 100; i++)
        a[i] = i;
    kb_io_shuffle(a, 100, sizeof *a, kb_io_epoch_seed(7, 1, 0));
    int moved = 0;
    for (int i = 0; i < 100; i++) {
        seen[a[i]]++;
        moved += a[i] != i;
    }
    int perm = 1;
    for (int i = 0; i < 100; i++)
        perm &= seen[i] == 1;
    CHECK(perm);
    CHECK(moved > 50);
    CHECK(kb_io_epoch_seed(7, 1, 0) != kb_io_epoch_seed(7, 2, 0));
}

static void test_ring(void)
{
    kb_io_ring *r = kb_io_ring_new(2, 3, 4);
    CHECK(r != NULL);
    kb_io_ring_reset(r, 7);   /* batches of 3, 3, 1 */
    kb_io_batch *b;
    int64_t pos, n;
    /* two slots: claims of six positions do not block; a run stops at
     * the end of its batch */
    CHECK(kb_io_ring_claim(r, 2, &b, &pos) == 2 && pos == 0);
    b->ids[0] = 0, b->ids[1] = 1;
    kb_io_ring_commit(r, b, 2);
    CHECK(kb_io_ring_claim(r, 5, &b, &pos) == 1 && pos == 2);
    b->ids[2] = 2;
    kb_io_ring_commit(r, b, 1);
    for (int i = 3; i < 6; i++) {
        CHECK(kb_io_ring_claim(r, 1, &b, &pos) == 1 && pos == i - 3);
        b->ids[pos] = (uint64_t)i;
        kb_io_ring_commit(r, b, 1);
    }
    b = kb_io_ring_pop(r, &n);
    CHECK(b && n == 3 && b->ids[0] == 0 && b->ids[2] == 2);
    kb_io_ring_release(r, b);
    /* the last batch holds one sample: a run stops at the epoch's end */
    CHECK(kb_io_ring_claim(r, 4, &b, &pos) == 1 && pos == 0);
    b->ids[pos] = 6;
    kb_io_ring_commit(r, b, 1);
    b = kb_io_ring_pop(r, &n);
    CHECK(b && n == 3 && b->ids[2] == 5);
    kb_io_ring_release(r, b);
    b = kb_io_ring_pop(r, &n);
    CHECK(b && n == 1 && b->ids[0] == 6);
    kb_io_ring_release(r, b);
    CHECK(kb_io_ring_pop(r, &n) == NULL);
    kb_io_ring_free(r);
}

static void test_profiles(void)
{
    kb_io_profile p;
    char err[KB_IO_ERRLEN];
    const char *names[] = {"resnet50", "cosmoflow", "unet3d", "bert",
                           "deepcam"};
    for (int i = 0; i < 5; i++)
        CHECK(kb_io_profile_find(kb_io_profiles_path(), names[i], &p, err,
                                 sizeof err) == 0);
    CHECK(kb_io_profile_find(kb_io_profiles_path(), "unet3d", &p, err,
                             sizeof err) == 0 &&
          p.sample_bytes == 146600628 && p.checkpoint_bytes == 499153191);
    CHECK(kb_io_profile_find(kb_io_profiles_path(), "nope", &p, err,
                             sizeof err) == KB_IO_USAGE);
    CHECK(strstr(err, "nope") != NULL);
    char *dir = io_test_mkdtemp();
    char path[600];
    snprintf(path, sizeof path, "%s/bad.conf", dir);
    FILE *f = fopen(path, "w");
    fputs("[x]\nformat = tfrecord\nbatch = -4\n", f);
    fclose(f);
    CHECK(kb_io_profile_find(path, "x", &p, err, sizeof err) == KB_IO_USAGE);
    CHECK(strstr(err, ":3:") != NULL && strstr(err, "batch") != NULL);
    io_test_rmtree(dir);
    free(dir);
}

/* A JPEG whose frame header claims 65280 x 65280 pixels is corrupt, not a
 * 12 GB allocation (found by tests/fuzz). */
static void test_jpeg_dims(void)
{
    IO_TEST_SKIP_WITHOUT_JPEG();
    kb_io_profile p;
    char err[KB_IO_ERRLEN];
    uint8_t *jpg = NULL;
    size_t n = 0, sof = 0;
    CHECK(kb_io_profile_find(KB_IO_TEST_PROFILES, "resnet50", &p, err,
                             sizeof err) == 0);
    CHECK(kb_io_jpeg_make(&p, 1, 0, &jpg, &n, err, sizeof err) == 0);
    /* segments after SOI: FF, marker, 16-bit length; SOF0 holds the
     * precision, then the height and width */
    for (size_t i = 2; jpg && i + 9 < n && jpg[i] == 0xff;
         i += 2 + (size_t)(jpg[i + 2] << 8 | jpg[i + 3]))
        if (jpg[i + 1] == 0xc0) {
            sof = i;
            break;
        }
    CHECK(sof > 0);
    if (!sof) {
        free(jpg);
        return;
    }
    /* 65280 x 65280: libjpeg-turbo itself refuses more than 65500 */
    memcpy(jpg + sof + 5, "\xff\x00\xff\x00", 4);
    kb_io_sample s = {3, jpg, n, 0};
    kb_io_scratch scratch = {0};
    uint8_t *out = malloc(kb_io_decode_jpeg.out_bytes(&p));
    CHECK(kb_io_decode_jpeg.decode(&p, &s, 1, out, &scratch, err,
                                   sizeof err) == KB_IO_CORRUPT);
    CHECK(strstr(err, "65280x65280") != NULL);
    free(out);
    free(scratch.p);
    free(jpg);
}

/* A bitmap's id range is checked against its text before the bitmap is
 * allocated: 2^40 ids cannot come from 7 bytes of zlib (found by
 * tests/fuzz). */
static void test_bitmap_range(void)
{
    uint8_t bits[1] = {0};
    char err[KB_IO_ERRLEN] = "";
    CHECK(kb_io_bitmap_decode("789c030000000001", 0, INT64_C(1) << 40, bits,
                              err, sizeof err) == KB_IO_CORRUPT);
    CHECK(strstr(err, "cannot inflate") != NULL);
}

static const check_test tests[] = {
    CHECK_TEST(tfrecord),
    CHECK_TEST(tfrecord_parts),
    CHECK_TEST(shuffle),
    CHECK_TEST(ring),
    CHECK_TEST(profiles),
    CHECK_TEST(jpeg_dims),
    CHECK_TEST(bitmap_range),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
