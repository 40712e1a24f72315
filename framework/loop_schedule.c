/* The loop's scheduling decisions (loop_schedule.h): pure functions of the
 * schedule's state (a tempo__sched) and the times passed in, and the exact
 * schedule arithmetic under them (tempo__sched_at/_count, loop_internal.h).
 * Calls nothing of the loop's other files. */
#include "loop_schedule.h"

#include "loop_internal.h" /* tempo__sched_at, tempo__sched_count (defined here) */

/* The largest float below 1: alpha must stay in [0,1) even when the float
 * conversion of a value just below 1 rounds up. */
#define ALPHA_MAX 0x1.fffffep-1f

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* ---- Exact schedules (loop_internal.h) ------------------------------------- */

#define NS_PER_S UINT64_C(1000000000)

uint64_t tempo__sched_at(uint64_t epoch_ns, uint32_t hz, uint64_t k)
{
    /* floor(k * 1e9 / hz) without overflowing k * 1e9: split k = q*hz + r,
     * then k*1e9/hz = q*1e9 + r*1e9/hz exactly (r*1e9 < hz*1e9 fits). */
    uint64_t q = k / hz, r = k % hz;
    if (q > (UINT64_MAX - NS_PER_S) / NS_PER_S)
        return UINT64_MAX;
    uint64_t off = q * NS_PER_S + r * NS_PER_S / hz;
    return off > UINT64_MAX - epoch_ns ? UINT64_MAX : epoch_ns + off;
}

uint64_t tempo__sched_count(uint64_t epoch_ns, uint32_t hz, uint64_t t)
{
    if (t < epoch_ns)
        return 0;
    /* Slot k is due iff floor(k*1e9/hz) <= e  <=>  k*1e9 < (e+1)*hz
     * <=>  k <= ((e+1)*hz - 1) / 1e9, so count = ((e+1)*hz - 1)/1e9 + 1.
     * With e+1 = a*1e9 + b: (e+1)*hz = a*hz*1e9 + b*hz. */
    uint64_t e = t - epoch_ns;
    uint64_t e1 = e == UINT64_MAX ? e : e + 1; /* off by one at the end of time only */
    uint64_t a = e1 / NS_PER_S, b = e1 % NS_PER_S;
    if (b == 0)
        return a * hz;
    return a * hz + (b * hz - 1) / NS_PER_S + 1;
}

/* ---- Decisions ---------------------------------------------------------- */

uint32_t tempo__sched_pace_hz(const tempo__sched *s)
{
    if (s->render_hz != 0)
        return s->render_hz;
    return s->pace.pacing == TEMPO_LOOP_PACING_TIMER ? s->pace.display_hz : 0;
}

uint64_t tempo__sched_next_tick_ns(const tempo__sched *s)
{
    return tempo__sched_at(s->epoch_ns, s->update_hz, s->tick);
}

/* LOCKSTEP's renders follow its ticks and ignore the pace, except in the
 * game's pause, where no tick runs. */
bool tempo__sched_render_scheduled(const tempo__sched *s)
{
    return s->policy != TEMPO_LOOP_LOCKSTEP || s->game_paused;
}

/* With vsync, when the next render is due apart from the slot schedule:
 * the pacer's wake, and not before the floor. A present that does not
 * block (vsync refused by the driver or compositor, SDL's offscreen
 * software renderer, whatever the renderer flags say) must not make the
 * loop spin, locked or not: with jittery render costs its returns look like
 * a faster display and the pacer would follow them. So never more than one
 * render per nominal refresh period (the display mode's, or
 * desc.display_hz), less 1/16 for a display slightly faster than its
 * integer mode (59.94 vs 60) and for wake-up jitter. A blocking present
 * paces the loop anyway; a display faster than its mode says gets the
 * mode's rate unless the game sets desc.display_hz.
 * The floor counts from when the previous render was due, not from when it
 * ran: a render that woke 2 ms late would otherwise hold the next one back
 * by 1 ms (a sixteenth of a period less), and that one the next, each
 * taking its lateness out of the lead the pacer keeps before its vblank and
 * counting it as render cost. Renders stay half a period apart at least. */
