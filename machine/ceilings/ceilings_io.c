/* ceilings_io.c - the ceilings file: kb_ceilings to and from JSON (schema
 * "kbench.ceilings/2", documented in results/CEILINGS.md; schema 1 files
 * are read too), with cJSON. */
#include "machine/ceilings/ceilings.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A ceilings file is a few KiB; anything much larger is not one. */
#define MAX_FILE_BYTES (16L << 20)

kb_ceiling *kb_device_add_ceiling(kb_device *d, kb_ceiling_kind kind,
                                  const char *kernel, const char *level,
                                  double value, double theoretical)
{
    if (d->nceilings >= KB_MAX_CEILINGS)
        return NULL;
    kb_ceiling *c = &d->ceilings[d->nceilings++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
    snprintf(c->level, sizeof c->level, "%s", level);
    snprintf(c->unit, sizeof c->unit, "%s",
             kind == KB_CEIL_COMPUTE ? "GFLOP/s" : "GB/s");
    c->value = value;
    c->theoretical = theoretical;
    return c;
}

const kb_device *kb_ceilings_device(const kb_ceilings *c, const char *kind)
{
    for (int i = 0; i < c->ndevices; i++)
        if (strcmp(c->devices[i].kind, kind) == 0)
            return &c->devices[i];
    return NULL;
}

const kb_ceiling *kb_device_best(const kb_device *d, kb_ceiling_kind kind,
                                 const char *level)
{
    const kb_ceiling *best = NULL;
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *c = &d->ceilings[i];
        if (c->kind != kind || strcasecmp(c->level, level) != 0)
            continue;
        /* A figure measured under STREAM's sizing rule beats any other at
         * its level: the sweep's largest working sets may still partly sit
         * in a cache the VM does not report, and would inflate the roof. */
        if (!best || (c->stream_rule && !best->stream_rule) ||
            (c->stream_rule == best->stream_rule && c->value > best->value))
            best = c;
    }
    return best;
}

int kb_device_check_fma(kb_device *d, char *msg, size_t len)
{
    int broken = 0;
    size_t at = 0;
    if (len)
        msg[0] = '\0';
    for (int i = 0; i < d->nceilings; i++) {
        kb_ceiling *fma = &d->ceilings[i];
        if (fma->kind != KB_CEIL_COMPUTE || fma->vendor_gemm)
            continue;
        const kb_ceiling *gemm = NULL;
        for (int j = 0; j < d->nceilings; j++) {
            const kb_ceiling *c = &d->ceilings[j];
            if (c->kind == KB_CEIL_COMPUTE && c->vendor_gemm &&
                strcmp(c->level, fma->level) == 0 && (!gemm || c->value > gemm->value))
                gemm = c;
        }
        fma->exceeded_by[0] = '\0';
        fma->exceeded_value = 0;
        if (!gemm || gemm->value <= fma->value)
            continue;
        broken++;
        snprintf(fma->exceeded_by, sizeof fma->exceeded_by, "%s", gemm->kernel);
        fma->exceeded_value = gemm->value;
        if (at < len)
            at += (size_t)snprintf(msg + at, len - at,
                                   "%s: FMA ceiling %s %.1f GFLOP/s is below %s's %.1f (by "
                                   "%.1f %%): the FMA ceiling is wrong, too low by at least "
                                   "that, or the library uses a unit the FMA kernels do "
                                   "not (a matrix unit such as AMX); the %s roof is "
                                   "%s's\n", fma->level, fma->kernel,
                                   fma->value, gemm->kernel, gemm->value,
                                   100 * (gemm->value / fma->value - 1), fma->level,
                                   gemm->kernel);
    }
    return broken;
}

/* ---- writing ---------------------------------------------------------- */

/* The cJSON Add helpers return NULL on allocation failure; the caller
 * detects that once, when printing the document fails. */
