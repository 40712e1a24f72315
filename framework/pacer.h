/* Display pacing: the vblank as one more thing the loop waits for.
 *
 * Pure arithmetic on timestamps, no clock and no SDL, so every decision is
 * tested on a fake clock (tests/unit/test_pacer.c). [loop thread]
 *
 * With vsync a present blocks until the next vblank, so the time a present
 * returns is a (slightly late) vblank timestamp. The pacer fits a line
 * through the last presents' return times, vblank index k against time
 * (least squares: the slope is the refresh period, robust to jitter and
 * exact at 59.94 Hz), numbering them by how many periods passed in between
 * (so a missed vblank is a gap, not a bad sample), then moves the line down
 * onto the earliest return it holds (returns are never early: the lower
 * envelope is the vblank itself). From that it predicts the next vblanks.
 * It also predicts the render cost (the largest of the recent costs, each
 * measured from the wake-up the pacer asked for, so late wake-ups count as
 * cost) and tells the loop when to wake:
 *     wake = next vblank - predicted cost - margin,
 * where the margin grows when a render that kept to its predicted cost
 * still missed its vblank (the present's own work before the flip, which
 * the pacer cannot see apart from its blocking: only a miss tells): at
 * once to a safer margin, doubled and at least a period/4 (at most half a
 * period), which it keeps (forgotten over about an hour); it starts at that
 * period/4, so no vblank is lost to learn it; the lead (cost + margins) grows
 * at once and shrinks by at most 0.25 ms a frame, so renders start at most
 * that much later than a period after the previous one when the
 * prediction drops;
 * the same idea as Android's Swappy and DXGI's frame-latency waitable
 * object: never queue a frame, start it just in time. Input read at the
 * wake reaches the screen at that vblank, so input-to-screen is at most one
 * period plus the predicted cost plus the margin, instead of the two or
 * three queued frames a loop that renders back to back gets.
 *
 * Without vsync there are no vblank timestamps; the loop then renders on a
 * plain schedule at the display's refresh rate (tempo__pacer_display_hz).
 */
#ifndef TEMPO_PACER_H
#define TEMPO_PACER_H

#include <stdbool.h>
#include <stdint.h>

#define TEMPO__PACER_FIT 64   /* presents in the fit */
#define TEMPO__PACER_COSTS 32 /* render costs in the prediction */
#define TEMPO__PACER_LEAD_RELAX_NS 250000.0 /* the most the wake moves later per present */
/* The extra margin's floor (what a miss showed the present needs) gives
 * back 1/this of itself per vblank made: halved in ~50 min at 60 Hz. */
#define TEMPO__PACER_FLOOR_FORGET 262144.0
/* The most it moves later per present after a hand-over (a 24th of the
 * period: 0.69 ms at 60 Hz), until it reaches the pacer's own lead. Each
 * such step is a render interval that long over a period; P/20 left a
 * wake-up 0.17 ms late to make it 1 ms over (bench_game's "late"), P/24
 * leaves 0.31 ms (a real machine's wake-ups: 0.05-0.2 ms late at p99). */
#define TEMPO__PACER_HANDOVER_STEPS 24 /* steps a period */
#define TEMPO__PACER_HANDOVER_RELAX(period_ns) ((period_ns) / (double)TEMPO__PACER_HANDOVER_STEPS)

/* What tempo__pacer_presented() saw. */
enum {
    TEMPO__PACER_OK = 0,     /* a sample, an outlier or a reset for a faster/slower display */
    TEMPO__PACER_UNBLOCKED,  /* the fit restarted after a run of returns off every vblank:
                                the presents may no longer block (vsync went off) */
};

typedef struct tempo__pacer_stats {
    uint64_t presents;  /* presented() calls */
    uint64_t samples;   /* returns accepted into the fit */
    uint64_t outliers;  /* returns off every predicted vblank (a present that did not block) */
    uint64_t missed;    /* vblanks that passed without a present, once locked */
    uint64_t resets;    /* fits restarted after too many outliers */
    uint64_t given_up;  /* vblanks given up by a wake too late for them (tempo__pacer_give_up) */
} tempo__pacer_stats;

