/* Tempo: the passive fixed-timestep game loop.
 *
 * The loop runs the game's update() at a constant rate and its render(alpha)
 * as often as allowed, and between frames it sleeps in tempo_wait() until
 * the next update or render falls due, a watched handle is signalled, or
 * window messages / input arrive. It never spins and never polls.
 *
 *   static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
 *   {
 *       game *g = user;
 *       g->prev = g->pos;
 *       g->pos += g->vel * (float)dt_ns * 1e-9f;    // dt_ns is constant
 *   }
 *   static void render(tempo_loop *loop, float alpha, void *user)
 *   {
 *       game *g = user;
 *       draw_at(g->pos + g->vel * alpha * step_s); // or lerp(prev, pos, alpha)
 *   }
 *   ...
 *   tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
 *       .update_hz = 25, .window = window, .renderer = renderer, // the loop presents
 *       .update = update, .render = render, .event = on_event, .user = &g,
 *   });
 *   int rc = tempo_loop_run(loop);   // until SDL_QUIT or tempo_loop_quit()
 *   tempo_loop_destroy(loop);
 *
 * Policies (deWiTTERS' game-loop variants, one enum away):
 *   TEMPO_LOOP_INTERPOLATED (default) constant update rate, render(alpha)
 *       as often as the render pace allows: max_render_hz, or without a
 *       cap the display (its vblanks with vsync, else its refresh rate);
 *       alpha in [0,1) is how far the present lies between the last update
 *       and the next one.
 *   TEMPO_LOOP_LOCKSTEP: one update and one render per tick, sleeping in
 *       between (the battery saver). A late loop runs its missed ticks back
 *       to back, each with its render, within the stall clamp. alpha is 0.
 *   TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS: constant updates; up to max_frameskip
 *       of them in a batch when behind, then one render after the batch
 *       (also capped by max_render_hz). alpha is 0.
 *   TEMPO_LOOP_VARIABLE: one update per frame with the measured frame time
 *       as dt_ns (frames at the render pace).
 *       Offered for completeness; it is NOT deterministic: floating-point
 *       results then depend on the frame rate (the test suite shows it).
 *
 * Time: the fixed policies run tick k at start + floor(k * 1e9 / update_hz)
 * ns, computed exactly in integers, so the schedule never drifts from the
 * clock; dt_ns passed to update() is the constant step
 * round(1e9 / update_hz). The same scripted input therefore gives the same
 * game state after N updates at any render rate.
 *
 * Catch-up and stalls: at most max_frameskip updates run between two renders
 * (or the updates one render interval holds, when a render cap is below
 * update_hz / max_frameskip), also when the render cap makes the render
 * wait: the overdue updates wait for it; when
 * updates themselves are slower than real time the game slows down instead
 * of spiralling (capped_frames in the statistics). On a machine too slow
 * for the update rate (renders or updates slower than the schedule) the
 * update debt is kept at max_gap_ns, never thrown away: up to max_frameskip
 * updates still run per render, so the game slows down exactly as far as
 * it must, like deWiTTERS' loop (slowdown_ns counts the game time given
 * up). A real stall is a gap in which the loop did not run at all: more
 * than max_gap_ns between two frames, or overslept past its wait's
 * deadline (a suspended process, a debugger stopped in the wait, a clock
 * jump). Then the pending updates are dropped, not replayed: the schedule
 * restarts at the present with one update (stalls and dropped_updates
 * count it). The game never fast-forwards. (A stop inside a callback, a
 * breakpoint in update(), looks like a slow frame: at most max_gap_ns of
 * debt is then caught up, max_frameskip updates per render.)
 * Behind schedule the loop does not sleep a minimum (seed 004's 2 ms):
 * the wait is skipped while work is due, because the OS preempts a busy
 * thread anyway and a forced sleep would slow a slow machine's game
 * further (2 ms of every 16.7 ms frame); the frame's sleeps_per_s and
 * wakes[TEMPO_LOOP_WAKE_DUE] show a loop running behind.
 *
 * Pause: while the window is minimized or hidden as the window system says
 * (SDL's events and window flags; on X11 the X server's word too), or its
 * presents are withheld (TEMPO_LOOP_PACING_WITHHELD) where nothing else
 * tells (Wayland: the only sign of a minimized window there; the loop then
 * still probes with one render and present every 500 ms), unless
 * desc.run_while_hidden (and, if asked, while it has no input focus), or
 * after tempo_loop_pause(loop, true), the loop runs no updates and no renders and waits with no timeout; events, watches,
 * sources and quit still work (a source with work left is served a step at
 * a time; once none has any, the wait has no timeout again). Controller
 * polling is suspended meanwhile, so an idle paused loop does not wake at
 * all. desc.on_pause hears of each pause and resume. On resume the
 * schedule restarts at the present (one update, no catch-up burst).
 * tempo_loop_set_game_paused() is the other pause, for a pause menu: game
 * time stops, rendering and input (desc.input_event) go on.
 *
 * Display pacing: without a render cap the display paces rendering, never
 * an unbounded spin. With desc.renderer (or desc.present) the loop
 * presents, and with vsync it treats the present as a wait: the blocked
 * time counts as waiting, and the loop learns the vblanks from the
 * presents' return times and wakes at next vblank - predicted render cost
 * - a margin (Android's Swappy, DXGI's frame-latency waitable object).
 * Without vsync it renders at the display's refresh rate. Whether the
 * presents block is measured, not read from a flag (tempo_loop_vsync):
 * tempo_loop_get_pacing() names the pacing in force (timer, vsync,
 * probing, presents-withheld), and so do the statistics and the overlay.
 * Presents that stop coming back (a compositor withholding frames from a
 * minimized or occluded window, or a slow machine's blits) are a state,
 * not a stall: the loop keeps its update rate and renders less, pauses
 * with the hidden-pause (desc.run_while_hidden) only when the window
 * system says the window is not shown or says nothing (Wayland), and
 * returns to its pacing when frames come back. docs/pacing.md has the
 * details and the measurements.
 *
 * Render on demand (opt-in, for TEMPO_LOOP_INTERPOLATED; the other policies
 * render only after updates or on request anyway): render only when an
 * update ran, an SDL event arrived, the window was exposed, or
 * tempo_loop_request_render() was called. Frames between updates are then
 * not drawn, so alpha has nothing to interpolate: meant for editors, menus,
 * turn-based games, and idle screens.
 *
 * Input: with desc.input set, the loop feeds every SDL event to that
 * tempo_input (stamped with the time its wait returned) before the event
 * callback, and update() reads the per-frame ring:
 *
 *   static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
 *   {
 *       game *g = user;
 *       tempo_input_event ev;
 *       while (tempo_input_poll(g->input, &ev) > 0)
 *           game_input(g, &ev);            // ev.time_ns: when the loop woke for it
 *       ...
 *   }
 *
 * Other sources plug in as sources of the loop, which waits on their
 * handles together with its own, dispatches them on the loop thread within
 * its schedule, and measures them: the framework's with one call each
 * (tempo/sources.h: tempo_netq_attach, tempo_loader_attach,
 * tempo_audio_attach, tempo_net_attach), a game's own queue with
 * tempo_loop_add_source(). tempo_loop_watch() is for the game's plain
 * events (a timer, a "level loaded" event). Never watch a built-in
 * source's handle (tempo_netq_handle, tempo_loader_handle,
 * tempo_audio_handle): each is a manual-reset event that stays signalled
 * until its work is done, so the loop would wake again at once and spin.
 *
 * Unless a function says "Thread: any", call it on the loop thread: the one
 * that created the loop, initialised SDL video and calls tempo_loop_frame().
 */
