/* placement.c - roofline arithmetic: AI, attainable GFLOP/s, % of
 * attainable, the bounding ceiling and the above-the-roof flag. */
#include "drivers/roofline/placement.h"

#include "drivers/common/options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *kb_roofline_precision(const char *dtype)
{
    static const char *const map[][2] = {
        {"f64", "fp64"}, {"fp64", "fp64"}, {"f32", "fp32"}, {"fp32", "fp32"},
        {"bf16", "bf16"}, {"f16", "fp16"}, {"fp16", "fp16"}};
    /* SRC:WEI:DST: the multiplies run in the source's type */
    size_t n = dtype ? strcspn(dtype, ":") : 0;
    for (size_t i = 0; dtype && i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == n && strncasecmp(dtype, map[i][0], n) == 0)
            return map[i][1];
    return NULL;
}

const char *kb_bound_name(kb_bound b)
{
    return b == KB_BOUND_COMPUTE ? "compute" : "memory";
}

const char *kb_roofline_level_name(const char *name)
{
    static const char *const names[] = {"auto", "L1", "L2", "L3", "DRAM"};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return names[i];
    return NULL;
}

int kb_roofline_level_opt(void *opts, const char *value, const char *verb,
                          const kb_option *o)
{
    const char **dst = (const char **)((char *)opts + o->offset);
    if ((*dst = kb_roofline_level_name(value)))
        return 0;
    fprintf(stderr, "kbench %s: --%s '%s': expected %s\n", verb, o->name, value,
            KB_ROOFLINE_LEVELS);
    return -1;
}

const char *kb_roofline_level(const kb_device *d, double bytes)
{
    static const char *const caches[] = {"L1", "L2", "L3"};
    for (int i = 0; i < 3; i++)
        if (d->cache_bytes[i] > 0 && bytes <= d->cache_bytes[i] &&
            kb_device_best(d, KB_CEIL_MEMORY, caches[i]))
            return caches[i];
    return "DRAM";
}

const kb_device *kb_roofline_device(const kb_ceilings *c, const char *kind,
                                    const char *id)
{
    if (!kind)
        kind = "cpu";
    for (int i = 0; id && id[0] && i < c->ndevices; i++)
        if (strcmp(c->devices[i].kind, kind) == 0 &&
            strcmp(c->devices[i].uuid, id) == 0)
            return &c->devices[i];
    return kb_ceilings_device(c, kind);
}

void kb_roofline_no_device(const char *kind, const char *id, char *err,
                           size_t errlen)
{
    bool known = id && id[0];
    snprintf(err, errlen, "no ceilings for %s%s device%s%s: run kbench peaks "
             "on that machine", known ? "" : "a ", kind ? kind : "cpu",
             known ? " " : "", known ? id : "");
}

int kb_roofline_place(const kb_ceilings *c, const kb_roofline_case *q,
                      kb_placement *out, char *err, size_t errlen)
{
    const char *kind = q->device ? q->device : "cpu";
    const char *level = q->level ? q->level : "DRAM";
    const char *prec = kb_roofline_precision(q->dtype);
    memset(out, 0, sizeof *out);
    if (!prec) {
        snprintf(err, errlen, "unknown dtype \"%s\"", q->dtype ? q->dtype : "");
        return -1;
    }
    if (!(q->flops > 0) || !(q->bytes > 0) || !isfinite(q->flops) || !isfinite(q->bytes)) {
        snprintf(err, errlen, "flops (%g) and bytes (%g) must be > 0", q->flops, q->bytes);
        return -1;
    }
    const kb_device *d = kb_roofline_device(c, kind, q->device_id);
    if (!d) {
        kb_roofline_no_device(kind, q->device_id, err, errlen);
        return -1;
    }
    out->device = d;
    if (strcmp(level, "auto") == 0)
        level = kb_roofline_level(d, q->bytes);
    out->compute = kb_device_best(d, KB_CEIL_COMPUTE, prec);
    out->memory = kb_device_best(d, KB_CEIL_MEMORY, level);
    if (!out->compute) {
        snprintf(err, errlen, "the %s ceilings have no measured %s compute "
                 "roof (not placed under another precision's)", kind, prec);
        return -1;
    }
    if (!out->memory) {
        snprintf(err, errlen, "the %s ceilings have no %s memory ceiling",
                 kind, level);
        return -1;
    }
    out->ai = q->flops / q->bytes;
    out->peak_gflops = out->compute->value;
    out->bw_gbps = out->memory->value;
    /* GB/s x FLOP/byte = GFLOP/s */
    double mem_roof = out->ai * out->bw_gbps;
    out->bound = mem_roof < out->peak_gflops ? KB_BOUND_MEMORY : KB_BOUND_COMPUTE;
    out->attainable = fmin(mem_roof, out->peak_gflops);
    out->pct = 100.0 * q->gflops / out->attainable;
    out->above_roof = q->gflops > out->attainable * (1 + KB_ROOF_MARGIN);
    return 0;
}
