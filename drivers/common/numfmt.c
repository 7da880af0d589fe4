/* numfmt.c - the reports' number formats (numfmt.h). */
#include "drivers/common/numfmt.h"

#include <math.h>
#include <stdio.h>

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
