/* A window that is shown never pauses itself (issue 39). Presents that
 * block past the withheld bound (two in a row > max(4 periods, 50 ms)) may
 * lower the render rate, but stop the updates only when the window system
 * says the window is not shown, or says nothing (Wayland, where withheld
 * frame callbacks are the only sign of a minimized or covered window).
 *
 * On the fake clock, one case each:
 *  (a) slow presents on a shown window (the reproduction: two
 *      120 ms presents every 60th frame): no pause, on_pause never called,
 *      updates at their rate, renders barely lower;
 *  (b) the window system says hidden (its word, without an SDL event, as
 *      X11's _NET_WM_STATE_HIDDEN before SDL pumps it; and SDL's MINIMIZED
 *      event): the hidden-pause, as before; shown again: the updates resume
 *      while the presents are still withheld;
 *  (c) nothing but the presents tells (Wayland): withheld presents are the
 *      hidden-pause, still; the window system's word (keyboard focus) ends
 *      it before the presents come back;
 *  (d) a shown window whose presents recover is back on its pacing (vsync,
 *      or a measured timer that is measured again) at the next probe.
 * And what the window system says of a real window (plat_window_visibility:
 * SDL's flags on every driver, the X server's word on x11). The stand-in
 * window system of (b) and (c) replaces plat_window_visibility in the loop
 * (loop_internal.h, L->pres.window_visibility); (a) and (d) use the real one. */
#include <stdio.h>
#include <string.h>

#include <SDL.h>
#if defined(TEMPO_HAVE_X11) && defined(SDL_VIDEO_DRIVER_X11)
#include <SDL_syswm.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#define TEST_X11 1
#endif

#include "harness.h"
#include "loop_internal.h"
#include "tempo/tempo.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)
#define P (S / 60)

/* ---- A game on a fake clock, with a present that can be slow ---------------- */

typedef struct vgame {
    tempo_fake_clock *fc;
    tempo_loop *loop;
    uint64_t updates, renders, presents;
    int pause_calls, resume_calls;
    bool vsync;                 /* the present blocks until the next 60 Hz vblank; else it
                                   returns after 2 ms (SDL_RenderPresent + 2 ms of sleep) */
    int slow_every;             /* presents n and n+1 take slow_ns, n a multiple of it */
    uint64_t slow_at;           /* or the two presents from slow_at on (0: none) */
    uint64_t slow_ns;
    int slow_left;
    uint64_t slow_end_ns;       /* when the last slow present returned */
    uint64_t withheld_from, withheld_to; /* presents block 167 ms in [from, to) */
} vgame;

static void v_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    ((vgame *)user)->updates++;
}

static void v_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    vgame *g = user;
    g->renders++;
    tempo_fake_clock_advance(g->fc, 1 * MS);
}

static void v_pause(tempo_loop *loop, bool paused, void *user)
{
    (void)loop;
    vgame *g = user;
    if (paused)
        g->pause_calls++;
    else
        g->resume_calls++;
}

static void v_present(tempo_loop *loop, void *user)
{
    (void)loop;
    vgame *g = user;
    uint64_t now = tempo_fake_clock_now(g->fc);
    g->presents++;
    if (now >= g->withheld_from && now < g->withheld_to) {
        tempo_fake_clock_advance(g->fc, 167 * MS); /* no frame callback: the compositor's timeout */
        return;
    }
    if ((g->slow_every != 0 && g->presents > 1 &&
         (g->presents % (uint64_t)g->slow_every == 0 || g->presents % (uint64_t)g->slow_every == 1)) ||
        (g->slow_at != 0 && now >= g->slow_at && g->slow_left > 0)) {
        if (g->slow_at != 0 && now >= g->slow_at)
            g->slow_left--;
        tempo_fake_clock_advance(g->fc, g->slow_ns); /* a slow blit on a loaded machine */
        g->slow_end_ns = tempo_fake_clock_now(g->fc);
        return;
    }
    if (!g->vsync) {
        tempo_fake_clock_advance(g->fc, 2 * MS);
        return;
    }
    uint64_t vb0 = T0 + 5 * MS, k = now <= vb0 ? 0 : (now - vb0 + P - 1) / P;
    tempo_fake_clock_set(g->fc, vb0 + k * P + 30 * US);
}

/* An SDL event waiting wakes the loop's wait at once, as the OS would. */
static uint64_t v_wait(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    (void)user;
    if (SDL_PeepEvents(NULL, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) > 0)
        return now_ns;
    return deadline_ns == TEMPO_INFINITE ? now_ns : deadline_ns;
}

