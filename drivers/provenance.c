/* provenance.c - what a run record says about where and how it ran: host,
 * CPU and its identity (cpu_id.c), threads and affinity, build, libraries,
 * date, seed, command line. */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_SET */
#include "drivers/provenance.h"
#include "drivers/common/clock.h"
#include "machine/machine.h"
#include "machine/cpu_id.h"

#include "buildinfo.h"

#include <cjson/cJSON.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copy src into dst[len], always terminated; longer input is cut. */
static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* Append printf output at *pos within dst[len]; once full, later appends
 * are dropped and the text stays terminated. */
static void append(char *dst, size_t len, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *dst, size_t len, size_t *pos, const char *fmt, ...)
{
    if (*pos >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst + *pos, len - *pos, fmt, ap);
    va_end(ap);
    *pos = n < 0 ? len : *pos + (size_t)n;
}

/* The CPUs this process may run on as a list "0-3,8,10-11"; "unknown"
 * when sched_getaffinity fails. */
static void affinity_list(char *dst, size_t len)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        copy_str(dst, len, "unknown");
        return;
    }
    size_t pos = 0;
    dst[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        const char *sep = pos ? "," : "";
        if (last == c)
            append(dst, len, &pos, "%s%d", sep, c);
        else
            append(dst, len, &pos, "%s%d-%d", sep, c, last);
        c = last;
    }
}

/* CMake 3.31 (Debian 13) spells OpenMP's option "SHELL:-fopenmp" in
 * COMPILE_OPTIONS, a marker of its own that the compiler never sees. */
static void drop_shell_prefix(char *flags)
{
    static const char marker[] = "SHELL:";
    char *m;
    while ((m = strstr(flags, marker)))
        memmove(m, m + sizeof marker - 1, strlen(m + sizeof marker - 1) + 1);
}

static void env_or_unset(char *dst, size_t len, const char *name)
{
    const char *v = getenv(name);
    copy_str(dst, len, v ? v : "unset");
}

/* True when word needs quoting to survive a POSIX shell unchanged. */
static bool needs_quotes(const char *word)
{
    if (!*word)
        return true;
    for (const char *c = word; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_-+=/.,:@%^", *c))
            return true;
    return false;
}

/* "kbench" and the verb's argv (argv[0] is the verb) joined by spaces,
 * single-quoted where needed ('\'' for a quote), so the line can be
 * pasted back into a shell.  Too long a line is cut
 * at a whole word and ends in " ..." instead of a torn quote. */
static void command_line(char *dst, size_t len, int argc, char **argv)
{
    static const char cut[] = " ...";
    size_t room = len - sizeof cut;   /* keep space for the marker */
    size_t pos = 0;
    dst[0] = '\0';
    append(dst, len, &pos, "kbench");
    for (int i = 0; i < argc; i++) {
        char word[1024];
        size_t wpos = 0;
        const char *sep = " ";
        if (needs_quotes(argv[i])) {
            append(word, sizeof word, &wpos, "%s'", sep);
            for (const char *c = argv[i]; *c; c++) {
                if (*c == '\'')
                    append(word, sizeof word, &wpos, "'\\''");
                else
                    append(word, sizeof word, &wpos, "%c", *c);
            }
            append(word, sizeof word, &wpos, "'");
        } else {
            append(word, sizeof word, &wpos, "%s%s", sep, argv[i]);
        }
        if (wpos >= sizeof word || pos + wpos > room) {
            append(dst, len, &pos, "%s", cut);
            return;
        }
        append(dst, len, &pos, "%s", word);
    }
}

/* See provenance.h. */
void kb_provenance_collect(kb_provenance *p, int argc, char **argv,
                           int threads, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    kb_host_name(p->host, sizeof p->host);
    kb_cpu_id_detect(&p->cpu_id);
    copy_str(p->cpu_model, sizeof p->cpu_model, p->cpu_id.model_name);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    p->cores_online = online > 0 ? (int)online : 0;
    p->threads = threads;
    affinity_list(p->affinity, sizeof p->affinity);
    env_or_unset(p->omp_proc_bind, sizeof p->omp_proc_bind, "OMP_PROC_BIND");
    env_or_unset(p->omp_places, sizeof p->omp_places, "OMP_PLACES");
    snprintf(p->compiler, sizeof p->compiler, "%s %s", KB_COMPILER_ID,
             KB_COMPILER_VERSION);
    copy_str(p->build_type, sizeof p->build_type, KB_BUILD_TYPE);
    copy_str(p->build_flags, sizeof p->build_flags, KB_BUILD_FLAGS);
    drop_shell_prefix(p->build_flags);
    copy_str(p->git_commit, sizeof p->git_commit, kb_git_commit());
    copy_str(p->kbench_version, sizeof p->kbench_version, KB_VERSION);
#ifdef _OPENMP
    snprintf(p->libraries, sizeof p->libraries, "OpenMP %d, cJSON %s",
             (int)_OPENMP, cJSON_Version());
#else
    snprintf(p->libraries, sizeof p->libraries, "cJSON %s", cJSON_Version());
#endif
    kb_utc_date(p->date, sizeof p->date);
    p->seed = seed;
    p->fill = "integer";   /* kbench run sets --fill's */
    command_line(p->command_line, sizeof p->command_line, argc, argv);
}

/* See provenance.h.  The cJSON Add helpers return NULL when out of
 * memory; one check at the end covers them all. */
int kb_provenance_json(const kb_provenance *p, cJSON *o)
{
    bool ok =
        cJSON_AddStringToObject(o, "kbench_version", p->kbench_version) &&
        cJSON_AddStringToObject(o, "git_commit", p->git_commit) &&
        cJSON_AddStringToObject(o, "date", p->date) &&
        cJSON_AddStringToObject(o, "host", p->host) &&
        cJSON_AddStringToObject(o, "cpu_model", p->cpu_model);
    cJSON *id = ok ? kb_cpu_id_to_json(&p->cpu_id) : NULL;
    ok = id && cJSON_AddItemToObject(o, "cpu_id", id);
    if (!ok) {
        cJSON_Delete(id);
        return -1;
    }
    ok = cJSON_AddNumberToObject(o, "cores_online", p->cores_online) &&
        cJSON_AddNumberToObject(o, "threads", p->threads) &&
        cJSON_AddStringToObject(o, "affinity", p->affinity) &&
        cJSON_AddStringToObject(o, "omp_proc_bind", p->omp_proc_bind) &&
        cJSON_AddStringToObject(o, "omp_places", p->omp_places) &&
        cJSON_AddStringToObject(o, "compiler", p->compiler) &&
        cJSON_AddStringToObject(o, "build_type", p->build_type) &&
        cJSON_AddStringToObject(o, "build_flags", p->build_flags) &&
        cJSON_AddStringToObject(o, "libraries", p->libraries) &&
        cJSON_AddNumberToObject(o, "seed", (double)p->seed) &&
        cJSON_AddStringToObject(o, "command_line", p->command_line);
    return ok ? 0 : -1;
}
