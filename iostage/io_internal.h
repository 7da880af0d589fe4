/* io_internal.h - types and functions shared by the files of the I/O stage
 * (iostage/): profiles, the sample header, container formats, reader
 * engines, decoders, the prefetch ring and the metrics. */
#ifndef KB_IO_INTERNAL_H
#define KB_IO_INTERNAL_H

#include "drivers/common/clock.h"
#include "kernels/problem.h"
#include "kernels/random.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KB_IO_ERRLEN 512
#define KB_IO_ALIGN 4096            /* O_DIRECT buffer/offset alignment */

/* Return codes of the stage's functions beyond 0 / -1. */
enum {
    KB_IO_ERROR = -1,      /* I/O or library failure: exit code 3 */
    KB_IO_CORRUPT = -2,    /* the data is wrong: exit code 1, or skipped */
    KB_IO_USAGE = -3,      /* bad option or input: exit code 2 */
};

/* ---- profiles (profiles.c, data in profiles.conf) ---- */

/* DLIO's checkpoint schedule (checkpoint.*, workflow.checkpoint of a DLIO
 * workload YAML), run by `kbench io run` between steps and emulated by
 * `kbench io checkpoint`.  All zero: no checkpoints. */
typedef struct {
    int64_t every_steps;        /* steps_between_checkpoints; 0: by epoch */
    int64_t every_epochs;       /* epochs_between_checkpoints; 0: none */
    int64_t after_epoch;        /* checkpoint_after_epoch: the first one
                                 * (epochs count from 1, as in DLIO) */
    /* the model's bytes are the profile's checkpoint_bytes (model_size) */
    uint64_t optimizer_bytes;   /* optimization_groups: DLIO writes two
                                 * tensors a group and their concatenation,
                                 * 3 x their sum */
    uint64_t layer_bytes;       /* DLIO's layer state, written with every
                                 * checkpoint: (num_layers, + tensor_
                                 * parallelism when > 1) x sum(layer_
                                 * parameters); by default 24,757,599 */
} kb_io_ckpt_plan;

/* Where a dataset's files are and what they hold when DLIO wrote them
 * (or kbench wrote them for DLIO): train/<prefix>_<i>_of_<N>.<ext>, in
 * subfolders train/<i mod S>/ when S = num_subfolders_train > 1, with no
 * kbench manifest and no sample ids or checksums in the records. */
typedef struct {
    bool layout;                /* false: kbench's own layout */
    char prefix[64];            /* dataset.file_prefix (DLIO: "img") */
    int64_t subfolders;         /* num_subfolders_train */
    char checkpoint_folder[1024];   /* checkpoint.checkpoint_folder with
                                     * workflow.checkpoint: the default of
                                     * run's --checkpoint-dir and of
                                     * checkpoint's --dir; "" none */
} kb_io_dlio;

typedef struct {
    char name[32];
    char format[16];        /* container: tfrecord, npz, hdf5 */
    char body[16];          /* sample content: jpeg, cosmo, random, climate */
    char decode[16];        /* decoder: jpeg, cosmo, hdf5, parse */
    int64_t files;
    int64_t samples_per_file;
    int64_t sample_bytes;   /* mean bytes of one sample on disk */
    int64_t sample_stddev;
    int64_t batch;
    int64_t readers;
    double compute_seconds; /* emulated compute per step (H100) */
    double au_target;       /* percent; 0 when the profile has none */
    int64_t dims[4];        /* decoded / stored shape, see profiles.conf */
    int ndims;
    int64_t checkpoint_bytes;
    char model[32];         /* kbench catalog for --compute backend: */
    /* The training loop, where a DLIO config sets it (0 / false: not
     * set; kbench's own profiles leave them so). */
    int64_t epochs;         /* train.epochs; --epochs overrides */
    int64_t max_steps;      /* steps an epoch at most (total_training_steps) */
    bool drop_last;         /* a partial last batch is read, not delivered:
                             * DLIO's loaders drop it */
    int64_t prefetch;       /* --prefetch's default (reader.prefetch_size);
                             * 0: kbench's, 2 */
    bool seeded;            /* seed is --seed's default (train.seed) */
    uint64_t seed;
    kb_io_ckpt_plan ckpt;
    kb_io_dlio dlio;
} kb_io_profile;

