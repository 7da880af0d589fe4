/* options.h - verbs as data (name, summary, option tables, handler), the one
 * parser (`--k v`, `--k=v`; usage errors exit 2) and the help made from them. */
#ifndef KB_OPTIONS_H
#define KB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    KB_OPT_FLAG,     /* bool, takes no value */
    KB_OPT_INT,      /* int64_t in [min, max] */
    KB_OPT_DOUBLE,   /* finite double in [min, max] */
    KB_OPT_STRING,   /* const char *, pointing into argv */
    KB_OPT_CHOICE,   /* int: the index of the value in choices */
    KB_OPT_LIST,     /* kb_strlist: every occurrence appended */
    KB_OPT_CUSTOM,   /* the option's parse function stores the value */
} kb_opt_type;

typedef struct { const char **v; int n; } kb_strlist;   /* parser-owned */

typedef struct kb_option {
    const char *name;        /* without the leading "--" */
    kb_opt_type type;
    const char *metavar;     /* the value's name in help ("N", "FILE") */
    const char *help;        /* lines after the first are indented */
    size_t offset;           /* where the value goes in the options struct */
    double min, max;         /* KB_OPT_INT and KB_OPT_DOUBLE bounds */
    const char *def;         /* default, parsed like a value; NULL: none */
    const char *const *choices;   /* KB_OPT_CHOICE, NULL-terminated */
    int (*parse)(void *opts, const char *value, const char *verb,
                 const struct kb_option *o);  /* KB_OPT_CUSTOM: 0, or -1 (printed) */
    const char *renamed_to;  /* an old spelling of that option */
    const char *section;     /* a heading printed before it in --help */
} kb_option;

/* A verb, a sub-verb (kbench io gen), or the program itself. */
typedef struct kb_verb {
    const char *name, *summary;   /* summary: one line, for usage lists */
    const char *synopsis;    /* after "kbench NAME"; '\n' separates forms, ' ' continues */
    const char *description; /* the paragraph under the usage in --help */
    int min_args, max_args;  /* positional arguments; max -1: no limit */
    size_t opts_size;        /* sizeof the options struct the tables fill */
    void (*init)(void *opts);   /* optional: before the defaults */
    void (*fini)(void *opts);   /* optional: after the handler or an error */
    const kb_option *const *tables;   /* NULL-ended; each ends with {0} */
    int (*run)(void *opts, int argc, char **argv);   /* an exit code */
    const struct kb_verb *const *subverbs;   /* NULL-terminated, or NULL */
    const char *exit_codes;  /* its own exit-code lines; NULL: kbench's */
} kb_verb;

#define KB_FOR_EACH_OPTION(v, o)                                            \
    for (const kb_option *const *t_ = (v)->tables; t_ && *t_; t_++)         \
        for (const kb_option *o = *t_; o->name; o++)

/* Parses argv (argv[0]: the verb) and runs it: its exit code, 0 after --help. */
int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv);
/* "run", or "io gen" for a sub-verb: a verb's name in messages and help. */
void kb_verb_name(char *buf, size_t len, const kb_verb *v, const char *parent);
void kb_verb_command_line(int *argc, char ***argv);   /* for provenance */
/* help.c: a verb's usage lines, its --help, and the program's usage. */
void kb_verb_usage(FILE *out, const kb_verb *v, const char *parent);
void kb_verb_help(FILE *out, const kb_verb *v, const char *parent);
void kb_usage(FILE *out, const kb_verb *const *verbs);

/* Options meaning the same in every verb: {KB_OPTION_THREADS(opts, threads)}. */
#define KB_OPTION_THREADS(TYPE, FIELD)                                      \
    .name = "threads", .type = KB_OPT_INT, .metavar = "N",                  \
    .help = "OpenMP and library threads (default: OpenMP's)",              \
    .offset = offsetof(TYPE, FIELD), .min = 1, .max = 65536
/* --json, --csv, --md or --svg FILE: KB_OPTION_OUTPUT(json, opts, path, ...) */
#define KB_OPTION_OUTPUT(FORMAT, TYPE, FIELD, WHAT)                         \
    .name = #FORMAT, .type = KB_OPT_STRING, .metavar = "FILE", .help = WHAT, \
    .offset = offsetof(TYPE, FIELD)
#define KB_OPTION_QUIET(TYPE, FIELD) .name = "quiet", .type = KB_OPT_FLAG, \
    .help = "no table on stdout", .offset = offsetof(TYPE, FIELD)
/* An old spelling of option NEW, kept working with a notice. */
#define KB_OPTION_RENAMED(OLD, NEW) .name = OLD, .renamed_to = NEW
#define KB_XSTR(x) KB_STR_(x)   /* a number macro as text, for a .def */
#define KB_STR_(x) #x

#endif
