/* dlio_config.c - a DLIO workload YAML (Hydra's `workload` group) and its
 * key=value overrides into a kbench profile: libyaml parses the file, the
 * table dlio_keys.conf says what every key becomes, and the slots below
 * turn DLIO's values into the profile. */
#include "iostage/dlio/dlio_keys.h"
#include "iostage/dlio/config.h"
#include "iostage/formats/format.h"
#include "iostage/profile.h"
#include "iostage/stage.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 16    /* nesting of YAML mappings we follow */

/* DLIO's values that kbench uses, by slot name (the kbench column of
 * dlio_keys.conf). */
typedef struct {
    char name[32], format[32], prefix[64];
    char data_folder[4096], storage_root[4096], checkpoint_dir[1024];
    int64_t files, samples_per_file, subfolders, batch, readers, prefetch;
    int64_t epochs, max_steps, seed;
    int64_t checkpoint_bytes, after_epoch, every_epochs, every_steps;
    int64_t optimizer_groups, layers, layer_parameters, tensor_parallelism;
    double sample_bytes, sample_stddev, compute_seconds, au_target;
    bool drop_last, checkpoint;
} dlio_slots;

typedef enum { S_INT, S_NUM, S_BOOL, S_STR } slot_kind;

typedef struct {
    const char *name;
    slot_kind kind;
    size_t off, size;       /* size: of a string slot */
    /* Found from the dataset's file names when there is no YAML
     * (--dlio-layout alone): left unset unless an override sets it. */
    bool from_files;
} slot;

#define SLOT_SIZE(n) sizeof(((dlio_slots *)0)->n)
#define SLOT(n, k) {#n, k, offsetof(dlio_slots, n), SLOT_SIZE(n), false}
#define FILES_SLOT(n, k) {#n, k, offsetof(dlio_slots, n), SLOT_SIZE(n), true}
#define CKPT_SLOT(n) {"ckpt." #n, S_INT, offsetof(dlio_slots, n), 0, false}

static const slot slots[] = {
    SLOT(name, S_STR), FILES_SLOT(format, S_STR), FILES_SLOT(prefix, S_STR),
    SLOT(data_folder, S_STR), SLOT(storage_root, S_STR),
    SLOT(checkpoint_dir, S_STR), FILES_SLOT(files, S_INT),
    FILES_SLOT(samples_per_file, S_INT), FILES_SLOT(subfolders, S_INT),
    SLOT(batch, S_INT), SLOT(readers, S_INT), SLOT(prefetch, S_INT),
    SLOT(epochs, S_INT), SLOT(max_steps, S_INT), SLOT(seed, S_INT),
    SLOT(sample_bytes, S_NUM), SLOT(sample_stddev, S_NUM),
    SLOT(compute_seconds, S_NUM), SLOT(au_target, S_NUM),
    SLOT(drop_last, S_BOOL), SLOT(checkpoint, S_BOOL),
    SLOT(checkpoint_bytes, S_INT), CKPT_SLOT(after_epoch),
    CKPT_SLOT(every_epochs), CKPT_SLOT(every_steps),
    CKPT_SLOT(optimizer_groups), CKPT_SLOT(layers),
    CKPT_SLOT(layer_parameters), CKPT_SLOT(tensor_parallelism),
};
#define NSLOTS (sizeof slots / sizeof slots[0])

static const slot *slot_find(const char *name)
{
    for (size_t i = 0; i < NSLOTS; i++)
        if (!strcmp(slots[i].name, name))
            return &slots[i];
    return NULL;
}

/* Whether a value of type t fits a slot of kind k. */
static bool slot_takes(slot_kind k, kb_dlio_type t)
{
    switch (k) {
    case S_INT:
        return t == KB_DLIO_COUNT || t == KB_DLIO_UINT || t == KB_DLIO_INT ||
               t == KB_DLIO_INTS;
    case S_NUM: return t == KB_DLIO_NUM || t == KB_DLIO_FRAC;
    case S_BOOL: return t == KB_DLIO_BOOL;
    default: return t == KB_DLIO_STR;
    }
}