/* Path of the profile file: $KBENCH_IO_PROFILES, else io/profiles.conf in
 * the data directory (kernels/data_dir.h); NULL when there is none, which
 * kb_io_profile_find() reports. */
const char *kb_io_profiles_path(void);

/* Find profile `name` in the file at `path`.  Returns 0, KB_IO_USAGE for
 * an unknown name or a malformed file (message names file, line, key),
 * KB_IO_ERROR when the file cannot be read. */
int kb_io_profile_find(const char *path, const char *name, kb_io_profile *p,
                       char *err, size_t len);

/* Spaces, tabs and line ends trimmed in place, for the stage's `key =
 * value` files (profiles.conf, dlio_keys.conf); returns the start. */
char *kb_io_trim(char *s);

/* Product of p->dims (at least 1).  Cannot fail. */
int64_t kb_io_dims_product(const kb_io_profile *p);

/* ---- random bytes from kernels/random.h's splitmix64 (sample.c) ---- */
void kb_io_fill_random(uint8_t *dst, size_t n, uint64_t seed);

/* ---- the sample header every record carries (sample.c) ----
 * 24 bytes, little-endian: "KBS2", CRC32C of the body, sample id, body
 * length.  CRC32C because the crc32 instruction computes it at ~11 GB/s a
 * core where zlib's crc32 managed ~5: verifying every byte must not be
 * what limits the raw read path.  KB_IO_FORMAT, in the manifest, changes
 * whenever what gen writes does, so an older dataset is named as such
 * instead of failing as corrupt. */
#define KB_IO_FORMAT 2
#define KB_IO_HDR_BYTES 24
typedef struct {
    uint32_t crc;
    uint64_t id;
    uint64_t body_len;
} kb_io_hdr;

void kb_io_hdr_put(uint8_t *dst, const kb_io_hdr *h);
/* Returns 0, or KB_IO_CORRUPT on a bad magic. */
int kb_io_hdr_get(const uint8_t *src, kb_io_hdr *h);
/* zlib's crc32 (IEEE, what ZIP members carry) over any length (zlib
 * takes uInt lengths). */
uint32_t kb_io_crc32(const uint8_t *p, size_t n);

/* One sample found in a file by a format's parser.  body points into the
 * file buffer; for HDF5 it is the whole file image. */
typedef struct {
    uint64_t id;
    const uint8_t *body;
    size_t body_len;
    uint64_t offset;        /* of the record in the file, for messages */
} kb_io_sample;
/* A DLIO npz file keeps its samples along the last axis of one array, so
 * a sample's body there is that whole array (x[..., k] is a strided view,
 * as in DLIO's reader) and its id is k. */

typedef int (*kb_io_sample_fn)(void *ctx, const kb_io_sample *s);

/* ---- sample bodies (gen_body.c, gen_jpeg.c, gen_cosmo.c) ---- */
/* Make the body of sample id; *body is malloc'd.  Returns 0, KB_IO_ERROR
 * (allocation, library) with a message. */
int kb_io_body_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen);
int kb_io_jpeg_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                    uint8_t **body, size_t *len, char *err, size_t elen);
int kb_io_cosmo_make(const kb_io_profile *p, uint64_t seed, uint64_t id,
                     uint8_t **body, size_t *len, char *err, size_t elen);
/* Size in bytes of sample id's body for the "random" content. */
size_t kb_io_random_size(const kb_io_profile *p, uint64_t seed, uint64_t id);

