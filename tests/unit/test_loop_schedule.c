/* Unit tests of the loop's scheduling decisions (framework/loop_schedule.c),
 * called directly: every time below is a number the test chooses, no loop,
 * no clock, no SDL. The same decisions are pinned end to end by test_loop,
 * test_loop_pacing and test_loop_pause; here each one is checked alone. */
#include "harness.h"
#include "loop_internal.h"
#include "loop_schedule.h"

#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)

/* A 60 Hz INTERPOLATED loop on timer pacing at 60 Hz, schedule started at T0
 * with tick 0 due (the state after the first frame's rebase). */
static tempo__sched base(void)
{
    return (tempo__sched){
        .policy = TEMPO_LOOP_INTERPOLATED,
        .update_hz = 60,
        .max_frameskip = 5,
        .max_gap_ns = 250 * MS,
        .step_ns = 16666667,
        .pace = {.pacing = TEMPO_LOOP_PACING_TIMER, .display_hz = 60, .nominal_period_ns = 16666667},
        .epoch_ns = T0,
        .last_update_ns = T0 - 16666667,
        .dirty = true,
    };
}

/* Paced by vsync on a display whose mode says a 16 ms period. */
static tempo__sched vsync_base(void)
{
    tempo__sched s = base();
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.vsync = true;
    s.pace.nominal_period_ns = 16 * MS;
    return s;
}

static void ticks_follow_the_absolute_schedule(void)
{
    tempo__sched s = base();
    CHECK_EQ_U64(tempo__sched_next_tick_ns(&s), T0);
    s.tick = 1;
    CHECK_EQ_U64(tempo__sched_next_tick_ns(&s), T0 + 16666666);
    s.tick = 3;
    CHECK_EQ_U64(tempo__sched_next_tick_ns(&s), T0 + 50 * MS); /* floor(3e9/60) exactly */
    s.tick = 60 * 3600; /* an hour later: no drift */
    CHECK_EQ_U64(tempo__sched_next_tick_ns(&s), T0 + 3600 * S);
}

static void pace_is_the_cap_else_the_display_on_timer_pacing(void)
{
    tempo__sched s = base();
    CHECK_EQ_INT(tempo__sched_pace_hz(&s), 60);
    s.render_hz = 144;
    CHECK_EQ_INT(tempo__sched_pace_hz(&s), 144);
    s.render_hz = 0;
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.vsync = true;
    CHECK_EQ_INT(tempo__sched_pace_hz(&s), 0); /* the vblanks pace */
}

static void render_on_demand_renders_only_when_asked(void)
{
    tempo__sched s = base();
    s.on_demand = true;
    s.dirty = false;
    CHECK(!tempo__sched_render_wanted(&s, false));
    s.event_dirty = true; /* an SDL event arrived */
    CHECK(tempo__sched_render_wanted(&s, false));
    s.event_dirty = false;
    s.dirty = true; /* an update, a request, an expose */
    CHECK(tempo__sched_render_wanted(&s, false));
    /* Not on demand: every slot renders (interpolation shows motion). */
    s.on_demand = false;
    s.dirty = false;
    CHECK(tempo__sched_render_wanted(&s, false));
    /* Asleep until the next tick while nothing is owed. */
    s.on_demand = true;
    s.tick = 4;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, T0 + 60 * MS), T0 + 66666666);
}

static void render_wanted_per_policy(void)
{
    tempo__sched s = base();
    s.dirty = false;
    s.policy = TEMPO_LOOP_LOCKSTEP;
    CHECK(!tempo__sched_render_wanted(&s, false));
    s.policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS;
    CHECK(!tempo__sched_render_wanted(&s, false));
    s.dirty = true;
    CHECK(tempo__sched_render_wanted(&s, false));
    s.dirty = false;
    s.policy = TEMPO_LOOP_VARIABLE;
    CHECK(!tempo__sched_render_wanted(&s, false));
    CHECK(tempo__sched_render_wanted(&s, true)); /* its update ran */
    /* The game's pause menu and the withheld probe render regardless. */
    s.game_paused = true;
    CHECK(tempo__sched_render_wanted(&s, false));
    s.game_paused = false;
    s.pace.pacing = TEMPO_LOOP_PACING_WITHHELD;
    CHECK(tempo__sched_render_wanted(&s, false));
}

