/* Display pacing: what the loop's presents do, and the pacing that follows
 * from it (tempo/loop.h, "Display pacing"). The loop calls
 * tempo__loop_present() after each render it presents; this file measures
 * the present (the probe of a quarter period, the pacer's fit of the
 * vblanks in pacer.c), picks the pacing (vsync, timer, probing, presents
 * withheld), and measures a timer again when the presents may have
 * changed. The schedule that follows from the pacing is loop_schedule.c's.
 *
 * Its state is its own (tempo_loop.pres, a tempo__present), and it writes
 * nothing else of the loop: each entry point returns a verdict (the render
 * slots realigned, the ticks moved after a vblank, the withheld-presents
 * pause, a render owed, the statistics' counts) that loop.c applies at
 * once, and the pacing's inputs to the schedule (tempo__present.pace),
 * which loop.c hands to the schedule whole. [loop thread] */
#include <stdlib.h>
#include <string.h>

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
static uint32_t display_hz_of(SDL_Window *window)
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

/* The pacer for a display of `hz`, low latency as the descriptor said. */
static void pacer_start(tempo_loop *L, uint32_t hz)
{
    tempo__pacer_init(&L->pres.pacer, step_of(hz), 0);
    tempo__pacer_set_low_latency(&L->pres.pacer, L->sched.low_latency);
}

/* The pacer's next wake after a present that returned at `b` (VSYNC), and
 * the vblank it aims at (the low-latency ticks run before it). */
static void set_wake(tempo_loop *L, uint64_t b)
{
    L->pres.pace.pace_wake_ns = tempo__pacer_wake_ns(&L->pres.pacer, b);
    L->pres.pace.pace_vblank_ns = tempo__pacer_wake_vblank_ns(&L->pres.pacer, b);
}

/* What the call under way asks of the loop (tempo__present_verdict). */
static void told_withheld_pause(tempo_loop *L, bool on)
{
    tempo__present_verdict *v = &L->pres.told;
    if (on) {
        v->pause_set |= PAUSE_WITHHELD;
        v->pause_clear &= ~(unsigned)PAUSE_WITHHELD;
    } else {
        v->pause_clear |= PAUSE_WITHHELD;
        v->pause_set &= ~(unsigned)PAUSE_WITHHELD;
    }
}

static void begin(tempo_loop *L)
{
    L->pres.told = (tempo__present_verdict){0};
}

static void publish(tempo_loop *L);

/* Every entry point ends here: the pacing's inputs to the schedule are
 * current, and the loop gets the verdict to apply. */
static tempo__present_verdict done(tempo_loop *L)
{
    publish(L);
    return L->pres.told;
}

/* Forget the vblank phase (resume, vsync toggle, another display): the
 * next presents teach it again. */
static void pace_reset(tempo_loop *L)
{
    tempo__pacer_reset(&L->pres.pacer);
    L->pres.pace.pace_wake_ns = 0;
    L->pres.pace.pace_vblank_ns = 0;
    L->pres.last_return_ns = 0;
}

tempo__present_verdict tempo__loop_pace_reset(tempo_loop *L)
{
    begin(L);
    pace_reset(L);
    return done(L);
}

/* The pacer's and the probe's part of the pacing's inputs to the schedule
 * (L->pres.pace), which live in pacer.c's structs. */
static void publish(tempo_loop *L)
{
    L->pres.pace.nominal_period_ns = L->pres.pacer.nominal_period_ns;
    L->pres.pace.probe_n = L->pres.probe.n;
    L->pres.pace.probe_period_ns = L->pres.probe.period_ns;
}

/* Switches the pacing in force. PROBING starts a new measurement with a
 * render at once (its present's return anchors the first probe). */
static void set_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    L->pres.pace.pacing = pacing;
    L->pres.pace.vsync = pacing == TEMPO_LOOP_PACING_VSYNC;
    L->pres.long_presents = 0;
    L->pres.present_grid_ns = 0;
    L->pres.reprobe_ns = 0;
    L->pres.blocking_presents = 0;
    L->pres.reprobing = false;
    L->pres.pace.slot_shift_ns = 0;
    pace_reset(L);
    if (pacing == TEMPO_LOOP_PACING_PROBING) {
        tempo__probe_start(&L->pres.probe, L->pres.pacer.nominal_period_ns);
        L->pres.told.probes++;
    }
    L->pres.told.realign = true;
}

