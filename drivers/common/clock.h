/* clock.h - the one clock every measurement in kbench reads: the timed
 * repetition loop, the ceilings, the I/O stage. */
#ifndef KB_CLOCK_H
#define KB_CLOCK_H

/* Seconds on a monotonic clock (CLOCK_MONOTONIC_RAW where available, so
 * NTP slewing never stretches a sample).  Only differences mean anything.
 * Can't fail. */
double kb_now(void);

/* Smallest non-zero step the clock shows, in seconds, measured once (as
 * STREAM does) and cached.  Can't fail. */
double kb_timer_resolution(void);

#endif