typedef struct tempo__pacer {
    /* settings */
    uint64_t nominal_period_ns; /* from the display mode; the first guess */
    uint64_t margin_ns;         /* safety before the vblank */
    bool low_latency;           /* desc.low_latency: the lead of tempo__pacer_set_low_latency */

    /* the fit: vblank index and return time of the accepted presents */
    int64_t fit_k[TEMPO__PACER_FIT];
    uint64_t fit_t[TEMPO__PACER_FIT];
    int nfit, fit_next;
    int64_t last_k;       /* index of the newest accepted present */
    uint64_t last_t;      /* its return time */
    double period_ns;     /* fitted (nominal until locked) */
    double guess_ns;      /* the period a fit may stray from by 25%: the nominal one, or
                             the interval measured when the fit restarted on a faster display */
    uint64_t anchor_ns;   /* a vblank: the fitted line at last_k, on the lower envelope */
    bool locked;          /* enough samples for the fit to be trusted */
    int outlier_run;      /* consecutive outliers */
    int early_run;        /* of those, returns well before their vblank (not blocked) */
    uint64_t prev_return_ns; /* the previous present's return, accepted or not */
    int short_run;        /* consecutive returns much closer than a period */
    int long_run;         /* consecutive returns 1.25..1.75 periods apart: a slower display */
    uint64_t long_sum;    /* their intervals, summed */
    bool probing;         /* set by the loop while its probe times the calls (tempo__probe_wake_ns):
                             the intervals between returns are then the probe's if the presents do
                             not block, so no faster or slower display is learnt from them */

    /* render cost */
    uint64_t cost[TEMPO__PACER_COSTS];
    int ncost, cost_next;
    uint64_t predicted_cost_ns;
    double extra_margin_ns; /* learnt: what the present itself needs before the flip */
    double margin_floor_ns; /* the extra margin a miss showed to be needed; forgotten over about an
                               hour (TEMPO__PACER_FLOOR_FORGET) */
    double lead_ns;         /* how long before the vblank the wake is: cost + margins, grown at
                               once, shrunk by at most TEMPO__PACER_LEAD_RELAX_NS a present, so
                               the render start never jumps later (a render interval of a period
                               plus the drop) when a costly frame leaves the prediction */
    bool handover;          /* the lead was set by tempo__pacer_hold_lead and relaxes faster */
    int64_t given_up;       /* vblanks the loop gave up since the last present
                               (tempo__pacer_give_up): the next return comes that many periods
                               later without the present having lost one */

    /* presents that waited for an update due before their vblank
     * (tempo__pacer_may_wait) */
    double wait_need_ns;    /* how long before its vblank such a present must be called (at
                               least the base and extra margins): the base margin, grown when
                               one missed (the present's own work), forgotten over minutes */
    double wait_work_ns;    /* what the loop does between waking for the update and calling
                               the present (events, sources, the update): the largest seen,
                               forgotten over a few dozen presents */

    tempo__pacer_stats st;
} tempo__pacer;

/* The refresh rate to pace at, from a display mode's refresh_rate in Hz:
 * 0 (unknown, e.g. under Xvfb) or nonsense => 60. */
uint32_t tempo__pacer_display_hz(int refresh_rate);

/* Starts with the display's nominal period (0 => 60 Hz), a safety margin
 * (0 => 500 us) and an extra margin for the present's own work of
 * TEMPO__PACER_START_MARGIN (P/4), also its floor: what a first miss would
 * teach, without the miss. */
#define TEMPO__PACER_START_MARGIN(period_ns) ((period_ns) / 4.0)
void tempo__pacer_init(tempo__pacer *p, uint64_t nominal_period_ns, uint64_t margin_ns);

/* Low latency (desc.low_latency; false after init): the predicted render
 * cost is the upper quartile of the recent costs (not the second largest),
 * and the extra margin tracks the present's own work by its misses: it
 * starts at TEMPO__PACER_LOWLAT_START(period) (P/4) and never goes below
 * TEMPO__PACER_LOWLAT_FLOOR(period) (P/8); each
 * missed vblank raises it by TEMPO__PACER_LOWLAT_STEP(period), each vblank
 * made lowers it by 1/TEMPO__PACER_LOWLAT_HITS of the step, so about one
 * present in that many misses (a quantile of what the render's and the
 * present's work leave over the lead), up to a whole period (a loaded
 * machine's lead is then a period). No doubling. With 1024 hits a step,
 * bench_latency's quiet run missed 6 vblanks of ~2 400 where the textbook
 * loop missed none; test_pacer's present: 4 a minute at 1024, 1 at 4096
 * (the lead 0.07 ms longer), and 16384 costs 0.9 ms of lead. Started at
 * 0, each bench_latency round of 4 s lost a vblank or two learning the
 * floor; started at the floor, one in two rounds lost one to the present's
 * spikes (5 in 10 rounds, the textbook loop none); at P/4 the margin comes
 * down to the floor in ~2 minutes of vblanks made. Takes effect with the
 * next present. */
