/* names.c - names of kinds, data types, layouts and directions, and their parsers. */
#include "kernels/problem.h"
#include "kernels/kernel_table.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Returns the settings every problem starts from: the descriptor's own
 * batch, f32, channels-first, direction chosen per kind.  Can't fail. */
void kb_settings_default(kb_settings *s)
{
    s->mb = 0;
    s->dt = kb_dts_uniform(KB_F32);
    s->layout = KB_LAYOUT_NCX;
    s->dir = KB_FWD_D;
    s->dir_given = false;
    s->fpmath = KB_FPMATH_STRICT;
}

/* A kind with one kernel is named after it (the kernel table); conv,
 * whose kernels are conv2d and conv3d, is "conv".  Returns a static
 * string; never NULL. */
const char *kb_kind_name(kb_kind kind)
{
    if (kind == KB_CONV)
        return "conv";
    for (int i = 0; i < KB_KERNEL_COUNT; i++)
        if (kb_kernel_table[i].kind == kind)
            return kb_kernel_table[i].name;
    return "unknown";
}

/* Returns a static string; never NULL. */
const char *kb_problem_kernel_name(const kb_problem *p)
{
    return kb_kernel_table[kb_kernel_of(p)].name;
}

/* One table for every element type: adding one is a line here (and its
 * conversions in tensors.c). */
static const struct {
    const char *name;
    size_t size;
    double epsilon;            /* unit roundoff: 2^-(mantissa bits + 1) */
} dtypes[KB_DTYPE_COUNT] = {
    [KB_F32] = {"f32", 4, 0x1p-24},
    [KB_F64] = {"f64", 8, 0x1p-53},
    [KB_BF16] = {"bf16", 2, 0x1p-8},
    [KB_F16] = {"f16", 2, 0x1p-11},
};

/* Returns a static string; never NULL. */
const char *kb_dtype_name(kb_dtype dt)
{
    return (unsigned)dt < KB_DTYPE_COUNT ? dtypes[dt].name : "unknown";
}

/* Returns the element size in bytes; can't fail. */
size_t kb_dtype_size(kb_dtype dt)
{
    return (unsigned)dt < KB_DTYPE_COUNT ? dtypes[dt].size : 4;
}

double kb_dtype_epsilon(kb_dtype dt)
{
    return (unsigned)dt < KB_DTYPE_COUNT ? dtypes[dt].epsilon : 0x1p-24;
}

/* Returns 0, or -1 when s names no element type (case-insensitive). */
int kb_dtype_parse(const char *s, kb_dtype *out)
{
    for (int i = 0; i < KB_DTYPE_COUNT; i++)
        if (strcasecmp(s, dtypes[i].name) == 0) {
            *out = (kb_dtype)i;
            return 0;
        }
    return -1;
}

kb_dts kb_dts_uniform(kb_dtype t)
{
    return (kb_dts)KB_DTS_INIT(t);
}

bool kb_dts_all(const kb_dts *d, kb_dtype t)
{
    return d->src == t && d->wei == t && d->dst == t;
}

bool kb_dts_has(const kb_dts *d, kb_dtype t)
{
    return d->src == t || d->wei == t || d->dst == t;
}

kb_dtype kb_problem_acc_dtype(const kb_problem *p)
{
    return kb_dts_has(&p->dt, KB_F64) ? KB_F64 : KB_F32;
}

int kb_dts_format(const kb_dts *d, char *buf, size_t len)
{
    if (d->src == d->wei && d->wei == d->dst)
        return snprintf(buf, len, "%s", kb_dtype_name(d->src));
    return snprintf(buf, len, "%s:%s:%s", kb_dtype_name(d->src),
                    kb_dtype_name(d->wei), kb_dtype_name(d->dst));
}

static const char dts_expected[] =
    "expected f32, f64, bf16, f16 or SRC:WEI:DST (e.g. bf16:bf16:f32)";

/* Returns 0, or -1 naming the bad part of s in err. */
int kb_dts_parse(const char *s, kb_dts *out, char *err, size_t errlen)
{
    kb_dtype t[3];
    int n = 0;
    const char *part = s;
    for (;;) {
        const char *colon = strchr(part, ':');
        size_t len = colon ? (size_t)(colon - part) : strlen(part);
        char word[16];
        if (n == 3) {
            snprintf(err, errlen, "'%s': more than three types; %s", s,
                     dts_expected);
            return -1;
        }
        if (len == 0 || len >= sizeof word) {
            snprintf(err, errlen, "'%s': empty or overlong type '%.*s'; %s",
                     s, (int)(len < sizeof word ? len : sizeof word), part,
                     dts_expected);
            return -1;
        }
        memcpy(word, part, len);
        word[len] = '\0';
        if (kb_dtype_parse(word, &t[n]) != 0) {
            snprintf(err, errlen, "'%s': unknown type '%s'; %s", s, word,
                     dts_expected);
            return -1;
        }
        n++;
        if (!colon)
            break;
        part = colon + 1;
    }
    if (n == 2) {
        snprintf(err, errlen, "'%s': two types; %s", s, dts_expected);
        return -1;
    }
    *out = n == 1 ? kb_dts_uniform(t[0]) : (kb_dts){t[0], t[1], t[2]};
    if (kb_dts_has(out, KB_F64) && !kb_dts_all(out, KB_F64)) {
        snprintf(err, errlen, "'%s': f64 does not mix with other types; %s",
                 s, dts_expected);
        return -1;
    }
    return 0;
}