/* Switches the pacing on what the presents were measured to do (a probe's
 * verdict, presents that stopped blocking or block on a grid of their own,
 * a re-measurement). The run of presents that
 * blocked past the withheld bound goes on: a verdict reached on such a
 * present (a window minimized while the loop probed) must not make the
 * compositor's withholding wait for two more. */
static void set_measured_pacing(tempo_loop *L, tempo_loop_pacing pacing)
{
    int run = L->pres.long_presents;
    set_pacing(L, pacing);
    L->pres.long_presents = run;
}

/* A measurement at `now` chose the timer (`grid_ns`: the presents block on
 * a grid of their own of that period, else 0): measure again later. */
static void timer_verdict(tempo_loop *L, uint64_t now, uint64_t grid_ns)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_TIMER);
    /* The renders resume on the timer's slots after this return: a slot
     * the present blocked past is skipped, not rendered at once. Rendered
     * at once, a present that sleeps to a grid of its own kept the loop
     * behind its slots, each present blocking across an update tick (up
     * to 10 ms late, for the ~400 ms the grids take to drift apart). */
    L->pres.told.skip_past_slots = true;
    L->pres.present_grid_ns = grid_ns;
    L->pres.timer_since_ns = now;
    if (L->pres.reprobe_every_ns == 0)
        L->pres.reprobe_every_ns = REPROBE_FIRST_NS;
    L->pres.reprobe_ns = now + L->pres.reprobe_every_ns;
    uint64_t every = L->pres.reprobe_every_ns;
    L->pres.reprobe_every_ns = every * 2 < REPROBE_MAX_NS ? every * 2 : REPROBE_MAX_NS;
}

/* Something may have changed what the presents do: measure again at the
 * next present (when a measurement chose the timer), and restart the
 * periodic re-measurement's backoff. */
static void reprobe_soon(tempo_loop *L)
{
    L->pres.reprobe_every_ns = REPROBE_FIRST_NS;
    if (L->pres.pace.pacing == TEMPO_LOOP_PACING_TIMER && L->pres.reprobe_ns != 0)
        L->pres.reprobe_ns = 1;
}

/* The pacing to start from: measure the presents the loop makes, unless
 * vsync is off or the game presents itself. */
static tempo_loop_pacing initial_pacing(const tempo_loop *L)
{
    return L->owns_present && L->pres.vsync_mode != TEMPO_LOOP_VSYNC_OFF ? TEMPO_LOOP_PACING_PROBING
                                                                          : TEMPO_LOOP_PACING_TIMER;
}

tempo__present_verdict tempo__loop_present_start(tempo_loop *L, const tempo_loop_desc *desc)
{
    begin(L);
    tempo__present *P = &L->pres;
    P->window_visibility = plat_window_visibility;
    P->display_hz_given = desc->display_hz != 0;
    P->pace.display_hz = P->display_hz_given ? tempo__pacer_display_hz((int)desc->display_hz)
                                             : display_hz_of(L->window);
    pacer_start(L, P->pace.display_hz);
    /* Not SDL_RENDERER_PRESENTVSYNC: the software renderer reports it and
     * does not block. The presents themselves are measured; SDL's software
     * renderer has no vblank of its own to wait for (tempo__pacer_judge). */
    SDL_RendererInfo rinfo;
    P->software_present = desc->renderer != NULL && desc->present == NULL &&
                          SDL_GetRendererInfo(desc->renderer, &rinfo) == 0 && rinfo.name != NULL &&
                          strcmp(rinfo.name, "software") == 0;
    P->vsync_mode = (unsigned)desc->vsync <= TEMPO_LOOP_VSYNC_OFF ? desc->vsync : TEMPO_LOOP_VSYNC_AUTO;
    set_pacing(L, initial_pacing(L));
    return done(L);
}

