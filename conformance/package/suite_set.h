/* The canonical suite set: the suite files this aclcts release ships (the top-level .yaml
 * files of suites/ at build time; vendor_st/ is an optional extra), each with its SHA-256, and
 * the set digest: the SHA-256 of the sorted `sha256sum`-style listing "HEX  NAME\n". A
 * certification is CONFORMANT only when it ran exactly this set. */
#ifndef ACLCTS_CONFORMANCE_SUITE_SET_H_
#define ACLCTS_CONFORMANCE_SUITE_SET_H_

#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *name;   /* file name, e.g. "errors.yaml" */
    const char *sha256; /* 64 hex digits */
} cts_suite_hash;

/* Generated (suite_set_data.c.in); the table ends with {NULL, NULL}. */
extern const cts_suite_hash cts_canonical_suites[];
extern const size_t cts_canonical_nsuites;
extern const char cts_canonical_digest[];

/* The set digest of n suites (any order). */
void cts_suite_set_digest(const cts_suite_hash *s, size_t n, char digest[65]);
/* Names each difference from the canonical set on out, one line each prefixed by prefix
 * (a suite missing, one not in the set, one whose content differs); returns their number. */
int cts_suite_set_differences(const cts_suite_hash *s, size_t n, const char *prefix, FILE *out);

#endif
