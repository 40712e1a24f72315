/* Tempo on a real Wayland compositor (weston, started by
 * tests/integration/wayland.sh: weston's x11 backend inside Xvfb, SDL_VIDEODRIVER=wayland).
 *
 *  - tempo_video_prepare(): keeps a game's libdecor choice, turns libdecor
 *    off otherwise, and refuses a compositor without a wl_seat before SDL's
 *    video init would segfault on it (TEMPO_TEST_WAYLAND_NOSEAT names the
 *    socket of a headless weston to try; skipped without it).
 *  - The message wait takes the wayland-fd route and idles without waking.
 *  - Keyboard and mouse input sent with xdotool into weston's X window (the
 *    compositor's seat) reach Tempo's input events.
 *  - Windows destroyed and created again do not crash (SDL 2.26.5 does in
 *    its libdecor dispatch unless libdecor is off).
 *  - A minimized window keeps its update rate, or the loop pauses, and a
 *    pause ends when the window is restored (weston's window switcher,
 *    through xdotool): measured and reported, enforced only with
 *    TEMPO_WAYLAND_MINIMIZE=enforce (the loop-side present state of issue
 *    23 is not merged yet; until then the case skips with the measured
 *    rates in its reason).
 *
 * No verdict depends on the machine's load: input is checked for occurrence
 * and order, wake-ups are bounded by what xdotool causes, the minimize
 * bound is two thirds of the update rate (the defect gives a third) over
 * the time the loop ran, and after a restore any one whole second of the
 * first five must keep that rate.
 *
 * Every case that needs the compositor skips without SDL's wayland driver,
 * except where ./dev sets TEMPO_REQUIRE_WAYLAND=1 (then it fails). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* unsetenv under -std=c11 */
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define HINT_ALLOW_LIBDECOR "SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR"

static int video_state; /* 0: not tried, 1: up on wayland, -1: not wayland */

static uint64_t since(uint64_t t0)
{
    return tempo_now_ns() - t0;
}

static bool skip_or_fail(const char *why)
{
    if (tt_env_flag("TEMPO_REQUIRE_WAYLAND")) {
        tt_fail(__FILE__, __LINE__, "TEMPO_REQUIRE_WAYLAND is set but %s", why);
        return false;
    }
    tt_skip(why);
}

/* Initialises SDL video once, the way a game should (tempo_video_prepare
 * first); true when SDL's driver is wayland. */
static bool need_wayland(void)
{
    if (video_state == 0) {
        video_state = -1;
        int rc = tempo_video_prepare();
        if (rc != 0)
            tt_note("tempo_video_prepare: %s (%s)", tempo_errname(rc), tempo_get_error());
        else if (SDL_InitSubSystem(SDL_INIT_VIDEO) == 0)
            video_state = SDL_strcmp(SDL_GetCurrentVideoDriver(), "wayland") == 0 ? 1 : -1;
        printf("# video driver %s\n", video_state == 1 ? "wayland" : "(not wayland)");
    }
    if (video_state == 1)
        return true;
    return skip_or_fail("needs SDL's wayland video driver (SDL_VIDEODRIVER=wayland and a compositor)");
}

/* Pumps through Tempo's message wait for `ns`, handing input to `in`. */
static int pump_for(tempo_input *in, uint64_t ns)
{
    int returns = 0;
    uint64_t t0 = tempo_now_ns();
    for (uint64_t spent; (spent = since(t0)) < ns;) {
        if (tempo_wait(NULL, 0, ns - spent, TEMPO_WAIT_MESSAGES) == 0) {
            returns++;
            uint64_t now = tempo_now_ns();
            SDL_Event e;
            while (SDL_PollEvent(&e))
                if (in != NULL)
                    tempo_input_handle_sdl(in, &e, now);
        }
    }
    return returns;
}

/* ---- tempo_video_prepare --------------------------------------------------- */

