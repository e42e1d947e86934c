/* `aclcts import-ttk`: the vendor's TTK kernel case files as suites. A row of
 * avg_pool_v2_grad (the kernel aclnnAvgPool2dBackward lowers to on ascend950) becomes an
 * avgpool2d_backward case read the way the vendor's golden (the directory's
 * tests/assets/golden.py) reads the row: global_pooling takes the whole input as the window,
 * a window larger than the input is clipped to it, padding_mode SAME pads (out - 1) x stride +
 * kernel - in in total with the smaller half first, CALCULATED uses pads' top and left, and
 * exclusive is the inverse of count_include_pad. A row whose window, padding or given
 * gradient shape no aclnnAvgPool2dBackward call can have is left out with the reason. */
#include "import.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suite/suite.h"
#include "ttk.h"

/* The columns a row is read from; any other column, and these when their value is not
 * expressed, are reported by name. */
static const char *const READ[] = {"testcase_name", "op_name", "input_dtypes", "input_shapes",
                                   "output_shapes", "input_ori_shapes", "output_ori_shapes",
                                   "output_dtypes", "attributes", "input_formats",
                                   "output_formats", "input_ori_formats", "output_ori_formats",
                                   "input_data_ranges", "soc_series", NULL};

#define MAX_NOTES 32

typedef struct {
    char text[600];            /* "column = value: why" */
    int rows, first;           /* rows with it; the first (1-based line of the file) */
} note;

typedef struct {
    const char *path;
    FILE *diag;
    char **head;
    size_t nhead;
    note notes[MAX_NOTES];
    int nnotes, line;
} ctx;

static void note_add(ctx *c, const char *column, const char *value, const char *why)
{
    char t[600];
    cts_fmt(t, sizeof t, "%s = %.200s: %s", column, value, why);
    for (int i = 0; i < c->nnotes; i++)
        if (!strcmp(c->notes[i].text, t)) {
            c->notes[i].rows++;
            return;
        }
    if (c->nnotes == MAX_NOTES) return;
    note *n = &c->notes[c->nnotes++];
    cts_fmt(n->text, sizeof n->text, "%s", t);
    n->rows = 1;
    n->first = c->line;
}

static const char *cell(const ctx *c, char **f, size_t n, const char *column)
{
    for (size_t i = 0; i < c->nhead && i < n; i++)
        if (!strcmp(c->head[i], column)) return f[i];
    return "";
}

/* The window of one row in NCHW terms, as the vendor's golden computes it. */
typedef struct {
    long in[4], go[4];          /* self (N, C, H, W) and grad_output shapes */
    long k[2], s[2], p[2];
    bool ceil, include_pad;
    long divisor;               /* 0: none */
    const char *dtype;
} pool;

static bool ints(const ttk_val *v, long *out, size_t n)
{
    if (!v || v->kind != TTK_LIST || v->n != n) return false;
    for (size_t i = 0; i < n; i++) { /* whole numbers a long holds exactly, no more */
        double x = v->items[i]->num;
        if (v->items[i]->kind != TTK_NUM || x != floor(x) || fabs(x) > 0x1p52) return false;
        out[i] = (long)x;
    }
    return true;
}

/* A pair (H, W) from a 1-, 2- or 4-element list (4: in the data format's order). */
static bool pair(const ttk_val *v, bool nhwc, long out[2])
{
    long x[4];
    if (ints(v, x, 1)) { out[0] = out[1] = x[0]; return true; }
    if (ints(v, x, 2)) { out[0] = x[0]; out[1] = x[1]; return true; }
    if (!ints(v, x, 4)) return false;
    out[0] = x[nhwc ? 1 : 2];
    out[1] = x[nhwc ? 2 : 3];
    return true;
}

/* aclnnAvgPool2dBackward's forward output size along one axis (PyTorch's rule). */
static long out_size(long in, long k, long s, long p, bool ceil)
{
    long o = (in + 2 * p - k + (ceil ? s - 1 : 0)) / s + 1;
    if (ceil && (o - 1) * s >= in + p) o--;
    return o;
}

static const char *suite_dtype(const char *t)
{
    static const char *const m[][2] = {{"float32", "float32"}, {"float16", "float16"},
                                       {"bfloat16", "bfloat16"}, {"float", "float32"}};
    for (size_t i = 0; t && i < sizeof m / sizeof *m; i++)
        if (!strcmp(t, m[i][0])) return m[i][1];
    return NULL;
}