#define TEMPO__PACER_LOWLAT_STEP(period_ns) ((period_ns) / 16.0)
#define TEMPO__PACER_LOWLAT_HITS 4096
#define TEMPO__PACER_LOWLAT_FLOOR(period_ns) (2 * TEMPO__PACER_LOWLAT_STEP(period_ns))
#define TEMPO__PACER_LOWLAT_START(period_ns) (4 * TEMPO__PACER_LOWLAT_STEP(period_ns))
void tempo__pacer_set_low_latency(tempo__pacer *p, bool on);

/* The vblank the wake of tempo__pacer_wake_ns(p, now_ns) aims at; 0 until
 * the fit has locked (the wake is then `now_ns`, aimed at no vblank). */
uint64_t tempo__pacer_wake_vblank_ns(const tempo__pacer *p, uint64_t now_ns);

/* Forgets the phase and the fit (after a pause, a vsync toggle, a window
 * moved to another display), keeping the period learnt so far as the next
 * guess. The cost prediction is kept. */
void tempo__pacer_reset(tempo__pacer *p);

/* One present happened: the loop started the frame's work for it at
 * `start_ns` (the wake the pacer asked for, or later), called the present
 * at `call_ns`, and it returned at `return_ns`. Returns TEMPO__PACER_OK or
 * TEMPO__PACER_UNBLOCKED.
 * A display that delivers fewer frames than its mode says (a compositor
 * pacing at ~48/s while the mode says 65 Hz) is learnt like a faster one:
 * after a run of returns 1.25 to 1.75 periods apart the fit restarts from
 * their mean interval, so the period is what the display delivers. */
int tempo__pacer_presented(tempo__pacer *p, uint64_t start_ns, uint64_t call_ns, uint64_t return_ns);

/* The first predicted vblank at or after `t_ns`; t_ns itself until the
 * first present. */
uint64_t tempo__pacer_next_vblank(const tempo__pacer *p, uint64_t t_ns);

/* When the loop should start its next render: next vblank - predicted
 * cost - margin, for the next vblank (unless less than the base margin is
 * left before it); `now_ns` when that is past (a present that returned
 * late: the render may still make the vblank), while the pacer has not
 * locked yet (the blocking present paces the loop meanwhile), or when the
 * cost leaves no slack. */
uint64_t tempo__pacer_wake_ns(const tempo__pacer *p, uint64_t now_ns);

/* The loop is about to render at `now_ns` for `vblank_ns` (the vblank of
 * tempo__pacer_wake_vblank_ns when the wake was set); the render was due
 * at `due_ns` (the wake, or the loop's floor after the previous render)
 * and its frame's work counts from `start_ns` (the wake asked for). When
 * the render was due in time for that vblank but now less than the base
 * margin is left before it, or it is past (the wake-up came late: the
 * kernel or another thread had the core), the render cannot make it: the
 * vblank is given up and true is returned. The loop then sets its wake
 * again from `now_ns` (tempo__pacer_wake_ns: the next vblank, as for a
 * present that returned that late) and renders for that one: rendering at
 * once would put a frame drawn too early on that next vblank anyway, and
 * the render after it would wait for the one after, a second long render
 * interval. The time since `start_ns` counts as a render cost, as a late
 * wake-up's does (the pacer learns to wake earlier); the next return,
 * that many periods later, is no miss of the present's (no margin is
 * learnt from it; st.missed counts it: the display showed a frame twice).
 * Once per present: a second wake too late renders at once. False while
 * not locked, when the vblank is still within reach, or when the render
 * was due too late for it anyway (a floor that held it there: a display
 * whose frames come irregularly is not the fit's grid). */
bool tempo__pacer_give_up(tempo__pacer *p, uint64_t start_ns, uint64_t due_ns, uint64_t vblank_ns, uint64_t now_ns);

/* The refresh period: fitted, or the nominal one before the fit locks. */
uint64_t tempo__pacer_period_ns(const tempo__pacer *p);

