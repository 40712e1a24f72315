/* Display pacing: what the loop's presents do, and the pacing that follows
 * from it (tempo/loop.h, "Display pacing"). The loop calls
 * tempo__loop_present() after each render it presents; this file measures
 * the present (the probe of a quarter period, the pacer's fit of the
 * vblanks in pacer.c), picks the pacing (vsync, timer, probing, presents
 * withheld), and measures a timer again when the presents may have
 * changed. The schedule that follows from the pacing is loop_schedule.c's.
 * [loop thread] */
#include <stdlib.h>

#include "loop_internal.h"
#include "loop_schedule.h"
#include "tempo_internal.h"

/* A present that blocks longer than this many nominal refresh periods (and
 * at least WITHHELD_MIN_NS) was withheld, not paced by a vblank; two in a
 * row are the withheld state. */
#define WITHHELD_PERIODS 4
#define WITHHELD_MIN_NS (50 * TEMPO_NS_PER_MS)
#define WITHHELD_RUN 2
/* While presents are withheld, one probe render and present this often;
 * on a window the window system says is shown the first probe comes a
 * period after the withheld present, the interval doubling up to this
 * while the presents stay withheld. */
#define WITHHELD_PROBE_NS (500 * TEMPO_NS_PER_MS)
/* Probe rounds that may end undecided before the loop picks a pacing. */
#define PROBE_MAX_ROUNDS 2
/* TIMER chosen by a measurement is measured again (presents that start
 * blocking on vblanks: vsync turned on in the driver, the window moved to
 * a display that has it): at the next present after a window event that
 * can change what the presents do (shown, restored, another display);
 * after REPROBE_RUN presents in a row that blocked more than a quarter
 * period (not sooner than REPROBE_FIRST_NS after the verdict); and
 * periodically, REPROBE_FIRST_NS after the verdict, the interval doubling
 * with each verdict up to REPROBE_MAX_NS (reset by a window event). */
#define REPROBE_FIRST_NS (2 * TEMPO_NS_PER_S)
#define REPROBE_MAX_NS (32 * TEMPO_NS_PER_S)
#define REPROBE_RUN 3

/* The refresh rate of the window's display (the desktop's without a
 * window), or 60 when SDL does not know (Xvfb reports 0 Hz). */
uint32_t tempo__loop_display_hz(SDL_Window *window)
{
    SDL_DisplayMode mode;
    int rate = 0;
    if (SDL_WasInit(SDL_INIT_VIDEO)) {
        int index = window != NULL ? SDL_GetWindowDisplayIndex(window) : 0;
        if (index >= 0 && SDL_GetCurrentDisplayMode(index, &mode) == 0)
            rate = mode.refresh_rate;
    }
    return tempo__pacer_display_hz(rate);
}

/* Forget the vblank phase (resume, vsync toggle, another display): the
 * next presents teach it again. */
void tempo__loop_pace_reset(tempo_loop *L)
{
    tempo__pacer_reset(&L->pacer);
    L->sched.pace_wake_ns = 0;
    L->last_return_ns = 0;
}

/* The pacer's and the probe's part of the schedule's inputs (L->sched):
 * the schedule reads them from its own struct, kept current here after
 * every change of either. */
static void publish(tempo_loop *L)
{
    L->sched.nominal_period_ns = L->pacer.nominal_period_ns;
    L->sched.probe_n = L->probe.n;
    L->sched.probe_period_ns = L->probe.period_ns;
}

/* Switches the pacing in force. PROBING starts a new measurement with a
 * render at once (its present's return anchors the first probe). */
void tempo__loop_set_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    L->sched.pacing = pacing;
    L->sched.vsync = pacing == TEMPO_LOOP_PACING_VSYNC;
    L->long_presents = 0;
    L->present_grid_ns = 0;
    L->reprobe_ns = 0;
    L->blocking_presents = 0;
    L->reprobing = false;
    L->sched.slot_shift_ns = 0;
    tempo__loop_pace_reset(L);
    if (pacing == TEMPO_LOOP_PACING_PROBING) {
        tempo__probe_start(&L->probe, L->pacer.nominal_period_ns);
        L->st.win.probes++;
    }
    publish(L);
    tempo__loop_realign_render_slot(L);
}

