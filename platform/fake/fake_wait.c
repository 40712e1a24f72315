/* The fake backend's wait (fake_platform.h). The handles are the sdl
 * backend's handle half (plat_handle.h, common/plat_handle.c): the same
 * objects, states, references and timers, compared with the virtual clock
 * (plat_now_ns), so their semantics (missed ticks, a cancel keeps a due
 * tick) are the same by construction.
 *
 * Every handle's state, the clock and the scripts are guarded by the
 * handles' one lock (fake__lock); any change broadcasts one condition
 * variable, and every blocked wait re-checks its handles. A wait that would
 * block moves the virtual clock to its next deadline (its timeout, its
 * timers' next ticks, its events' scripted signals) instead of sleeping;
 * only a wait with none blocks for real. The clock (fake_clock.c), the
 * scripts and the condition variable (fake_script.c) are below: this file
 * only calls down into them (fake_internal.h). */
#include "plat_backend.h"
#include "plat_fault.h"
#include "plat_wait.h"
#include "fake_internal.h"
#include "fake_platform.h"
#include "plat_handle.h"
#include "plat_sdl_hook.h"
#include "tempo_internal.h"

static uint64_t g_msg_gen; /* [fake__lock] SDL events pushed by other threads */

const char *plat_backend_name(void)
{
    return "fake";
}

unsigned plat_capabilities(void)
{
    return 0;
}

const char *plat_wait_route(void)
{
    return fake__virtual() ? "fake-virtual" : "fake-real-time";
}

/* The contract's set and re-arm (plat_wait.h): the handle half's, waking
 * every blocked wait. The fault pause is a signal preempted between its
 * lookup and its effect: it comes before the set or re-arm takes the lock
 * (the pause sleeps on the clock, which may move it and fire scripts). */
void plat_event_set(plat_handle *event)
{
    plat_fault_pause();
    plat_handle_event_set(event, fake__wake_holders);
}

void plat_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    plat_fault_pause();
    plat_handle_timer_set(timer, due_ns, period_ns, fake__wake_holders);
}

/* ---- The wait ----------------------------------------------------------- */

/* [fake__lock] The earliest instant one of the handles may become
 * signalled on its own (a timer tick, a scripted set), capped by `limit`. */
static uint64_t next_wake(plat_handle *const *handles, int n, uint64_t limit)
{
    return fake__next_script_locked(handles, n, plat_handles_next_due(handles, n, limit));
}

/* [any thread pushing an SDL event] (plat_sdl_hook.h) */
static void on_push(void *ctx)
{
    (void)ctx;
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    g_msg_gen++;
    fake__wake_all_locked();
    SDL_UnlockMutex(lock);
}

static int g_hook_ctx; /* any non-NULL context */

int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    SDL_mutex *lock = fake__lock();
    if (lock == NULL)
        return TEMPO_EPLATFORM;
    bool messages = (flags & TEMPO_WAIT_MESSAGES) && SDL_WasInit(SDL_INIT_EVENTS);
    if (messages)
        plat_sdl_hook_begin(on_push, &g_hook_ctx);
    SDL_LockMutex(lock);
    uint64_t start = fake__now_locked();
    uint64_t end = timeout_ns == TEMPO_INFINITE || timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
    int r;
    for (;;) {
        uint64_t now = fake__now_locked();
        fake__fire_scripts_locked(now);
        r = plat_handles_acquire_first(handles, n, now);
        if (r >= 0)
            break;
        if (messages) {
            /* Handles first (lower index), then window messages (index n). */
            uint64_t gen = g_msg_gen;
            SDL_UnlockMutex(lock);
            SDL_PumpEvents();
            bool pending = SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
            SDL_LockMutex(lock);
            if (pending) {
                r = n;
                break;
            }
            if (g_msg_gen != gen)
                continue; /* pushed meanwhile: look again */
        }
        if (now >= end) {
            r = TEMPO_ETIMEDOUT;
            break;
        }
        uint64_t at = next_wake(handles, n, end);
        if (fake__virtual() && at != UINT64_MAX) {
            fake__advance_locked(at); /* instead of sleeping */
            continue;
        }
        if (at == UINT64_MAX) {
            fake__n_real_blocks++;
            SDL_CondWait(fake__cond(), lock);
        } else {
            uint64_t ms = (at - now + 999999u) / 1000000u; /* never early: the loop re-checks */
            SDL_CondWaitTimeout(fake__cond(), lock, ms > 0x7fffffffu ? 0x7fffffffu : (Uint32)ms);
        }
    }
    SDL_UnlockMutex(lock);
    if (messages)
        plat_sdl_hook_end();
    return r;
}

void plat_pump(void)
{
    SDL_PumpEvents();
}

void plat_shutdown(void)
{
    plat_sdl_hook_shutdown();
    /* The lock and condition variable stay: handles may outlive the
     * shutdown and keep working. */
}
