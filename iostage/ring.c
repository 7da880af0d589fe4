/* ring.c - the bounded prefetch ring: `prefetch + 1` batch slots filled by
 * the reader threads in claim order and handed to the consumer in batch
 * order.  Sample position p belongs to batch p / B, which lives in slot
 * (p / B) % slots; a reader waits until the consumer has released the
 * slot's previous batch, which is what bounds the prefetch.  Readers
 * claim runs of consecutive positions, so small records cost one lock
 * round trip per run, not per sample. */
#include "iostage/ring.h"

#include <pthread.h>
#include <stdlib.h>

struct kb_io_ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t slots, batch;
    size_t sample_bytes;
    int64_t total;        /* samples this epoch (shrinks on skips) */
    int64_t next_pos;     /* next sample position to claim */
    int64_t next_pop;     /* next batch the consumer takes */
    bool aborted;
    kb_io_batch *b;
};

kb_io_ring *kb_io_ring_new(int64_t nbatches, int64_t batch,
                           size_t sample_bytes)
{
    kb_io_ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->slots = nbatches;
    r->batch = batch;
    r->sample_bytes = sample_bytes;
    r->b = calloc((size_t)nbatches, sizeof *r->b);
    if (!r->b)
        goto err;
    for (int64_t i = 0; i < nbatches; i++) {
        r->b[i].ids = malloc((size_t)batch * sizeof(uint64_t));
        /* sizes were checked against memory by the caller */
        r->b[i].data = sample_bytes ? malloc((size_t)batch * sample_bytes)
                                    : NULL;
        if (!r->b[i].ids || (sample_bytes && !r->b[i].data))
            goto err;
    }
    return r;
err:
    kb_io_ring_free(r);
    return NULL;
}

void kb_io_ring_free(kb_io_ring *r)
{
    if (!r)
        return;
    for (int64_t i = 0; r->b && i < r->slots; i++) {
        free(r->b[i].ids);
        free(r->b[i].data);
    }
    free(r->b);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

void kb_io_ring_reset(kb_io_ring *r, int64_t total)
{
    pthread_mutex_lock(&r->mu);
    r->total = total;
    r->next_pos = r->next_pop = 0;
    r->aborted = false;
    for (int64_t i = 0; i < r->slots; i++) {
        r->b[i].seq = i;
        r->b[i].filled = 0;
    }
    pthread_mutex_unlock(&r->mu);
}

/* Samples batch seq holds this epoch (total may shrink). */
static int64_t batch_size(const kb_io_ring *r, int64_t seq)
{
    int64_t left = r->total - seq * r->batch;
    return left < 0 ? 0 : left < r->batch ? left : r->batch;
}

int64_t kb_io_ring_claim(kb_io_ring *r, int64_t want, kb_io_batch **b,
                         int64_t *pos)
{
    pthread_mutex_lock(&r->mu);
    int64_t p = r->next_pos;
    int64_t seq = p / r->batch;
    int64_t room = r->batch - p % r->batch;
    int64_t left = r->total - p;   /* a run never passes the epoch's end */
    int64_t got = want < room ? want : room;
    if (left > 0 && left < got)
        got = left;
    r->next_pos += got;
    kb_io_batch *slot = &r->b[seq % r->slots];
    while (!r->aborted && slot->seq != seq)
        pthread_cond_wait(&r->cv, &r->mu);
    bool ok = !r->aborted;
    pthread_mutex_unlock(&r->mu);
    *b = slot;
    *pos = p % r->batch;
    return ok ? got : -1;
}

void kb_io_ring_commit(kb_io_ring *r, kb_io_batch *b, int64_t n)
{
    pthread_mutex_lock(&r->mu);
    b->filled += n;
    /* only the consumer waits on a filling batch, and only for all of it:
     * waking it for every run would cost a context switch per run */
    if (b->filled == batch_size(r, b->seq))
        pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void kb_io_ring_shrink(kb_io_ring *r, int64_t n)
{
    pthread_mutex_lock(&r->mu);
    r->total -= n;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

kb_io_batch *kb_io_ring_pop(kb_io_ring *r, int64_t *n)
{
    pthread_mutex_lock(&r->mu);
    kb_io_batch *slot = &r->b[r->next_pop % r->slots];
    kb_io_batch *out = NULL;
    for (;;) {
        int64_t size = batch_size(r, r->next_pop);
        if (r->aborted || size == 0)
            break;
        if (slot->seq == r->next_pop && slot->filled == size) {
            out = slot;
            *n = size;
            r->next_pop++;
            break;
        }
        pthread_cond_wait(&r->cv, &r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return out;
}

void kb_io_ring_release(kb_io_ring *r, kb_io_batch *b)
{
    pthread_mutex_lock(&r->mu);
    b->seq += r->slots;
    b->filled = 0;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

void kb_io_ring_abort(kb_io_ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->aborted = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}
