/* descriptor.c - benchdnn-style problem descriptors: lex, build, check, print.
 *
 * Syntax (benchdnn's; README.md, "Descriptors"):
 *   conv   gX mbX icX idX ihX iwX ocX odX ohX owX kdX khX kwX sdX shX swX
 *          pdX phX pwX ddX dhX dwX nNAME
 *   bnorm  mbX icX idX ihX iwX epsY nNAME
 *   GEMM   mX|mbX nX kX ta tb alphaY betaY nNAME, or benchdnn matmul's
 *          MxK:KxN [nNAME]
 * Underscores between tokens are ignored.  `n` followed by a digit is the
 * GEMM's N; `n` followed by anything else starts the layer name, which runs
 * to the end of the text (it may hold `_`, `:` ...; benchdnn's quoted form
 * n"NAME" is accepted too).  A trailing `*N` on the name is the number of
 * times the layer occurs in its model.
 *
 * Kind detection, in this order: the MxK:KxN form is a GEMM; any of oc, kd,
 * kh, kw makes a conv; any of m, n<digit>, k, ta, tb, alpha, beta, or mb
 * without ic makes a GEMM; anything else is a bnorm.
 *
 * Conv semantics follow benchdnn: mb defaults to 2 and g to 1; strides to
 * 1, padding and dilation to 0, and dilation is 0-based (dh5 = dilation 6).
 * A value missing on the W side copies the H side; the output size is
 * copied only together with the input size, otherwise it is inferred.  A
 * 3D descriptor that gives only D values (id17kd2) copies them to H and W.
 * Outputs are inferred as out = (in + 2p - (d+1)(k-1) - 1)/s + 1 and,
 * when given, must agree.
 *
 * bnorm eps defaults to 1e-5 (the models' value; benchdnn uses 1/16).  A
 * GEMM written with mb, or with neither m nor mb (catalogs), has M = the
 * batch (default 2) and a run's --mb replaces it.  One that gives m but
 * leaves k out has K = the batch instead (mb gives its value): a fully
 * connected layer's weight gradient, dW = X^T dY, sums over the batch. */
#include "kernels/problem.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest value a descriptor may hold; keeps size arithmetic far from
 * overflow.  Tensors are further limited to KB_ELEMS_MAX elements so that
 * element counts times 8 bytes fit an int64_t. */
#define KB_VALUE_MAX ((int64_t)1 << 40)
#define KB_ELEMS_MAX ((int64_t)1 << 60)
#define DEFAULT_MB 2
#define DEFAULT_EPS 1e-5
#define FOUND_MAX 16 /* characters of offending text quoted in messages */

enum key {
    K_G, K_MB, K_IC, K_OC,
    K_ID, K_IH, K_IW, K_OD, K_OH, K_OW, K_KD, K_KH, K_KW,
    K_SD, K_SH, K_SW, K_PD, K_PH, K_PW, K_DD, K_DH, K_DW,
    K_EPS, K_M, K_N, K_K, K_TA, K_TB, K_ALPHA, K_BETA,
    K_NKEYS
};

enum vtype { V_INT, V_FLOAT, V_FLAG };

#define IN_CONV 1u
#define IN_GEMM 2u
#define IN_BNORM 4u

static const struct {
    const char *name;
    enum vtype type;
    unsigned kinds; /* which descriptor kinds accept the key */
} keys[K_NKEYS] = {
    [K_G] = {"g", V_INT, IN_CONV},
    [K_MB] = {"mb", V_INT, IN_CONV | IN_GEMM | IN_BNORM},
    [K_IC] = {"ic", V_INT, IN_CONV | IN_BNORM},
    [K_OC] = {"oc", V_INT, IN_CONV},
    [K_ID] = {"id", V_INT, IN_CONV | IN_BNORM},
    [K_IH] = {"ih", V_INT, IN_CONV | IN_BNORM},
    [K_IW] = {"iw", V_INT, IN_CONV | IN_BNORM},
    [K_OD] = {"od", V_INT, IN_CONV}, [K_OH] = {"oh", V_INT, IN_CONV},
    [K_OW] = {"ow", V_INT, IN_CONV}, [K_KD] = {"kd", V_INT, IN_CONV},
    [K_KH] = {"kh", V_INT, IN_CONV}, [K_KW] = {"kw", V_INT, IN_CONV},
    [K_SD] = {"sd", V_INT, IN_CONV}, [K_SH] = {"sh", V_INT, IN_CONV},
    [K_SW] = {"sw", V_INT, IN_CONV}, [K_PD] = {"pd", V_INT, IN_CONV},
    [K_PH] = {"ph", V_INT, IN_CONV}, [K_PW] = {"pw", V_INT, IN_CONV},
    [K_DD] = {"dd", V_INT, IN_CONV}, [K_DH] = {"dh", V_INT, IN_CONV},
    [K_DW] = {"dw", V_INT, IN_CONV},
    [K_EPS] = {"eps", V_FLOAT, IN_BNORM},
    [K_M] = {"m", V_INT, IN_GEMM},
    [K_N] = {"n", V_INT, IN_GEMM}, /* only as n<digit>; lexed apart */
    [K_K] = {"k", V_INT, IN_GEMM},
    [K_TA] = {"ta", V_FLAG, IN_GEMM}, [K_TB] = {"tb", V_FLAG, IN_GEMM},
    [K_ALPHA] = {"alpha", V_FLOAT, IN_GEMM},
    [K_BETA] = {"beta", V_FLOAT, IN_GEMM},
};

