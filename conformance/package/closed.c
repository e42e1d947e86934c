/* A closed package (package.h): every entry is known by its type before any file is opened, and
 * the package holds exactly the files its manifest lists, SHA256SUMS, and at most a signature.
 * A FIFO or a device opened for reading blocks or has side effects, so nothing below the
 * package directory is opened until lstat has shown it to be a regular file, and then only with
 * O_NONBLOCK | O_NOFOLLOW (a file swapped for a FIFO after the lstat still cannot block). */
#include "package.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *cts_package_fopen(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) close(fd);
    return f;
}

static const char *entry_kind(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : "not a regular file";
}

/* Walks root/rel by lstat: regular files into files, every other entry named on out. Returns
 * the problems; *nfiles counts the regular files below rel (a directory without any is an
 * entry the package does not need). */
static int walk(const char *root, const char *rel, int depth, cts_names *files, size_t *nfiles,
                FILE *out)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    if (depth > 16) {
        fprintf(out, "%s: directories nested too deep\n", rel);
        return 1;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(out, "%s: cannot list: %s\n", *rel ? rel : path, strerror(errno));
        return 1;
    }
    struct dirent *e;
    int bad = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[PATH_MAX], full[PATH_MAX * 3];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        size_t below = 0;
        if (lstat(full, &st) != 0) {
            fprintf(out, "%s: cannot stat: %s\n", sub, strerror(errno));
            bad++;
        } else if (S_ISDIR(st.st_mode)) {
            bad += walk(root, sub, depth + 1, files, &below, out);
            if (below == 0 && bad == 0) {
                fprintf(out, "%s/: a directory holding no file of the package\n", sub);
                bad++;
            }
            *nfiles += below;
        } else if (S_ISREG(st.st_mode)) {
            cts_names_push(files, sub);
            ++*nfiles;
        } else {
            fprintf(out, "%s: %s (a package holds regular files only; refused before any "
                    "file was read)\n", sub, entry_kind(st.st_mode));
            bad++;
        }
    }
    closedir(d);
    return bad;
}

int cts_package_entries(const char *dir, cts_names *files, FILE *out)
{
    size_t n = 0;
    int bad = walk(dir, "", 0, files, &n, out);
    cts_names_sort(files);
    return bad;
}

/* The files a manifest may list: results.jsonl, the rendered files, suites/...yaml and the
 * evidence of the outputs (evidence.tar.gz, run.h). */
static bool packaged_name(const char *role, const char *path)
{
    if (!strcmp(role, "result")) return !strcmp(path, "results.jsonl");
    if (!strcmp(role, "evidence")) return !strcmp(path, "evidence.tar.gz");
    if (!strcmp(role, "report")) {
        for (const char *const *r = cts_package_rendered; *r; r++)
            if (!strcmp(path, *r)) return true;
        return false;
    }
    size_t n = strlen(path);
    return !strcmp(role, "suite") && !strncmp(path, "suites/", 7) && n > 12 &&
           (!strcmp(path + n - 5, ".yaml") || !strcmp(path + n - 4, ".yml")) &&
           !strstr(path, "..") && !strstr(path, "//");
}

/* Every file the manifest lists is one a package holds, once; results.jsonl and every rendered
 * file are among them. */
static int check_manifest_names(const cts_manifest *m, cts_names *listed, FILE *out)
{
    int bad = 0;
    for (size_t i = 0; i < m->nfiles; i++) {
        const cts_manifest_file *e = &m->files[i];
        if (!packaged_name(e->role, e->path)) {
            fprintf(out, "%s: listed in manifest.json as a %s file, which a package does not "
                    "hold (refused)\n", e->path, e->role);
            bad++;
        }
        cts_names_push(listed, e->path);
    }
    cts_names_sort(listed);
    for (size_t i = 1; i < listed->n; i++)
        if (!strcmp(listed->v[i], listed->v[i - 1])) {
            fprintf(out, "%s: listed twice in manifest.json\n", listed->v[i]);
            bad++;
        }
    if (!cts_names_has(listed, "results.jsonl")) {
        fprintf(out, "manifest.json: does not list results.jsonl\n");
        bad++;
    }
    for (const char *const *r = cts_package_rendered; *r; r++)
        if (!cts_names_has(listed, *r)) {
            fprintf(out, "manifest.json: does not list %s\n", *r);
            bad++;
        }
    return bad;
}

int cts_package_check_closed(const cts_names *summed, const cts_manifest *m, FILE *out)
{
    cts_names listed = {0};
    int bad = check_manifest_names(m, &listed, out);
    for (size_t i = 0; i < summed->n; i++)
        if (strcmp(summed->v[i], "manifest.json") && !cts_names_has(&listed, summed->v[i])) {
            fprintf(out, "%s: listed in SHA256SUMS but not in manifest.json: a package holds "
                    "only the files its manifest lists (refused)\n", summed->v[i]);
            bad++;
        }
    for (size_t i = 0; i < listed.n; i++)
        if (!cts_names_has(summed, listed.v[i])) {
            fprintf(out, "%s: listed in manifest.json but not in SHA256SUMS\n", listed.v[i]);
            bad++;
        }
    if (!cts_names_has(summed, "manifest.json")) {
        fprintf(out, "manifest.json: not listed in SHA256SUMS\n");
        bad++;
    }
    cts_names_free(&listed);
    return bad;
}
