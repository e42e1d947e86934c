/* --dump (dump.h): case.json and .npy files of one case. */
#include "dump.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"
#include "run_reference.h"

static int mkdir_p(const char *path)
{
    char buf[1400];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* NumPy type of a dtype as stored; BF16 is widened to '<f4' (numpy has no bfloat16). */
static const char *npy_descr(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT16: return "<f2";
    case REF_DT_FLOAT: case REF_DT_BF16: return "<f4";
    case REF_DT_DOUBLE: return "<f8";
    case REF_DT_INT8: return "|i1";
    case REF_DT_UINT8: return "|u1";
    case REF_DT_BOOL: return "|b1";
    case REF_DT_INT16: return "<i2";
    case REF_DT_UINT16: return "<u2";
    case REF_DT_INT32: return "<i4";
    case REF_DT_UINT32: return "<u4";
    case REF_DT_INT64: return "<i8";
    case REF_DT_UINT64: return "<u8";
    default: return NULL;
    }
}

static int write_npy(const char *dir, const char *prefix, const char *name, const char *descr,
                     const cts_tensor *t, const void *data, size_t nbytes)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s%s.npy", dir, prefix, name);
    int64_t dims[CTS_MAX_DIMS];
    for (int i = 0; i < t->rank; i++) dims[i] = t->dims[i] > 0 ? t->dims[i] : 0;
    return cts_npy_write(path, descr, t->rank, dims, data, nbytes);
}

/* The view of a tensor from its host image (inputs as sent, outputs as read back). */
static int dump_tensor(const char *dir, const cts_dev_tensor *d)
{
    const cts_tensor *t = d->t;
    const char *descr = npy_descr(t->dtype);
    if (!descr || !d->sent) return 0;
    const unsigned char *img = (t->is_output ? d->back : d->sent) + CTS_GUARD_BYTES;
    size_t out_size = t->dtype == REF_DT_BF16 ? 4 : d->esize;
    unsigned char *buf = malloc((size_t)(d->numel > 0 ? d->numel : 1) * out_size);
    if (!buf) return -1;
    for (int64_t k = 0; k < d->numel; k++) {
        const unsigned char *src = img + cts_dev_tensor_pos(d, k) * d->esize;
        if (t->dtype == REF_DT_BF16) {
            float f = (float)cts_decode(t->dtype, src); /* exact widening */
            memcpy(buf + k * 4, &f, 4);
        } else {
            memcpy(buf + (size_t)k * out_size, src, out_size);
        }
    }
    int rc = write_npy(dir, "", t->name, descr, t, buf, (size_t)d->numel * out_size);
    free(buf);
    return rc;
}

