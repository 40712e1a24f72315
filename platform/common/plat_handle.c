/* The handle half of the sdl, web and fake backends (plat_handle.h): events
 * and timers as plain objects under one lock, signalled by changing their
 * state under it and calling the wake function the wait half hands in
 * (plat_handle_wake_fn): the wait half defines the contract's plat_event_set
 * and plat_timer_set on plat_handle_event_set / plat_handle_timer_set, so
 * calls point from the wait half down into this one, never back.
 *
 * Timers are not threads or SDL timers: a timer is an absolute schedule
 * (plat_sched.h) that a wait compares with plat_now_ns() when it looks, and
 * sleeps until (plat_handles_next_due), so ticks are never early and never
 * drift. (SDL_AddTimer reschedules from its wake time and counts
 * milliseconds, so it drifts; it is only used by the benchmark's baseline.)
 * On the fake backend plat_now_ns() is the virtual clock: the same code
 * gives the same semantics (missed ticks, a cancel keeps a due tick). */
#include <stdlib.h>

#include "plat_wait.h"
#include "plat_clock.h"
#include "plat_handle.h"
#include "tempo_internal.h"

static SDL_SpinLock g_init_spin;
static _Atomic(SDL_mutex *) g_lock;

SDL_mutex *plat_handle_lock(void)
{
    SDL_mutex *m = atomic_load_explicit(&g_lock, memory_order_acquire);
    if (m != NULL)
        return m;
    SDL_AtomicLock(&g_init_spin);
    m = atomic_load_explicit(&g_lock, memory_order_relaxed);
    if (m == NULL) {
        m = SDL_CreateMutex();
        if (m == NULL)
            tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateMutex: %s", SDL_GetError());
        atomic_store_explicit(&g_lock, m, memory_order_release);
    }
    SDL_AtomicUnlock(&g_init_spin);
    return m;
}

SDL_mutex *plat_handle_lock_peek(void)
{
    return atomic_load_explicit(&g_lock, memory_order_acquire);
}

void plat_handle_lock_destroy(void)
{
    SDL_AtomicLock(&g_init_spin);
    SDL_mutex *m = atomic_exchange(&g_lock, NULL);
    SDL_AtomicUnlock(&g_init_spin);
    SDL_DestroyMutex(m);
}

/* ---- Objects and references --------------------------------------------- */

plat_handle *plat_handle_new(enum plat_handle_kind kind, bool manual_reset, bool signaled)
{
    if (plat_handle_lock() == NULL)
        return NULL;
    plat_handle *h = calloc(1, sizeof *h);
    if (h == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "handle: out of memory");
        return NULL;
    }
    h->magic = PLAT_HANDLE_MAGIC;
    h->kind = (uint8_t)kind;
    h->manual_reset = manual_reset;
    h->signaled = signaled;
    h->fd = -1;
    atomic_init(&h->refs, 1);
    return h;
}

/* Lock-free: callers that hold the table lock (handle_pool.c) take
 * references, so this must not take the handle lock. The last reference can
 * only be dropped once no wait and no table holds the handle. */
static void handle_unref(plat_handle *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        if (h->fd_ops != NULL && h->fd >= 0)
            h->fd_ops->close(h->fd);
        free(h);
    }
}

void plat_handles_retain(plat_handle *const *h, int n)
{
    for (int i = 0; i < n; i++)
        atomic_fetch_add(&h[i]->refs, 1);
}

void plat_handles_release(plat_handle *const *h, int n)
{
    for (int i = 0; i < n; i++)
        handle_unref(h[i]);
}

void plat_handle_destroy(plat_handle *h)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    h->magic = 0;
    handle_unref(h);
    SDL_UnlockMutex(lock);
}

/* ---- Events ------------------------------------------------------------- */

plat_handle *plat_event_create(bool manual_reset, bool initially_signaled)
{
    return plat_handle_new(PLAT_HANDLE_EVENT, manual_reset, initially_signaled);
}

void plat_event_set_locked(plat_handle *event, plat_handle_wake_fn wake)
{
    /* A set that lost the race with a destroy (it holds a reference, the
     * id is gone) must not wake anyone. */
    if (event->magic == PLAT_HANDLE_MAGIC && !event->signaled) {
        event->signaled = true;
        wake(event);
    }
}

void plat_handle_event_set(plat_handle *event, plat_handle_wake_fn wake)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    plat_event_set_locked(event, wake);
    SDL_UnlockMutex(lock);
}

void plat_event_reset(plat_handle *event)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    event->signaled = false;
    SDL_UnlockMutex(lock);
}

/* ---- Timers ------------------------------------------------------------- */

plat_handle *plat_timer_create(bool manual_reset)
{
    return plat_handle_new(PLAT_HANDLE_TIMER, manual_reset, false);
}

void plat_handle_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns, plat_handle_wake_fn wake)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    if (timer->magic == PLAT_HANDLE_MAGIC) { /* else it lost the race with a destroy */
        plat_sched_arm(&timer->sched, due_ns, period_ns);
        timer->signaled = false;
        timer->missed = 0;
        wake(timer); /* its waits must recompute how long to sleep */
    }
    SDL_UnlockMutex(lock);
}

void plat_timer_cancel(plat_handle *timer)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    /* A tick that fell due before the cancel is a signal already raised:
     * keep it (Win32 semantics), only the future ticks go. */
    uint64_t ticks = plat_sched_consume(&timer->sched, plat_now_ns());
    if (ticks > 0) {
        timer->missed = ticks - 1;
        timer->signaled = true;
    }
    plat_sched_disarm(&timer->sched);
    SDL_UnlockMutex(lock);
}

uint64_t plat_timer_missed(const plat_handle *timer)
{
    SDL_mutex *lock = plat_handle_lock();
    SDL_LockMutex(lock);
    uint64_t missed = timer->missed;
    SDL_UnlockMutex(lock);
    return missed;
}

/* ---- What a wait asks, under the lock ----------------------------------- */

static bool acquire(plat_handle *h, uint64_t now_ns)
{
    if (h->magic != PLAT_HANDLE_MAGIC)
        return false;
    if (h->fd_ops != NULL)
        return h->fd_ops->readable(h->fd); /* level-triggered; reading the fd consumes it */
    if (h->kind == PLAT_HANDLE_TIMER) {
        /* Due ticks become the signal; from here a timer is an event. */
        uint64_t ticks = plat_sched_consume(&h->sched, now_ns);
        if (ticks > 0) {
            h->missed = ticks - 1;
            h->signaled = true;
        }
    }
    if (!h->signaled)
        return false;
    if (!h->manual_reset)
        h->signaled = false;
    return true;
}

int plat_handles_acquire_first(plat_handle *const *h, int n, uint64_t now_ns)
{
    for (int i = 0; i < n; i++)
        if (acquire(h[i], now_ns))
            return i;
    return -1;
}

uint64_t plat_handles_next_due(plat_handle *const *h, int n, uint64_t limit_ns)
{
    uint64_t at = limit_ns;
    for (int i = 0; i < n; i++)
        if (h[i]->magic == PLAT_HANDLE_MAGIC && h[i]->kind == PLAT_HANDLE_TIMER) {
            uint64_t due = plat_sched_next(&h[i]->sched);
            if (due < at)
                at = due;
        }
    return at;
}
