/* A small reader of NumPy .npy files (audit.h): the float arrays --dump writes. */
#include "audit.h"

#include <stdlib.h>
#include <string.h>

#include "run_tensors.h" /* cts_decode: FP16 bits to double */

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

int cts_npy_read(const char *path, cts_npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errlen, path, "cannot open");
    unsigned char pre[12];
    int rc = -1;
    char *hdr = NULL;
    unsigned char *raw = NULL;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fail(err, errlen, path, "not a .npy file");
        goto done;
    }
    size_t hlen = pre[8] | (size_t)pre[9] << 8;
    if (pre[6] >= 2) { /* version 2.0: 4-byte header length */
        if (fread(pre + 10, 1, 2, f) != 2) {
            fail(err, errlen, path, "truncated header");
            goto done;
        }
        hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    }
    hdr = calloc(hlen + 1, 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) {
        fail(err, errlen, path, "truncated header");
        goto done;
    }
    char *d = strstr(hdr, "'descr':");
    char *s = strstr(hdr, "'shape':");
    if (!d || !s || strstr(hdr, "'fortran_order': True")) {
        fail(err, errlen, path, "header without descr/shape, or Fortran order");
        goto done;
    }
    d = strchr(d + 8, '\'');
    size_t esize = 0;
    if (d && strncmp(d, "'<f2'", 5) == 0) esize = 2;
    else if (d && strncmp(d, "'<f4'", 5) == 0) esize = 4;
    else if (d && strncmp(d, "'<f8'", 5) == 0) esize = 8;
    else {
        fail(err, errlen, path, "dtype is not <f2, <f4 or <f8");
        goto done;
    }
    s = strchr(s, '(');
    out->numel = 1;
    for (char *p = s ? s + 1 : NULL; p && *p && *p != ')';) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) { p++; continue; }
        if (out->rank == 8 || v < 0) {
            fail(err, errlen, path, "bad shape");
            goto done;
        }
        out->dims[out->rank++] = v;
        out->numel *= v;
        p = end;
    }
    if (!s) {
        fail(err, errlen, path, "bad shape");
        goto done;
    }
    size_t nbytes = (size_t)out->numel * esize;
    raw = malloc(nbytes ? nbytes : 1);
    out->data = malloc((size_t)(out->numel ? out->numel : 1) * sizeof(double));
    if (!raw || !out->data || fread(raw, 1, nbytes, f) != nbytes) {
        fail(err, errlen, path, "truncated data");
        goto done;
    }
    for (int64_t k = 0; k < out->numel; k++) {
        const unsigned char *p = raw + (size_t)k * esize;
        if (esize == 2) {
            out->data[k] = cts_decode(REF_DT_FLOAT16, p);
        } else if (esize == 4) {
            float x;
            memcpy(&x, p, 4);
            out->data[k] = x;
        } else {
            memcpy(&out->data[k], p, 8);
        }
    }
    rc = 0;
done:
    if (rc != 0)
        cts_npy_array_free(out);
    free(hdr);
    free(raw);
    fclose(f);
    return rc;
}

void cts_npy_array_free(cts_npy_array *a)
{
    free(a->data);
    a->data = NULL;
    a->numel = 0;
}
