/* test_plateaus.c - plateau detection on synthetic bandwidth sweeps. */
#include "machine/machine.h"
#include "tests/check.h"

/* A sweep from 4 KiB to 512 MiB, 4 points an octave, with plateaus at
 * bw[0..3] below caps[0..2] and above caps[2], a 2-octave smooth drop
 * after each capacity, and +-noise alternating. */
static int synth(kb_sweep_point *p, const double caps[3], const double bw[4], double noise)
{
    int n = 0;
    for (double b = 4096; b <= 512.0 * (1 << 20) && n < KB_MAX_SWEEP; b *= 1.189207115) {
        int l = 0;
        while (l < 3 && b > caps[l])
            l++;
        double v = bw[l];
        if (l > 0 && b < 4 * caps[l - 1]) {   /* transition from level l-1 */
            double t = log2(b / caps[l - 1]) / 2;
            v = bw[l - 1] * pow(bw[l] / bw[l - 1], t);
        }
        p[n] = (kb_sweep_point){b, v * (1 + (n % 2 ? noise : -noise))};
        n++;
    }
    return n;
}

static const double caps[3] = {96 * 1024.0, 2.0 * (1 << 20), 32.0 * (1 << 20)};
static const double bw[4] = {1000, 400, 150, 40};
static const double none[3] = {0, 0, 0};
static kb_sweep_point p[KB_MAX_SWEEP];
static kb_plateau out[KB_MEM_LEVELS];

/* with cache sizes: every level found, at its bandwidth */
static void test_with_cache_sizes(void)
{
    int n = synth(p, caps, bw, 0.02);
    kb_detect_plateaus(p, n, caps, 0.10, out);
    for (int l = 0; l < KB_MEM_LEVELS; l++) {
        CHECK(out[l].found);
        CHECK_NEAR(out[l].gbps, bw[l], 0.03);
        CHECK(out[l].npoints >= 3);
    }
    CHECK(out[0].to_bytes <= caps[0]);
    CHECK(out[3].from_bytes > caps[2]);
    CHECK_STR(kb_mem_level_name(3), "DRAM");
}

/* without cache sizes: four runs in size order */
static void test_without_cache_sizes(void)
{
    int n = synth(p, caps, bw, 0.02);
    kb_detect_plateaus(p, n, none, 0.10, out);
    for (int l = 0; l < KB_MEM_LEVELS; l++) {
        CHECK(out[l].found);
        CHECK_NEAR(out[l].gbps, bw[l], 0.03);
    }
}

/* a sweep that stops inside L3 has no DRAM plateau, and unknown caps
 * never call the last run DRAM unless four showed */
static void test_stops_inside_l3(void)
{
    int n = synth(p, caps, bw, 0.02);
    int m = 0;
    while (m < n && p[m].bytes < 16.0 * (1 << 20))
        m++;
    kb_detect_plateaus(p, m, caps, 0.10, out);
    CHECK(out[2].found);
    CHECK(!out[3].found);
    kb_detect_plateaus(p, m, none, 0.10, out);
    CHECK(out[2].found);
    CHECK(!out[3].found);
}

/* flat data: one run, assigned to every level its range covers */
static void test_flat(void)
{
    int n = synth(p, caps, bw, 0.02);
    for (int i = 0; i < n; i++)
        p[i].gbps = 77;
    kb_detect_plateaus(p, n, caps, 0.10, out);
    CHECK(out[0].found && out[3].found);
    CHECK_NEAR(out[2].gbps, 77, 1e-12);
}

/* noise beyond the tolerance leaves no plateau; nor does no sweep */
static void test_noise_and_empty(void)
{
    int n = synth(p, caps, bw, 0.02);
    for (int i = 0; i < n; i++)
        p[i].gbps = i % 2 ? 100 : 50;
    kb_detect_plateaus(p, n, caps, 0.10, out);
    for (int l = 0; l < KB_MEM_LEVELS; l++)
        CHECK(!out[l].found);

    kb_detect_plateaus(p, 0, caps, 0.10, out);
    CHECK(!out[0].found);
}

static const check_test tests[] = {
    CHECK_TEST(with_cache_sizes), CHECK_TEST(without_cache_sizes),
    CHECK_TEST(stops_inside_l3), CHECK_TEST(flat), CHECK_TEST(noise_and_empty),
    CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
