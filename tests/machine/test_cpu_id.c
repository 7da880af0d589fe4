/* test_cpu_id.c - the CPU identity: /proc/cpuinfo of x86 and arm64 parsed,
 * microarch.conf rows found (by model range, stepping and SKU name), an
 * unknown CPU or an untold SKU given no FLOP/cycle with the reason, a
 * malformed table refused with its line, and the identity in the run
 * record and back through its JSON. */
#define _GNU_SOURCE   /* fmemopen */
#include "machine/cpu_id.h"
#include "drivers/record.h"
#include "kernels/data_dir.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char table[4096];

/* id from cpuinfo text, looked up in the installed table. */
static int lookup(const char *cpuinfo, kb_cpu_id *id, char *why)
{
    memset(id, 0, sizeof *id);
    FILE *f = fmemopen((void *)cpuinfo, strlen(cpuinfo), "r");
    kb_cpu_id_parse_cpuinfo(f, id);
    if (f)
        fclose(f);
    /* Written where the record keeps it, then copied out: the note is the
     * shorter buffer (a copy the other way warns of truncation, GCC 14). */
    int rc = kb_microarch_lookup(table, id, &id->arch, id->microarch_note,
                                 sizeof id->microarch_note);
    id->have_microarch = rc == 1;
    snprintf(why, 512, "%s", id->microarch_note);
    if (rc == 1)
        id->microarch_note[0] = '\0';
    return rc;
}

static double fpc(const kb_cpu_id *id, const char *precision, char *why)
{
    return kb_cpu_peak_flop_per_cycle(id, precision, why, 512);
}

#define X86(vendor, family, model, stepping, name)                          \
    "processor\t: 0\nvendor_id\t: " vendor "\ncpu family\t: " family        \
    "\nmodel\t\t: " model "\nmodel name\t: " name "\nstepping\t: " stepping  \
    "\nmicrocode\t: 0xa101148\n\nprocessor\t: 1\nvendor_id\t: Other\n"

static void test_x86(void)
{
    kb_cpu_id id;
    char why[512];
    /* Zen 4 (Genoa): 512-bit FMAs on two 256-bit pipes, 32 fp32 FLOP/cycle */
    CHECK(lookup(X86("AuthenticAMD", "25", "17", "1", "AMD EPYC 9654 96-Core Processor"),
                 &id, why) == 1);
    CHECK_STR(id.vendor, "AuthenticAMD");   /* the first processor's block only */
    CHECK(id.family == 0x19 && id.model == 0x11 && id.stepping == 1);
    CHECK_STR(id.microcode, "0xa101148");
    CHECK_STR(id.arch.name, "zen4");
    CHECK(fpc(&id, "fp32", why) == 32 && fpc(&id, "fp64", why) == 16);
    CHECK(fpc(&id, "fp16", why) == 0 && strstr(why, "no fp16 FMA rate for zen4"));
    CHECK(fpc(&id, "int8", why) == 0 && strstr(why, "unknown precision"));
    CHECK(lookup(X86("AuthenticAMD", "25", "97", "2", "AMD Ryzen 9 7950X"), &id, why) == 1);
    CHECK_STR(id.arch.name, "zen4");
    /* Zen 5 (Turin): full 512-bit pipes */
    CHECK(lookup(X86("AuthenticAMD", "26", "2", "1", "AMD EPYC 9755"), &id, why) == 1);
    CHECK(strcmp(id.arch.name, "zen5") == 0 && fpc(&id, "fp32", why) == 64);
    /* a model no row lists: no figure, and the reason names the CPU and table */
    CHECK(lookup(X86("AuthenticAMD", "25", "48", "0", "AMD Future"), &id, why) == 0);
    CHECK(strstr(why, "no microarchitecture entry for AuthenticAMD family 0x19 model 0x30") &&
          strstr(why, "microarch.conf"));
    CHECK(fpc(&id, "fp32", why) == 0 && strstr(why, "no microarchitecture entry"));

    /* Skylake-SP: 2 FMA units on Gold 6xxx, 1 on Silver, untold on a
     * VM-masked name */
    CHECK(lookup(X86("GenuineIntel", "6", "85", "4", "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz"),
                 &id, why) == 1);
    CHECK(strcmp(id.arch.name, "skylake-sp") == 0 && fpc(&id, "fp32", why) == 64);
    CHECK(lookup(X86("GenuineIntel", "6", "85", "4", "Intel(R) Xeon(R) Silver 4114 CPU"),
                 &id, why) == 1);
    CHECK(fpc(&id, "fp32", why) == 32 && fpc(&id, "fp64", why) == 16);
    CHECK(lookup(X86("GenuineIntel", "6", "85", "7", "Intel(R) Xeon(R) Gold 5222 CPU"),
                 &id, why) == 1);
    CHECK(strcmp(id.arch.name, "cascadelake") == 0 && fpc(&id, "fp64", why) == 32);
    CHECK(lookup(X86("GenuineIntel", "6", "85", "7", "Intel(R) Xeon(R) Gold 5218 CPU"),
                 &id, why) == 1);
    CHECK(fpc(&id, "fp64", why) == 16);
    CHECK(lookup(X86("GenuineIntel", "6", "85", "7", "Intel Xeon Processor (Cascadelake)"),
                 &id, why) == 1);
    CHECK(fpc(&id, "fp32", why) == 0 && strstr(why, "differ by SKU") &&
          strstr(why, "Intel Xeon Processor (Cascadelake)"));
    /* Sapphire Rapids: AVX512-FP16 at twice the fp32 rate */
    CHECK(lookup(X86("GenuineIntel", "6", "143", "8", "Intel(R) Xeon(R) Platinum 8480+"),
                 &id, why) == 1);
    CHECK(fpc(&id, "fp32", why) == 64 && fpc(&id, "fp16", why) == 128);
}