static void prepare_keeps_the_games_libdecor_choice(void)
{
    /* Runs anywhere, before video: only hints are looked at (plus one
     * roundtrip to a compositor when SDL would use wayland). */
    const char *env = SDL_getenv(HINT_ALLOW_LIBDECOR);
    SDL_SetHint(HINT_ALLOW_LIBDECOR, "1");
    tempo_video_prepare();
    CHECK_STR_EQ(SDL_GetHint(HINT_ALLOW_LIBDECOR), env != NULL ? env : "1");
    SDL_SetHint(HINT_ALLOW_LIBDECOR, NULL);
    tempo_video_prepare();
    /* Not chosen: Tempo's answer is off (the player's environment wins). */
    CHECK_STR_EQ(SDL_GetHint(HINT_ALLOW_LIBDECOR), env != NULL ? env : "0");
}

static void compositor_without_seat_is_refused_before_video_init(void)
{
    const char *noseat = SDL_getenv("TEMPO_TEST_WAYLAND_NOSEAT");
    if (noseat == NULL || *noseat == '\0') {
        skip_or_fail("TEMPO_TEST_WAYLAND_NOSEAT does not name a seatless compositor's socket");
        return;
    }
    CHECK(video_state == 0); /* SDL video must not be up yet: it would crash */
    char *saved = SDL_strdup(SDL_getenv("WAYLAND_DISPLAY") ? SDL_getenv("WAYLAND_DISPLAY") : "");
    /* SDL_setenv, not setenv: the check connects through libwayland, which
     * reads the C library's environment, and names the socket from
     * SDL_getenv. On SDL2 the two are one; SDL3 (under sdl2-compat) reads
     * its own copy of the environment, taken at its first use
     * (SDL_GetEnvironment, SDL_getenv.c), which setenv() does not reach,
     * so the refusal named the seated compositor (WAYLAND_DISPLAY=
     * wayland-tempo) after checking the seatless one. SDL_setenv sets both
     * copies (SDL3's SDL_setenv_unsafe). */
    SDL_setenv("WAYLAND_DISPLAY", noseat, 1);
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "wayland");
    int rc = tempo_video_prepare();
    const char *err = tempo_get_error();
    tt_note("seatless %s: %s: %s", noseat, tempo_errname(rc), err);
    CHECK_EQ_INT(rc, TEMPO_ENOTSUP);
    CHECK(strstr(err, "wl_seat") != NULL);
    CHECK(strstr(err, noseat) != NULL);
    /* The same call with the compositor that has a seat says yes. */
    if (*saved != '\0') {
        SDL_setenv("WAYLAND_DISPLAY", saved, 1);
        rc = tempo_video_prepare();
        CHECK_EQ_INT(rc, 0);
    } else {
        unsetenv("WAYLAND_DISPLAY"); /* SDL2 has no SDL_unsetenv: SDL3's copy keeps the name */
    }
    SDL_SetHint(SDL_HINT_VIDEODRIVER, NULL);
    SDL_free(saved);
}

/* ---- The wait route -------------------------------------------------------- */

static uint64_t own_switches(void)
{
    uint64_t n;
    if (tt_thread_switches(&n))
        return n;
    tempo_usage u;
    tempo_process_usage(&u);
    return u.voluntary_switches;
}

static void wait_takes_the_wayland_fd_route_and_idles(void)
{
    if (!need_wayland())
        return;
    SDL_Window *win = SDL_CreateWindow("tempo-wayland-idle", 0, 0, 320, 240, SDL_WINDOW_SHOWN);
    CHECK(win != NULL);
    if (win == NULL)
        return;
    pump_for(NULL, 500 * MS); /* map, configure, focus */
    uint64_t sw0 = own_switches(), t0 = tempo_now_ns();
    int returns = pump_for(NULL, 1000 * MS);
    double per_s = (double)(own_switches() - sw0) / ((double)since(t0) / 1e9);
    tt_note("idle: %.0f wake-ups/s, %d message returns, route %s", per_s, returns, tempo_wait_route());
    const char *forced = SDL_getenv("TEMPO_SDL_WAIT_ROUTE");
    bool sdl_route = forced != NULL && SDL_strcmp(forced, "sdl") == 0;
    CHECK_STR_EQ(tempo_wait_route(), sdl_route ? "sdl-events" : "wayland-fd+eventfd");
    CHECK_LE_INT(returns, 2);
    CHECK_LE_DBL(per_s, 20.0);
    SDL_DestroyWindow(win);
    pump_for(NULL, 100 * MS);
}

