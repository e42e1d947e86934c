/* Certification package files (package.h): rendering, sealing, the archive. The checks of
 * verify-package are in package_verify.c. */
#include "package.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "report/report.h"
#include "results/results.h"

FILE *cts_command_start(const char *cmd)
{
    return popen(cmd, "r");
}

void cts_command_finish(FILE *p, char *out, size_t len)
{
    out[0] = 0;
    if (!p) return;
    if (!fgets(out, (int)len, p)) out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    if (pclose(p) != 0) out[0] = 0;
}

void cts_command_line_output(const char *cmd, char *out, size_t len)
{
    cts_command_finish(cts_command_start(cmd), out, len);
}

const char *cts_scheduler_shard_variable(void)
{
    static const char *const vars[] = {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX",
                                       "GTEST_SHARD_INDEX"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return vars[i];
    return NULL;
}

/* ---- rendering ---- */

const char *const cts_package_rendered[] = {"summary.md", "junit.xml", "audit.md", "audit.csv",
                                            "report.html", NULL};

/* The distinct values of one provenance field over the shards, joined with ", ". */
static void shard_values(const cts_manifest *m, size_t off, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; i < m->nshards; i++) {
        const char *v = (const char *)&m->shards[i] + off;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(v, (const char *)&m->shards[k] + off);
        if (!seen && n < len) n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", v);
    }
}

/* The manifest's waivers as the report lists them (malloc'd; NULL when there are none). */
static cts_waiver_row *waiver_rows(const cts_manifest *m)
{
    cts_waiver_row *w = m->nwaivers ? calloc(m->nwaivers, sizeof *w) : NULL;
    if (m->nwaivers && !w) abort();
    for (size_t i = 0; i < m->nwaivers; i++) {
        const cts_manifest_waiver *x = &m->waivers[i];
        w[i] = (cts_waiver_row){.case_id = x->case_id, .message = x->reason,
                                .status = x->expired ? CTS_FAIL : CTS_WAIVED,
                                .reason = x->waiver_reason, .tracking = x->tracking,
                                .owner = x->owner, .expires = x->expires};
    }
    return w;
}

static int render_report(FILE *f, const cts_manifest *m, const cts_result_list *res,
                         const cts_audit *au)
{
    char counts[256] = "", set[160], socs[512], hosts[1024], start[24] = "", end[24] = "",
         shards[32], title[128];
    for (int s = 0, k = 0; s < CTS_STATUS_COUNT; s++)
        if (m->counts[s])
            k += snprintf(counts + k, sizeof counts - (size_t)k, "%s%zu %s", k ? ", " : "",
                          m->counts[s], cts_status_name((cts_status)s));
    snprintf(set, sizeof set, "%s (%s)", m->canonical ? "canonical" : "NOT the canonical set",
             m->suite_set);
    shard_values(m, offsetof(cts_provenance, soc), socs, sizeof socs);
    shard_values(m, offsetof(cts_provenance, host), hosts, sizeof hosts);
    for (size_t i = 0; i < m->nshards; i++) {
        if (!*start || strcmp(m->shards[i].start, start) < 0) memcpy(start, m->shards[i].start, 24);
        if (strcmp(m->shards[i].end, end) > 0) memcpy(end, m->shards[i].end, 24);
    }
    snprintf(shards, sizeof shards, "%zu", m->nshards);
    snprintf(title, sizeof title, "aclcts certification: %s", m->product);
    const char *keys[] = {"product", "contract", "backend", "suite set", "complete", "SoC",
                          "hosts", "aclcts version", "seed", "first start", "last end",
                          "run sessions", "cases", "verdict reason"};
    const char *vals[] = {m->product, m->contract, m->backend, set,
                          m->complete ? "yes" : "NO", socs, hosts, m->version, m->seed, start,
                          end, shards, counts, m->verdict_reason};
    int ninfo = (int)(sizeof keys / sizeof keys[0]) - (*m->verdict_reason ? 0 : 1);
    cts_waiver_row *waivers = waiver_rows(m);
    cts_report rep = {.title = title, .verdict = m->verdict, .info_keys = keys,
                      .info_values = vals, .ninfo = ninfo, .results = res->r,
                      .nresults = res->count, .audit = au, .waivers = waivers,
                      .nwaivers = m->nwaivers};
    int rc = cts_report_html_write(f, &rep);
    free(waivers);
    return rc;
}

