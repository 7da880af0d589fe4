/* test_ceilings_io.c - the ceilings file round-trips (with the clock and
 * FLOP/cycle of each compute ceiling, the CPU identity, a GPU entry's
 * identity, the FMA variants and the vendor-GEMM ceilings), schema 1
 * files and files without variants still load, bad or missing files give
 * an error naming the file and the problem, and the invariant check says
 * when a vendor GEMM beats the FMA ceiling and by how much. */
#include "machine/ceilings/ceilings.h"
#include "tests/check.h"

#include <stdlib.h>
#include <unistd.h>

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Load text as a ceilings file; returns the rc, err holds the message. */
static int load_text(const char *path, const char *text, kb_ceilings *c, char *err)
{
    write_text(path, text);
    return kb_ceilings_load(path, c, err, 512);
}

static char dir[] = "/tmp/kb_ceil_XXXXXX", path[64];
/* a: a CPU and a GPU entry, made once in main; b: what loads back */
static kb_ceilings *a, *b;
static kb_device *g;     /* a's GPU */
static kb_ceiling *gm;   /* its DRAM ceiling */

static void fixture(void)
{
    snprintf(a->host, sizeof a->host, "node1");
    snprintf(a->date, sizeof a->date, "2025-01-02T03:04:05Z");
    snprintf(a->git_commit, sizeof a->git_commit, "abc");
    a->ndevices = 2;
    kb_device *d = &a->devices[0];
    snprintf(d->kind, sizeof d->kind, "cpu");
    snprintf(d->model, sizeof d->model, "Test \"CPU\"");
    d->cores = 4, d->threads = 8;
    snprintf(d->clock_source, sizeof d->clock_source, "dependent-add chain");
    d->cache_bytes[2] = 32.0 * (1 << 20);
    d->have_cpu_id = true;
    kb_cpu_id *id = &d->cpu_id;
    snprintf(id->vendor, sizeof id->vendor, "AuthenticAMD");
    snprintf(id->model_name, sizeof id->model_name, "AMD EPYC 9654");
    id->family = 0x19, id->model = 0x11, id->stepping = -1;   /* unknown */
    snprintf(id->microcode, sizeof id->microcode, "0xa101148");
    snprintf(id->kernel, sizeof id->kernel, "Linux 6.1.0-18-amd64");
    snprintf(id->governor, sizeof id->governor, "unavailable");
    id->cache_bytes[2] = 32.0 * (1 << 20), id->cache_count[2] = 12;
    id->have_microarch = true;
    snprintf(id->arch.name, sizeof id->arch.name, "zen4");
    kb_ceiling *fma = kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx2", "fp64", 123.5, 150);
    fma->clock_ghz = 3.25, fma->flop_per_cycle_core = 9.5, fma->peak_flop_per_cycle_core = 16;
    fma->cores_used = 4;
    kb_ceiling *nofig = kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "dpbf16-avx512", "bf16", 99, 0);
    snprintf(nofig->note, sizeof nofig->note, "no bf16 rate");
    kb_device_add_ceiling(d, KB_CEIL_MEMORY, "stream-triad", "DRAM", 45.25, 0)->stream_rule = true;
    d->nsweep = 2;
    d->sweep[0] = (kb_sweep_point){4096, 900};
    d->sweep[1] = (kb_sweep_point){8192, 880.5};
    /* a GPU entry (kbench peaks' GPU half) with its identity */
    g = &a->devices[1];
    snprintf(g->kind, sizeof g->kind, "cuda");
    snprintf(g->model, sizeof g->model, "NVIDIA H200");
    g->have_gpu = true;
    g->index = 3, g->sm_count = 132, g->ecc = 1;
    snprintf(g->uuid, sizeof g->uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef");
    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:17:00.0");
    snprintf(g->arch, sizeof g->arch, "sm_90");
    snprintf(g->driver, sizeof g->driver, "13.0");
    g->clock_ghz = 1.98, g->memory_bytes = 150323855360.0, g->cache_bytes[1] = 62914560;
    kb_ceiling *gf = kb_device_add_ceiling(g, KB_CEIL_COMPUTE, "gpu-fma-fp32", "fp32", 60000,
                                           66908.16);
    gf->cores_used = 132, gf->clock_ghz = 1.98, gf->peak_flop_per_cycle_core = 256;
    gm = kb_device_add_ceiling(g, KB_CEIL_MEMORY, "gpu-stream-triad", "DRAM",
                                           4100.5, 4800);
    gm->stream_rule = true;
    snprintf(gm->note, sizeof gm->note, "4916 GB/s from the device; 4800 GB/s datasheet");
}