bool kb_dts_valid_for(kb_kind kind, const kb_dts *d, char *why, size_t len)
{
    char buf[32];
    if (kind == KB_BNORM && !(d->src == d->wei && d->wei == d->dst)) {
        kb_dts_format(d, buf, sizeof buf);
        snprintf(why, len, "bnorm takes one data type for src and dst, not "
                 "%s (its statistics are always f32, or f64)", buf);
        return false;
    }
    return true;
}

/* The layout name depends on the problem: a GEMM is always row-major and a
 * 3D problem has a D dimension.  Returns a static string. */
const char *kb_layout_name(const kb_problem *p)
{
    bool nxc = p->layout == KB_LAYOUT_NXC;
    bool is3d = (p->kind == KB_CONV && p->conv.ndims == 3) ||
                (p->kind == KB_BNORM && p->bnorm.ndims == 3);
    if (p->kind == KB_GEMM)
        return "row-major";
    if (is3d)
        return nxc ? "NDHWC" : "NCDHW";
    return nxc ? "NHWC" : "NCHW";
}

/* Accepts benchdnn's tags: the 2D and 3D spellings name the same
 * channels-first or channels-last family (abx / axb are dimension-generic).
 * Returns 0, or -1 for anything else. */
int kb_layout_parse(const char *s, kb_layout *out)
{
    static const char *const ncx[] = {"nchw", "ncdhw", "abx"};
    static const char *const nxc[] = {"nhwc", "ndhwc", "axb"};
    for (size_t i = 0; i < sizeof ncx / sizeof ncx[0]; i++) {
        if (strcasecmp(s, ncx[i]) == 0) {
            *out = KB_LAYOUT_NCX;
            return 0;
        }
        if (strcasecmp(s, nxc[i]) == 0) {
            *out = KB_LAYOUT_NXC;
            return 0;
        }
    }
    return -1;
}

#define CONV_B (1u << KB_CONV)
#define GEMM_B (1u << KB_GEMM)
#define BNORM_B (1u << KB_BNORM)

/* benchdnn's direction names and the kernel kinds that have each. */
static const struct {
    const char *name;
    unsigned kinds;
    bool backward;
} dirs[KB_DIR_COUNT] = {
    [KB_FWD_D] = {"FWD_D", CONV_B | GEMM_B | BNORM_B, false},
    [KB_FWD_B] = {"FWD_B", CONV_B | GEMM_B, false},
    [KB_FWD_I] = {"FWD_I", CONV_B | GEMM_B | BNORM_B, false},
    [KB_BWD_D] = {"BWD_D", CONV_B | BNORM_B, true},
    [KB_BWD_W] = {"BWD_W", CONV_B, true},
    [KB_BWD_WB] = {"BWD_WB", CONV_B, true},
    [KB_BWD_DW] = {"BWD_DW", BNORM_B, true},
};

/* Returns a static string; never NULL. */
const char *kb_dir_name(kb_dir dir)
{
    return (unsigned)dir < KB_DIR_COUNT ? dirs[dir].name : "unknown";
}

/* Returns 0, or -1 when s names no direction (case-insensitive). */
int kb_dir_parse(const char *s, kb_dir *out)
{
    for (int i = 0; i < KB_DIR_COUNT; i++) {
        if (strcasecmp(s, dirs[i].name) == 0) {
            *out = (kb_dir)i;
            return 0;
        }
    }
    return -1;
}

unsigned kb_dir_mask(kb_kind kind)
{
    unsigned m = 0;
    for (int i = 0; i < KB_DIR_COUNT; i++)
        if (dirs[i].kinds & (1u << kind))
            m |= 1u << i;
    return m;
}

bool kb_dir_applies(kb_kind kind, kb_dir dir)
{
    return (unsigned)dir < KB_DIR_COUNT && (dirs[dir].kinds & (1u << kind));
}

bool kb_dir_is_backward(kb_dir dir)
{
    return (unsigned)dir < KB_DIR_COUNT && dirs[dir].backward;
}

/* Returns a static string per kind, built once from the table. */
const char *kb_dir_list(kb_kind kind)
{
    static char lists[KB_KIND_COUNT][96];
    char *l = lists[kind];
    if (!l[0]) {
        size_t n = 0;
        for (int i = 0; i < KB_DIR_COUNT; i++)
            if (dirs[i].kinds & (1u << kind))
                n += (size_t)snprintf(l + n, sizeof lists[0] - n, "%s%s",
                                      n ? ", " : "", dirs[i].name);
    }
    return l;
}

static const char *const fpmath_names[] = {
    [KB_FPMATH_STRICT] = "strict", [KB_FPMATH_TF32] = "tf32",
    [KB_FPMATH_BF16] = "bf16", [KB_FPMATH_ANY] = "any"};

const char *kb_fpmath_name(kb_fpmath m)
{
    return (unsigned)m <= KB_FPMATH_ANY ? fpmath_names[m] : "unknown";
}

/* Returns 0, or -1 when s is not strict, tf32, bf16 or any. */
int kb_fpmath_parse(const char *s, kb_fpmath *out)
{
    for (int i = 0; i <= KB_FPMATH_ANY; i++)
        if (strcasecmp(s, fpmath_names[i]) == 0) {
            *out = (kb_fpmath)i;
            return 0;
        }
    return -1;
}
