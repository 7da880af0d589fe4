/* run_dataset.c - the dataset a `kbench io run` reads: its files (a kbench
 * manifest, or the names of a DLIO dataset), their record format, this
 * rank's shard of the sample ids (DLIO's split) and the epoch's step
 * limit. */
#include "iostage/run_dataset.h"
#include "iostage/bitmap.h"
#include "iostage/dlio/layout.h"
#include "iostage/formats/format.h"
#include "iostage/gen.h"
#include "iostage/run_opts.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read file path whole into a malloc'd buffer.  0, or KB_IO_ERROR. */
static int slurp(const char *path, uint8_t **buf, size_t *n, char *err,
                 size_t len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return KB_IO_ERROR;
    }
    *n = (size_t)st.st_size;
    *buf = malloc(*n ? *n : 1);
    size_t got = 0;
    while (*buf && got < *n) {
        ssize_t r = read(fd, *buf + got, *n - got);
        if (r <= 0) {
            snprintf(err, len, "%s: offset %zu: %s", path, got,
                     r < 0 ? strerror(errno) : "end of file (shrank?)");
            close(fd);
            free(*buf);
            *buf = NULL;
            return KB_IO_ERROR;
        }
        got += (size_t)r;
    }
    close(fd);
    if (!*buf) {
        snprintf(err, len, "%s: out of memory for %zu bytes", path, *n);
        return KB_IO_ERROR;
    }
    return 0;
}

/* Parser callback: one more record. */
static int count_one(void *ctx, const kb_io_sample *s)
{
    (void)s;
    ++*(int64_t *)ctx;
    return 0;
}

/* Samples a file of a DLIO dataset holds, when its config did not say:
 * the first file's records, counted once before the epochs. */
static int count_samples(kb_io_dataset *d, kb_io_verify verify, char *err,
                         size_t len)
{
    uint8_t *buf = NULL;
    size_t n;
    int rc = slurp(d->paths[0], &buf, &n, err, len);
    char perr[KB_IO_ERRLEN] = "";
    d->spf = 0;
    if (!rc && (rc = d->fmt->parse(buf, n, verify, count_one, &d->spf, perr,
                                   sizeof perr)))
        snprintf(err, len, "%s: %s (counting its samples)", d->paths[0],
                 perr);
    free(buf);
    if (!rc && d->spf == 0) {
        snprintf(err, len, "%s: no samples in the first file",
                 d->paths[0]);
        rc = KB_IO_CORRUPT;
    }
    d->prof.samples_per_file = d->spf;
    return rc;
}

/* The dataset's files: from the manifest of a kbench dataset, checked
 * against the profile, or from the names in a DLIO dataset's train/. */
static int find_files(kb_io_dataset *d, const char *dir, char *err,
                      size_t len)
{
    if (d->prof.dlio.layout) {
        int rc = kb_io_dlio_scan(dir, &d->prof, err, len);
        d->nfiles = d->prof.files;
        d->spf = d->prof.samples_per_file;
        return rc;
    }
    char name[64];
    int rc = kb_io_manifest_read(dir, name, sizeof name, &d->nfiles, &d->spf,
                                 err, len);
    if (!rc && strcmp(name, d->prof.name) != 0) {
        snprintf(err, len, "%s holds a %s dataset, not %s", dir, name,
                 d->prof.name);
        rc = KB_IO_USAGE;
    }
    return rc;
}

/* The format of the dataset's records, usable in this build. */
static int find_format(kb_io_dataset *d, char *err, size_t len)
{
    d->fmt = kb_io_format_find(d->prof.format);
    if (!d->fmt) {
        snprintf(err, len, "profile %s: unknown format '%s'", d->prof.name,
                 d->prof.format);
        return KB_IO_USAGE;
    }
    if (d->fmt->missing) {
        snprintf(err, len, "format %s unavailable: %s", d->fmt->name,
                 d->fmt->missing);
        return KB_IO_ERROR;
    }
    return 0;
}

