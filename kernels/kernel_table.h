/* kernel_table.h - the one list of kernels kbench times: name, kind,
 * description, chart marker and colour.  `run --kernel`, `list kernels`,
 * the charts and the training roll-up all read it; a new kernel is a row
 * here. */
#ifndef KB_KERNEL_TABLE_H
#define KB_KERNEL_TABLE_H

#include "kernels/problem.h"

typedef enum {
    KB_KERNEL_CONV2D,
    KB_KERNEL_CONV3D,
    KB_KERNEL_GEMM,
    KB_KERNEL_BNORM,
    KB_KERNEL_COUNT
} kb_kernel_id;

/* How a chart marks a kernel's points. */
typedef enum {
    KB_MARK_CIRCLE,
    KB_MARK_SQUARE,
    KB_MARK_TRIANGLE,
    KB_MARK_DIAMOND,
} kb_mark;

typedef struct {
    const char *name;          /* "conv2d": descriptors, records, --kernel */
    kb_kind kind;
    int ndims;                 /* spatial dimensions (conv), else 0 */
    const char *description;   /* one line for `kbench list kernels` */
    kb_mark mark;
    const char *colour;        /* "#56B4E9": Okabe-Ito, colour-blind safe */
} kb_kernel_info;

/* Row id of the table, in report order. */
extern const kb_kernel_info kb_kernel_table[KB_KERNEL_COUNT];

/* The kernel called name, or -1 when there is none.  Can't fail. */
int kb_kernel_find(const char *name);

/* The kernel of problem p.  Can't fail. */
kb_kernel_id kb_kernel_of(const kb_problem *p);

#endif