static const char *const expected_conv =
    "g mb ic id ih iw oc od oh ow kd kh kw sd sh sw pd ph pw dd dh dw n";
static const char *const expected_gemm = "m mb n k ta tb alpha beta nNAME";
static const char *const expected_bnorm = "mb ic id ih iw eps n";

/* Spatial fields of one dimension, and the keys that name them per
 * dimension (D, H, W). */
enum field { F_I, F_O, F_K, F_S, F_P, F_D, NF };
static const int field_keys[3][NF] = {
    {K_ID, K_OD, K_KD, K_SD, K_PD, K_DD},
    {K_IH, K_OH, K_KH, K_SH, K_PH, K_DH},
    {K_IW, K_OW, K_KW, K_SW, K_PW, K_DW},
};
static const size_t conv_off[3][NF] = {
    {offsetof(kb_conv_desc, id), offsetof(kb_conv_desc, od),
     offsetof(kb_conv_desc, kd), offsetof(kb_conv_desc, sd),
     offsetof(kb_conv_desc, pd), offsetof(kb_conv_desc, dd)},
    {offsetof(kb_conv_desc, ih), offsetof(kb_conv_desc, oh),
     offsetof(kb_conv_desc, kh), offsetof(kb_conv_desc, sh),
     offsetof(kb_conv_desc, ph), offsetof(kb_conv_desc, dh)},
    {offsetof(kb_conv_desc, iw), offsetof(kb_conv_desc, ow),
     offsetof(kb_conv_desc, kw), offsetof(kb_conv_desc, sw),
     offsetof(kb_conv_desc, pw), offsetof(kb_conv_desc, dw)},
};

static int64_t *conv_field(kb_conv_desc *c, int d, int f)
{
    return (int64_t *)((char *)c + conv_off[d][f]);
}

static int64_t conv_get(const kb_conv_desc *c, int d, int f)
{
    return *(const int64_t *)((const char *)c + conv_off[d][f]);
}

/* Everything the lexer found.  Positions are 0-based offsets into the
 * text; messages print them 1-based as columns. */
typedef struct {
    bool given[K_NKEYS];
    int pos[K_NKEYS], len[K_NKEYS];
    int64_t ival[K_NKEYS];
    double fval[K_NKEYS];
    bool matmul;              /* MxK:KxN form */
    int64_t mm[4];            /* M, K, K, N */
    int mm_pos[4];
    char name[KB_NAME_MAX];
    int64_t count;
    int bad_pos, bad_len;     /* first unknown token, bad_pos -1 if none */
    int err_pos;              /* first hard lexing error, -1 if none */
    char err_msg[256];
} tokens;

/* Writes "column C: message" into err; returns -1 so callers can
 * `return fail(...)`. */