/* ---- Input through the compositor's seat ----------------------------------- */

typedef struct sender {
    tempo_handle *focused; /* set once SDL reports the keyboard focus */
    tempo_handle *done;    /* set once every expected event arrived */
    tempo_handle *pointer; /* set once SDL reports the pointer over the window */
    _Atomic uint64_t started_ns;
    int rc;
    _Atomic int attempts;
} sender;

/* [xdotool thread] weston's x11 backend turns X input on its output window
 * into its seat's input; the fullscreen SDL window covers the output, so
 * output and window coordinates agree. */
static int send_input(void *p)
{
    sender *s = p;
    if (tempo_wait(&s->focused, 1, 30000 * MS, 0) != 0)
        return -1;
    /* The pointer focus first, like the keyboard's: the surface gets
     * wl_pointer.enter only from a motion over it, and SDL may report the
     * burst's first motion as that enter (no motion event). Wiggle until
     * SDL says the pointer is in (at most ~5 s). */
    for (int i = 0; i < 50; i++) {
        char cmd[160];
        snprintf(cmd, sizeof cmd,
                 "xdotool search --class 'Weston Compositor' mousemove --window %%1 %d 120 >/dev/null 2>&1",
                 100 + 5 * (i % 20));
        if (system(cmd) != 0 || tempo_wait(&s->pointer, 1, 100 * MS, 0) == 0)
            break;
    }
    atomic_store(&s->started_ns, tempo_now_ns());
    /* Two moves, (40, 20) apart: a Wayland client is not told where its
     * window is (weston may not make it fullscreen at the origin), so the
     * checks are the displacement and the click at the pointer. Once
     * more if something did not arrive within 10 s (a compositor's focus
     * hand-over lost on a loaded machine; input that never reaches Tempo
     * fails both tries). */
    for (int i = 0; i < 2; i++) {
        atomic_fetch_add(&s->attempts, 1);
        s->rc = system("xdotool search --sync --class 'Weston Compositor' windowfocus --sync "
                       "mousemove --window %1 140 130 sleep 0.1 mousemove --window %1 180 150 sleep 0.1 click 3 sleep 0.1 click 4 sleep 0.1 "
                       "keydown x sleep 0.1 keyup x >/dev/null 2>&1");
        if (s->rc != 0 || tempo_wait(&s->done, 1, 10000 * MS, 0) == 0)
            break;
    }
    return s->rc;
}

