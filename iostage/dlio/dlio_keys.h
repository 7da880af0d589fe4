/* dlio_keys.h - the table of DLIO workload keys (dlio_keys.conf), their
 * values as libyaml gives them, type checks and the ok/warn/error rules;
 * used by dlio_config.c. */
#ifndef KB_IO_DLIO_KEYS_H
#define KB_IO_DLIO_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* A value from a YAML node, an override or a default: one scalar, or a
 * list of scalars. */
typedef struct {
    char *s;
    bool plain;             /* unquoted: may be a number, bool or null */
} kb_dlio_scalar;

typedef struct {
    bool seq;               /* a list; else v[0] is the value */
    int n;
    kb_dlio_scalar *v;
} kb_dlio_value;

/* What a value means once checked against its key's type. */
typedef struct {
    bool has;               /* set, or DLIO's default exists */
    bool b;
    int64_t i;              /* integers; ints: the sum of the list */
    double d;               /* numbers (integers too) */
    const char *s;          /* str, any: the first scalar's text */
    const char *where;      /* "FILE:LINE", "override 'ARG'", "default" */
} kb_dlio_typed;

typedef enum {
    KB_DLIO_COUNT, KB_DLIO_UINT, KB_DLIO_INT, KB_DLIO_NUM, KB_DLIO_FRAC,
    KB_DLIO_BOOL, KB_DLIO_STR, KB_DLIO_INTS, KB_DLIO_STRS, KB_DLIO_ANY,
    KB_DLIO_ALIAS
} kb_dlio_type;

typedef enum { KB_DLIO_OK, KB_DLIO_WARN, KB_DLIO_ERROR } kb_dlio_verdict;

typedef struct kb_dlio_rule kb_dlio_rule;

/* One row of dlio_keys.conf. */
typedef struct {
    char *key;              /* dotted; "PREFIX.*" matches under PREFIX */
    kb_dlio_type type;
    char *def;              /* DLIO's default as text, NULL for "-" */
    char *kbench;           /* a slot name, or the rules' text */
    char *note;
    int line;
    bool rules;             /* kbench is ok/warn/error rules, not a slot */
    kb_dlio_rule *rule;     /* parsed rules */
    int nrule;
    kb_dlio_value defv;     /* def parsed (n == 0 when none) */
} kb_dlio_key;

typedef struct {
    const char *path;
    kb_dlio_key *rows;
    int n;
} kb_dlio_keys;

/* Path of the table: $KBENCH_IO_DLIO_KEYS, else io/dlio_keys.conf in the
 * data directory; NULL with a message when there is none. */
const char *kb_dlio_keys_path(char *err, size_t len);

/* Read and check the table (types, rules, defaults).  0, KB_IO_USAGE
 * naming the file and line of a malformed row, KB_IO_ERROR when it cannot
 * be read.  Free with kb_dlio_keys_free (also after a failure). */
int kb_dlio_keys_load(const char *path, kb_dlio_keys *k, char *err,
                      size_t len);
void kb_dlio_keys_free(kb_dlio_keys *k);

/* Row of a dotted key (an alias rewritten first, the key it names into
 * canon), or -1 when the table has none. */
int kb_dlio_keys_find(const kb_dlio_keys *k, const char *key, char *canon,
                      size_t clen);

/* The value of libyaml node n of d (a scalar, or a list of scalars) into
 * v.  0, or -1 when it is a mapping or holds one (why says which). */
int kb_dlio_node_value(yaml_document_t *d, yaml_node_t *n, kb_dlio_value *v,
                       char *why, size_t wlen);
/* The same from text (an override's or a default's), parsed as YAML.
 * 0, or -1 with why. */
int kb_dlio_text_value(const char *text, kb_dlio_value *v, char *why,
                       size_t wlen);
void kb_dlio_value_free(kb_dlio_value *v);
/* v as text ("a", "[1, 2]") into buf. */
void kb_dlio_value_text(const kb_dlio_value *v, char *buf, size_t len);

/* Check v against row r's type into *t (t->where is left alone).  0, or -1
 * with why: what was expected. */
int kb_dlio_value_check(const kb_dlio_key *r, const kb_dlio_value *v,
                        kb_dlio_typed *t, char *why, size_t wlen);

/* The verdict of row r's rules on its value t; vals[i] is row i's value
 * (set or default), for the rules' `when KEY=...`.  Cannot fail. */
kb_dlio_verdict kb_dlio_rule_eval(const kb_dlio_keys *k, int r,
                                  const kb_dlio_typed *t,
                                  const kb_dlio_typed *vals);

#endif
