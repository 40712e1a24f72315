/* A waker: the one OS primitive a blocked thread of the common SDL wait sleeps
 * on. Each blocked tempo_wait() call owns one; signalling it is how handles,
 * timers being re-armed and pushed SDL events wake that call.
 *
 * Two implementations, picked by meson:
 *  - plat_waker_eventfd.c (Linux): an eventfd plus ppoll(), nanosecond
 *    timeouts, and it can also watch one extra file descriptor (the X11
 *    display connection) so window input wakes the same sleep;
 *  - plat_waker_cond.c (portable): an SDL condition variable; millisecond
 *    timeouts (rounded up, never early), no extra descriptor.
 */
#ifndef TEMPO_PLAT_WAKER_H
#define TEMPO_PLAT_WAKER_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

typedef struct plat_waker plat_waker;

/* True when plat_waker_block() honours `extra_fd`. */
extern const bool plat_waker_has_fd;

/* NULL on failure, with the detail set. */
plat_waker *plat_waker_create(void);
void plat_waker_destroy(plat_waker *w);

/* Forgets signals left over from an earlier user of this waker. */
void plat_waker_drain(plat_waker *w);

/* Wakes the thread blocked in (or about to enter) plat_waker_block().
 * Thread: any. The cond implementation needs `lock` (the backend's handle
 * lock) held by the caller; the eventfd one does not care. Between its two
 * steps it calls the test-only fault pause (plat_fault_pause, plat_fault.h). */
void plat_waker_signal(plat_waker *w);


/* What ended a plat_waker_block() (a bit set; 0 means the deadline). */
enum {
    SDL_WAKER_WOKE_SIGNAL = 1 << 0, /* plat_waker_signal() */
    SDL_WAKER_WOKE_FD = 1 << 1,     /* extra_fd became readable */
    SDL_WAKER_WOKE_INTR = 1 << 2,   /* a POSIX signal interrupted the sleep */
    SDL_WAKER_WOKE_WATCH = 1 << 3   /* one of watch_fds became readable */
};

/* Called with `lock` held; returns with it held. Sleeps until signalled,
 * `extra_fd` (>= 0) or one of the `n_watch` watch_fds (file watches,
 * plat_filewatch_inotify.h) is readable, or `deadline_ns` (plat_now_ns clock;
 * UINT64_MAX = none) has passed; may also return early (EINTR) -- the caller
 * re-checks its conditions either way. Returns the SDL_WAKER_WOKE_* bits, or
 * a negative TEMPO_E* code when the OS wait itself failed. */
int plat_waker_block(plat_waker *w, SDL_mutex *lock, uint64_t deadline_ns, int extra_fd, const int *watch_fds,
                    int n_watch);

#endif /* TEMPO_PLAT_WAKER_H */
