/* Linux waker: eventfd + ppoll. See sdl_waker.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "sdl_waker.h"
#include "tempo_internal.h"

struct sdl_waker {
    int fd;
};

const bool sdl_waker_has_fd = true;

sdl_waker *sdl_waker_create(void)
{
    sdl_waker *w = malloc(sizeof *w);
    if (w == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "waker: out of memory");
        return NULL;
    }
    w->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->fd < 0) {
        tempo__set_error(TEMPO_EPLATFORM, "eventfd: %s", strerror(errno));
        free(w);
        return NULL;
    }
    return w;
}

void sdl_waker_destroy(sdl_waker *w)
{
    if (w == NULL)
        return;
    close(w->fd);
    free(w);
}

void sdl_waker_drain(sdl_waker *w)
{
    uint64_t count;
    /* Non-blocking: EAGAIN when nothing is pending, which is fine. */
    if (read(w->fd, &count, sizeof count) < 0 && errno != EAGAIN)
        tempo__set_error(TEMPO_EPLATFORM, "eventfd read: %s", strerror(errno));
}

void sdl_waker_signal(sdl_waker *w)
{
    uint64_t one = 1;
    /* Only fails with EAGAIN when the counter is about to overflow, which
     * still leaves the waker signalled: nothing to report. */
    ssize_t ignored = write(w->fd, &one, sizeof one);
    (void)ignored;
}

/* The kernel lets a sleeping thread oversleep by its timer slack (50 us by
 * default) so it can batch wake-ups; that alone would use the whole tick
 * lateness budget (p50 <= 50 us). Waiting threads therefore use 1 us, set
 * once per thread. It costs no extra wake-ups, only coalescing. */
static void tighten_timer_slack(void)
{
    static _Thread_local bool done;
    if (!done) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
        done = true;
    }
}

int sdl_waker_block(sdl_waker *w, SDL_mutex *lock, uint64_t deadline_ns, int extra_fd)
{
    tighten_timer_slack();
    struct pollfd fds[2] = {
        {.fd = w->fd, .events = POLLIN},
        {.fd = extra_fd, .events = POLLIN},
    };
    nfds_t nfds = extra_fd >= 0 ? 2 : 1;
    struct timespec ts, *tsp = NULL;
    if (deadline_ns != UINT64_MAX) {
        uint64_t now = plat_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        ts.tv_sec = (time_t)(left / 1000000000u);
        ts.tv_nsec = (long)(left % 1000000000u);
        tsp = &ts;
    }
    SDL_UnlockMutex(lock);
    int rc = ppoll(fds, nfds, tsp, NULL);
    int err = errno;
    if (rc > 0 && (fds[0].revents & POLLIN))
        sdl_waker_drain(w);
    SDL_LockMutex(lock);
    if (rc < 0 && err != EINTR)
        return tempo__set_error(TEMPO_EPLATFORM, "ppoll: %s", strerror(err));
    return 0;
}