static int fail(char *err, size_t errlen, int pos, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, errlen, "column %d: ", pos + 1);
    if (n >= 0 && (size_t)n < errlen) {
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Records the first hard lexing error (message without the column). */
static void lex_error(tokens *t, int pos, const char *fmt, ...)
{
    va_list ap;
    if (t->err_pos >= 0)
        return;
    t->err_pos = pos;
    va_start(ap, fmt);
    vsnprintf(t->err_msg, sizeof t->err_msg, fmt, ap);
    va_end(ap);
}

/* Length of the text shown as "found '...'" from pos. */
static int found_len(int pos, int end)
{
    return end - pos < FOUND_MAX ? end - pos : FOUND_MAX;
}

/* Lexes a non-negative integer at *i; `what` says where it belongs
 * ("after 'ic'").  Returns 0, or -1 after recording the error. */
static int lex_int(const char *text, int *i, int end, const char *what,
                   int64_t *v, tokens *t)
{
    int p = *i, q = p;
    int64_t x = 0;
    bool big = false;
    while (q < end && isdigit((unsigned char)text[q])) {
        if (x > KB_VALUE_MAX)
            big = true; /* stop accumulating; digits still consumed */
        else
            x = x * 10 + (text[q] - '0');
        q++;
    }
    if (q == p) {
        if (p >= end)
            lex_error(t, p, "expected a non-negative integer %s, found the "
                      "end of the descriptor", what);
        else
            lex_error(t, p, "expected a non-negative integer %s, found "
                      "'%.*s'", what, found_len(p, end), text + p);
        return -1;
    }
    if (q < end && text[q] == '.') {
        while (q < end && (isdigit((unsigned char)text[q]) || text[q] == '.'))
            q++;
        lex_error(t, p, "expected an integer %s, found '%.*s'", what, q - p,
                  text + p);
        return -1;
    }
    if (big || x > KB_VALUE_MAX) {
        lex_error(t, p, "value '%.*s' %s is too large; expected at most "
                  "%" PRId64, q - p, text + p, what, KB_VALUE_MAX);
        return -1;
    }
    *v = x;
    *i = q;
    return 0;
}

static int digits_at(const char *text, int q, int end)
{
    int n = 0;
    while (q + n < end && isdigit((unsigned char)text[q + n]))
        n++;
    return n;
}

/* Lexes a finite decimal number ([+-]digits[.digits][e[+-]digits]) at *i.
 * Returns 0, or -1 after recording the error. */
static int lex_float(const char *text, int *i, int end, const char *what,
                     double *v, tokens *t)
{
    int p = *i, q = p, mant;
    char buf[64], *stop;
    if (q < end && (text[q] == '+' || text[q] == '-'))
        q++;
    mant = digits_at(text, q, end);
    q += mant;
    if (q < end && text[q] == '.') {
        int frac = digits_at(text, q + 1, end);
        mant += frac;
        q += 1 + frac;
    }
    if (mant > 0 && q < end && (text[q] == 'e' || text[q] == 'E')) {
        int r = q + 1;
        if (r < end && (text[r] == '+' || text[r] == '-'))
            r++;
        if (digits_at(text, r, end) > 0)
            q = r + digits_at(text, r, end);
    }
    if (mant == 0 || q - p >= (int)sizeof buf) {
        lex_error(t, p, "expected a number %s, found '%.*s'", what,
                  found_len(p, end), text + p);
        return -1;
    }
    memcpy(buf, text + p, (size_t)(q - p));
    buf[q - p] = '\0';
    *v = strtod(buf, &stop);
    if (!isfinite(*v)) {
        lex_error(t, p, "value '%s' %s is not a finite number", buf, what);
        return -1;
    }
    *i = q;
    return 0;
}

/* If s[0..*len) ends in `*digits`, stores the count and shortens *len.
 * Returns 1 when found, 0 when not, -1 after recording a bad count. */
static int split_count(const char *s, int *len, int pos, tokens *t)
{
    int q = *len, star;
    int64_t c = 0;
    while (q > 0 && isdigit((unsigned char)s[q - 1]))
        q--;
    if (q == *len || q == 0 || s[q - 1] != '*')
        return 0;
    star = q - 1;
    if (*len - q > 13) { /* more digits than any allowed count */
        lex_error(t, pos + star, "count '%.*s' is too large; expected at "
                  "most %" PRId64, *len - star, s + star, KB_VALUE_MAX);
        return -1;
    }
    for (int j = q; j < *len; j++)
        c = c * 10 + (s[j] - '0');
    if (c < 1 || c > KB_VALUE_MAX) {
        lex_error(t, pos + star, "count '%.*s' is out of range; expected 1 "
                  "to %" PRId64, *len - star, s + star, KB_VALUE_MAX);
        return -1;
    }
    t->count = c;
    *len = star;
    return 1;
}

/* Lexes `nNAME` (i at the `n`), which runs to end.  Returns 0 or -1. */
static int lex_name(const char *text, int i, int end, tokens *t)
{
    int p = i + 1, len = end - p, found;
    const char *s = text + p;
    found = split_count(s, &len, p, t);
    if (found < 0)
        return -1;
    bool quoted = len > 0 && s[0] == '"';
    if (quoted) {
        if (len < 2 || s[len - 1] != '"') {
            lex_error(t, p, "unterminated quoted name '%.*s'; expected a "
                      "closing '\"'", found_len(p, end), s);
            return -1;
        }
        s++, p++;
        len -= 2;
        if (!found && split_count(s, &len, p, t) < 0)
            return -1;
    }
    if (len == 0 && !quoted) { /* n"" is an explicitly empty name */
        lex_error(t, i, "expected a layer name after 'n'");
        return -1;
    }
    if (len >= KB_NAME_MAX) {
        lex_error(t, p, "layer name is %d characters long; expected at "
                  "most %d", len, KB_NAME_MAX - 1);
        return -1;
    }
    memcpy(t->name, s, (size_t)len);
    t->name[len] = '\0';
    return 0;
}

/* Longest key spelled at text[i..end), or -1.  K_N is matched by the
 * caller (it needs a digit after it). */
static int match_key(const char *text, int i, int end)
{
    int best = -1;
    size_t best_len = 0;
    for (int k = 0; k < K_NKEYS; k++) {
        size_t l = strlen(keys[k].name);
        if (k != K_N && l > best_len && (size_t)(end - i) >= l &&
            strncmp(text + i, keys[k].name, l) == 0) {
            best = k;
            best_len = l;
        }
    }
    return best;
}

/* Extent of an unknown token: its letters, then its value characters. */
static int unknown_len(const char *text, int i, int end)
{
    int q = i;
    while (q < end && isalpha((unsigned char)text[q]))
        q++;
    while (q < end && text[q] != '_' && !isalpha((unsigned char)text[q]))
        q++;
    return q > i ? q - i : 1;
}

/* Lexes one key=value token at i; returns the position after it, or -1
 * after recording an error. */
static int lex_key(const char *text, int i, int end, int k, tokens *t)
{
    char what[32];
    int q = i + (int)strlen(keys[k].name);
    if (t->given[k]) {
        lex_error(t, i, "'%s' given twice (first at column %d)",
                  keys[k].name, t->pos[k] + 1);
        return -1;
    }
    snprintf(what, sizeof what, "after '%s'", keys[k].name);
    if (keys[k].type == V_INT && lex_int(text, &q, end, what, &t->ival[k], t))
        return -1;
    if (keys[k].type == V_FLOAT &&
        lex_float(text, &q, end, what, &t->fval[k], t))
        return -1;
    if (keys[k].type == V_FLAG && q < end && !isalpha((unsigned char)text[q])
        && text[q] != '_') {
        lex_error(t, i, "'%s' takes no value, found '%.*s'", keys[k].name,
                  found_len(i, end), text + i);
        return -1;
    }
    t->given[k] = true;
    t->pos[k] = i;
    t->len[k] = q - i;
    return q;
}

/* Lexes key/value tokens.  Unknown tokens are remembered and skipped so
 * the rest still decides the kind (and so the message can list the keys
 * of that kind); the first other error stops lexing. */
static void lex_tokens(const char *text, int i, int end, tokens *t)
{
    while (i < end) {
        int k;
        if (text[i] == '_') {
            i++;
            continue;
        }
        if (text[i] == 'n' && !(i + 1 < end && isdigit((unsigned char)text[i + 1]))) {
            lex_name(text, i, end, t);
            return;
        }
        k = text[i] == 'n' ? K_N : match_key(text, i, end);
        if (k < 0) {
            int l = unknown_len(text, i, end);
            if (t->bad_pos < 0) {
                t->bad_pos = i;
                t->bad_len = l;
            }
            i += l;
            continue;
        }
        i = lex_key(text, i, end, k, t);
        if (i < 0)
            return;
    }
}

/* Lexes benchdnn's matmul form MxK:KxN [_][nNAME]. */
static void lex_matmul(const char *text, int i, int end, tokens *t)
{
    static const char seps[] = "x:x";
    static const char *const what[] = {"for M in MxK:KxN", "for K in MxK:KxN",
                                       "for K in MxK:KxN", "for N in MxK:KxN"};
    t->matmul = true;
    for (int d = 0; d < 4; d++) {
        if (d > 0) {
            if (i >= end || text[i] != seps[d - 1]) {
                lex_error(t, i, "expected '%c' in the MxK:KxN matmul form, "
                          "found '%.*s'", seps[d - 1], found_len(i, end),
                          text + i);
                return;
            }
            i++;
        }
        t->mm_pos[d] = i;
        if (lex_int(text, &i, end, what[d], &t->mm[d], t))
            return;
    }
    while (i < end && text[i] == '_')
        i++;
    if (i < end && text[i] == 'n')
        lex_name(text, i, end, t);
    else if (i < end)
        lex_error(t, i, "unexpected '%.*s' after MxK:KxN; expected nNAME or "
                  "the end", found_len(i, end), text + i);
}

static kb_kind detect_kind(const tokens *t)
{
    if (t->matmul)
        return KB_GEMM;
    if (t->given[K_OC] || t->given[K_KD] || t->given[K_KH] || t->given[K_KW])
        return KB_CONV;
    if (t->given[K_M] || t->given[K_N] || t->given[K_K] || t->given[K_TA] ||
        t->given[K_TB] || t->given[K_ALPHA] || t->given[K_BETA] ||
        (t->given[K_MB] && !t->given[K_IC]))
        return KB_GEMM;
    return KB_BNORM;
}

/* Reports the leftmost of: the first unknown token, a token the kind does
 * not accept, the lexing error.  Returns 0 when there is none, else -1. */
static int first_error(const char *text, const tokens *t, kb_kind kind,
                       char *err, size_t errlen)
{
    unsigned bit = kind == KB_CONV ? IN_CONV : kind == KB_GEMM ? IN_GEMM : IN_BNORM;
    const char *expected = kind == KB_CONV ? expected_conv
                         : kind == KB_GEMM ? expected_gemm : expected_bnorm;
    int pos = t->bad_pos, len = t->bad_len;
    for (int k = 0; k < K_NKEYS; k++) {
        if (t->given[k] && !(keys[k].kinds & bit) && (pos < 0 || t->pos[k] < pos)) {
            pos = t->pos[k];
            len = t->len[k];
        }
    }
    if (t->err_pos >= 0 && (pos < 0 || t->err_pos < pos))
        return fail(err, errlen, t->err_pos, "%s", t->err_msg);
    if (pos >= 0)
        return fail(err, errlen, pos, "unknown token '%.*s' in %s descriptor; "
                    "expected one of %s", len, text + pos, kb_kind_name(kind),
                    expected);
    return 0;
}

/* One dimension's spatial values as given (or copied) in the text. */
typedef struct {
    bool given[NF];
    int64_t v[NF];
    int pos[NF];
} dimspec;

/* Loads D, H, W from the tokens and applies the copy rules (see the file
 * comment).  Returns the number of spatial dims: 3 when any D value is
 * given, else 2. */
static int load_dims(const tokens *t, dimspec dim[3])
{
    bool any[3] = {false, false, false};
    for (int d = 0; d < 3; d++) {
        for (int f = 0; f < NF; f++) {
            int k = field_keys[d][f];
            dim[d].given[f] = t->given[k];
            dim[d].v[f] = t->ival[k];
            dim[d].pos[f] = t->pos[k];
            any[d] |= t->given[k];
        }
    }
    if (any[0] && !any[1] && !any[2]) {
        dim[1] = dim[0];
        dim[2] = dim[0];
        return 3;
    }
    for (int f = 0; f < NF; f++) {
        bool copy = !dim[2].given[f] && (f != F_O || !dim[2].given[F_I]);
        if (copy) {
            dim[2].given[f] = dim[1].given[f];
            dim[2].v[f] = dim[1].v[f];
            dim[2].pos[f] = dim[1].pos[f];
        }
    }
    return any[0] ? 3 : 2;
}

/* Value of an optional integer key, or def; fails when below min. */
static int get_int(const tokens *t, int k, int64_t def, int64_t min,
                   int64_t *v, char *err, size_t errlen)
{
    *v = t->given[k] ? t->ival[k] : def;
    if (*v < min)
        return fail(err, errlen, t->pos[k], "'%s' is %" PRId64 "; expected "
                    "at least %" PRId64, keys[k].name, *v, min);
    return 0;
}

/* A required integer key, at least 1. */
static int need_int(const tokens *t, int k, const char *kind_needs,
                    int64_t *v, char *err, size_t errlen)
{
    if (!t->given[k])
        return fail(err, errlen, 0, "missing '%s'; %s", keys[k].name,
                    kind_needs);
    return get_int(t, k, 0, 1, v, err, errlen);
}

/* Validates one conv dimension d, infers its output and stores it in c.
 * Returns 0, or -1 with a message naming the values involved. */
static int build_conv_dim(const dimspec *ds, int d, kb_conv_desc *c,
                          char *err, size_t errlen)
{
    static const int64_t def[NF] = {0, 0, 0, 1, 0, 0};
    static const int64_t min[NF] = {1, 0, 1, 1, 0, 0}; /* outputs: below */
    const int *kk = field_keys[d];
    int64_t v[NF], dk, span, out;
    for (int f = 0; f < NF; f++) {
        if ((f == F_I || f == F_K) && !ds->given[f])
            return fail(err, errlen, 0, "missing '%s'; a conv descriptor "
                        "needs ic, oc, ih and kh (id and kd in 3D)",
                        keys[kk[f]].name);
        v[f] = ds->given[f] ? ds->v[f] : def[f];
        if (v[f] < min[f])
            return fail(err, errlen, ds->pos[f], "'%s' is %" PRId64
                        "; expected at least %" PRId64, keys[kk[f]].name,
                        v[f], min[f]);
    }
    /* dilated kernel extent (d+1)(k-1)+1; both factors are <= 2^40, so an
     * overflow means the kernel cannot fit any input */
    bool ovf = __builtin_mul_overflow(v[F_D] + 1, v[F_K] - 1, &dk);
    dk += 1;
    span = v[F_I] + 2 * v[F_P];
    if (ovf || dk > span)
        return fail(err, errlen, ds->pos[F_K], "output '%s' would be <= 0: "
                    "%s %" PRId64 " + 2*%s %" PRId64 " is smaller than the "
                    "dilated kernel (%s %" PRId64 " - 1)*(%s %" PRId64
                    " + 1) + 1", keys[kk[F_O]].name, keys[kk[F_I]].name,
                    v[F_I], keys[kk[F_P]].name, v[F_P], keys[kk[F_K]].name,
                    v[F_K], keys[kk[F_D]].name, v[F_D]);
    out = (span - dk) / v[F_S] + 1;
    /* only padding takes it past the largest value: the canonical text
     * must parse back */
    if (out > KB_VALUE_MAX)
        return fail(err, errlen, ds->pos[F_P], "output '%s' would be %"
                    PRId64 " (%s %" PRId64 " + 2*%s %" PRId64 "); expected "
                    "at most %" PRId64, keys[kk[F_O]].name, out,
                    keys[kk[F_I]].name, v[F_I], keys[kk[F_P]].name, v[F_P],
                    KB_VALUE_MAX);
    if (ds->given[F_O] && ds->v[F_O] != out)
        return fail(err, errlen, ds->pos[F_O], "'%s' is %" PRId64 " but the "
                    "shape gives %s %" PRId64 " = (%s %" PRId64 " + 2*%s %"
                    PRId64 " - (%s %" PRId64 " + 1)*(%s %" PRId64 " - 1) - 1)"
                    "/%s %" PRId64 " + 1", keys[kk[F_O]].name, ds->v[F_O],
                    keys[kk[F_O]].name, out, keys[kk[F_I]].name, v[F_I],
                    keys[kk[F_P]].name, v[F_P], keys[kk[F_D]].name, v[F_D],
                    keys[kk[F_K]].name, v[F_K], keys[kk[F_S]].name, v[F_S]);
    v[F_O] = out;
    for (int f = 0; f < NF; f++)
        *conv_field(c, d, f) = v[f];
    return 0;
}

static int build_conv(const tokens *t, kb_conv_desc *c, char *err,
                      size_t errlen)
{
    static const char needs[] = "a conv descriptor needs ic, oc, ih and kh";
    dimspec dim[3];
    c->ndims = load_dims(t, dim);
    if (get_int(t, K_MB, DEFAULT_MB, 1, &c->mb, err, errlen) ||
        get_int(t, K_G, 1, 1, &c->g, err, errlen) ||
        need_int(t, K_IC, needs, &c->ic, err, errlen) ||
        need_int(t, K_OC, needs, &c->oc, err, errlen))
        return -1;
    if (c->ic % c->g || c->oc % c->g)
        return fail(err, errlen, t->pos[K_G], "groups g %" PRId64 " do not "
                    "divide ic %" PRId64 " and oc %" PRId64, c->g, c->ic,
                    c->oc);
    for (int f = 0; f < NF; f++) /* 2D: the D dimension is a unit one */
        *conv_field(c, 0, f) = f == F_P || f == F_D ? 0 : 1;
    for (int d = 3 - c->ndims; d < 3; d++)
        if (build_conv_dim(&dim[d], d, c, err, errlen))
            return -1;
    return 0;
}

static int build_bnorm(const tokens *t, kb_bnorm_desc *b, char *err,
                       size_t errlen)
{
    static const char needs[] = "a bnorm descriptor needs ic and ih";
    dimspec dim[3];
    int64_t *in[3] = {&b->id, &b->ih, &b->iw};
    b->ndims = load_dims(t, dim);
    if (get_int(t, K_MB, DEFAULT_MB, 1, &b->mb, err, errlen) ||
        need_int(t, K_IC, needs, &b->ic, err, errlen))
        return -1;
    b->id = 1;
    for (int d = 3 - b->ndims; d < 3; d++) {
        if (!dim[d].given[F_I])
            return fail(err, errlen, 0, "missing '%s'; %s",
                        keys[field_keys[d][F_I]].name, needs);
        *in[d] = dim[d].v[F_I];
        if (*in[d] < 1)
            return fail(err, errlen, dim[d].pos[F_I], "'%s' is 0; expected "
                        "at least 1", keys[field_keys[d][F_I]].name);
    }
    b->eps = t->given[K_EPS] ? t->fval[K_EPS] : DEFAULT_EPS;
    if (!(b->eps > 0))
        return fail(err, errlen, t->pos[K_EPS], "'eps' is %g; expected a "
                    "positive number", b->eps);
    return 0;
}

static int build_gemm(const tokens *t, kb_gemm_desc *g, char *err,
                      size_t errlen)
{
    static const char needs[] = "a GEMM descriptor needs n, and k unless m is "
                                "given (then K is the batch)";
    g->alpha = t->given[K_ALPHA] ? t->fval[K_ALPHA] : 1.0;
    g->beta = t->given[K_BETA] ? t->fval[K_BETA] : 0.0;
    g->ta = t->given[K_TA];
    g->tb = t->given[K_TB];
    if (t->matmul) {
        if (t->mm[1] != t->mm[2])
            return fail(err, errlen, t->mm_pos[2], "K mismatch in MxK:KxN: "
                        "A has K = %" PRId64 " but B has K = %" PRId64,
                        t->mm[1], t->mm[2]);
        g->m = t->mm[0], g->k = t->mm[1], g->n = t->mm[3];
        for (int d = 0; d < 4; d++)
            if (t->mm[d] < 1)
                return fail(err, errlen, t->mm_pos[d], "matmul dimension is "
                            "0; expected at least 1");
        return 0;
    }
    if (t->given[K_M] && t->given[K_K] && t->given[K_MB])
        return fail(err, errlen, t->pos[K_MB], "'mb' with both 'm' and 'k' "
                    "given; expected m or k left out (mb: the batch is the "
                    "one left out)");
    g->m_is_mb = !t->given[K_M];
    g->k_is_mb = t->given[K_M] && !t->given[K_K];
    if (g->k_is_mb)
        return get_int(t, K_M, DEFAULT_MB, 1, &g->m, err, errlen) ||
               need_int(t, K_N, needs, &g->n, err, errlen) ||
               get_int(t, K_MB, DEFAULT_MB, 1, &g->k, err, errlen) ? -1 : 0;
    return get_int(t, g->m_is_mb ? K_MB : K_M, DEFAULT_MB, 1, &g->m, err,
                   errlen) ||
           need_int(t, K_N, needs, &g->n, err, errlen) ||
           need_int(t, K_K, needs, &g->k, err, errlen) ? -1 : 0;
}

/* Product of n sizes if it stays <= KB_ELEMS_MAX, else -1. */
static int64_t elems(const int64_t *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) {
        if (v[i] > KB_ELEMS_MAX / p)
            return -1;
        p *= v[i];
    }
    return p;
}

