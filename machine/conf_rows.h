/* conf_rows.h - the line reader shared by kbench's whitespace tables
 * (microarch.conf, gpu_arch.conf): '#' comments and blank lines skipped,
 * each row split at blanks and handed to a callback with its path:line. */
#ifndef KB_CONF_ROWS_H
#define KB_CONF_ROWS_H

#include <stddef.h>

/* One row: its columns (ncols of them; ncols == max + 1 means the row
 * has more than the table's max columns), "path:line" for messages.
 * Returns 0 to go on, non-zero to stop (1: found, -1: bad row, why set). */
typedef int (*kb_conf_row_fn)(char **cols, int ncols, const char *where,
                              void *ctx, char *why, size_t len);

/* Call row() for each row of the table at path, in order, until one
 * returns non-zero.  Returns what that row returned, 0 when none did, or
 * -1 with why when the file cannot be opened. */
int kb_conf_rows(const char *path, int max, kb_conf_row_fn row, void *ctx,
                 char *why, size_t len);

/* A device or CPU name with every blank written as '_', as the tables'
 * name globs spell it ("*Gold_6*", "*H100_PCIe*").  Can't fail. */
void kb_conf_glob_name(const char *name, char *dst, size_t len);

#endif
