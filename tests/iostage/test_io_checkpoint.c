/* test_io_checkpoint.c - `kbench io checkpoint` writes, reads back and
 * verifies a checkpoint with every engine, with fsync and O_DIRECT (or its
 * fallback), says in its record and its output which mode each direction
 * ran in, and refuses bad sizes.  With a schedule it emulates DLIO's
 * training loop: async checkpoints stall it less than their writes take,
 * sync ones the whole write; ranks write their shares or (rank_zero) rank
 * 0 everything; an interrupt keeps the records of the checkpoints done.
 * (Refusals of O_DIRECT are injected in test_io_direct.c; the schedule's
 * positions and the files' bytes are tested in test_io_ckpt_schedule.c.) */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "drivers/common/options.h"
#include "drivers/commands.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

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
        CHECK(io_test_head_ok(recs[0], "io_checkpoint"));
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

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static char *dir;   /* a temporary directory, made in main */

/* Entries of dir named model-* or optimizer-* (checkpoint files). */
static int ckpt_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strncmp(e->d_name, "model-", 6) == 0 ||
             strncmp(e->d_name, "optimizer-", 10) == 0;
    if (d)
        closedir(d);
    return n;
}

/* The emulated loop, sync and async: 8 steps of 30 ms, a 4 MiB fsync'd
 * checkpoint every 3 steps.  Sync, the loop stalls for the whole write;
 * async, for a snapshot and whatever of the write the compute did not
 * hide: less than the write. */
static void test_loop_stall(void)
{
    for (int async = 0; async < 2; async++) {
        char json[600], out[8192];
        snprintf(json, sizeof json, "%s/loop%d.jsonl", dir, async);
        CHECK(io_test_cmd_out(out, sizeof out, "checkpoint", "--bytes",
                              "4194304", "--dir", dir, "--json", json,
                              "--every-steps", "3", "--steps", "8",
                              "--compute", "sleep:0.03", "--fsync",
                              async ? "--async" : NULL, NULL) == 0);
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == 3);
        double write = 0, stall = 0;
        for (int i = 0; i < n && i < 2; i++) {
            CHECK(io_test_head_ok(recs[i], "io_checkpoint"));
            CHECK(num(recs[i], "step") == 3 * (i + 1));
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(recs[i], "verified")));
            CHECK_STR(str(recs[i], "write_mode"), "buffered+fsync");
            double w = num(recs[i], "write_s"), st = num(recs[i], "stall_s");
            CHECK(w > 0);
            CHECK(async ? st < w : st >= w);
            write += w;
            stall += st;
        }
        if (n == 3) {
            const cJSON *loop = recs[2];
            CHECK(io_test_head_ok(loop, "io_checkpoint_loop"));
            CHECK(num(loop, "checkpoints") == 2);
            CHECK(num(loop, "steps_done") == 8);
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(loop, "verified")));
            CHECK_NEAR(num(loop, "write_s"), write, 1e-9);
            CHECK(async ? num(loop, "stall_s") < write
                        : num(loop, "stall_s") >= write);
            CHECK(num(loop, "compute_s") >= 8 * 0.03);
            CHECK(num(loop, "wall_s") >= num(loop, "compute_s") + stall);
        }
        io_test_jsonl_free(recs, n);
        CHECK(strstr(out, "training loop: 1 of 1 epochs x 8 steps") != NULL);
        CHECK(strstr(out, "verified and removed") != NULL);
        CHECK(ckpt_files(dir) == 0);
    }
}

/* Two ranks by epoch (every epoch, 2 epochs of 2 steps), with optimizer
 * state: sharded, the ranks' model bytes add up to the model; rank_zero,
 * rank 1 writes nothing. */
static void test_loop_ranks(void)
{
    for (int sharded = 0; sharded < 2; sharded++) {
        double model = 0, opt = 0;
        for (int r = 0; r < 2; r++) {
            char json[600], rank[8];
            snprintf(json, sizeof json, "%s/rank%d.jsonl", dir, r);
            snprintf(rank, sizeof rank, "%d", r);
            CHECK(io_test_cmd(NULL, 0, "checkpoint", "--bytes", "2097153",
                              "--optimizer-bytes", "1000003", "--dir", dir,
                              "--json", json, "--every-epochs", "1",
                              "--epochs", "2", "--steps", "2", "--rank",
                              rank, "--ranks", "2",
                              sharded ? "--sharded" : NULL, NULL) == 0);
            int n;
            cJSON **recs = io_test_jsonl(json, &n);
            CHECK(n == 3);
            for (int i = 0; i < n && i < 2; i++) {
                CHECK(num(recs[i], "epoch") == i + 1);
                CHECK(num(recs[i], "step") == 2);
                CHECK(num(recs[i], "rank") == r);
                CHECK_STR(str(recs[i], "placement"),
                          sharded ? "sharded" : "rank_zero");
                if (!sharded && r == 1)
                    CHECK(num(recs[i], "bytes") == 0);
                if (i == 0) {
                    model += num(recs[i], "model_bytes");
                    opt += num(recs[i], "optimizer_bytes");
                }
            }
            io_test_jsonl_free(recs, n);
        }
        CHECK(model == 2097153 && opt == 1000003);
    }
}

/* SIGINT in the middle of a long async loop: exit 130, the records of the
 * checkpoints done, the loop record marked interrupted, no files left. */
