/* ATK case files -> suites (import.h). An ATK file is a JSON array of cases; each case names
 * the operator (aclnn_name) and lists its inputs: tensors {name, dtype, shape, range_values} and
 * attributes {name, dtype, range_values}, an attribute that is a list being a JSON array of
 * entries of the same name. range_values is a value, [lo, hi] (uniform; for an integer
 * attribute a draw), ["inf"] / ["nan"] (a fill) or {"name": "nd", "mean": [lo, hi], "std":
 * [lo, hi]} (normal with a mean and a standard deviation drawn from those ranges). */
#include "import.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "suite/suite.h"

#define PATH_MAX_LEN 160
#define TEXT_MAX 256

/* A field the suite does not express, aggregated over the cases by its path with the case
 * index replaced by *, and its value. */
typedef struct {
    char *gpath, *value, *reason, *first;
    int count;
} note;

typedef struct {
    const char *file;
    const atk_options *o;
    FILE *diag;
    note *notes;
    size_t nnotes;
    int errors;
    json_int_t *ids;   /* ATK ids seen: they name the cases */
    size_t nids;
    const cts_op_driver *op; /* of the current case */
    int ci;            /* index of the current case */
    bool skip;         /* the current case cannot be expressed */
} ctx;

/* One tensor or attribute line of the case being built. */
typedef struct {
    char key[40], value[TEXT_MAX], comment[TEXT_MAX];
} line;

/* By tensor slot and parameter index of the op's driver. */
typedef struct {
    const char *dtype;          /* of the first tensor: the case's */
    line shape[CTS_MAX_TENSORS], dtypes[CTS_MAX_TENSORS], data[CTS_MAX_TENSORS];
    line attr[CTS_MAX_PARAMS];
    bool have_tensor[CTS_MAX_TENSORS], have_attr[CTS_MAX_PARAMS];
} built;

static char *json_text(const json_t *v)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    return s ? s : strdup("?");
}

static void note_add(ctx *c, const char *rest, const json_t *v, const char *reason)
{
    char gpath[PATH_MAX_LEN], first[PATH_MAX_LEN];
    cts_fmt(gpath, sizeof gpath, "$[*]%s", rest);
    cts_fmt(first, sizeof first, "$[%d]%s", c->ci, rest);
    char *value = json_text(v);
    for (size_t i = 0; i < c->nnotes; i++) {
        note *n = &c->notes[i];
        if (!strcmp(n->gpath, gpath) && !strcmp(n->value, value) && !strcmp(n->reason, reason)) {
            n->count++;
            free(value);
            return;
        }
    }
    note *grown = realloc(c->notes, (c->nnotes + 1) * sizeof *grown);
    if (!grown)
        abort();
    c->notes = grown;
    c->notes[c->nnotes++] = (note){strdup(gpath), value, strdup(reason), strdup(first), 1};
}

/* The current case cannot be expressed: it is left out, and said so. */
static void leave_out(ctx *c, const char *rest, const json_t *v, const char *reason)
{
    char why[TEXT_MAX];
    cts_fmt(why, sizeof why, "case left out: %s", reason);
    note_add(c, rest, v, why);
    if (!c->skip) {
        char *value = json_text(v);
        fprintf(c->diag, "%s: $[%d]%s = %s: case left out: %s\n", c->file, c->ci, rest, value,
                reason);
        free(value);
    }
    c->skip = true;
}

static void error_at(ctx *c, const char *rest, const char *what)
{
    fprintf(c->diag, "%s: $[%d]%s: error: %s\n", c->file, c->ci, rest, what);
    c->errors++;
    c->skip = true;
}

/* Fields of an ATK object that carry no test parameter: silent at their default, else noted. */
static void check_other_keys(ctx *c, const char *rest, json_t *obj, const char *const *handled)
{
    static const struct {
        const char *key;
        json_t *(*is_default)(void);
        const char *reason;
    } known[] = {
        {"required", json_true, "an optional input; aclcts always passes every input"},
        {"backward", json_false, "autograd flag of ATK's PyTorch golden; aclcts calls the "
                                 "backward operator itself and judges by its own reference"},
        {"align_32B", json_null, "buffer alignment; aclcts places tensors itself (with guards)"},
        {"outlier_values", json_null, "outlier injection is not a suite data generator"},
    };
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        bool done = false;
        for (const char *const *h = handled; *h && !done; h++)
            done = !strcmp(*h, k);
        char sub[PATH_MAX_LEN];
        cts_fmt(sub, sizeof sub, "%s.%s", rest, k);
        for (size_t i = 0; i < sizeof known / sizeof known[0] && !done; i++)
            if (!strcmp(known[i].key, k)) {
                json_t *d = known[i].is_default();
                if (!json_equal(d, v))
                    note_add(c, sub, v, known[i].reason);
                json_decref(d);
                done = true;
            }
        if (!done)
            note_add(c, sub, v, "unknown ATK field");
    }
}

