/* File watches on inotify (a common module: the sdl and web backends): one
 * inotify descriptor per watched directory, as a PLAT_HANDLE_FILEWATCH
 * handle (plat_filewatch_inotify.h) that the wait puts in its ppoll() set. Linux only: other systems running the sdl
 * backend report TEMPO_ENOTSUP (macOS would want kqueue or FSEvents).
 *
 * Events watched: a file closed after writing (IN_CLOSE_WRITE: an editor
 * saving in place), moved in or out (IN_MOVED_TO / IN_MOVED_FROM: the
 * write-a-temporary-then-rename save), created and deleted. IN_MODIFY is
 * left out on purpose: it fires on every write() of a save in progress,
 * while IN_CLOSE_WRITE says the content is complete. */
#include "plat_file.h"
#include "plat_wait.h"
#include "plat_handle.h"
#include "plat_filewatch_inotify.h"
#include "tempo_internal.h"

int plat_fd_handle_fd(const plat_handle *h)
{
    /* Under the lock: magic changes on destroy, and the fields beside it
     * (signaled) are written by setters on other threads (TSan saw the
     * compiler read them as one word). */
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    int fd = h->kind == PLAT_HANDLE_FILEWATCH && h->magic == PLAT_HANDLE_MAGIC ? h->fd : -1;
    SDL_UnlockMutex(lock);
    return fd;
}

#if defined(__linux__)

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_MASK \
    (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

/* [handle lock] A zero-timeout poll. */
static bool fd_readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

static void fd_close(int fd)
{
    close(fd);
}

/* Manual-reset by nature: the signal is the fd's readability, which only
 * plat_filewatch_read() (reading the fd) consumes. */
static const plat_fd_ops inotify_ops = {fd_readable, fd_close};

plat_handle *plat_filewatch_create(const char *dir)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
        tempo__set_error(TEMPO_EPLATFORM, "inotify_init1: %s", strerror(errno));
        return NULL;
    }
    if (inotify_add_watch(fd, dir, WATCH_MASK | IN_ONLYDIR) < 0) {
        int err = errno;
        close(fd);
        int code = err == ENOENT || err == ENOTDIR ? TEMPO_ENOENT : TEMPO_EPLATFORM;
        tempo__set_error_at(code == TEMPO_ENOENT ? TEMPO_LOG_DEBUG : TEMPO_LOG_WARN, code,
                            "inotify_add_watch(%s): %s", dir, strerror(err));
        return NULL;
    }
    plat_handle *h = plat_handle_new(PLAT_HANDLE_FILEWATCH, true, false);
    if (h == NULL) {
        close(fd);
        return NULL;
    }
    h->fd = fd;
    h->fd_ops = &inotify_ops;
    return h;
}

int plat_filewatch_read(plat_handle *fw, plat_filewatch_fn fn, void *user)
{
    int fd = plat_fd_handle_fd(fw);
    if (fd < 0)
        return 0; /* destroyed meanwhile: nothing more will come */
    /* Aligned for struct inotify_event; room for many events per read(). */
    _Alignas(struct inotify_event) char buf[4096 + sizeof(struct inotify_event) + 256];
    int count = 0;
    for (;;) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return count; /* drained: the handle is unsignalled */
            return tempo__set_error(TEMPO_EPLATFORM, "inotify read: %s", strerror(errno));
        }
        for (char *p = buf; p < buf + got;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            /* Lost events, or the directory itself deleted or moved (its
             * watch ends): every name may have changed. */
            if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF)) {
                fn(NULL, user);
                count++;
            } else if (ev->len > 0 && ev->name[0] != '\0') {
                fn(ev->name, user);
                count++;
            }
            p += sizeof *ev + ev->len;
        }
    }
}

#else /* no inotify */

plat_handle *plat_filewatch_create(const char *dir)
{
    (void)dir;
    tempo__set_error(TEMPO_ENOTSUP, "file watches: the sdl backend has them on Linux (inotify) only");
    return NULL;
}

int plat_filewatch_read(plat_handle *fw, plat_filewatch_fn fn, void *user)
{
    (void)fw;
    (void)fn;
    (void)user;
    return TEMPO_ENOTSUP;
}

#endif
