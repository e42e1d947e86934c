/* cts_sink_put (results.h). */
#include "results.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cts_sink_put(cts_sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = s->pos < s->len ? s->len - s->pos : 0;
    int n = vsnprintf(room ? s->buf + s->pos : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->pos += (size_t)n;
}

void cts_sink_putn(cts_sink *s, const char *p, size_t n)
{
    if (s->pos < s->len) { /* as vsnprintf: at most len - pos - 1 bytes, then the NUL */
        size_t k = s->len - s->pos - 1 < n ? s->len - s->pos - 1 : n;
        memcpy(s->buf + s->pos, p, k);
        s->buf[s->pos + k] = 0;
    }
    s->pos += n;
}
