/* settle.c - waiting for the process's other threads to go idle. */
#define _GNU_SOURCE   /* gettid, nanosleep */
#include "drivers/settle.h"

#include "drivers/common/clock.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A step of the wait: short against a pool's spin (milliseconds and up). */
#define SETTLE_STEP_S 1e-3

/* Is thread `tid` of this process running or waiting for a CPU?  A
 * spinning worker is, even while preempted; one asleep on a futex is
 * not.  -1 when its state cannot be read (it ended: not running). */
static int runnable(long tid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* "TID (COMM) STATE ...": COMM may hold spaces and parentheses */
    const char *comm_end = strrchr(line, ')');
    return comm_end && comm_end[1] == ' ' ? comm_end[2] == 'R' : -1;
}

/* How many threads of this process, the caller's left out, are runnable;
 * -1 when the threads cannot be listed (not Linux). */
static int others_runnable(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    long self = (long)gettid();
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (*end == '\0' && end != e->d_name && tid != self)
            count += runnable(tid) == 1;
    }
    closedir(dir);
    return count;
}

kb_settle_state kb_settle_threads(double max_s, double *waited)
{
    *waited = 0;
    if (max_s <= 0)
        return KB_SETTLE_OFF;
    double start = kb_now();
    for (;;) {
        int busy = others_runnable();
        if (busy < 0)
            return KB_SETTLE_UNAVAILABLE;
        if (busy == 0)
            return KB_SETTLE_QUIET;
        if (*waited >= max_s)
            return KB_SETTLE_BUSY;
        const struct timespec step = {0, (long)(SETTLE_STEP_S * 1e9)};
        nanosleep(&step, NULL);
        *waited = kb_now() - start;
    }
}
