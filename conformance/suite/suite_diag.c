/* The loader's single error channel (see suite_diag.h). */
#include "suite_diag.h"

#include <stdarg.h>
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

void cts_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}
