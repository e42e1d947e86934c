/* A bounded text sink: printf-style appends into a caller's buffer that never overflow and
 * remember how long the text needed to be (pos > len: truncated). */
#ifndef ACLCTS_CONFORMANCE_SINK_H_
#define ACLCTS_CONFORMANCE_SINK_H_

#include <stddef.h>

typedef struct cts_sink {
    char *buf;
    size_t len, pos; /* pos may exceed len: the length that was needed */
} cts_sink;

void cts_sink_put(cts_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