static bool flag(const ttk_val *a, const char *k, bool dflt)
{
    const ttk_val *v = ttk_get(a, k);
    return v && v->kind == TTK_BOOL ? v->num != 0 : dflt;
}

/* The row's attributes into p (shapes set already); NULL, or why it is left out. */
static const char *window(const ttk_val *a, bool nhwc, pool *p)
{
    long s[2], pads[4] = {0, 0, 0, 0};
    if (!pair(ttk_get(a, "ksize"), nhwc, p->k) || !pair(ttk_get(a, "strides"), nhwc, s))
        return "attributes: ksize or strides missing or not 1, 2 or 4 integers";
    const ttk_val *pv = ttk_get(a, "pads"), *mv = ttk_get(a, "padding_mode");
    if (pv && !ints(pv, pads, 4)) return "attributes: pads is not 4 integers";
    const char *mode = mv && mv->kind == TTK_STR ? mv->str : "CALCULATED";
    const ttk_val *dv = ttk_get(a, "divisor_override");
    p->divisor = dv && dv->kind == TTK_NUM ? (long)dv->num : 0;
    long ih = p->in[2], iw = p->in[3];
    if (flag(a, "global_pooling", false)) {
        p->k[0] = s[0] = ih;
        p->k[1] = s[1] = iw;
        memset(pads, 0, sizeof pads);
        mode = "CALCULATED";
    }
    p->k[0] = p->k[0] > ih ? ih : p->k[0];
    p->k[1] = p->k[1] > iw ? iw : p->k[1];
    p->s[0] = s[0];
    p->s[1] = s[1];
    if (!strcmp(mode, "VALID")) {
        p->p[0] = p->p[1] = 0;
    } else if (!strcmp(mode, "SAME")) {
        long rows = (p->go[2] - 1) * s[0] + p->k[0] - ih;
        long cols = (p->go[3] - 1) * s[1] + p->k[1] - iw;
        p->p[0] = (rows > 0 ? rows : 0) / 2;
        p->p[1] = (cols > 0 ? cols : 0) / 2;
    } else if (!strcmp(mode, "CALCULATED")) {
        p->p[0] = pads[0];
        p->p[1] = pads[2];
    } else {
        return "attributes: padding_mode is not SAME, VALID or CALCULATED";
    }
    p->ceil = flag(a, "ceil_mode", false);
    p->include_pad = !flag(a, "exclusive", true);
    if (p->s[0] < 1 || p->s[1] < 1 || p->k[0] < 1 || p->k[1] < 1)
        return "a window or stride below 1";
    if (2 * p->p[0] > p->k[0] || 2 * p->p[1] > p->k[1])
        return "its padding is more than half the window, which aclnnAvgPool2dBackward refuses";
    if (out_size(ih, p->k[0], p->s[0], p->p[0], p->ceil) != p->go[2] ||
        out_size(iw, p->k[1], p->s[1], p->p[1], p->ceil) != p->go[3])
        return "its input_grad's H x W is not the output size aclnnAvgPool2dBackward derives "
               "from these parameters";
    if (p->include_pad && !p->divisor && p->ceil)
        return "exclusive False with ceil_mode and no divisor_override: the kernel divides "
               "by ksize where aclnn stops the window at the padded edge";
    return NULL;
}

/* A shape tuple in NCHW order. */
static bool shape4(const ttk_val *v, bool nhwc, long out[4])
{
    long x[4];
    if (!ints(v, x, 4) || x[0] < 0 || x[1] < 0 || x[2] < 0 || x[3] < 0) return false;
    long nchw[4] = {x[0], x[3], x[1], x[2]};
    memcpy(out, nhwc ? nchw : x, sizeof nchw);
    return true;
}

