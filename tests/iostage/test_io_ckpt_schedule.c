/* test_io_ckpt_schedule.c - DLIO's checkpoint schedule: where the
 * checkpoints fall (by steps, by epochs after checkpoint_after_epoch),
 * which bytes each rank writes (sharded, rank_zero), and the hook `kbench
 * io run` calls after each step: files named model-E-S-R / optimizer-E-S-R
 * holding exactly the state of their step (sync, and async after the
 * snapshot), one record each, and errors naming the file. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "iostage/checkpoint/options.h"
#include "iostage/checkpoint/plan.h"
#include "iostage/checkpoint/schedule.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* The steps (epoch * 100 + step) of a plan over epochs x steps into out;
 * their count. */
static int positions(kb_io_ckpt_plan p, int64_t epochs, int64_t steps,
                     int64_t *out)
{
    int n = 0;
    for (int64_t e = 1; e <= epochs; e++)
        for (int64_t s = 1; s <= steps; s++)
            if (kb_io_ckpt_due(&p, e, s, s == steps))
                out[n++] = e * 100 + s;
    return n;
}

static void check_positions(kb_io_ckpt_plan p, int64_t epochs, int64_t steps,
                            const int64_t *want, int nwant)
{
    int64_t got[256];
    int n = positions(p, epochs, steps, got);
    CHECK(n == nwant);
    for (int i = 0; i < n && i < nwant; i++)
        CHECK(got[i] == want[i]);
}

static void test_schedule(void)
{
    /* every 3 steps over 10: 3, 6, 9, and again in the next epoch (DLIO
     * counts steps from 1 each epoch) */
    check_positions((kb_io_ckpt_plan){.every_steps = 3}, 2, 10,
                    (int64_t[]){103, 106, 109, 203, 206, 209}, 6);
    /* a checkpoint on the epoch's last step too */
    check_positions((kb_io_ckpt_plan){.every_steps = 5}, 1, 10,
                    (int64_t[]){105, 110}, 2);
    /* by epoch, after epoch 2, every 2, over 5: the ends of 2 and 4 */
    check_positions((kb_io_ckpt_plan){.every_epochs = 2, .after_epoch = 2},
                    5, 4, (int64_t[]){204, 404}, 2);
    /* unet3d: checkpoint_after_epoch 5, epochs_between 2, 10 epochs */
    check_positions((kb_io_ckpt_plan){.every_epochs = 2, .after_epoch = 5},
                    10, 3, (int64_t[]){503, 703, 903}, 3);
    /* after_epoch not set: DLIO's default, 1 */
    check_positions((kb_io_ckpt_plan){.every_epochs = 1}, 3, 2,
                    (int64_t[]){102, 202, 302}, 3);
    /* steps win over epochs (DLIO: steps_between_checkpoints >= 0) */
    check_positions((kb_io_ckpt_plan){.every_steps = 4, .every_epochs = 1},
                    1, 9, (int64_t[]){104, 108}, 2);
    /* no plan, no checkpoints */
    int64_t none[4];
    CHECK(positions((kb_io_ckpt_plan){0}, 3, 5, none) == 0);
}

static void test_shares(void)
{
    const uint64_t totals[] = {10, 1048579, 2};
    for (int t = 0; t < 3; t++)
        for (int64_t ranks = 1; ranks <= 4; ranks++) {
            uint64_t sum = 0, next = 0, lo, n;
            for (int64_t r = 0; r < ranks; r++) {
                kb_io_rank rk = {r, ranks, "--rank"};
                kb_io_ckpt_share(totals[t], &rk, true, &lo, &n);
                CHECK(lo == next);   /* contiguous, in rank order */
                /* 1/ranks each, the remainder on the last rank */
                CHECK(n == totals[t] / (uint64_t)ranks +
                               (r == ranks - 1 ? totals[t] % (uint64_t)ranks
                                               : 0));
                next = lo + n;
                sum += n;
                kb_io_ckpt_share(totals[t], &rk, false, &lo, &n);
                CHECK(lo == 0 && n == (r == 0 ? totals[t] : 0));
            }
            CHECK(sum == totals[t]);
        }
}

/* Options for the hook: pread, buffered, 1 MiB + 5 bytes of model and
 * 2 MiB + 3 of optimizer state, every 3 steps. */
static kb_io_ckpt_opts hook_opts(const char *dir, bool async)
{
    kb_io_ckpt_opts o = {0};
    o.dir = dir;
    o.engine = &kb_io_engine_pread;
    o.bytes = (1u << 20) + 5;
    o.seed = 7;
    o.plan.every_steps = 3;
    o.plan.optimizer_bytes = (2u << 20) + 3;
    o.async = async;
    o.rank = (kb_io_rank){0, 1, "single"};
    return o;
}