/* Switches the pacing on what the presents were measured to do (a probe's
 * verdict, presents that stopped blocking or block on a grid of their own,
 * a re-measurement). The run of presents that
 * blocked past the withheld bound goes on: a verdict reached on such a
 * present (a window minimized while the loop probed) must not make the
 * compositor's withholding wait for two more. */
static void set_measured_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    int run = L->long_presents;
    tempo__loop_set_pacing(L, pacing);
    L->long_presents = run;
}

/* A measurement at `now` chose the timer (`grid_ns`: the presents block on
 * a grid of their own of that period, else 0): measure again later. */
static void timer_verdict(tempo_loop *L, uint64_t now, uint64_t grid_ns)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_TIMER);
    L->present_grid_ns = grid_ns;
    L->timer_since_ns = now;
    if (L->reprobe_every_ns == 0)
        L->reprobe_every_ns = REPROBE_FIRST_NS;
    L->reprobe_ns = now + L->reprobe_every_ns;
    L->reprobe_every_ns = L->reprobe_every_ns * 2 < REPROBE_MAX_NS ? L->reprobe_every_ns * 2 : REPROBE_MAX_NS;
}

/* Something may have changed what the presents do: measure again at the
 * next present (when a measurement chose the timer), and restart the
 * periodic re-measurement's backoff. */
void tempo__loop_reprobe_soon(tempo_loop *L)
{
    L->reprobe_every_ns = REPROBE_FIRST_NS;
    if (L->sched.pacing == TEMPO_LOOP_PACING_TIMER && L->reprobe_ns != 0)
        L->reprobe_ns = 1;
}

/* The pacing to start from: measure the presents the loop makes, unless
 * vsync is off or the game presents itself. */
tempo_loop_pacing tempo__loop_initial_pacing(const tempo_loop *L)
{
    return L->owns_present && L->vsync_mode != TEMPO_LOOP_VSYNC_OFF ? TEMPO_LOOP_PACING_PROBING
                                                                      : TEMPO_LOOP_PACING_TIMER;
}

/* The verdict of a measurement whose rounds all ended undecided (the
 * first probe's and a timer's re-measurement alike): ON paces by the
 * presents (the game asked for vsync); AUTO too when they lasted a quarter
 * period or more (they wait, for frame callbacks too irregular for the
 * quarter-period test: a compositor repainting slower than its mode), else
 * by the timer. */
static int undecided_verdict(const tempo_loop *L)
{
    return L->vsync_mode == TEMPO_LOOP_VSYNC_ON || TEMPO__PROBE_WAITED(&L->probe) ? TEMPO__PROBE_BLOCKS
                                                                                  : TEMPO__PROBE_FREE;
}

/* Measure the presents from scratch (the first probe's way: calls timed
 * from the previous return, so a present that blocks loses no vblank). */
static void reprobe_from_scratch(tempo_loop *L, uint64_t b)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
    L->last_return_ns = b; /* the next render (at once) anchors the probe */
}

/* A present paced by the timer returned (called at `a`, returned at `b`).
 * When a measurement chose the timer, it is measured again:
 *  - presents that now block more than a quarter period (REPROBE_RUN in a
 *    row, not sooner than REPROBE_FIRST_NS after the verdict): from
 *    scratch, as at the start;
 *  - periodically, on the timer's own renders, without a visible frame
 *    lost: the first probe's test (does a present called a quarter period
 *    earlier block a quarter period longer?) made by moving the render
 *    phase. Each pair is a present "b" on the schedule, then the schedule
 *    moved a quarter period earlier and a present "a" on it: one render
 *    interval of 3/4 period per pair, none longer than a period. After the
 *    4 pairs the schedule has moved a whole period: back on its grid, one
 *    render more in all. (A present blocking more than a quarter period
 *    would delay the "a" render; the run above catches those.) */