static void xdotool_input_reaches_tempo_events(void)
{
    if (!need_wayland())
        return;
    if (system("xdotool --version >/dev/null 2>&1") != 0 || SDL_getenv("DISPLAY") == NULL) {
        skip_or_fail("needs xdotool and weston's X server (DISPLAY)");
        return;
    }
    SDL_Window *win = SDL_CreateWindow("tempo-wayland-input", 0, 0, 320, 240,
                                       SDL_WINDOW_SHOWN | SDL_WINDOW_FULLSCREEN_DESKTOP);
    CHECK(win != NULL);
    if (win == NULL)
        return;
    /* Something must be drawn for weston to map the surface and focus it. */
    SDL_Renderer *r = SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    CHECK(r != NULL);
    tempo_input *in = tempo_input_create(NULL);
    CHECK(in != NULL);
    sender s = {.focused = tempo_event_create(true, false), .done = tempo_event_create(true, false),
                .pointer = tempo_event_create(true, false)};
    SDL_Thread *th = SDL_CreateThread(send_input, "xdotool", &s);
    bool key_down = false, key_up = false, moved = false, rdown = false, rup = false, wheel = false;
    bool have_motion = false;
    int mx = -1, my = -1; /* the last motion's position in the window */
    int wakes = 0, events = 0, presents = 0;
    uint64_t last_time = 0;
    uint64_t t0 = tempo_now_ns();
    /* 30 s: only reached when input is lost. */
    while (!(key_down && key_up && moved && rdown && rup && wheel) && since(t0) < 30000 * MS) {
        if (presents < 3) {
            SDL_RenderClear(r);
            SDL_RenderPresent(r);
            presents++;
        }
        if (SDL_GetKeyboardFocus() == win)
            tempo_event_set(s.focused);
        if (SDL_GetMouseFocus() == win)
            tempo_event_set(s.pointer);
        int rc = tempo_wait(NULL, 0, presents < 3 ? 20 * MS : 200 * MS, TEMPO_WAIT_MESSAGES);
        if (rc == TEMPO_ETIMEDOUT)
            continue;
        if (rc != 0) {
            tt_note("tempo_wait: %s", tempo_errname(rc));
            break;
        }
        uint64_t woke = tempo_now_ns();
        bool sending = atomic_load(&s.started_ns) != 0;
        wakes += sending;
        SDL_Event e;
        while (SDL_PollEvent(&e))
            tempo_input_handle_sdl(in, &e, woke);
        tempo_input_event ev;
        while (tempo_input_poll(in, &ev) > 0) {
            if (!sending)
                continue; /* the pointer entering the new surface, say */
            events++;
            CHECK_EQ_U64(ev.time_ns, woke);
            CHECK_GE_U64(ev.time_ns, last_time);
            last_time = ev.time_ns;
            switch (ev.type) {
            case TEMPO_INPUT_KEY:
                if (ev.u.key.scancode == SDL_SCANCODE_X) {
                    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_KEYBOARD);
                    key_down |= ev.u.key.down == 1;
                    key_up |= ev.u.key.down == 0 && key_down;
                }
                break;
            case TEMPO_INPUT_MOUSE_MOTION:
                if (have_motion && ev.u.motion.x - mx == 40 && ev.u.motion.y - my == 20)
                    moved = true;
                mx = (int)ev.u.motion.x;
                my = (int)ev.u.motion.y;
                have_motion = true;
                break;
            case TEMPO_INPUT_MOUSE_BUTTON:
                if (ev.u.button.button == SDL_BUTTON_RIGHT) {
                    CHECK_EQ_INT(ev.u.button.x, mx); /* where the pointer went */
                    CHECK_EQ_INT(ev.u.button.y, my);
                    rdown |= ev.u.button.down == 1;
                    rup |= ev.u.button.down == 0 && rdown;
                }
                break;
            case TEMPO_INPUT_MOUSE_WHEEL:
                CHECK_GE_INT(ev.u.wheel.y, 1); /* away from the user */
                wheel = true;
                break;
            default:
                break;
            }
        }
    }
    tempo_event_set(s.focused); /* never leave the thread waiting */
    tempo_event_set(s.done);
    tempo_event_set(s.pointer);
    SDL_WaitThread(th, NULL);
    tempo_event_destroy(s.pointer);
    tempo_event_destroy(s.focused);
    tempo_event_destroy(s.done);
    if (!(key_down && key_up && moved && rdown && rup && wheel) || atomic_load(&s.attempts) > 1)
        tt_note("xdotool bursts sent: %d; seen: key down %d up %d, moved %d, right %d/%d, wheel %d",
                atomic_load(&s.attempts), key_down, key_up, moved, rdown, rup, wheel);
    CHECK_EQ_INT(s.rc, 0);
    CHECK(moved);
    CHECK(rdown);
    CHECK(rup);
    CHECK(wheel);
    CHECK(key_down);
    CHECK(key_up);
    tt_note("%d events in %d message wake-ups while xdotool ran, route %s", events, wakes,
            tempo_wait_route());
    /* Woken by the input, not by polling: bounded by the bursts xdotool
     * sends (Wayland adds frame/enter/modifier events to each). */
    CHECK_LE_INT(wakes, 60);
    tempo_input_destroy(in);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    pump_for(NULL, 100 * MS);
}