/* ---- A present that waits for an update ------------------------------------
 * A present that blocks until the vblank blocks the loop's thread with it:
 * an update due between the call and the vblank runs when the present
 * returns, late by up to the whole lead (cost + margins; 9-13 ms under
 * Xvfb with SDL3 simulating vsync on an exact 60 Hz grid, paced as vsync,
 * where classic SDL2's whole-millisecond grid is paced by the timer: update
 * lateness p50 7-8 ms against ~0.05 ms). The render
 * need not be the present's neighbour: the frame is drawn at the pacer's
 * wake, and when an update falls due before the vblank the present can
 * wait for it (the loop sleeps until the update, runs it, then presents),
 * as long as what remains fits before the vblank: the loop's work between
 * waking and the present call (wait_work_ns, learnt) and the present's own
 * work before the flip (the base margin and the extra margin the renders'
 * misses taught, or more when a present that waited missed its vblank:
 * wait_need_ns). Updates due in that last stretch before the vblank still
 * wait for the present: a present called later would miss the vblank on a
 * display's vsync (a frame lost every time the update falls there).
 * [loop thread] */

/* Whether the present of a frame rendered before `now`, which would block
 * until `vblank_ns`, may wait for an update due at `due_ns` (which may be
 * past: the loop runs it at once, then presents). False until the fit
 * holds TEMPO__PACER_JUDGE_SAMPLES returns and while the lead relaxes from
 * a hand-over (a young fit can be milliseconds off the vblanks). */
bool tempo__pacer_may_wait(const tempo__pacer *p, uint64_t vblank_ns, uint64_t now_ns, uint64_t due_ns);

/* The latest call of a present that waits, for `vblank_ns`: that vblank
 * less the larger of wait_need_ns and the base plus extra margins. */
uint64_t tempo__pacer_wait_deadline(const tempo__pacer *p, uint64_t vblank_ns);

/* tempo__pacer_presented for a present that waited: the frame's work
 * started at `start_ns` and its render ended at `render_end_ns` (its
 * cost, as for a present called at once); the loop woke for what the
 * present waited for at `resume_ns`, called the present at `call_ns` and
 * it returned at `return_ns`. A vblank missed by such a present grows
 * wait_need_ns, not the render's margin (the render kept its lead). */
int tempo__pacer_presented_after_wait(tempo__pacer *p, uint64_t start_ns, uint64_t render_end_ns,
                                      uint64_t resume_ns, uint64_t call_ns, uint64_t return_ns);

/* ---- Are the returns the display's vblanks? -------------------------------
 * A present that blocks may wait for something else than the display. SDL
 * emulates vsync for a renderer without it (its software renderer created
 * with SDL_RENDERER_PRESENTVSYNC) by sleeping in the present to a grid of
 * whole milliseconds of its own: 1000 / refresh ms, truncated (16 ms =
 * 62.5 Hz on a 60 Hz display, 13 ms at 75 Hz, 6 ms at 144 Hz). The probe
 * then says "blocks" and the fit learns the grid. A present that returns
 * more often than the display refreshes is not waiting for its vblanks:
 * once the fit holds TEMPO__PACER_JUDGE_SAMPLES returns, a period between
 * 3/4 of the display's (faster by a whole ratio: a display faster than its
 * mode, learnt as before) and 1 - tolerance of it is a grid of the
 * present's own. The tolerance is 2 %, which a display of 59.94 Hz under a
 * mode that says 59 (Windows) stays inside, and 0.5 % for SDL's software
 * renderer (no vblank of its own to wait for: 90, 165 and 30 Hz truncate
 * by 1 %). A display that delivers fewer frames than its mode (a slower
 * period) is a display (pacer_presented learns it), and so are returns
 * that scatter off the fitted line (fewer than 7/8 of the fit within an
 * eighth of a period after it: a compositor's irregular frame callbacks,
 * whose fit can come out faster than the mode; a grid of whole-millisecond
 * sleeps is a clock). [loop thread] */

#define TEMPO__PACER_JUDGE_SAMPLES 12

enum {
    TEMPO__PACER_JUDGE_MORE = 0,  /* not enough returns in the fit yet */
    TEMPO__PACER_JUDGE_DISPLAY,   /* the returns follow the display's refresh */
    TEMPO__PACER_JUDGE_OWN_GRID,  /* the present sleeps to a faster grid of its own */
};

/* Judges the fit against `display_period_ns` (the display mode's refresh
 * period, or desc.display_hz's); `software`: the present is SDL's software
 * renderer's. */
int tempo__pacer_judge(const tempo__pacer *p, uint64_t display_period_ns, bool software);

