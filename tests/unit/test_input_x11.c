/* Real input under X11 (Xvfb in ./dev test): xdotool's key, pointer, button
 * and wheel input reaches a passive message wait, comes out as Tempo input
 * events with sane timestamps, and idling costs no polling wake-ups.
 *
 * Nothing checked depends on the machine's load: events are checked for
 * occurrence and order (and how long after xdotool they came is a note);
 * wake-ups are the waiting thread's own (RUSAGE_THREAD on Linux), which a
 * busy machine cannot add to, and the count of message wakes is bounded by
 * the X events xdotool causes, not by time.
 *
 * Skipped without the x11 video driver or xdotool, except where ./dev sets
 * TEMPO_REQUIRE_X11=1 (then it fails instead, like the conformance suite). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"
#include "video_x11.h"

#define MS TEMPO_NS_PER_MS

static bool video_ok;

static uint64_t since(uint64_t t0)
{
    return tempo_now_ns() - t0;
}

static bool need_x11(void)
{
    const char *drv = video_ok ? SDL_GetCurrentVideoDriver() : NULL;
    bool x11 = video_ok && tt_video_is_x11();
    if (x11 && system("xdotool --version >/dev/null 2>&1") == 0)
        return true;
    if (tt_env_flag("TEMPO_REQUIRE_X11")) {
        tt_fail(__FILE__, __LINE__, "TEMPO_REQUIRE_X11 is set but x11/xdotool is unavailable (driver %s)",
                drv ? drv : "none");
        return false;
    }
    tt_skip("needs the x11 video driver and xdotool");
}

typedef struct sender {
    const char *title;
    tempo_handle *focused; /* set by the test once SDL reports the focus */
    _Atomic uint64_t started_ns, finished_ns;
    int rc;
} sender;

/* [xdotool thread] Focuses the window, waits until the test saw the focus
 * arrive, then sends the input. Focus first: SDL ignores a click it
 * processes within 10 ms of processing the window's FocusIn (the click that
 * focused a window), and on a loaded machine one pump can process both, so
 * a click right behind windowfocus was sometimes dropped. */
static int send_input(void *p)
{
    sender *s = p;
    char cmd[512];
    /* No window manager under Xvfb: focus explicitly. */
    snprintf(cmd, sizeof cmd, "xdotool search --sync --name '%s' windowfocus --sync >/dev/null 2>&1", s->title);
    s->rc = system(cmd);
    if (s->rc != 0 || tempo_wait(&s->focused, 1, 30000 * MS, 0) != 0)
        return s->rc ? s->rc : -1;
    /* The window is at the screen's origin, so window and screen coordinates
     * agree. Button 3 is the right button, button 4 one wheel notch away
     * from the user. */
    snprintf(cmd, sizeof cmd,
             "xdotool search --sync --name '%s' "
             "mousemove --window %%1 40 30 sleep 0.05 click 3 sleep 0.05 click 4 sleep 0.05 "
             "keydown x sleep 0.05 keyup x >/dev/null 2>&1",
             s->title);
    atomic_store(&s->started_ns, tempo_now_ns());
    s->rc = system(cmd);
    atomic_store(&s->finished_ns, tempo_now_ns());
    return s->rc;
}

/* Voluntary context switches of the calling thread where the OS counts them
 * per thread (Linux), else of the process (other threads add to it, e.g.
 * ThreadSanitizer's own ~10/s). */
static uint64_t own_switches(const tempo_usage *process)
{
    uint64_t n;
    return tt_thread_switches(&n) ? n : process->voluntary_switches;
}

/* Counts the waiting thread's wake-ups while it idles in a message wait. */
static double idle_wakeups_per_s(tempo_input *in, uint64_t ns, int *returns)
{
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t sw0 = own_switches(&u0);
    uint64_t t0 = tempo_now_ns();
    *returns = 0;
    for (uint64_t spent; (spent = since(t0)) < ns;) {
        if (tempo_wait(NULL, 0, ns - spent, TEMPO_WAIT_MESSAGES) == 0) {
            (*returns)++;
            uint64_t now = tempo_now_ns();
            SDL_Event e;
            while (SDL_PollEvent(&e))
                tempo_input_handle_sdl(in, &e, now);
        }
    }
    tempo_process_usage(&u1);
    return (double)(own_switches(&u1) - sw0) / ((double)since(t0) / 1e9);
}

