/* results.jsonl: one flat JSON object per finished case. The field table below is the single
 * description of the format; the writer and the reader both walk it. */
#include "results.h"
#include "sink.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum {
    F_STR, F_INT, F_I32, F_I64, F_U64, F_HEX, F_DBL, F_STATUS, F_BOOL, F_HIST, F_GRID
} field_kind;

/* Written always, only for cases with element statistics (v.el), only with an error grid. */
typedef enum { ALWAYS, IF_STATS, IF_GRID } field_when;

typedef struct {
    const char *key;
    field_kind kind;
    size_t offset, size;
    field_when when;
} field;

#define R(k, kind, m) {k, kind, offsetof(cts_result, m), sizeof(((cts_result *)0)->m), ALWAYS}
#define S(k, kind, m) {k, kind, offsetof(cts_result, m), sizeof(((cts_result *)0)->m), IF_STATS}
static const field fields[] = {
    R("id", F_STR, v.case_id),
    R("suite", F_STR, suite),
    R("file", F_STR, file),
    R("op", F_STR, op),
    R("dtype", F_STR, dtype),
    R("cube_math_type", F_INT, cube_math_type),
    R("product", F_STR, product),
    R("seed", F_U64, seed),
    R("deterministic", F_BOOL, deterministic),
    R("backend", F_STR, backend),
    R("status", F_STATUS, v.status),
    R("check", F_STR, v.check),
    R("message", F_STR, v.message),
    R("expected_status", F_I32, v.expected_status),
    R("got_status", F_I32, v.got_status),
    R("reason", F_STR, v.status_reason),
    R("path", F_STR, v.path),
    R("nelems", F_I64, v.nelems),
    R("worst_ulp", F_DBL, v.worst_ulp),
    R("worst_bound_units", F_DBL, v.worst_bound_units),
    R("worst_rel", F_DBL, v.worst_rel),
    R("worst_output", F_STR, v.worst_output),
    R("worst_index", F_I64, v.worst_index),
    R("worst_got", F_DBL, v.worst_got),
    R("worst_exact", F_DBL, v.worst_exact),
    R("spread_ulp", F_DBL, v.spread_ulp),
    R("output_hash", F_HEX, v.output_hash),
    R("t_total", F_DBL, v.t_total),
    R("t_gen", F_DBL, v.t_gen),
    R("t_device", F_DBL, v.t_device),
    R("t_ref", F_DBL, v.t_ref),
    R("t_check", F_DBL, v.t_check),
    R("repro", F_STR, repro),
    R("log", F_STR, log),
    /* the precision audit's per-element statistics (audit_stats.h); histograms sparse as
     * "bin:count,..." */
    S("el_n", F_I64, v.el.n),
    S("el_skipped", F_I64, v.el.skipped),
    S("ulp_sum", F_DBL, v.el.sum[0]),
    S("bound_sum", F_DBL, v.el.sum[1]),
    S("rel_sum", F_DBL, v.el.sum[2]),
    S("ulp_max", F_DBL, v.el.max[0]),
    S("bound_max", F_DBL, v.el.max[1]),
    S("rel_max", F_DBL, v.el.max[2]),
    S("meets_ascend_thousandth", F_I64, v.el.meets[0]),
    S("meets_ascend_ten_thousandth", F_I64, v.el.meets[1]),
    S("meets_torch_default", F_I64, v.el.meets[2]),
    S("hist_ulp", F_HIST, v.el.hist[0]),
    S("hist_bound", F_HIST, v.el.hist[1]),
    S("hist_rel", F_HIST, v.el.hist[2]),
    /* "OUTPUT H W PLANE ROWS COLS WORST HEXCODES" */
    {"grid", F_GRID, offsetof(cts_result, v.grid), sizeof(cts_error_grid), IF_GRID},
};
#undef S
#undef R
#define NFIELDS (sizeof fields / sizeof fields[0])

/* ---- writing ---- */