/* The fields of a tensor or attribute entry that its conversion reads. */
static const char *const ENTRY_FIELDS[] = {"name", "type", "dtype", "shape", "range_values", NULL};

static void fmt_num(char *buf, size_t n, double x)
{
    if (isnan(x))
        cts_fmt(buf, n, ".nan");
    else if (isinf(x))
        cts_fmt(buf, n, "%s.inf", x < 0 ? "-" : "");
    else if (x == floor(x) && fabs(x) < 1e15)
        cts_fmt(buf, n, "%.0f", x);
    else
        for (int digits = 1; digits <= 17; digits++) { /* the shortest text that reads back */
            cts_fmt(buf, n, "%.*g", digits, x);
            if (strtod(buf, NULL) == x)
                break;
        }
}

/* A value in [lo, hi] drawn for the field at rest of the current case, to 4 decimals. */
static double draw(const ctx *c, const char *rest, double lo, double hi, bool integer)
{
    char key[PATH_MAX_LEN + 64];
    cts_fmt(key, sizeof key, "%s$[%d]%s", c->op->name, c->ci, rest);
    double u = cts_draw_unit(c->o->seed, key);
    if (integer)
        return lo + floor(u * (hi - lo + 1));
    double x = round((lo + (hi - lo) * u) * 1e4) / 1e4;
    return x < lo ? lo : x > hi ? hi : x;
}

/* A [lo, hi] pair of numbers with lo <= hi. */
static bool range_of(const json_t *v, double *lo, double *hi)
{
    if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_number(json_array_get(v, 0)) ||
        !json_is_number(json_array_get(v, 1)))
        return false;
    *lo = json_number_value(json_array_get(v, 0));
    *hi = json_number_value(json_array_get(v, 1));
    return *lo <= *hi;
}

/* One parameter of a distribution: a number, or a [lo, hi] range to draw from. */
static bool dist_param(ctx *c, const char *rest, const json_t *v, double *x, char *how, size_t n)
{
    double lo, hi;
    if (json_is_number(v)) {
        *x = json_number_value(v);
        return true;
    }
    if (!range_of(v, &lo, &hi))
        return false;
    *x = draw(c, rest, lo, hi, false);
    char a[40], b[40];
    fmt_num(a, sizeof a, lo);
    fmt_num(b, sizeof b, hi);
    cts_fmt(how, n, " from [%s, %s]", a, b);
    return true;
}

/* Special fill values spelled as ATK strings. */
static bool special_value(const json_t *v, double *x)
{
    const char *s = json_string_value(v);
    if (!s)
        return false;
    if (!strcmp(s, "inf") || !strcmp(s, "+inf"))
        *x = INFINITY;
    else if (!strcmp(s, "-inf"))
        *x = -INFINITY;
    else if (!strcmp(s, "nan"))
        *x = NAN;
    else
        return false;
    return true;
}

