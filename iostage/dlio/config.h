/* config.h - DLIO's workload configs into profiles (dlio_config.c). */
#ifndef KB_IO_DLIO_CONFIG_H
#define KB_IO_DLIO_CONFIG_H

#include "iostage/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A DLIO workload YAML (Hydra's `workload` group: dataset.*, reader.*,
 * train.*, checkpoint.*, workflow.*, metric.*) with `key=value` overrides
 * (DLIO's `++workload.dataset.num_files_train=8`, or without the prefix)
 * into a profile.  The mapping is data (dlio_keys.conf): a key kbench
 * does not implement is a warning on stderr when it cannot change the
 * measurement and KB_IO_USAGE when it would.  data_folder (dlen bytes)
 * gets storage.storage_root/dataset.data_folder, for --dir's default.
 * path NULL: DLIO's defaults, the dataset's shape (files, samples a
 * file, format, prefix, subfolders) left 0 for kb_io_dlio_scan unless an
 * override sets it.  0, KB_IO_USAGE naming the file, line and key (or the
 * override), or KB_IO_ERROR. */
int kb_io_dlio_config_load(const char *path, char **overrides, int noverrides,
                           kb_io_profile *p, char *data_folder, size_t dlen,
                           char *err, size_t len);
/* Make the folder path and its parents, as DLIO makes its
 * checkpoint_folder (os.makedirs, exist_ok).  0, KB_IO_USAGE (empty or
 * too long) or KB_IO_ERROR naming the folder. */
int kb_io_dlio_make_folder(const char *path, char *err, size_t len);

#endif
