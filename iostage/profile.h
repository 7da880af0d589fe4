/* profile.h - the workload profiles: read by profiles.c (data in
 * profiles.conf), their derived numbers in profile.c. */
#ifndef KB_IO_PROFILE_H
#define KB_IO_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