/* Fails when a tensor of p would have more than KB_ELEMS_MAX elements
 * (the batch override can make any shape huge). */
static int check_size(const kb_problem *p, char *err, size_t errlen)
{
    int64_t t[3][5];
    const char *names[3];
    int n = 5, count = 3;
    if (p->kind == KB_CONV) {
        const kb_conv_desc *c = &p->conv;
        int64_t s[3][5] = {{c->mb, c->ic, c->id, c->ih, c->iw},
                           {c->oc, c->ic / c->g, c->kd, c->kh, c->kw},
                           {c->mb, c->oc, c->od, c->oh, c->ow}};
        memcpy(t, s, sizeof t);
        names[0] = "src", names[1] = "wei", names[2] = "dst";
    } else if (p->kind == KB_GEMM) {
        const kb_gemm_desc *g = &p->gemm;
        int64_t s[3][5] = {{g->m, g->k, 1, 1, 1}, {g->k, g->n, 1, 1, 1},
                           {g->m, g->n, 1, 1, 1}};
        memcpy(t, s, sizeof t);
        names[0] = "A", names[1] = "B", names[2] = "C";
    } else {
        const kb_bnorm_desc *b = &p->bnorm;
        int64_t s[5] = {b->mb, b->ic, b->id, b->ih, b->iw};
        memcpy(t[0], s, sizeof s);
        names[0] = "src";
        count = 1;
    }
    for (int i = 0; i < count; i++)
        if (elems(t[i], n) < 0)
            return fail(err, errlen, 0, "shape too large: the %s tensor has "
                        "more than 2^60 elements", names[i]);
    return 0;
}

