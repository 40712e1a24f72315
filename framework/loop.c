/* The passive fixed-timestep loop (tempo/loop.h).
 *
 * One frame = one wait + one dispatch:
 *   1. compute the next deadline from the schedule and the policy (the next
 *      update tick, or the next render slot if a render is wanted);
 *   2. sleep in tempo_wait() on [wake event, timer, watched handles...] with
 *      TEMPO_WAIT_MESSAGES; the timer is a one-shot armed at that absolute
 *      deadline, so the wake-up is exact to the backend's precision and a
 *      relative timeout never adds the time spent computing it;
 *   3. dispatch SDL events, then watched handles (each signalled one once)
 *      and sources (each with work once, with the next due update or render
 *      as its deadline), then the due updates, then at most one render.
 *
 * The update schedule is absolute: tick k of the current epoch is due at
 * epoch + floor(k * 1e9 / hz) (tempo__sched_at), so rounding never
 * accumulates. Render slots with a cap use the same epoch, so when the
 * render rate is a multiple of the update rate both fall due at the same
 * instant and cost one wake-up, not two. The epoch moves only when the
 * schedule must restart: the first frame, a stall, a resume, a change of
 * policy to or from VARIABLE, or a change of rate (which keeps the phase of
 * the last update).
 *
 * The loop's files, one idea each:
 *   loop_create.c   tempo_loop_create/_destroy: the loop and what its
 *                   descriptor attaches (above the others);
 *   loop.c          the loop object, settings, the wait and the frame (this file);
 *   loop_schedule.c what is due and when: pure functions over the
 *                   schedule's state (L->sched), tested on chosen times;
 *   loop_present.c  display pacing: what the presents do, and the pacing;
 *   loop_sources.c  the registry of watches and sources, and dispatch;
 *   loop_events.c   SDL's events, and the loop's side of its input (the
 *                   input's adapter is input_source.c);
 *   loop_stats.c, loop_overlay.c  the statistics and their overlay.
 * The wait is one path: a clock and a wait chosen at create (the
 * platform's, or desc.clock's adapter wait_clock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "loop_schedule.h"
#include "sources_internal.h"
#include "tempo_internal.h"

#define DEFAULT_HZ 60u
#define DEFAULT_FRAMESKIP 5u
#define DEFAULT_MAX_GAP_NS (250 * TEMPO_NS_PER_MS)

static uint64_t real_now(void *user)
{
    (void)user;
    return tempo_now_ns();
}

static void realign(tempo_loop *L);
static void apply_present(tempo_loop *L, tempo__present_verdict v);

typedef struct tempo__frame_wait frame_wait;

/* ---- Creation ----------------------------------------------------------------- */

