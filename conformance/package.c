/* Certification package files (package.h). */
#include "package.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sha256.h"

int cts_run_command(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void cts_command_line_output(const char *cmd, char *out, size_t len)
{
    out[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(out, (int)len, p)) out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    if (pclose(p) != 0) out[0] = 0;
}

typedef struct {
    char **v;
    size_t n, cap;
} names;

static void names_push(names *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) abort();
    }
    l->v[l->n++] = strdup(s);
}

static void names_free(names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Regular files below root/rel, relative to root. */
static int walk(const char *root, const char *rel, names *out)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[PATH_MAX], full[PATH_MAX * 2];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) rc = -1;
        else if (S_ISDIR(st.st_mode)) rc = walk(root, sub, out);
        else names_push(out, sub);
    }
    closedir(d);
    return rc;
}

int cts_package_seal(const char *dir, char digest[65], char *err, size_t errlen)
{
    names files = {0};
    char path[PATH_MAX * 2], hex[65];
    if (walk(dir, "", &files) != 0) {
        snprintf(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
        names_free(&files);
        return -1;
    }
    qsort(files.v, files.n, sizeof *files.v, cmp_str);
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        if (!strcmp(files.v[i], "SHA256SUMS")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, files.v[i]);
        if (cts_sha256_file(path, hex) != 0) {
            rc = -1;
            break;
        }
        fprintf(f, "%s  %s\n", hex, files.v[i]);
    }
    if (f && fclose(f) != 0) rc = -1;
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    if (rc == 0 && cts_sha256_file(path, digest) != 0) rc = -1;
    if (rc != 0) snprintf(err, errlen, "%s: cannot write SHA256SUMS: %s", dir, strerror(errno));
    names_free(&files);
    return rc;
}

int cts_package_tar(const char *dir, char *tar_path, size_t len)
{
    char parent[PATH_MAX], base[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/') parent[--n] = 0;
    char *slash = strrchr(parent, '/');
    if (slash) {
        snprintf(base, sizeof base, "%s", slash + 1);
        if (slash == parent) slash[1] = 0;
        else *slash = 0;
    } else {
        snprintf(base, sizeof base, "%s", parent);
        snprintf(parent, sizeof parent, ".");
    }
    snprintf(tar_path, len, "%s/%s.tar.gz", parent, base);
    char *argv[] = {"tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-czf",
                    tar_path, "-C", parent, base, NULL};
    return cts_run_command(argv) == 0 ? 0 : -1;
}

int cts_package_extract(const char *tar, char *tmp_dir, size_t tmplen, char *pkg_dir,
                        size_t pkglen, char *err, size_t errlen)
{
    snprintf(tmp_dir, tmplen, "/tmp/aclcts-verify.XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        return -1;
    }
    char *argv[] = {"tar", "-xzf", (char *)tar, "-C", tmp_dir, NULL};
    if (cts_run_command(argv) != 0) {
        snprintf(err, errlen, "%s: tar could not extract it", tar);
        return -1;
    }
    DIR *d = opendir(tmp_dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            found++;
            snprintf(pkg_dir, pkglen, "%s/%s", tmp_dir, e->d_name);
        }
    if (d) closedir(d);
    if (found != 1) {
        snprintf(err, errlen, "%s: expected one package directory inside, found %d", tar, found);
        return -1;
    }
    return 0;
}

/* SHA256SUMS against the files; returns problems. */
static int check_sums(const char *dir, FILE *out)
{
    char path[PATH_MAX * 2], hex[65];
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(out, "SHA256SUMS: missing\n");
        return 1;
    }
    names listed = {0}, present = {0};
    char line[PATH_MAX + 80];
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ') {
            fprintf(out, "SHA256SUMS: malformed line '%s'\n", line);
            bad++;
            continue;
        }
        const char *name = line + 66;
        names_push(&listed, name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (strstr(name, "..") || cts_sha256_file(path, hex) != 0) {
            fprintf(out, "%s: missing (listed in SHA256SUMS)\n", name);
            bad++;
        } else if (strncmp(hex, line, 64) != 0) {
            fprintf(out, "%s: SHA-256 %s differs from SHA256SUMS (%.64s): the file was "
                         "changed\n", name, hex, line);
            bad++;
        }
    }
    fclose(f);
    walk(dir, "", &present);
    qsort(listed.v, listed.n, sizeof *listed.v, cmp_str);
    for (size_t i = 0; i < present.n; i++) {
        if (!strcmp(present.v[i], "SHA256SUMS")) continue;
        if (!bsearch(&present.v[i], listed.v, listed.n, sizeof *listed.v, cmp_str)) {
            fprintf(out, "%s: not listed in SHA256SUMS (added after sealing)\n", present.v[i]);
            bad++;
        }
    }
    names_free(&listed);
    names_free(&present);
    return bad;
}

int cts_package_verify(const char *dir, bool check_backend, FILE *out, cts_manifest *m,
                       cts_result_list *results, char digest[65])
{
    char path[PATH_MAX * 2], hex[65], err[1200];
    int bad = check_sums(dir, out);
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    if (cts_sha256_file(path, digest) != 0) snprintf(digest, 65, "unknown");
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (cts_manifest_read(path, m, err, sizeof err) != 0) {
        fprintf(out, "manifest.json: %s\n", err);
        return bad + 1;
    }
    for (size_t i = 0; i < m->nfiles; i++) {
        const cts_manifest_file *e = &m->files[i];
        bool backend = !strcmp(e->role, "backend");
        if (backend && !check_backend) continue;
        if (backend) snprintf(path, sizeof path, "%s", e->path);
        else snprintf(path, sizeof path, "%s/%s", dir, e->path);
        if (cts_sha256_file(path, hex) != 0) {
            fprintf(out, "%s: missing (listed in manifest.json)\n", e->path);
            bad++;
        } else if (strcmp(hex, e->sha256) != 0) {
            fprintf(out, "%s: SHA-256 %s differs from manifest.json (%s)\n", e->path, hex,
                    e->sha256);
            bad++;
        }
    }
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    int unreadable = cts_jsonl_read(path, results, NULL, out);
    if (unreadable != 0) {
        fprintf(out, "results.jsonl: %s\n", unreadable < 0 ? "missing" : "unreadable records");
        return bad + 1;
    }
    cts_tally t;
    cts_tally_results(results->r, results->count, &t);
    const char *verdict = cts_certification_verdict(t.count, t.total);
    if (strcmp(verdict, m->verdict) != 0) {
        fprintf(out, "results.jsonl: the results give %s but manifest.json says %s\n", verdict,
                m->verdict);
        bad++;
    }
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (t.count[s] != m->counts[s]) {
            fprintf(out, "results.jsonl: %zu %s cases, manifest.json counts %zu\n", t.count[s],
                    cts_status_name((cts_status)s), m->counts[s]);
            bad++;
        }
    return bad;
}
