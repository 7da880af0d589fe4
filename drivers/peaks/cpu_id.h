/* cpu_id.h - which CPU and system this is, in enough detail to tell apart
 * two machines that print the same model name: vendor, family, model,
 * stepping, microcode, caches, kernel, frequency governor and the
 * microarchitecture of microarch.conf.  Gathered in one place (cpu_id.c)
 * for both the run record and the ceilings file (cpu_id_json.c). */
#ifndef KB_CPU_ID_H
#define KB_CPU_ID_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
} kb_cpu_id;

/* Fill id for this machine, including the microarch.conf lookup
 * (share/kbench/peaks/microarch.conf in the data directory).  Can't
 * fail: what cannot be read reads "unknown" (-1 for numbers), and a
 * missing table or row leaves have_microarch false with the reason. */
void kb_cpu_id_detect(kb_cpu_id *id);

/* The identity fields of the first processor of /proc/cpuinfo text in f
 * (x86 or arm64 layout) into id; fields absent from f read "unknown"/-1.
 * Can't fail. */
void kb_cpu_id_parse_cpuinfo(FILE *f, kb_cpu_id *id);

/* 0..3 for "fp64", "fp32", "bf16", "fp16"; -1 for anything else. */
int kb_precision_index(const char *precision);

/* Match id against the table at path (format: microarch.conf's header).
 * Returns 1 with *out filled from the first matching row, 0 when no row
 * matches (why names the CPU and path), or -1 when the file cannot be
 * read or a row is malformed (why names path:line). */
int kb_microarch_lookup(const char *path, const kb_cpu_id *id,
                        kb_microarch *out, char *why, size_t len);

/* FLOP per cycle per core at this precision: pipes x (bits / element
 * bits) x 2.  Returns 0 with why set when there is no figure (unknown
 * precision, "-" or "?" in the table, no microarchitecture). */
double kb_cpu_peak_flop_per_cycle(const kb_cpu_id *id, const char *precision,
                                  char *why, size_t len);

/* ---- cpu_id_json.c ---------------------------------------------------- */

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
