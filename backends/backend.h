/* backend.h - the one interface every implementation provides.
 *
 * The driver owns data, timing, validation and output; a backend owns only
 * its kernel.  Host tensors are filled by the driver and handed to
 * prepare(), which keeps whatever copies it needs (device buffers,
 * reordered layouts) untimed.  run() is synchronous and never copies
 * results back; read_output() does that, for validation and --dump, and
 * write_input() copies the host tensors in again, so that the driver can
 * check the output of the last timed run as well as the first.
 * Adding a backend is one folder and one line in backends/registry.c. */
#ifndef KB_BACKEND_H
#define KB_BACKEND_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#ifdef __cplusplus   /* the GPU kernels (.cu) include it */
extern "C" {
#endif

/* Key/value facts for describe(): library versions, ISA, device, ...
 * (a GPU's identity alone is a dozen), and for plan_info(). */
#define KB_INFO_MAX 40
typedef struct {
    int n;
    struct {
        char key[32];
        char value[224];
    } kv[KB_INFO_MAX];
} kb_info;

/* Append one fact (printf-style value); silently ignores overflow past
 * KB_INFO_MAX entries. */
void kb_info_add(kb_info *info, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value of key in these facts, or NULL.  Can't fail. */
const char *kb_info_value(const kb_info *info, const char *key);

/* Whether these facts say "device" "none": a GPU backend built without its
 * device present.  Can't fail. */
bool kb_info_no_device(const kb_info *info);

/* Why the device is absent, for a run that leaves the backend out: the
 * "no_device" fact ("no CUDA device: cudaGetDeviceCount: ..."), or a
 * generic phrase when the facts give none.  NULL when the device is
 * present.  Can't fail. */
const char *kb_info_no_device_why(const kb_info *info);

/* What a run asks of every backend before its first case (kbench run
 * --device, --tuning, --launches, --flush-l2).  CPU backends take none
 * of it. */
typedef struct {
    int device;          /* index among the visible devices (0) */
    const char *tuning;  /* a named tuning ("tile_128x64"); NULL: each
                            backend's default */
    int launches;        /* launches per timed sample, >= 1: with N > 1 a
                            sample is N back-to-back launches between two
                            events, divided by N (microsecond kernels) */
    bool flush_l2;       /* flush the device's L2 before each sample */
} kb_backend_config;

typedef struct kb_backend {
    const char *name;          /* "omp", "openblas", ... */
    const char *kind;          /* "hand" or "vendor" */
    const char *device;        /* "cpu", "cuda", "hip" or "gpusim" */
    /* Its timings are not performance (gpusim: GPU kernels simulated on
     * the CPU): never in the default backend set, and its records say
     * so ("performance": false), so that report, compare, baseline and
     * merge leave them out. */
    bool correctness_only;

    /* Can this backend run p?  If not, a reason for the SKIPPED record. */
    bool (*supports)(const kb_problem *p, char *why, size_t len);

    /* Bytes the backend will allocate for p beyond the host tensors
     * (workspace, device copies), so the driver can refuse a case that
     * does not fit.  NULL means none. */
    size_t (*extra_bytes)(const kb_problem *p);

    /* Build a plan for p over the host tensors.  Untimed.
     * Returns 0, or -1 with a message in err. */
    int (*prepare)(const kb_problem *p, const kb_tensors *host, void **plan,
                   char *err, size_t len);

    /* One execution; returns when the work is complete.  A backend that
     * times itself (GPU events) stores seconds in *elapsed, else -1.
     * Returns 0, or -1 with a message in err. */
    int (*run)(void *plan, double *elapsed, char *err, size_t len);

    /* Copy the outputs into the host tensors given to prepare().
     * NULL when run() already writes the host tensors. */
    int (*read_output)(void *plan, char *err, size_t len);

    /* Copy the host tensors given to prepare() into the backend's own
     * copies (device buffers, reordered layouts), untimed: the mirror of
     * read_output.  The driver calls it before the checked last timed
     * repetition, after restoring the inputs and poisoning the outputs,
     * so a plan that kept stale results cannot pass.  Every backend that
     * keeps a private copy of an output, or of a tensor it reads and
     * writes, provides it; copies of pure inputs may stay as prepare()
     * made them (the driver never changes pure inputs after prepare()).
     * NULL when run() writes its outputs straight into the host tensors.
     * Returns 0, or -1 with a message in err. */
    int (*write_input)(void *plan, char *err, size_t len);

    void (*release)(void *plan);

    /* Library name, version, build and runtime configuration. */
    void (*describe)(kb_info *info);

    /* Apply the run's thread count to the library's own pool, if it has
     * one beyond OpenMP's.  NULL when OpenMP's setting is enough. */
    void (*set_threads)(int threads);

    /* ---- devices (NULL on CPU backends) ---- */

    /* Take the run's settings, before any case.  Returns 0, or -1 with
     * err naming what is wrong (a tuning this backend has not, listing
     * those it has; a device index past the visible ones).  Having no
     * device at all is not an error here: supports() then says so. */
    int (*configure)(const kb_backend_config *cfg, char *err, size_t len);

    /* Bytes p needs in device memory (tensors, workspace), and the
     * device's free bytes, so that the driver refuses a case that does
     * not fit before anything runs.  Device buffers are never counted
     * against host RAM (extra_bytes).  device_free returns 0, or -1 with
     * why (no device). */
    size_t (*device_bytes)(const kb_problem *p);
    int (*device_free)(uint64_t *bytes, char *why, size_t len);

    /* Facts of one prepared plan, kept in its case record: the tuning,
     * the algorithm and its workspace, the math mode, how samples were
     * timed (launches per sample, L2 flushed).  NULL when there are none. */
    void (*plan_info)(void *plan, kb_info *info);
} kb_backend;

/* Registry: the backends this build has, in a fixed order. */
int kb_backend_count(void);
const kb_backend *kb_backend_at(int i);
const kb_backend *kb_backend_find(const char *name);   /* NULL if none */

/* Add a backend at run time (tests register deliberately wrong ones).
 * Returns 0, or -1 when the table is full or the name is taken. */
int kb_backend_register(const kb_backend *b);

#ifdef __cplusplus
}
#endif

#endif
