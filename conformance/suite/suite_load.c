/* cts_load_suites: files and directories → YAML trees → suite keys → expanded cases. Errors
 * of every file are collected before anything is returned, so a certifier fixes a suite in one
 * pass. */
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suite_case.h"

#define ERR(v, field, ...) cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

typedef struct {
    char **v;
    size_t n, cap;
} strvec;

static void sv_push(strvec *s, const char *x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        char **p = realloc(s->v, s->cap * sizeof *p);
        if (!p)
            abort();
        s->v = p;
    }
    s->v[s->n] = strdup(x);
    if (!s->v[s->n])
        abort();
    s->n++;
}

static void sv_free(strvec *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static const char *file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a file";
}

/* A suite file must be a regular file: a FIFO would block the loader forever, a directory or a
 * device cannot hold YAML. False with an error (and strerror when stat fails). */
static bool suite_file_ok(const char *path, bool in_directory, cts_diag *d)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        cts_diag_error(d, path, 1, 1, "file", "cannot access: %s", strerror(errno));
        return false;
    }
    if (S_ISREG(st.st_mode))
        return true;
    cts_diag_error(d, path, 1, 1, "file", "%s, not a suite file%s", file_kind(st.st_mode),
                   in_directory ? " (suite directories hold *.yaml and *.yml files)" : "");
    return false;
}

static bool suite_name(const char *name)
{
    return name[0] != '.' && (ends_with(name, ".yaml") || ends_with(name, ".yml"));
}

/* dir/name, malloc'd. */
static char *path_join(const char *dir, const char *name)
{
    size_t l = strlen(dir) + strlen(name) + 2;
    char *p = malloc(l);
    if (!p)
        abort();
    cts_fmt(p, l, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", name);
    return p;
}

/* The *.yaml and *.yml entries of dir into here; with `operators` also those of its operators'
 * folders (suites/avgpool2d_backward/). Other subdirectories (suites/vendor_st/) are read
 * only when named. */
static void list_dir(const char *dir, bool operators, strvec *here, cts_diag *d)
{
    DIR *h = opendir(dir);
    if (!h) {
        cts_diag_error(d, dir, 1, 1, "file", "cannot read directory: %s", strerror(errno));
        return;
    }
    struct dirent *e;
    while ((e = readdir(h))) {
        char *p = path_join(dir, e->d_name);
        struct stat st;
        if (suite_name(e->d_name))
            sv_push(here, p);
        else if (operators && cts_op_named(e->d_name) && stat(p, &st) == 0 &&
                 S_ISDIR(st.st_mode))
            list_dir(p, false, here, d);
        free(p);
    }
    closedir(h);
}

/* Suite files named by paths: files as given, directories as their *.yaml and *.yml and those
 * of their operators' folders, sorted by path. */
static void collect(const char *const *paths, int npaths, strvec *files, cts_diag *d)
{
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) {
            cts_diag_error(d, paths[i], 1, 1, "file", "cannot access: %s", strerror(errno));
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (suite_file_ok(paths[i], false, d))
                sv_push(files, paths[i]);
            continue;
        }
        strvec here = {0};
        list_dir(paths[i], true, &here, d);
        qsort(here.v, here.n, sizeof *here.v, cmp_str);
        for (size_t j = 0; j < here.n; j++)
            if (suite_file_ok(here.v[j], true, d))
                sv_push(files, here.v[j]);
        sv_free(&here);
    }
}

void cts_suite_key(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char dir[PATH_MAX], real[PATH_MAX];
    cts_fmt(dir, sizeof dir, "%.*s", base > path ? (int)(base - path) : 1, base > path ? path : ".");
    if (realpath(dir, real) && cts_op_named(strrchr(real, '/') + 1))
        cts_fmt(out, len, "%s/%s", strrchr(real, '/') + 1, base);
    else
        cts_fmt(out, len, "%s", base);
}

