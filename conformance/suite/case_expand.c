/* From one `cases:` entry to expanded cases: defaults, then the case's own keys, then one value
 * of each matrix key (cross product, minus `exclude:`), then one case per product. Ids are
 * suite.case[.key=value per matrix key, in the order written].product: they depend only on the
 * entry itself, so adding other cases never renames one. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)
#define MAX_COMBINATIONS 100000

/* Id text of a matrix value: scalars as written, lists joined by 'x' ([2, 3] → 2x3, [] →
 * empty), maps as key:value joined by '+'. No spaces or glob characters. */
static void render(const cts_ynode *v, char *buf, size_t n)
{
    size_t l = strlen(buf);
    if (l + 1 >= n)
        return;
    if (v->kind == CTS_YN_SCALAR) {
        const char *t = cts_yaml_is_null(v) ? "null" : v->text;
        for (; *t && l + 1 < n; t++)
            buf[l++] = (isspace((unsigned char)*t) || strchr("*?[]/", *t)) ? '_' : *t;
        buf[l] = 0;
        return;
    }
    if (v->n == 0) {
        cts_fmt(buf + l, n - l, "empty");
        return;
    }
    bool map = v->kind == CTS_YN_MAP;
    for (size_t i = 0; i < v->n; i += map ? 2 : 1) {
        if (i) {
            l = strlen(buf);
            cts_fmt(buf + l, n - l, "%s", map ? "+" : "x");
        }
        if (map) {
            render(v->items[i], buf, n);
            l = strlen(buf);
            cts_fmt(buf + l, n - l, ":");
            render(v->items[i + 1], buf, n);
        } else {
            render(v->items[i], buf, n);
        }
    }
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return false;
    return true;
}

static void push(cts_case_list *out, size_t *cap, const cts_case *c)
{
    if (out->ncases == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        cts_case *p = realloc(out->cases, *cap * sizeof *p);
        if (!p)
            abort();
        out->cases = p;
    }
    cts_case_copy(&out->cases[out->ncases++], c);
}

static bool is_structural(const char *key)
{
    return !strcmp(key, "name") || !strcmp(key, "matrix") || !strcmp(key, "exclude");
}

static void unknown_key(const cts_keyctx *k, const cts_ynode *key, const char *field)
{
    const char *other = cts_key_other_op(k->op, key->text);
    if (other)
        ERR(key, field, "not a key of %s cases (it belongs to %s)", k->op->name, other);
    else
        ERR(key, field, "unknown key");
}

/* Applies every value key of map m (defaults or a case) to b. */
static bool apply_map(const cts_keyctx *k, const cts_ynode *m, const char *prefix, cts_builder *b)
{
    bool ok = true;
    for (size_t i = 0; i < m->n; i += 2) {
        const char *key = m->items[i]->text;
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s", prefix, key);
        if (is_structural(key))
            continue;
        if (!cts_key_known(k->op, key)) {
            unknown_key(k, m->items[i], f);
            ok = false;
            continue;
        }
        ok &= cts_key_apply(k, key, f, m->items[i + 1], b);
    }
    return ok;
}

void cts_check_defaults(const cts_keyctx *k, const cts_suite_ctx *s)
{
    if (!s->defaults)
        return;
    for (size_t i = 0; i < s->defaults->n; i += 2)
        if (is_structural(s->defaults->items[i]->text)) {
            char f[64];
            cts_fmt(f, sizeof f, "defaults.%s", s->defaults->items[i]->text);
            ERR(s->defaults->items[i], f, "only case value keys can have defaults");
        }
    cts_builder b;
    cts_builder_init(&b, k->op);
    apply_map(k, s->defaults, "defaults", &b);
    cts_case_clear(&b.c);
    free((void *)b.tolerance_field);
    free((void *)b.product_field);
}