static int dump_reference(const char *dir, const cts_tensor *t, const ref_output *r)
{
    double *x = malloc((size_t)(r->numel > 0 ? r->numel : 1) * sizeof *x);
    if (!x) return -1;
    for (int64_t k = 0; k < r->numel; k++) x[k] = r->v[k].hi;
    int rc = write_npy(dir, "exact_", t->name, "<f8", t, x, (size_t)r->numel * 8);
    for (int64_t k = 0; k < r->numel; k++) x[k] = ref_round_value(&r->v[k], t->dtype);
    if (rc == 0) rc = write_npy(dir, "ref_", t->name, "<f8", t, x, (size_t)r->numel * 8);
    free(x);
    return rc;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_ints(FILE *f, const int64_t *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(']', f);
}

static void json_int_array(FILE *f, const char *key, const cts_int_array *a)
{
    fprintf(f, "    \"%s\": ", key);
    if (a->null) fputs("null", f);
    else json_ints(f, a->v, a->len);
    fputs(",\n", f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fprintf(f, "\"%s\"", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
}

static void write_params(FILE *f, const cts_case *c)
{
    fputs("  \"params\": {\n", f);
    if (c->op == REF_OP_AVGPOOL2D_BACKWARD) {
        json_int_array(f, "kernel_size", &c->kernel_size);
        json_int_array(f, "stride", &c->stride);
        json_int_array(f, "padding", &c->padding);
        fprintf(f, "    \"ceil_mode\": %s,\n    \"count_include_pad\": %s,\n"
                   "    \"divisor_override\": %lld,\n    \"cube_math_type\": %lld\n",
                c->ceil_mode ? "true" : "false", c->count_include_pad ? "true" : "false",
                (long long)c->divisor_override, (long long)c->cube_math_type);
    } else {
        fprintf(f, "    \"interpolation_mode\": %lld,\n    \"padding_mode\": %lld,\n"
                   "    \"align_corners\": %s,\n    \"output_mask\": ",
                (long long)c->interpolation_mode, (long long)c->padding_mode,
                c->align_corners ? "true" : "false");
        if (c->output_mask_null) fputs("null", f);
        else {
            fputc('[', f);
            for (int i = 0; i < c->output_mask_len; i++)
                fprintf(f, "%s%s", i ? ", " : "", c->output_mask[i] ? "true" : "false");
            fputc(']', f);
        }
        fputc('\n', f);
    }
    fputs("  },\n", f);
}

static void write_tensors(FILE *f, const cts_case *c, const cts_dev_tensor d[],
                          const ref_output ref[])
{
    fputs("  \"tensors\": [\n", f);
    for (int i = 0; i < c->ntensors; i++) {
        const cts_tensor *t = &c->t[i];
        const char *descr = npy_descr(t->dtype);
        fputs("    {\"name\": ", f);
        json_str(f, t->name);
        fprintf(f, ", \"role\": \"%s\", \"null\": %s, \"dtype\": ",
                t->is_output ? "output" : "input", t->null ? "true" : "false");
        json_str(f, ref_dtype_name(t->dtype));
        fprintf(f, ", \"format\": %d, \"shape\": ", (int)t->format);
        json_ints(f, t->dims, t->rank);
        fputs(", \"strides\": ", f);
        json_ints(f, d[i].strides, t->rank);
        fprintf(f, ", \"offset\": %lld, \"npy\": ", (long long)t->offset);
        if (t->null || !descr) fputs("null", f);
        else {
            fprintf(f, "{\"file\": \"%s.npy\", \"descr\": \"%s\"%s}", t->name, descr,
                    t->dtype == REF_DT_BF16
                        ? ", \"note\": \"BF16 values stored widened to float32 (exact)\""
                        : "");
        }
        if (ref[i].numel > 0)
            fprintf(f, ", \"exact\": \"exact_%s.npy\", \"ref\": \"ref_%s.npy\"", t->name,
                    t->name);
        fprintf(f, "}%s\n", i + 1 < c->ntensors ? "," : "");
    }
    fputs("  ],\n", f);
}

static void write_verdict(FILE *f, const cts_verdict *v)
{
    fputs("  \"verdict\": {\"status\": ", f);
    json_str(f, cts_status_name(v->status));
    fputs(", \"check\": ", f);
    json_str(f, v->check);
    fputs(", \"message\": ", f);
    json_str(f, v->message);
    fprintf(f, ", \"nelems\": %lld, \"worst_ulp\": ", (long long)v->nelems);
    json_num(f, v->worst_ulp);
    fputs(", \"worst_bound_units\": ", f);
    json_num(f, v->worst_bound_units);
    fputs(", \"worst_rel\": ", f);
    json_num(f, v->worst_rel);
    fputs(", \"worst_output\": ", f);
    json_str(f, v->worst_output);
    fprintf(f, ", \"worst_index\": %lld, \"worst_got\": ", (long long)v->worst_index);
    json_num(f, v->worst_got);
    fputs(", \"worst_exact\": ", f);
    json_num(f, v->worst_exact);
    fputs(", \"spread_ulp\": ", f);
    json_num(f, v->spread_ulp);
    fprintf(f, ", \"output_hash\": \"%016llx\"}\n", (unsigned long long)v->output_hash);
}

static int write_case_json(const char *dir, const cts_case *c, const cts_dev_tensor d[],
                           const ref_output ref[], const cts_verdict *v)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/case.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("{\n  \"id\": ", f);
    json_str(f, c->id);
    fputs(",\n  \"suite\": ", f);
    json_str(f, c->suite);
    fputs(",\n  \"name\": ", f);
    json_str(f, c->name);
    fprintf(f, ",\n  \"op\": \"%s\",\n  \"dtype\": ",
            c->op == REF_OP_AVGPOOL2D_BACKWARD ? "avgpool2d_backward" : "grid_sampler2d_backward");
    json_str(f, ref_dtype_name(c->dtype));
    fputs(",\n  \"product\": ", f);
    json_str(f, ref_product_id(c->product));
    fputs(",\n  \"spec\": ", f);
    json_str(f, ref_spec_name(c->spec));
    fprintf(f, ",\n  \"seed\": %llu,\n", (unsigned long long)c->seed);
    write_params(f, c);
    write_tensors(f, c, d, ref);
    fputs("  \"tolerance\": ", f);
    json_str(f, c->tolerance.name);
    fprintf(f, ",\n  \"deterministic\": %s,\n  \"repeat\": %d,\n  \"path\": ",
            c->deterministic ? "true" : "false", c->repeat);
    json_str(f, v->path);
    fprintf(f, ",\n  \"expected_status\": %d,\n  \"got_status\": %d,\n  \"status_reason\": ",
            v->expected_status, v->got_status);
    json_str(f, v->status_reason);
    fputs(",\n", f);
    write_verdict(f, v);
    fputs("}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

int cts_dump_case(const char *root, const cts_case *c, const cts_dev_tensor d[],
                  const ref_output ref[], const cts_verdict *v, char *err, size_t errlen)
{
    char dir[1300];
    snprintf(dir, sizeof dir, "%s/", root);
    size_t n = strlen(dir);
    for (const char *p = c->id; *p && n + 1 < sizeof dir; p++) /* ids never hold a path */
        dir[n++] = *p == '/' ? '_' : *p;
    dir[n] = 0;
    if (mkdir_p(dir) != 0)
        return snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno)), -1;
    for (int i = 0; i < c->ntensors; i++) {
        if (c->t[i].null) continue;
        if (dump_tensor(dir, &d[i]) != 0 ||
            (ref[i].numel > 0 && dump_reference(dir, &c->t[i], &ref[i]) != 0))
            return snprintf(err, errlen, "cannot write the arrays of %s in %s: %s",
                            c->t[i].name, dir, strerror(errno)), -1;
    }
    if (write_case_json(dir, c, d, ref, v) != 0)
        return snprintf(err, errlen, "cannot write %s/case.json: %s", dir, strerror(errno)), -1;
    return 0;
}
