/* peaks_verb.c - the `kbench peaks` verb: measure the ceilings, print
 * them as a table and write them as a ceilings file (results/CEILINGS.md). */
#include "drivers/common/clock.h"
#include "machine/machine.h"

#include "drivers/commands.h"
#include "drivers/common/options.h"

#include "buildinfo.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long and how big: the default run takes well under a minute on a
 * small machine; --quick is for tests and smoke checks and does not follow
 * STREAM's sizing rule. */
typedef struct {
    double fma_trial_s;
    int fma_trials;
    int stream_reps;
    double sweep_trial_s;
    int steps_per_octave;
    bool quick;
} peaks_effort;

/* FMA: many short trials rather than a few long ones, so that on a shared
 * machine some trial runs without being preempted (best of 20 x 50 ms). */
static const peaks_effort effort_default = {0.05, 20, 11, 0.01, 4, false};
static const peaks_effort effort_quick = {0.01, 2, 3, 0.0005, 2, true};

typedef struct {
    const char *out;           /* --json */
    int64_t threads;           /* 0: OpenMP's */
    peaks_effort effort;
    bool quick, no_gpu, gpu_only;
    bool cpu, gpu;             /* what runs, from --gpu-only and --no-gpu */
} peaks_opts;

/* Host, date and build of the measurement. */
static void fill_header(kb_ceilings *c)
{
    kb_host_name(c->host, sizeof c->host);
    kb_utc_date(c->date, sizeof c->date);
    snprintf(c->kbench_version, sizeof c->kbench_version, "%s", KB_VERSION);
    snprintf(c->compiler, sizeof c->compiler, "%s %s", KB_COMPILER_ID, KB_COMPILER_VERSION);
    snprintf(c->build_type, sizeof c->build_type, "%s", KB_BUILD_TYPE);
    snprintf(c->build_flags, sizeof c->build_flags, "%s", KB_BUILD_FLAGS);
    snprintf(c->git_commit, sizeof c->git_commit, "%s", kb_git_commit());
}

/* The device entry's description: identity, topology, threads, affinity. */
static void fill_device(kb_device *d, const kb_topology *t, const peaks_opts *o)
{
    int cpus[1024];
    int n = kb_allowed_cpus(cpus, 1024);
    size_t pos = 0;
    snprintf(d->kind, sizeof d->kind, "cpu");
    snprintf(d->model, sizeof d->model, "%s", t->model);
    snprintf(d->topology_source, sizeof d->topology_source, "%s", t->source);
    d->cores = t->cores;
    d->threads = o->threads;
    kb_cpu_id_detect(&d->cpu_id);
    d->have_cpu_id = true;
    for (int l = 0; l < 3; l++)
        d->cache_bytes[l] = t->cache_bytes[l] * t->cache_count[l];
    /* the CPUs the threads are pinned to, in order: thread i on cpus[i % n] */
    for (int i = 0; i < n && i < o->threads && pos < sizeof d->affinity; i++)
        pos += (size_t)snprintf(d->affinity + pos, sizeof d->affinity - pos,
                                "%s%d", i ? "," : "", cpus[i]);
    if (n == 0) {
        const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
        snprintf(d->affinity, sizeof d->affinity, "by OpenMP: OMP_PROC_BIND=%s OMP_PLACES=%s",
                 bind ? bind : "unset", places ? places : "unset");
    }
}

/* Every FMA variant into d's fma_variants, and each precision's winner
 * as its compute ceiling, with theoretical = cores x (FLOP per cycle per
 * core of microarch.conf) x the clock measured during the winner's run
 * (SMT threads share a core's FMA units, so cores, not threads). */