/* range_values of a tensor -> a data generator. */
static void tensor_data(ctx *c, const char *rest, const json_t *rv, line *out)
{
    double lo, hi;
    if (range_of(rv, &lo, &hi)) {
        char a[40], b[40];
        fmt_num(a, sizeof a, lo);
        fmt_num(b, sizeof b, hi);
        cts_fmt(out->value, sizeof out->value, "{uniform: [%s, %s]}", a, b);
        return;
    }
    if (json_is_array(rv) && json_array_size(rv) > 0) { /* a fill: ["inf"], ["nan", 1], ... */
        char list[TEXT_MAX] = "";
        size_t i;
        json_t *e;
        json_array_foreach(rv, i, e) {
            double x;
            char num[40];
            if (!special_value(e, &x) && !json_is_number(e))
                return leave_out(c, rest, rv, "a fill value that is neither a number nor "
                                              "inf, -inf, nan");
            fmt_num(num, sizeof num, json_is_number(e) ? json_number_value(e) : x);
            size_t used = strlen(list);
            cts_fmt(list + used, sizeof list - used, "%s%s", i ? ", " : "", num);
        }
        cts_fmt(out->value, sizeof out->value, "{values: [%s]}", list);
        return;
    }
    const char *dist = json_string_value(json_object_get(rv, "name"));
    if (json_is_object(rv) && dist && !strcmp(dist, "nd") && json_object_size(rv) == 3) {
        char sub[PATH_MAX_LEN], hm[64] = "", hs[64] = "";
        double mean, std;
        cts_fmt(sub, sizeof sub, "%s.mean", rest);
        bool ok = dist_param(c, sub, json_object_get(rv, "mean"), &mean, hm, sizeof hm);
        cts_fmt(sub, sizeof sub, "%s.std", rest);
        ok = ok && dist_param(c, sub, json_object_get(rv, "std"), &std, hs, sizeof hs);
        if (ok && std >= 0) {
            char m[40], s[40];
            fmt_num(m, sizeof m, mean);
            fmt_num(s, sizeof s, std);
            cts_fmt(out->value, sizeof out->value, "{normal: [%s, %s]}", m, s);
            if (*hm || *hs)
                cts_fmt(out->comment, sizeof out->comment, "normal, drawn: mean%s, std%s",
                         *hm ? hm : " fixed", *hs ? hs : " fixed");
            return;
        }
    }
    leave_out(c, rest, rv, "a value distribution the suite format has no generator for");
}

/* ATK's accuracy standard in either form: "single_bm", or {"single_bm": {"type": ...}}. */
static bool atk_single_bm(const json_t *acc)
{
    return (json_is_string(acc) && !strcmp(json_string_value(acc), "single_bm")) ||
           (json_is_object(acc) && json_object_get(acc, "single_bm"));
}

static const char *suite_dtype(const char *atk)
{
    static const char *const map[][2] = {
        {"fp32", "float32"}, {"float32", "float32"}, {"float", "float32"},
        {"fp16", "float16"}, {"float16", "float16"}, {"bf16", "bfloat16"},
        {"bfloat16", "bfloat16"}, {"fp64", "float64"}, {"float64", "float64"},
        {"double", "float64"},
    };
    for (size_t i = 0; atk && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], atk))
            return map[i][1];
    return NULL;
}

/* The slot of the op's input tensor ATK names `name`, or -1. */
static int input_slot(const cts_op_driver *op, const char *name)
{
    for (int k = 0; name && k < op->ntensors; k++)
        if (!op->tensors[k].is_output && !strcmp(op->tensors[k].api_name, name))
            return k;
    return -1;
}

static void tensor(ctx *c, const char *rest, json_t *t, built *b)
{
    const char *name = json_string_value(json_object_get(t, "name"));
    int k = input_slot(c->op, name);
    if (k < 0)
        return leave_out(c, rest, json_object_get(t, "name"), "not a tensor of the operator");
    if (b->have_tensor[k])
        return leave_out(c, rest, json_object_get(t, "name"), "a tensor given twice");
    char sub[PATH_MAX_LEN];
    const char *dtype = suite_dtype(json_string_value(json_object_get(t, "dtype")));
    cts_fmt(sub, sizeof sub, "%s.dtype", rest);
    if (!dtype)
        return leave_out(c, sub, json_object_get(t, "dtype"), "a dtype aclcts does not name");
    json_t *shape = json_object_get(t, "shape");
    char dims[TEXT_MAX] = "[";
    size_t i;
    json_t *d;
    cts_fmt(sub, sizeof sub, "%s.shape", rest);
    if (!json_is_array(shape))
        return error_at(c, sub, "a tensor's shape must be a list of integers");
    json_array_foreach(shape, i, d) {
        if (!json_is_integer(d))
            return error_at(c, sub, "a tensor's shape must be a list of integers");
        size_t used = strlen(dims);
        cts_fmt(dims + used, sizeof dims - used, "%s%lld", i ? ", " : "",
                 (long long)json_integer_value(d));
    }
    strncat(dims, "]", sizeof dims - strlen(dims) - 1);
    if (!b->dtype)
        b->dtype = dtype;
    else if (strcmp(b->dtype, dtype))
        cts_fmt(b->dtypes[k].value, sizeof b->dtypes[k].value, "%s", dtype);
    cts_fmt(b->shape[k].key, sizeof b->shape[k].key, "%s_shape", c->op->tensors[k].name);
    cts_fmt(b->shape[k].value, sizeof b->shape[k].value, "%s", dims);
    cts_fmt(b->data[k].key, sizeof b->data[k].key, "%s", c->op->tensors[k].name);
    cts_fmt(sub, sizeof sub, "%s.range_values", rest);
    tensor_data(c, sub, json_object_get(t, "range_values"), &b->data[k]);
    b->have_tensor[k] = true;
    check_other_keys(c, rest, t, ENTRY_FIELDS);
}

