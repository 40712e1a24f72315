/* Tempo: the passive fixed-timestep game loop.
 *
 * The loop runs the game's update() at a constant rate and its render(alpha)
 * as often as allowed, and between frames it sleeps in tempo_wait() until
 * the next update or render falls due, a watched handle or a source is
 * signalled, or window messages / input arrive. It never spins and never
 * polls.
 *
 *   tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
 *       .update_hz = 25, .window = window, .renderer = renderer, // the loop presents
 *       .update = update, .render = render, .event = on_event, .user = &g,
 *   });
 *   int rc = tempo_loop_run(loop);   // until SDL_QUIT or tempo_loop_quit()
 *   tempo_loop_destroy(loop);
 *
 * docs/loop.md is the manual: the policies, the schedule, catch-up and
 * stalls, the pauses, display pacing, render on demand, input, sources and
 * the statistics. This header holds the loop itself; it includes the rest of
 * what a game uses with it: tempo/source.h (watched handles, the source
 * contract, what a source delivers), tempo/stats.h (the statistics and the
 * pacing in force) and tempo/debugdraw.h (the statistics overlay). The
 * framework's objects attach to a loop with functions declared in their own
 * headers (tempo_input_attach in tempo/input.h, tempo_loader_attach in
 * tempo/loader.h, ...).
 *
 * Unless a function says "Thread: any", call it on the loop thread: the one
 * that created the loop, initialised SDL video and calls tempo_loop_frame().
 */
#ifndef TEMPO_LOOP_H
#define TEMPO_LOOP_H

#include <SDL.h>

#include "base.h"
#include "clock.h"
#include "debugdraw.h"
#include "input.h"
#include "source.h"
#include "stats.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_loop tempo_loop;

typedef enum tempo_loop_policy {
    TEMPO_LOOP_INTERPOLATED = 0,
    TEMPO_LOOP_LOCKSTEP,
    TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS,
    TEMPO_LOOP_VARIABLE,
    TEMPO_LOOP_POLICY_COUNT
} tempo_loop_policy;

/* The game's callbacks, all called on the loop thread from inside
 * tempo_loop_frame(). Any of them may call tempo_loop_quit(),
 * tempo_loop_request_render(), the setters, watch/unwatch, add/remove
 * source and tempo_loop_get_stats(); tempo_loop_frame()/run() refuse with
 * TEMPO_EBUSY and tempo_loop_destroy() does nothing (see there). */

/* One update. dt_ns: the constant step round(1e9 / update_hz) in the fixed
 * policies; the measured time since the previous update in
 * TEMPO_LOOP_VARIABLE (a gap over max_gap_ns counts as one step). */
typedef void (*tempo_loop_update_fn)(tempo_loop *loop, uint64_t dt_ns, void *user);

/* One render. alpha in [0,1): the fraction of an update step that has passed
 * since the last update (TEMPO_LOOP_INTERPOLATED); 0 in the other policies.
 * The callback presents the frame itself (SDL_RenderPresent), unless
 * desc.renderer or desc.present is set: then the loop presents after it. */
typedef void (*tempo_loop_render_fn)(tempo_loop *loop, float alpha, void *user);

/* One SDL event (window, keyboard, mouse, ...), in queue order, before the
 * frame's updates. `event` is valid during the call only. The loop has
 * already looked at it: window events drive pause, and SDL_QUIT ends the
 * loop after this callback returns. */
typedef void (*tempo_loop_event_fn)(tempo_loop *loop, const SDL_Event *event, void *user);

/* The loop's clock is the shared tempo_clock (tempo/clock.h): when
 * clock.now is set the loop reads time only through it and never blocks:
 * where it would sleep in tempo_wait() it calls clock.wait_until() instead
 * (TEMPO_INFINITE while paused), then polls watched handles and SDL's event
 * queue (if SDL events are initialised) without waiting. Give the same
 * clock to the loader and the network queue and one fake clock drives all
 * three. tempo_loop_clock is the older name of the same type. */
typedef tempo_clock tempo_loop_clock;