/* v, or null when it is unknown (0). */
static void add_positive(cJSON *o, const char *key, double v)
{
    if (v > 0)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_ceiling(cJSON *arr, const kb_ceiling *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return;
    }
    cJSON_AddStringToObject(o, "kind", c->kind == KB_CEIL_COMPUTE ? "compute" : "memory");
    cJSON_AddStringToObject(o, "kernel", c->kernel);
    cJSON_AddStringToObject(o, "level", c->level);
    cJSON_AddStringToObject(o, "unit", c->unit);
    cJSON_AddNumberToObject(o, "value", c->value);
    if (c->theoretical > 0)
        cJSON_AddNumberToObject(o, "theoretical", c->theoretical);
    else
        cJSON_AddNullToObject(o, "theoretical");
    if (c->kind == KB_CEIL_MEMORY) {
        cJSON_AddBoolToObject(o, "stream_rule", c->stream_rule);
        if (c->note[0])
            cJSON_AddStringToObject(o, "note", c->note);
        return;
    }
    add_positive(o, "clock_ghz", c->clock_ghz);
    add_positive(o, "flop_per_cycle_core", c->flop_per_cycle_core);
    add_positive(o, "peak_flop_per_cycle_core", c->peak_flop_per_cycle_core);
    add_positive(o, "cores_used", c->cores_used);
    if (c->note[0])
        cJSON_AddStringToObject(o, "note", c->note);
    if (c->vendor_gemm)
        cJSON_AddBoolToObject(o, "vendor_gemm", true);
    if (c->exceeded_by[0]) {
        cJSON *e = cJSON_AddObjectToObject(o, "exceeded_by");
        if (e) {
            cJSON_AddStringToObject(e, "kernel", c->exceeded_by);
            cJSON_AddNumberToObject(e, "value", c->exceeded_value);
        }
    }
}

static void add_variants(cJSON *o, const kb_device *d)
{
    cJSON *arr = d->nvariants ? cJSON_AddArrayToObject(o, "fma_variants") : NULL;
    for (int i = 0; arr && i < d->nvariants; i++) {
        const kb_fma_variant *v = &d->variants[i];
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(arr, e)) {
            cJSON_Delete(e);
            return;
        }
        cJSON_AddStringToObject(e, "precision", v->precision);
        cJSON_AddStringToObject(e, "kernel", v->kernel);
        cJSON_AddNumberToObject(e, "chains", v->chains);
        cJSON_AddNumberToObject(e, "lanes", v->lanes);
        cJSON_AddNumberToObject(e, "gflops", v->gflops);
        add_positive(e, "clock_ghz", v->clock_ghz);
        cJSON_AddNumberToObject(e, "trials", v->trials);
        cJSON_AddBoolToObject(e, "won", v->won);
    }
}

/* A GPU's identity, beside kind and model (results/CEILINGS.md). */
static void add_gpu_identity(cJSON *o, const kb_device *d)
{
    cJSON_AddNumberToObject(o, "index", d->index);
    cJSON_AddStringToObject(o, "uuid", d->uuid);
    cJSON_AddStringToObject(o, "pci_bus_id", d->pci_bus_id);
    cJSON_AddStringToObject(o, "arch", d->arch);
    add_positive(o, "sm_count", d->sm_count);
    add_positive(o, "clock_ghz", d->clock_ghz);
    add_positive(o, "memory_bytes", d->memory_bytes);
    if (d->ecc < 0)
        cJSON_AddNullToObject(o, "ecc");
    else
        cJSON_AddBoolToObject(o, "ecc", d->ecc);
    cJSON_AddStringToObject(o, "driver", d->driver);
}