/* ---- container formats (tfrecord.c, npz.c, hdf5_file.c) ---- */
typedef struct {
    const char *name;
    const char *ext;
    const char *missing;    /* why it is unavailable in this build, or NULL */
    /* The records carry no ids (DLIO's files): a parser numbers them 0, 1,
     * ... in file order and the pipeline names sample k of file f
     * f x samples_per_file + k.  Otherwise ids are global, from the
     * sample header. */
    bool positional_ids;
    /* Write file `file_index` of the dataset to `path`.  Returns 0,
     * KB_IO_ERROR with a message. */
    int (*gen_file)(const kb_io_profile *p, uint64_t seed, int64_t file_index,
                    const char *path, char *err, size_t len);
    /* Walk the samples of a file image, verifying framing and checksums,
     * calling fn for each.  Returns 0, KB_IO_CORRUPT with "offset N: ..."
     * in err, or fn's non-zero return. */
    int (*parse)(const uint8_t *buf, size_t n, kb_io_sample_fn fn, void *ctx,
                 char *err, size_t len);
    /* Streamable formats only (else NULL): the same walk over the
     * complete records of buf[*off, n), advancing *off past them, so a
     * reader can verify what has arrived while the rest is read.  With
     * `final`, n is the whole file and an incomplete record is an error.
     * parse(buf, n) == parse_part(buf, n, &zero, true). */
    int (*parse_part)(const uint8_t *buf, size_t n, size_t *off, bool final,
                      kb_io_sample_fn fn, void *ctx, char *err, size_t len);
} kb_io_format;

/* NULL when the name is unknown. */
const kb_io_format *kb_io_format_find(const char *name);
extern const kb_io_format kb_io_format_tfrecord, kb_io_format_npz,
    kb_io_format_hdf5, kb_io_format_dlio_npz, kb_io_format_dlio_tfrecord,
    kb_io_format_dlio_hdf5;

/* Write all of buf to fd.  0, or KB_IO_ERROR naming path. */
int kb_io_write_full(int fd, const uint8_t *buf, size_t n, const char *path,
                     char *err, size_t len);

/* TFRecord framing (tfrecord.c). */
uint32_t kb_io_crc32c(uint32_t crc, const uint8_t *p, size_t n);
uint32_t kb_io_tfrecord_mask(uint32_t crc);
#define KB_IO_TFRECORD_OVERHEAD 16
/* Frame data (n bytes) as a TFRecord at dst (n + 16 bytes).  Cannot fail. */
void kb_io_tfrecord_put(uint8_t *dst, const uint8_t *data, size_t n);
/* The framed record at *off of buf[0, n), both CRCs checked: its data
 * in *data and *dlen, *off past it.  1: a record; 0: the end, or (not
 * final) the next record has not fully arrived; KB_IO_CORRUPT with
 * "offset N: ..." (a truncation when final). */
int kb_io_tfrecord_next(const uint8_t *buf, size_t n, size_t *off,
                        bool final, const uint8_t **data, uint64_t *dlen,
                        char *err, size_t len);

/* ---- reader engines (readers_*.c) ---- */
typedef struct {
    double *lat;            /* seconds per read request */
    size_t n, cap;
    uint64_t bytes;         /* bytes the reads returned */
} kb_io_lat;

/* Record one latency; returns 0 or KB_IO_ERROR when out of memory. */
int kb_io_lat_add(kb_io_lat *l, double seconds);

/* Told, as reads complete, how long the prefix of the buffer that has
 * fully arrived is: a reader verifies it while later requests (kernel
 * readahead, io_uring's queue) keep the device busy. */
typedef struct {
    void (*fn)(void *ctx, size_t ready);
    void *ctx;
} kb_io_progress;