/* Vsync (desc.vsync, tempo_loop_set_vsync). The loop never trusts a flag
 * for it: SDL's software renderer reports SDL_RENDERER_PRESENTVSYNC and
 * returns from its present at once. When the loop presents (desc.renderer
 * or desc.present) and vsync is not OFF, it measures what its presents do
 * (the first ~9 presents, again whenever presents stop landing on vblanks)
 * and paces by that: by the vblanks if presents block on them
 * (TEMPO_LOOP_PACING_VSYNC), else by its timer at the display's refresh
 * rate (TEMPO_LOOP_PACING_TIMER). A present that blocks but returns more
 * often than the display refreshes (SDL's emulated vsync: the software
 * renderer created with SDL_RENDERER_PRESENTVSYNC sleeps to a 16 ms grid
 * of its own on a 60 Hz display) waits for no vblank: the timer, and
 * tempo_loop_stats.present_grid_ns names the grid. A timer chosen by the
 * measurement is measured again: at once when the window is shown,
 * restored or moved to another display; after 3 presents in a row that
 * blocked over a quarter period; and periodically (2, 4, 8, 16, then every
 * 32 s; not for SDL's software renderer, which has no vblank to wait for,
 * nor for LOCKSTEP, whose renders follow its ticks) by moving the timer's
 * render phase, one render more and no frame lost.
 * tempo_loop_get_pacing() and the statistics say which pacing is in force
 * (tempo_loop_counts.probes counts the measurements). */
typedef enum tempo_loop_vsync {
    TEMPO_LOOP_VSYNC_AUTO = 0, /* measure: pace by the vblanks if the loop's presents
                                  block on them, else by the timer; the timer without a
                                  present the loop makes (desc.renderer/desc.present) */
    TEMPO_LOOP_VSYNC_ON,       /* the game asked for vsync: measured the same way (a
                                  present that turns out not to block is paced by the
                                  timer and reported as such); if the measurement
                                  stays undecided, paced as vsync */
    TEMPO_LOOP_VSYNC_OFF       /* the timer, never measured */
} tempo_loop_vsync;

/* Presents a rendered frame, for games that present some other way than
 * SDL_RenderPresent(desc.renderer) (SDL_GL_SwapWindow), and for a fake
 * vsync in tests. Called on the loop thread right after render(). */
typedef void (*tempo_loop_present_fn)(tempo_loop *loop, void *user);

/* One input event, as it arrives (see desc.input_event). Return true to
 * consume it (it does not enter desc.input's ring), false to let it be
 * queued as usual. A recording keeps consumed events too, and a replay
 * hands them to this callback again at their ticks (live input does not
 * reach it then): check tempo_loop_is_replaying() (tempo/replay.h) before
 * effects a replay must not repeat, such as a screenshot or a pause. */
typedef bool (*tempo_loop_input_fn)(tempo_loop *loop, const tempo_input_event *ev, void *user);

/* The loop paused (true) or resumed (false), for any reason: minimized,
 * hidden (including presents withheld where only they tell: see
 * TEMPO_LOOP_PACING_WITHHELD), focus lost (when asked), or
 * tempo_loop_pause(). Called on the
 * loop thread, from the frame that noticed the change, after its events. */
typedef void (*tempo_loop_pause_fn)(tempo_loop *loop, bool paused, void *user);

/* tempo_loop_run() is over: the loop quit (`result` 0) or failed (the
 * negative error that stopped it). Called once, on the loop thread, after
 * the last frame and outside every frame, by tempo_loop_run() only (a game
 * that calls tempo_loop_frame() itself has its own end). The game's
 * shutdown goes here -- summary, screenshot, tempo_loop_destroy(loop),
 * freeing what the callbacks used, tempo_shutdown() -- so the same source
 * works on every backend: on the web tempo_loop_run() hands the loop to the
 * browser and never returns, so code after it in main() never runs
 * (docs/web.md). The loop may be destroyed here; tempo_loop_run() does not
 * touch it afterwards (it returns `result` where it returns). */
typedef void (*tempo_loop_stop_fn)(tempo_loop *loop, int result, void *user);

