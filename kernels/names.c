/* names.c - names of kinds, data types, layouts and directions, and their parsers. */
#include "kernels/problem.h"

#include <strings.h>

/* Returns the settings every problem starts from: the descriptor's own
 * batch, f32, channels-first, direction chosen per kind.  Can't fail. */
void kb_settings_default(kb_settings *s)
{
    s->mb = 0;
    s->dt = KB_F32;
    s->layout = KB_LAYOUT_NCX;
    s->dir = KB_FWD_D;
    s->dir_given = false;
}

/* Returns a static string; never NULL. */
const char *kb_problem_kernel_name(const kb_problem *p)
{
    switch (p->kind) {
    case KB_CONV: return p->conv.ndims == 3 ? "conv3d" : "conv2d";
    case KB_GEMM: return "gemm";
    case KB_BNORM: return "bnorm";
    }
    return "unknown";
}

/* Returns a static string; never NULL. */
const char *kb_dtype_name(kb_dtype dt)
{
    return dt == KB_F64 ? "f64" : "f32";
}

/* Returns the element size in bytes; can't fail. */
size_t kb_dtype_size(kb_dtype dt)
{
    return dt == KB_F64 ? sizeof(double) : sizeof(float);
}

/* Returns 0, or -1 when s is neither "f32" nor "f64" (case-insensitive). */
int kb_dtype_parse(const char *s, kb_dtype *out)
{
    if (strcasecmp(s, "f32") == 0) {
        *out = KB_F32;
        return 0;
    }
    if (strcasecmp(s, "f64") == 0) {
        *out = KB_F64;
        return 0;
    }
    return -1;
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

static const char *const dir_names[] = {"FWD_D", "FWD_B", "FWD_I"};

/* Returns a static string; never NULL. */
const char *kb_dir_name(kb_dir dir)
{
    return (unsigned)dir < 3 ? dir_names[dir] : "unknown";
}

/* Returns 0, or -1 when s is not FWD_D, FWD_B or FWD_I (case-insensitive). */
int kb_dir_parse(const char *s, kb_dir *out)
{
    for (int i = 0; i < 3; i++) {
        if (strcasecmp(s, dir_names[i]) == 0) {
            *out = (kb_dir)i;
            return 0;
        }
    }
    return -1;
}
