/* The fake backend's handles and wait (fake_platform.h).
 *
 * Every handle's state, the clock and the scripts are guarded by one lock
 * (fake__lock); any change broadcasts one condition variable, and every
 * blocked wait re-checks its handles. A wait that would block moves the
 * virtual clock to its next deadline (its timeout, its timers' next ticks,
 * its events' scripted signals) instead of sleeping; only a wait with none
 * blocks for real. Timers are absolute schedules (plat_sched.h) compared
 * with the clock, as in the sdl backend, so their semantics (missed ticks,
 * cancel keeps a due tick) are the same. */
#include <stdatomic.h>
#include <stdlib.h>

#include "fake_internal.h"
#include "fake_platform.h"
#include "plat_sched.h"
#include "plat_sdl_hook.h"
#include "tempo_internal.h"

#define HANDLE_MAGIC 0x46414b45u /* "FAKE" */

struct plat_handle {
    uint32_t magic; /* HANDLE_MAGIC while alive, 0 once destroyed (holders may remain) */
    uint8_t kind;   /* enum plat_handle_kind */
    bool manual_reset;
    bool signaled;
    atomic_int refs; /* the owner's + one per holder */
    plat_sched sched;
    uint64_t missed;
};

typedef struct script {
    plat_handle *event; /* retained; NULL: free entry */
    uint64_t at_ns;
} script;

static script g_scripts[PLAT_FAKE_MAX_SCRIPTS]; /* [fake__lock] */
static uint64_t g_msg_gen; /* [fake__lock] SDL events pushed by other threads */
static _Atomic(uint64_t) g_fault_delay_ns;

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

void plat_fault_set_signal_delay_ns(uint64_t delay_ns)
{
    atomic_store(&g_fault_delay_ns, delay_ns);
}

/* A signal preempted between its lookup and its effect (the fault hook). */
static _Atomic(uint64_t) g_fault_pauses;

uint64_t plat_fault_signal_pauses(void)
{
    return atomic_load(&g_fault_pauses);
}

static void fault_pause(void)
{
    uint64_t d = atomic_load(&g_fault_delay_ns);
    if (d > 0) {
        atomic_fetch_add(&g_fault_pauses, 1);
        plat_sleep_until_ns(plat_now_ns() + d);
    }
}

/* ---- Handles ------------------------------------------------------------ */

static plat_handle *handle_new(int kind, bool manual_reset, bool signaled)
{
    if (fake__lock() == NULL)
        return NULL;
    plat_handle *h = calloc(1, sizeof *h);
    if (h == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "handle: out of memory");
        return NULL;
    }
    h->magic = HANDLE_MAGIC;
    h->kind = (uint8_t)kind;
    h->manual_reset = manual_reset;
    h->signaled = signaled;
    atomic_init(&h->refs, 1);
    return h;
}

/* Lock-free: the handle table takes references with its own lock held. */
static void handle_unref(plat_handle *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1)
        free(h);
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

plat_handle *plat_event_create(bool manual_reset, bool initially_signaled)
{
    return handle_new(PLAT_HANDLE_EVENT, manual_reset, initially_signaled);
}

/* [fake__lock] */
static void set_locked(plat_handle *event)
{
    /* A set that lost the race with a destroy must not wake anyone. */
    if (event->magic == HANDLE_MAGIC && !event->signaled) {
        event->signaled = true;
        SDL_CondBroadcast(fake__cond());
    }
}

void plat_event_set(plat_handle *event)
{
    fault_pause();
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    set_locked(event);
    SDL_UnlockMutex(lock);
}

void plat_event_reset(plat_handle *event)
{
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    event->signaled = false;
    SDL_UnlockMutex(lock);
}

plat_handle *plat_timer_create(bool manual_reset)
{
    return handle_new(PLAT_HANDLE_TIMER, manual_reset, false);
}

void plat_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    fault_pause();
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    if (timer->magic == HANDLE_MAGIC) {
        plat_sched_arm(&timer->sched, due_ns, period_ns);
        timer->signaled = false;
        timer->missed = 0;
        SDL_CondBroadcast(fake__cond()); /* waits recompute their deadline */
    }
    SDL_UnlockMutex(lock);
}

void plat_timer_cancel(plat_handle *timer)
{
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    /* A tick that fell due before the cancel is a signal already raised:
     * keep it (Win32 semantics, like the other backends). */
    uint64_t ticks = plat_sched_consume(&timer->sched, fake__now_locked());
    if (ticks > 0) {
        timer->missed = ticks - 1;
        timer->signaled = true;
    }
    plat_sched_disarm(&timer->sched);
    SDL_UnlockMutex(lock);
}

uint64_t plat_timer_missed(const plat_handle *timer)
{
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    uint64_t missed = timer->missed;
    SDL_UnlockMutex(lock);
    return missed;
}

void plat_handle_destroy(plat_handle *h)
{
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    h->magic = 0;
    handle_unref(h);
    SDL_UnlockMutex(lock);
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
        SDL_CondBroadcast(fake__cond());
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
        set_locked(e);
        handle_unref(e);
    }
}

/* ---- The wait ----------------------------------------------------------- */

/* [fake__lock] True if `h` is signalled at `now`; consumes the signal of an
 * auto-reset handle (and the due ticks of a timer). */
static bool try_acquire(plat_handle *h, uint64_t now)
{
    if (h->magic != HANDLE_MAGIC)
        return false;
    if (h->kind == PLAT_HANDLE_TIMER) {
        uint64_t ticks = plat_sched_consume(&h->sched, now);
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

/* [fake__lock] The earliest instant one of the handles may become
 * signalled on its own (a timer tick, a scripted set), capped by `limit`. */
static uint64_t next_wake(plat_handle *const *handles, int n, uint64_t limit)
{
    uint64_t at = limit;
    for (int i = 0; i < n; i++) {
        const plat_handle *h = handles[i];
        if (h->magic != HANDLE_MAGIC)
            continue;
        if (h->kind == PLAT_HANDLE_TIMER && plat_sched_next(&h->sched) < at)
            at = plat_sched_next(&h->sched);
        for (int k = 0; k < PLAT_FAKE_MAX_SCRIPTS; k++)
            if (g_scripts[k].event == h && g_scripts[k].at_ns < at)
                at = g_scripts[k].at_ns;
    }
    return at;
}

/* [any thread pushing an SDL event] (plat_sdl_hook.h) */
static void on_push(void *ctx)
{
    (void)ctx;
    SDL_mutex *lock = fake__lock();
    SDL_LockMutex(lock);
    g_msg_gen++;
    SDL_CondBroadcast(fake__cond());
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
        r = -1;
        for (int i = 0; i < n && r < 0; i++)
            if (try_acquire(handles[i], now))
                r = i;
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
