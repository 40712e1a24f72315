/* The win32 backend where real Windows and wine differ (issue 13).
 *
 * Wine cannot show most of these: where it cannot, the message wait's
 * MsgWaitForMultipleObjectsEx is replaced through the win32__msgwait seam by
 * a stand-in that behaves as Windows documents, and the case pins the
 * backend's logic against it. The livelock case runs for real under wine.
 *
 * A watchdog ends the program (as a failure) if a wait never returns, so a
 * livelock shows as a failed case, not as a test runner timeout. */
#include <stdatomic.h>
#include <stdio.h>

#include <SDL.h>

#include "harness.h"
#include "platform.h"
#include "tempo/input.h"
#include "tempo/tempo.h"
#include "win32/win32_internal.h"
#include "xdo.h"

#include <dbt.h>

#define MS TEMPO_NS_PER_MS

/* ---- The watchdog -------------------------------------------------------- */

static HANDLE g_dog_event;
static _Atomic(const char *) g_dog_case = ""; /* what the main thread is doing */

static DWORD WINAPI watchdog(LPVOID arg)
{
    (void)arg;
    for (;;) {
        if (WaitForSingleObject(g_dog_event, 60000) == WAIT_OBJECT_0)
            continue; /* kicked: a new case started or one ended */
        printf("# watchdog: %s did not return within 60 s (livelock)\n", atomic_load(&g_dog_case));
        printf("0 passed, 1 failed\n");
        fflush(stdout);
        ExitProcess(1);
    }
}

static void kick(const char *what)
{
    atomic_store(&g_dog_case, what);
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

/* ---- 5. DirectInput --------------------------------------------------------- */

static void wheel_remainders_add_up_to_notches(void)
{
    int32_t rem = 0;
    /* A high-resolution wheel: 40 units at a time, three make a notch. */
    CHECK_EQ_INT(win32__wheel_notches(&rem, 40), 0);
    CHECK_EQ_INT(win32__wheel_notches(&rem, 40), 0);
    CHECK_EQ_INT(win32__wheel_notches(&rem, 40), 1);
    CHECK_EQ_INT(rem, 0);
    CHECK_EQ_INT(win32__wheel_notches(&rem, 300), 2);
    CHECK_EQ_INT(rem, 60);
    /* Turning back voids the remainder: 60 down does not cancel 60 up. */
    CHECK_EQ_INT(win32__wheel_notches(&rem, -60), 0);
    CHECK_EQ_INT(win32__wheel_notches(&rem, -60), -1);
    CHECK_EQ_INT(win32__wheel_notches(&rem, -240), -2);
    CHECK_EQ_INT(rem, 0);
}

/* DIDC_POLLEDDEVICE devices signal nothing until polled, and an acquire that
 * failed in front has nothing else to retry it: the tick covers both, and
 * stays off otherwise (no wakes in the background). */
static void input_tick_runs_only_when_needed(void)
{
    CHECK_EQ_INT(win32__input_tick_ms(false, false, true), 0);
    CHECK_EQ_INT(win32__input_tick_ms(false, true, false), 0);
    CHECK_EQ_INT(win32__input_tick_ms(false, true, true), 250);
    CHECK_EQ_INT(win32__input_tick_ms(true, false, false), 8);
    CHECK_EQ_INT(win32__input_tick_ms(true, true, true), 8);
}

typedef struct seen {
    tempo_input_event ev[512];
    int n;
} seen;

static void collect(const tempo_input_event *ev, void *user)
{
    seen *s = user;
    if (s->n < (int)(sizeof s->ev / sizeof s->ev[0]))
        s->ev[s->n++] = *ev;
}

static int find_key(const seen *s, int sc, int down)
{
    for (int i = 0; i < s->n; i++)
        if (s->ev[i].type == TEMPO_INPUT_KEY && s->ev[i].u.key.scancode == sc && s->ev[i].u.key.down == down)
            return i;
    return -1;
}

static bool need_xdotool(void)
{
    if (tt_xdotool_available())
        return true;
    if (tt_env_flag("TEMPO_REQUIRE_XDOTOOL")) {
        tt_fail(__FILE__, __LINE__, "TEMPO_REQUIRE_XDOTOOL is set but xdotool is unavailable");
        return false;
    }
    TT_SKIP("needs xdotool (wine on X11)");
}

typedef struct native {
    SDL_Window *win;
    plat_input *in;
    plat_handle *h; /* the backend's own: waited on with plat_wait */
    seen s;
    int notifications, message_wakes, input_only_wakes;
} native;

static bool native_open(native *t, const char *title, unsigned devices)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        TT_SKIP("no SDL video");
    t->win = SDL_CreateWindow(title, 0, 0, 200, 150, SDL_WINDOW_SHOWN);
    CHECK(t->win != NULL);
    t->in = t->win != NULL ? plat_input_open(t->win, devices) : NULL;
    if (t->in == NULL) {
        tt_fail(__FILE__, __LINE__, "plat_input_open: %s", tempo_get_error());
        if (t->win != NULL)
            SDL_DestroyWindow(t->win);
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return false;
    }
    t->h = plat_input_handle(t->in);
    return true;
}