static void xdotool_input_arrives_as_tempo_events(void)
{
    if (!need_x11())
        return;
    const char *title = "tempo-input-x11";
    SDL_Window *win = SDL_CreateWindow(title, 0, 0, 320, 240, SDL_WINDOW_SHOWN);
    CHECK(win != NULL);
    if (win == NULL)
        return;
    tempo_input *in = tempo_input_create(NULL);
    CHECK(in != NULL);

    /* Let the window settle (map, expose), then idle for one second: with no
     * timer and no controller the loop must not wake at all. */
    int returns = 0;
    idle_wakeups_per_s(in, 300 * MS, &returns);
    tempo_input_event ev;
    while (tempo_input_poll(in, &ev) > 0) {
    }
    double idle = idle_wakeups_per_s(in, 1000 * MS, &returns);
    tt_note("idle: %.0f wake-ups/s, %d message returns, route %s", idle, returns,
            tempo_wait_route());
    CHECK_LE_DBL(idle, 20.0);
    CHECK_LE_INT(returns, 2);
    const char *forced = SDL_getenv("TEMPO_SDL_WAIT_ROUTE");
    bool sdl_route = forced != NULL && SDL_strcmp(forced, "sdl") == 0;
    CHECK_STR_EQ(tempo_wait_route(), sdl_route ? "sdl-events" : "x11-fd+eventfd");

    sender s = {.title = title, .focused = tempo_event_create(true, false)};
    SDL_Thread *th = SDL_CreateThread(send_input, "xdotool", &s);
    bool key_down = false, key_up = false, moved = false, rdown = false, rup = false, wheel = false;
    int wakes = 0, events = 0;
    uint64_t last_time = 0, max_lag = 0;
    uint64_t t0 = tempo_now_ns();
    /* 30 s: only reached when input is lost (xdotool takes ~0.3 s idle). */
    while (!(key_down && key_up && moved && rdown && rup && wheel) && since(t0) < 30000 * MS) {
        if (SDL_GetKeyboardFocus() == win)
            tempo_event_set(s.focused);
        int r = tempo_wait(NULL, 0, 30000 * MS, TEMPO_WAIT_MESSAGES);
        if (r != 0) {
            tt_note("tempo_wait: %s", tempo_errname(r));
            break;
        }
        uint64_t woke = tempo_now_ns();
        wakes++;
        SDL_Event e;
        while (SDL_PollEvent(&e))
            tempo_input_handle_sdl(in, &e, woke);
        while (tempo_input_poll(in, &ev) > 0) {
            events++;
            /* Sane: stamped at the wake that delivered it, ordered, after
             * xdotool started (how long after it finished is a note). */
            CHECK_EQ_U64(ev.time_ns, woke);
            CHECK_GE_U64(ev.time_ns, last_time);
            last_time = ev.time_ns;
            uint64_t started = atomic_load(&s.started_ns);
            CHECK(started != 0 && ev.time_ns >= started); /* none during the focus step */
            uint64_t fin = atomic_load(&s.finished_ns);
            if (fin != 0 && ev.time_ns > fin && ev.time_ns - fin > max_lag)
                max_lag = ev.time_ns - fin;
            CHECK(ev.os_time_ms != 0);
            switch (ev.type) {
            case TEMPO_INPUT_KEY:
                if (ev.u.key.scancode == SDL_SCANCODE_X) {
                    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_KEYBOARD);
                    key_down |= ev.u.key.down == 1;
                    key_up |= ev.u.key.down == 0 && key_down;
                }
                break;
            case TEMPO_INPUT_MOUSE_MOTION:
                if (ev.u.motion.x == 40 && ev.u.motion.y == 30)
                    moved = true;
                break;
            case TEMPO_INPUT_MOUSE_BUTTON:
                if (ev.u.button.button == SDL_BUTTON_RIGHT) {
                    CHECK_EQ_INT(ev.u.button.x, 40);
                    CHECK_EQ_INT(ev.u.button.y, 30);
                    rdown |= ev.u.button.down == 1;
                    rup |= ev.u.button.down == 0 && rdown;
                }
                break;
            case TEMPO_INPUT_MOUSE_WHEEL:
                CHECK_EQ_INT(ev.u.wheel.y, 1);
                wheel = true;
                break;
            default:
                break;
            }
        }
    }
    tempo_event_set(s.focused); /* never leave the thread waiting */
    SDL_WaitThread(th, NULL);
    tempo_event_destroy(s.focused);
    CHECK_EQ_INT(s.rc, 0);
    CHECK(moved);
    CHECK(rdown);
    CHECK(rup);
    CHECK(wheel);
    CHECK(key_down);
    CHECK(key_up);
    tt_note("%d events in %d message wake-ups; latest event %.2f ms after xdotool exited", events,
            wakes, (double)max_lag / 1e6);
    /* The loop woke for the input (each burst costs a wake), not by polling:
     * xdotool's four bursts cause a bounded number of X events, however
     * slowly they arrive (a late wake finds several at once). */
    CHECK_LE_INT(wakes, 40);
    tempo_input_destroy(in);
    SDL_DestroyWindow(win);
}

static const tt_case cases[] = {
    TT_CASE(xdotool_input_arrives_as_tempo_events),
};

int main(int argc, char **argv)
{
    /* A click is input however soon it follows a focus change (SDL drops a
     * click processed within 10 ms of the window's FocusIn otherwise; the
     * case also focuses first, see send_input). */
    SDL_SetHint(SDL_HINT_MOUSE_FOCUS_CLICKTHROUGH, "1");
    video_ok = tt_video_init() == 0;
    printf("# backend %s, video driver %s\n", tempo_backend_name(),
           video_ok ? SDL_GetCurrentVideoDriver() : "(none)");
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
