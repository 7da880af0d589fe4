/* dump_npy.h - `kbench run --dump DIR`: each case's tensors as NumPy .npy
 * files in logical shape, and a manifest.jsonl line per case.
 *
 * Files are named <seq>_<backend>_<argname>.npy, with benchdnn's tensor
 * names (kernels/tensors.c).  Inputs are dumped as filled, outputs as the
 * backend wrote them; a tensor that is both (GEMM dst with beta != 0) is
 * dumped twice: its initial content under its input name ("c") and the
 * result under its own ("dst").  The manifest line names the direction,
 * the dtype triple and fpmath, and per tensor its file, role, storage
 * type and the type on disk (bf16 is stored as f32). */
#ifndef KB_DUMP_NPY_H
#define KB_DUMP_NPY_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* NPY v1.0 header for a C-order array of dt with the given shape, padded
 * with spaces and a final '\n' so that magic + header is a multiple of 64
 * bytes.  Returns its length, or -1 when buf (len bytes) is too small or
 * the header would not fit v1.0's 16-bit length. */
int kb_npy_header(char *buf, size_t len, kb_dtype dt, int ndims,
                  const int64_t *dims);

/* The type a tensor of dt is written as: dt itself, except bf16, which
 * NumPy lacks, widened exactly to f32.  f16 stays '<f2'. */
kb_dtype kb_npy_disk_dtype(kb_dtype dt);

/* Write arg a of p, from base (physical layout), to `f` as an .npy
 * stream: gathered element by element through kb_arg_offset into logical
 * C order.  Returns 0, or -1 with a message in err on a write error. */
int kb_npy_write_arg(FILE *f, const kb_problem *p, kb_arg a,
                     const void *base, char *err, size_t len);

typedef struct kb_dump kb_dump;

/* Create dir when missing (one level) and open dir/manifest.jsonl for
 * appending.  Returns NULL with a message in err naming the directory and
 * the reason. */
kb_dump *kb_dump_open(const char *dir, char *err, size_t len);

/* Dump one case: inputs from `inputs` (as filled), outputs from `t` (as
 * the backend wrote them; may be the same tensors), then append and
 * flush its manifest line.  Returns 0, or -1 with a message in err
 * naming the file that could not be written. */
int kb_dump_case(kb_dump *d, int64_t seq, const char *backend,
                 const kb_problem *p, const char *desc,
                 const kb_tensors *inputs, const kb_tensors *t, char *err,
                 size_t len);

/* Close the manifest and free d.  Returns 0, or -1 when the manifest
 * could not be flushed (d is freed either way). */
int kb_dump_close(kb_dump *d);

#endif
