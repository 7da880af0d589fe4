/* dlio_layout.c - STUB until the dlio-formats helper writes it. */
#include "io_internal.h"

#include <string.h>
#include <stdlib.h>

char *kb_io_dlio_file_path(const char *dir, const kb_io_profile *p, int64_t i)
{
    (void)dir, (void)p, (void)i;
    return NULL;
}

int kb_io_dlio_mkdirs(const char *dir, const kb_io_profile *p, char *err,
                      size_t len)
{
    (void)dir, (void)p;
    snprintf(err, len, "DLIO layout not implemented yet");
    return KB_IO_USAGE;
}

int kb_io_dlio_scan(const char *dir, kb_io_profile *p, char *err, size_t len)
{
    (void)dir, (void)p;
    snprintf(err, len, "DLIO layout not implemented yet");
    return KB_IO_USAGE;
}
