/* options.h - verbs declared as data (name, summary, option tables,
 * handler), the one parser that fills a verb's options from the defaults
 * and argv (`--k v`, `--k=v`), and the help written from them (help.c).
 * A usage error names the option and what was expected, and exits 2. */
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
    int (*parse)(void *opts, const char *value, const char *verb,   /* KB_OPT_CUSTOM: */
                 const struct kb_option *o);  /* 0, or -1 after a message */
    const char *renamed_to;  /* an old spelling of that option */
    const char *section;     /* a heading printed before it in --help */
} kb_option;

/* A verb, a sub-verb (kbench io gen), or the program itself. */
typedef struct kb_verb {
    const char *name, *summary;   /* summary: one line, for usage lists */
    const char *synopsis;    /* after "kbench NAME"; '\n' separates forms,
                                a line starting with ' ' continues one */
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

/* Parses argv (argv[0]: the verb) and runs it: its exit code, 0 after
 * --help, 2 after a usage error.  The program prints its usage. */
int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv);
/* "run", or "io gen" for a sub-verb: a verb's name in messages and help. */
void kb_verb_name(char *buf, size_t len, const kb_verb *v, const char *parent);
/* The command line of the verb being run, for provenance. */
void kb_verb_command_line(int *argc, char ***argv);

/* help.c: a verb's usage lines, its --help, and the program's usage. */
void kb_verb_usage(FILE *out, const kb_verb *v, const char *parent);
void kb_verb_help(FILE *out, const kb_verb *v, const char *parent);
void kb_usage(FILE *out, const kb_verb *const *verbs);

/* Options that mean the same in every verb, declared once: the inside
 * of a table entry, {KB_OPTION_THREADS(opts, threads)}. */
#define KB_OPTION_THREADS(TYPE, FIELD)                                      \
    .name = "threads", .type = KB_OPT_INT, .metavar = "N",                  \
    .help = "OpenMP and library threads (default: OpenMP's)",              \
    .offset = offsetof(TYPE, FIELD), .min = 1, .max = 65536
#define KB_OPTION_FILE(NAME, TYPE, FIELD, WHAT)                             \
    .name = NAME, .type = KB_OPT_STRING, .metavar = "FILE", .help = WHAT,   \
    .offset = offsetof(TYPE, FIELD)
#define KB_OPTION_JSON(T, F, WHAT) KB_OPTION_FILE("json", T, F, WHAT)
#define KB_OPTION_CSV(T, F, WHAT) KB_OPTION_FILE("csv", T, F, WHAT)
#define KB_OPTION_MD(T, F, WHAT) KB_OPTION_FILE("md", T, F, WHAT)
#define KB_OPTION_SVG(T, F, WHAT) KB_OPTION_FILE("svg", T, F, WHAT)
#define KB_OPTION_QUIET(TYPE, FIELD)                                        \
    .name = "quiet", .type = KB_OPT_FLAG, .help = "no table on stdout",     \
    .offset = offsetof(TYPE, FIELD)
/* An old spelling of option NEW, kept working with a notice. */
#define KB_OPTION_RENAMED(OLD, NEW) .name = OLD, .renamed_to = NEW
/* A number macro as text, for a .def: KB_XSTR(KB_MERGE_Z_DEFAULT). */
#define KB_XSTR(x) KB_STR_(x)
#define KB_STR_(x) #x

#endif
