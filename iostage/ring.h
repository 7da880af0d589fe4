/* ring.h - the bounded prefetch ring of batches (ring.c). */
#ifndef KB_IO_RING_H
#define KB_IO_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_IO_HOLE UINT64_MAX   /* a slot whose sample was dropped */

typedef struct {
    int64_t seq;            /* batch number it holds now */
    int64_t filled;         /* committed samples */
    uint64_t *ids;          /* batch ids */
    uint8_t *data;          /* batch * sample_bytes decoded bytes */
} kb_io_batch;

typedef struct kb_io_ring kb_io_ring;

/* nbatches = prefetch + 1 slots of `batch` samples of sample_bytes each,
 * for an epoch of `total` samples.  NULL when out of memory. */
kb_io_ring *kb_io_ring_new(int64_t nbatches, int64_t batch,
                           size_t sample_bytes);
void kb_io_ring_free(kb_io_ring *r);
/* Start an epoch of `total` samples. */
void kb_io_ring_reset(kb_io_ring *r, int64_t total);
/* Claim up to `want` (>= 1) consecutive sample positions, all in one
 * batch: blocks while that batch's slot is still held.  Returns how many
 * (from *pos in *b), or -1 when the epoch was aborted. */
int64_t kb_io_ring_claim(kb_io_ring *r, int64_t want, kb_io_batch **b,
                         int64_t *pos);
/* n claimed positions of b are filled. */
void kb_io_ring_commit(kb_io_ring *r, kb_io_batch *b, int64_t n);
/* Samples that will never come (a skipped file): shrinks the epoch. */
void kb_io_ring_shrink(kb_io_ring *r, int64_t n);
/* Next complete batch in order, its size in *n; blocks.  NULL at the end
 * of the epoch or when aborted. */
kb_io_batch *kb_io_ring_pop(kb_io_ring *r, int64_t *n);
void kb_io_ring_release(kb_io_ring *r, kb_io_batch *b);
void kb_io_ring_abort(kb_io_ring *r);

#endif
