/* Output files written whole or not at all (cli.h): a temporary file beside the final name,
 * every write checked, fsync'd, then renamed over it. A full disk or a size limit leaves the
 * final name as it was (absent, or the previous complete version), never a truncated file. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_make_dirs(const char *dir)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

FILE *cli_out_open(cli_out_file *o, const char *final)
{
    memset(o, 0, sizeof *o);
    snprintf(o->final, sizeof o->final, "%s", final);
    struct stat st;
    if (stat(final, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* /dev/stdout, a FIFO: written in place, never replaced */
        if (!(o->f = fopen(final, "w")))
            fprintf(stderr, "aclcts: error: writing %s: %s\n", final, strerror(errno));
        return o->f;
    }
    char target[PATH_MAX];
    if (lstat(final, &st) == 0 && S_ISLNK(st.st_mode) && realpath(final, target))
        final = target; /* a link to a file: the file is replaced, the link stays */
    snprintf(o->target, sizeof o->target, "%s", final);
    const char *slash = strrchr(final, '/');
    int dirlen = slash ? (int)(slash - final) + 1 : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dirlen, final, slash ? slash + 1 : final);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "aclcts: error: writing %s: creating %s beside it: %s\n", o->final,
                o->tmp, strerror(errno));
        o->tmp[0] = '\0';
        return NULL;
    }
    fchmod(fd, 0666 & ~cli_umask());
    if (!(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "aclcts: error: writing %s: %s\n", o->final, strerror(errno));
        close(fd);
        cli_out_discard(o);
    }
    return o->f;
}

void cli_out_discard(cli_out_file *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

int cli_out_commit(cli_out_file *o)
{
    errno = 0;
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    else if (fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS)
        e = errno; /* EINVAL: a file that cannot be synced (not a disk file) */
    FILE *f = o->f;
    o->f = NULL;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (!e && o->tmp[0] && rename(o->tmp, o->target) != 0)
        e = errno;
    if (!e) {
        o->tmp[0] = '\0';
        return 0;
    }
    fprintf(stderr, "aclcts: error: writing %s: %s (the file was not %s)\n", o->final,
            strerror(e), access(o->final, F_OK) == 0 ? "replaced" : "created");
    cli_out_discard(o);
    errno = e;
    return -1;
}

mode_t cli_umask(void)
{
    mode_t m = umask(0);
    umask(m);
    return m;
}
