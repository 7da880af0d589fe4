/* fuzz_manifest.c - libFuzzer target of the dataset manifest reader
 * (kb_io_manifest_read): the input is kbench-io.manifest, written into a
 * private temporary dataset folder (under $TMPDIR, else /tmp). */
#include "iostage/gen.h"
#include "iostage/stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[4096], path[4096 + 32];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/kb_fuzz_manifestXXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_manifest: mkdtemp");
        abort();
    }
    snprintf(path, sizeof path, "%s/kbench-io.manifest", dir);
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    char profile[32], err[KB_IO_ERRLEN] = "";
    int64_t files = 0, spf = 0;
    int rc = kb_io_manifest_read(dir, profile, sizeof profile, &files, &spf,
                                 err, sizeof err);
    if (rc == 0 && (files < 1 || spf < 1 || strlen(profile) >= sizeof profile))
        abort();
    if (rc && (rc != KB_IO_USAGE || !strstr(err, path)))
        abort();   /* a rejection names the file */
    return 0;
}
