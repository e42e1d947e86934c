/* `aclcts repro LINE`: reads back the repro line cli_repro_line.c writes and reruns its case with
 * `aclcts run`. */
#include "cli.h"
#include "results/results.h"

#include <limits.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>



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

/* A line from a package made on another machine names the suite where it ran; run from the
 * package's directory it takes the package's copy, suites/OP/FILE, when the named file is not
 * here. */
static void resolve_suite(char **word)
{
    char key[PATH_MAX], packaged[PATH_MAX + 8];
    struct stat st;
    if (**word == '-' || stat(*word, &st) == 0)
        return;
    cts_suite_key(*word, key, sizeof key);
    snprintf(packaged, sizeof packaged, "suites/%s", key);
    if (stat(packaged, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    fprintf(stderr, "aclcts: repro: %s is not here; taking the package's %s\n", *word, packaged);
    free(*word);
    if (!(*word = strdup(packaged)))
        abort();
}

static const char repro_help[] =
    "usage: aclcts repro 'LINE'\n"
    "\n"
    "Reruns the case of a repro line exactly as `aclcts run` printed it (in results.jsonl\n"
    "field \"repro\", summary.md, the console and junit.xml), in this process: leading\n"
    "VAR=value words set the environment, the program word is ignored (this binary runs), the\n"
    "rest are `run` options. A leading '$ ' is ignored. A suite file that is not there is taken\n"
    "from ./suites/OP/FILE when that exists: a package's lines work from its directory. The\n"
    "exit code is run's.\n";

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
        resolve_suite(&w[n - 1]);
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