static void skipped_renders_owe_nothing(void)
{
    /* After updates that all called tempo_loop_skip_render(), the loop has
     * dirty false and has not counted them toward the catch-up limit: no
     * render is wanted, updates are not blocked, and the loop sleeps until
     * the next tick (not the next render slot). */
    tempo__sched s = base();
    s.policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS;
    s.dirty = false;
    s.tick = 10;
    s.updates_since_render = 0;
    CHECK(!tempo__sched_render_wanted(&s, false));
    CHECK(!tempo__sched_updates_blocked(&s));
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, T0 + 160 * MS), tempo__sched_next_tick_ns(&s));
}

static void render_slots_follow_the_cap_on_the_update_epoch(void)
{
    tempo__sched s = base();
    s.render_hz = 30;
    s.slot = 1;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 1 * MS), T0 + 33333333);
    s.slot = 2;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 1 * MS), T0 + 66666666);
    /* The first slot after the last render, once the epoch moved. */
    s.last_render_ns = T0 + 40 * MS;
    CHECK_EQ_U64(tempo__sched_realigned_slot(&s), 2); /* slots 0 (T0) and 1 (T0+33.3) passed */
    s.last_render_ns = T0 - 1; /* before this epoch */
    CHECK_EQ_U64(tempo__sched_realigned_slot(&s), 0);
    /* LOCKSTEP renders after its ticks: at once, whatever the pace. */
    s.policy = TEMPO_LOOP_LOCKSTEP;
    CHECK(!tempo__sched_render_scheduled(&s));
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 5 * MS), T0 + 5 * MS);
    s.game_paused = true; /* no ticks: the pace schedules its renders */
    CHECK(tempo__sched_render_scheduled(&s));
}

/* TIMER's re-measurement moves the render phase a quarter period earlier
 * per pair (slot_shift_ns): the paced slot comes that much earlier, and
 * the slot counts (after a render, after the epoch moved) are made on the
 * shifted schedule, so a render made early does not count as the slot
 * before it and render again on the unshifted one. */
static void timer_slots_move_by_the_shift(void)
{
    tempo__sched s = base();
    const uint64_t P = 16666667, q = P / 4; /* 4166666 */
    s.slot = 5;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 70 * MS), T0 + 83333333);
    s.pace.slot_shift_ns = q;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 70 * MS), T0 + 83333333 - q);
    /* A render on the shifted slot 5: the next one is slot 6 (unshifted,
     * it would be slot 5 again, 4.2 ms later). */
    uint64_t t = T0 + 83333333 - q;
    CHECK_EQ_U64(tempo__sched_slot_after_render(&s, t), 6);
    s.last_render_ns = t;
    CHECK_EQ_U64(tempo__sched_realigned_slot(&s), 6);
    s.pace.slot_shift_ns = 0;
    CHECK_EQ_U64(tempo__sched_slot_after_render(&s, t), 5);
    CHECK_EQ_U64(tempo__sched_realigned_slot(&s), 5);
    /* The next pair's shift: slot 6 half a period early, 3/4 of a period
     * after the render above. */
    s.slot = 6;
    s.pace.slot_shift_ns = 2 * q;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 80 * MS), T0 + 100 * MS - 2 * q);
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 80 * MS) - t, P - q);
    /* Never before the epoch's start at 0 (a shift larger than the slot's time). */
    tempo__sched z = base();
    z.epoch_ns = 0;
    z.pace.slot_shift_ns = q;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&z, 0), 0);
    /* The vblanks pace (no slot schedule): the shift and the slot count
     * do not apply. */
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.vsync = true;
    s.last_render_ns = 0;
    s.pace.pace_wake_ns = T0 + 90 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 80 * MS), T0 + 90 * MS);
    CHECK_EQ_U64(tempo__sched_slot_after_render(&s, T0 + 90 * MS), 6);
}

static void vsync_slot_waits_for_the_pacer_and_one_nominal_period(void)
{
    tempo__sched s = vsync_base();
    s.last_render_ns = T0 + 100 * MS;
    /* A present that does not block must not spin the loop: never sooner
     * than 15/16 of the nominal period after the last render. */
    s.pace.pace_wake_ns = 0;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 101 * MS), T0 + 115 * MS);
    /* The pacer's wake when it is later. */
    s.pace.pace_wake_ns = T0 + 120 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 101 * MS), T0 + 120 * MS);
    /* Probing: the probe's call time, without the floor. */
    s.pace.pacing = TEMPO_LOOP_PACING_PROBING;
    s.pace.vsync = false;
    s.pace.pace_wake_ns = T0 + 104 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 101 * MS), T0 + 104 * MS);
    /* Withheld presents: only the probe renders. */
    s.pace.pacing = TEMPO_LOOP_PACING_WITHHELD;
    s.pace.withheld_probe_ns = T0 + 600 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 101 * MS), T0 + 600 * MS);
}

