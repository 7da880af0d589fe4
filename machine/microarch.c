/* microarch.c - the microarchitecture table (microarch.conf: FMA pipes x
 * datapath bits per precision, keyed by vendor, family, model, stepping
 * and model-name glob) and the FLOP per cycle it gives. */
#include "machine/conf_rows.h"
#include "machine/cpu_id.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static const char *const precisions[KB_PRECISIONS] = {"fp64", "fp32", "bf16", "fp16"};
static const int element_bits[KB_PRECISIONS] = {64, 32, 16, 16};

int kb_precision_index(const char *precision)
{
    for (int i = 0; i < KB_PRECISIONS; i++)
        if (precision && strcmp(precision, precisions[i]) == 0)
            return i;
    return -1;
}

/* "n" or "lo-hi" (decimal or 0x hex) into [*lo, *hi]; "*" is any value.
 * Returns 0, or -1 when s is neither. */
static int parse_range(const char *s, long *lo, long *hi)
{
    char *end;
    if (strcmp(s, "*") == 0) {
        *lo = -1;
        *hi = 1L << 30;
        return 0;
    }
    *lo = strtol(s, &end, 0);
    if (end == s)
        return -1;
    *hi = *lo;
    if (*end == '-') {
        const char *h = end + 1;
        *hi = strtol(h, &end, 0);
        if (end == h)
            return -1;
    }
    return *end || *hi < *lo ? -1 : 0;
}

/* "PIPESxBITS", "-" (pipes 0) or "?" (pipes -1).  Returns 0, or -1. */
static int parse_cell(const char *s, int *pipes, int *bits)
{
    *pipes = 0;
    *bits = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    if (strcmp(s, "?") == 0) {
        *pipes = -1;
        return 0;
    }
    char *end;
    long p = strtol(s, &end, 10);
    if (end == s || *end != 'x' || p < 1 || p > 16)
        return -1;
    const char *b = end + 1;
    long w = strtol(b, &end, 10);
    if (end == b || *end || w < 64 || w > 4096 || w % 64)
        return -1;
    *pipes = (int)p;
    *bits = (int)w;
    return 0;
}

static bool in_range(int v, long lo, long hi)
{
    return lo < 0 ? true : v >= lo && v <= hi;
}

enum { NCOLS = 6 + KB_PRECISIONS };

typedef struct {
    const kb_cpu_id *id;
    kb_microarch *out;
} lookup;

/* One table row (a kb_conf_row_fn).  Returns 1 when it matches the CPU
 * (with *out filled), 0 when it does not, -1 when malformed (why set). */
static int match_row(char **col, int n, const char *where, void *ctx,
                     char *why, size_t len)
{
    const kb_cpu_id *id = ((lookup *)ctx)->id;
    long flo, fhi, mlo, mhi, slo, shi;
    if (n != NCOLS || parse_range(col[1], &flo, &fhi) || parse_range(col[2], &mlo, &mhi) ||
        parse_range(col[3], &slo, &shi)) {
        snprintf(why, len, "%s: expected %d columns: vendor family models steppings "
                 "name uarch fp64 fp32 bf16 fp16", where, NCOLS);
        return -1;
    }
    kb_microarch m = {{0}, {0}, {0}};
    snprintf(m.name, sizeof m.name, "%s", col[5]);
    for (int p = 0; p < KB_PRECISIONS; p++)
        if (parse_cell(col[6 + p], &m.pipes[p], &m.bits[p])) {
            snprintf(why, len, "%s: %s cell \"%s\", expected PIPESxBITS (2x512), - or ?",
                     where, precisions[p], col[6 + p]);
            return -1;
        }
    char name[sizeof id->model_name];
    kb_conf_glob_name(id->model_name, name, sizeof name);
    if (strcmp(col[0], id->vendor) != 0 || !in_range(id->family, flo, fhi) ||
        !in_range(id->model, mlo, mhi) || !in_range(id->stepping, slo, shi) ||
        fnmatch(col[4], name, 0) != 0)
        return 0;
    *((lookup *)ctx)->out = m;
    return 1;
}

int kb_microarch_lookup(const char *path, const kb_cpu_id *id,
                        kb_microarch *out, char *why, size_t len)
{
    lookup ctx = {id, out};
    int rc = kb_conf_rows(path, NCOLS, match_row, &ctx, why, len);
    if (rc == 0)
        snprintf(why, len, "no microarchitecture entry for %s family 0x%x model 0x%x "
                 "stepping %d (\"%s\") in %s", id->vendor, (unsigned)id->family,
                 (unsigned)id->model, id->stepping, id->model_name, path);
    return rc;
}

double kb_cpu_peak_flop_per_cycle(const kb_cpu_id *id, const char *precision,
                                  char *why, size_t len)
{
    int p = kb_precision_index(precision);
    if (!id->have_microarch) {
        snprintf(why, len, "%s", id->microarch_note);
        return 0;
    }
    if (p < 0) {
        snprintf(why, len, "unknown precision \"%s\"", precision ? precision : "");
        return 0;
    }
    if (id->arch.pipes[p] < 0) {
        snprintf(why, len, "%s: the FMA units differ by SKU and the model name \"%s\" "
                 "does not tell which SKU this is", id->arch.name, id->model_name);
        return 0;
    }
    if (id->arch.pipes[p] == 0) {
        snprintf(why, len, "the microarchitecture table gives no %s FMA rate for %s",
                 precision, id->arch.name);
        return 0;
    }
    return id->arch.pipes[p] * (double)(id->arch.bits[p] / element_bits[p]) * 2.0;
}
