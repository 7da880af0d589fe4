/* io_merge.c - `kbench io merge [--json OUT] RANK.jsonl...`: the io_epoch
 * records every rank of a run wrote, grouped by (profile, epoch), proven
 * to have delivered each sample of the global id space exactly once, and
 * their figures combined as DLIO combines its ranks'. */
#include "iostage/bitmap.h"
#include "iostage/merge/merge.h"
#include "iostage/rank.h"
#include "iostage/stage.h"
#include "drivers/provenance.h"
#include "iostage/record.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Samples a rank leaves undelivered on purpose, by field (SCHEMA.md's
 * io_epoch): together they account for every sample of its shard that
 * it did not deliver. */
static const char *const accounted[] = {
    "dropped_last_samples",     /* the partial last batch (drop_last) */
    "not_reached_samples",      /* past the epoch's step limit */
    "skipped_samples",          /* in files --skip-corrupt skipped */
    "dropped_samples",          /* whose decode failed (--skip-corrupt) */
};
#define NACC (sizeof accounted / sizeof accounted[0])

/* The figures merged, the convention each follows, its heading in the
 * table (NULL: JSON only) and how the ranks' combine.  DLIO allreduces
 * its ranks' samples/s to a sum and divides the sum of their AU by the
 * size (statscounter.py); its MiB/s is the summed samples/s times the
 * record size, the sum of the ranks' own.  kbench's figures combine the
 * same way: rates add up, utilisations average. */
typedef enum { SUM, MEAN } combine;
static const struct {
    const char *key, *convention, *column;
    combine how;
} figures[] = {
    {"train_throughput_samples_per_second", "dlio-2.0.0", "samples/s", SUM},
    {"train_au_percentage", "dlio-2.0.0", "AU %", MEAN},
    {"train_io_mean_MB_per_second", "dlio-2.0.0", "MiB/s", SUM},
    {"kb_steady_samples_per_second", "kbench", NULL, SUM},
    {"kb_au_percentage", "kbench", NULL, MEAN},
    {"kb_read_MB_per_second", "kbench", "read MB/s", SUM},
    {"kb_nominal_MB_per_second", "kbench", NULL, SUM},
};
#define NFIG (sizeof figures / sizeof figures[0])

/* Problems printed in full per epoch; the rest are counted. */
#define MAX_SHOWN 10
/* Largest id space taken from a record before allocating its bitmaps:
 * 2^40 samples (128 GiB of bits) is beyond any dataset. */
#define MAX_SAMPLES ((int64_t)1 << 40)

/* One rank's io_epoch record. */
typedef struct {
    const char *file;
    long line;
    size_t seq;                 /* order read, to keep the sort stable */
    char *profile, *bitmap;
    int64_t epoch, rank, ranks, total, lo, hi;
    int64_t samples;            /* delivered, by its own count */
    int64_t acc[NACC];
    double fig[NFIG];           /* NAN where the record has null */
} rank_rec;

typedef struct {
    rank_rec *v;
    size_t n, cap;
} rec_list;

/* One (profile, epoch): its records by rank and what the check found. */
typedef struct {
    const char *profile;
    int64_t epoch, ranks, total;
    const rank_rec **by_rank;   /* ranks entries, NULL where missing */
    int64_t present;
    int64_t delivered, acc[NACC];
    double fig[NFIG], fig_min[NFIG], fig_max[NFIG];
    int64_t problems;
} group;

/* ---- reading ---- */

/* Integer field key of o within [0, max], into *v.  0, or KB_IO_USAGE
 * with "FILE:LINE: field KEY: ..." in err. */
static int get_int(const cJSON *o, const char *key, int64_t max,
                   int64_t *v, const char *where, char *err, size_t len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    double x = cJSON_IsNumber(f) ? f->valuedouble : NAN;
    if (!(x >= 0 && x <= (double)max && x == floor(x))) {
        snprintf(err, len, "%s: field \"%s\": %s, expected an integer in "
                 "[0, %" PRId64 "]", where, key, f ? "bad value" : "missing",
                 max);
        return KB_IO_USAGE;
    }
    *v = (int64_t)x;
    return 0;
}