/* Applies dt, fpmath, layout, direction and the batch override.  Returns
 * 0, or -1 when the direction or the data types do not apply to the kind
 * or the result is too large. */
static int apply_settings(kb_problem *p, const kb_settings *s, char *err,
                          size_t errlen)
{
    char why[160];
    if (!kb_dts_valid_for(p->kind, &s->dt, why, sizeof why))
        return fail(err, errlen, 0, "%s", why);
    p->dt = s->dt;
    p->fpmath = s->fpmath;
    p->layout = s->layout;
    if (!s->dir_given)
        p->dir = p->kind == KB_CONV ? KB_FWD_B : KB_FWD_D;
    else if (!kb_dir_applies(p->kind, s->dir))
        return fail(err, errlen, 0, "direction %s does not apply to %s; "
                    "expected %s", kb_dir_name(s->dir),
                    kb_problem_kernel_name(p), kb_dir_list(p->kind));
    else
        p->dir = s->dir;
    if (s->mb > 0)
        kb_problem_set_mb(p, s->mb);
    return check_size(p, err, errlen);
}

/* See problem.h.  Returns 0, or -1 with "column C: ..." in err. */
int kb_problem_parse(const char *text, const kb_settings *s, kb_problem *out,
                     char *err, size_t errlen)
{
    tokens t;
    size_t n = strlen(text);
    int start = 0, end, rc;
    if (n > 4096)
        return fail(err, errlen, 0, "descriptor is %zu characters long; "
                    "expected at most 4096", n);
    end = (int)n;
    while (start < end && isspace((unsigned char)text[start]))
        start++;
    while (end > start && isspace((unsigned char)text[end - 1]))
        end--;
    if (start == end)
        return fail(err, errlen, start, "empty descriptor; expected e.g. "
                    "ic3ih32oc8kh3, m64n32k16 or mb2ic8ih16");

    memset(&t, 0, sizeof t);
    t.count = 1;
    t.bad_pos = t.err_pos = -1;
    int i = start;
    while (i < end && text[i] == '_')
        i++;
    if (i < end && isdigit((unsigned char)text[i]))
        lex_matmul(text, i, end, &t);
    else
        lex_tokens(text, i, end, &t);

    memset(out, 0, sizeof *out);
    out->kind = detect_kind(&t);
    if (first_error(text, &t, out->kind, err, errlen))
        return -1;
    switch (out->kind) {
    case KB_CONV: rc = build_conv(&t, &out->conv, err, errlen); break;
    case KB_GEMM: rc = build_gemm(&t, &out->gemm, err, errlen); break;
    default: rc = build_bnorm(&t, &out->bnorm, err, errlen); break;
    }
    if (rc)
        return -1;
    memcpy(out->name, t.name, sizeof out->name);
    out->count = t.count;
    return apply_settings(out, s, err, errlen);
}

