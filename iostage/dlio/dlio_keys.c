/* dlio_keys.c - reads dlio_keys.conf (the DLIO keys kbench knows), turns
 * libyaml nodes and override text into values, type-checks them and
 * evaluates the table's ok/warn/error rules. */
#include "iostage/dlio/dlio_keys.h"
#include "iostage/profile.h"
#include "iostage/stage.h"
#include "kernels/data_dir.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS_REL "io/dlio_keys.conf"   /* in the data directory */

/* One rule: KIND [if V,...] [when KEY=V,...]. */
struct kb_dlio_rule {
    kb_dlio_verdict kind;
    char **ifv;
    int nif;
    int when_row;           /* -1: no `when` */
    char **whenv;
    int nwhen;
};

const char *kb_dlio_keys_path(char *err, size_t len)
{
    static char path[4096];
    const char *env = getenv("KBENCH_IO_DLIO_KEYS");
    if (env && *env)
        return env;
    return kb_data_path(KEYS_REL, path, sizeof path, err, len) ? NULL
                                                               : path;
}

static const char *const type_names[] = {
    [KB_DLIO_COUNT] = "count", [KB_DLIO_UINT] = "uint",
    [KB_DLIO_INT] = "int", [KB_DLIO_NUM] = "num", [KB_DLIO_FRAC] = "frac",
    [KB_DLIO_BOOL] = "bool", [KB_DLIO_STR] = "str", [KB_DLIO_INTS] = "ints",
    [KB_DLIO_STRS] = "strs", [KB_DLIO_ANY] = "any",
    [KB_DLIO_ALIAS] = "alias"};

/* What a type expects, for messages. */
static const char *const type_expect[] = {
    [KB_DLIO_COUNT] = "an integer >= 1",
    [KB_DLIO_UINT] = "an integer >= 0",
    [KB_DLIO_INT] = "an integer", [KB_DLIO_NUM] = "a number >= 0",
    [KB_DLIO_FRAC] = "a number in [0, 1]",
    [KB_DLIO_BOOL] = "true or false", [KB_DLIO_STR] = "a string",
    [KB_DLIO_INTS] = "a list of integers >= 0",
    [KB_DLIO_STRS] = "a string or a list of strings",
    [KB_DLIO_ANY] = "a value", [KB_DLIO_ALIAS] = "a section"};

void kb_dlio_value_free(kb_dlio_value *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->v[i].s);
    free(v->v);
    memset(v, 0, sizeof *v);
}

/* Append a scalar; -1 when out of memory. */
static int value_add(kb_dlio_value *v, const char *s, size_t n, bool plain)
{
    kb_dlio_scalar *m = realloc(v->v, (size_t)(v->n + 1) * sizeof *m);
    if (!m)
        return -1;
    v->v = m;
    if (!(m[v->n].s = strndup(s, n)))
        return -1;
    m[v->n++].plain = plain;
    return 0;
}

static int scalar_add(kb_dlio_value *v, yaml_node_t *n, char *why,
                      size_t wlen)
{
    if (value_add(v, (const char *)n->data.scalar.value,
                  n->data.scalar.length,
                  n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) == 0)
        return 0;
    snprintf(why, wlen, "out of memory");
    return -1;
}

int kb_dlio_node_value(yaml_document_t *d, yaml_node_t *n, kb_dlio_value *v,
                       char *why, size_t wlen)
{
    memset(v, 0, sizeof *v);
    if (n->type == YAML_SCALAR_NODE)
        return scalar_add(v, n, why, wlen);
    if (n->type != YAML_SEQUENCE_NODE) {
        snprintf(why, wlen, "expected a value, got a mapping");
        return -1;
    }
    v->seq = true;
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++) {
        yaml_node_t *e = yaml_document_get_node(d, *it);
        if (!e || e->type != YAML_SCALAR_NODE) {
            snprintf(why, wlen, "expected a list of values, got a nested "
                     "list or mapping");
            return -1;
        }
        if (scalar_add(v, e, why, wlen))
            return -1;
    }
    return 0;
}