static void native_close(native *t)
{
    plat_input_close(t->in);
    SDL_DestroyWindow(t->win);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

/* Waits like a loop until done(t) or 10 s, reading the native handle and
 * draining SDL's queue on message wakes. */
static void native_run(native *t, bool (*done)(const native *t))
{
    uint64_t t0 = tempo_now_ns();
    while (!done(t) && tempo_now_ns() - t0 < 10000 * MS) {
        kick("native input wait");
        int r = plat_wait(&t->h, 1, 10000 * MS, TEMPO_WAIT_MESSAGES);
        kick("");
        if (r == 0) {
            t->notifications++;
            CHECK_GE_INT(plat_input_read(t->in, tempo_now_ns(), collect, &t->s), 0);
        } else if (r == 1) {
            t->message_wakes++;
            SDL_Event e;
            int events = 0, input = 0;
            while (SDL_PollEvent(&e)) {
                events++;
                input += e.type == SDL_KEYDOWN || e.type == SDL_KEYUP ||
                         (e.type >= SDL_MOUSEMOTION && e.type <= SDL_MOUSEWHEEL);
            }
            /* A wake whose only news was SDL's copy of native input. */
            if (events > 0 && input == events)
                t->input_only_wakes++;
        } else {
            tt_fail(__FILE__, __LINE__, "tempo_wait returned %d (%s)", r, tempo_strerror(r));
            break;
        }
    }
}

static bool qwe_arrived(const native *t)
{
    return find_key(&t->s, SDL_SCANCODE_Q, 0) >= 0 && find_key(&t->s, SDL_SCANCODE_W, 0) >= 0 &&
           find_key(&t->s, SDL_SCANCODE_E, 0) >= 0;
}

/* SDL's own key messages must not wake the loop a second time: DirectInput's
 * notification is the wake for that input. */
static void native_input_wakes_once_per_input(void)
{
    if (!need_xdotool())
        return;
    static native t;
    memset(&t, 0, sizeof t);
    if (!native_open(&t, "tempo-win32-once", PLAT_INPUT_KEYBOARD | PLAT_INPUT_MOUSE))
        return;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-once windowfocus --sync sleep 0.3 "
                            "key --delay 40 q w e"), 0);
    native_run(&t, qwe_arrived);
    tt_note("%d notification wakes, %d message wakes (%d with only SDL's copy of keys/mouse), %d events",
            t.notifications, t.message_wakes, t.input_only_wakes, t.s.n);
    CHECK(qwe_arrived(&t));
    CHECK_EQ_INT(t.input_only_wakes, 0);
    native_close(&t);
}

