/* report.h - what the files of `kbench report` share: the report being
 * built (result files, ceilings, cases grouped by the device they ran on,
 * charts, training steps) and the steps that build and write it. */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include "machine/ceilings/ceilings.h"
#include "drivers/results/results.h"
#include "drivers/roofline/placement.h"
#include "drivers/roofline/svg.h"
#include "drivers/roofline/training_chart.h"

#include <stdbool.h>
#include <stdio.h>

/* Devices in one report: a CPU and a few GPUs for each result file. */
#define KB_REPORT_MAX_CHARTS 16

/* One case record and where it went. */
typedef struct {
    const kb_result_case *rc;   /* in its file's cases */
    int series;                 /* its result file: report.s[series] */
    int chart;                  /* the device it ran on: report.charts[chart] */
    bool placed;
    kb_placement pl;
    char why[400];              /* why a PASSED case was not placed; placed:
                                   whose ceilings when not its own GPU's, "" */
} kb_report_case;

/* What a backend's cases ran on, from the run record (strings in it). */
typedef struct {
    const char *kind;           /* "cpu", "cuda", "hip" */
    const char *id;             /* the GPU's uuid; "" for the CPU, unknown */
    const char *name;           /* describe()'s "0: NVIDIA H200"; "" */
} kb_report_device;

/* One device and its chart and section: the CPU, or one GPU by uuid. */
typedef struct {
    kb_report_device dev;
    bool has[KB_SVG_MAX_SERIES];                /* result file k ran here */
    const char *name[KB_SVG_MAX_SERIES];        /* its model as file k says */
    const kb_device *roof[KB_SVG_MAX_SERIES];   /* file k's ceilings; NULL */
    char title[200];            /* the device's model */
    char file[32];              /* roofline.svg, roofline-2.svg, ...; "": none */
    char *svg;                  /* the chart, when file is set */
} kb_report_chart;

/* One result file. */
typedef struct {
    const char *path;           /* as given */
    kb_result_file file;
    char name[200];             /* legend label: host @ commit (path) */
    const kb_ceilings *ceil;    /* NULL without --peaks */
    const char *ceil_path;      /* the --peaks file ceil came from */
} kb_report_series;

typedef struct {
    int nseries;
    kb_report_series s[KB_SVG_MAX_SERIES];
    int npeaks;
    const char *peaks_path[KB_SVG_MAX_SERIES];
    kb_ceilings *peaks[KB_SVG_MAX_SERIES];
    const char *level;          /* --level: auto, L1, L2, L3, DRAM */
    kb_report_case *cases;
    size_t ncases;
    int ncharts;
    kb_report_chart charts[KB_REPORT_MAX_CHARTS];
    kb_step_bar *steps;         /* every file's training steps */
    size_t nsteps;
    char *training_svg;         /* their chart, when nsteps > 0 */
} kb_report;

/* report_read.c: load r's --peaks files and result files (r->peaks_path,
 * r->s[k].path set) through the one results reader, which checks the
 * schema, and take their cases and training steps.  Returns an exit code
 * (commands.h): 0, 2 after "kbench report: FILE:LINE: what is wrong", 3
 * out of memory. */
int kb_report_load(kb_report *r);
void kb_report_free(kb_report *r);

/* report_devices.c: group the cases by the device they ran on (the CPU's
 * chart first, then the GPUs as they appear) with each chart's ceilings
 * per result file, and title the charts.  Returns 0, or -1 after a
 * message when the cases ran on more than KB_REPORT_MAX_CHARTS devices. */
int kb_report_assign_charts(kb_report *r);
/* Place every PASSED case under its chart's ceilings, or say why not.
 * Can't fail. */
void kb_report_place(kb_report *r);
/* "cuda NVIDIA H200 GPU-...", a ceilings device for the reader. */
const char *kb_report_device_name(char *buf, size_t len, const kb_device *d);

/* report_charts.c: a chart for every device with a PASSED case (when none
 * has one, the first device's, empty), and the training steps' chart when
 * there are steps.  Returns 0, or -1 after a message (out of memory). */
int kb_report_draw(kb_report *r);

/* How the document is written, the same sections in either format:
 * Markdown (report_md.c) or self-contained HTML (report_html.c).  Text
 * is escaped for the format; none of them can fail (a write error stays
 * in ferror(f)). */
typedef struct {
    void (*begin)(FILE *f);                         /* title (and head) */
    void (*end)(FILE *f);
    void (*heading)(FILE *f, int level, const char *s);   /* 2 or 3 */
    void (*para)(FILE *f, const char *s);
    void (*list_begin)(FILE *f);
    void (*item)(FILE *f, const char *s);
    void (*list_end)(FILE *f);
    void (*table_head)(FILE *f, const char *const *cells, int n);
    void (*table_row)(FILE *f, const char *const *cells, int n);
    void (*table_end)(FILE *f);
    /* a chart: Markdown links file, HTML holds svg inline */
    void (*figure)(FILE *f, const char *alt, const char *file, const char *svg);
} kb_report_format;

extern const kb_report_format kb_report_md;     /* report_md.c */
extern const kb_report_format kb_report_html;   /* report_html.c */

/* report_doc.c: the report in format fmt: the result files, the
 * ceilings, one section per device and the training steps.  Returns 0,
 * or -1 when writing to f fails. */
int kb_report_write_doc(FILE *f, const kb_report_format *fmt, const kb_report *r);

#endif
