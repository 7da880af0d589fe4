/* compute_model.c - `--compute backend:NAME`: the consumer runs the
 * profile's model (its kbench catalog, `model =` in profiles.conf) on a
 * kbench backend, one forward pass of every layer per step, at the
 * pipeline's batch size, instead of sleeping.
 *
 * The layers run one after another, so they share one buffer per tensor
 * role (src, wei, dst, ...) sized for the largest layer: memory is that of
 * the largest layer plus each plan's workspace, not the sum over layers.
 * Plans are built once, untimed, as in `kbench run`.  Each step first
 * copies the decoded batch into the first layer's src (the input a
 * training step would upload), when the decoded sample has that layer's
 * shape; backends that reorder src into a private copy at prepare time
 * (oneDNN's blocked layouts) compute on that copy.
 *
 * On a device backend (b->device "cuda", "hip") each step also copies the
 * decoded batch to the device, inside the step as an input pipeline pays
 * it: memcpy into a pinned host buffer, then a synchronous upload into a
 * device buffer (both a whole batch, allocated at open).  The layers
 * compute on the inputs their plans uploaded at prepare: the copy is the
 * pipeline's cost, counted (kb_io_model_take_copied), not their input. */
#include "drivers/common/clock.h"
#include "iostage/compute_model.h"
#include "iostage/decode/decoder.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/problem.h"

#include "backends/backend.h"
#include "backends/gpu/gpu_registry.h"
#include "drivers/memory.h"
#include "kernels/batch.h"
#include "kernels/tensors.h"
#include "reference/reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kb_io_model {
    const kb_backend *b;
    kb_problem_list layers;     /* the ones b supports */
    void **plans;               /* one per layer, NULL until prepared */
    void *pool[KB_ARG_MAX];     /* shared tensors, largest layer's size */
    const kb_io_profile *p;
    kb_io_elem elem;            /* decoded sample type, NONE: not fed */
    bool fed;
    int64_t batch;
    double flops;               /* per step, counting `*N` repeats */
    int64_t skipped;
    /* a device backend's host-to-device copy of the decoded batch */
    const kb_gpu_runtime *rt;   /* NULL on the CPU */
    size_t sample_bytes;        /* one decoded sample; 0: nothing to copy */
    void *pinned, *dev;         /* a whole batch each */
    uint64_t copied_bytes;      /* since the last kb_io_model_take_copied */
    double copy_s;
};

bool kb_io_feed_fits(const kb_problem *first, const kb_io_profile *p,
                     int64_t batch)
{
    kb_arg_info a[KB_ARG_MAX];
    kb_problem_args(first, a);
    const kb_arg_info *src = &a[KB_ARG_SRC];
    /* src is [N, C, spatial...]; the sample is [spatial..., C] */
    if (first->kind != KB_CONV || src->ndims != p->ndims + 1 ||
        src->dims[0] != batch || src->dims[1] != p->dims[p->ndims - 1])
        return false;
    for (int d = 0; d + 1 < p->ndims; d++)
        if (src->dims[2 + d] != p->dims[d])
            return false;
    return true;
}

