/* test_svg_axes.c - the chart axes of drivers/common/svg_axes.h: pixels at
 * the ends, the middle and off the axis, round steps and tick sets worked
 * out by hand, and the SVG the grid and titles write. */
#define _POSIX_C_SOURCE 200809L   /* open_memstream */
#include "drivers/common/svg_axes.h"

#include "check.h"

#include <stdlib.h>

static const kb_svg_box BOX = {100, 500, 50, 400};

static void test_log_pixels(void)
{
    kb_axis a = kb_axis_x(true, 0.1, 1000, &BOX);
    CHECK_NEAR(kb_axis_px(&a, 0.1), 100, 1e-12);
    CHECK_NEAR(kb_axis_px(&a, 1000), 500, 1e-12);
    CHECK_NEAR(kb_axis_px(&a, 10), 300, 1e-12);     /* 2 of 4 decades */
    CHECK_NEAR(kb_axis_px(&a, 1), 200, 1e-12);
    CHECK_NEAR(kb_axis_scale(&a), 100, 1e-12);      /* pixels per decade */
    /* off the axis, and what has no logarithm: on the nearest end */
    CHECK(kb_axis_px(&a, 1e6) == 500);
    CHECK(kb_axis_px(&a, 1e-3) == 100);
    CHECK(kb_axis_px(&a, 0) == 100);
    CHECK(kb_axis_px(&a, -5) == 100);
    CHECK(kb_axis_px(&a, NAN) == 100);
}

static void test_linear_pixels(void)
{
    kb_axis a = kb_axis_y(false, 0, 7, &BOX);       /* upwards */
    CHECK(kb_axis_px(&a, 0) == 400);
    CHECK(kb_axis_px(&a, 7) == 50);
    CHECK_NEAR(kb_axis_px(&a, 3.5), 225, 1e-12);
    CHECK_NEAR(kb_axis_scale(&a), -50, 1e-12);
    CHECK(kb_axis_px(&a, -1) == 400);
    CHECK(kb_axis_px(&a, 100) == 50);
    /* degenerate (every bar 0 s long): everything at the start */
    kb_axis d = kb_axis_x(false, 0, 0, &BOX);
    CHECK(kb_axis_px(&d, 0) == 100 && kb_axis_px(&d, 3) == 100);
    CHECK(kb_axis_scale(&d) == 0);
}

static void test_decades(void)
{
    double t[16];
    kb_axis a = kb_axis_x(true, 0.1, 1000, &BOX);
    int n = kb_axis_ticks(&a, 10, t, 16);
    CHECK(n == 5);
    const double want[] = {0.1, 1, 10, 100, 1000};
    for (int i = 0; i < n && i < 5; i++)
        CHECK_NEAR(t[i], want[i], 1e-15);
    /* widened to whole decades around the data */
    kb_axis w = kb_axis_x(true, 0.3, 700, &BOX);
    kb_axis_widen(&w, 10);
    CHECK_NEAR(w.lo, 0.1, 1e-15);
    CHECK_NEAR(w.hi, 1000, 1e-15);
    CHECK(kb_axis_ticks(&w, 10, t, 16) == 5);
    /* a whole decade stays where it is */
    kb_axis e = kb_axis_x(true, 1, 100, &BOX);
    kb_axis_widen(&e, 10);
    CHECK(e.lo == 1 && e.hi == 100);
}

static void test_log_factors(void)
{
    double t[16];
    /* 0.9..1.1 is 0.087 decades: 1.01 gives 20 steps, 1.02 10, 1.05 4 */
    kb_axis a = kb_axis_x(true, 0.9, 1.1, &BOX);
    CHECK(kb_axis_step(&a, 8) == 1.05);
    int n = kb_axis_ticks(&a, 1.05, t, 16);
    CHECK(n == 4);
    CHECK_NEAR(t[0], 1 / 1.05 / 1.05, 1e-15);
    CHECK(t[2] == 1);                               /* 1 is always a tick */
    CHECK_NEAR(t[3], 1.05, 1e-15);
    /* six decades with at most 8 steps: decades; twelve: hundreds */
    kb_axis d = kb_axis_x(true, 1e-3, 1e3, &BOX);
    CHECK(kb_axis_step(&d, 8) == 10);
    kb_axis h = kb_axis_x(true, 1e-6, 1e6, &BOX);
    CHECK(kb_axis_step(&h, 8) == 100);
    /* padded by 5 % of its two decades at each end */
    kb_axis p = kb_axis_x(true, 1, 100, &BOX);
    kb_axis_pad(&p, 0.05);
    CHECK_NEAR(p.lo, pow(10, -0.1), 1e-14);
    CHECK_NEAR(p.hi, pow(10, 2.1), 1e-14);
}

