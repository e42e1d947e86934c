/* results.jsonl: one flat JSON object per finished case. The field table below is the single
 * description of the format; the writer and the reader both walk it. Values are encoded and
 * decoded by jansson; the two numbers JSON's grammar allows but jansson cannot hold, an
 * overflowing real (our +-1e999 for +-infinity) and an integer beyond int64 (a uint64 seed), are
 * handled around it so every number reads back bit for bit (NaN is null; its sign and payload
 * are not kept). */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

typedef enum {
    F_STR, F_NUMERICS_V1, F_I32, F_I64, F_U64, F_HEX, F_DBL, F_STATUS, F_BOOL, F_HIST, F_GRID
} field_kind;

/* Written always, only for cases with element statistics (v.el), only with an error grid; never
 * (read from older records only). */
typedef enum { ALWAYS, IF_STATS, IF_GRID, READ_ONLY } field_when;

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
    R("numerics", F_STR, numerics),
    /* records before the numerics key: avg-pool's cubeMathType as its own column (null for the
     * grid sampler); read as the numerics key "cube_math_type=N" when there is no "numerics" */
    {"cube_math_type", F_NUMERICS_V1, offsetof(cts_result, numerics),
     sizeof(((cts_result *)0)->numerics), READ_ONLY},
    R("product", F_STR, product),
    R("seed", F_U64, seed),
    R("deterministic", F_BOOL, deterministic),
    R("backend", F_STR, backend),
    R("contract", F_STR, contract),
    R("aclcts_version", F_STR, aclcts_version),
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
    R("c_total", F_DBL, v.c_total),
    R("c_gen", F_DBL, v.c_gen),
    R("c_device", F_DBL, v.c_device),
    R("c_ref", F_DBL, v.c_ref),
    R("c_check", F_DBL, v.c_check),
    R("repro", F_STR, repro),
    R("log", F_STR, log),
    /* the precision audit's per-element statistics (check/check.h); histograms sparse as
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

/* Length of the valid UTF-8 sequence at p (no overlongs, surrogates or code points above
 * U+10FFFF), or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
          : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
        (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/* Bytes of valid UTF-8 as a JSON string, as jansson's json_dumps writes it (compact, UTF-8 kept):
 * the quote, the backslash and the control characters escaped, those with a short form as \b \f
 * \n \r \t, the others as \u00XX (upper-case hex), every other byte as it is. */
static void put_json_string(cts_sink *s, const char *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    cts_sink_putn(s, "\"", 1);
    size_t run = 0; /* bytes before p[i] that need no escape, written at once */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            run++;
            continue;
        }
        cts_sink_putn(s, p + i - run, run);
        run = 0;
        char esc[6] = {'\\', (char)c, 0, 0, 0, 0};
        size_t len = 2;
        switch (c) {
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '"': case '\\': break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
            len = 6;
        }
        cts_sink_putn(s, esc, len);
    }
    cts_sink_putn(s, p + n - run, run);
    cts_sink_putn(s, "\"", 1);
}

/* A C string as a JSON string; bytes that are not UTF-8 (a crashing child's output) become
 * U+FFFD, so every record is valid JSON. */
static void put_string(cts_sink *s, const char *str)
{
    const unsigned char *p = (const unsigned char *)str;
    size_t n = strlen(str), i = 0;
    while (i < n && p[i] < 0x80) i++; /* the common case: ASCII throughout */
    if (i == n) {
        put_json_string(s, str, n);
        return;
    }
    char *clean = malloc(3 * n + 1);
    if (!clean)
        abort();
    size_t k = 0;
    for (p = (const unsigned char *)str; *p;) {
        int len = utf8_len(p);
        if (len) {
            memcpy(clean + k, p, (size_t)len);
            k += (size_t)len, p += len;
        } else {
            memcpy(clean + k, "\xef\xbf\xbd", 3);
            k += 3, p++;
        }
    }
    put_json_string(s, clean, k);
    free(clean);
}