static void add_device(cJSON *arr, const kb_device *d)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return;
    }
    cJSON_AddStringToObject(o, "kind", d->kind);
    cJSON_AddStringToObject(o, "model", d->model);
    cJSON_AddNumberToObject(o, "cores", d->cores);
    cJSON_AddNumberToObject(o, "threads", d->threads);
    cJSON_AddStringToObject(o, "affinity", d->affinity);
    cJSON_AddStringToObject(o, "clock_source", d->clock_source);
    if (d->have_cpu_id)
        cJSON_AddItemToObject(o, "cpu_id", kb_cpu_id_to_json(&d->cpu_id));
    if (d->have_gpu)
        add_gpu_identity(o, d);
    cJSON *topo = cJSON_AddObjectToObject(o, "topology");
    if (topo) {
        cJSON_AddStringToObject(topo, "source", d->topology_source);
        cJSON_AddNumberToObject(topo, "l1d_bytes", d->cache_bytes[0]);
        cJSON_AddNumberToObject(topo, "l2_bytes", d->cache_bytes[1]);
        cJSON_AddNumberToObject(topo, "l3_bytes", d->cache_bytes[2]);
    }
    cJSON *ceil = cJSON_AddArrayToObject(o, "ceilings");
    for (int i = 0; ceil && i < d->nceilings; i++)
        add_ceiling(ceil, &d->ceilings[i]);
    add_variants(o, d);
    cJSON *sweep = cJSON_AddArrayToObject(o, "sweep");
    for (int i = 0; sweep && i < d->nsweep; i++) {
        cJSON *p = cJSON_CreateObject();
        if (!p || !cJSON_AddItemToArray(sweep, p)) {
            cJSON_Delete(p);
            break;
        }
        cJSON_AddNumberToObject(p, "bytes", d->sweep[i].bytes);
        cJSON_AddNumberToObject(p, "gbps", d->sweep[i].gbps);
    }
}

int kb_ceilings_save(const kb_ceilings *c, const char *path, char *err,
                     size_t errlen)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", KB_CEILINGS_SCHEMA);
    cJSON_AddStringToObject(root, "host", c->host);
    cJSON_AddStringToObject(root, "date", c->date);
    cJSON *build = cJSON_AddObjectToObject(root, "build");
    if (build) {
        cJSON_AddStringToObject(build, "kbench_version", c->kbench_version);
        cJSON_AddStringToObject(build, "compiler", c->compiler);
        cJSON_AddStringToObject(build, "build_type", c->build_type);
        cJSON_AddStringToObject(build, "flags", c->build_flags);
        cJSON_AddStringToObject(build, "git_commit", c->git_commit);
    }
    cJSON *devs = cJSON_AddArrayToObject(root, "devices");
    for (int i = 0; devs && i < c->ndevices; i++)
        add_device(devs, &c->devices[i]);

    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory formatting the ceilings", path);
        return -1;
    }
    int rc = -1;
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot open %s for writing: %s", path, strerror(errno));
    } else {
        int bad = fprintf(f, "%s\n", text) < 0;
        bad |= fclose(f) != 0;
        if (bad)
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        else
            rc = 0;
    }
    free(text);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

/* Copy the string member key of o into dst[len].  Returns 0, or -1 with
 * err naming where (what) and the key when it is missing or not a string;
 * an optional key that is absent leaves dst empty and returns 0. */
static int get_str(const cJSON *o, const char *key, bool required, char *dst,
                   size_t len, const char *what, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    dst[0] = '\0';
    if (!v && !required)
        return 0;
    if (!cJSON_IsString(v)) {
        snprintf(err, errlen, "%s: \"%s\" is %s, expected a string", what, key,
                 v ? "not a string" : "missing");
        return -1;
    }
    snprintf(dst, len, "%s", v->valuestring);
    return 0;
}

/* Read the number member key of o into *dst, which must be finite and
 * >= 0.  null or an absent optional key gives 0.  Returns 0, or -1 with
 * err naming where (what) and the key. */
static int get_num(const cJSON *o, const char *key, bool required,
                   double *dst, const char *what, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *dst = 0;
    if ((!v || cJSON_IsNull(v)) && !required)
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0) {
        snprintf(err, errlen, "%s: \"%s\" is %s, expected a number >= 0", what,
                 key, v ? "not a number >= 0" : "missing");
        return -1;
    }
    *dst = v->valuedouble;
    return 0;
}