/* See problem.h.  Can't fail. */
int64_t kb_problem_mb(const kb_problem *p)
{
    switch (p->kind) {
    case KB_CONV: return p->conv.mb;
    case KB_BNORM: return p->bnorm.mb;
    case KB_GEMM: return p->gemm.m_is_mb ? p->gemm.m
                       : p->gemm.k_is_mb ? p->gemm.k : -1;
    }
    return -1;
}

void kb_problem_set_mb(kb_problem *p, int64_t mb)
{
    if (p->kind == KB_CONV)
        p->conv.mb = mb;
    else if (p->kind == KB_BNORM)
        p->bnorm.mb = mb;
    else if (p->gemm.m_is_mb)
        p->gemm.m = mb;
    else if (p->gemm.k_is_mb)
        p->gemm.k = mb;
}

/* ---- printing ---- */

/* An snprintf that appends, counting what would have been written. */
typedef struct {
    char *buf;
    size_t len, used;
} outbuf;

static void put(outbuf *o, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
                  o->used < o->len ? o->len - o->used : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->used += (size_t)n;
}

/* Shortest %g text that reads back as exactly v. */
static void put_double(outbuf *o, const char *key, double v)
{
    char b[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, v);
        if (strtod(b, NULL) == v)
            break;
    }
    put(o, "_%s%s", key, b);
}