static bool r_arrived(const native *t)
{
    return find_key(&t->s, SDL_SCANCODE_R, 0) >= 0;
}

/* A secure desktop (Ctrl+Alt+Del, UAC, Win+L) unacquires the devices with no
 * focus change: the next key SDL sees must bring DirectInput back. */
static void devices_lost_without_a_focus_change_come_back(void)
{
    if (!need_xdotool())
        return;
    static native t;
    memset(&t, 0, sizeof t);
    if (!native_open(&t, "tempo-win32-lost", PLAT_INPUT_KEYBOARD | PLAT_INPUT_MOUSE))
        return;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-lost windowfocus --sync sleep 0.3 "
                            "key --delay 40 q w e"), 0);
    native_run(&t, qwe_arrived);
    CHECK(qwe_arrived(&t));
    win32__dinput_lose(t.in);
    t.s.n = 0;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-lost key --delay 200 t y r"), 0);
    native_run(&t, r_arrived);
    tt_note("after the loss: %d notification wakes, %d message wakes, %d events", t.notifications,
            t.message_wakes, t.s.n);
    CHECK(r_arrived(&t));
    CHECK(find_key(&t.s, SDL_SCANCODE_R, 1) >= 0);
    native_close(&t);
}

/* DI_BUFFEROVERFLOW: reports were dropped (wine keeps the oldest, so the
 * release is lost here), and the device's state after the overflow is the
 * truth: a key released meanwhile must not stick down. */
static void key_released_during_a_buffer_overflow_does_not_stick(void)
{
    if (!need_xdotool())
        return;
    static native t;
    memset(&t, 0, sizeof t);
    if (!native_open(&t, "tempo-win32-overflow", PLAT_INPUT_KEYBOARD))
        return;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-overflow windowfocus --sync sleep 0.3 "
                            "key --delay 40 q w e"), 0);
    native_run(&t, qwe_arrived);
    t.s.n = 0;
    /* Shift down, then 300 records (150 keys) while nobody reads: the
     * device buffers 256. */
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-overflow keydown shift key --delay 4 "
                            "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                            "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                            "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                            "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                            "a b c d e f g h i j k l m n o p q r s t u v w x y z "
                            "a b c d e f g h i j k l m n o p q r s t "
                            "keyup shift sleep 0.3 key 1"), 0);
    /* Until the "1" has been typed (SDL's copy of it), without reading. */
    SDL_Event e;
    bool one = false;
    uint64_t t0 = tempo_now_ns();
    while (!one && tempo_now_ns() - t0 < 20000 * MS) {
        kick("typing 150 keys");
        SDL_WaitEventTimeout(&e, 100);
        one |= e.type == SDL_KEYUP && e.key.keysym.scancode == SDL_SCANCODE_1;
    }
    kick("");
    CHECK(one);
    CHECK_GE_INT(plat_input_read(t.in, tempo_now_ns(), collect, &t.s), 0);
    int last = -1;
    for (int i = 0; i < t.s.n; i++)
        if (t.s.ev[i].type == TEMPO_INPUT_KEY && t.s.ev[i].u.key.scancode == SDL_SCANCODE_LSHIFT)
            last = i;
    tt_note("%d events read after the overflow; last shift event at %d (%s)", t.s.n, last,
            last < 0 ? "none" : t.s.ev[last].u.key.down ? "down" : "up");
    CHECK(t.s.n < 300); /* it did overflow */
    if (last >= 0)
        CHECK_EQ_INT(t.s.ev[last].u.key.down, 0); /* not stuck */
    native_close(&t);
}

static int count_buttons(const seen *s, int down)
{
    int k = 0;
    for (int i = 0; i < s->n; i++)
        k += s->ev[i].type == TEMPO_INPUT_MOUSE_BUTTON && s->ev[i].u.button.down == down;
    return k;
}

