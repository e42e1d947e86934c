/* The import stage: the vendor's ATK case files as suites (aclcts import-atk). */
#ifndef ACLCTS_CONFORMANCE_IMPORT_IMPORT_H_
#define ACLCTS_CONFORMANCE_IMPORT_IMPORT_H_

#include <stdint.h>
#include <stdio.h>

/* The vendor's ATK system-test case files (a JSON array of cases: op name, input tensors with
 * shape, dtype and a value distribution, attributes) turned into aclcts suites. */

typedef struct {
    uint64_t seed;          /* the suite's data seed and the key of every drawn parameter */
    const char *product;    /* the suite's product: line (an id, a list "[a, b]" or "all") */
    const char *source;     /* where the file comes from (repo:path@commit), for the header */
} atk_options;

typedef struct {
    int cases, imported;    /* cases in the file, cases written to the suite */
    int notes;              /* distinct fields not expressed (reported) */
    const char *op;         /* the operator of the file's cases (NULL if none was known) */
} atk_summary;

/* Converts the ATK file at path into one suite written to out. Every field that the suite
 * cannot express is reported on diag with its JSON path (aggregated over the cases: the first
 * path, the value and how many cases have it) and listed in the suite's header; a case whose
 * data or parameters cannot be expressed is left out and said so. Returns 0 when every case
 * was imported, 1 when some were left out, 2 when the file is not an ATK case file (nothing
 * useful written; the message names the JSON path). */
int atk_import(const char *path, const atk_options *o, FILE *out, FILE *diag, atk_summary *sum);

/* The vendor's TTK kernel case files (CSV, one case a row: op_name, shapes, dtypes, formats,
 * attributes and data ranges as Python literals; e.g. hicann/ops-nn
 * pooling/avg_pool_v2_grad/tests/st/arch35/, the kernel aclnnAvgPool2dBackward lowers to
 * on ascend950) turned into one suite of the operator they exercise, as atk_import does (same
 * options, summary and return values); every column the suite cannot express is reported by
 * name (aggregated: the first row, its value and how many rows have it) and listed in the
 * suite's header, and a row that cannot be expressed is left out with the reason. */
int ttk_import(const char *path, const atk_options *o, FILE *out, FILE *diag, atk_summary *sum);


#endif
