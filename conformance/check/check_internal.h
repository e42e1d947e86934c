/* The check stage's own pieces shared by its files and its unit tests (not check.h's users). */
#ifndef ACLCTS_CONFORMANCE_CHECK_INTERNAL_H_
#define ACLCTS_CONFORMANCE_CHECK_INTERNAL_H_

#include <stdint.h>

#include "check.h"

/* n elements without error added to s (what n calls of cts_elem_stats_add with zero errors that
 * every standard accepts add). */
void cts_elem_stats_add_zeros(cts_elem_stats *s, int64_t n);

/* cts_judge_chunk_got with every element through cts_judge_element and the whole per-element
 * path: what cts_judge_chunk_got's one-pass shortcuts must agree with (the tests compare them). */
void cts_judge_chunk_each(cts_output_judge *j, const ref_chunk *ch, const double *got);

#endif