#ifndef TEMPO_LOOP_H
#define TEMPO_LOOP_H

#include <SDL.h>

#include "base.h"
#include "clock.h"
#include "input.h"
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

/* The pacing in force (tempo_loop_get_pacing, tempo_loop_stats.pacing). */
typedef enum tempo_loop_pacing {
    TEMPO_LOOP_PACING_TIMER = 0, /* renders on the loop's timer: the cap, else the
                                    display's refresh rate (presents do not block) */
    TEMPO_LOOP_PACING_VSYNC,     /* presents block on vblanks: the loop wakes just in
                                    time for the next one (see "Display pacing") */
    TEMPO_LOOP_PACING_PROBING,   /* measuring whether presents block (a few presents) */
    /* Presents stopped coming back: two presents in a row blocked more than
     * 4 refresh periods (at least 50 ms): the compositor withholds frames
     * (minimized or occluded on Wayland, screen off), or the machine is
     * slow. The loop then renders and presents only as a probe and updates
     * on its timer at the full update rate (no catch-up cap, nothing
     * dropped). On a window the window system says is shown the first probe
     * comes a refresh period later, the interval doubling up to 500 ms while
     * the presents stay withheld; where it says hidden, or says nothing
     * (Wayland, whose compositors only stop a hidden surface's frames), a
     * probe every 500 ms, and the hidden-pause (desc.run_while_hidden false,
     * the default) pauses as for a minimized window. The first probe present
     * that returns within 4 periods ends the state and the pacing before it
     * resumes. */
    TEMPO_LOOP_PACING_WITHHELD,
    TEMPO_LOOP_PACING_COUNT
} tempo_loop_pacing;

