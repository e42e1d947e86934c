/* memfile.h */
#include "memfile.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_memfile(const char *name, const uint8_t *data, size_t size, char *path, size_t n)
{
    int fd = memfd_create(name, 0);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}