static int parse_ceiling(const cJSON *o, kb_ceiling *c, const char *what,
                         char *err, size_t errlen)
{
    char kind[16];
    double cores;
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "%s: expected an object", what);
        return -1;
    }
    if (get_str(o, "kind", true, kind, sizeof kind, what, err, errlen) ||
        get_str(o, "kernel", true, c->kernel, sizeof c->kernel, what, err, errlen) ||
        get_str(o, "level", true, c->level, sizeof c->level, what, err, errlen) ||
        get_str(o, "unit", true, c->unit, sizeof c->unit, what, err, errlen) ||
        get_num(o, "value", true, &c->value, what, err, errlen) ||
        get_num(o, "theoretical", false, &c->theoretical, what, err, errlen) ||
        get_num(o, "clock_ghz", false, &c->clock_ghz, what, err, errlen) ||
        get_num(o, "flop_per_cycle_core", false, &c->flop_per_cycle_core, what, err,
                errlen) ||
        get_num(o, "peak_flop_per_cycle_core", false, &c->peak_flop_per_cycle_core,
                what, err, errlen) ||
        get_num(o, "cores_used", false, &cores, what, err, errlen) ||
        get_str(o, "note", false, c->note, sizeof c->note, what, err, errlen))
        return -1;
    c->cores_used = (int)fmin(cores, 1 << 20);
    if (strcmp(kind, "compute") == 0) {
        c->kind = KB_CEIL_COMPUTE;
    } else if (strcmp(kind, "memory") == 0) {
        c->kind = KB_CEIL_MEMORY;
    } else {
        snprintf(err, errlen, "%s: kind \"%s\", expected \"compute\" or \"memory\"",
                 what, kind);
        return -1;
    }
    const char *unit = c->kind == KB_CEIL_COMPUTE ? "GFLOP/s" : "GB/s";
    if (strcmp(c->unit, unit) != 0) {
        snprintf(err, errlen, "%s: unit \"%s\", expected \"%s\" for a %s ceiling",
                 what, c->unit, unit, kind);
        return -1;
    }
    if (c->value <= 0) {
        snprintf(err, errlen, "%s: value must be > 0", what);
        return -1;
    }
    c->stream_rule = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "stream_rule"));
    c->vendor_gemm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "vendor_gemm"));
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "exceeded_by");
    if (e && (!cJSON_IsObject(e) ||
              get_str(e, "kernel", true, c->exceeded_by, sizeof c->exceeded_by, what, err,
                      errlen) ||
              get_num(e, "value", true, &c->exceeded_value, what, err, errlen))) {
        if (!cJSON_IsObject(e))
            snprintf(err, errlen, "%s: \"exceeded_by\" is not an object", what);
        return -1;
    }
    return 0;
}

/* The optional fma_variants array of a CPU device (absent in files
 * written before it: none).  Returns 0, or -1 with err naming the entry
 * and the field. */
static int parse_variants(const cJSON *o, kb_device *d, const char *dwhat, char *err,
                          size_t errlen)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "fma_variants"), *e;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr)) {
        snprintf(err, errlen, "%s: \"fma_variants\" is not an array", dwhat);
        return -1;
    }
    cJSON_ArrayForEach(e, arr) {
        char what[96];
        double chains, lanes, trials;
        snprintf(what, sizeof what, "%s.fma_variants[%d]", dwhat, d->nvariants);
        if (d->nvariants >= KB_MAX_VARIANTS) {
            snprintf(err, errlen, "%s: more than %d FMA variants", dwhat, KB_MAX_VARIANTS);
            return -1;
        }
        kb_fma_variant *v = &d->variants[d->nvariants];
        if (!cJSON_IsObject(e)) {
            snprintf(err, errlen, "%s: expected an object", what);
            return -1;
        }
        if (get_str(e, "precision", true, v->precision, sizeof v->precision, what, err,
                    errlen) ||
            get_str(e, "kernel", true, v->kernel, sizeof v->kernel, what, err, errlen) ||
            get_num(e, "chains", true, &chains, what, err, errlen) ||
            get_num(e, "lanes", true, &lanes, what, err, errlen) ||
            get_num(e, "gflops", true, &v->gflops, what, err, errlen) ||
            get_num(e, "clock_ghz", false, &v->clock_ghz, what, err, errlen) ||
            get_num(e, "trials", false, &trials, what, err, errlen))
            return -1;
        v->chains = (int)fmin(chains, 1 << 20);
        v->lanes = (int)fmin(lanes, 1 << 20);
        v->trials = (int)fmin(trials, 1 << 20);
        v->won = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "won"));
        d->nvariants++;
    }
    return 0;
}