/* "timer", "vsync", "probing", "presents-withheld", or "?". Static
 * string. Thread: any. */
TEMPO_API const char *tempo_loop_pacing_name(tempo_loop_pacing pacing);

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
     * cost - a margin, so input read at the wake reaches the screen within
     * one refresh plus the render time and no frame queues up. NULL => the
     * render callback presents itself and the loop cannot see the vsync:
     * renders are then paced at display_hz (or the cap). */
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
     * (tempo/sources.h), which a game may also call later (and
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
} tempo_loop_desc;

/* Creates a loop. The schedule starts at the first tempo_loop_frame(), so
 * loading between create and run does not count as a stall.
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
 * it as their deadline without asking (see "Sources"). Thread: loop
 * thread. */
TEMPO_API uint64_t tempo_loop_next_due_ns(const tempo_loop *loop);

/* "interpolated", "lockstep", "constant-speed-max-fps", "variable", or "?"
 * for a value out of range. Static string. Thread: any. */
TEMPO_API const char *tempo_loop_policy_name(tempo_loop_policy policy);

/* ---- Watched handles ---------------------------------------------------- */

/* Watches and sources are entries of one registry in the loop, served in
 * the order added: a watch is the simplest entry (a callback when its
 * handle is signalled; counted as a "watch" wake), a source the paced one
 * (counted as a "source" wake). A handle is in it once, either way.
 *
 * The most handles a loop watches: a wait takes TEMPO_WAIT_MAX_HANDLES, and
 * the loop keeps two for itself (its wake event and its timer). Sources
 * count too: each takes one of these slots. */
#define TEMPO_LOOP_MAX_WATCHES (TEMPO_WAIT_MAX_HANDLES - 2)

typedef void (*tempo_loop_watch_fn)(tempo_loop *loop, tempo_handle *handle, void *user);

/* Adds `handle` to the loop's wait set. Whenever it is signalled the loop
 * calls fn(loop, handle, user) on the loop thread, at most once per handle
 * per frame, after the frame's SDL events and before its updates. Waking
 * the loop consumes an auto-reset handle's signal. For the game's own
 * events (a timer, a "level loaded" event): a handle that stays signalled
 * wakes the loop again at once, so anything that queues work belongs in a
 * source (tempo_loop_add_source), which the loop paces. Every watched
 * handle is checked every frame, so a busy one cannot starve the others.
 * A watch added from a callback takes effect from the next frame.
 * handle: not owned; must stay alive until unwatched (destroying a watched
 * handle makes tempo_loop_frame() fail with TEMPO_EINVAL).
 * Returns 0, TEMPO_EINVAL (NULL argument, destroyed handle), TEMPO_EBUSY
 * (already watched, or added as a source) or TEMPO_ETOOMANY
 * (TEMPO_LOOP_MAX_WATCHES watches and sources). */