/* every field of both entries saves and loads back */
static void test_round_trip(void)
{
    char err[512];
    CHECK(kb_ceilings_save(a, path, err, sizeof err) == 0);
    CHECK(kb_ceilings_load(path, b, err, sizeof err) == 0);
    CHECK_STR(b->host, "node1");
    CHECK_STR(b->date, a->date);
    CHECK_STR(b->git_commit, "abc");
    CHECK(b->ndevices == 2);
    const kb_device *e = kb_ceilings_device(b, "cpu");
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->model, "Test \"CPU\"");
        CHECK(e->cores == 4 && e->threads == 8);
        CHECK_STR(e->clock_source, "dependent-add chain");
        CHECK_NEAR(e->cache_bytes[2], 32.0 * (1 << 20), 1e-15);
        CHECK(e->nceilings == 3 && e->nsweep == 2);
        CHECK(e->have_cpu_id);
        CHECK_STR(e->cpu_id.vendor, "AuthenticAMD");
        CHECK(e->cpu_id.family == 0x19 && e->cpu_id.model == 0x11 && e->cpu_id.stepping == -1);
        CHECK_STR(e->cpu_id.microcode, "0xa101148");
        CHECK_STR(e->cpu_id.kernel, "Linux 6.1.0-18-amd64");
        CHECK_STR(e->cpu_id.governor, "unavailable");
        CHECK(e->cpu_id.have_microarch && strcmp(e->cpu_id.arch.name, "zen4") == 0);
        CHECK(e->cpu_id.cache_bytes[2] == 32.0 * (1 << 20) && e->cpu_id.cache_count[2] == 12);
        const kb_ceiling *b16 = kb_device_best(e, KB_CEIL_COMPUTE, "bf16");
        CHECK(b16 && b16->theoretical == 0 && strcmp(b16->note, "no bf16 rate") == 0);
        CHECK_NEAR(e->sweep[1].gbps, 880.5, 1e-15);
        const kb_ceiling *t = kb_device_best(e, KB_CEIL_MEMORY, "dram");
        CHECK(t && t->stream_rule && t->theoretical == 0);
        CHECK(t && t->value == 45.25);
        const kb_ceiling *f = kb_device_best(e, KB_CEIL_COMPUTE, "fp64");
        CHECK(f && f->value == 123.5 && f->theoretical == 150);
        CHECK(f && f->clock_ghz == 3.25 && f->flop_per_cycle_core == 9.5);
        CHECK(f && f->peak_flop_per_cycle_core == 16 && f->cores_used == 4 && !f->note[0]);
        CHECK_STR(f ? f->unit : NULL, "GFLOP/s");
    }
    CHECK(e && !e->have_gpu);
    const kb_device *h = kb_ceilings_device(b, "cuda");
    CHECK(h != NULL);
    if (h) {
        CHECK(h->have_gpu && h->index == 3 && h->sm_count == 132 && h->ecc == 1);
        CHECK_STR(h->model, "NVIDIA H200");
        CHECK_STR(h->uuid, g->uuid);
        CHECK_STR(h->pci_bus_id, "0000:17:00.0");
        CHECK_STR(h->arch, "sm_90");
        CHECK_STR(h->driver, "13.0");
        CHECK(h->clock_ghz == 1.98 && h->memory_bytes == 150323855360.0);
        CHECK(h->cache_bytes[1] == 62914560 && h->cache_bytes[2] == 0);
        CHECK(!h->have_cpu_id && h->nceilings == 2);
        const kb_ceiling *f = kb_device_best(h, KB_CEIL_COMPUTE, "fp32");
        CHECK(f && f->theoretical == 66908.16 && f->cores_used == 132);
        const kb_ceiling *m = kb_device_best(h, KB_CEIL_MEMORY, "DRAM");
        CHECK(m && m->stream_rule && m->theoretical == 4800);
        CHECK_STR(m ? m->note : NULL, gm->note);
    }
    CHECK(kb_ceilings_device(b, "hip") == NULL);
}