/* Figure key of o: a number, or null (NAN) where the rank had none. */
static int get_figure(const cJSON *o, const char *key, double *v,
                      const char *where, char *err, size_t len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(f) && !cJSON_IsNull(f)) {
        snprintf(err, len, "%s: field \"%s\": %s, expected a number or "
                 "null", where, key, f ? "bad value" : "missing");
        return KB_IO_USAGE;
    }
    *v = cJSON_IsNumber(f) ? f->valuedouble : NAN;
    return 0;
}

/* String field key of o, strdup'd into *v. */
static int get_str(const cJSON *o, const char *key, char **v,
                   const char *where, char *err, size_t len)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(f)) {
        snprintf(err, len, "%s: field \"%s\": %s, expected a string", where,
                 key, f ? "bad value" : "missing");
        return KB_IO_USAGE;
    }
    if (!(*v = strdup(f->valuestring))) {
        snprintf(err, len, "%s: out of memory", where);
        return KB_IO_ERROR;
    }
    return 0;
}

/* The fields of io_epoch record o into r, and the consistency of one
 * record with itself.  0, KB_IO_USAGE naming the field, KB_IO_ERROR. */
static int parse_record(const cJSON *o, rank_rec *r, const char *where,
                        char *err, size_t len)
{
    int rc = get_str(o, "profile", &r->profile, where, err, len);
    if (!rc)
        rc = get_str(o, "delivered_bitmap", &r->bitmap, where, err, len);
    const struct {
        const char *key;
        int64_t *v, max;
    } ints[] = {
        {"epoch", &r->epoch, INT64_C(1) << 53},
        {"ranks", &r->ranks, INT64_C(1) << 20},
        {"samples_total", &r->total, MAX_SAMPLES},
    };
    for (size_t i = 0; !rc && i < sizeof ints / sizeof ints[0]; i++)
        rc = get_int(o, ints[i].key, ints[i].max, ints[i].v, where, err,
                     len);
    /* within the record: a rank of its ranks, a shard of its samples */
    if (!rc && r->ranks < 1) {
        snprintf(err, len, "%s: field \"ranks\": 0, expected at least 1",
                 where);
        rc = KB_IO_USAGE;
    }
    if (!rc)
        rc = get_int(o, "rank", r->ranks - 1, &r->rank, where, err, len);
    if (!rc)
        rc = get_int(o, "sample_hi", r->total, &r->hi, where, err, len);
    if (!rc)
        rc = get_int(o, "sample_lo", r->hi, &r->lo, where, err, len);
    if (!rc)
        rc = get_int(o, "samples", r->total, &r->samples, where, err, len);
    for (size_t i = 0; !rc && i < NACC; i++)
        rc = get_int(o, accounted[i], r->total, &r->acc[i], where, err, len);
    for (size_t i = 0; !rc && i < NFIG; i++)
        rc = get_figure(o, figures[i].key, &r->fig[i], where, err, len);
    return rc;
}

/* r's bitmap into bits (cleared first).  0, or KB_IO_USAGE naming the
 * file, line and field. */
static int decode(const rank_rec *r, uint8_t *bits, size_t nbytes,
                  char *err, size_t len)
{
    memset(bits, 0, nbytes);
    char why[KB_IO_ERRLEN / 2];
    if (kb_io_bitmap_decode(r->bitmap, 0, r->total, bits, why, sizeof why)
        == 0)
        return 0;
    snprintf(err, len, "%s:%ld: field \"delivered_bitmap\": %s", r->file,
             r->line, why);
    return KB_IO_USAGE;
}

/* Whether r's bitmap decodes: every input error is found while reading,
 * before anything is checked.  0, KB_IO_USAGE, KB_IO_ERROR. */