static int add_compute(kb_device *d, const peaks_opts *o)
{
    kb_fma_result r[KB_FMA_MAX_VARIANTS];
    int n = kb_fma_peaks(o->threads, o->effort.fma_trial_s, o->effort.fma_trials, r,
                         KB_FMA_MAX_VARIANTS);
    int cores = o->threads < d->cores ? o->threads : d->cores;
    snprintf(d->clock_source, sizeof d->clock_source, "%s", n ? r[0].clock_source : "none");
    for (int i = 0; i < n && d->nvariants < KB_MAX_VARIANTS; i++) {
        kb_fma_variant *v = &d->variants[d->nvariants++];
        snprintf(v->precision, sizeof v->precision, "%s", r[i].precision);
        snprintf(v->kernel, sizeof v->kernel, "%s", r[i].kernel);
        v->chains = r[i].chains;
        v->lanes = r[i].lanes;
        v->gflops = r[i].gflops;
        v->clock_ghz = r[i].clock_ghz;
        v->trials = r[i].trials;
        v->won = r[i].won;
    }
    for (int i = 0; i < n; i++) {
        if (!r[i].won)
            continue;
        kb_ceiling *c = kb_device_add_ceiling(d, KB_CEIL_COMPUTE, r[i].kernel,
                                              r[i].precision, r[i].gflops, 0);
        if (!c)
            return -1;
        c->cores_used = cores;
        c->clock_ghz = r[i].clock_ghz;
        c->peak_flop_per_cycle_core =
            kb_cpu_peak_flop_per_cycle(&d->cpu_id, r[i].precision, c->note, sizeof c->note);
        if (c->clock_ghz > 0)
            c->flop_per_cycle_core = c->value / (c->clock_ghz * cores);
        else
            snprintf(c->note, sizeof c->note, "no clock measured during the run "
                     "(no perf_event counter, no dependent-add chain on this CPU)");
        if (c->clock_ghz > 0 && c->peak_flop_per_cycle_core > 0) {
            c->theoretical = cores * c->peak_flop_per_cycle_core * c->clock_ghz;
            c->note[0] = '\0';
        }
    }
    return 0;
}

/* The vendor GEMMs' ceilings, then the invariant that none beats the FMA
 * ceiling of its precision: where one does, the FMA ceiling is wrong, and
 * peaks says so and by how much (the roof is then the GEMM's, so that
 * later cases are judged against a figure something reached).  Returns 0,
 * or -1 when a library failed. */
static int add_vendor_gemm(kb_device *d, const peaks_opts *o)
{
    int rc = kb_cpu_vendor_gemm(d, o->effort.quick, stdout);
    char msg[1024];
    if (kb_device_check_fma(d, msg, sizeof msg))
        fprintf(stderr, "kbench peaks: a vendor GEMM beat the FMA ceiling:\n%s", msg);
    return rc;
}

/* STREAM-rule DRAM ceilings.  Returns 0, or -1 after a message. */
static int add_stream(kb_device *d, const peaks_opts *o)
{
    /* STREAM's rule: each array >= 4 x the last-level cache; unknown LLC
     * is taken as 64 MiB, which is larger than most */
    double llc = d->cache_bytes[2] > 0 ? d->cache_bytes[2]
               : d->cache_bytes[1] > 0 ? d->cache_bytes[1] : 64.0 * (1 << 20);
    double bytes = o->effort.quick ? 4.0 * (1 << 20) : 4.0 * llc;
    if (bytes * 3 > (double)SIZE_MAX / 2) {
        fprintf(stderr, "kbench peaks: STREAM arrays of %g bytes do not fit in memory\n", bytes);
        return -1;
    }
    kb_stream_result r[KB_STREAM_KERNELS];
    char err[256];
    if (kb_stream(o->threads, (size_t)(bytes / sizeof(double)), o->effort.stream_reps, r,
                  err, sizeof err)) {
        fprintf(stderr, "kbench peaks: %s\n", err);
        return -1;
    }
    for (int k = 0; k < KB_STREAM_KERNELS; k++) {
        char kernel[32];
        snprintf(kernel, sizeof kernel, "stream-%s", r[k].name);
        kb_ceiling *c = kb_device_add_ceiling(d, KB_CEIL_MEMORY, kernel, "DRAM", r[k].gbps, 0);
        if (!c)
            return -1;
        c->stream_rule = !o->effort.quick;
    }
    return 0;
}

/* The sweep and its plateaus, one ceiling per level found.  Returns 0,
 * or -1 after a message. */