static void v_init(vgame *g, tempo_loop_desc d)
{
    memset(g, 0, sizeof *g);
    g->fc = tempo_fake_clock_create(T0);
    tempo_fake_clock_on_wait(g->fc, v_wait, g);
    d.clock = tempo_fake_clock_get(g->fc);
    d.update = v_update;
    d.render = v_render;
    d.present = v_present;
    d.on_pause = v_pause;
    d.user = g;
    g->loop = tempo_loop_create(&d);
}

static void v_done(vgame *g)
{
    tempo_loop_destroy(g->loop);
    tempo_fake_clock_destroy(g->fc);
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

/* One frame. A loop paused by an SDL event waits with no deadline, which
 * the fake clock leaves where it is: the time then moves 5 ms by hand. */
static void v_frame(vgame *g)
{
    uint64_t before = tempo_fake_clock_now(g->fc);
    CHECK_EQ_INT(tempo_loop_frame(g->loop), 0);
    if (tempo_fake_clock_now(g->fc) == before)
        tempo_fake_clock_advance(g->fc, 5 * MS);
}

static bool v_paused(const vgame *g)
{
    return tempo_loop_is_paused(g->loop);
}

/* The stand-in window system of (b) and (c). */
static plat_visibility said;

static plat_visibility stand_in(SDL_Window *window)
{
    (void)window;
    return said;
}

static void push_window_event(Uint8 what)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = what;
    SDL_PushEvent(&e);
}

/* ---- (a) Slow presents on a shown window ------------------------------------ */

/* The reproduction on the fake clock: a 60 Hz loop, default
 * descriptor, a present that returns after 2 ms (SDL's software renderer,
 * then a 2 ms sleep) or one that blocks on a 60 Hz vblank, and two 120 ms
 * presents every 60th frame, for 6 s. Before: a pause at each pair
 * (on_pause(true), ~0.5 s without updates), 3 pauses and 48.3 updates/s
 * on the real window of the issue. */
static void slow_presents_on_a_shown_window_never_pause(void)
{
    for (int vsync = 0; vsync < 2; vsync++) {
        vgame g;
        v_init(&g, (tempo_loop_desc){0});
        g.vsync = vsync;
        g.slow_every = 60;
        g.slow_ns = 120 * MS;
        uint64_t paused_ns = 0;
        /* 6 s, and on to the end of a pair of slow presents caught in
         * flight (the updates it owes run when the presents return). */
        while (tempo_fake_clock_now(g.fc) < T0 + 6 * S ||
               tempo_loop_get_pacing(g.loop) == TEMPO_LOOP_PACING_WITHHELD) {
            uint64_t t = tempo_fake_clock_now(g.fc);
            v_frame(&g);
            if (v_paused(&g))
                paused_ns += tempo_fake_clock_now(g.fc) - t;
        }
        v_frame(&g);
        const tempo_loop_stats *st = tempo_loop_get_stats(g.loop);
        double secs = (double)(tempo_fake_clock_now(g.fc) - T0) / 1e9;
        tt_note("%s present, two 120 ms every 60th: %d pauses, %.2f s paused, %.1f updates/s, %.1f renders/s, "
                "%llu withheld presents, %.2f s withheld, pacing %s; capped %llu, stalls %llu, slowdown %.3f s",
                vsync ? "60 Hz vsync" : "2 ms", g.pause_calls, (double)paused_ns / 1e9, (double)g.updates / secs,
                (double)g.renders / secs, (unsigned long long)st->total.withheld_presents,
                (double)st->total.withheld_ns / 1e9, tempo_loop_pacing_name(st->pacing),
                (unsigned long long)st->total.capped_frames, (unsigned long long)st->total.stalls,
                (double)st->total.slowdown_ns / 1e9);
        CHECK_EQ_INT(g.pause_calls, 0);
        CHECK_EQ_U64(paused_ns, 0);
        /* The updates keep their rate: 60/s over the 6 s, the time spent in
         * slow presents caught up (withheld: no catch-up cap). */
        CHECK_GE_DBL((double)g.updates / secs, 59.5);
        CHECK_LE_DBL((double)g.updates / secs, 60.5);
        /* The pictures: each pair of slow presents takes 240 ms of every
         * second, which leaves ~45 frames of 60; the probe after it comes a
         * period later, so at most a frame more is lost. */
        CHECK_GE_DBL((double)g.renders / secs, 43.0);
        CHECK(st->total.withheld_presents >= 10); /* the pairs were seen as withheld */
        v_done(&g);
    }
}

/* ---- (b) The window system says hidden ------------------------------------- */

