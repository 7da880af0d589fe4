/* run_dataset.h - what `kbench io run` reads (run_dataset.c): the
 * dataset's files and record format, this rank's shard of its sample ids
 * and the step limit of an epoch. */
#ifndef KB_IO_RUN_DATASET_H
#define KB_IO_RUN_DATASET_H

#include "iostage/formats/format.h"
#include "iostage/run_opts.h"
#include "iostage/profile.h"

typedef struct {
    kb_io_profile prof;         /* the run's profile, with a DLIO dataset's
                                 * scan and counted samples_per_file */
    const kb_io_format *fmt;
    char **paths;               /* nfiles, malloc'd */
    int64_t nfiles, spf, total; /* ids 0 .. total - 1: file x spf + k */
    /* this rank's shard: ids [lo, hi), held by files [flo, flo + nshard) */
    int64_t lo, hi, flo, nshard;
    int64_t limit;              /* steps an epoch at most, 0: none */
} kb_io_dataset;

/* Open the dataset in o->dir for profile p: a kbench dataset through its
 * manifest (checked against p), a DLIO one (p->dlio.layout) through
 * kb_io_dlio_scan, its first file's records counted when the config gave
 * no samples_per_file; then o->rank's shard and the step limit
 * (p->max_steps, and with p->drop_last DLIO's floor(total / (batch x
 * ranks))).  0, or KB_IO_USAGE (no manifest, missing file, a rank with no
 * step), KB_IO_CORRUPT (the first file cannot be counted) or KB_IO_ERROR
 * with a message; kb_io_dataset_close either way. */
int kb_io_dataset_open(kb_io_dataset *d, const kb_io_profile *p,
                       const kb_io_run_opts *o, char *err, size_t len);
void kb_io_dataset_close(kb_io_dataset *d);

/* Samples of file f in the shard. */
int64_t kb_io_dataset_shard_samples(const kb_io_dataset *d, int64_t f);

#endif
