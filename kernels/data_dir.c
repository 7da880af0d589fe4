/* data_dir.c - finds kbench's data directory: $KBENCH_DATA_DIR, or
 * share/kbench relative to the running executable. */
#include "kernels/data_dir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Candidates beside the executable, tried in order: the installed layout
 * (bin/kbench, share/kbench) and build/tests/, then kbench at the top of
 * the build tree.  Filled once: the executable does not move. */
static char candidates[2][PATH_MAX];
static int found = -1;  /* index into candidates, -1 when none exists */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Cuts the last path component off p in place ("/a/b" -> "/a", "/a" -> "").
 * Can't fail. */
static void dirname_in_place(char *p)
{
    char *s = strrchr(p, '/');
    if (s)
        *s = '\0';
    else
        *p = '\0';
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Fills candidates and found.  An unreadable /proc/self/exe leaves the
 * candidates empty and found at -1. */
static void find_candidates(void)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = '\0';
    dirname_in_place(dir);  /* the executable's directory */
    char parent[PATH_MAX];
    memcpy(parent, dir, strlen(dir) + 1);
    dirname_in_place(parent);
    const char *base[2] = {parent, dir};
    for (int i = 0; i < 2; i++) {
        if ((size_t)snprintf(candidates[i], PATH_MAX, "%s/share/kbench",
                             base[i]) >= PATH_MAX) {
            candidates[i][0] = '\0';
            continue;
        }
        if (found < 0 && is_dir(candidates[i]))
            found = i;
    }
}

/* See data_dir.h. */
const char *kb_data_dir(void)
{
    const char *env = getenv("KBENCH_DATA_DIR");
    if (env && *env)
        return env;
    pthread_once(&once, find_candidates);
    return found >= 0 ? candidates[found] : NULL;
}

/* See data_dir.h. */
int kb_data_path(const char *rel, char *out, size_t len, char *err,
                 size_t errlen)
{
    const char *dir = kb_data_dir();
    if (!dir && !candidates[0][0]) {
        snprintf(err, errlen, "no kbench data directory: set "
                 "KBENCH_DATA_DIR or install kbench (/proc/self/exe "
                 "unreadable: no executable to look beside)");
        return -1;
    }
    if (!dir) {
        snprintf(err, errlen, "no kbench data directory: set "
                 "KBENCH_DATA_DIR or install kbench (looked for %s and %s)",
                 candidates[0], candidates[1]);
        return -1;
    }
    if ((size_t)snprintf(out, len, "%s/%s", dir, rel) >= len) {
        snprintf(err, errlen, "data path '%s/%s' is too long", dir, rel);
        return -1;
    }
    return 0;
}