static bool valid_suite_name(const char *s)
{
    if (!*s || *s == '.' || ends_with(s, "."))
        return false;
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
            *s != '_' && *s != '-' && *s != '.')
            return false;
    return true;
}

typedef struct {
    char *name, *file;
    int line;
} suite_seen;

/* The top-level keys of a suite: false (with an error each) when one is unknown. */
static bool top_keys_known(const cts_keyctx *k, const cts_ynode *root)
{
    static const char *const top[] = {"suite", "op", "product", "seed", "spec", "defaults",
                                      "cases"};
    bool ok = true;
    for (size_t i = 0; i < root->n; i += 2) {
        bool known = false;
        for (size_t j = 0; j < sizeof top / sizeof top[0]; j++)
            known |= !strcmp(root->items[i]->text, top[j]);
        if (!known) {
            ERR(root->items[i], root->items[i]->text,
                "unknown key (suite, op, product, seed, spec, defaults, cases)");
            ok = false;
        }
    }
    return ok;
}

/* `suite:`, valid and not used by a suite read before (names, which it joins). */
static bool read_suite_name(const cts_keyctx *k, const cts_ynode *root, cts_suite_ctx *s,
                            suite_seen **names, size_t *nnames)
{
    const cts_ynode *v = cts_yaml_get(root, "suite");
    if (!v) {
        ERR(root, "suite", "required");
        return false;
    }
    if (!cts_read_string(k, "suite", v, &s->suite))
        return false;
    bool ok = true;
    if (!valid_suite_name(s->suite)) {
        ERR(v, "suite", "'%s' is not a valid suite name (letters, digits, '_', '-', '.')",
            s->suite);
        ok = false;
    }
    for (size_t i = 0; i < *nnames; i++)
        if (!strcmp((*names)[i].name, s->suite)) {
            ERR(v, "suite", "duplicate suite name '%s' (also in %s:%d)", s->suite,
                (*names)[i].file, (*names)[i].line);
            ok = false;
        }
    suite_seen *nn = realloc(*names, (*nnames + 1) * sizeof **names);
    if (!nn)
        abort();
    *names = nn;
    nn[*nnames].name = strdup(s->suite);
    nn[*nnames].file = strdup(k->file);
    nn[*nnames].line = v->line;
    (*nnames)++;
    return ok;
}

/* `op:`, into *op: the driver of that name (the suite folder of an operator has its name). */
static bool read_op(const cts_keyctx *k, const cts_ynode *root, const cts_op_driver **op)
{
    const cts_ynode *v = cts_yaml_get(root, "op");
    const char *name;
    if (!v) {
        ERR(root, "op", "required");
        return false;
    }
    if (!cts_read_string(k, "op", v, &name))
        return false;
    if (!(*op = cts_op_named(name))) {
        char names[256];
        cts_op_names(names, sizeof names);
        ERR(v, "op", "unknown op '%s' (%s)", name, names);
        return false;
    }
    return true;
}

/* `product:` of a suite (read by the case key reader on scratch), as its product list. */
static void read_products(const cts_keyctx *k, const cts_ynode *root, cts_builder *scratch,
                          cts_suite_ctx *s)
{
    const cts_ynode *v = cts_yaml_get(root, "product");
    if (!v || !cts_key_apply(k, "product", "product", v, scratch))
        return;
    if (v->kind == CTS_YN_SCALAR && strcmp(v->text, "all") != 0) {
        ref_product_from_id(v->text, &s->products[0]);
        s->nproducts = 1;
    } else if (v->kind == CTS_YN_SEQ) {
        s->nproducts = 0;
        for (size_t i = 0; i < v->n; i++) {
            ref_product p;
            bool dup = false;
            ref_product_from_id(v->items[i]->text, &p);
            for (int j = 0; j < s->nproducts; j++)
                dup |= s->products[j] == p;
            if (dup) {
                char f[32];
                cts_fmt(f, sizeof f, "product[%zu]", i);
                ERR(v->items[i], f, "duplicate product '%s'", v->items[i]->text);
            } else {
                s->products[s->nproducts++] = p;
            }
        }
    }
}

