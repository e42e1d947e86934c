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

/* DIR/<case id> (ids never hold a path; a '/' would become '_'). */
static void case_dir(const char *root, const cts_case *c, char *dir, size_t size)
{
    snprintf(dir, size, "%s/", root);
    size_t n = strlen(dir);
    for (const char *p = c->id; *p && n + 1 < size; p++) dir[n++] = *p == '/' ? '_' : *p;
    dir[n] = 0;
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
    const unsigned char *img = t->is_output ? d->back : d->sent;
    if (!descr || !img) return 0;
    img += CTS_GUARD_BYTES;
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

/* ---- the reference's arrays, streamed chunk by chunk ----
 * Per output (docs/dump.md): exact_ (the exact value's nearest double), ref_ (correctly rounded
 * to the dtype), and what the verdict judged each element against, so a verdict can be re-checked
 * with NumPy alone: exact_lo_ (the low word), flags_, bound_ (of the primary value, or of the
 * interval's end of larger magnitude), interval_ (the legal exact values [lower, upper]) and
 * alts_ (every legal alternative of ambiguous elements: index, hi, lo, bound, rounded). */
enum { A_EXACT, A_REF, A_LO, A_FLAGS, A_BOUND, A_INTERVAL, A_ALTS, A_COUNT };
static const char *const array_prefix[A_COUNT] = {"exact_", "ref_", "exact_lo_", "flags_",
                                                  "bound_", "interval_", "alts_"};

struct cts_dump_stream {
    char dir[1300];
    const cts_case *c;
    ref_path path;
    int slot;                    /* the output being written, -1 none */
    FILE *f[A_COUNT];            /* alts_: a temporary file of rows until the count is known */
    int64_t nalts;
    bool written[CTS_MAX_TENSORS];
    int failed;                  /* errno of the first failure, 0 none */
    char failed_name[64];
};

static FILE *open_array(cts_dump_stream *s, int a, const char *descr, int rank,
                        const int64_t *dims)
{
    char path[1400], head[512];
    snprintf(path, sizeof path, "%s/%s%s.npy", s->dir, array_prefix[a], s->c->t[s->slot].name);
    size_t n = cts_npy_header(descr, rank, dims, head, sizeof head);
    FILE *f = fopen(path, "wb");
    if (f && fwrite(head, 1, n, f) != n) {
        fclose(f);
        return NULL;
    }
    return f;
}

static void stream_fail(cts_dump_stream *s)
{
    if (s->failed) return;
    s->failed = errno ? errno : EIO;
    snprintf(s->failed_name, sizeof s->failed_name, "%s", s->c->t[s->slot].name);
}

static void slot_open(cts_dump_stream *s, int slot)
{
    const cts_tensor *t = &s->c->t[slot];
    int64_t dims[CTS_MAX_DIMS + 1];
    for (int i = 0; i < t->rank; i++) dims[i] = t->dims[i] > 0 ? t->dims[i] : 0;
    dims[t->rank] = 2;
    s->slot = slot;
    s->nalts = 0;
    s->written[slot] = true;
    static const char *const descr[A_ALTS] = {"<f8", "<f8", "<f8", "|u1", "<f8", "<f8"};
    for (int a = 0; a < A_ALTS; a++)
        if (!(s->f[a] = open_array(s, a, descr[a], t->rank + (a == A_INTERVAL), dims)))
            stream_fail(s);
    if (!(s->f[A_ALTS] = tmpfile())) stream_fail(s);
}

/* The alts_ file: its header once the row count is known, then the rows. */
static int write_alts(cts_dump_stream *s)
{
    int64_t adims[2] = {s->nalts, 5};
    FILE *out = open_array(s, A_ALTS, "<f8", 2, adims), *rows = s->f[A_ALTS];
    char buf[1 << 16];
    size_t n;
    int rc = out && fflush(rows) == 0 && fseek(rows, 0, SEEK_SET) == 0 ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, rows)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (out && fclose(out) != 0) rc = -1;
    return rc;
}

static void slot_close(cts_dump_stream *s)
{
    if (s->slot < 0) return;
    if (s->f[A_ALTS] && !s->failed && write_alts(s) != 0) stream_fail(s);
    for (int a = 0; a < A_COUNT; a++)
        if (s->f[a] && fclose(s->f[a]) != 0) stream_fail(s);
    memset(s->f, 0, sizeof s->f);
    s->slot = -1;
}

cts_dump_stream *cts_dump_stream_open(const char *root, const cts_case *c, const ref_path *path,
                                      char *err, size_t errlen)
{
    cts_dump_stream *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), NULL;
    case_dir(root, c, s->dir, sizeof s->dir);
    if (mkdir_p(s->dir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", s->dir, strerror(errno));
        free(s);
        return NULL;
    }
    s->c = c;
    s->path = *path;
    s->slot = -1;
    return s;
}