static int add_sweep(kb_device *d, const peaks_opts *o)
{
    double top = d->cache_bytes[2] > 0 ? d->cache_bytes[2] : 64.0 * (1 << 20);
    double max_bytes = o->effort.quick ? fmin(16.0 * (1 << 20), 2 * top) : 4 * top;
    char err[256];
    d->nsweep = kb_bandwidth_sweep(o->threads, 4096.0, max_bytes, o->effort.steps_per_octave,
                                   o->effort.sweep_trial_s, d->sweep, KB_MAX_SWEEP,
                                   err, sizeof err);
    if (d->nsweep < 0) {
        d->nsweep = 0;
        fprintf(stderr, "kbench peaks: %s\n", err);
        return -1;
    }
    kb_plateau p[KB_MEM_LEVELS];
    kb_detect_plateaus(d->sweep, d->nsweep, d->cache_bytes, 0.10, p);
    for (int l = 0; l < KB_MEM_LEVELS; l++) {
        if (!p[l].found) {
            fprintf(stderr, "kbench peaks: no %s plateau found in the sweep%s\n",
                    kb_mem_level_name(l), o->effort.quick ? " (--quick)" : "");
            continue;
        }
        if (!kb_device_add_ceiling(d, KB_CEIL_MEMORY, "sweep-update",
                                   kb_mem_level_name(l), p[l].gbps, 0))
            return -1;
    }
    return 0;
}

static void print_bytes(FILE *f, double b)
{
    if (b >= 1 << 20)
        fprintf(f, "%.0f MiB", b / (1 << 20));
    else
        fprintf(f, "%.0f KiB", b / 1024);
}

/* "GenuineIntel family 0x6 model 0xcf stepping 2, microcode 0x1" and
 * the microarchitecture, or why it is unknown. */
static void print_identity(FILE *f, const kb_cpu_id *id)
{
    fprintf(f, "cpu: %s family 0x%x model 0x%x stepping %d, microcode %s, ", id->vendor,
            (unsigned)id->family, (unsigned)id->model, id->stepping, id->microcode);
    if (id->have_microarch)
        fprintf(f, "microarchitecture %s\n", id->arch.name);
    else
        fprintf(f, "microarchitecture unknown: %s\n", id->microarch_note);
    fprintf(f, "kernel %s, governor %s\n", id->kernel, id->governor);
}

/* One row per ceiling, then the notes (why a theoretical figure is
 * missing; for a GPU's DRAM, both theoretical figures). */
static void print_ceilings(FILE *f, const kb_device *d)
{
    fprintf(f, "%-8s %-6s %-16s %14s %14s %7s %6s %15s\n", "kind", "level", "kernel",
            "measured", "theoretical", "% theo", "GHz", d->have_gpu ? "FLOP/cycle/SM"
                                                                   : "FLOP/cycle/core");
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *e = &d->ceilings[i];
        bool compute = e->kind == KB_CEIL_COMPUTE;
        fprintf(f, "%-8s %-6s %-16s %9.1f %-4s", compute ? "compute" : "memory",
                e->level, e->kernel, e->value, compute ? "GF/s" : "GB/s");
        if (e->theoretical > 0)
            fprintf(f, " %9.1f %-4s %7.1f", e->theoretical, compute ? "GF/s" : "GB/s",
                    100 * e->value / e->theoretical);
        else
            fprintf(f, " %14s %7s", "-", "-");
        if (compute && e->clock_ghz > 0)
            fprintf(f, " %6.2f %6.1f of ", e->clock_ghz, e->flop_per_cycle_core);
        if (compute && e->clock_ghz > 0 && e->peak_flop_per_cycle_core > 0)
            fprintf(f, "%-5.0f", e->peak_flop_per_cycle_core);
        else if (compute && e->clock_ghz > 0)
            fprintf(f, "%-5s", "-");
        fprintf(f, "\n");
    }
    bool said_dram = false;   /* a GPU's DRAM rows share one note */
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *e = &d->ceilings[i];
        if (!e->note[0] || (e->kind == KB_CEIL_MEMORY && said_dram))
            continue;
        if (e->kind == KB_CEIL_MEMORY) {
            said_dram = true;
            fprintf(f, "theoretical %s: %s\n", e->level, e->note);
        } else {
            fprintf(f, "no theoretical %s (%s): %s\n", e->level, e->kernel, e->note);
        }
    }
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *e = &d->ceilings[i];
        if (e->exceeded_by[0])
            fprintf(f, "%s roof: %s %.1f GFLOP/s, %.1f %% above the FMA ceiling %s: that "
                    "ceiling is too low, or the library uses a unit it does not\n", e->level,
                    e->exceeded_by, e->exceeded_value, 100 * (e->exceeded_value / e->value - 1),
                    e->kernel);
    }
}

