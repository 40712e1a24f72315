/* Waitable handles and the multi-handle wait on Win32 kernel objects.
 *
 * Events are kernel events (CreateEventW): set, reset, auto-reset release of
 * exactly one waiter and "lowest index wins" are the kernel's own.
 *
 * Timers keep their schedule in software (plat_sched.h, the arithmetic the
 * SDL backend uses) and arm a kernel waitable timer *one-shot* for the next
 * due time; the waiter that consumes a tick re-arms it for the next one.
 * SetWaitableTimer's own period is whole milliseconds counted from each
 * expiry, so it would drift; re-arming at absolute due times does not, and
 * missed periods are counted, not replayed. The software state, guarded by
 * the timer's SRW lock, is the truth; the kernel timer only wakes waiters:
 *  - armed and not signalled: the kernel timer is armed at sched.next_due;
 *  - signalled (a tick due but unconsumed, or a manual-reset timer that has
 *    fired): the kernel timer is signalled or expires at once.
 * A wake-up that finds nothing due in software (a stale or early expiry) is
 * absorbed: the waiter re-arms the kernel timer and waits on. A due time in
 * the past is signalled at once, before the kernel expiry lands (wine
 * delivers even a zero due time a few hundred microseconds later).
 *
 * The wait is WaitForMultipleObjects, or MsgWaitForMultipleObjectsEx with
 * QS_ALLINPUT and MWMO_INPUTAVAILABLE when the caller wants messages (then
 * any input already in the thread's queue counts, not only new input). When
 * the queue has messages the wait first polls the handles (Windows reports
 * queued input without looking at them), then lets SDL pump the messages
 * (SDL_PumpEvents: SDL's window procedure handles them) and returns `n` only
 * if that produced SDL events, SDL's queue already had some, or SDL left
 * input in the Win32 queue (its message loop is off: the caller must pump,
 * and waiting on would spin); window-system traffic that SDL turns into
 * nothing does not wake the caller, and the deadline ends such a wait. While
 * DirectInput reads the keyboard or mouse (win32_dinput.c), SDL's own events
 * for them do not count: the device's notification is that input's wake.
 * A pooled high-resolution timer ends the wait at its timeout: in the slot
 * after the handles when there is one, else (63 handles with messages)
 * through its completion routine in an alertable wait.
 *
 * SDL game controllers (XInput, SDL's own DirectInput/RawInput joysticks)
 * are polled by SDL_PumpEvents, so nothing in the Win32 queue announces
 * them. With a controller poll interval set by the input layer
 * (plat_set_input_poll_interval_ns) and a joystick open, a message wait
 * pumps SDL at that interval and reports messages when that produced
 * events. (Controllers read through DirectInput here, plat_input_*, signal
 * their handle instead and need no polling.)
 *
 * SDL_PushEvent from another thread does not touch the Win32 queue, so the
 * shared SDL event-queue hook (plat_sdl_hook.h) posts WM_NULL to the
 * waiting thread. SDL2 runs watches before it appends the event, so (as in
 * the SDL backend) a wait that finds SDL's queue empty while a push is
 * announced re-checks a few times with growing delays.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include <SDL.h>

#include "plat_announce.h"
#include "plat_sdl_hook.h"
#include "plat_sched.h"
#include "plat_backend.h"
#include "plat_clock.h"
#include "plat_wait.h"
#include "tempo_internal.h"
#include "win32_internal.h"

#define HANDLE_MAGIC 0x54454d50u /* "TEMP" */

struct plat_handle {
    atomic_uint magic; /* HANDLE_MAGIC while alive, 0 once destroyed */
    uint8_t kind;      /* enum plat_handle_kind */
    bool manual_reset;
    atomic_int refs; /* the owner's + one per wait holding the handle */
    HANDLE os;       /* the kernel event, or the kernel waitable timer */
    /* Handles built elsewhere (win32__handle_wrap): their state and its
     * release, run once by plat_handle_destroy. */
    void *ext;
    void (*ext_close)(void *ext);
    /* Timers only, guarded by `lock`: */
    SRWLOCK lock;
    plat_sched sched;
    bool signaled; /* a tick due and unconsumed (auto), or fired (manual) */
    uint64_t missed;
};