static void test_loop_interrupt(void)
{
    char json[600], first[700];
    snprintf(json, sizeof json, "%s/intr.jsonl", dir);
    snprintf(first, sizeof first, "%s/model-1-2-0.kbckpt", dir);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"io", "checkpoint", "--bytes", "1048576", "--dir",
                        (char *)dir, "--json", json, "--every-steps", "1",
                        "--steps", "100000", "--compute", "sleep:0.005",
                        "--async", NULL};
        _exit(kb_verb_main(&kb_verb_io, NULL, 15, argv));
    }
    /* signal once a second checkpoint was started, not after a delay */
    struct timespec t = {0, 1000000L};
    for (int i = 0; i < 20000 && access(first, F_OK) != 0; i++)
        nanosleep(&t, NULL);
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT);
    int n;
    cJSON **recs = io_test_jsonl(json, &n);
    CHECK(n >= 3 && n < 100000);
    if (n >= 3) {
        CHECK(io_test_head_ok(recs[0], "io_checkpoint"));
        CHECK(io_test_head_ok(recs[n - 1], "io_checkpoint_loop"));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(recs[n - 1],
                                               "interrupted")));
        CHECK(num(recs[n - 1], "checkpoints") == n - 1);
    }
    io_test_jsonl_free(recs, n);
    CHECK(ckpt_files(dir) == 0);
}

/* Without --steps, DLIO's steps an epoch: the test bert profile's 3 files
 * x 50 samples over batch 16 are 9 steps, and 4 a rank over 2 ranks. */
static void test_loop_profile_steps(void)
{
    const char *ranks[2] = {"1", "2"};
    const double steps[2] = {9, 4}, ckpts[2] = {2, 1};
    for (int i = 0; i < 2; i++) {
        char json[600];
        snprintf(json, sizeof json, "%s/bert.jsonl", dir);
        CHECK(io_test_cmd(NULL, 0, "checkpoint", "--profiles", profiles,
                          "--profile", "bert", "--dir", dir, "--json", json,
                          "--every-steps", "4", "--rank", "0", "--ranks",
                          ranks[i], NULL) == 0);
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == ckpts[i] + 1);
        if (n == ckpts[i] + 1) {
            CHECK(num(recs[n - 1], "steps_per_epoch") == steps[i]);
            CHECK(num(recs[n - 1], "checkpoints") == ckpts[i]);
            CHECK(num(recs[0], "model_bytes") == 3000000);
        }
        io_test_jsonl_free(recs, n);
    }
}

/* A schedule without the epoch's steps, --async without a schedule, a
 * missing directory. */
static void test_loop_errors(void)
{
    char err[4096];
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "1000",
                      "--dir", dir, "--async", NULL) == 2);
    CHECK(strstr(err, "--async needs a schedule") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "1000",
                      "--dir", dir, "--every-steps", "2", "--every-epochs",
                      "1", "--steps", "2", NULL) == 2);
    CHECK(strstr(err, "exclusive") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "1000",
                      "--dir", dir, "--every-steps", "2", NULL) == 2);
    CHECK(strstr(err, "--steps N") != NULL);
    CHECK(io_test_cmd(err, sizeof err, "checkpoint", "--bytes", "1000",
                      "--dir", "/nonexistent/kbio", "--every-steps", "2",
                      "--steps", "2", NULL) == 3);
    CHECK(strstr(err, "cannot create /nonexistent/kbio/model-1-2-0.kbckpt")
          != NULL);
}

/* a checkpoint on every engine, buffered and fsync'd O_DIRECT */
static void test_engines(void)
{
    const char *engines[] = {"pread", "io_uring", "mmap"};
    for (int e = 0; e < 3; e++) {
        if (!io_test_engine_usable(engines[e]))
            continue;
        CHECK(io_test_cmd(NULL, 0, "checkpoint", "--bytes", "5000001",
                          "--dir", dir, "--engine", engines[e], NULL) == 0);
        CHECK(io_test_cmd(NULL, 0, "checkpoint", "--bytes", "1048576",
                          "--dir", dir, "--engine", engines[e], "--fsync",
                          "--direct", NULL) == 0);
    }
}

/* the write and read modes each flag gives */
static void test_modes(void)
{
    check_modes(dir, NULL, NULL, "buffered", "buffered");
    check_modes(dir, "--fsync", NULL, "buffered+fsync", "buffered");
    /* where the filesystem refuses O_DIRECT the write is fsync'd instead */
    bool direct = io_test_direct_works(dir);
    check_modes(dir, "--direct", NULL, direct ? "direct" : "buffered+fsync",
                direct ? "direct" : "buffered");
    check_modes(dir, "--direct", "--fsync",
                direct ? "direct+fsync" : "buffered+fsync",
                direct ? "direct" : "buffered");
}

/* the profile's checkpoint size; a bad size, a directory that is not */
static void test_profile_and_errors(void)
{
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
}

static const check_test tests[] = {
    CHECK_TEST(engines), CHECK_TEST(modes), CHECK_TEST(profile_and_errors),
    CHECK_TEST(loop_stall), CHECK_TEST(loop_ranks), CHECK_TEST(loop_interrupt),
    CHECK_TEST(loop_profile_steps), CHECK_TEST(loop_errors), CHECK_END};

/* test_loop_interrupt's child _exits from kbench's own code: it never
 * returns into check_main. */
int main(int argc, char **argv)
{
    dir = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(dir);
    free(dir);
    return status;
}