static void test_linear_steps(void)
{
    double t[16];
    kb_axis a = kb_axis_x(false, 0, 7, &BOX);
    CHECK(kb_axis_step(&a, 10) == 1);
    int n = kb_axis_ticks(&a, 1, t, 16);
    CHECK(n == 8);
    for (int i = 0; i < n; i++)
        CHECK(t[i] == i);
    CHECK(kb_axis_ticks(&a, 1, t, 3) == 3 && t[2] == 2);   /* cut at max */
    CHECK(kb_axis_step(&a, 3) == 2.5);              /* 7 / 3 = 2.33 */
    kb_axis b = kb_axis_x(false, 0, 1000, &BOX);
    CHECK(kb_axis_step(&b, 8) == 200);              /* 100 gives 10 */
    kb_axis c = kb_axis_x(false, 0, 23, &BOX);
    CHECK(kb_axis_step(&c, 10) == 2.5);
    /* merge's ratio axis: 0.8..1.2 in steps of 0.05 (the literal) */
    kb_axis r = kb_axis_x(false, 0.83, 1.17, &BOX);
    CHECK(kb_axis_step(&r, 10) == 0.05);
    kb_axis_widen(&r, 0.05);
    CHECK_NEAR(r.lo, 0.8, 1e-15);
    CHECK_NEAR(r.hi, 1.2, 1e-15);
    n = kb_axis_ticks(&r, 0.05, t, 16);
    CHECK(n == 9);
    CHECK_NEAR(t[4], 1, 1e-15);
    /* an end a rounding error past a step is on it: 0.8 / 0.05 */
    kb_axis s = kb_axis_x(false, 0.8, 1.2, &BOX);
    kb_axis_widen(&s, 0.05);
    CHECK_NEAR(s.lo, 0.8, 1e-15);
    /* zero is a tick, and not -0 */
    kb_axis z = kb_axis_x(false, -3, 3, &BOX);
    n = kb_axis_ticks(&z, 1, t, 16);
    CHECK(n == 7 && t[3] == 0 && !signbit(t[3]));
}

/* What fn wrote to a memory stream, NUL-terminated; the caller frees. */
static char *drawn(void (*fn)(FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fn(f);
    fclose(f);
    return buf;
}

static void draw_x_decades(FILE *f)
{
    double t[8];
    kb_axis a = kb_axis_x(true, 0.1, 1000, &BOX);
    kb_tick_style st = {"stroke=\"#ddd\"", 1, "stroke=\"#000\"", 6, 20};
    kb_svg_ticks(f, &a, &BOX, t, kb_axis_ticks(&a, 10, t, 8), &st);
    kb_svg_axis_title(f, &a, &BOX, 45, 14, "FLOP/byte <AI>");
}

static void draw_y_big(FILE *f)
{
    double t[] = {1e5, 0.00001, 1.0201};
    kb_axis a = kb_axis_y(true, 1e-5, 1e5, &BOX);
    kb_tick_style st = {"stroke=\"#ddd\"", NAN, NULL, 0, 6};
    kb_svg_ticks(f, &a, &BOX, t, 3, &st);
    kb_svg_axis_title(f, &a, &BOX, 78, 14, "GFLOP/s");
}

static void test_grids(void)
{
    char *s = drawn(draw_x_decades);
    CHECK(s != NULL);
    if (s) {
        /* the 10 tick: halfway, from 6 above the box to its bottom,
         * labelled 20 under it */
        CHECK(strstr(s, "<line x1=\"300.0\" y1=\"44.0\" x2=\"300.0\" y2=\"400.0\" "
                     "stroke=\"#ddd\"/>\n<text x=\"300.0\" y=\"420.0\" "
                     "text-anchor=\"middle\">10</text>\n") != NULL);
        CHECK(strstr(s, ">0.1</text>") && strstr(s, ">1000</text>"));
        CHECK(strstr(s, "x1=\"200.0\" y1=\"44.0\" x2=\"200.0\" y2=\"400.0\" "
                     "stroke=\"#000\"/>") != NULL);   /* 1 stands out */
        CHECK(strstr(s, "<text x=\"300.0\" y=\"445.0\" text-anchor=\"middle\" "
                     "font-size=\"14\">FLOP/byte &lt;AI&gt;</text>") != NULL);
    }
    free(s);
    s = drawn(draw_y_big);
    CHECK(s != NULL);
    if (s) {
        /* 1e5 at the top, labelled in full at the box's left - 6 */
        CHECK(strstr(s, "<line x1=\"100.0\" y1=\"50.0\" x2=\"500.0\" y2=\"50.0\" "
                     "stroke=\"#ddd\"/>\n<text x=\"94.0\" y=\"54.0\" "
                     "text-anchor=\"end\">100000</text>") != NULL);
        CHECK(strstr(s, ">1e-05</text>") && strstr(s, ">1.02</text>"));
        CHECK(strstr(s, "<text transform=\"translate(22.0 225.0) rotate(-90)\" "
                     "text-anchor=\"middle\" font-size=\"14\">GFLOP/s</text>") != NULL);
    }
    free(s);
}

static void document(FILE *f)
{
    kb_svg_begin(f, 640, 480);
    kb_svg_box_draw(f, &BOX);
}

static void test_documents(void)
{
    const char *head = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" "
                       "height=\"480\" viewBox=\"0 0 640 480\"";
    char *s = drawn(document);
    CHECK(s && strncmp(s, head, strlen(head)) == 0);
    CHECK(s && strstr(s, "<rect x=\"100.0\" y=\"50.0\" width=\"400.0\" "
                      "height=\"350.0\" fill=\"none\""));
    free(s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && kb_svg_end(f) == 0);
    if (f)
        fclose(f);
    CHECK(buf && strcmp(buf, "</svg>\n") == 0);
    free(buf);
    /* a write that fails is reported */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        CHECK(kb_svg_end(full) == -1);
        fclose(full);
    }
}

static const check_test tests[] = {
    CHECK_TEST(log_pixels),
    CHECK_TEST(linear_pixels),
    CHECK_TEST(decades),
    CHECK_TEST(log_factors),
    CHECK_TEST(linear_steps),
    CHECK_TEST(grids),
    CHECK_TEST(documents),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