/* One key the YAML or an override set. */
typedef struct {
    char *key;              /* canonical (aliases resolved) */
    int row;
    kb_dlio_value v;
    char *where;            /* "FILE:LINE" or "override 'ARG'" */
} entry;

typedef struct {
    kb_dlio_keys keys;
    entry *e;
    int n;
    const char *path;
    char *err;
    size_t len;
} loader;

static int oom(loader *l)
{
    snprintf(l->err, l->len, "out of memory reading %s",
             l->path ? l->path : "the DLIO overrides");
    return KB_IO_ERROR;
}

/* Record key = v (taken over) from where; an override replaces, the YAML
 * may not set a key twice.  0 or a stage error. */
static int entry_add(loader *l, const char *key, int row, kb_dlio_value *v,
                     const char *where, bool override)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->e[i].key, key))
            continue;
        if (!override) {
            snprintf(l->err, l->len, "%s: %s set twice (first at %s)", where,
                     key, l->e[i].where);
            kb_dlio_value_free(v);
            return KB_IO_USAGE;
        }
        char *w = strdup(where);
        if (!w)
            return kb_dlio_value_free(v), oom(l);
        kb_dlio_value_free(&l->e[i].v);
        free(l->e[i].where);
        l->e[i].v = *v;
        l->e[i].where = w;
        return 0;
    }
    entry *m = realloc(l->e, (size_t)(l->n + 1) * sizeof *m);
    if (!m)
        return kb_dlio_value_free(v), oom(l);
    l->e = m;
    entry *e = &m[l->n];
    e->row = row;
    e->v = *v;
    e->key = strdup(key);
    e->where = strdup(where);
    l->n++;   /* freed with the others even when a strdup failed */
    return e->key && e->where ? 0 : oom(l);
}

static bool is_wildcard(const kb_dlio_key *r)
{
    size_t n = strlen(r->key);
    return n > 2 && !strcmp(r->key + n - 2, ".*");
}

/* The pairs of mapping node n, keys under prefix.  0 or a stage error. */
static int walk(loader *l, yaml_document_t *d, yaml_node_t *n,
                const char *prefix, int depth)
{
    for (yaml_node_pair_t *pr = n->data.mapping.pairs.start;
         pr < n->data.mapping.pairs.top; pr++) {
        yaml_node_t *kn = yaml_document_get_node(d, pr->key);
        yaml_node_t *vn = yaml_document_get_node(d, pr->value);
        size_t line = kn ? kn->start_mark.line + 1 : 0;
        char key[512], canon[512], where[4200], why[256];
        if (!kn || !vn || kn->type != YAML_SCALAR_NODE) {
            snprintf(l->err, l->len, "%s:%zu: expected a key (a plain "
                     "name)", l->path, line);
            return KB_IO_USAGE;
        }
        if ((size_t)snprintf(key, sizeof key, "%s%s%s", prefix,
                             *prefix ? "." : "",
                             (const char *)kn->data.scalar.value) >=
            sizeof key) {
            snprintf(l->err, l->len, "%s:%zu: key too long", l->path, line);
            return KB_IO_USAGE;
        }
        int row = kb_dlio_keys_find(&l->keys, key, canon, sizeof canon);
        if (vn->type == YAML_MAPPING_NODE &&
            (row < 0 || is_wildcard(&l->keys.rows[row]))) {
            if (depth == MAX_DEPTH) {
                snprintf(l->err, l->len, "%s:%zu: %s: nested deeper than "
                         "%d", l->path, line, key, MAX_DEPTH);
                return KB_IO_USAGE;
            }
            int rc = walk(l, d, vn, key, depth + 1);
            if (rc)
                return rc;
            continue;
        }
        if (row < 0) {
            snprintf(l->err, l->len, "%s:%zu: unknown DLIO key '%s' (not in "
                     "%s)", l->path, line, key, l->keys.path);
            return KB_IO_USAGE;
        }
        kb_dlio_value v;
        if (kb_dlio_node_value(d, vn, &v, why, sizeof why)) {
            kb_dlio_value_free(&v);
            snprintf(l->err, l->len, "%s:%zu: %s: %s", l->path, line, key,
                     why);
            return KB_IO_USAGE;
        }
        snprintf(where, sizeof where, "%s:%zu", l->path, line);
        int rc = entry_add(l, canon, row, &v, where, false);
        if (rc)
            return rc;
    }
    return 0;
}

