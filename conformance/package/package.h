/* The certification package on disk: a directory whose every file is listed with its SHA-256 in
 * SHA256SUMS (coreutils `sha256sum -c` format, so a third party can check it without aclcts),
 * its .tar.gz (libarchive), the human-facing files rendered from results.jsonl and the manifest,
 * and every check of verify-package. */
#ifndef ACLCTS_CONFORMANCE_PACKAGE_H_
#define ACLCTS_CONFORMANCE_PACKAGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "audit.h"
#include "manifest.h"
#include "results.h"

/* First line of a shell command's output (popen), "" when it fails. */
void cts_command_line_output(const char *cmd, char *out, size_t len);

/* The files a package shows people, each rendered from results.jsonl and manifest.json alone
 * (so verify-package can re-derive and compare them): summary.md, junit.xml, audit.md,
 * audit.csv, report.html. NULL-terminated. */
extern const char *const cts_package_rendered[];
/* Renders one of them to f; au is the audit of the results. 0, or -1 on a write error. */
int cts_package_render(const char *name, FILE *f, const cts_manifest *m,
                       const cts_result_list *res, const cts_audit *au);

/* Writes DIR/SHA256SUMS over every regular file below DIR (sorted, relative paths) and puts the
 * SHA-256 of SHA256SUMS itself, the package digest, in digest. 0, or -1 with a message. */
int cts_package_seal(const char *dir, char digest[65], char *err, size_t errlen);
/* Writes tar_path (gzip'd tar of DIR under its base name, sorted, owner 0, regular files and
 * directories only) through a temporary name, so it appears whole or not at all. 0, or -1. */
int cts_package_tar(const char *dir, const char *tar_path, char *err, size_t errlen);
/* Extracts a package archive into a new temporary directory; only regular files and
 * directories below one top-level directory are accepted (no links, devices, FIFOs, absolute
 * paths or '..'). pkg_dir is that directory. On error the temporary directory is removed.
 * 0, or -1 with a message. */
int cts_package_extract(const char *tar, char *tmp_dir, size_t tmplen, char *pkg_dir,
                        size_t pkglen, char *err, size_t errlen);
/* rm -r of a directory tree (no symlink is followed). */
void cts_remove_tree(const char *path);

/* Every check of verify-package (see its --help), one line per problem on out, naming the file.
 * Returns the number of problems. digest: the SHA-256 of SHA256SUMS ("unknown" if absent). m
 * is filled as far as it could be read (free it). */
int cts_package_verify(const char *dir, bool check_backend, FILE *out, cts_manifest *m,
                       char digest[65]);

/* The subcommands of the certification workflow (cli_certify.c, cli_verify_package.c,
 * cli_audit.c), for main.c's table; exit codes as in cli.h. */
int cli_certify(int argc, char **argv);
int cli_verify_package(int argc, char **argv);
int cli_audit(int argc, char **argv);

/* The scheduler variable that would shard a run implicitly (SLURM_ARRAY_TASK_ID,
 * JOB_COMPLETION_INDEX, GTEST_SHARD_INDEX) when set, else NULL: certify and audit refuse them. */
const char *cts_scheduler_shard_variable(void);

#endif
