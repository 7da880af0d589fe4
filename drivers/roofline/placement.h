/* placement.h - a case on the roofline: its arithmetic intensity, the
 * attainable performance under the machine's ceilings, how close it came,
 * which ceiling bounds it, and whether it claims to beat its roof.
 *
 * `kbench run --peaks FILE` loads the ceilings once (kb_ceilings_load in
 * machine/ceilings/ceilings.h) and calls kb_roofline_place for every case
 * that ran; `kbench report` does the same for result files. */
#ifndef KB_PLACEMENT_H
#define KB_PLACEMENT_H

#include "machine/ceilings/ceilings.h"

#include <stdbool.h>
#include <stddef.h>

/* A measured case ends up more than this fraction above its roof only
 * through a counting or timing error (or data that stayed in a cache
 * above the memory level used): flagged.  The margin covers the few
 * percent of noise in the ceilings themselves. */
#define KB_ROOF_MARGIN 0.05

typedef enum { KB_BOUND_MEMORY, KB_BOUND_COMPUTE } kb_bound;

typedef struct {
    const char *device;   /* "cpu" (the default when NULL), "cuda", "hip" */
    const char *dtype;    /* "f32"/"fp32", "f64"/"fp64", "bf16", "f16"/"fp16" */
    const char *level;    /* memory level; NULL: "DRAM"; "auto": the one
                             that holds the working set (kb_roofline_level) */
    double flops, bytes;  /* per execution, as results/COUNTING.md counts */
    double gflops;        /* achieved */
    const char *device_id;   /* the GPU it ran on (its describe()'s
                                "device_uuid"); NULL or "": not known */
} kb_roofline_case;

typedef struct {
    double ai;            /* flops / bytes */
    double peak_gflops;   /* compute ceiling of the precision */
    double bw_gbps;       /* memory ceiling of the level */
    double attainable;    /* min(peak, ai x bw), GFLOP/s */
    double pct;           /* 100 x achieved / attainable */
    kb_bound bound;
    bool above_roof;      /* achieved > attainable x (1 + KB_ROOF_MARGIN) */
    const kb_device *device;              /* into the kb_ceilings used */
    const kb_ceiling *compute, *memory;   /* of that device */
} kb_placement;

/* The precision name of the ceilings ("fp32", ...) for a result dtype
 * (of SRC:WEI:DST, the source's: "bf16:bf16:f32" is under the bf16
 * roof), or NULL when it is not one kbench knows. */
const char *kb_roofline_precision(const char *dtype);

/* The ceilings device of a case that ran on a device of `kind` (NULL:
 * "cpu") identified by id (a GPU's uuid; NULL or "": unknown): the device
 * of that kind whose uuid is id, else the first of that kind (a GPU of
 * the same kind measured elsewhere: callers that show the placement say
 * so when the uuids differ); NULL when c has no device of that kind. */
const kb_device *kb_roofline_device(const kb_ceilings *c, const char *kind,
                                    const char *id);

/* Why kb_roofline_device found nothing, into err: "no ceilings for cuda
 * device GPU-...: run kbench peaks on that machine". */
void kb_roofline_no_device(const char *kind, const char *id, char *err,
                           size_t errlen);

/* Place one case.  Uses the device kb_roofline_device picks for
 * q->device and q->device_id, its compute ceiling for the precision and
 * its best memory ceiling of the level.  Returns 0, or -1 with err saying
 * what is missing (no device of the kind: "no ceilings for cuda device
 * GPU-...: run kbench peaks on that machine"; no ceiling for the
 * precision or level; flops or bytes not > 0; unknown dtype); no ceiling
 * is ever invented. */
int kb_roofline_place(const kb_ceilings *c, const kb_roofline_case *q,
                      kb_placement *out, char *err, size_t errlen);

/* The level names kb_roofline_place takes ("auto", "L1", "L2", "L3",
 * "DRAM"), for option parsers: name's canonical spelling, or NULL when it
 * is not one of them. */
const char *kb_roofline_level_name(const char *name);
#define KB_ROOFLINE_LEVELS "auto, L1, L2, L3 or DRAM"

/* An option whose value is one of those names (run --roof-level, report
 * --level): a kb_opt_parse_fn storing the canonical name, a const char *,
 * at the option's offset.  Returns 0, or -1 after naming the value and the
 * names expected. */
struct kb_option;
int kb_roofline_level_opt(void *opts, const char *value, const char *verb,
                          const struct kb_option *o);

/* The memory level a working set of `bytes` is served from when a case
 * runs again and again: the smallest cache of d that holds it (cache
 * sizes are totals over the caches the threads use) and has a measured
 * ceiling, else "DRAM".  A case cannot beat that level's bandwidth, so
 * its roof there is the one whose breach means a counting or timing
 * error; the DRAM roof alone flags every cache-resident case. */
const char *kb_roofline_level(const kb_device *d, double bytes);

/* "memory" or "compute". */
const char *kb_bound_name(kb_bound b);

#endif
