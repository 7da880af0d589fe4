/* test_io_npz.c - the I/O stage's one npz writer (kb_npz_write) and one
 * zip reader (zip.h), and kbench's npz format on top of them: arrays
 * written and read back, numpy's zip64 layout on request, and damaged
 * archives refused with the offset and what was expected.  DLIO's npz
 * files as numpy writes them are read in test_io_dlio_formats.
 * `test_io_npz [NAME]` runs one sub-test. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/formats/format.h"
#include "iostage/checksum.h"
#include "iostage/formats/npz_archive.h"
#include "iostage/sample.h"

#include <inttypes.h>
#include <stdint.h>

static char err[KB_IO_ERRLEN];

/* The bytes kb_npz_write writes for arrays, malloc'd (*n of them); NULL
 * with the writer's code in *rc on failure. */
static uint8_t *write_npz(const kb_npz_array *a, int count, bool zip64,
                          size_t *n, int *rc)
{
    FILE *f = tmpfile();
    *rc = -100;
    if (!f)
        return NULL;
    *rc = kb_npz_write(fileno(f), a, count, zip64, "mem.npz", err,
                       sizeof err);
    long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *b = *rc || end <= 0 ? NULL : malloc((size_t)end);
    if (b && (fseek(f, 0, SEEK_SET) != 0 ||
              fread(b, 1, (size_t)end, f) != (size_t)end)) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = b ? (size_t)end : 0;
    return b;
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Two arrays written, read back through the zip reader: names, order,
 * dtypes, shapes and data; numpy's force_zip64 adds a 20-byte extra to
 * each local header and nothing else. */
static void test_round_trip(void)
{
    uint8_t x[2 * 3 * 5];
    int64_t y[5] = {0, -1, 2, -3, 4};
    for (size_t i = 0; i < sizeof x; i++)
        x[i] = (uint8_t)(i * 7 + 1);
    kb_npz_array a[2] = {
        {.name = "x.npy", .descr = "|u1", .ndim = 3, .shape = {2, 3, 5},
         .data = x, .data_len = sizeof x},
        {.name = "y.npy", .descr = "<i8", .ndim = 1, .shape = {5},
         .data = (const uint8_t *)y, .data_len = sizeof y}};
    size_t n[2];
    for (int zip64 = 0; zip64 < 2; zip64++) {
        int rc;
        uint8_t *b = write_npz(a, 2, zip64, &n[zip64], &rc);
        CHECK(rc == 0 && b != NULL);
        if (!b)
            continue;
        CHECK(get16(b + 28) == (zip64 ? 20 : 0));   /* first extra */
        kb_zip z;
        kb_zip_member m;
        kb_npy npy;
        CHECK(kb_zip_open(&z, b, n[zip64], err, sizeof err) == 0);
        CHECK(z.count == 2);
        for (int i = 0; i < 2; i++) {
            CHECK(kb_zip_next(&z, &m, err, sizeof err) == 1);
            CHECK(kb_npz_member_is(&m, a[i].name));
            CHECK(m.method == KB_ZIP_STORED);
            CHECK(kb_npz_member(&z, &m, true, &npy, err, sizeof err) == 0);
            CHECK(npy.header_len % 64 == 0);
            CHECK(npy.ndim == a[i].ndim && npy.itemsize == (i ? 8u : 1u));
            for (int k = 0; k < npy.ndim && k < a[i].ndim; k++)
                CHECK(npy.shape[k] == a[i].shape[k]);
            CHECK(npy.data_len == a[i].data_len &&
                  memcmp(m.data + npy.header_len, a[i].data,
                         a[i].data_len) == 0);
        }
        CHECK(kb_zip_next(&z, &m, err, sizeof err) == 0);
        free(b);
    }
    CHECK(n[1] == n[0] + 2 * 20);
}

/* The writer refuses what it cannot write, naming the file. */
static void test_write_refused(void)
{
    uint8_t x[4] = {0};
    kb_npz_array a = {.name = "x.npy", .descr = "|u1", .ndim = 0,
                      .data = x, .data_len = 4};
    size_t n;
    int rc;
    CHECK(write_npz(&a, 1, true, &n, &rc) == NULL && rc == KB_IO_USAGE);
    CHECK(strstr(err, "mem.npz") && strstr(err, "1 to 4 dimensions"));
    a.ndim = 1;
    a.shape[0] = 4;
    CHECK(write_npz(&a, 0, true, &n, &rc) == NULL && rc == KB_IO_USAGE);
    CHECK(strstr(err, "0 arrays, expected 1 to 16") != NULL);
}

/* kbench's npz format: a sample written by the format's generator...
 * made here with the same writer, as npz_gen lays it out. */
typedef struct {
    uint64_t id;
    size_t len;
    int calls;
} seen;

static int on_sample(void *ctx, const kb_io_sample *s)
{
    seen *v = ctx;
    v->id = s->id;
    v->len = s->body_len;
    v->calls++;
    return 0;
}

static uint8_t *native(const char *hdr_name, const char *x_name,
                       uint8_t *body, size_t bn, size_t *n)
{
    uint8_t hdr[KB_IO_HDR_BYTES];
    kb_io_hdr h = {kb_io_crc32c(0, body, bn), 42, bn};
    kb_io_hdr_put(hdr, &h);
    kb_npz_array a[2] = {
        {.name = hdr_name, .descr = "|u1", .ndim = 1,
         .shape = {KB_IO_HDR_BYTES}, .data = hdr, .data_len = sizeof hdr},
        {.name = x_name, .descr = "|u1", .ndim = 1, .shape = {bn},
         .data = body, .data_len = bn}};
    int rc;
    return write_npz(a, 2, false, n, &rc);
}

static int parse(const uint8_t *b, size_t n, kb_io_verify v, seen *s)
{
    memset(s, 0, sizeof *s);
    err[0] = 0;
    return kb_io_format_npz.parse(b, n, v, on_sample, s, err, sizeof err);
}

static void test_native(void)
{
    uint8_t body[1000];
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (uint8_t)(i * 13);
    size_t n;
    seen s;
    uint8_t *b = native("kb.npy", "x.npy", body, sizeof body, &n);
    CHECK(b != NULL);
    if (!b)
        return;
    /* kbench's layout: no zip64 extras, 128-byte .npy headers */
    CHECK(n == 2 * (30 + 128) + 6 + 5 + KB_IO_HDR_BYTES + sizeof body +
                   2 * 46 + 6 + 5 + 22);
    CHECK(parse(b, n, KB_IO_VERIFY_CRC, &s) == 0 && s.calls == 1 &&
          s.id == 42 && s.len == sizeof body);
    /* a flipped byte in x's data: the zip CRC, at x's data offset */
    size_t x_data = 30 + 6 + 128 + KB_IO_HDR_BYTES + 30 + 5;
    b[x_data + 500] ^= 0x20;
    CHECK(parse(b, n, KB_IO_VERIFY_CRC, &s) == KB_IO_CORRUPT &&
          s.calls == 0);
    char want[64];
    snprintf(want, sizeof want, "offset %zu: zip CRC-32 mismatch in x.npy",
             x_data);
    CHECK(strstr(err, want) != NULL);
    /* --verify none: framing only, the sample is handed out */
    CHECK(parse(b, n, KB_IO_VERIFY_NONE, &s) == 0 && s.calls == 1);
    b[x_data + 500] ^= 0x20;
    /* every truncation refused with an offset, none read past the end */
    for (size_t k = 0; k < n; k += k < 64 || n - k < 256 ? 1 : 97) {
        uint8_t *t = malloc(k ? k : 1);
        memcpy(t, b, k);
        CHECK(parse(t, k, KB_IO_VERIFY_CRC, &s) == KB_IO_CORRUPT &&
              strncmp(err, "offset ", 7) == 0 && s.calls == 0);
        free(t);
    }
    free(b);
    /* members other than kbench's two are refused, by name */
    b = native("kb.npy", "z.npy", body, sizeof body, &n);
    CHECK(b && parse(b, n, KB_IO_VERIFY_CRC, &s) == KB_IO_CORRUPT);
    CHECK(strstr(err, "member z.npy, expected only kb.npy and x.npy"));
    free(b);
    b = native("x.npy", "x.npy", body, sizeof body, &n);
    CHECK(b && parse(b, n, KB_IO_VERIFY_CRC, &s) == KB_IO_CORRUPT);
    CHECK(strstr(err, "a second member x.npy, expected one") != NULL);
    free(b);
    /* a compressed member: named, with what was expected */
    b = native("kb.npy", "x.npy", body, sizeof body, &n);
    if (b) {
        b[8] = 8;                                    /* local: deflate */
        size_t cd = n - 22 - 2 * 46 - 6 - 5;         /* central entries */
        b[cd + 10] = 8;
        CHECK(parse(b, n, KB_IO_VERIFY_CRC, &s) == KB_IO_CORRUPT);
        CHECK(strstr(err, "offset 0: member kb.npy is compressed "
                          "(method 8), expected it stored") != NULL);
    }
    free(b);
}

static const check_test tests[] = {
    CHECK_TEST(round_trip), CHECK_TEST(write_refused), CHECK_TEST(native),
    CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