/* A render that woke late (the OS ran something else first) held the next
 * one back: the floor counted from when the render ran, so the next came
 * 15/16 of a period after it, past the pacer's wake, and the one after that
 * too, a sixteenth of a period less late each time (bench_game: runs of 2-6
 * wakes 1-3 ms late, each taken out of the lead before its vblank). It
 * counts from when the render was due now, and renders stay half a period
 * apart. */
static void vsync_floor_counts_from_when_the_render_was_due(void)
{
    tempo__sched s = vsync_base();
    /* Due at +100 (the pacer's wake), ran at +103: it was due at +100. */
    s.pace.pace_wake_ns = T0 + 100 * MS;
    s.last_render_ns = T0 + 84 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 103 * MS), T0 + 103 * MS);
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).due, T0 + 100 * MS);
    s.last_due_ns = T0 + 100 * MS;
    s.last_render_ns = T0 + 103 * MS;
    /* The next at the pacer's wake (+116), not 15 ms after +103. */
    s.pace.pace_wake_ns = T0 + 116 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 104 * MS), T0 + 116 * MS);
    /* A present that does not block: one render per 15/16 period still. */
    s.pace.pace_wake_ns = 0;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 104 * MS), T0 + 115 * MS);
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 117 * MS).due, T0 + 115 * MS);
    /* Due long ago (a hitch): half a period after the render that ran. */
    s.last_due_ns = T0 + 60 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 104 * MS), T0 + 111 * MS);
    /* Unknown (a withheld probe's render): from the render. */
    s.last_due_ns = 0;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 104 * MS), T0 + 118 * MS);
    /* Not vsync pacing: due when it runs. */
    s.pace.pacing = TEMPO_LOOP_PACING_PROBING;
    s.pace.vsync = false;
    s.pace.pace_wake_ns = T0 + 101 * MS;
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 102 * MS).due, T0 + 102 * MS);
}

/* The vblank a render aims at (tempo__loop_pace_late_wake gives it up when
 * the wake came too late for it): the pacer's, on the pacer's schedule
 * only. */
static void render_aims_at_the_pacers_vblank_only_with_vsync(void)
{
    tempo__sched s = vsync_base();
    s.pace.pace_wake_ns = T0 + 100 * MS;
    s.pace.pace_vblank_ns = T0 + 105 * MS;
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).vblank, T0 + 105 * MS);
    s.pace.present_by_ns = T0 + 104 * MS; /* a frame drawn waits for its present */
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).vblank, 0);
    s.pace.present_by_ns = 0;
    s.display_driven = s.in_display_frame = true; /* the host's display frames are the vsync */
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).vblank, 0);
    s.display_driven = s.in_display_frame = false;
    s.pace.pacing = TEMPO_LOOP_PACING_PROBING;
    s.pace.vsync = false;
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).vblank, 0);
    s.pace.pacing = TEMPO_LOOP_PACING_TIMER;
    CHECK_EQ_U64(tempo__sched_render_at(&s, T0 + 103 * MS).vblank, 0);
}

static void lockstep_probe_alternates_tick_and_quarter_period(void)
{
    tempo__sched s = base();
    s.policy = TEMPO_LOOP_LOCKSTEP;
    s.pace.pacing = TEMPO_LOOP_PACING_PROBING;
    s.last_update_ns = T0 + 50 * MS;
    s.pace.probe_period_ns = 16 * MS;
    s.pace.probe_n = 0;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 40 * MS), T0 + 50 * MS);
    s.pace.probe_n = 1;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 40 * MS), T0 + 54 * MS);
    /* Never before the previous present's return, never before now. */
    s.pace.pace_wake_ns = T0 + 60 * MS;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 40 * MS), T0 + 60 * MS);
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 70 * MS), T0 + 70 * MS);
}