int cts_package_render(const char *name, FILE *f, const cts_manifest *m,
                       const cts_result_list *res, const cts_audit *au)
{
    if (!strcmp(name, "summary.md")) {
        fprintf(f, "# aclcts summary\n\n");
        cts_summary_write(f, res->r, res->count, 0);
    } else if (!strcmp(name, "junit.xml")) {
        if (cts_junit_write(f, res->r, res->count) != 0) return -1;
    } else if (!strcmp(name, "audit.md")) {
        fprintf(f, "# aclcts precision audit\n\n");
        cts_audit_write_markdown(f, au);
        cts_waiver_row *waivers = waiver_rows(m);
        cts_waivers_markdown(f, waivers, m->nwaivers);
        free(waivers);
    } else if (!strcmp(name, "audit.csv")) {
        cts_audit_write_csv(f, au);
    } else if (!strcmp(name, "report.html")) {
        if (render_report(f, m, res, au) != 0) return -1;
    } else {
        return -1;
    }
    return ferror(f) ? -1 : 0;
}

/* ---- listing, sealing ---- */

void cts_names_push(cts_names *l, const char *s)
{
    l->v = cts_grow(l->v, &l->cap, l->n, sizeof *l->v);
    l->v[l->n] = strdup(s);
    if (!l->v[l->n++]) abort();
}

void cts_names_free(cts_names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void cts_names_sort(cts_names *l)
{
    if (l->n) qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

bool cts_names_has(const cts_names *l, const char *s)
{
    return l->n && bsearch(&s, l->v, l->n, sizeof *l->v, cmp_str) != NULL;
}

static const char *kind_of(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

int cts_package_list(const char *root, const char *rel, int depth, cts_names *files,
                     cts_names *bad)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    if (depth > 16) {
        snprintf(path, sizeof path, "%s: directories nested too deep", rel);
        cts_names_push(bad, path);
        return 0;
    }
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
        if (lstat(full, &st) != 0) {
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            rc = cts_package_list(root, sub, depth + 1, files, bad);
        } else if (S_ISREG(st.st_mode)) {
            cts_names_push(files, sub);
        } else {
            char msg[PATH_MAX + 64];
            snprintf(msg, sizeof msg, "%s: %s (a package holds regular files only)", sub,
                     kind_of(st.st_mode));
            cts_names_push(bad, msg);
        }
    }
    closedir(d);
    return rc;
}

/* The package's files under dir, sorted (the order SHA256SUMS and the archive list them in);
 * a file of a kind a package may not hold is an error named in err. */
static int list_sorted(const char *dir, cts_names *files, char *err, size_t errlen)
{
    cts_names bad = {0};
    if (cts_package_list(dir, "", 0, files, &bad) != 0 || bad.n) {
        snprintf(err, errlen, "%s: cannot list: %s", dir, bad.n ? bad.v[0] : strerror(errno));
        cts_names_free(files);
        cts_names_free(&bad);
        return -1;
    }
    cts_names_sort(files);
    return 0;
}

int cts_package_seal(const char *dir, char digest[65], char *err, size_t errlen)
{
    cts_names files = {0};
    char path[PATH_MAX * 2], hex[65];
    if (list_sorted(dir, &files, err, errlen) != 0) return -1;
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        if (!strcmp(files.v[i], "SHA256SUMS")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, files.v[i]);
        if (cts_sha256_file(path, hex) != 0) rc = -1;
        else fprintf(f, "%s  %s\n", hex, files.v[i]);
    }
    if (f && fclose(f) != 0) rc = -1;
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    if (rc == 0 && cts_sha256_file(path, digest) != 0) rc = -1;
    if (rc != 0) snprintf(err, errlen, "%s: cannot write SHA256SUMS: %s", dir, strerror(errno));
    cts_names_free(&files);
    return rc;
}