/* The product list a case runs on: its own `product:` or the suite's. */
static int case_products(const cts_builder *b, const cts_suite_ctx *s, ref_product *out)
{
    const cts_ynode *v = b->product;
    if (!v) {
        memcpy(out, s->products, sizeof s->products);
        return s->nproducts;
    }
    if (v->kind == CTS_YN_SCALAR && !strcmp(v->text, "all")) {
        for (int p = 0; p < REF_PRODUCT_COUNT; p++)
            out[p] = (ref_product)p;
        return REF_PRODUCT_COUNT;
    }
    if (v->kind == CTS_YN_SCALAR)
        return ref_product_from_id(v->text, &out[0]) == 0 ? 1 : 0;
    int n = 0;
    for (size_t i = 0; i < v->n && n < REF_PRODUCT_COUNT; i++) {
        ref_product p;
        bool dup = false;
        if (ref_product_from_id(v->items[i]->text, &p) != 0)
            continue;
        for (int j = 0; j < n; j++)
            dup |= out[j] == p;
        if (!dup)
            out[n++] = p;
    }
    return n;
}

/* The cases an entry's combinations made so far, by cts_case_param_hash (open addressing), to
 * find values written differently that mean one value (1, 01 and +1; float and float32): such
 * combinations would run one case under several ids. */
typedef struct {
    uint64_t *hash;          /* 0: empty slot (a real hash of 0 is stored as 1) */
    size_t *combo, cap;
    bool *reported;          /* per matrix value (flattened): its error is printed once */
} combo_seen;

static void seen_init(combo_seen *s, size_t total, size_t nvalues)
{
    s->cap = 16;
    while (s->cap < 2 * total)
        s->cap *= 2;
    s->hash = calloc(s->cap, sizeof *s->hash);
    s->combo = calloc(s->cap, sizeof *s->combo);
    s->reported = calloc(nvalues + 1, sizeof *s->reported);
    if (!s->hash || !s->combo || !s->reported)
        abort();
}

static void seen_free(combo_seen *s)
{
    free(s->hash);
    free(s->combo);
    free(s->reported);
}

/* True (with an error at the first matrix value that differs) when combo makes the same case
 * as an earlier combination; else remembers it. */
static bool same_as_earlier(const cts_keyctx *k, const char *field, const cts_ynode *const *mkeys,
                            const cts_ynode *const *mvals, size_t nkeys, size_t combo,
                            const cts_case *c, combo_seen *s)
{
    uint64_t h = cts_case_param_hash(c);
    h += h == 0;
    size_t i = (size_t)h & (s->cap - 1);
    while (s->hash[i] && s->hash[i] != h)
        i = (i + 1) & (s->cap - 1);
    if (!s->hash[i]) {
        s->hash[i] = h;
        s->combo[i] = combo;
        return false;
    }
    size_t a = combo, b = s->combo[i], flat = 0;
    for (size_t j = 0; j < nkeys; j++)
        flat += mvals[j]->n;
    for (size_t j = nkeys; j-- > 0;) {
        size_t pa = a % mvals[j]->n, pb = b % mvals[j]->n;
        a /= mvals[j]->n;
        b /= mvals[j]->n;
        flat -= mvals[j]->n;
        if (pa == pb || s->reported[flat + pa])
            continue;
        s->reported[flat + pa] = true;
        char f[300], va[64] = "", vb[64] = "";
        cts_fmt(f, sizeof f, "%s.matrix.%s[%zu]", field, mkeys[j]->text, pa);
        render(mvals[j]->items[pa], va, sizeof va);
        render(mvals[j]->items[pb], vb, sizeof vb);
        ERR(mvals[j]->items[pa], f, "'%s' means the same as [%zu] '%s': both give one case, "
            "which would run under two ids", va, pb, vb);
        break;
    }
    return true;
}

/* The `name:` of an entry, or NULL (with the error). */
static const char *entry_name(const cts_keyctx *k, const cts_ynode *cn, const char *field)
{
    char f[256];
    const cts_ynode *nv = cts_yaml_get(cn, "name");
    const char *name = NULL;
    cts_fmt(f, sizeof f, "%s.name", field);
    if (!nv) {
        ERR(cn, f, "required");
    } else if (cts_read_string(k, f, nv, &name) && !valid_name(name)) {
        ERR(nv, f, "'%s' is not a valid case name (letters, digits, '_' and '-')", name);
        name = NULL;
    }
    return name;
}

/* Every key of the entry itself is structural or a value key of the op. */
static bool entry_keys_known(const cts_keyctx *k, const cts_ynode *cn, const char *field)
{
    bool ok = true;
    for (size_t i = 0; i < cn->n; i += 2) {
        const char *key = cn->items[i]->text;
        char f[256];
        cts_fmt(f, sizeof f, "%s.%s", field, key);
        if (!is_structural(key) && !cts_key_known(k->op, key)) {
            unknown_key(k, cn->items[i], f);
            ok = false;
        }
    }
    return ok;
}

