/* test_io_direct.c - O_DIRECT refused, injected by tests/iostage/direct_refuse_shim.c
 * (LD_PRELOAD, set by tests/iostage/iostage.cmake): at open, at the first read, after
 * the first block, at the write, for each engine, in `io run` and `io
 * checkpoint`.  The records must say that O_DIRECT was asked, where and
 * by which call it was refused, what was done instead, and count each
 * byte read once; the run's reads and the checkpoint's write and read
 * each say the mode they really ran in. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>

static const char *profiles = KB_IO_TEST_PROFILES;

/* One `io run --direct` and what its records must say. */
typedef struct {
    const char *refuse;     /* $KB_REFUSE_DIRECT, NULL for none */
    const char *engine, *readers;
    const char *at, *call;  /* expected refusal, NULL for none */
} run_case;

static const run_case run_cases[] = {
    {NULL, "pread", "1", NULL, NULL},
    {NULL, "io_uring", "3", NULL, NULL},
    {"read", "pread", "1", "read", "pread"},
    {"read", "pread", "3", "read", "pread"},
    {"read-tail", "pread", "1", "read", "pread"},
    {"read", "io_uring", "1", "read", "io_uring read"},
    {"read-tail", "io_uring", "3", "read", "io_uring read"},
    {"open", "pread", "1", "open", "open"},
    {"open", "io_uring", "1", "open", "open"},
    {NULL, "mmap", "1", "engine", "mmap"},
};

/* Set or clear the refusal the shim injects. */
static char *root;       /* a temporary directory, made in main */
static bool direct_ok;   /* whether its filesystem takes O_DIRECT */

static void refuse(const char *what)
{
    if (what)
        setenv("KB_REFUSE_DIRECT", what, 1);
    else
        unsetenv("KB_REFUSE_DIRECT");
}

/* A string field equals want, or is null when want is NULL. */
static bool str_is(const cJSON *o, const char *key, const char *want)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!want)
        return cJSON_IsNull(v);
    return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

static bool str_has(const cJSON *o, const char *key, const char *part)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) && strstr(v->valuestring, part);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Total bytes of the dataset's shards in dir. */
static double dataset_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    double total = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[1200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (strstr(e->d_name, ".tfrecord") && stat(path, &st) == 0)
            total += (double)st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

/* The direct fields of one epoch record against the case. */
static void check_epoch(const cJSON *o, const run_case *t, double bytes)
{
    bool refused = t->at != NULL;
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct_asked")));
    CHECK(cJSON_IsBool(cJSON_GetObjectItem(o, "direct")) &&
          cJSON_IsTrue(cJSON_GetObjectItem(o, "direct")) == !refused);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct_refused")) == refused);
    CHECK(str_is(o, "direct_refused_at", t->at));
    CHECK(str_is(o, "direct_refused_call", t->call));
    CHECK(str_is(o, "direct_fallback", refused ? "buffered" : NULL));
    /* one refusal and every later file is buffered: none direct */
    CHECK(num(o, "files_direct") == (refused ? 0 : 3));
    CHECK(num(o, "files_buffered") == (refused ? 3 : 0));
    if (refused) {
        CHECK(str_has(o, "direct_refused_reason",
                      strcmp(t->at, "engine") == 0 ? "page cache"
                                                   : "Invalid argument"));
        CHECK(str_has(o, "direct_refused_file", "bert"));
    }
    /* the refused attempt's bytes are not counted again */
    CHECK(num(o, "bytes_read") == bytes);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "exactly_once")));
}

static void test_run(void)
{
    /* the injection needs a filesystem that takes O_DIRECT */
    if (!direct_ok)
        CHECK_SKIP("%s refuses O_DIRECT itself", root);
    char dir[600], json[700];
    snprintf(dir, sizeof dir, "%s/bert", root);
    snprintf(json, sizeof json, "%s/run.jsonl", root);
    CHECK(io_test_cmd(NULL, 0, "gen", "--profiles", profiles, "--profile",
                      "bert", "--dir", dir, "--threads", "1", NULL) == 0);
    double bytes = dataset_bytes(dir);
    CHECK(bytes > 3 * 4096);   /* each file needs more than one request */
    static char err[16384];
    for (size_t i = 0; i < sizeof run_cases / sizeof *run_cases; i++) {
        const run_case *t = &run_cases[i];
        if (!io_test_engine_usable(t->engine))
            continue;
        fprintf(stderr, "run: refuse %s, %s, %s readers\n",
                t->refuse ? t->refuse : "nothing", t->engine, t->readers);
        refuse(t->refuse);
        int rc = io_test_cmd(err, sizeof err, "run", "--profiles", profiles,
                             "--profile", "bert", "--dir", dir, "--decode",
                             "none", "--direct", "--engine", t->engine,
                             "--readers", t->readers, "--chunk", "4096",
                             "--epochs", "2", "--json", json, "--quiet",
                             NULL);
        refuse(NULL);
        CHECK(rc == 0);
        /* said once, when it happened, not once a file */
        char said[128];
        snprintf(said, sizeof said, "O_DIRECT refused at %s by %s",
                 t->at ? t->at : "-", t->call ? t->call : "-");
        const char *first = strstr(err, said);
        CHECK(t->at ? first && !strstr(first + 1, said) : !strstr(err,
                                                               "refused"));
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == 2);
        for (int e = 0; e < n; e++) {
            CHECK(recs[e] != NULL);
            if (recs[e])
                check_epoch(recs[e], t, bytes);
        }
        io_test_jsonl_free(recs, n);
    }
}

