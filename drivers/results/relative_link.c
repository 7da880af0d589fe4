/* relative_link.c - the path from one output file to another
 * (relative_link.h): both folders resolved, their shared prefix of whole
 * folders dropped, one "../" per folder left on the from side. */
#define _GNU_SOURCE   /* realpath, strdup */
#include "drivers/results/relative_link.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The real folder holding path, ending in '/', into out (PATH_MAX + 2).
 * False when the folder cannot be resolved. */
static bool folder_of(const char *path, char *out)
{
    char *copy = strdup(path);
    bool ok = copy && realpath(dirname(copy), out);
    free(copy);
    if (ok && strcmp(out, "/") != 0)
        strcat(out, "/");
    return ok;
}

void kb_relative_link(const char *from, const char *target, char *buf, size_t len)
{
    char a[PATH_MAX + 2], b[PATH_MAX + 2];
    char *copy = strdup(target);
    if (!copy || !folder_of(from, a) || !folder_of(target, b)) {
        snprintf(buf, len, "%s", target);
        free(copy);
        return;
    }
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i + 1;
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = a + common; *p; p++)
        if (*p == '/' && used + 4 <= len)
            used += (size_t)snprintf(buf + used, len - used, "../");
    snprintf(buf + used, len - used, "%s%s", b + common, basename(copy));
    free(copy);
}