/* Run the hook over epochs x steps; records into json.  Returns the first
 * error of step or close. */
static int drive(const kb_io_ckpt_opts *o, int64_t epochs, int64_t steps,
                 const char *json, char *err, size_t len)
{
    kb_io_ckpt_sched *s;
    int rc = kb_io_ckpt_sched_open(o, &s, err, len);
    if (rc)
        return rc;
    CHECK(s != NULL);
    double stall;
    for (int64_t e = 1; e <= epochs && !rc; e++)
        for (int64_t i = 1; i <= steps && !rc; i++)
            rc = kb_io_ckpt_sched_step(s, e, i, i == steps, &stall, err, len);
    FILE *f = json ? fopen(json, "w") : NULL;
    char cerr[KB_IO_ERRLEN];
    int crc = kb_io_ckpt_sched_close(s, f, &stall, cerr, sizeof cerr);
    if (f)
        fclose(f);
    if (crc && !rc)
        snprintf(err, len, "%s", cerr);
    return rc ? rc : crc;
}

/* File dir/kind-e-s-rank holds n bytes: the state of (kind, rank) from
 * seed after step (e, s), no later one. */
static void check_file(const char *dir, kb_io_ckpt_kind kind, int64_t e,
                       int64_t s, int64_t rank, uint64_t seed, size_t n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s-%" PRId64 "-%" PRId64 "-%" PRId64
             ".kbckpt", dir, kb_io_ckpt_kind_name[kind], e, s, rank);
    size_t got_n = 0;
    uint8_t *got = io_test_slurp(path, &got_n);
    uint8_t *want = malloc(n);
    CHECK(got != NULL && want != NULL);
    if (got && want) {
        kb_io_ckpt_state_fill(want, n, seed, kind, rank);
        kb_io_ckpt_state_stamp(want, n, e, s);
        CHECK(got_n == n);
        CHECK(got_n == n && memcmp(got, want, n) == 0);
    }
    free(got);
    free(want);
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItem(o, key);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = item(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The hook, sync then async: 2 epochs x 7 steps, every 3 steps: files at
 * (1,3) (1,6) (2,3) (2,6) with the state of their step although the steps
 * after the snapshot changed it, one record each. */
static char *dir;   /* a temporary directory, made in main */

static void test_hook(void)
{
    for (int async = 0; async < 2; async++) {
        char sub[600], json[700], err[KB_IO_ERRLEN] = "";
        snprintf(sub, sizeof sub, "%s/hook%d", dir, async);
        snprintf(json, sizeof json, "%s/hook%d.jsonl", dir, async);
        CHECK(mkdir(sub, 0755) == 0);
        kb_io_ckpt_opts o = hook_opts(sub, async);
        CHECK(drive(&o, 2, 7, json, err, sizeof err) == 0);
        const int64_t at[4][2] = {{1, 3}, {1, 6}, {2, 3}, {2, 6}};
        for (int i = 0; i < 4; i++) {
            check_file(sub, KB_IO_CKPT_MODEL, at[i][0], at[i][1], 0, o.seed,
                       (size_t)o.bytes);
            check_file(sub, KB_IO_CKPT_OPTIMIZER, at[i][0], at[i][1], 0,
                       o.seed, (size_t)o.plan.optimizer_bytes);
        }
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == 4);
        for (int i = 0; i < n && i < 4; i++) {
            CHECK(io_test_head_ok(recs[i], "io_checkpoint"));
            CHECK(num(recs[i], "epoch") == (double)at[i][0]);
            CHECK(num(recs[i], "step") == (double)at[i][1]);
            CHECK(num(recs[i], "model_bytes") == (double)o.bytes);
            CHECK(num(recs[i], "optimizer_bytes") ==
                  (double)o.plan.optimizer_bytes);
            CHECK(num(recs[i], "bytes") ==
                  (double)(o.bytes + o.plan.optimizer_bytes));
            CHECK(cJSON_IsTrue(item(recs[i], "async")) == async);
            CHECK_STR(cJSON_GetStringValue(item(recs[i], "placement")),
                      "rank_zero");
            CHECK_STR(cJSON_GetStringValue(item(recs[i], "write_mode")),
                      "buffered");
            CHECK(num(recs[i], "write_s") > 0);
            CHECK(num(recs[i], "write_GiB_per_second") > 0);
            /* 1e9 against 2^30 */
            CHECK(fabs(num(recs[i], "write_GB_per_second") /
                       num(recs[i], "write_GiB_per_second") -
                       1.073741824) < 1e-9);
            const cJSON *files = item(recs[i], "files");
            char want[64];
            snprintf(want, sizeof want, "optimizer-%" PRId64 "-%" PRId64
                     "-0.kbckpt", at[i][0], at[i][1]);
            CHECK(cJSON_GetArraySize(files) == 2);
            CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(files, 1)),
                      want);
            if (!async)   /* sync: the loop waits the whole write */
                CHECK(num(recs[i], "stall_s") >= num(recs[i], "write_s"));
        }
        io_test_jsonl_free(recs, n);
    }
}

