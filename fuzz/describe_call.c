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

static void int_array(FILE *out, const char *key, const cts_int_array *a)
{
    fprintf(out, "    %s: ", key);
    if (a->null) fputs("null", out);
    else dims(out, a->len, a->v);
    fputc('\n', out);
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
    bool avg = c->op == REF_OP_AVGPOOL2D_BACKWARD;
    fprintf(out, "  # %s, found by fuzz/%s\n", avg ? "aclnnAvgPool2dBackward"
                                                  : "aclnnGridSampler2DBackward",
            avg ? "fuzz_avgpool2d_backward" : "fuzz_grid_sampler2d_backward");
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
        ref_format natural = !avg ? REF_FMT_ND : c->t[s].rank == 3 ? REF_FMT_NCL : REF_FMT_NCHW;
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
    if (avg) {
        int_array(out, "kernel_size", &c->kernel_size);
        int_array(out, "stride", &c->stride);
        int_array(out, "padding", &c->padding);
        fprintf(out, "    ceil_mode: %s\n    count_include_pad: %s\n",
                c->ceil_mode ? "true" : "false", c->count_include_pad ? "true" : "false");
        fprintf(out, "    divisor_override: %lld\n    cube_math_type: %lld\n",
                (long long)c->divisor_override, (long long)c->cube_math_type);
    } else {
        fprintf(out, "    interpolation_mode: %lld\n    padding_mode: %lld\n",
                (long long)c->interpolation_mode, (long long)c->padding_mode);
        fprintf(out, "    align_corners: %s\n    output_mask: ",
                c->align_corners ? "true" : "false");
        if (c->output_mask_null) fputs("null", out);
        else {
            fputc('[', out);
            for (int i = 0; i < c->output_mask_len; i++)
                fprintf(out, "%s%s", i ? ", " : "", c->output_mask[i] ? "true" : "false");
            fputc(']', out);
        }
        fputc('\n', out);
    }
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
        for (int64_t k = 0; v && k < (n > 0 ? n : 1); k++) {
            if (k) fputs(", ", out);
            number(out, floating(t->dtype) ? ref_round_to(v[k], t->dtype) : v[k]);
        }
        fputs("]}\n", out);
        free(v);
    }
}
