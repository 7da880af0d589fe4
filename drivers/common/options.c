/* options.c - the one option parser: defaults, `--k v` and `--k=v`, typed
 * and bounded values, positional arguments, sub-verbs. */
#include "drivers/common/options.h"

#include "drivers/common/exit_codes.h"
#include "drivers/common/numfmt.h"

#include <stdlib.h>
#include <string.h>

static bool is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

/* Store one value of o into opts.  Returns 0, or -1 (printed). */
static int store(const char *verb, const kb_option *o, void *opts, const char *text)
{
    char what[64];
    void *dst = (char *)opts + o->offset;
    snprintf(what, sizeof what, "--%s", o->name);
    switch (o->type) {
    case KB_OPT_FLAG: *(bool *)dst = true; return 0;
    case KB_OPT_STRING: *(const char **)dst = text; return 0;
    case KB_OPT_CUSTOM: return o->parse(opts, text, verb, o);
    case KB_OPT_INT:   /* bounds are doubles: 2^63 means INT64_MAX */
        return kb_parse_int(verb, what, text, (int64_t)o->min,
                            o->max >= 0x1p63 ? INT64_MAX : (int64_t)o->max,
                            (int64_t *)dst);
    case KB_OPT_DOUBLE:
        return kb_parse_double(verb, what, text, o->min, o->max, (double *)dst);
    case KB_OPT_LIST: {
        kb_strlist *l = dst;
        const char **v = realloc(l->v, (size_t)(l->n + 1) * sizeof *v);
        if (!v)
            return fprintf(stderr, "kbench %s: out of memory\n", verb), -1;
        l->v = v;
        l->v[l->n++] = text;
        return 0;
    }
    case KB_OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++)
            if (!strcmp(o->choices[i], text))
                return *(int *)dst = i, 0;
        fprintf(stderr, "kbench %s: %s '%s': expected one of", verb, what, text);
        for (int i = 0; o->choices[i]; i++)
            fprintf(stderr, "%s %s", i ? "," : "", o->choices[i]);
        fputc('\n', stderr);
    }
    return -1;
}

/* The option called name (length len) among v's tables, NULL if none. */
static const kb_option *find(const kb_verb *v, const char *name, size_t len)
{
    KB_FOR_EACH_OPTION(v, o)
        if (strlen(o->name) == len && !strncmp(o->name, name, len))
            return o;
    return NULL;
}

/* "--name=value" or "--name value" at argv[*i] into opts: 0, or -1 (printed). */
static int parse_one(const kb_verb *v, const char *verb, void *opts, int argc,
                     char **argv, int *i)
{
    const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const kb_option *o = find(v, arg, len);
    if (!o)
        return fprintf(stderr, "kbench %s: unknown option '--%.*s' (kbench %s "
                               "--help lists them)\n", verb, (int)len, arg, verb), -1;
    if (o->renamed_to) {
        fprintf(stderr, "kbench %s: --%s is now --%s (the old spelling still "
                        "works)\n", verb, o->name, o->renamed_to);
        o = find(v, o->renamed_to, strlen(o->renamed_to));
    }
    if (o->type == KB_OPT_FLAG)
        return eq ? fprintf(stderr, "kbench %s: --%s takes no value, got '%s'\n",
                            verb, o->name, eq + 1), -1 : store(verb, o, opts, NULL);
    const char *value = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!value)
        return fprintf(stderr, "kbench %s: --%s needs a value (%s)\n", verb,
                       o->name, o->metavar ? o->metavar : "see --help"), -1;
    return store(verb, o, opts, value);
}

/* Options into opts, the rest into pos: -1 to run, else the exit code. */
static int parse_args(const kb_verb *v, const char *parent, const char *verb,
                      void *opts, int argc, char **argv, char **pos, int *npos)
{
    bool only_pos = false;
    KB_FOR_EACH_OPTION(v, o)
        if (o->def && store(verb, o, opts, o->def))
            return KB_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || !a[1])
            pos[(*npos)++] = argv[i];
        else if (is_help(a))
            return kb_verb_help(stdout, v, parent), KB_EXIT_OK;
        else if (!strcmp(a, "--"))
            only_pos = true;
        else if (a[1] != '-')
            return fprintf(stderr, "kbench %s: unknown option '%s' (options are "
                           "spelled --name; kbench %s --help)\n", verb, a, verb),
                   KB_EXIT_USAGE;
        else if (parse_one(v, verb, opts, argc, argv, &i))
            return KB_EXIT_USAGE;
    }
    if (*npos >= v->min_args && (v->max_args < 0 || *npos <= v->max_args))
        return -1;
    fprintf(stderr, "kbench %s: %d argument%s given\n", verb, *npos,
            *npos == 1 ? "" : "s");
    kb_verb_usage(stderr, v, parent);   /* every form, each with its name */
    return KB_EXIT_USAGE;
}

static int run_parsed(const kb_verb *v, const char *parent, const char *verb,
                      int argc, char **argv)
{
    void *opts = calloc(1, v->opts_size ? v->opts_size : 1);
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0, rc = KB_EXIT_USAGE;
    if (!opts || !pos)
        fprintf(stderr, "kbench %s: out of memory\n", verb);
    else {
        if (v->init)
            v->init(opts);
        if ((rc = parse_args(v, parent, verb, opts, argc, argv, pos, &npos)) < 0)
            rc = v->run(opts, npos, pos);
        if (v->fini)
            v->fini(opts);
        KB_FOR_EACH_OPTION(v, o)   /* a renamed entry is typed KB_OPT_FLAG */
            if (o->type == KB_OPT_LIST)
                free(((kb_strlist *)((char *)opts + o->offset))->v);
    }
    free(opts);
    free(pos);
    return rc;
}

static int cmd_argc;
static char **cmd_argv;

void kb_verb_command_line(int *argc, char ***argv) { *argc = cmd_argc, *argv = cmd_argv; }

void kb_verb_name(char *buf, size_t len, const kb_verb *v, const char *parent)
{
    snprintf(buf, len, "%s%s%s", parent ? parent : "", parent ? " " : "", v->name);
}

/* The program: the verb with both sub-verbs and a handler (--version). */
int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv)
{
    char verb[64];
    bool program = v->subverbs && v->run;
    if (!parent && !program)
        cmd_argc = argc, cmd_argv = argv;
    kb_verb_name(verb, sizeof verb, v, program ? NULL : parent);
    if (!v->subverbs)
        return run_parsed(v, parent, verb, argc, argv);
    const char *first = argc > 1 ? argv[1] : NULL;
    if (program && (!first || is_help(first)))
        return kb_usage(stdout, v->subverbs), KB_EXIT_OK;
    if (!first || is_help(first))
        return kb_verb_help(first ? stdout : stderr, v, parent),
               first ? KB_EXIT_OK : KB_EXIT_USAGE;
    if (program && !strncmp(first, "--", 2) && find(v, first + 2, strlen(first + 2)))
        return run_parsed(v, NULL, verb, argc, argv);
    for (const kb_verb *const *s = v->subverbs; *s; s++)
        if (!strcmp((*s)->name, first))
            return kb_verb_main(*s, program ? NULL : verb, argc - 1, argv + 1);
    fprintf(stderr, "%s%s: unknown %s '%s'; expected one of:", program ? "" : "kbench ",
            verb, !program ? "sub-verb" : first[0] == '-' ? "option" : "verb", first);
    for (const kb_verb *const *s = v->subverbs; *s; s++)
        fprintf(stderr, " %s", (*s)->name);
    fprintf(stderr, " (see %s%s --help)\n", program ? "" : "kbench ", verb);
    return KB_EXIT_USAGE;
}
