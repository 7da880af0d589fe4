/* history_show.c - `kbench history show`: one self-contained HTML page
 * (DIR/index.html, no network access): a table of the change points,
 * worst first, and a trend chart a series (inline SVG): every run's
 * figure, the mean of each segment, each change point marked with its
 * forward change, each event a vertical line.  Well-formed XML, so that
 * XML tools read it as they read HTML. */
#define _GNU_SOURCE   /* open_memstream */
#include "history/history.h"
#include "drivers/common/atomic_file.h"
#include "drivers/common/clock.h"
#include "drivers/common/escape.h"
#include "drivers/common/exit_codes.h"
#include "drivers/common/svg_axes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VERB "history show"

/* The events, for the charts: every one, in time order. */
typedef struct {
    long n;
    char (*time)[21];
    char **text, **node;   /* node NULL: the whole site */
} event_list;

static void events_free(event_list *e)
{
    for (long i = 0; i < e->n; i++) {
        free(e->text[i]);
        free(e->node[i]);
    }
    free(e->time);
    free(e->text);
    free(e->node);
}

static char *dup_column(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

/* 0, or -1 (SQLite failed or out of memory). */
static int read_events(sqlite3 *db, event_list *e)
{
    memset(e, 0, sizeof *e);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT time, text, node FROM events ORDER BY time, id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    long cap = 0;
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (e->n == cap) {
            cap = cap ? 2 * cap : 16;
            char(*t)[21] = realloc(e->time, (size_t)cap * sizeof *t);
            if (t)
                e->time = t;
            char **x = realloc(e->text, (size_t)cap * sizeof *x);
            if (x)
                e->text = x;
            char **nd = realloc(e->node, (size_t)cap * sizeof *nd);
            if (nd)
                e->node = nd;
            if (!t || !x || !nd) {
                rc = -1;
                break;
            }
        }
        snprintf(e->time[e->n], 21, "%s", sqlite3_column_text(st, 0));
        e->text[e->n] = dup_column(st, 1);
        e->node[e->n] = dup_column(st, 2);
        e->n++;
    }
    sqlite3_finalize(st);
    return rc || step != SQLITE_DONE ? -1 : 0;
}

/* The left margin holds the y title and tick labels as wide as
 * "-1.23e-05" (12 px type) without their overlapping (seen in Chromium). */
enum { WIDTH = 760, HEIGHT = 270 };
static const kb_svg_box chart_box = {.left = 96, .right = 740, .top = 30, .bottom = 210};

static const char *const metric_titles[] = {
    [KB_METRIC_MEDIAN] = "median time (s)",
    [KB_METRIC_GFLOPS] = "GFLOP/s",
    [KB_METRIC_PCT_OF_ROOF] = "% of the roofline",
};

/* The y axis over the series' values, padded, with round ticks. */
static kb_axis value_axis(const kb_history_series *s, double *step)
{
    double lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < s->n; i++) {
        lo = fmin(lo, s->value[i]);
        hi = fmax(hi, s->value[i]);
    }
    if (!(hi > lo)) {   /* one value: a band around it */
        double d = lo != 0 ? fabs(lo) * 0.01 : 1;
        lo -= d;
        hi += d;
    }
    kb_axis y = kb_axis_y(false, lo, hi, &chart_box);
    kb_axis_pad(&y, 0.05);
    *step = kb_axis_step(&y, 6);
    kb_axis_widen(&y, *step);
    return y;
}

/* The changes of series s, in index order, into c (room for a->nchanges). */
static long changes_of(const kb_history_analysis *a, const kb_history_series *s,
                       const kb_history_change **c)
{
    long n = 0;
    for (long i = 0; i < a->nchanges; i++)
        if (a->changes[i].series == s) {
            long k = n++;
            while (k > 0 && c[k - 1]->cp.index > a->changes[i].cp.index) {
                c[k] = c[k - 1];
                k--;
            }
            c[k] = &a->changes[i];
        }
    return n;
}

/* Where the x axis (the database's run id) is between run i-1 and run i
 * of s: half-way, or half a run outside the first and the last. */
static double before_run(const kb_history_series *s, long i)
{
    if (i <= 0)
        return (double)s->run[0] - 0.5;
    if (i >= s->n)
        return (double)s->run[s->n - 1] + 0.5;
    return 0.5 * ((double)s->run[i - 1] + (double)s->run[i]);
}

/* Each segment's mean as a grey line, each change as a dashed line
 * (red: regression, green: improvement) with its forward change. */
