/* info.c - building the key/value facts that backends' describe() returns. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>

/* Keys longer than the field are truncated; past KB_INFO_MAX entries the
 * fact is dropped.  This function can't fail. */
void kb_info_add(kb_info *info, const char *key, const char *fmt, ...)
{
    if (info->n < 0 || info->n >= KB_INFO_MAX)
        return;
    snprintf(info->kv[info->n].key, sizeof(info->kv[info->n].key), "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->kv[info->n].value, sizeof(info->kv[info->n].value), fmt,
              ap);
    va_end(ap);
    info->n++;
}
