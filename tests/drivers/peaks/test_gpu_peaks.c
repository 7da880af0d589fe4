/* test_gpu_peaks.c - the GPU half of `kbench peaks`: the array size
 * follows the sizing rule (>= 2^28, >= 4 x L2; --quick 2^20); every
 * runtime built in either says "no ... device (...): GPU ceilings
 * skipped" and adds nothing, or adds one entry per device with its
 * identity and positive ceilings; --no-gpu and --gpu-only; without any
 * GPU, kbench peaks still exits 0 with the CPU's ceilings. */
#include "backends/gpu/gpu_registry.h"
#include "drivers/commands.h"
#include "machine/machine.h"
#include "drivers/common/options.h"
#include "tests/check.h"

#include <stdlib.h>
#include <unistd.h>

/* The whole of f as a string (caller frees), or NULL. */
static char *slurp(FILE *f)
{
    long n = ftell(f);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s)
        return NULL;
    rewind(f);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    return s;
}

/* kb_gpu_peaks(--quick) once, in main: what it wrote, what it returned,
 * the devices the runtimes see */
static kb_ceilings *c;
static char *text;
static int rc, devices;

/* the sizing rule */
static void test_stream_elements(void)
{
    CHECK(kb_gpu_stream_elements(0, false) == (size_t)1 << 28);
    CHECK(kb_gpu_stream_elements(50e6, false) == (size_t)1 << 28);
    CHECK(kb_gpu_stream_elements(1024.0 * 1024 * 1024, false) == (size_t)1 << 29);
    CHECK(kb_gpu_stream_elements(50e6, true) == (size_t)1 << 20);
}

/* each runtime: its no-device line, or one entry per device */
static void test_runtimes(void)
{
    CHECK(text != NULL);
    printf("%s", text ? text : "");
    for (int i = 0; text && i < kb_gpu_runtime_count(); i++) {
        const kb_gpu_runtime *r = kb_gpu_runtime_at(i);
        char why[256] = "", line[320];
        int n = r->device_count(why, sizeof why);
        if (n == 0) {
            /* the no-device line, exactly once, naming the failed call */
            snprintf(line, sizeof line, "%s: GPU ceilings skipped\n", why);
            CHECK(strstr(text, line) != NULL);
            CHECK(strstr(why, "no ") == why && strstr(why, " device (") != NULL);
            CHECK(!kb_ceilings_device(c, r->name));
        }
    }
    if (kb_gpu_runtime_count() == 0)
        CHECK(text && strstr(text, "no CUDA or HIP runtime built in"));
    CHECK(c->ndevices == devices);
    CHECK(devices > 0 || rc == 0);
    for (int i = 0; i < c->ndevices; i++) {
        const kb_device *d = &c->devices[i];
        CHECK(d->have_gpu && d->model[0] && d->arch[0] && d->sm_count > 0);
        CHECK(kb_gpu_runtime_find(d->kind) != NULL);
        const kb_ceiling *triad = kb_device_best(d, KB_CEIL_MEMORY, "DRAM");
        CHECK(triad && triad->value > 0 && !triad->stream_rule);   /* --quick */
        const kb_ceiling *f32 = kb_device_best(d, KB_CEIL_COMPUTE, "fp32");
        CHECK(f32 && f32->value > 0);
        CHECK(f32 && (f32->theoretical > 0) == (f32->note[0] == '\0'));
        /* no compute peak above its theoretical one (--quick arrays sit
         * in the L2, so the DRAM figures may) */
        for (int k = 0; k < d->nceilings; k++)
            CHECK(d->ceilings[k].kind != KB_CEIL_COMPUTE || d->ceilings[k].theoretical == 0 ||
                  d->ceilings[k].value <= 1.05 * d->ceilings[k].theoretical);
    }
}

/* the command: CPU only, GPUs only, both; no GPU is not an error */
static void test_command(void)
{
    char dir[] = "/tmp/kb_gpupeaks_XXXXXX", path[64], err[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/p.json", dir);
    char *both[] = {"peaks", "--quick", "--threads", "1", "--json", path};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 6, both) == (rc == 0 ? KB_EXIT_OK : KB_EXIT_RUNTIME));
    CHECK(kb_ceilings_load(path, c, err, sizeof err) == 0);
    CHECK(kb_ceilings_device(c, "cpu") != NULL && c->ndevices == 1 + devices);
    unlink(path);
    char *cpu[] = {"peaks", "--quick", "--threads", "1", "--no-gpu", "--json", path};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 7, cpu) == KB_EXIT_OK);
    CHECK(kb_ceilings_load(path, c, err, sizeof err) == 0);
    CHECK(c->ndevices == 1 && kb_ceilings_device(c, "cpu") != NULL);
    unlink(path);
    char *gpu[] = {"peaks", "--quick", "--gpu-only", "--json", path};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 5, gpu) == (rc == 0 ? KB_EXIT_OK : KB_EXIT_RUNTIME));
    /* without a GPU nothing was measured and no file is written */
    CHECK((access(path, F_OK) == 0) == (devices > 0));
    if (devices > 0) {
        CHECK(kb_ceilings_load(path, c, err, sizeof err) == 0);
        CHECK(c->ndevices == devices && !kb_ceilings_device(c, "cpu"));
    }
    unlink(path);
    rmdir(dir);
    char *bad[] = {"peaks", "--no-gpu", "--gpu-only"};
    CHECK(kb_verb_main(&kb_verb_peaks, NULL, 3, bad) == KB_EXIT_USAGE);
}

static const check_test tests[] = {
    CHECK_TEST(stream_elements), CHECK_TEST(runtimes), CHECK_TEST(command),
    CHECK_END};

int main(int argc, char **argv)
{
    c = calloc(1, sizeof *c);
    FILE *out = tmpfile();
    if (!c || !out)
        return 1;
    rc = kb_gpu_peaks(c, true, out);
    text = slurp(out);
    fclose(out);
    for (int i = 0; text && i < kb_gpu_runtime_count(); i++) {
        char why[256] = "";
        if (!kb_gpu_runtime_at(i)->correctness_only)   /* never measured */
            devices += kb_gpu_runtime_at(i)->device_count(why, sizeof why);
    }
    int status = check_main(argc, argv, tests);
    free(text);
    free(c);
    return status;
}