tempo_loop *tempo__loop_new(const tempo_loop_desc *desc)
{
    static const tempo_loop_desc defaults;
    if (desc == NULL)
        desc = &defaults;
    if ((unsigned)desc->policy >= TEMPO_LOOP_POLICY_COUNT) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loop_create: policy %d out of range", (int)desc->policy);
        return NULL;
    }
    if (desc->update_hz > TEMPO__LOOP_MAX_HZ) {
        tempo__set_error(TEMPO_ERANGE, "tempo_loop_create: update_hz %u above %u", desc->update_hz,
                         TEMPO__LOOP_MAX_HZ);
        return NULL;
    }
    if (desc->max_render_hz > TEMPO__LOOP_MAX_HZ) {
        tempo__set_error(TEMPO_ERANGE, "tempo_loop_create: max_render_hz %u above %u", desc->max_render_hz,
                         TEMPO__LOOP_MAX_HZ);
        return NULL;
    }
    tempo_loop *L = calloc(1, sizeof *L);
    if (L == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_loop_create: out of memory");
        return NULL;
    }
    L->sched.policy = desc->policy;
    L->sched.update_hz = desc->update_hz ? desc->update_hz : DEFAULT_HZ;
    L->sched.render_hz = desc->max_render_hz;
    L->sched.max_frameskip = desc->max_frameskip ? desc->max_frameskip : DEFAULT_FRAMESKIP;
    L->sched.max_gap_ns = desc->max_gap_ns ? desc->max_gap_ns : DEFAULT_MAX_GAP_NS;
    L->sched.step_ns = step_of(L->sched.update_hz);
    L->sched.on_demand = desc->render_on_demand;
    L->sched.low_latency = desc->low_latency;
    L->pause_on_focus = desc->pause_on_focus_loss;
    L->run_hidden = desc->run_while_hidden;
    L->update = desc->update;
    L->render = desc->render;
    L->event = desc->event;
    L->user = desc->user;
    L->window = desc->window;
    /* The clock and the wait, chosen once: the real ones, or desc.clock's
     * adapter (wait_clock). Nothing else in the loop tells them apart. */
    const bool fake = desc->clock.now != NULL;
    L->clock = fake ? desc->clock : (tempo_clock){real_now, NULL, NULL};
    L->wait = fake ? tempo__loop_wait_clock : tempo__loop_wait_real;
    L->thread = SDL_ThreadID();
    L->renderer = desc->renderer;
    L->present = desc->present;
    L->owns_present = desc->renderer != NULL || desc->present != NULL;
    L->input_event = desc->input_event;
    L->on_pause = desc->on_pause;
    L->on_stop = desc->on_stop;
    apply_present(L, tempo__loop_present_start(L, desc));
    atomic_init(&L->quit, false);
    atomic_init(&L->render_requested, false);

    L->wake = tempo_event_create(false, false);
    L->timer = tempo_timer_create(false);
    if (L->wake == NULL || L->timer == NULL) {
        tempo_event_destroy(L->wake);
        tempo_timer_destroy(L->timer);
        free(L);
        return NULL; /* detail set by the handle's creation */
    }
    if (L->window != NULL && !L->run_hidden) {
        Uint32 flags = SDL_GetWindowFlags(L->window);
        if (flags & SDL_WINDOW_MINIMIZED)
            L->pause_mask |= PAUSE_MINIMIZED;
        if (flags & SDL_WINDOW_HIDDEN)
            L->pause_mask |= PAUSE_HIDDEN;
    }
    return L;
}


void tempo__loop_free(tempo_loop *L)
{
    tempo_event_destroy(L->wake);
    tempo_timer_destroy(L->timer);
    free(L);
}

void tempo__loop_set_hooks(tempo_loop *L, const tempo__loop_hooks *hooks)
{
    L->hooks = hooks != NULL ? *hooks : (tempo__loop_hooks){0};
}

/* ---- Settings ------------------------------------------------------------------- */

int tempo_loop_quit(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_quit: loop is NULL");
    atomic_store(&L->quit, true);
    tempo_event_set(L->wake);
    return 0;
}

int tempo_loop_request_render(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_request_render: loop is NULL");
    /* Only the first request since the last frame needs to wake the loop,
     * and only from another thread: the loop thread is awake already and
     * reads the flag at its next frame (setting the event would make that
     * frame's wait return at once, counted as a cross-thread signal). */
    if (!atomic_exchange(&L->render_requested, true) && SDL_ThreadID() != L->thread)
        tempo_event_set(L->wake);
    return 0;
}

int tempo_loop_pause(tempo_loop *L, bool paused)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_pause: loop is NULL");
    if (paused)
        L->pause_mask |= PAUSE_USER;
    else
        L->pause_mask &= ~(unsigned)PAUSE_USER;
    return 0;
}

bool tempo_loop_is_paused(const tempo_loop *L)
{
    return L != NULL && L->pause_mask != 0;
}

static float alpha_at(const tempo_loop *L, uint64_t t);

static void tell_sources_pause(tempo_loop *L);

int tempo_loop_set_game_paused(tempo_loop *L, bool paused)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_game_paused: loop is NULL");
    if (paused == L->sched.game_paused)
        return 0;
    L->sched.game_paused = paused;
    tell_sources_pause(L);
    if (paused)
        L->frozen_alpha = L->started ? alpha_at(L, loop_now(L)) : 0.0f;
    else
        L->game_resumed = true; /* no catch-up for the time in the menu */
    L->sched.dirty = true;
    realign(L);
    return 0;
}

bool tempo_loop_is_game_paused(const tempo_loop *L)
{
    return L != NULL && L->sched.game_paused;
}

int tempo_loop_set_vsync(tempo_loop *L, bool on)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_vsync: loop is NULL");
    if (!L->owns_present)
        return tempo__set_error(TEMPO_ENOTSUP, "tempo_loop_set_vsync: the loop does not present "
                                               "(no desc.renderer or desc.present)");
    if (L->present == NULL && SDL_RenderSetVSync(L->renderer, on ? 1 : 0) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "SDL_RenderSetVSync(%d): %s", on, SDL_GetError());
    apply_present(L, tempo__loop_set_vsync_mode(L, on ? TEMPO_LOOP_VSYNC_ON : TEMPO_LOOP_VSYNC_OFF));
    return 0;
}

