/* profiles.c - reads the workload profiles (profiles.conf) at run time. */
#include "iostage/decode/decoder.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/data_dir.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILES_REL "io/profiles.conf"  /* in the data directory */

/* See profile.h. */
const char *kb_io_profiles_path(void)
{
    static char path[4096];
    char err[16];
    const char *env = getenv("KBENCH_IO_PROFILES");
    if (env && *env)
        return env;
    return kb_data_path(PROFILES_REL, path, sizeof path, err, sizeof err)
               ? NULL : path;
}

char *kb_io_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
                     e[-1] == '\r'))
        *--e = '\0';
    return s;
}

/* Parse a non-negative integer that fits; -1 when it is not one. */
static int64_t parse_count(const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < 0)
        return -1;
    return x;
}

/* "224x224x3" into p->dims.  0, or -1 when malformed. */
static int parse_dims(const char *v, kb_io_profile *p)
{
    p->ndims = 0;
    const char *s = v;
    while (*s) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (errno || end == s || x <= 0 || x > (1LL << 24) || p->ndims == 4)
            return -1;
        p->dims[p->ndims++] = x;
        if (*end == 'x')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return p->ndims ? 0 : -1;
}

static int copy_str(char *dst, size_t cap, const char *v)
{
    if (strlen(v) >= cap)
        return -1;
    strcpy(dst, v);
    return 0;
}

/* Store one key of the profile; -1 for an unknown key or a bad value. */
static int set_key(kb_io_profile *p, const char *k, const char *v)
{
    struct { const char *key; int64_t *dst; } ints[] = {
        {"files", &p->files},
        {"samples_per_file", &p->samples_per_file},
        {"sample_bytes", &p->sample_bytes},
        {"sample_stddev", &p->sample_stddev},
        {"batch", &p->batch},
        {"readers", &p->readers},
        {"checkpoint_bytes", &p->checkpoint_bytes},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(k, ints[i].key) == 0)
            return (*ints[i].dst = parse_count(v)) < 0 ? -1 : 0;
    if (strcmp(k, "compute_seconds") == 0 || strcmp(k, "au_target") == 0) {
        char *end;
        double x = strtod(v, &end);
        if (end == v || *end || x < 0)
            return -1;
        *(k[0] == 'c' ? &p->compute_seconds : &p->au_target) = x;
        return 0;
    }
    if (strcmp(k, "dims") == 0)
        return parse_dims(v, p);
    if (strcmp(k, "format") == 0)
        return copy_str(p->format, sizeof p->format, v);
    if (strcmp(k, "body") == 0)
        return copy_str(p->body, sizeof p->body, v);
    if (strcmp(k, "decode") == 0)
        return copy_str(p->decode, sizeof p->decode, v);
    if (strcmp(k, "model") == 0)
        return copy_str(p->model, sizeof p->model, v);
    return -1;
}

/* The keys a profile must set to be usable. */
static int check_profile(const kb_io_profile *p, const char *path, char *err,
                         size_t len)
{
    if (!p->format[0] || !p->body[0] || !p->decode[0] || p->files < 1 ||
        p->samples_per_file < 1 || p->sample_bytes < 1 || p->batch < 1 ||
        p->readers < 1 || p->ndims < 1) {
        snprintf(err, len,
                 "%s: profile [%s] needs format, body, decode, dims and "
                 "files, samples_per_file, sample_bytes, batch, readers >= 1",
                 path, p->name);
        return KB_IO_USAGE;
    }
    if (!kb_io_format_find(p->format)) {
        snprintf(err, len, "%s: profile [%s]: unknown format '%s' (expected "
                 "tfrecord, npz or hdf5)", path, p->name, p->format);
        return KB_IO_USAGE;
    }
    if (!kb_io_decoder_find(p->decode)) {
        snprintf(err, len, "%s: profile [%s]: unknown decode '%s' (expected "
                 "jpeg, cosmo, hdf5 or parse)", path, p->name, p->decode);
        return KB_IO_USAGE;
    }
    return 0;
}

int kb_io_profile_find(const char *path, const char *name, kb_io_profile *p,
                       char *err, size_t len)
{
    if (!path) {  /* no data directory: its message says where it looked */
        char unused[4096];
        kb_data_path(PROFILES_REL, unused, sizeof unused, err, len);
        return KB_IO_ERROR;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "cannot open profile file %s: %s", path,
                 strerror(errno));
        return KB_IO_ERROR;
    }
    char line[512];
    int lineno = 0, found = 0, rc = 0;
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = kb_io_trim(line);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e || e[1]) {
                snprintf(err, len, "%s:%d: expected [name], got '%s'", path,
                         lineno, s);
                rc = KB_IO_USAGE;
                break;
            }
            *e = '\0';
            if (in)
                break;  /* the wanted section ended */
            in = strcmp(s + 1, name) == 0;
            if (in) {
                memset(p, 0, sizeof *p);
                copy_str(p->name, sizeof p->name, s + 1);
                found = 1;
            }
            continue;
        }
        if (!in)
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, len, "%s:%d: expected key = value, got '%s'", path,
                     lineno, s);
            rc = KB_IO_USAGE;
            break;
        }
        *eq = '\0';
        char *k = kb_io_trim(s), *v = kb_io_trim(eq + 1);
        if (set_key(p, k, v) < 0) {
            snprintf(err, len, "%s:%d: bad key or value '%s = %s'", path,
                     lineno, k, v);
            rc = KB_IO_USAGE;
            break;
        }
    }
    fclose(f);
    if (rc)
        return rc;
    if (!found) {
        snprintf(err, len, "unknown profile '%s' (not in %s)", name, path);
        return KB_IO_USAGE;
    }
    return check_profile(p, path, err, len);
}