static uint64_t vsync_due_ns(const tempo__sched *s)
{
    uint64_t due = s->pace.pace_wake_ns;
    if (s->last_render_ns != 0) {
        uint64_t nominal = s->pace.nominal_period_ns;
        uint64_t from = s->last_due_ns != 0 && s->last_due_ns < s->last_render_ns ? s->last_due_ns
                                                                                  : s->last_render_ns;
        uint64_t floor = max_u64(from + nominal - nominal / 16, s->last_render_ns + nominal / 2);
        due = max_u64(due, floor);
    }
    return due;
}

/* The next slot of the pace (cap or display rate), and with vsync not
 * before the pacer's wake nor the floor (vsync_due_ns). `due` gets when
 * the render is due apart from `now`: vsync_due_ns in the vsync branch,
 * else `now`; `vblank` the vblank the pacer's wake aims at in that branch,
 * else 0. */
static uint64_t render_slot(const tempo__sched *s, uint64_t now, uint64_t *due, uint64_t *vblank)
{
    *due = now;
    *vblank = 0;
    if (s->pace.pacing == TEMPO_LOOP_PACING_WITHHELD)
        return s->pace.withheld_probe_ns; /* renders only as the probe */
    if (s->pace.present_by_ns != 0)
        return UINT64_MAX; /* the frame drawn waits for its present: no other before it */
    /* The host calls a frame per displayed frame (tempo_loop_display_frame):
     * the display is the vsync, so a render happens in such a frame and
     * only there. A slot schedule of our own would beat against the
     * display's: with both at 60 Hz and a slot a hair after the display's
     * call, every other displayed frame would go without a render. A render
     * cap still holds. */
    if (s->display_driven) {
        if (!s->in_display_frame)
            return UINT64_MAX; /* TEMPO_INFINITE: not before the next display frame */
        if (s->render_hz == 0 || !tempo__sched_render_scheduled(s))
            return now;
        uint64_t cap = tempo__sched_at(s->epoch_ns, s->render_hz, s->slot);
        return cap > now ? cap : now;
    }
    /* LOCKSTEP renders after its ticks: its probe renders alternate
     * between the tick and a quarter period after it, and wait for the
     * probe's instant after the previous return as well (a present that
     * blocks past the next tick would otherwise put every call right
     * after a return, a quarter period apart from nothing). */
    if (s->pace.pacing == TEMPO_LOOP_PACING_PROBING && !tempo__sched_render_scheduled(s)) {
        uint64_t at = s->last_update_ns + (s->pace.probe_n % 2 ? s->pace.probe_period_ns / 4 : 0);
        if (s->pace.pace_wake_ns > at)
            at = s->pace.pace_wake_ns; /* and never right after the previous return */
        return at > now ? at : now;
    }
    if (!tempo__sched_render_scheduled(s))
        return now;
    uint32_t hz = tempo__sched_pace_hz(s);
    uint64_t slot = hz != 0 ? tempo__sched_at(s->epoch_ns, hz, s->slot) : now;
    if (hz != 0 && s->pace.slot_shift_ns != 0) /* a re-measurement of the timer's presents */
        slot = slot > s->pace.slot_shift_ns ? slot - s->pace.slot_shift_ns : 0;
    if (s->pace.pacing == TEMPO_LOOP_PACING_PROBING) {
        /* The probe's call times (tempo__probe_wake_ns); never before the
         * previous present returned, so a probe does not spin. */
        if (s->pace.pace_wake_ns > slot)
            slot = s->pace.pace_wake_ns;
    } else if (s->pace.vsync) {
        *due = vsync_due_ns(s);
        *vblank = s->pace.pace_vblank_ns;
        slot = max_u64(slot, *due);
    }
    return slot;
}

uint64_t tempo__sched_render_slot_ns(const tempo__sched *s, uint64_t now)
{
    uint64_t due, vblank;
    return render_slot(s, now, &due, &vblank);
}