/* A name needs benchdnn's quotes when, unquoted, it would read back
 * differently: a leading digit (GEMM's N), a leading quote, trailing space
 * or a trailing `*digits` (a count). */
static bool name_needs_quotes(const char *s)
{
    size_t l = strlen(s), q = l;
    while (q > 0 && isdigit((unsigned char)s[q - 1]))
        q--;
    return isdigit((unsigned char)s[0]) || s[0] == '"' ||
           isspace((unsigned char)s[l - 1]) || (q < l && q > 0 && s[q - 1] == '*');
}

static void put_name(outbuf *o, const kb_problem *p)
{
    if (p->name[0] == '\0') {
        if (p->count > 1) /* a count needs a name to hang on */
            put(o, "_n\"\"*%" PRId64, p->count);
        return;
    }
    if (name_needs_quotes(p->name))
        put(o, "_n\"%s\"*%" PRId64, p->name, p->count);
    else if (p->count > 1)
        put(o, "_n%s*%" PRId64, p->name, p->count);
    else
        put(o, "_n%s", p->name);
}

static void put_conv(outbuf *o, const kb_conv_desc *c)
{
    put(o, "mb%" PRId64, c->mb);
    if (c->g > 1)
        put(o, "g%" PRId64, c->g);
    put(o, "ic%" PRId64 "oc%" PRId64, c->ic, c->oc);
    for (int d = 3 - c->ndims; d < 3; d++) {
        put(o, "_");
        /* a dilation of 0 is left out, except on W when H's is not 0:
         * parsing would copy H's to W */
        for (int f = 0; f < NF; f++)
            if (f != F_D || conv_get(c, d, f) != 0 ||
                (d == 2 && conv_get(c, 1, f) != 0))
                put(o, "%s%" PRId64, keys[field_keys[d][f]].name,
                    conv_get(c, d, f));
    }
}

