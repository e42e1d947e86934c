/* --dump (dump.h): case.json and .npy files of one case. */
#include "dump.h"
#include "op_driver.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "data/data.h"
#include "results/results.h"
#include "run.h"
#include "check/check.h"

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

/* What the verdict judged each element against, per output (docs/dump.md): the low word of the
 * exact value, the reference's flags, the bound of the primary value, the interval of legal exact
 * values, and every legal alternative of ambiguous elements with its bound, so a verdict can be
 * re-checked with NumPy alone. */
static int write_arr(const char *dir, const char *prefix, const char *name, const char *descr,
                     int rank, const int64_t *dims, const void *data, size_t nbytes)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s%s.npy", dir, prefix, name);
    return cts_npy_write(path, descr, rank, dims, data, nbytes);
}

static int dump_judgement(const char *dir, const cts_tensor *t, const ref_path *path,
                          const ref_output *r)
{
    size_t n = (size_t)(r->numel > 0 ? r->numel : 1);
    double *x = malloc(2 * n * sizeof *x);
    if (!x) return -1;
    int64_t dims[CTS_MAX_DIMS + 1];
    for (int i = 0; i < t->rank; i++) dims[i] = t->dims[i] > 0 ? t->dims[i] : 0;
    size_t bytes = (size_t)r->numel * 8;
    for (int64_t k = 0; k < r->numel; k++) x[k] = r->v[k].lo;
    int rc = write_arr(dir, "exact_lo_", t->name, "<f8", t->rank, dims, x, bytes);
    if (rc == 0) rc = write_arr(dir, "flags_", t->name, "|u1", t->rank, dims, r->flags,
                                (size_t)r->numel);
    for (int64_t k = 0; k < r->numel; k++) { /* interval elements: the bound of `wide` */
        double lo, hi;
        ref_value wide;
        x[k] = ref_bound(t->dtype, path, cts_interval(r, k, &lo, &hi, &wide) ? &wide : &r->v[k]);
    }
    if (rc == 0) rc = write_arr(dir, "bound_", t->name, "<f8", t->rank, dims, x, bytes);
    for (int64_t k = 0; k < r->numel; k++) { /* [lower, upper] of the legal exact values */
        ref_value wide;
        if (!cts_interval(r, k, &x[2 * k], &x[2 * k + 1], &wide))
            x[2 * k] = x[2 * k + 1] = r->v[k].hi;
    }
    dims[t->rank] = 2;
    if (rc == 0) rc = write_arr(dir, "interval_", t->name, "<f8", t->rank + 1, dims, x, 2 * bytes);
    free(x);
    double *a = malloc((size_t)(r->nalts > 0 ? r->nalts : 1) * 5 * sizeof *a);
    if (!a) return -1;
    int64_t m = 0;
    for (int64_t k = 0; k < r->numel; k++)
        for (int32_t i = 0; r->alt_first && r->alt_first[k] >= 0 && i < r->alt_count[k]; i++) {
            const ref_value *v = &r->alts[r->alt_first[k] + i];
            double row[5] = {(double)k, v->hi, v->lo, ref_bound(t->dtype, path, v),
                             ref_round_value(v, t->dtype)};
            memcpy(a + 5 * m++, row, sizeof row);
        }
    int64_t adims[2] = {m, 5};
    if (rc == 0) rc = write_arr(dir, "alts_", t->name, "<f8", 2, adims, a, (size_t)m * 40);
    free(a);
    return rc;
}

/* ---- case.json (jansson) ---- */

static json_t *int_list(const int64_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The operator's parameters by their suite keys: lists (null when passed as NULL), integers,
 * booleans. */
static json_t *params_json(const cts_case *c)
{
    json_t *o = json_object();
    for (int i = 0; i < c->op->nparams; i++) {
        const cts_param *p = &c->param[i];
        json_t *v;
        switch (c->op->params[i].kind) {
        case CTS_PARAM_INT: v = json_integer(p->v[0]); break;
        case CTS_PARAM_BOOL: v = json_boolean(p->v[0]); break;
        case CTS_PARAM_INTS: v = p->null ? json_null() : int_list(p->v, p->len); break;
        default:
            v = p->null ? json_null() : json_array();
            for (int k = 0; !p->null && k < p->len; k++)
                json_array_append_new(v, json_boolean(p->v[k]));
        }
        json_object_set_new(o, c->op->params[i].key, v);
    }
    return o;
}

static json_t *tensor_json(const cts_tensor *t, const cts_dev_tensor *d, const ref_output *ref)
{
    const char *descr = npy_descr(t->dtype);
    char file[80];
    json_t *npy = json_null();
    if (!t->null && descr) {
        snprintf(file, sizeof file, "%s.npy", t->name);
        npy = json_pack("{s:s, s:s}", "file", file, "descr", descr);
        if (t->dtype == REF_DT_BF16)
            json_object_set_new(npy, "note",
                                json_string("BF16 values stored widened to float32 (exact)"));
    }
    json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:i, s:o, s:o, s:I, s:o}", "name", t->name,
                          "role", t->is_output ? "output" : "input", "null", t->null, "dtype",
                          ref_dtype_name(t->dtype), "format", (int)t->format, "shape",
                          int_list(t->dims, t->rank), "strides", int_list(d->strides, t->rank),
                          "offset", (json_int_t)t->offset, "npy", npy);
    if (ref->numel > 0) {
        snprintf(file, sizeof file, "exact_%s.npy", t->name);
        json_object_set_new(o, "exact", json_string(file));
        snprintf(file, sizeof file, "ref_%s.npy", t->name);
        json_object_set_new(o, "ref", json_string(file));
    }
    return o;
}