TEMPO_API int tempo_loop_watch(tempo_loop *loop, tempo_handle *handle, tempo_loop_watch_fn fn,
                               void *user);

/* Removes `handle` from the wait set; its callback is not called again,
 * not even later in the current frame. Safe from any loop callback,
 * including the handle's own. Returns 0, or TEMPO_EINVAL (NULL, or the
 * handle is not watched). */
TEMPO_API int tempo_loop_unwatch(tempo_loop *loop, tempo_handle *handle);

/* ---- Sources ------------------------------------------------------------- */

/* A source is anything that queues work for the loop thread: the network
 * queue, the loader's finished results, audio notices, native input, or a
 * game's own queue. It has a handle (signalled when work arrives) and a
 * dispatch that does what fits before a deadline the loop gives it, and
 * says whether work remains. The loop owns everything else, so a game never
 * writes the glue that decides how much a source may do or when to look at
 * it again:
 *  - deadline: each call gets the next due update or render (while paused:
 *    one update step from the last frame), so work fills the idle time
 *    between frames and a due frame waits for one unit at most;
 *  - parking: a source that says work remains and has used its time (the
 *    deadline passed, or the call did nothing) leaves the wait until the
 *    next frame (an update or render ran), so a source whose handle stays
 *    signalled never makes the loop wake at once with nothing to do. A
 *    source that stopped early (its own budget) with time left is called
 *    again after the loop has looked at input and its schedule;
 *  - progress: the first call of each frame sets must_progress, and the
 *    source then handles at least one unit if any waits, whatever its cost
 *    estimate says: no estimate can starve it. That unit may overrun the
 *    deadline (counted as an overrun);
 *  - pause: parking never outlives a pause. Pausing and resuming re-arm
 *    every parked source, and while paused the loop keeps frames of one
 *    update step for the sources that have work (and only for them: an idle
 *    paused loop still sleeps with no timeout).
 * A source that reports remaining work is called again at its next turn even
 * if its handle is not signalled (an auto-reset handle's signal is consumed
 * by the wait), so both kinds of handle work.
 * Framework sources attach with one call: tempo_netq_attach() (tempo/netq.h),
 * tempo_loader_attach(), tempo_audio_attach(), tempo_net_attach() and
 * tempo_input_attach() (tempo/sources.h), tempo_hotreload_attach()
 * (tempo/hotreload.h: written only against this contract); desc.input's
 * native devices are a source of the loop itself. Those that hand the game
 * items (messages, loader completions, audio notices, reloads) declare what
 * they deliver (below), so the loop records and replays all of them the
 * same way; input is recorded from desc.input's ring. Per-source statistics
 * are in tempo_loop_stats.sources. */

/* One dispatch call: the loop fills the inputs, the source the outputs. */
typedef struct tempo_source_call {
    uint64_t now_ns;      /* in: the loop's clock when the call starts */
    uint64_t deadline_ns; /* in: stop before this, on the loop's clock: the next
                             update or render (<= now_ns when one is due now) */
    bool must_progress;   /* in: no unit of this source ran yet this frame:
                             handle at least one if any waits, even past the
                             deadline */
    uint64_t frame;       /* in: the loop's frame counter, one more for each frame
                             (an iteration that ran an update or a render; while
                             paused with work pending, one update step): for
                             sources whose budget is per frame, which see every
                             frame, empty ones included, as frame - previous */
    uint32_t items;       /* out: units handled by this call (0 before the call) */
    uint64_t oldest_age_ns; /* out: age of the oldest unit this call handled or
                               left waiting, when the source knows (0 before) */
    bool replaying;       /* in: the loop replays a recording (tempo/replay.h):
                             tempo_loop_source_deliver() drops what this call
                             delivers, and the recorded items reach desc.deliver
                             at their ticks instead. Only a source with an effect
                             it cannot take back before it delivers (the loader
                             finishes a request by handing it over) needs to look:
                             it may hold its work */
} tempo_source_call;

