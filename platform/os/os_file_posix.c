/* The file seam of os.h on POSIX systems: open(O_NONBLOCK) + fstat. */
#if !defined(_POSIX_C_SOURCE)
/* O_CLOEXEC is POSIX.1-2008, which glibc hides under -std=c11 unless a
 * feature-test macro asks (tests/meson.build: os_file_check). */
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os.h"

struct os_file {
    int fd;
};

os_file *os_file_open_read(const char *path, int *err)
{
    *err = 0;
    /* O_NONBLOCK: open() on a FIFO without a writer returns at once instead
     * of waiting for one; fstat then judges the file actually opened. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = errno;
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *err = OS_FILE_NOT_REGULAR;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* regular files ignore it; keep reads plain */
    os_file *f = malloc(sizeof *f);
    if (f == NULL) {
        close(fd);
        *err = ENOMEM;
        return NULL;
    }
    f->fd = fd;
    return f;
}

int64_t os_file_read(os_file *f, void *buf, size_t len, int *err)
{
    for (;;) {
        ssize_t n = read(f->fd, buf, len);
        if (n >= 0)
            return n;
        if (errno != EINTR) {
            *err = errno;
            return -1;
        }
    }
}

int64_t os_file_seek(os_file *f, int64_t offset, int whence)
{
    static const int how[3] = {SEEK_SET, SEEK_CUR, SEEK_END};
    if (whence < 0 || whence > 2 || (off_t)offset != offset)
        return -1;
    off_t r = lseek(f->fd, (off_t)offset, how[whence]);
    return r < 0 ? -1 : (int64_t)r;
}

void os_file_close(os_file *f)
{
    if (f == NULL)
        return;
    close(f->fd);
    free(f);
}