/* A string as valid UTF-8 for jansson (bytes that are not become '?'). */
static json_t *text(const char *s)
{
    json_t *v = json_string(s ? s : "");
    if (v) return v;
    char *copy = strdup(s);
    for (unsigned char *p = (unsigned char *)copy; copy && *p; p++)
        if (*p >= 0x80) *p = '?';
    v = json_string(copy ? copy : "");
    free(copy);
    return v;
}

static json_t *case_json(const cts_case *c, const cts_dev_tensor d[], const ref_output ref[],
                         const cts_verdict *v)
{
    json_t *tensors = json_array();
    for (int i = 0; i < c->ntensors; i++)
        json_array_append_new(tensors, tensor_json(&c->t[i], &d[i], &ref[i]));
    json_t *o = json_pack("{s:o, s:o, s:o, s:s, s:s, s:s, s:s}", "id", text(c->id), "suite",
                          text(c->suite), "name", text(c->name), "op", c->op->name,
                          "dtype", ref_dtype_name(c->dtype), "product",
                          ref_product_id(c->product), "spec", ref_spec_name(c->spec));
    if (!o) abort();
    /* a uint64 seed above int64 is written by the record below; here only when it fits */
    json_object_set_new(o, "seed", c->seed <= INT64_MAX ? json_integer((json_int_t)c->seed)
                                                        : json_null());
    json_object_set_new(o, "params", params_json(c));
    json_object_set_new(o, "tensors", tensors);
    json_object_set_new(o, "tolerance", text(c->tolerance.name));
    json_object_set_new(o, "deterministic", json_boolean(c->deterministic));
    json_object_set_new(o, "repeat", json_integer(c->repeat));
    json_object_set_new(o, "path", text(v->path));
    json_object_set_new(o, "expected_status", json_integer(v->expected_status));
    json_object_set_new(o, "got_status", json_integer(v->got_status));
    json_object_set_new(o, "status_reason", text(v->status_reason));
    return o;
}

/* case.json: the case (jansson, indented) and, as "verdict", the case's record exactly as
 * results.jsonl holds it (its number encoding: +-inf as +-1e999, NaN as null). */
static int write_case_json(const char *dir, const cts_case *c, const cts_dev_tensor d[],
                           const ref_output ref[], const cts_verdict *v)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/case.json", dir);
    json_t *o = case_json(c, d, ref, v);
    char *doc = json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    cts_result r;
    cts_result_from_case(&r, c, c->mark.file, "");
    r.v = *v;
    size_t need = cts_jsonl_format(NULL, 0, &r) + 1;
    char *rec = malloc(need);
    FILE *f = doc && rec ? fopen(path, "w") : NULL;
    int rc = f ? 0 : -1;
    if (f) {
        cts_jsonl_format(rec, need, &r);
        size_t n = strlen(doc); /* "{...\n}": the verdict goes before the closing brace */
        fprintf(f, "%.*s,\n  \"verdict\": %s\n}\n", (int)(n - 2), doc, rec);
        rc = fclose(f) == 0 ? 0 : -1;
    }
    free(doc);
    free(rec);
    return rc;
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
    ref_path path = cts_case_path(c);
    for (int i = 0; i < c->ntensors; i++) {
        if (c->t[i].null) continue;
        if (dump_tensor(dir, &d[i]) != 0 ||
            (ref[i].numel > 0 && dump_reference(dir, &c->t[i], &ref[i]) != 0) ||
            (ref[i].numel > 0 && dump_judgement(dir, &c->t[i], &path, &ref[i]) != 0))
            return snprintf(err, errlen, "cannot write the arrays of %s in %s: %s",
                            c->t[i].name, dir, strerror(errno)), -1;
    }
    if (write_case_json(dir, c, d, ref, v) != 0)
        return snprintf(err, errlen, "cannot write %s/case.json: %s", dir, strerror(errno)), -1;
    return 0;
}
