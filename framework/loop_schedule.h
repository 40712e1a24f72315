/* The loop's scheduling decisions, as pure functions (issue 20).
 *
 * What is due and when: the next update tick, the next render slot, whether
 * a render is wanted, how many updates may run before a render, the wait's
 * deadline, and what a late frame does with the update debt (the stall
 * clamp and the debt cap). Everything here is arithmetic on a tempo__sched,
 * the schedule's state, which the loop keeps as one (tempo_loop.sched) and
 * hands in; `now` and every other time is an argument. No SDL, no platform
 * and no clock call, so tests/unit/test_loop_schedule.c drives each decision with
 * numbers it chooses. loop.c applies the decisions (runs the updates, moves
 * the epoch, counts the statistics). [loop thread, like the loop] */
#ifndef TEMPO_LOOP_SCHEDULE_H
#define TEMPO_LOOP_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/loop.h"

/* What display pacing tells the schedule: loop_present.c keeps it with its
 * own state (tempo__present.sched), and the loop hands it over whole after
 * each call into the pacing. */
typedef struct tempo__sched_pace {
    tempo_loop_pacing pacing;   /* what the presents were measured to do */
    bool vsync;                 /* pacing == VSYNC */
    uint32_t display_hz;        /* the pace without vsync and cap */
    uint64_t nominal_period_ns; /* the display mode's refresh period */
    uint64_t pace_wake_ns;      /* vsync/probing: the pacer's next wake (0: none) */
    uint64_t pace_vblank_ns;    /* vsync: the vblank that wake aims at (0: none, the fit is young) */
    uint64_t withheld_probe_ns; /* WITHHELD: the next probe render */
    int probe_n;                /* PROBING: presents measured in this round */
    uint64_t probe_period_ns;   /* PROBING: the period the probe assumes */
    uint64_t present_by_ns;     /* VSYNC: a rendered frame's present waits for an update,
                                   at the latest until then (0: none waits) */
    uint64_t slot_shift_ns;     /* render slots this much earlier than the schedule (TIMER's
                                   re-measurement moves the render phase; 0 otherwise) */
} tempo__sched_pace;

typedef struct tempo__sched {
    /* settings */
    tempo_loop_policy policy;
    uint32_t update_hz;
    uint32_t render_hz;     /* the render cap; 0: none */
    uint32_t max_frameskip; /* updates between two renders (at least) */
    uint64_t step_ns;       /* round(1e9 / update_hz): the fixed policies' dt */
    uint64_t max_gap_ns;    /* the stall clamp and the debt cap */
    bool on_demand;         /* render on demand (INTERPOLATED) */
    bool low_latency;       /* desc.low_latency: ticks at the render wakes (tempo__sched_ticks_at_render) */

    tempo__sched_pace pace; /* the pacing in force (loop_present.c's) */

    /* the schedule */
    uint64_t epoch_ns;       /* update tick 0 and render slot 0 */
    uint64_t tick;           /* index of the next update */
    uint64_t slot;           /* index of the next render slot */
    uint64_t last_update_ns; /* due time of the last update (VARIABLE: its time) */
    uint64_t last_render_ns; /* 0: none yet */
    uint64_t last_due_ns;    /* when the last render was due (tempo__sched_render_at); 0: unknown */
    uint32_t updates_since_render;
    bool dirty;       /* a render is owed */
    bool event_dirty; /* an SDL event arrived since the last render */
    bool game_paused; /* tempo_loop_set_game_paused: no ticks, renders on */

    /* a host that calls a frame per displayed frame (tempo_loop_display_frame) */
    bool display_driven;      /* it did: only its display frames render */
    bool in_display_frame;    /* this frame is one of them */
    uint64_t last_display_ns; /* when the last display frame began */
} tempo__sched;

/* The rate of the render slot schedule: the cap, else (timer pacing) the
 * display's refresh rate; 0 when the vblanks alone pace. */
uint32_t tempo__sched_pace_hz(const tempo__sched *s);

/* When the next update tick is due. */
uint64_t tempo__sched_next_tick_ns(const tempo__sched *s);

/* Whether render slots follow the pace schedule rather than the ticks
 * (LOCKSTEP renders after its ticks, except in the game's pause). */
bool tempo__sched_render_scheduled(const tempo__sched *s);

/* The earliest instant the next render may happen, seen at `now`. A
 * paced slot comes slot_shift_ns earlier than the schedule's. None
 * (UINT64_MAX) while a rendered frame's present waits (present_by_ns). */
uint64_t tempo__sched_render_slot_ns(const tempo__sched *s, uint64_t now);

/* A render seen at `now`, in one pass over the schedule. */
typedef struct tempo__sched_render {
    uint64_t slot;   /* tempo__sched_render_slot_ns */
    /* When a render that runs at `now` (its slot reached) was due: with
     * vsync pacing the pacer's wake or the floor after the previous render,
     * which may be earlier than `now` when the loop woke late; `now`
     * otherwise. The loop keeps it as last_due_ns: the next render's floor
     * counts from it. */
    uint64_t due;
    /* The vblank it aims at: with vsync pacing the one the pacer's wake was
     * set for (pace_vblank_ns; 0 until the pacer locks), 0 when the render
     * is not on the pacer's schedule (a probe, a present that waits, a
     * display-driven host, no vsync). */
    uint64_t vblank;
} tempo__sched_render;
tempo__sched_render tempo__sched_render_at(const tempo__sched *s, uint64_t now);

/* Display-driven (tempo_loop_display_frame()): the deadline by which the
 * sources' work in this frame yields. The host runs one thing at a time:
 * in a display frame the render follows the sources, which get half a
 * refresh period from `frame_start_ns`; between display frames they get
 * until the next one is expected. A due update tick comes first. */
