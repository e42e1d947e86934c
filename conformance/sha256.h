/* SHA-256 (FIPS 180-4) of byte strings and files, for the certification package's manifest. */
#ifndef ACLCTS_CONFORMANCE_SHA256_H_
#define ACLCTS_CONFORMANCE_SHA256_H_

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t h[8];
    uint64_t nbytes;
    unsigned char buf[64];
    size_t nbuf;
} cts_sha256;

void cts_sha256_init(cts_sha256 *s);
void cts_sha256_update(cts_sha256 *s, const void *data, size_t n);
void cts_sha256_final(cts_sha256 *s, unsigned char digest[32]);
/* 64 lowercase hex digits and a NUL. */
void cts_sha256_hex(const unsigned char digest[32], char hex[65]);
/* Hex digest of a whole file; 0, or -1 with errno set. */
int cts_sha256_file(const char *path, char hex[65]);

#endif