static int check_decodes(const rank_rec *r, char *err, size_t len)
{
    size_t nbytes = (size_t)((r->total + 7) / 8);
    uint8_t *bits = malloc(nbytes ? nbytes : 1);
    if (!bits) {
        snprintf(err, len, "%s:%ld: out of memory for a bitmap of %" PRId64
                 " samples", r->file, r->line, r->total);
        return KB_IO_ERROR;
    }
    int rc = decode(r, bits, nbytes, err, len);
    free(bits);
    return rc;
}

static int rec_push(rec_list *l, const rank_rec *r)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        rank_rec *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return KB_IO_ERROR;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = *r;
    return 0;
}

static void rec_free(rank_rec *r)
{
    free(r->profile);
    free(r->bitmap);
}

/* Line n of path: one JSON object; an io_epoch record is added to l,
 * others are ignored.  0, or a stage error with a message. */
static int read_line(const char *path, long n, const char *text,
                     size_t tlen, rec_list *l, char *err, size_t len)
{
    char where[KB_IO_ERRLEN / 2];
    snprintf(where, sizeof where, "%s:%ld", path, n);
    const char *end = text;
    cJSON *o = cJSON_ParseWithLengthOpts(text, tlen, &end, false);
    while (o && end < text + tlen && isspace((unsigned char)*end))
        end++;
    int rc = 0;
    if (!cJSON_IsObject(o) || end != text + tlen) {
        snprintf(err, len, "%s: %s (column %td)", where,
                 !o ? "not JSON"
                    : cJSON_IsObject(o) ? "text after the JSON object"
                                        : "not a JSON object",
                 (o && !cJSON_IsObject(o) ? text : end) - text + 1);
        rc = KB_IO_USAGE;
        goto out;
    }
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "type");
    const cJSON *old = cJSON_GetObjectItemCaseSensitive(o, "record");
    if (!kind && cJSON_IsString(old) && !strcmp(old->valuestring, "io_epoch")) {
        snprintf(err, len, "%s: an io_epoch record of an older kbench "
                 "(\"record\" in place of \"type\", no schema): expected "
                 "schema %s; run `kbench io run` again", where, KB_IO_SCHEMA);
        rc = KB_IO_USAGE;
        goto out;
    }
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "io_epoch"))
        goto out;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, KB_IO_SCHEMA)) {
        snprintf(err, len, "%s: io_epoch record of schema %s%s%s, expected "
                 "%s", where, cJSON_IsString(schema) ? "\"" : "",
                 cJSON_IsString(schema) ? schema->valuestring : "(none)",
                 cJSON_IsString(schema) ? "\"" : "", KB_IO_SCHEMA);
        rc = KB_IO_USAGE;
        goto out;
    }
    rank_rec r = {.file = path, .line = n, .seq = l->n};
    rc = parse_record(o, &r, where, err, len);
    if (!rc)   /* the merge holds four: a decode, seen, bits, spare */
        rc = kb_io_bitmap_room(r.total, 4, where, err, len);
    if (!rc)
        rc = check_decodes(&r, err, len);
    if (!rc && rec_push(l, &r)) {
        snprintf(err, len, "%s: out of memory", where);
        rc = KB_IO_ERROR;
    }
    if (rc)
        rec_free(&r);
out:
    cJSON_Delete(o);
    return rc;
}

/* Every line of path.  0, or a stage error naming file and line. */
static int read_file(const char *path, rec_list *l, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        return KB_IO_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long n = 0;
    int rc = 0;
    errno = 0;
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        n++;
        if (got && line[got - 1] == '\n')
            got--;
        rc = read_line(path, n, line, (size_t)got, l, err, len);
    }
    if (!rc && ferror(f)) {
        snprintf(err, len, "%s: read failed after line %ld: %s", path, n,
                 strerror(errno));
        rc = KB_IO_USAGE;
    }
    free(line);
    fclose(f);
    return rc;
}

/* ---- checking one (profile, epoch) ---- */

