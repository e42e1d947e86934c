/* Precision standards as data: one YAML file per standard and edition (standards/README.md).
 * The file names its source documents (repo:path@commit), its method and the method's
 * parameters, per output dtype; this loader checks each key against what its method reads,
 * so a misspelt threshold is an error at FILE:LINE:COL, never a silent default. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite.h"
#include "suite_yaml.h"

static const char *const method_names[] = {"bound", "relative", "benchmark", "ulp", "mixed"};
static const char *const dtype_names[CTS_STD_NDT] = {"float16", "bfloat16", "float32",
                                                     "float64", "hifloat32"};

/* The keys each method reads: under `rule` (shared) and per dtype; a leading '!' marks a
 * required one. */
static const char *const rule_keys[][8] = {
    {NULL},
    {"!denominator_eps", "!max_factor", NULL},
    {"!limits.small_value_err_ratio", "!limits.rmse", "!limits.max_rel_err",
     "!limits.mean_rel_err", "limits.error_balance", NULL},
    {"!proportion_ratio", NULL},
    {"!matched_ratio", "!cap_ulps", NULL}};
static const char *const dtype_keys[][8] = {
    {NULL},
    {"!threshold", NULL},
    {"!small_value", "!small_value_atol", "!eps", "!min_err", NULL},
    {"!mantissa_bits", "!min_eb", "!ulp_threshold", "!max_proportion", "mean_ulp", "!min_err",
     NULL},
    {"!rtol", "!atol", "!max_abs", NULL}};

const char *cts_std_method_name(cts_std_method m) { return method_names[m]; }

int cts_std_dtype(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT16: return CTS_STD_F16;
    case REF_DT_BF16: return CTS_STD_BF16;
    case REF_DT_FLOAT: return CTS_STD_F32;
    case REF_DT_DOUBLE: return CTS_STD_F64;
    default: return -1;
    }
}

static double find(const cts_std_param *p, int n, const char *name, bool *found)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(p[i].name, name)) {
            *found = true;
            return p[i].v;
        }
    *found = false;
    return 0;
}

double cts_std_rule(const cts_standard *s, const char *name, double dflt)
{
    bool f;
    double v = find(s->rule, s->nrule, name, &f);
    return f ? v : dflt;
}

bool cts_std_param_of(const cts_standard *s, int dt, const char *name, double *out)
{
    bool f = false;
    if (dt >= 0 && dt < CTS_STD_NDT && s->dt[dt].set)
        *out = find(s->dt[dt].p, s->dt[dt].n, name, &f);
    return f;
}

typedef struct {
    const char *file;
    FILE *err;
    int errors;
} ctx;

static void error(ctx *x, const cts_ynode *n, const char *field, const char *msg, const char *a)
{
    fprintf(x->err, "%s:%d:%d: error: %s: ", x->file, n ? n->line : 1, n ? n->col : 1, field);
    fprintf(x->err, msg, a);
    fputc('\n', x->err);
    x->errors++;
}

/* A number: decimal or hex float, or 2^N. */
static bool number(const char *t, double *v)
{
    char *end;
    if (!strncmp(t, "2^", 2)) {
        long e = strtol(t + 2, &end, 10);
        *v = ldexp(1.0, (int)e);
        return end != t + 2 && !*end && e > -1100 && e < 1100;
    }
    *v = strtod(t, &end);
    return end != t && !*end && isfinite(*v);
}

static bool known(const char *const *keys, const char *name)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i] + (keys[i][0] == '!'), name)) return true;
    return false;
}

/* The map's numbers into p (nested maps flattened with '.'), each name checked against keys. */
static void read_params(ctx *x, const cts_ynode *m, const char *prefix, const char *field,
                        const char *const *keys, cts_std_param *p, int *n)
{
    if (m->kind != CTS_YN_MAP) {
        error(x, m, field, "expected a map, got %s", cts_yaml_kind_name(m));
        return;
    }
    for (size_t i = 0; i < m->n; i += 2) {
        const cts_ynode *k = m->items[i], *v = m->items[i + 1];
        char name[64], f[160];
        snprintf(name, sizeof name, "%.31s%.32s", prefix, k->text);
        snprintf(f, sizeof f, "%s.%s", field, k->text);
        if (v->kind == CTS_YN_MAP) {
            char pre[64];
            snprintf(pre, sizeof pre, "%.62s.", name);
            read_params(x, v, pre, f, keys, p, n);
        } else if (!known(keys, name)) {
            error(x, k, f, "not a parameter of this standard's method%s", "");
        } else if (*n >= CTS_STD_MAX_PARAMS) {
            error(x, k, f, "more parameters than a standard can have%s", "");
        } else if (v->kind != CTS_YN_SCALAR || !number(v->text, &p[*n].v)) {
            error(x, v, f, "expected a number (decimal or 2^N), got '%s'",
                  v->kind == CTS_YN_SCALAR ? v->text : cts_yaml_kind_name(v));
        } else {
            snprintf(p[(*n)++].name, sizeof p->name, "%.63s", name);
        }
    }
}