typedef struct {
    const char *name;
    const char *missing;    /* why it is unavailable, or NULL */
    /* Why the engine cannot bypass the page cache whatever the open flags
     * (mmap), or NULL when O_DIRECT applies to its transfers. */
    const char *no_direct;
    /* The calls that move the data, named when one refuses O_DIRECT. */
    const char *read_call, *write_call;
    /* Per-thread state (an io_uring ring).  0 or KB_IO_ERROR. */
    int (*open)(void **state, unsigned depth, char *err, size_t len);
    /* Read bytes [0, size) of fd into buf (capacity size rounded up to
     * KB_IO_ALIGN), in requests of `chunk` bytes, reporting progress when
     * prog is not NULL.  Returns 0, or a negative errno (-EINVAL on an
     * O_DIRECT fd is the filesystem refusing O_DIRECT at transfer time:
     * the caller reads again buffered). */
    int (*read)(void *state, int fd, uint8_t *buf, size_t size, size_t chunk,
                kb_io_lat *lat, const kb_io_progress *prog, char *err,
                size_t len);
    /* Write buf[0, size) to fd from offset 0 (on an O_DIRECT fd, size a
     * multiple of KB_IO_ALIGN).  0 or a negative errno, -EINVAL as for
     * read. */
    int (*write)(void *state, int fd, const uint8_t *buf, size_t size,
                 size_t chunk, char *err, size_t len);
    void (*close)(void *state);
} kb_io_engine;

const kb_io_engine *kb_io_engine_find(const char *name);   /* NULL if none */
extern const kb_io_engine kb_io_engine_pread, kb_io_engine_mmap,
    kb_io_engine_uring;

/* ---- decoders (decode_*.c) ---- */
typedef struct {
    void *p;
    size_t n;
} kb_io_scratch;

/* Grow s to at least n bytes.  0 or KB_IO_ERROR. */
int kb_io_scratch_reserve(kb_io_scratch *s, size_t n);

/* Element type of a decoded sample: what --compute backend: feeds the
 * model's first layer with. */
typedef enum { KB_IO_ELEM_NONE, KB_IO_ELEM_U8, KB_IO_ELEM_F32 } kb_io_elem;

typedef struct {
    const char *name;
    const char *missing;
    kb_io_elem out_elem;
    /* Bytes of one decoded sample (0: nothing kept). */
    size_t (*out_bytes)(const kb_io_profile *p);
    /* Decode s into out; rng seeds random crops.  0, KB_IO_CORRUPT or
     * KB_IO_ERROR with a message. */
    int (*decode)(const kb_io_profile *p, const kb_io_sample *s, uint64_t rng,
                  void *out, kb_io_scratch *scratch, char *err, size_t len);
} kb_io_decoder;

const kb_io_decoder *kb_io_decoder_find(const char *name);  /* NULL if none */
/* libhdf5 without thread safety (Debian's) must see one call at a time:
 * every caller in the stage holds this lock (decode_hdf5.c) around its
 * libhdf5 calls; returns whether it was taken, for the unlock.  Only in
 * builds with libhdf5 (KB_IO_HAVE_HDF5). */
bool kb_io_hdf5_lock(void);
void kb_io_hdf5_unlock(bool locked);
/* Open a file image read-only with libhdf5's core driver (a copy of buf);
 * the hid_t, or < 0.  Call it holding the lock. */
int64_t kb_io_hdf5_open_image(const uint8_t *buf, size_t n);
extern const kb_io_decoder kb_io_decode_jpeg, kb_io_decode_cosmo,
    kb_io_decode_hdf5, kb_io_decode_parse;

/* ---- the model as the consumer: --compute backend:NAME (compute_model.c)
 * ---- */
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

/* ---- shuffle (shuffle.c) ---- */
/* Seed of epoch e (and of file f within it). */
uint64_t kb_io_epoch_seed(uint64_t seed, int64_t epoch, int64_t file);
/* Fisher-Yates over the n elements of `size` bytes at a. */
void kb_io_shuffle(void *a, size_t n, size_t size, uint64_t seed);

/* ---- bounded prefetch ring of batches (ring.c) ---- */
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

