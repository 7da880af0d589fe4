/* test_placement.c - roofline arithmetic: AI, attainable, %, bound and the
 * above-the-roof flag; a GPU case under its own GPU's ceilings (by uuid);
 * the compute roof is the higher of the FMA and vendor-GEMM ceilings;
 * missing ceilings are errors, never invented. */
#include "drivers/roofline/placement.h"
#include "tests/check.h"

#include <string.h>

static void machine(kb_ceilings *c)
{
    memset(c, 0, sizeof *c);
    kb_device *d = &c->devices[c->ndevices++];
    snprintf(d->kind, sizeof d->kind, "cpu");
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx512", "fp64", 100, 120);
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx512", "fp32", 200, 240);
    kb_device_add_ceiling(d, KB_CEIL_MEMORY, "stream-triad", "DRAM", 20, 0);
    kb_device_add_ceiling(d, KB_CEIL_MEMORY, "stream-copy", "DRAM", 25, 0);
    kb_device_add_ceiling(d, KB_CEIL_MEMORY, "sweep-update", "L2", 400, 0);
}

/* memory and compute bound; each precision and level its own roof */
static void test_bounds(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);

    /* memory bound: AI 2, DRAM best 25 GB/s -> 50 GFLOP/s attainable */
    kb_roofline_case q = {NULL, "f32", NULL, 2e9, 1e9, 40, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_NEAR(p.ai, 2.0, 1e-12);
    CHECK_NEAR(p.bw_gbps, 25, 1e-12);
    CHECK_STR(p.memory->kernel, "stream-copy");
    CHECK_NEAR(p.attainable, 50, 1e-12);
    CHECK_NEAR(p.pct, 80, 1e-12);
    CHECK(p.bound == KB_BOUND_MEMORY);
    CHECK_STR(kb_bound_name(p.bound), "memory");
    CHECK(!p.above_roof);

    /* compute bound: AI 100 -> min(200, 2500) */
    q = (kb_roofline_case){"cpu", "fp32", "DRAM", 1e11, 1e9, 150, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_NEAR(p.attainable, 200, 1e-12);
    CHECK_NEAR(p.pct, 75, 1e-12);
    CHECK(p.bound == KB_BOUND_COMPUTE);

    /* precision picks its own peak; a level its own bandwidth */
    q = (kb_roofline_case){NULL, "f64", "L2", 1e10, 1e9, 10, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_NEAR(p.attainable, 100, 1e-12);   /* min(100, 10 x 400) */
}

static void test_above_roof(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);

    /* above the roof beyond the margin is flagged; within it is not */
    kb_roofline_case q = {NULL, "f32", NULL, 2e9, 1e9,
                          50 * (1 + KB_ROOF_MARGIN) * 1.01, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK(p.above_roof);
    q.gflops = 50 * (1 + KB_ROOF_MARGIN) * 0.99;
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK(!p.above_roof);
}

/* a vendor GEMM above the FMA ceiling is the roof, and the placement
 * names it: a case between the two is not above its roof; one above the
 * GEMM is */
static void test_vendor_gemm_roof(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);
    kb_device_add_ceiling(&c.devices[0], KB_CEIL_COMPUTE, "openblas-gemm", "fp32", 230, 0)
        ->vendor_gemm = true;
    kb_device_add_ceiling(&c.devices[0], KB_CEIL_COMPUTE, "onednn-gemm", "fp64", 90, 0)
        ->vendor_gemm = true;
    /* compute bound, 220 GFLOP/s: 110 % of the FMA ceiling, 96 % of the GEMM */
    kb_roofline_case q = {NULL, "f32", NULL, 1e11, 1e9, 220, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_STR(p.compute->kernel, "openblas-gemm");
    CHECK_NEAR(p.peak_gflops, 230, 1e-12);
    CHECK(!p.above_roof);
    q.gflops = 230 * (1 + KB_ROOF_MARGIN) * 1.01;
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK(p.above_roof);
    /* a GEMM below the FMA ceiling leaves the FMA ceiling the roof */
    q = (kb_roofline_case){NULL, "f64", NULL, 1e11, 1e9, 95, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_STR(p.compute->kernel, "fma-avx512");
    CHECK_NEAR(p.peak_gflops, 100, 1e-12);
}

static void test_missing_is_an_error(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);

    /* what is missing is an error that says what: a precision without a
     * measured roof is not placed under another's */
    kb_roofline_case q = {NULL, "bf16", NULL, 1, 1, 1, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "no measured bf16 compute roof") != NULL);
    q.dtype = "bf16:bf16:f32";
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "bf16") != NULL);
    /* SRC:WEI:DST: under the source's roof */
    kb_device_add_ceiling(&c.devices[0], KB_CEIL_COMPUTE, "amx-bf16", "bf16", 800, 0);
    q = (kb_roofline_case){NULL, "bf16:bf16:f32", "DRAM", 1e12, 1e9, 10, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_NEAR(p.peak_gflops, 800, 1e-12);
    CHECK_STR(kb_roofline_precision("f16:f16:f32"), "fp16");
    CHECK(kb_roofline_precision("f3") == NULL);
    q = (kb_roofline_case){NULL, "f32", "L3", 1, 1, 1, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "L3") != NULL);
    q = (kb_roofline_case){"cuda", "f32", NULL, 1, 1, 1, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "no ceilings for a cuda device") != NULL);
    q.device_id = "GPU-0000";
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK_STR(err, "no ceilings for cuda device GPU-0000: run kbench peaks "
                   "on that machine");
    q = (kb_roofline_case){NULL, "int8", NULL, 1, 1, 1, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
    CHECK(strstr(err, "int8") != NULL);
    q = (kb_roofline_case){NULL, "f32", NULL, 1, 0, 1, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == -1);
}

