/* test_fma_ceiling.c - no FMA peak measured on this machine may exceed
 * 1.05 x its theoretical value (cores x microarch.conf's FLOP/cycle/core x
 * the clock measured during the run): above it, the table, the clock or
 * the flop count is wrong.  Exits 77 (ctest SKIPPED) when no precision
 * has a theoretical figure: an unknown CPU, or no clock. */
#include "machine/cpu_id.h"
#include "machine/machine.h"
#include "tests/check.h"

#include <omp.h>

/* every variant of a precision with a theoretical figure: measured
 * <= 1.05 x it (a variant that drops chains, or counts wrong, fails) */
static void test_fma_below_theoretical(void)
{
    kb_cpu_id id;
    kb_topology t;
    char err[512];
    kb_cpu_id_detect(&id);
    if (kb_topology_detect(&t, err, sizeof err) != 0) {
        CHECK_SKIP("%s", err);
    }
    int threads = omp_get_max_threads();
    int cores = threads < t.cores ? threads : t.cores;
    kb_fma_result r[KB_FMA_MAX_VARIANTS];
    int n = kb_fma_peaks(threads, 0.05, 3, r, KB_FMA_MAX_VARIANTS), checked = 0;
    for (int i = 0; i < n; i++) {
        char why[512];
        double fpc = kb_cpu_peak_flop_per_cycle(&id, r[i].precision, why, sizeof why);
        if (!(r[i].clock_ghz > 0)) {
            printf("%s: no clock measured (%s), not checked\n", r[i].precision,
                   r[i].clock_source);
            continue;
        }
        if (fpc <= 0) {
            printf("%s: %.1f GFLOP/s at %.2f GHz, no theoretical: %s\n", r[i].precision,
                   r[i].gflops, r[i].clock_ghz, why);
            continue;
        }
        double theo = cores * fpc * r[i].clock_ghz;
        printf("%s %s%s: %.1f GFLOP/s, theoretical %.1f (%d cores x %.0f FLOP/cycle x %.2f "
               "GHz, %s), ratio %.3f\n", r[i].precision, r[i].kernel, r[i].won ? " (won)" : "",
               r[i].gflops, theo,
               cores, fpc, r[i].clock_ghz, r[i].clock_source, r[i].gflops / theo);
        CHECK(r[i].gflops <= 1.05 * theo);
        checked++;
    }
    if (checked == 0) {
        CHECK_SKIP("no precision has a theoretical peak on %s (%s)", id.model_name,
                   id.have_microarch ? id.arch.name : id.microarch_note);
    }
}

static const check_test tests[] = {CHECK_TEST(fma_below_theoretical), CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