tempo__sched_render tempo__sched_render_at(const tempo__sched *s, uint64_t now)
{
    tempo__sched_render r;
    r.slot = render_slot(s, now, &r.due, &r.vblank);
    r.due = min_u64(r.due, now);
    return r;
}

uint64_t tempo__sched_display_source_by(const tempo__sched *s, uint64_t frame_start_ns)
{
    uint64_t period = s->pace.display_hz != 0 ? (1000000000ull + s->pace.display_hz / 2) / s->pace.display_hz : 0;
    uint64_t by = s->in_display_frame ? frame_start_ns + period / 2 : s->last_display_ns + period;
    if (!s->game_paused && s->policy != TEMPO_LOOP_VARIABLE)
        by = min_u64(by, tempo__sched_next_tick_ns(s));
    return by;
}

bool tempo__sched_ticks_at_render(const tempo__sched *s)
{
    return s->low_latency && s->pace.vsync && s->pace.pace_vblank_ns != 0 && s->render_hz == 0 &&
           (s->policy == TEMPO_LOOP_INTERPOLATED || s->policy == TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS) &&
           !s->game_paused && !s->display_driven && s->pace.present_by_ns == 0;
}

uint64_t tempo__sched_tick_horizon(const tempo__sched *s, uint64_t now)
{
    if (!tempo__sched_ticks_at_render(s))
        return now;
    uint64_t v = s->pace.pace_vblank_ns;
    if (v <= now)
        return now; /* the vblank is past (no render since): the ticks due now */
    if (now >= tempo__sched_render_slot_ns(s, now))
        return v - 1; /* the render's wake: every tick its frame shows */
    return 0; /* before the wake (input, a source): the ticks wait for it */
}

bool tempo__sched_render_wanted(const tempo__sched *s, bool variable_ran)
{
    if (s->pace.pacing == TEMPO_LOOP_PACING_WITHHELD)
        return true; /* the probe: the only way to learn that presents come back */
    if (s->game_paused)
        return true; /* the pause menu animates at the render pace */
    switch (s->policy) {
    case TEMPO_LOOP_INTERPOLATED:
        return !s->on_demand || s->dirty || s->event_dirty;
    case TEMPO_LOOP_VARIABLE:
        return variable_ran || s->dirty;
    default: /* LOCKSTEP and CONSTANT_SPEED_MAX_FPS: after updates, or when asked */
        return s->dirty;
    }
}

/* When a render cap is below update_hz / max_frameskip, the updates one
 * render interval holds, so a low cap does not slow the game down. */
uint64_t tempo__sched_updates_per_render(const tempo__sched *s)
{
    if (s->policy == TEMPO_LOOP_LOCKSTEP)
        return 1;
    uint64_t limit = s->max_frameskip;
    /* The render rate: the cap, the display rate, or the vblanks (the
     * display rate is their nominal rate). */
    uint32_t pace = tempo__sched_pace_hz(s);
    uint32_t hz = pace != 0 ? pace : s->pace.display_hz;
    uint64_t per = (s->update_hz + hz - 1) / hz;
    if (per > limit)
        limit = per;
    return limit;
}

bool tempo__sched_updates_blocked(const tempo__sched *s)
{
    /* Withheld presents: no render to wait for; updates keep the clock. */
    return s->policy != TEMPO_LOOP_VARIABLE && s->pace.pacing != TEMPO_LOOP_PACING_WITHHELD &&
           s->updates_since_render >= tempo__sched_updates_per_render(s);
}

