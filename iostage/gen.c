/* gen.c - `kbench io gen`: writes a profile's dataset in parallel, each
 * file under a temporary name renamed into place once complete, and the
 * manifest last, so an interrupted or failed run never leaves a file (or
 * a dataset) that looks complete. */
#include "iostage/dlio/layout.h"
#include "iostage/formats/format.h"
#include "iostage/gen.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST "kbench-io.manifest"

char *kb_io_file_path(const char *dir, const kb_io_profile *p, int64_t i)
{
    if (p->dlio.layout)
        return kb_io_dlio_file_path(dir, p, i);
    const kb_io_format *f = kb_io_format_find(p->format);
    size_t n = strlen(dir) + strlen(p->name) + strlen(f->ext) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s_%06" PRId64 ".%s", dir, p->name, i, f->ext);
    return s;
}

typedef struct {
    const kb_io_profile *p;
    const kb_io_format *fmt;
    const kb_io_gen_opts *o;
    int64_t files;
    atomic_int_fast64_t next;
    atomic_int failed;
    pthread_mutex_t mu;
    int rc;
    char err[KB_IO_ERRLEN];
} gen_job;

/* Write one file via a temporary name.  0 or an error code with msg. */
static int gen_one(gen_job *j, int64_t i, char *err, size_t len)
{
    char *path = kb_io_file_path(j->o->dir, j->p, i);
    char *tmp = path ? malloc(strlen(path) + 5) : NULL;
    if (!tmp) {
        free(path);
        snprintf(err, len, "out of memory for a file name");
        return KB_IO_ERROR;
    }
    sprintf(tmp, "%s.tmp", path);
    int rc = j->fmt->gen_file(j->p, j->o->seed, i, tmp, err, len);
    if (!rc && rename(tmp, path) < 0) {
        snprintf(err, len, "cannot rename %s to %s: %s", tmp, path,
                 strerror(errno));
        rc = KB_IO_ERROR;
    }
    if (rc)
        unlink(tmp);
    free(tmp);
    free(path);
    return rc;
}

static void *gen_worker(void *arg)
{
    gen_job *j = arg;
    char err[KB_IO_ERRLEN];
    for (;;) {
        if (atomic_load(&j->failed) || kb_io_interrupted)
            break;
        int64_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->files)
            break;
        int rc = gen_one(j, i, err, sizeof err);
        if (rc) {
            pthread_mutex_lock(&j->mu);
            if (!j->rc) {
                j->rc = rc;
                snprintf(j->err, sizeof j->err, "%s", err);
            }
            pthread_mutex_unlock(&j->mu);
            atomic_store(&j->failed, 1);
        }
    }
    return NULL;
}

/* The manifest, written last and renamed into place. */
static int write_manifest(const kb_io_profile *p, const kb_io_gen_opts *o,
                          int64_t files, char *err, size_t len)
{
    size_t n = strlen(o->dir) + sizeof MANIFEST + 8;
    char *path = malloc(n), *tmp = malloc(n);
    int rc = KB_IO_ERROR;
    if (!path || !tmp) {
        snprintf(err, len, "out of memory for a file name");
        goto out;
    }
    snprintf(path, n, "%s/%s", o->dir, MANIFEST);
    snprintf(tmp, n, "%s/%s.tmp", o->dir, MANIFEST);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, len, "cannot create %s: %s", tmp, strerror(errno));
        goto out;
    }
    fprintf(f, "profile %s\nfiles %" PRId64 "\nsamples_per_file %" PRId64
            "\nseed %" PRIu64 "\nformat %d\n", p->name, files,
            p->samples_per_file, o->seed, KB_IO_FORMAT);
    if (fclose(f) != 0 || rename(tmp, path) < 0) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    free(path);
    free(tmp);
    return rc;
}

int kb_io_gen(const kb_io_profile *p, const kb_io_gen_opts *o, char *err,
              size_t len)
{
    const kb_io_format *fmt = kb_io_format_find(p->format);
    if (fmt->missing) {
        snprintf(err, len, "profile %s: format %s unavailable: %s", p->name,
                 fmt->name, fmt->missing);
        return KB_IO_ERROR;
    }
    if (mkdir(o->dir, 0755) < 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create directory %s: %s", o->dir,
                 strerror(errno));
        return KB_IO_ERROR;
    }
    double nf = (double)p->files * o->scale + 0.5;
    gen_job j = {.p = p, .fmt = fmt, .o = o,
                 .files = nf < 1 ? 1 : (int64_t)nf};
    /* A DLIO-layout dataset lives in train/ (and its subfolders) and names
     * its file count after --scale in every file name; it gets no kbench
     * manifest, since DLIO's readers and kb_io_dlio_scan find its files by
     * those names. */
    kb_io_profile scaled = *p;
    if (p->dlio.layout) {
        scaled.files = j.files;
        j.p = &scaled;
        int rc = kb_io_dlio_mkdirs(o->dir, &scaled, err, len);
        if (rc)
            return rc;
    }
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, 0);
    pthread_mutex_init(&j.mu, NULL);
    int nt = o->threads > 0 ? o->threads : 1;
    pthread_t *t = calloc((size_t)nt, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory for %d threads", nt);
        return KB_IO_ERROR;
    }
    int started = 0;
    for (; started < nt; started++)
        if (pthread_create(&t[started], NULL, gen_worker, &j))
            break;
    if (started == 0)
        gen_worker(&j);   /* no thread could start: do the work here */
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    pthread_mutex_destroy(&j.mu);
    if (j.rc) {
        snprintf(err, len, "%s", j.err);
        return j.rc;
    }
    if (kb_io_interrupted) {
        snprintf(err, len, "interrupted: the manifest was not written");
        return KB_IO_ERROR;
    }
    return p->dlio.layout ? 0 : write_manifest(p, o, j.files, err, len);
}

int kb_io_manifest_read(const char *dir, char *profile, size_t plen,
                        int64_t *files, int64_t *spf, char *err, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s (is %s a dataset made by kbench io gen?)",
                 path, strerror(errno), dir);
        return KB_IO_USAGE;
    }
    char name[64] = "";
    long long nf = -1, ns = -1;
    int got = fscanf(f, "profile %63s files %lld samples_per_file %lld",
                     name, &nf, &ns);
    int format = 1;   /* format 1 manifests had no format line */
    if (got == 3 && fscanf(f, " seed %*u format %d", &format) != 1)
        format = 1;
    fclose(f);
    if (got != 3 || nf < 1 || ns < 1 || strlen(name) >= plen) {
        snprintf(err, len, "%s: malformed manifest (expected profile, files, "
                 "samples_per_file)", path);
        return KB_IO_USAGE;
    }
    if (format != KB_IO_FORMAT) {
        snprintf(err, len, "%s: dataset format %d, this kbench reads format "
                 "%d (sample checksums changed from zlib crc32 to CRC32C); "
                 "regenerate it with kbench io gen", path, format,
                 KB_IO_FORMAT);
        return KB_IO_USAGE;
    }
    strcpy(profile, name);
    *files = nf;
    *spf = ns;
    return 0;
}
