/* The web backend's host loop (plat_host.h): tempo_loop_run() hands the
 * loop to the browser.
 *
 * A page's main thread must never block: while it runs, the browser neither
 * paints, nor delivers input, nor runs timers, and a tempo_loop_run() that
 * waited in a loop on it froze the page ("waiting 96.7 %", nothing painted).
 * So here the browser is the wait: plat_host_run() registers a frame
 * callback (emscripten_set_main_loop_arg with fps 0: requestAnimationFrame,
 * the page's vsync) and returns to the browser. Every animation frame runs
 * one display frame (calls->frame(display true): tempo_loop_display_frame);
 * the display is the vsync, so a wanted render happens there and only there
 * (the loop's own 60 Hz render slots would beat against the browser's
 * frames). Its wait is a poll (web_wait.c: timeouts are 0 on the main
 * thread): it dispatches what arrived, runs the updates that are due, gives
 * sources their time and renders. Between animation frames a browser timer
 * (setTimeout) runs a frame (display false: tempo_loop_frame) at the loop's
 * next deadline (calls->next_due_ns: an update tick or source work, never a
 * render), so updates keep their rate between frames and while the browser
 * sends none (a hidden tab gets no animation frames, and timers throttled
 * to ~1/s).
 *
 * The frame callback never returns into main(): emscripten unwinds main's
 * caller with simulate_infinite_loop, so nothing after tempo_loop_run() in
 * main runs, and main's locals stay where they are (emscripten does not pop
 * main's stack frame; its docs warn against relying on that: keep the
 * game's state static or on the heap). When the loop quits or fails, the
 * callbacks stop, calls->ended runs desc.on_stop (the game's shutdown: the
 * same code as after tempo_loop_run() returns on the other backends) and the
 * page stays as it is.
 *
 * What the page can read (the gallery and tests/web_test.js do):
 *   Module.tempoLoop   "running", "quit" or "error: <text>";
 *   Module.tempoStats  once a second: the loop's last-second counts
 *                      (updates/s, renders/s, tick lateness) beside the
 *                      browser's animation frames/s, timer frames/s, the
 *                      main-thread time per animation frame spent in its
 *                      display frame and the main-thread ms per second spent
 *                      in Tempo's frames (game callbacks included), and the
 *                      longest single frame;
 *   Module.tempoSlowFrames  [start, ms] (performance.now() milliseconds) of
 *                      every frame that took WEB_SLOW_FRAME_MS or longer,
 *                      the first 1000: what tests/web_test.js compares its
 *                      in-page probe with (was it Tempo that held the
 *                      main thread?).
 *
 * State: one loop runs at a time, on the main thread; no locks. */
#include <stdio.h>

#include <emscripten.h>
#include <emscripten/eventloop.h>

#include "plat_host.h"
#include "plat_clock.h"
#include "tempo_internal.h"
#include "web_internal.h"

typedef struct web_driver {
    const plat_host_calls *calls; /* the framework's, until calls->ended */
    void *user;
    bool running;
    int result;        /* once stopped: 0 (quit) or the negative error */
    bool frames_set;   /* emscripten_set_main_loop_arg was called */
    long timer_id;     /* the armed setTimeout, 0: none */
    uint64_t timer_at; /* its deadline */
    /* this second's figures for Module.tempoStats */
    uint64_t win_start;
    uint32_t win_rafs, win_timer_frames;
    uint64_t win_frame_ns; /* inside display frames */
    uint64_t win_timer_ns; /* inside frames from timers */
    uint64_t win_longest_ns; /* the longest single frame */
} web_driver;

static web_driver g_drv; /* [main thread] */

/* Frames at least this long are listed in Module.tempoSlowFrames. */
#define WEB_SLOW_FRAME_MS 20

static void arm_timer(web_driver *d);

/* EM_JS rather than EM_ASM: EM_ASM needs -std=gnu11, Tempo builds as c11. */
EM_JS(void, publish_state, (const char *state), { Module['tempoLoop'] = UTF8ToString(state); });

EM_JS(void, publish_numbers, (double raf_per_s, double timer_frames_per_s, double frame_ms_per_raf,
                              double tempo_ms_per_s, double longest_frame_ms,
                              double updates_per_s, double renders_per_s, double frames_per_s,
                              double late_p50_ms, double late_p99_ms, double late_max_ms), {
    Module['tempoStats'] = { rafPerS: raf_per_s, timerFramesPerS: timer_frames_per_s,
                             frameMsPerRaf: frame_ms_per_raf, tempoMsPerS: tempo_ms_per_s,
                             longestFrameMs: longest_frame_ms,
                             updatesPerS: updates_per_s,
                             rendersPerS: renders_per_s, framesPerS: frames_per_s,
                             latenessP50Ms: late_p50_ms, latenessP99Ms: late_p99_ms,
                             latenessMaxMs: late_max_ms };
});

/* A frame of `ms` milliseconds just ended: Module.tempoSlowFrames. */
EM_JS(void, note_slow_frame, (double ms), {
    var a = Module['tempoSlowFrames'] || (Module['tempoSlowFrames'] = []);
    if (a.length < 1000)
        a.push([performance.now() - ms, ms]);
});