/* One attribute value (range_values of an attribute entry) as suite text. */
static bool attr_value(ctx *c, const char *rest, const json_t *rv, const cts_param_desc *d,
                       char *out, size_t n, char *comment, size_t cn)
{
    const char *s = json_string_value(rv);
    double lo, hi;
    if (d->kind == CTS_PARAM_BOOL || d->kind == CTS_PARAM_BOOLS) {
        if (json_is_boolean(rv) || (s && (!strcmp(s, "true") || !strcmp(s, "false")))) {
            cts_fmt(out, n, "%s", json_is_true(rv) || (s && !strcmp(s, "true")) ? "true"
                                                                                 : "false");
            return true;
        }
        return false;
    }
    if (d->kind == CTS_PARAM_DOUBLE) {
        if (json_is_number(rv)) {
            cts_fmt(out, n, "%.17g", json_number_value(rv));
        } else if (range_of(rv, &lo, &hi)) {
            cts_fmt(out, n, "%.17g", draw(c, rest, lo, hi, false));
            cts_fmt(comment, cn, "drawn from [%g, %g]", lo, hi);
        } else {
            return false;
        }
        return true;
    }
    json_int_t v;
    if (json_is_integer(rv)) {
        v = json_integer_value(rv);
    } else if (json_is_array(rv) && json_array_size(rv) == 1 &&
               json_is_integer(json_array_get(rv, 0))) {
        v = json_integer_value(json_array_get(rv, 0));
    } else if (range_of(rv, &lo, &hi) && lo == floor(lo) && hi == floor(hi)) {
        v = (json_int_t)draw(c, rest, lo, hi, true);
        cts_fmt(comment, cn, "drawn from [%.0f, %.0f]", lo, hi);
    } else {
        return false;
    }
    if (d->names && v >= 0 && v < d->nnames)
        cts_fmt(out, n, "%s", d->names[v]);
    else
        cts_fmt(out, n, "%lld", (long long)v);
    return true;
}

/* An attribute: one entry object, or a JSON array of entries forming a list. */
static void attribute(ctx *c, const char *rest, json_t *a, built *b)
{
    bool is_list = json_is_array(a);
    json_t *first = is_list ? json_array_get(a, 0) : a;
    const char *name = json_string_value(json_object_get(first, "name"));
    int k = 0;
    while (k < c->op->nparams && (!name || strcmp(c->op->params[k].atk, name)))
        k++;
    if (k == c->op->nparams)
        return leave_out(c, rest, json_object_get(first, "name"),
                         "not an attribute of the operator");
    if (b->have_attr[k])
        return leave_out(c, rest, json_object_get(first, "name"), "an attribute given twice");
    const cts_param_desc *d = &c->op->params[k];
    bool list = d->kind == CTS_PARAM_INTS || d->kind == CTS_PARAM_BOOLS;
    if (is_list && !list)
        return leave_out(c, rest, a, "a list where the operator takes one value");
    line *l = &b->attr[k];
    cts_fmt(l->key, sizeof l->key, "%s", d->key);
    size_t count = is_list ? json_array_size(a) : 1;
    cts_fmt(l->value, sizeof l->value, "%s", list ? "[" : "");
    for (size_t i = 0; i < count; i++) {
        json_t *e = is_list ? json_array_get(a, i) : a;
        char sub[PATH_MAX_LEN], v[64], cm[64] = "";
        if (is_list)
            cts_fmt(sub, sizeof sub, "%s[%zu]", rest, i);
        else
            cts_fmt(sub, sizeof sub, "%s", rest);
        const char *en = json_string_value(json_object_get(e, "name"));
        if (!json_is_object(e) || !en || strcmp(en, name))
            return error_at(c, sub, "the entries of a list attribute must be objects of one "
                                    "name");
        check_other_keys(c, sub, e, ENTRY_FIELDS);
        strncat(sub, ".range_values", sizeof sub - strlen(sub) - 1);
        json_t *rv = json_object_get(e, "range_values");
        if (!attr_value(c, sub, rv, d, v, sizeof v, cm, sizeof cm))
            return leave_out(c, sub, rv, "an attribute value the suite cannot state");
        if (*cm)
            cts_fmt(l->comment, sizeof l->comment, "%s (%s)", cm, sub);
        size_t used = strlen(l->value);
        cts_fmt(l->value + used, sizeof l->value - used, "%s%s", i ? ", " : "", v);
    }
    if (list)
        strncat(l->value, "]", sizeof l->value - strlen(l->value) - 1);
    b->have_attr[k] = true;
}