/* Hands the render phase over from another schedule (the probe): the
 * wake keeps `lead_ns` before the vblank now, then moves later by at most
 * TEMPO__PACER_HANDOVER_RELAX a present until it reaches the pacer's own
 * lead. Jumping there at once made one render interval of up to 1.5
 * periods (the probe's last render is half a period before its vblank).
 * [loop thread] */
void tempo__pacer_hold_lead(tempo__pacer *p, double lead_ns);

/* ---- Does the present block? ---------------------------------------------
 * SDL's renderer flags do not say (the software renderer reports
 * PRESENTVSYNC and returns at once), so the loop measures. Probe renders
 * are made at two call times a quarter period apart, first TEMPO__PROBE_PAIRS
 * at "a", then as many at "b" (pair i: the i-th of each),
 * each timed from the previous present's return R (a vblank, if presents
 * block): call at R + base (a) or R + base + P/4 (b), base = max(P/4,
 * predicted render cost). A present that waits for the vblank returns at
 * the same vblank whenever it is called, so it blocks P/4 longer when
 * called earlier: duration(a) - duration(b) = P/4 (mod P). A present that
 * does not block takes its own work's time whenever it is called: the
 * difference is 0. The median over TEMPO__PROBE_PAIRS pairs decides, so
 * one preempted present does not. [loop thread] */

#define TEMPO__PROBE_PAIRS 4

/* Undecided rounds end in a verdict from the presents' durations: a
 * present that lasts a quarter period or more waited for something. */
#define TEMPO__PROBE_WAITED(pr) ((pr)->last_duration_ns >= (int64_t)(pr)->period_ns / 4)

enum {
    TEMPO__PROBE_MORE = 0,  /* keep probing */
    TEMPO__PROBE_BLOCKS,    /* presents wait for vblanks */
    TEMPO__PROBE_FREE,      /* presents return without waiting */
    TEMPO__PROBE_UNSURE,    /* a round ended undecided (a new round has begun) */
};

typedef struct tempo__probe {
    uint64_t period_ns;     /* the nominal refresh period P */
    int n;                  /* presents measured in this round */
    int64_t dur[2 * TEMPO__PROBE_PAIRS];
    int rounds;             /* rounds ended undecided */
    int64_t last_median_ns; /* the last round's median difference, for tests and logs */
    int64_t last_duration_ns; /* the last round's median present duration */
    bool moving;            /* the next present's render was moved short of its phase: unmeasured */
    int moved;              /* such presents, for tests and logs */
    int round_moves;        /* of those, in this round */
} tempo__probe;

/* The most presents a round of the probe moves short of their phase. From
 * just after a return to the "b" phase (P/2) takes half the hand-over's
 * steps a period (12 of P/24); a quarter more (15) to spare. A present
 * that does not block but works over 0.8 P would be moved for ever (its
 * return is past the bound), and is measured after these. */
#define TEMPO__PROBE_MAX_MOVES (TEMPO__PACER_HANDOVER_STEPS / 2 * 5 / 4)

void tempo__probe_start(tempo__probe *pr, uint64_t period_ns);

/* When the next probe render should start, after the previous present
 * (its frame rendered at `prev_render_ns`) returned at `prev_return_ns`,
 * for a render predicted to cost `predicted_cost_ns`. With a blocking
 * present the render phase moves later only by lengthening a render
 * interval, and a step of P/4 was a late frame (issue 39): so the render
 * comes at most TEMPO__PACER_HANDOVER_RELAX(P) more than a period after
 * the previous one (prev_render_ns 0: no such bound, for LOCKSTEP, which
 * renders after its ticks), and a present so moved short of its probe
 * phase is not measured (tempo__probe_presented). */
uint64_t tempo__probe_wake_ns(tempo__probe *pr, uint64_t prev_render_ns, uint64_t prev_return_ns,
                              uint64_t predicted_cost_ns);

/* A probe present was called at `call_ns` and returned at `return_ns`.
 * Returns TEMPO__PROBE_MORE until a round of pairs is complete, then its
 * verdict (UNSURE starts a new round). FREE needs every pair's difference
 * near 0, not only the median's. */
int tempo__probe_presented(tempo__probe *pr, uint64_t call_ns, uint64_t return_ns);

/* The same for a measurement that makes its presents in pairs, an "a" and
 * a "b" each (a timer's re-measurement, which moves the render phase):
 * returns as tempo__probe_presented. */
int tempo__probe_pair_presented(tempo__probe *pr, uint64_t a_call_ns, uint64_t a_return_ns, uint64_t b_call_ns,
                                uint64_t b_return_ns);

#endif /* TEMPO_PACER_H */