static void max_frameskip_bounds_updates_between_renders(void)
{
    tempo__sched s = base();
    CHECK_EQ_U64(tempo__sched_updates_per_render(&s), 5);
    /* 200 ms behind (under max_gap): 13 ticks owed, at most 5 now. */
    uint64_t t = T0 + 200 * MS;
    tempo__sched_plan p = tempo__sched_plan_fixed(&s, t, 0);
    CHECK(p.run);
    CHECK_EQ_INT(p.clamp, TEMPO__SCHED_ON_TIME);
    CHECK_EQ_U64(p.pending, 13);
    CHECK_EQ_U64(p.limit, 5);
    CHECK_EQ_U64(p.late_ns, 200 * MS);
    /* Two already ran since the last render: three more may. */
    s.updates_since_render = 2;
    s.tick = 2;
    p = tempo__sched_plan_fixed(&s, t, 0);
    CHECK_EQ_U64(p.limit, 3);
    CHECK_EQ_U64(p.pending, 11);
    /* The limit used: blocked until a render; the deadline is the slot. */
    s.updates_since_render = 5;
    s.tick = 5;
    CHECK(tempo__sched_updates_blocked(&s));
    p = tempo__sched_plan_fixed(&s, t, 0);
    CHECK(!p.run);
    s.slot = 12;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, t), tempo__sched_render_slot_ns(&s, t));
    /* LOCKSTEP: one update per render. VARIABLE and withheld presents are
     * never blocked. */
    s.policy = TEMPO_LOOP_LOCKSTEP;
    CHECK_EQ_U64(tempo__sched_updates_per_render(&s), 1);
    s.policy = TEMPO_LOOP_VARIABLE;
    CHECK(!tempo__sched_updates_blocked(&s));
    s.policy = TEMPO_LOOP_INTERPOLATED;
    s.pace.pacing = TEMPO_LOOP_PACING_WITHHELD;
    CHECK(!tempo__sched_updates_blocked(&s));
    p = tempo__sched_plan_fixed(&s, t, 0);
    CHECK_EQ_U64(p.limit, UINT64_MAX);
}

static void a_low_render_cap_does_not_slow_the_game(void)
{
    /* 10 renders/s at 120 updates/s: one render interval holds 12
     * updates, more than max_frameskip. */
    tempo__sched s = base();
    s.update_hz = 120;
    s.render_hz = 10;
    CHECK_EQ_U64(tempo__sched_updates_per_render(&s), 12);
    /* Vsync (no pace): the display rate's share. */
    s.render_hz = 0;
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.display_hz = 30;
    CHECK_EQ_U64(tempo__sched_updates_per_render(&s), 5); /* max(5, 4) */
}

static void nothing_runs_before_the_tick(void)
{
    tempo__sched s = base();
    s.tick = 1;
    tempo__sched_plan p = tempo__sched_plan_fixed(&s, T0 + 16666666 - 1, 0);
    CHECK(!p.run);
    CHECK_EQ_U64(p.due_ns, T0 + 16666666);
    p = tempo__sched_plan_fixed(&s, T0 + 16666666, 0);
    CHECK(p.run);
    CHECK_EQ_U64(p.pending, 1);
    CHECK_EQ_U64(p.late_ns, 0);
}

static void stall_clamp_only_when_the_loop_did_not_run(void)
{
    /* One second behind, and the loop was absent for all of it (a
     * suspended process): the debt is dropped, one update restarts the
     * schedule at t. */
    tempo__sched s = base();
    uint64_t t = T0 + 1000 * MS;
    tempo__sched_plan p = tempo__sched_plan_fixed(&s, t, 1000 * MS);
    CHECK(p.run);
    CHECK_EQ_INT(p.clamp, TEMPO__SCHED_STALL);
    CHECK_EQ_U64(p.pending, 1);
    CHECK_EQ_U64(p.dropped, 60); /* ticks 0..60 were due; one runs */
    /* Exactly max_gap absent is not a stall (the clamp is "more than"). */
    p = tempo__sched_plan_fixed(&s, t, 250 * MS);
    CHECK_EQ_INT(p.clamp, TEMPO__SCHED_DEBT_CAP);
    /* Exactly max_gap late: no clamp at all. */
    p = tempo__sched_plan_fixed(&s, T0 + 250 * MS, 1000 * MS);
    CHECK_EQ_INT(p.clamp, TEMPO__SCHED_ON_TIME);
    CHECK_EQ_U64(p.pending, 16);
}

