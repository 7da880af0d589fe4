/* dump_npy.c - `--dump DIR`: tensors as .npy files plus manifest.jsonl. */
#include "drivers/dump_npy.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Elements gathered per fwrite; keeps memory small for any tensor. */
#define CHUNK 4096

struct kb_dump {
    char *dir;
    FILE *manifest;
};

/* '<' on little-endian hosts, '>' on big-endian: the payload is written
 * in host order, so the descriptor must say which that is. */
static char host_byte_order(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? '<' : '>';
}

/* The NPY format (numpy.lib.format, version 1.0): magic "\x93NUMPY",
 * version bytes 1 0, a little-endian uint16 header length, then a Python
 * dict literal padded with spaces and ended by '\n' so the whole
 * preamble is a multiple of 64 bytes. */
int kb_npy_header(char *buf, size_t len, kb_dtype dt, int ndims,
                  const int64_t *dims)
{
    char dict[512];
    size_t n = (size_t)snprintf(dict, sizeof dict,
                                "{'descr': '%c%c%zu', 'fortran_order': "
                                "False, 'shape': (",
                                host_byte_order(), 'f', kb_dtype_size(dt));
    for (int i = 0; i < ndims && n < sizeof dict; i++)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "%lld,%s",
                              (long long)dims[i],
                              i + 1 < ndims ? " " : "");
    /* A 1-tuple keeps its comma, "(3,)"; longer ones drop the last. */
    if (ndims > 1 && n < sizeof dict)
        n--;
    if (n < sizeof dict)
        n += (size_t)snprintf(dict + n, sizeof dict - n, "), }");
    if (n >= sizeof dict)
        return -1;

    size_t pre = 10;                        /* magic, version, length */
    size_t total = (pre + n + 1 + 63) / 64 * 64;   /* +1 for '\n' */
    size_t hlen = total - pre;
    if (hlen > UINT16_MAX || total > len)
        return -1;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + pre, dict, n);
    memset(buf + pre + n, ' ', hlen - n - 1);
    buf[total - 1] = '\n';
    return (int)total;
}

/* Advance idx to the next logical index in C order (last dim fastest). */
static void next_index(int64_t *idx, const int64_t *dims, int ndims)
{
    for (int d = ndims - 1; d >= 0; d--) {
        if (++idx[d] < dims[d])
            return;
        idx[d] = 0;
    }
}

kb_dtype kb_npy_disk_dtype(kb_dtype dt)
{
    /* NumPy has no bf16: such tensors are widened (exactly) to f32. */
    return dt == KB_BF16 ? KB_F32 : dt;
}

int kb_npy_write_arg(FILE *f, const kb_problem *p, kb_arg a,
                     const void *base, char *err, size_t len)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const kb_arg_info *ai = &info[a];
    kb_dtype disk = kb_npy_disk_dtype(ai->dt);
    char header[1024];
    int hlen = kb_npy_header(header, sizeof header, disk, ai->ndims,
                             ai->dims);
    if (hlen < 0) {
        snprintf(err, len, "npy header for %s does not fit", ai->name);
        return -1;
    }
    if (fwrite(header, 1, (size_t)hlen, f) != (size_t)hlen)
        goto write_error;

    size_t esize = kb_dtype_size(disk);
    unsigned char chunk[CHUNK * sizeof(double)];
    int64_t idx[KB_MAX_DIMS] = {0};
    int64_t done = 0;
    while (done < ai->nelems) {
        int64_t n = ai->nelems - done < CHUNK ? ai->nelems - done : CHUNK;
        for (int64_t i = 0; i < n; i++) {
            double v = kb_load(ai->dt, base, kb_arg_offset(p, a, idx));
            kb_store(disk, chunk, i, v);
            next_index(idx, ai->dims, ai->ndims);
        }
        if (fwrite(chunk, esize, (size_t)n, f) != (size_t)n)
            goto write_error;
        done += n;
    }
    return 0;

write_error:
    snprintf(err, len, "writing %s: %s", ai->name, strerror(errno));
    return -1;
}