/* The keys of the workload YAML at l->path.  0 or a stage error. */
static int read_yaml(loader *l)
{
    FILE *f = fopen(l->path, "rb");
    if (!f) {
        snprintf(l->err, l->len, "cannot open DLIO config %s: %s", l->path,
                 strerror(errno));
        return errno == ENOENT ? KB_IO_USAGE : KB_IO_ERROR;
    }
    yaml_parser_t yp;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&yp)) {
        fclose(f);
        return oom(l);
    }
    yaml_parser_set_input_file(&yp, f);
    int rc = 0;
    if (!yaml_parser_load(&yp, &doc)) {
        snprintf(l->err, l->len, "%s:%zu:%zu: not YAML: %s", l->path,
                 yp.problem_mark.line + 1, yp.problem_mark.column + 1,
                 yp.problem ? yp.problem : "parse error");
        rc = yp.error == YAML_MEMORY_ERROR ? KB_IO_ERROR : KB_IO_USAGE;
    } else {
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (root && root->type != YAML_MAPPING_NODE) {
            snprintf(l->err, l->len, "%s:%zu: expected a mapping of DLIO "
                     "keys", l->path, root->start_mark.line + 1);
            rc = KB_IO_USAGE;
        } else if (root) {   /* an empty file: DLIO's defaults */
            rc = walk(l, &doc, root, "", 0);
        }
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&yp);
    fclose(f);
    return rc;
}

/* One KEY=VALUE override as DLIO's command line takes it:
 * ++workload.K=V, +workload.K=V, workload.K=V or K=V.  0 or a stage
 * error. */
static int read_override(loader *l, const char *arg)
{
    char key[512], canon[512], where[1024], why[256];
    const char *s = arg;
    snprintf(where, sizeof where, "override '%s'", arg);
    if (*s == '~') {
        snprintf(l->err, l->len, "%s: deleting a key (~) is not supported",
                 where);
        return KB_IO_USAGE;
    }
    s += !strncmp(s, "++", 2) ? 2 : *s == '+';
    if (!strncmp(s, "workload.", 9))
        s += 9;
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof key) {
        snprintf(l->err, l->len, "%s: expected KEY=VALUE", where);
        return KB_IO_USAGE;
    }
    snprintf(key, sizeof key, "%.*s", (int)(eq - s), s);
    int row = kb_dlio_keys_find(&l->keys, key, canon, sizeof canon);
    if (row < 0) {
        snprintf(l->err, l->len, "%s: unknown DLIO key '%s' (not in %s)",
                 where, key, l->keys.path);
        return KB_IO_USAGE;
    }
    kb_dlio_value v;
    if (kb_dlio_text_value(eq + 1, &v, why, sizeof why)) {
        kb_dlio_value_free(&v);
        snprintf(l->err, l->len, "%s: %s: %s", where, key, why);
        return KB_IO_USAGE;
    }
    return entry_add(l, canon, row, &v, where, true);
}

/* Copy a string slot's text; -1 when it does not fit. */
static int copy_text(char *dst, size_t cap, const char *s)
{
    if (strlen(s) >= cap)
        return -1;
    memcpy(dst, s, strlen(s) + 1);
    return 0;
}

static void drop_trailing_slashes(char *s)
{
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
}

/* Store row r's value t in its slot.  0, or KB_IO_USAGE when a string is
 * too long. */