static void debt_is_capped_at_max_gap_on_a_slow_machine(void)
{
    /* One second behind, but the loop ran all along (slow renders): keep
     * max_gap of debt, give the rest up as slowdown. */
    tempo__sched s = base();
    s.tick = 6;
    uint64_t due = tempo__sched_next_tick_ns(&s); /* T0 + 100 ms */
    uint64_t t = T0 + 1100 * MS;
    tempo__sched_plan p = tempo__sched_plan_fixed(&s, t, 20 * MS);
    CHECK(p.run);
    CHECK_EQ_INT(p.clamp, TEMPO__SCHED_DEBT_CAP);
    CHECK_EQ_U64(p.late_ns, t - due);
    CHECK_EQ_U64(p.new_epoch_ns, t - 250 * MS);
    CHECK_EQ_U64(p.slowdown_ns, t - 250 * MS - due);
    /* Ticks at new_epoch + 0, 16.7, ..., 250 ms: 16 owed, 5 run now. */
    CHECK_EQ_U64(p.pending, 16);
    CHECK_EQ_U64(p.limit, 5);
    CHECK_EQ_U64(p.dropped, 0);
}

static void deadline_per_policy(void)
{
    tempo__sched s = base();
    s.render_hz = 30;
    s.tick = 1;
    s.slot = 1;
    uint64_t now = T0 + 1 * MS, tick = T0 + 16666666, slot = T0 + 33333333;
    /* A render owed: the earlier of the tick and the slot. */
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), tick);
    /* VARIABLE: one frame per render slot. */
    s.policy = TEMPO_LOOP_VARIABLE;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), slot);
    /* Game paused: no ticks, the menu renders at the pace. */
    s.policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS;
    s.game_paused = true;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), slot);
    /* Nothing owed: the tick. */
    s.game_paused = false;
    s.dirty = false;
    s.slot = 0;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), tick);
}

static void alpha_is_the_place_between_two_ticks(void)
{
    tempo__sched s = base();
    CHECK_EQ_DBL(tempo__sched_alpha(&s, T0 + 5 * MS), 0.0); /* no update yet */
    /* Tick 3 ran (due T0 + 50 ms); tick 4 is due at T0 + 66.67 ms. */
    s.tick = 4;
    s.last_update_ns = T0 + 50 * MS;
    CHECK_EQ_DBL(tempo__sched_alpha(&s, T0 + 50 * MS), 0.0);
    float half = tempo__sched_alpha(&s, T0 + 50 * MS + 8333333);
    CHECK_LE_DBL(0.4999, half);
    CHECK_LE_DBL(half, 0.5001);
    /* Behind schedule: just below 1, never 1. */
    float late = tempo__sched_alpha(&s, T0 + 80 * MS);
    CHECK_LT_DBL(late, 1.0);
    CHECK_LE_DBL(0.9999, late);
    CHECK_LT_DBL(tempo__sched_alpha(&s, T0 + 66666666 - 1), 1.0); /* rounds below 1 */
    /* Only INTERPOLATED interpolates. */
    s.policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS;
    CHECK_EQ_DBL(tempo__sched_alpha(&s, T0 + 60 * MS), 0.0);
}

static void variable_dt_is_measured_and_a_gap_is_a_stall(void)
{
    tempo__sched s = base();
    s.policy = TEMPO_LOOP_VARIABLE;
    s.last_update_ns = T0;
    bool stall = true;
    CHECK_EQ_U64(tempo__sched_variable_dt(&s, T0 + 7 * MS, &stall), 7 * MS);
    CHECK(!stall);
    CHECK_EQ_U64(tempo__sched_variable_dt(&s, T0 + 250 * MS, &stall), 250 * MS); /* the clamp is "more than" */
    CHECK(!stall);
    CHECK_EQ_U64(tempo__sched_variable_dt(&s, T0 + 251 * MS, &stall), 16666667); /* one nominal step */
    CHECK(stall);
    CHECK_EQ_U64(tempo__sched_variable_dt(&s, T0 - 1, &stall), 0); /* never negative */
    CHECK(!stall);
}

/* A host that calls a frame per displayed frame (tempo_loop_display_frame,
 * the web backend's requestAnimationFrame): renders happen in those frames
 * only, at once unless a render cap's slot is later; between them the
 * deadline is the next tick, never a render slot of the loop's own. */