static void require(ctx *x, const cts_ynode *at, const char *field, const char *const *keys,
                    const cts_std_param *p, int n)
{
    for (int i = 0; keys[i]; i++) {
        bool f;
        if (keys[i][0] == '!' && (find(p, n, keys[i] + 1, &f), !f))
            error(x, at, field, "missing parameter %s", keys[i] + 1);
    }
}

static const char *str(ctx *x, const cts_ynode *doc, const char *key, bool required)
{
    const cts_ynode *v = cts_yaml_get(doc, key);
    if (v && v->kind == CTS_YN_SCALAR && !cts_yaml_is_null(v)) return v->text;
    if (v || required) error(x, v ? v : doc, key, "expected a string%s", "");
    return NULL;
}

static void read_sources(ctx *x, const cts_ynode *doc, cts_standard *s)
{
    const cts_ynode *src = cts_yaml_get(doc, "sources");
    if (!src || src->kind != CTS_YN_SEQ || src->n == 0) {
        error(x, src ? src : doc, "sources", "a standard names its sources (repo, path, "
              "commit)%s", "");
        return;
    }
    for (size_t i = 0; i < src->n && s->nsources < CTS_STD_MAX_SOURCES; i++) {
        const cts_ynode *e = src->items[i];
        const char *r = e->kind == CTS_YN_MAP ? str(x, e, "repo", true) : NULL;
        const char *p = r ? str(x, e, "path", true) : NULL;
        const char *c = p ? str(x, e, "commit", true) : NULL;
        if (c) snprintf(s->sources[s->nsources++], sizeof *s->sources, "%s:%s@%s", r, p, c);
        else if (e->kind != CTS_YN_MAP) error(x, e, "sources", "expected a map%s", "");
    }
}

static const char *const top_keys[] = {"standard", "edition", "method", "golden", "sources",
                                       "note", "rule", "dtypes", "default", "not_applicable",
                                       NULL};

static int dtype_index(const char *name)
{
    for (int k = 0; k < CTS_STD_NDT; k++)
        if (!strcmp(name, dtype_names[k])) return k;
    return -1;
}

/* One `not_applicable` entry: a dtype, a path (with the dtype of its outputs, or any), or
 * elements: nonfinite-other-class; and its reason. */
static void read_na_entry(ctx *x, const cts_ynode *e, cts_std_na *na)
{
    static const char *const keys[] = {"dtype", "path", "elements", "reason", NULL};
    for (size_t i = 0; i < e->n; i += 2)
        if (!known(keys, e->items[i]->text))
            error(x, e->items[i], "not_applicable", "unknown key '%s' (dtype, path, elements, "
                  "reason)", e->items[i]->text);
    const char *dt = cts_yaml_get(e, "dtype") ? str(x, e, "dtype", true) : NULL;
    const char *path = cts_yaml_get(e, "path") ? str(x, e, "path", true) : NULL;
    const char *el = cts_yaml_get(e, "elements") ? str(x, e, "elements", true) : NULL;
    const char *reason = str(x, e, "reason", true);
    if ((path != NULL) + (el != NULL) > 1 || (!dt && !path && !el) || (dt && el)) {
        error(x, e, "not_applicable", "an entry names a dtype, a path (and the dtype of its "
              "outputs), or elements%s", "");
        return;
    }
    if (reason) snprintf(na->reason, sizeof na->reason, "%s", reason);
    na->kind = CTS_NA_DTYPE;
    na->dt = -1;
    if (dt && (na->dt = dtype_index(dt)) < 0)
        error(x, cts_yaml_get(e, "dtype"), "not_applicable.dtype", "unknown dtype '%s'", dt);
    if (path) na->kind = CTS_NA_PATH, snprintf(na->path, sizeof na->path, "%s", path);
    if (el && (na->kind = CTS_NA_NONFINITE, strcmp(el, "nonfinite-other-class")))
        error(x, cts_yaml_get(e, "elements"), "not_applicable.elements",
              "unknown element class '%s' (nonfinite-other-class)", el);
}

static void read_not_applicable(ctx *x, const cts_ynode *doc, cts_standard *s)
{
    const cts_ynode *na = cts_yaml_get(doc, "not_applicable");
    if (!na) return;
    if (na->kind != CTS_YN_SEQ) {
        error(x, na, "not_applicable", "expected a list%s", "");
        return;
    }
    for (size_t i = 0; i < na->n; i++) {
        if (na->items[i]->kind != CTS_YN_MAP) error(x, na->items[i], "not_applicable",
                                                    "expected a map%s", "");
        else if (s->nna == CTS_STD_MAX_NA) error(x, na->items[i], "not_applicable",
                                                 "more entries than a standard can have%s", "");
        else read_na_entry(x, na->items[i], &s->na[s->nna++]);
    }
}

/* What the device is compared with: every method but the bound's names it, since the
 * documents differ (a result in the output dtype, or one of higher precision) and near zero
 * the choice decides a relative error (docs/standards.md "The golden"). */
int cts_std_golden_parse(const char *v)
{
    return !v ? -1 : !strcmp(v, "dtype") ? 1 : !strcmp(v, "exact") ? 0 : -1;
}