/* Length of the valid UTF-8 sequence at p, or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (p[0] >= 0xf5)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

static void put_string(cts_sink *s, const char *str)
{
    cts_sink_put(s, "\"");
    for (const unsigned char *p = (const unsigned char *)str; *p;) {
        if (*p == '"' || *p == '\\')
            cts_sink_put(s, "\\%c", *p++);
        else if (*p == '\n')
            cts_sink_put(s, "\\n"), p++;
        else if (*p == '\t')
            cts_sink_put(s, "\\t"), p++;
        else if (*p < 0x20 || *p == 0x7f)
            cts_sink_put(s, "\\u%04x", *p++);
        else if (*p < 0x80)
            cts_sink_put(s, "%c", *p++);
        else {
            int n = utf8_len(p);
            if (n)
                cts_sink_put(s, "%.*s", n, (const char *)p), p += n;
            else
                cts_sink_put(s, "\\ufffd"), p++; /* not UTF-8 (e.g. a crashing child's bytes) */
        }
    }
    cts_sink_put(s, "\"");
}

static void put_double(cts_sink *s, double d)
{
    if (isnan(d))
        cts_sink_put(s, "\"NaN\"");
    else if (isinf(d))
        cts_sink_put(s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        cts_sink_put(s, "%.17g", d);
}

static void put_hist(cts_sink *s, const uint32_t *h)
{
    cts_sink_put(s, "\"");
    for (int b = 0, n = 0; b < CTS_STAT_BINS; b++)
        if (h[b]) cts_sink_put(s, "%s%d:%lu", n++ ? "," : "", b, (unsigned long)h[b]);
    cts_sink_put(s, "\"");
}

static void put_grid(cts_sink *s, const cts_error_grid *g)
{
    cts_sink_put(s, "\"%s %lld %lld %lld %d %d ", g->output, (long long)g->h, (long long)g->w,
        (long long)g->plane, (int)g->rows, (int)g->cols);
    if (isfinite(g->worst)) cts_sink_put(s, "%.17g ", g->worst);
    else cts_sink_put(s, "%s ", isnan(g->worst) ? "nan" : "inf");
    for (int32_t i = 0; i < g->rows * g->cols; i++) cts_sink_put(s, "%02x", g->code[i]);
    cts_sink_put(s, "\"");
}

static bool written(const field *f, const cts_result *r)
{
    if (f->when == IF_STATS) return r->v.el.n > 0 || r->v.el.skipped > 0;
    if (f->when == IF_GRID) return r->v.grid.rows > 0;
    return true;
}

size_t cts_jsonl_format(char *buf, size_t len, const cts_result *r)
{
    cts_sink s = {buf, len, 0};
    cts_sink_put(&s, "{");
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        const char *p = (const char *)r + f->offset;
        if (!written(f, r)) continue;
        cts_sink_put(&s, "%s\"%s\":", i ? "," : "", f->key);
        switch (f->kind) {
        case F_STR: put_string(&s, p); break;
        case F_INT: {
            int v = *(const int *)p;
            if (v < 0 && strcmp(f->key, "cube_math_type") == 0)
                cts_sink_put(&s, "null");
            else
                cts_sink_put(&s, "%d", v);
            break;
        }
        case F_I32: cts_sink_put(&s, "%ld", (long)*(const int32_t *)p); break;
        case F_I64: cts_sink_put(&s, "%lld", (long long)*(const int64_t *)p); break;
        case F_U64: cts_sink_put(&s, "%llu", (unsigned long long)*(const uint64_t *)p); break;
        case F_HEX: cts_sink_put(&s, "\"%016llx\"", (unsigned long long)*(const uint64_t *)p); break;
        case F_DBL: put_double(&s, *(const double *)p); break;
        case F_STATUS: put_string(&s, cts_status_name(*(const cts_status *)p)); break;
        case F_BOOL: cts_sink_put(&s, *(const bool *)p ? "true" : "false"); break;
        case F_HIST: put_hist(&s, (const uint32_t *)p); break;
        case F_GRID: put_grid(&s, (const cts_error_grid *)p); break;
        }
    }
    cts_sink_put(&s, "}");
    return s.pos;
}

int cts_jsonl_append(FILE *f, const cts_result *r)
{
    size_t need = cts_jsonl_format(NULL, 0, r) + 2;
    char *buf = malloc(need);
    if (!buf)
        return -1;
    size_t n = cts_jsonl_format(buf, need, r);
    buf[n++] = '\n';
    /* One write(2) per line: a kill -9 between cases can not leave half a record. */
    int rc = fflush(f);
    int fd = fileno(f);
    for (size_t done = 0; rc == 0 && done < n;) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0 && errno != EINTR)
            rc = -1;
        else if (w > 0)
            done += (size_t)w;
    }
    free(buf);
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL) /* EINVAL: a pipe or /dev/stdout */
        rc = -1;
    return rc;
}