bool tempo_loop_get_vsync(const tempo_loop *L)
{
    return L != NULL && L->owns_present && L->pres.vsync_mode != TEMPO_LOOP_VSYNC_OFF;
}

tempo_loop_pacing tempo_loop_get_pacing(const tempo_loop *L)
{
    return L != NULL ? L->sched.pace.pacing : TEMPO_LOOP_PACING_TIMER;
}

/* First render slot after the last render on the current epoch. */
static void realign(tempo_loop *L)
{
    L->sched.slot = tempo__sched_realigned_slot(&L->sched);
}

/* Applies what display pacing asked for (loop_present.c's verdict): the
 * pacing's inputs to the schedule, the schedule moved or realigned, the
 * withheld-presents pause, a render owed, and the statistics. */
static void apply_present(tempo_loop *L, tempo__present_verdict v)
{
    L->sched.pace = L->pres.pace;
    if (v.phase && L->started) {
        uint64_t move = tempo__sched_phase_move(&L->sched, v.phase_at_ns);
        if (move != 0) {
            L->sched.epoch_ns += move;
            v.realign = true;
        }
    }
    if (v.realign)
        realign(L);
    if (v.skip_past_slots) {
        uint64_t next = tempo__sched_slot_after_render(&L->sched, loop_now(L));
        if (next > L->sched.slot)
            L->sched.slot = next;
    }
    L->pause_mask = (L->pause_mask & ~v.pause_clear) | v.pause_set;
    if (v.dirty)
        L->sched.dirty = true;
    L->frame_present_ns += v.present_ns;
    L->st.win.present_ns += v.present_ns;
    L->st.win.probes += v.probes;
    L->st.win.withheld_presents += v.withheld_presents;
    L->st.win.missed_vblanks += v.missed_vblanks;
}

/* The next update's due time, if one can run before a waiting present:
 * a fixed policy whose renders follow their own slots (LOCKSTEP renders
 * after its ticks, VARIABLE's update is the render's), not in the game's
 * pause or at the catch-up limit; else UINT64_MAX. */
static uint64_t next_update_for_wait(const tempo_loop *L)
{
    const tempo__sched *s = &L->sched;
    if (s->policy == TEMPO_LOOP_VARIABLE || s->policy == TEMPO_LOOP_LOCKSTEP || s->game_paused ||
        s->display_driven || L->pause_mask != 0 || atomic_load(&L->quit))
        return UINT64_MAX;
    if (s->low_latency)
        return UINT64_MAX; /* the ticks run at the render wakes: no present waits for one */
    if (tempo__sched_updates_blocked(s))
        return UINT64_MAX;
    return tempo__sched_next_tick_ns(s);
}

/* Restarts the schedule with an update due at `now` (first frame, stall,
 * resume). */
static void rebase(tempo_loop *L, uint64_t now)
{
    L->sched.epoch_ns = now;
    L->sched.tick = 0;
    L->sched.slot = 0;
    /* VARIABLE measures dt from here: its first frame gets one step. */
    L->sched.last_update_ns = now >= L->sched.step_ns ? now - L->sched.step_ns : 0;
}

/* Re-anchors the schedule on the last update so the next one is due one
 * (new) step after it: a change of rate or policy without a burst or gap. */
static void rephase(tempo_loop *L)
{
    if (!L->started)
        return;
    L->sched.epoch_ns = L->sched.last_update_ns;
    L->sched.tick = 1;
    realign(L);
}

int tempo_loop_set_policy(tempo_loop *L, tempo_loop_policy policy)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_policy: loop is NULL");
    if ((unsigned)policy >= TEMPO_LOOP_POLICY_COUNT)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_policy: policy %d is not a tempo_loop_policy",
                                (int)policy);
    bool variable_change = (policy == TEMPO_LOOP_VARIABLE) != (L->sched.policy == TEMPO_LOOP_VARIABLE);
    L->sched.policy = policy;
    if (variable_change)
        rephase(L); /* VARIABLE's last update time becomes the fixed phase, and back */
    L->sched.dirty = true;
    return 0;
}

