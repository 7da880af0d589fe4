/* cpu_id.h - which CPU and system this is, in enough detail to tell apart
 * two machines that print the same model name: vendor, family, model,
 * stepping, microcode, caches, kernel, frequency governor and the
 * microarchitecture of microarch.conf, detected on this machine
 * (cpu_id.c, microarch.c) for both the run record and the ceilings file
 * (the type and its JSON form: machine/ceilings/cpu_id.h). */
#ifndef KB_CPU_ID_H
#define KB_CPU_ID_H

#include "machine/ceilings/cpu_id.h"

#include <stdint.h>
#include <stdio.h>

/* Fill id for this machine, including the microarch.conf lookup
 * (share/kbench/peaks/microarch.conf in the data directory).  Can't
 * fail: what cannot be read reads "unknown" (-1 for numbers), and a
 * missing table or row leaves have_microarch false with the reason. */
void kb_cpu_id_detect(kb_cpu_id *id);

/* The identity fields of the first processor of /proc/cpuinfo text in f
 * (x86 or arm64 layout) into id; fields absent from f read "unknown"/-1.
 * Can't fail. */
void kb_cpu_id_parse_cpuinfo(FILE *f, kb_cpu_id *id);

/* The identity fields of an Arm MIDR_EL1 value into id: vendor
 * "arm:0xIMPLEMENTER", family 8, model the part number, stepping the
 * variant (as /proc/cpuinfo's arm64 lines read).  Can't fail. */
void kb_cpu_id_from_midr(uint64_t midr, kb_cpu_id *id);

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

#endif