/* ---- metrics (metrics.c) ---- */

double kb_io_cpu_seconds(void);                  /* user + system, process */
/* q-quantile (0..1) of v[0..n), sorting v.  0 when n == 0. */
double kb_io_quantile(double *v, size_t n, double q);
/* Fraction of the files' pages resident in the page cache (mincore).
 * Returns 0..1, or -1 with a message when a file cannot be mapped. */
double kb_io_residency(char **paths, int64_t n, char *err, size_t len);
/* fsync + POSIX_FADV_DONTNEED each file.  0 or KB_IO_ERROR. */
int kb_io_evict(char **paths, int64_t n, char *err, size_t len);

/* ---- verbs (gen.c, pipeline.c, checkpoint.c) ---- */
/* Set by the verb's SIGINT/SIGTERM handler (io_cmd.c); long loops stop
 * between files when it is non-zero. */
extern volatile sig_atomic_t kb_io_interrupted;

typedef struct {
    const char *dir;
    double scale;
    uint64_t seed;
    int threads;
} kb_io_gen_opts;

int kb_io_gen(const kb_io_profile *p, const kb_io_gen_opts *o, char *err,
              size_t len);

/* ---- scale-out (rank.c): one process a node, sharded by rank ---- */
typedef struct {
    int64_t rank, ranks;          /* 0 <= rank < ranks */
    const char *source;           /* "--rank", "slurm", "openmpi", "pmix",
                                   * or "single" (no launcher) */
} kb_io_rank;

/* Rank and size from the launcher's environment (OMPI_COMM_WORLD_RANK and
 * _SIZE, SLURM_PROCID and SLURM_NTASKS, PMIX_RANK with a size from one of
 * them, in that order), else a single rank.  Explicit --rank/--ranks
 * (rank >= 0) win.  0, or KB_IO_USAGE naming the variable that is malformed or
 * inconsistent. */
int kb_io_rank_detect(int64_t rank, int64_t ranks, kb_io_rank *r, char *err,
                      size_t len);

/* Global samples [*lo, *hi) of rank r out of `total`: DLIO's split,
 * ceil(total / ranks) consecutive samples a rank, the last one short. */
void kb_io_rank_shard(const kb_io_rank *r, int64_t total, int64_t *lo,
                      int64_t *hi);

/* DLIO's steps an epoch a rank, its partial last batch dropped:
 * floor(total / batch / ranks), at most max_steps when that is > 0.  0
 * when batch or ranks is not positive. */
int64_t kb_io_dlio_steps(int64_t total, int64_t batch, int64_t ranks,
                         int64_t max_steps);

/* ---- delivered-sample bitmaps in records (bitmap.c) ----
 * Bit i of `bits` is sample i.  The text form of ids [lo, hi) is the hex
 * of their bits' zlib stream: a full bitmap of a million samples is a few
 * hundred characters. */
/* malloc'd text, or NULL when out of memory. */
char *kb_io_bitmap_encode(const uint8_t *bits, int64_t lo, int64_t hi);
/* OR the bits of text (ids [lo, hi)) into bits (which holds at least hi
 * bits).  0, or KB_IO_CORRUPT with a message naming what is malformed. */
int kb_io_bitmap_decode(const char *text, int64_t lo, int64_t hi,
                        uint8_t *bits, char *err, size_t len);
/* Whether `copies` bitmaps of `total` samples fit in a quarter of the
 * physical memory: 0, or KB_IO_USAGE with the numbers, prefixed by what
 * (a file and line): a header field must not size an allocation alone. */
int kb_io_bitmap_room(int64_t total, int copies, const char *what, char *err,
                      size_t len);