/* One `io checkpoint --direct` and the modes its record must give. */
typedef struct {
    const char *refuse, *engine;
    bool fsync;
    const char *write_mode, *write_at, *write_call;
    const char *read_mode, *read_at, *read_call;
} ckpt_case;

static const ckpt_case ckpt_cases[] = {
    {NULL, "pread", false, "direct", NULL, NULL, "direct", NULL, NULL},
    {NULL, "io_uring", true, "direct+fsync", NULL, NULL, "direct", NULL,
     NULL},
    {"write", "pread", false, "buffered+fsync", "write", "pwrite", "direct",
     NULL, NULL},
    {"write", "io_uring", false, "buffered+fsync", "write", "io_uring write",
     "direct", NULL, NULL},
    {"read", "pread", false, "direct", NULL, NULL, "buffered", "read",
     "pread"},
    {"read", "io_uring", false, "direct", NULL, NULL, "buffered", "read",
     "io_uring read"},
    {"open", "pread", false, "buffered+fsync", "open", "open", "buffered",
     "open", "open"},
    {NULL, "mmap", false, "buffered+fsync", "engine", "mmap", "buffered",
     "engine", "mmap"},
};

/* One direction's fields against the case. */
static void check_side(const cJSON *o, const char *side, const char *mode,
                       const char *at, const char *call, const char *fallback)
{
    char key[64];
    snprintf(key, sizeof key, "%s_mode", side);
    CHECK(str_is(o, key, mode));
    snprintf(key, sizeof key, "%s_direct_refused", side);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, key)) == (at != NULL));
    snprintf(key, sizeof key, "%s_direct_refused_at", side);
    CHECK(str_is(o, key, at));
    snprintf(key, sizeof key, "%s_direct_refused_call", side);
    CHECK(str_is(o, key, call));
    snprintf(key, sizeof key, "%s_direct_fallback", side);
    CHECK(str_is(o, key, at ? fallback : NULL));
    snprintf(key, sizeof key, "%s_GB_per_second", side);
    CHECK(num(o, key) > 0);
}

static void test_checkpoint(void)
{
    /* the injection needs a filesystem that takes O_DIRECT */
    if (!direct_ok)
        CHECK_SKIP("%s refuses O_DIRECT itself", root);
    char json[700];
    snprintf(json, sizeof json, "%s/ckpt.jsonl", root);
    static char out[8192];
    for (size_t i = 0; i < sizeof ckpt_cases / sizeof *ckpt_cases; i++) {
        const ckpt_case *t = &ckpt_cases[i];
        if (!io_test_engine_usable(t->engine))
            continue;
        fprintf(stderr, "checkpoint: refuse %s, %s%s\n",
                t->refuse ? t->refuse : "nothing", t->engine,
                t->fsync ? ", fsync" : "");
        refuse(t->refuse);
        /* not a whole number of blocks: the O_DIRECT tail is padded */
        int rc = io_test_cmd_out(out, sizeof out, "checkpoint", "--bytes",
                                 "1000001", "--dir", root, "--engine",
                                 t->engine, "--direct", "--json", json,
                                 t->fsync ? "--fsync" : NULL, NULL);
        refuse(NULL);
        CHECK(rc == 0);
        int n;
        cJSON **recs = io_test_jsonl(json, &n);
        CHECK(n == 1 && recs[0]);
        if (n == 1 && recs[0]) {
            const cJSON *o = recs[0];
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "direct_asked")));
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(o, "verified")));
            check_side(o, "write", t->write_mode, t->write_at, t->write_call,
                       "buffered+fsync");
            check_side(o, "read", t->read_mode, t->read_at, t->read_call,
                       "buffered");
            bool direct_write = strncmp(t->write_mode, "direct", 6) == 0;
            CHECK(num(o, "write_padded_bytes") ==
                  (direct_write ? 4096 - 1000001 % 4096 : 0));
        }
        io_test_jsonl_free(recs, n);
        /* the human output names both modes and each refusal */
        char want[160];
        snprintf(want, sizeof want, "s, %s)", t->write_mode);
        CHECK(strstr(out, want) != NULL);
        snprintf(want, sizeof want, "s, %s)", t->read_mode);
        CHECK(strstr(out, want) != NULL);
        if (t->write_at) {
            snprintf(want, sizeof want, "write: O_DIRECT refused at %s by %s",
                     t->write_at, t->write_call);
            CHECK(strstr(out, want) != NULL);
        }
        if (t->read_at) {
            snprintf(want, sizeof want, "read: O_DIRECT refused at %s by %s",
                     t->read_at, t->read_call);
            CHECK(strstr(out, want) != NULL);
        }
    }
}

static const check_test tests[] = {
    CHECK_TEST(run), CHECK_TEST(checkpoint), CHECK_END};

int main(int argc, char **argv)
{
    if (!dlsym(RTLD_DEFAULT, "kb_direct_refuse_shim")) {
        fprintf(stderr, "test_io_direct: direct_refuse_shim is not loaded: "
                "run it through ctest, which sets LD_PRELOAD\n");
        return 1;
    }
    root = io_test_mkdtemp();
    direct_ok = io_test_direct_works(root);
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