static void test_gpu_fields(void)
{
    char err[512];
    /* ECC unknown is null and reads back as -1; a GPU entry's fields are
     * optional, a bad one is named */
    int ecc = g->ecc;
    g->ecc = -1;
    CHECK(kb_ceilings_save(a, path, err, sizeof err) == 0);
    CHECK(kb_ceilings_load(path, b, err, sizeof err) == 0);
    CHECK(b->devices[1].have_gpu && b->devices[1].ecc == -1);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/2\",\"devices\":[{\"kind\":\"hip\","
                    "\"index\":0,\"ceilings\":[]}]}", b, err) == 0);
    CHECK(b->devices[0].have_gpu && b->devices[0].ecc == -1 && !b->devices[0].arch[0]);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/2\",\"devices\":[{\"kind\":\"cuda\","
                    "\"index\":0,\"ecc\":\"on\",\"ceilings\":[]}]}", b, err) == -1);
    CHECK(strstr(err, "devices[0]") && strstr(err, "ecc"));
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/2\",\"devices\":[{\"kind\":\"cuda\","
                    "\"index\":0,\"sm_count\":\"132\",\"ceilings\":[]}]}", b, err) == -1);
    CHECK(strstr(err, "sm_count") != NULL);
    g->ecc = ecc;
}

static void test_bad_files(void)
{
    char err[512];
    /* bad files: each error names what is wrong */
    char missing[80];
    snprintf(missing, sizeof missing, "%s/none.json", dir);
    CHECK(kb_ceilings_load(missing, b, err, sizeof err) == -1);
    CHECK(strstr(err, "none.json") && strstr(err, "cannot open"));
    CHECK(load_text(path, "{ not json", b, err) == -1);
    CHECK(strstr(err, "c.json") && strstr(err, "not valid JSON"));
    CHECK(load_text(path, "{\"schema\":\"kbench.results/1\",\"devices\":[]}", b, err) == -1);
    CHECK(strstr(err, "kbench.ceilings/2") && strstr(err, "kbench.ceilings/1"));
    /* a schema 1 file (fma_ports, one clock per device) still loads */
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/1\",\"devices\":[{\"kind\":\"cpu\","
                    "\"clock_ghz\":4.1,\"clock_source\":\"add-chain\",\"fma_ports\":2,"
                    "\"ceilings\":[{\"kind\":\"compute\",\"kernel\":\"k\",\"level\":\"fp64\","
                    "\"unit\":\"GFLOP/s\",\"value\":3,\"theoretical\":4}]}]}", b, err) == 0);
    CHECK(b->ndevices == 1 && !b->devices[0].have_cpu_id && b->devices[0].nceilings == 1);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/2\",\"devices\":[{\"kind\":\"cpu\","
                    "\"cpu_id\":{\"family\":-1},\"ceilings\":[]}]}", b, err) == -1);
    CHECK(strstr(err, "devices[0].cpu_id") && strstr(err, "family"));
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/1\"}", b, err) == -1);
    CHECK(strstr(err, "devices") != NULL);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/1\",\"devices\":[{\"kind\":\"cpu\","
                    "\"ceilings\":[{\"kind\":\"compute\",\"kernel\":\"k\",\"level\":\"fp64\","
                    "\"unit\":\"GFLOP/s\",\"value\":-3}]}]}", b, err) == -1);
    CHECK(strstr(err, "devices[0].ceilings[0]") && strstr(err, "value"));
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/1\",\"devices\":[{\"kind\":\"cpu\","
                    "\"ceilings\":[{\"kind\":\"memory\",\"kernel\":\"k\",\"level\":\"DRAM\","
                    "\"unit\":\"GFLOP/s\",\"value\":3}]}]}", b, err) == -1);
    CHECK(strstr(err, "unit") != NULL);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/1\",\"devices\":[{\"ceilings\":[]}]}",
                    b, err) == -1);
    CHECK(strstr(err, "kind") != NULL);
}

/* A CPU with FMA variants and an OpenBLAS GEMM ceiling above its fp32 FMA
 * ceiling: the variants, the winner, vendor_gemm and exceeded_by load
 * back. */
