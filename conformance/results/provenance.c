/* Per-run provenance records (results.h). */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static void now_iso(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void cts_backend_soc_name(const cts_backend *b, const char *product, char *out, size_t len)
{
    int fd[2];
    snprintf(out, len, "unknown");
    if (pipe(fd) != 0) return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (b->emulated && product) setenv("ACLCTS_SOC", product, 1);
        const char *s = NULL;
        if (b->aclInit(NULL) == 0 && b->aclrtSetDevice(0) == 0) s = b->aclrtGetSocName();
        if (s && write(fd[1], s, strlen(s)) < 0) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    ssize_t n = pid > 0 ? read(fd[0], out, len - 1) : -1;
    if (n > 0) out[n] = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
}

/* argv as one shell line: words with characters the shell reads specially are single-quoted. */
static void join_command(int argc, char **argv, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "aclcts");
    for (int i = 0; i < argc && n < len; i++) {
        const char *w = argv[i];
        bool plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789-_./=:,+@%") == strlen(w);
        n += (size_t)snprintf(out + n, len - n, plain ? " %s" : " '", w);
        for (const char *p = w; !plain && *p && n < len; p++)
            n += (size_t)snprintf(out + n, len - n, *p == '\'' ? "'\\''" : "%c", *p);
        if (!plain && n < len) n += (size_t)snprintf(out + n, len - n, "'");
    }
}

static void hash_libs(cts_provenance *p, const cts_backend *b)
{
    static const char *const libs[] = {"libascendcl.so", "libnnopbase.so", "libopapi.so",
                                       "libopapi_nn.so", "libopapi_cv.so"};
    for (size_t k = 0; k < sizeof libs / sizeof libs[0] && p->nlibs < CTS_PROV_MAX_LIBS; k++) {
        char path[PATH_MAX + 32], real[PATH_MAX];
        cts_prov_lib *l = &p->libs[p->nlibs];
        snprintf(path, sizeof path, "%s/%s", b->dir, libs[k]);
        if (!realpath(path, real) || strlen(real) >= sizeof l->path ||
            cts_sha256_file(real, l->sha256) != 0)
            continue;
        snprintf(l->name, sizeof l->name, "%s", libs[k]);
        memcpy(l->path, real, strlen(real) + 1);
        p->nlibs++;
    }
}

static int write_record(cts_provenance *p);

int cts_provenance_begin(cts_provenance *p, const cts_backend *b, const char *backend_spec,
                         const char *product, const char *contract, int shard_index, int shard_count, int argc,
                         char **argv, const char *jsonl_path)
{
    memset(p, 0, sizeof *p);
    now_iso(p->start, sizeof p->start);
    if (gethostname(p->host, sizeof p->host - 1) != 0) snprintf(p->host, sizeof p->host, "unknown");
    snprintf(p->product, sizeof p->product, "%s", product ? product : "all");
    cts_backend_soc_name(b, product && strcmp(product, "all") ? product : NULL, p->soc,
                         sizeof p->soc);
    snprintf(p->backend, sizeof p->backend, "%s", backend_spec);
    snprintf(p->backend_dir, sizeof p->backend_dir, "%s", b->dir);
    snprintf(p->contract, sizeof p->contract, "%s", contract ? contract : CTS_DEFAULT_CONTRACT);
    snprintf(p->aclcts_version, sizeof p->aclcts_version, "%s", ACLCTS_VERSION);
    snprintf(p->shard, sizeof p->shard, "%d/%d", shard_index, shard_count);
    join_command(argc, argv, p->command, sizeof p->command);
    hash_libs(p, b);
    snprintf(p->results, sizeof p->results, "%s", jsonl_path);
    cts_provenance_path(jsonl_path, p->file, sizeof p->file);
    struct stat st;
    p->offset = stat(p->file, &st) == 0 ? (long)st.st_size : 0;
    return write_record(p);
}

void cts_provenance_path(const char *jsonl_path, char *out, size_t len)
{
    size_t n = strlen(jsonl_path);
    if (n > 6 && !strcmp(jsonl_path + n - 6, ".jsonl")) n -= 6;
    snprintf(out, len, "%.*s.provenance.jsonl", (int)n, jsonl_path);
}

json_t *cts_provenance_to_json(const cts_provenance *p)
{
    json_t *libs = json_array();
    for (int i = 0; i < p->nlibs; i++)
        json_array_append_new(libs, json_pack("{s:s, s:s, s:s}", "name", p->libs[i].name,
                                              "path", p->libs[i].path, "sha256",
                                              p->libs[i].sha256));
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, "
                          "s:o}",
                          "results", p->results, "host", p->host, "soc", p->soc, "product",
                          p->product, "backend", p->backend, "backend_dir", p->backend_dir,
                          "contract", p->contract, "aclcts_version", p->aclcts_version,
                          "start", p->start, "end", p->end, "shard", p->shard, "cases",
                          (json_int_t)p->cases, "command", p->command, "backend_libs", libs);
    if (!o) abort();
    return o;
}

