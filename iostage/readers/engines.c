/* engines.c - the table of reader engines, found by name. */
#include "iostage/readers/engine.h"

#include <string.h>

const kb_io_engine *kb_io_engine_find(const char *name)
{
    static const kb_io_engine *const all[] = {
        &kb_io_engine_pread, &kb_io_engine_uring, &kb_io_engine_mmap};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
