/* cpu_id_json.c - the "cpu_id" object of the run record and the ceilings
 * file (results/SCHEMA.md, results/CEILINGS.md): one writer and one
 * reader, so both files spell the identity the same way. */
#include "machine/ceilings/cpu_id.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const cache_names[3] = {"l1d", "l2", "l3"};

/* A number, or null when unknown (< 0). */
static void add_int(cJSON *o, const char *key, int v)
{
    if (v >= 0)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The cJSON Add helpers return NULL on allocation failure; the caller
 * finds out when printing the document fails. */
cJSON *kb_cpu_id_to_json(const kb_cpu_id *id)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "vendor", id->vendor);
    cJSON_AddStringToObject(o, "model_name", id->model_name);
    add_int(o, "family", id->family);
    add_int(o, "model", id->model);
    add_int(o, "stepping", id->stepping);
    cJSON_AddStringToObject(o, "microcode", id->microcode);
    if (id->have_microarch)
        cJSON_AddStringToObject(o, "microarch", id->arch.name);
    else
        cJSON_AddNullToObject(o, "microarch");
    cJSON_AddStringToObject(o, "microarch_note", id->microarch_note);
    cJSON_AddStringToObject(o, "emulated", id->emulated);
    cJSON *caches = cJSON_AddObjectToObject(o, "caches");
    if (caches) {
        cJSON_AddStringToObject(caches, "source", id->cache_source);
        for (int l = 0; l < 3; l++) {
            cJSON *c = cJSON_AddObjectToObject(caches, cache_names[l]);
            if (!c)
                continue;
            cJSON_AddNumberToObject(c, "bytes", id->cache_bytes[l]);
            cJSON_AddNumberToObject(c, "instances", id->cache_count[l]);
        }
    }
    cJSON_AddStringToObject(o, "kernel", id->kernel);
    cJSON_AddStringToObject(o, "governor", id->governor);
    return o;
}

/* Optional string key of o into dst[len].  Returns 0, or -1 with err set
 * when present but not a string. */
static int opt_str(const cJSON *o, const char *key, char *dst, size_t len,
                   const char *what, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    dst[0] = '\0';
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v)) {
        snprintf(err, errlen, "%s.cpu_id: \"%s\" is not a string", what, key);
        return -1;
    }
    snprintf(dst, len, "%s", v->valuestring);
    return 0;
}

/* Optional number key of o, a whole number >= 0, into *dst (-1 when
 * absent or null).  Returns 0, or -1 with err set. */
static int opt_num(const cJSON *o, const char *key, double *dst,
                   const char *what, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *dst = -1;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
        v->valuedouble > 1e18) {
        snprintf(err, errlen, "%s.cpu_id: \"%s\" is not a number >= 0", what, key);
        return -1;
    }
    *dst = v->valuedouble;
    return 0;
}

int kb_cpu_id_from_json(const cJSON *o, kb_cpu_id *id, const char *what,
                        char *err, size_t errlen)
{
    memset(id, 0, sizeof *id);
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "%s: \"cpu_id\" is not an object", what);
        return -1;
    }
    double family, model, stepping;
    if (opt_str(o, "vendor", id->vendor, sizeof id->vendor, what, err, errlen) ||
        opt_str(o, "model_name", id->model_name, sizeof id->model_name, what, err, errlen) ||
        opt_num(o, "family", &family, what, err, errlen) ||
        opt_num(o, "model", &model, what, err, errlen) ||
        opt_num(o, "stepping", &stepping, what, err, errlen) ||
        opt_str(o, "microcode", id->microcode, sizeof id->microcode, what, err, errlen) ||
        opt_str(o, "microarch", id->arch.name, sizeof id->arch.name, what, err, errlen) ||
        opt_str(o, "microarch_note", id->microarch_note, sizeof id->microarch_note,
                what, err, errlen) ||
        opt_str(o, "emulated", id->emulated, sizeof id->emulated, what, err, errlen) ||
        opt_str(o, "kernel", id->kernel, sizeof id->kernel, what, err, errlen) ||
        opt_str(o, "governor", id->governor, sizeof id->governor, what, err, errlen))
        return -1;
    id->family = (int)fmin(family, 1 << 30);
    id->model = (int)fmin(model, 1 << 30);
    id->stepping = (int)fmin(stepping, 1 << 30);
    id->have_microarch = id->arch.name[0] != '\0';
    const cJSON *caches = cJSON_GetObjectItemCaseSensitive(o, "caches");
    if (!cJSON_IsObject(caches))
        return 0;
    if (opt_str(caches, "source", id->cache_source, sizeof id->cache_source, what, err,
                errlen))
        return -1;
    for (int l = 0; l < 3; l++) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(caches, cache_names[l]);
        double bytes, count;
        if (!cJSON_IsObject(c))
            continue;
        if (opt_num(c, "bytes", &bytes, what, err, errlen) ||
            opt_num(c, "instances", &count, what, err, errlen))
            return -1;
        id->cache_bytes[l] = fmax(bytes, 0);
        id->cache_count[l] = (int)fmin(fmax(count, 0), 1 << 30);
    }
    return 0;
}