/* Zero fields take the default written beside them. */
typedef struct tempo_loop_desc {
    uint32_t update_hz;        /* updates per second; 0 => 60; at most 100000 */
    uint32_t max_frameskip;    /* most updates between two renders; 0 => 5 */
    uint64_t max_gap_ns;       /* stall clamp; 0 => 250 ms */
    /* Render cap; at most 100000 (which is as good as unpaced). 0 => the
     * display paces: with vsync, the loop learns the vblanks from the
     * presents it makes and wakes just in time for the next one; without,
     * it renders at display_hz. Never an unbounded spin. */
    uint32_t max_render_hz;
    tempo_loop_policy policy;  /* 0 => TEMPO_LOOP_INTERPOLATED */
    bool render_on_demand;     /* false => render every allowed frame */
    bool pause_on_focus_loss;  /* false => keep running without focus */
    /* false (default) => the hidden-pause: a window minimized or hidden (as
     * the window system says), and withheld presents where the window system
     * says nothing else (TEMPO_LOOP_PACING_WITHHELD on Wayland, where SDL
     * 2.26 sends no MINIMIZED/HIDDEN event; a window with keyboard focus is
     * shown), pause the loop; withheld presents on a window shown pause
     * nothing (a slow machine). true => keep updating at the
     * full update rate, for a game that must keep ticking then (a networked
     * game's lockstep, a server-driven simulation): minimized/hidden events
     * do not pause, and withheld presents only stop the renders (a probe
     * every 500 ms at most); renders otherwise go on (skip drawing in render() while
     * hidden if it costs). tempo_loop_pause() and pause_on_focus_loss still
     * pause it. */
    bool run_while_hidden;
    tempo_loop_update_fn update; /* NULL => updates are counted only */
    tempo_loop_render_fn render; /* NULL => renders are counted only */
    tempo_loop_event_fn event;   /* NULL => events are consumed by the loop */
    void *user;                  /* passed to every callback of this descriptor */
    /* The window whose minimize/hide/focus events pause the loop, and whose
     * state the loop asks the window system about when its presents are
     * withheld. NULL => window events of any window count, and withheld
     * presents are taken for a shown window's (on Wayland: while one of
     * SDL's windows has keyboard focus). Not owned. */
    SDL_Window *window;
    tempo_clock clock;         /* zero => the real clock and tempo_wait() */
    /* Display pacing. With a renderer (not owned) the loop presents:
     * it calls SDL_RenderPresent(renderer) after render() returns (so the
     * render callback must not) and counts the time blocked in it as
     * waiting. The draws SDL queued until then (render batching) are the
     * render's cost, not the present's: the loop runs them first with
     * SDL_RenderFlush (also before desc.present when both are set). With
     * vsync it paces by the present: wake = next vblank - predicted render
     * cost - margins (0.5 ms, and a quarter of a period for the present's
     * own work before its flip), so input read at the wake reaches the
     * screen within one refresh plus the lead and no frame queues up.
     * NULL => the render callback presents itself and the loop cannot see
     * the vsync: renders are then paced at display_hz (or the cap). */
    SDL_Renderer *renderer;
    tempo_loop_present_fn present; /* NULL => SDL_RenderPresent(renderer) when renderer is set */
    tempo_loop_vsync vsync;    /* 0 => TEMPO_LOOP_VSYNC_AUTO */
    uint32_t display_hz;       /* refresh rate to pace at without vsync and cap; 0 => the
                                  window's display mode (SDL_GetWindowDisplayMode; the
                                  desktop's without a window), 60 when it reports 0 Hz */
    /* Every input event as it arrives, also while paused (a pause key, a
     * menu): from desc.input (SDL and native input alike) when set, else
     * translated from SDL's events (tempo_input_from_sdl). NULL => none. */
    tempo_loop_input_fn input_event;
    tempo_loop_pause_fn on_pause; /* NULL => no notification */
    /* Per-frame input buffering (tempo/input.h). When set, every SDL event
     * the loop takes from the queue goes to
     * tempo_input_handle_sdl(input, &event, wake_ns) first, then to the
     * event callback, which still sees every event, input included.
     * wake_ns is when the frame's wait returned, on the loop's clock (that
     * is tempo_now_ns() unless `clock` replaces it): all events of a frame
     * carry the time the loop woke for them, however long the frame then
     * takes. The game reads the ring in update() with tempo_input_poll()
     * or tempo_input_dispatch(), so its input arrives per update with
     * timestamps, in order. While the loop is paused no update reads the
     * ring and events keep queueing (past its capacity they are counted as
     * dropped); empty it on resume if stale input must not count.
     * Not owned; the short form of tempo_input_attach(input, loop)
     * (tempo/input.h), which a game may also call later (and
     * tempo_input_detach). Destroy the two in any order: the input leaves
     * the loop when destroyed, the loop lets go of it when destroyed. Like
     * the loop, a tempo_input belongs to the loop thread. NULL => no
     * buffering (the event callback alone); an input attached to another
     * loop makes tempo_loop_create fail (TEMPO_EBUSY).
     * Native input: if tempo_input_attach_window(input, ...) succeeded
     * (win32 backend: DirectInput8), the loop watches
     * tempo_input_native_handle(input) itself, through one entry of its
     * watch table (checked at the start of every frame, so attaching or
     * detaching later is followed), and reads it with
     * tempo_input_read_native(input, wake_ns): the same ring, the same
     * stamps. The event callback still sees SDL's own key/mouse events,
     * but the ring gets each input once, from the native side. If no
     * watch slot is free the input is detached back to SDL events
     * (tempo_get_error() says why). */
    tempo_input *input;
    tempo_loop_stop_fn on_stop; /* NULL => nothing runs when tempo_loop_run() ends */
    /* Low latency, for vsync pacing (TEMPO_LOOP_PACING_VSYNC) in
     * TEMPO_LOOP_INTERPOLATED and CONSTANT_SPEED_MAX_FPS (issue 39 section
     * 3): input read in update() reaches the screen as soon as the render
     * and the present allow.
     *  - The update ticks run at the render wakes: every tick due before
     *    the vblank the next render aims at runs right before that render,
     *    a little early (a tick never runs more than the lead before its
     *    due time, so game time runs ahead of the wall clock by less than
     *    a period) or held from its due time until the wake (the loop does
     *    not wake for it alone). At the vsync verdict the ticks move, once
     *    and later by under a period, to half a period before a vblank,
     *    away from the vblank the fit's jitter would decide by. The dt of
     *    each update is unchanged; tempo_loop_stats' update lateness counts
     *    the held ticks' wait. A present never waits for an update.
     *  - The lead (the render's start before its vblank) is the learnt
     *    render cost (the upper quartile of the last 32 renders, not near
     *    their largest) plus the base margin plus what misses taught about
     *    the present's own work. That margin starts at a quarter of a
     *    period and never goes under an eighth; each missed vblank raises
     *    it by a sixteenth of a period (up to a period: a machine too
     *    loaded for a shorter lead renders right after each present, as a
     *    plain vsync loop does), each vblank made lowers it by 1/4096 of
     *    that step, so about one frame in 4000 misses its vblank on a
     *    machine whose costs vary (the trade GPU drivers' low-latency
     *    modes make).
     * false (default) => the ticks keep the schedule's phase, and the lead
     * covers nearly the largest recent render cost plus a margin that
     * starts at a quarter of a period (no vblank lost to learn the
     * present's work) and doubles to half a period at a miss (fewer missed
     * vblanks on a loaded machine, a frame more of latency). Read at
     * create (no setter); has no effect under the timer, a render cap's own
     * slots, LOCKSTEP, VARIABLE (whose update is at the render anyway) and
     * tempo_loop_display_frame(). Thread: loop thread, like the descriptor.
     * Errors: none (any value is valid). */
    bool low_latency;
} tempo_loop_desc;

