/* The byte consumer (provider.h). */
#include "provider.h"

#include <string.h>

void fdp_init(fdp *p, const uint8_t *data, size_t size)
{
    p->data = data;
    p->size = data ? size : 0;
}

size_t fdp_remaining(const fdp *p) { return p->size; }

uint64_t fdp_bytes_le(fdp *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        uint64_t b = 0;
        if (p->size > 0) {
            b = p->data[0];
            p->data++;
            p->size--;
        }
        v |= b << (8 * i);
    }
    return v;
}

int64_t fdp_int(fdp *p, int64_t lo, int64_t hi)
{
    uint64_t range = (uint64_t)hi - (uint64_t)lo; /* hi - lo without signed overflow */
    int n = 0;
    for (uint64_t r = range; r; r >>= 8) n++;
    uint64_t raw = fdp_bytes_le(p, n);
    if (range != UINT64_MAX) raw %= range + 1;
    return (int64_t)((uint64_t)lo + raw);
}

bool fdp_bool(fdp *p) { return fdp_bytes_le(p, 1) & 1; }

bool fdp_rare(fdp *p) { return (fdp_bytes_le(p, 1) & 15) == 15; }

int fdp_pick(fdp *p, int n) { return (int)fdp_int(p, 0, n - 1); }

static const int64_t BOUNDARY[] = {
    0, 1, -1, 2, 127, -128, 255, 256, -255, -256, 2147483647, -2147483647 - 1, 2147483648LL,
    4294967296LL, INT64_MAX, INT64_MIN,
};

int64_t fdp_int_mix(fdp *p, int64_t lo, int64_t hi)
{
    int mode = (int)(fdp_bytes_le(p, 1) % 8);
    if (mode < 6) return fdp_int(p, lo, hi);
    if (mode == 6) return (int64_t)fdp_bytes_le(p, 8);
    return BOUNDARY[fdp_pick(p, (int)(sizeof BOUNDARY / sizeof BOUNDARY[0]))];
}

size_t fdp_bytes_back(fdp *p, uint8_t *out, size_t n)
{
    if (n > p->size) n = p->size;
    memcpy(out, p->data + p->size - n, n);
    p->size -= n;
    return n;
}
