/* test_io_interrupt.c - a generation interrupted by a signal leaves no file
 * that looks complete: every file under its final name verifies, the
 * manifest is absent, and (SIGINT, handled) no temporary file is left. */
#include "io_test_util.h"   /* first: it defines _GNU_SOURCE */
#include "check.h"
#include "drivers/common/options.h"
#include "drivers/commands.h"
#include "iostage/formats/format.h"
#include "iostage/sample.h"
#include "iostage/stage.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

static const char *profiles = KB_IO_TEST_PROFILES;

static int ok_cb(void *ctx, const kb_io_sample *s)
{
    (void)s;
    (*(int *)ctx)++;
    return 0;
}

/* Entries in dir besides . and .. (0 when it does not exist yet). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Start `kbench io gen` of the bulk profile in a child, signal it once
 * its first file appears (not after a fixed delay: generation speed
 * varies too much between machines); returns its wait status. */
static int gen_and_signal(const char *dir, int sig)
{
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"io", "gen", "--profiles", (char *)profiles,
                        "--profile", "bulk", "--dir", (char *)dir,
                        "--threads", "2", NULL};
        _exit(kb_verb_main(&kb_verb_io, NULL, 10, argv));
    }
    struct timespec t = {0, 1000000L};   /* 1 ms */
    for (int i = 0; i < 20000 && entries(dir) == 0; i++)
        nanosleep(&t, NULL);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

/* Check the directory: complete-named files verify; count the rest. */
static void check_dir(const char *dir, int *complete, int *tmp)
{
    const kb_io_format *f = kb_io_format_find("tfrecord");
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    struct dirent *e;
    *complete = *tmp = 0;
    while (d && (e = readdir(d))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        CHECK(strcmp(e->d_name, "kbench-io.manifest") != 0);
        if (strstr(e->d_name, ".tmp")) {
            (*tmp)++;
            continue;
        }
        if (!strstr(e->d_name, ".tfrecord"))
            continue;
        size_t n;
        uint8_t *b = io_test_slurp(path, &n);
        int samples = 0;
        char err[KB_IO_ERRLEN];
        CHECK(b && f->parse(b, n, KB_IO_VERIFY_CRC, ok_cb, &samples, err, sizeof err) == 0);
        CHECK(samples == 4);
        free(b);
        (*complete)++;
    }
    if (d)
        closedir(d);
}

static char *root;

/* SIGKILL: whatever is under a final name verifies, no manifest */
static void test_sigkill(void)
{
    char dir[600];
    int complete, tmp;
    snprintf(dir, sizeof dir, "%s/kill", root);
    int st = gen_and_signal(dir, SIGKILL);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    check_dir(dir, &complete, &tmp);
    CHECK(complete < 400);
    fprintf(stderr, "SIGKILL: %d complete files, %d temporary\n", complete,
            tmp);
}

/* SIGINT, handled: exit 130, and no temporary file left either */
static void test_sigint(void)
{
    char dir[600];
    int complete, tmp;
    snprintf(dir, sizeof dir, "%s/int", root);
    int st = gen_and_signal(dir, SIGINT);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 130);
    check_dir(dir, &complete, &tmp);
    CHECK(complete < 400);
    CHECK(tmp == 0);
    fprintf(stderr, "SIGINT: %d complete files, %d temporary\n", complete,
            tmp);
}

static const check_test tests[] = {
    CHECK_TEST(sigkill), CHECK_TEST(sigint), CHECK_END};

/* The children (gen_and_signal) _exit from kbench's own code: none of
 * them returns into check_main. */
int main(int argc, char **argv)
{
    root = io_test_mkdtemp();
    int status = check_main(argc, argv, tests);
    io_test_rmtree(root);
    free(root);
    return status;
}
