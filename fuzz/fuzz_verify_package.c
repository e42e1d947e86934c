/* libFuzzer target: verify-package on a crafted package returns (problems listed) without a
 * crash, a leak or a hang, and leaves no file behind. An input that starts with the gzip magic
 * is a package archive (libarchive extraction with its refusals, then the checks); any other
 * input is a package directory written as sections, each a line "@@ NAME" followed by the
 * file's bytes (NAME: manifest.json, results.jsonl, SHA256SUMS, summary.md, junit.xml,
 * audit.md, audit.csv, report.html or suites/FILE.yaml; others are skipped). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "package/package.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool allowed(const char *name)
{
    if (!*name) return false;
    static const char *const names[] = {"manifest.json", "results.jsonl", "SHA256SUMS",
                                        "summary.md", "junit.xml", "audit.md", "audit.csv",
                                        "report.html"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i])) return true;
    size_t n = strlen(name);
    return !strncmp(name, "suites/", 7) && n > 12 && !strcmp(name + n - 5, ".yaml") &&
           !strchr(name + 7, '/') && name[7] != '.';
}

static void write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[PATH_MAX];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) return; /* not a file the package can hold */
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

/* The sections of the input as files below dir. */
static void write_sections(const char *dir, const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size, *p = data, *body = NULL;
    char name[128] = "";
    for (;;) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *eol = nl ? nl : end;
        size_t len = (size_t)(eol - p);
        bool header = len > 3 && len - 3 < sizeof name && !memcmp(p, "@@ ", 3);
        if ((header || !nl) && body && allowed(name)) /* the section before ends here */
            write_file(dir, name, body, (size_t)((header ? p : end) - body));
        if (header) {
            memcpy(name, p + 3, len - 3);
            name[len - 3] = 0;
            if (memchr(name, 0, len - 3)) name[0] = 0;
            body = nl ? nl + 1 : end;
        }
        if (!nl) break;
        p = nl + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[] = "/tmp/aclcts-fuzz-verify.XXXXXX", dir[PATH_MAX + 16], tmp[PATH_MAX] = "",
         err[PATH_MAX + 400], digest[65];
    if (!mkdtemp(root)) return 0;
    FILE *out = fopen("/dev/null", "w");
    cts_manifest m;
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        snprintf(dir, sizeof dir, "%s/p.tar.gz", root);
        write_file(root, "p.tar.gz", data, size);
        if (cts_package_extract(dir, tmp, sizeof tmp, dir, sizeof dir, err, sizeof err) == 0) {
            cts_package_verify(dir, false, out, &m, digest);
            cts_manifest_free(&m);
        }
        if (*tmp) cts_remove_tree(tmp);
    } else {
        snprintf(dir, sizeof dir, "%s/pkg", root);
        mkdir(dir, 0755);
        snprintf(err, sizeof err, "%s/suites", dir);
        mkdir(err, 0755);
        write_sections(dir, data, size);
        cts_package_verify(dir, false, out, &m, digest);
        cts_manifest_free(&m);
    }
    if (out) fclose(out);
    cts_remove_tree(root);
    return 0;
}