int tempo_loop_set_update_hz(tempo_loop *L, uint32_t update_hz)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_update_hz: loop is NULL");
    if (update_hz == 0 || update_hz > TEMPO__LOOP_MAX_HZ)
        return tempo__set_error(TEMPO_ERANGE, "tempo_loop_set_update_hz: update_hz %u outside 1..%u", update_hz,
                                TEMPO__LOOP_MAX_HZ);
    L->sched.update_hz = update_hz;
    L->sched.step_ns = step_of(update_hz);
    rephase(L);
    return 0;
}

int tempo_loop_set_max_render_hz(tempo_loop *L, uint32_t max_render_hz)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_max_render_hz: loop is NULL");
    if (max_render_hz > TEMPO__LOOP_MAX_HZ)
        return tempo__set_error(TEMPO_ERANGE, "tempo_loop_set_max_render_hz: max_render_hz %u above %u",
                                max_render_hz, TEMPO__LOOP_MAX_HZ);
    L->sched.render_hz = max_render_hz;
    realign(L);
    return 0;
}

int tempo_loop_skip_render(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_skip_render: loop is NULL");
    L->skip_render = true;
    return 0;
}

int tempo_loop_set_render_on_demand(tempo_loop *L, bool on)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_set_render_on_demand: loop is NULL");
    L->sched.on_demand = on;
    L->sched.dirty = true;
    return 0;
}

tempo_loop_policy tempo_loop_get_policy(const tempo_loop *L)
{
    return L ? L->sched.policy : TEMPO_LOOP_INTERPOLATED;
}

uint32_t tempo_loop_get_update_hz(const tempo_loop *L)
{
    return L ? L->sched.update_hz : 0;
}

uint32_t tempo_loop_get_max_render_hz(const tempo_loop *L)
{
    return L ? L->sched.render_hz : 0;
}

uint64_t tempo_loop_get_step_ns(const tempo_loop *L)
{
    return L ? L->sched.step_ns : 0;
}

/* ---- Callbacks (timed) ---------------------------------------------------------- */

static void call_update(tempo_loop *L, uint64_t dt_ns)
{
    L->frame_ran = true;
    /* Recording or replaying: the tick's input, items and dt go in (or are
     * written) around the update. Each hook is read when it is due: the
     * update may start or stop either. */
    if (L->hooks.before_update != NULL)
        dt_ns = L->hooks.before_update(L->hooks.user, L, dt_ns);
    if (L->update != NULL) {
        uint64_t a = loop_now(L);
        L->update(L, dt_ns, L->user);
        L->frame_game_ns += loop_now(L) - a;
    }
    if (L->hooks.after_update != NULL)
        L->hooks.after_update(L->hooks.user, L);
}

static void call_render(tempo_loop *L, float alpha)
{
    L->frame_ran = true;
    if (L->render == NULL)
        return;
    uint64_t a = loop_now(L);
    L->render(L, alpha, L->user);
    L->frame_game_ns += loop_now(L) - a;
}

/* ---- Updates and render -------------------------------------------------------------
 * What is due is decided by pure functions in loop_schedule.c, over the
 * schedule's state the loop keeps (L->sched); the frame applies it. */

/* Runs the updates due at `now` under a fixed policy: the plan
 * (tempo__sched_plan_fixed) says how many and which clamp applies first.
 * With low latency at a render wake, those due before the vblank the
 * render aims at (tempo__sched_tick_horizon), a little early. */
