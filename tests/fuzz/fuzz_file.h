/* fuzz_file.h - the input in the forms the text parsers take: a
 * NUL-terminated copy, or, for a parser that takes a path, a memfd (no
 * disk) named /proc/self/fd/N. */
#ifndef KB_FUZZ_FILE_H
#define KB_FUZZ_FILE_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A malloc'd copy of data[0, n) with a NUL after it (the input may hold
 * NULs of its own).  Aborts when out of memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t n)
{
    char *text = malloc(n + 1);
    if (!text)
        abort();
    memcpy(text, data, n);
    text[n] = '\0';
    return text;
}

/* The path of a file holding data[0, n): the same memfd each call.
 * Aborts when the memfd cannot be made or written. */
static inline const char *fuzz_file(const void *data, size_t n)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("kb_fuzz_input", 0);
        if (fd < 0) {
            perror("fuzz_file: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, n, 0) != (ssize_t)n)
        abort();
    return path;
}

#endif
