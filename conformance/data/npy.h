/* A small writer of NumPy .npy files, format version 1.0 (C order, little-endian data as given). */
#ifndef ACLCTS_CONFORMANCE_NPY_H_
#define ACLCTS_CONFORMANCE_NPY_H_

#include <stddef.h>
#include <stdint.h>

/* The header bytes for descr ("<f4", "<f2", "<f8", ...) and shape: magic, version 1.0, length,
 * the dict, spaces and '\n' padding the whole header to a multiple of 64 bytes. Returns the
 * header length, or 0 when out is too small. */
size_t cts_npy_header(const char *descr, int rank, const int64_t *dims, char *out, size_t size);

/* Write header + nbytes of data to path. 0, or -1 with errno set. */
int cts_npy_write(const char *path, const char *descr, int rank, const int64_t *dims,
                  const void *data, size_t nbytes);

#endif