tempo__present_verdict tempo__loop_set_vsync_mode(tempo_loop *L, tempo_loop_vsync mode)
{
    begin(L);
    L->pres.vsync_mode = mode;
    told_withheld_pause(L, false);
    set_pacing(L, initial_pacing(L));
    return done(L);
}

tempo__present_verdict tempo__loop_window_shown(tempo_loop *L, bool reprobe)
{
    begin(L);
    L->pres.pace.withheld_probe_ns = 0; /* withheld presents: probe at once */
    if (reprobe)
        reprobe_soon(L);
    return done(L);
}

tempo__present_verdict tempo__loop_display_changed(tempo_loop *L)
{
    begin(L);
    if (!L->pres.display_hz_given) {
        L->pres.pace.display_hz = display_hz_of(L->window);
        pacer_start(L, L->pres.pace.display_hz);
        told_withheld_pause(L, false);
        set_pacing(L, initial_pacing(L)); /* measure the new display's presents */
    } else {
        reprobe_soon(L);
    }
    return done(L);
}

/* The verdict of a measurement whose rounds all ended undecided (the
 * first probe's and a timer's re-measurement alike): ON paces by the
 * presents (the game asked for vsync); AUTO too when they lasted a quarter
 * period or more (they wait, for frame callbacks too irregular for the
 * quarter-period test: a compositor repainting slower than its mode), else
 * by the timer. */
static int undecided_verdict(const tempo_loop *L)
{
    return L->pres.vsync_mode == TEMPO_LOOP_VSYNC_ON || TEMPO__PROBE_WAITED(&L->pres.probe) ? TEMPO__PROBE_BLOCKS
                                                                                  : TEMPO__PROBE_FREE;
}

/* Measure the presents from scratch (the first probe's way: calls timed
 * from the previous return, so a present that blocks loses no vblank). */