/* `matrix:` of an entry: its keys and value lists, and the number of combinations. */
typedef struct {
    const cts_ynode *keys[32], *vals[32];
    size_t nkeys, total;
} matrix;

/* One matrix key and its value list: a case key given only here, a non-empty list without
 * duplicates. */
static bool matrix_entry_ok(const cts_keyctx *k, const cts_ynode *cn, const char *f,
                            const cts_ynode *key, const cts_ynode *vals)
{
    if (!strcmp(key->text, "product")) {
        ERR(key, f, "products are expanded for every case; use product: to choose them");
        return false;
    }
    if (is_structural(key->text) || !cts_key_known(k->op, key->text)) {
        const char *other = cts_key_other_op(k->op, key->text);
        if (other)
            ERR(key, f, "not a case key of this op (it belongs to %s)", other);
        else
            ERR(key, f, "'%s' is not a case key", key->text);
        return false;
    }
    bool ok = true;
    if (cts_yaml_get(cn, key->text)) {
        ERR(key, f, "also given as a plain key of the case");
        ok = false;
    }
    if (!cts_expect_kind(k, f, vals, CTS_YN_SEQ))
        return false;
    if (vals->n == 0) {
        ERR(vals, f, "empty list of values");
        return false;
    }
    for (size_t a = 0; a < vals->n; a++)
        for (size_t b = 0; b < a; b++)
            if (cts_yaml_equal(vals->items[a], vals->items[b])) {
                char ff[300];
                cts_fmt(ff, sizeof ff, "%s[%zu]", f, a);
                ERR(vals->items[a], ff, "duplicate value (same as [%zu])", b);
                ok = false;
            }
    return ok;
}

/* Reads `matrix:` into m (no matrix: one combination); *mx is the node or NULL. */
static bool read_matrix(const cts_keyctx *k, const cts_ynode *cn, const char *field, matrix *m,
                        const cts_ynode **mx_out)
{
    char f[256];
    bool ok = true;
    const cts_ynode *mx = cts_yaml_get(cn, "matrix");
    m->nkeys = 0;
    m->total = 1;
    if (mx) {
        cts_fmt(f, sizeof f, "%s.matrix", field);
        if (!cts_expect_kind(k, f, mx, CTS_YN_MAP)) {
            ok = false;
            mx = NULL;
        } else if (mx->n / 2 > 32) {
            ERR(mx, f, "at most 32 matrix keys");
            ok = false;
            mx = NULL;
        }
    }
    *mx_out = mx;
    for (size_t i = 0; mx && i < mx->n; i += 2) {
        const cts_ynode *key = mx->items[i], *vals = mx->items[i + 1];
        cts_fmt(f, sizeof f, "%s.matrix.%s", field, key->text);
        bool entry_ok = matrix_entry_ok(k, cn, f, key, vals);
        ok &= entry_ok;
        /* a key that is no case key or has no list of values takes no part */
        if (!entry_ok && (vals->kind != CTS_YN_SEQ || vals->n == 0 || !cts_key_known(k->op,
            key->text) || is_structural(key->text) || !strcmp(key->text, "product")))
            continue;
        m->keys[m->nkeys] = key;
        m->vals[m->nkeys] = vals;
        m->nkeys++;
        m->total *= vals->n;
        if (m->total > MAX_COMBINATIONS) {
            ERR(mx, f, "more than %d combinations", MAX_COMBINATIONS);
            ok = false;
            break;
        }
    }
    return ok;
}

