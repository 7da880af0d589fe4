/* formats.c - the table of container formats, engines and decoders, found
 * by name. */
#include "iostage/io_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const kb_io_format *kb_io_format_find(const char *name)
{
    static const kb_io_format *const all[] = {
        &kb_io_format_tfrecord, &kb_io_format_npz, &kb_io_format_hdf5,
        &kb_io_format_dlio_npz, &kb_io_format_dlio_tfrecord,
        &kb_io_format_dlio_hdf5};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const kb_io_engine *kb_io_engine_find(const char *name)
{
    static const kb_io_engine *const all[] = {
        &kb_io_engine_pread, &kb_io_engine_uring, &kb_io_engine_mmap};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const kb_io_decoder *kb_io_decoder_find(const char *name)
{
    static const kb_io_decoder *const all[] = {
        &kb_io_decode_jpeg, &kb_io_decode_cosmo, &kb_io_decode_hdf5,
        &kb_io_decode_parse};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

int kb_io_write_full(int fd, const uint8_t *buf, size_t n, const char *path,
                     char *err, size_t len)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, len, "%s: write failed: %s", path,
                     w < 0 ? strerror(errno) : "no progress");
            return KB_IO_ERROR;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}
