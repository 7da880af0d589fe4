/* test_io_checkpoint.c - `kbench io checkpoint` writes, reads back and
 * verifies a checkpoint with every engine, with fsync and O_DIRECT (or its
 * fallback), says in its record and its output which mode each direction
 * ran in, and refuses bad sizes.  (Refusals of O_DIRECT are injected in
 * test_io_direct.c.) */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"

static const char *profiles = KB_IO_TEST_PROFILES;

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

/* The modes a checkpoint on the pread engine reports, given its flags:
 * what `want_write` / `want_read` say, in the record and on stdout. */
static void check_modes(const char *dir, const char *flag1,
                        const char *flag2, const char *want_write,
                        const char *want_read)
{
    char json[600], out[4096];
    snprintf(json, sizeof json, "%s/ckpt.jsonl", dir);
    CHECK(io_test_cmd_out(out, sizeof out, "checkpoint", "--bytes", "300000",
                          "--dir", dir, "--json", json, flag1, flag2,
                          NULL) == 0);
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    CHECK(n == 1 && recs[0]);
    if (n == 1 && recs[0]) {
        CHECK_STR(str(recs[0], "record"), "io_checkpoint");
        CHECK_STR(str(recs[0], "write_mode"), want_write);
        CHECK_STR(str(recs[0], "read_mode"), want_read);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(recs[0], "verified")));
    }
    io_test_jsonl_free(recs, n);
    char want[128];
    snprintf(want, sizeof want, "s, %s", want_write);
    CHECK(strstr(out, want) != NULL);
    /* a buffered write without fsync is the page cache's speed: said */
    CHECK((strstr(out, "write-back not timed") != NULL) ==
          (strcmp(want_write, "buffered") == 0));
}

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
    check_modes(dir, NULL, NULL, "buffered", "buffered");
    check_modes(dir, "--fsync", NULL, "buffered+fsync", "buffered");
    /* where the filesystem refuses O_DIRECT the write is fsync'd instead */
    bool direct = io_test_direct_works(dir);
    check_modes(dir, "--direct", NULL, direct ? "direct" : "buffered+fsync",
                direct ? "direct" : "buffered");
    check_modes(dir, "--direct", "--fsync",
                direct ? "direct+fsync" : "buffered+fsync",
                direct ? "direct" : "buffered");
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
