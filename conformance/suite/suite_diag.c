/* The loader's single error channel (see suite_diag.h). */
#include "suite_diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void cts_diag_error(cts_diag *d, const char *file, int line, int col, const char *field,
                    const char *fmt, ...)
{
    char msg[1024], text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%s:%d:%d: error: %s: %s", file, line, col, field, text);
    for (size_t i = 0; i < d->nseen; i++)
        if (strcmp(d->seen[i], msg) == 0)
            return;
    if (d->nseen == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        char **s = realloc(d->seen, cap * sizeof *s);
        if (!s)
            abort();
        d->seen = s;
        d->cap = cap;
    }
    d->seen[d->nseen] = strdup(msg);
    if (!d->seen[d->nseen])
        abort();
    d->nseen++;
    d->count++;
    if (d->err) {
        fprintf(d->err, "%s\n", msg);
        fflush(d->err);
    }
}

void cts_diag_free(cts_diag *d)
{
    for (size_t i = 0; i < d->nseen; i++)
        free(d->seen[i]);
    free(d->seen);
    d->seen = NULL;
    d->nseen = d->cap = 0;
}

/* Bounded output of cts_fmt's fast path: what vsnprintf keeps of it (n - 1 characters). */
typedef struct {
    char *buf;
    size_t n, len;
} fmt_out;

static void fmt_put(fmt_out *o, const char *s, size_t k)
{
    if (o->len + 1 < o->n) {
        size_t room = o->n - 1 - o->len;
        memcpy(o->buf + o->len, s, k < room ? k : room);
    }
    o->len += k;
}

/* The text of fmt when it holds only plain characters, %s (not NULL), %zu and %%: the field
 * paths the loader builds for every value it reads ("cases[3].matrix.dtype[1]"), where
 * vsnprintf's own set-up was a quarter of loading the suites. False for anything else (the
 * caller then asks vsnprintf, which overwrites what was put). */
static bool fmt_simple(fmt_out *o, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p;) {
        const char *pct = strchr(p, '%');
        size_t lit = pct ? (size_t)(pct - p) : strlen(p);
        fmt_put(o, p, lit);
        if (!pct)
            break;
        if (pct[1] == 's') {
            const char *s = va_arg(ap, const char *);
            if (!s)
                return false;
            fmt_put(o, s, strlen(s));
            p = pct + 2;
        } else if (pct[1] == 'z' && pct[2] == 'u') {
            char d[24], *e = d + sizeof d;
            size_t v = va_arg(ap, size_t);
            do
                *--e = (char)('0' + v % 10);
            while ((v /= 10) != 0);
            fmt_put(o, e, (size_t)(d + sizeof d - e));
            p = pct + 3;
        } else if (pct[1] == '%') {
            fmt_put(o, "%", 1);
            p = pct + 2;
        } else {
            return false;
        }
    }
    if (o->n)
        o->buf[o->len < o->n ? o->len : o->n - 1] = '\0';
    return true;
}

void cts_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    fmt_out o = {buf, n, 0};
    if (!fmt_simple(&o, fmt, copy))
        vsnprintf(buf, n, fmt, ap);
    va_end(copy);
    va_end(ap);
}
