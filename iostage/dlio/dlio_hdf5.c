/* dlio_hdf5.c - DLIO's HDF5 files, as h5py writes them: 'records'
 * (num_samples, dim1, dim2) uint8 and 'labels' (num_samples) int64.
 * libhdf5 opens the file image already in memory and says where the
 * contiguous 'records' lie; sample k's body is record k there, in the
 * caller's buffer (bounds-checked).  Chunked or compressed records
 * (DLIO's enable_chunking, compression) are refused by name. */
#include "iostage/decode/decoder.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "iostage/dlio/arrays.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#ifdef KB_IO_HAVE_HDF5
#include <hdf5.h>
#include <stdio.h>

/* The innermost message of libhdf5's error stack, as " (why)". */
static herr_t first_error(unsigned n, const H5E_error2_t *e, void *ctx)
{
    char *msg = ctx;
    if (n == 0 && e->desc && e->desc[0])
        snprintf(msg, 160, " (%s)", e->desc);
    return 0;
}

static void hdf5_reason(char *msg)
{
    msg[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, msg);
}

typedef struct {
    uint64_t offset, samples, record;   /* bytes of one sample */
} records;

/* Where 'records' lies in the image, every figure checked against n. */
static int find_records(hid_t f, size_t n, records *r, char *err, size_t len)
{
    char why[160];
    hid_t ds = H5Dopen2(f, "records", H5P_DEFAULT);
    if (ds < 0) {
        hdf5_reason(why);
        snprintf(err, len, "offset 0: no dataset 'records'%s, expected "
                 "DLIO's records (num_samples, dim1, dim2)", why);
        return KB_IO_CORRUPT;
    }
    hid_t space = H5Dget_space(ds), type = H5Dget_type(ds);
    hid_t dcpl = H5Dget_create_plist(ds);
    hsize_t dims[H5S_MAX_RANK];
    int rank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, dims, NULL);
    H5T_class_t cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
    size_t item = type < 0 ? 0 : H5Tget_size(type);
    H5D_layout_t layout = dcpl < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(dcpl);
    int filters = dcpl < 0 ? -1 : H5Pget_nfilters(dcpl);
    haddr_t addr = H5Dget_offset(ds);
    hsize_t stored = H5Dget_storage_size(ds);
    int rc = KB_IO_CORRUPT;
    uint64_t rec = item;
    for (int k = 1; k < rank; k++)
        rec = dims[k] && rec > UINT64_MAX / dims[k] ? UINT64_MAX
                                                     : rec * dims[k];
    if (rank < 1 || (cls != H5T_INTEGER && cls != H5T_FLOAT) || !item)
        snprintf(err, len, "offset 0: records has rank %d and type class %d, "
                 "expected an array of numbers, samples along axis 0", rank,
                 (int)cls);
    else if (layout != H5D_CONTIGUOUS || filters != 0)
        snprintf(err, len, "offset 0: records is %s%s, expected contiguous "
                 "and uncompressed (DLIO without enable_chunking and "
                 "compression)", layout == H5D_CHUNKED ? "chunked"
                 : layout == H5D_COMPACT ? "compact" : "not contiguous",
                 filters > 0 ? " with filters (compression)" : "");
    else if (dims[0] && (!rec || rec == UINT64_MAX ||
                         dims[0] > UINT64_MAX / rec))
        snprintf(err, len, "offset 0: records of %" PRIu64 " samples of %"
                 PRIu64 " bytes, expected non-empty samples", (uint64_t)dims[0],
                 rec);
    else if (dims[0] && (addr == HADDR_UNDEF || stored != dims[0] * rec ||
                         addr > n || stored > n - addr))
        snprintf(err, len, "offset %" PRIu64 ": records data of %" PRIu64
                 " bytes (%" PRIu64 " samples of %" PRIu64 "), expected "
                 "inside the %zu-byte file", addr == HADDR_UNDEF ? 0
                 : (uint64_t)addr, (uint64_t)stored, (uint64_t)dims[0], rec,
                 n);
    else {
        *r = (records){addr, dims[0], rec};
        rc = 0;
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(ds);
    return rc;
}

/* h5py's files carry no checksum: verify changes nothing. */
static int dlio_hdf5_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                           kb_io_sample_fn fn, void *ctx, char *err,
                           size_t len)
{
    (void)verify;
    if (n < 8 || memcmp(buf, "\x89HDF\r\n\x1a\n", 8) != 0) {
        snprintf(err, len, "offset 0: no HDF5 signature (\\x89HDF\\r\\n"
                 "\\x1a\\n), expected an HDF5 file as h5py writes it");
        return KB_IO_CORRUPT;
    }
    records r;
    bool locked = kb_io_hdf5_lock();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = kb_io_hdf5_open_image(buf, n);
    int rc = 0;
    if (f < 0) {
        char why[160];
        hdf5_reason(why);
        snprintf(err, len, "offset 0: libhdf5 cannot open the %zu-byte file"
                 "%s, expected a complete HDF5 file", n, why);
        rc = KB_IO_CORRUPT;
    } else {
        rc = find_records(f, n, &r, err, len);
        H5Fclose(f);
    }
    kb_io_hdf5_unlock(locked);
    for (uint64_t k = 0; !rc && k < r.samples; k++) {
        kb_io_sample s = {k, buf + r.offset + k * r.record, r.record,
                          r.offset + k * r.record};
        rc = fn(ctx, &s);
    }
    return rc;
}

/* Write one 1-D or 3-D dataset.  0 or -1. */
static int put(hid_t f, const char *name, hid_t type, int rank,
               const hsize_t *dims, const void *data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t ds = space < 0 ? -1 : H5Dcreate2(f, name, type, space, H5P_DEFAULT,
                                           H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = ds < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL,
                                       H5P_DEFAULT, data);
    if (ds >= 0)
        H5Dclose(ds);
    if (space >= 0)
        H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

static int dlio_hdf5_gen(const kb_io_profile *p, uint64_t seed,
                         int64_t file_index, const char *path, char *err,
                         size_t len)
{
    kb_io_dlio_arrays a;
    int rc = kb_io_dlio_arrays_make(p, seed, file_index, "hdf5", &a, err,
                                    len);
    if (rc)
        return rc;
    hsize_t rdims[3] = {a.ns, a.d1, a.d2}, ldims[1] = {a.ns};
    bool locked = kb_io_hdf5_lock();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    rc = f < 0 ? -1 : put(f, "records", H5T_STD_U8LE, 3, rdims, a.x);
    if (!rc)
        rc = put(f, "labels", H5T_STD_I64LE, 1, ldims, a.labels);
    char why[160] = "";
    if (rc)
        hdf5_reason(why);   /* before the close clears the error stack */
    if (f >= 0 && H5Fclose(f) < 0 && !rc) {
        rc = -1;
        hdf5_reason(why);
    }
    if (rc)
        snprintf(err, len, "libhdf5 failed writing %s%s", path, why);
    kb_io_hdf5_unlock(locked);
    kb_io_dlio_arrays_free(&a);
    return rc ? KB_IO_ERROR : 0;
}

const kb_io_format kb_io_format_dlio_hdf5 = {
    .name = "dlio-hdf5",
    .ext = "hdf5",
    .positional_ids = true,
    .gen_file = dlio_hdf5_gen,
    .parse = dlio_hdf5_parse,
};
#else
const kb_io_format kb_io_format_dlio_hdf5 = {
    .name = "dlio-hdf5",
    .ext = "hdf5",
    .missing = "built without libhdf5 (Debian: libhdf5-dev)",
    .positional_ids = true,
};
#endif
