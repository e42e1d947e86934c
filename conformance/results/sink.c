/* cts_sink_put (results.h). */
#include "results.h"

#include <stdarg.h>
#include <stdio.h>

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