typedef struct {
    const char *dir;
    const char *json;             /* JSON Lines path or NULL */
    uint64_t bytes;
    const kb_io_engine *engine;
    bool fsync, direct;
    uint64_t seed;
    /* DLIO's schedule: `kbench io checkpoint` emulates its training loop
     * (steps of compute_sleep seconds) when plan.every_steps or
     * plan.every_epochs is set, else writes and reads back one. */
    kb_io_ckpt_plan plan;
    int64_t steps, epochs;        /* the emulated loop */
    double compute_sleep;
    bool async;                   /* the write overlaps the next steps */
    bool sharded;                 /* each rank writes its 1/ranks share;
                                   * else rank 0 writes it all (DLIO's
                                   * rank_zero) */
    kb_io_rank rank;
} kb_io_ckpt_opts;

typedef struct {
    const char *dir;
    const char *json;             /* JSON Lines path or NULL */
    const kb_io_engine *engine;
    const kb_io_decoder *decoder;
    int64_t epochs;
    int64_t readers;
    int64_t prefetch;
    int64_t batch;
    uint64_t seed;
    size_t chunk;
    unsigned depth;               /* io_uring queue depth */
    bool direct, cold, skip_corrupt, quiet;
    double compute_sleep;         /* seconds per step, or < 0 */
    const char *compute_backend;  /* backend name, or NULL */
    kb_io_rank rank;              /* this process's shard */
    /* checkpoints between steps on ckpt.plan (p->ckpt with the command
     * line's changes) when ckpt.dir is set */
    kb_io_ckpt_opts ckpt;
} kb_io_run_opts;

/* Returns 0, KB_IO_CORRUPT (verification failed), KB_IO_USAGE or
 * KB_IO_ERROR with a message. */
int kb_io_run(const kb_io_profile *p, const kb_io_run_opts *o, char *err,
              size_t len);

/* ---- DLIO's datasets and workload configs (dlio_layout.c,
 * dlio_config.c) ---- */
/* Path of file i (0-based) of a DLIO-layout dataset in dir:
 * dir/train[/<i mod S>]/<prefix>_<i>_of_<N>.<ext>, i and the subfolder
 * zero-padded to the width of N and S as DLIO pads them.  malloc'd, or
 * NULL when out of memory. */
char *kb_io_dlio_file_path(const char *dir, const kb_io_profile *p,
                           int64_t i);
/* Make dir/train and its subfolders (gen).  0 or KB_IO_ERROR. */
int kb_io_dlio_mkdirs(const char *dir, const kb_io_profile *p, char *err,
                      size_t len);
/* Fill p from the files DLIO wrote under dir/train when p->files is 0
 * (count, prefix, subfolders and format from the names), else check them
 * against p; every file 0..N-1 must be there.  samples_per_file stays as
 * given (0: unknown, the run counts the first file's).  0, or KB_IO_USAGE
 * naming the missing or stray file. */
int kb_io_dlio_scan(const char *dir, kb_io_profile *p, char *err, size_t len);

/* A DLIO workload YAML (Hydra's `workload` group: dataset.*, reader.*,
 * train.*, checkpoint.*, workflow.*, metric.*) with `key=value` overrides
 * (DLIO's `++workload.dataset.num_files_train=8`, or without the prefix)
 * into a profile.  The mapping is data (dlio_keys.conf): a key kbench
 * does not implement is a warning on stderr when it cannot change the
 * measurement and KB_IO_USAGE when it would.  data_folder (dlen bytes)
 * gets storage.storage_root/dataset.data_folder, for --dir's default.
 * path NULL: DLIO's defaults, the dataset's shape (files, samples a
 * file, format, prefix, subfolders) left 0 for kb_io_dlio_scan unless an
 * override sets it.  0, KB_IO_USAGE naming the file, line and key (or the
 * override), or KB_IO_ERROR. */
int kb_io_dlio_config_load(const char *path, char **overrides, int noverrides,
                           kb_io_profile *p, char *data_folder, size_t dlen,
                           char *err, size_t len);
