/* catalog.c - model catalogs: MODEL.txt batch files in share/kbench/catalog
 * (source: kernels/catalog/), and the MODEL.training files beside them. */
#include "kernels/batch.h"
#include "kernels/data_dir.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODELS_MAX 64

/* See batch.h. */
const char *kb_catalog_dir(char *err, size_t errlen)
{
    static char dir[4096];
    const char *env = getenv("KBENCH_CATALOG_DIR");
    if (env && *env)
        return env;
    return kb_data_path("catalog", dir, sizeof dir, err, errlen) == 0 ? dir
                                                                     : NULL;
}

/* Inserts name into the sorted names[0..*n), keeping at most max.  Can't
 * fail. */
static void insert_sorted(char names[][KB_MODEL_NAME_MAX], int *n, int max,
                          const char *name)
{
    int i = *n;
    while (i > 0 && strcmp(names[i - 1], name) > 0)
        i--;
    if (i >= max)
        return; /* sorts after everything kept */
    int last = *n < max ? *n : max - 1;
    memmove(names[i + 1], names[i], (size_t)(last - i) * KB_MODEL_NAME_MAX);
    snprintf(names[i], KB_MODEL_NAME_MAX, "%s", name);
    if (*n < max)
        (*n)++;
}

/* See batch.h.  Returns the count, or -1 with err naming the directory. */
int kb_catalog_models(char names[][KB_MODEL_NAME_MAX], int max, char *err,
                      size_t errlen)
{
    const char *dir = kb_catalog_dir(err, errlen);
    if (!dir)
        return -1;
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) {
        snprintf(err, errlen, "cannot read catalog directory '%s': %s", dir,
                 strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        char stem[KB_MODEL_NAME_MAX];
        /* stems too long for a model name are not models */
        if (l <= 4 || l - 4 >= KB_MODEL_NAME_MAX || e->d_name[0] == '.' ||
            strcmp(e->d_name + l - 4, ".txt") != 0)
            continue;
        memcpy(stem, e->d_name, l - 4);
        stem[l - 4] = '\0';
        insert_sorted(names, &n, max, stem);
    }
    closedir(d);
    return n;
}

/* See batch.h.  Returns 0, or -1 with err (unknown model: the valid
 * names; bad mb; the batch file's own errors). */
int kb_catalog_load(const char *model, int64_t mb, const kb_settings *s,
                    kb_problem_list *out, char *err, size_t errlen)
{
    char names[MODELS_MAX][KB_MODEL_NAME_MAX], list[MODELS_MAX * (KB_MODEL_NAME_MAX + 2)];
    char path[4096];
    kb_settings set = *s;
    int n, found = 0;
    size_t used = 0;
    if (mb < 1) {
        snprintf(err, errlen, "batch size %" PRId64 " for model '%s'; "
                 "expected at least 1", mb, model);
        return -1;
    }
    n = kb_catalog_models(names, MODELS_MAX, err, errlen);
    if (n < 0)
        return -1;
    const char *dir = kb_catalog_dir(err, errlen); /* found: models read */
    list[0] = '\0';
    for (int i = 0; i < n; i++) {
        found |= strcmp(names[i], model) == 0;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i ? ", " : "", names[i]);
    }
    /* comparing with the listed names also keeps paths out of `model` */
    if (!found) {
        snprintf(err, errlen, "unknown model '%s'; expected one of: %s (in "
                 "%s)", model, n ? list : "(none)", dir);
        return -1;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s.txt", dir, model) >=
        sizeof path) {
        snprintf(err, errlen, "catalog path for '%s' is too long", model);
        return -1;
    }
    set.mb = mb;
    return kb_batch_load(path, &set, out, err, errlen);
}

/* See batch.h.  Returns 0 (nothing appended when the model has no
 * .training file), or -1 with err (no catalog directory, the file's own
 * errors). */
int kb_catalog_load_training(const char *model, int64_t mb,
                             const kb_settings *s, kb_problem_list *out,
                             char *err, size_t errlen)
{
    char path[4096];
    kb_settings set = *s;
    const char *dir = kb_catalog_dir(err, errlen);
    if (!dir)
        return -1;
    if ((size_t)snprintf(path, sizeof path, "%s/%s.training", dir, model) >=
        sizeof path) {
        snprintf(err, errlen, "catalog path for '%s' is too long", model);
        return -1;
    }
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    set.mb = mb;
    return kb_batch_load(path, &set, out, err, errlen);
}