static void run_fixed_updates(tempo_loop *L, uint64_t now)
{
    const tempo__sched *s = &L->sched;
    uint64_t t = tempo__sched_tick_horizon(s, now);
    tempo__sched_plan plan = tempo__sched_plan_fixed(s, t, L->absent_ns);
    if (!plan.run)
        return;
    tempo_loop_counts *c = &L->st.win;
    uint64_t pending = plan.pending, limit = plan.limit;
    tempo__stats_lateness(&L->st, now > plan.due_ns ? now - plan.due_ns : 0); /* early: on time */
    if (plan.clamp == TEMPO__SCHED_STALL) {
        c->stalls++;
        c->dropped_updates += plan.dropped;
        rebase(L, t);
    } else if (plan.clamp == TEMPO__SCHED_DEBT_CAP) {
        c->slowdown_ns += plan.slowdown_ns;
        L->sched.epoch_ns = plan.new_epoch_ns;
        L->sched.tick = 0;
        realign(L);
    }
    uint64_t ran = 0;
    while (ran < pending && ran < limit && !atomic_load(&L->quit)) {
        /* Re-read the schedule: an update may change the rate or policy. */
        uint64_t tick_due = tempo__sched_next_tick_ns(&L->sched);
        if (tick_due > t || L->sched.policy == TEMPO_LOOP_VARIABLE)
            break;
        L->sched.last_update_ns = tick_due;
        L->sched.tick++;
        ran++;
        L->sched.updates_since_render++;
        c->updates++;
        L->skip_render = false;
        call_update(L, L->sched.step_ns);
        if (L->skip_render) {
            /* tempo_loop_skip_render(): nothing to show, so no render to
             * wait for either: it does not count toward the catch-up limit
             * (which would otherwise block the next updates forever). */
            L->unchanged_updates++;
            L->sched.updates_since_render--;
        } else {
            L->sched.dirty = true;
        }
    }
    if (ran == limit && pending > ran)
        c->capped_frames++;
}

/* VARIABLE: one update with the measured delta when the frame's slot is due.
 * Returns whether it ran. */
static bool run_variable_update(tempo_loop *L, uint64_t t)
{
    uint64_t slot = tempo__sched_render_slot_ns(&L->sched, t);
    if (t < slot)
        return false;
    if (tempo__sched_pace_hz(&L->sched) != 0)
        tempo__stats_lateness(&L->st, t - slot);
    const tempo__sched *s = &L->sched;
    bool stall;
    uint64_t dt = tempo__sched_variable_dt(s, t, &stall);
    L->st.win.stalls += stall;
    L->sched.last_update_ns = t;
    L->st.win.updates++;
    call_update(L, dt);
    return true;
}

static float alpha_at(const tempo_loop *L, uint64_t t)
{
    if (L->sched.game_paused)
        return L->frozen_alpha;
    const tempo__sched *s = &L->sched;
    return tempo__sched_alpha(s, t);
}

static void maybe_render(tempo_loop *L, bool variable_ran)
{
    uint64_t unchanged = L->unchanged_updates;
    L->unchanged_updates = 0;
    if (atomic_load(&L->quit))
        return;
    if (!tempo__sched_render_wanted(&L->sched, variable_ran)) {
        if (unchanged != 0)
            L->st.win.skipped_renders++; /* the updates said nothing visible changed */
        return;
    }
    uint64_t t = loop_now(L);
    tempo__sched_render r = tempo__sched_render_at(&L->sched, t);
    if (t < r.slot)
        return;
    if (r.vblank != 0) { /* too late for its vblank: the wake moves to the next one */
        apply_present(L, tempo__loop_pace_late_wake(L, r.vblank, r.due, t));
        r = tempo__sched_render_at(&L->sched, t);
        if (t < r.slot)
            return;
    }
    L->sched.dirty = false;
    L->sched.event_dirty = false;
    L->sched.last_due_ns = r.due;
    L->sched.last_render_ns = t;
    L->sched.updates_since_render = 0;
    const tempo__sched *s = &L->sched;
    if (tempo__sched_pace_hz(s) != 0 && tempo__sched_render_scheduled(s))
        L->sched.slot = tempo__sched_slot_after_render(s, t); /* skip missed slots */
    tempo__stats_render(&L->st, t);
    call_render(L, alpha_at(L, t));
    if (L->owns_present && !atomic_load(&L->quit))
        apply_present(L, tempo__loop_present(L, t, next_update_for_wait(L)));
}

/* ---- Pause ----------------------------------------------------------------------------- */

/* The sources' pause hooks (tempo__loop_source_pause_hook): either pause
 * changed, or the loop quit. */
static void tell_sources_pause(tempo_loop *L)
{
    tempo__loop_tell_sources(L, L->notified_paused, L->sched.game_paused, L->told_quit);
}

/* The loop has quit: tell the pause hooks once. */
static void note_quit(tempo_loop *L)
{
    if (!L->told_quit && atomic_load(&L->quit)) {
        L->told_quit = true;
        tell_sources_pause(L);
    }
}

/* Acts on a change of the idle pause since the last look: tells desc.input
 * (its adapter suspends the controller polling: input_source.c) and the
 * sources, forgets the vblank phase on resume, and tells the game. */