/* Paths of the dataset's files, each there and readable. */
static int dataset_paths(kb_io_dataset *d, const char *dir,
                         kb_io_verify verify, char *err, size_t len)
{
    int rc = find_files(d, dir, err, len);
    if (!rc)
        rc = find_format(d, err, len);
    if (rc)
        return rc;
    if (d->nfiles < 1 || d->nfiles > (1LL << 32)) {
        snprintf(err, len, "%s: %" PRId64 " files", dir, d->nfiles);
        return KB_IO_USAGE;
    }
    d->paths = calloc((size_t)d->nfiles, sizeof *d->paths);
    if (!d->paths) {
        snprintf(err, len, "out of memory for %" PRId64 " files", d->nfiles);
        return KB_IO_ERROR;
    }
    for (int64_t i = 0; i < d->nfiles; i++) {
        d->paths[i] = d->prof.dlio.layout
                          ? kb_io_dlio_file_path(dir, &d->prof, i)
                          : kb_io_file_path(dir, &d->prof, i);
        if (!d->paths[i]) {
            snprintf(err, len, "out of memory for file names");
            return KB_IO_ERROR;
        }
        if (access(d->paths[i], R_OK) < 0) {
            snprintf(err, len, "%s: %s (dataset incomplete?)", d->paths[i],
                     strerror(errno));
            return KB_IO_USAGE;
        }
    }
    if (d->spf == 0 && (rc = count_samples(d, verify, err, len)))
        return rc;
    /* guard: the bitmap and id space are sized by files x samples */
    if (d->spf < 1 || d->nfiles > INT64_MAX / d->spf ||
        d->nfiles * d->spf > (1LL << 40)) {
        snprintf(err, len, "dataset in %s: %" PRId64 " x %" PRId64
                 " samples is not a usable count", dir, d->nfiles, d->spf);
        return KB_IO_USAGE;
    }
    d->total = d->nfiles * d->spf;
    return kb_io_bitmap_room(d->total, 1, dir, err, len);
}

/* This rank's shard (DLIO's split of the sample ids) and the files that
 * hold it; the step limit: --steps, and with drop_last DLIO's
 * floor(total / (batch x ranks)).  0, or KB_IO_USAGE when the rank would
 * have no step. */
static int plan_shard(kb_io_dataset *d, const kb_io_run_opts *o, char *err,
                      size_t len)
{
    kb_io_rank_shard(&o->rank, d->total, &d->lo, &d->hi);
    if (d->hi == d->lo) {
        snprintf(err, len, "rank %" PRId64 " of %" PRId64 " (%s): no samples "
                 "of the %" PRId64 " (more ranks than samples)", o->rank.rank,
                 o->rank.ranks, o->rank.source, d->total);
        return KB_IO_USAGE;
    }
    d->flo = d->lo / d->spf;
    d->nshard = (d->hi - 1) / d->spf + 1 - d->flo;
    d->limit = d->prof.max_steps;
    if (d->prof.drop_last) {
        d->limit = kb_io_dlio_steps(d->total, o->batch, o->rank.ranks,
                                    d->prof.max_steps);
        if (d->limit == 0 || d->hi - d->lo < o->batch) {
            snprintf(err, len, "drop_last: rank %" PRId64 " of %" PRId64
                     " holds %" PRId64 " of %" PRId64 " samples, less than a "
                     "batch of %" PRId64 ": no step", o->rank.rank,
                     o->rank.ranks, d->hi - d->lo, d->total, o->batch);
            return KB_IO_USAGE;
        }
    }
    return 0;
}


int kb_io_dataset_open(kb_io_dataset *d, const kb_io_profile *p,
                       const kb_io_run_opts *o, char *err, size_t len)
{
    *d = (kb_io_dataset){.prof = *p};
    int rc = dataset_paths(d, o->dir, o->verify, err, len);
    return rc ? rc : plan_shard(d, o, err, len);
}

void kb_io_dataset_close(kb_io_dataset *d)
{
    for (int64_t i = 0; d->paths && i < d->nfiles; i++)
        free(d->paths[i]);
    free(d->paths);
    d->paths = NULL;
}

int64_t kb_io_dataset_shard_samples(const kb_io_dataset *d, int64_t f)
{
    int64_t a = f * d->spf, b = a + d->spf;
    a = a > d->lo ? a : d->lo;
    b = b < d->hi ? b : d->hi;
    return b > a ? b - a : 0;
}