/* ---- Windows re-created (SDL's libdecor crash) ----------------------------- */

static void windows_destroyed_and_recreated_do_not_crash(void)
{
    if (!need_wayland())
        return;
    const char *hint = SDL_GetHint(HINT_ALLOW_LIBDECOR);
    tt_note("%s=%s", HINT_ALLOW_LIBDECOR, hint ? hint : "(unset)");
    /* With libdecor (the hint "1") SDL 2.26.5 segfaults here, in the pump of
     * the second or third window: this program then ends without its
     * summary line, which the harness counts as a failure. */
    for (int i = 0; i < 6; i++) {
        SDL_Window *win = SDL_CreateWindow("tempo-wayland-recreate", 0, 0, 320, 240, SDL_WINDOW_SHOWN);
        CHECK(win != NULL);
        if (win == NULL)
            return;
        SDL_Renderer *r = SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC);
        CHECK(r != NULL);
        for (int f = 0; r != NULL && f < 10; f++) {
            SDL_SetRenderDrawColor(r, (Uint8)(40 * i), 80, 160, 255);
            SDL_RenderClear(r);
            SDL_RenderPresent(r);
            pump_for(NULL, 5 * MS);
        }
        if (r != NULL)
            SDL_DestroyRenderer(r);
        SDL_DestroyWindow(win);
        pump_for(NULL, 20 * MS);
    }
    CHECK(true); /* reaching here is the point */
}

/* ---- Minimized (issue 23 item 2: the loop-side fix) ------------------------ */

/* A minimized window ends in one of two states, depending on the SDL:
 *  - SDL 2.26.5 says nothing (xdg-shell has no minimized state to read back,
 *    and its Wayland_MinimizeWindow sends no event): weston stops the frame
 *    callbacks, the presents are withheld, and the loop keeps its update
 *    rate or takes the hidden-pause, probing every 500 ms.
 *  - SDL3 under sdl2-compat sends SDL_WINDOWEVENT_MINIMIZED at once
 *    (Wayland_MinimizeWindow, SDL_waylandwindow.c) and keeps the window
 *    minimized until a configure carries the activated state again: the
 *    loop pauses by choice and waits with no timeout, so nothing wakes it
 *    until the window comes back.
 * The test bounds its own waits with a watched timer (a loop that stays
 * paused is a verdict, not a hang), then restores the window the way a user
 * does on weston, and the loop must run at full rate again.
 *
 * On SDL3 that restore brings SDL_WINDOWEVENT_FOCUS_GAINED and nothing
 * else: the window stays SDL_WINDOW_MINIMIZED and no RESTORED comes.
 * weston sends a configure only when the state it wants differs from the
 * last configure not yet acknowledged, or else from the state the client
 * last committed (libweston/desktop/xdg-shell.c,
 * weston_desktop_xdg_toplevel_state_compare). The paused loop acks the
 * configures but commits nothing, so weston still has the window as
 * activated, and activating it again sends nothing. A loop that ends the
 * minimized pause only on RESTORED stays paused in a visible, focused
 * window: the note says which events came. */

typedef struct mini {
    uint64_t updates, renders;
    int hold_ms; /* the next update holds the loop this long (a starved process), once */
    bool held;   /* it did */
    Uint32 window_id;
    bool restored, focused; /* SDL said so, since the restore began */
} mini;

static void count_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    mini *m = user;
    m->updates++;
    if (m->hold_ms > 0) {
        SDL_Delay((Uint32)m->hold_ms);
        m->hold_ms = 0;
        m->held = true;
    }
}

