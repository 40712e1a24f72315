/* The web backend's loop driver: tempo_loop_run() hands the loop to the
 * browser.
 *
 * A page's main thread must never block: while it runs, the browser neither
 * paints, nor delivers input, nor runs timers, and a tempo_loop_run() that
 * waited in a loop on it froze the page ("waiting 96.7 %", nothing painted).
 * So here the browser is the wait: tempo_loop_run() registers a frame
 * callback (emscripten_set_main_loop_arg with fps 0: requestAnimationFrame,
 * the page's vsync) and returns to the browser; every animation frame runs
 * one tempo_loop_frame(), whose wait is a poll (web_wait.c: timeouts are 0
 * on the main thread), so it dispatches what arrived, runs the updates that
 * are due and renders if a render is due. When the loop's next deadline
 * (tempo_loop_next_due_ns: an update tick or a render slot) comes before the
 * next animation frame, a browser timer (setTimeout) runs a frame then, so
 * updates keep their rate between animation frames and when the browser
 * sends none (a hidden tab sends no animation frames and throttles timers).
 *
 * The frame callback never returns into main(): emscripten unwinds main's
 * caller with simulate_infinite_loop, so nothing after tempo_loop_run() in
 * main runs, and main's locals stay where they are (emscripten does not pop
 * main's stack frame; its docs warn against relying on that: keep the
 * game's state static or on the heap). When the loop quits or fails, the
 * callbacks stop and the page stays as it is.
 *
 * What the page can read (the gallery and tests/web_test.mjs do):
 *   Module.tempoLoop   "running", "quit" or "error: <text>";
 *   Module.tempoStats  once a second: the loop's last-second counts
 *                      (updates/s, renders/s, tick lateness) beside the
 *                      browser's animation frames/s and the main-thread time
 *                      per animation frame spent in tempo_loop_frame().
 *
 * State: one loop runs at a time, on the main thread; no locks. */
#include <stdio.h>

#include <emscripten.h>
#include <emscripten/eventloop.h>

#include "platform.h"
#include "tempo/loop.h"
#include "tempo_internal.h"

/* A timer is worth arming only for a deadline this far before the next
 * animation frame: later ones, the frame runs. */
#define FRAME_GUESS_NS 16666667u

typedef struct web_driver {
    tempo_loop *loop;
    bool running;
    long timer_id;      /* the armed setTimeout, 0: none */
    uint64_t timer_at;  /* its deadline */
    uint64_t last_raf;  /* the last animation frame's start */
    uint64_t raf_period; /* measured between animation frames; 0 until two came */
    /* this second's figures for Module.tempoStats */
    uint64_t win_start;
    uint32_t win_rafs, win_timer_frames;
    uint64_t win_frame_ns; /* inside tempo_loop_frame() */
} web_driver;

static web_driver g_drv; /* [main thread] */

static void arm_timer(web_driver *d);

/* EM_JS rather than EM_ASM: EM_ASM needs -std=gnu11, Tempo builds as c11. */
EM_JS(void, publish_state, (const char *state), { Module['tempoLoop'] = UTF8ToString(state); });

EM_JS(void, publish_numbers, (double raf_per_s, double timer_frames_per_s, double frame_ms_per_raf,
                              double updates_per_s, double renders_per_s, double frames_per_s,
                              double late_p50_ms, double late_p99_ms, double late_max_ms), {
    Module['tempoStats'] = { rafPerS: raf_per_s, timerFramesPerS: timer_frames_per_s,
                             frameMsPerRaf: frame_ms_per_raf, updatesPerS: updates_per_s,
                             rendersPerS: renders_per_s, framesPerS: frames_per_s,
                             latenessP50Ms: late_p50_ms, latenessP99Ms: late_p99_ms,
                             latenessMaxMs: late_max_ms };
});