static void reprobe_from_scratch(tempo_loop *L, uint64_t b)
{
    set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
    L->pres.last_return_ns = b; /* the next render (at once) anchors the probe */
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
    if (L->pres.reprobe_ns == 0)
        return; /* the timer was asked for */
    uint64_t P = L->pres.pacer.nominal_period_ns;
    /* SDL's software renderer waits for no vblank, ever: if its present
     * blocks, SDL sleeps (emulated vsync, decided when it was created), and
     * a call moved a quarter period earlier sleeps longer, like a vsync
     * present. Only a window event measures it again. Nor does a present
     * known to sleep to a grid of its own say anything by blocking. */
    if (L->pres.software_present && L->pres.reprobe_ns != 1)
        return;
    L->pres.blocking_presents = b - a > P / 4 && L->pres.present_grid_ns == 0 ? L->pres.blocking_presents + 1 : 0;
    if (L->pres.blocking_presents >= REPROBE_RUN && b >= L->pres.timer_since_ns + REPROBE_FIRST_NS) {
        reprobe_from_scratch(L, b);
        return;
    }
    if (L->pres.reprobing) {
        if (L->pres.probe_b_call == 0) { /* this is a "b": the next render a quarter period earlier */
            L->pres.probe_b_call = a;
            L->pres.probe_b_return = b;
            L->pres.pace.slot_shift_ns += P / 4;
            return;
        }
        int verdict = tempo__probe_pair_presented(&L->pres.probe, a, b, L->pres.probe_b_call, L->pres.probe_b_return);
        L->pres.probe_b_call = 0;
        /* A present known to sleep to a regular grid of its own (the judge
         * saw its returns on the line) drifts against the timer's calls, so
         * some pairs differ: the median alone says free, as before the
         * every-pair rule, which is for irregular frame callbacks. */
        if (verdict == TEMPO__PROBE_UNSURE && L->pres.present_grid_ns != 0 &&
            llabs(L->pres.probe.last_median_ns) < (int64_t)P / 8)
            verdict = TEMPO__PROBE_FREE;
        if (L->pres.pace.slot_shift_ns >= P - P / 16) { /* a whole period: back on the grid */
            L->pres.pace.slot_shift_ns = 0;
            L->pres.told.realign = true;
        }
        /* Undecided: as the first probe, but a present known to sleep to
         * a grid of its own waits by design and says nothing by it. */
        if (verdict == TEMPO__PROBE_UNSURE && L->pres.probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = L->pres.present_grid_ns != 0 ? TEMPO__PROBE_FREE : undecided_verdict(L);
        /* It blocks, or (undecided) the presents waited: measure from
         * scratch, where the first probe's rules decide and the pacer
         * learns the vblanks. */
        if (verdict == TEMPO__PROBE_BLOCKS)
            reprobe_from_scratch(L, b);
        else if (verdict == TEMPO__PROBE_FREE)
            timer_verdict(L, b, L->pres.present_grid_ns);
        return;
    }
    if (b < L->pres.reprobe_ns)
        return;
    if (!L->pres.display_hz_given) {
        /* The display mode may have changed meanwhile. */
        uint32_t hz = display_hz_of(L->window);
        if (hz != L->pres.pace.display_hz) {
            L->pres.pace.display_hz = hz;
            pacer_start(L, hz);
            reprobe_from_scratch(L, b); /* another display: measure from scratch */
            return;
        }
    }
    if (L->pres.reprobe_ns == 1) { /* a window event: at once, from scratch */
        reprobe_from_scratch(L, b);
        return;
    }
    if (!tempo__sched_render_scheduled(&L->sched)) {
        /* LOCKSTEP renders after its ticks, on no phase the measurement
         * could move without a longer interval: only a run of blocking
         * presents or a window event measures it again. */
        L->pres.reprobe_ns = UINT64_MAX;
        return;
    }
    tempo__probe_start(&L->pres.probe, P);
    L->pres.told.probes++;
    L->pres.reprobing = true;
    L->pres.probe_b_call = a; /* this present is the first "b" */
    L->pres.probe_b_return = b;
    L->pres.pace.slot_shift_ns = P / 4;
}

/* When the work of the frame rendered at `t` started, for the pacer's
 * cost: the wake the pacer asked for when the render was on its schedule,
 * so late wake-ups count as cost and the pacer learns to wake earlier;
 * else the frame's wake. */
static uint64_t work_start(const tempo_loop *L, uint64_t t)
{
    uint64_t planned = L->pres.pace.pace_wake_ns;
    uint64_t half = tempo__pacer_period_ns(&L->pres.pacer) / 2;
    return planned != 0 && t >= planned && t - planned < half ? planned : L->wake_ns;
}

static void present_now(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited);

tempo__present_verdict tempo__loop_pace_late_wake(tempo_loop *L, uint64_t vblank_ns, uint64_t due, uint64_t t)
{
    begin(L);
    if (tempo__pacer_give_up(&L->pres.pacer, work_start(L, t), due, vblank_ns, t)) {
        L->pres.gave_up_planned_ns = L->pres.pace.pace_wake_ns; /* set_wake moves it below */
        L->pres.gave_up_woke_ns = L->wake_ns;
        set_wake(L, t);
    }
    return done(L);
}

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
    bool shown = L->pres.window_visibility(L->window) == PLAT_VISIBILITY_SHOWN;
    bool became_shown = shown && (entered || !L->pres.withheld_shown);
    L->pres.withheld_shown = shown;
    told_withheld_pause(L, !shown && !L->run_hidden); /* counts as hidden: the hidden-pause */
    if (!shown)
        L->pres.withheld_every_ns = WITHHELD_PROBE_NS;
    else if (became_shown)
        L->pres.withheld_every_ns = L->pres.pacer.nominal_period_ns;
    else if (L->pres.withheld_every_ns < WITHHELD_PROBE_NS / 2)
        L->pres.withheld_every_ns *= 2;
    else
        L->pres.withheld_every_ns = WITHHELD_PROBE_NS;
    L->pres.pace.withheld_probe_ns = b + L->pres.withheld_every_ns;
}

/* A present returned within the withheld bound (at `b`): frames come back,
 * and the pacing from before resumes, learnt afresh. A timer was chosen by
 * a measurement (WITHHELD needs vsync asked for and the loop's own
 * presents): it is measured again later, as after any verdict, and keeps
 * the grid the presents sleep to. */
