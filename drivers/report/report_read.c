/* report_read.c - the inputs of `kbench report`: the ceilings files, and
 * the result files read through drivers/results/ (schema checked), their
 * cases and training steps taken into the report (report.h). */
#include "drivers/report/report.h"

#include "drivers/commands.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The legend label of a result file: host @ short commit (path), else its
 * path. */
static void name_series(kb_report_series *s)
{
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(s->file.run, "git_commit");
    if (cJSON_IsString(commit))
        snprintf(s->name, sizeof s->name, "%s @ %.12s (%s)", s->file.host,
                 commit->valuestring, s->path);
    else
        snprintf(s->name, sizeof s->name, "%s", s->path);
}

/* Every file's cases, in file order, into r->cases.  Returns 0, or -1 out
 * of memory. */
static int take_cases(kb_report *r)
{
    size_t n = 0;
    for (int k = 0; k < r->nseries; k++)
        n += r->s[k].file.ncases;
    if (!(r->cases = calloc(n + 1, sizeof *r->cases)))
        return -1;
    for (int k = 0; k < r->nseries; k++)
        for (size_t i = 0; i < r->s[k].file.ncases; i++)
            r->cases[r->ncases++] = (kb_report_case){.rc = &r->s[k].file.cases[i],
                                                     .series = k};
    return 0;
}

/* Every file's training steps into r->steps (their strings point into the
 * files' records).  Returns an exit code: 2 after naming the file and
 * line of a step record the chart cannot read, 3 out of memory. */
static int take_steps(kb_report *r)
{
    size_t n = 0;
    char err[256];
    for (int k = 0; k < r->nseries; k++)
        n += r->s[k].file.nsteps;
    if (!(r->steps = calloc(n + 1, sizeof *r->steps))) {
        fprintf(stderr, "kbench report: out of memory for %zu training steps\n", n);
        return KB_EXIT_RUNTIME;
    }
    for (int k = 0; k < r->nseries; k++) {
        const kb_result_file *f = &r->s[k].file;
        for (size_t i = 0; i < f->nsteps; i++) {
            if (kb_step_bar_read(f->steps[i].json, f->path, &r->steps[r->nsteps],
                                 err, sizeof err) != 0) {
                fprintf(stderr, "kbench report: %s:%ld: %s\n", f->path,
                        f->steps[i].line, err);
                return KB_EXIT_USAGE;
            }
            r->nsteps++;
        }
    }
    return KB_EXIT_OK;
}

int kb_report_load(kb_report *r)
{
    char err[PATH_MAX + 600];
    for (int p = 0; p < r->npeaks; p++) {
        if (!(r->peaks[p] = malloc(sizeof *r->peaks[p]))) {
            fprintf(stderr, "kbench report: out of memory\n");
            return KB_EXIT_RUNTIME;
        }
        if (kb_ceilings_load(r->peaks_path[p], r->peaks[p], err, sizeof err)) {
            fprintf(stderr, "kbench report: bad ceilings file: %s\n", err);
            return KB_EXIT_USAGE;
        }
    }
    for (int k = 0; k < r->nseries; k++) {
        kb_report_series *s = &r->s[k];
        if (kb_result_file_load(s->path, &s->file, err, sizeof err)) {
            fprintf(stderr, "kbench report: %s\n", err);
            return KB_EXIT_USAGE;
        }
        /* one --peaks for every file, or one each */
        int p = k < r->npeaks ? k : r->npeaks - 1;
        s->ceil = r->npeaks == 0 ? NULL : r->peaks[p];
        s->ceil_path = r->npeaks == 0 ? NULL : r->peaks_path[p];
        name_series(s);
    }
    if (take_cases(r)) {
        fprintf(stderr, "kbench report: out of memory for the cases\n");
        return KB_EXIT_RUNTIME;
    }
    return take_steps(r);
}

void kb_report_free(kb_report *r)
{
    free(r->cases);
    free(r->steps);
    free(r->training_svg);
    for (int k = 0; k < r->nseries; k++)
        kb_result_file_free(&r->s[k].file);
    for (int p = 0; p < r->npeaks; p++)
        free(r->peaks[p]);
    for (int i = 0; i < r->ncharts; i++)
        free(r->charts[i].svg);
}
