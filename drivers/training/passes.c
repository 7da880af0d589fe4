/* passes.c - a model's training step: its catalog's layers expanded into
 * their forward and backward passes (passes.h). */
#include "drivers/training/passes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The backward GEMM passes, as their names end. */
static const struct {
    const char *suffix;
    kb_dir dir;
} gemm_passes[] = {{":BWD_D", KB_BWD_D}, {":BWD_W", KB_BWD_W}};
#define NGEMM_PASSES (sizeof gemm_passes / sizeof gemm_passes[0])

/* Index into gemm_passes of the suffix name ends with, or -1. */
static int gemm_pass_index(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < NGEMM_PASSES; i++) {
        size_t l = strlen(gemm_passes[i].suffix);
        if (n > l && strcmp(name + n - l, gemm_passes[i].suffix) == 0)
            return (int)i;
    }
    return -1;
}

kb_dir kb_training_pass(const kb_problem *p)
{
    int i = p->kind == KB_GEMM ? gemm_pass_index(p->name) : -1;
    return i < 0 ? p->dir : gemm_passes[i].dir;
}

const char *kb_training_layer(const kb_problem *p, char *buf, size_t len)
{
    int i = p->kind == KB_GEMM ? gemm_pass_index(p->name) : -1;
    size_t n = strlen(p->name);
    if (i >= 0)
        n -= strlen(gemm_passes[i].suffix);
    snprintf(buf, len, "%.*s", (int)n, p->name);
    return buf;
}

/* Appends p with direction dir and count; a count of 0 appends nothing.
 * Returns 0, or -1 with err when out of memory. */
static int push_pass(kb_problem_list *out, const kb_problem *p, kb_dir dir,
                     int64_t count, char *err, size_t errlen)
{
    kb_problem q = *p;
    q.dir = dir;
    q.count = count;
    if (count == 0 || kb_problem_list_push(out, &q) == 0)
        return 0;
    snprintf(err, errlen, "out of memory after %zu passes", out->n);
    return -1;
}

/* Whether g is the backward GEMM `dir` of the forward f (y = x W: M the
 * batch, W stored [K,N], or [N,K] when f->tb):
 *   BWD_D  dX[mb,K] = dY[mb,N] W^T: M the batch, N = f's K, K = f's N,
 *          A = dY as stored, B = W as stored (tb exactly when f has none);
 *   BWD_W  dW = X^T dY in W's storage: K the batch, [M,N] = W's shape,
 *          A the batch-major operand transposed (ta), B as stored.
 * Writes what it expected into why when not. */
static bool is_backward_of(const kb_gemm_desc *f, const kb_gemm_desc *g,
                           kb_dir dir, char *why, size_t len)
{
    bool ok;
    if (dir == KB_BWD_D) {
        ok = g->m_is_mb && g->n == f->k && g->k == f->n && !g->ta &&
             g->tb == !f->tb;
        snprintf(why, len, "mbn%" PRId64 "k%" PRId64 "%s", f->k, f->n,
                 f->tb ? "" : "_tb");
    } else {
        int64_t m = f->tb ? f->n : f->k, n = f->tb ? f->k : f->n;
        ok = g->k_is_mb && g->m == m && g->n == n && g->ta && !g->tb;
        snprintf(why, len, "m%" PRId64 "n%" PRId64 "_ta (K the batch)", m, n);
    }
    return ok && f->m_is_mb && !f->ta;
}

/* The backward GEMMs of forward layer f among bwd: found[i] for
 * gemm_passes[i], NULL when absent; each used one is marked.  Returns 0,
 * or -1 with err when a pass is there twice or has the wrong shape. */
static int find_backward(const kb_problem *f, const kb_problem_list *bwd,
                         bool *used, const kb_problem *found[NGEMM_PASSES],
                         const char *model, char *err, size_t errlen)
{
    char layer[KB_NAME_MAX], want[96];
    memset(found, 0, NGEMM_PASSES * sizeof *found);
    for (size_t j = 0; j < bwd->n; j++) {
        const kb_problem *g = &bwd->items[j];
        int i = gemm_pass_index(g->name);
        if (i < 0 || strcmp(kb_training_layer(g, layer, sizeof layer),
                            f->name) != 0)
            continue;
        if (found[i]) {
            snprintf(err, errlen, "%s.training: '%s' is there twice", model,
                     g->name);
            return -1;
        }
        if (g->kind != KB_GEMM ||
            !is_backward_of(&f->gemm, &g->gemm, gemm_passes[i].dir, want,
                            sizeof want)) {
            snprintf(err, errlen, "%s.training: '%s' is not the %s GEMM of "
                     "the fully connected layer '%s'; expected %s (and the "
                     "forward with M the batch, A not transposed)", model,
                     g->name, kb_dir_name(gemm_passes[i].dir), f->name, want);
            return -1;
        }
        found[i] = g;
        used[j] = true;
    }
    return 0;
}

