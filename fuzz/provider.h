/* A byte consumer in the spirit of LLVM's FuzzedDataProvider, for C: integers in ranges, bools,
 * picks from lists, "mostly small, sometimes anything" integers, raw bytes from the end. Every
 * read is total: a short input reads as zero bytes, so any byte string decodes to one call.
 * Integers are read from the front, little-endian, in as few bytes as their range needs, which
 * is what fuzz/seeds.py writes. */
#ifndef ACLCTS_FUZZ_PROVIDER_H_
#define ACLCTS_FUZZ_PROVIDER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *data;
    size_t size;
} fdp;

void fdp_init(fdp *p, const uint8_t *data, size_t size);
size_t fdp_remaining(const fdp *p);
/* Unsigned integer of n (0..8) little-endian bytes from the front. */
uint64_t fdp_bytes_le(fdp *p, int n);
/* An integer in [lo, hi] (lo <= hi): value lo + raw % (hi - lo + 1). */
int64_t fdp_int(fdp *p, int64_t lo, int64_t hi);
/* One byte, low bit. */
bool fdp_bool(fdp *p);
/* One byte, true when its low nibble is 15 (1 in 16): rare branches such as NULL pointers. */
bool fdp_rare(fdp *p);
/* Index into a list of n (>= 1) entries. */
int fdp_pick(fdp *p, int n);
/* One mode byte, then: mode % 8 in 0..5 an integer in [lo, hi]; 6 any int64; 7 one of the
 * boundary values (0, ±1, int8/int32/int64 limits, 255, 256, 2^31, ...). */
int64_t fdp_int_mix(fdp *p, int64_t lo, int64_t hi);
/* Up to n bytes taken from the end (LLVM's choice for sizes and payloads); returns the count. */
size_t fdp_bytes_back(fdp *p, uint8_t *out, size_t n);

#endif
