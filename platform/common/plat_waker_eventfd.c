/* Linux waker: an eventfd for signals, an absolute timerfd for deadlines,
 * and ppoll() over both plus the caller's extra descriptor. See plat_waker.h.
 *
 * Why a timerfd rather than ppoll's own timeout: the kernel lets a poll
 * sleep overshoot by max(timer slack, timeout / 1000) -- ~17 us for a 60 Hz
 * tick, whatever PR_SET_TIMERSLACK says -- and a relative timeout also
 * includes the time spent between computing it and entering the kernel. An
 * absolute CLOCK_MONOTONIC timerfd expires on the deadline itself with no
 * slack (hrtimer, absolute mode). Measured on the 2-core VM with bench_wait:
 * tick lateness p50 ~110 us with a ppoll timeout vs ~90 us with the timerfd,
 * the kernel floor for any passive wait there. */
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "plat_handle.h"
#include "plat_clock.h"
#include "plat_fault.h"
#include "plat_wait.h"
#include "plat_waker.h"
#include "tempo_internal.h"

struct plat_waker {
    int event_fd;
    int timer_fd;
    /* Set by plat_waker_signal before it writes the eventfd, so a drain of a
     * waker nobody signalled (the common case) costs no read() syscall.
     * Only a hint: a signal split by a preemption (flag set, a drain clears
     * the flag and reads, then the write lands) leaves the eventfd readable
     * with the flag clear. So plat_waker_block reads whenever ppoll() says
     * readable, whatever the flag says: a readable eventfd is always drained
     * by the next sleep, at the cost of one early return, never a spin. */
    atomic_bool pending;
};

const bool plat_waker_has_fd = true;

plat_waker *plat_waker_create(void)
{
    plat_waker *w = malloc(sizeof *w);
    if (w == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "waker: out of memory");
        return NULL;
    }
    atomic_init(&w->pending, false);
    w->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->event_fd < 0) {
        tempo__set_error(TEMPO_EPLATFORM, "eventfd: %s", strerror(errno));
        free(w);
        return NULL;
    }
    w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (w->timer_fd < 0) {
        tempo__set_error(TEMPO_EPLATFORM, "timerfd_create: %s", strerror(errno));
        close(w->event_fd);
        free(w);
        return NULL;
    }
    return w;
}

void plat_waker_destroy(plat_waker *w)
{
    if (w == NULL)
        return;
    close(w->event_fd);
    close(w->timer_fd);
    free(w);
}

/* Empties the eventfd. Non-blocking: EAGAIN when it was empty (a concurrent
 * read took the count, or the write has not landed yet), which is fine. */
static void read_counter(plat_waker *w)
{
    uint64_t count;
    if (read(w->event_fd, &count, sizeof count) < 0 && errno != EAGAIN)
        tempo__set_error(TEMPO_EPLATFORM, "eventfd read: %s", strerror(errno));
}

void plat_waker_drain(plat_waker *w)
{
    /* A readable eventfd with the flag clear (see `pending`) slips past this
     * check; the next plat_waker_block drains it. */
    if (atomic_exchange(&w->pending, false))
        read_counter(w);
}

void plat_waker_signal(plat_waker *w)
{
    atomic_store(&w->pending, true);
    plat_fault_pause();
    uint64_t one = 1;
    /* Only fails with EAGAIN when the counter is about to overflow, which
     * still leaves the waker signalled: nothing to report. */
    ssize_t ignored = write(w->event_fd, &one, sizeof one);
    (void)ignored;
}

/* The kernel lets a sleeping thread oversleep by its timer slack (50 us by
 * default) so it can batch wake-ups; waiting threads use 1 us, set once per
 * thread (it still matters for the timerfd's wake-up path and for ppoll
 * without a deadline). It costs no extra wake-ups, only coalescing. */
static void tighten_timer_slack(void)
{
    static _Thread_local bool done;
    if (!done) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
        done = true;
    }
}

int plat_waker_block(plat_waker *w, SDL_mutex *lock, uint64_t deadline_ns, int extra_fd, const int *watch_fds,
                    int n_watch)
{
    tighten_timer_slack();
    struct pollfd fds[3 + TEMPO_WAIT_MAX_HANDLES] = {{.fd = w->event_fd, .events = POLLIN}};
    if (n_watch > TEMPO_WAIT_MAX_HANDLES)
        n_watch = TEMPO_WAIT_MAX_HANDLES;
    nfds_t nfds = 1;
    int timer_slot = -1, extra_slot = -1;
    if (deadline_ns != UINT64_MAX) {
        if (deadline_ns <= plat_now_ns())
            return 0; /* already due: no need to sleep at all */
        struct itimerspec its = {
            .it_value = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                         .tv_nsec = (long)(deadline_ns % 1000000000u)},
        };
        /* Re-arming also clears any expiry left from an earlier sleep. */
        if (timerfd_settime(w->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
            return tempo__set_error(TEMPO_EPLATFORM, "timerfd_settime: %s", strerror(errno));
        timer_slot = (int)nfds;
        fds[nfds++] = (struct pollfd){.fd = w->timer_fd, .events = POLLIN};
    }
    if (extra_fd >= 0) {
        extra_slot = (int)nfds;
        fds[nfds++] = (struct pollfd){.fd = extra_fd, .events = POLLIN};
    }
    const int watch_slot = (int)nfds;
    for (int i = 0; i < n_watch; i++)
        fds[nfds++] = (struct pollfd){.fd = watch_fds[i], .events = POLLIN};
    SDL_UnlockMutex(lock);
    int rc = ppoll(fds, nfds, NULL, NULL);
    int err = errno;
    int woke = 0;
    if (rc > 0) {
        if (fds[0].revents & POLLIN) {
            /* Clear the flag first, then read: a signal whose flag we clear
             * has either written already (this read takes it) or will write
             * after it (the eventfd stays readable and the next sleep returns
             * at once and reads it). Reading only when the flag was set would
             * leave such a late write readable for good: every later ppoll()
             * returns at once, a 100% CPU spin (issue 10). */
            atomic_store(&w->pending, false);
            read_counter(w);
            woke |= SDL_WAKER_WOKE_SIGNAL;
        }
        if (extra_slot >= 0 && (fds[extra_slot].revents & (POLLIN | POLLHUP | POLLERR)))
            woke |= SDL_WAKER_WOKE_FD;
        for (int i = 0; i < n_watch; i++)
            if (fds[watch_slot + i].revents & (POLLIN | POLLHUP | POLLERR))
                woke |= SDL_WAKER_WOKE_WATCH;
        (void)timer_slot; /* its expiry needs no read: the next settime clears it */
    } else if (rc < 0 && err == EINTR) {
        woke = SDL_WAKER_WOKE_INTR;
    }
    SDL_LockMutex(lock);
    if (rc < 0 && err != EINTR)
        return tempo__set_error(TEMPO_EPLATFORM, "ppoll: %s", strerror(err));
    return woke;
}