int cts_provenance_from_json(const json_t *o, cts_provenance *p, char *err, size_t errlen)
{
    static const char *const keys[] = {"results", "host", "soc", "product", "backend",
                                       "backend_dir", "contract", "aclcts_version", "start",
                                       "end", "shard", "cases", "command", "backend_libs",
                                       NULL};
    static const char *const lib_keys[] = {"name", "path", "sha256", NULL};
    const char *w = "shard record: ";
    memset(p, 0, sizeof *p);
    if (!json_is_object(o)) return snprintf(err, errlen, "shard record: not an object"), -1;
    struct { const char *key; char *out; size_t size; } s[] = {
        {"results", p->results, sizeof p->results}, {"host", p->host, sizeof p->host},
        {"soc", p->soc, sizeof p->soc}, {"product", p->product, sizeof p->product},
        {"backend", p->backend, sizeof p->backend},
        {"backend_dir", p->backend_dir, sizeof p->backend_dir},
        {"contract", p->contract, sizeof p->contract},
        {"aclcts_version", p->aclcts_version, sizeof p->aclcts_version},
        {"start", p->start, sizeof p->start}, {"end", p->end, sizeof p->end},
        {"shard", p->shard, sizeof p->shard}, {"command", p->command, sizeof p->command}};
    if (cts_json_only_keys(o, w, keys, err, errlen)) return -1;
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (cts_json_str(o, w, s[i].key, s[i].out, s[i].size, err, errlen)) return -1;
    if (cts_json_count(o, w, "cases", &p->cases, err, errlen)) return -1;
    const json_t *libs = json_object_get(o, "backend_libs");
    if (!json_is_array(libs) || json_array_size(libs) > CTS_PROV_MAX_LIBS)
        return snprintf(err, errlen, "shard record: \"backend_libs\": not a list of at most %d",
                        CTS_PROV_MAX_LIBS), -1;
    for (size_t i = 0; i < json_array_size(libs); i++) {
        const json_t *l = json_array_get(libs, i);
        cts_prov_lib *d = &p->libs[p->nlibs++];
        if (!json_is_object(l) || cts_json_only_keys(l, "backend_libs: ", lib_keys, err, errlen) ||
            cts_json_str(l, "backend_libs: ", "name", d->name, sizeof d->name, err, errlen) ||
            cts_json_str(l, "backend_libs: ", "path", d->path, sizeof d->path, err, errlen) ||
            cts_json_str(l, "backend_libs: ", "sha256", d->sha256, sizeof d->sha256, err, errlen))
            return json_is_object(l) ? -1
                                     : (snprintf(err, errlen, "backend_libs: not an object"), -1);
    }
    return 0;
}

/* The record as one line at p->offset of p->file (replacing what the session wrote before). */
static int write_record(cts_provenance *p)
{
    json_t *o = cts_provenance_to_json(p);
    char *line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int fd = line ? open(p->file, O_WRONLY | O_CREAT, 0666) : -1;
    int rc = fd >= 0 && ftruncate(fd, p->offset) == 0 && lseek(fd, p->offset, SEEK_SET) >= 0
                 ? 0 : -1;
    size_t n = line ? strlen(line) : 0;
    if (rc == 0 && (write(fd, line, n) != (ssize_t)n || write(fd, "\n", 1) != 1)) rc = -1;
    if (fd >= 0 && close(fd) != 0) rc = -1;
    free(line);
    return rc;
}

int cts_provenance_finish(cts_provenance *p, long long cases)
{
    now_iso(p->end, sizeof p->end);
    p->cases = cases;
    return write_record(p);
}

int cts_provenance_read(const char *path, cts_provenance **out, size_t *n, char *err,
                        size_t errlen)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL, msg[600];
    size_t cap = 0;
    int rc = 0, lineno = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        json_error_t je;
        json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
        cts_provenance *grown = realloc(*out, (*n + 1) * sizeof **out);
        if (!grown) abort();
        *out = grown;
        if (!o || cts_provenance_from_json(o, &(*out)[*n], msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, o ? msg : je.text);
            rc = -1;
        } else {
            (*n)++;
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    if (rc == 0 && *n == 0) {
        snprintf(err, errlen, "%s: no record", path);
        rc = -1;
    }
    return rc;
}