/* Creates a loop. The schedule starts at the first tempo_loop_frame(), so
 * loading between create and run does not count as a stall. The calling
 * thread's scheduling (priority, slice) is left as it is (docs/pacing.md).
 * desc: read during the call only; NULL means all defaults.
 * Returns the loop, owned by the caller, or NULL with the detail in
 * tempo_get_error(): an out-of-range field (policy, update_hz,
 * max_render_hz), desc.input attached to another loop, or no memory /
 * handles. Thread: loop thread. */
TEMPO_API tempo_loop *tempo_loop_create(const tempo_loop_desc *desc);

/* Destroys the loop and its own handles, and detaches every source (their
 * detach runs: the framework's attached objects then know they are no
 * longer attached, and may be destroyed or attached again). Watched handles stay the caller's (they are only
 * forgotten). NULL is a no-op. Called from inside tempo_loop_frame() (any of
 * the loop's callbacks, watches and sources) it destroys nothing, logs a
 * WARN line and sets TEMPO_EBUSY in tempo_get_error(): the frame still uses
 * the loop after the callback returns. Quit instead and destroy after run
 * returns. */
TEMPO_API void tempo_loop_destroy(tempo_loop *loop);

/* Runs one iteration ("frame"): waits until something is due or arrives,
 * then dispatches, in this order: SDL events (each into desc.input first,
 * if set, then to the event callback), watched handles, due updates, one
 * render if due. For games that embed the loop in their own main loop,
 * and for tests on a fake clock.
 * Returns 0 (keep going), 1 once the loop was asked to quit (every later
 * call returns 1 at once), or a negative error: TEMPO_EINVAL (NULL),
 * TEMPO_EBUSY (called from one of the loop's callbacks), TEMPO_EINVAL from
 * the wait (a watched handle was destroyed while watched), TEMPO_EPLATFORM
 * (the OS wait failed; see tempo_get_error()). */