/* Parse the optional topology object and sweep array of a device. */
static int parse_extras(const cJSON *o, kb_device *d, const char *what,
                        char *err, size_t errlen)
{
    const cJSON *topo = cJSON_GetObjectItemCaseSensitive(o, "topology");
    if (cJSON_IsObject(topo) &&
        (get_str(topo, "source", false, d->topology_source,
                 sizeof d->topology_source, what, err, errlen) ||
         get_num(topo, "l1d_bytes", false, &d->cache_bytes[0], what, err, errlen) ||
         get_num(topo, "l2_bytes", false, &d->cache_bytes[1], what, err, errlen) ||
         get_num(topo, "l3_bytes", false, &d->cache_bytes[2], what, err, errlen)))
        return -1;
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(o, "sweep");
    const cJSON *p;
    if (!cJSON_IsArray(sweep))
        return 0;
    cJSON_ArrayForEach(p, sweep) {
        if (d->nsweep >= KB_MAX_SWEEP) {
            snprintf(err, errlen, "%s: more than %d sweep points", what, KB_MAX_SWEEP);
            return -1;
        }
        kb_sweep_point *s = &d->sweep[d->nsweep++];
        if (get_num(p, "bytes", true, &s->bytes, what, err, errlen) ||
            get_num(p, "gbps", true, &s->gbps, what, err, errlen))
            return -1;
    }
    return 0;
}

/* The GPU identity fields, all optional: present when "index" is.
 * Returns 0, or -1 with err naming the field. */
static int parse_gpu_identity(const cJSON *o, kb_device *d, const char *what,
                              char *err, size_t errlen)
{
    double index, sms;
    if (!cJSON_GetObjectItemCaseSensitive(o, "index"))
        return 0;
    if (get_num(o, "index", true, &index, what, err, errlen) ||
        get_str(o, "uuid", false, d->uuid, sizeof d->uuid, what, err, errlen) ||
        get_str(o, "pci_bus_id", false, d->pci_bus_id, sizeof d->pci_bus_id, what, err,
                errlen) ||
        get_str(o, "arch", false, d->arch, sizeof d->arch, what, err, errlen) ||
        get_num(o, "sm_count", false, &sms, what, err, errlen) ||
        get_num(o, "clock_ghz", false, &d->clock_ghz, what, err, errlen) ||
        get_num(o, "memory_bytes", false, &d->memory_bytes, what, err, errlen) ||
        get_str(o, "driver", false, d->driver, sizeof d->driver, what, err, errlen))
        return -1;
    const cJSON *ecc = cJSON_GetObjectItemCaseSensitive(o, "ecc");
    if (ecc && !cJSON_IsBool(ecc) && !cJSON_IsNull(ecc)) {
        snprintf(err, errlen, "%s: \"ecc\" is not true, false or null", what);
        return -1;
    }
    d->have_gpu = true;
    d->index = (int)fmin(index, 1 << 20);
    d->sm_count = (int)fmin(sms, 1 << 20);
    d->ecc = cJSON_IsBool(ecc) ? cJSON_IsTrue(ecc) : -1;
    return 0;
}

static int parse_device(const cJSON *o, kb_device *d, int index, char *err,
                        size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "devices[%d]", index);
    memset(d, 0, sizeof *d);
    double cores, threads;
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "%s: expected an object", what);
        return -1;
    }
    if (get_str(o, "kind", true, d->kind, sizeof d->kind, what, err, errlen) ||
        get_str(o, "model", false, d->model, sizeof d->model, what, err, errlen) ||
        get_num(o, "cores", false, &cores, what, err, errlen) ||
        get_num(o, "threads", false, &threads, what, err, errlen) ||
        get_str(o, "affinity", false, d->affinity, sizeof d->affinity, what, err, errlen) ||
        get_str(o, "clock_source", false, d->clock_source, sizeof d->clock_source,
                what, err, errlen) ||
        parse_extras(o, d, what, err, errlen) ||
        parse_gpu_identity(o, d, what, err, errlen) ||
        parse_variants(o, d, what, err, errlen))
        return -1;
    d->cores = (int)fmin(cores, 1 << 20);
    d->threads = (int)fmin(threads, 1 << 20);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "cpu_id");
    if (id && !cJSON_IsNull(id)) {
        if (kb_cpu_id_from_json(id, &d->cpu_id, what, err, errlen))
            return -1;
        d->have_cpu_id = true;
    }

    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "ceilings");
    if (!cJSON_IsArray(arr)) {
        snprintf(err, errlen, "%s: \"ceilings\" is %s, expected an array", what,
                 arr ? "not an array" : "missing");
        return -1;
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) {
        if (d->nceilings >= KB_MAX_CEILINGS) {
            snprintf(err, errlen, "%s: more than %d ceilings", what, KB_MAX_CEILINGS);
            return -1;
        }
        char cwhat[96];
        snprintf(cwhat, sizeof cwhat, "%s.ceilings[%d]", what, d->nceilings);
        if (parse_ceiling(c, &d->ceilings[d->nceilings], cwhat, err, errlen))
            return -1;
        d->nceilings++;
    }
    return 0;
}