/* The row's shapes, dtype and data format; NULL, or why it is left out. */
static const char *shapes(ctx *c, char **f, size_t n, const ttk_val *attrs, pool *p)
{
    ttk_val *dts = ttk_parse(cell(c, f, n, "input_dtypes"));
    ttk_val *ins = ttk_parse(cell(c, f, n, "input_shapes"));
    ttk_val *outs = ttk_parse(cell(c, f, n, "output_shapes"));
    const ttk_val *fm = ttk_get(attrs, "data_format");
    bool nhwc = fm && fm->kind == TTK_STR && !strcmp(fm->str, "NHWC");
    const char *why = NULL;
    if (!dts || dts->kind != TTK_LIST || dts->n != 2 || dts->items[1]->kind != TTK_STR ||
        !(p->dtype = suite_dtype(dts->items[1]->str)))
        why = "input_dtypes: not (int32, FLOAT DTYPE) with a float32, float16 or bfloat16 gradient";
    else if (!ins || ins->kind != TTK_LIST || ins->n != 2 || !shape4(ins->items[1], nhwc, p->go))
        why = "input_shapes: the gradient is not 4-D (of sizes 0 to 2^52)";
    else if (!outs || outs->kind != TTK_LIST || outs->n != 1 ||
             !shape4(outs->items[0], nhwc, p->in))
        why = "output_shapes: the output is not 4-D (of sizes 0 to 2^52)";
    if (!why && nhwc)
        note_add(c, "data_format", "NHWC", "imported as NCHW (the same values; the suite's "
                 "avg-pool tensors are NCHW)");
    ttk_free(dts);
    ttk_free(ins);
    ttk_free(outs);
    static const char *const same[][2] = {
        {"input_ori_shapes", "input_shapes"}, {"output_ori_shapes", "output_shapes"},
        {"input_ori_formats", "input_formats"}, {"output_ori_formats", "output_formats"}};
    for (size_t i = 0; !why && i < sizeof same / sizeof *same; i++)
        if (strcmp(cell(c, f, n, same[i][0]), cell(c, f, n, same[i][1])))
            note_add(c, same[i][0], cell(c, f, n, same[i][0]), "differs from the storage "
                     "columns, which the suite follows");
    char want[64];
    cts_fmt(want, sizeof want, "('%s',)", p->dtype ? p->dtype : "");
    if (!why && strcmp(cell(c, f, n, "output_dtypes"), want))
        note_add(c, "output_dtypes", cell(c, f, n, "output_dtypes"), "not the gradient's "
                 "dtype: the suite's output has the case dtype");
    return why;
}

static void write_data(FILE *out, ctx *c, const char *ranges)
{
    ttk_val *r = ttk_parse(ranges);
    double lo, hi;
    const ttk_val *x = r && r->kind == TTK_LIST && r->n == 1 ? r->items[0] : NULL;
    if (x && x->kind == TTK_LIST && x->n == 2 && x->items[0]->kind == TTK_NUM &&
        x->items[1]->kind == TTK_NUM) {
        lo = x->items[0]->num;
        hi = x->items[1]->num;
        if (lo == hi) fprintf(out, "    data: {grad_output: {values: [%.17g]}}\n", lo);
        else fprintf(out, "    data: {grad_output: {uniform: [%.17g, %.17g]}}\n", lo, hi);
    } else if (*ranges) {
        note_add(c, "input_data_ranges", ranges, "not one (lo, hi) range: the suite's default "
                 "data instead");
    }
    ttk_free(r);
}

/* One row: written as a case, or left out (reported). true when written. */
static bool row(ctx *c, char **f, size_t n, FILE *out, int idx)
{
    const char *name = cell(c, f, n, "testcase_name"), *op = cell(c, f, n, "op_name");
    for (size_t i = 0; i < c->nhead && i < n; i++) {
        bool read = false;
        for (int k = 0; READ[k]; k++) read |= !strcmp(READ[k], c->head[i]);
        bool precision = !strcmp(c->head[i], "precision_tolerances") ||
                         !strcmp(c->head[i], "absolute_precision");
        if (!read && f[i][0])
            note_add(c, c->head[i], f[i], precision ? "not expressed (aclcts judges by its "
                     "bound; `aclcts audit --standard` for the vendor's standards)"
                     : "not expressed: a column this importer does not know");
    }
    const char *why = strcmp(op, "avg_pool_v2_grad") ? "op_name is not avg_pool_v2_grad, the "
                      "kernel of aclnnAvgPool2dBackward this importer knows" : NULL;
    ttk_val *attrs = why ? NULL : ttk_parse(cell(c, f, n, "attributes"));
    pool p;
    memset(&p, 0, sizeof p);
    if (!why && (!attrs || attrs->kind != TTK_DICT)) why = "attributes: not a dict";
    if (!why) why = shapes(c, f, n, attrs, &p);
    if (!why) why = window(attrs, false, &p);
    ttk_free(attrs);
    if (why) {
        fprintf(c->diag, "%s:%d: %s: row left out: %s\n", c->path, c->line, name, why);
        return false;
    }
    fprintf(out, "  - name: %s  # line %d, row %d\n    dtype: %s\n", *name ? name : "row",
            c->line, idx, p.dtype);
    fprintf(out, "    self_shape: [%ld, %ld, %ld, %ld]\n", p.in[0], p.in[1], p.in[2], p.in[3]);
    fprintf(out, "    grad_output_shape: [%ld, %ld, %ld, %ld]\n", p.go[0], p.go[1], p.go[2],
            p.go[3]);
    fprintf(out, "    kernel_size: [%ld, %ld]\n    stride: [%ld, %ld]\n    padding: [%ld, %ld]\n",
            p.k[0], p.k[1], p.s[0], p.s[1], p.p[0], p.p[1]);
    fprintf(out, "    ceil_mode: %s\n    count_include_pad: %s\n", p.ceil ? "true" : "false",
            p.include_pad ? "true" : "false");
    if (p.divisor) fprintf(out, "    divisor_override: %ld\n", p.divisor);
    fprintf(out, "    cube_math_type: 0  # the kernel case has none: KEEP_DTYPE\n");
    write_data(out, c, cell(c, f, n, "input_data_ranges"));
    const char *soc = cell(c, f, n, "soc_series");
    if (*soc) note_add(c, "soc_series", soc, "the suite's product is --product's");
    return true;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = f ? open_memstream(&buf, &len) : NULL;
    int ch;
    while (m && (ch = fgetc(f)) != EOF) fputc(ch, m);
    if (m) fclose(m);
    if (f) fclose(f);
    return f ? buf : NULL;
}