/* ---- reading ---- */

typedef struct {
    const char *start, *p;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *rd, const char *what)
{
    snprintf(rd->err, rd->errlen, "%s at column %d", what, (int)(rd->p - rd->start) + 1);
    return -1;
}

static void skip_ws(reader *rd)
{
    while (*rd->p == ' ' || *rd->p == '\t' || *rd->p == '\r' || *rd->p == '\n')
        rd->p++;
}

static void put_utf8(char *out, size_t len, size_t *n, unsigned cp)
{
    char b[4];
    int k;
    if (cp < 0x80)
        b[0] = (char)cp, k = 1;
    else if (cp < 0x800)
        b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), k = 2;
    else if (cp < 0x10000)
        b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        b[2] = (char)(0x80 | (cp & 0x3f)), k = 3;
    else
        b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (char)(0x80 | (cp & 0x3f)), k = 4;
    for (int i = 0; i < k; i++)
        if (*n + 1 < len)
            out[(*n)++] = b[i];
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

/* A JSON string into out (truncated to len-1 bytes, always terminated). */
static int read_string(reader *rd, char *out, size_t len)
{
    size_t n = 0;
    if (*rd->p != '"')
        return fail(rd, "expected a string");
    rd->p++;
    while (*rd->p != '"') {
        unsigned char c = (unsigned char)*rd->p;
        if (c == '\0')
            return fail(rd, "unterminated string");
        if (c < 0x20)
            return fail(rd, "control character in string");
        if (c != '\\') {
            if (n + 1 < len)
                out[n++] = (char)c;
            rd->p++;
            continue;
        }
        char e = rd->p[1];
        rd->p += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            if (n + 1 < len)
                out[n++] = map[simple - "\"\\/bfnrt"];
        } else if (e == 'u') {
            unsigned cp, lo;
            if (hex4(rd->p, &cp))
                return fail(rd, "bad \\u escape");
            rd->p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && rd->p[0] == '\\' && rd->p[1] == 'u' &&
                hex4(rd->p + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                rd->p += 6;
            }
            put_utf8(out, len, &n, cp);
        } else {
            return fail(rd, "bad escape");
        }
    }
    rd->p++;
    if (len)
        out[n < len ? n : len - 1] = '\0';
    return 0;
}

/* A scalar that is not a string: number, true, false or null, as text. */
static int read_scalar(reader *rd, char *out, size_t len)
{
    size_t n = 0;
    while (*rd->p && strchr("+-.0123456789eEtruefalsn", *rd->p)) {
        if (n + 1 < len)
            out[n++] = *rd->p;
        rd->p++;
    }
    out[n] = '\0';
    if (n == 0)
        return fail(rd, "expected a value");
    return 0;
}