/* The decimal digits of v, ending just before end; returns where they start. */
static char *uint_digits(char *end, uint64_t v)
{
    do
        *--end = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return end;
}

/* Finite: jansson's form of a real: "%.17g" (reads back bit for bit) with ".0" added when it has
 * neither a point nor an exponent, and the exponent without '+' or leading zeros.
 * +-inf: +-1e999, valid JSON that overflows to +-inf in every IEEE reader (Python's json,
 * JavaScript's JSON.parse, strtod). NaN: null. */
static void put_double(cts_sink *s, double d)
{
    if (d == (double)(int64_t)d && fabs(d) < 1e15) {
        /* a whole number (most counts and sums of a record): what "%.17g" and ".0" give for
         * it, without printf */
        char t[24], *end = t + sizeof t - 2;
        char *p = uint_digits(end, (uint64_t)fabs(d));
        if (signbit(d)) *--p = '-';
        memcpy(end, ".0", 2);
        cts_sink_putn(s, p, (size_t)(t + sizeof t - p));
    } else if (isnan(d))
        cts_sink_put(s, "null");
    else if (isinf(d))
        cts_sink_put(s, d > 0 ? "1e999" : "-1e999");
    else {
        char t[40];
        int n = snprintf(t, sizeof t, "%.17g", d);
        char *e = strchr(t, 'e');
        if (!e && !strchr(t, '.'))
            n += snprintf(t + n, sizeof t - (size_t)n, ".0");
        if (e) { /* e+020 -> e20, e-05 -> e-5 */
            char *from = e + 1, *to = e + 1;
            if (*from == '-') from++, to++;
            else if (*from == '+') from++;
            while (*from == '0' && from[1]) from++;
            memmove(to, from, strlen(from) + 1);
            n = (int)strlen(t);
        }
        cts_sink_putn(s, t, (size_t)n);
    }
}

/* "bin:count" of the non-empty bins, comma-separated, as a JSON string (digits only: no
 * escaping needed). */
static void put_hist(cts_sink *s, const uint32_t *h)
{
    cts_sink_putn(s, "\"", 1);
    for (int b = 0, n = 0; b < CTS_STAT_BINS; b++) {
        if (!h[b]) continue;
        char t[32], *end = t + sizeof t, *p = uint_digits(end, h[b]);
        *--p = ':';
        p = uint_digits(p, (uint64_t)b);
        if (n++) *--p = ',';
        cts_sink_putn(s, p, (size_t)(end - p));
    }
    cts_sink_putn(s, "\"", 1);
}

/* The grid's worst value in its text form: %.17g, or inf/-inf/nan. */
static void put_grid(cts_sink *s, const cts_error_grid *g)
{
    char text[2 * sizeof g->code + 160];
    cts_sink t = {text, sizeof text, 0};
    cts_sink_put(&t, "%s %lld %lld %lld %d %d ", g->output, (long long)g->h, (long long)g->w,
        (long long)g->plane, (int)g->rows, (int)g->cols);
    if (isfinite(g->worst)) cts_sink_put(&t, "%.17g ", g->worst);
    else cts_sink_put(&t, "%s ", isnan(g->worst) ? "nan" : g->worst > 0 ? "inf" : "-inf");
    static const char hex[] = "0123456789abcdef";
    for (int32_t i = 0; i < g->rows * g->cols; i++) {
        char two[2] = {hex[g->code[i] >> 4], hex[g->code[i] & 15]};
        cts_sink_putn(&t, two, 2);
    }
    put_string(s, text);
}

static bool written(const field *f, const cts_result *r)
{
    if (f->when == IF_STATS) return r->v.el.n > 0 || r->v.el.skipped > 0;
    if (f->when == IF_GRID) return r->v.grid.rows > 0;
    return f->when == ALWAYS;
}

