/* numfmt.h - numbers as text: printed as the reports print them (report,
 * compare, merge), so one figure reads the same in every table, and read
 * as the option parser reads them, with the range in the message. */
#ifndef KB_NUMFMT_H
#define KB_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* A rate or ceiling (GFLOP/s, GB/s, FLOP/B, %) with about three
 * significant figures: "%.0f" from 100, "%.2f" from 1, else "%.3g"; "-"
 * when not finite.  Returns buf.  Can't fail (cut to len). */
const char *kb_fmt_num(char *buf, size_t len, double v);

/* A time in seconds with 4 significant digits in the unit that keeps it
 * readable: s, ms, µs or ns ("1.234 ms").  Returns buf.  Can't fail. */
const char *kb_fmt_time(char *buf, size_t len, double s);

/* A share of a total as a percentage with one decimal ("35.1%"); 0.0%
 * when the total is not above 0.  Returns buf.  Can't fail. */
const char *kb_fmt_share(char *buf, size_t len, double part, double total);

/* A whole or a finite number read in full, within [min, max]; 0, or -1
 * after "kbench VERB: WHAT 'TEXT': expected ..." with the range. */
int kb_parse_int(const char *verb, const char *what, const char *text,
                 int64_t min, int64_t max, int64_t *out);
int kb_parse_double(const char *verb, const char *what, const char *text,
                    double min, double max, double *out);

#endif
