/* cpu_id.c - gathers the CPU's identity (cpu_id.h): /proc/cpuinfo, the
 * topology's caches, uname, the cpufreq governor and the microarch.conf
 * row, once, for the run record and the ceilings file alike. */
#include "machine/cpu_id.h"
#include "machine/machine.h"

#include "kernels/data_dir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#define GOVERNOR_PATH "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"

/* strtol with base 0 ("0x46" and "8" both), or -1 when s holds no number. */
static int parse_int(const char *s)
{
    char *end;
    long v = strtol(s, &end, 0);
    return end == s || v < 0 || v > 1 << 30 ? -1 : (int)v;
}

void kb_cpu_id_parse_cpuinfo(FILE *f, kb_cpu_id *id)
{
    snprintf(id->vendor, sizeof id->vendor, "unknown");
    snprintf(id->model_name, sizeof id->model_name, "unknown");
    snprintf(id->microcode, sizeof id->microcode, "unknown");
    id->family = id->model = id->stepping = -1;
    char line[512];
    bool seen = false;
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) {
            /* a blank line ends the first processor's block */
            if (seen && strspn(line, " \t\n") == strlen(line))
                break;
            continue;
        }
        seen = true;
        char *key = line, *v = colon + 1;
        *colon = '\0';
        for (char *e = colon; e > key && (e[-1] == ' ' || e[-1] == '\t'); e--)
            e[-1] = '\0';
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        if (strcmp(key, "vendor_id") == 0)
            snprintf(id->vendor, sizeof id->vendor, "%s", v);
        else if (strcmp(key, "CPU implementer") == 0)
            snprintf(id->vendor, sizeof id->vendor, "arm:%s", v);
        else if (strcmp(key, "model name") == 0)
            snprintf(id->model_name, sizeof id->model_name, "%s", v);
        else if (strcmp(key, "cpu family") == 0 || strcmp(key, "CPU architecture") == 0)
            id->family = parse_int(v);
        else if (strcmp(key, "model") == 0 || strcmp(key, "CPU part") == 0)
            id->model = parse_int(v);
        else if (strcmp(key, "stepping") == 0 || strcmp(key, "CPU variant") == 0)
            id->stepping = parse_int(v);
        else if (strcmp(key, "microcode") == 0)
            snprintf(id->microcode, sizeof id->microcode, "%s", v);
    }
}

/* "Linux 6.1.0-18-amd64 #1 SMP ...", or "unknown". */
static void kernel_version(char *dst, size_t len)
{
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(dst, len, "unknown");
    else
        snprintf(dst, len, "%s %s %s", u.sysname, u.release, u.version);
}

/* cpu0's cpufreq governor; VMs and containers often have none. */
static void governor(char *dst, size_t len)
{
    FILE *f = fopen(GOVERNOR_PATH, "r");
    snprintf(dst, len, "unavailable");
    if (!f)
        return;
    char buf[32];   /* governor names are short ("performance") */
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (buf[0])
            snprintf(dst, len, "%s", buf);
    }
    fclose(f);
}

static void microarch(kb_cpu_id *id)
{
    char path[4096], why[320];
    if (kb_data_path("peaks/microarch.conf", path, sizeof path, why, sizeof why) != 0) {
        snprintf(id->microarch_note, sizeof id->microarch_note,
                 "no microarchitecture table: %s", why);
        return;
    }
    int rc = kb_microarch_lookup(path, id, &id->arch, why, sizeof why);
    id->have_microarch = rc == 1;
    if (rc == 0)
        snprintf(id->microarch_note, sizeof id->microarch_note, "%s", why);
    else if (rc < 0)
        snprintf(id->microarch_note, sizeof id->microarch_note,
                 "unreadable microarchitecture table: %s", why);
}

void kb_cpu_id_from_midr(uint64_t midr, kb_cpu_id *id)
{
    snprintf(id->vendor, sizeof id->vendor, "arm:0x%02x", (unsigned)(midr >> 24 & 0xff));
    id->family = 8;   /* /proc/cpuinfo's "CPU architecture" of every AArch64 core */
    id->model = (int)(midr >> 4 & 0xfff);
    id->stepping = (int)(midr >> 20 & 0xf);
}

#if defined(__aarch64__)
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1UL << 11)
#endif
/* An aarch64 program whose /proc/cpuinfo has no "CPU implementer" line
 * reads the CPU's MIDR_EL1 (implementer, variant, part, revision) from
 * sysfs, or from the register itself where Linux (HWCAP_CPUID) or qemu
 * emulates the read.  Under qemu-user, /proc/cpuinfo is the build
 * machine's (x86): its identity is not this CPU's, and the note says the
 * run is emulated, so its timings mean nothing. */
static void midr_identity(kb_cpu_id *id)
{
    if (strncmp(id->vendor, "arm:", 4) == 0)
        return;
    bool foreign = strcmp(id->vendor, "unknown") != 0;
    kb_cpu_id_parse_cpuinfo(NULL, id);   /* nothing of the other CPU's */
    uint64_t midr = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
    if (f && fscanf(f, "%" SCNx64, &midr) == 1)
        kb_cpu_id_from_midr(midr, id);
    else if (getauxval(AT_HWCAP) & HWCAP_CPUID) {
        __asm__("mrs %0, MIDR_EL1" : "=r"(midr));
        kb_cpu_id_from_midr(midr, id);
    }
    if (f)
        fclose(f);
    if (foreign)
        snprintf(id->emulated, sizeof id->emulated,
                 "/proc/cpuinfo describes another architecture than this "
                 "aarch64 program's: it runs under an emulator (qemu-user), "
                 "timings mean nothing");
}
#endif

void kb_cpu_id_detect(kb_cpu_id *id)
{
    memset(id, 0, sizeof *id);
    FILE *f = fopen("/proc/cpuinfo", "r");
    kb_cpu_id_parse_cpuinfo(f, id);
    if (f)
        fclose(f);
#if defined(__aarch64__)
    midr_identity(id);
#endif
    kernel_version(id->kernel, sizeof id->kernel);
    governor(id->governor, sizeof id->governor);
    kb_topology t;
    char err[256];
    if (kb_topology_detect(&t, err, sizeof err) == 0) {
        snprintf(id->cache_source, sizeof id->cache_source, "%s", t.source);
        for (int l = 0; l < 3; l++) {
            id->cache_bytes[l] = t.cache_bytes[l];
            id->cache_count[l] = t.cache_count[l];
        }
    }
    microarch(id);
    if (id->emulated[0]) {   /* no theoretical figure for an emulated CPU */
        id->have_microarch = false;
        snprintf(id->microarch_note, sizeof id->microarch_note, "emulated: %s", id->emulated);
    }
}
