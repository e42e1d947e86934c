/* Sorted name lists and the package's file listing, shared by package.c and
 * package_verify.c. */
#ifndef ACLCTS_CONFORMANCE_PACKAGE_FILES_H_
#define ACLCTS_CONFORMANCE_PACKAGE_FILES_H_

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char **v;
    size_t n, cap;
} cts_names;

void cts_names_push(cts_names *l, const char *s);
void cts_names_free(cts_names *l);
void cts_names_sort(cts_names *l);
bool cts_names_has(const cts_names *l, const char *s); /* l sorted */

/* The regular files below root/rel (relative to root) into files; every other entry (symbolic
 * link, FIFO, socket, device) as a message into bad. No link is followed. 0, or -1 (errno)
 * when a directory cannot be read. */
int cts_package_list(const char *root, const char *rel, int depth, cts_names *files,
                     cts_names *bad);

#endif

#include <stdio.h>

#include "suite_load.h"
#include "provenance.h"
#include "results.h"
#include "suite_set.h"

/* Checks shared by certify and verify-package; each prints one line per problem on out,
 * prefixed by `what` (a file name), and returns the number of problems. */

/* results hold every selected case of l exactly once and nothing else. */
int cts_check_case_set(const cts_loaded *l, const cts_result_list *res, const char *what,
                       FILE *out);
/* The records and the run sessions agree on one product, backend, contract and aclcts version
 * (the first seen is put in backend/contract/version); sessions' backend libraries agree. */
int cts_check_one_origin(const cts_result_list *res, const cts_provenance *shards,
                         size_t nshards, const char *product, char backend[64],
                         char contract[16], char version[32], const char *what, FILE *out);
/* The suite files paths name (cts_suite_files), by base name with their SHA-256 and, in
 * files (may be NULL), their paths (malloc'd; free with cts_suite_hashes_free). Two different
 * files with one base name: -1 with a message. */
int cts_suite_hashes(const char *const *paths, int npaths, cts_suite_hash **out, size_t *n,
                     cts_names *files, char *err, size_t errlen);
void cts_suite_hashes_free(cts_suite_hash *s, size_t n);
