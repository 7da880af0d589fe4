/* compare_md.c - the compare report as Markdown: the two sides, the
 * warnings, one row per matched case, the geometric means, the unmatched
 * cases, the gate, and how every figure was computed. */
#include "drivers/compare/compare.h"
#include "drivers/common/escape.h"
#include "drivers/common/md_table.h"
#include "drivers/common/numfmt.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* A provenance value, cut to a readable length. */
#define VALUE_MAX 80
static void value(FILE *f, const char *v)
{
    fprintf(f, "`%.*s%s`", VALUE_MAX, v, strlen(v) > VALUE_MAX ? " ..." : "");
}

static const char *run_str(const kb_result_file *file, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(file->run, key);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

static void sides(const kb_compare *c, FILE *f)
{
    if (c->backend_a) {
        fprintf(f, "One run, two backends: **A** = `%s`, **B** = `%s`, both from "
                   "`%s` (host %s, commit %.12s).\n\n",
                c->backend_a, c->backend_b, c->fa->path, c->fa->host,
                run_str(c->fa, "git_commit"));
        return;
    }
    static const char *const head[] = {"", "file", "host", "commit", "compiler",
                                       "build flags"};
    kb_md_table_head(f, head, 6, NULL);
    const kb_result_file *files[] = {c->fa, c->fb};
    for (int i = 0; i < 2; i++) {
        kb_md_row_begin(f);
        kb_md_cellf(f, "**%c**", "AB"[i]);
        kb_md_cell(f, files[i]->path);
        kb_md_cell(f, files[i]->host);
        kb_md_cellf(f, "%.12s", run_str(files[i], "git_commit"));
        kb_md_cell(f, run_str(files[i], "compiler"));
        kb_md_cell(f, run_str(files[i], "build_flags"));
        kb_md_row_end(f);
    }
    fputc('\n', f);
}

static void warnings(const kb_compare *c, FILE *f)
{
    bool partial = !c->fa->complete || !c->fb->complete;
    if (!c->nfew && !c->ndiffs && !c->nunmatched && !partial)
        return;
    fputs("**Warnings**\n\n", f);
    const kb_result_file *files[] = {c->fa, c->fb};
    for (int i = 0; i < (c->fa == c->fb ? 1 : 2); i++)
        if (!files[i]->complete)
            fprintf(f, "- `%s` has no summary record: its run was interrupted "
                       "or killed, and only the cases it finished are here.\n",
                    files[i]->path);
    if (c->nfew)
        fprintf(f, "- %d case(s) have fewer than %d samples on a side (marked "
                   "`few samples`): the test has little power to find a "
                   "difference, and a `~` there means little.\n",
                c->nfew, KB_COMPARE_MIN_SAMPLES);
    if (c->nunmatched)
        fprintf(f, "- %zu case(s) are in one run only, or repeated: listed under "
                   "\"Unmatched cases\", not compared.\n", c->nunmatched);
    if (!c->ndiffs) {
        fputc('\n', f);
        return;
    }
    fputs("- The runs' provenance differs (A → B). Comparing builds, `build` "
          "differences are expected; comparing machines, `machine` ones; any "
          "other difference is mixed into every ratio below:\n", f);
    for (size_t i = 0; i < c->ndiffs; i++) {
        const kb_cmp_diff *d = &c->diffs[i];
        fprintf(f, "  - %s `%s`: ", d->kind, d->key);
        value(f, d->a);
        fputs(" → ", f);
        value(f, d->b);
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void row(const kb_cmp_row *r, FILE *f)
{
    char backend[160], what[160], ta[32], tb[32];
    if (strcmp(r->a->backend, r->b->backend) == 0)
        snprintf(backend, sizeof backend, "%s", r->a->backend);
    else
        snprintf(backend, sizeof backend, "%s → %s", r->a->backend, r->b->backend);
    snprintf(what, sizeof what, "%s %s %s", r->a->dtype, r->a->layout, r->a->dir);
    kb_md_row_begin(f);
    kb_md_cell(f, r->label);
    kb_md_cell(f, r->a->kernel);
    kb_md_cell(f, backend);
    kb_md_cell(f, what);
    if (!r->compared) {
        for (int i = 0; i < 7; i++)   /* the figures, from A median to test */
            kb_md_cell(f, "");
        kb_md_cell(f, "n/a");
        kb_md_cell(f, r->why);
        kb_md_row_end(f);
        return;
    }
    kb_md_cell(f, kb_fmt_time(ta, sizeof ta, r->a->median_s));
    kb_md_cell(f, kb_fmt_time(tb, sizeof tb, r->b->median_s));
    kb_md_cellf(f, "%lld / %lld", (long long)r->a->nsamples, (long long)r->b->nsamples);
    kb_md_cellf(f, "%.3f", r->ratio);
    kb_md_cellf(f, "%.3f – %.3f", r->lo, r->hi);
    kb_md_cellf(f, "%.3g", r->mw.p);
    kb_md_cell(f, kb_mw_method_name(r->mw.method));
    kb_md_cellf(f, "**%s**", r->verdict);
    kb_md_cellf(f, "%s%s%s", r->few ? "few samples" : "", r->few && r->gated ? "; " : "",
                r->gated ? "**over the gate**" : "");
    kb_md_row_end(f);
}

static void group_row(const kb_cmp_group *g, const char *name, FILE *f)
{
    char says[64];
    kb_compare_describe(g->geomean, says, sizeof says);
    kb_md_row_begin(f);
    kb_md_cell(f, name);
    kb_md_cellf(f, "%d", g->n);
    kb_md_cellf(f, "%.3f", g->geomean);
    kb_md_cell(f, says);
    kb_md_row_end(f);
}

static void summary(const kb_compare *c, FILE *f)
{
    static const char *const head[] = {"model", "cases", "A/B", "reading"};
    fputs("\n## Geometric mean of the ratios\n\n", f);
    kb_md_table_head(f, head, 4, NULL);
    for (size_t i = 0; i < c->ngroups; i++)
        group_row(&c->groups[i], c->groups[i].model[0] ? c->groups[i].model
                                                       : "(no model)", f);
    group_row(&c->overall, "**all**", f);
}

static void unmatched(const kb_compare *c, FILE *f)
{
    if (!c->nunmatched && !c->nother)
        return;
    fputs("\n## Unmatched cases\n\n", f);
    for (size_t i = 0; i < c->nunmatched; i++) {
        const kb_cmp_unmatched *u = &c->unmatched[i];
        const kb_result_file *file = u->side == 'A' ? c->fa : c->fb;
        fprintf(f, "- %c `%s` line %ld: ", u->side, file->path, u->c->line);
        kb_md_escape(f, u->c->desc);
        fprintf(f, " %s %s %s %s %s — ", u->c->kernel, u->c->backend,
                u->c->dtype, u->c->layout, u->c->dir);
        if (u->first_line)
            fprintf(f, "repeats the case of line %ld, not compared\n", u->first_line);
        else
            fprintf(f, "only in %c\n", u->side);
    }
    if (c->nother)
        fprintf(f, "- %zu case(s) of other backends than `%s` and `%s` left out\n",
                c->nother, c->backend_a, c->backend_b);
}

static void gate_section(const kb_compare *c, FILE *f)
{
    if (isnan(c->gate_pct))
        return;
    fprintf(f, "\n## Gate: --fail-if-slower %g%s\n\n**%s**: ", c->gate_pct,
            c->gate_summary ? " --summary" : "", c->gate_failed ? "FAIL" : "PASS");
    if (c->gate_summary) {
        fprintf(f, "the geometric mean of all ratios is %.3f; the gate fails "
                   "below %.3f (B slower by more than %g %%).\n",
                c->overall.geomean, 1.0 / (1.0 + c->gate_pct / 100.0), c->gate_pct);
        return;
    }
    int n = 0;
    for (size_t i = 0; i < c->nrows; i++)
        n += c->rows[i].gated;
    fprintf(f, "%d case(s) significantly slower in B (verdict `slower`) with a "
               "ratio below %.3f (slower by more than %g %%).\n",
            n, 1.0 / (1.0 + c->gate_pct / 100.0), c->gate_pct);
}

static void method(FILE *f)
{
    fprintf(f,
        "\n**How to read it.** ratio = A's median time / B's median time: "
        "above 1, B is faster (by ratio − 1), below 1, B is slower. "
        "95 %% CI: Hodges–Lehmann on log times, exponentiated: the "
        "estimate is the median of all ln a_i − ln b_j, the interval's ends "
        "their k-th smallest and k-th largest, k from the Mann–Whitney U "
        "distribution (exact, as R's wilcox.test: the achieved level is at "
        "least 95 %% when the samples allow it; or the normal approximation). "
        "p: two-sided Mann–Whitney U test, `test` says how: `exact` (its "
        "exact distribution) when no value is tied and neither side has "
        "more than %d samples, else `normal` (normal approximation with the "
        "tie correction and a continuity correction of 1/2). verdict: "
        "`faster` or `slower` (B against A) when p < %g and the interval "
        "excludes 1, `~` otherwise; `n/a` when a side did not run, failed "
        "validation or has no samples.\n",
        KB_MW_EXACT_MAX, KB_COMPARE_ALPHA);
}

int kb_compare_markdown(const kb_compare *c, FILE *f)
{
    fputs("# kbench compare\n\n", f);
    sides(c, f);
    warnings(c, f);
    static const char *const head[] = {"case", "kernel", "backend",
        "dtype layout dir", "A median", "B median", "n A / B", "ratio A/B",
        "95 % CI", "p", "test", "verdict", "notes"};
    kb_md_table_head(f, head, 13, NULL);
    for (size_t i = 0; i < c->nrows; i++)
        row(&c->rows[i], f);
    method(f);
    summary(c, f);
    unmatched(c, f);
    gate_section(c, f);
    if (c->svg_link)
        fprintf(f, "\n![The ratios with their 95 %% intervals](%s)\n", c->svg_link);
    return ferror(f) ? -1 : 0;
}
