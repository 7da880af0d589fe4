/* training_chart.c - training_step records read back and drawn as
 * stacked bars in SVG (training_chart.h). */
#include "drivers/roofline/training_chart.h"

#include "drivers/common/escape.h"
#include "drivers/common/svg_axes.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <string.h>

/* Geometry, in SVG user units. */
enum { WIDTH = 1000, LEFT = 250, RIGHT = 680, TOP = 60, ROW = 54, BAR = 16 };

/* One colour per pass (Okabe-Ito, as the roofline), then the kernel
 * kinds' colours from the kernel table; a name not listed is grey. */
static const struct {
    const char *name, *colour;
} passes[] = {
    {"FWD", "#0072B2"}, {"BWD_D", "#D55E00"}, {"BWD_W", "#009E73"},
    {"BWD_DW", "#CC79A7"},
};
#define NPASSES (sizeof passes / sizeof passes[0])
#define NCOLOURS (NPASSES + KB_KERNEL_COUNT)

/* Name and colour of entry i of the legend's list: passes, then kernels. */
static const char *name_at(size_t i)
{
    return i < NPASSES ? passes[i].name : kb_kernel_table[i - NPASSES].name;
}

static const char *colour_at(size_t i)
{
    return i < NPASSES ? passes[i].colour : kb_kernel_table[i - NPASSES].colour;
}

static const char *colour_of(const char *name)
{
    for (size_t i = 0; i < NCOLOURS; i++)
        if (strcmp(name_at(i), name) == 0)
            return colour_at(i);
    return "#cccccc";
}

/* One stack at row y, from the start of the seconds axis.  Parts of no
 * time draw nothing. */
static void stack(FILE *f, const kb_step_stack *s, const char *what, double y,
                  const kb_axis *secs)
{
    double x = LEFT, px_per_s = kb_axis_scale(secs);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">"
            "%s</text>\n", LEFT - 6, y + BAR - 4, what);
    for (int i = 0; i < s->n; i++) {
        double w = s->t[i] > 0 && isfinite(s->t[i]) ? s->t[i] * px_per_s : 0;
        if (w <= 0)
            continue;
        fprintf(f, "<rect class=\"segment\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                "height=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\">"
                "<title>", x, y, w, BAR, colour_of(s->name[i]));
        kb_xml_escape(f, s->name[i]);
        fprintf(f, ": %.4g s</title></rect>\n", s->t[i]);
        x += w;
    }
}

/* The legend: each pass and kind name that occurs, with its colour. */
static void legend(FILE *f, const kb_step_bar *bars, int n, double y)
{
    double x = LEFT;
    fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
    for (size_t c = 0; c < NCOLOURS; c++) {
        bool used = false;
        for (int b = 0; b < n && !used; b++)
            for (int i = 0; i < KB_STEP_PARTS && !used; i++)
                used = (i < bars[b].by_pass.n &&
                        strcmp(bars[b].by_pass.name[i], name_at(c)) == 0) ||
                       (i < bars[b].by_kind.n &&
                        strcmp(bars[b].by_kind.name[i], name_at(c)) == 0);
        if (!used)
            continue;
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
                "fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n", x,
                y - 10, colour_at(c), x + 16, y, name_at(c));
        x += 30 + 8 * (double)strlen(name_at(c));
    }
    fprintf(f, "</g>\n");
}