int kb_dlio_text_value(const char *text, kb_dlio_value *v, char *why,
                       size_t wlen)
{
    yaml_parser_t yp;
    yaml_document_t doc;
    memset(v, 0, sizeof *v);
    if (!yaml_parser_initialize(&yp)) {
        snprintf(why, wlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&yp, (const unsigned char *)text,
                                 strlen(text));
    int rc = -1;
    if (!yaml_parser_load(&yp, &doc)) {
        snprintf(why, wlen, "not a YAML value: %s",
                 yp.problem ? yp.problem : "parse error");
        yaml_parser_delete(&yp);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)   /* nothing at all: an empty plain scalar, i.e. null */
        rc = value_add(v, "", 0, true) ? (snprintf(why, wlen,
                                                   "out of memory"), -1)
                                       : 0;
    else
        rc = kb_dlio_node_value(&doc, root, v, why, wlen);
    yaml_document_delete(&doc);
    yaml_parser_delete(&yp);
    return rc;
}

void kb_dlio_value_text(const kb_dlio_value *v, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    if (!v->seq) {
        snprintf(buf, len, "%s", v->n ? v->v[0].s : "");
        return;
    }
    at += (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < v->n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                               v->v[i].s);
    if (at < len)
        snprintf(buf + at, len - at, "]");
}

/* YAML 1.1's null and booleans, as PyYAML reads plain scalars. */
static bool is_null(const kb_dlio_scalar *s)
{
    return s->plain && (!*s->s || !strcmp(s->s, "~") ||
                        !strcmp(s->s, "null") || !strcmp(s->s, "Null") ||
                        !strcmp(s->s, "NULL"));
}

static int parse_bool(const kb_dlio_scalar *s, bool *b)
{
    static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes",
                                    "YES", "on", "On", "ON"};
    static const char *const f[] = {"false", "False", "FALSE", "no", "No",
                                    "NO", "off", "Off", "OFF"};
    for (size_t i = 0; s->plain && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s->s, t[i]) || !strcmp(s->s, f[i])) {
            *b = !strcmp(s->s, t[i]);
            return 0;
        }
    return -1;
}

static int parse_int(const kb_dlio_scalar *s, int64_t lo, int64_t *x)
{
    char *end;
    errno = 0;
    long long v = strtoll(s->s, &end, 10);
    if (!s->plain || errno || end == s->s || *end || v < lo)
        return -1;
    *x = v;
    return 0;
}

static int parse_num(const kb_dlio_scalar *s, double hi, double *x)
{
    char *end;
    double v = strtod(s->s, &end);
    if (!s->plain || end == s->s || *end || !isfinite(v) || v < 0 || v > hi)
        return -1;
    *x = v;
    return 0;
}

/* One scalar of type ty into t.  0 or -1. */
static int scalar_check(kb_dlio_type ty, const kb_dlio_scalar *s,
                        kb_dlio_typed *t)
{
    if (ty != KB_DLIO_ANY && is_null(s))
        return -1;
    switch (ty) {
    case KB_DLIO_COUNT:
    case KB_DLIO_UINT:
    case KB_DLIO_INT:
    case KB_DLIO_INTS:
        if (parse_int(s, ty == KB_DLIO_COUNT ? 1
                         : ty == KB_DLIO_INT ? INT64_MIN : 0, &t->i))
            return -1;
        t->d = (double)t->i;
        return 0;
    case KB_DLIO_NUM:
    case KB_DLIO_FRAC:
        if (parse_num(s, ty == KB_DLIO_FRAC ? 1 : HUGE_VAL, &t->d))
            return -1;
        t->i = llround(t->d);
        return 0;
    case KB_DLIO_BOOL:
        return parse_bool(s, &t->b);
    default:
        t->s = s->s;
        return 0;
    }
}