static void draw_changes(FILE *f, const kb_history_series *s, const kb_axis *x,
                         const kb_axis *y, const kb_history_change **c, long nc)
{
    for (long k = 0; k <= nc; k++) {
        long a = k ? c[k - 1]->cp.index : 0, b = k < nc ? c[k]->cp.index : s->n;
        double mean = k < nc ? c[k]->cp.mean_before : c[k - 1]->cp.mean_after;
        if (nc == 0) {
            mean = 0;
            for (long i = 0; i < s->n; i++)
                mean += s->value[i] / (double)s->n;
        }
        fprintf(f, "<line class=\"segment-mean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                   "y2=\"%.1f\" stroke=\"#888\" stroke-width=\"2\"/>\n",
                kb_axis_px(x, before_run(s, a)), kb_axis_px(x, before_run(s, b)), kb_axis_px(y, mean),
                kb_axis_px(y, mean));
    }
    for (long k = 0; k < nc; k++) {
        const kb_history_change *ch = c[k];
        double px = kb_axis_px(x, before_run(s, ch->cp.index));
        const char *color = ch->regression ? "#d62728" : "#2ca02c";
        fprintf(f, "<g class=\"change %s\"><title>%s at run %lld (%s): %+.1f %%, "
                   "p %.2g</title>\n",
                ch->regression ? "regression" : "improvement",
                ch->regression ? "regression" : "improvement",
                (long long)s->run[ch->cp.index], s->time[ch->cp.index],
                kb_change_forward_percent(&ch->cp), ch->cp.pvalue);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
                px, px, chart_box.top, chart_box.bottom, color);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\" "
                   "text-anchor=\"middle\">%+.1f %%</text></g>\n",
                px, chart_box.top - 6, color, kb_change_forward_percent(&ch->cp));
    }
}

/* The events of the site or s's node within the series' time, each a
 * dotted vertical line before the first run at or after it. */
static void draw_events(FILE *f, const kb_history_series *s, const kb_axis *x,
                        const event_list *e)
{
    long i = 0;
    for (long k = 0; k < e->n; k++) {
        if (e->node[k] && strcmp(e->node[k], s->node) != 0)
            continue;
        if (strcmp(e->time[k], s->time[0]) < 0 || strcmp(e->time[k], s->time[s->n - 1]) > 0)
            continue;
        while (i < s->n && strcmp(s->time[i], e->time[k]) < 0)
            i++;
        double px = kb_axis_px(x, before_run(s, i));
        fprintf(f, "<g class=\"event\"><title>%s ", e->time[k]);
        kb_xml_escape(f, e->text[k]);
        fprintf(f, "</title>\n<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                   "stroke=\"#9467bd\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n"
                   "<text x=\"%.1f\" y=\"%.1f\" fill=\"#9467bd\" font-size=\"11\">",
                px, px, chart_box.top, chart_box.bottom, px + 3, chart_box.bottom - 4);
        kb_xml_escape(f, e->text[k]);
        fputs("</text></g>\n", f);
    }
}

/* One series' chart. */
static void chart(FILE *f, const kb_history_analysis *a, const kb_history_series *s,
                  const kb_history_opts *o, const event_list *e,
                  const kb_history_change **c)
{
    static const kb_tick_style st = {"stroke=\"#e4e4e4\"", NAN, "", 4, 16};
    double t[64], ystep;
    kb_axis x = kb_axis_x(false, before_run(s, 0), before_run(s, s->n), &chart_box);
    kb_axis y = value_axis(s, &ystep);
    double xstep = kb_axis_step(&x, 10);
    kb_svg_begin(f, WIDTH, HEIGHT);
    double xt[64];
    int nxt = 0;
    xstep = fmax(1, round(xstep));   /* run ids are whole */
    for (double v = ceil(s->run[0] / xstep) * xstep; v <= s->run[s->n - 1] && nxt < 64;
         v += xstep)
        xt[nxt++] = v;
    kb_svg_ticks(f, &x, &chart_box, xt, nxt, &st);
    kb_svg_ticks(f, &y, &chart_box, t, kb_axis_ticks(&y, ystep, t, 64), &st);
    kb_svg_box_draw(f, &chart_box);
    char title[128];
    snprintf(title, sizeof title, "run (as in the table), oldest first (%s to %s)", s->time[0],
             s->time[s->n - 1]);
    kb_svg_axis_title(f, &x, &chart_box, 36, 12, title);
    kb_svg_axis_title(f, &y, &chart_box, 82, 12, metric_titles[o->metric]);
    long nc = changes_of(a, s, c);
    draw_changes(f, s, &x, &y, c, nc);
    draw_events(f, s, &x, e);
    for (long i = 0; i < s->n; i++)
        fprintf(f, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
                   "fill=\"#1f77b4\"><title>run %lld, %s: %.6g</title></circle>\n",
                kb_axis_px(&x, (double)s->run[i]), kb_axis_px(&y, s->value[i]),
                (long long)s->run[i], s->time[i], s->value[i]);
    kb_svg_end(f);
}

/* "node / backend / case", escaped. */
static void series_name(FILE *f, const kb_history_series *s)
{
    kb_xml_escape(f, s->node);
    fputs(" / ", f);
    kb_xml_escape(f, s->backend);
    fputs(" / ", f);
    kb_xml_escape(f, s->case_key);
}