/* Make the folder path and its parents, as DLIO makes its
 * checkpoint_folder (os.makedirs, exist_ok).  0, KB_IO_USAGE (empty or
 * too long) or KB_IO_ERROR naming the folder. */
int kb_io_dlio_make_folder(const char *path, char *err, size_t len);

/* `kbench io merge FILE...`: argv[0] == "merge".  Returns an exit code
 * (drivers/commands.h). */
int kb_io_merge_cmd(int argc, char **argv);

/* Dataset manifest written last by gen: profile, files, samples/file. */
int kb_io_manifest_read(const char *dir, char *profile, size_t plen,
                        int64_t *files, int64_t *spf, char *err, size_t len);
/* Path of file i of the dataset (malloc'd), NULL when out of memory. */
char *kb_io_file_path(const char *dir, const kb_io_profile *p, int64_t i);


int kb_io_checkpoint(const kb_io_ckpt_opts *o, char *err, size_t len);

/* The schedule inside a training loop (ckpt_schedule.c), for `kbench io
 * run`.  open: *s is NULL when the plan has no checkpoints or o->dir is
 * NULL.  step: after step `step` (1-based in the epoch) of epoch `epoch`
 * (1-based), `last` when it ended the epoch, writes what the schedule
 * asks for (or, async, hands it to the writer thread, first waiting for
 * the previous one); *stall gets the seconds the loop was held.  close:
 * waits for a write in flight (its wait added to *stall), writes one
 * "io_checkpoint" record a checkpoint to json (may be NULL), a line on
 * stdout when there was one, and frees s (the files stay; the records:
 * results/SCHEMA.md).  Each returns 0 or a stage error with a message; a
 * NULL s is a no-op. */
typedef struct kb_io_ckpt_sched kb_io_ckpt_sched;
int kb_io_ckpt_sched_open(const kb_io_ckpt_opts *o, kb_io_ckpt_sched **s,
                          char *err, size_t len);
int kb_io_ckpt_sched_step(kb_io_ckpt_sched *s, int64_t epoch, int64_t step,
                          bool last, double *stall, char *err, size_t len);
int kb_io_ckpt_sched_close(kb_io_ckpt_sched *s, FILE *json, double *stall,
                           char *err, size_t len);

/* Open path with `flags` (mode 0644 when creating), adding O_DIRECT when
 * *direct; a filesystem that refuses O_DIRECT at open (EINVAL, as tmpfs
 * before Linux 6.6) gets a buffered open and *direct cleared.  Returns
 * the fd or -1 with errno. */
int kb_io_open(const char *path, int flags, bool *direct);

/* ---- how a request for O_DIRECT fared (direct.c) ----
 * One per direction: the run's reads, the checkpoint's write and read.
 * Only the first refusal is kept: after it the direction is buffered. */
typedef struct {
    const char *at;         /* NULL, or where it was refused: "engine"
                             * (mmap), "open", "read" or "write" */
    const char *call;       /* the call that refused: "open", "pread",
                             * "io_uring read", "mmap", ... */
    char file[256];
    char reason[KB_IO_ERRLEN];
} kb_io_direct;

/* Record a refusal unless one is already recorded; returns whether this
 * one was the first.  Cannot fail (long strings are cut). */
bool kb_io_direct_refuse(kb_io_direct *d, const char *at, const char *call,
                         const char *file, const char *reason);
/* Add "<prefix>_refused" (bool) and "<prefix>_refused_at", "_call",
 * "_file", "_reason", "<prefix>_fallback" (null when not refused) to o;
 * `fallback` names what was done instead.  0, or -1 out of memory. */
struct cJSON;
int kb_io_direct_json(const kb_io_direct *d, const char *prefix,
                      const char *fallback, struct cJSON *o);
/* "O_DIRECT refused at read by pread (FILE: REASON)" into buf, for a d
 * that holds a refusal. */
void kb_io_direct_describe(const kb_io_direct *d, char *buf, size_t len);

#endif