static int slot_store(loader *l, const slot *sl, const kb_dlio_key *r,
                      const kb_dlio_typed *t, dlio_slots *sv)
{
    char *at = (char *)sv + sl->off;
    switch (sl->kind) {
    case S_INT: *(int64_t *)at = t->i; return 0;
    case S_NUM: *(double *)at = t->d; return 0;
    case S_BOOL: *(bool *)at = t->b; return 0;
    default:
        if (!copy_text(at, sl->size, t->s))
            return 0;
        snprintf(l->err, l->len, "%s: %s: '%s' is longer than %zu bytes",
                 t->where, r->key, t->s, sl->size - 1);
        return KB_IO_USAGE;
    }
}

/* Where key's value came from (its row's), for messages. */
static const char *where_of(const loader *l, const kb_dlio_typed *vals,
                            const char *key)
{
    int r = kb_dlio_keys_find(&l->keys, key, NULL, 0);
    return r >= 0 ? vals[r].where : "DLIO's default";
}

static void note(const char *where, const char *what)
{
    fprintf(stderr, "kbench io: note: %s: %s\n", where, what);
}

/* DLIO's checkpointing (main.py, base_checkpointing.py) as kbench's plan:
 * only with workflow.checkpoint.  Rank 0 writes model_size bytes of model,
 * 3 x sum(optimization_groups) of optimizer state and layers x
 * sum(layer_parameters) of layer state at each checkpoint. */
static int compose_ckpt(loader *l, const dlio_slots *s, kb_io_profile *p)
{
    if (!s->checkpoint)
        return 0;
    int64_t layers = s->layers + (s->tensor_parallelism > 1
                                      ? s->tensor_parallelism : 0);
    /* the byte counts must fit: a TiB a tensor is far beyond any model */
    const int64_t cap = (int64_t)1 << 40;
    if (s->optimizer_groups > cap || s->layer_parameters > cap ||
        layers > cap || s->checkpoint_bytes > cap) {
        snprintf(l->err, l->len, "checkpoint.*: model_size, the sums of "
                 "optimization_groups and layer_parameters and num_layers "
                 "must each be at most 2^40");
        return KB_IO_USAGE;
    }
    kb_io_ckpt_plan *c = &p->ckpt;
    p->checkpoint_bytes = s->checkpoint_bytes;
    if (s->every_steps > 0) {
        c->every_steps = s->every_steps;
    } else if (s->every_steps < 0) {   /* by epoch */
        c->every_epochs = s->every_epochs;
        c->after_epoch = s->after_epoch;
    }   /* 0: DLIO never reaches step 0 and takes no epoch checkpoint */
    c->optimizer_bytes = 3 * (uint64_t)s->optimizer_groups;
    c->layer_bytes = (uint64_t)layers * (uint64_t)s->layer_parameters;
    memcpy(p->dlio.checkpoint_folder, s->checkpoint_dir,
           strlen(s->checkpoint_dir) + 1);   /* the same capacity */
    drop_trailing_slashes(p->dlio.checkpoint_folder);
    return 0;
}

/* The slots into the profile and *data_folder; vals per row, for
 * messages.  0 or KB_IO_USAGE. */
