/* The files a run or a merge writes: one writer at a time, and no two names for one file.
 * Locks are POSIX record locks (fcntl F_SETLK) on the file itself, so they vanish with the
 * process that held them (kill -9 included) and another aclcts can name the holder's pid. */
#ifndef ACLCTS_CONFORMANCE_OUT_GUARD_H_
#define ACLCTS_CONFORMANCE_OUT_GUARD_H_

#include <stdbool.h>
#include <stddef.h>

/* Opens path (creating it, never truncating) with `flags` (O_WRONLY, O_APPEND ...) and takes an
 * exclusive lock without waiting. The fd, or -1 with a message in err ("WHAT is in use by
 * another aclcts run (pid N)", what being the file or the directory it stands for, or the open
 * error). Closing any descriptor of the file drops the lock. An output directory is locked
 * through its summary.md, which every run and merge writes. */
int cts_out_lock(const char *path, const char *what, int flags, char *err, size_t errlen);

/* True when a and b name one file: the same device and inode when both exist, else the same
 * real directory and the same last component. */
bool cts_out_same_file(const char *a, const char *b);

#endif