int kb_ceilings_parse(const char *text, kb_ceilings *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, errlen, "not valid JSON near \"%.20s\"", at ? at : "");
        return -1;
    }
    int rc = -1;
    char schema[64];
    const cJSON *build = cJSON_GetObjectItemCaseSensitive(root, "build");
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(root, "devices");
    if (get_str(root, "schema", true, schema, sizeof schema, "ceilings", err, errlen))
        goto done;
    if (strcmp(schema, KB_CEILINGS_SCHEMA) != 0 && strcmp(schema, KB_CEILINGS_SCHEMA_V1) != 0) {
        snprintf(err, errlen, "schema \"%s\", expected \"%s\" (or the older \"%s\")",
                 schema, KB_CEILINGS_SCHEMA, KB_CEILINGS_SCHEMA_V1);
        goto done;
    }
    if (get_str(root, "host", false, out->host, sizeof out->host, "ceilings", err, errlen) ||
        get_str(root, "date", false, out->date, sizeof out->date, "ceilings", err, errlen))
        goto done;
    if (cJSON_IsObject(build) &&
        (get_str(build, "kbench_version", false, out->kbench_version,
                 sizeof out->kbench_version, "build", err, errlen) ||
         get_str(build, "compiler", false, out->compiler, sizeof out->compiler,
                 "build", err, errlen) ||
         get_str(build, "build_type", false, out->build_type,
                 sizeof out->build_type, "build", err, errlen) ||
         get_str(build, "flags", false, out->build_flags, sizeof out->build_flags,
                 "build", err, errlen) ||
         get_str(build, "git_commit", false, out->git_commit,
                 sizeof out->git_commit, "build", err, errlen)))
        goto done;
    if (!cJSON_IsArray(devs) || cJSON_GetArraySize(devs) == 0) {
        snprintf(err, errlen, "\"devices\" is %s, expected a non-empty array",
                 devs ? "not a non-empty array" : "missing");
        goto done;
    }
    const cJSON *d;
    cJSON_ArrayForEach(d, devs) {
        if (out->ndevices >= KB_MAX_DEVICES) {
            snprintf(err, errlen, "more than %d devices", KB_MAX_DEVICES);
            goto done;
        }
        if (parse_device(d, &out->devices[out->ndevices], out->ndevices, err, errlen))
            goto done;
        out->ndevices++;
    }
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

/* The whole file as a terminated string, or NULL with err set (cannot
 * open or read, larger than MAX_FILE_BYTES, out of memory). */
static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE_BYTES + 1, f) : 0;
    if (!buf)
        snprintf(err, errlen, "%s: out of memory", path);
    else if (ferror(f))
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
    else if (n > MAX_FILE_BYTES)
        snprintf(err, errlen, "%s: larger than %ld bytes; not a ceilings file",
                 path, MAX_FILE_BYTES);
    if (!buf || ferror(f) || n > MAX_FILE_BYTES) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

int kb_ceilings_load(const char *path, kb_ceilings *out, char *err,
                     size_t errlen)
{
    char *text = read_file(path, err, errlen);
    if (!text)
        return -1;
    char why[400];
    int rc = kb_ceilings_parse(text, out, why, sizeof why);
    if (rc)
        snprintf(err, errlen, "%s: %s", path, why);
    free(text);
    return rc;
}
