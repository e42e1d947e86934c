/* SHA-256 of byte strings and files, for the certification package's manifest and SHA256SUMS:
 * OpenSSL's libcrypto (EVP) behind a small interface. */
#ifndef ACLCTS_CONFORMANCE_SHA256_H_
#define ACLCTS_CONFORMANCE_SHA256_H_

#include <stddef.h>

typedef struct {
    void *ctx; /* EVP_MD_CTX; freed by cts_sha256_final */
} cts_sha256;

/* init aborts when libcrypto cannot allocate a digest context (out of memory). */
void cts_sha256_init(cts_sha256 *s);
void cts_sha256_update(cts_sha256 *s, const void *data, size_t n);
void cts_sha256_final(cts_sha256 *s, unsigned char digest[32]);
/* 64 lowercase hex digits and a NUL. */
void cts_sha256_hex(const unsigned char digest[32], char hex[65]);
/* Hex digest of a whole file; 0, or -1 with errno set. */
int cts_sha256_file(const char *path, char hex[65]);
/* Hex digest of a byte string. */
void cts_sha256_bytes(const void *data, size_t n, char hex[65]);

#endif