static int parse_hist(reader *rd, uint32_t *h, const char *text)
{
    memset(h, 0, CTS_STAT_BINS * sizeof *h);
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        long b = strtol(p, &end, 10);
        if (end == p || *end != ':' || b < 0 || b >= CTS_STAT_BINS)
            return fail(rd, "bad histogram");
        p = end + 1;
        unsigned long long c = strtoull(p, &end, 10);
        if (end == p || errno || c > UINT32_MAX || (*end && *end != ','))
            return fail(rd, "bad histogram");
        h[b] = (uint32_t)c;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int parse_grid(reader *rd, cts_error_grid *g, const char *text)
{
    memset(g, 0, sizeof *g);
    long long h, w, plane;
    int rows, cols, at = 0;
    char worst[40];
    if (sscanf(text, "%15s %lld %lld %lld %d %d %39s %n", g->output, &h, &w, &plane, &rows,
               &cols, worst, &at) != 7 ||
        rows < 1 || cols < 1 || rows > CTS_GRID_MAX || cols > CTS_GRID_MAX || h < rows ||
        w < cols || plane < 0)
        return fail(rd, "bad grid");
    const char *hex = text + at;
    if (strlen(hex) != 2 * (size_t)(rows * cols))
        return fail(rd, "bad grid");
    for (int i = 0; i < rows * cols; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return fail(rd, "bad grid");
        g->code[i] = (uint8_t)v;
    }
    g->h = h;
    g->w = w;
    g->plane = plane;
    g->rows = rows;
    g->cols = cols;
    g->worst = strtod(worst, NULL);
    return 0;
}

static int store(reader *rd, const field *f, cts_result *r, const char *text, bool quoted)
{
    char *p = (char *)r + f->offset, *end = NULL;
    bool null = !quoted && strcmp(text, "null") == 0;
    errno = 0;
    switch (f->kind) {
    case F_STR:
        if (!quoted && !null)
            return fail(rd, "expected a string");
        snprintf(p, f->size, "%s", null ? "" : text);
        return 0;
    case F_STATUS: {
        cts_status s;
        if (!quoted || cts_status_from_name(text, &s) != 0)
            return fail(rd, "unknown status");
        *(cts_status *)p = s;
        return 0;
    }
    case F_BOOL:
        if (quoted || (strcmp(text, "true") && strcmp(text, "false") && !null))
            return fail(rd, "expected true or false");
        *(bool *)p = strcmp(text, "true") == 0;
        return 0;
    case F_HIST:
        if (!quoted)
            return fail(rd, "expected a string");
        return parse_hist(rd, (uint32_t *)p, text);
    case F_GRID:
        if (!quoted)
            return fail(rd, "expected a string");
        return parse_grid(rd, (cts_error_grid *)p, text);
    case F_HEX:
        *(uint64_t *)p = strtoull(text, &end, 16);
        break;
    case F_DBL:
        if (quoted) {
            double d = strcmp(text, "NaN") == 0 ? NAN : strcmp(text, "Infinity") == 0 ? INFINITY
                     : strcmp(text, "-Infinity") == 0 ? -INFINITY : 0;
            if (d == 0)
                return fail(rd, "bad number");
            *(double *)p = d;
            return 0;
        }
        *(double *)p = null ? 0 : strtod(text, &end);
        break;
    case F_INT:
        *(int *)p = null ? -1 : (int)strtol(text, &end, 10);
        break;
    case F_I32:
        *(int32_t *)p = (int32_t)strtol(text, &end, 10);
        break;
    case F_I64:
        *(int64_t *)p = strtoll(text, &end, 10);
        break;
    case F_U64:
        *(uint64_t *)p = strtoull(text, &end, 10);
        break;
    }
    if (null)
        return 0;
    if (errno || !end || *end || end == text || (quoted && f->kind != F_HEX))
        return fail(rd, "bad number");
    return 0;
}

int cts_jsonl_parse(const char *line, cts_result *r, char *err, size_t errlen)
{
    reader rd = {line, line, err, errlen};
    char text[2 * sizeof r->v.grid + 64]; /* the longest value: an error grid in hex */
    memset(r, 0, sizeof *r);
    r->cube_math_type = -1;
    skip_ws(&rd);
    if (*rd.p != '{')
        return fail(&rd, "expected '{'");
    rd.p++;
    skip_ws(&rd);
    for (bool more = *rd.p != '}'; more;) {
        char key[64];
        skip_ws(&rd);
        if (read_string(&rd, key, sizeof key))
            return -1;
        skip_ws(&rd);
        if (*rd.p++ != ':')
            return fail(&rd, "expected ':'");
        skip_ws(&rd);
        bool quoted = *rd.p == '"';
        if (quoted ? read_string(&rd, text, sizeof text) : read_scalar(&rd, text, sizeof text))
            return -1;
        for (size_t i = 0; i < NFIELDS; i++)
            if (strcmp(fields[i].key, key) == 0 && store(&rd, &fields[i], r, text, quoted))
                return -1;
        skip_ws(&rd);
        if (*rd.p != ',' && *rd.p != '}')
            return fail(&rd, "expected ',' or '}'");
        more = *rd.p == ',';
        if (more)
            rd.p++;
    }
    rd.p++;
    skip_ws(&rd);
    if (*rd.p)
        return fail(&rd, "text after the object");
    if (!r->v.case_id[0])
        return fail(&rd, "no \"id\"");
    return 0;
}

int cts_jsonl_read(const char *path, cts_result_list *out, long *complete_len, FILE *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long offset = 0;
    int bad = 0, lineno = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] != '\n')
            break; /* cut short by a kill: not a finished case */
        offset += (long)n;
        cts_result r;
        char msg[128];
        if (n == 1)
            continue;
        if (cts_jsonl_parse(line, &r, msg, sizeof msg) == 0) {
            cts_result_list_push(out, &r);
        } else {
            bad++;
            fprintf(err, "%s:%d: error: %s\n", path, lineno, msg);
        }
    }
    free(line);
    fclose(f);
    if (complete_len)
        *complete_len = offset;
    return bad;
}