static void hidden_by_the_window_system_pauses(void)
{
    vgame g;
    v_init(&g, (tempo_loop_desc){0});
    g.loop->pres.window_visibility = stand_in;
    said = PLAT_VISIBILITY_SHOWN;
    g.vsync = true;
    g.withheld_from = T0 + 1 * S;
    g.withheld_to = T0 + 7 * S;
    /* 1-2 s: withheld presents on a shown window: the updates go on. */
    while (tempo_fake_clock_now(g.fc) < T0 + 2 * S)
        v_frame(&g);
    CHECK_EQ_INT(tempo_loop_get_pacing(g.loop), TEMPO_LOOP_PACING_WITHHELD);
    CHECK(!v_paused(&g));
    CHECK_EQ_INT(g.pause_calls, 0);
    /* All 120 but for the game time the two long presents before the state
     * gave up at the debt cap (334 ms owed against max_gap's 250: at most
     * 84 ms, by the phase they start at). */
    uint64_t slowdown = tempo_loop_get_stats(g.loop)->total.slowdown_ns;
    CHECK_LE_U64(slowdown, 84 * MS);
    CHECK_GE_U64(g.updates + (slowdown + S / 120) / (S / 60), 2 * 60 - 2);
    /* 2 s: the window system says hidden, without an SDL event (the X
     * server's _NET_WM_STATE_HIDDEN before SDL pumped it): the next probe
     * (at most 500 ms and one withheld present later) pauses. */
    said = PLAT_VISIBILITY_HIDDEN;
    uint64_t hidden_at = tempo_fake_clock_now(g.fc);
    while (tempo_fake_clock_now(g.fc) < hidden_at + 1 * S && !v_paused(&g))
        v_frame(&g);
    uint64_t paused_ns = tempo_fake_clock_now(g.fc) - hidden_at;
    CHECK(v_paused(&g));
    /* The probe after it comes at most 500 ms after the return of the
     * withheld present in flight (167 ms), and blocks 167 ms itself. */
    CHECK_LE_U64(paused_ns, 500 * MS + 2 * 167 * MS + 2 * MS);
    CHECK_EQ_INT(g.pause_calls, 1);
    uint64_t u = g.updates;
    while (tempo_fake_clock_now(g.fc) < T0 + 4 * S)
        v_frame(&g);
    CHECK_EQ_U64(g.updates, u);
    /* 4 s: shown again, the presents still withheld: the next probe resumes
     * the updates. */
    said = PLAT_VISIBILITY_SHOWN;
    uint64_t shown_at = tempo_fake_clock_now(g.fc);
    while (tempo_fake_clock_now(g.fc) < shown_at + 1 * S && v_paused(&g))
        v_frame(&g);
    uint64_t resumed_ns = tempo_fake_clock_now(g.fc) - shown_at;
    CHECK(!v_paused(&g));
    CHECK_LE_U64(resumed_ns, 500 * MS + 2 * 167 * MS + 2 * MS);
    CHECK_EQ_INT(g.resume_calls, 1);
    /* 5 s: SDL's MINIMIZED event pauses at once, RESTORED resumes. */
    while (tempo_fake_clock_now(g.fc) < T0 + 5 * S)
        v_frame(&g);
    push_window_event(SDL_WINDOWEVENT_MINIMIZED);
    v_frame(&g);
    CHECK(v_paused(&g));
    CHECK_EQ_INT(g.pause_calls, 2);
    while (tempo_fake_clock_now(g.fc) < T0 + 5 * S + 500 * MS)
        v_frame(&g);
    push_window_event(SDL_WINDOWEVENT_RESTORED);
    v_frame(&g);
    CHECK(!v_paused(&g));
    CHECK_EQ_INT(g.resume_calls, 2);
    /* 7 s: the presents come back. */
    while (tempo_fake_clock_now(g.fc) < T0 + 8 * S)
        v_frame(&g);
    tt_note("paused %.3f s after the window system said hidden, resumed %.3f s after it said shown; "
            "pause calls %d, resume calls %d; pacing %s",
            (double)paused_ns / 1e9, (double)resumed_ns / 1e9, g.pause_calls,
            g.resume_calls, tempo_loop_pacing_name(tempo_loop_get_pacing(g.loop)));
    CHECK_EQ_INT(tempo_loop_get_pacing(g.loop), TEMPO_LOOP_PACING_VSYNC);
    CHECK(!v_paused(&g));
    v_done(&g);
}

/* ---- (c) Nothing but the presents tells (Wayland) ---------------------------- */

