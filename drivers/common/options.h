/* options.h - verbs declared as data, and the one parser that serves them.
 *
 * A verb is a kb_verb record: its name, a one-line summary, its
 * positional arguments, tables of options and a handler.  kb_verb_main
 * fills the verb's options struct from its tables' defaults, then from
 * argv (`--k v` and `--k=v` alike), checks each value against its type,
 * bounds or choices, and calls the handler with the positional arguments.
 * `kbench VERB --help` and the top-level usage are generated from the
 * same records (help.c), so they cannot drift from what is parsed.
 *
 * Errors are usage errors: the option and what was expected are named on
 * stderr and the verb exits 2 (KB_EXIT_USAGE) without calling the
 * handler. */
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

/* Values of a repeatable option, in command-line order.  The parser owns
 * the array; the strings point into argv. */
typedef struct {
    const char **v;
    int n;
} kb_strlist;

typedef struct kb_option kb_option;

/* A custom option's value into the options struct opts.  Returns 0, or -1
 * after printing "kbench VERB: --NAME 'VALUE': what was expected". */
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
    /* Optional: set what the tables' defaults do not, before them; and
     * free what parsing kept, after the handler or a usage error. */
    void (*init)(void *opts);
    void (*fini)(void *opts);
    const kb_option *const *tables;   /* NULL-terminated; each table ends
                                         with a {0} entry */
    /* Runs the verb on its parsed options and positional arguments.
     * Returns an exit code (commands.h). */
    int (*run)(void *opts, int argc, char **argv);
    const struct kb_verb *const *subverbs;   /* NULL-terminated, or NULL */
    const char *exit_codes;  /* the verb's own exit-code lines, or NULL
                                for kbench's table (commands.h) */
} kb_verb;

/* Parse argv (argv[0] is the verb's name) for v and run it.  With
 * sub-verbs, argv[1] names one, and `kbench VERB SUB --help` is its help.
 * Returns the handler's exit code, 0 after --help, or 2 after a usage
 * error (printed). */
int kb_verb_main(const kb_verb *v, const char *parent, int argc, char **argv);

/* The program: argv[1] names a verb among program->subverbs (the rest of
 * argv is its own), or is one of the program's options (--version), whose
 * handler program->run is; no argument, --help or -h print the usage.
 * Returns the verb's exit code, 0, or 2 for an unknown verb or option
 * (named on stderr with the valid ones). */
int kb_program_main(const kb_verb *program, int argc, char **argv);

/* The whole command line of the verb being run (argv[0] is the verb),
 * for the provenance of its records.  Can't fail. */
void kb_verb_command_line(int *argc, char ***argv);

/* The value parsers every option type uses, for values that arrive by
 * other ways (a list item, a key=value).  Each returns 0, or -1 after
 * printing "kbench VERB: WHAT 'TEXT': expected ..." with the range. */
int kb_parse_int(const char *verb, const char *what, const char *text,
                 int64_t min, int64_t max, int64_t *out);
int kb_parse_double(const char *verb, const char *what, const char *text,
                    double min, double max, double *out);

/* The usage lines of a verb, every form of its synopsis (help.c). */
void kb_verb_usage(FILE *out, const kb_verb *v, const char *parent);

/* --help of a verb (help.c); parent is "io" for a sub-verb, else NULL. */
void kb_verb_help(FILE *out, const kb_verb *v, const char *parent);

/* The top-level usage: every verb's summary and synopsis (help.c). */
void kb_usage(FILE *out, const kb_verb *const *verbs);

/* Options that mean the same thing in every verb, declared once: one
 * name, one range, one help text.  Each is the inside of a table entry,
 * so a verb may add a .section: {KB_OPTION_THREADS(opts, threads)}.
 * TYPE is the verb's options struct. */
#define KB_OPTION_THREADS(TYPE, FIELD)                                      \
    .name = "threads", .type = KB_OPT_INT, .metavar = "N",                  \
    .help = "OpenMP and library threads (default: OpenMP's)",              \
    .offset = offsetof(TYPE, FIELD), .min = 1, .max = 65536
#define KB_OPTION_FILE(NAME, TYPE, FIELD, WHAT)                             \
    .name = NAME, .type = KB_OPT_STRING, .metavar = "FILE", .help = WHAT,   \
    .offset = offsetof(TYPE, FIELD)
/* --json FILE, --csv FILE, --md FILE, --svg FILE: an output of that
 * format, WHAT says which. */
#define KB_OPTION_JSON(TYPE, FIELD, WHAT) KB_OPTION_FILE("json", TYPE, FIELD, WHAT)
#define KB_OPTION_CSV(TYPE, FIELD, WHAT) KB_OPTION_FILE("csv", TYPE, FIELD, WHAT)
#define KB_OPTION_MD(TYPE, FIELD, WHAT) KB_OPTION_FILE("md", TYPE, FIELD, WHAT)
#define KB_OPTION_SVG(TYPE, FIELD, WHAT) KB_OPTION_FILE("svg", TYPE, FIELD, WHAT)
#define KB_OPTION_QUIET(TYPE, FIELD)                                        \
    .name = "quiet", .type = KB_OPT_FLAG, .help = "no table on stdout",     \
    .offset = offsetof(TYPE, FIELD)
/* A number macro's spelling, for a .def or a help text made from the
 * constant the code uses: KB_XSTR(KB_MERGE_Z_DEFAULT) is "3.5". */
#define KB_XSTR(x) KB_STR_(x)
#define KB_STR_(x) #x
/* An old spelling of option NEW, kept working with a notice. */
#define KB_OPTION_RENAMED(OLD, NEW) .name = OLD, .renamed_to = NEW

#endif