kb_dump *kb_dump_open(const char *dir, char *err, size_t len)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 &&
        !(errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
        snprintf(err, len, "--dump %s: cannot create directory: %s", dir,
                 errno == EEXIST ? "a file of that name exists"
                                 : strerror(errno));
        return NULL;
    }
    kb_dump *d = calloc(1, sizeof *d);
    char path[PATH_MAX];
    if (!d || !(d->dir = strdup(dir))) {
        snprintf(err, len, "--dump %s: out of memory", dir);
        goto fail;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/manifest.jsonl", dir) >=
        sizeof path) {
        snprintf(err, len, "--dump %s: path too long", dir);
        goto fail;
    }
    d->manifest = fopen(path, "a");
    if (!d->manifest) {
        snprintf(err, len, "--dump: cannot open %s: %s", path,
                 strerror(errno));
        goto fail;
    }
    return d;

fail:
    if (d)
        free(d->dir);
    free(d);
    return NULL;
}

/* Add a JSON array of n integers, each plus `add`, to obj.  Returns the
 * array or NULL when out of memory. */
static cJSON *add_int_array(cJSON *obj, const char *key, const int64_t *v,
                            int n, int64_t add)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    for (int i = 0; arr && i < n; i++) {
        cJSON *x = cJSON_CreateNumber((double)(v[i] + add));
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            return NULL;
        }
    }
    return arr;
}

/* The manifest entry of one tensor file: its file name, whether the
 * kernel read it (input) or wrote it (output), its storage type in the
 * kernel and on disk, and its logical shape.  Returns false when out of
 * memory. */
static bool add_tensor_entry(cJSON *tensors, const char *name,
                             const char *file, bool input,
                             const kb_arg_info *ai)
{
    cJSON *e = cJSON_AddObjectToObject(tensors, name);
    return e && cJSON_AddStringToObject(e, "file", file) &&
           cJSON_AddStringToObject(e, "role", input ? "input" : "output") &&
           cJSON_AddStringToObject(e, "dtype", kb_dtype_name(ai->dt)) &&
           cJSON_AddStringToObject(e, "stored",
                                   kb_dtype_name(kb_npy_disk_dtype(ai->dt))) &&
           add_int_array(e, "shape", ai->dims, ai->ndims, 0);
}

/* Write one tensor to DIR/<seq>_<backend>_<name>.npy and describe it
 * under `name` in tensors.  Returns 0, or -1 with err set. */
static int dump_tensor(kb_dump *d, int64_t seq, const char *backend,
                       const char *name, bool input, const kb_problem *p,
                       kb_arg a, const void *base, cJSON *tensors, char *err,
                       size_t len)
{
    char file[256], path[PATH_MAX];
    if ((size_t)snprintf(file, sizeof file, "%lld_%s_%s.npy",
                         (long long)seq, backend, name) >= sizeof file ||
        (size_t)snprintf(path, sizeof path, "%s/%s", d->dir, file) >=
            sizeof path) {
        snprintf(err, len, "--dump %s: path for %s too long", d->dir, name);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, len, "--dump: cannot create %s: %s", path,
                 strerror(errno));
        return -1;
    }
    char why[256];
    int rc = kb_npy_write_arg(f, p, a, base, why, sizeof why);
    if (fclose(f) != 0 && rc == 0) {
        snprintf(why, sizeof why, "closing: %s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        snprintf(err, len, "--dump: %s: %s", path, why);
        return -1;
    }
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    if (!add_tensor_entry(tensors, name, file, input, &info[a])) {
        snprintf(err, len, "--dump: out of memory recording %s", file);
        return -1;
    }
    return 0;
}

/* The kernel's own parameters: conv strides, pads, dilations (1-based:
 * 1 is no dilation, unlike the descriptor's 0-based dd/dh/dw) and
 * groups; bnorm eps; GEMM transposes and scalars.  Returns the object
 * or NULL when out of memory. */