static void put_line(FILE *out, const char *indent, const line *l)
{
    fprintf(out, "%s%s: %s", indent, l->key, l->value);
    if (*l->comment)
        fprintf(out, "  # %s", l->comment);
    fputc('\n', out);
}

static void emit_case(const ctx *c, json_int_t id, bool boundary, const built *b, FILE *out)
{
    fprintf(out, "  - name: id%lld  # $[%d]%s\n", (long long)id, c->ci,
            boundary ? ", is_boundary" : "");
    fprintf(out, "    dtype: %s\n", b->dtype);
    int any = 0;
    for (int k = 0; k < c->op->ntensors; k++)
        if (*b->dtypes[k].value)
            fprintf(out, "%s%s: %s", any++ ? ", " : "    dtypes: {", c->op->tensors[k].name,
                    b->dtypes[k].value);
    if (any)
        fputs("}\n", out);
    for (int k = 0; k < c->op->ntensors; k++)
        if (b->have_tensor[k])
            put_line(out, "    ", &b->shape[k]);
    for (int k = 0; k < c->op->nparams; k++)
        if (b->have_attr[k])
            put_line(out, "    ", &b->attr[k]);
    fputs("    data:\n", out);
    for (int k = 0; k < c->op->ntensors; k++)
        if (b->have_tensor[k])
            put_line(out, "      ", &b->data[k]);
}

/* The driver whose API is "aclnn" + ATK's aclnn_name. */
static const cts_op_driver *op_named(const char *aclnn_name)
{
    for (int i = 0; aclnn_name && i < cts_nops; i++)
        if (!strncmp(cts_ops[i]->api, "aclnn", 5) && !strcmp(cts_ops[i]->api + 5, aclnn_name))
            return cts_ops[i];
    return NULL;
}

/* One ATK case; written to out when it can be expressed. */
static bool one_case(ctx *c, json_t *cs, const cts_op_driver **file_op, FILE *out)
{
    static const char *const handled[] = {"standard", "id", "name", "aclnn_name", "api_type",
                                          "inputs", "is_boundary", NULL};
    c->skip = false;
    if (!json_is_object(cs)) {
        error_at(c, "", "a case must be an object");
        return false;
    }
    json_t *id = json_object_get(cs, "id"), *inputs = json_object_get(cs, "inputs");
    if (!json_is_integer(id) || json_integer_value(id) < 0) {
        error_at(c, ".id", "a case needs a non-negative integer id");
        return false;
    }
    if (!json_is_array(inputs)) {
        error_at(c, ".inputs", "a case needs a list of inputs");
        return false;
    }
    for (size_t k = 0; k < c->nids; k++)
        if (c->ids[k] == json_integer_value(id)) {
            error_at(c, ".id", "an id an earlier case has (ids name the cases)");
            return false;
        }
    json_int_t *grown = realloc(c->ids, (c->nids + 1) * sizeof *grown);
    if (!grown)
        abort();
    c->ids = grown;
    c->ids[c->nids++] = json_integer_value(id);
    c->op = op_named(json_string_value(json_object_get(cs, "aclnn_name")));
    if (!c->op) {
        leave_out(c, ".aclnn_name", json_object_get(cs, "aclnn_name"),
                  "not an operator aclcts tests");
        return false;
    }
    if (*file_op && *file_op != c->op) {
        error_at(c, ".aclnn_name", "one file, one operator: the suite holds one");
        return false;
    }
    *file_op = c->op;
    if (json_object_get(cs, "standard"))
        note_add(c, ".standard", json_object_get(cs, "standard"),
                 atk_single_bm(json_object_get(json_object_get(cs, "standard"), "acc"))
                     ? "ATK's accuracy standard single_bm: `aclcts audit --standard "
                       "atk-single-bm` judges a run by it (docs/standards.md); the suite's "
                       "verdict is the bound, and aclcts does not time"
                     : "ATK's accuracy and performance standard; aclcts judges by its own "
                       "tolerance policy (bound) and does not time");
    check_other_keys(c, "", cs, handled);
    built b;
    memset(&b, 0, sizeof b);
    size_t i;
    json_t *in;
    json_array_foreach(inputs, i, in) {
        char rest[PATH_MAX_LEN];
        cts_fmt(rest, sizeof rest, ".inputs[%zu]", i);
        const char *type = json_string_value(json_object_get(in, "type"));
        if (json_is_object(in) && type && !strcmp(type, "tensor"))
            tensor(c, rest, in, &b);
        else if ((json_is_object(in) && type && !strcmp(type, "attr")) ||
                 (json_is_array(in) && json_array_size(in) > 0))
            attribute(c, rest, in, &b);
        else
            leave_out(c, rest, json_is_object(in) ? json_object_get(in, "type") : in,
                      "an input that is neither a tensor nor an attribute");
    }
    for (int k = 0; k < c->op->ntensors && !c->skip; k++)
        if (!c->op->tensors[k].is_output && !b.have_tensor[k]) {
            json_t *name = json_string(c->op->tensors[k].api_name);
            leave_out(c, ".inputs", name, "a tensor of the operator is missing");
            json_decref(name);
        }
    if (c->skip)
        return false;
    emit_case(c, json_integer_value(id), json_is_true(json_object_get(cs, "is_boundary")), &b,
              out);
    return true;
}

