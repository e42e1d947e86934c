/* The certification package on disk: a directory whose every file is listed with its SHA-256 in
 * SHA256SUMS (coreutils `sha256sum -c` format, so a third party can check it without aclcts),
 * its .tar.gz made with the system tar, and the checks of verify-package that need no suites. */
#ifndef ACLCTS_CONFORMANCE_PACKAGE_H_
#define ACLCTS_CONFORMANCE_PACKAGE_H_

#include <stddef.h>
#include <stdio.h>

#include "manifest.h"
#include "results.h"

/* Runs argv (execvp) and waits; the exit status, or -1 when it could not run. */
int cts_run_command(char *const argv[]);
/* First line of a shell command's output (popen), "" when it fails. */
void cts_command_line_output(const char *cmd, char *out, size_t len);

/* Writes DIR/SHA256SUMS over every regular file below DIR (sorted, relative paths) and puts the
 * SHA-256 of SHA256SUMS itself, the package digest, in digest. 0, or -1 with a message. */
int cts_package_seal(const char *dir, char digest[65], char *err, size_t errlen);
/* DIR.tar.gz next to DIR with the system tar (sorted names, numeric owner 0). 0 or -1. */
int cts_package_tar(const char *dir, char *tar_path, size_t len);
/* Extracts a .tar.gz into a new temporary directory and finds the package directory in it
 * (the single top-level entry). 0, or -1 with a message. */
int cts_package_extract(const char *tar, char *tmp_dir, size_t tmplen, char *pkg_dir,
                        size_t pkglen, char *err, size_t errlen);

/* Every check that needs only the package: SHA256SUMS against the files (and no file unlisted),
 * manifest.json's hashes against the files, the verdict and counts recomputed from
 * results.jsonl against the manifest's. Each problem is one line on out naming the file.
 * Fills the manifest and results for further checks. Returns the number of problems (-1 when
 * the package cannot be read at all). digest: the SHA-256 of SHA256SUMS. */
int cts_package_verify(const char *dir, bool check_backend, FILE *out, cts_manifest *m,
                       cts_result_list *results, char digest[65]);

/* The subcommands of the certification workflow (cli_certify.c, cli_verify_package.c,
 * cli_audit.c), for main.c's table; exit codes as in cli.h. */
int cli_certify(int argc, char **argv);
int cli_verify_package(int argc, char **argv);
int cli_audit(int argc, char **argv);

#endif