static void summary_table(FILE *f, const kb_history_analysis *a)
{
    fputs("<table class=\"changes\">\n<tr><th>kind</th><th>series</th><th>run</th>"
          "<th>time</th><th>before</th><th>after</th><th>change</th><th>p</th>"
          "<th>event</th></tr>\n", f);
    for (long i = 0; i < a->nchanges; i++) {
        const kb_history_change *c = &a->changes[i];
        const kb_history_series *s = c->series;
        fprintf(f, "<tr class=\"%s\"><td>%s</td><td><a href=\"#series-%ld\">",
                c->regression ? "regression" : "improvement",
                c->regression ? "<b>regression</b>" : "improvement",
                (long)(s - a->series));
        series_name(f, s);
        fprintf(f, "</a></td><td>%lld</td><td>%s</td><td>%.4g</td><td>%.4g</td>"
                   "<td>%+.1f %%</td><td>%.2g</td><td>",
                (long long)s->run[c->cp.index], s->time[c->cp.index], c->cp.mean_before,
                c->cp.mean_after, kb_change_forward_percent(&c->cp), c->cp.pvalue);
        if (c->event_text) {
            fprintf(f, "%s ", c->event_time);
            kb_xml_escape(f, c->event_text);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void page(FILE *f, const kb_history_analysis *a, const kb_history_opts *o,
                 const event_list *e, const kb_history_change **c)
{
    char now[32];
    kb_utc_date(now, sizeof now);
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">"
          "<head><meta charset=\"utf-8\"/><title>kbench history</title>\n<style>"
          "body{font-family:Helvetica,Arial,sans-serif;margin:2em;color:#222}"
          "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #bbb;"
          "padding:3px 6px}th{background:#eee}tr.regression td{background:#fdecea}"
          "svg{max-width:100%;height:auto}h3{font-size:14px;margin-bottom:0}"
          "</style></head>\n<body>\n<h1>kbench history</h1>\n<p>", f);
    kb_xml_escape(f, o->db);
    fprintf(f, ": %ld series of %s, %ld change point%s (E-Divisive means, p &lt; %g, "
               "window %lld). Written %s.</p>\n",
            a->nseries, kb_history_metric_names[o->metric], a->nchanges,
            a->nchanges == 1 ? "" : "s", o->p, o->window, now);
    fputs("<h2>Changes, worst first</h2>\n", f);
    if (a->nchanges)
        summary_table(f, a);
    else
        fputs("<p>No change points.</p>\n", f);
    fputs("<h2>Series</h2>\n", f);
    for (long i = 0; i < a->nseries; i++) {
        fprintf(f, "<h3 id=\"series-%ld\">", i);
        series_name(f, &a->series[i]);
        fputs("</h3>\n", f);
        chart(f, a, &a->series[i], o, e, c);
    }
    fputs("</body></html>\n", f);
}

int kb_history_show(const kb_history_opts *o)
{
    sqlite3 *db;
    int rc = kb_history_open(VERB, o->db, false, &db);
    if (rc)
        return rc;
    kb_history_analysis a;
    event_list e = {0};
    rc = kb_history_analyse(VERB, db, o, &a);
    if (rc == 0 && read_events(db, &e)) {
        fprintf(stderr, "kbench " VERB ": %s: reading the events: %s\n", o->db,
                sqlite3_errmsg(db));
        kb_history_analysis_free(&a);
        rc = KB_EXIT_RUNTIME;
    }
    sqlite3_close(db);
    if (rc) {
        events_free(&e);
        return rc;
    }
    rc = KB_EXIT_RUNTIME;
    char *buf = NULL, path[4096], err[1024];
    size_t len = 0;
    const kb_history_change **c = malloc((size_t)(a.nchanges + 1) * sizeof *c);
    FILE *f = c ? open_memstream(&buf, &len) : NULL;
    if (!f) {
        fprintf(stderr, "kbench " VERB ": out of memory\n");
        goto done;
    }
    page(f, &a, o, &e, c);
    if (fclose(f) != 0) {
        fprintf(stderr, "kbench " VERB ": out of memory writing the page\n");
        goto done;
    }
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kbench " VERB ": %s: %s\n", o->out, strerror(errno));
        goto done;
    }
    snprintf(path, sizeof path, "%s/index.html", o->out);
    if (kb_write_atomic(path, buf, len, err, sizeof err)) {
        fprintf(stderr, "kbench " VERB ": %s\n", err);
        goto done;
    }
    printf("%s: %ld series, %ld change points\n", path, a.nseries, a.nchanges);
    rc = KB_EXIT_OK;
done:
    free(buf);
    free(c);
    events_free(&e);
    kb_history_analysis_free(&a);
    return rc;
}