void kb_io_feed(const kb_problem *first, void *src, kb_io_elem elem,
                const void *samples, int64_t n)
{
    kb_arg_info a[KB_ARG_MAX];
    kb_problem_args(first, a);
    int nd = a[KB_ARG_SRC].ndims;
    /* Element strides of src's logical dims: every kbench layout is
     * affine, so probing unit indices gives them for NCX and NXC alike. */
    int64_t idx[KB_MAX_DIMS] = {0}, stride[KB_MAX_DIMS] = {0};
    int64_t base = kb_arg_offset(first, KB_ARG_SRC, idx);
    for (int d = 0; d < nd; d++) {
        idx[d] = 1;
        stride[d] = kb_arg_offset(first, KB_ARG_SRC, idx) - base;
        idx[d] = 0;
    }
    int64_t channels = a[KB_ARG_SRC].dims[1];
    int64_t per_sample = a[KB_ARG_SRC].nelems / a[KB_ARG_SRC].dims[0];
    const uint8_t *u8 = samples;
    const float *f32 = samples;
    for (int64_t i = 0; i < n; i++) {
        int64_t pos[KB_MAX_DIMS] = {0};   /* spatial odometer */
        for (int64_t e = 0; e < per_sample; e += channels) {
            int64_t off = base + i * stride[0];
            for (int d = 2; d < nd; d++)
                off += pos[d] * stride[d];
            for (int64_t c = 0; c < channels; c++) {
                int64_t k = i * per_sample + e + c;
                /* 8-bit pixels scaled to [0, 1], as training inputs are */
                double v = elem == KB_IO_ELEM_U8 ? u8[k] / 255.0 : f32[k];
                kb_store(first->dt.src, src, off + c * stride[1], v);
            }
            for (int d = nd - 1; d >= 2 && ++pos[d] == a[KB_ARG_SRC].dims[d];
                 d--)
                pos[d] = 0;
        }
    }
}

/* Load the catalog and keep the layers b can run.  0 or a stage error. */
static int load_layers(kb_io_model *m, int64_t batch, char *err, size_t len)
{
    kb_settings s;
    kb_settings_default(&s);
    kb_problem_list all = {0};
    char why[KB_IO_ERRLEN];
    if (kb_catalog_load(m->p->model, batch, &s, &all, why, sizeof why)) {
        snprintf(err, len, "--compute backend:%s: %s", m->b->name, why);
        return KB_IO_USAGE;
    }
    int rc = 0;
    for (size_t i = 0; i < all.n && !rc; i++) {
        if (!m->b->supports(&all.items[i], why, sizeof why)) {
            m->skipped++;
            continue;
        }
        if (kb_problem_list_push(&m->layers, &all.items[i])) {
            snprintf(err, len, "out of memory for the model's layers");
            rc = KB_IO_ERROR;
        }
        m->flops += (double)all.items[i].count *
                    kb_problem_flops(&all.items[i]);
    }
    kb_problem_list_free(&all);
    if (!rc && m->layers.n == 0) {
        snprintf(err, len, "--compute backend:%s supports none of the %s "
                 "model's layers", m->b->name, m->p->model);
        rc = KB_IO_USAGE;
    }
    return rc;
}

/* Size the shared tensors and check everything fits in memory. */
static int alloc_pool(kb_io_model *m, char *err, size_t len)
{
    uint64_t need[KB_ARG_MAX] = {0}, total = 0;
    for (size_t i = 0; i < m->layers.n; i++) {
        const kb_problem *l = &m->layers.items[i];
        kb_arg_info a[KB_ARG_MAX];
        kb_problem_args(l, a);
        for (int k = 0; k < KB_ARG_MAX; k++) {
            uint64_t bytes = (uint64_t)a[k].nelems * kb_dtype_size(a[k].dt);
            if (a[k].used && bytes > need[k])
                need[k] = bytes;
        }
        total += m->b->extra_bytes ? m->b->extra_bytes(l) : 0;
    }
    for (int k = 0; k < KB_ARG_MAX; k++)
        total += need[k];
    uint64_t avail;
    if (kb_memory_available(&avail) == 0 && total > avail) {
        snprintf(err, len, "--compute backend:%s: the %s model at batch "
                 "%" PRId64 " needs %.2f GiB (largest layer's tensors plus "
                 "workspaces), %.2f GiB available; use a smaller --batch",
                 m->b->name, m->p->model, m->batch,
                 (double)total / (1 << 30), (double)avail / (1 << 30));
        return KB_IO_USAGE;
    }
    for (int k = 0; k < KB_ARG_MAX; k++) {
        size_t bytes = ((size_t)need[k] + 63) & ~(size_t)63;
        if (bytes && !(m->pool[k] = aligned_alloc(64, bytes))) {
            snprintf(err, len, "out of memory for %zu bytes of tensors",
                     bytes);
            return KB_IO_ERROR;
        }
    }
    return 0;
}

