/* Output locks and path aliases (results.h). */
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int lock_named(const char *path, const char *what, int flags, char *err, size_t errlen)
{
    int fd = open(path, flags | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "opening %s: %s", path, strerror(errno));
        return -1;
    }
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &l) == 0)
        return fd;
    int e = errno;
    if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL) {
        /* a file system without record locks (some network mounts): run, but say so */
        fprintf(stderr, "aclcts: warning: %s cannot be locked (%s): nothing stops a second run "
                "from writing it at the same time\n", path, strerror(e));
        return fd;
    }
    struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if ((e == EACCES || e == EAGAIN) && fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK)
        snprintf(err, errlen, "%s is in use by another aclcts run (pid %ld); one run writes "
                 "an output at a time", what, (long)who.l_pid);
    else if (e == EACCES || e == EAGAIN)
        snprintf(err, errlen, "%s is in use by another aclcts run; one run writes an output "
                 "at a time", what);
    else
        snprintf(err, errlen, "locking %s: %s", path, strerror(e));
    close(fd);
    return -1;
}

int cts_out_lock(const char *path, const char *what, int flags, char *err, size_t errlen)
{
    return lock_named(path, what, flags, err, errlen);
}

/* realpath of the directory of p, then "/" and its last component. */
static bool canonical(const char *p, char *out, size_t len)
{
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", p);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : p;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (!realpath(dir, real))
        return false;
    snprintf(out, len, "%s/%s", real, base);
    return true;
}

bool cts_out_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    if (canonical(a, ca, sizeof ca) && canonical(b, cb, sizeof cb))
        return strcmp(ca, cb) == 0;
    return strcmp(a, b) == 0;
}