void cts_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[PATH_MAX * 2];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            cts_remove_tree(sub);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- the archive ---- */

static int add_file(struct archive *a, const char *dir, const char *name, const char *base)
{
    char path[PATH_MAX * 2], inner[PATH_MAX * 2], buf[65536];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(inner, sizeof inner, "%s/%s", base, name);
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return -1;
    }
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, inner);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, st.st_size);
    archive_entry_set_mtime(e, st.st_mtime, 0);
    int rc = archive_write_header(a, e) == ARCHIVE_OK ? 0 : -1;
    ssize_t n;
    while (rc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
        if (archive_write_data(a, buf, (size_t)n) != n) rc = -1;
    close(fd);
    archive_entry_free(e);
    return rc;
}

static int add_dir(struct archive *a, const char *inner)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, inner);
    archive_entry_set_filetype(e, AE_IFDIR);
    archive_entry_set_perm(e, 0755);
    int rc = archive_write_header(a, e) == ARCHIVE_OK ? 0 : -1;
    archive_entry_free(e);
    return rc;
}

/* The base name of dir (trailing slashes ignored). */
static void base_name(const char *dir, char *out, size_t len)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/') tmp[--n] = 0;
    const char *slash = strrchr(tmp, '/');
    snprintf(out, len, "%s", slash ? slash + 1 : tmp);
}

int cts_package_tar(const char *dir, const char *tar_path, char *err, size_t errlen)
{
    char base[PATH_MAX], tmp[PATH_MAX + 16];
    cts_names files = {0};
    base_name(dir, base, sizeof base);
    snprintf(tmp, sizeof tmp, "%s.partial", tar_path);
    if (list_sorted(dir, &files, err, errlen) != 0) return -1;
    struct archive *a = archive_write_new();
    /* gzip's fastest level: the archive only carries the sealed files (their digests are in
     * SHA256SUMS); level 6 made it 20 % smaller and took 1.75x the time of level 1, the
     * largest single step left at the end of a certification */
    int rc = archive_write_add_filter_gzip(a) == ARCHIVE_OK &&
             archive_write_set_filter_option(a, "gzip", "compression-level", "1") ==
                 ARCHIVE_OK &&
             archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
             archive_write_open_filename(a, tmp) == ARCHIVE_OK && add_dir(a, base) == 0
                 ? 0 : -1;
    char last_dir[PATH_MAX] = "";
    for (size_t i = 0; rc == 0 && i < files.n; i++) {
        /* one directory entry before the first file below it (files are sorted) */
        char sub[PATH_MAX], inner[PATH_MAX * 2];
        snprintf(sub, sizeof sub, "%s", files.v[i]);
        char *slash = strrchr(sub, '/');
        if (slash) *slash = 0;
        if (slash && strcmp(sub, last_dir) != 0) {
            snprintf(inner, sizeof inner, "%s/%s", base, sub);
            rc = add_dir(a, inner);
            snprintf(last_dir, sizeof last_dir, "%s", sub);
        }
        if (rc == 0) rc = add_file(a, dir, files.v[i], base);
    }
    if (archive_write_close(a) != ARCHIVE_OK) rc = -1;
    if (rc != 0) snprintf(err, errlen, "%s: %s", tar_path, archive_error_string(a) ?
                          archive_error_string(a) : strerror(errno));
    archive_write_free(a);
    if (rc == 0 && rename(tmp, tar_path) != 0) {
        snprintf(err, errlen, "%s: %s", tar_path, strerror(errno));
        rc = -1;
    }
    if (rc != 0) unlink(tmp);
    cts_names_free(&files);
    return rc;
}

/* Limits of what an archive may unpack to (a certification package is a few MB). */
#define MAX_ENTRIES 10000
#define MAX_BYTES (1LL << 30)

/* A path inside the archive that stays inside it: relative, no empty, "." or ".." part. */
static bool safe_path(const char *p)
{
    if (!*p || *p == '/') return false;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        if (*p == '/') p++; /* a trailing '/' ends a directory's name */
    }
    return true;
}

