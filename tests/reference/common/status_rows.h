/* Shared by the status-model tests (test_status_*.c): a row is one document or contract line,
 * run on every product and spec version it names, each time from the including file's seed()
 * (its seed example's parameters) changed by the row's mutate(); the model's status (UND for an
 * undefined outcome), `runs` and a substring of its reason must be the row's. */
#ifndef ACLCTS_TESTS_STATUS_ROWS_H_
#define ACLCTS_TESTS_STATUS_ROWS_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"

#define P(x) (1u << REF_PRODUCT_##x)
#define ALL_P ((1u << REF_PRODUCT_COUNT) - 1)
#define DOC (1u << REF_SPEC_DOC)
#define VEN (1u << REF_SPEC_VENDOR)
#define OLD (1u << REF_SPEC_VENDOR_OLD)
#define V91 ((1u << REF_SPEC_VENDOR_91) | (1u << REF_SPEC_VENDOR_92)) /* the same rules */
#define ALL_S (DOC | VEN | OLD)
#define OK REF_STATUS_SUCCESS
#define NUL REF_STATUS_NULLPTR
#define INV REF_STATUS_INVALID
#define UND (-1) /* the contract defines no outcome (ref_status.undefined) */

typedef struct {
    const char *name;
    const char *cite; /* the document / contract line the expected code comes from */
    void (*mutate)(ref_status_query *q);
    unsigned products, specs;
    int32_t status;
    bool runs;
    const char *reason; /* a substring the reason must contain */
} row;

static void set_shape(ref_tensor_desc *t, const int64_t *d, int rank)
{
    t->rank = rank;
    for (int i = 0; i < rank; i++)
        t->dims[i] = d[i];
}
#define NARGS(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define SHAPE(i, ...) set_shape(&q->t[i], (int64_t[]){__VA_ARGS__}, NARGS(__VA_ARGS__))
#define MUT(fn, ...) \
    static void fn(ref_status_query *q) { __VA_ARGS__; }

/* The including file's valid starting point. */
static ref_status_query seed(ref_product p, ref_spec s);

static int combos_checked;

static void run_row(void **state)
{
    const row *r = *state;
    int failures = 0;
    for (int p = 0; p < REF_PRODUCT_COUNT; p++) {
        if (!(r->products & (1u << p)))
            continue;
        for (int s = 0; s <= REF_SPEC_VENDOR_92; s++) {
            if (!(r->specs & (1u << s)))
                continue;
            ref_status_query q = seed((ref_product)p, (ref_spec)s);
            r->mutate(&q);
            ref_status got = ref_expected_status(&q);
            combos_checked++;
            int32_t code = got.undefined ? UND : got.status;
            if (code != r->status || got.runs != r->runs ||
                strstr(got.reason, r->reason) == NULL) {
                print_error("%s [%s] on %s/%s: got %d runs=%d \"%s\", want %d runs=%d \"%s\"\n",
                            r->name, r->cite, ref_product_id((ref_product)p),
                            ref_spec_name((ref_spec)s), code, got.runs, got.reason,
                            r->status, r->runs, r->reason);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* One cmocka test per row, then the `extra` tests; prints the number of combinations checked. */
static int run_rows(const char *group, const row *rows, int n, const struct CMUnitTest *extra,
                    int nextra)
{
    struct CMUnitTest *tests = calloc((size_t)(n + nextra), sizeof *tests);
    if (!tests)
        return 1;
    for (int i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){.name = rows[i].name, .test_func = run_row,
                                       .initial_state = (void *)&rows[i]};
    for (int i = 0; i < nextra; i++)
        tests[n + i] = extra[i];
    int failed = _cmocka_run_group_tests(group, tests, (size_t)(n + nextra), NULL, NULL);
    printf("%d rows, %d (row, product, spec) cases checked\n", n, combos_checked);
    free(tests);
    return failed;
}

#endif