static void header(const ctx *c, const char *path, const atk_summary *sum, FILE *out)
{
    fprintf(out, "# Generated by `aclcts import-atk --seed %llu` from the vendor's ATK case file\n",
            (unsigned long long)c->o->seed);
    fprintf(out, "#   %s\n", c->o->source ? c->o->source : path);
    fprintf(out, "# (%d case%s, %d imported; names are the ATK ids). Regenerate, do not edit.\n",
            sum->cases, sum->cases == 1 ? "" : "s", sum->imported);
    fputs("# Drawn parameters are keyed by (seed, operator, JSON path) and noted with their\n"
          "# range; the data of every tensor is seeded by the suite seed as in any suite.\n",
          out);
    if (c->nnotes)
        fputs("# Fields not expressed (path, value: why; cases; first):\n", out);
    for (size_t i = 0; i < c->nnotes; i++) {
        const note *n = &c->notes[i];
        fprintf(out, "#   %s = %s: %s; %d case%s; first %s\n", n->gpath, n->value, n->reason,
                n->count, n->count == 1 ? "" : "s", n->first);
    }
    fprintf(out, "suite: vendor_st.%s\nop: %s\nproduct: %s\nseed: %llu\ncases:\n", sum->op,
            sum->op, c->o->product, (unsigned long long)c->o->seed);
}

static void report(const ctx *c)
{
    for (size_t i = 0; i < c->nnotes; i++) {
        const note *n = &c->notes[i];
        fprintf(c->diag, "%s: %s = %s: not expressed: %s (%d case%s, first %s)\n", c->file,
                n->gpath, n->value, n->reason, n->count, n->count == 1 ? "" : "s", n->first);
    }
}

int atk_import(const char *path, const atk_options *o, FILE *out, FILE *diag, atk_summary *sum)
{
    ctx c = {.file = path, .o = o, .diag = diag, .ci = 0};
    memset(sum, 0, sizeof *sum);
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        fprintf(diag, "%s:%d:%d: error: %s\n", path, jerr.line, jerr.column, jerr.text);
        return 2;
    }
    if (!json_is_array(root)) {
        fprintf(diag, "%s: $: error: an ATK case file is a list of cases\n", path);
        json_decref(root);
        return 2;
    }
    char *body = NULL;
    size_t body_len = 0;
    FILE *cases = open_memstream(&body, &body_len);
    if (!cases)
        abort();
    const cts_op_driver *file_op = NULL;
    size_t i;
    json_t *cs;
    json_array_foreach(root, i, cs) {
        c.ci = (int)i;
        sum->cases++;
        sum->imported += one_case(&c, cs, &file_op, cases);
    }
    fclose(cases);
    sum->op = file_op ? file_op->name : NULL;
    sum->notes = (int)c.nnotes;
    report(&c);
    int rc = c.errors || !file_op ? 2 : sum->imported < sum->cases ? 1 : 0;
    if (!file_op && !c.errors)
        fprintf(diag, "%s: $: error: no case of an operator aclcts tests\n", path);
    if (rc < 2) {
        header(&c, path, sum, out);
        fwrite(body, 1, body_len, out);
    }
    free(body);
    for (size_t k = 0; k < c.nnotes; k++) {
        free(c.notes[k].gpath), free(c.notes[k].value);
        free(c.notes[k].reason), free(c.notes[k].first);
    }
    free(c.notes);
    free(c.ids);
    json_decref(root);
    return rc;
}
