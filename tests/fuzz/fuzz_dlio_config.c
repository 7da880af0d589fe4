/* fuzz_dlio_config.c - libFuzzer target of the DLIO workload YAML loader
 * (kb_io_dlio_config_load), which takes a path: the input up to its first
 * NUL byte is the YAML file; each NUL-separated piece after it is one
 * `key=value` override. */
#include "fuzz_file.h"   /* first: it defines _GNU_SOURCE */
#include "iostage/dlio/config.h"
#include "iostage/profile.h"
#include "iostage/stage.h"

#include <string.h>

#define MAX_OVERRIDES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy with a NUL after the end, cut into pieces */
    char *text = fuzz_cstring(data, size);
    size_t yaml = strlen(text);
    char *overrides[MAX_OVERRIDES];
    int n = 0;
    for (char *sep = text + yaml; sep < text + size && n < MAX_OVERRIDES;
         sep += 1 + strlen(sep + 1))
        overrides[n++] = sep + 1;
    const char *path = fuzz_file(text, yaml);
    kb_io_profile p;
    memset(&p, 0, sizeof p);
    char folder[4096] = "", err[KB_IO_ERRLEN] = "";
    int rc = kb_io_dlio_config_load(path, overrides, n, &p, folder,
                                    sizeof folder, err, sizeof err);
    /* a rejection says why */
    if (rc && ((rc != KB_IO_USAGE && rc != KB_IO_ERROR) || !err[0]))
        abort();
    free(text);
    return 0;
}
