/* Preloaded into aclcts by end-to-end tests (e2e_lib.sh stop_after_records) that stop a run in
 * its middle: a signal sent when a poll sees enough records races the run, which on a loaded
 * machine may finish first, so the run stops itself instead. write(2) passes through; after the
 * STOP_RECORDS-th write (default 1) to a file whose path ends in STOP_AFTER, the process creates
 * the file STOP_MARK and stops (SIGSTOP). When continued it waits up to STOP_HOLD seconds
 * (default 3) for a signal to be handled: a scheduler continues a job (SIGCONT) a moment before
 * it sends SIGTERM, and in that moment a run of quick cases could go on to the end. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

/* Does fd name a file whose path ends in suffix? */
static int fd_ends_with(int fd, const char *suffix)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(link, path, sizeof path - 1);
    size_t ls = strlen(suffix);
    if (k <= 0 || (size_t)k < ls)
        return 0;
    path[k] = 0;
    return strcmp(path + k - ls, suffix) == 0;
}

static void stop_here(void)
{
    const char *mark = getenv("STOP_MARK");
    if (mark)
        close(open(mark, O_WRONLY | O_CREAT, 0644));
    raise(SIGSTOP);
    struct timespec hold = {env_int("STOP_HOLD", 3), 0};
    nanosleep(&hold, NULL); /* returns early when a signal is handled */
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    static int seen;
    if (!real)
        real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    ssize_t w = real(fd, buf, n);
    const char *suffix = getenv("STOP_AFTER");
    int want = env_int("STOP_RECORDS", 1);
    if (w > 0 && suffix && seen < want && fd_ends_with(fd, suffix) && ++seen == want)
        stop_here();
    return w;
}