/* Does the work that fits before call->deadline_ns (at least one unit when
 * call->must_progress and any waits), checking the clock after each unit.
 * Returns > 0 when work remains, 0 when the source is empty, or a negative
 * TEMPO_E* code: the loop then removes the source (its detach runs) and
 * tempo_loop_frame() returns that code. [loop thread] */
typedef int (*tempo_source_dispatch_fn)(void *self, tempo_source_call *call);

/* ---- What a source delivers: recorded and replayed by the loop ------------
 * A source that hands things to the game (messages, completions, notices)
 * declares a deliver function (desc.deliver) and has its dispatch pass each
 * item through tempo_loop_source_deliver() instead of calling the game
 * itself. The loop then owns record and replay (tempo/replay.h), and the
 * source carries no code for either:
 *  - live: tempo_loop_source_deliver() calls deliver(self, item, live) at
 *    once;
 *  - recording: the same, after writing the item into the recording for the
 *    tick whose update comes next;
 *  - replaying: the live item is dropped (deliver is not called), and the
 *    loop calls deliver(self, item, NULL) with each recorded item right
 *    before the update of its recorded tick.
 * An item is a tempo_replay_item by value: a source of its own data uses
 * TEMPO_REPLAY_MESSAGE (a type and up to 16 MiB of bytes); LOAD and AUDIO
 * are the loader's and the audio's. Only the fields of its kind are
 * recorded, so deliver must rebuild what it hands over from those fields
 * when `live` is NULL; `live` is the source's own full object (the message
 * with its times, say) that the dispatch passed along.
 * A recording names each source by its desc.name and its attach order among
 * the sources of that name: a replaying game attaches its sources with the
 * same names in the same order (it normally runs the same code), and a
 * source that is not attached in the replay misses its items. */

typedef enum tempo_replay_kind {
    TEMPO_REPLAY_MESSAGE = 1, /* a message: type, data, size (a game's own sources too) */
    TEMPO_REPLAY_LOAD = 2,    /* a loader completion: id, type, error, group, value = bytes */
    TEMPO_REPLAY_AUDIO = 3,   /* an audio notice: type = notice kind, audio_channel, id = tag,
                                 value = frame */
} tempo_replay_kind;

/* One delivery, by value (sources and tempo_loop_deliver channels). Only
 * the fields of its kind are recorded. */
typedef struct tempo_replay_item {
    tempo_replay_kind kind;
    uint32_t type;          /* MESSAGE: message type; LOAD: tempo_load_type; AUDIO: notice kind */
    const void *data;       /* MESSAGE: payload (valid during the call only); else NULL */
    uint32_t size;          /* MESSAGE: payload bytes, at most 16 MiB */
    uint64_t id;            /* LOAD: request id; AUDIO: the mark's tag */
    int32_t error;          /* LOAD: 0 or the request's TEMPO_E* */
    int32_t audio_channel;  /* AUDIO: mixer channel */
    uint32_t group;         /* LOAD: progress group */
    uint64_t value;         /* LOAD: bytes read; AUDIO: frame */
} tempo_replay_item;

/* Hands one item to the game. `item` (and its data) is valid during the
 * call only. `live`: what the dispatch passed to tempo_loop_source_deliver
 * (may be NULL there too); NULL for an item replayed from a recording.
 * May call any loop function a source's dispatch may (not remove its own
 * source). [loop thread] */
typedef void (*tempo_source_deliver_fn)(void *self, const tempo_replay_item *item, const void *live);

typedef struct tempo_source_desc {
    const char *name;           /* shown in the overlay and the statistics; copied
                                   (first 23 bytes); NULL => "source"; also names
                                   the source in a recording (see above) */
    tempo_handle *handle;       /* signalled when work arrives (manual- or auto-reset);
                                   required; not owned; must stay alive while added */
    tempo_source_dispatch_fn dispatch; /* required */
    /* Called once when the source leaves the loop (tempo_loop_remove_source,
     * a dispatch error, tempo_loop_destroy), on the loop thread: where an
     * adapter frees `self`. NULL => nothing. */
    void (*detach)(void *self);
    void *self;                 /* passed to dispatch, detach and deliver */
    /* What the source hands the game (see above). NULL => the source
     * delivers nothing the loop knows of: it is not recorded, and in a
     * replay it runs live. */
    tempo_source_deliver_fn deliver;
} tempo_source_desc;