/* One array of a chunk: x[i] for each element (or 2 per element: interval). */
static void put(cts_dump_stream *s, int a, const void *x, size_t bytes)
{
    if (s->f[a] && fwrite(x, 1, bytes, s->f[a]) != bytes) stream_fail(s);
}

void cts_dump_stream_chunk(cts_dump_stream *s, const ref_chunk *ch)
{
    if (ch->slot != s->slot) {
        slot_close(s);
        slot_open(s, ch->slot);
    }
    const ref_output *r = ch->out;
    const cts_tensor *t = &s->c->t[ch->slot];
    size_t n = (size_t)r->numel;
    double *x = malloc(2 * (n ? n : 1) * sizeof *x);
    if (!x) {
        stream_fail(s);
        return;
    }
    for (size_t k = 0; k < n; k++) x[k] = r->v[k].hi;
    put(s, A_EXACT, x, n * 8);
    for (size_t k = 0; k < n; k++) x[k] = ref_round_value(&r->v[k], t->dtype);
    put(s, A_REF, x, n * 8);
    for (size_t k = 0; k < n; k++) x[k] = r->v[k].lo;
    put(s, A_LO, x, n * 8);
    put(s, A_FLAGS, r->flags, n);
    for (size_t k = 0; k < n; k++) { /* interval elements: the bound of `wide` */
        double lo, hi;
        ref_value wide;
        bool iv = cts_interval(r, (int64_t)k, &lo, &hi, &wide);
        x[k] = ref_bound(t->dtype, &s->path, iv ? &wide : &r->v[k]);
    }
    put(s, A_BOUND, x, n * 8);
    for (size_t k = 0; k < n; k++) { /* [lower, upper] of the legal exact values */
        ref_value wide;
        if (!cts_interval(r, (int64_t)k, &x[2 * k], &x[2 * k + 1], &wide))
            x[2 * k] = x[2 * k + 1] = r->v[k].hi;
    }
    put(s, A_INTERVAL, x, 2 * n * 8);
    free(x);
    for (size_t k = 0; k < n; k++)
        for (int32_t i = 0; r->alt_first && r->alt_first[k] >= 0 && i < r->alt_count[k]; i++) {
            const ref_value *v = &r->alts[r->alt_first[k] + i];
            double row[5] = {(double)(ch->first + (int64_t)k), v->hi, v->lo,
                             ref_bound(t->dtype, &s->path, v), ref_round_value(v, t->dtype)};
            put(s, A_ALTS, row, sizeof row);
            s->nalts++;
        }
}

int cts_dump_stream_close(cts_dump_stream *s, bool written[], char *err, size_t errlen)
{
    slot_close(s);
    int rc = s->failed ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "cannot write the arrays of %s in %s: %s", s->failed_name, s->dir,
                 strerror(s->failed));
    for (int i = 0; i < CTS_MAX_TENSORS; i++) written[i] = s->written[i];
    free(s);
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
 * booleans, doubles. */
static json_t *params_json(const cts_case *c)
{
    json_t *o = json_object();
    for (int i = 0; i < c->op->nparams; i++) {
        const cts_param *p = &c->param[i];
        json_t *v;
        switch (c->op->params[i].kind) {
        case CTS_PARAM_INT: v = json_integer(p->v[0]); break;
        case CTS_PARAM_BOOL: v = json_boolean(p->v[0]); break;
        case CTS_PARAM_DOUBLE: v = json_real(p->real); break;
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

static json_t *tensor_json(const cts_tensor *t, const cts_dev_tensor *d, bool exact)
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
    if (exact) {
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

static json_t *case_json(const cts_case *c, const cts_dev_tensor d[], const bool exact[],
                         const cts_verdict *v)
{
    json_t *tensors = json_array();
    for (int i = 0; i < c->ntensors; i++)
        json_array_append_new(tensors, tensor_json(&c->t[i], &d[i], exact[i]));
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
                           const bool exact[], const cts_verdict *v)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/case.json", dir);
    json_t *o = case_json(c, d, exact, v);
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
                  const bool exact[], const cts_verdict *v, char *err, size_t errlen)
{
    char dir[1300];
    case_dir(root, c, dir, sizeof dir);
    if (mkdir_p(dir) != 0)
        return snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno)), -1;
    for (int i = 0; i < c->ntensors; i++) {
        if (c->t[i].null) continue;
        if (dump_tensor(dir, &d[i]) != 0)
            return snprintf(err, errlen, "cannot write the arrays of %s in %s: %s",
                            c->t[i].name, dir, strerror(errno)), -1;
    }
    if (write_case_json(dir, c, d, exact, v) != 0)
        return snprintf(err, errlen, "cannot write %s/case.json: %s", dir, strerror(errno)), -1;
    return 0;
}
