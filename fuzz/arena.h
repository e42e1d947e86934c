/* The device memory of calls the status model rejects: one poisoned aclrtMalloc arena per fuzz
 * process, reused by every such call. The tensors' views are laid out in it between harness
 * guard gaps, so no input values, host images or per-call device buffers are made for a call
 * whose only oracles are its status and "nothing was written". A failed call must leave the
 * arena's bytes as they were, so a passing check leaves it ready for the next call. Like
 * device.c's cache, this is process state because libFuzzer's entry point takes no context. On
 * the emulated backend allocations outlive aclFinalize (its registry is process-wide), so the
 * arena survives product switches; a real device never switches. */
#ifndef ACLCTS_FUZZ_ARENA_H_
#define ACLCTS_FUZZ_ARENA_H_

#include <stddef.h>

#include "backend/backend.h"

/* Lays out d[0..n) (each set by cts_dev_tensor_layout) in the arena, growing it when needed,
 * and creates their aclTensors. Aborts with a setup message when device memory fails. */
void fuzz_arena_place(const cts_backend *b, cts_dev_tensor *d, int n);

/* After the call: NULL when every byte of the placed layout still holds its poison, else the
 * oracle the first damaged byte belongs to ("inputs", "output-on-error" or "guards") with a
 * message naming the tensor and byte. */
const char *fuzz_arena_damage(const cts_backend *b, const cts_dev_tensor *d, int n, char *msg,
                              size_t len);

#endif