static void put_bnorm(outbuf *o, const kb_bnorm_desc *b)
{
    put(o, "mb%" PRId64 "ic%" PRId64 "_", b->mb, b->ic);
    if (b->ndims == 3)
        put(o, "id%" PRId64, b->id);
    put(o, "ih%" PRId64 "iw%" PRId64, b->ih, b->iw);
    if (b->eps != DEFAULT_EPS)
        put_double(o, "eps", b->eps);
}

static void put_gemm(outbuf *o, const kb_gemm_desc *g)
{
    if (g->k_is_mb)
        put(o, "m%" PRId64 "n%" PRId64 "mb%" PRId64, g->m, g->n, g->k);
    else
        put(o, "%s%" PRId64 "n%" PRId64 "k%" PRId64, g->m_is_mb ? "mb" : "m",
            g->m, g->n, g->k);
    if (g->ta)
        put(o, "_ta");
    if (g->tb)
        put(o, "_tb");
    if (g->alpha != 1.0)
        put_double(o, "alpha", g->alpha);
    if (g->beta != 0.0)
        put_double(o, "beta", g->beta);
}

/* See problem.h.  Can't fail; output is truncated to len like snprintf. */
int kb_problem_format(const kb_problem *p, char *buf, size_t len)
{
    outbuf o = {buf, len, 0};
    if (len > 0)
        buf[0] = '\0';
    switch (p->kind) {
    case KB_CONV: put_conv(&o, &p->conv); break;
    case KB_GEMM: put_gemm(&o, &p->gemm); break;
    case KB_BNORM: put_bnorm(&o, &p->bnorm); break;
    }
    put_name(&o, p);
    return (int)o.used;
}