/* Reads `exclude:` (a list of maps of matrix keys); *ex is the node or NULL. */
static bool read_exclude(const cts_keyctx *k, const cts_ynode *cn, const char *field,
                         const cts_ynode *mx, const matrix *m, const cts_ynode **ex_out)
{
    char f[256];
    bool ok = true;
    const cts_ynode *ex = cts_yaml_get(cn, "exclude");
    if (ex) {
        cts_fmt(f, sizeof f, "%s.exclude", field);
        if (!cts_expect_kind(k, f, ex, CTS_YN_SEQ)) {
            ok = false;
            ex = NULL;
        } else if (!mx) {
            ERR(ex, f, "exclude without a matrix");
            ok = false;
            ex = NULL;
        }
    }
    *ex_out = ex;
    for (size_t e = 0; ex && e < ex->n; e++) {
        const cts_ynode *ent = ex->items[e];
        cts_fmt(f, sizeof f, "%s.exclude[%zu]", field, e);
        if (!cts_expect_kind(k, f, ent, CTS_YN_MAP)) {
            ok = false;
            continue;
        }
        if (ent->n == 0) {
            ERR(ent, f, "empty exclude entry");
            ok = false;
        }
        for (size_t i = 0; i < ent->n; i += 2) {
            bool found = false;
            for (size_t j = 0; j < m->nkeys; j++)
                found |= !strcmp(m->keys[j]->text, ent->items[i]->text);
            if (!found) {
                char ff[300];
                cts_fmt(ff, sizeof ff, "%s.%s", f, ent->items[i]->text);
                ERR(ent->items[i], ff, "not a matrix key of this case");
                ok = false;
            }
        }
    }
    return ok;
}

/* The value index of each matrix key in combination `combo` (first key outermost). */
static void combination(const matrix *m, size_t combo, size_t *pick)
{
    for (size_t j = m->nkeys; j-- > 0;) {
        pick[j] = combo % m->vals[j]->n;
        combo /= m->vals[j]->n;
    }
}

/* True when an `exclude:` entry matches the combination; marks every entry that does. */
static bool excluded(const cts_ynode *ex, const matrix *m, const size_t *pick, bool *ex_used)
{
    bool any = false;
    for (size_t e = 0; ex && e < ex->n; e++) {
        const cts_ynode *ent = ex->items[e];
        bool match = true;
        for (size_t i = 0; i < ent->n && match; i += 2)
            for (size_t j = 0; j < m->nkeys; j++)
                if (!strcmp(m->keys[j]->text, ent->items[i]->text))
                    match &= cts_yaml_equal(m->vals[j]->items[pick[j]], ent->items[i + 1]);
        if (match) {
            ex_used[e] = true;
            any = true;
        }
    }
    return any;
}

/* One combination's case in b: defaults, the entry's keys, its matrix values (and its id
 * without the product in id). False when a key did not read. */
static bool build_combination(const cts_keyctx *k, const cts_suite_ctx *s, const cts_ynode *cn,
                              const char *field, const char *name, const matrix *m,
                              const size_t *pick, cts_builder *b, char *id, size_t idlen)
{
    cts_builder_init(b, k->op);
    b->c.spec = s->spec; /* a case's own spec: overrides it */
    b->c.spec_fixed = s->spec_fixed;
    bool ok = !s->defaults || apply_map(k, s->defaults, "defaults", b);
    ok &= apply_map(k, cn, field, b);
    cts_fmt(id, idlen, "%s.%s", s->suite, name);
    for (size_t j = 0; j < m->nkeys; j++) {
        const cts_ynode *v = m->vals[j]->items[pick[j]];
        char f[256];
        cts_fmt(f, sizeof f, "%s.matrix.%s[%zu]", field, m->keys[j]->text, pick[j]);
        ok &= cts_key_apply(k, m->keys[j]->text, f, v, b);
        size_t l = strlen(id);
        cts_fmt(id + l, idlen - l, ".%s=", m->keys[j]->text);
        render(v, id, idlen);
    }
    return ok;
}

/* Appends one case per product of b's list, with ids id.product. */
static void push_products(const cts_keyctx *k, const cts_suite_ctx *s, const cts_ynode *cn,
                          const char *field, const char *id, cts_builder *b, cts_case_list *out,
                          size_t *cap)
{
    ref_product prods[REF_PRODUCT_COUNT];
    int np = case_products(b, s, prods);
    for (int p = 0; p < np; p++) {
        const char *pid = ref_product_id(prods[p]);
        if (strlen(id) + 1 + strlen(pid) >= CTS_ID_MAX) {
            char f[256];
            cts_fmt(f, sizeof f, "%s.name", field);
            ERR(cts_yaml_get(cn, "name"), f, "case id longer than %d characters: %s.%s",
                CTS_ID_MAX - 1, id, pid);
            break;
        }
        cts_fmt(b->c.id, sizeof b->c.id, "%s.%s", id, pid);
        b->c.product = prods[p];
        if (b->quick_list)
            b->c.quick = (b->quick_products >> prods[p]) & 1u;
        push(out, cap, &b->c);
    }
}

