/* record.c - the names of case statuses (record.h), shared by every
 * writer so the table, JSON Lines, CSV and RESULT lines spell them alike. */
#include "drivers/record.h"

const char *kb_status_name(kb_status s)
{
    switch (s) {
    case KB_PASSED: return "PASSED";
    case KB_FAILED: return "FAILED";
    case KB_SKIPPED: return "SKIPPED";
    case KB_ERROR: return "ERROR";
    case KB_MISTRUSTED: return "MISTRUSTED";
    }
    return "ERROR";
}

bool kb_status_ran(kb_status s)
{
    return s == KB_PASSED || s == KB_FAILED || s == KB_MISTRUSTED;
}
