/* The repro line, written for every failing case by run and rebuilt by compare; read back by
 * cli_repro.c. One format everywhere it is shown (the log, the end-of-run list, summary.md:
 * cts_failing_case_print): a whole shell command line that also is `aclcts repro`'s argument. */
#include "cli.h"
#include "results/results.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* A word as sh reads it: bare when it is made of safe characters, else in single quotes. */
static void put_word(cts_sink *s, const char *w)
{
    if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "_-./:=,+@%") == strlen(w)) {
        cts_sink_put(s, "%s", w);
        return;
    }
    cts_sink_put(s, "'");
    for (; *w; w++)
        cts_sink_put(s, *w == '\'' ? "'\\''" : "%c", *w);
    cts_sink_put(s, "'");
}

/* An absolute path, so the line works from any directory: realpath when the path exists,
 * else the working directory joined with it. */
static void absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX], real[PATH_MAX];
    if (realpath(path, real))
        snprintf(out, len, "%s", real);
    else if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, len, "%s", path);
    else {
        cts_sink s = {out, len, 0};
        cts_sink_put(&s, "%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
    }
}

/* A path word: absolute, or as given (relative: to the directory the line is run from). */
static void put_path(cts_sink *s, const char *p, bool relative)
{
    char path[PATH_MAX];
    if (relative) {
        put_word(s, p);
        return;
    }
    absolute(p, path, sizeof path);
    put_word(s, path);
}

void cli_repro_out(const char *out, char *buf, size_t len)
{
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/')
        n--;
    bool is_repro = n >= 5 && !strncmp(out + n - 5, "repro", 5) &&
                    (n == 5 || out[n - 6] == '/');
    if (is_repro)
        snprintf(buf, len, "%.*s", (int)n, out);
    else
        snprintf(buf, len, "%.*s/repro", (int)n, out);
}

size_t cli_repro_format(char *buf, size_t len, const cli_repro_args *a)
{
    cts_sink s = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    /* The emulated device's fault and behaviour switches are part of what was run. */
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "ACLNN_EMU_", 10) == 0 && strchr(*e, '=')) {
            const char *eq = strchr(*e, '=');
            cts_sink_put(&s, "%.*s=", (int)(eq - *e), *e);
            put_word(&s, eq + 1);
            cts_sink_put(&s, " ");
        }
    char path[PATH_MAX];
    absolute("/proc/self/exe", path, sizeof path);
    put_word(&s, path);
    cts_sink_put(&s, " run --backend ");
    put_word(&s, a->backend);
    cts_sink_put(&s, " --product %s --seed %llu", a->product, (unsigned long long)a->seed);
    if (a->repeat > 0)
        cts_sink_put(&s, " --repeat %d", a->repeat);
    if (a->timeout > 0)
        cts_sink_put(&s, " --timeout %g", a->timeout);
    if (a->quick)
        cts_sink_put(&s, " --quick");
    if (a->contract && *a->contract && strcmp(a->contract, "doc") != 0)
        cts_sink_put(&s, " --contract %s", a->contract);
    if (a->out && *a->out) {
        cts_sink_put(&s, " --out ");
        put_path(&s, a->out, a->relative);
    }
    /* The id as a glob that matches only itself: escape fnmatch's special characters. */
    char glob[2 * CTS_ID_MAX + 1];
    size_t g = 0;
    for (const char *p = a->id; *p && g + 2 < sizeof glob; p++) {
        if (strchr("*?[]\\", *p))
            glob[g++] = '\\';
        glob[g++] = *p;
    }
    glob[g] = '\0';
    cts_sink_put(&s, " --filter '");
    for (const char *p = glob; *p; p++)
        cts_sink_put(&s, *p == '\'' ? "'\\''" : "%c", *p);
    cts_sink_put(&s, "' ");
    put_path(&s, a->suite_file, a->relative);
    return s.pos;
}

void cli_shell_word(cts_sink *s, const char *w)
{
    put_word(s, w);
}