/* The most sources one loop takes (each also uses one watch slot). */
#define TEMPO_LOOP_MAX_SOURCES 16

/* Adds a source (see above). desc is read during the call only. The source
 * is dispatched on the loop thread from the next frame on, after the frame's
 * SDL events and before its updates, in the order sources and watches were
 * added.
 * Returns 0, TEMPO_EINVAL (NULL loop/desc/handle/dispatch), TEMPO_EBUSY (the
 * handle is already watched or added) or TEMPO_ETOOMANY (no watch slot, or
 * TEMPO_LOOP_MAX_SOURCES added). On failure detach is not called.
 * Thread: loop thread (from a callback too). */
TEMPO_API int tempo_loop_add_source(tempo_loop *loop, const tempo_source_desc *desc);

/* Hands `item` from the dispatch of the source added with `handle` to the
 * game: see "What a source delivers" above. Live and while recording it
 * calls desc.deliver(self, item, live) before returning (recording: after
 * writing the item for the coming tick); while replaying it drops the item.
 * `item` and `live` are read during the call only (not owned). Call it from
 * the source's dispatch (or from code the dispatch calls), between updates:
 * an item delivered inside update() is replayed before that update.
 * Returns 1 (delivered), 0 (dropped: the loop replays), TEMPO_EINVAL (NULL
 * loop or item, no source has `handle`, the source has no deliver, an
 * unknown item kind), TEMPO_ERANGE (a payload over 16 MiB) or TEMPO_EIO (a
 * recording write failed: deliver has still run). [loop thread] */
TEMPO_API int tempo_loop_source_deliver(tempo_loop *loop, tempo_handle *handle, const tempo_replay_item *item,
                                        const void *live);

/* Removes the source added with `handle`: it is not dispatched again, not
 * even later in the current frame, and its detach runs before this returns
 * (so do not call it from that source's own dispatch: TEMPO_EBUSY).
 * Returns 0, TEMPO_EINVAL (NULL, or no source has that handle) or
 * TEMPO_EBUSY. Thread: loop thread. */
TEMPO_API int tempo_loop_remove_source(tempo_loop *loop, tempo_handle *handle);

/* ---- Statistics ---------------------------------------------------------- */

/* Why a frame started. One reason per frame. */
typedef enum tempo_loop_wake {
    TEMPO_LOOP_WAKE_DUE = 0,  /* did not sleep: work was already due */
    TEMPO_LOOP_WAKE_TIMER,    /* slept until the next update or render */
    TEMPO_LOOP_WAKE_MESSAGES, /* window messages or input arrived */
    TEMPO_LOOP_WAKE_WATCH,    /* a watched handle (tempo_loop_watch) was signalled */
    TEMPO_LOOP_WAKE_SIGNAL,   /* tempo_loop_quit/request_render from a thread */
    TEMPO_LOOP_WAKE_SOURCE,   /* a source's handle was signalled (tempo_loop_add_source,
                                 the framework's attaches, native input) */
    TEMPO_LOOP_WAKE_COUNT
} tempo_loop_wake;

/* "due", "timer", "input", "watch", "signal", "source", or "?".
 * Thread: any. */
TEMPO_API const char *tempo_loop_wake_name(tempo_loop_wake wake);

/* Counters over a span of time (one window, or the whole run). Times are on
 * the loop's clock. */
