/* test_gpu_nodevice.c - every registered backend whose device is not
 * "cpu", on a machine without that device: describe() says "device" none
 * with a "no_device" reason and a "warning" naming the missing device
 * ("no CUDA device", "no HIP device"), supports() SKIPs a GEMM, a conv and a bnorm with that reason,
 * device_free() fails with it, and configure() still checks the run's
 * settings (--launches 0 refused; a hand backend's unknown --tuning
 * refused naming the tunings it has).  The hand backends count bnorm
 * training's workspace in device_bytes().
 *
 * About the no-device path only: exits 77 (ctest SKIP_RETURN_CODE) when
 * a backend's runtime finds a device, or when no GPU backend is built. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/gpu/gpu_registry.h"
#include "tests/check.h"

/* The value of key in info, or NULL. */
static const char *info_value(const kb_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->kv[i].key, key) == 0)
            return info->kv[i].value;
    return NULL;
}

static bool contains(const char *s, const char *part)
{
    return s && strstr(s, part) != NULL;
}

static kb_problem parse(const char *desc)
{
    kb_settings s;
    kb_problem p;
    char err[256];
    kb_settings_default(&s);
    if (kb_problem_parse(desc, &s, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", desc, err);
        exit(1);
    }
    return p;
}

/* What the run passes when given no device options. */
static kb_backend_config default_config(void)
{
    return (kb_backend_config){.device = 0, .tuning = NULL, .launches = 1,
                               .flush_l2 = true};
}

/* An unknown --tuning is refused naming every tuning describe() lists
 * ("a, b (default a)"); the default one is taken. */
static void check_tunings(const kb_backend *b, const kb_info *info)
{
    const char *listed = info_value(info, "tunings");
    CHECK(listed != NULL);
    if (!listed)
        return;
    char names[224], err[256] = "";
    snprintf(names, sizeof names, "%.*s", (int)strcspn(listed, "("), listed);
    kb_backend_config cfg = default_config();
    cfg.tuning = "no_such_tuning";
    CHECK(b->configure(&cfg, err, sizeof err) != 0);
    CHECK(contains(err, "no_such_tuning"));
    int n = 0;
    for (char *t = strtok(names, ", "); t; t = strtok(NULL, ", ")) {
        CHECK(contains(err, t));
        if (n++ == 0) {
            kb_backend_config ok = default_config();
            ok.tuning = t;
            char why[256] = "";
            CHECK(b->configure(&ok, why, sizeof why) == 0);
        }
    }
    CHECK(n > 0);
}

static void check_backend(const kb_backend *b, const char *missing)
{
    kb_info info = {0};
    b->describe(&info);
    CHECK_STR(info_value(&info, "device"), "none");
    CHECK(contains(info_value(&info, "warning"), missing));
    CHECK(contains(kb_info_no_device_why(&info), missing));

    const char *descs[] = {"m8n8k8", "mb1ic4ih8oc4kh3", "mb2ic3ih5iw7"};
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++) {
        kb_problem p = parse(descs[i]);
        char why[256] = "";
        CHECK(!b->supports(&p, why, sizeof why));
        CHECK(contains(why, missing));
    }
    if (b->device_free) {
        uint64_t bytes = 0;
        char why[256] = "";
        CHECK(b->device_free(&bytes, why, sizeof why) != 0);
        CHECK(contains(why, missing));
    }
    if (b->configure) {
        kb_backend_config cfg = default_config();
        char err[256] = "";
        CHECK(b->configure(&cfg, err, sizeof err) == 0);
        /* no device at all is not a configuration error: supports() says */
        cfg.device = 3;
        CHECK(b->configure(&cfg, err, sizeof err) == 0);
        cfg = default_config();
        cfg.launches = 0;
        err[0] = '\0';
        CHECK(b->configure(&cfg, err, sizeof err) != 0);
        CHECK(contains(err, "--launches"));
        if (strcmp(b->kind, "hand") == 0)
            check_tunings(b, &info);
        cfg = default_config();
        CHECK(b->configure(&cfg, err, sizeof err) == 0);
    }
    if (strcmp(b->kind, "hand") == 0 && b->device_bytes) {
        kb_problem train = parse("mb2ic3ih5iw7"), infer = train;
        infer.dir = KB_FWD_I;
        CHECK(b->device_bytes(&train) > kb_problem_tensor_bytes(&train));
        CHECK(b->device_bytes(&infer) == kb_problem_tensor_bytes(&infer));
    }
}

/* every GPU backend built, on its no-device path */
static void test_no_device(void)
{
    int gpu_backends = 0;
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        /* a simulated device is always there: not this test's business */
        if (strcmp(b->device, "cpu") == 0 || b->correctness_only)
            continue;
        gpu_backends++;
        const kb_gpu_runtime *rt = kb_gpu_runtime_find(b->device);
        CHECK(rt != NULL);   /* every GPU device kind has its runtime */
        if (!rt)
            continue;
        char why[256] = "";
        if (rt->device_count(why, sizeof why) > 0) {
            CHECK_SKIP("%s: a %s device is present (this test is about the "
                       "no-device path)", b->name, b->device);
        }
        /* "no CUDA device" for device "cuda" */
        char missing[32];
        int n = snprintf(missing, sizeof missing, "no %s device", b->device);
        for (int k = 3; k < n && missing[k] != ' '; k++)
            missing[k] = (char)toupper((unsigned char)missing[k]);
        CHECK(contains(why, missing));
        printf("%s: %s\n", b->name, why);
        check_backend(b, missing);
    }
    if (gpu_backends == 0)
        CHECK_SKIP("no GPU backend built");
}

static const check_test tests[] = {CHECK_TEST(no_device), CHECK_END};

int main(int argc, char **argv) { return check_main(argc, argv, tests); }
