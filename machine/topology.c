/* topology.c - core counts and cache sizes from hwloc (when built with it)
 * or from sysfs and /proc/cpuinfo, and thread pinning helpers. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_SET */
#include "machine/machine.h"
#include "machine/cpu_id.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef KB_HAVE_HWLOC
#include <hwloc.h>
#endif

int kb_allowed_cpus(int *cpus, int max)
{
    /* The mask is read once, before any thread is pinned: afterwards the
     * calling (pinned) thread's own mask would name a single CPU and every
     * later team would pile onto it. */
    static int first[CPU_SETSIZE], nfirst = -1;
    cpu_set_t set;

    if (nfirst < 0) {
        nfirst = 0;
        /* With OMP_PROC_BIND set, OpenMP has bound the initial thread to
         * its first place already, so its mask is not the process's:
         * OpenMP's placement is the one to keep. */
        if (omp_get_proc_bind() == omp_proc_bind_false &&
            sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &set))
                    first[nfirst++] = c;
    }
    int n = nfirst < max ? nfirst : max;
    memcpy(cpus, first, (size_t)n * sizeof *cpus);
    return n;
}

int kb_pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

void kb_host_name(char *dst, size_t len)
{
    /* gethostname may leave a truncated name unterminated */
    if (gethostname(dst, len - 1) != 0)
        snprintf(dst, len, "unknown");
    dst[len - 1] = '\0';
}

void kb_cpu_model(char *dst, size_t len)
{
    kb_cpu_id id;
    FILE *f = fopen("/proc/cpuinfo", "r");
    kb_cpu_id_parse_cpuinfo(f, &id);   /* "unknown" without the file */
    if (f)
        fclose(f);
    snprintf(dst, len, "%s", id.model_name);
}

#ifdef KB_HAVE_HWLOC
/* Returns 0, or -1 with err set when hwloc cannot load the topology. */
static int detect_hwloc(kb_topology *t, char *err, size_t errlen)
{
    static const hwloc_obj_type_t caches[3] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE};
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(err, errlen, "hwloc_topology_init failed");
        return -1;
    }
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        snprintf(err, errlen, "hwloc_topology_load failed");
        return -1;
    }
    snprintf(t->source, sizeof t->source, "hwloc");
    t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int l = 0; l < 3; l++) {
        int n = hwloc_get_nbobjs_by_type(topo, caches[l]);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, caches[l], i);
            /* L1 instruction caches are separate objects: skip them. */
            if (o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
                continue;
            t->cache_bytes[l] = (double)o->attr->cache.size;
            t->cache_count[l]++;
        }
    }
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    if (model)
        snprintf(t->model, sizeof t->model, "%s", model);
    hwloc_topology_destroy(topo);
    return t->cores > 0 ? 0 : -1;
}
#endif

/* The first line of a small sysfs file into buf[len]; 0, or -1 when it
 * cannot be read. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int rc = fgets(buf, (int)len, f) ? 0 : -1;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return rc;
}

/* sysfs: one entry per cache per CPU; instances are counted by their
 * distinct shared_cpu_list, cores by distinct (package, core id). */
static void detect_sysfs(kb_topology *t)
{
    enum { MAXCPU = 1024, MAXSEEN = 256 };
    static char seen[3][MAXSEEN][64];
    static long core_key[MAXCPU];
    char path[160], buf[128];
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    memset(seen, 0, sizeof seen);
    snprintf(t->source, sizeof t->source, "sysfs");
    for (int cpu = 0; cpu < ncpu && cpu < MAXCPU; cpu++) {
        long pkg = 0, core = cpu;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
        if (read_line(path, buf, sizeof buf) == 0)
            core = atol(buf);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
        if (read_line(path, buf, sizeof buf) == 0)
            pkg = atol(buf);
        core_key[cpu] = pkg * 65536 + core;
        int fresh = 1;
        for (int k = 0; k < cpu; k++)
            fresh &= core_key[k] != core_key[cpu];
        t->cores += fresh;
        t->pus++;
        for (int idx = 0; idx < 8; idx++) {
            char base[128], type[32], list[64];
            snprintf(base, sizeof base, "/sys/devices/system/cpu/cpu%d/cache/index%d", cpu, idx);
            snprintf(path, sizeof path, "%s/level", base);
            if (read_line(path, buf, sizeof buf) != 0)
                break;
            int level = atoi(buf);
            snprintf(path, sizeof path, "%s/type", base);
            if (level < 1 || level > 3 || read_line(path, type, sizeof type) != 0 ||
                strcmp(type, "Instruction") == 0)
                continue;
            snprintf(path, sizeof path, "%s/size", base);
            if (read_line(path, buf, sizeof buf) != 0)
                continue;
            /* sizes read "48K" or "32768K" */
            double size = atof(buf) * (strchr(buf, 'M') ? 1048576.0 : strchr(buf, 'K') ? 1024.0 : 1.0);
            snprintf(path, sizeof path, "%s/shared_cpu_list", base);
            if (read_line(path, list, sizeof list) != 0)
                snprintf(list, sizeof list, "cpu%d", cpu);
            int l = level - 1, known = 0;
            for (int k = 0; k < t->cache_count[l] && k < MAXSEEN; k++)
                known |= strcmp(seen[l][k], list) == 0;
            if (!known && t->cache_count[l] < MAXSEEN) {
                snprintf(seen[l][t->cache_count[l]++], sizeof seen[l][0], "%s", list);
                t->cache_bytes[l] = size;
            }
        }
    }
}

int kb_topology_detect(kb_topology *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    kb_cpu_model(t->model, sizeof t->model);
#ifdef KB_HAVE_HWLOC
    char why[128];
    if (detect_hwloc(t, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "kbench peaks: %s; falling back to sysfs\n", why);
    char model[sizeof t->model];
    memcpy(model, t->model, sizeof model);
    memset(t, 0, sizeof *t);
    memcpy(t->model, model, sizeof model);
#endif
    detect_sysfs(t);
    if (t->cores <= 0) {
        snprintf(err, errlen, "cannot find the core count in hwloc or "
                 "/sys/devices/system/cpu");
        return -1;
    }
    return 0;
}
