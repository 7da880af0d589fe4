/* test_peaks_cmd.c - `kbench peaks --quick` measures positive ceilings,
 * records the clock of each FMA run and the CPU's identity, writes a
 * ceilings file that loads back, and rejects bad options; the STREAM
 * kernels validate their results on a tiny array. */
#include "drivers/commands.h"
#include "machine/machine.h"
#include "drivers/common/options.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/kb_peaks_XXXXXX", path[64];

/* d's FMA ceiling of a precision: the highest compute ceiling may be a
 * vendor GEMM's (one beat the FMA kernels on a loaded machine in CI),
 * which has no clock or FLOP/cycle of its own. */
static const kb_ceiling *fma_ceiling(const kb_device *d, const char *precision)
{
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *c = &d->ceilings[i];
        if (c->kind == KB_CEIL_COMPUTE && !c->vendor_gemm && strcmp(c->level, precision) == 0)
            return c;
    }
    return NULL;
}

/* peaks --quick: a ceilings file that loads back, with clocks and the CPU */
static void test_quick(void)
{
    char err[512];
    char *argv[] = {"peaks", "--quick", "--threads", "1", "--json", path};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 6, argv) == KB_EXIT_OK);
    kb_ceilings *c = calloc(1, sizeof *c);
    if (!c)
        exit(1);
    CHECK(kb_ceilings_load(path, c, err, sizeof err) == 0);
    const kb_device *d = kb_ceilings_device(c, "cpu");
    CHECK(d != NULL);
    if (d) {
        CHECK(d->threads == 1 && d->cores >= 1);
        const kb_ceiling *f64 = fma_ceiling(d, "fp64");
        const kb_ceiling *f32 = fma_ceiling(d, "fp32");
        CHECK(f64 && f64->value > 0);
        CHECK(f32 && f32->value > 0 && f32->cores_used == 1);
        /* a clock during the run and FLOP/cycle beside it, or no clock and
         * no theoretical; a theoretical figure, or the reason for none */
        bool clocked = strcmp(d->clock_source, "none") != 0;
        CHECK(!clocked || (f32 && f32->clock_ghz > 0.1 && f32->clock_ghz < 10 &&
                           f32->flop_per_cycle_core > 0));
        CHECK(f32 && (f32->theoretical > 0) == (f32->note[0] == '\0'));
        CHECK(f32 && (f32->theoretical > 0) == (clocked && f32->peak_flop_per_cycle_core > 0));
        CHECK(d->have_cpu_id && d->cpu_id.vendor[0] && d->cpu_id.kernel[0]);
        CHECK(d->cpu_id.have_microarch || d->cpu_id.microarch_note[0]);
        const kb_ceiling *triad = kb_device_best(d, KB_CEIL_MEMORY, "DRAM");
        CHECK(triad && triad->value > 0 && !triad->stream_rule);   /* --quick */
        CHECK(d->nsweep > 5);
        for (int i = 1; i < d->nsweep; i++)
            CHECK(d->sweep[i].bytes > d->sweep[i - 1].bytes && d->sweep[i].gbps > 0);
    }
    unlink(path);
    free(c);
}

/* the STREAM check passes on a small array */
static void test_stream(void)
{
    char err[512];
    kb_stream_result r[KB_STREAM_KERNELS];
    CHECK(kb_stream(2, 1000, 3, r, err, sizeof err) == 0);
    CHECK_STR(r[3].name, "triad");
    CHECK(r[3].gbps > 0 && r[3].min_s <= r[3].avg_s && r[3].avg_s <= r[3].max_s);
    CHECK(kb_stream(1, 1000, 1, r, err, sizeof err) == -1);
}

static void test_topology(void)
{
    char err[512];
    kb_topology t;
    CHECK(kb_topology_detect(&t, err, sizeof err) == 0);
    CHECK(t.cores >= 1 && t.pus >= t.cores);
}

static void test_bad_options(void)
{
    char *bad1[] = {"peaks", "--threads", "0"};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 3, bad1) == KB_EXIT_USAGE);
    char *bad2[] = {"peaks", "--fma-ports", "2"};   /* the table replaced it */
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 2, bad2) == KB_EXIT_USAGE);
    /* the old spelling --out still writes the ceilings file (with a notice) */
    char *bad3[] = {"peaks", "--quick", "--threads", "1", "--out", "/nonexistent/dir/p.json"};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 6, bad3) == KB_EXIT_RUNTIME);
    char *bad4[] = {"peaks", "--threads=65537"};   /* one range for --threads */
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 2, bad4) == KB_EXIT_USAGE);
}

static const check_test tests[] = {
    CHECK_TEST(quick), CHECK_TEST(stream), CHECK_TEST(topology),
    CHECK_TEST(bad_options), CHECK_END};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/peaks.json", dir);
    int status = check_main(argc, argv, tests);
    rmdir(dir);
    return status;
}