/* A GEMM layer's passes: its forward and both backward GEMMs, or none
 * (with a note) when MODEL.training has neither.  Returns 0 or -1. */
static int expand_gemm(const kb_problem *f, const kb_problem_list *bwd,
                       bool *used, kb_problem_list *out, FILE *notes,
                       const char *model, char *err, size_t errlen)
{
    const kb_problem *found[NGEMM_PASSES];
    size_t have = 0;
    if (find_backward(f, bwd, used, found, model, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < NGEMM_PASSES; i++)
        have += found[i] != NULL;
    if (have == 0) {
        fprintf(notes, "kbench run: note: --training: %s's GEMM '%s' has no "
                "backward GEMMs in %s.training, so it is not a layer of the "
                "step; left out\n", model, f->name, model);
        return 0;
    }
    if (have < NGEMM_PASSES) {
        snprintf(err, errlen, "%s.training: '%s' has '%s%s' but not '%s%s'",
                 model, f->name, f->name,
                 gemm_passes[found[0] ? 0 : 1].suffix, f->name,
                 gemm_passes[found[0] ? 1 : 0].suffix);
        return -1;
    }
    if (push_pass(out, f, f->dir, f->count, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < NGEMM_PASSES; i++)
        if (push_pass(out, found[i], found[i]->dir, f->count, err, errlen))
            return -1;
    return 0;
}

/* One forward layer's passes into out.  first_conv: p is the model's
 * first convolution.  Returns 0 or -1. */
static int expand_layer(const kb_problem *p, bool first_conv,
                        const kb_problem_list *bwd, bool *used,
                        kb_problem_list *out, FILE *notes, const char *model,
                        char *err, size_t errlen)
{
    switch (p->kind) {
    case KB_CONV:
        return push_pass(out, p, p->dir, p->count, err, errlen) ||
               push_pass(out, p, KB_BWD_D, p->count - first_conv, err,
                         errlen) ||
               push_pass(out, p, kb_problem_has_bias(p) ? KB_BWD_WB : KB_BWD_W,
                         p->count, err, errlen) ? -1 : 0;
    case KB_BNORM:
        return push_pass(out, p, p->dir, p->count, err, errlen) ||
               push_pass(out, p, KB_BWD_DW, p->count, err, errlen) ? -1 : 0;
    case KB_GEMM:
        return expand_gemm(p, bwd, used, out, notes, model, err, errlen);
    }
    return 0;
}

/* See passes.h.  Returns 0, or -1 with err; out is left as it was. */
int kb_training_load(const char *model, int64_t mb, const kb_settings *s,
                     kb_problem_list *out, FILE *notes, char *err,
                     size_t errlen)
{
    kb_problem_list fwd = {0}, bwd = {0};
    bool *used = NULL, seen_conv = false;
    size_t n0 = out->n;
    int rc = kb_catalog_load(model, mb, s, &fwd, err, errlen);
    if (rc == 0)
        rc = kb_catalog_load_training(model, mb, s, &bwd, err, errlen);
    if (rc == 0 && !(used = calloc(bwd.n + 1, sizeof *used))) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < fwd.n; i++) {
        const kb_problem *p = &fwd.items[i];
        rc = expand_layer(p, p->kind == KB_CONV && !seen_conv, &bwd, used,
                          out, notes, model, err, errlen);
        seen_conv |= p->kind == KB_CONV;
    }
    for (size_t j = 0; rc == 0 && j < bwd.n; j++)
        if (!used[j]) {
            snprintf(err, errlen, "%s.training: '%s' is not a backward GEMM "
                     "of a GEMM layer of %s.txt; expected a name LAYER:BWD_D "
                     "or LAYER:BWD_W", model, bwd.items[j].name, model);
            rc = -1;
        }
    if (rc != 0)
        out->n = n0;
    free(used);
    kb_problem_list_free(&fwd);
    kb_problem_list_free(&bwd);
    return rc;
}
