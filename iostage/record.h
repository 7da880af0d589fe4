/* record.h - the head every JSON record of the I/O stage starts with: its
 * type, the schema it follows and the provenance of the run (record.c). */
#ifndef KB_IO_RECORD_H
#define KB_IO_RECORD_H

#include "drivers/provenance.h"

#include <cjson/cJSON.h>

/* The io records' schema (results/SCHEMA.md); bumped as the results
 * schema is, when a field is renamed or removed or changes meaning. */
#define KB_IO_SCHEMA "kbench.io/1"

/* A new record {"type": type, "schema": KB_IO_SCHEMA, provenance...}.
 * prov NULL: gathered here once, with no command line (callers other than
 * the `kbench io` command, such as the tests).  NULL when out of memory. */
cJSON *kb_io_record_new(const char *type, const kb_provenance *prov);

#endif
