/* The expected-status model: which code the first phase of each operator must return for a
 * parameter set, and why. Written from the operator documents' error tables (spec/000_*,
 * spec/003_*), their per-product and cubeMathType rules, facts.md §3 (what the vendor code
 * checks) and docs/contract.md (the order of the checks and the choices the documents leave
 * open); never from kernels/. Five contracts: `doc` (the documents, each operator's
 * status_<op>.c) and the vendor releases read from the vendor's code, vendor@9.2 (`vendor`),
 * 9.1, 9.0 and 8.5 (`vendor-old`), in its status_vendor_<op>.c. The first failing check
 * decides the code; `runs` says whether a successful call has anything for the second phase to
 * compute. This file holds the dispatch through the model table; status_helpers.c the checks
 * every model words the same way. */
#include "status_internal.h"

ref_spec ref_status_spec(const ref_status_query *q)
{
    switch (q->spec) {
    case REF_SPEC_VENDOR: case REF_SPEC_VENDOR_OLD: case REF_SPEC_VENDOR_91: case REF_SPEC_VENDOR_92:
        return q->spec;
    default:
        return REF_SPEC_DOC;
    }
}

ref_status ref_expected_status(const ref_status_query *q)
{
    if (q == NULL)
        return ref_status_make(REF_STATUS_NULLPTR, false, "the query is NULL");
    /* contract "Both operators" (derived): a success must write both out-pointers, so their
     * NULL is refused before anything else, even before the vendor's outputMask shortcut. */
    if (q->workspace_size_null)
        return ref_status_make(REF_STATUS_NULLPTR, false, "workspaceSize is a null pointer");
    if (q->executor_null)
        return ref_status_make(REF_STATUS_NULLPTR, false, "executor is a null pointer");
    const ref_model *m = ref_model_of(q->op);
    if (!m)
        return ref_status_make(REF_STATUS_INVALID, false, "op %d is not an operator of the "
                               "reference", (int)q->op);
    return ref_status_spec(q) != REF_SPEC_DOC ? m->status_vendor(q) : m->status_doc(q);
}