/* A device backend's runtime, found when its device is there: 0, or
 * KB_IO_USAGE with the runtime's reason ("no CUDA device (...)"), as for
 * any backend that can run none of the model's layers. */
static int find_device(kb_io_model *m, char *err, size_t len)
{
    char why[KB_IO_ERRLEN];
    if (strcmp(m->b->device, "cpu") == 0)
        return 0;
    if (!(m->rt = kb_gpu_runtime_find(m->b->device))) {
        snprintf(err, len, "--compute backend:%s: this build has no %s "
                 "runtime for its device", m->b->name, m->b->device);
        return KB_IO_USAGE;
    }
    if (m->rt->device_count(why, sizeof why) == 0) {
        snprintf(err, len, "--compute backend:%s: %s", m->b->name, why);
        return KB_IO_USAGE;
    }
    return 0;
}

/* The pinned host buffer and the device buffer of one decoded batch,
 * allocated once the layers are prepared (the backend has selected its
 * device by then).  0, or KB_IO_USAGE (a batch too large to address) or
 * KB_IO_ERROR (an allocation failed) with the runtime's message. */
static int alloc_copy(kb_io_model *m, const kb_io_decoder *d, char *err,
                      size_t len)
{
    m->sample_bytes = m->rt && d->out_bytes ? d->out_bytes(m->p) : 0;
    if (m->sample_bytes == 0)
        return 0;
    if ((uint64_t)m->batch > SIZE_MAX / m->sample_bytes) {
        snprintf(err, len, "--compute backend:%s: a batch of %" PRId64
                 " decoded samples of %zu bytes is too large", m->b->name,
                 m->batch, m->sample_bytes);
        return KB_IO_USAGE;
    }
    size_t bytes = (size_t)m->batch * m->sample_bytes;
    char why[KB_IO_ERRLEN];
    if (m->rt->pinned_alloc(&m->pinned, bytes, why, sizeof why) ||
        m->rt->alloc(&m->dev, bytes, why, sizeof why)) {
        snprintf(err, len, "--compute backend:%s: the decoded batch's "
                 "pinned and device buffers (%zu bytes each): %s",
                 m->b->name, bytes, why);
        return KB_IO_ERROR;
    }
    return 0;
}

/* The host-to-device copy of n decoded samples, timed into the model's
 * counters.  0, or KB_IO_ERROR with the runtime's message. */
static int copy_batch(kb_io_model *m, const void *samples, int64_t n,
                      char *err, size_t len)
{
    if (n < 0 || n > m->batch) {
        snprintf(err, len, "--compute backend:%s: a step of %" PRId64
                 " samples, batch %" PRId64, m->b->name, n, m->batch);
        return KB_IO_ERROR;
    }
    size_t bytes = (size_t)n * m->sample_bytes;
    char why[KB_IO_ERRLEN];
    double t0 = kb_now();
    memcpy(m->pinned, samples, bytes);
    if (m->rt->upload(m->dev, m->pinned, bytes, why, sizeof why)) {
        snprintf(err, len, "--compute backend:%s: copying the decoded batch "
                 "(%zu bytes) to the device: %s", m->b->name, bytes, why);
        return KB_IO_ERROR;
    }
    m->copy_s += kb_now() - t0;
    m->copied_bytes += bytes;
    return 0;
}

/* The host tensors of layer l: views of the pool. */
static kb_tensors views(const kb_io_model *m, const kb_problem *l)
{
    kb_arg_info a[KB_ARG_MAX];
    kb_problem_args(l, a);
    kb_tensors t = {{0}};
    for (int k = 0; k < KB_ARG_MAX; k++)
        t.ptr[k] = a[k].used ? m->pool[k] : NULL;
    return t;
}

