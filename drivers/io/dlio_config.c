/* dlio_config.c - STUB until the dlio-config helper writes it. */
#include "io_internal.h"

int kb_io_dlio_config_load(const char *path, char **overrides, int noverrides,
                           kb_io_profile *p, char *data_folder, size_t dlen,
                           char *err, size_t len)
{
    (void)path, (void)overrides, (void)noverrides, (void)p, (void)data_folder,
        (void)dlen;
    snprintf(err, len, "--dlio-config not implemented yet");
    return KB_IO_USAGE;
}