static void withheld_presents_pause_where_nothing_else_tells(void)
{
    for (int run = 0; run < 2; run++) {
        vgame g;
        v_init(&g, (tempo_loop_desc){.run_while_hidden = run});
        g.loop->pres.window_visibility = stand_in;
        said = PLAT_VISIBILITY_UNSAID; /* SDL 2.26 on Wayland, no keyboard focus */
        g.vsync = true;
        g.withheld_from = T0 + 1 * S;
        g.withheld_to = T0 + 5 * S;
        while (tempo_fake_clock_now(g.fc) < T0 + 1 * S + 400 * MS)
            v_frame(&g);
        CHECK_EQ_INT(tempo_loop_get_pacing(g.loop), TEMPO_LOOP_PACING_WITHHELD);
        CHECK_EQ_INT(v_paused(&g), !run);
        CHECK_EQ_INT(g.pause_calls, !run);
        /* Paused, the loop still probes every 500 ms (from the return of
         * the previous probe, which blocks 167 ms). */
        uint64_t u = g.updates, p = g.presents;
        while (tempo_fake_clock_now(g.fc) < T0 + 3 * S)
            v_frame(&g);
        uint64_t probes = g.presents - p;
        if (!run) {
            CHECK_EQ_U64(g.updates, u);
            CHECK_GE_U64(probes, 2);
            CHECK_LE_U64(probes, 3);
        } else {
            CHECK_GE_U64(g.updates - u, 96 - 2); /* 1.6 s at 60 Hz */
        }
        /* 3 s: the window gets the keyboard focus (a compositor gives none
         * to a window it does not show): the window system's word ends the
         * pause before the presents come back; FOCUS_GAINED probes at once. */
        said = PLAT_VISIBILITY_SHOWN;
        push_window_event(SDL_WINDOWEVENT_FOCUS_GAINED);
        uint64_t at = tempo_fake_clock_now(g.fc);
        while (tempo_fake_clock_now(g.fc) < T0 + 3 * S + 700 * MS && v_paused(&g))
            v_frame(&g);
        uint64_t resumed_ns = tempo_fake_clock_now(g.fc) - at;
        CHECK(!v_paused(&g));
        CHECK_LE_U64(resumed_ns, 200 * MS); /* the probe at once: one withheld present */
        CHECK_EQ_INT(g.resume_calls, !run);
        u = g.updates;
        while (tempo_fake_clock_now(g.fc) < T0 + 4 * S + 800 * MS)
            v_frame(&g);
        CHECK_EQ_INT(tempo_loop_get_pacing(g.loop), TEMPO_LOOP_PACING_WITHHELD);
        /* 5 s: the presents come back. The updates kept their rate from
         * the resume on. */
        while (tempo_fake_clock_now(g.fc) < T0 + 6 * S)
            v_frame(&g);
        CHECK_GE_U64(g.updates - u, (T0 + 6 * S - (at + resumed_ns)) * 60 / S - 2);
        tt_note("%s: %llu probes in 1.6 s, resumed %.3f s after the focus, pacing %s after the presents came back",
                run ? "run_while_hidden" : "the hidden-pause", (unsigned long long)probes, (double)resumed_ns / 1e9,
                tempo_loop_pacing_name(tempo_loop_get_pacing(g.loop)));
        CHECK_EQ_INT(tempo_loop_get_pacing(g.loop), TEMPO_LOOP_PACING_VSYNC);
        CHECK_EQ_INT(g.pause_calls, !run);
        v_done(&g);
    }
}

/* ---- (d) A shown window whose presents recover ------------------------------- */