static void render_clear(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    ((mini *)user)->renders++;
}

static void note_window_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    mini *m = user;
    if (e->type != SDL_WINDOWEVENT || e->window.windowID != m->window_id)
        return;
    m->restored |= e->window.event == SDL_WINDOWEVENT_RESTORED;
    m->focused |= e->window.event == SDL_WINDOWEVENT_FOCUS_GAINED;
}

static void bound_reached(tempo_loop *loop, tempo_handle *handle, void *user)
{
    (void)loop;
    (void)handle;
    (void)user;
}

/* Runs the loop's frames for `ns`, or until `until(loop, ctx)` holds (asked
 * before each frame and after the last; NULL: never). `bound`, a timer the
 * loop watches, fires at the end: a loop paused with no timeout wakes for
 * it, so no frame outlives the span. */
static uint64_t run_loop_for(tempo_loop *loop, tempo_handle *bound, uint64_t ns, bool (*until)(tempo_loop *, void *),
                             void *ctx)
{
    uint64_t t0 = tempo_now_ns();
    tempo_timer_set(bound, t0 + ns, 0);
    while (!(until != NULL && until(loop, ctx)) && since(t0) < ns)
        tempo_loop_frame(loop);
    tempo_timer_cancel(bound);
    return since(t0);
}

static bool loop_running(tempo_loop *loop, void *ctx)
{
    (void)ctx;
    return !tempo_loop_is_paused(loop);
}

/* The loop's first pause in a span: when, and after how many renders. */
typedef struct first_pause {
    const mini *m;
    uint64_t t0, r0; /* the span's start and the renders then */
    bool seen;
    uint64_t at_ns, renders;
} first_pause;

/* run_loop_for's `until` that never ends the span: notes the first pause. */
static bool note_first_pause(tempo_loop *loop, void *ctx)
{
    first_pause *fp = ctx;
    if (!fp->seen && tempo_loop_is_paused(loop)) {
        fp->seen = true;
        fp->at_ns = since(fp->t0);
        fp->renders = fp->m->renders - fp->r0;
    }
    return false;
}

/* Restores a minimized window as a user does on weston: its window
 * switcher (super+Tab, desktop-shell's switcher_binding) shows the
 * minimized windows too, and activates the one chosen when super is
 * released. Returns false when xdotool failed. */
static bool restore_through_the_switcher(mini *m)
{
    m->restored = m->focused = false;
    return system("xdotool search --sync --class 'Weston Compositor' windowfocus --sync key super+Tab "
                  ">/dev/null 2>&1") == 0;
}

/* Renders between the minimize and the withheld pause: two long presents
 * (WITHHELD_RUN) on weston, with room for a compositor that shows a few
 * more frames before it withholds them. */
#define PAUSE_WITHIN_RENDERS 10

/* Seconds after a restore in which one whole second must keep 40 updates/s. */
#define RESTORED_SECONDS 5

/* Minimizes the window after a second and runs the loop 3 s: it must keep
 * its update rate or pause by choice (the withheld presents), then resume
 * on a restore. `hold_ms`: the first update after the minimize, and the
 * first after the restore, hold the loop that long, as a starved process
 * is held. */