/* Two ranks: sharded, each writes its share of each state into its own
 * files; rank_zero, rank 1 writes nothing and says so. */
static void test_hook_ranks(void)
{
    for (int sharded = 0; sharded < 2; sharded++) {
        char sub[600], err[KB_IO_ERRLEN] = "";
        snprintf(sub, sizeof sub, "%s/ranks%d", dir, sharded);
        CHECK(mkdir(sub, 0755) == 0);
        double model = 0;
        for (int64_t r = 0; r < 2; r++) {
            char json[700];
            snprintf(json, sizeof json, "%s/r%" PRId64 ".jsonl", sub, r);
            kb_io_ckpt_opts o = hook_opts(sub, r == 1);
            o.sharded = sharded;
            o.rank = (kb_io_rank){r, 2, "--rank"};
            CHECK(drive(&o, 1, 3, json, err, sizeof err) == 0);
            uint64_t lo, n[2];
            kb_io_ckpt_share(o.bytes, &o.rank, sharded, &lo, &n[0]);
            kb_io_ckpt_share(o.plan.optimizer_bytes, &o.rank, sharded, &lo,
                             &n[1]);
            if (n[0])
                check_file(sub, KB_IO_CKPT_MODEL, 1, 3, r, o.seed, n[0]);
            if (n[1])
                check_file(sub, KB_IO_CKPT_OPTIMIZER, 1, 3, r, o.seed, n[1]);
            int nr;
            cJSON **recs = io_test_jsonl(json, &nr);
            CHECK(nr == 1);
            if (nr == 1) {
                model += num(recs[0], "model_bytes");
                CHECK(num(recs[0], "rank") == (double)r);
                CHECK_STR(cJSON_GetStringValue(item(recs[0], "placement")),
                          sharded ? "sharded" : "rank_zero");
                CHECK(cJSON_GetArraySize(item(recs[0], "files")) ==
                      (sharded || r == 0 ? 2 : 0));
                CHECK(num(recs[0], "bytes") == (double)(n[0] + n[1]));
            }
            io_test_jsonl_free(recs, nr);
        }
        CHECK(model == (double)hook_opts(sub, false).bytes);
        char path[700];
        snprintf(path, sizeof path, "%s/model-1-3-1.kbckpt", sub);
        CHECK((access(path, F_OK) == 0) == (bool)sharded);
    }
}

/* No schedule, or no directory: no schedule object, and a NULL one is a
 * no-op.  A directory that does not exist: the error names the file and
 * the call, from the step (sync) or from the next wait (async). */
static void test_hook_errors(void)
{
    kb_io_ckpt_opts o = hook_opts("/nonexistent/kbckpt", false);
    kb_io_ckpt_sched *s = (kb_io_ckpt_sched *)&o;
    char err[KB_IO_ERRLEN] = "";
    o.plan = (kb_io_ckpt_plan){0};
    CHECK(kb_io_ckpt_sched_open(&o, &s, err, sizeof err) == 0 && !s);
    double stall = 1;
    CHECK(kb_io_ckpt_sched_step(NULL, 1, 1, false, &stall, err,
                                sizeof err) == 0 && stall == 0);
    CHECK(kb_io_ckpt_sched_close(NULL, NULL, &stall, err, sizeof err) == 0);
    for (int async = 0; async < 2; async++) {
        o = hook_opts("/nonexistent/kbckpt", async);
        err[0] = '\0';
        CHECK(drive(&o, 1, 4, NULL, err, sizeof err) == KB_IO_ERROR);
        CHECK(strstr(err, "cannot create /nonexistent/kbckpt/model-1-3-0."
                          "kbckpt") != NULL);
    }
}

static const check_test tests[] = {
    CHECK_TEST(schedule), CHECK_TEST(shares), CHECK_TEST(hook),
    CHECK_TEST(hook_ranks), CHECK_TEST(hook_errors), CHECK_END};

int main(int argc, char **argv)
{
    dir = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(dir);
    free(dir);
    return status;
}
