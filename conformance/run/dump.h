/* --dump DIR: per case DIR/<case id>/case.json and NumPy .npy files of every tensor as the device
 * saw it, every device output, and the reference's exact_<output>.npy and ref_<output>.npy. */
#ifndef ACLCTS_CONFORMANCE_DUMP_H_
#define ACLCTS_CONFORMANCE_DUMP_H_

#include <stddef.h>

#include "suite/suite.h"
#include "reference.h"
#include "backend/backend.h"
#include "check/check.h"

/* d: the case's tensors after run 1 (NULL entries or null tensors are skipped); ref: the
 * reference outputs by slot (numel 0 when not computed). 0, or -1 with a message in err. */
int cts_dump_case(const char *dir, const cts_case *c, const cts_dev_tensor d[],
                  const ref_output ref[], const cts_verdict *v, char *err, size_t errlen);

#endif