uint64_t tempo__sched_next_deadline(const tempo__sched *s, uint64_t now)
{
    if (s->pace.present_by_ns != 0) {
        /* A rendered frame's present waits for the next update (it would
         * block past it): wake for the update, or for the present if the
         * update cannot run (the game's pause, the catch-up limit). */
        if (s->game_paused || s->policy == TEMPO_LOOP_VARIABLE || tempo__sched_updates_blocked(s))
            return s->pace.present_by_ns;
        return min_u64(tempo__sched_next_tick_ns(s), s->pace.present_by_ns);
    }
    uint64_t slot = tempo__sched_render_slot_ns(s, now);
    if (s->game_paused)
        return slot; /* no ticks while the game is paused */
    uint64_t tick = tempo__sched_next_tick_ns(s);
    /* Low latency: a tick due before the vblank the next render aims at
     * runs at that render's wake (tempo__sched_tick_horizon), not alone. */
    if (tempo__sched_ticks_at_render(s) && tick < slot && tick < s->pace.pace_vblank_ns)
        tick = slot;
    switch (s->policy) {
    case TEMPO_LOOP_VARIABLE:
        return slot; /* a frame (update + render) per render slot */
    case TEMPO_LOOP_INTERPOLATED:
        if (!tempo__sched_render_wanted(s, false))
            return tick;
        break;
    default:
        if (!s->dirty)
            return tick;
        break;
    }
    /* A render is owed: when the catch-up limit is used up, only the render
     * slot counts (the overdue ticks wait for it). */
    return tempo__sched_updates_blocked(s) ? slot : min_u64(tick, slot);
}

uint64_t tempo__sched_realigned_slot(const tempo__sched *s)
{
    uint32_t hz = tempo__sched_pace_hz(s);
    return hz && s->last_render_ns >= s->epoch_ns
               ? tempo__sched_count(s->epoch_ns, hz, s->last_render_ns + s->pace.slot_shift_ns)
               : 0;
}

uint64_t tempo__sched_slot_after_render(const tempo__sched *s, uint64_t t)
{
    uint32_t hz = tempo__sched_pace_hz(s);
    return hz != 0 ? tempo__sched_count(s->epoch_ns, hz, t + s->pace.slot_shift_ns) : s->slot;
}

float tempo__sched_alpha(const tempo__sched *s, uint64_t t)
{
    if (s->policy != TEMPO_LOOP_INTERPOLATED || s->tick == 0)
        return 0.0f;
    uint64_t prev = s->last_update_ns, next = tempo__sched_next_tick_ns(s);
    if (t <= prev || next <= prev)
        return 0.0f;
    if (t >= next)
        return ALPHA_MAX; /* behind schedule: the most extrapolation allowed */
    float a = (float)((double)(t - prev) / (double)(next - prev));
    return a < ALPHA_MAX ? a : ALPHA_MAX;
}

uint64_t tempo__sched_variable_dt(const tempo__sched *s, uint64_t t, bool *stall)
{
    uint64_t dt = t >= s->last_update_ns ? t - s->last_update_ns : 0;
    *stall = dt > s->max_gap_ns;
    return *stall ? s->step_ns : dt; /* a stall drops the gap: one nominal step */
}

tempo__sched_plan tempo__sched_plan_fixed(const tempo__sched *s, uint64_t t, uint64_t absent_ns)
{
    tempo__sched_plan p = {0};
    p.due_ns = tempo__sched_next_tick_ns(s);
    if (t < p.due_ns)
        return p;
    /* The catch-up cap bounds the updates between two renders, not per
     * frame: a frame that cannot render yet (render cap) must not be
     * followed by another batch. The overdue ticks wait for the render. */
    uint64_t per_render = tempo__sched_updates_per_render(s);
    if (tempo__sched_updates_blocked(s))
        return p;
    p.run = true;
    p.limit = s->pace.pacing == TEMPO_LOOP_PACING_WITHHELD ? UINT64_MAX : per_render - s->updates_since_render;
    p.late_ns = t - p.due_ns;
    p.pending = tempo__sched_count(s->epoch_ns, s->update_hz, t) - s->tick;
    if (p.late_ns <= s->max_gap_ns)
        return p;
    if (absent_ns > s->max_gap_ns) {
        /* A stall: the loop did not run at all for longer than the clamp
         * (a suspended process, a debugger, a clock jump). Drop what is
         * owed and restart at the present. */
        p.clamp = TEMPO__SCHED_STALL;
        p.dropped = p.pending - 1;
        p.pending = 1;
    } else {
        /* A slow machine: the loop ran all along (renders or updates
         * slower than the schedule). Keep the debt at max_gap instead of
         * throwing it away, so up to max_frameskip updates still run per
         * render and the game slows down only as far as it must
         * (deWiTTERS' loop); what is given up is game time behind the wall
         * clock (slowdown_ns). */
        p.clamp = TEMPO__SCHED_DEBT_CAP;
        p.new_epoch_ns = t - s->max_gap_ns;
        p.slowdown_ns = p.new_epoch_ns - p.due_ns;
        p.pending = tempo__sched_count(p.new_epoch_ns, s->update_hz, t);
    }
    return p;
}