static bool z_arrived(const native *t)
{
    return find_key(&t->s, SDL_SCANCODE_Z, 0) >= 0;
}

/* A button pressed while the mouse was not acquired (the click that brings
 * the window back) reports no up without its down. */
static void button_up_without_its_down_is_dropped(void)
{
    if (!need_xdotool())
        return;
    static native t;
    memset(&t, 0, sizeof t);
    if (!native_open(&t, "tempo-win32-click", PLAT_INPUT_KEYBOARD | PLAT_INPUT_MOUSE))
        return;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-click windowfocus --sync sleep 0.3 "
                            "mousemove --window %1 50 50 key --delay 40 q w e"), 0);
    native_run(&t, qwe_arrived);
    win32__dinput_lose(t.in);
    t.s.n = 0;
    CHECK_EQ_INT(tt_xdotool("search --sync --name tempo-win32-click mousedown 1 sleep 0.4 mouseup 1 "
                            "sleep 0.3 key z"), 0);
    native_run(&t, z_arrived);
    int downs = count_buttons(&t.s, 1), ups = count_buttons(&t.s, 0);
    tt_note("%d button downs, %d ups, %d events", downs, ups, t.s.n);
    CHECK(z_arrived(&t));
    CHECK_EQ_INT(ups, downs);
    native_close(&t);
}

static HANDLE g_enum_gate;
static atomic_int g_enum_calls;

/* [enumeration thread] A slow EnumDevices: held until the test opens the gate. */
static void slow_enumeration(void)
{
    atomic_fetch_add(&g_enum_calls, 1);
    WaitForSingleObject(g_enum_gate, 30000);
}

static int count_type(const seen *s, uint32_t type)
{
    int k = 0;
    for (int i = 0; i < s->n; i++)
        k += s->ev[i].type == type;
    return k;
}

/* EnumDevices can take seconds: opening, reading and a device arrival must
 * not wait for it on the loop thread. */