static int extract_entry(struct archive *a, struct archive_entry *e, const char *tmp,
                         char *top, size_t toplen, long long *bytes, char *err, size_t errlen)
{
    const char *name = archive_entry_pathname(e);
    char path[PATH_MAX * 2];
    if (!name || !safe_path(name)) {
        snprintf(err, errlen, "entry '%s': a path that leaves the package", name ? name : "");
        return -1;
    }
    if (archive_entry_hardlink(e) || archive_entry_symlink(e)) {
        snprintf(err, errlen, "entry '%s': a link (a package holds regular files only)", name);
        return -1;
    }
    mode_t type = archive_entry_filetype(e);
    if (type != AE_IFREG && type != AE_IFDIR) {
        snprintf(err, errlen, "entry '%s': %s (a package holds regular files only)", name,
                 kind_of(type));
        return -1;
    }
    size_t tl = strcspn(name, "/");
    if (!*top) snprintf(top, toplen, "%.*s", (int)tl, name);
    if (strlen(top) != tl || strncmp(name, top, tl) != 0) {
        snprintf(err, errlen, "entry '%s': outside the package directory '%s'", name, top);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') path[--n] = 0;
    /* parents an archive did not list (safe: every part was checked, no link exists here) */
    for (char *slash = path + strlen(tmp) + 1; (slash = strchr(slash, '/')); slash++) {
        *slash = 0;
        int made = mkdir(path, 0755) == 0 || errno == EEXIST;
        *slash = '/';
        if (!made) break;
    }
    if (type == AE_IFDIR) {
        if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
        snprintf(err, errlen, "entry '%s': %s", name, strerror(errno));
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "entry '%s': %s", name, errno == EEXIST ? "twice in the archive"
                 : strerror(errno));
        return -1;
    }
    char buf[65536];
    la_ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = archive_read_data(a, buf, sizeof buf)) > 0) {
        *bytes += got;
        if (*bytes > MAX_BYTES || write(fd, buf, (size_t)got) != got) rc = -1;
    }
    if (rc == 0 && got < 0) rc = -1;
    close(fd);
    if (rc != 0)
        snprintf(err, errlen, "entry '%s': %s", name, *bytes > MAX_BYTES
                 ? "the package unpacks to more than 1 GiB" : archive_error_string(a)
                 ? archive_error_string(a) : strerror(errno));
    return rc;
}

int cts_package_extract(const char *tar, char *tmp_dir, size_t tmplen, char *pkg_dir,
                        size_t pkglen, char *err, size_t errlen)
{
    /* Known to be a regular file before anything is read (a FIFO would block the read) */
    int fd = open(tar, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    *tmp_dir = 0;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", tar, fd < 0 ? strerror(errno)
                 : "not a regular file (a FIFO, device or directory), refused before any read");
        if (fd >= 0) close(fd);
        return -1;
    }
    const char *t = getenv("TMPDIR");
    snprintf(tmp_dir, tmplen, "%s/aclcts-verify.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        *tmp_dir = 0;
        close(fd);
        return -1;
    }
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    char top[PATH_MAX] = "", msg[PATH_MAX + 200] = "";
    long long bytes = 0;
    int rc = 0, count = 0;
    if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
        snprintf(msg, sizeof msg, "%s", archive_error_string(a));
        rc = -1;
    }
    struct archive_entry *e;
    while (rc == 0) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF) break;
        if (r != ARCHIVE_OK || ++count > MAX_ENTRIES) {
            snprintf(msg, sizeof msg, "%s", r != ARCHIVE_OK ? archive_error_string(a)
                                            : "more than 10000 entries");
            rc = -1;
        } else {
            rc = extract_entry(a, e, tmp_dir, top, sizeof top, &bytes, msg, sizeof msg);
        }
    }
    archive_read_free(a);
    close(fd);
    if (rc == 0 && !*top) {
        snprintf(msg, sizeof msg, "an empty archive");
        rc = -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: not a package archive: %s", tar, msg);
        cts_remove_tree(tmp_dir);
        *tmp_dir = 0;
        return -1;
    }
    snprintf(pkg_dir, pkglen, "%s/%s", tmp_dir, top);
    return 0;
}