static int compose(loader *l, dlio_slots *s, const kb_dlio_typed *vals,
                   kb_io_profile *p, char *data_folder, size_t dlen)
{
    memset(p, 0, sizeof *p);
    if (s->format[0]) {
        snprintf(p->format, sizeof p->format, "dlio-%.10s", s->format);
        if (strlen(s->format) > 10 || !kb_io_format_find(p->format)) {
            snprintf(l->err, l->len, "%s: dataset.format '%s': kbench reads "
                     "DLIO's npz, tfrecord and hdf5",
                     where_of(l, vals, "dataset.format"), s->format);
            return KB_IO_USAGE;
        }
    }
    memcpy(p->name, s->name, sizeof p->name);   /* the same capacity */
    memcpy(p->model, s->name, sizeof p->model);
    snprintf(p->body, sizeof p->body, "random");
    snprintf(p->decode, sizeof p->decode, "parse");
    p->files = s->files;
    p->samples_per_file = s->samples_per_file;
    p->sample_bytes = llround(s->sample_bytes);
    if (p->sample_bytes < 1) {
        snprintf(l->err, l->len, "%s: dataset.record_length %g: expected "
                 "at least 1 byte", where_of(l, vals, "dataset.record_length"),
                 s->sample_bytes);
        return KB_IO_USAGE;
    }
    p->sample_stddev = llround(s->sample_stddev);
    p->batch = s->batch;
    p->readers = s->readers > 0 ? s->readers : 1;
    if (!s->readers)
        note(where_of(l, vals, "reader.read_threads"),
             "reader.read_threads 0: kbench reads with 1 thread");
    p->prefetch = s->prefetch > 0 ? s->prefetch : 1;
    if (!s->prefetch)
        note(where_of(l, vals, "reader.prefetch_size"),
             "reader.prefetch_size 0: kbench's ring holds 1 batch ahead");
    p->compute_seconds = s->compute_seconds;
    p->au_target = 100 * s->au_target;
    p->epochs = s->epochs;
    p->max_steps = s->max_steps > 0 ? s->max_steps : 0;
    p->drop_last = s->drop_last;
    p->seeded = true;
    p->seed = (uint64_t)s->seed;
    p->dlio.layout = true;
    memcpy(p->dlio.prefix, s->prefix, sizeof p->dlio.prefix);
    p->dlio.subfolders = s->subfolders;
    int rc = compose_ckpt(l, s, p);
    if (rc)
        return rc;
    /* DLIO opens storage_root/data_folder (os.path.join) */
    char *df = s->data_folder, *root = s->storage_root;
    drop_trailing_slashes(df);
    bool joined = df[0] != '/' && root[0] && strcmp(root, ".") &&
                  strcmp(root, "./");
    drop_trailing_slashes(root);
    if ((size_t)snprintf(data_folder, dlen, "%s%s%s", joined ? root : "",
                         joined ? "/" : "", df) >= dlen) {
        snprintf(l->err, l->len, "storage_root/data_folder longer than %zu "
                 "bytes", dlen - 1);
        return KB_IO_USAGE;
    }
    return 0;
}

/* Check every set value, report the rules' verdicts, fill the slots and
 * the profile.  0 or a stage error. */
static int apply(loader *l, bool yaml, kb_io_profile *p, char *data_folder,
                 size_t dlen)
{
    int nr = l->keys.n, rc = 0;
    kb_dlio_typed *vals = calloc((size_t)nr + 1, sizeof *vals);
    bool *set = calloc((size_t)nr + 1, sizeof *set);
    char why[256], text[256];
    if (!vals || !set) {
        free(vals), free(set);
        return oom(l);
    }
    for (int i = 0; i < nr; i++) {   /* the defaults, checked when read */
        vals[i].where = "DLIO's default";
        if (l->keys.rows[i].defv.n || l->keys.rows[i].def)
            kb_dlio_value_check(&l->keys.rows[i], &l->keys.rows[i].defv,
                                &vals[i], why, sizeof why);
    }
    for (int i = 0; !rc && i < l->n; i++) {
        entry *e = &l->e[i];
        kb_dlio_typed t = {.where = e->where};
        if (kb_dlio_value_check(&l->keys.rows[e->row], &e->v, &t, why,
                                sizeof why)) {
            snprintf(l->err, l->len, "%s: %s: %s", e->where, e->key, why);
            rc = KB_IO_USAGE;
        } else if (!is_wildcard(&l->keys.rows[e->row])) {
            vals[e->row] = t;
            set[e->row] = true;
        }
    }
    bool ckpt_keys = false;
    for (int i = 0; !rc && i < l->n; i++) {
        entry *e = &l->e[i];
        const kb_dlio_key *r = &l->keys.rows[e->row];
        ckpt_keys |= !strncmp(e->key, "checkpoint.", 11);
        if (!r->rules)
            continue;
        kb_dlio_typed t = {.where = e->where};
        kb_dlio_value_check(r, &e->v, &t, why, sizeof why);
        kb_dlio_value_text(&e->v, text, sizeof text);
        kb_dlio_verdict v = kb_dlio_rule_eval(&l->keys, e->row, &t, vals);
        if (v == KB_DLIO_WARN)
            fprintf(stderr, "kbench io: warning: %s: %s = %s: not "
                    "implemented by kbench; it cannot change the "
                    "measurement (%s)\n", e->where, e->key, text, r->note);
        if (v == KB_DLIO_ERROR) {
            snprintf(l->err, l->len, "%s: %s = %s: not implemented by "
                     "kbench, and it would change the measurement (%s)",
                     e->where, e->key, text, r->note);
            rc = KB_IO_USAGE;
        }
    }
    dlio_slots s;
    memset(&s, 0, sizeof s);
    for (int i = 0; !rc && i < nr; i++) {
        const kb_dlio_key *r = &l->keys.rows[i];
        const slot *sl = r->rules || r->type == KB_DLIO_ALIAS
                             ? NULL : slot_find(r->kbench);
        if (sl && vals[i].has && (yaml || set[i] || !sl->from_files))
            rc = slot_store(l, sl, r, &vals[i], &s);
    }
    if (!rc)
        rc = compose(l, &s, vals, p, data_folder, dlen);
    if (!rc && ckpt_keys && !s.checkpoint)
        note(where_of(l, vals, "workflow.checkpoint"), "checkpoint.* not "
             "used: workflow.checkpoint is false (as in DLIO)");
    free(vals);
    free(set);
    return rc;
}