/* Each precision's FMA variants, the winner (the ceiling) marked. */
static void print_variants(FILE *f, const kb_device *d)
{
    for (int i = 0; i < d->nvariants; i++) {
        const kb_fma_variant *v = &d->variants[i];
        bool first = i == 0 || strcmp(v->precision, d->variants[i - 1].precision) != 0;
        bool last = i + 1 == d->nvariants || strcmp(v->precision, d->variants[i + 1].precision) != 0;
        if (first)
            fprintf(f, "%s FMA variants, GFLOP/s (* the ceiling):", v->precision);
        fprintf(f, " %s %.1f%s%s", v->kernel, v->gflops, v->won ? "*" : "", last ? "\n" : ",");
    }
}

/* A GPU's identity, its ceilings, how they were counted. */
static void print_gpu(FILE *f, const kb_device *d)
{
    fprintf(f, "\n%s device %d: %s, %s, %d SMs at %.3f GHz (peak, device attribute), "
            "%.1f GiB, L2 %.0f MiB, ECC %s, driver %s\nuuid %s, PCI %s\n\n", d->kind,
            d->index, d->model, d->arch, d->sm_count, d->clock_ghz,
            d->memory_bytes / 1073741824.0, d->cache_bytes[1] / 1048576.0,
            d->ecc < 0 ? "unknown" : d->ecc ? "on" : "off", d->driver[0] ? d->driver : "?",
            d->uuid, d->pci_bus_id);
    print_ceilings(f, d);
    fprintf(f, "\nBytes counted as BabelStream does (copy/mul 2, add/triad 3, dot 2 arrays); "
            "theoretical compute = SMs x lanes per SM per clock (gpu_arch.conf) x 2 x the "
            "peak clock.\n");
}

static void print_table(FILE *f, const kb_ceilings *c, const kb_device *d)
{
    fprintf(f, "kbench peaks on %s (%s), %s\n", c->host, d->model, c->date);
    print_identity(f, &d->cpu_id);
    fprintf(f, "%d cores, %d threads pinned to %s, clock measured during each FMA run "
            "(%s)\ncaches (%s, totals): L1d ", d->cores, d->threads, d->affinity,
            d->clock_source, d->topology_source);
    for (int l = 0; l < 3; l++) {
        print_bytes(f, d->cache_bytes[l]);
        fprintf(f, "%s", l < 2 ? (l ? ", L3 " : ", L2 ") : "\n\n");
    }
    print_ceilings(f, d);
    print_variants(f, d);
    fprintf(f, "\nBytes counted as STREAM does (copy/scale 2, add/triad 3, read 1 word; "
            "write-allocate traffic not counted); sweep-update 2 words.\n");
}

/* --no-gpu and --gpu-only into what runs, the effort, the threads.
 * Returns 0, or -1 after a message. */
static int settle(peaks_opts *o)
{
    if (o->no_gpu && o->gpu_only) {
        fprintf(stderr, "kbench peaks: --no-gpu and --gpu-only exclude each other\n");
        return -1;
    }
    o->cpu = !o->gpu_only;
    o->gpu = !o->no_gpu;
    o->effort = o->quick ? effort_quick : effort_default;
    if (o->threads == 0)
        o->threads = omp_get_max_threads();
    return 0;
}

