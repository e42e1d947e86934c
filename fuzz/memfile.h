/* The fuzz targets whose code under test takes a path: the input's bytes in an anonymous
 * memory file, named by /proc/self/fd. */
#ifndef ACLCTS_FUZZ_MEMFILE_H_
#define ACLCTS_FUZZ_MEMFILE_H_

#include <stddef.h>
#include <stdint.h>

/* A memory file (name: for /proc's listing) holding data; its path in path[n]. The fd (close
 * it when done), or -1 when none could be made. */
int fuzz_memfile(const char *name, const uint8_t *data, size_t size, char *path, size_t n);

#endif