int kb_dlio_value_check(const kb_dlio_key *r, const kb_dlio_value *v,
                        kb_dlio_typed *t, char *why, size_t wlen)
{
    const char *where = t->where;
    memset(t, 0, sizeof *t);
    t->where = where;
    t->has = true;
    bool list_ok = r->type == KB_DLIO_INTS || r->type == KB_DLIO_STRS ||
                   r->type == KB_DLIO_ANY;
    bool scalar_ok = r->type != KB_DLIO_INTS;
    int rc = (v->seq ? list_ok : scalar_ok) && (v->seq || v->n == 1) ? 0
                                                                     : -1;
    int64_t sum = 0;
    for (int i = 0; !rc && i < v->n; i++) {
        kb_dlio_typed e = {0};
        rc = scalar_check(r->type, &v->v[i], &e);
        if (i == 0)
            *t = e, t->where = where, t->has = true;
        if (!rc && r->type == KB_DLIO_INTS) {
            if (e.i > INT64_MAX - sum)
                rc = -1;   /* the sum would overflow */
            else
                sum += e.i;
        }
    }
    if (r->type == KB_DLIO_INTS)
        t->i = sum, t->d = (double)sum;
    if (rc) {
        char text[256];
        kb_dlio_value_text(v, text, sizeof text);
        snprintf(why, wlen, "'%s'%s: expected %s", text,
                 !v->seq && v->n == 1 && !v->v[0].plain &&
                         r->type != KB_DLIO_STR && r->type != KB_DLIO_STRS
                     ? " (quoted, a string)"
                     : "",
                 type_expect[r->type]);
    }
    return rc;
}

/* Whether typed value t of type ty is one of the texts vals. */
static bool matches(kb_dlio_type ty, const kb_dlio_typed *t, char **vals,
                    int n)
{
    for (int i = 0; i < n; i++) {
        kb_dlio_scalar s = {vals[i], true};
        kb_dlio_typed w = {0};
        if (scalar_check(ty, &s, &w))
            continue;   /* checked when the table was read */
        if (ty == KB_DLIO_BOOL ? w.b == t->b
            : ty == KB_DLIO_STR || ty == KB_DLIO_ANY ? !strcmp(w.s, t->s)
                                                    : w.d == t->d)
            return true;
    }
    return false;
}

kb_dlio_verdict kb_dlio_rule_eval(const kb_dlio_keys *k, int r,
                                  const kb_dlio_typed *t,
                                  const kb_dlio_typed *vals)
{
    const kb_dlio_key *row = &k->rows[r];
    for (int i = 0; i < row->nrule; i++) {
        const kb_dlio_rule *u = &row->rule[i];
        if (u->nif && !matches(row->type, t, u->ifv, u->nif))
            continue;
        if (u->when_row >= 0 &&
            (!vals[u->when_row].has ||
             !matches(k->rows[u->when_row].type, &vals[u->when_row],
                      u->whenv, u->nwhen)))
            continue;
        return u->kind;
    }
    return KB_DLIO_OK;
}

/* "a,b,c" into a malloc'd array of strdup'd strings.  -1 out of memory. */
static int split_list(const char *s, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        char **m = realloc(*out, (size_t)(*n + 1) * sizeof *m);
        if (!m)
            return -1;
        *out = m;
        if (!(m[*n] = strndup(s, l)))
            return -1;
        ++*n;
        s += l + (e ? 1 : 0);
    }
    return 0;
}