TEMPO_API int tempo_loop_frame(tempo_loop *loop);

/* tempo_loop_frame() for a host that calls the game once per displayed
 * frame: the browser's requestAnimationFrame (the web backend's
 * tempo_loop_run() uses it), iOS's CADisplayLink, Android's Choreographer.
 * The display is then the vsync: from the first call on, renders happen in
 * these frames only -- a wanted render happens in the next one, whatever
 * the loop's own render slots would say (a render cap, desc.max_render_hz,
 * still holds) -- and tempo_loop_frame() calls between them (at update
 * ticks) run events, updates and sources but never render.
 * tempo_loop_next_due_ns() then names update ticks and source work only,
 * never a render. Returns what tempo_loop_frame() returns. [loop thread] */
TEMPO_API int tempo_loop_display_frame(tempo_loop *loop);

/* Calls tempo_loop_frame() until it returns non-zero, then desc.on_stop.
 * Returns 0 after a quit or the negative error that stopped the loop.
 * web backend: the page's main thread must not block, so it hands the loop
 * to the browser (a frame per animation frame, browser timers for deadlines
 * in between) and does not return: nothing after it in main() runs, and a
 * quit stops the frames and runs desc.on_stop, where a game that runs on
 * every backend shuts down (docs/web.md). Keep what the callbacks use
 * static or on the heap. */
TEMPO_API int tempo_loop_run(tempo_loop *loop);

/* Asks the loop to stop: from a callback, the current frame runs no further
 * updates or renders and tempo_loop_frame() returns 1; from another thread,
 * it wakes the sleeping loop at once (through the loop's own event in its
 * wait set). Thread: any. Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_loop_quit(tempo_loop *loop);

/* Asks for one render at the next allowed moment (render-on-demand, or to
 * show a change made outside update() in the fixed policies). From another
 * thread it wakes the loop (a "signal" wake); from the loop thread it only
 * marks the render as owed (the loop is awake already). Thread: any.
 * Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_loop_request_render(tempo_loop *loop);

/* Pauses (true) or resumes (false) the loop on the game's behalf, in
 * addition to the window-driven pause. A paused loop is idle: no updates,
 * no renders, no timeout, and desc.input's controller polling suspended
 * (tempo_input_suspend_polling), so it wakes only for window events,
 * keyboard and mouse input, watched handles, sources and quit: zero
 * wake-ups per second while nothing happens, controllers open or not.
 * desc.on_pause hears of every change. From update() or render() a pause
 * starts after the current frame (which still renders); from an event or
 * watch callback it applies to the current frame. A game may pause itself
 * while idle and resume from the event or watch callback that brings new
 * work: the resume restarts the schedule (one update, no catch-up).
 * Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_loop_pause(tempo_loop *loop, bool paused);

/* True while the loop is paused for any reason. false for NULL. */
TEMPO_API bool tempo_loop_is_paused(const tempo_loop *loop);

/* The game's own pause (a pause menu), distinct from the idle pause above:
 * game time stops (no updates; the update schedule restarts on resume, no
 * catch-up) but rendering goes on at the render pace (cap, vsync or the
 * display rate) in every policy, with alpha frozen where it was, so the
 * menu can animate. Input keeps arriving: read it in desc.input_event
 * (update() does not run). Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_loop_set_game_paused(tempo_loop *loop, bool paused);
TEMPO_API bool tempo_loop_is_game_paused(const tempo_loop *loop);

/* Turns vsync on or off at runtime: with desc.renderer, through
 * SDL_RenderSetVSync (TEMPO_EPLATFORM if the renderer refuses, detail in
 * tempo_get_error(), nothing changed); with desc.present only, the loop
 * takes the game's word for it. The pacer relearns the vblanks from the
 * next presents. Returns 0, TEMPO_EINVAL (NULL) or TEMPO_ENOTSUP (no
 * renderer and no present function: the loop cannot pace by a present it
 * does not make). */