static void free_fields(char **f, size_t n)
{
    for (size_t i = 0; i < n; i++) free(f[i]);
    free(f);
}

static void header(FILE *out, const ctx *c, const atk_options *o, int rows, int imported)
{
    fprintf(out, "# Generated by `aclcts import-ttk --seed %llu` from the vendor's TTK case file\n"
            "#   %s\n# (%d rows, %d imported; names are the TTK testcase names). Regenerate, do "
            "not edit.\n# Columns not expressed (column = value: why; rows; first line):\n",
            (unsigned long long)o->seed, o->source ? o->source : c->path, rows, imported);
    for (int i = 0; i < c->nnotes; i++)
        fprintf(out, "#   %s; %d rows; line %d\n", c->notes[i].text, c->notes[i].rows,
                c->notes[i].first);
    if (!c->nnotes) fputs("#   none\n", out);
    fprintf(out, "suite: vendor_ttk.avgpool2d_backward\nop: avgpool2d_backward\nproduct: %s\n"
            "seed: %llu\ncases:\n", o->product, (unsigned long long)o->seed);
}

int ttk_import(const char *path, const atk_options *o, FILE *out, FILE *diag, atk_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    ctx c = {.path = path, .diag = diag, .line = 1};
    char *text = slurp(path), *body = NULL;
    size_t blen = 0;
    if (!text) {
        fprintf(diag, "aclcts: error: %s: %s\n", path, strerror(errno));
        return 2;
    }
    const char *p = text;
    if (ttk_csv_record(&p, &c.head, &c.nhead) ||
        strcmp(c.nhead ? c.head[0] : "", "testcase_name")) {
        fprintf(diag, "aclcts: error: %s:1: not a TTK case file (its first column is not "
                "testcase_name)\n", path);
        free_fields(c.head, c.nhead);
        free(text);
        return 2;
    }
    FILE *cases = open_memstream(&body, &blen);
    char **f;
    size_t n;
    while (cases && ttk_csv_record(&p, &f, &n) == 0) {
        c.line++;
        if (n == 1 && !f[0][0]) { free_fields(f, n); continue; }
        sum->cases++;
        sum->imported += row(&c, f, n, cases, sum->cases);
        free_fields(f, n);
    }
    if (cases) fclose(cases);
    header(out, &c, o, sum->cases, sum->imported);
    fputs(body ? body : "", out);
    for (int i = 0; i < c.nnotes; i++)
        fprintf(diag, "%s:%d: %s; %d rows\n", path, c.notes[i].first, c.notes[i].text,
                c.notes[i].rows);
    sum->notes = c.nnotes;
    sum->op = "avgpool2d_backward";
    free(body);
    free_fields(c.head, c.nhead);
    free(text);
    if (!sum->imported)
        fprintf(diag, "aclcts: error: %s: no row could be imported: no suite written\n", path);
    return !sum->imported ? 2 : sum->imported == sum->cases ? 0 : 1;
}
