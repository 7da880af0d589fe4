/* direct.c - how a request for O_DIRECT fared: the first refusal of a
 * direction (where, by which call, on which file, why) and the record
 * fields and the sentence that report it. */
#include "iostage/readers/direct.h"

#include <stdio.h>
#include <cjson/cJSON.h>

bool kb_io_direct_refuse(kb_io_direct *d, const char *at, const char *call,
                         const char *file, const char *reason)
{
    if (d->at)
        return false;
    d->at = at;
    d->call = call;
    snprintf(d->file, sizeof d->file, "%s", file);
    snprintf(d->reason, sizeof d->reason, "%s", reason);
    return true;
}

/* o[prefix suffix] = s, or null when s is NULL.  0 or -1. */
static int add_str(cJSON *o, const char *prefix, const char *suffix,
                   const char *s)
{
    char key[64];
    snprintf(key, sizeof key, "%s%s", prefix, suffix);
    return (s ? cJSON_AddStringToObject(o, key, s)
              : cJSON_AddNullToObject(o, key)) ? 0 : -1;
}

int kb_io_direct_json(const kb_io_direct *d, const char *prefix,
                      const char *fallback, cJSON *o)
{
    char key[64];
    snprintf(key, sizeof key, "%s_refused", prefix);
    bool refused = d->at != NULL;
    if (!cJSON_AddBoolToObject(o, key, refused))
        return -1;
    return add_str(o, prefix, "_refused_at", d->at) ||
           add_str(o, prefix, "_refused_call", d->call) ||
           add_str(o, prefix, "_refused_file", refused ? d->file : NULL) ||
           add_str(o, prefix, "_refused_reason", refused ? d->reason : NULL) ||
           add_str(o, prefix, "_fallback", refused ? fallback : NULL) ? -1 : 0;
}

void kb_io_direct_describe(const kb_io_direct *d, char *buf, size_t len)
{
    snprintf(buf, len, "O_DIRECT refused at %s by %s (%s: %s)",
             d->at ? d->at : "-", d->call ? d->call : "-", d->file,
             d->reason);
}
