/* The device a fuzz target calls: a backend opened once per process (ACLCTS_FUZZ_BACKEND, default
 * "emu") and, on an emulated backend, the product and spec of each call selected through the
 * environment and aclFinalize/aclInit, skipped while they stay the same. This cache is the fuzz
 * process's only state; libFuzzer's entry point takes no context to hold it. */
#ifndef ACLCTS_FUZZ_DEVICE_H_
#define ACLCTS_FUZZ_DEVICE_H_

#include "backend/backend.h"
#include "reference.h"

/* The backend, ready for a call of product/spec (on a real device the product and spec are
 * what ACLCTS_FUZZ_PRODUCT / ACLCTS_FUZZ_SPEC say, and both out-parameters are set to them).
 * Aborts with a setup message when the backend cannot be opened or initialised. */
const cts_backend *fuzz_device(ref_product *product, ref_spec *spec);

#endif