static void put_value(cts_sink *s, const field *f, const char *p)
{
    switch (f->kind) {
    case F_STR: put_string(s, p); break;
    case F_NUMERICS_V1: break; /* never written */
    case F_I32: cts_sink_put(s, "%" PRId32, *(const int32_t *)p); break;
    case F_I64: cts_sink_put(s, "%" PRId64, *(const int64_t *)p); break;
    case F_U64: cts_sink_put(s, "%" PRIu64, *(const uint64_t *)p); break;
    case F_HEX: cts_sink_put(s, "\"%016" PRIx64 "\"", *(const uint64_t *)p); break;
    case F_DBL: put_double(s, *(const double *)p); break;
    case F_STATUS: put_string(s, cts_status_name(*(const cts_status *)p)); break;
    case F_BOOL: cts_sink_put(s, *(const bool *)p ? "true" : "false"); break;
    case F_HIST: put_hist(s, (const uint32_t *)p); break;
    case F_GRID: put_grid(s, (const cts_error_grid *)p); break;
    }
}

size_t cts_jsonl_format(char *buf, size_t len, const cts_result *r)
{
    cts_sink s = {buf, len, 0};
    cts_sink_putn(&s, "{", 1);
    for (size_t i = 0; i < NFIELDS; i++) {
        const field *f = &fields[i];
        if (!written(f, r)) continue;
        if (i) cts_sink_putn(&s, ",", 1);
        cts_sink_putn(&s, "\"", 1);
        cts_sink_putn(&s, f->key, strlen(f->key));
        cts_sink_putn(&s, "\":", 2);
        put_value(&s, f, (const char *)r + f->offset);
    }
    cts_sink_putn(&s, "}", 1);
    return s.pos;
}

int cts_jsonl_append(FILE *f, const cts_result *r)
{
    size_t need = 1 << 16; /* most records fit: formatted once */
    char *buf = malloc(need);
    size_t n = buf ? cts_jsonl_format(buf, need, r) : 0;
    if (buf && n + 2 > need) {
        free(buf);
        need = n + 2;
        buf = malloc(need);
        n = buf ? cts_jsonl_format(buf, need, r) : 0;
    }
    if (!buf)
        return -1;
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
    return rc;
}

int cts_jsonl_sync(FILE *f)
{
    if (fflush(f) != 0)
        return -1;
    if (fsync(fileno(f)) != 0 && errno != EINVAL) /* EINVAL: a pipe or /dev/stdout */
        return -1;
    return 0;
}

/* ---- reading ---- */

/* Number tokens jansson cannot hold, lifted out of the text before it parses: each is replaced
 * in place by "[k]" (k its index here), which cannot otherwise occur in a flat record. */
#define MAX_LIFTED 64
typedef struct {
    char text[MAX_LIFTED][40];
    int n;
} lifted;

static int errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Does a number token overflow a double (a real) or int64 (an integer)? */
static bool beyond_jansson(const char *tok, size_t n)
{
    char buf[400];
    if (n >= sizeof buf) return true;
    memcpy(buf, tok, n);
    buf[n] = 0;
    errno = 0;
    char *end;
    if (strpbrk(buf, ".eE")) {
        double d = strtod(buf, &end);
        return *end == 0 && isinf(d); /* anything else is jansson's to accept or refuse */
    }
    (void)strtoll(buf, &end, 10);
    return *end == 0 && errno == ERANGE;
}

static int lift_numbers(char *text, lifted *l, char *err, size_t errlen)
{
    bool in_str = false;
    l->n = 0;
    for (char *p = text; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_str = false;
            continue;
        }
        if (*p == '"') { in_str = true; continue; }
        if (*p == '[' || *p == ']')
            return errf(err, errlen, "column %d: arrays are not part of the format",
                        (int)(p - text) + 1);
        if (*p != '-' && (*p < '0' || *p > '9')) continue;
        size_t n = strspn(p, "+-.0123456789eE");
        if (n >= 4 && beyond_jansson(p, n)) {
            if (l->n == MAX_LIFTED || n >= sizeof l->text[0])
                return errf(err, errlen, "column %d: number too long",
                            (int)(p - text) + 1);
            memcpy(l->text[l->n], p, n);
            l->text[l->n][n] = 0;
            char mark[8];
            int m = snprintf(mark, sizeof mark, "[%d]", l->n++);
            memset(p, ' ', n);
            memcpy(p, mark, (size_t)m);
        }
        p += n - 1;
    }
    return 0;
}