static void free_list(char **l, int n)
{
    for (int i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Parse row r's kbench text as rules when it starts with ok, warn or
 * error.  0, or -1 with why. */
static int parse_rules(const kb_dlio_keys *k, kb_dlio_key *r, char *why,
                       size_t wlen)
{
    static const char *const kinds[] = {"ok", "warn", "error"};
    char *text = strdup(r->kbench), *save = NULL;
    if (!text)
        return snprintf(why, wlen, "out of memory"), -1;
    int rc = 0;
    for (char *c = strtok_r(text, ";", &save); c && !rc;
         c = strtok_r(NULL, ";", &save)) {
        kb_dlio_rule *m = realloc(r->rule, (size_t)(r->nrule + 1) *
                                               sizeof *m);
        if (!m) {
            rc = -1;
            snprintf(why, wlen, "out of memory");
            break;
        }
        r->rule = m;
        kb_dlio_rule *u = memset(&m[r->nrule++], 0, sizeof *m);
        u->when_row = -1;
        char *s2 = NULL, *w = strtok_r(c, " ", &s2);
        int kind = -1;
        for (int i = 0; w && i < 3; i++)
            if (!strcmp(w, kinds[i]))
                kind = i;
        if (kind < 0) {
            snprintf(why, wlen, "rule '%s': expected ok, warn or error",
                     w ? w : "");
            rc = -1;
            break;
        }
        u->kind = (kb_dlio_verdict)kind;
        while (!rc && (w = strtok_r(NULL, " ", &s2))) {
            char *arg = strtok_r(NULL, " ", &s2), *eq;
            if (!arg) {
                snprintf(why, wlen, "rule: '%s' needs a value list", w);
                rc = -1;
            } else if (!strcmp(w, "if") && !u->nif) {
                rc = split_list(arg, &u->ifv, &u->nif);
            } else if (!strcmp(w, "when") && u->when_row < 0 &&
                       (eq = strchr(arg, '='))) {
                *eq = '\0';
                u->when_row = kb_dlio_keys_find(k, arg, NULL, 0);
                if (u->when_row < 0 || k->rows[u->when_row].rules) {
                    snprintf(why, wlen, "rule: when %s: not a mapped key "
                             "of the table (above this row)", arg);
                    rc = -1;
                } else {
                    rc = split_list(eq + 1, &u->whenv, &u->nwhen);
                }
            } else {
                snprintf(why, wlen, "rule: unexpected '%s' (expected if "
                         "V,... or when KEY=V,...)", w);
                rc = -1;
            }
        }
        /* the values must be of their key's type */
        for (int i = 0; !rc && i < u->nif + u->nwhen; i++) {
            bool own = i < u->nif;
            kb_dlio_type ty = own ? r->type : k->rows[u->when_row].type;
            const char *v = own ? u->ifv[i] : u->whenv[i - u->nif];
            kb_dlio_scalar s = {(char *)v, true};
            kb_dlio_typed t = {0};
            if (ty == KB_DLIO_INTS || scalar_check(ty, &s, &t)) {
                snprintf(why, wlen, "rule value '%s': expected %s", v,
                         type_expect[ty]);
                rc = -1;
            }
        }
    }
    free(text);
    return rc;
}

/* Fill row r from the five fields of a line.  0, or -1 with why. */
static int parse_row(kb_dlio_keys *k, kb_dlio_key *r, char **f, char *why,
                     size_t wlen)
{
    r->type = KB_DLIO_ANY;
    int t = -1;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(f[1], type_names[i]))
            t = (int)i;
    if (t < 0) {
        snprintf(why, wlen, "type '%s': expected count, uint, int, num, "
                 "frac, bool, str, ints, strs, any or alias", f[1]);
        return -1;
    }
    r->type = (kb_dlio_type)t;
    if (!(r->key = strdup(f[0])) || !(r->kbench = strdup(f[3])) ||
        !(r->note = strdup(f[4])) ||
        (strcmp(f[2], "-") && !(r->def = strdup(f[2]))))
        return snprintf(why, wlen, "out of memory"), -1;
    for (kb_dlio_key *o = k->rows; o < r; o++)
        if (!strcmp(o->key, r->key))
            return snprintf(why, wlen, "key '%s' listed twice", r->key), -1;
    if (!*r->key)
        return snprintf(why, wlen, "empty key"), -1;
    if (r->type == KB_DLIO_ALIAS) {
        size_t n = strlen(r->key);
        if (n < 3 || strcmp(r->key + n - 2, ".*") ||
            strlen(r->kbench) < 3 ||
            strcmp(r->kbench + strlen(r->kbench) - 2, ".*")) {
            snprintf(why, wlen, "alias: expected PREFIX.* | alias | - | "
                     "OTHER.*");
            return -1;
        }
        return 0;
    }
    if (r->def) {
        kb_dlio_typed tv = {0};
        if (kb_dlio_text_value(r->def, &r->defv, why, wlen) ||
            kb_dlio_value_check(r, &r->defv, &tv, why, wlen))
            return -1;
    }
    const char *w = r->kbench;
    r->rules = !strncmp(w, "ok", 2) || !strncmp(w, "warn", 4) ||
               !strncmp(w, "error", 5);
    if (!r->rules && (!*w || strchr(w, ' '))) {
        snprintf(why, wlen, "kbench '%s': expected a slot name or rules",
                 w);
        return -1;
    }
    return r->rules ? parse_rules(k, r, why, wlen) : 0;
}

int kb_dlio_keys_load(const char *path, kb_dlio_keys *k, char *err,
                      size_t len)
{
    memset(k, 0, sizeof *k);
    k->path = path;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "cannot open the DLIO key table %s: %s", path,
                 strerror(errno));
        return KB_IO_ERROR;
    }
    char line[1024], why[256];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char *s = kb_io_trim(line);
        if (!*s || *s == '#')
            continue;
        char *fields[5];
        int nf = 0;
        for (char *p = s; nf < 5; nf++) {
            char *bar = strchr(p, '|');
            if (bar)
                *bar = '\0';
            fields[nf] = kb_io_trim(p);
            if (!bar) {
                nf++;
                break;
            }
            p = bar + 1;
        }
        kb_dlio_key *m = nf == 5 ? realloc(k->rows, (size_t)(k->n + 1) *
                                                        sizeof *m)
                                 : NULL;
        if (nf != 5) {
            snprintf(why, sizeof why, "expected key | value | default | "
                     "kbench | note (and no | in them)");
        } else if (m) {
            k->rows = m;
            kb_dlio_key *r = memset(&m[k->n], 0, sizeof *m);
            r->line = lineno;
            k->n++;
            if (!parse_row(k, r, fields, why, sizeof why))
                continue;
        } else {
            snprintf(why, sizeof why, "out of memory");
        }
        snprintf(err, len, "%s:%d: %s", path, lineno, why);
        rc = KB_IO_USAGE;
    }
    if (!rc && ferror(f)) {
        snprintf(err, len, "cannot read %s", path);
        rc = KB_IO_ERROR;
    }
    fclose(f);
    return rc;
}

