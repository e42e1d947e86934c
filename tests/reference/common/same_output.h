/* Shared by the fast-path tests (test_*_corners.c, test_*_fast_vs_mpfr.c): the fast path and
 * pure MPFR must agree bitwise on every answer of an output: every field of its ref_value (hi,
 * lo, Σ|terms|, term count, rounding chain, coordinate error, weight, underflow factor), flags,
 * every alternative, and the interval offsets. */
#ifndef ACLCTS_TESTS_REFERENCE_SAME_OUTPUT_H_
#define ACLCTS_TESTS_REFERENCE_SAME_OUTPUT_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"

static void same_output(const ref_output *a, const ref_output *b)
{
    assert_int_equal(a->numel, b->numel);
    for (int64_t i = 0; i < a->numel; i++) {
        if (memcmp(&a->v[i].hi, &b->v[i].hi, 8) || memcmp(&a->v[i].lo, &b->v[i].lo, 8))
            fail_msg("element %lld: fast (%a, %a) mpfr (%a, %a)", (long long)i, a->v[i].hi,
                     a->v[i].lo, b->v[i].hi, b->v[i].lo);
        assert_int_equal(a->flags[i], b->flags[i]);
        assert_int_equal(a->v[i].nterms, b->v[i].nterms);
        assert_true(a->v[i].sum_abs == b->v[i].sum_abs);
        assert_int_equal(a->v[i].sum_exp, b->v[i].sum_exp);
        if (memcmp(&a->v[i], &b->v[i], sizeof a->v[i]))
            fail_msg("element %lld: fields differ: nops %lld/%lld coord_err %a/%a min_weight "
                     "%a/%a under_mag %a/%a", (long long)i, (long long)a->v[i].nops,
                     (long long)b->v[i].nops, a->v[i].coord_err, b->v[i].coord_err,
                     a->v[i].min_weight, b->v[i].min_weight, a->v[i].under_mag,
                     b->v[i].under_mag);
        assert_int_equal(a->alt_count[i], b->alt_count[i]);
        for (int32_t k = 0; k < a->alt_count[i]; k++) {
            const ref_value *x = &a->alts[a->alt_first[i] + k], *y = &b->alts[b->alt_first[i] + k];
            assert_true(x->hi == y->hi && x->lo == y->lo);
        }
        if (a->ival || b->ival) {
            assert_true(a->ival && b->ival);
            assert_memory_equal(&a->ival[2 * i], &b->ival[2 * i], 2 * sizeof(double));
        }
    }
}

#endif
