/* numfmt.c - numbers as text: the reports' formats, and the parsers
 * every option and value of a number goes through (numfmt.h). */
#include "drivers/common/numfmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *kb_fmt_num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fabs(v) >= 100 ? "%.0f" : fabs(v) >= 1 ? "%.2f" : "%.3g", v);
    return buf;
}

const char *kb_fmt_time(char *buf, size_t len, double s)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof units / sizeof units[0] && s < units[i].scale)
        i++;
    snprintf(buf, len, "%.4g %s", s / units[i].scale, units[i].unit);
    return buf;
}

const char *kb_fmt_share(char *buf, size_t len, double part, double total)
{
    snprintf(buf, len, "%.1f%%", total > 0 ? 100 * part / total : 0.0);
    return buf;
}

int kb_parse_int(const char *verb, const char *what, const char *text,
                 int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!errno && end != text && !*end && v >= min && v <= max)
        return *out = v, 0;
    fprintf(stderr, "kbench %s: %s '%s': expected an integer from %" PRId64
                    " to %" PRId64 "\n", verb, what, text, min, max);
    return -1;
}

int kb_parse_double(const char *verb, const char *what, const char *text,
                    double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!errno && end != text && !*end && isfinite(v) && v >= min && v <= max)
        return *out = v, 0;
    fprintf(stderr, "kbench %s: %s '%s': expected a number ", verb, what, text);
    if (isinf(max))
        fprintf(stderr, ">= %g\n", min);
    else
        fprintf(stderr, "from %g to %g\n", min, max);
    return -1;
}