static void test_auto_level(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);

    /* auto: the smallest cache holding the bytes that has a ceiling (L1
     * has none here, so 10 KB goes to L2), else DRAM */
    kb_device *d = &c.devices[0];
    d->cache_bytes[0] = 64e3, d->cache_bytes[1] = 2e6, d->cache_bytes[2] = 32e6;
    CHECK_STR(kb_roofline_level(d, 10e3), "L2");
    CHECK_STR(kb_roofline_level(d, 1.5e6), "L2");
    CHECK_STR(kb_roofline_level(d, 16e6), "DRAM");   /* no L3 ceiling */
    CHECK_STR(kb_roofline_level(d, 100e6), "DRAM");
    kb_roofline_case q = {NULL, "f32", "auto", 2e6, 1e6, 40, NULL};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_STR(p.memory->level, "L2");
    CHECK_NEAR(p.attainable, 200, 1e-12);   /* min(200, 2 x 400) */
    q.bytes = 1e9, q.flops = 2e9;
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK_STR(p.memory->level, "DRAM");
    /* unknown cache sizes: DRAM */
    d->cache_bytes[1] = 0;
    CHECK_STR(kb_roofline_level(d, 10e3), "DRAM");

    CHECK_STR(kb_roofline_level_name("L3"), "L3");
    CHECK(kb_roofline_level_name("L4") == NULL);
    CHECK(kb_roofline_level_name("dram") == NULL);
}

static void test_gpus(void)
{
    kb_ceilings c;
    kb_placement p;
    char err[256];
    machine(&c);

    /* GPUs (made-up figures): a case goes under the GPU of its uuid,
     * else the first of its kind; the CPU's ceilings never serve it */
    const char *uuids[] = {"GPU-aaaa", "GPU-bbbb"};
    for (int i = 0; i < 2; i++) {
        kb_device *g = &c.devices[c.ndevices++];
        memset(g, 0, sizeof *g);
        snprintf(g->kind, sizeof g->kind, "cuda");
        snprintf(g->uuid, sizeof g->uuid, "%s", uuids[i]);
        kb_device_add_ceiling(g, KB_CEIL_COMPUTE, "fma-fp32", "fp32", 1000 * (i + 1), 0);
        kb_device_add_ceiling(g, KB_CEIL_MEMORY, "stream-triad", "DRAM", 100, 0);
    }
    kb_roofline_case q = {"cuda", "f32", "DRAM", 1e12, 1e9, 10, "GPU-bbbb"};
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK(p.device == &c.devices[2]);
    CHECK_NEAR(p.attainable, 2000, 1e-9);
    q.device_id = "GPU-cccc";
    CHECK(kb_roofline_place(&c, &q, &p, err, sizeof err) == 0);
    CHECK(p.device == &c.devices[1]);
    CHECK(kb_roofline_device(&c, "cuda", NULL) == &c.devices[1]);
    CHECK(kb_roofline_device(&c, NULL, "GPU-bbbb") == &c.devices[0]);
    CHECK(kb_roofline_device(&c, "hip", "GPU-bbbb") == NULL);

    CHECK_STR(kb_roofline_precision("F32"), "fp32");
    CHECK(kb_roofline_precision("u8") == NULL);
}

static const check_test tests[] = {
    CHECK_TEST(bounds), CHECK_TEST(above_roof), CHECK_TEST(missing_is_an_error),
    CHECK_TEST(auto_level), CHECK_TEST(gpus), CHECK_TEST(vendor_gemm_roof), CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
