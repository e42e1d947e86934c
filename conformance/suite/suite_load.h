/* Loading YAML conformance suites (format: suites/README.md) into expanded cases. */
#ifndef ACLCTS_CONFORMANCE_SUITE_LOAD_H_
#define ACLCTS_CONFORMANCE_SUITE_LOAD_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "select.h"

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

/* ---- which cases a command works on (selection.c) ---- */

#define CTS_SELECTION_MAX 256 /* --filter globs and suite paths a selection holds */

typedef struct {
    const char *product;                 /* --product ID|all (NULL: all) */
    const char *filters[CTS_SELECTION_MAX]; /* --filter GLOB, repeatable */
    int nfilters;
    const char *shard;                   /* --shard K/N */
    int shards;                          /* --shards N (with JOB_COMPLETION_INDEX) */
    bool have_seed;                      /* --seed S */
    uint64_t seed;
    bool quick;                          /* --quick */
    ref_spec contract;                   /* --contract doc|vendor[@RELEASE] (default doc) */
    bool all_contracts;                  /* keep every contract's cases (coverage) */
    const char *paths[CTS_SELECTION_MAX]; /* suite files and directories */
    int npaths;
} cts_selection;

typedef struct {
    cts_case_list all;        /* every case the suites define (for the chosen product) */
    const cts_case **sel;     /* the selected ones, in load order, judged by the contract */
    size_t nsel;
    size_t other_contract;    /* cases written for another contract (`spec:`), not selected */
    cts_shard shard;
} cts_loaded;

/* Loads the suites (default: ./suites when no path was given; the loader expands
 * directories), applies the filters, the shard and the contract. 0, or -1 after the loader's
 * messages were printed to stderr. */
int cts_selection_load(const cts_selection *s, cts_loaded *out);
void cts_loaded_free(cts_loaded *l);

#endif
