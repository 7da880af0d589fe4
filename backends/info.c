/* info.c - building the key/value facts that backends' describe() returns. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

const char *kb_info_value(const kb_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->kv[i].key, key) == 0)
            return info->kv[i].value;
    return NULL;
}

bool kb_info_no_device(const kb_info *info)
{
    const char *device = kb_info_value(info, "device");
    return device && strcmp(device, "none") == 0;
}

const char *kb_info_no_device_why(const kb_info *info)
{
    if (!kb_info_no_device(info))
        return NULL;
    const char *why = kb_info_value(info, "no_device");
    return why ? why : "its device is absent";
}
