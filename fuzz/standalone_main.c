/* A main for the fuzz targets when libFuzzer is absent (gcc builds): replays every file given,
 * or every file inside each directory given, through LLVMFuzzerTestOneInput. This is how ctest
 * replays the committed corpora. A call that hangs is reported after ACLCTS_FUZZ_TIMEOUT seconds
 * (default 10), a crash by its signal, both as an oracle like libFuzzer would. */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current = "";

static void on_signal(int sig)
{
    /* async-signal-safe reporting only */
    const char *what = sig == SIGALRM ? "ORACLE hang: the call did not return in time, input "
                                      : "ORACLE crash: fatal signal during input ";
    ssize_t r = write(2, what, strlen(what));
    r = write(2, current, strlen(current));
    r = write(2, "\n", 1);
    (void)r;
    signal(SIGABRT, SIG_DFL);
    abort();
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t size = 0, cap = 0, n;
    uint8_t chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (size + n > cap) {
            cap = (size + n) * 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
        }
        memcpy(buf + size, chunk, n);
        size += n;
    }
    fclose(f);
    current = path;
    const char *t = getenv("ACLCTS_FUZZ_TIMEOUT");
    alarm(t && *t ? (unsigned)atoi(t) : 10);
    LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", size);
    alarm(0);
    free(buf);
    return 0;
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order, so replays are reproducible. */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char **nn = realloc(names, (n + 1) * sizeof *names);
        if (!nn) break;
        names = nn;
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) break;
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        rc |= run_file(names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif

int main(int argc, char **argv)
{
#ifndef FUZZ_ASAN
    /* The leak oracle reads mallinfo2, which counts chunks parked in glibc's per-thread cache
     * as in use: run without that cache so the heap size is exact. */
    const char *tun = getenv("GLIBC_TUNABLES");
    if (!tun || !strstr(tun, "tcache_count")) {
        setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
        execv("/proc/self/exe", argv);
    }
#endif
    signal(SIGALRM, on_signal);
#ifndef FUZZ_ASAN /* AddressSanitizer reports fatal signals itself, with a stack */
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
#endif
    int rc = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') continue; /* libFuzzer flags: ignored */
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "no such file or directory: %s\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc |= run_dir(argv[i]);
        } else {
            rc |= run_file(argv[i]);
        }
        files++;
    }
    if (!files) fprintf(stderr, "usage: %s FILE|DIR...  (replays fuzz inputs)\n", argv[0]);
    else fprintf(stderr, "replayed %d argument(s): no oracle failed\n", files);
    return rc;
}