static void minimized_case(int hold_ms)
{
    if (!need_wayland())
        return;
    const char *mode = SDL_getenv("TEMPO_WAYLAND_MINIMIZE");
    const bool enforce = mode != NULL && SDL_strcmp(mode, "enforce") == 0;
    SDL_Window *win = SDL_CreateWindow("tempo-wayland-minimize", 0, 0, 320, 240, SDL_WINDOW_SHOWN);
    CHECK(win != NULL);
    if (win == NULL)
        return;
    SDL_Renderer *r = SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC);
    CHECK(r != NULL);
    mini m = {.window_id = SDL_GetWindowID(win)};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .update = count_update, .render = render_clear, .event = note_window_event,
        .user = &m, .window = win, .renderer = r});
    tempo_handle *bound = tempo_timer_create(false);
    CHECK(loop != NULL);
    if (loop == NULL || r == NULL || bound == NULL) {
        tempo_loop_destroy(loop);
        tempo_timer_destroy(bound);
        if (r != NULL)
            SDL_DestroyRenderer(r);
        SDL_DestroyWindow(win);
        return;
    }
    CHECK_EQ_INT(tempo_loop_watch(loop, bound, bound_reached, NULL), 0);
    run_loop_for(loop, bound, 1000 * MS, NULL, NULL);
    SDL_MinimizeWindow(win);
    m.hold_ms = hold_ms;
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    uint64_t u0 = m.updates, drop0 = st->total.dropped_updates, paused0 = st->total.paused_ns;
    uint64_t p0 = st->total.present_ns;
    first_pause fp = {.m = &m, .t0 = tempo_now_ns(), .r0 = m.renders};
    uint64_t span = run_loop_for(loop, bound, 3000 * MS, note_first_pause, &fp);
    m.hold_ms = 0; /* a loop that paused before any update (SDL3 says minimized) was not held */
    st = tempo_loop_get_stats(loop);
    double ups = (double)(m.updates - u0) / ((double)span / 1e9);
    uint64_t dropped = st->total.dropped_updates - drop0;
    uint64_t paused = st->total.paused_ns - paused0;
    double present_ms = (double)(st->total.present_ns - p0) / 1e6;
    bool paused_at_end = tempo_loop_is_paused(loop);
    tt_note("minimized 3 s: %.1f updates/s, %llu dropped, paused %.0f ms (%s at the end), blocked in presents "
            "%.0f ms, window %sminimized for SDL",
            ups, (unsigned long long)dropped, (double)paused / 1e6, paused_at_end ? "paused" : "running",
            present_ms, (SDL_GetWindowFlags(win) & SDL_WINDOW_MINIMIZED) ? "" : "not ");
    /* Kept pace whenever it was not paused by choice (two thirds of 60/s
     * over the time it ran, none dropped), or paused for most of the span.
     * Judged over the time it ran: the loop may pause by choice for part of
     * the span and run the rest (one trixie CI row under a loaded machine:
     * paused 1102 ms, then 62 updates/s in the other 1.9 s, 39.3/s over all
     * 3 s, which the old bound of 40/s over the whole span failed). A loop
     * that crawls while it runs (presents blocking it) still fails. */
    uint64_t ran = span > paused ? span - paused : 0;
    double ups_running = ran > 0 ? (double)(m.updates - u0) / ((double)ran / 1e9) : 0.0;
    /* Paused by choice: for most of the span, or (a process held before
     * it could tell, as a loaded machine holds it) within a few renders
     * of the minimize and from then on to the end: the withheld pause is
     * two long presents (loop_present.c), counted in presents, not time. */
    bool paused_soon = fp.seen && fp.renders <= PAUSE_WITHIN_RENDERS && paused_at_end &&
                       paused * 10 >= (span > fp.at_ns ? span - fp.at_ns : 0) * 9;
    bool paused_by_choice = paused >= span * 2 / 3 || paused_soon;
    bool kept = dropped == 0 && ups_running >= 40.0;
    tt_note("minimized: %.1f updates/s over the %.0f ms it ran; first paused %.0f ms and %llu renders after the "
            "minimize%s",
            ups_running, (double)ran / 1e6, (double)fp.at_ns / 1e6, (unsigned long long)fp.renders,
            hold_ms == 0 ? "" : m.held ? " (held)" : " (no update to hold before the pause)");

    /* Restored: a pause must end, and the update rate come back. */
    bool restored = false;
    double ups_after = 0;
    const char *no_restore = NULL;
    if (system("xdotool --version >/dev/null 2>&1") != 0 || SDL_getenv("DISPLAY") == NULL) {
        no_restore = "needs xdotool and weston's X server (DISPLAY) to restore the window";
    } else if (!restore_through_the_switcher(&m)) {
        no_restore = "xdotool could not press super+Tab in weston's window";
    } else {
        uint64_t waited = run_loop_for(loop, bound, 5000 * MS, loop_running, NULL);
        /* The rate must come back for a whole second: the first of up to
         * RESTORED_SECONDS seconds that does, so one second a loaded
         * machine starves is not the verdict; a loop that crawls (presents
         * blocking it) or stays paused fails them all. */
        m.hold_ms = hold_ms;
        m.held = false;
        int second = 0;
        while (!restored && second < RESTORED_SECONDS) {
            uint64_t u1 = m.updates;
            uint64_t spent = run_loop_for(loop, bound, 1000 * MS, NULL, NULL);
            ups_after = (double)(m.updates - u1) / ((double)spent / 1e9);
            restored = !tempo_loop_is_paused(loop) && ups_after >= 40.0;
            second++;
        }
        m.hold_ms = 0;
        tt_note("restored: %s after %.0f ms, then %.1f updates/s in second %d%s; SDL sent%s%s%s, window "
                "%sminimized for SDL",
                tempo_loop_is_paused(loop) ? "still paused" : "running", (double)waited / 1e6, ups_after, second,
                hold_ms == 0 ? "" : m.held ? " (held)" : " (no update to hold)",
                m.restored ? " RESTORED" : "", m.focused ? " FOCUS_GAINED" : "",
                m.restored || m.focused ? "" : " neither RESTORED nor FOCUS_GAINED",
                (SDL_GetWindowFlags(win) & SDL_WINDOW_MINIMIZED) ? "" : "not ");
    }
    tempo_loop_unwatch(loop, bound);
    tempo_timer_destroy(bound);
    tempo_loop_destroy(loop);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    pump_for(NULL, 100 * MS);
    if (enforce) {
        CHECK(kept || paused_by_choice);
        if (no_restore == NULL)
            CHECK(restored);
        else if (!tt_failed())
            skip_or_fail(no_restore);
        return;
    }
    if (!(kept || paused_by_choice) || (no_restore == NULL && !restored)) {
        static char why[240];
        snprintf(why, sizeof why,
                 "not enforced (TEMPO_WAYLAND_MINIMIZE=enforce makes it a failure): minimized %.1f updates/s, "
                 "%llu dropped, paused %.0f%% of the time; after the restore %s, %.1f updates/s",
                 ups, (unsigned long long)dropped, 100.0 * (double)paused / (double)span,
                 no_restore != NULL ? "not tried" : restored ? "running" : "still paused", ups_after);
        tt_skip(why);
    }
}

static void minimized_window_keeps_update_rate(void)
{
    minimized_case(0);
}

/* The same with the loop held 1 s right after the minimize and right
 * after the restore: the pause comes late in time, not in presents, and
 * the first second after the restore runs few updates. (Where SDL says
 * minimized at once, as SDL3 does on weston, the loop pauses before any
 * update: nothing is held then, and the note says so.) */
static void minimized_window_held_at_minimize_and_restore(void)
{
    minimized_case(1000);
}

static const tt_case cases[] = {
    /* These two before SDL video is up. */
    TT_CASE(prepare_keeps_the_games_libdecor_choice),
    TT_CASE(compositor_without_seat_is_refused_before_video_init),
    TT_CASE(wait_takes_the_wayland_fd_route_and_idles),
    TT_CASE(xdotool_input_reaches_tempo_events),
    TT_CASE(windows_destroyed_and_recreated_do_not_crash),
    TT_CASE(minimized_window_keeps_update_rate),
    TT_CASE(minimized_window_held_at_minimize_and_restore),
};

int main(int argc, char **argv)
{
    SDL_SetHint(SDL_HINT_MOUSE_FOCUS_CLICKTHROUGH, "1");
    printf("# backend %s\n", tempo_backend_name());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