static void display_frames_alone_render(void)
{
    tempo__sched s = base();
    s.display_driven = true;
    s.tick = 1;
    uint64_t now = T0 + 5 * MS;
    /* Between display frames: no render slot, the wait is for the tick. */
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, now), TEMPO_INFINITE);
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), T0 + 16666666);
    /* Even with every update of the catch-up used: the ticks wait for the
     * next display frame, not for a slot that never comes. */
    s.updates_since_render = 5;
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, now), TEMPO_INFINITE);
    s.updates_since_render = 0;
    /* In a display frame: the render is now, whatever the 60 Hz timer
     * slot (slot 1 at T0 + 16.7 ms) would say. */
    s.in_display_frame = true;
    s.slot = 1;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, now), now);
    /* A render cap still holds: 30 Hz, slot 1 at T0 + 33.3 ms. */
    s.render_hz = 30;
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, now), T0 + 33333333);
    CHECK_EQ_U64(tempo__sched_render_slot_ns(&s, T0 + 40 * MS), T0 + 40 * MS);
}

/* Display-driven sources yield half a refresh period into a display frame
 * (the render follows), else when the next display frame is expected; a
 * due tick comes first, except for VARIABLE and in the game's pause. */
static void display_driven_sources_yield_before_the_render(void)
{
    tempo__sched s = base();
    s.display_driven = true;
    s.tick = 3; /* due at T0 + 50 ms */
    s.in_display_frame = true;
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 20 * MS), T0 + 20 * MS + 8333333);
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 45 * MS), T0 + 50 * MS); /* the tick */
    s.in_display_frame = false;
    s.last_display_ns = T0 + 20 * MS;
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 30 * MS), T0 + 20 * MS + 16666667);
    s.last_display_ns = T0 + 40 * MS;
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 45 * MS), T0 + 50 * MS);
    s.game_paused = true; /* no ticks: the next display frame */
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 45 * MS), T0 + 40 * MS + 16666667);
    s.game_paused = false;
    s.policy = TEMPO_LOOP_VARIABLE; /* its update runs in the frames */
    CHECK_EQ_U64(tempo__sched_display_source_by(&s, T0 + 45 * MS), T0 + 40 * MS + 16666667);
}

/* desc.low_latency: with vsync pacing the ticks run at the render wakes.
 * Vblank at T0 + 116 ms, the pacer's wake 4 ms before it; ticks every
 * 16.67 ms from T0 (tick 6 due at T0 + 100 ms, tick 7 at T0 + 116.67 ms). */
static tempo__sched low_latency_vsync(void)
{
    tempo__sched s = base();
    s.low_latency = true;
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.vsync = true;
    s.pace.pace_wake_ns = T0 + 112 * MS;
    s.pace.pace_vblank_ns = T0 + 116 * MS;
    s.last_render_ns = T0 + 96 * MS;
    s.tick = 6;
    return s;
}

