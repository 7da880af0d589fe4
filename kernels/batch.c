/* batch.c - problem lists and benchdnn-style batch files (see batch.h).
 *
 * A line holds whitespace-separated words: option words (`--mb=8`) change
 * the settings for the words after them, every other word is a descriptor
 * (so names in batch files cannot contain spaces).  `#` starts a comment
 * that runs to the end of the line. */
#include "kernels/batch.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_MAX 4096             /* longest descriptor kb_problem_parse takes */
#define BATCH_FILE_MAX (64u << 20) /* a batch file is text, not data */

/* Returns 0, or -1 when out of memory (the list is unchanged). */
int kb_problem_list_push(kb_problem_list *l, const kb_problem *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        kb_problem *items;
        if (cap > SIZE_MAX / sizeof *items) /* guard cap * size */
            return -1;
        items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = *p;
    return 0;
}

/* Frees the items and leaves an empty list; can't fail. */
void kb_problem_list_free(kb_problem_list *l)
{
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

/* Where in the text we are, for messages. */
typedef struct {
    const char *origin;
    int line;
    char *err;
    size_t errlen;
} place;

/* Writes "origin:line:col: message" and returns -1. */
static int batch_fail(const place *at, int col, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(at->err, at->errlen, "%s:%d:%d: ", at->origin, at->line,
                     col);
    if (n >= 0 && (size_t)n < at->errlen) {
        va_start(ap, fmt);
        vsnprintf(at->err + n, at->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Parses --mb's value: digits only, at most 2^40 (like descriptor values).
 * Returns 0 or -1. */
static int parse_mb(const char *v, int64_t *mb)
{
    int64_t x = 0;
    if (!*v)
        return -1;
    for (; *v; v++) {
        if (!isdigit((unsigned char)*v) || x > ((int64_t)1 << 40))
            return -1;
        x = x * 10 + (*v - '0');
    }
    if (x > ((int64_t)1 << 40))
        return -1;
    *mb = x;
    return 0;
}

/* Applies one option word (NUL-terminated, starting with "--") at column
 * col.  Returns 0, or -1 with the message in at->err. */
static int apply_option(const char *w, int col, const kb_settings *base,
                        kb_settings *cur, const place *at)
{
    static const char options[] =
        "--mb=N --dir=FWD_D|FWD_B|FWD_I|BWD_D|BWD_W|BWD_WB|BWD_DW "
        "--dt=f32|f64|bf16|f16|SRC:WEI:DST --attr-fpmath=strict|tf32|bf16|any "
        "--tag=nchw|nhwc|ncdhw|ndhwc|abx|axb --reset";
    const char *eq = strchr(w, '=');
    size_t nl = eq ? (size_t)(eq - w) : strlen(w);
    const char *v = eq ? eq + 1 : NULL;
    int vcol = col + (int)nl + 1;
    if (nl == 7 && strncmp(w, "--reset", nl) == 0) {
        if (v)
            return batch_fail(at, col, "option '--reset' takes no value");
        *cur = *base;
        return 0;
    }
    if (!((nl == 4 && strncmp(w, "--mb", nl) == 0) ||
          (nl == 5 && strncmp(w, "--dir", nl) == 0) ||
          (nl == 4 && strncmp(w, "--dt", nl) == 0) ||
          (nl == 13 && strncmp(w, "--attr-fpmath", nl) == 0) ||
          (nl == 5 && strncmp(w, "--tag", nl) == 0)))
        return batch_fail(at, col, "unknown option '%.*s'; expected one of %s",
                          (int)nl, w, options);
    if (!v)
        return batch_fail(at, col, "option '%s' needs a value ('%s=...')", w, w);
    if (strncmp(w, "--mb", nl) == 0) {
        if (parse_mb(v, &cur->mb))
            return batch_fail(at, vcol, "bad --mb value '%s'; expected an "
                              "integer from 0 (keep each line's own) to 2^40", v);
    } else if (strncmp(w, "--dir", nl) == 0) {
        if (kb_dir_parse(v, &cur->dir))
            return batch_fail(at, vcol, "bad --dir value '%s'; expected FWD_D, "
                              "FWD_B, FWD_I, BWD_D, BWD_W, BWD_WB or BWD_DW", v);
        cur->dir_given = true;
    } else if (strncmp(w, "--dt", nl) == 0) {
        char why[256];
        if (kb_dts_parse(v, &cur->dt, why, sizeof why))
            return batch_fail(at, vcol, "bad --dt value %s", why);
    } else if (strncmp(w, "--attr-fpmath", nl) == 0) {
        if (kb_fpmath_parse(v, &cur->fpmath))
            return batch_fail(at, vcol, "bad --attr-fpmath value '%s'; "
                              "expected strict, tf32, bf16 or any", v);
    } else if (kb_layout_parse(v, &cur->layout)) {
        return batch_fail(at, vcol, "bad --tag value '%s'; expected nchw, "
                          "nhwc, ncdhw, ndhwc, abx or axb", v);
    }
    return 0;
}

/* Parses one descriptor word at column col and appends it.  Descriptor
 * errors start "column C: " (problem.h); C is moved to the line's
 * column.  Returns 0 or -1. */
static int add_descriptor(const char *w, int col, const kb_settings *cur,
                          kb_problem_list *out, const place *at)
{
    char msg[512];
    kb_problem p;
    if (kb_problem_parse(w, cur, &p, msg, sizeof msg) == 0) {
        if (kb_problem_list_push(out, &p))
            return batch_fail(at, col, "out of memory after %zu problems",
                              out->n);
        return 0;
    }
    char *rest = msg;
    long c = 1;
    if (strncmp(msg, "column ", 7) == 0) {
        c = strtol(msg + 7, &rest, 10);
        if (strncmp(rest, ": ", 2) == 0)
            rest += 2;
    }
    return batch_fail(at, col + (int)c - 1, "%s", rest);
}

/* Handles line[0..len), without its newline.  Returns 0 or -1. */
static int parse_line(const char *line, size_t len, const kb_settings *base,
                      kb_settings *cur, kb_problem_list *out, const place *at)
{
    char word[WORD_MAX + 1];
    const char *hash = memchr(line, '#', len);
    size_t i = 0;
    if (hash)
        len = (size_t)(hash - line);
    while (i < len) {
        size_t j;
        int rc;
        if (isspace((unsigned char)line[i])) {
            i++;
            continue;
        }
        for (j = i; j < len && !isspace((unsigned char)line[j]); j++)
            ;
        if (j - i > WORD_MAX)
            return batch_fail(at, (int)i + 1, "word is %zu characters long; "
                              "expected at most %d", j - i, WORD_MAX);
        memcpy(word, line + i, j - i);
        word[j - i] = '\0';
        if (strncmp(word, "--", 2) == 0)
            rc = apply_option(word, (int)i + 1, base, cur, at);
        else
            rc = add_descriptor(word, (int)i + 1, cur, out, at);
        if (rc)
            return -1;
        i = j;
    }
    return 0;
}

/* See batch.h.  Returns 0, or -1 with "origin:line:col: ..." in err and
 * out as it was. */
int kb_batch_parse(const char *text, const char *origin, const kb_settings *s,
                   kb_problem_list *out, char *err, size_t errlen)
{
    kb_settings cur = *s;
    size_t n0 = out->n;
    place at = {origin, 1, err, errlen};
    const char *line = text;
    for (;;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (parse_line(line, len, s, &cur, out, &at)) {
            out->n = n0; /* roll back: append nothing on error */
            return -1;
        }
        if (!eol)
            return 0;
        line = eol + 1;
        at.line++;
    }
}

/* Reads all of path into a NUL-terminated buffer (caller frees).  Returns
 * NULL with a message naming the path and the reason. */
static char *read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        snprintf(err, errlen, "cannot open batch file '%s': %s", path,
                 strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - n < 4096) {
            char *b;
            if (cap >= BATCH_FILE_MAX) {
                snprintf(err, errlen, "batch file '%s' is larger than %u "
                         "bytes; expected a text file", path, BATCH_FILE_MAX);
                goto fail;
            }
            cap = cap ? cap * 2 : 65536;
            b = realloc(buf, cap + 1);
            if (!b) {
                snprintf(err, errlen, "out of memory reading '%s'", path);
                goto fail;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read batch file '%s': %s", path,
                 strerror(errno));
        goto fail;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        snprintf(err, errlen, "batch file '%s' has a NUL byte at offset %zu; "
                 "expected text", path, strlen(buf));
        goto fail;
    }
    fclose(f);
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* See batch.h.  Returns 0 or -1 with err set. */
int kb_batch_load(const char *path, const kb_settings *s,
                  kb_problem_list *out, char *err, size_t errlen)
{
    char *text = read_text(path, err, errlen);
    int rc;
    if (!text)
        return -1;
    rc = kb_batch_parse(text, path, s, out, err, errlen);
    free(text);
    return rc;
}
