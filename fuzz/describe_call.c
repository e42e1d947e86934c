/* A fuzzed call printed as one YAML suite case (suites/README.md format), with the exact input
 * values, so a finding becomes a permanent regression case (tools/crash2yaml). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_call.h"
#include "suite_case.h"

static void dims(FILE *out, int rank, const int64_t *d)
{
    fputc('[', out);
    for (int i = 0; i < rank; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)d[i]);
    fputc(']', out);
}

/* The operator's parameters as suite keys. */
static void params(FILE *out, const cts_case *c)
{
    for (int i = 0; i < c->op->nparams; i++) {
        const cts_param *p = &c->param[i];
        cts_param_kind kind = c->op->params[i].kind;
        fprintf(out, "    %s: ", c->op->params[i].key);
        if ((kind == CTS_PARAM_INTS || kind == CTS_PARAM_BOOLS) && p->null) {
            fputs("null", out);
        } else if (kind == CTS_PARAM_INTS) {
            dims(out, p->len, p->v);
        } else if (kind == CTS_PARAM_BOOLS) {
            fputc('[', out);
            for (int k = 0; k < p->len; k++) fprintf(out, "%s%s", k ? ", " : "",
                                                     p->v[k] ? "true" : "false");
            fputc(']', out);
        } else if (kind == CTS_PARAM_BOOL) {
            fputs(p->v[0] ? "true" : "false", out);
        } else if (kind == CTS_PARAM_DOUBLE) {
            fprintf(out, "%.17g", p->real);
        } else {
            fprintf(out, "%lld", (long long)p->v[0]);
        }
        fputc('\n', out);
    }
}

static void number(FILE *out, double x)
{
    if (isnan(x)) fputs(".nan", out);
    else if (isinf(x)) fputs(x < 0 ? "-.inf" : ".inf", out);
    else fprintf(out, "%.17g", x);
}

static void format_value(FILE *out, ref_format f)
{
    static const ref_format named[] = {REF_FMT_NCHW, REF_FMT_NHWC, REF_FMT_ND, REF_FMT_NC1HWC0,
                                       REF_FMT_FRACTAL_Z, REF_FMT_NCL, REF_FMT_UNDEFINED};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (named[i] == f) {
            for (const char *s = ref_format_name(f); *s; s++) fputc(tolower((unsigned char)*s), out);
            return;
        }
    fprintf(out, "%d", (int)f);
}

/* The value as the device receives it (cts_encode rounds floating dtypes; integer dtypes get
 * the double, which the loader encodes the same way). */
static bool floating(ref_dtype dt)
{
    return dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 || dt == REF_DT_DOUBLE;
}

/* Opens "    key: {" once, then ", " between entries. */
static void entry(FILE *out, const char *key, bool *open, const char *name)
{
    if (*open) fprintf(out, ", %s: ", name);
    else fprintf(out, "    %s: {%s: ", key, name);
    *open = true;
}

static void close_map(FILE *out, bool open)
{
    if (open) fputs("}\n", out);
}

void fuzz_describe_call(const fuzz_call *fc, FILE *out)
{
    const cts_case *c = &fc->c;
    const char *name = getenv("ACLCTS_FUZZ_CASE_NAME");
    fprintf(out, "  # %s, found by fuzz/fuzz_%s\n", c->op->api, c->op->name);
    if (fc->workspace_size_null || fc->executor_null)
        fprintf(out, "  # not expressible in a suite: the first phase got %s%s%s NULL\n",
                fc->workspace_size_null ? "workspaceSize" : "",
                fc->workspace_size_null && fc->executor_null ? " and " : "",
                fc->executor_null ? "executor" : "");
    fprintf(out, "  - name: %s\n", name && *name ? name : "fuzz_case");
    fprintf(out, "    product: %s\n    spec: %s\n", ref_product_id(c->product),
            ref_spec_name(c->spec));
    fprintf(out, "    dtype: %s\n", cts_dtype_yaml_name(c->dtype));
    if (c->deterministic) fputs("    deterministic: true\n", out);
    for (int s = 0; s < c->ntensors; s++) {
        fprintf(out, "    %s_shape: ", c->t[s].name);
        dims(out, c->t[s].rank, c->t[s].dims);
        fputc('\n', out);
    }
    bool open = false;
    for (int s = 0; s < c->ntensors; s++)
        if (c->t[s].dtype != c->dtype) {
            entry(out, "dtypes", &open, c->t[s].name);
            fputs(cts_dtype_yaml_name(c->t[s].dtype), out);
        }
    close_map(out, open);
    open = false;
    for (int s = 0; s < c->ntensors; s++) {
        ref_format natural = c->op->default_format(c->t[s].rank);
        if (c->t[s].format != natural) {
            entry(out, "formats", &open, c->t[s].name);
            format_value(out, c->t[s].format);
        }
    }
    close_map(out, open);
    open = false;
    for (int s = 0; s < c->ntensors; s++) {
        const cts_tensor *t = &c->t[s];
        if (!t->has_strides && t->offset == 0) continue;
        entry(out, "views", &open, t->name);
        fputc('{', out);
        if (t->has_strides) {
            fputs("strides: ", out);
            dims(out, t->rank, t->strides);
        }
        if (t->offset) fprintf(out, "%soffset: %lld", t->has_strides ? ", " : "",
                               (long long)t->offset);
        fputc('}', out);
    }
    close_map(out, open);
    params(out, c);
    bool any_null = false;
    for (int s = 0; s < c->ntensors; s++)
        if (c->t[s].null) {
            fprintf(out, "%s%s", any_null ? ", " : "    null: [", c->t[s].name);
            any_null = true;
        }
    if (any_null) fputs("]\n", out);
    fputs("    data:\n", out);
    for (int s = 0; s < c->ntensors; s++) {
        const cts_tensor *t = &c->t[s];
        if (t->is_output) continue;
        int64_t n = fuzz_numel(t->rank, t->dims);
        double *v = fuzz_input_values(fc, s, n);
        fprintf(out, "      %s: {values: [", t->name);
        for (int64_t k = 0; v && k < n; k++) {
            if (k) fputs(", ", out);
            number(out, floating(t->dtype) ? ref_round_to(v[k], t->dtype) : v[k]);
        }
        /* an empty tensor has no values, but a suite's list may not be empty: a placeholder
         * the call never reads */
        if (v && n <= 0) fputs("0", out);
        fputs("]}\n", out);
        free(v);
    }
}
