/* Portable waker: an SDL condition variable on the backend's handle lock.
 * SDL2's timed waits take milliseconds, so deadlines are rounded up to the
 * next millisecond: late by up to ~1 ms, never early. See plat_waker.h. */
#include <stdlib.h>

#include "plat_handle.h"
#include "plat_clock.h"
#include "plat_fault.h"
#include "plat_wait.h"
#include "plat_waker.h"
#include "tempo_internal.h"

struct plat_waker {
    SDL_cond *cond;
    bool signaled; /* guarded by the handle lock */
};

const bool plat_waker_has_fd = false;

plat_waker *plat_waker_create(void)
{
    plat_waker *w = calloc(1, sizeof *w);
    if (w == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "waker: out of memory");
        return NULL;
    }
    w->cond = SDL_CreateCond();
    if (w->cond == NULL) {
        tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateCond: %s", SDL_GetError());
        free(w);
        return NULL;
    }
    return w;
}

void plat_waker_destroy(plat_waker *w)
{
    if (w == NULL)
        return;
    SDL_DestroyCond(w->cond);
    free(w);
}

void plat_waker_drain(plat_waker *w)
{
    w->signaled = false;
}

void plat_waker_signal(plat_waker *w)
{
    w->signaled = true;
    plat_fault_pause();
    SDL_CondSignal(w->cond);
}

int plat_waker_block(plat_waker *w, SDL_mutex *lock, uint64_t deadline_ns, int extra_fd, const int *watch_fds,
                    int n_watch)
{
    /* No descriptors here: file watches are Linux-only (plat_filewatch_inotify.c). */
    (void)extra_fd;
    (void)watch_fds;
    (void)n_watch;
    if (w->signaled) {
        w->signaled = false;
        return SDL_WAKER_WOKE_SIGNAL;
    }
    int rc;
    if (deadline_ns == UINT64_MAX) {
        rc = SDL_CondWait(w->cond, lock);
    } else {
        uint64_t now = plat_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        uint64_t ms = (left + 999999u) / 1000000u;
        rc = SDL_CondWaitTimeout(w->cond, lock, ms > 0x7fffffffu ? 0x7fffffffu : (Uint32)ms);
    }
    bool woke = w->signaled;
    w->signaled = false;
    if (rc < 0)
        return tempo__set_error(TEMPO_EPLATFORM, "SDL_CondWait: %s", SDL_GetError());
    return woke ? SDL_WAKER_WOKE_SIGNAL : 0;
}
