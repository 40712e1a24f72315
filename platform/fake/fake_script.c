/* What moves with the fake backend's clock (fake_platform.h): the scripts
 * (events set at a time), which moving it fires; the moving itself
 * (plat_fake_advance_to_ns, plat_sleep_until_ns on the virtual clock); and
 * the lock and the condition variable every blocked wait sleeps on, so it
 * is this file that wakes the waits (fake__wake_all_locked,
 * fake__wake_holders). It calls down into the clock (fake_clock.c) and the
 * handle half (plat_handle.c); fake_wait.c calls down into it. */
#include <stdatomic.h>
#include <stdlib.h>

#include "plat_clock.h"
#include "plat_wait.h"
#include "fake_internal.h"
#include "fake_platform.h"
#include "plat_handle.h"
#include "plat_sdl_clock.h"
#include "tempo_internal.h"

/* Created by the first fake__lock(), under the lock, which is the handles'
 * (plat_handle.h). */
static _Atomic(SDL_cond *) g_cond;

typedef struct script {
    plat_handle *event; /* retained; NULL: free entry */
    uint64_t at_ns;
} script;

static script g_scripts[PLAT_FAKE_MAX_SCRIPTS]; /* [fake__lock] */

uint64_t fake__n_real_blocks, fake__n_jumps;

SDL_mutex *fake__lock(void)
{
    SDL_mutex *m = plat_handle_lock();
    if (m == NULL)
        return NULL;
    /* Every wait comes here before it first sleeps on the condition
     * variable, so it exists by then; a handle signalled before any wait
     * has nobody to wake (fake__wake_all_locked). */
    if (atomic_load_explicit(&g_cond, memory_order_acquire) == NULL) {
        SDL_LockMutex(m);
        if (atomic_load_explicit(&g_cond, memory_order_relaxed) == NULL) {
            SDL_cond *c = SDL_CreateCond();
            if (c == NULL)
                tempo__set_error(TEMPO_EPLATFORM, "fake backend: SDL_CreateCond: %s", SDL_GetError());
            atomic_store_explicit(&g_cond, c, memory_order_release);
        }
        SDL_UnlockMutex(m);
    }
    return atomic_load_explicit(&g_cond, memory_order_acquire) != NULL ? m : NULL;
}

SDL_cond *fake__cond(void)
{
    return atomic_load_explicit(&g_cond, memory_order_acquire);
}

void fake__wake_all_locked(void)
{
    SDL_cond *c = fake__cond();
    if (c != NULL) /* else no wait has run yet: nobody to wake */
        SDL_CondBroadcast(c);
}

/* [fake__lock] Every blocked wait re-checks its handles: the wake
 * (plat_handle_wake_fn) of every set and re-arm. */
void fake__wake_holders(const plat_handle *h)
{
    (void)h;
    fake__wake_all_locked();
}

/* ---- Scripts ------------------------------------------------------------ */

int plat_fake_script_set(plat_handle *event, uint64_t at_ns)
{
    if (event == NULL || event->kind != PLAT_HANDLE_EVENT)
        return TEMPO_EINVAL;
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    int rc = TEMPO_EFULL;
    for (int i = 0; i < PLAT_FAKE_MAX_SCRIPTS; i++)
        if (g_scripts[i].event == NULL) {
            plat_handles_retain(&event, 1);
            g_scripts[i] = (script){event, at_ns};
            rc = 0;
            break;
        }
    if (rc == 0) {
        fake__fire_scripts_locked(fake__now_locked()); /* due already: set now */
        fake__wake_all_locked();
    }
    SDL_UnlockMutex(lock);
    return rc;
}

void fake__fire_scripts_locked(uint64_t now)
{
    /* In time order, so two scripts on one auto-reset event due together
     * still set it once (a second set of a set event does nothing). */
    for (;;) {
        int first = -1;
        for (int i = 0; i < PLAT_FAKE_MAX_SCRIPTS; i++)
            if (g_scripts[i].event != NULL && g_scripts[i].at_ns <= now &&
                (first < 0 || g_scripts[i].at_ns < g_scripts[first].at_ns))
                first = i;
        if (first < 0)
            return;
        plat_handle *e = g_scripts[first].event;
        g_scripts[first].event = NULL;
        plat_event_set_locked(e, fake__wake_holders);
        plat_handles_release(&e, 1);
    }
}

uint64_t fake__next_script_locked(plat_handle *const *handles, int n, uint64_t limit)
{
    uint64_t at = limit;
    for (int i = 0; i < n; i++) {
        if (handles[i]->magic != PLAT_HANDLE_MAGIC)
            continue;
        for (int k = 0; k < PLAT_FAKE_MAX_SCRIPTS; k++)
            if (g_scripts[k].event == handles[i] && g_scripts[k].at_ns < at)
                at = g_scripts[k].at_ns;
    }
    return at;
}

/* ---- Moving the clock ----------------------------------------------------- */

void fake__advance_locked(uint64_t t)
{
    if (fake__move_to_locked(t))
        fake__n_jumps++;
    fake__fire_scripts_locked(fake__now_locked());
    fake__wake_all_locked();
}

void plat_fake_advance_to_ns(uint64_t t_ns)
{
    SDL_mutex *lock = fake__lock();
    if (lock == NULL || !fake__virtual())
        return;
    SDL_LockMutex(lock);
    fake__advance_locked(t_ns);
    SDL_UnlockMutex(lock);
}

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    if (fake__virtual()) {
        plat_fake_advance_to_ns(deadline_ns);
        return;
    }
    plat_sdl_delay_until_ns(deadline_ns, fake__real_now_ns);
}

/* One of the counters below, read under the lock that guards it. */
static uint64_t read_counter(const uint64_t *counter)
{
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    uint64_t n = *counter;
    SDL_UnlockMutex(lock);
    return n;
}

uint64_t plat_fake_real_blocks(void)
{
    return read_counter(&fake__n_real_blocks);
}

uint64_t plat_fake_jumps(void)
{
    return read_counter(&fake__n_jumps);
}