/* The lifted token behind a "[k]" value, or NULL when v is not one. */
static const char *lifted_token(const json_t *v, const lifted *l)
{
    if (!json_is_array(v) || json_array_size(v) != 1) return NULL;
    json_int_t k = json_integer_value(json_array_get(v, 0));
    return json_is_integer(json_array_get(v, 0)) && k >= 0 && k < l->n ? l->text[k] : NULL;
}

static int parse_hist(uint32_t *h, const char *text)
{
    memset(h, 0, CTS_STAT_BINS * sizeof *h);
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        long b = strtol(p, &end, 10);
        if (end == p || *end != ':' || b < 0 || b >= CTS_STAT_BINS || *p == '-' || *p == '+')
            return -1;
        p = end + 1;
        if (*p < '0' || *p > '9')
            return -1;
        unsigned long long c = strtoull(p, &end, 10);
        if (errno || c > UINT32_MAX || (*end && *end != ',') || (*end == ',' && !end[1]))
            return -1;
        h[b] = (uint32_t)c;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int parse_worst(const char *text, double *out)
{
    char *end;
    if (!strcmp(text, "nan")) *out = NAN;
    else if (!strcmp(text, "inf")) *out = INFINITY;
    else if (!strcmp(text, "-inf")) *out = -INFINITY;
    else if ((*out = strtod(text, &end)), end == text || *end || !isfinite(*out)) return -1;
    return 0;
}

static int parse_grid(cts_error_grid *g, const char *text)
{
    memset(g, 0, sizeof *g);
    long long h, w, plane;
    int rows, cols, at = 0;
    char worst[40];
    if (sscanf(text, "%15s %lld %lld %lld %d %d %39s %n", g->output, &h, &w, &plane, &rows,
               &cols, worst, &at) != 7 ||
        rows < 1 || cols < 1 || rows > CTS_GRID_MAX || cols > CTS_GRID_MAX || h < rows ||
        w < cols || plane < 0 || parse_worst(worst, &g->worst) != 0)
        return -1;
    const char *hex = text + at;
    if (strlen(hex) != 2 * (size_t)(rows * cols) || strspn(hex, "0123456789abcdef") != strlen(hex))
        return -1;
    for (int i = 0; i < rows * cols; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        g->code[i] = (uint8_t)v;
    }
    g->h = h;
    g->w = w;
    g->plane = plane;
    g->rows = rows;
    g->cols = cols;
    return 0;
}

/* A double: a JSON number, null (NaN), a lifted +-inf, or the quoted names older writers used. */
static int get_double(const json_t *v, const lifted *l, double *out)
{
    const char *tok = lifted_token(v, l);
    if (json_is_null(v)) *out = NAN;
    else if (json_is_real(v)) *out = json_real_value(v);
    else if (json_is_integer(v)) *out = (double)json_integer_value(v);
    else if (tok && strpbrk(tok, ".eE")) *out = strtod(tok, NULL);
    else if (json_is_string(v) && !strcmp(json_string_value(v), "NaN")) *out = NAN;
    else if (json_is_string(v) && !strcmp(json_string_value(v), "Infinity")) *out = INFINITY;
    else if (json_is_string(v) && !strcmp(json_string_value(v), "-Infinity")) *out = -INFINITY;
    else return -1;
    return 0;
}

/* An integer in [lo, hi]. */
static int get_int(const json_t *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!json_is_integer(v)) return -1;
    *out = json_integer_value(v);
    return *out < lo || *out > hi ? -1 : 0;
}

static int get_u64(const json_t *v, const lifted *l, uint64_t *out)
{
    const char *tok = lifted_token(v, l);
    if (tok) {
        char *end;
        errno = 0;
        if (*tok == '-' || strpbrk(tok, ".eE+")) return -1;
        *out = strtoull(tok, &end, 10);
        return errno || *end ? -1 : 0;
    }
    int64_t i;
    if (get_int(v, 0, INT64_MAX, &i)) return -1;
    *out = (uint64_t)i;
    return 0;
}