static void controller_enumeration_stays_off_the_loop_thread(void)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        TT_SKIP("no SDL video");
    g_enum_gate = CreateEventW(NULL, TRUE, FALSE, NULL);
    atomic_store(&g_enum_calls, 0);
    win32__enum_hook = slow_enumeration;
    SDL_Window *win = SDL_CreateWindow("tempo-win32-enum", 0, 0, 160, 120, SDL_WINDOW_SHOWN);
    CHECK(win != NULL);
    kick("plat_input_open(PADS) with EnumDevices held");
    plat_input *in = win != NULL ? plat_input_open(win, PLAT_INPUT_PADS) : NULL;
    CHECK(in != NULL);
    static seen s;
    s.n = 0;
    uint64_t longest = 0;
    if (in != NULL) {
        /* The enumeration thread reaches the held EnumDevices (it may start
         * late on a loaded machine). */
        uint64_t s0 = tempo_now_ns();
        while (atomic_load(&g_enum_calls) < 1 && tempo_now_ns() - s0 < 10000 * MS)
            Sleep(5);
        CHECK_EQ_INT(atomic_load(&g_enum_calls), 1);
        /* Reads go on while the enumeration is held. */
        for (int i = 0; i < 3; i++) {
            uint64_t t0 = tempo_now_ns();
            CHECK_GE_INT(plat_input_read(in, t0, collect, &s), 0);
            uint64_t took = tempo_now_ns() - t0;
            longest = took > longest ? took : longest;
        }
        /* A device arrival while it is held: the notification window's
         * message, then a read (what the loop does on that frame). */
        HWND notify = FindWindowExW(HWND_MESSAGE, NULL, L"tempo-dinput-notify", NULL);
        CHECK(notify != NULL);
        if (notify != NULL)
            SendMessageW(notify, WM_DEVICECHANGE, DBT_DEVICEARRIVAL, 0);
        uint64_t t0 = tempo_now_ns();
        CHECK_GE_INT(plat_input_read(in, t0, collect, &s), 0);
        uint64_t took = tempo_now_ns() - t0;
        longest = took > longest ? took : longest;
        CHECK_EQ_INT(atomic_load(&g_enum_calls), 1); /* still held in the first pass */
        /* Released: the second pass (the arrival) follows and signals. */
        SetEvent(g_enum_gate);
        uint64_t w0 = tempo_now_ns();
        while (atomic_load(&g_enum_calls) < 2 && tempo_now_ns() - w0 < 10000 * MS)
            Sleep(5);
        CHECK_EQ_INT(atomic_load(&g_enum_calls), 2);
        plat_handle *h = plat_input_handle(in);
        CHECK_EQ_INT(plat_wait(&h, 1, 10000 * MS, 0), 0);
        CHECK_GE_INT(plat_input_read(in, tempo_now_ns(), collect, &s), 0);
        tt_note("longest read while EnumDevices was held: %.2f ms; pads found: %d",
                (double)longest / 1e6, count_type(&s, TEMPO_INPUT_DEVICE_ADDED));
        /* The real EnumDevices on an arrival: how long it took on its thread
         * (arrival to signal) and the longest read the loop thread made. */
        win32__enum_hook = NULL;
        HWND notify2 = FindWindowExW(HWND_MESSAGE, NULL, L"tempo-dinput-notify", NULL);
        uint64_t a0 = tempo_now_ns();
        if (notify2 != NULL)
            SendMessageW(notify2, WM_DEVICECHANGE, DBT_DEVICEARRIVAL, 0);
        CHECK_EQ_INT(plat_wait(&h, 1, 10000 * MS, 0), 0);
        uint64_t enum_ns = tempo_now_ns() - a0, r0 = tempo_now_ns();
        CHECK_GE_INT(plat_input_read(in, r0, collect, &s), 0);
        tt_note("a real enumeration after an arrival: %.2f ms on its thread, read %.3f ms",
                (double)enum_ns / 1e6, (double)(tempo_now_ns() - r0) / 1e6);
        kick("plat_input_close");
        plat_input_close(in);
    }
    kick("");
    win32__enum_hook = NULL;
    CloseHandle(g_enum_gate);
    if (win != NULL)
        SDL_DestroyWindow(win);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

/* ---- 6. Capabilities ----------------------------------------------------- */

static void backend_reports_its_capabilities(void)
{
    CHECK(tempo_backend_has(TEMPO_CAP_NATIVE_INPUT));
    CHECK(tempo_backend_has(TEMPO_CAP_OS_MESSAGE_WAIT));
    CHECK(tempo_backend_has(TEMPO_CAP_NATIVE_INPUT | TEMPO_CAP_OS_MESSAGE_WAIT));
    CHECK(!tempo_backend_has(TEMPO_CAP_SDL_ROUTE));
    CHECK(!tempo_backend_has(TEMPO_CAP_NATIVE_INPUT | TEMPO_CAP_SDL_ROUTE));
    CHECK(!tempo_backend_has(0));
}

static const tt_case cases[] = {
    TT_CASE(backend_reports_its_capabilities),
    TT_CASE(handles_are_reported_before_queued_input),
    TT_CASE(message_waits_work_where_touch_bits_are_rejected),
    TT_CASE(full_wait_set_with_messages_keeps_a_precise_deadline),
    TT_CASE(wait_returns_when_sdl_leaves_messages_queued),
    TT_CASE(wheel_remainders_add_up_to_notches),
    TT_CASE(input_tick_runs_only_when_needed),
    TT_CASE(native_input_wakes_once_per_input),
    TT_CASE(devices_lost_without_a_focus_change_come_back),
    TT_CASE(key_released_during_a_buffer_overflow_does_not_stick),
    TT_CASE(button_up_without_its_down_is_dropped),
    TT_CASE(controller_enumeration_stays_off_the_loop_thread),
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
