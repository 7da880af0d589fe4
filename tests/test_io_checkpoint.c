/* test_io_checkpoint.c - `kbench io checkpoint` writes, reads back and
 * verifies a checkpoint with every engine, with fsync and O_DIRECT (or its
 * fallback), and refuses bad sizes. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"

static const char *profiles = KB_IO_TEST_PROFILES;

int main(void)
{
    char *dir = io_test_mkdtemp();
    const char *engines[] = {"pread", "io_uring", "mmap"};
    for (int e = 0; e < 3; e++) {
        CHECK(io_test_cmd(NULL, 0, "checkpoint", "--bytes", "5000001",
                          "--dir", dir, "--engine", engines[e], NULL) == 0);
        CHECK(io_test_cmd(NULL, 0, "checkpoint", "--bytes", "1048576",
                          "--dir", dir, "--engine", engines[e], "--fsync",
                          "--direct", NULL) == 0);
    }
    /* the profile's checkpoint size */
    CHECK(io_test_cmd(NULL, 0, "checkpoint", "--profiles", profiles,
                      "--profile", "bert", "--dir", dir, NULL) == 0);
    char err[4096];
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "-5", "--dir",
                      dir, NULL) == 2);
    CHECK(strstr(err, "--bytes '-5'") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "100",
                      "--dir", "/nonexistent/kbio", NULL) == 3);
    CHECK(strstr(err, "/nonexistent/kbio") != NULL);
    io_test_rmtree(dir);
    free(dir);
    return CHECK_DONE();
}
