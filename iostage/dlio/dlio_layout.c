/* dlio_layout.c - where DLIO keeps a dataset's files and how big its
 * samples are: train/<prefix>_<i>_of_<N>.<ext>, in train/<i mod S>/ when
 * S = num_subfolders_train > 1, i and the subfolder zero-padded to the
 * digits of N and S (DLIO's add_padding), and finding them again (scan).
 * The sample shapes are arrays.c's. */
#include "iostage/dlio/layout.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_PREFIX "img"        /* DLIO's dataset.file_prefix */

/* The formats DLIO writes that kbench reads, by DLIO's format name. */
static const struct {
    const char *ext, *format;
} formats[] = {{"npz", "dlio-npz"},
               {"tfrecord", "dlio-tfrecord"},
               {"hdf5", "dlio-hdf5"}};

/* DLIO pads to len(str(v)); at most 19 */
static unsigned char digits(int64_t v)
{
    unsigned char d = 1;
    for (; v >= 10; v /= 10)
        d++;
    return d;
}

static const char *prefix_of(const kb_io_profile *p)
{
    return p->dlio.prefix[0] ? p->dlio.prefix : DEFAULT_PREFIX;
}

static const char *ext_of(const kb_io_profile *p)
{
    const kb_io_format *f = kb_io_format_find(p->format);
    return f ? f->ext : p->format;
}

char *kb_io_dlio_file_path(const char *dir, const kb_io_profile *p, int64_t i)
{
    const char *prefix = prefix_of(p), *ext = ext_of(p);
    int64_t n = p->files, s = p->dlio.subfolders;
    size_t size = strlen(dir) + strlen(prefix) + strlen(ext) + 96;
    char *path = malloc(size);
    if (!path)
        return NULL;
    if (s > 1)
        snprintf(path, size, "%s/train/%0*" PRId64 "/%s_%0*" PRId64 "_of_%"
                 PRId64 ".%s", dir, digits(s), i % s, prefix, digits(n), i,
                 n, ext);
    else
        snprintf(path, size, "%s/train/%s_%0*" PRId64 "_of_%" PRId64 ".%s",
                 dir, prefix, digits(n), i, n, ext);
    return path;
}

static int make_dir(const char *path, char *err, size_t len)
{
    if (mkdir(path, 0755) < 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create directory %s: %s", path,
                 strerror(errno));
        return KB_IO_ERROR;
    }
    return 0;
}

int kb_io_dlio_mkdirs(const char *dir, const kb_io_profile *p, char *err,
                      size_t len)
{
    char path[4096];
    /* valid/ stays empty (kbench runs no evaluation), but DLIO's reader
     * lists it and stops when it is missing, as its generator makes it */
    snprintf(path, sizeof path, "%s/valid", dir);
    int rc = make_dir(path, err, len);
    snprintf(path, sizeof path, "%s/train", dir);
    if (!rc)
        rc = make_dir(path, err, len);
    for (int64_t s = 0; !rc && p->dlio.subfolders > 1 &&
                        s < p->dlio.subfolders; s++) {
        snprintf(path, sizeof path, "%s/train/%0*" PRId64, dir,
                 digits(p->dlio.subfolders), s);
        rc = make_dir(path, err, len);
    }
    return rc;
}

/* ---- scan ---- */

typedef struct {
    char **v;
    size_t n, cap;
} names;

static int add_name(names *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return KB_IO_ERROR;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n++] = strdup(s)) ? 0 : KB_IO_ERROR;
}

