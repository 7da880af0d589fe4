/* dlio_npz.c - DLIO's npz files: np.savez(x=records, y=labels) with
 * records (dim1, dim2, num_samples) uint8, samples along the last axis.
 * Reading walks the zip from its central directory (formats/zip.c),
 * checks every member's CRC-32 and .npy header (formats/npz_archive.c),
 * and hands out sample k of x as the whole array (x[..., k] is a strided
 * view, as DLIO's reader takes it).  Writing produces what numpy writes
 * (kb_npz_write): stored members with zip64 extra fields in the local
 * headers (force_zip64), .npy v1 headers. */
#include "iostage/stage.h"
#include "iostage/formats/npz_archive.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/dlio/arrays.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dlio_npz_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                          kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    kb_zip z;
    kb_zip_member m, x = {0};
    kb_npy a, xa = {0};
    bool have_x = false;
    int rc = kb_zip_open(&z, buf, n, err, len);
    while (!rc && (rc = kb_zip_next(&z, &m, err, len)) == 1) {
        rc = kb_npz_member(&z, &m, verify == KB_IO_VERIFY_CRC, &a, err,
                           len);
        if (rc || !kb_npz_member_is(&m, "x.npy"))
            continue;
        if (have_x) {
            snprintf(err, len, "offset %" PRIu64 ": a second member x.npy, "
                     "expected one", m.header_off);
            return KB_IO_CORRUPT;
        }
        x = m, xa = a, have_x = true;
    }
    if (rc)
        return rc;
    if (!have_x) {
        snprintf(err, len, "offset %" PRIu64 ": no member x.npy, expected "
                 "DLIO's records (np.savez(x=records, y=labels))",
                 z.cd_start);
        return KB_IO_CORRUPT;
    }
    /* samples lie along the last axis; none of the others may be empty,
     * so the count is bounded by the bytes that were checked */
    uint64_t samples = xa.ndim ? xa.shape[xa.ndim - 1] : 0;
    if (!xa.ndim || (samples && !xa.data_len)) {
        snprintf(err, len, "offset %" PRIu64 ": x.npy has %s, expected "
                 "samples along the last axis of a non-empty array",
                 (uint64_t)(x.data - buf),
                 xa.ndim ? "an empty axis" : "no axes");
        return KB_IO_CORRUPT;
    }
    /* stored: the array itself; deflated: its compressed bytes (checked
     * above, inflated again by whoever decodes it) */
    kb_io_sample s = {0, x.data, x.csize, x.header_off};
    if (x.method == KB_ZIP_STORED)
        s.body += xa.header_len, s.body_len = xa.data_len;
    for (uint64_t k = 0; k < samples && !rc; k++) {
        s.id = k;
        rc = fn(ctx, &s);
    }
    return rc;
}

static int dlio_npz_gen(const kb_io_profile *p, uint64_t seed,
                        int64_t file_index, const char *path, char *err,
                        size_t len)
{
    kb_io_dlio_arrays a;
    int rc = kb_io_dlio_arrays_make(p, seed, file_index, "npz", &a, err, len);
    if (rc)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    } else {
        kb_npz_array arr[2] = {
            {.name = "x.npy", .descr = "|u1", .ndim = 3,
             .shape = {a.d1, a.d2, a.ns}, .data = a.x, .data_len = a.xn},
            {.name = "y.npy", .descr = "<i8", .ndim = 1, .shape = {a.ns},
             .data = (const uint8_t *)a.labels, .data_len = a.ns * 8}};
        rc = kb_npz_write(fd, arr, 2, true, path, err, len);
    }
    if (fd >= 0 && close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    kb_io_dlio_arrays_free(&a);
    return rc;
}

const kb_io_format kb_io_format_dlio_npz = {
    .name = "dlio-npz",
    .ext = "npz",
    .positional_ids = true,
    .gen_file = dlio_npz_gen,
    .parse = dlio_npz_parse,
};