/* The suite-wide values: product, seed and spec (read by the case-key readers on a scratch
 * case), and defaults. */
static void read_suite_values(const cts_keyctx *k, const cts_ynode *root, cts_suite_ctx *s)
{
    cts_builder scratch;
    cts_builder_init(&scratch, k->op);
    read_products(k, root, &scratch, s);
    const cts_ynode *v;
    int64_t seed;
    if ((v = cts_yaml_get(root, "seed")) && cts_read_int(k, "seed", v, &seed)) {
        if (seed < 0)
            ERR(v, "seed", "must be >= 0");
        else
            s->seed = (uint64_t)seed;
    }
    if ((v = cts_yaml_get(root, "spec")) && cts_key_apply(k, "spec", "spec", v, &scratch)) {
        s->spec = scratch.c.spec;
        s->spec_fixed = true;
    }
    cts_case_clear(&scratch.c);
    free((void *)scratch.product_field);
    free((void *)scratch.tolerance_field);
    if ((v = cts_yaml_get(root, "defaults")) && cts_expect_kind(k, "defaults", v, CTS_YN_MAP)) {
        s->defaults = v;
        cts_check_defaults(k, s);
    }
}

/* `cases:`: each expanded into out, after a check that its name is not used before it. */
static void read_cases(const cts_keyctx *k, const cts_ynode *root, const cts_suite_ctx *s,
                       cts_case_list *out, size_t *cap)
{
    const cts_ynode *cases = cts_yaml_get(root, "cases");
    if (!cases) {
        ERR(root, "cases", "required");
        return;
    }
    if (!cts_expect_kind(k, "cases", cases, CTS_YN_SEQ))
        return;
    if (cases->n == 0)
        ERR(cases, "cases", "no cases");
    for (size_t i = 0; i < cases->n; i++) {
        const cts_ynode *ni = cts_yaml_get(cases->items[i], "name");
        for (size_t j = 0; ni && ni->kind == CTS_YN_SCALAR && j < i; j++) {
            const cts_ynode *nj = cts_yaml_get(cases->items[j], "name");
            if (nj && nj->kind == CTS_YN_SCALAR && !strcmp(ni->text, nj->text)) {
                char f[64];
                cts_fmt(f, sizeof f, "cases[%zu].name", i);
                ERR(ni, f, "duplicate case name '%s' (first at line %d)", ni->text, nj->line);
                break;
            }
        }
        cts_expand_case(k, s, cases->items[i], i, out, cap);
    }
}

/* One suite (a document of a file). Appends its cases to out; names holds the suites read
 * before it. Without a valid suite name and op the rest cannot be read meaningfully. */
static void load_suite(const char *file, const cts_ynode *root, cts_diag *d, cts_case_list *out,
                       size_t *cap, suite_seen **names, size_t *nnames)
{
    cts_keyctx kk = {.file = file, .d = d, .op = cts_ops[0]};
    const cts_keyctx *k = &kk;
    if (!cts_expect_kind(k, "suite", root, CTS_YN_MAP))
        return;
    cts_suite_ctx s = {.spec = REF_SPEC_DOC, .nproducts = REF_PRODUCT_COUNT};
    for (int p = 0; p < REF_PRODUCT_COUNT; p++)
        s.products[p] = (ref_product)p;
    bool ok = top_keys_known(k, root);
    ok &= read_suite_name(k, root, &s, names, nnames);
    ok &= read_op(k, root, &kk.op);
    if (!ok)
        return;
    read_suite_values(k, root, &s);
    read_cases(k, root, &s, out, cap);
}

static void load_file(const char *file, cts_diag *d, cts_case_list *out, size_t *cap,
                      suite_seen **names, size_t *nnames)
{
    cts_ynode *docs = cts_yaml_load(file, d);
    for (size_t i = 0; docs && i < docs->n; i++)
        load_suite(file, docs->items[i], d, out, cap, names, nnames);
    cts_yaml_free(docs);
}