static void builder_clear(cts_builder *b)
{
    cts_case_clear(&b->c);
    free((void *)b->tolerance_field);
    free((void *)b->product_field);
}

/* The most products one combination of entry cn expands to: its own or the defaults' product:
 * key may name any product, else the suite's list. */
static int entry_products_bound(const cts_suite_ctx *s, const cts_ynode *cn)
{
    return cts_yaml_get(cn, "product") || cts_yaml_get(s->defaults, "product")
               ? REF_PRODUCT_COUNT : s->nproducts;
}

/* Counts the entry's cases (an upper bound) into out->planned before any is built: false, with
 * an error at the entry that passes CTS_MAX_CASES, once that total is reached. */
static bool within_case_limit(const cts_keyctx *k, const cts_suite_ctx *s, const cts_ynode *cn,
                              const char *field, const matrix *m, cts_case_list *out)
{
    size_t bound = m->total * (size_t)entry_products_bound(s, cn);
    size_t before = out->planned;
    out->planned += bound;
    if (out->full)
        return false;
    if (out->planned <= CTS_MAX_CASES)
        return true;
    ERR(cn, field, "the suites expand to more than %d cases (CTS_MAX_CASES): %zu before this "
        "entry, which adds up to %zu (%zu combinations x %d products); narrow its matrix or "
        "load fewer suites at once", CTS_MAX_CASES, before, bound, m->total,
        entry_products_bound(s, cn));
    out->full = true;
    return false;
}

void cts_expand_case(const cts_keyctx *k, const cts_suite_ctx *s, const cts_ynode *cn,
                     size_t index, cts_case_list *out, size_t *cap)
{
    char field[64];
    cts_fmt(field, sizeof field, "cases[%zu]", index);
    if (!cts_expect_kind(k, field, cn, CTS_YN_MAP))
        return;
    const char *name = entry_name(k, cn, field);
    bool ok = name != NULL;
    ok &= entry_keys_known(k, cn, field);
    matrix m;
    const cts_ynode *mx, *ex;
    ok &= read_matrix(k, cn, field, &m, &mx);
    ok &= read_exclude(k, cn, field, mx, &m, &ex);
    if (!ok || !within_case_limit(k, s, cn, field, &m, out))
        return;

    bool *ex_used = calloc(ex ? ex->n + 1 : 1, sizeof *ex_used);
    size_t nvalues = 0;
    for (size_t j = 0; j < m.nkeys; j++)
        nvalues += m.vals[j]->n;
    combo_seen seen;
    seen_init(&seen, m.total, nvalues);
    if (!ex_used)
        abort();
    size_t pick[32] = {0};
    for (size_t combo = 0; combo < m.total; combo++) {
        combination(&m, combo, pick);
        if (excluded(ex, &m, pick, ex_used))
            continue;
        cts_builder b;
        char id[CTS_ID_MAX * 2];
        bool cok = build_combination(k, s, cn, field, name, &m, pick, &b, id, sizeof id);
        /* cross-key checks and derivations only once every key read cleanly */
        cok = cok && cts_case_finish(k, &b, cn, field);
        cok = cok && !same_as_earlier(k, field, m.keys, m.vals, m.nkeys, combo, &b.c, &seen);
        b.c.suite = strdup(s->suite);
        b.c.name = strdup(name);
        b.c.mark.file = strdup(k->file);
        b.c.seed = s->seed;
        if (!b.c.suite || !b.c.name || !b.c.mark.file)
            abort();
        if (cok)
            push_products(k, s, cn, field, id, &b, out, cap);
        builder_clear(&b);
    }
    for (size_t e = 0; ex && e < ex->n; e++)
        if (!ex_used[e]) {
            char f[256];
            cts_fmt(f, sizeof f, "%s.exclude[%zu]", field, e);
            ERR(ex->items[e], f, "matches no combination of the matrix");
        }
    free(ex_used);
    seen_free(&seen);
}