uint64_t tempo__sched_display_source_by(const tempo__sched *s, uint64_t frame_start_ns);

/* Low latency (desc.low_latency): whether the update ticks run at the
 * render wakes now: vsync pacing with a fit that names the vblank the wake
 * aims at (pace_vblank_ns), INTERPOLATED or CONSTANT_SPEED_MAX_FPS, no
 * render cap, not in the game's pause nor display-driven, no present
 * waiting. */
bool tempo__sched_ticks_at_render(const tempo__sched *s);

/* The time up to which the fixed policies' ticks run in a frame at `now`:
 * `now`, or while the ticks run at the render wakes and the vblank the
 * next render aims at is ahead: at the render slot, up to (not including)
 * that vblank (the ticks whose input that frame shows run before its
 * render, early by less than the lead); before the slot (a frame woken by
 * input or a source), 0: no tick runs, they wait for the render's wake. */
uint64_t tempo__sched_tick_horizon(const tempo__sched *s, uint64_t now);

/* Whether the policy wants a render now that events and updates ran
 * (`variable_ran`: VARIABLE's update ran this frame). */
bool tempo__sched_render_wanted(const tempo__sched *s, bool variable_ran);

/* The most updates that may run between two renders: max_frameskip, or the
 * updates one render interval holds when the pace is slower; 1 in
 * LOCKSTEP. */
uint64_t tempo__sched_updates_per_render(const tempo__sched *s);

/* True when updates must wait for a render (the catch-up limit is used). */
bool tempo__sched_updates_blocked(const tempo__sched *s);

/* The next instant something is due, for the wait (may be <= now). While
 * a present waits: the next update, or the present's latest call. While
 * the ticks run at the render wakes (tempo__sched_ticks_at_render), a tick
 * due before the vblank the next render aims at is held until the render
 * slot: the loop does not wake for it alone. */
uint64_t tempo__sched_next_deadline(const tempo__sched *s, uint64_t now);

/* The render slot index to continue from after the epoch moved: the first
 * slot after the last render, 0 without a pace or a render on this epoch.
 * Slots are counted on the shifted schedule (slot_shift_ns). */
uint64_t tempo__sched_realigned_slot(const tempo__sched *s);

/* The render slot index after a render at `t` (on the pace schedule):
 * the next slot, skipping the missed ones, on the shifted schedule
 * (slot_shift_ns). The caller applies it when tempo__sched_pace_hz() is
 * not 0 and tempo__sched_render_scheduled(). */
uint64_t tempo__sched_slot_after_render(const tempo__sched *s, uint64_t t);

/* The interpolation alpha for a render at `t`, in [0, 1): how far t lies
 * between the last update and the next tick (INTERPOLATED only; 0 before
 * the first update and for the other policies; just below 1 when behind
 * schedule). The game's pause freezes it: the caller keeps that value. */
float tempo__sched_alpha(const tempo__sched *s, uint64_t t);

/* VARIABLE: the dt of an update at `t`, measured from the last one; a gap
 * longer than max_gap counts as a stall (*stall set) and advances one
 * nominal step instead. */
uint64_t tempo__sched_variable_dt(const tempo__sched *s, uint64_t t, bool *stall);

/* The presents were found to block on vblanks, one returned at `t`: how
 * far the epoch moves later (under a period; 0: no move) so that the
 * update ticks fall an eighth of a nominal period after a vblank. Only
 * when every update falls on one phase of the vblanks, for the fixed
 * policies whose renders follow the pacer, not in the game's pause. With
 * low_latency and an update every frame, half a period before a vblank
 * instead (the ticks run at the render wakes: away from the vblank that
 * decides which render a tick belongs to). The caller moves the epoch and
 * realigns the render slot. */
uint64_t tempo__sched_phase_move(const tempo__sched *s, uint64_t t);

/* What a late fixed-policy frame does with the update debt. */
typedef enum tempo__sched_clamp {
    TEMPO__SCHED_ON_TIME = 0, /* less than max_gap behind: run what is owed */
    TEMPO__SCHED_STALL,       /* the loop did not run for > max_gap: drop the debt,
                                 restart the schedule at `now` with one update */
    TEMPO__SCHED_DEBT_CAP     /* the loop ran all along but slower than the schedule:
                                 keep max_gap of debt (epoch moves to new_epoch_ns,
                                 tick 0) and give up the rest as slowdown */
} tempo__sched_clamp;

/* The fixed policies' decision at time t: whether updates run, how many are
 * owed and may run, and the clamp to apply first. */
typedef struct tempo__sched_plan {
    bool run;            /* false: no tick due yet, or blocked until a render */
    uint64_t due_ns;     /* the first owed tick's due time (before the clamp) */
    uint64_t late_ns;    /* t - due_ns: the tick lateness sample */
    tempo__sched_clamp clamp;
    uint64_t dropped;      /* STALL: updates dropped */
    uint64_t new_epoch_ns; /* DEBT_CAP: the new epoch (tick 0 due there) */
    uint64_t slowdown_ns;  /* DEBT_CAP: game time given up */
    uint64_t pending;    /* updates owed at t, after the clamp */
    uint64_t limit;      /* the most that may run now (UINT64_MAX: no bound) */
} tempo__sched_plan;

/* `absent_ns`: how long the loop did not run at all before this frame
 * (between frames, or overslept past its wait's deadline). The number to
 * run now is min(pending, limit); the caller re-reads the schedule before
 * each one (an update may change the rate or policy). */
tempo__sched_plan tempo__sched_plan_fixed(const tempo__sched *s, uint64_t t, uint64_t absent_ns);

#endif /* TEMPO_LOOP_SCHEDULE_H */