static void low_latency_ticks_wait_for_the_render_wake(void)
{
    tempo__sched s = low_latency_vsync();
    CHECK(tempo__sched_ticks_at_render(&s));
    /* Tick 6 (T0 + 100 ms) is held until the wake: the loop does not wake
     * for it alone, and a frame woken before (input) runs no tick. */
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, T0 + 97 * MS), T0 + 112 * MS);
    CHECK_EQ_U64(tempo__sched_tick_horizon(&s, T0 + 105 * MS), 0);
    CHECK(!tempo__sched_plan_fixed(&s, tempo__sched_tick_horizon(&s, T0 + 105 * MS), 0).run);
    /* At the wake every tick due before the vblank runs: tick 6 late, and
     * none due after the vblank (tick 7, T0 + 116.67 ms). */
    uint64_t h = tempo__sched_tick_horizon(&s, T0 + 112 * MS);
    CHECK_EQ_U64(h, T0 + 116 * MS - 1);
    tempo__sched_plan plan = tempo__sched_plan_fixed(&s, h, 0);
    CHECK(plan.run);
    CHECK_EQ_U64(plan.pending, 1);
    /* A tick due between the wake and the vblank runs at the wake, early. */
    s.epoch_ns = T0 + 14 * MS; /* tick 6 due at T0 + 114 ms */
    CHECK_EQ_U64(tempo__sched_next_deadline(&s, T0 + 97 * MS), T0 + 112 * MS);
    plan = tempo__sched_plan_fixed(&s, tempo__sched_tick_horizon(&s, T0 + 112 * MS), 0);
    CHECK(plan.run);
    CHECK_EQ_U64(plan.pending, 1);
    CHECK_EQ_U64(plan.due_ns, T0 + 114 * MS);
    /* Not without the flag, nor for the timer, VARIABLE, LOCKSTEP, a cap,
     * the game's pause, or a young fit (no vblank named). */
    tempo__sched off = low_latency_vsync();
    off.low_latency = false;
    CHECK_EQ_U64(tempo__sched_next_deadline(&off, T0 + 97 * MS), T0 + 100 * MS);
    CHECK_EQ_U64(tempo__sched_tick_horizon(&off, T0 + 105 * MS), T0 + 105 * MS);
    for (int i = 0; i < 6; i++) {
        tempo__sched o = low_latency_vsync();
        if (i == 0) {
            o.pace.vsync = false;
            o.pace.pacing = TEMPO_LOOP_PACING_TIMER;
        }
        o.policy = i == 1 ? TEMPO_LOOP_VARIABLE : i == 2 ? TEMPO_LOOP_LOCKSTEP : o.policy;
        o.render_hz = i == 3 ? 60 : 0;
        o.game_paused = i == 4;
        o.pace.pace_vblank_ns = i == 5 ? 0 : o.pace.pace_vblank_ns;
        CHECK(!tempo__sched_ticks_at_render(&o));
        CHECK_EQ_U64(tempo__sched_tick_horizon(&o, T0 + 105 * MS), T0 + 105 * MS);
    }
    /* The vblank is past (no render since it): the ticks due now run. */
    CHECK_EQ_U64(tempo__sched_tick_horizon(&s, T0 + 120 * MS), T0 + 120 * MS);
}

/* At the vsync verdict, an update every frame: the default keeps the
 * ticks' phase (they fall in a render or a present whatever it is); low
 * latency moves them to half a period before a vblank, once. */
static void low_latency_phase_is_half_a_period_from_the_vblank(void)
{
    tempo__sched s = base();
    s.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
    s.pace.vsync = true;
    s.tick = 6; /* due at T0 + 100 ms */
    uint64_t ret = T0 + 95 * MS; /* a present returned (a vblank) */
    CHECK_EQ_U64(tempo__sched_phase_move(&s, ret), 0);
    s.low_latency = true;
    uint64_t move = tempo__sched_phase_move(&s, ret);
    /* T0 + 95 ms + P/2 = T0 + 103.33 ms: 3.33 ms later than tick 6 */
    CHECK_EQ_U64(move, 95 * MS + 16666667 / 2 - 100 * MS);
    s.epoch_ns += move;
    CHECK_EQ_U64(tempo__sched_phase_move(&s, ret), 0); /* there already */
}

static const tt_case cases[] = {
    TT_CASE(ticks_follow_the_absolute_schedule),
    TT_CASE(pace_is_the_cap_else_the_display_on_timer_pacing),
    TT_CASE(render_on_demand_renders_only_when_asked),
    TT_CASE(render_wanted_per_policy),
    TT_CASE(skipped_renders_owe_nothing),
    TT_CASE(render_slots_follow_the_cap_on_the_update_epoch),
    TT_CASE(timer_slots_move_by_the_shift),
    TT_CASE(vsync_slot_waits_for_the_pacer_and_one_nominal_period),
    TT_CASE(vsync_floor_counts_from_when_the_render_was_due),
    TT_CASE(render_aims_at_the_pacers_vblank_only_with_vsync),
    TT_CASE(lockstep_probe_alternates_tick_and_quarter_period),
    TT_CASE(max_frameskip_bounds_updates_between_renders),
    TT_CASE(a_low_render_cap_does_not_slow_the_game),
    TT_CASE(nothing_runs_before_the_tick),
    TT_CASE(stall_clamp_only_when_the_loop_did_not_run),
    TT_CASE(debt_is_capped_at_max_gap_on_a_slow_machine),
    TT_CASE(deadline_per_policy),
    TT_CASE(alpha_is_the_place_between_two_ticks),
    TT_CASE(variable_dt_is_measured_and_a_gap_is_a_stall),
    TT_CASE(display_frames_alone_render),
    TT_CASE(display_driven_sources_yield_before_the_render),
    TT_CASE(low_latency_ticks_wait_for_the_render_wake),
    TT_CASE(low_latency_phase_is_half_a_period_from_the_vblank),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
