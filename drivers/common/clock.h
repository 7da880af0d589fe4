/* clock.h - the one clock every measurement in kbench reads (the timed
 * repetition loop, the ceilings, the I/O stage), and the date records
 * carry. */
#ifndef KB_CLOCK_H
#define KB_CLOCK_H

#include <stddef.h>

/* Seconds on a monotonic clock (CLOCK_MONOTONIC_RAW where available, so
 * NTP slewing never stretches a sample).  Only differences mean anything.
 * Can't fail. */
double kb_now(void);

/* Smallest non-zero step the clock shows, in seconds, measured once (as
 * STREAM does) and cached.  Can't fail. */
double kb_timer_resolution(void);

/* The current time as ISO 8601 UTC ("2026-11-30T07:04:35Z") into
 * dst[len], or "" when the clock cannot be read.  Can't fail. */
void kb_utc_date(char *dst, size_t len);

#endif
