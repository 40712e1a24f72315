/* The win32 backend where real Windows and wine differ (issue 13).
 *
 * Wine cannot show most of these: where it cannot, the message wait's
 * MsgWaitForMultipleObjectsEx is replaced through the win32__msgwait seam by
 * a stand-in that behaves as Windows documents, and the case pins the
 * backend's logic against it. The livelock case runs for real under wine.
 *
 * A watchdog ends the program (as a failure) if a wait never returns, so a
 * livelock shows as a failed case, not as a test runner timeout. */
#include <stdio.h>

#include <SDL.h>

#include "harness.h"
#include "platform.h"
#include "tempo/tempo.h"
#include "win32/win32_internal.h"

#define MS TEMPO_NS_PER_MS

/* ---- The watchdog -------------------------------------------------------- */

static HANDLE g_dog_event;
static volatile const char *g_dog_case = "";

static DWORD WINAPI watchdog(LPVOID arg)
{
    (void)arg;
    for (;;) {
        if (WaitForSingleObject(g_dog_event, 60000) == WAIT_OBJECT_0)
            continue; /* kicked: a new case started or one ended */
        printf("# watchdog: %s did not return within 60 s (livelock)\n", (const char *)g_dog_case);
        printf("0 passed, 1 failed\n");
        fflush(stdout);
        ExitProcess(1);
    }
}

static void kick(const char *what)
{
    g_dog_case = what;
    SetEvent(g_dog_event);
}

/* Drains the thread's queue as a program with its own message loop does. */
static int drain_queue(void)
{
    MSG msg;
    int k = 0;
    while (PeekMessageW(&msg, NULL, 0, 0, PM_REMOVE)) {
        TranslateMessage(&msg);
        DispatchMessageW(&msg);
        k++;
    }
    return k;
}

/* ---- 1. SDL leaves messages in the queue --------------------------------- */

/* With SDL's message loop off, SDL_PumpEvents leaves the queue alone: the old
 * wait pumped and retried forever (never returning, even past its deadline).
 * The wait must return: n (messages: the caller pumps) or a timeout. */
static void wait_returns_when_sdl_leaves_messages_queued(void)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        TT_SKIP("no SDL video");
    SDL_SetHint(SDL_HINT_WINDOWS_ENABLE_MESSAGELOOP, "0");
    SDL_Window *win = SDL_CreateWindow("tempo-win32-msgloop", 0, 0, 160, 120, SDL_WINDOW_SHOWN);
    CHECK(win != NULL);
    if (win == NULL) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return;
    }
    /* SDL's queue empty (the window's creation events read), so only the
     * Win32 queue has something: a message SDL will not take, posted to the
     * thread like any input. */
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    PostThreadMessageW(GetCurrentThreadId(), WM_USER + 7, 0, 0);
    kick("tempo_wait(NULL, 0, 2 s, TEMPO_WAIT_MESSAGES), SDL message loop off");
    uint64_t t0 = tempo_now_ns();
    int r = tempo_wait(NULL, 0, 2000 * MS, TEMPO_WAIT_MESSAGES);
    uint64_t took = tempo_now_ns() - t0;
    kick("");
    tt_note("first wait: %d after %.1f ms", r, (double)took / 1e6);
    CHECK_EQ_INT(r, 0); /* n = 0: the queue has input SDL left */

    /* The caller pumps; then waits block again and time out. */
    int timeouts = 0, wakes = 0;
    for (int i = 0; i < 50 && timeouts == 0; i++) {
        drain_queue();
        SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
        kick("tempo_wait(NULL, 0, 50 ms, TEMPO_WAIT_MESSAGES) after draining");
        r = tempo_wait(NULL, 0, 50 * MS, TEMPO_WAIT_MESSAGES);
        kick("");
        CHECK(r == 0 || r == TEMPO_ETIMEDOUT);
        if (r == TEMPO_ETIMEDOUT)
            timeouts++;
        else
            wakes++;
    }
    tt_note("%d message wakes before the first timeout", wakes);
    CHECK_EQ_INT(timeouts, 1);
    SDL_DestroyWindow(win);
    drain_queue();
    SDL_SetHint(SDL_HINT_WINDOWS_ENABLE_MESSAGELOOP, "1");
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

/* ---- 2. Handles before messages ------------------------------------------ */

static int g_calls;
static DWORD g_first_ms, g_first_flags, g_last_mask;

/* Real Windows with MWMO_INPUTAVAILABLE: queued input is reported at once,
 * without looking at the handles. */
static DWORD WINAPI windows_msgwait(DWORD count, const HANDLE *handles, DWORD ms, DWORD mask, DWORD flags)
{
    if (g_calls++ == 0) {
        g_first_ms = ms;
        g_first_flags = flags;
    }
    g_last_mask = mask;
    if ((flags & MWMO_INPUTAVAILABLE) && HIWORD(GetQueueStatus(mask)) != 0)
        return WAIT_OBJECT_0 + count;
    return MsgWaitForMultipleObjectsEx(count, handles, ms, mask, flags);
}

