/* capture.h - what a call writes to a file descriptor (1 or 2), read back
 * into a buffer, so that a test can check kbench's messages:
 *
 *     check_capture c;
 *     check_capture_begin(&c, 2);
 *     int rc = kb_verb_main(...);
 *     check_capture_end(&c, err, sizeof err);
 *
 * The includer defines _POSIX_C_SOURCE (dup, fileno) before any header. */
#ifndef KB_CAPTURE_H
#define KB_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

typedef struct {
    int fd, saved;
    FILE *file;
} check_capture;

static inline void check_capture_begin(check_capture *c, int fd)
{
    fflush(stdout);
    fflush(stderr);
    c->fd = fd;
    c->file = tmpfile();
    c->saved = c->file ? dup(fd) : -1;
    if (c->saved >= 0)
        dup2(fileno(c->file), fd);
}

/* Puts fd back; buf[len] gets what was written, cut to fit, NUL-ended. */
static inline void check_capture_end(check_capture *c, char *buf, size_t len)
{
    size_t n = 0;
    fflush(stdout);
    fflush(stderr);
    if (c->saved >= 0) {
        dup2(c->saved, c->fd);
        close(c->saved);
        rewind(c->file);
        n = fread(buf, 1, len - 1, c->file);
    }
    if (c->file)
        fclose(c->file);
    buf[n] = '\0';
}

#endif
