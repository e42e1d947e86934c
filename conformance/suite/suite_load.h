/* Loading YAML conformance suites (format: suites/README.md) into expanded cases. */
#ifndef ACLCTS_CONFORMANCE_SUITE_LOAD_H_
#define ACLCTS_CONFORMANCE_SUITE_LOAD_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"

typedef struct {
    const char *product; /* NULL or "all": every product the suite lists */
    bool have_seed;
    uint64_t seed;       /* --seed overrides suite seeds */
    bool quick;          /* keep only cases marked quick */
} cts_load_options;

/* Loads suite files or directories (every *.yaml inside, sorted by name), expands matrices and
 * products into cases with stable dotted ids. Each error goes to err as
 * "FILE:LINE:COL: error: FIELD: message" (1-based), all errors of all files are reported, and
 * then nothing is returned (out empty). Returns the number of errors (0 = ok). err may be NULL.
 * An unknown opt->product is one error, printed as "aclcts: error: --product: ...". */
int cts_load_suites(const char *const *paths, int npaths, const cts_load_options *opt,
                    cts_case_list *out, FILE *err);

/* The suite files paths name, by the loader's own rule (files as given, directories as their
 * suite files sorted by name), whether or not they define cases for a product. A malloc'd
 * array of malloc'd strings in *files; paths that do not exist are left out. */
void cts_suite_files(const char *const *paths, int npaths, char ***files, size_t *n);

#endif
