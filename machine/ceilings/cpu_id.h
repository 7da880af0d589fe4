/* cpu_id.h - the identity of a CPU and its system, as the run record and
 * the ceilings file store it, and its JSON form (cpu_id_json.c).  Telling
 * this machine's identity is `kbench peaks`' work (machine/cpu_id.h);
 * reading it back from a file needs no more than this. */
#ifndef KB_CEILINGS_CPU_ID_H
#define KB_CEILINGS_CPU_ID_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define KB_PRECISIONS 4        /* fp64, fp32, bf16, fp16 */

/* The row of microarch.conf that matched a CPU: per precision (index of
 * kb_precision_index), FMA pipes per core x datapath bits per pipe.
 * pipes 0: the table gives no figure; -1: it depends on a SKU that the
 * model name does not tell. */
typedef struct {
    char name[32];             /* "zen4", "sapphirerapids" */
    int pipes[KB_PRECISIONS];
    int bits[KB_PRECISIONS];
} kb_microarch;

typedef struct {
    char vendor[32];           /* "GenuineIntel", "AuthenticAMD", "arm:0x41",
                                  or "unknown" */
    char model_name[160];      /* "model name", or "unknown" */
    /* x86: cpu family, model, stepping; arm64: CPU architecture, CPU part,
     * CPU variant.  -1 when unknown. */
    int family, model, stepping;
    char microcode[32];        /* "0xa101148", or "unknown" */
    char kernel[256];          /* uname: "Linux 6.1.0-18-amd64 #1 SMP ..." */
    char governor[32];         /* cpu0's scaling_governor, or "unavailable" */
    char cache_source[16];     /* "hwloc", "sysfs", or "" when unknown */
    double cache_bytes[3];     /* L1d, L2, L3 per instance; 0 when absent */
    int cache_count[3];        /* instances on the machine */
    bool have_microarch;       /* a row of microarch.conf matched */
    kb_microarch arch;
    char microarch_note[384];  /* when no row matched: why */
    char emulated[200];        /* "": native; else why this CPU is an
                                  emulator's (qemu-user), whose timings
                                  mean nothing */
} kb_cpu_id;

/* id as a JSON object (results/SCHEMA.md, "cpu_id"), or NULL when out of
 * memory. */
cJSON *kb_cpu_id_to_json(const kb_cpu_id *id);

/* Read the object written by kb_cpu_id_to_json (every field optional;
 * the per-precision pipes are not stored, so arch holds only its name).
 * Returns 0, or -1 with err naming what (the enclosing object) and the
 * bad field. */
int kb_cpu_id_from_json(const cJSON *o, kb_cpu_id *id, const char *what,
                        char *err, size_t errlen);

#endif
