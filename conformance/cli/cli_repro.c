/* The repro line: written for every non-pass case, read back by `aclcts repro LINE`. One place
 * knows its format in both directions. */
#include "cli.h"
#include "results/results.h"

#include <limits.h>
#include <stdarg.h>
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
        absolute(a->out, path, sizeof path);
        put_word(&s, path);
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
    absolute(a->suite_file, path, sizeof path);
    put_word(&s, path);
    return s.pos;
}

typedef struct {
    char **w;
    int n;
    char *cur;
    size_t len, cap;
    bool open;           /* a word is being built (possibly empty: '') */
} words;

static void add_char(words *ws, char c)
{
    if (ws->len + 2 > ws->cap) {
        ws->cap = ws->cap ? 2 * ws->cap : 64;
        ws->cur = realloc(ws->cur, ws->cap);
        if (!ws->cur)
            abort();
    }
    ws->cur[ws->len++] = c;
    ws->cur[ws->len] = '\0';
    ws->open = true;
}

static void end_word(words *ws)
{
    if (!ws->open)
        return;
    ws->w = realloc(ws->w, (size_t)(ws->n + 1) * sizeof *ws->w);
    if (!ws->w)
        abort();
    ws->w[ws->n++] = ws->cur ? ws->cur : strdup("");
    ws->cur = NULL;
    ws->len = ws->cap = 0;
    ws->open = false;
}

int cli_split_words(const char *line, char ***out, int *nout, char *err, size_t errlen)
{
    words ws = {0};
    const char *p = line;
    while (*p) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            end_word(&ws);
            p++;
        } else if (*p == '\'') {
            const char *q = strchr(p + 1, '\'');
            if (!q)
                goto unterminated;
            ws.open = true;
            for (p++; p < q; p++)
                add_char(&ws, *p);
            p++;
        } else if (*p == '"') {
            ws.open = true;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1]))
                    p++;
                add_char(&ws, *p);
            }
            if (!*p)
                goto unterminated;
            p++;
        } else if (*p == '\\' && p[1]) {
            add_char(&ws, p[1]);
            p += 2;
        } else {
            add_char(&ws, *p++);
        }
    }
    end_word(&ws);
    *out = ws.w;
    *nout = ws.n;
    return 0;
unterminated:
    snprintf(err, errlen, "unterminated quote at column %d", (int)(p - line) + 1);
    free(ws.cur);
    for (int k = 0; k < ws.n; k++)
        free(ws.w[k]);
    free(ws.w);
    return -1;
}

static const char repro_help[] =
    "usage: aclcts repro 'LINE'\n"
    "\n"
    "Reruns the case of a repro line exactly as `aclcts run` printed it (in results.jsonl\n"
    "field \"repro\", summary.md, the console and junit.xml), in this process: leading\n"
    "VAR=value words set the environment, the program word is ignored (this binary runs), the\n"
    "rest are `run` options. A leading '$ ' is ignored. The exit code is run's.\n";

int cli_repro(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(repro_help, stdout);
        return CLI_EXIT_OK;
    }
    if (argc != 2) {
        fprintf(stderr, "aclcts: error: repro takes one argument, the line in quotes\n%s",
                repro_help);
        return CLI_EXIT_USAGE;
    }
    const char *line = argv[1];
    while (*line == ' ')
        line++;
    if (line[0] == '$' && line[1] == ' ')
        line += 2;
    char **w, err[128];
    int n, rc;
    if (cli_split_words(line, &w, &n, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: repro: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    int k = 0;
    for (; k < n && strchr(w[k], '=') && w[k][0] != '-'; k++) {
        char *eq = strchr(w[k], '=');
        *eq = '\0';
        setenv(w[k], eq + 1, 1);
        *eq = '=';
    }
    size_t plen = k < n ? strlen(w[k]) : 0;
    if (k + 1 >= n || plen < 6 || strcmp(w[k] + plen - 6, "aclcts") != 0 ||
        strcmp(w[k + 1], "run") != 0) {
        fprintf(stderr, "aclcts: error: repro: expected '[VAR=value ...] .../aclcts run ...', "
                "got: %s\n", argv[1]);
        rc = CLI_EXIT_USAGE;
    } else {
        fprintf(stderr, "aclcts: repro:");
        for (int j = k + 1; j < n; j++)
            fprintf(stderr, " %s", w[j]);
        fprintf(stderr, "\n");
        rc = cli_run(n - k - 1, w + k + 1);
    }
    for (int j = 0; j < n; j++)
        free(w[j]);
    free(w);
    return rc;
}

void cli_shell_word(cts_sink *s, const char *w)
{
    put_word(s, w);
}
