/* onednn_desc.c - the engine, status checks, element types, the
 * --fpmath attribute and primitive descriptor creation that tells "no
 * implementation here" (SKIPPED) from an error. */
#include "onednn_internal.h"

#include <oneapi/dnnl/dnnl_debug.h>
#include <stdio.h>
#include <string.h>

int dn_check(dnnl_status_t s, const char *what, char *err, size_t len)
{
    if (s == dnnl_success)
        return 0;
    snprintf(err, len, "oneDNN %s: %s", what, dnnl_status2str(s));
    return -1;
}

int dn_engine(dnnl_engine_t *eng, dnnl_stream_t *strm, char *err, size_t len)
{
    /* One engine and stream for the process: creating them per problem
     * would re-detect the CPU every time.  They live until exit. */
    static dnnl_engine_t engine;
    static dnnl_stream_t stream;

    if (!engine) {
        if (dn_check(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine_create",
                     err, len))
            return -1;
        if (dn_check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
                     "stream_create", err, len)) {
            dnnl_engine_destroy(engine);
            engine = NULL;
            return -1;
        }
    }
    *eng = engine;
    *strm = stream;
    return 0;
}

dnnl_data_type_t dn_dtype(kb_dtype dt)
{
    switch (dt) {
    case KB_F32: return dnnl_f32;
    case KB_BF16: return dnnl_bf16;
    case KB_F16: return dnnl_f16;
    case KB_F64: break;
    }
    return dnnl_data_type_undef;
}

#if defined(__aarch64__)
#define KB_ONEDNN_ARCH "aarch64"
#else
#define KB_ONEDNN_ARCH "this architecture"
#endif

const char *dn_isa_name(void)
{
    /* dnnl_cpu_isa_t names x86's ISAs only: elsewhere oneDNN returns its
     * own architecture's values through it, which read as x86 names */
#if defined(__x86_64__)
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "all";
    }
#else
    return KB_ONEDNN_ARCH;
#endif
}

int dn_attr_create(const kb_problem *p, dnnl_primitive_attr_t *attr,
                   char *err, size_t len)
{
    /* tf32 has no mode in 2.6: supports() refuses it for problems with
     * f32 tensors, and on the others (bf16, f16) strict is what it means. */
    dnnl_fpmath_mode_t mode = p->fpmath == KB_FPMATH_BF16  ? dnnl_fpmath_mode_bf16
                              : p->fpmath == KB_FPMATH_ANY ? dnnl_fpmath_mode_any
                                                           : dnnl_fpmath_mode_strict;
    if (dn_check(dnnl_primitive_attr_create(attr), "attr create", err, len))
        return -1;
    if (dn_check(dnnl_primitive_attr_set_fpmath_mode(*attr, mode), "set_fpmath_mode",
                 err, len)) {
        dnnl_primitive_attr_destroy(*attr);
        *attr = NULL;
        return -1;
    }
    return 0;
}

int dn_pd_create(dnnl_primitive_desc_t *pd, const void *op_desc,
                 const_dnnl_primitive_attr_t attr, const_dnnl_primitive_desc_t hint,
                 const kb_problem *p, const char *what, char *err, size_t len)
{
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_primitive_attr_t own = NULL;
    dnnl_status_t s;

    if (dn_engine(&eng, &strm, err, len))
        return -1;
    if (!attr) {
        if (dn_attr_create(p, &own, err, len))
            return -1;
        attr = own;
    }
    s = dnnl_primitive_desc_create(pd, op_desc, attr, eng, hint);
    if (own)
        dnnl_primitive_attr_destroy(own);
    if (s == dnnl_unimplemented) {
        const dnnl_version_t *v = dnnl_version();
        char dt[32];
        kb_dts_format(&p->dt, dt, sizeof dt);
        snprintf(err, len, "oneDNN %d.%d.%d has no %s %s%s%s on %s", v->major,
                 v->minor, v->patch, dt, what,
                 p->fpmath == KB_FPMATH_STRICT ? "" : " under fpmath ",
                 p->fpmath == KB_FPMATH_STRICT ? "" : kb_fpmath_name(p->fpmath),
                 dn_isa_name());
        return DN_UNIMPLEMENTED;
    }
    char where[96];
    snprintf(where, sizeof where, "%s primitive desc", what);
    return dn_check(s, where, err, len);
}

int dn_make_desc(const kb_problem *p, dn_desc *d, char *err, size_t len)
{
    int rc;

    memset(d, 0, sizeof *d);
    switch (p->kind) {
    case KB_CONV: rc = dn_conv_desc(p, d, err, len); break;
    case KB_GEMM: rc = dn_matmul_desc(p, d, err, len); break;
    default: rc = dn_bnorm_desc(p, d, err, len); break;
    }
    if (rc)
        dn_desc_free(d);
    return rc;
}

void dn_desc_free(dn_desc *d)
{
    if (d->pd)
        dnnl_primitive_desc_destroy(d->pd);
    if (d->hint)
        dnnl_primitive_desc_destroy(d->hint);
    d->pd = d->hint = NULL;
}
