/* decode_hdf5.c - deepcam's decode: open the file image that the reader
 * engine read (libhdf5's core driver, no second read from disk) and
 * read `climate/data` and `climate/labels_0` with libhdf5. */
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <stdio.h>

#ifdef KB_IO_HAVE_HDF5
#include <hdf5.h>
#include <pthread.h>

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "hid_t is 64-bit");

/* A libhdf5 built without thread safety must see one call at a time,
 * from every file of the stage that calls it. */
static pthread_mutex_t hdf5_lock = PTHREAD_MUTEX_INITIALIZER;

bool kb_io_hdf5_lock(void)
{
    hbool_t safe = 0;
    H5is_library_threadsafe(&safe);
    if (!safe)
        pthread_mutex_lock(&hdf5_lock);
    return !safe;
}

void kb_io_hdf5_unlock(bool locked)
{
    if (locked)
        pthread_mutex_unlock(&hdf5_lock);
}

static size_t hdf5_out_bytes(const kb_io_profile *p)
{
    return (size_t)kb_io_dims_product(p) * sizeof(float);
}

/* Read dataset `name` of f into dst if its element count is n and its
 * storage holds all of them: libhdf5 1.10.8 reads a compact dataset whose
 * stored size disagrees with its dataspace from a NULL buffer (found by
 * tests/fuzz). */
static int read_dataset(hid_t f, const char *name, hid_t type, size_t n,
                        void *dst)
{
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds < 0)
        return KB_IO_CORRUPT;
    hid_t space = H5Dget_space(ds), ftype = H5Dget_type(ds);
    hssize_t count = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    size_t item = ftype < 0 ? 0 : H5Tget_size(ftype);
    int rc = count == (hssize_t)n && item &&
                     H5Dget_storage_size(ds) == (hsize_t)n * item &&
                     H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, dst) >= 0
                 ? 0
                 : KB_IO_CORRUPT;
    if (ftype >= 0)
        H5Tclose(ftype);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(ds);
    return rc;
}

/* Open a file image with the core driver.  libhdf5 copies the image:
 * H5LTopen_file_image's no-copy mode leaks its bookkeeping in 1.10 (seen
 * under LeakSanitizer), and a copy is cheap next to the dataset read. */
int64_t kb_io_hdf5_open_image(const uint8_t *buf, size_t n)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return -1;
    hid_t f = -1;
    if (H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 &&
        H5Pset_file_image(fapl, (void *)buf, n) >= 0)
        f = H5Fopen("kbench-image.h5", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    return f;
}

static int hdf5_decode(const kb_io_profile *p, const kb_io_sample *s,
                       uint64_t rng, void *out, kb_io_scratch *scratch,
                       char *err, size_t len)
{
    (void)rng;
    size_t count = (size_t)kb_io_dims_product(p);
    size_t plane = (size_t)(p->dims[0] * p->dims[1]);
    if (kb_io_scratch_reserve(scratch, plane * sizeof(int32_t))) {
        snprintf(err, len, "out of memory for %zu labels", plane);
        return KB_IO_ERROR;
    }
    bool locked = kb_io_hdf5_lock();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = kb_io_hdf5_open_image(s->body, s->body_len);
    int rc = f < 0 ? KB_IO_CORRUPT
                   : read_dataset(f, "climate/data", H5T_NATIVE_FLOAT, count,
                                  out);
    if (!rc)
        rc = read_dataset(f, "climate/labels_0", H5T_NATIVE_INT32, plane,
                          scratch->p);
    if (f >= 0)
        H5Fclose(f);
    kb_io_hdf5_unlock(locked);
    if (rc)
        snprintf(err, len, "sample %" PRIu64 ": libhdf5 cannot read "
                 "climate/data (%zu floats) and climate/labels_0 from the "
                 "file", s->id, count);
    return rc;
}

const kb_io_decoder kb_io_decode_hdf5 = {
    .name = "hdf5",
    .out_elem = KB_IO_ELEM_F32,
    .out_bytes = hdf5_out_bytes,
    .decode = hdf5_decode,
};
#else
const kb_io_decoder kb_io_decode_hdf5 = {
    .name = "hdf5",
    .missing = "built without libhdf5 (Debian: libhdf5-dev)",
};
#endif
