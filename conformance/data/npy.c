/* NumPy .npy writer (data.h), following numpy/lib/format.py's description of version 1.0. */
#include "data.h"

#include <stdio.h>
#include <string.h>

size_t cts_npy_header(const char *descr, int rank, const int64_t *dims, char *out, size_t size)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    /* Python's tuple repr, as numpy writes it: (), (5,), (2, 3) */
    for (int i = 0; i < rank && n < (int)sizeof dict; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%lld%s", i ? ", " : "",
                      (long long)dims[i], rank == 1 ? "," : "");
    if (n >= (int)sizeof dict - 8) return 0;
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* magic (6) + version (2) + length (2) + dict + padding + '\n' ≡ 0 mod 64 */
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (total > size || total - 10 > 65535) return 0;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    size_t hlen = total - 10;
    out[8] = (char)(hlen & 0xff);
    out[9] = (char)(hlen >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
    out[total - 1] = '\n';
    return total;
}

int cts_npy_write(const char *path, const char *descr, int rank, const int64_t *dims,
                  const void *data, size_t nbytes)
{
    char header[640];
    size_t h = cts_npy_header(descr, rank, dims, header, sizeof header);
    if (!h) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(header, 1, h, f) == h && (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : -1;
}
