/* gen.h - `kbench io gen`: a dataset written (gen.c), its manifest
 * and file names. */
#ifndef KB_IO_GEN_H
#define KB_IO_GEN_H

#include "iostage/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *dir;
    double scale;
    uint64_t seed;
    int threads;
} kb_io_gen_opts;

int kb_io_gen(const kb_io_profile *p, const kb_io_gen_opts *o, char *err,
              size_t len);

/* Dataset manifest written last by gen: profile, files, samples/file. */
int kb_io_manifest_read(const char *dir, char *profile, size_t plen,
                        int64_t *files, int64_t *spf, char *err, size_t len);
/* Path of file i of the dataset (malloc'd), NULL when out of memory. */
char *kb_io_file_path(const char *dir, const kb_io_profile *p, int64_t i);

#endif