static void test_arm(void)
{
    kb_cpu_id id;
    char why[512];
    static const char v1[] =
        "processor\t: 0\nBogoMIPS\t: 2100.00\nFeatures\t: fp asimd sve\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\n"
        "CPU part\t: 0xd40\nCPU revision\t: 1\n\n";
    CHECK(lookup(v1, &id, why) == 1);
    CHECK_STR(id.vendor, "arm:0x41");
    CHECK(id.family == 8 && id.model == 0xd40 && id.stepping == 1);
    CHECK_STR(id.model_name, "unknown");
    CHECK(strcmp(id.arch.name, "neoverse-v1") == 0 && fpc(&id, "fp64", why) == 16);
    static const char a64fx[] =
        "processor\t: 0\nCPU implementer\t: 0x46\nCPU architecture: 8\n"
        "CPU variant\t: 0x1\nCPU part\t: 0x001\nCPU revision\t: 0\n";
    CHECK(lookup(a64fx, &id, why) == 1);
    CHECK(strcmp(id.arch.name, "a64fx") == 0 && fpc(&id, "fp64", why) == 32);
    /* Graviton 2's N1 and N2: 2 x 128-bit FMA pipes, 8 fp32 FLOP/cycle */
    static const char n1[] =
        "processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
        "CPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";
    CHECK(lookup(n1, &id, why) == 1);
    CHECK(strcmp(id.arch.name, "neoverse-n1") == 0 && fpc(&id, "fp32", why) == 16);
    CHECK(fpc(&id, "bf16", why) == 0);   /* no BF16 on N1: no figure */
}

/* MIDR_EL1 (sysfs midr_el1, or the register) reads as /proc/cpuinfo's
 * arm64 lines: Neoverse N1 r3p1 is 0x413fd0c1. */
static void test_midr(void)
{
    kb_cpu_id id;
    memset(&id, 0, sizeof id);
    kb_cpu_id_from_midr(0x413fd0c1, &id);
    CHECK_STR(id.vendor, "arm:0x41");
    CHECK(id.family == 8 && id.model == 0xd0c && id.stepping == 3);
    kb_cpu_id_from_midr(0x461f0010, &id);   /* A64FX */
    CHECK_STR(id.vendor, "arm:0x46");
    CHECK(id.model == 0x001 && id.stepping == 1);
}