static void note_pause(tempo_loop *L)
{
    bool paused = L->pause_mask != 0;
    if (paused == L->notified_paused)
        return;
    L->notified_paused = paused;
    if (L->input != NULL)
        L->input_paused(L->input, paused);
    tell_sources_pause(L);
    if (!paused)
        apply_present(L, tempo__loop_pace_reset(L));
    if (L->on_pause != NULL) {
        uint64_t a = loop_now(L);
        L->on_pause(L, paused, L->user);
        L->frame_game_ns += loop_now(L) - a;
    }
}

/* ---- Events ------------------------------------------------------------------------- */

/* Most SDL events one frame dispatches. An event callback that pushes an
 * event for every event it gets would otherwise keep the frame forever; the
 * rest stay queued and make the next wait return at once. */
#define MAX_EVENTS_PER_FRAME 1024

/* Applies what a window event asked for (loop_events.c's verdict). */
static void apply_window(tempo_loop *L, tempo__window_verdict v)
{
    L->pause_mask = (L->pause_mask & ~v.pause_clear) | v.pause_set;
    if (v.dirty)
        L->sched.dirty = true;
    if (v.shown)
        apply_present(L, tempo__loop_window_shown(L, v.reprobe));
    if (v.display_changed)
        apply_present(L, tempo__loop_display_changed(L));
}

/* Dispatches SDL's queue. `pump`: read new window-system input first
 * (SDL_PollEvent). Without it the queue is drained as it is: the message
 * wait pumped it just before deciding why it returned. Window state is
 * applied before the event is handed on (tempo__loop_deliver_event: input
 * stamped `wake_ns`). */
static void dispatch_events(tempo_loop *L, bool pump, uint64_t wake_ns)
{
    if (!SDL_WasInit(SDL_INIT_EVENTS))
        return;
    SDL_Event e;
    for (int i = 0; i < MAX_EVENTS_PER_FRAME; i++) {
        int got = pump ? SDL_PollEvent(&e) : SDL_PeepEvents(&e, 1, SDL_GETEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT);
        if (got <= 0)
            break;
        if (e.type == SDL_WINDOWEVENT)
            apply_window(L, tempo__loop_window_event(L, &e.window));
        L->sched.event_dirty = true;
        tempo__loop_deliver_event(L, &e, wake_ns);
    }
}

/* ---- The frame ----------------------------------------------------------------------- */

/* Paused only because presents are withheld (the hidden-pause on Wayland):
 * the loop still probes. */
static bool withheld_pause_only(const tempo_loop *L)
{
    return L->pause_mask == PAUSE_WITHHELD && L->sched.pace.pacing == TEMPO_LOOP_PACING_WITHHELD;
}

/* The deadline a source's dispatch gets: the next due update or render. */
static uint64_t source_deadline(const tempo_loop *L, uint64_t now)
{
    /* While paused there is no schedule: a paused frame is one step (a
     * source woken long after the last one gets a step from now). */
    if (L->pause_mask != 0) {
        uint64_t d = L->reg.frame_seq_ns + L->sched.step_ns;
        return d > now ? d : now + L->sched.step_ns;
    }
    if (L->sched.display_driven) {
        const tempo__sched *s = &L->sched;
        return tempo__sched_display_source_by(s, L->wake_ns);
    }
    return tempo__sched_next_deadline(&L->sched, now);
}

/* Pausing and resuming re-arm every parked source: a parking taken before a
 * pause must not last the whole pause (nor one taken while paused last past
 * the resume). */
static void source_pause_edge(tempo_loop *L, uint64_t now)
{
    bool p = L->pause_mask != 0;
    if (p != L->src_paused) {
        L->src_paused = p;
        tempo__loop_new_source_frame(L, now);
    }
}

/* While paused, parked work gets a frame every step. */
static void paused_source_frame(tempo_loop *L, uint64_t now)
{
    if (L->pause_mask != 0 && tempo__loop_any_parked(L) && now >= L->reg.frame_seq_ns + L->sched.step_ns)
        tempo__loop_new_source_frame(L, now);
}

