/* gpu_arch.c - the GPU architecture table (gpu_arch.conf: FMA and
 * matrix-unit lanes per SM per clock and datasheet bandwidth, keyed by
 * architecture and device-name glob) and the theoretical peaks it gives. */
#include "machine/conf_rows.h"
#include "machine/machine.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NCOLS = 3 + 2 * KB_PRECISIONS + 1 };

static const char *const precisions[KB_PRECISIONS] = {"fp64", "fp32", "bf16", "fp16"};

/* A lanes cell: a whole number 1..65536, "-" (0), or with fma_ok "fma"
 * (KB_GPU_ON_FMA).  Returns 0, or -1. */
static int parse_lanes(const char *s, bool fma_ok, int *out)
{
    if (strcmp(s, "-") == 0) {
        *out = 0;
        return 0;
    }
    if (fma_ok && strcmp(s, "fma") == 0) {
        *out = KB_GPU_ON_FMA;
        return 0;
    }
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > 65536)
        return -1;
    *out = (int)v;
    return 0;
}

typedef struct {
    const char *arch, *device;
    kb_gpu_arch *out;
} lookup;

/* One row (a kb_conf_row_fn): 1 when it matches, 0 when not, -1 bad. */
static int match_row(char **col, int n, const char *where, void *ctx,
                     char *why, size_t len)
{
    const lookup *l = ctx;
    if (n != NCOLS) {
        snprintf(why, len, "%s: expected %d columns: arch name uarch fp64 fp32 bf16 "
                 "fp16 mma_fp64 mma_fp32 mma_bf16 mma_fp16 dram_gbps", where, NCOLS);
        return -1;
    }
    kb_gpu_arch a;
    memset(&a, 0, sizeof a);
    snprintf(a.arch, sizeof a.arch, "%s", col[0]);
    snprintf(a.name, sizeof a.name, "%s", col[2]);
    for (int p = 0; p < KB_PRECISIONS; p++) {
        const char *v = col[3 + p], *m = col[3 + KB_PRECISIONS + p];
        if (parse_lanes(v, false, &a.fma_lanes[p])) {
            snprintf(why, len, "%s: %s cell \"%s\", expected lanes per SM per "
                     "clock (1 to 65536) or -", where, precisions[p], v);
            return -1;
        }
        if (parse_lanes(m, true, &a.mma_lanes[p])) {
            snprintf(why, len, "%s: mma_%s cell \"%s\", expected lanes per SM per "
                     "clock (1 to 65536), fma or -", where, precisions[p], m);
            return -1;
        }
    }
    const char *bw = col[NCOLS - 1];
    if (strcmp(bw, "-") != 0) {
        char *end;
        a.dram_gbps = strtod(bw, &end);
        if (end == bw || *end || !(a.dram_gbps > 0 && a.dram_gbps < 1e6)) {
            snprintf(why, len, "%s: dram_gbps \"%s\", expected GB/s or -", where, bw);
            return -1;
        }
    }
    char name[160];
    kb_conf_glob_name(l->device, name, sizeof name);
    if (strcmp(col[0], l->arch) != 0 || fnmatch(col[1], name, 0) != 0)
        return 0;
    *l->out = a;
    return 1;
}

int kb_gpu_arch_lookup(const char *path, const char *arch, const char *device,
                       kb_gpu_arch *out, char *why, size_t len)
{
    lookup ctx = {arch ? arch : "", device ? device : "", out};
    int rc = kb_conf_rows(path, NCOLS, match_row, &ctx, why, len);
    if (rc == 0)
        snprintf(why, len, "%s not in gpu_arch.conf (%s; device \"%s\")",
                 arch && arch[0] ? arch : "an unnamed architecture", path, ctx.device);
    return rc;
}

double kb_gpu_arch_peak(const kb_gpu_arch *a, bool matrix, const char *precision,
                        int sms, double clock_ghz, char *why, size_t len)
{
    int p = kb_precision_index(precision);
    if (p < 0) {
        snprintf(why, len, "unknown precision \"%s\"", precision ? precision : "");
        return 0;
    }
    int lanes = matrix ? a->mma_lanes[p] : a->fma_lanes[p];
    if (lanes == KB_GPU_ON_FMA)
        lanes = a->fma_lanes[p];
    if (lanes <= 0) {
        snprintf(why, len, "gpu_arch.conf gives no %s%s rate for %s (%s)",
                 matrix ? "matrix-unit " : "FMA ", precision, a->name, a->arch);
        return 0;
    }
    if (!(sms > 0 && clock_ghz > 0)) {
        snprintf(why, len, "the device reports no %s", sms > 0 ? "SM clock" : "SM count");
        return 0;
    }
    return sms * (double)lanes * 2.0 * clock_ghz;
}