static void free_names(names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Entries of path (not . and ..), sorted: dirs into d, the rest into f
 * (either may be NULL: then such an entry is refused as stray). */
static int list_dir(const char *path, names *d, names *f, char *err,
                    size_t len)
{
    DIR *dp = opendir(path);
    if (!dp) {
        snprintf(err, len, "cannot open %s: %s (expected a dataset DLIO "
                 "wrote: train/<prefix>_<i>_of_<N>.<ext>)", path,
                 strerror(errno));
        return errno == ENOENT || errno == ENOTDIR ? KB_IO_USAGE
                                                    : KB_IO_ERROR;
    }
    int rc = 0;
    struct dirent *e;
    char full[4096];
    while (!rc && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        struct stat st;
        bool is_dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
        names *to = is_dir ? d : f;
        if (!to) {
            snprintf(err, len, "%s: a stray %s, expected %s", full,
                     is_dir ? "directory" : "file",
                     is_dir ? "only DLIO's files" : "only subfolders");
            rc = KB_IO_USAGE;
        } else if (add_name(to, e->d_name)) {
            snprintf(err, len, "out of memory listing %s", path);
            rc = KB_IO_ERROR;
        }
    }
    closedir(dp);
    if (d && d->n)
        qsort(d->v, d->n, sizeof *d->v, cmp_str);
    if (f && f->n)
        qsort(f->v, f->n, sizeof *f->v, cmp_str);
    return rc;
}

/* A decimal field of s[0, n): 0 digits or overflow give -1. */
static int64_t number(const char *s, size_t n)
{
    if (n == 0 || n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

typedef struct {
    size_t prefix_len;
    int64_t i, n;
    const char *ext;
} dlio_name;

/* <prefix>_<i>_of_<N>.<ext>, read from the right (the prefix may hold
 * underscores).  false when the name is not of that form. */
static bool parse_name(const char *s, dlio_name *d)
{
    const char *dot = strrchr(s, '.'), *of = NULL;
    if (!dot || !dot[1])
        return false;
    for (const char *q = s; (q = strstr(q, "_of_")) && q < dot; q++)
        of = q;
    if (!of)
        return false;
    const char *us = of;
    while (us > s && us[-1] != '_')
        us--;
    if (us == s)
        return false;
    d->prefix_len = (size_t)(us - 1 - s);
    d->i = number(us, (size_t)(of - us));
    d->n = number(of + 4, (size_t)(dot - of - 4));
    d->ext = dot + 1;
    return d->i >= 0 && d->n >= 1;
}

/* The subfolder count: the directories in train/ must be exactly
 * 0..S-1, padded to the digits of S. */
static int check_subfolders(const char *train, const names *d, char *err,
                            size_t len)
{
    int64_t s = (int64_t)d->n;
    for (size_t k = 0; k < d->n; k++) {
        const char *nm = d->v[k];
        int64_t v = number(nm, strlen(nm));
        if (v < 0 || v >= s || (int)strlen(nm) != digits(s)) {
            snprintf(err, len, "%s/%s: a stray directory, expected the %"
                     PRId64 " subfolders 0..%" PRId64 " padded to %d digits",
                     train, nm, s, s - 1, digits(s));
            return KB_IO_USAGE;
        }
    }
    return 0;
}

/* What the files say, checked file by file against the first one (or,
 * with p->files set, against p). */
typedef struct {
    kb_io_profile want;         /* layout being checked */
    bool known;                 /* want holds prefix, N and format */
    int64_t *idx;
    size_t nidx, cap;
} scan_state;

static const char *format_of_ext(const char *ext)
{
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++)
        if (!strcmp(formats[k].ext, ext))
            return formats[k].format;
    return NULL;
}

static int check_file(scan_state *st, const char *dir, const char *sub,
                      const char *name, char *err, size_t len)
{
    char where[4096];
    snprintf(where, sizeof where, "%s/train/%s%s%s", dir, sub, *sub ? "/" : "",
             name);
    dlio_name d;
    if (!parse_name(name, &d)) {
        snprintf(err, len, "%s: a stray file, expected DLIO's "
                 "<prefix>_<i>_of_<N>.<ext>", where);
        return KB_IO_USAGE;
    }
    const char *format = format_of_ext(d.ext);
    if (!format) {
        snprintf(err, len, "%s: format %s, expected one kbench reads (npz, "
                 "tfrecord, hdf5)", where, d.ext);
        return KB_IO_USAGE;
    }
    kb_io_profile *w = &st->want;
    if (!st->known) {
        if (d.prefix_len >= sizeof w->dlio.prefix) {
            snprintf(err, len, "%s: file prefix of %zu characters, expected "
                     "at most %zu", where, d.prefix_len,
                     sizeof w->dlio.prefix - 1);
            return KB_IO_USAGE;
        }
        memcpy(w->dlio.prefix, name, d.prefix_len);
        w->dlio.prefix[d.prefix_len] = '\0';
        w->files = d.n;
        snprintf(w->format, sizeof w->format, "%s", format);
        st->known = true;
    } else if (!w->format[0]) {
        snprintf(w->format, sizeof w->format, "%s", format);
    }
    const char *prefix = prefix_of(w);
    if (d.prefix_len != strlen(prefix) || memcmp(name, prefix, d.prefix_len) ||
        d.n != w->files || strcmp(d.ext, ext_of(w)) || d.i >= d.n) {
        snprintf(err, len, "%s: a stray file, expected %s_<i>_of_%" PRId64
                 ".%s with i < %" PRId64, where, prefix, w->files, ext_of(w),
                 w->files);
        return KB_IO_USAGE;
    }
    char *expect = kb_io_dlio_file_path(dir, w, d.i);
    if (!expect) {
        snprintf(err, len, "out of memory for a file name");
        return KB_IO_ERROR;
    }
    int rc = 0;
    if (strcmp(expect, where)) {
        snprintf(err, len, "%s: a stray file, DLIO keeps file %" PRId64
                 " at %s", where, d.i, expect);
        rc = KB_IO_USAGE;
    }
    free(expect);
    if (!rc && st->nidx == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 64;
        int64_t *v = realloc(st->idx, cap * sizeof *v);
        if (!v) {
            snprintf(err, len, "out of memory scanning %s", dir);
            return KB_IO_ERROR;
        }
        st->idx = v;
        st->cap = cap;
    }
    if (!rc)
        st->idx[st->nidx++] = d.i;
    return rc;
}

/* Every index 0..N-1 once (names are exact, so none twice). */
static int check_complete(scan_state *st, const char *dir, char *err,
                          size_t len)
{
    if (st->nidx)
        qsort(st->idx, st->nidx, sizeof *st->idx, cmp_i64);
    int64_t miss = (int64_t)st->nidx;
    for (size_t k = 0; k < st->nidx; k++)
        if (st->idx[k] != (int64_t)k) {
            miss = (int64_t)k;
            break;
        }
    if (miss >= st->want.files)
        return 0;
    char *path = kb_io_dlio_file_path(dir, &st->want, miss);
    snprintf(err, len, "%s: missing (file %" PRId64 " of the %" PRId64
             " its siblings' names announce)", path ? path : dir, miss,
             st->want.files);
    free(path);
    return KB_IO_USAGE;
}

int kb_io_dlio_scan(const char *dir, kb_io_profile *p, char *err, size_t len)
{
    char train[4096];
    snprintf(train, sizeof train, "%s/train", dir);
    names subs = {0}, files = {0};
    scan_state st = {.want = *p, .known = p->files > 0};
    int rc = list_dir(train, &subs, &files, err, len);
    if (!rc && subs.n && files.n) {
        snprintf(err, len, "%s/%s: a stray file beside the subfolders (DLIO "
                 "keeps every file in train/<i mod S>/)", train, files.v[0]);
        rc = KB_IO_USAGE;
    }
    if (!rc)
        rc = check_subfolders(train, &subs, err, len);
    int64_t s = subs.n ? (int64_t)subs.n : 0;
    if (!rc && st.known && (p->dlio.subfolders > 1 ? p->dlio.subfolders : 0) !=
                               s) {
        snprintf(err, len, "%s: %" PRId64 " subfolders, expected %" PRId64
                 " (num_subfolders_train)", train, s, p->dlio.subfolders);
        rc = KB_IO_USAGE;
    }
    st.want.dlio.subfolders = s;
    for (size_t k = 0; !rc && k < files.n; k++)
        rc = check_file(&st, dir, "", files.v[k], err, len);
    for (size_t j = 0; !rc && j < subs.n; j++) {
        names in = {0};
        char path[4096 + 32];
        snprintf(path, sizeof path, "%s/%s", train, subs.v[j]);
        rc = list_dir(path, NULL, &in, err, len);
        for (size_t k = 0; !rc && k < in.n; k++)
            rc = check_file(&st, dir, subs.v[j], in.v[k], err, len);
        free_names(&in);
    }
    if (!rc && !st.nidx) {
        snprintf(err, len, "%s: no DLIO files (expected <prefix>_<i>_of_<N>"
                 ".<ext>)", train);
        rc = KB_IO_USAGE;
    }
    if (!rc)
        rc = check_complete(&st, dir, err, len);
    if (!rc) {
        p->files = st.want.files;
        p->dlio.subfolders = s;
        memcpy(p->dlio.prefix, st.want.dlio.prefix, sizeof p->dlio.prefix);
        memcpy(p->format, st.want.format, sizeof p->format);
    }
    free(st.idx);
    free_names(&subs);
    free_names(&files);
    return rc;
}

