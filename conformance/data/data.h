/* The data stage: the seeded input values of a case, and NumPy .npy files. */
#ifndef ACLCTS_CONFORMANCE_DATA_DATA_H_
#define ACLCTS_CONFORMANCE_DATA_DATA_H_

#include <stddef.h>
#include <stdint.h>

#include "suite/suite.h"

/* Seeded input data of a case. */

/* The generator's version: raised whenever cts_fill gives other values for the same case, so
 * evidence of outputs (run.h) is never re-judged against inputs it was not computed from. */
#define CTS_DATA_GENERATOR 1

/* n values of tensor slot `slot` of case c (logical elements in row-major order of the view),
 * already rounded to that tensor's dtype exactly as the device will hold them (ref_round_to for
 * floating dtypes; nearest integer, saturated, for integer dtypes; 0/1 for BOOL).
 * Counter-based: element i is a SplitMix64 hash of (seed, case id without its product part,
 * tensor name, i), so the data never depends on thread count, machine, product or the order of
 * cases. Values are independent of n (a prefix of a longer fill is the shorter fill). */
void cts_fill(const cts_case *c, int slot, double *out, int64_t n);
/* Elements first .. first + n - 1 of the same fill (out[0] is element first): a tensor filled
 * piece by piece without holding all its values. */
void cts_fill_range(const cts_case *c, int slot, int64_t first, double *out, int64_t n);

/* The normal generator's rounded values for dtype FLOAT16, BF16 or FLOAT from uniforms u1, u2
 * (its fast path; out may be u1): Box-Muller with libm's log and cos, bit for bit. Returns how
 * many elements needed libm. For tests and tools/bench-fill. */
int64_t cts_normal_rounded(double a, double b, ref_dtype dt, const double *u1, const double *u2,
                           double *out, int64_t n);
/* The fast path's enclosure: [lo[j], hi[j]] holds a + b·sqrt(-2·L')·C' as the libm path
 * computes it (its IEEE operations in its order) for every L', C' with |L' - L[j]| <=
 * eps·|L[j]| and |C' - C[j]| <= eps·|C[j]|, L[j] <= 0, eps as cts_normal_eps gives it. For
 * tests. */
void cts_normal_enclose(double a, double b, const double *L, const double *C, double *lo,
                        double *hi, int64_t n, double eps);
/* The fast path's log(x[j]) and cos(t[j]) for dtype dt (x = 1 - u1 in (0, 1], t = 2π·u2), each
 * within cts_normal_eps(dt) / 2 of the exact value relative to it, the eps its enclosure then
 * allows (2^-40 for FLOAT, 2^-30 for FLOAT16 and BF16, whose values need fewer bits: shorter
 * series). L may be x and C t. For tests. */
void cts_normal_log_cos(ref_dtype dt, const double *x, const double *t, double *L, double *C,
                        int64_t n);
double cts_normal_eps(ref_dtype dt);
/* When set, every normal fill takes libm's log and cos per element (the definition, no vector
 * code): the oracle of the tests and the bench's baseline. Not for concurrent toggling. */
extern bool cts_datagen_libm_only;

/* Uniform in [0, 1), a pure function of (seed, key): the draws of importers (a parameter drawn
 * from a range, keyed by where it comes from) use the generators' hash. */
double cts_draw_unit(uint64_t seed, const char *key);
/* m < 2^53 as a double, exactly (double)m, by the integer and double operations the uniform
 * draws use instead of the cast (which AVX2 code cannot vectorise). For tests. */
double cts_u53_to_double(uint64_t m);

/* The `special` generator's value table for a dtype (NaN, ±Inf, ±0, smallest and largest
 * subnormal, smallest normal, max finite, ±1, ...), in the dtype. Returns its length. */
int cts_special_values(ref_dtype dt, const double **out);

/* A small writer of NumPy .npy files, format version 1.0 (C order, little-endian data as given). */

/* The header bytes for descr ("<f4", "<f2", "<f8", ...) and shape: magic, version 1.0, length,
 * the dict, spaces and '\n' padding the whole header to a multiple of 64 bytes. Returns the
 * header length, or 0 when out is too small. */
size_t cts_npy_header(const char *descr, int rank, const int64_t *dims, char *out, size_t size);

/* Write header + nbytes of data to path. 0, or -1 with errno set. */
int cts_npy_write(const char *path, const char *descr, int rank, const int64_t *dims,
                  const void *data, size_t nbytes);

#endif
