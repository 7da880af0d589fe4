/* metrics.c - CPU time and the page cache:
 * residency of the dataset (mincore) and eviction without root (fsync +
 * POSIX_FADV_DONTNEED). */
#include "iostage/metrics.h"
#include "iostage/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double kb_io_cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
           (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

/* Resident and total pages of one file.  0 or -1 with a message. */
static int file_residency(const char *path, size_t *resident, size_t *total,
                          char *err, size_t len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size, page = (size_t)sysconf(_SC_PAGESIZE);
    if (size == 0) {
        close(fd);
        return 0;
    }
    void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    size_t pages = (size + page - 1) / page;
    unsigned char *vec = m == MAP_FAILED ? NULL : malloc(pages);
    int rc = -1;
    if (vec && mincore(m, size, vec) == 0) {
        for (size_t i = 0; i < pages; i++)
            *resident += vec[i] & 1;
        *total += pages;
        rc = 0;
    } else {
        snprintf(err, len, "%s: mincore over %zu bytes failed: %s", path,
                 size, strerror(errno));
    }
    free(vec);
    if (m != MAP_FAILED)
        munmap(m, size);
    return rc;
}

double kb_io_residency(char **paths, int64_t n, char *err, size_t len)
{
    size_t resident = 0, total = 0;
    for (int64_t i = 0; i < n; i++)
        if (file_residency(paths[i], &resident, &total, err, len))
            return -1;
    return total ? (double)resident / (double)total : 0;
}

int kb_io_evict(char **paths, int64_t n, char *err, size_t len)
{
    for (int64_t i = 0; i < n; i++) {
        int fd = open(paths[i], O_RDONLY);
        if (fd < 0) {
            snprintf(err, len, "cannot open %s to evict it: %s", paths[i],
                     strerror(errno));
            return KB_IO_ERROR;
        }
        /* dirty pages cannot be dropped: write them back first */
        int rc = fdatasync(fd);
        if (rc == 0)
            rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        else
            rc = errno;
        close(fd);
        if (rc) {
            snprintf(err, len, "cannot evict %s from the page cache: %s",
                     paths[i], strerror(rc));
            return KB_IO_ERROR;
        }
    }
    return 0;
}
