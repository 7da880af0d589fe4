/* compute_model.h - the model as the consumer: --compute backend:NAME
 * (compute_model.c). */
#ifndef KB_IO_COMPUTE_MODEL_H
#define KB_IO_COMPUTE_MODEL_H

#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "kernels/problem.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kb_io_model kb_io_model;

/* Prepare every layer of p's catalog (p->model) that backend `backend`
 * supports, at minibatch `batch`, over shared buffers.  Samples decoded
 * by d feed the first layer when their shape is its input's.  0, or
 * KB_IO_USAGE (unknown backend, no model, too large for memory) or
 * KB_IO_ERROR with a message. */
int kb_io_model_open(const kb_io_profile *p, const char *backend,
                     const kb_io_decoder *d, int64_t batch, kb_io_model **m,
                     char *err, size_t len);
/* One training step's forward pass over n decoded samples; on a device
 * backend first their copy to the device (pinned buffer, synchronous
 * upload).  0 or KB_IO_ERROR with a message. */
int kb_io_model_step(kb_io_model *m, const void *samples, int64_t n,
                     char *err, size_t len);
void kb_io_model_close(kb_io_model *m);

typedef struct {
    const char *backend, *model;
    int64_t layers, skipped;    /* run; left out as unsupported */
    double flops;               /* per step */
    bool fed;                   /* decoded samples reach the first layer */
    const char *device;         /* the backend's: "cpu", "cuda", "hip" */
    bool copies;                /* each step copies the batch to it */
} kb_io_model_info;
void kb_io_model_describe(const kb_io_model *m, kb_io_model_info *info);
/* The bytes the steps copied to the device and the seconds the copies
 * took (inside the steps' compute time) since the last call; zeroes the
 * counters.  0 and 0 on the CPU.  Cannot fail. */
void kb_io_model_take_copied(kb_io_model *m, uint64_t *bytes,
                             double *seconds);

/* Whether a decoded sample of p (channels last, p->dims) is the input of
 * conv `first` at minibatch `batch`. */
bool kb_io_feed_fits(const kb_problem *first, const kb_io_profile *p,
                     int64_t batch);
/* Copy n decoded samples into `first`'s src buffer, following its layout
 * (u8 scaled to [0, 1]).  kb_io_feed_fits must hold. */
void kb_io_feed(const kb_problem *first, void *src, kb_io_elem elem,
                const void *samples, int64_t n);

#endif
