/* test_registry.c - the backend registry and what every built backend
 * must provide: a name, kind and device, the mandatory entry points, a
 * describe() that names its library, and the f64 refusal of omp. */
#include <string.h>

#include "backends/backend.h"
#include "tests/check.h"

/* A table that only needs a name for the registry. */
static const kb_backend fake = {.name = "fake", .kind = "hand", .device = "cpu"};

static bool has_key(const kb_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->kv[i].key, key) == 0)
            return true;
    return false;
}

static void test_every_backend(void)
{
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        kb_info info = {0};
        CHECK(b->name && b->kind && b->device);
        CHECK(strcmp(b->kind, "hand") == 0 || strcmp(b->kind, "vendor") == 0);
        CHECK(b->supports && b->prepare && b->run && b->release && b->describe);
        b->describe(&info);
        CHECK(info.n > 0);
        /* vendor backends must say which library and version ran */
        if (strcmp(b->kind, "vendor") == 0)
            CHECK(has_key(&info, "library"));
    }
}

static void test_lookup_and_register(void)
{
    int n = kb_backend_count();
    const kb_backend *omp = kb_backend_find("omp");

    CHECK(n >= 1);
    CHECK(omp != NULL && kb_backend_at(0) == omp);
    CHECK(kb_backend_at(-1) == NULL);
    CHECK(kb_backend_at(n) == NULL);
    CHECK(kb_backend_find("nonesuch") == NULL);
    CHECK(kb_backend_find(NULL) == NULL);

    CHECK(kb_backend_register(&fake) == 0);
    CHECK(kb_backend_count() == n + 1);
    CHECK(kb_backend_find("fake") == &fake);
    CHECK(kb_backend_register(&fake) == -1);          /* name taken */
    CHECK(kb_backend_register(kb_backend_at(0)) == -1);
}

static void test_omp_facts(void)
{
    const kb_backend *omp = kb_backend_find("omp");
    kb_info info = {0};
    kb_problem p;
    char why[128] = "", err[256];
    kb_settings s;

    if (!omp)
        return;
    CHECK_STR(omp->kind, "hand");
    CHECK(omp->read_output == NULL);   /* writes the host tensors itself */
    omp->describe(&info);
    CHECK(has_key(&info, "openmp") && has_key(&info, "micro_kernel"));
    kb_settings_default(&s);
    CHECK(kb_problem_parse("m4n4k4", &s, &p, err, sizeof(err)) == 0);
    p.dt = kb_dts_uniform(KB_F64);
    CHECK(!omp->supports(&p, why, sizeof(why)));
    CHECK(strstr(why, "not f64") != NULL);   /* names what it refuses */
}

static const check_test tests[] = {
    CHECK_TEST(every_backend),
    CHECK_TEST(omp_facts),
    CHECK_TEST(lookup_and_register),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