static void withheld_ends(tempo_loop *L, uint64_t b)
{
    told_withheld_pause(L, false);
    L->pres.told.dirty = true;
    if (L->pres.pacing_before_withheld == TEMPO_LOOP_PACING_TIMER)
        timer_verdict(L, b, L->pres.present_grid_ns);
    else
        set_pacing(L, L->pres.pacing_before_withheld);
    L->pres.last_return_ns = b;
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
tempo__present_verdict tempo__loop_present(tempo_loop *L, uint64_t t, uint64_t due)
{
    begin(L);
    /* SDL may queue the frame's draws until the present (render batching):
     * run them first, so their time counts as the render's cost, which the
     * pacer predicts, and not as blocking in the present. */
    if (L->renderer != NULL)
        SDL_RenderFlush(L->renderer);
    uint64_t r = loop_now(L);
    uint64_t start = L->pres.pace.pacing == TEMPO_LOOP_PACING_TIMER ? 0 : work_start(L, t);
    if (L->pres.pace.pacing == TEMPO_LOOP_PACING_VSYNC) {
        uint64_t v = tempo__pacer_next_vblank(&L->pres.pacer, r);
        if (tempo__pacer_may_wait(&L->pres.pacer, v, r, due)) {
            L->pres.present_waits = true;
            L->pres.wait_start_ns = start;
            L->pres.wait_render_end_ns = r;
            L->pres.wait_vblank_ns = v;
            L->pres.pace.present_by_ns = tempo__pacer_wait_deadline(&L->pres.pacer, v);
            return done(L);
        }
    }
    present_now(L, start, r, false);
    return done(L);
}

tempo__present_verdict tempo__loop_present_waiting(tempo_loop *L, bool now_too, uint64_t due)
{
    begin(L);
    if (!L->pres.present_waits)
        return done(L);
    uint64_t now = loop_now(L);
    /* Wait on for the next update only if it is still to come (one due
     * now did not run: the loop cannot run it) and fits before the vblank. */
    if (!now_too && L->pres.pace.pacing == TEMPO_LOOP_PACING_VSYNC && due > now &&
        now < L->pres.pace.present_by_ns && tempo__pacer_may_wait(&L->pres.pacer, L->pres.wait_vblank_ns, now, due))
        return done(L);
    L->pres.present_waits = false;
    L->pres.pace.present_by_ns = 0;
    if (!atomic_load(&L->quit))
        present_now(L, L->pres.wait_start_ns, L->pres.wait_render_end_ns, true);
    return done(L);
}

/* Presents the frame rendered now: its work started at `start` (0 under
 * the timer), its render ended at `render_end`; `waited`: the present
 * waited for an update (L->wake_ns: when the loop woke for it). */
static void present_now(tempo_loop *L, uint64_t start, uint64_t render_end, bool waited)
{
    uint64_t a = loop_now(L);
    if (L->present != NULL)
        L->present(L, L->user);
    else
        SDL_RenderPresent(L->renderer);
    uint64_t b = loop_now(L);
    L->pres.told.present_ns += b - a;
    if (L->pres.vsync_mode == TEMPO_LOOP_VSYNC_OFF)
        return;
    bool had_return = L->pres.last_return_ns != 0;
    L->pres.last_return_ns = b;

    /* Presents that stop coming back are a state, not a stall. */
    uint64_t bound = WITHHELD_PERIODS * L->pres.pacer.nominal_period_ns;
    if (bound < WITHHELD_MIN_NS)
        bound = WITHHELD_MIN_NS;
    if (b - a > bound) {
        L->pres.told.withheld_presents++;
        bool entered = false;
        if (L->pres.pace.pacing != TEMPO_LOOP_PACING_WITHHELD && ++L->pres.long_presents >= WITHHELD_RUN) {
            L->pres.pacing_before_withheld = L->pres.pace.pacing;
            L->pres.pace.pacing = TEMPO_LOOP_PACING_WITHHELD;
            L->pres.pace.vsync = false;
            entered = true;
        }
        if (L->pres.pace.pacing == TEMPO_LOOP_PACING_WITHHELD) {
            withheld_goes_on(L, b, entered);
            return;
        }
    } else {
        L->pres.long_presents = 0;
        if (L->pres.pace.pacing == TEMPO_LOOP_PACING_WITHHELD) {
            withheld_ends(L, b);
            return;
        }
    }
    if (L->pres.pace.pacing == TEMPO_LOOP_PACING_TIMER) {
        timer_present(L, a, b);
        return;
    }
    uint64_t planned = L->pres.pace.pace_wake_ns;
    uint64_t missed = L->pres.pacer.st.missed;
    L->pres.pacer.probing = L->pres.pace.pacing == TEMPO_LOOP_PACING_PROBING;
    int fit = waited && L->pres.pace.pacing == TEMPO_LOOP_PACING_VSYNC
                  ? tempo__pacer_presented_after_wait(&L->pres.pacer, start <= render_end ? start : render_end,
                                                      render_end, L->wake_ns, a, b)
                  : tempo__pacer_presented(&L->pres.pacer, start <= a ? start : a, a, b);
    if (L->pres.pace.pacing == TEMPO_LOOP_PACING_PROBING) {
        /* The first present of a measurement only anchors the next one. */
        int verdict = had_return && planned != 0 ? tempo__probe_presented(&L->pres.probe, a, b) : TEMPO__PROBE_MORE;
        if (verdict == TEMPO__PROBE_UNSURE && L->pres.probe.rounds >= PROBE_MAX_ROUNDS)
            verdict = undecided_verdict(L);
        if (verdict == TEMPO__PROBE_BLOCKS) {
            /* Keep the fit the probes started: the vblanks are known. */
            L->pres.pace.pacing = TEMPO_LOOP_PACING_VSYNC;
            L->pres.pace.vsync = true;
            L->pres.told.phase = true; /* the ticks between a return and the next render */
            L->pres.told.phase_at_ns = b;
            /* From the probe's render phase to the pacer's in steps: the
             * next render a period after this one, not up to 1.5 later.
             * Not for SDL's software renderer, whose blocking present is
             * its own sleep (the judge hands it to the timer within 12
             * returns): a held lead only makes its updates wait longer. */
            if (b > start && !L->pres.software_present)
                tempo__pacer_hold_lead(&L->pres.pacer, (double)(b - start));
            set_wake(L, b);
        } else if (verdict == TEMPO__PROBE_FREE) {
            timer_verdict(L, b, 0);
        } else {
            /* The frame just presented was rendered at the schedule's last
             * render. LOCKSTEP renders after its ticks: no phase to move in
             * steps. */
            uint64_t render = tempo__sched_render_scheduled(&L->sched) ? L->sched.last_render_ns : 0;
            L->pres.pace.pace_wake_ns =
                tempo__probe_wake_ns(&L->pres.probe, render, b, L->pres.pacer.predicted_cost_ns);
        }
        return;
    }
    L->pres.told.missed_vblanks += L->pres.pacer.st.missed - missed;
    if (fit == TEMPO__PACER_UNBLOCKED) {
        /* Returns off every vblank for a while: do the presents still block? */
        set_measured_pacing(L, TEMPO_LOOP_PACING_PROBING);
        L->pres.last_return_ns = b; /* the next render (at once) anchors the probe */
        return;
    }
    /* Blocks, but returns more often than the display refreshes: a grid of
     * the present's own (SDL's emulated vsync), no vblank to pace by. */
    if (tempo__pacer_judge(&L->pres.pacer, L->pres.pacer.nominal_period_ns, L->pres.software_present) ==
        TEMPO__PACER_JUDGE_OWN_GRID) {
        timer_verdict(L, b, tempo__pacer_period_ns(&L->pres.pacer));
        return;
    }
    set_wake(L, b);
}

uint64_t tempo_loop_get_refresh_ns(const tempo_loop *L)
{
    if (L == NULL)
        return 0;
    /* With vsync, the period learnt from the presents: the fit's once it
     * locked, or the interval the pacer restarted from when the display
     * delivers fewer (or more) frames than its mode says. */
    if (L->sched.pace.pacing == TEMPO_LOOP_PACING_VSYNC &&
        (L->pres.pacer.locked || L->pres.pacer.guess_ns != (double)L->pres.pacer.nominal_period_ns))
        return tempo__pacer_period_ns(&L->pres.pacer);
    return step_of(L->sched.pace.display_hz);
}