int kb_training_chart_write(FILE *f, const kb_step_bar *bars, int n)
{
    double top = 0;
    for (int b = 0; b < n; b++)
        top = fmax(top, isfinite(bars[b].measured_s) ? bars[b].measured_s : 0);
    int height = TOP + n * ROW + 60;
    /* bar lengths: 0 s at LEFT, the longest step at RIGHT */
    kb_svg_box box = {LEFT, RIGHT, TOP, height - 60};
    kb_axis secs = kb_axis_x(false, 0, top, &box);
    kb_svg_begin(f, WIDTH, height);
    fprintf(f, "<text x=\"20\" y=\"28\" font-size=\"17\" font-weight=\"bold\">"
            "Kernel time per training step, by pass and by kernel kind</text>\n"
            "<text x=\"20\" y=\"46\" font-size=\"12\">bar length: seconds per "
            "step (the longest is %.4g s); an incomplete step shows only what "
            "was measured</text>\n", top);
    for (int b = 0; b < n; b++) {
        const kb_step_bar *s = &bars[b];
        double y = TOP + b * ROW;
        fprintf(f, "<g class=\"step-bar\"><text x=\"20\" y=\"%.1f\" "
                "font-size=\"13\">", y + BAR);
        kb_xml_escape(f, s->model);
        fprintf(f, " / ");
        kb_xml_escape(f, s->backend);
        fprintf(f, " / ");
        kb_xml_escape(f, s->dtype);
        fprintf(f, "</text>\n<text x=\"20\" y=\"%.1f\" font-size=\"10\" "
                "fill=\"#555\">", y + BAR + 14);
        kb_xml_escape(f, s->series);
        fprintf(f, "</text>\n");
        stack(f, &s->by_pass, "pass", y, &secs);
        stack(f, &s->by_kind, "kind", y + BAR + 4, &secs);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\"%s>",
                kb_axis_px(&secs, s->measured_s) + 6, y + BAR + 2,
                s->complete ? "" : " fill=\"#a00\"");
        if (s->complete)
            fprintf(f, "%.4g s", s->measured_s);
        else
            fprintf(f, "INCOMPLETE: %d pass(es) missing; %.4g s measured",
                    s->missing, s->measured_s);
        fprintf(f, "</text></g>\n");
    }
    legend(f, bars, n, TOP + n * ROW + 20);
    return kb_svg_end(f);
}

/* The array `key` of {name_key, "time_s"} objects into st.  Returns 0,
 * or -1 with err. */
static int read_stack(const cJSON *o, const char *key, const char *name_key,
                      kb_step_stack *st, char *err, size_t errlen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *it;
    if (!cJSON_IsArray(a)) {
        snprintf(err, errlen, "training_step record without an array \"%s\"",
                 key);
        return -1;
    }
    st->n = 0;
    cJSON_ArrayForEach(it, a) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, name_key);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "time_s");
        if (!cJSON_IsString(name) || !cJSON_IsNumber(t)) {
            snprintf(err, errlen, "training_step \"%s\" item without a string "
                     "\"%s\" and a number \"time_s\"", key, name_key);
            return -1;
        }
        if (st->n == KB_STEP_PARTS) {
            snprintf(err, errlen, "training_step \"%s\" has more than %d "
                     "items", key, KB_STEP_PARTS);
            return -1;
        }
        st->name[st->n] = name->valuestring;
        st->t[st->n++] = t->valuedouble;
    }
    return 0;
}

int kb_step_bar_read(const cJSON *o, const char *series, kb_step_bar *b,
                     char *err, size_t errlen)
{
    static const char *const strings[] = {"model", "backend", "dtype"};
    const cJSON *v[3];
    for (int i = 0; i < 3; i++)
        if (!cJSON_IsString(v[i] = cJSON_GetObjectItemCaseSensitive(o, strings[i]))) {
            snprintf(err, errlen, "training_step record without a string "
                     "\"%s\"", strings[i]);
            return -1;
        }
    const cJSON *complete = cJSON_GetObjectItemCaseSensitive(o, "complete");
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(o, "measured_s");
    const cJSON *missing = cJSON_GetObjectItemCaseSensitive(o, "missing");
    if (!cJSON_IsBool(complete) || !cJSON_IsNumber(measured) ||
        !cJSON_IsArray(missing)) {
        snprintf(err, errlen, "training_step record without a bool "
                 "\"complete\", a number \"measured_s\" and an array "
                 "\"missing\"");
        return -1;
    }
    memset(b, 0, sizeof *b);
    b->model = v[0]->valuestring, b->backend = v[1]->valuestring;
    b->dtype = v[2]->valuestring;
    b->series = series;
    b->complete = cJSON_IsTrue(complete);
    b->measured_s = measured->valuedouble;
    b->missing = cJSON_GetArraySize(missing);
    return read_stack(o, "by_pass", "pass", &b->by_pass, err, errlen) ||
           read_stack(o, "by_kind", "kind", &b->by_kind, err, errlen) ? -1 : 0;
}
