/* fuzz_merge.c - libFuzzer target of `kbench io merge` (kb_io_merge_files),
 * whose record reader is its own: the input is one JSON Lines file of
 * ranks' io_epoch records. */
#include "fuzz_file.h"   /* first: it defines _GNU_SOURCE */
#include "drivers/commands.h"
#include "iostage/merge/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "%s", fuzz_file(data, size));
    char *files[] = {path, NULL};
    int rc = kb_io_merge_files(files, 1, NULL, NULL);
    if (rc != KB_EXIT_OK && rc != KB_EXIT_VALIDATION && rc != KB_EXIT_USAGE &&
        rc != KB_EXIT_RUNTIME)
        abort();
    return 0;
}
