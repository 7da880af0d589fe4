/* options.c - the one option parser: defaults, `--k v` and `--k=v`,
 * typed and bounded values, positional arguments, sub-verbs. */
#include "drivers/common/options.h"

#include "drivers/common/exit_codes.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int kb_parse_int(const char *verb, const char *what, const char *text,
                 int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) {
        fprintf(stderr, "kbench %s: %s '%s': expected an integer from %" PRId64
                        " to %" PRId64 "\n", verb, what, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int kb_parse_double(const char *verb, const char *what, const char *text,
                    double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < min || v > max) {
        if (isinf(max))
            fprintf(stderr, "kbench %s: %s '%s': expected a number >= %g\n",
                    verb, what, text, min);
        else
            fprintf(stderr, "kbench %s: %s '%s': expected a number from %g "
                            "to %g\n", verb, what, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_choice(const char *verb, const kb_option *o, const char *text,
                        int *out)
{
    for (int i = 0; o->choices[i]; i++)
        if (strcmp(o->choices[i], text) == 0) {
            *out = i;
            return 0;
        }
    fprintf(stderr, "kbench %s: --%s '%s': expected one of", verb, o->name, text);
    for (int i = 0; o->choices[i]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", o->choices[i]);
    fputc('\n', stderr);
    return -1;
}

static int append(kb_strlist *l, const char *text)
{
    const char **v = realloc(l->v, (size_t)(l->n + 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "kbench: out of memory\n");
        return -1;
    }
    v[l->n++] = text;
    l->v = v;
    return 0;
}

/* Store one value of o into opts.  Returns 0, or -1 (printed). */
static int store(const char *verb, const kb_option *o, void *opts, const char *text)
{
    char what[64];
    void *dst = (char *)opts + o->offset;
    snprintf(what, sizeof what, "--%s", o->name);
    switch (o->type) {
    case KB_OPT_FLAG:
        *(bool *)dst = true;
        return 0;
    case KB_OPT_INT:   /* bounds are doubles: 2^63 means INT64_MAX */
        return kb_parse_int(verb, what, text, (int64_t)o->min,
                            o->max >= 0x1p63 ? INT64_MAX : (int64_t)o->max,
                            (int64_t *)dst);
    case KB_OPT_DOUBLE:
        return kb_parse_double(verb, what, text, o->min, o->max, (double *)dst);
    case KB_OPT_STRING:
        *(const char **)dst = text;
        return 0;
    case KB_OPT_CHOICE:
        return parse_choice(verb, o, text, (int *)dst);
    case KB_OPT_LIST:
        return append((kb_strlist *)dst, text);
    case KB_OPT_CUSTOM:
        return o->parse(opts, text, verb, o);
    }
    return -1;
}

/* The option called name (length len) among v's tables, NULL if none. */
static const kb_option *find(const kb_verb *v, const char *name, size_t len)
{
    for (const kb_option *const *t = v->tables; t && *t; t++)
        for (const kb_option *o = *t; o->name; o++)
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return o;
    return NULL;
}

static int set_defaults(const kb_verb *v, const char *verb, void *opts)
{
    for (const kb_option *const *t = v->tables; t && *t; t++)
        for (const kb_option *o = *t; o->name; o++)
            if (o->def && store(verb, o, opts, o->def))
                return -1;
    return 0;
}

static void free_lists(const kb_verb *v, void *opts)
{
    for (const kb_option *const *t = v->tables; t && *t; t++)
        for (const kb_option *o = *t; o->name; o++)
            if (o->type == KB_OPT_LIST && !o->renamed_to)
                free(((kb_strlist *)((char *)opts + o->offset))->v);
}

/* One "--name[=value]" at argv[*i] into opts, taking the next argument as
 * its value where it needs one.  Returns 0, or -1 (printed). */
static int parse_one(const kb_verb *v, const char *verb, void *opts, int argc,
                     char **argv, int *i)
{
    const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const kb_option *o = find(v, arg, len);
    if (!o) {
        fprintf(stderr, "kbench %s: unknown option '--%.*s' (kbench %s --help "
                        "lists them)\n", verb, (int)len, arg, verb);
        return -1;
    }
    if (o->renamed_to) {
        const kb_option *to = find(v, o->renamed_to, strlen(o->renamed_to));
        fprintf(stderr, "kbench %s: --%s is now --%s (the old spelling still "
                        "works)\n", verb, o->name, o->renamed_to);
        o = to;
    }
    if (o->type == KB_OPT_FLAG) {
        if (eq) {
            fprintf(stderr, "kbench %s: --%s takes no value, got '%s'\n", verb,
                    o->name, eq + 1);
            return -1;
        }
        return store(verb, o, opts, NULL);
    }
    const char *value = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!value) {
        fprintf(stderr, "kbench %s: --%s needs a value (%s)\n", verb, o->name,
                o->metavar ? o->metavar : "see --help");
        return -1;
    }
    return store(verb, o, opts, value);
}

static int run_parsed(const kb_verb *v, const char *parent, const char *verb,
                      int argc, char **argv)
{
    void *opts = calloc(1, v->opts_size ? v->opts_size : 1);
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0, rc = KB_EXIT_USAGE;
    bool only_pos = false;
    if (!opts || !pos) {
        fprintf(stderr, "kbench %s: out of memory\n", verb);
        goto out;
    }
    if (v->init)
        v->init(opts);
    if (set_defaults(v, verb, opts))
        goto out;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
            kb_verb_help(stdout, v, parent);
            rc = KB_EXIT_OK;
            goto out;
        } else if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = true;
        } else if (!only_pos && a[0] == '-' && a[1] == '-') {
            if (parse_one(v, verb, opts, argc, argv, &i))
                goto out;
        } else if (!only_pos && a[0] == '-' && a[1]) {
            fprintf(stderr, "kbench %s: unknown option '%s' (options are "
                            "spelled --name; kbench %s --help)\n", verb, a, verb);
            goto out;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos < v->min_args || (v->max_args >= 0 && npos > v->max_args)) {
        /* The whole usage: a synopsis of several lines or forms printed
         * as one string would lose their "kbench VERB" and indent. */
        fprintf(stderr, "kbench %s: %d argument%s given\n", verb, npos,
                npos == 1 ? "" : "s");
        kb_verb_usage(stderr, v, parent);
        goto out;
    }
    rc = v->run(opts, npos, pos);
out:
    if (opts && v->fini)
        v->fini(opts);
    if (opts)
        free_lists(v, opts);
    free(opts);
    free(pos);
    return rc;
}

static int cmd_argc;
static char **cmd_argv;

void kb_verb_command_line(int *argc, char ***argv)
{
    *argc = cmd_argc;
    *argv = cmd_argv;
}

void kb_verb_name(char *buf, size_t len, const kb_verb *v, const char *parent)
{
    snprintf(buf, len, "%s%s%s", parent ? parent : "", parent ? " " : "", v->name);
}

int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv)
{
    char verb[64];
    if (!parent)
        cmd_argc = argc, cmd_argv = argv;
    kb_verb_name(verb, sizeof verb, v, parent);
    if (!v->subverbs)
        return run_parsed(v, parent, verb, argc, argv);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        kb_verb_help(argc < 2 ? stderr : stdout, v, parent);
        return argc < 2 ? KB_EXIT_USAGE : KB_EXIT_OK;
    }
    for (const kb_verb *const *s = v->subverbs; *s; s++)
        if (strcmp((*s)->name, argv[1]) == 0)
            return kb_verb_main(*s, verb, argc - 1, argv + 1);
    fprintf(stderr, "kbench %s: unknown sub-verb '%s'; expected one of", verb, argv[1]);
    for (const kb_verb *const *s = v->subverbs; *s; s++)
        fprintf(stderr, " %s", (*s)->name);
    fputc('\n', stderr);
    return KB_EXIT_USAGE;
}

int kb_program_main(const kb_verb *program, int argc, char **argv)
{
    const char *first = argc > 1 ? argv[1] : "--help";
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        kb_usage(stdout, program->subverbs);
        return KB_EXIT_OK;
    }
    if (first[0] == '-' && first[1] == '-' && find(program, first + 2, strlen(first + 2)))
        return run_parsed(program, NULL, program->name, argc, argv);
    for (const kb_verb *const *v = program->subverbs; *v; v++)
        if (strcmp(first, (*v)->name) == 0)
            return kb_verb_main(*v, NULL, argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown %s '%s'; expected one of:", program->name,
            first[0] == '-' ? "option" : "verb", first);
    for (const kb_verb *const *v = program->subverbs; *v; v++)
        fprintf(stderr, " %s", (*v)->name);
    fprintf(stderr, " (see %s --help)\n", program->name);
    return KB_EXIT_USAGE;
}