void kb_dlio_keys_free(kb_dlio_keys *k)
{
    for (int i = 0; i < k->n; i++) {
        kb_dlio_key *r = &k->rows[i];
        free(r->key);
        free(r->def);
        free(r->kbench);
        free(r->note);
        kb_dlio_value_free(&r->defv);
        for (int j = 0; j < r->nrule; j++) {
            free_list(r->rule[j].ifv, r->rule[j].nif);
            free_list(r->rule[j].whenv, r->rule[j].nwhen);
        }
        free(r->rule);
    }
    free(k->rows);
    memset(k, 0, sizeof *k);
}

/* Whether key is under the prefix of a "PREFIX.*" row key. */
static bool under(const char *key, const char *row)
{
    size_t n = strlen(row);
    return n > 2 && !strcmp(row + n - 2, ".*") &&
           !strncmp(key, row, n - 1) && key[n - 1];
}

int kb_dlio_keys_find(const kb_dlio_keys *k, const char *key, char *canon,
                      size_t clen)
{
    for (int i = 0; i < k->n; i++) {
        const kb_dlio_key *r = &k->rows[i];
        if (r->type == KB_DLIO_ALIAS && under(key, r->key)) {
            char to[512];
            snprintf(to, sizeof to, "%.*s%s", (int)strlen(r->kbench) - 1,
                     r->kbench, key + strlen(r->key) - 1);
            return kb_dlio_keys_find(k, to, canon, clen);
        }
    }
    if (canon)
        snprintf(canon, clen, "%s", key);
    for (int i = 0; i < k->n; i++)
        if (k->rows[i].type != KB_DLIO_ALIAS &&
            (!strcmp(k->rows[i].key, key) || under(key, k->rows[i].key)))
            return i;
    return -1;
}
