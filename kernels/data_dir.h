/* data_dir.h - where kbench's data files (catalog/, io/, peaks/) are found. */
#ifndef KB_DATA_DIR_H
#define KB_DATA_DIR_H

#include <stddef.h>

/* The directory holding kbench's data files (catalog/, io/, peaks/):
 * $KBENCH_DATA_DIR when set, else <directory of the running
 * executable>/../share/kbench (read via /proc/self/exe) when that exists,
 * else <directory of the executable>/share/kbench (kbench itself sits at
 * the top of the build tree, beside its staged share/).  Returns NULL when
 * none is available. */
const char *kb_data_dir(void);

/* Build "<data dir>/<rel>" into out.  Returns 0, or -1 with a message in
 * err ("no kbench data directory: set KBENCH_DATA_DIR or install kbench",
 * naming the directories looked at / path too long). */
int kb_data_path(const char *rel, char *out, size_t len, char *err,
                 size_t errlen);

#endif
