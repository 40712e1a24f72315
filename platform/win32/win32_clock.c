/* Precise sleep and waitable-timer helpers of the win32 backend.
 *
 * The clock (platform/common/plat_clock_windows.c) is QueryPerformanceCounter. Waitable timers are armed with
 * *relative* due times: those run on the same monotonic interrupt-time base
 * as QPC, whereas absolute due times follow the wall clock and jump with it.
 *
 * Precision: a high-resolution waitable timer (Windows 10 1803+) expires
 * within ~0.5 ms of its due time; older systems get 1 ms through
 * timeBeginPeriod(1). Wine schedules every timeout in whole milliseconds, so
 * under wine expect expiries 0.1-1.5 ms late whatever the flag says.
 * Nothing here spins: sub-millisecond precision is what the kernel gives.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "plat_clock.h"
#include "tempo_internal.h"
#include "win32_internal.h"

#include <mmsystem.h> /* timeBeginPeriod */

/* Missing from mingw-w64's headers (winbase.h of the Windows 10 SDK). */
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* ---- Errors ------------------------------------------------------------- */

int win32__error(int code, const char *what)
{
    DWORD err = GetLastError();
    char text[256];
    DWORD len = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                               err, 0, text, sizeof text, NULL);
    /* System messages end in ".\r\n". */
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == '.' ||
                       text[len - 1] == ' '))
        len--;
    text[len] = '\0';
    return tempo__set_error(code, "%s: error %lu: %s", what, (unsigned long)err,
                            len > 0 ? text : "(no description)");
}

/* ---- Clock -------------------------------------------------------------- */

/* plat_now_ns and plat_process_usage: platform/common/plat_clock_windows.c,
 * shared with the sdl backend built for Windows. */

/* ---- Waitable timers ---------------------------------------------------- */

static atomic_int g_hires = -1; /* -1 not yet known, 1 high-resolution timers, 0 not supported */
static atomic_bool g_period_raised;

HANDLE win32__timer_create(bool manual_reset)
{
    DWORD flags = manual_reset ? CREATE_WAITABLE_TIMER_MANUAL_RESET : 0;
    if (atomic_load(&g_hires) != 0) {
        HANDLE h = CreateWaitableTimerExW(NULL, NULL, flags | CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                          TIMER_ALL_ACCESS);
        if (h != NULL) {
            atomic_store(&g_hires, 1);
            return h;
        }
        if (GetLastError() != ERROR_INVALID_PARAMETER) {
            win32__error(TEMPO_EPLATFORM, "CreateWaitableTimerExW");
            return NULL;
        }
        /* Before Windows 10 1803 the flag is rejected: plain timers expire on
         * the scheduler tick, 15.6 ms unless someone raises the resolution. */
        atomic_store(&g_hires, 0);
    }
    if (!atomic_exchange(&g_period_raised, true))
        timeBeginPeriod(1);
    HANDLE h = CreateWaitableTimerExW(NULL, NULL, flags, TIMER_ALL_ACCESS);
    if (h == NULL)
        win32__error(TEMPO_EPLATFORM, "CreateWaitableTimerExW");
    return h;
}

/* The longest relative due time we hand the kernel, in 100 ns units (~10
 * years): wine adds it to its current time in a signed 64-bit value, so
 * "never" must not be near INT64_MAX. A timer due later than this wakes its
 * waiter once per decade, which re-checks the clock and re-arms. */
#define MAX_DUE_UNITS (UINT64_C(10000000) * 3600 * 24 * 365 * 10)

bool win32__timer_arm(HANDLE timer, uint64_t due_ns, uint64_t now_ns)
{
    uint64_t units = due_ns > now_ns ? (due_ns - now_ns + 99u) / 100u : 1u;
    LARGE_INTEGER li;
    li.QuadPart = -(LONGLONG)(units > MAX_DUE_UNITS ? MAX_DUE_UNITS : units);
    if (!SetWaitableTimer(timer, &li, 0, NULL, NULL, FALSE)) {
        win32__error(TEMPO_EPLATFORM, "SetWaitableTimer");
        return false;
    }
    return true;
}

void win32__timer_quench(HANDLE timer)
{
    LARGE_INTEGER never;
    never.QuadPart = -(LONGLONG)MAX_DUE_UNITS; /* the set clears the signal, the cancel the expiry */
    SetWaitableTimer(timer, &never, 0, NULL, NULL, FALSE);
    CancelWaitableTimer(timer);
}

/* The pool of one-call timers: a wait's deadline or a sleep needs its own
 * timer only while it blocks, and creating kernel objects per call would
 * cost more than the wait. */
static SRWLOCK g_pool_lock = SRWLOCK_INIT;
static win32_timer *g_pool; /* [g_pool_lock] */

win32_timer *win32__timer_take(void)
{
    AcquireSRWLockExclusive(&g_pool_lock);
    win32_timer *t = g_pool;
    if (t != NULL)
        g_pool = t->next;
    ReleaseSRWLockExclusive(&g_pool_lock);
    if (t != NULL)
        return t;
    t = calloc(1, sizeof *t);
    if (t == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "timer pool: out of memory");
        return NULL;
    }
    t->handle = win32__timer_create(false);
    if (t->handle == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

void win32__timer_give(win32_timer *t)
{
    /* A deadline that expired unobserved leaves a signal behind; the next
     * user re-arms (which clears it) before it blocks, or takes one
     * spurious wake-up and re-checks its clock. */
    AcquireSRWLockExclusive(&g_pool_lock);
    t->next = g_pool;
    g_pool = t;
    ReleaseSRWLockExclusive(&g_pool_lock);
}

void win32__clock_shutdown(void)
{
    AcquireSRWLockExclusive(&g_pool_lock);
    win32_timer *t = g_pool;
    g_pool = NULL;
    ReleaseSRWLockExclusive(&g_pool_lock);
    while (t != NULL) {
        win32_timer *next = t->next;
        CloseHandle(t->handle);
        free(t);
        t = next;
    }
    if (atomic_exchange(&g_period_raised, false))
        timeEndPeriod(1);
}

/* ---- Precise sleep ------------------------------------------------------ */

void plat_sleep_until_ns(uint64_t deadline_ns)
{
    uint64_t now = plat_now_ns();
    if (now >= deadline_ns)
        return;
    win32_timer *t = win32__timer_take();
    /* A loop, because a timer may expire a little before QPC agrees (the
     * two count on different hardware on some systems): never return early. */
    for (; now < deadline_ns; now = plat_now_ns()) {
        if (t != NULL && win32__timer_arm(t->handle, deadline_ns, now)) {
            WaitForSingleObject(t->handle, INFINITE);
        } else {
            /* No timer: Sleep counts milliseconds; round up. */
            uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
            Sleep(ms >= INFINITE ? INFINITE - 1 : (DWORD)ms);
        }
    }
    if (t != NULL)
        win32__timer_give(t);
}