/* The presents were found to block on vblanks, one returned at `t`: the
 * update ticks (the epoch) move later by less than a period, once, so that
 * they fall an eighth of a period after a vblank, between a present's return and the
 * next render, rather than inside that render or the blocked present
 * (issue 36 item 10). SDL3 simulating vsync starts its 60 Hz grid (1/60 s
 * steps in whole nanoseconds) at the first present, one frame of work
 * after the schedule started: every 10 Hz update then fell due
 * that long before a grid point, in the next frame's render or present,
 * and landed 7-8 ms late. The eighth (2.1 ms at 60 Hz) leaves room for a
 * present whose own work ran past the vblank (SDL3's grid does not wait
 * for a late present, and its work under Xvfb is ~2.3 ms) and for the
 * loop's own work after a present (an update due right at the return ran
 * ~0.1 ms late there, one woken by its timer ~0.05 ms), and the next render
 * may still start up to 7/8 of a period before its vblank. Only for games
 * whose updates all fall on one phase of the vblanks (below), and only for
 * the fixed policies whose renders follow the pacer (LOCKSTEP renders after
 * its ticks; VARIABLE has none), not in the game's pause. The next update
 * interval is longer by the move (the interpolation stretches over it, no
 * jump); the game time given up is the move, under a period. A display that
 * drifts against the ticks (59.94 Hz) moves them into the render and the
 * present again: the present then waits for them (tempo__pacer_may_wait). */
uint64_t tempo__sched_phase_move(const tempo__sched *s, uint64_t t)
{
    if (s->policy == TEMPO_LOOP_VARIABLE || s->policy == TEMPO_LOOP_LOCKSTEP || s->game_paused)
        return 0;
    /* The display mode's period, not the fit's: the fit is a few returns
     * old here (the probe's verdict), and can be a fraction of a
     * millisecond off. */
    uint64_t P = s->pace.nominal_period_ns;
    /* Every update on one phase of the vblanks: an update every n frames,
     * n >= 2 (10 Hz on 60 or 59.94 Hz: 6 frames, the phase moving 0.1 ms an
     * update on the latter). An update every frame or more falls in a
     * render or present whatever the phase (the present waits for it), and
     * a move would only cost it the wake-up it may share with a present's
     * return; at other rates (45 Hz on 60: 4/3 of a frame) the updates fall
     * on several phases, and a move only changes which one the next render
     * meets (one did: 3.5 ms late where none had been). */
    uint64_t n = (s->step_ns + P / 2) / P;
    uint64_t off = s->step_ns > n * P ? s->step_ns - n * P : n * P - s->step_ns;
    /* Low latency with an update every frame: the ticks run at the render
     * wakes (tempo__sched_tick_horizon), whatever their phase; the phase
     * only decides which render a tick belongs to, so keep it half a
     * period from the vblank that decides it (the fit's jitter would
     * otherwise give one render two ticks and the next none). */
    bool mid = s->low_latency && n == 1;
    if ((n < 2 && !mid) || n == 0 || off > P / 16)
        return 0;
    uint64_t due = tempo__sched_at(s->epoch_ns, s->update_hz, s->tick);
    uint64_t want = t + (mid ? P / 2 : P / 8);
    uint64_t move = want >= due ? (want - due) % P : P - (due - want) % P;
    /* Already there, give or take a sixteenth (a second verdict, or a
     * display that drifted a little since): a move of almost a whole
     * period would only give up game time. */
    if (move < P / 16 || move > P - P / 16)
        return 0;
    return move;
}
