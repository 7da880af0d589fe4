/* hdf5_file.c - DeepCAM samples as HDF5 files written with libhdf5:
 * `climate/data` (H x W x C float32, contiguous) and `climate/labels_0`
 * (H x W int32).  The 512-byte HDF5 user block holds the sample header
 * (checksum over the data's bytes) and the data's file offset, so the raw
 * read path can verify a sample without libhdf5. */
#include "iostage/decode/decoder.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"
#include "iostage/formats/write_full.h"
#include "iostage/checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USERBLOCK 512

#ifdef KB_IO_HAVE_HDF5
#include <hdf5.h>

/* Write one dataset under group g.  0 or KB_IO_ERROR. */
static int put_dataset(hid_t g, const char *name, hid_t type, int rank,
                       const hsize_t *dims, const void *data,
                       haddr_t *offset)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t ds = space < 0 ? -1 : H5Dcreate2(g, name, type, space, H5P_DEFAULT,
                                           H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = ds < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL,
                                       H5P_DEFAULT, data);
    if (rc >= 0 && offset)
        *offset = H5Dget_offset(ds);
    if (ds >= 0)
        H5Dclose(ds);
    if (space >= 0)
        H5Sclose(space);
    return rc < 0 || (offset && *offset == HADDR_UNDEF) ? KB_IO_ERROR : 0;
}

/* The data and labels of sample id, and the file around them. */
static int write_hdf5(const kb_io_profile *p, const float *data,
                      const int32_t *labels, const char *path,
                      haddr_t *offset)
{
    hsize_t dims[3] = {(hsize_t)p->dims[0], (hsize_t)p->dims[1],
                       (hsize_t)p->dims[2]};
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl < 0 || H5Pset_userblock(fcpl, USERBLOCK) < 0)
        return KB_IO_ERROR;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (f < 0)
        return KB_IO_ERROR;
    hid_t g = H5Gcreate2(f, "climate", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g < 0 ? KB_IO_ERROR
                   : put_dataset(g, "data", H5T_NATIVE_FLOAT, 3, dims, data,
                                 offset);
    if (!rc)
        rc = put_dataset(g, "labels_0", H5T_NATIVE_INT32, 2, dims, labels,
                         NULL);
    if (g >= 0)
        H5Gclose(g);
    if (H5Fclose(f) < 0)
        rc = KB_IO_ERROR;
    return rc;
}

/* Sample header and data offset into the user block. */
static int put_userblock(const char *path, const kb_io_hdr *h,
                         uint64_t offset, char *err, size_t len)
{
    uint8_t ub[KB_IO_HDR_BYTES + 8];
    kb_io_hdr_put(ub, h);
    for (int i = 0; i < 8; i++)
        ub[KB_IO_HDR_BYTES + i] = (uint8_t)(offset >> (8 * i));
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        snprintf(err, len, "cannot reopen %s: %s", path, strerror(errno));
        return KB_IO_ERROR;
    }
    int rc = kb_io_write_full(fd, ub, sizeof ub, path, err, len);
    if (close(fd) < 0 && !rc) {
        snprintf(err, len, "%s: close failed: %s", path, strerror(errno));
        rc = KB_IO_ERROR;
    }
    return rc;
}

static int hdf5_gen(const kb_io_profile *p, uint64_t seed, int64_t file_index,
                    const char *path, char *err, size_t len)
{
    if (p->ndims != 3 || p->samples_per_file != 1) {
        snprintf(err, len, "profile %s: hdf5 needs dims HxWxC and one sample "
                 "a file", p->name);
        return KB_IO_USAGE;
    }
    uint64_t id = (uint64_t)file_index;
    size_t count = (size_t)kb_io_dims_product(p);
    size_t plane = (size_t)(p->dims[0] * p->dims[1]);
    float *data = malloc(count * sizeof(float));
    int32_t *labels = malloc(plane * sizeof(int32_t));
    if (!data || !labels) {
        free(data);
        free(labels);
        snprintf(err, len, "out of memory for a %zu-value sample", count);
        return KB_IO_ERROR;
    }
    uint64_t s = kb_mix64(seed) ^ kb_mix64(id);
    for (size_t i = 0; i < count; i++)
        data[i] = (float)(kb_splitmix64(&s) >> 40) / 16777216.0f;
    for (size_t i = 0; i < plane; i++)
        labels[i] = (int32_t)(kb_splitmix64(&s) % 3);
    haddr_t offset = 0;
    bool locked = kb_io_hdf5_lock();   /* gen writes from several threads */
    int rc = write_hdf5(p, data, labels, path, &offset);
    kb_io_hdf5_unlock(locked);
    if (rc)
        snprintf(err, len, "libhdf5 failed writing %s", path);
    else {
        kb_io_hdr h = {kb_io_crc32c(0, (const uint8_t *)data,
                                   count * sizeof(float)),
                       id, count * sizeof(float)};
        rc = put_userblock(path, &h, (uint64_t)offset, err, len);
    }
    free(data);
    free(labels);
    return rc;
}
#endif

/* The user block's header and the bytes it covers; no libhdf5 needed. */
static int hdf5_parse(const uint8_t *buf, size_t n, kb_io_verify verify,
                      kb_io_sample_fn fn, void *ctx, char *err, size_t len)
{
    kb_io_hdr h;
    if (n < USERBLOCK + 8 || kb_io_hdr_get(buf, &h)) {
        snprintf(err, len, "offset 0: missing kbench user block "
                 "(%zu bytes in file)", n);
        return KB_IO_CORRUPT;
    }
    if (memcmp(buf + USERBLOCK, "\x89HDF\r\n\x1a\n", 8) != 0) {
        snprintf(err, len, "offset %d: no HDF5 signature", USERBLOCK);
        return KB_IO_CORRUPT;
    }
    uint64_t off = 0;
    for (int i = 0; i < 8; i++)
        off |= (uint64_t)buf[KB_IO_HDR_BYTES + i] << (8 * i);
    if (off > n || h.body_len > n - off) {
        snprintf(err, len, "offset %" PRIu64 ": truncated: data of %" PRIu64
                 " bytes does not fit the %zu-byte file", off, h.body_len, n);
        return KB_IO_CORRUPT;
    }
    if (verify == KB_IO_VERIFY_CRC &&
        kb_io_crc32c(0, buf + off, h.body_len) != h.crc) {
        snprintf(err, len, "offset %" PRIu64 ": sample %" PRIu64
                 " checksum mismatch", off, h.id);
        return KB_IO_CORRUPT;
    }
    kb_io_sample s = {h.id, buf, n, 0};
    return fn(ctx, &s);
}

const kb_io_format kb_io_format_hdf5 = {
    .name = "hdf5",
    .ext = "h5",
#ifdef KB_IO_HAVE_HDF5
    .gen_file = hdf5_gen,
#else
    .missing = "built without libhdf5 (Debian: libhdf5-dev)",
#endif
    .parse = hdf5_parse,
};
