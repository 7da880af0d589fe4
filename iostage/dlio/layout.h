/* layout.h - where DLIO keeps a dataset's files, and finding them again
 * (dlio_layout.c). */
#ifndef KB_IO_DLIO_LAYOUT_H
#define KB_IO_DLIO_LAYOUT_H

#include "iostage/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Path of file i (0-based) of a DLIO-layout dataset in dir:
 * dir/train[/<i mod S>]/<prefix>_<i>_of_<N>.<ext>, i and the subfolder
 * zero-padded to the width of N and S as DLIO pads them.  malloc'd, or
 * NULL when out of memory. */
char *kb_io_dlio_file_path(const char *dir, const kb_io_profile *p,
                           int64_t i);
/* Make dir/train and its subfolders (gen).  0 or KB_IO_ERROR. */
int kb_io_dlio_mkdirs(const char *dir, const kb_io_profile *p, char *err,
                      size_t len);
/* Fill p from the files DLIO wrote under dir/train when p->files is 0
 * (count, prefix, subfolders and format from the names), else check them
 * against p; every file 0..N-1 must be there.  samples_per_file stays as
 * given (0: unknown, the run counts the first file's).  0, or KB_IO_USAGE
 * naming the missing or stray file. */
int kb_io_dlio_scan(const char *dir, kb_io_profile *p, char *err, size_t len);

#endif