/* The same file given twice (also as suites/x.yaml and ./suites/../suites/x.yaml, a link, or a
 * file and its directory) is loaded once. */
static bool named_before(const strvec *files, size_t i)
{
    struct stat a, b;
    if (stat(files->v[i], &a) != 0)
        return false;
    for (size_t j = 0; j < i; j++)
        if (stat(files->v[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            return true;
    return false;
}

static int cmp_id(const void *a, const void *b)
{
    return strcmp((*(const cts_case *const *)a)->id, (*(const cts_case *const *)b)->id);
}

int cts_load_suites(const char *const *paths, int npaths, const cts_load_options *opt,
                    cts_case_list *out, FILE *err)
{
    cts_diag d = {.err = err};
    cts_case_list all = {0};
    size_t cap = 0;
    out->cases = NULL;
    out->ncases = 0;

    bool filter_product = opt && opt->product && strcmp(opt->product, "all") != 0;
    ref_product want = REF_PRODUCT_ASCEND910;
    if (filter_product && ref_product_from_id(opt->product, &want) != 0) {
        d.count++;
        if (err)
            fprintf(err, "aclcts: error: --product: unknown product '%s' (ascend910, ascend910b, "
                         "ascend910_93, ascend310p, ascend310b, ascend950, all)\n", opt->product);
    }
    strvec files = {0};
    collect(paths, npaths, &files, &d);
    suite_seen *names = NULL;
    size_t nnames = 0;
    for (size_t i = 0; i < files.n; i++)
        if (!named_before(&files, i))
            load_file(files.v[i], &d, &all, &cap, &names, &nnames);
    for (size_t i = 0; i < nnames; i++) {
        free(names[i].name);
        free(names[i].file);
    }
    free(names);
    sv_free(&files);

    if (all.full) {
        d.count++;
        if (err)
            fprintf(err, "aclcts: error: the suites define up to %zu cases; at most %d are "
                    "loaded at once (CTS_MAX_CASES)\n", all.planned, CTS_MAX_CASES);
    }
    /* ids are unique by construction (unique suites, names, matrix values); checked anyway */
    if (!d.count && all.ncases > 1) {
        const cts_case **by_id = malloc(all.ncases * sizeof *by_id);
        if (!by_id)
            abort();
        for (size_t i = 0; i < all.ncases; i++)
            by_id[i] = &all.cases[i];
        qsort(by_id, all.ncases, sizeof *by_id, cmp_id);
        for (size_t i = 1; i < all.ncases; i++)
            if (!strcmp(by_id[i]->id, by_id[i - 1]->id))
                cts_diag_error(&d, by_id[i]->mark.file, by_id[i]->mark.line,
                               by_id[i]->mark.column, "name", "duplicate case id '%s'",
                               by_id[i]->id);
        free(by_id);
    }
    if (d.count) {
        cts_case_list_free(&all);
        cts_diag_free(&d);
        return d.count;
    }
    /* selection: keep order, move kept cases down */
    size_t n = 0;
    for (size_t i = 0; i < all.ncases; i++) {
        cts_case *c = &all.cases[i];
        bool keep = (!filter_product || c->product == want) && (!opt || !opt->quick || c->quick);
        if (keep && opt && opt->have_seed)
            c->seed = opt->seed;
        if (keep) {
            if (n != i)
                all.cases[n] = *c;
            n++;
        } else {
            cts_case_clear(c);
        }
    }
    all.ncases = n;
    *out = all;
    int count = d.count;
    cts_diag_free(&d);
    return count;
}

void cts_suite_files(const char *const *paths, int npaths, char ***files, size_t *n)
{
    strvec v = {0};
    FILE *quiet = fopen("/dev/null", "w");
    cts_diag d = {.err = quiet};
    collect(paths, npaths, &v, &d);
    cts_diag_free(&d);
    if (quiet)
        fclose(quiet);
    *files = v.v;
    *n = v.n;
}