TEMPO_API int tempo_loop_set_vsync(tempo_loop *loop, bool on);
/* Whether vsync is asked for (desc.vsync ON or AUTO, or set_vsync(true))
 * and the loop presents; whether the presents really block is
 * tempo_loop_get_pacing(). false for NULL. */
TEMPO_API bool tempo_loop_get_vsync(const tempo_loop *loop);

/* The pacing in force now (see tempo_loop_pacing): what the presents were
 * measured to do. TEMPO_LOOP_PACING_TIMER for NULL. */
TEMPO_API tempo_loop_pacing tempo_loop_get_pacing(const tempo_loop *loop);

/* The refresh period the loop paces by: with vsync pacing, learnt from the
 * presents once the fit has locked on (what the display delivers: a
 * compositor that delivers ~48 frames/s under a 65 Hz mode is learnt as
 * ~48 Hz), else 1e9 / display_hz. 0 for NULL. */
TEMPO_API uint64_t tempo_loop_get_refresh_ns(const tempo_loop *loop);

/* Runtime settings. Each takes effect at the next frame without a burst:
 * a new update rate keeps the phase of the last update (the next one is due
 * one new step after it); a new policy restarts the schedule at the present.
 * Return 0, TEMPO_EINVAL (NULL, policy out of range) or TEMPO_ERANGE
 * (0 or more than 100000 Hz; max_render_hz 0 means no cap: the display
 * paces, see desc.max_render_hz). */
TEMPO_API int tempo_loop_set_policy(tempo_loop *loop, tempo_loop_policy policy);
TEMPO_API int tempo_loop_set_update_hz(tempo_loop *loop, uint32_t update_hz);
TEMPO_API int tempo_loop_set_max_render_hz(tempo_loop *loop, uint32_t max_render_hz);
TEMPO_API int tempo_loop_set_render_on_demand(tempo_loop *loop, bool on);

/* Called from update(): this update changed nothing visible, so it owes no
 * render (seed 004 renders only when something changed). Without the call
 * every update marks a render owed, as before. It matters where renders
 * follow updates: render on demand (TEMPO_LOOP_INTERPOLATED with
 * desc.render_on_demand), TEMPO_LOOP_LOCKSTEP and CONSTANT_SPEED_MAX_FPS.
 * Without render on demand INTERPOLATED renders at its pace anyway (alpha
 * moves), and VARIABLE's frame is one update plus one render (its update
 * measures the time since the last frame), so both ignore it. Events, exposes and tempo_loop_request_render()
 * still make a render owed. A render not made for it counts in
 * tempo_loop_counts.skipped_renders. The flag is cleared before each
 * update, so a call outside update() has no effect. Returns 0 or TEMPO_EINVAL (NULL). Thread: loop thread. */
TEMPO_API int tempo_loop_skip_render(tempo_loop *loop);

/* Current settings (defaults applied). 0 / TEMPO_LOOP_INTERPOLATED for NULL. */
TEMPO_API tempo_loop_policy tempo_loop_get_policy(const tempo_loop *loop);
TEMPO_API uint32_t tempo_loop_get_update_hz(const tempo_loop *loop);
TEMPO_API uint32_t tempo_loop_get_max_render_hz(const tempo_loop *loop);
/* The constant dt_ns of the fixed policies: round(1e9 / update_hz). */
TEMPO_API uint64_t tempo_loop_get_step_ns(const tempo_loop *loop);

/* When the loop next wakes for an update or a render: an absolute time on
 * the loop's clock (tempo_now_ns(), or desc.clock.now when set). It may lie
 * in the past when something is due already (from a watch callback: the
 * frame's updates run right after it); before the first frame it is now.
 * TEMPO_INFINITE while paused, and for NULL. Without a render cap the
 * next render is the display's: with vsync, the pacer's wake (next vblank
 * minus the predicted render cost and a margin), so sources get the slack
 * before it; else the next slot at the display's refresh rate. Sources get
 * it as their deadline without asking (tempo/source.h). Thread: loop
 * thread. */
TEMPO_API uint64_t tempo_loop_next_due_ns(const tempo_loop *loop);

/* "interpolated", "lockstep", "constant-speed-max-fps", "variable", or "?"
 * for a value out of range. Static string. Thread: any. */
TEMPO_API const char *tempo_loop_policy_name(tempo_loop_policy policy);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_LOOP_H */
