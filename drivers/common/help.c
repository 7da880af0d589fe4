/* help.c - `kbench --help` and `kbench VERB --help`, from the verb records. */
#include "drivers/common/options.h"

#include "drivers/common/exit_codes.h"

#include <string.h>

#define HELP_INDENT "                        "   /* where option help starts */

/* Each line of text, the first after `first`, the others after `rest`. */
static void print_lines(FILE *out, const char *first, const char *rest,
                        const char *text)
{
    for (const char *prefix = first; *text; prefix = rest) {
        size_t n = strcspn(text, "\n");
        fprintf(out, "%s%.*s\n", prefix, (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* The first synopsis line after lead ("...kbench ") and v's name; a line
 * starting with a space continues the one before, any other is a form. */
static void print_synopsis(FILE *out, const char *lead, const kb_verb *v,
                           const char *parent)
{
    char name[64];
    kb_verb_name(name, sizeof name, v, parent);
    const char *text = v->synopsis ? v->synopsis : "";
    int indent = (int)strlen(lead);
    do {
        size_t n = strcspn(text, "\n");
        if (text == v->synopsis || !v->synopsis)
            fprintf(out, "%s%s%s%.*s\n", lead, name, n ? " " : "", (int)n, text);
        else if (*text == ' ')
            fprintf(out, "%*s%.*s\n", indent + (int)strlen(name), "", (int)n, text);
        else
            fprintf(out, "%*skbench %s %.*s\n", indent - 7, "", name, (int)n, text);
        text += n + (text[n] == '\n');
    } while (*text);
}

/* "--name VALUE" (the metavar, else the choices), then the help text. */
static void print_option(FILE *out, const kb_option *o)
{
    char label[64], first[96], help[512];
    int n = snprintf(label, sizeof label, "--%s", o->name);
    if (o->metavar && o->type != KB_OPT_FLAG)
        snprintf(label + n, sizeof label - (size_t)n, " %s", o->metavar);
    for (int i = 0; !o->metavar && o->choices && o->choices[i] && n < 64; i++)
        n += snprintf(label + n, sizeof label - (size_t)n, "%c%s", i ? '|' : ' ',
                      o->choices[i]);
    if (o->section)
        fprintf(out, "\n%s:\n", o->section);
    if (o->renamed_to)
        snprintf(help, sizeof help, "the old spelling of --%s", o->renamed_to);
    else if (o->def && !strstr(o->help, "default"))
        snprintf(help, sizeof help, "%s (default %s)", o->help, o->def);
    else
        snprintf(help, sizeof help, "%s", o->help);
    bool long_label = strlen(label) > 20;   /* then on a line of its own */
    if (long_label)
        fprintf(out, "  %s\n", label);
    snprintf(first, sizeof first, "  %-21s ", long_label ? "" : label);
    print_lines(out, first, HELP_INDENT, help);
}

void kb_verb_usage(FILE *out, const kb_verb *v, const char *parent)
{
    print_synopsis(out, "usage: kbench ", v, parent);
}

void kb_verb_help(FILE *out, const kb_verb *v, const char *parent)
{
    char name[64];
    kb_verb_name(name, sizeof name, v, parent);
    kb_verb_usage(out, v, parent);
    if (v->description || parent)   /* a sub-verb's summary describes it */
        print_lines(out, "", "", v->description ? v->description : v->summary);
    for (const kb_verb *const *s = v->subverbs; s && *s; s++) {
        fputc('\n', out);
        print_synopsis(out, "  kbench ", *s, name);
        print_lines(out, "    ", "    ", (*s)->summary);
    }
    if (v->subverbs)
        fprintf(out, "\n`kbench %s SUB --help` describes a sub-verb's options.\n", name);
    if (!v->tables || !v->tables[0] || !v->tables[0]->section)
        fputs("\noptions:\n", out);
    KB_FOR_EACH_OPTION(v, o)
        print_option(out, o);
    fputs("  -h, --help            this help\n\n", out);
    if (v->exit_codes)
        fprintf(out, "Exit codes:\n%s", v->exit_codes);
    else
        kb_print_exit_codes(out);
}

void kb_usage(FILE *out, const kb_verb *const *verbs)
{
    fputs("Usage: kbench VERB [options]\n       kbench --help | --version\n\n"
          "Compute-kernel microbenchmarks (conv2d, conv3d, GEMM, batchnorm)\n"
          "validated against a reference implementation.\n\nVerbs:\n", out);
    for (const kb_verb *const *v = verbs; *v; v++)
        fprintf(out, "  %-8s %s\n", (*v)->name, (*v)->summary);
    fputc('\n', out);
    for (const kb_verb *const *v = verbs; *v; v++)
        print_synopsis(out, "  kbench ", *v, NULL);
    fputs("\n`kbench VERB --help` describes a verb's options.\n\n", out);
    kb_print_exit_codes(out);
}