/* Every slot row of the table names a slot whose kind fits its type,
 * and every slot has a row. */
static int check_table(loader *l)
{
    bool used[NSLOTS] = {false};
    for (int i = 0; i < l->keys.n; i++) {
        const kb_dlio_key *r = &l->keys.rows[i];
        if (r->rules || r->type == KB_DLIO_ALIAS)
            continue;
        const slot *sl = slot_find(r->kbench);
        if (!sl || !slot_takes(sl->kind, r->type) || !r->def) {
            snprintf(l->err, l->len, "%s:%d: %s: '%s' is no kbench slot for "
                     "a value of this type with a default", l->keys.path,
                     r->line, r->key, r->kbench);
            return KB_IO_USAGE;
        }
        used[sl - slots] = true;
    }
    for (size_t i = 0; i < NSLOTS; i++)
        if (!used[i]) {
            snprintf(l->err, l->len, "%s: no key maps to kbench's %s",
                     l->keys.path, slots[i].name);
            return KB_IO_USAGE;
        }
    return 0;
}

int kb_io_dlio_config_load(const char *path, char **overrides, int noverrides,
                           kb_io_profile *p, char *data_folder, size_t dlen,
                           char *err, size_t len)
{
    loader l = {.path = path, .err = err, .len = len};
    const char *keys = kb_dlio_keys_path(err, len);
    if (!keys)
        return KB_IO_ERROR;
    int rc = kb_dlio_keys_load(keys, &l.keys, err, len);
    if (!rc)
        rc = check_table(&l);
    if (!rc && path)
        rc = read_yaml(&l);
    for (int i = 0; !rc && i < noverrides; i++)
        rc = read_override(&l, overrides[i]);
    if (!rc)
        rc = apply(&l, path != NULL, p, data_folder, dlen);
    for (int i = 0; i < l.n; i++) {
        free(l.e[i].key);
        free(l.e[i].where);
        kb_dlio_value_free(&l.e[i].v);
    }
    free(l.e);
    kb_dlio_keys_free(&l.keys);
    return rc;
}

int kb_io_dlio_make_folder(const char *path, char *err, size_t len)
{
    char dir[4096];
    if (!*path || copy_text(dir, sizeof dir, path)) {
        snprintf(err, len, "checkpoint folder empty or longer than %zu "
                 "bytes", sizeof dir - 1);
        return KB_IO_USAGE;
    }
    /* each parent, then the folder itself */
    for (char *s = dir + 1;; s++) {
        bool end = !*s;
        if (*s != '/' && !end)
            continue;
        *s = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
            snprintf(err, len, "cannot make the checkpoint folder %s: %s",
                     dir, strerror(errno));
            return KB_IO_ERROR;
        }
        if (end)
            return 0;
        *s = '/';
    }
}
