/* record.c - the head of every io record: type, schema and the same
 * provenance as kbench run's run record (drivers/provenance.c), so that a
 * record read alone still says where, how and with what it was measured. */
#include "iostage/record.h"
#include "drivers/provenance.h"

#include <pthread.h>

static kb_provenance fallback;
static pthread_once_t fallback_once = PTHREAD_ONCE_INIT;

static void collect_fallback(void)
{
    kb_provenance_collect(&fallback, 0, NULL, 0, 0);
}

cJSON *kb_io_record_new(const char *type, const kb_provenance *prov)
{
    if (!prov) {
        pthread_once(&fallback_once, collect_fallback);
        prov = &fallback;
    }
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "type", type) ||
        !cJSON_AddStringToObject(o, "schema", KB_IO_SCHEMA) ||
        kb_provenance_json(prov, o)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