/* Module.tempoStats, once a second (on an animation frame). */
static void publish_stats(web_driver *d, uint64_t now)
{
    if (d->win_start == 0)
        d->win_start = now;
    if (now - d->win_start < 1000000000u)
        return;
    double s = (double)(now - d->win_start) / 1e9;
    plat_host_counts counts, *c = &counts;
    d->calls->counts(d->user, c);
    publish_numbers(d->win_rafs / s, d->win_timer_frames / s,
                    d->win_rafs ? (double)d->win_frame_ns / 1e6 / d->win_rafs : 0.0,
                    (double)(d->win_frame_ns + d->win_timer_ns) / 1e6 / s, (double)d->win_longest_ns / 1e6,
                    c->updates_per_s,
                    c->renders_per_s, c->frames_per_s,
                    (double)c->lateness_p50_ns / 1e6, (double)c->lateness_p99_ns / 1e6,
                    (double)c->lateness_max_ns / 1e6);
    d->win_start = now;
    d->win_rafs = d->win_timer_frames = 0;
    d->win_frame_ns = d->win_timer_ns = d->win_longest_ns = 0;
}

/* Runs one frame (an animation frame: the display's, which renders) and
 * stops the driver once the loop quit or failed. */
static void run_frame(web_driver *d, bool display)
{
    uint64_t a = plat_now_ns();
    web__in_driver_frame = true;
    int r = d->calls->frame(d->user, display);
    web__in_driver_frame = false;
    uint64_t b = plat_now_ns();
    if (display)
        d->win_frame_ns += b - a;
    else
        d->win_timer_ns += b - a;
    if (b - a > d->win_longest_ns)
        d->win_longest_ns = b - a;
    if (b - a >= WEB_SLOW_FRAME_MS * UINT64_C(1000000))
        note_slow_frame((double)(b - a) / 1e6);
    if (r == 0)
        return;
    d->running = false;
    d->result = r < 0 ? r : 0;
    if (d->timer_id != 0)
        emscripten_clear_timeout(d->timer_id);
    d->timer_id = 0;
    if (d->frames_set)
        emscripten_cancel_main_loop();
    char why[256], state[300];
    d->calls->stopped(d->user, r, why, sizeof why); /* logs it */
    snprintf(state, sizeof state, "%s%s", r < 0 ? "error: " : "", why);
    publish_state(state);
    /* desc.on_stop: the game's shutdown, which may destroy the loop. */
    const plat_host_calls *calls = d->calls;
    void *user = d->user;
    d->calls = NULL;
    d->user = NULL;
    calls->ended(user, d->result);
}

static void on_timer(void *user)
{
    web_driver *d = user;
    d->timer_id = 0;
    if (!d->running)
        return;
    d->win_timer_frames++;
    run_frame(d, false);
    if (d->running)
        arm_timer(d);
}

/* Arms (or moves) the browser timer to the loop's next deadline: an update
 * tick or source work (renders are the animation frames'). */
static void arm_timer(web_driver *d)
{
    uint64_t due = d->calls->next_due_ns(d->user);
    if (d->timer_id != 0 && d->timer_at == due)
        return;
    if (d->timer_id != 0)
        emscripten_clear_timeout(d->timer_id);
    d->timer_id = 0;
    if (due == UINT64_MAX)
        return; /* paused: input and animation frames wake it */
    uint64_t now = plat_now_ns();
    /* setTimeout counts milliseconds: round up so the frame is never early
     * (an early frame finds nothing due and costs a wake-up). */
    double ms = due > now ? (double)((due - now + 999999u) / 1000000u) : 0.0;
    d->timer_at = due;
    d->timer_id = emscripten_set_timeout(on_timer, ms, d);
}

static void on_animation_frame(void *user)
{
    web_driver *d = user;
    if (!d->running)
        return;
    uint64_t now = plat_now_ns();
    d->win_rafs++;
    run_frame(d, true);
    /* SDL's emscripten GL swap interval 0 (vsync off: the renderer's
     * SDL_RenderSetVSync, tempo_loop_set_vsync) switches the main loop to
     * setTimeout(0), which would turn display frames into a spin that
     * renders as fast as it can and starves the page. The browser's frame
     * is the display's, vsync or not: keep requestAnimationFrame. */
    int mode = 0, value = 0;
    emscripten_get_main_loop_timing(&mode, &value);
    if (!d->running)
        return;
    if (mode != EM_TIMING_RAF || value != 1)
        emscripten_set_main_loop_timing(EM_TIMING_RAF, 1);
    publish_stats(d, now);
    arm_timer(d);
}

int plat_host_run(const plat_host_calls *calls, void *user)
{
    web_driver *d = &g_drv;
    if (d->running)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_run: a loop already runs in this page");
    *d = (web_driver){.calls = calls, .user = user, .running = true};
    publish_state("running");
    /* The first frame now: it starts the schedule (and sets the first
     * deadlines) before the first animation frame. */
    run_frame(d, false);
    if (!d->running)
        return d->result; /* it ended in that frame (on_stop ran): main() goes on */
    arm_timer(d);
    /* fps 0: requestAnimationFrame. simulate_infinite_loop 1: does not
     * return (see the top of this file). */
    d->frames_set = true;
    emscripten_set_main_loop_arg(on_animation_frame, d, 0, 1);
    return 0; /* not reached */
}
