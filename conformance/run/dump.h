/* --dump DIR: per case DIR/<case id>/case.json and NumPy .npy files of every tensor as the device
 * saw it, every device output, and the reference's exact_<output>.npy and ref_<output>.npy. */
#ifndef ACLCTS_CONFORMANCE_DUMP_H_
#define ACLCTS_CONFORMANCE_DUMP_H_

#include <stdbool.h>
#include <stddef.h>

#include "suite/suite.h"
#include "reference.h"
#include "backend/backend.h"
#include "check/check.h"

/* The reference's arrays of the case's outputs (exact_, ref_, exact_lo_, flags_, bound_,
 * interval_, alts_ per output), written chunk by chunk as the reference gives them: the dump
 * holds no whole array in memory. path: the device's path (the bounds written). */
typedef struct cts_dump_stream cts_dump_stream;
cts_dump_stream *cts_dump_stream_open(const char *dir, const cts_case *c, const ref_path *path,
                                      char *err, size_t errlen);
void cts_dump_stream_chunk(cts_dump_stream *s, const ref_chunk *ch);
/* Closes the files and frees s; written[slot]: the outputs whose arrays were written. 0, or -1
 * with a message in err (the first failure). */
int cts_dump_stream_close(cts_dump_stream *s, bool written[], char *err, size_t errlen);

/* d: the case's tensors after run 1 (NULL entries or null tensors are skipped); exact[slot]:
 * the outputs whose reference arrays the stream wrote (case.json names them). 0, or -1 with a
 * message in err. */
int cts_dump_case(const char *dir, const cts_case *c, const cts_dev_tensor d[],
                  const bool exact[], const cts_verdict *v, char *err, size_t errlen);

#endif