static void timer_present(tempo_loop *L, uint64_t a, uint64_t b)
{
    if (L->reprobe_ns == 0)
        return; /* the timer was asked for */
    uint64_t P = L->pacer.nominal_period_ns;
    /* SDL's software renderer waits for no vblank, ever: if its present
     * blocks, SDL sleeps (emulated vsync, decided when it was created), and
     * a call moved a quarter period earlier sleeps longer, like a vsync
     * present. Only a window event measures it again. Nor does a present
     * known to sleep to a grid of its own say anything by blocking. */
    if (L->software_present && L->reprobe_ns != 1)
        return;
    L->blocking_presents = b - a > P / 4 && L->present_grid_ns == 0 ? L->blocking_presents + 1 : 0;
    if (L->blocking_presents >= REPROBE_RUN && b >= L->timer_since_ns + REPROBE_FIRST_NS) {
        reprobe_from_scratch(L, b);
        return;
    }
    if (L->reprobing) {
        if (L->probe_b_call == 0) { /* this is a "b": the next render a quarter period earlier */
            L->probe_b_call = a;
            L->probe_b_return = b;
            L->sched.slot_shift_ns += P / 4;
            return;
        }
        int verdict = tempo__probe_pair_presented(&L->probe, a, b, L->probe_b_call, L->probe_b_return);
        L->probe_b_call = 0;
        /* A present known to sleep to a regular grid of its own (the judge
         * saw its returns on the line) drifts against the timer's calls, so
         * some pairs differ: the median alone says free, as before the
         * every-pair rule, which is for irregular frame callbacks. */
        if (verdict == TEMPO__PROBE_UNSURE && L->present_grid_ns != 0 &&
            llabs(L->probe.last_median_ns) < (int64_t)P / 8)
            verdict = TEMPO__PROBE_FREE;
        if (L->sched.slot_shift_ns >= P - P / 16) { /* a whole period: back on the grid */
            L->sched.slot_shift_ns = 0;
            tempo__loop_realign_render_slot(L);
        }
        /* Undecided: as the first probe, but a present known to sleep to
         * a grid of its own waits by design and says nothing by it. */
        if (verdict == TEMPO__PROBE_UNSURE && L->probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = L->present_grid_ns != 0 ? TEMPO__PROBE_FREE : undecided_verdict(L);
        /* It blocks, or (undecided) the presents waited: measure from
         * scratch, where the first probe's rules decide and the pacer
         * learns the vblanks. */
        if (verdict == TEMPO__PROBE_BLOCKS)
            reprobe_from_scratch(L, b);
        else if (verdict == TEMPO__PROBE_FREE)
            timer_verdict(L, b, L->present_grid_ns);
        return;
    }
    if (b < L->reprobe_ns)
        return;
    if (!L->display_hz_given) {
        /* The display mode may have changed meanwhile. */
        uint32_t hz = tempo__loop_display_hz(L->window);
        if (hz != L->sched.display_hz) {
            L->sched.display_hz = hz;
            tempo__pacer_init(&L->pacer, step_of(hz), 0);
            reprobe_from_scratch(L, b); /* another display: measure from scratch */
            return;
        }
    }
    if (L->reprobe_ns == 1) { /* a window event: at once, from scratch */
        reprobe_from_scratch(L, b);
        return;
    }
    if (!tempo__sched_render_scheduled(&L->sched)) {
        /* LOCKSTEP renders after its ticks, on no phase the measurement
         * could move without a longer interval: only a run of blocking
         * presents or a window event measures it again. */
        L->reprobe_ns = UINT64_MAX;
        return;
    }
    tempo__probe_start(&L->probe, P);
    L->st.win.probes++;
    L->reprobing = true;
    L->probe_b_call = a; /* this present is the first "b" */
    L->probe_b_return = b;
    L->sched.slot_shift_ns = P / 4;
}

/* When the work of the frame rendered at `t` started, for the pacer's
 * cost: the wake the pacer asked for when the render was on its schedule,
 * so late wake-ups count as cost and the pacer learns to wake earlier;
 * else the frame's wake. */
static uint64_t work_start(const tempo_loop *L, uint64_t t)
{
    uint64_t planned = L->sched.pace_wake_ns;
    uint64_t half = tempo__pacer_period_ns(&L->pacer) / 2;
    return planned != 0 && t >= planned && t - planned < half ? planned : L->wake_ns;
}

/* The next update's due time, if one can run before a waiting present:
 * a fixed policy whose renders follow their own slots (LOCKSTEP renders
 * after its ticks, VARIABLE's update is the render's), not in the game's
 * pause or at the catch-up limit; else UINT64_MAX. */
static uint64_t next_update_for_wait(const tempo_loop *L)
{
    if (L->sched.policy == TEMPO_LOOP_VARIABLE || L->sched.policy == TEMPO_LOOP_LOCKSTEP || L->sched.game_paused ||
        L->sched.display_driven || L->pause_mask != 0 || atomic_load(&L->quit))
        return UINT64_MAX;
    if (tempo__sched_updates_blocked(&L->sched))
        return UINT64_MAX;
    return tempo__sched_next_tick_ns(&L->sched);
}

static void present_now(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited);

/* Presents are withheld, and the one that returned at `b` was (`entered`:
 * it made the state). Whether the window is hidden is the window system's
 * to say, not the presents' (issue 39): two 120 ms presents in a row are
 * as often a slow blit on a loaded machine, and the hidden-pause they
 * triggered stopped a shown window's updates for half a second.
 *  - The window system says the window is shown: no pause; the updates
 *    keep their full rate (no catch-up cap while withheld), and the probes
 *    come soon: a period after the state began (or the window system's
 *    answer became "shown"), the interval doubling up to WITHHELD_PROBE_NS
 *    while the presents stay withheld, so a picture that was only slow
 *    freezes no longer than it must.
 *  - It says hidden, or nothing (Wayland: a compositor only stops the
 *    frame callbacks of a surface it does not show, and SDL 2.26 sends no
 *    event): the hidden-pause, unless desc.run_while_hidden; a probe every
 *    WITHHELD_PROBE_NS, the only sign on Wayland that the window is shown
 *    again.
 * Asked at every withheld present, so a window hidden or shown meanwhile
 * is answered at the next probe. */
static void withheld_goes_on(tempo_loop *L, uint64_t b, bool entered)
{
    bool shown = L->window_visibility(L->window) == PLAT_VISIBILITY_SHOWN;
    bool became_shown = shown && (entered || !L->withheld_shown);
    L->withheld_shown = shown;
    if (shown || L->run_hidden)
        L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
    else
        L->pause_mask |= PAUSE_WITHHELD; /* counts as hidden: the hidden-pause */
    if (!shown)
        L->withheld_every_ns = WITHHELD_PROBE_NS;
    else if (became_shown)
        L->withheld_every_ns = L->pacer.nominal_period_ns;
    else if (L->withheld_every_ns < WITHHELD_PROBE_NS / 2)
        L->withheld_every_ns *= 2;
    else
        L->withheld_every_ns = WITHHELD_PROBE_NS;
    L->sched.withheld_probe_ns = b + L->withheld_every_ns;
}

/* A present returned within the withheld bound (at `b`): frames come back,
 * and the pacing from before resumes, learnt afresh. A timer was chosen by
 * a measurement (WITHHELD needs vsync asked for and the loop's own
 * presents): it is measured again later, as after any verdict, and keeps
 * the grid the presents sleep to. */
static void withheld_ends(tempo_loop *L, uint64_t b)
{
    L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
    L->sched.dirty = true;
    if (L->pacing_before_withheld == TEMPO_LOOP_PACING_TIMER)
        timer_verdict(L, b, L->present_grid_ns);
    else
        tempo__loop_set_pacing(L, L->pacing_before_withheld);
    L->last_return_ns = b;
}

/* Presents the frame rendered at `t`. The time blocked in the present is
 * waiting, not game time; with vsync the pacer learns the vblanks from it
 * and sets the next wake.
 * With vsync the present blocks the loop until the vblank, and an update
 * due meanwhile would run only when it returns (issue 36 item 10: SDL3
 * simulating vsync under Xvfb on an exact 60 Hz grid, paced as vsync, the
 * 10 Hz bounce's updates 7-8 ms late at p50; ~0.05 ms with classic SDL2,
 * whose whole-millisecond grid the timer paces).
 * So the present waits for such an update when what is left fits before
 * the vblank (tempo__pacer_may_wait): the loop sleeps until the update,
 * runs it, and presents then (tempo__loop_present_waiting). */
void tempo__loop_present(tempo_loop *L, uint64_t t)
{
    /* SDL may queue the frame's draws until the present (render batching):
     * run them first, so their time counts as the render's cost, which the
     * pacer predicts, and not as blocking in the present. */
    if (L->renderer != NULL)
        SDL_RenderFlush(L->renderer);
    uint64_t r = loop_now(L);
    uint64_t start = L->sched.pacing == TEMPO_LOOP_PACING_TIMER ? 0 : work_start(L, t);
    if (L->sched.pacing == TEMPO_LOOP_PACING_VSYNC) {
        uint64_t v = tempo__pacer_next_vblank(&L->pacer, r);
        if (tempo__pacer_may_wait(&L->pacer, v, r, next_update_for_wait(L))) {
            L->present_waits = true;
            L->wait_start_ns = start;
            L->wait_render_end_ns = r;
            L->wait_vblank_ns = v;
            L->sched.present_by_ns = tempo__pacer_wait_deadline(&L->pacer, v);
            return;
        }
    }
    present_now(L, start, r, false);
}

void tempo__loop_present_waiting(tempo_loop *L, bool now_too)
{
    if (!L->present_waits)
        return;
    uint64_t now = loop_now(L);
    uint64_t due = next_update_for_wait(L);
    /* Wait on for the next update only if it is still to come (one due
     * now did not run: the loop cannot run it) and fits before the vblank. */
    if (!now_too && L->sched.pacing == TEMPO_LOOP_PACING_VSYNC && due > now && now < L->sched.present_by_ns &&
        tempo__pacer_may_wait(&L->pacer, L->wait_vblank_ns, now, due))
        return;
    L->present_waits = false;
    L->sched.present_by_ns = 0;
    if (!atomic_load(&L->quit))
        present_now(L, L->wait_start_ns, L->wait_render_end_ns, true);
}

/* Presents the frame rendered now: its work started at `start` (0 under
 * the timer), its render ended at `render_end`; `waited`: the present
 * waited for an update (L->wake_ns: when the loop woke for it). */
static void present_and_learn(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited);

static void present_now(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited)
{
    present_and_learn(L, start, render_end, waited);
    publish(L);
}

static void present_and_learn(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited)
{
    uint64_t a = loop_now(L);
    if (L->present != NULL)
        L->present(L, L->user);
    else
        SDL_RenderPresent(L->renderer);
    uint64_t b = loop_now(L);
    L->frame_present_ns += b - a;
    L->st.win.present_ns += b - a;
    if (L->vsync_mode == TEMPO_LOOP_VSYNC_OFF)
        return;
    bool had_return = L->last_return_ns != 0;
    L->last_return_ns = b;

    /* Presents that stop coming back are a state, not a stall. */
    uint64_t bound = WITHHELD_PERIODS * L->pacer.nominal_period_ns;
    if (bound < WITHHELD_MIN_NS)
        bound = WITHHELD_MIN_NS;
    if (b - a > bound) {
        L->st.win.withheld_presents++;
        bool entered = false;
        if (L->sched.pacing != TEMPO_LOOP_PACING_WITHHELD && ++L->long_presents >= WITHHELD_RUN) {
            L->pacing_before_withheld = L->sched.pacing;
            L->sched.pacing = TEMPO_LOOP_PACING_WITHHELD;
            L->sched.vsync = false;
            entered = true;
        }
        if (L->sched.pacing == TEMPO_LOOP_PACING_WITHHELD) {
            withheld_goes_on(L, b, entered);
            return;
        }
    } else {
        L->long_presents = 0;
        if (L->sched.pacing == TEMPO_LOOP_PACING_WITHHELD) {
            withheld_ends(L, b);
            return;
        }
    }
    if (L->sched.pacing == TEMPO_LOOP_PACING_TIMER) {
        timer_present(L, a, b);
        return;
    }
    uint64_t planned = L->sched.pace_wake_ns;
    uint64_t missed = L->pacer.st.missed;
    L->pacer.probing = L->sched.pacing == TEMPO_LOOP_PACING_PROBING;
    int fit = waited && L->sched.pacing == TEMPO_LOOP_PACING_VSYNC
                  ? tempo__pacer_presented_after_wait(&L->pacer, start <= render_end ? start : render_end,
                                                      render_end, L->wake_ns, a, b)
                  : tempo__pacer_presented(&L->pacer, start <= a ? start : a, a, b);
    if (L->sched.pacing == TEMPO_LOOP_PACING_PROBING) {
        /* The first present of a measurement only anchors the next one. */
        int verdict = had_return && planned != 0 ? tempo__probe_presented(&L->probe, a, b) : TEMPO__PROBE_MORE;
        if (verdict == TEMPO__PROBE_UNSURE && L->probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = undecided_verdict(L);
        if (verdict == TEMPO__PROBE_BLOCKS) {
            /* Keep the fit the probes started: the vblanks are known. */
            L->sched.pacing = TEMPO_LOOP_PACING_VSYNC;
            L->sched.vsync = true;
            uint64_t move = L->started ? tempo__sched_phase_move(&L->sched, b) : 0;
            if (move != 0) { /* the ticks between a return and the next render */
                L->sched.epoch_ns += move;
                tempo__loop_realign_render_slot(L);
            }
            /* From the probe's render phase to the pacer's in steps: the
             * next render a period after this one, not up to 1.5 later.
             * Not for SDL's software renderer, whose blocking present is
             * its own sleep (the judge hands it to the timer within 12
             * returns): a held lead only makes its updates wait longer. */
            if (b > start && !L->software_present)
                tempo__pacer_hold_lead(&L->pacer, (double)(b - start));
            L->sched.pace_wake_ns = tempo__pacer_wake_ns(&L->pacer, b);
        } else if (verdict == TEMPO__PROBE_FREE) {
            timer_verdict(L, b, 0);
        } else {
            L->sched.pace_wake_ns = tempo__probe_wake_ns(&L->probe, b, L->pacer.predicted_cost_ns);
        }
        return;
    }
    L->st.win.missed_vblanks += L->pacer.st.missed - missed;
    if (fit == TEMPO__PACER_UNBLOCKED) {
        /* Returns off every vblank for a while: do the presents still block? */
        set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
        L->last_return_ns = b; /* the next render (at once) anchors the probe */
        return;
    }
    /* Blocks, but returns more often than the display refreshes: a grid of
     * the present's own (SDL's emulated vsync), no vblank to pace by. */
    if (tempo__pacer_judge(&L->pacer, L->pacer.nominal_period_ns, L->software_present) ==
        TEMPO__PACER_JUDGE_OWN_GRID) {
        timer_verdict(L, b, tempo__pacer_period_ns(&L->pacer));
        return;
    }
    L->sched.pace_wake_ns = tempo__pacer_wake_ns(&L->pacer, b);
}