static int peaks_main(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    peaks_opts o = *(peaks_opts *)opts;
    int rc;
    if (settle(&o))
        return KB_EXIT_USAGE;
    kb_ceilings *c = calloc(1, sizeof *c);
    kb_topology topo;
    char err[512];
    if (!c) {
        fprintf(stderr, "kbench peaks: out of memory\n");
        return KB_EXIT_RUNTIME;
    }
    if (o.cpu && kb_topology_detect(&topo, err, sizeof err)) {
        fprintf(stderr, "kbench peaks: %s\n", err);
        free(c);
        return KB_EXIT_RUNTIME;
    }
    fill_header(c);
    rc = KB_EXIT_OK;
    if (o.cpu) {
        kb_device *d = &c->devices[c->ndevices++];
        fill_device(d, &topo, &o);
        if (add_compute(d, &o) || add_vendor_gemm(d, &o) || add_stream(d, &o) ||
            add_sweep(d, &o))
            rc = KB_EXIT_RUNTIME;
        print_table(stdout, c, d);
    } else {
        printf("kbench peaks on %s, %s: GPUs only (--gpu-only)\n", c->host, c->date);
    }
    /* A failed GPU measurement keeps the file: the GPUs' other ceilings
     * and the CPU's are still good (the exit code says it failed). */
    bool gpu_failed = false;
    int first_gpu = c->ndevices;
    if (o.gpu) {
        printf("\n");
        gpu_failed = kb_gpu_peaks(c, o.effort.quick, stdout) != 0;
        for (int i = first_gpu; i < c->ndevices; i++)
            print_gpu(stdout, &c->devices[i]);
    }
    if (c->ndevices == 0) {
        /* --gpu-only without a GPU: nothing measured is not a failure,
         * but there is no ceilings file to write */
        if (o.out)
            fprintf(stderr, "kbench peaks: no device measured: %s not written\n", o.out);
    } else if (rc == KB_EXIT_OK && o.out && kb_ceilings_save(c, o.out, err, sizeof err)) {
        fprintf(stderr, "kbench peaks: %s\n", err);
        rc = KB_EXIT_RUNTIME;
    }
    free(c);
    return gpu_failed ? KB_EXIT_RUNTIME : rc;
}

static const kb_option peaks_options[] = {
    {KB_OPTION_OUTPUT(json, peaks_opts, out, "write the ceilings as JSON to FILE")},
    {KB_OPTION_RENAMED("out", "json")},
    {KB_OPTION_THREADS(peaks_opts, threads)},
    {.name = "quick", .type = KB_OPT_FLAG, .offset = offsetof(peaks_opts, quick),
     .help = "small sizes and short timings (seconds; tests), not\n"
             "STREAM-rule sized (GPU: 2^20 elements, GEMM 1024^3)"},
    {.name = "no-gpu", .type = KB_OPT_FLAG, .offset = offsetof(peaks_opts, no_gpu),
     .help = "the CPU only"},
    {.name = "gpu-only", .type = KB_OPT_FLAG, .offset = offsetof(peaks_opts, gpu_only),
     .help = "the GPUs only"},
    {0},
};

const kb_verb kb_verb_peaks = {
    .name = "peaks",
    .summary = "measure the machine's compute and memory ceilings",
    .synopsis = "[--json FILE] [--threads N] [--quick] [--no-gpu | --gpu-only]",
    .description =
        "Measure this machine's ceilings: FMA peak per precision (fp64, fp32,\n"
        "bf16/fp16 where the ISA has them), the best of several kernel variants\n"
        "(vector width, accumulator chains, assembly or compiled; each one's\n"
        "figure kept), each CPU vendor library's best large GEMM per precision\n"
        "(it must not beat the FMA peak: where it does, peaks says by how much,\n"
        "and the roof is the GEMM's), the L1/L2/L3/DRAM bandwidth plateaus\n"
        "of a working-set sweep and STREAM-rule DRAM bandwidth (copy, scale, add,\n"
        "triad, read).  The theoretical FMA peak is cores x FMA pipes x lanes x 2\n"
        "x the clock measured during the FMA run, with pipes and datapath width\n"
        "from share/kbench/peaks/microarch.conf; a CPU it does not list gets no\n"
        "theoretical figure.  Then each visible GPU of each runtime built in:\n"
        "device-memory bandwidth (BabelStream's copy, mul, add, triad, dot over\n"
        "fp64 arrays of 2^28 elements), the FMA peak per precision, the vendor\n"
        "GEMM's best large shape per precision, theoretical figures from the\n"
        "device and share/kbench/peaks/gpu_arch.conf.  No GPU is not an error:\n"
        "it says so and skips them.  Prints a table; --json writes the ceilings\n"
        "file (schema " KB_CEILINGS_SCHEMA ", see results/CEILINGS.md).",
    .opts_size = sizeof(peaks_opts),
    .tables = (const kb_option *const[]){peaks_options, NULL},
    .run = peaks_main,
    .exit_codes = "  0    measured\n  2    usage error\n"
                  "  3    measurement or write failed\n",
};