int kb_io_model_open(const kb_io_profile *p, const char *backend,
                     const kb_io_decoder *d, int64_t batch, kb_io_model **out,
                     char *err, size_t len)
{
    *out = NULL;
    kb_io_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, len, "out of memory for the model");
        return KB_IO_ERROR;
    }
    m->p = p;
    m->batch = batch;
    m->b = kb_backend_find(backend);
    int rc = 0;
    if (!m->b) {
        char names[256] = "";
        for (int i = 0; i < kb_backend_count(); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", i ? ", " : "", kb_backend_at(i)->name);
        snprintf(err, len, "--compute backend:%s: no such backend in this "
                 "build (expected one of: %s)", backend, names);
        rc = KB_IO_USAGE;
    } else if (strcmp(p->model, "none") == 0 || !p->model[0]) {
        snprintf(err, len, "--compute backend:%s: profile %s has no kbench "
                 "model (model = none); use --compute sleep:SECONDS",
                 backend, p->name);
        rc = KB_IO_USAGE;
    }
    if (!rc)
        rc = find_device(m, err, len);
    if (!rc)
        rc = load_layers(m, batch, err, len);
    if (!rc)
        rc = alloc_pool(m, err, len);
    if (!rc && !(m->plans = calloc(m->layers.n, sizeof *m->plans))) {
        snprintf(err, len, "out of memory for the model's plans");
        rc = KB_IO_ERROR;
    }
    for (size_t i = 0; !rc && i < m->layers.n; i++) {
        const kb_problem *l = &m->layers.items[i];
        kb_tensors t = views(m, l);
        kb_fill_inputs(l, &t, KB_FILL_RANDOM, 42 + i);
        char why[KB_IO_ERRLEN];
        if (m->b->prepare(l, &t, &m->plans[i], why, sizeof why)) {
            char desc[256];
            kb_problem_format(l, desc, sizeof desc);
            snprintf(err, len, "--compute backend:%s: prepare %s: %s",
                     backend, desc, why);
            rc = KB_IO_ERROR;
        }
    }
    if (!rc)
        rc = alloc_copy(m, d, err, len);
    if (rc) {
        kb_io_model_close(m);
        return rc;
    }
    m->elem = d->out_elem;
    m->fed = m->elem != KB_IO_ELEM_NONE &&
             kb_io_feed_fits(&m->layers.items[0], p, batch);
    *out = m;
    return 0;
}

int kb_io_model_step(kb_io_model *m, const void *samples, int64_t n,
                     char *err, size_t len)
{
    if (m->fed)
        kb_io_feed(&m->layers.items[0], m->pool[KB_ARG_SRC], m->elem, samples,
                   n);
    if (m->sample_bytes && copy_batch(m, samples, n, err, len))
        return KB_IO_ERROR;
    for (size_t i = 0; i < m->layers.n; i++)
        for (int64_t r = 0; r < m->layers.items[i].count; r++) {
            double elapsed;
            char why[KB_IO_ERRLEN];
            if (m->b->run(m->plans[i], &elapsed, why, sizeof why)) {
                snprintf(err, len, "--compute backend:%s: layer %s: %s",
                         m->b->name, m->layers.items[i].name, why);
                return KB_IO_ERROR;
            }
        }
    return 0;
}

void kb_io_model_describe(const kb_io_model *m, kb_io_model_info *info)
{
    info->backend = m->b->name;
    info->model = m->p->model;
    info->layers = (int64_t)m->layers.n;
    info->skipped = m->skipped;
    info->flops = m->flops;
    info->fed = m->fed;
    info->device = m->b->device;
    info->copies = m->sample_bytes > 0;
}

void kb_io_model_take_copied(kb_io_model *m, uint64_t *bytes, double *seconds)
{
    *bytes = m->copied_bytes;
    *seconds = m->copy_s;
    m->copied_bytes = 0;
    m->copy_s = 0;
}

void kb_io_model_close(kb_io_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->plans && i < m->layers.n; i++)
        if (m->plans[i])
            m->b->release(m->plans[i]);
    free(m->plans);
    for (int k = 0; k < KB_ARG_MAX; k++)
        free(m->pool[k]);
    if (m->rt) {
        m->rt->pinned_free(m->pinned);
        m->rt->free(m->dev);
    }
    kb_problem_list_free(&m->layers);
    free(m);
}
