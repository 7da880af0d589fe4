/* metrics.h - what the stage measures besides time (metrics.c): CPU
 * seconds, page-cache residency, eviction. */
#ifndef KB_IO_METRICS_H
#define KB_IO_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

double kb_io_cpu_seconds(void);                  /* user + system, process */
/* Fraction of the files' pages resident in the page cache (mincore).
 * Returns 0..1, or -1 with a message when a file cannot be mapped. */
double kb_io_residency(char **paths, int64_t n, char *err, size_t len);
/* fsync + POSIX_FADV_DONTNEED each file.  0 or KB_IO_ERROR. */
int kb_io_evict(char **paths, int64_t n, char *err, size_t len);

#endif