/* A problem found in g: printed in full for the first MAX_SHOWN. */
static void problem(group *g, const char *fmt, ...)
{
    if (g->problems++ >= MAX_SHOWN)
        return;
    fprintf(stderr, "kbench io merge: profile %s epoch %" PRId64 ": ",
            g->profile, g->epoch);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static bool bit(const uint8_t *bits, int64_t i)
{
    return bits[i / 8] >> (i % 8) & 1;
}

/* The first sample in [lo, hi) whose bit is `set` in bits, or -1. */
static int64_t find_bit(const uint8_t *bits, int64_t lo, int64_t hi,
                        bool set)
{
    for (int64_t i = lo; i < hi; i++)
        if (bit(bits, i) == set)
            return i;
    return -1;
}

static int64_t count_bits(const uint8_t *bits, int64_t lo, int64_t hi)
{
    int64_t n = 0, i = lo;
    for (; i < hi && i % 8; i++)
        n += bit(bits, i);
    for (; i + 8 <= hi; i += 8)
        n += __builtin_popcount(bits[i / 8]);
    for (; i < hi; i++)
        n += bit(bits, i);
    return n;
}

/* The rank before `upto` whose bitmap holds sample s (the first owner
 * of a sample delivered twice), or NULL. */
static const rank_rec *owner_before(const group *g, int64_t upto, int64_t s,
                                    uint8_t *bits, size_t nbytes)
{
    char err[KB_IO_ERRLEN];
    for (int64_t q = 0; q < upto; q++)
        if (g->by_rank[q] && !decode(g->by_rank[q], bits, nbytes, err,
                                     sizeof err) && bit(bits, s))
            return g->by_rank[q];
    return NULL;
}

/* Rank r's own accounting: it delivers only in its shard, as many as it
 * says, and what it did not deliver there is what its counts say it left
 * out. */
static void check_shard(group *g, const rank_rec *r, const uint8_t *bits,
                        int64_t lo, int64_t hi)
{
    int64_t in = count_bits(bits, lo, hi),
            out = count_bits(bits, 0, lo) + count_bits(bits, hi, g->total);
    if (out) {
        int64_t s = find_bit(bits, 0, lo, true);
        problem(g, "rank %" PRId64 " (%s:%ld) delivered %" PRId64 " samples "
                "outside its shard [%" PRId64 ", %" PRId64 "), the first "
                "sample %" PRId64, r->rank, r->file, r->line, out, lo, hi,
                s >= 0 ? s : find_bit(bits, hi, g->total, true));
    }
    if (in + out != r->samples)
        problem(g, "rank %" PRId64 " (%s:%ld) says it delivered %" PRId64
                " samples (\"samples\"), its bitmap holds %" PRId64, r->rank,
                r->file, r->line, r->samples, in + out);
    int64_t missed = (hi - lo) - in, acc = 0;
    char counts[256] = "";
    for (size_t i = 0; i < NACC; i++) {
        acc += r->acc[i];
        snprintf(counts + strlen(counts), sizeof counts - strlen(counts),
                 "%s%s %" PRId64, i ? ", " : "", accounted[i], r->acc[i]);
    }
    if (missed == acc)
        return;
    if (missed > acc)
        problem(g, "sample %" PRId64 " was never delivered: %" PRId64
                " samples of rank %" PRId64 "'s shard [%" PRId64 ", %" PRId64
                ") were not, and %s:%ld accounts for %" PRId64 " (%s)",
                find_bit(bits, lo, hi, false), missed, r->rank, lo, hi,
                r->file, r->line, acc, counts);
    else
        problem(g, "rank %" PRId64 " (%s:%ld) accounts for %" PRId64
                " undelivered samples (%s) but left %" PRId64 " of its shard "
                "[%" PRId64 ", %" PRId64 ") undelivered", r->rank, r->file,
                r->line, acc, counts, missed, lo, hi);
}

/* The ranks' bitmaps: no sample twice, each rank's shard accounted for.
 * 0, KB_IO_USAGE (a bitmap that does not decode), KB_IO_ERROR. */
static int check_bitmaps(group *g, char *err, size_t len)
{
    size_t nbytes = (size_t)((g->total + 7) / 8);
    uint8_t *seen = calloc(nbytes ? nbytes : 1, 1),
            *bits = calloc(nbytes ? nbytes : 1, 1),
            *spare = calloc(nbytes ? nbytes : 1, 1);
    int rc = 0;
    if (!seen || !bits || !spare) {
        snprintf(err, len, "out of memory for bitmaps of %" PRId64
                 " samples", g->total);
        rc = KB_IO_ERROR;
    }
    for (int64_t q = 0; !rc && q < g->ranks; q++) {
        const rank_rec *r = g->by_rank[q];
        if (!r || (rc = decode(r, bits, nbytes, err, len)))
            continue;
        for (size_t b = 0; b < nbytes; b++) {
            for (uint8_t dup = seen[b] & bits[b]; dup; dup &= dup - 1) {
                int64_t s = (int64_t)b * 8 + __builtin_ctz(dup);
                /* naming the other rank costs a decode: only when shown */
                const rank_rec *o = g->problems < MAX_SHOWN
                    ? owner_before(g, q, s, spare, nbytes) : NULL;
                problem(g, "sample %" PRId64 " delivered twice: by rank %"
                        PRId64 " (%s:%ld) and by rank %" PRId64 " (%s:%ld)",
                        s, o ? o->rank : -1, o ? o->file : "?",
                        o ? o->line : 0L, r->rank, r->file, r->line);
            }
            seen[b] |= bits[b];
        }
        int64_t lo, hi;
        kb_io_rank_shard(&(kb_io_rank){q, g->ranks, ""}, g->total, &lo, &hi);
        check_shard(g, r, bits, lo, hi);
    }
    if (!rc)
        g->delivered = count_bits(seen, 0, g->total);
    free(seen);
    free(bits);
    free(spare);
    return rc;
}

/* The records of one (profile, epoch), v[0..n) sorted by rank: one per
 * rank 0..N-1 agreeing on N and the id space, each on DLIO's shard, then
 * the bitmaps.  Problems are counted in g; 0 or a stage error. */
static int check_group(group *g, const rank_rec *v, size_t n, char *err,
                       size_t len)
{
    const rank_rec *first = &v[0];
    *g = (group){.profile = first->profile, .epoch = first->epoch,
                 .ranks = first->ranks, .total = first->total};
    for (size_t i = 1; i < n; i++)
        if (v[i].ranks != g->ranks || v[i].total != g->total)
            problem(g, "%s:%ld has ranks %" PRId64 " and samples_total %"
                    PRId64 ", %s:%ld has %" PRId64 " and %" PRId64, v[i].file,
                    v[i].line, v[i].ranks, v[i].total, first->file,
                    first->line, g->ranks, g->total);
    if (g->problems)
        return 0;   /* no common id space to check the bitmaps in */
    if (!(g->by_rank = calloc((size_t)g->ranks, sizeof *g->by_rank))) {
        snprintf(err, len, "out of memory for %" PRId64 " ranks", g->ranks);
        return KB_IO_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        const rank_rec *r = &v[i], **slot = &g->by_rank[r->rank];
        if (*slot) {
            problem(g, "rank %" PRId64 " twice: %s:%ld and %s:%ld", r->rank,
                    (*slot)->file, (*slot)->line, r->file, r->line);
            continue;
        }
        *slot = r;
        g->present++;
        int64_t lo, hi;
        kb_io_rank_shard(&(kb_io_rank){r->rank, r->ranks, ""}, r->total, &lo,
                         &hi);
        if (r->lo != lo || r->hi != hi)
            problem(g, "rank %" PRId64 " (%s:%ld) read samples [%" PRId64
                    ", %" PRId64 "), DLIO's shard of %" PRId64 " samples over "
                    "%" PRId64 " ranks is [%" PRId64 ", %" PRId64 ")",
                    r->rank, r->file, r->line, r->lo, r->hi, r->total,
                    r->ranks, lo, hi);
    }
    for (int64_t q = 0; q < g->ranks; q++)
        if (!g->by_rank[q])
            problem(g, "no record of rank %" PRId64 " of %" PRId64 " in the "
                    "files given", q, g->ranks);
    return check_bitmaps(g, err, len);
}

/* The ranks' figures combined (over the ranks present) and their
 * accounted counts summed. */
static void combine_figures(group *g)
{
    for (size_t f = 0; f < NFIG; f++) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        int64_t k = 0;
        for (int64_t q = 0; g->by_rank && q < g->ranks; q++) {
            const rank_rec *r = g->by_rank[q];
            if (!r)
                continue;
            double x = r->fig[f];
            sum += x, k++;
            lo = fmin(lo, x), hi = fmax(hi, x);
        }
        g->fig[f] = k ? (figures[f].how == SUM ? sum : sum / (double)k) : NAN;
        g->fig_min[f] = k ? lo : NAN;
        g->fig_max[f] = k ? hi : NAN;
    }
    for (int64_t q = 0; g->by_rank && q < g->ranks; q++)
        for (size_t i = 0; g->by_rank[q] && i < NACC; i++)
            g->acc[i] += g->by_rank[q]->acc[i];
}

