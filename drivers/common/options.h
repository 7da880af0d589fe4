/* options.h - verbs declared as data (a kb_verb: name, summary, tables of
 * options, handler) and the one parser that fills a verb's options struct
 * from the defaults, then argv (`--k v` and `--k=v`), checking types,
 * bounds and choices.  Help and usage come from the same records (help.c).
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
    KB_OPT_LIST,     /* kb_strlist: every occurrence appended (repeatable) */
    KB_OPT_CUSTOM,   /* the option's parse function stores the value */
} kb_opt_type;

/* A repeatable option's values in order; the parser owns the array. */
typedef struct {
    const char **v;
    int n;
} kb_strlist;

typedef struct kb_option kb_option;

/* Stores a custom option's value in opts; 0, or -1 after a message. */
typedef int (*kb_opt_parse_fn)(void *opts, const char *value,
                               const char *verb, const kb_option *o);

struct kb_option {
    const char *name;        /* without the leading "--" */
    kb_opt_type type;
    const char *metavar;     /* the value's name in help ("N", "FILE") */
    const char *help;        /* lines after the first are indented */
    size_t offset;           /* where the value goes in the options struct */
    double min, max;         /* KB_OPT_INT and KB_OPT_DOUBLE bounds */
    const char *def;         /* default, parsed like a value; NULL: none */
    const char *const *choices;   /* KB_OPT_CHOICE, NULL-terminated */
    kb_opt_parse_fn parse;   /* KB_OPT_CUSTOM */
    const char *renamed_to;  /* an old spelling: applies that option's
                                parse to the value, and says to use it */
    const char *section;     /* a heading printed before it in --help */
};

/* A verb, or a sub-verb of one (kbench io gen). */
typedef struct kb_verb {
    const char *name;
    const char *summary;     /* one line, for the top-level usage */
    const char *synopsis;    /* what follows "kbench NAME" in usage lines;
                                several lines separated by '\n' */
    const char *description; /* the paragraph under the usage in --help */
    int min_args, max_args;  /* positional arguments; max -1: no limit */
    size_t opts_size;        /* sizeof the options struct the tables fill */
    /* Optional: before the defaults; after the handler or an error. */
    void (*init)(void *opts);
    void (*fini)(void *opts);
    const kb_option *const *tables;   /* NULL-ended; each ends with {0} */
    int (*run)(void *opts, int argc, char **argv);   /* an exit code */
    const struct kb_verb *const *subverbs;   /* NULL-terminated, or NULL */
    const char *exit_codes;  /* the verb's own exit-code lines, or NULL
                                for kbench's table (commands.h) */
} kb_verb;

/* Parses argv (argv[0]: the verb; with sub-verbs argv[1] names one) and
 * runs it.  Returns its exit code, 0 after --help, 2 after a usage error. */
int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv);

/* The program: argv[1] is a verb of program->subverbs, or an option of
 * the program's own (run by program->run); none or --help: the usage. */
int kb_program_main(const kb_verb *program, int argc, char **argv);

/* "run", or "io gen" for a sub-verb: a verb's name in messages and help. */
void kb_verb_name(char *buf, size_t len, const kb_verb *v, const char *parent);

/* The command line of the verb being run, for provenance.  Can't fail. */
void kb_verb_command_line(int *argc, char ***argv);

/* The number parsers the types use, for values that come other ways;
 * 0, or -1 after "kbench VERB: WHAT 'TEXT': expected ..." with the range. */
int kb_parse_int(const char *verb, const char *what, const char *text,
                 int64_t min, int64_t max, int64_t *out);
int kb_parse_double(const char *verb, const char *what, const char *text,
                    double min, double max, double *out);

/* help.c: a verb's usage lines, its --help (parent: "io" for a sub-verb),
 * and the program's usage. */
void kb_verb_usage(FILE *out, const kb_verb *v, const char *parent);
void kb_verb_help(FILE *out, const kb_verb *v, const char *parent);
void kb_usage(FILE *out, const kb_verb *const *verbs);

/* Options that mean the same in every verb, declared once: the inside of a
 * table entry, {KB_OPTION_THREADS(opts, threads)}, TYPE the options struct. */
#define KB_OPTION_THREADS(TYPE, FIELD)                                      \
    .name = "threads", .type = KB_OPT_INT, .metavar = "N",                  \
    .help = "OpenMP and library threads (default: OpenMP's)",              \
    .offset = offsetof(TYPE, FIELD), .min = 1, .max = 65536
#define KB_OPTION_FILE(NAME, TYPE, FIELD, WHAT)                             \
    .name = NAME, .type = KB_OPT_STRING, .metavar = "FILE", .help = WHAT,   \
    .offset = offsetof(TYPE, FIELD)
#define KB_OPTION_JSON(TYPE, FIELD, WHAT) KB_OPTION_FILE("json", TYPE, FIELD, WHAT)
#define KB_OPTION_CSV(TYPE, FIELD, WHAT) KB_OPTION_FILE("csv", TYPE, FIELD, WHAT)
#define KB_OPTION_MD(TYPE, FIELD, WHAT) KB_OPTION_FILE("md", TYPE, FIELD, WHAT)
#define KB_OPTION_SVG(TYPE, FIELD, WHAT) KB_OPTION_FILE("svg", TYPE, FIELD, WHAT)
#define KB_OPTION_QUIET(TYPE, FIELD)                                        \
    .name = "quiet", .type = KB_OPT_FLAG, .help = "no table on stdout",     \
    .offset = offsetof(TYPE, FIELD)
/* A number macro as text, for a .def: KB_XSTR(KB_MERGE_Z_DEFAULT). */
#define KB_XSTR(x) KB_STR_(x)
#define KB_STR_(x) #x
/* An old spelling of option NEW, kept working with a notice. */
#define KB_OPTION_RENAMED(OLD, NEW) .name = OLD, .renamed_to = NEW

#endif