static void test_variants_round_trip(void)
{
    char err[512], msg[512];
    kb_device *d = &a->devices[0];
    kb_device saved = *d;
    d->nvariants = 2;
    d->variants[0] = (kb_fma_variant){"fp32", "fma-avx512-x12", 12, 16, 274.5, 4.04, 5, true};
    d->variants[1] = (kb_fma_variant){"fp32", "cc-avx512-x12", 12, 16, 182.25, 0, 5, false};
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx512-x12", "fp32", 274.5, 0);
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "openblas-gemm", "fp32", 281.5, 0)->vendor_gemm =
        true;
    CHECK(kb_device_check_fma(d, msg, sizeof msg) == 1);
    CHECK(kb_ceilings_save(a, path, err, sizeof err) == 0);
    CHECK(kb_ceilings_load(path, b, err, sizeof err) == 0);
    const kb_device *e = &b->devices[0];
    CHECK(e->nvariants == 2);
    CHECK_STR(e->variants[0].kernel, "fma-avx512-x12");
    CHECK(e->variants[0].won && !e->variants[1].won);
    CHECK(e->variants[1].chains == 12 && e->variants[1].lanes == 16);
    CHECK(e->variants[1].gflops == 182.25 && e->variants[1].clock_ghz == 0);
    CHECK(e->variants[0].trials == 5 && e->variants[0].clock_ghz == 4.04);
    const kb_ceiling *roof = kb_device_best(e, KB_CEIL_COMPUTE, "fp32");
    CHECK(roof && roof->vendor_gemm && strcmp(roof->kernel, "openblas-gemm") == 0);
    const kb_ceiling *fma = &e->ceilings[e->nceilings - 2];
    CHECK(!fma->vendor_gemm);
    CHECK_STR(fma->exceeded_by, "openblas-gemm");
    CHECK(fma->exceeded_value == 281.5);
    /* a file without variants (before them) loads with none */
    *d = saved;
    CHECK(kb_ceilings_save(a, path, err, sizeof err) == 0);
    CHECK(kb_ceilings_load(path, b, err, sizeof err) == 0);
    CHECK(b->devices[0].nvariants == 0 && !b->devices[0].ceilings[0].vendor_gemm);
    CHECK(load_text(path, "{\"schema\":\"kbench.ceilings/2\",\"devices\":[{\"kind\":\"cpu\","
                    "\"fma_variants\":[{\"precision\":\"fp32\",\"kernel\":\"k\",\"chains\":8,"
                    "\"lanes\":\"16\",\"gflops\":1}],\"ceilings\":[]}]}", b, err) == -1);
    CHECK(strstr(err, "devices[0].fma_variants[0]") && strstr(err, "lanes"));
}

/* the invariant: held, then broken by a vendor GEMM, with the message */
static void test_vendor_beats_fma(void)
{
    kb_device *d = calloc(1, sizeof *d);
    char msg[1024];
    if (!d)
        return;
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx512-x12", "fp32", 274, 0);
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fma-avx512-x12", "fp64", 137, 0);
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "onednn-gemm", "fp32", 250, 0)->vendor_gemm = true;
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "openblas-gemm", "fp64", 120, 0)->vendor_gemm =
        true;
    CHECK(kb_device_check_fma(d, msg, sizeof msg) == 0);
    CHECK_STR(msg, "");
    CHECK(!d->ceilings[0].exceeded_by[0]);
    /* a second library beats it: the best one is named, with the margin */
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "openblas-gemm", "fp32", 281.5, 0)->vendor_gemm =
        true;
    CHECK(kb_device_check_fma(d, msg, sizeof msg) == 1);
    printf("%s", msg);
    CHECK(strstr(msg, "fp32: FMA ceiling fma-avx512-x12 274.0 GFLOP/s is below "
                      "openblas-gemm's 281.5 (by 2.7 %): the FMA ceiling is wrong") != NULL);
    CHECK(strstr(msg, "the fp32 roof is openblas-gemm's") != NULL);
    CHECK(strstr(msg, "fp64") == NULL);
    CHECK_STR(d->ceilings[0].exceeded_by, "openblas-gemm");
    CHECK(d->ceilings[0].exceeded_value == 281.5 && !d->ceilings[1].exceeded_by[0]);
    /* the roof placement uses: the vendor GEMM's */
    const kb_ceiling *roof = kb_device_best(d, KB_CEIL_COMPUTE, "fp32");
    CHECK(roof && strcmp(roof->kernel, "openblas-gemm") == 0);
    free(d);
}

static const check_test tests[] = {
    CHECK_TEST(round_trip), CHECK_TEST(gpu_fields), CHECK_TEST(bad_files),
    CHECK_TEST(variants_round_trip), CHECK_TEST(vendor_beats_fma), CHECK_END};

int main(int argc, char **argv)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/c.json", dir);
    a = calloc(1, sizeof *a), b = calloc(1, sizeof *b);
    if (!a || !b)
        return 1;
    fixture();
    int status = check_main(argc, argv, tests);
    unlink(path);
    rmdir(dir);
    free(a);
    free(b);
    return status;
}
