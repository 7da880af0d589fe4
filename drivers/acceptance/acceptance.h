/* acceptance.h - what `kbench baseline` and `kbench check` share: the
 * result files they read (refused the same way), a case's key, and
 * writing an output file whole or not at all. */
#ifndef KB_ACCEPTANCE_H
#define KB_ACCEPTANCE_H

#include "drivers/results/results.h"

#include <stddef.h>

/* Room for a case key: a descriptor of a few hundred characters and the
 * five short names; a longer key is cut, and compared cut. */
#define KB_KEY_LEN 2048

/* The case's key with its backend (kb_result_case_key), in new memory;
 * NULL when out of memory. */
char *kb_case_key_dup(const kb_result_case *c);

/* Load paths[n] into files[n] (inputs.c).  Beyond what the reader
 * refuses, a file with no case record (an empty run) or without its
 * summary record (a run killed before it finished: truncated) is refused,
 * since judging it would judge cases that never ran, and so is one file
 * given twice (one node counted twice).  Returns 0, or -1
 * after "kbench VERB: PATH:LINE: what is wrong" on stderr, with nothing
 * left to free. */
int kb_acceptance_load(const char *verb, char **paths, int n,
                       kb_result_file *files);

void kb_acceptance_free(kb_result_file *files, int n);

/* Write data[n] to path through a temporary file in the same directory,
 * flushed to disk and renamed over path (atomic_file.c): readers see the
 * old file or the whole new one.  Returns 0, or -1 with err naming the
 * file and the reason; the temporary file is removed then. */
int kb_write_atomic(const char *path, const char *data, size_t n, char *err,
                    size_t len);

#endif