static _Atomic(const char *) g_route = "none";

static _Atomic(uint64_t) g_fault_delay_ns; /* plat_fault_set_signal_delay_ns; 0: off */

const char *plat_backend_name(void)
{
    return "win32";
}

unsigned plat_capabilities(void)
{
    return TEMPO_CAP_NATIVE_INPUT | TEMPO_CAP_OS_MESSAGE_WAIT;
}

const char *plat_wait_route(void)
{
    return atomic_load(&g_route);
}

/* ---- Handles ------------------------------------------------------------ */

static bool alive(const plat_handle *h)
{
    return atomic_load_explicit(&h->magic, memory_order_acquire) == HANDLE_MAGIC;
}

static plat_handle *handle_new(int kind, bool manual_reset)
{
    plat_handle *h = calloc(1, sizeof *h);
    if (h == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "handle: out of memory");
        return NULL;
    }
    atomic_init(&h->magic, HANDLE_MAGIC);
    h->kind = (uint8_t)kind;
    h->manual_reset = manual_reset;
    atomic_init(&h->refs, 1);
    InitializeSRWLock(&h->lock);
    return h;
}

static void handle_unref(plat_handle *h)
{
    if (atomic_fetch_sub(&h->refs, 1) == 1) {
        CloseHandle(h->os);
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

plat_handle *win32__handle_wrap(int kind, HANDLE os, void *ext, void (*ext_close)(void *ext))
{
    plat_handle *h = handle_new(kind, true);
    if (h == NULL)
        return NULL;
    h->os = os;
    h->ext = ext;
    h->ext_close = ext_close;
    return h;
}

void *win32__handle_ext(const plat_handle *h)
{
    return alive(h) ? h->ext : NULL;
}

plat_handle *plat_event_create(bool manual_reset, bool initially_signaled)
{
    plat_handle *h = handle_new(PLAT_HANDLE_EVENT, manual_reset);
    if (h == NULL)
        return NULL;
    h->os = CreateEventW(NULL, manual_reset, initially_signaled, NULL);
    if (h->os == NULL) {
        win32__error(TEMPO_EPLATFORM, "CreateEventW");
        free(h);
        return NULL;
    }
    return h;
}

static _Atomic(uint64_t) g_fault_pauses;

void plat_fault_set_signal_delay_ns(uint64_t delay_ns)
{
    atomic_store(&g_fault_delay_ns, delay_ns);
}

uint64_t plat_fault_signal_pauses(void)
{
    return atomic_load(&g_fault_pauses);
}

void plat_event_set(plat_handle *event)
{
    if (!alive(event))
        return; /* lost the race with a destroy; claim() resets one that slips through */
    uint64_t delay = atomic_load_explicit(&g_fault_delay_ns, memory_order_relaxed);
    if (delay > 0) { /* test-only: a setter preempted just there, so the destroy slips in */
        atomic_fetch_add(&g_fault_pauses, 1);
        plat_sleep_until_ns(plat_now_ns() + delay);
    }
    if (!SetEvent(event->os))
        win32__error(TEMPO_EPLATFORM, "SetEvent");
}

HANDLE win32__event_os(plat_handle *event)
{
    return event->os; /* open until the event is freed */
}

void plat_event_reset(plat_handle *event)
{
    if (!ResetEvent(event->os))
        win32__error(TEMPO_EPLATFORM, "ResetEvent");
}

plat_handle *plat_timer_create(bool manual_reset)
{
    plat_handle *h = handle_new(PLAT_HANDLE_TIMER, manual_reset);
    if (h == NULL)
        return NULL;
    /* Auto-reset tempo timers use a synchronization timer, so one expiry
     * wakes one waiter; manual-reset ones a notification timer, which wakes
     * every waiter and stays signalled. */
    h->os = win32__timer_create(manual_reset);
    if (h->os == NULL) {
        free(h);
        return NULL;
    }
    return h;
}

/* [t->lock] Makes the kernel timer agree with the software state (see the
 * top comment) after that state changed or a wake-up found nothing due. */
static void timer_sync_kernel(plat_handle *t, uint64_t now)
{
    if (t->signaled) {
        /* Armed at a due time that has passed: it is signalled or about to
         * be. An auto-reset timer is only left signalled by a cancel, whose
         * tick the kernel delivers. */
        return;
    }
    if (t->sched.armed)
        win32__timer_arm(t->os, t->sched.next_due_ns, now);
    else if (t->manual_reset)
        win32__timer_quench(t->os); /* a notification timer would stay signalled */
    else
        CancelWaitableTimer(t->os); /* drop a pending expiry; a stale signal costs one wake-up */
}

/* [t->lock] Consumes the ticks due at `now`; true if the timer is signalled
 * for this waiter (consuming the signal of an auto-reset timer). The same
 * rules as the SDL backend's try_acquire. */
static bool timer_acquire(plat_handle *t, uint64_t now)
{
    uint64_t ticks = plat_sched_consume(&t->sched, now);
    if (ticks > 0) {
        t->missed = ticks - 1;
        t->signaled = true;
    }
    if (!t->signaled)
        return false;
    if (!t->manual_reset)
        t->signaled = false;
    return true;
}

void plat_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    AcquireSRWLockExclusive(&timer->lock);
    if (!alive(timer)) {
        ReleaseSRWLockExclusive(&timer->lock); /* lost the race with a destroy */
        return;
    }
    plat_sched_arm(&timer->sched, due_ns, period_ns);
    timer->signaled = false;
    timer->missed = 0;
    /* Clears the kernel signal too, and a blocked wait follows the new due time. */
    win32__timer_arm(timer->os, due_ns, plat_now_ns());
    ReleaseSRWLockExclusive(&timer->lock);
}

void plat_timer_cancel(plat_handle *timer)
{
    AcquireSRWLockExclusive(&timer->lock);
    if (!alive(timer)) {
        ReleaseSRWLockExclusive(&timer->lock); /* lost the race with a destroy */
        return;
    }
    /* Win32 semantics: a tick that already fell due stays signalled. The
     * kernel timer is then left alone: it fires for that tick. */
    uint64_t ticks = plat_sched_consume(&timer->sched, plat_now_ns());
    if (ticks > 0) {
        timer->missed = ticks - 1;
        timer->signaled = true;
    }
    plat_sched_disarm(&timer->sched);
    if (!timer->signaled)
        CancelWaitableTimer(timer->os);
    ReleaseSRWLockExclusive(&timer->lock);
}

uint64_t plat_timer_missed(const plat_handle *timer)
{
    plat_handle *t = (plat_handle *)timer; /* the lock is state, not the value */
    AcquireSRWLockShared(&t->lock);
    uint64_t missed = t->missed;
    ReleaseSRWLockShared(&t->lock);
    return missed;
}

void plat_handle_destroy(plat_handle *h)
{
    /* A wait still blocked on it keeps the memory (its reference) but must
     * never see it signalled again. An event is reset before it is marked
     * dead: the other order let a blocked wait find a manual-reset event
     * still signalled but dead, go round and find it again, spinning until
     * the reset. A set that looked the handle up just before (it holds a
     * reference) may still land afterwards: claim() resets such a signal. */
    if (h->kind == PLAT_HANDLE_TIMER) {
        AcquireSRWLockExclusive(&h->lock);
        atomic_store(&h->magic, 0);
        plat_sched_disarm(&h->sched);
        h->signaled = false;
        win32__timer_quench(h->os);
        ReleaseSRWLockExclusive(&h->lock);
    } else {
        ResetEvent(h->os);
        atomic_store(&h->magic, 0);
        /* A file watch cancels its pending read here, which may set the
         * event once more: claim() resets a dead handle's signal. */
        if (h->ext_close != NULL)
            h->ext_close(h->ext);
        h->ext = NULL;
    }
    handle_unref(h);
}

/* ---- Claiming what the kernel or the schedule says is signalled --------- */

/* The lowest index of a timer that is signalled in software at `now` (due
 * or left signalled), or -1. Does not consume anything. */
static int first_due_timer(plat_handle *const *handles, int n, uint64_t now)
{
    for (int i = 0; i < n; i++) {
        plat_handle *h = handles[i];
        if (h->kind != PLAT_HANDLE_TIMER)
            continue;
        AcquireSRWLockShared(&h->lock);
        bool due = alive(h) && (h->signaled || plat_sched_is_due(&h->sched, now));
        ReleaseSRWLockShared(&h->lock);
        if (due)
            return i;
    }
    return -1;
}

/* `h` was signalled: the kernel released it to this wait (an auto-reset
 * event's signal is then already consumed) or the schedule says a timer is
 * due. True if the wait may return it; false for a destroyed handle or a
 * timer with nothing due (stale or early expiry, or another waiter took the
 * tick): the wait goes on. */
static bool claim(plat_handle *h)
{
    if (h->kind != PLAT_HANDLE_TIMER) {
        if (alive(h))
            return true;
        /* A set that lost the race with the destroy (it held a reference)
         * can leave a dead manual-reset event signalled: a wait still
         * holding it would find it again and again, a spin. Nobody can
         * want a dead event's signal. */
        ResetEvent(h->os);
        return false;
    }
    AcquireSRWLockExclusive(&h->lock);
    bool ok = false;
    if (alive(h)) {
        uint64_t now = plat_now_ns();
        ok = timer_acquire(h, now);
        timer_sync_kernel(h, now);
    } else {
        win32__timer_quench(h->os); /* the same for a dead timer's stale expiry */
    }
    ReleaseSRWLockExclusive(&h->lock);
    return ok;
}

/* ---- Messages ----------------------------------------------------------- */

/* [any thread that pushes an SDL event] The SDL event-queue hook's wake
 * (plat_sdl_hook.h): `ctx` is the waiting thread's id. */
static void wake_thread(void *ctx)
{
    /* Fails only if the queue is full: then the thread is awake anyway. */
    PostThreadMessageW((DWORD)(uintptr_t)ctx, WM_NULL, 0, 0);
}

static atomic_int g_quiet_keyboard, g_quiet_mouse; /* open native devices (win32__quiet_sdl_input) */

void win32__quiet_sdl_input(bool keyboard, bool mouse, int delta)
{
    if (keyboard)
        atomic_fetch_add(&g_quiet_keyboard, delta);
    if (mouse)
        atomic_fetch_add(&g_quiet_mouse, delta);
}

/* True if SDL's queue has an event that should end a message wait: any
 * event but the key and mouse events of devices DirectInput reads (their
 * notification handle wakes the loop once per input; those SDL copies wait
 * in the queue for the next dispatch, which drops them). */
static bool sdl_events_pending(void)
{
    if (!SDL_WasInit(SDL_INIT_EVENTS))
        return false;
    bool kb = atomic_load(&g_quiet_keyboard) > 0, mouse = atomic_load(&g_quiet_mouse) > 0;
    if (!kb && !mouse)
        return SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    /* Event types in order: ... SDL_KEYDOWN, SDL_KEYUP, text and keymap events,
     * ... SDL_MOUSEMOTION .. SDL_MOUSEWHEEL, ... */
    if (SDL_HasEvents(SDL_FIRSTEVENT, SDL_KEYDOWN - 1))
        return true;
    if (!kb && SDL_HasEvents(SDL_KEYDOWN, SDL_KEYUP))
        return true;
    if (SDL_HasEvents(SDL_KEYUP + 1, SDL_MOUSEMOTION - 1))
        return true;
    if (!mouse && SDL_HasEvents(SDL_MOUSEMOTION, SDL_MOUSEWHEEL))
        return true;
    return SDL_HasEvents(SDL_MOUSEWHEEL + 1, SDL_LASTEVENT);
}

/* [loop thread] Returns the controller poll interval this wait keeps (0: none). */
static uint64_t message_wait_begin(void)
{
    static _Thread_local bool has_queue;
    if (!has_queue) {
        /* PostThreadMessage needs a message queue; any USER call makes one. */
        MSG msg;
        PeekMessageW(&msg, NULL, WM_USER, WM_USER, PM_NOREMOVE);
        has_queue = true;
    }
    uint64_t pad_poll_ns = plat_sdl_pad_poll_ns();
    if (pad_poll_ns > 0 && !plat_sdl_joystick_open())
        pad_poll_ns = 0;
    atomic_store(&g_route, pad_poll_ns > 0 ? "msgwait+pad-poll" : "msgwait");
    plat_sdl_hook_begin(wake_thread, (void *)(uintptr_t)GetCurrentThreadId());
    return pad_poll_ns;
}

/* ---- The wait ----------------------------------------------------------- */

static uint64_t deadline_after(uint64_t now, uint64_t timeout_ns)
{
    return timeout_ns >= UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

/* Milliseconds until `at`, rounded up so the kernel never returns early. */
static DWORD ms_until(uint64_t at, uint64_t now)
{
    uint64_t ms = at > now ? (at - now + 999999u) / 1000000u : 0;
    return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}

/* The queue mask. QS_ALLINPUT, built with _WIN32_WINNT >= 0x0602, includes
 * QS_TOUCH | QS_POINTER, which Windows 7 rejects (ERROR_INVALID_PARAMETER:
 * every message wait would fail). The first rejection drops those bits for
 * the rest of the process (Windows 7 posts WM_TOUCH, which QS_POSTMESSAGE
 * covers, and has no pointer messages). */
#ifndef QS_TOUCH
#define QS_TOUCH 0x0800
#endif
#ifndef QS_POINTER
#define QS_POINTER 0x1000
#endif
#define QS_WIN8_BITS (QS_TOUCH | QS_POINTER)
static atomic_uint g_qs_mask = QS_ALLINPUT;

win32_msgwait_fn win32__msgwait; /* the test seam (win32_internal.h) */

static DWORD msgwait(DWORD count, const HANDLE *kh, DWORD ms, DWORD flags)
{
    win32_msgwait_fn fn = win32__msgwait != NULL ? win32__msgwait : MsgWaitForMultipleObjectsEx;
    unsigned mask = atomic_load(&g_qs_mask);
    DWORD w = fn(count, kh, ms, mask, flags);
    if (w == WAIT_FAILED && GetLastError() == ERROR_INVALID_PARAMETER && (mask & QS_WIN8_BITS)) {
        mask &= ~(unsigned)QS_WIN8_BITS;
        atomic_store(&g_qs_mask, mask);
        w = fn(count, kh, ms, mask, flags);
    }
    return w;
}

unsigned win32__queue_mask(void)
{
    return atomic_load(&g_qs_mask);
}

/* True while the thread's queue holds input a message wait would report.
 * After SDL_PumpEvents that means SDL left it there: its message loop is off
 * (SDL_HINT_WINDOWS_ENABLE_MESSAGELOOP=0), or it stopped at messages newer
 * than the pump. Only the caller can take it. */
static bool queue_has_input(void)
{
    return HIWORD(GetQueueStatus(atomic_load(&g_qs_mask))) != 0;
}

static DWORD os_wait(const HANDLE *kh, DWORD count, DWORD ms, bool messages, bool alertable)
{
    if (messages)
        return msgwait(count, kh, ms, MWMO_INPUTAVAILABLE | (alertable ? MWMO_ALERTABLE : 0));
    if (count == 0) {
        Sleep(ms);
        return WAIT_TIMEOUT;
    }
    return WaitForMultipleObjects(count, kh, FALSE, ms);
}

/* The deadline timer's completion routine when it has no slot in the wait
 * set: running it is what ends the alertable wait (WAIT_IO_COMPLETION). */
static VOID CALLBACK deadline_apc(LPVOID arg, DWORD low, DWORD high)
{
    (void)arg;
    (void)low;
    (void)high;
}

static bool arm_apc(HANDLE timer, uint64_t due_ns, uint64_t now_ns)
{
    uint64_t units = due_ns > now_ns ? (due_ns - now_ns + 99u) / 100u : 1u;
    const uint64_t max_units = UINT64_C(10000000) * 3600 * 24 * 365; /* see win32__timer_arm */
    LARGE_INTEGER li;
    li.QuadPart = -(LONGLONG)(units > max_units ? max_units : units);
    return SetWaitableTimer(timer, &li, 0, deadline_apc, NULL, FALSE) != 0;
}

/* The lowest signalled handle, claimed, or -1: a zero-timeout look at the
 * kernel objects below the first due timer, then that timer. Real Windows,
 * with MWMO_INPUTAVAILABLE, returns the queue's index as soon as input is
 * queued without looking at the handles (wine happens to look at them first),
 * so a messages result is never reported before this. */
static int poll_handles(plat_handle *const *handles, const HANDLE *kh, int n)
{
    for (;;) {
        int due = first_due_timer(handles, n, plat_now_ns());
        DWORD limit = (DWORD)(due >= 0 ? due : n);
        if (limit > 0) {
            DWORD w = WaitForMultipleObjects(limit, kh, FALSE, 0);
            if (w < WAIT_OBJECT_0 + limit) {
                int i = (int)(w - WAIT_OBJECT_0);
                if (claim(handles[i]))
                    return i;
                continue; /* stale: look again */
            }
        }
        if (due < 0)
            return -1;
        if (claim(handles[due]))
            return due;
        /* another waiter took the tick: look again */
    }
}

int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    const bool messages = (flags & TEMPO_WAIT_MESSAGES) != 0;
    const uint64_t deadline = deadline_after(plat_now_ns(), timeout_ns);
    HANDLE kh[MAXIMUM_WAIT_OBJECTS];
    for (int i = 0; i < n; i++) {
        kh[i] = handles[i]->os;
        atomic_fetch_add(&handles[i]->refs, 1);
    }
    /* The deadline timer takes the slot after the handles when the kernel's
     * limit leaves one (MsgWaitForMultipleObjectsEx keeps one for the queue).
     * With 63 handles and messages it has none: it then ends an alertable
     * wait through its completion routine (an APC), which needs no slot and
     * keeps the same precision. Alertable waits also run other APCs queued
     * to the loop thread (ReadFileEx completions...) inside tempo_wait. Only
     * if no timer can be had are timeouts whole milliseconds, rounded up. */
    const int cap = messages ? MAXIMUM_WAIT_OBJECTS - 1 : MAXIMUM_WAIT_OBJECTS;
    win32_timer *dl = win32__timer_take();
    const bool dl_slot = dl != NULL && n < cap;
    const DWORD slots = (DWORD)n + dl_slot;
    if (dl_slot)
        kh[n] = dl->handle;
    bool apc_armed = false;
    const uint64_t pad_poll_ns = messages ? message_wait_begin() : 0;
    plat_announce *const ann = plat_sdl_announce();

    uint64_t polled_at = 0;
    int r;
    for (;;) {
        unsigned announced = plat_announce_snapshot(ann);
        uint64_t now = plat_now_ns();
        if (pad_poll_ns > 0 && now - polled_at >= pad_poll_ns) {
            SDL_PumpEvents(); /* runs SDL_JoystickUpdate; events it adds end the wait below */
            polled_at = now = plat_now_ns();
        }
        int due = first_due_timer(handles, n, now);
        bool sdl_pending = messages && sdl_events_pending();
        if (sdl_pending)
            plat_announce_landed(ann, announced);
        /* Block only when nothing is known to be ready; otherwise poll the
         * kernel (timeout 0) for the handles below the due timer, so the
         * lowest signalled index still wins, then messages, then timeout. */
        bool block = due < 0 && !sdl_pending && now < deadline;
        DWORD count = block ? slots : (DWORD)(due >= 0 ? due : n);
        bool with_messages = messages && due < 0;
        DWORD ms = 0;
        bool alertable = false;
        if (block) {
            uint64_t wake_at = deadline;
            if (pad_poll_ns > 0 && polled_at + pad_poll_ns < wake_at)
                wake_at = polled_at + pad_poll_ns; /* the next controller poll */
            if (messages)
                wake_at = plat_announce_recheck(ann, announced, now, wake_at);
            ms = INFINITE;
            if (wake_at != UINT64_MAX) {
                if (dl_slot && win32__timer_arm(dl->handle, wake_at, now)) {
                    /* in the wait set */
                } else if (!dl_slot && dl != NULL && arm_apc(dl->handle, wake_at, now)) {
                    alertable = apc_armed = true;
                } else {
                    ms = ms_until(wake_at, now);
                }
            }
        }
        DWORD w = os_wait(kh, count, ms, with_messages, alertable);
        if (w == WAIT_FAILED) {
            r = win32__error(TEMPO_EPLATFORM, with_messages ? "MsgWaitForMultipleObjectsEx"
                                                            : "WaitForMultipleObjects");
            break;
        }
        if (w == WAIT_IO_COMPLETION)
            continue; /* the deadline APC (or another APC) ran: the clock decides */
        if (w < WAIT_OBJECT_0 + count) {
            int i = (int)(w - WAIT_OBJECT_0);
            if (i < n && claim(handles[i])) {
                r = i;
                break;
            }
            continue; /* the deadline timer, or nothing to claim: look again */
        }
        if (with_messages && w == WAIT_OBJECT_0 + count) {
            /* Every handle comes before messages, whatever the OS checked. */
            r = poll_handles(handles, kh, n);
            if (r >= 0)
                break;
            r = n;
            if (sdl_pending || !SDL_WasInit(SDL_INIT_EVENTS))
                break;
            /* Let SDL's window procedure take the traffic now: what it turns
             * into SDL events ends the wait; the rest (paint, activation,
             * wine's own window messages) costs no return to the caller, as
             * on the SDL backend. Input SDL leaves in the queue ends it too:
             * waiting on would find it again at once, forever (a livelock
             * with SDL's message loop off); the caller pumps it. */
            SDL_PumpEvents();
            /* Input that arrived after the pump's last PeekMessage is not
             * input SDL leaves: pump once more before deciding it is. Once,
             * a key that arrived there made a wake of SDL's copy of a key
             * alone (wine-win32, native_input_wakes_once_per_input: 1 of
             * the row's 25 CI runs on record). With SDL's message loop off
             * the second pump takes nothing, and the wait ends as before. */
            if (!sdl_events_pending() && queue_has_input())
                SDL_PumpEvents();
            if (sdl_events_pending() || queue_has_input())
                break;
            if (plat_now_ns() >= deadline) {
                r = TEMPO_ETIMEDOUT;
                break;
            }
            continue;
        }
        if (w >= WAIT_ABANDONED_0 && w < WAIT_ABANDONED_0 + count) {
            /* Only mutexes are abandoned; Tempo waits on none. */
            r = tempo__set_error(TEMPO_EPLATFORM, "wait: unexpected WAIT_ABANDONED %lu", (unsigned long)w);
            break;
        }
        /* WAIT_TIMEOUT */
        if (!block) {
            if (due >= 0) {
                if (claim(handles[due])) {
                    r = due;
                    break;
                }
                continue; /* another waiter took the tick */
            }
            if (sdl_pending) {
                r = n;
                break;
            }
            r = TEMPO_ETIMEDOUT;
            break;
        }
        /* A millisecond timeout ended: the clock decides. */
    }
    if (messages)
        plat_sdl_hook_end();
    if (dl != NULL) {
        if (apc_armed)
            CancelWaitableTimer(dl->handle); /* no completion routine queued later */
        win32__timer_give(dl);
    }
    for (int i = 0; i < n; i++)
        handle_unref(handles[i]);
    return r;
}

void plat_pump(void)
{
    SDL_PumpEvents();
}

void plat_shutdown(void)
{
    plat_sdl_hook_shutdown();
    win32__clock_shutdown();
}