static int get_string(const json_t *v, char *out, size_t size)
{
    if (json_is_null(v)) {
        out[0] = 0;
        return 0;
    }
    if (!json_is_string(v) || json_string_length(v) >= size) return -1;
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

static const char *kind_name(field_kind k)
{
    switch (k) {
    case F_STR: return "a string";
    case F_NUMERICS_V1: return "null or an integer >= 0";
    case F_I32: return "a 32-bit integer";
    case F_I64: return "a 64-bit integer";
    case F_U64: return "an integer in [0, 2^64)";
    case F_HEX: return "16 hex digits";
    case F_DBL: return "a number or null";
    case F_STATUS: return "a status name";
    case F_BOOL: return "true or false";
    case F_HIST: return "\"bin:count,...\"";
    case F_GRID: return "\"OUTPUT H W PLANE ROWS COLS WORST HEX\"";
    }
    return "?";
}

static int store(const field *f, cts_result *r, const json_t *v, const lifted *l)
{
    char *p = (char *)r + f->offset;
    int64_t i;
    switch (f->kind) {
    case F_STR: return get_string(v, p, f->size);
    case F_STATUS:
        return json_is_string(v) ? cts_status_from_name(json_string_value(v), (cts_status *)p)
                                 : -1;
    case F_BOOL:
        if (!json_is_boolean(v)) return -1;
        *(bool *)p = json_is_true(v);
        return 0;
    case F_HIST: return json_is_string(v) ? parse_hist((uint32_t *)p, json_string_value(v)) : -1;
    case F_GRID:
        return json_is_string(v) ? parse_grid((cts_error_grid *)p, json_string_value(v)) : -1;
    case F_HEX: {
        const char *s = json_string_value(v);
        if (!s || strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16) return -1;
        *(uint64_t *)p = strtoull(s, NULL, 16);
        return 0;
    }
    case F_DBL: return get_double(v, l, (double *)p);
    case F_NUMERICS_V1:
        if (json_is_null(v)) return 0;
        if (get_int(v, 0, INT32_MAX, &i)) return -1;
        if (!*p) snprintf(p, f->size, "cube_math_type=%d", (int)i);
        return 0;
    case F_I32:
        if (get_int(v, INT32_MIN, INT32_MAX, &i)) return -1;
        *(int32_t *)p = (int32_t)i;
        return 0;
    case F_I64: return get_int(v, INT64_MIN, INT64_MAX, (int64_t *)p);
    case F_U64: return get_u64(v, l, (uint64_t *)p);
    }
    return -1;
}

int cts_jsonl_parse(const char *line, cts_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char *text = strdup(line);
    if (!text) abort();
    lifted l;
    int rc = lift_numbers(text, &l, err, errlen);
    json_error_t je;
    json_t *obj = rc ? NULL : json_loads(text, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (rc) return -1;
    if (!obj) return errf(err, errlen, "column %d: %s", je.column, je.text);
    if (!json_is_object(obj)) rc = errf(err, errlen, "expected a JSON object");
    for (size_t i = 0; rc == 0 && i < NFIELDS; i++) {
        json_t *v = json_object_get(obj, fields[i].key);
        if (v && store(&fields[i], r, v, &l) != 0)
            rc = errf(err, errlen, "\"%s\": expected %s", fields[i].key,
                      kind_name(fields[i].kind));
    }
    if (rc == 0 && !r->v.case_id[0]) rc = errf(err, errlen, "no \"id\"");
    json_decref(obj);
    return rc;
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
        char msg[160];
        if (n == 1)
            continue;
        if (strlen(line) != (size_t)n) {
            bad++;
            fprintf(err, "%s:%d: error: a NUL byte in the line\n", path, lineno);
        } else if (cts_jsonl_parse(line, &r, msg, sizeof msg) == 0) {
            r.line = lineno;
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