typedef struct tempo_loop_counts {
    uint64_t elapsed_ns;       /* span covered */
    uint64_t frames;           /* loop iterations */
    uint64_t updates, renders;
    uint64_t wakes[TEMPO_LOOP_WAKE_COUNT]; /* frames by reason */
    uint64_t capped_frames;    /* frames that hit max_frameskip with updates still due */
    uint64_t stalls;           /* times the stall clamp fired */
    uint64_t dropped_updates;  /* updates skipped by the stall clamp */
    /* Game time given up because the machine is too slow for the update
     * rate (renders or updates slower than the schedule, the loop running
     * all along): the update debt is kept at max_gap_ns and what lies
     * beyond is this; the game runs slower than the wall clock by this
     * much over the span. 0 on a machine that keeps up. */
    uint64_t slowdown_ns;
    uint64_t wait_ns;          /* asleep in the wait (or in clock.wait_until) */
    uint64_t game_ns;          /* inside the game's callbacks, watch callbacks and
                                  source dispatches included */
    uint64_t loop_ns;          /* the rest: the loop's own cost */
    uint64_t paused_ns;        /* paused (part of wait_ns) */
    uint64_t present_ns;       /* blocked in the loop's presents (part of wait_ns) */
    uint64_t missed_vblanks;   /* vsync: vblanks that passed without a present */
    uint64_t withheld_presents; /* presents that blocked > 4 refresh periods (withheld) */
    uint64_t withheld_ns;      /* time spent in TEMPO_LOOP_PACING_WITHHELD */
    uint64_t skipped_renders;  /* renders not made because every update since the last
                                  one called tempo_loop_skip_render() */
    uint64_t probes;           /* measurements of what the presents do that began (the
                                  first, and each re-measurement: see "Display pacing") */
    /* Tick lateness: when the loop woke for an update (VARIABLE: for a
     * frame) minus when it was due. Never negative: nothing runs early. */
    uint64_t late_samples;
    uint64_t lateness_p50_ns, lateness_p99_ns, lateness_max_ns; /* ~3% resolution; max exact */
    /* Derived for display: per second of elapsed_ns, and shares of
     * wait_ns + game_ns + loop_ns (0 when nothing was measured). */
    double updates_per_s, renders_per_s, frames_per_s;
    double sleeps_per_s;       /* frames that had to wake from a sleep */
    double wait_share, game_share, loop_share;
} tempo_loop_counts;

/* Frames kept for the frame-time graph. */
#define TEMPO_LOOP_HISTORY 240

/* One source's counters over a span (as in tempo_loop_counts). */
typedef struct tempo_loop_source_counts {
    uint64_t calls;       /* dispatch calls */
    uint64_t items;       /* units handled (as the source reported them) */
    uint64_t busy_ns;     /* time inside dispatch */
    uint64_t overruns;    /* calls that ended after their deadline */
    uint64_t forced;      /* calls that began at or after their deadline: the
                             one unit per frame the loop guarantees */
    uint64_t max_age_ns;  /* the oldest unit any call reported */
} tempo_loop_source_counts;

typedef struct tempo_loop_source_stats {
    char name[24];
    bool pending;           /* reported work remaining at its last call */
    bool parked;            /* out of the wait until the next frame */
    uint64_t oldest_age_ns; /* from its last call */
    tempo_loop_source_counts last_second, total;
} tempo_loop_source_stats;

typedef struct tempo_loop_stats {
    tempo_loop_counts last_second; /* the last complete window of >= 1 s (zero before) */
    tempo_loop_counts total;       /* since the first frame */
    /* The sources now added, in the order added (tempo_loop_add_source):
     * last_second covers the same window as last_second above. */
    int source_count;
    tempo_loop_source_stats sources[TEMPO_LOOP_MAX_SOURCES];
    /* A ring of the last renders: interval since the previous render, and
     * how much of it the loop was awake (busy = interval - sleep). The
     * oldest entry is at (history_next - history_count) mod
     * TEMPO_LOOP_HISTORY, the newest at history_next - 1. */
    uint64_t interval_ns[TEMPO_LOOP_HISTORY];
    uint64_t busy_ns[TEMPO_LOOP_HISTORY];
    int history_count;
    int history_next;
    bool paused;
    bool game_paused;     /* tempo_loop_set_game_paused */
    bool vsync;           /* pacing by the presents' vblanks (pacing == VSYNC) */
    tempo_loop_pacing pacing; /* the pacing in force (tempo_loop_get_pacing) */
    uint64_t refresh_ns;  /* tempo_loop_get_refresh_ns() */
    uint64_t predicted_render_ns; /* vsync: the render cost the wake allows for: the
                                     second largest of the last 32 renders (a cost seen
                                     once, a preempted render, is not predicted; seen
                                     twice, it is) */
    /* TIMER because the presents block, but on a grid of their own instead
     * of the display's vblanks (SDL's emulated vsync, the software renderer
     * created with SDL_RENDERER_PRESENTVSYNC: 16 ms on a 60 Hz display):
     * that grid's period. 0 otherwise. */
    uint64_t present_grid_ns;
} tempo_loop_stats;