/* ---- output ---- */

static int64_t acc_total(const group *g)
{
    int64_t a = 0;
    for (size_t i = 0; i < NACC; i++)
        a += g->acc[i];
    return a;
}

static void print_header(void)
{
    printf("%-16s %6s %5s %10s %10s %10s %12s", "profile", "epoch", "ranks",
           "samples", "delivered", "accounted", "exactly-once");
    for (size_t f = 0; f < NFIG; f++)
        if (figures[f].column)
            printf(" %12s", figures[f].column);
    putchar('\n');
}

static void print_row(const group *g)
{
    printf("%-16s %6" PRId64 " %5" PRId64 " %10" PRId64 " %10" PRId64
           " %10" PRId64 " %12s", g->profile, g->epoch, g->ranks, g->total,
           g->delivered, acc_total(g), g->problems ? "no" : "yes");
    for (size_t f = 0; f < NFIG; f++)
        if (figures[f].column)
            printf(" %12.2f", g->fig[f]);
    putchar('\n');
}

/* The io_merge record of g.  NULL when out of memory. */
static cJSON *merge_record(const group *g, const kb_provenance *prov)
{
    cJSON *o = kb_io_record_new("io_merge", prov);
    bool ok = o && cJSON_AddStringToObject(o, "profile", g->profile) &&
              cJSON_AddNumberToObject(o, "epoch", (double)g->epoch) &&
              cJSON_AddNumberToObject(o, "ranks", (double)g->ranks) &&
              cJSON_AddNumberToObject(o, "ranks_present",
                                      (double)g->present);
    /* each rank's file, by rank: null where none was given */
    cJSON *files = ok ? cJSON_AddArrayToObject(o, "files") : NULL;
    ok = ok && files;
    for (int64_t q = 0; ok && q < g->ranks; q++) {
        const rank_rec *r = g->by_rank ? g->by_rank[q] : NULL;
        cJSON *f = r ? cJSON_CreateString(r->file) : cJSON_CreateNull();
        ok = f && cJSON_AddItemToArray(files, f);
    }
    ok = ok && cJSON_AddNumberToObject(o, "samples_total", (double)g->total) &&
         cJSON_AddNumberToObject(o, "samples_delivered",
                                 (double)g->delivered) &&
         cJSON_AddNumberToObject(o, "samples_accounted",
                                 (double)acc_total(g));
    for (size_t i = 0; ok && i < NACC; i++)
        ok = cJSON_AddNumberToObject(o, accounted[i], (double)g->acc[i]);
    ok = ok && cJSON_AddBoolToObject(o, "exactly_once", !g->problems) &&
         cJSON_AddNumberToObject(o, "problems", (double)g->problems);
    cJSON *conv = ok ? cJSON_AddObjectToObject(o, "conventions") : NULL;
    ok = ok && conv;
    for (size_t f = 0; ok && f < NFIG; f++)
        ok = cJSON_AddStringToObject(conv, figures[f].key,
                                     figures[f].convention) != NULL;
    char key[128];
    for (size_t f = 0; ok && f < NFIG; f++) {
        ok = cJSON_AddNumberToObject(o, figures[f].key, g->fig[f]);
        snprintf(key, sizeof key, "%s_rank_min", figures[f].key);
        ok = ok && cJSON_AddNumberToObject(o, key, g->fig_min[f]);
        snprintf(key, sizeof key, "%s_rank_max", figures[f].key);
        ok = ok && cJSON_AddNumberToObject(o, key, g->fig_max[f]);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Every group's record as JSON Lines into path.  0, or KB_IO_ERROR. */
static int write_json(const char *path, const group *g, size_t ng,
                      const kb_provenance *prov, char *err, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, len, "--json %s: cannot create: %s", path,
                 strerror(errno));
        return KB_IO_ERROR;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < ng; i++) {
        cJSON *o = merge_record(&g[i], prov);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;
        if (!text || fprintf(f, "%s\n", text) < 0)
            rc = KB_IO_ERROR;
        free(text);
        cJSON_Delete(o);
    }
    if (fclose(f) || rc) {
        snprintf(err, len, "--json %s: write failed%s", path,
                 rc ? "" : " at close");
        rc = KB_IO_ERROR;
    }
    return rc;
}

