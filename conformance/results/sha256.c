/* SHA-256 (sha256.h) through libcrypto's EVP interface. */
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

void cts_sha256_init(cts_sha256 *s)
{
    s->ctx = EVP_MD_CTX_new();
    if (!s->ctx || EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1) abort();
}

void cts_sha256_update(cts_sha256 *s, const void *data, size_t n)
{
    if (EVP_DigestUpdate(s->ctx, data, n) != 1) abort();
}

void cts_sha256_final(cts_sha256 *s, unsigned char digest[32])
{
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(s->ctx, digest, &len) != 1 || len != 32) abort();
    EVP_MD_CTX_free(s->ctx);
    s->ctx = NULL;
}

void cts_sha256_hex(const unsigned char digest[32], char hex[65])
{
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void cts_sha256_bytes(const void *data, size_t n, char hex[65])
{
    cts_sha256 s;
    unsigned char d[32];
    cts_sha256_init(&s);
    cts_sha256_update(&s, data, n);
    cts_sha256_final(&s, d);
    cts_sha256_hex(d, hex);
}

int cts_sha256_stream(FILE *f, char hex[65])
{
    cts_sha256 s;
    unsigned char buf[65536], d[32];
    size_t n;
    cts_sha256_init(&s);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) cts_sha256_update(&s, buf, n);
    cts_sha256_final(&s, d);
    if (ferror(f)) {
        errno = EIO;
        return -1;
    }
    cts_sha256_hex(d, hex);
    return 0;
}

int cts_sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int rc = cts_sha256_stream(f, hex);
    fclose(f);
    return rc;
}