static cJSON *add_params(cJSON *obj, const kb_problem *p)
{
    cJSON *prm = cJSON_AddObjectToObject(obj, "params");
    if (!prm)
        return NULL;
    bool ok = true;
    if (p->kind == KB_CONV) {
        const kb_conv_desc *c = &p->conv;
        /* 2D problems list only the H and W entries. */
        int first = c->ndims == 3 ? 0 : 1, n = c->ndims;
        int64_t s[3] = {c->sd, c->sh, c->sw}, pd[3] = {c->pd, c->ph, c->pw},
                dl[3] = {c->dd, c->dh, c->dw};
        ok = add_int_array(prm, "stride", s + first, n, 0) &&
             add_int_array(prm, "pad", pd + first, n, 0) &&
             add_int_array(prm, "dilation", dl + first, n, 1) &&
             cJSON_AddNumberToObject(prm, "groups", (double)c->g);
    } else if (p->kind == KB_BNORM) {
        ok = cJSON_AddNumberToObject(prm, "eps", p->bnorm.eps) != NULL;
    } else {
        const kb_gemm_desc *g = &p->gemm;
        ok = cJSON_AddBoolToObject(prm, "transa", g->ta) &&
             cJSON_AddBoolToObject(prm, "transb", g->tb) &&
             cJSON_AddNumberToObject(prm, "alpha", g->alpha) &&
             cJSON_AddNumberToObject(prm, "beta", g->beta);
    }
    return ok ? prm : NULL;
}

/* Write every tensor of the case and describe them in tensors.  Returns
 * 0, or -1 with err set. */
static int dump_tensors(kb_dump *d, int64_t seq, const char *backend,
                        const kb_problem *p, const kb_tensors *inputs,
                        const kb_tensors *t, cJSON *tensors, char *err,
                        size_t len)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *ai = &info[a];
        if (!ai->used)
            continue;
        /* The initial content of an input-output tensor, under its
         * input name; a pure input under its own name. */
        if (ai->is_input && (ai->input_name || !ai->is_output)) {
            const char *name = ai->is_output ? ai->input_name : ai->name;
            if (dump_tensor(d, seq, backend, name, true, p, (kb_arg)a,
                            inputs->ptr[a], tensors, err, len) != 0)
                return -1;
        }
        if (ai->is_output &&
            dump_tensor(d, seq, backend, ai->name, false, p, (kb_arg)a,
                        t->ptr[a], tensors, err, len) != 0)
            return -1;
    }
    return 0;
}

int kb_dump_case(kb_dump *d, int64_t seq, const char *backend,
                 const kb_problem *p, const char *desc,
                 const kb_tensors *inputs, const kb_tensors *t, char *err,
                 size_t len)
{
    int rc = -1;
    char *line = NULL;
    cJSON *obj = cJSON_CreateObject();
    cJSON *tensors = NULL;
    char dts[32];
    kb_dts_format(&p->dt, dts, sizeof dts);
    if (!obj || !cJSON_AddNumberToObject(obj, "seq", (double)seq) ||
        !cJSON_AddStringToObject(obj, "desc", desc) ||
        !cJSON_AddStringToObject(obj, "kernel", kb_problem_kernel_name(p)) ||
        !cJSON_AddStringToObject(obj, "backend", backend) ||
        !cJSON_AddStringToObject(obj, "dir", kb_dir_name(p->dir)) ||
        !cJSON_AddStringToObject(obj, "dtype", dts) ||
        !cJSON_AddStringToObject(obj, "fpmath", kb_fpmath_name(p->fpmath)) ||
        !cJSON_AddStringToObject(obj, "layout", kb_layout_name(p)) ||
        !add_params(obj, p) ||
        !(tensors = cJSON_AddObjectToObject(obj, "tensors"))) {
        snprintf(err, len, "--dump: out of memory building the manifest");
        goto done;
    }
    if (dump_tensors(d, seq, backend, p, inputs, t, tensors, err, len) != 0)
        goto done;
    line = cJSON_PrintUnformatted(obj);
    if (!line) {
        snprintf(err, len, "--dump: out of memory printing the manifest");
        goto done;
    }
    if (fprintf(d->manifest, "%s\n", line) < 0 || fflush(d->manifest) != 0) {
        snprintf(err, len, "--dump: writing %s/manifest.jsonl: %s", d->dir,
                 strerror(errno));
        goto done;
    }
    rc = 0;
done:
    cJSON_free(line);
    cJSON_Delete(obj);
    return rc;
}

int kb_dump_close(kb_dump *d)
{
    int rc = fclose(d->manifest) == 0 ? 0 : -1;
    free(d->dir);
    free(d);
    return rc;
}