int tempo_loop_frame(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_frame: loop is NULL");
    if (L->in_frame)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_frame: called from inside a frame (a loop callback)");
    if (atomic_load(&L->quit)) {
        note_quit(L);
        return 1;
    }
    L->in_frame = true;
    L->frame_game_ns = 0;
    L->frame_ran = false;

    uint64_t t0 = loop_now(L);
    if (!L->started) {
        L->started = true;
        tempo__stats_start(&L->st, t0);
        /* the measurement tempo__loop_present_start began */
        L->st.win.probes = L->sched.pace.pacing == TEMPO_LOOP_PACING_PROBING;
        rebase(L, t0);
        L->sched.dirty = true;
        tempo__loop_sources_start(L, t0);
    }
    if (atomic_exchange(&L->render_requested, false))
        L->sched.dirty = true;
    L->frame_present_ns = 0;
    note_pause(L); /* a pause asked for between frames: suspend before the wait */
    /* A pacer wake in the past (no render was wanted for a while, or the
     * frame ran late) is left there: the render is due at once, its present
     * blocks until the next vblank and the pacer sets the following wake.
     * (Moving it forward could keep pushing the render away while frames
     * run late.) */

    tempo__loop_sync_native_input(L);
    source_pause_edge(L, t0);
    paused_source_frame(L, t0);
    frame_wait fw;
    fw.nsnap = 0;
    for (int i = 0; i < L->reg.nwatch; i++) {
        const tempo__watch *w = &L->reg.watches[i];
        if (w->src.parked)
            continue; /* a source out of the wait until the next frame */
        fw.snap[fw.nsnap++] = *w;
    }
    memset(fw.fired, 0, sizeof fw.fired[0] * (size_t)fw.nsnap);
    fw.messages = false;
    bool paused_before = L->pause_mask != 0;
    uint64_t deadline = paused_before ? TEMPO_INFINITE : tempo__sched_next_deadline(&L->sched, t0);
    if (paused_before && tempo__loop_any_parked(L))
        deadline = L->reg.frame_seq_ns + L->sched.step_ns; /* the next paused frame */
    if (withheld_pause_only(L) && L->sched.pace.withheld_probe_ns < deadline)
        deadline = L->sched.pace.withheld_probe_ns; /* paused for withheld presents: keep probing */
    if (tempo__loop_any_ready(L))
        deadline = t0; /* work remains and may go on now: do not sleep */
    int rc = L->wait(L, &fw, t0, deadline); /* fills fw: the wake and every fired watch */
    if (rc == TEMPO_EINVAL)
        tempo__loop_name_dead_watch(&fw);
    uint64_t t1 = loop_now(L);
    uint64_t wait_ns = fw.slept ? t1 - t0 : 0;
    /* Time nothing of the loop ran: since the previous frame ended, and
     * past the wait's deadline (a process suspended in its sleep). */
    L->absent_ns = L->prev_end_ns != 0 && t0 > L->prev_end_ns ? t0 - L->prev_end_ns : 0;
    if (fw.slept && deadline != TEMPO_INFINITE) {
        uint64_t from = deadline > t0 ? deadline : t0;
        L->absent_ns += t1 > from ? t1 - from : 0;
    }
    L->st.sleep_since_render_ns += wait_ns; /* before this frame's render */
    if (rc < 0) {
        L->in_frame = false;
        return rc;
    }
    if (atomic_exchange(&L->render_requested, false))
        L->sched.dirty = true;
    if (atomic_load(&L->quit) && fw.wake != TEMPO_LOOP_WAKE_DUE)
        fw.wake = TEMPO_LOOP_WAKE_SIGNAL;

    /* Events first (they may pause, resume or quit), then the watches and
     * sources in the order they were added. */
    L->wake_ns = t1;
    dispatch_events(L, fw.messages, t1);
    source_pause_edge(L, t1);
    paused_source_frame(L, t1);
    int src_err = 0;
    for (int j = 0; j < fw.nsnap; j++) {
        int i = tempo__loop_find_watch(L, fw.snap[j].handle);
        if (i < 0 || L->reg.watches[i].id != fw.snap[j].id)
            continue; /* unwatched (or re-watched) by an earlier callback */
        const tempo__watch *w = &L->reg.watches[i];
        if (w->source >= 0) {
            if (w->src.parked || !(fw.fired[j] || w->src.more))
                continue;
            uint64_t now = loop_now(L);
            tempo__dispatch_verdict v = tempo__loop_dispatch_source(L, i, now, source_deadline(L, now));
            L->frame_game_ns += v.game_ns;
            if (v.err < 0 && src_err == 0)
                src_err = v.err;
            continue;
        }
        if (!fw.fired[j])
            continue;
        /* A watch: its callback (which may change the table). */
        tempo_loop_watch_fn fn = w->fn;
        tempo_handle *handle = w->handle;
        void *user = w->user;
        uint64_t a = loop_now(L);
        fn(L, handle, user);
        L->frame_game_ns += loop_now(L) - a;
    }

    note_pause(L);
    bool paused = L->pause_mask != 0;
    if (!paused && L->game_resumed) {
        L->game_resumed = false;
        rebase(L, loop_now(L)); /* the game's pause ended: no catch-up */
        realign(L);
    }
    if (!paused && L->was_paused) {
        /* Resume: no catch-up for the time spent paused. */
        uint64_t now = loop_now(L);
        rebase(L, now);
        L->sched.dirty = true;
        L->st.last_render_ns = 0; /* the pause is not a frame interval */
    }
    L->was_paused = paused;
    if (!paused && !atomic_load(&L->quit)) {
        uint64_t t = loop_now(L);
        bool variable_ran = false;
        if (L->sched.game_paused)
            ; /* game time stands still; the menu still renders */
        else if (L->sched.policy == TEMPO_LOOP_VARIABLE)
            variable_ran = run_variable_update(L, t);
        else
            run_fixed_updates(L, t);
        /* A frame drawn earlier may have waited for these updates (its
         * present would have blocked past them): present it now, unless
         * the next one is due before its vblank as well. */
        apply_present(L, tempo__loop_present_waiting(L, false, next_update_for_wait(L)));
        maybe_render(L, variable_ran);
    } else if (withheld_pause_only(L) && !atomic_load(&L->quit)) {
        /* Paused because presents are withheld: a probe render and present
         * every WITHHELD_PROBE_NS tells when the compositor shows the
         * window again (nothing else does on Wayland). */
        uint64_t t = loop_now(L);
        if (t >= L->sched.pace.withheld_probe_ns) {
            L->sched.last_due_ns = 0;
            L->sched.last_render_ns = t;
            tempo__stats_render(&L->st, t);
            call_render(L, alpha_at(L, t));
            if (L->owns_present)
                apply_present(L, tempo__loop_present(L, t, next_update_for_wait(L)));
        }
    }

    /* Paused or quitting: a present that waited for an update waits no more
     * (quitting, it is dropped). */
    if (L->pause_mask != 0 || atomic_load(&L->quit))
        apply_present(L, tempo__loop_present_waiting(L, true, next_update_for_wait(L)));

    /* A pause asked for by update() or render() starts after this frame:
     * remember it, so the frame that resumes (maybe the very next one,
     * woken by input) restarts the schedule instead of catching up. */
    L->was_paused = L->pause_mask != 0;
    note_pause(L);
    /* Blocked in the present is waiting too (after this frame's render, so
     * it belongs to the next render interval's sleep). */
    L->st.sleep_since_render_ns += L->frame_present_ns;
    uint64_t t_end = loop_now(L);
    L->prev_end_ns = t_end;
    if (L->sched.pace.pacing == TEMPO_LOOP_PACING_WITHHELD)
        L->st.win.withheld_ns += t_end - t0;
    if (L->frame_ran)
        tempo__loop_new_source_frame(L, t_end); /* parked sources get their next turn */
    source_pause_edge(L, t_end);
    uint64_t win_start = L->st.win_start_ns;
    tempo__stats_frame(&L->st, fw.wake, t0, t_end, wait_ns + L->frame_present_ns, L->frame_game_ns,
                       paused_before && fw.slept);
    if (L->st.win_start_ns != win_start)
        tempo__loop_sources_roll_window(L);
    L->in_frame = false;
    if (src_err < 0)
        return src_err;
    note_quit(L);
    return atomic_load(&L->quit) ? 1 : 0;
}

int tempo_loop_display_frame(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_display_frame: loop is NULL");
    if (L->in_frame)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_display_frame: called from inside a frame (a loop callback)");
    L->sched.display_driven = true;
    L->sched.in_display_frame = true;
    L->sched.last_display_ns = loop_now(L);
    int r = tempo_loop_frame(L);
    L->sched.in_display_frame = false;
    return r;
}

uint64_t tempo_loop_next_due_ns(const tempo_loop *L)
{
    if (L == NULL || L->pause_mask != 0)
        return TEMPO_INFINITE;
    uint64_t now = loop_now(L);
    /* The first frame starts the schedule with an update at once. */
    return L->started ? tempo__sched_next_deadline(&L->sched, now) : now;
}