static char dir[] = "/tmp/kb_cpuid_XXXXXX";

static void test_bad_table(void)
{
    char path[128], why[512];
    snprintf(path, sizeof path, "%s/bad.conf", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("# comment\n\nAuthenticAMD 0x19 0x10-0x1f * * zen4 2x256 2y256 - -\n", f);
    fclose(f);
    kb_cpu_id id = {.vendor = "AuthenticAMD", .family = 0x19, .model = 0x11};
    kb_microarch m;
    CHECK(kb_microarch_lookup(path, &id, &m, why, sizeof why) == -1);
    CHECK(strstr(why, "bad.conf:3") && strstr(why, "fp32 cell \"2y256\""));
    f = fopen(path, "w");
    if (f) {
        fputs("AuthenticAMD 0x19 0x10-0x1f *\n", f);
        fclose(f);
    }
    CHECK(kb_microarch_lookup(path, &id, &m, why, sizeof why) == -1);
    CHECK(strstr(why, "bad.conf:1") && strstr(why, "columns"));
    unlink(path);
    CHECK(kb_microarch_lookup(path, &id, &m, why, sizeof why) == -1);
    CHECK(strstr(why, "cannot open") != NULL);
}

/* This machine's identity, through the run record's provenance and the
 * JSON writer and reader. */
static void test_this_machine(void)
{
    char *argv[] = {"run"};
    kb_provenance *p = calloc(1, sizeof *p);
    if (!p)
        return;
    kb_provenance_collect(p, 1, argv, 1, 42);
    const kb_cpu_id *id = &p->cpu_id;
    printf("this machine: %s family 0x%x model 0x%x stepping %d microcode %s, %s%s, "
           "kernel %s, governor %s\n", id->vendor, (unsigned)id->family,
           (unsigned)id->model, id->stepping, id->microcode,
           id->have_microarch ? id->arch.name : "unknown: ", id->microarch_note,
           id->kernel, id->governor);
    CHECK(id->vendor[0] && strcmp(p->cpu_model, id->model_name) == 0);
    CHECK(strncmp(id->kernel, "Linux ", 6) == 0 && id->governor[0]);
    CHECK(id->have_microarch || id->microarch_note[0]);
    CHECK(id->cache_bytes[0] > 0 && id->cache_count[0] > 0);

    cJSON *o = kb_cpu_id_to_json(id);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    cJSON *back = text ? cJSON_Parse(text) : NULL;
    kb_cpu_id r;
    char err[256];
    CHECK(back && kb_cpu_id_from_json(back, &r, "run", err, sizeof err) == 0);
    CHECK_STR(r.vendor, id->vendor);
    CHECK(r.family == id->family && r.model == id->model && r.stepping == id->stepping);
    CHECK_STR(r.microcode, id->microcode);
    CHECK_STR(r.kernel, id->kernel);
    CHECK_STR(r.governor, id->governor);
    CHECK(r.have_microarch == id->have_microarch);
    CHECK(r.cache_bytes[2] == id->cache_bytes[2] && r.cache_count[1] == id->cache_count[1]);
    cJSON_Delete(back);
    free(text);

    back = cJSON_Parse("{\"family\":\"six\"}");
    CHECK(kb_cpu_id_from_json(back, &r, "devices[0]", err, sizeof err) == -1);
    CHECK(strstr(err, "devices[0].cpu_id") && strstr(err, "family"));
    cJSON_Delete(back);
    free(p);
}

static const check_test tests[] = {
    CHECK_TEST(x86), CHECK_TEST(arm), CHECK_TEST(midr), CHECK_TEST(bad_table),
    CHECK_TEST(this_machine), CHECK_END};

int main(int argc, char **argv)
{
    char err[512];
    if (kb_data_path("peaks/microarch.conf", table, sizeof table, err, sizeof err) != 0 ||
        !mkdtemp(dir)) {
        fprintf(stderr, "test_cpu_id: %s\n", err);
        return 1;
    }
    int status = check_main(argc, argv, tests);
    rmdir(dir);
    return status;
}