static void recovered_presents_resume_the_pacing(void)
{
    for (int vsync = 1; vsync >= 0; vsync--) {
        vgame g;
        v_init(&g, (tempo_loop_desc){0});
        g.vsync = vsync;
        g.slow_at = T0 + 2 * S + 500 * MS;
        g.slow_left = 2;
        g.slow_ns = 120 * MS;
        tempo_loop_pacing before = TEMPO_LOOP_PACING_PROBING;
        while (tempo_fake_clock_now(g.fc) < g.slow_at) {
            v_frame(&g);
            before = tempo_loop_get_pacing(g.loop);
        }
        CHECK_EQ_INT(before, vsync ? TEMPO_LOOP_PACING_VSYNC : TEMPO_LOOP_PACING_TIMER);
        bool seen = false;
        uint64_t back_at = 0;
        while (tempo_fake_clock_now(g.fc) < T0 + 4 * S) {
            v_frame(&g);
            tempo_loop_pacing p = tempo_loop_get_pacing(g.loop);
            seen |= p == TEMPO_LOOP_PACING_WITHHELD;
            if (seen && back_at == 0 && p == before)
                back_at = tempo_fake_clock_now(g.fc);
        }
        CHECK(seen);
        CHECK(back_at != 0);
        uint64_t back_ns = back_at > g.slow_end_ns ? back_at - g.slow_end_ns : 0;
        /* The probe comes a period after the second slow present. */
        CHECK_LE_U64(back_ns, 2 * P + 2 * MS);
        uint64_t u = g.updates, r = g.renders, probes = tempo_loop_get_stats(g.loop)->total.probes;
        while (tempo_fake_clock_now(g.fc) < T0 + 12 * S)
            v_frame(&g);
        const tempo_loop_stats *st = tempo_loop_get_stats(g.loop);
        tt_note("%s: back %.3f s after the slow presents; then %.2f updates/s, %.2f renders/s, pacing %s, "
                "%llu measurements after; pause calls %d",
                vsync ? "vsync" : "timer", (double)back_ns / 1e9, (double)(g.updates - u) / 8,
                (double)(g.renders - r) / 8, tempo_loop_pacing_name(st->pacing),
                (unsigned long long)(st->total.probes - probes), g.pause_calls);
        CHECK_EQ_INT(g.pause_calls, 0);
        CHECK_EQ_INT(st->pacing, before);
        CHECK_GE_U64(g.updates - u, 8 * 60 - 1);
        CHECK_GE_U64(g.renders - r, 8 * 60 - 2);
        /* A timer that a measurement chose is measured again, as after any
         * verdict (before: the timer was taken as asked for, never again). */
        if (!vsync)
            CHECK_GE_U64(st->total.probes - probes, 1);
        v_done(&g);
    }
}

/* ---- What the window system says of a real window --------------------------- */

#if defined(TEST_X11)
/* Sets (or removes) _NET_WM_STATE_HIDDEN on the window, as a window
 * manager does when it minimizes it, and waits until the server has it. */
static void x11_set_hidden(SDL_Window *w, bool hidden)
{
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (SDL_GetWindowWMInfo(w, &info) != SDL_TRUE || info.subsystem != SDL_SYSWM_X11)
        return;
    Display *d = info.info.x11.display;
    Atom state = XInternAtom(d, "_NET_WM_STATE", False);
    Atom atom = XInternAtom(d, "_NET_WM_STATE_HIDDEN", False);
    if (hidden)
        XChangeProperty(d, info.info.x11.window, state, XA_ATOM, 32, PropModeReplace, (unsigned char *)&atom, 1);
    else
        XDeleteProperty(d, info.info.x11.window, state);
    XSync(d, False);
}
#endif

static void window_system_says_hidden(void)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        TT_SKIP("no video driver");
    const char *driver = SDL_GetCurrentVideoDriver();
    if (strcmp(driver, "wayland") == 0) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        TT_SKIP("wayland: test_wayland minimizes a window under weston");
    }
    SDL_Window *w = SDL_CreateWindow("test_loop_visible", 0, 0, 64, 64, 0);
    if (w == NULL) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        TT_SKIP("no window");
    }
    SDL_PumpEvents();
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    CHECK_EQ_INT(plat_window_visibility(NULL), PLAT_VISIBILITY_SHOWN);
    SDL_HideWindow(w);
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_HIDDEN);
    SDL_ShowWindow(w);
    SDL_PumpEvents();
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    bool x11 = false;
#if defined(TEST_X11)
    if (strcmp(driver, "x11") == 0) {
        /* The server's word before SDL hears of it: no pump in between. */
        x11 = true;
        x11_set_hidden(w, true);
        CHECK(!(SDL_GetWindowFlags(w) & SDL_WINDOW_MINIMIZED));
        CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_HIDDEN);
        x11_set_hidden(w, false);
        CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    }
#endif
    tt_note("driver %s%s", driver, x11 ? ", _NET_WM_STATE_HIDDEN read from the X server" : "");
    SDL_DestroyWindow(w);
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

static const tt_case cases[] = {
    TT_CASE(slow_presents_on_a_shown_window_never_pause),
    TT_CASE(hidden_by_the_window_system_pauses),
    TT_CASE(withheld_presents_pause_where_nothing_else_tells),
    TT_CASE(recovered_presents_resume_the_pacing),
    TT_CASE(window_system_says_hidden),
};

int main(int argc, char **argv)
{
    /* SDL's event queue (the loop reads it, the tests push); video only for
     * the real window of the last case. */
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n0 passed, 1 failed\n", SDL_GetError());
        return 1;
    }
    int rc = TT_MAIN(argc, argv, cases);
    SDL_Quit();
    return rc;
}