/* ---- the verb ---- */

static int by_key(const void *a, const void *b)
{
    const rank_rec *x = a, *y = b;
    int c = strcmp(x->profile, y->profile);
    if (c)
        return c;
    if (x->epoch != y->epoch)
        return x->epoch < y->epoch ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Read, group, check and report.  0, KB_IO_CORRUPT when some epoch is
 * not exactly once, or a stage error with a message. */
static int merge(char **files, int nfiles, const char *json,
                 const kb_provenance *prov, char *err, size_t len)
{
    rec_list l = {0};
    group *g = NULL;
    size_t ng = 0;
    int rc = 0;
    for (int i = 0; !rc && i < nfiles; i++)
        rc = read_file(files[i], &l, err, len);
    if (!rc && !l.n) {
        snprintf(err, len, "no io_epoch record in the %d file%s given (the "
                 "--json output of `kbench io run`)", nfiles,
                 nfiles == 1 ? "" : "s");
        rc = KB_IO_USAGE;
    }
    if (!rc && !(g = calloc(l.n, sizeof *g))) {
        snprintf(err, len, "out of memory for %zu records", l.n);
        rc = KB_IO_ERROR;
    }
    if (!rc)
        qsort(l.v, l.n, sizeof *l.v, by_key);
    for (size_t a = 0, b; !rc && a < l.n; a = b) {
        for (b = a + 1; b < l.n && !strcmp(l.v[b].profile, l.v[a].profile) &&
                        l.v[b].epoch == l.v[a].epoch;)
            b++;
        rc = check_group(&g[ng], &l.v[a], b - a, err, len);
        combine_figures(&g[ng]);
        ng++;
    }
    bool failed = false;
    if (!rc) {
        print_header();
        for (size_t i = 0; i < ng; i++) {
            print_row(&g[i]);
            if (g[i].problems > MAX_SHOWN)
                fprintf(stderr, "kbench io merge: profile %s epoch %" PRId64
                        ": %" PRId64 " problems in all, the first %d shown\n",
                        g[i].profile, g[i].epoch, g[i].problems, MAX_SHOWN);
            failed |= g[i].problems > 0;
        }
    }
    if (!rc && json)
        rc = write_json(json, g, ng, prov, err, len);
    if (!rc && failed) {
        snprintf(err, len, "exactly-once delivery not proven (above)");
        rc = KB_IO_CORRUPT;
    }
    for (size_t i = 0; i < ng; i++)
        free(g[i].by_rank);
    free(g);
    for (size_t i = 0; i < l.n; i++)
        rec_free(&l.v[i]);
    free(l.v);
    return rc;
}

int kb_io_merge_files(char **files, int n, const char *json,
                      const kb_provenance *prov)
{
    char err[KB_IO_ERRLEN] = "";
    int rc = merge(files, n, json, prov, err, sizeof err);
    if (rc)
        fprintf(stderr, "kbench io merge: %s\n", err);
    return kb_io_exit_code(rc);
}
