/* file.h - one checkpoint file written or read back, timed
 * (file.c): the bottom of the checkpoint code. */
#ifndef KB_IO_CHECKPOINT_FILE_H
#define KB_IO_CHECKPOINT_FILE_H

#include "iostage/checkpoint/options.h"
#include "iostage/readers/direct.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one direction measured, and how. */
typedef struct {
    kb_io_direct dio;
    bool direct;        /* the measured attempt used O_DIRECT throughout */
    bool synced;        /* write: fsync inside the timed window */
    double seconds;     /* open to close of the measured attempt */
} kb_io_ckpt_side;

/* n rounded up to whole O_DIRECT blocks: a checkpoint buffer's capacity. */
size_t kb_io_ckpt_round_up(size_t n);

/* Write buf[0, n) to path through o->engine (state eng), timed from the
 * open to the close, honouring o->direct and o->fsync; buf holds
 * kb_io_ckpt_round_up(n) bytes, zero past n.  A refused O_DIRECT is
 * recorded in w->dio (the first only) and the file written buffered with
 * fsync in the window.  0 or KB_IO_ERROR with a message naming the file
 * and the call. */
int kb_io_ckpt_write_file(const kb_io_ckpt_opts *o, void *eng,
                          const char *path, const uint8_t *buf, size_t n,
                          kb_io_ckpt_side *w, char *err, size_t len);
/* Read the n bytes of path into buf (capacity kb_io_ckpt_round_up(n)),
 * timed, O_DIRECT when asked and allowed.  0, KB_IO_CORRUPT (size) or
 * KB_IO_ERROR with a message. */
int kb_io_ckpt_read_file(const kb_io_ckpt_opts *o, void *eng,
                         const char *path, uint8_t *buf, size_t n,
                         kb_io_ckpt_side *r, char *err, size_t len);
/* 0, or KB_IO_CORRUPT naming path and the first differing offset. */
int kb_io_ckpt_compare(const char *path, const uint8_t *got,
                       const uint8_t *want, size_t n, char *err, size_t len);
/* "direct", "direct+fsync", "buffered+fsync" or "buffered". */
const char *kb_io_ckpt_write_mode(const kb_io_ckpt_side *w);

#endif