/* Module.tempoStats, once a second (on an animation frame). */
static void publish_stats(web_driver *d, uint64_t now)
{
    if (d->win_start == 0)
        d->win_start = now;
    if (now - d->win_start < 1000000000u)
        return;
    double s = (double)(now - d->win_start) / 1e9;
    const tempo_loop_stats *st = tempo_loop_get_stats(d->loop);
    const tempo_loop_counts *c = &st->last_second;
    publish_numbers(d->win_rafs / s, d->win_timer_frames / s,
                    d->win_rafs ? (double)d->win_frame_ns / 1e6 / d->win_rafs : 0.0, c->updates_per_s,
                    c->renders_per_s, c->frames_per_s,
                    (double)c->lateness_p50_ns / 1e6, (double)c->lateness_p99_ns / 1e6,
                    (double)c->lateness_max_ns / 1e6);
    d->win_start = now;
    d->win_rafs = d->win_timer_frames = 0;
    d->win_frame_ns = 0;
}

/* Runs one frame and stops the driver once the loop quit or failed. */
static void run_frame(web_driver *d)
{
    uint64_t a = plat_now_ns();
    int r = tempo_loop_frame(d->loop);
    d->win_frame_ns += plat_now_ns() - a;
    if (r == 0)
        return;
    d->running = false;
    if (d->timer_id != 0)
        emscripten_clear_timeout(d->timer_id);
    d->timer_id = 0;
    emscripten_cancel_main_loop();
    if (r < 0) {
        char text[300];
        snprintf(text, sizeof text, "error: %s (%s)", tempo_strerror(r), tempo_get_error());
        tempo__log(TEMPO_LOG_ERROR, "tempo_loop_run: the loop stopped: %s", text + 7);
        publish_state(text);
    } else {
        tempo__log(TEMPO_LOG_INFO, "tempo_loop_run: the loop quit; the page stays as it is");
        publish_state("quit");
    }
}

static void on_timer(void *user)
{
    web_driver *d = user;
    d->timer_id = 0;
    if (!d->running)
        return;
    d->win_timer_frames++;
    run_frame(d);
    if (d->running)
        arm_timer(d);
}

/* Arms (or moves) the browser timer to the loop's next deadline when that
 * comes before the next animation frame is expected. */
static void arm_timer(web_driver *d)
{
    uint64_t due = tempo_loop_next_due_ns(d->loop);
    uint64_t now = plat_now_ns();
    uint64_t period = d->raf_period != 0 ? d->raf_period : FRAME_GUESS_NS;
    uint64_t next_raf = d->last_raf + period;
    if (due == UINT64_MAX || (d->last_raf != 0 && now < next_raf && due >= next_raf)) {
        if (d->timer_id != 0)
            emscripten_clear_timeout(d->timer_id);
        d->timer_id = 0;
        return; /* the next animation frame (or an event) comes first */
    }
    if (d->timer_id != 0) {
        if (d->timer_at == due)
            return;
        emscripten_clear_timeout(d->timer_id);
    }
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
    if (d->last_raf != 0) {
        uint64_t gap = now - d->last_raf;
        /* A smoothed period; gaps of hidden tabs or stalls are not frames. */
        if (gap < 4 * FRAME_GUESS_NS)
            d->raf_period = d->raf_period == 0 ? gap : (d->raf_period * 7 + gap) / 8;
    }
    d->last_raf = now;
    d->win_rafs++;
    run_frame(d);
    publish_stats(d, now);
    if (d->running)
        arm_timer(d);
}

int plat_loop_run(tempo_loop *loop)
{
    web_driver *d = &g_drv;
    if (d->running)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_run: a loop already runs in this page");
    *d = (web_driver){.loop = loop, .running = true};
    publish_state("running");
    /* The first frame now: it starts the schedule (and sets the first
     * deadlines) before the first animation frame. */
    run_frame(d);
    if (!d->running)
        return 0;
    arm_timer(d);
    /* fps 0: requestAnimationFrame. simulate_infinite_loop 1: does not
     * return (see the top of this file). */
    emscripten_set_main_loop_arg(on_animation_frame, d, 0, 1);
    return 0; /* not reached */
}
