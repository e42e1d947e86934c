/* libFuzzer target: the suite loader on arbitrary bytes returns (cases or errors) without a
 * crash, a leak (LeakSanitizer in the fuzz build) or a hang (libFuzzer -timeout). The loader
 * takes paths, so the bytes go through an anonymous memory file named by /proc/self/fd. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "suite/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("suite.yaml", 0);
    if (fd < 0) return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *paths[1] = {path};
    cts_load_options opt = {0};
    cts_case_list list = {0};
    FILE *err = fopen("/dev/null", "w");
    cts_load_suites(paths, 1, &opt, &list, err);
    if (err) fclose(err);
    cts_case_list_free(&list);
    close(fd);
    return 0;
}