static void handles_are_reported_before_queued_input(void)
{
    tempo_handle *h[2] = {tempo_event_create(false, false), tempo_event_create(true, false)};
    CHECK(h[0] != NULL && h[1] != NULL);
    drain_queue();
    win32__msgwait = windows_msgwait;
    /* The event set and input queued before the wait: index 1, not messages. */
    tempo_event_set(h[1]);
    PostThreadMessageW(GetCurrentThreadId(), WM_USER + 1, 0, 0);
    kick("handles before messages");
    CHECK_EQ_INT(tempo_wait(h, 2, 1000 * MS, TEMPO_WAIT_MESSAGES), 1);
    /* Zero timeout: the same. */
    CHECK_EQ_INT(tempo_wait(h, 2, 0, TEMPO_WAIT_MESSAGES), 1);
    /* With no handle signalled the input is reported (n). */
    tempo_event_reset(h[1]);
    CHECK_EQ_INT(tempo_wait(h, 2, 1000 * MS, TEMPO_WAIT_MESSAGES), 2);
    kick("");
    CHECK(g_calls > 0); /* the stand-in was used */
    win32__msgwait = NULL;
    drain_queue();
    tempo_event_destroy(h[0]);
    tempo_event_destroy(h[1]);
}

/* ---- 3. QS_TOUCH | QS_POINTER on Windows 7 -------------------------------- */

/* Windows 7: unknown QS_* bits fail the call with ERROR_INVALID_PARAMETER. */
static DWORD WINAPI windows7_msgwait(DWORD count, const HANDLE *handles, DWORD ms, DWORD mask, DWORD flags)
{
    g_calls++;
    g_last_mask = mask;
    if (mask & (0x0800 /* QS_TOUCH */ | 0x1000 /* QS_POINTER */)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return WAIT_FAILED;
    }
    return MsgWaitForMultipleObjectsEx(count, handles, ms, mask, flags);
}

static void message_waits_work_where_touch_bits_are_rejected(void)
{
    tempo_handle *ev = tempo_event_create(false, false);
    CHECK(ev != NULL);
    drain_queue();
    g_calls = 0;
    win32__msgwait = windows7_msgwait;
    kick("message wait on Windows 7");
    PostThreadMessageW(GetCurrentThreadId(), WM_USER + 2, 0, 0);
    CHECK_EQ_INT(tempo_wait(&ev, 1, 1000 * MS, TEMPO_WAIT_MESSAGES), 1);
    drain_queue();
    CHECK_EQ_INT(tempo_wait(&ev, 1, 5 * MS, TEMPO_WAIT_MESSAGES), TEMPO_ETIMEDOUT);
    tempo_event_set(ev);
    CHECK_EQ_INT(tempo_wait(&ev, 1, 1000 * MS, TEMPO_WAIT_MESSAGES), 0);
    kick("");
    win32__msgwait = NULL;
    CHECK_EQ_INT(g_last_mask & 0x1800u, 0);
    CHECK_EQ_INT(win32__queue_mask() & 0x1800u, 0);
    CHECK(win32__queue_mask() & QS_KEY);
    tempo_event_destroy(ev);
}

/* ---- 4. 63 handles and messages ------------------------------------------ */

/* MsgWaitForMultipleObjectsEx takes at most 63 handles: none left for the
 * deadline timer. The timeout must not fall back to whole milliseconds
 * (rounded to the 15.6 ms tick on Windows without timeBeginPeriod). */
static void full_wait_set_with_messages_keeps_a_precise_deadline(void)
{
    tempo_handle *h[TEMPO_WAIT_MAX_HANDLES];
    for (int i = 0; i < TEMPO_WAIT_MAX_HANDLES; i++)
        h[i] = tempo_event_create(false, false);
    drain_queue();
    g_calls = 0;
    win32__msgwait = windows_msgwait;
    kick("63 handles with messages");
    uint64_t t0 = tempo_now_ns();
    int r = tempo_wait(h, TEMPO_WAIT_MAX_HANDLES, 3 * MS + 300000, TEMPO_WAIT_MESSAGES);
    uint64_t took = tempo_now_ns() - t0;
    kick("");
    win32__msgwait = NULL;
    CHECK_EQ_INT(r, TEMPO_ETIMEDOUT);
    CHECK_GE_U64(took, 3 * MS + 300000); /* never early */
    /* The deadline was the timer's completion routine, not a ms timeout. */
    CHECK_EQ_U64(g_first_ms, INFINITE);
    CHECK(g_first_flags & MWMO_ALERTABLE);
    tt_note("3.3 ms timeout with 63 handles: %.2f ms, %d kernel waits", (double)took / 1e6, g_calls);

    /* The last handle still wins when signalled. */
    tempo_event_set(h[TEMPO_WAIT_MAX_HANDLES - 1]);
    CHECK_EQ_INT(tempo_wait(h, TEMPO_WAIT_MAX_HANDLES, 1000 * MS, TEMPO_WAIT_MESSAGES),
                 TEMPO_WAIT_MAX_HANDLES - 1);
    for (int i = 0; i < TEMPO_WAIT_MAX_HANDLES; i++)
        tempo_event_destroy(h[i]);
}

static const tt_case cases[] = {
    TT_CASE(handles_are_reported_before_queued_input),
    TT_CASE(message_waits_work_where_touch_bits_are_rejected),
    TT_CASE(full_wait_set_with_messages_keeps_a_precise_deadline),
    TT_CASE(wait_returns_when_sdl_leaves_messages_queued),
};

int main(int argc, char **argv)
{
    g_dog_event = CreateEventW(NULL, FALSE, FALSE, NULL);
    CloseHandle(CreateThread(NULL, 0, watchdog, NULL, 0, NULL));
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("# SDL: %s\n", SDL_GetError());
        return 1;
    }
    printf("# backend %s\n", tempo_backend_name());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