/* The loop's statistics, refreshed by this call (totals and percentiles are
 * computed here). The struct belongs to the loop and stays valid and
 * unchanged until the next tempo_loop_frame() or tempo_loop_get_stats() on
 * it. NULL for a NULL loop. */
TEMPO_API const tempo_loop_stats *tempo_loop_get_stats(tempo_loop *loop);

/* Size of the panel at scale 1: TEMPO_LOOP_STATS_W x TEMPO_LOOP_STATS_H
 * without sources, plus TEMPO_LOOP_STATS_SOURCE_H per source and one
 * heading line (tempo_loop_stats_height()). At scale k every length is k
 * times these. */
#define TEMPO_LOOP_STATS_W 300
#define TEMPO_LOOP_STATS_H 224
#define TEMPO_LOOP_STATS_SOURCE_H 12

/* The panel's height at scale 1 now. TEMPO_LOOP_STATS_H for NULL. */
TEMPO_API int tempo_loop_stats_height(const tempo_loop *loop);

/* The automatic scale of the panel: the largest integer k (1..16) with the
 * panel (panel_w x panel_h at scale 1) at most a quarter of the area's
 * width and half its height, and at least 1 (so a small window gets the
 * scale-1 panel, a 2560 px one twice that). 1 for sizes <= 0. A pure
 * function. Thread: any. */
TEMPO_API int tempo_loop_stats_fit_scale(int area_w, int area_h, int panel_w, int panel_h);

/* The scale tempo_loop_draw_stats() uses on `renderer` now:
 * tempo_loop_stats_fit_scale() of the area it draws into, which is the
 * renderer's logical size when one is set (SDL_RenderSetLogicalSize),
 * else its output size (the window's pixels, or the render target's, in
 * HiDPI pixels too) divided by its render scale (SDL_RenderSetScale), and
 * of the panel's size now. The panel then covers TEMPO_LOOP_STATS_W * k by
 * tempo_loop_stats_height(loop) * k. 1 for a NULL renderer (or when SDL
 * cannot tell the size). Thread: the renderer's thread. */
TEMPO_API int tempo_loop_stats_scale(const tempo_loop *loop, SDL_Renderer *renderer);

/* Draws the statistics overlay (policy and rates, last-second numbers,
 * lateness, wait/game/loop shares, wake reasons, drops, a frame-time graph,
 * and per source: share of time, items/s, overruns and oldest age) as a
 * panel with its top-left corner at (x, y), with tempo/debugdraw.h, at
 * the scale tempo_loop_stats_scale(loop, renderer) gives: scaled to the
 * window, TEMPO_LOOP_STATS_W x tempo_loop_stats_height() at scale 1. The
 * renderer's draw colour and blend mode are restored. Call it from the
 * render callback, before presenting. Thread: the renderer's thread (the
 * loop thread). Returns 0, TEMPO_EINVAL (NULL loop or renderer) or
 * TEMPO_EPLATFORM (an SDL call failed; detail in tempo_get_error()). */
TEMPO_API int tempo_loop_draw_stats(tempo_loop *loop, SDL_Renderer *renderer, int x, int y);

/* tempo_loop_draw_stats() at a given integer scale (1..16), e.g. to draw
 * into a texture of known size (TEMPO_LOOP_STATS_W * scale by
 * tempo_loop_stats_height() * scale) that is copied to the window. Returns
 * as tempo_loop_draw_stats, and TEMPO_EINVAL for a scale out of range. */
TEMPO_API int tempo_loop_draw_stats_scaled(tempo_loop *loop, SDL_Renderer *renderer, int x, int y,
                                           int scale);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_LOOP_H */