static void read_golden(ctx *x, const cts_ynode *doc, cts_standard *s)
{
    const cts_ynode *g = cts_yaml_get(doc, "golden");
    if (s->method == CTS_STD_BOUND) {
        if (g) error(x, g, "golden", "the bound judges against the exact value itself%s", "");
        return;
    }
    const char *v = str(x, doc, "golden", true);
    int d = cts_std_golden_parse(v);
    if (v && d < 0)
        error(x, g, "golden", "expected dtype (the reference rounded to the output dtype) or "
              "exact (the exact value rounded to double), got '%s'", v);
    s->golden_dtype = d == 1;
}

static void read_standard(ctx *x, const cts_ynode *doc, cts_standard *s)
{
    for (size_t i = 0; i < doc->n; i += 2)
        if (!known(top_keys, doc->items[i]->text))
            error(x, doc->items[i], doc->items[i]->text, "unknown key (standard, edition, "
                  "method, golden, sources, note, rule, dtypes, default, not_applicable)%s", "");
    const char *name = str(x, doc, "standard", true), *ed = str(x, doc, "edition", true);
    const char *m = str(x, doc, "method", true);
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    snprintf(s->edition, sizeof s->edition, "%s", ed ? ed : "");
    int mi = -1;
    for (int i = 0; m && i < 5; i++)
        if (!strcmp(m, method_names[i])) mi = i;
    if (m && mi < 0)
        error(x, cts_yaml_get(doc, "method"), "method",
              "unknown method '%s' (bound, relative, benchmark, ulp, mixed)", m);
    if (mi < 0) return;
    s->method = (cts_std_method)mi;
    read_golden(x, doc, s);
    read_sources(x, doc, s);
    read_not_applicable(x, doc, s);
    const cts_ynode *rule = cts_yaml_get(doc, "rule"), *dts = cts_yaml_get(doc, "dtypes");
    if (rule) read_params(x, rule, "", "rule", rule_keys[mi], s->rule, &s->nrule);
    require(x, rule ? rule : doc, "rule", rule_keys[mi], s->rule, s->nrule);
    if (!dts || dts->kind != CTS_YN_MAP) {
        error(x, dts ? dts : doc, "dtypes", "a map of the output dtypes judged%s", "");
        return;
    }
    for (size_t i = 0; i < dts->n; i += 2) {
        const char *dn = dts->items[i]->text;
        int d = dtype_index(dn);
        char f[64];
        snprintf(f, sizeof f, "dtypes.%s", dn);
        if (d < 0) {
            error(x, dts->items[i], f, "unknown dtype (float16, bfloat16, float32, float64, "
                  "hifloat32)%s", "");
            continue;
        }
        s->dt[d].set = true;
        read_params(x, dts->items[i + 1], "", f, dtype_keys[mi], s->dt[d].p, &s->dt[d].n);
        require(x, dts->items[i + 1], f, dtype_keys[mi], s->dt[d].p, s->dt[d].n);
    }
}

static int load_file(const char *path, cts_standard *out, bool *is_default, FILE *err)
{
    cts_diag d = {.err = err};
    cts_ynode *root = cts_yaml_load(path, &d);
    ctx x = {path, err, d.count};
    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", path);
    if (root && (root->n != 1 || root->items[0]->kind != CTS_YN_MAP))
        error(&x, root->items[0], "file", "one YAML map per standard file%s", "");
    else if (root)
        read_standard(&x, root->items[0], out);
    const cts_ynode *def = root && x.errors == 0 ? cts_yaml_get(root->items[0], "default") : NULL;
    *is_default = def && def->kind == CTS_YN_SCALAR && !strcmp(def->text, "true");
    cts_yaml_free(root);
    cts_diag_free(&d);
    return x.errors ? -1 : 0;
}

/* NAME@*.yaml of dir marked `default: true`. */
static int load_default(const char *dir, const char *name, cts_standard *out, FILE *err)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    size_t nl = strlen(name);
    int rc = 1;
    while (dp && rc > 0 && (e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, name, nl) || e->d_name[nl] != '@' || l < 5 ||
            strcmp(e->d_name + l - 5, ".yaml"))
            continue;
        char path[2048];
        bool def;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (load_file(path, out, &def, err)) rc = -1;
        else if (def) rc = 0;
    }
    if (dp) closedir(dp);
    return rc;
}

int cts_standard_load(const char *dir, const char *spec, cts_standard *out, FILE *err)
{
    char path[2048], name[64];
    bool def;
    snprintf(path, sizeof path, "%s/%s.yaml", dir, spec);
    if (!access(path, F_OK)) return load_file(path, out, &def, err);
    snprintf(name, sizeof name, "%s", spec);
    int rc = strchr(spec, '@') ? 1 : load_default(dir, name, out, err);
    if (rc > 0)
        fprintf(err, "aclcts: error: standard '%s': no %s/%s.yaml (nor a default edition)\n",
                spec, dir, spec);
    return rc ? -1 : 0;
}
