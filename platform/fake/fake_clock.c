/* The fake backend's clock (fake_platform.h): virtual by default, moved by
 * waits that would block, by plat_sleep_until_ns and by the test; or the
 * real monotonic clock with real time on. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fake_internal.h"
#include "fake_platform.h"
#include "plat_handle.h"
#include "plat_sdl_clock.h"
#include "tempo_internal.h"

/* Created by the first fake__lock(), under the lock, which is the handles'
 * (plat_handle.h). */
static _Atomic(SDL_cond *) g_cond;
static _Atomic(uint64_t) g_now = PLAT_FAKE_START_NS; /* written under fake__lock, read anywhere */
/* -1: not decided yet (the environment decides at first use), 0 virtual, 1 real. */
static atomic_int g_real = -1;

uint64_t fake__n_real_blocks, fake__n_jumps;

static bool real_time(void)
{
    int r = atomic_load(&g_real);
    if (r < 0) {
        const char *env = SDL_getenv("TEMPO_FAKE_REAL_TIME");
        int want = env != NULL && env[0] == '1';
        atomic_compare_exchange_strong(&g_real, &r, want);
        r = atomic_load(&g_real);
    }
    return r == 1;
}

bool fake__virtual(void)
{
    return !real_time();
}

bool plat_fake_is_virtual(void)
{
    return !real_time();
}

void plat_fake_set_real_time(bool on)
{
    atomic_store(&g_real, on ? 1 : 0);
}

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

uint64_t fake__real_now_ns(void)
{
    return plat_sdl_counter_ns();
}

uint64_t fake__now_locked(void)
{
    return real_time() ? fake__real_now_ns() : atomic_load(&g_now);
}

void fake__advance_locked(uint64_t t)
{
    if (!real_time() && t != UINT64_MAX && t > atomic_load(&g_now)) {
        atomic_store(&g_now, t);
        fake__n_jumps++;
    }
    fake__fire_scripts_locked(fake__now_locked());
    fake__wake_all_locked();
}

uint64_t plat_now_ns(void)
{
    return real_time() ? fake__real_now_ns() : atomic_load(&g_now);
}

void plat_fake_advance_to_ns(uint64_t t_ns)
{
    SDL_mutex *lock = fake__lock();
    if (lock == NULL || real_time())
        return;
    SDL_LockMutex(lock);
    fake__advance_locked(t_ns);
    SDL_UnlockMutex(lock);
}

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    if (!real_time()) {
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

int plat_process_usage(tempo_usage *out)
{
    /* A process on a virtual clock has no CPU time to speak of. */
    memset(out, 0, sizeof *out);
    return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "fake backend: no process usage");
}
