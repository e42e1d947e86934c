/* The waivers a run used or let expire, with their suites' fields, as certify and audit list
 * them (the record carries them only inside its message: run/run_case.c). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const cts_case *cli_case_by_id(const cts_loaded *l, const char *id)
{
    for (size_t k = 0; k < l->nsel; k++)
        if (!strcmp(l->sel[k]->id, id)) return l->sel[k];
    return NULL;
}

static int by_case(const void *a, const void *b)
{
    return strcmp(((const cts_waiver_row *)a)->case_id, ((const cts_waiver_row *)b)->case_id);
}

/* Sorted by case: records arrive in the workers' finishing order, which varies run to run. */
int cli_waiver_rows(const cts_selection *sel, const cts_result_list *res, cts_loaded *l,
                    cts_waiver_row **rows, size_t *nrows)
{
    size_t n = 0;
    *rows = NULL;
    *nrows = 0;
    for (size_t i = 0; i < res->count; i++) n += cts_is_waiver_record(&res->r[i]);
    if (!n) return 0;
    if (cts_selection_load(sel, l) != 0) return -1;
    cts_waiver_row *w = calloc(n, sizeof *w);
    if (!w) abort();
    for (size_t i = 0, k = 0; i < res->count; i++) {
        const cts_result *r = &res->r[i];
        if (!cts_is_waiver_record(r)) continue;
        const cts_case *c = cli_case_by_id(l, r->v.case_id);
        w[k++] = (cts_waiver_row){.case_id = r->v.case_id, .message = r->v.message,
                                  .status = r->v.status, .reason = c ? c->waiver : NULL,
                                  .tracking = c ? c->waiver_tracking : NULL,
                                  .owner = c ? c->waiver_owner : NULL,
                                  .expires = c ? c->waiver_expires : NULL};
    }
    qsort(w, n, sizeof *w, by_case);
    *rows = w;
    *nrows = n;
    return 0;
}
