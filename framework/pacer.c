/* Display pacing arithmetic (pacer.h). [loop thread] */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pacer.h"

#define NS_PER_S UINT64_C(1000000000)
#define DEFAULT_HZ 60u
#define DEFAULT_MARGIN_NS UINT64_C(500000)
/* Accepted presents before the fit is trusted: a line through fewer is at
 * the mercy of one jittery return. */
#define LOCK_SAMPLES 6
/* Consecutive outliers after which the fit is thrown away: the display
 * changed (another monitor, a new mode) or vsync went off. */
#define MAX_OUTLIER_RUN 8
/* How far before the fitted vblank a return may come and still count: the
 * fit's lower envelope moves with jitter and a slightly wrong slope. */
#define EARLY_TOLERANCE_NS 250000.0
/* Returns within this much of the lower envelope (or 1/50 of the period)
 * shape the slope; later ones were delayed on their way back to us. */
#define ENVELOPE_BAND_NS 400000.0

uint32_t tempo__pacer_display_hz(int refresh_rate)
{
    /* SDL reports 0 when it does not know (Xvfb, some Wayland setups); above
     * 1000 Hz is no display we know of. */
    return refresh_rate > 0 && refresh_rate <= 1000 ? (uint32_t)refresh_rate : DEFAULT_HZ;
}

void tempo__pacer_init(tempo__pacer *p, uint64_t nominal_period_ns, uint64_t margin_ns)
{
    memset(p, 0, sizeof *p);
    p->nominal_period_ns = nominal_period_ns ? nominal_period_ns : (NS_PER_S + DEFAULT_HZ / 2) / DEFAULT_HZ;
    p->margin_ns = margin_ns ? margin_ns : DEFAULT_MARGIN_NS;
    p->period_ns = (double)p->nominal_period_ns;
    p->guess_ns = p->period_ns;
    p->wait_need_ns = (double)p->margin_ns;
    /* The present's own work before its flip is seen only by the vblank it
     * loses, so the pacer starts where its first such miss would put it
     * and keeps that as its floor (issue 39 section 2): a present with 1.3-3
     * ms of work lost its first vblank ~0.45 s in, every run, where the plain
     * loop lost none. A present with no work of its own pays P/4 of lead
     * (4.2 ms at 60 Hz, forgotten as the floor is: in about an hour). */
    p->extra_margin_ns = TEMPO__PACER_START_MARGIN(p->period_ns);
    p->margin_floor_ns = p->extra_margin_ns;
}

void tempo__pacer_reset(tempo__pacer *p)
{
    p->nfit = 0;
    p->fit_next = 0;
    p->locked = false;
    p->outlier_run = 0;
    p->early_run = 0;
    p->short_run = 0;
    p->long_run = 0;
    p->long_sum = 0;
    p->given_up = 0;
}

uint64_t tempo__pacer_period_ns(const tempo__pacer *p)
{
    return (uint64_t)llround(p->period_ns);
}

static void add_cost(tempo__pacer *p, uint64_t cost)
{
    p->cost[p->cost_next] = cost;
    p->cost_next = (p->cost_next + 1) % TEMPO__PACER_COSTS;
    if (p->ncost < TEMPO__PACER_COSTS)
        p->ncost++;
    /* The second largest of the recent costs (the one cost while there is
     * only one). Near the top, because a frame that misses its vblank costs
     * a whole period of latency and judder, where a wake-up a little early
     * costs only a little latency. Not the top: a cost seen once is a
     * disturbance (the loop thread preempted in the render, a late wake-up),
     * not the game's. Trusted, one preempted render of 8.4 ms among 0.5 ms
     * ones raised the lead for ~50 frames, past the period with half a
     * period of learnt margin: the loop rendered at once after every present
     * and its sources got no time (bench_game's netq 0.4-0.5 s behind). A
     * cost seen twice in the window (half a second at 60 Hz) is the game's:
     * one that recurs every 16 frames or sooner is covered, and a step up in
     * cost from its third frame on. */
    uint64_t top = 0, second = 0;
    for (int i = 0; i < p->ncost; i++) {
        if (p->cost[i] > top) {
            second = top;
            top = p->cost[i];
        } else if (p->cost[i] > second) {
            second = p->cost[i];
        }
    }
    p->predicted_cost_ns = p->ncost > 1 ? second : top;
    if (p->low_latency) {
        /* The upper quartile: the render's cost, not its disturbances; the
         * extra margin learns from the misses what the lead must add. */
        uint64_t v[TEMPO__PACER_COSTS];
        for (int i = 0; i < p->ncost; i++) {
            int j = i;
            for (; j > 0 && v[j - 1] > p->cost[i]; j--)
                v[j] = v[j - 1];
            v[j] = p->cost[i];
        }
        p->predicted_cost_ns = v[(p->ncost * 3) / 4 < p->ncost ? (p->ncost * 3) / 4 : p->ncost - 1];
    }
}

void tempo__pacer_set_low_latency(tempo__pacer *p, bool on)
{
    p->low_latency = on;
    /* A loop that has seen no present yet starts safe: at twice the
     * floor, what the default margin falls back to at its first miss,
     * given back from there as vblanks are made. From the floor (P/8), each
     * bench_latency round of 4 s lost a vblank while learning. */
    double start = TEMPO__PACER_LOWLAT_START(p->period_ns);
    if (on && p->extra_margin_ns < start)
        p->extra_margin_ns = start;
}

/* Least squares of t against k over the samples in `use` (all when NULL),
 * relative to the newest sample: the slope (or the current period when the
 * samples do not determine one) and the line's value at the newest index. */
static void fit_line(const tempo__pacer *p, const bool *use, double *slope, double *at_last)
{
    double sx = 0, sy = 0;
    int m = 0;
    for (int i = 0; i < p->nfit; i++) {
        if (use != NULL && !use[i])
            continue;
        sx += (double)(p->fit_k[i] - p->last_k);
        sy += (double)((int64_t)(p->fit_t[i] - p->last_t));
        m++;
    }
    *slope = p->period_ns;
    *at_last = 0;
    if (m == 0)
        return;
    double mx = sx / m, my = sy / m, sxx = 0, sxy = 0;
    for (int i = 0; i < p->nfit; i++) {
        if (use != NULL && !use[i])
            continue;
        double x = (double)(p->fit_k[i] - p->last_k) - mx;
        double y = (double)((int64_t)(p->fit_t[i] - p->last_t)) - my;
        sxx += x * x;
        sxy += x * y;
    }
    if (m >= 3 && sxx > 0)
        *slope = sxy / sxx;
    *at_last = my - *slope * mx;
}

/* The smallest residual of the samples against the line. */
static double min_residual(const tempo__pacer *p, double slope, double at_last)
{
    double rmin = 0;
    for (int i = 0; i < p->nfit; i++) {
        double x = (double)(p->fit_k[i] - p->last_k);
        double r = (double)((int64_t)(p->fit_t[i] - p->last_t)) - (at_last + slope * x);
        if (i == 0 || r < rmin)
            rmin = r;
    }
    return rmin;
}

/* Fits the vblank line: least squares through all samples, then again
 * through those near its lower envelope only (a present that returned
 * late, because the thread was preempted or the machine busy, says
 * nothing about the vblank, and a run of them would tilt the slope), then
 * the line lowered onto the earliest return (returns are never early). */
static void refit(tempo__pacer *p)
{
    int n = p->nfit;
    if (n < 3) {
        p->anchor_ns = p->last_t;
        p->locked = false;
        return;
    }
    double slope, at_last;
    fit_line(p, NULL, &slope, &at_last);
    if (p->locked) {
        /* Judge lateness against the period learnt so far, not against a
         * line the late returns have already tilted. */
        slope = p->period_ns;
        double sx = 0, sy = 0;
        for (int i = 0; i < n; i++) {
            sx += (double)(p->fit_k[i] - p->last_k);
            sy += (double)((int64_t)(p->fit_t[i] - p->last_t));
        }
        at_last = (sy - slope * sx) / n;
    }
    double rmin = min_residual(p, slope, at_last);
    double band = p->period_ns / 50 > ENVELOPE_BAND_NS ? p->period_ns / 50 : ENVELOPE_BAND_NS;
    bool use[TEMPO__PACER_FIT];
    int kept = 0;
    for (int i = 0; i < n; i++) {
        double x = (double)(p->fit_k[i] - p->last_k);
        double r = (double)((int64_t)(p->fit_t[i] - p->last_t)) - (at_last + slope * x);
        use[i] = r - rmin <= band;
        kept += use[i];
    }
    if (kept < 3)
        for (int i = 0; i < n; i++)
            use[i] = true;
    fit_line(p, use, &slope, &at_last);
    /* A slope far from the period we started from is a wrong numbering,
     * not a display: keep the period we have. */
    if (slope > 0.75 * p->guess_ns && slope < 1.25 * p->guess_ns)
        p->period_ns = slope;
    /* The line with that period through the samples used. */
    double sx = 0, sy = 0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (use[i]) {
            sx += (double)(p->fit_k[i] - p->last_k);
            sy += (double)((int64_t)(p->fit_t[i] - p->last_t));
            m++;
        }
    at_last = (sy - p->period_ns * sx) / m;
    double off = at_last + min_residual(p, p->period_ns, at_last); /* <= 0 */
    p->anchor_ns = off < 0 ? p->last_t - (uint64_t)llround(-off) : p->last_t;
    p->locked = n >= LOCK_SAMPLES;
}

static void add_sample(tempo__pacer *p, int64_t k, uint64_t t)
{
    p->fit_k[p->fit_next] = k;
    p->fit_t[p->fit_next] = t;
    p->fit_next = (p->fit_next + 1) % TEMPO__PACER_FIT;
    if (p->nfit < TEMPO__PACER_FIT)
        p->nfit++;
    p->last_k = k;
    p->last_t = t;
    p->st.samples++;
    p->outlier_run = 0;
    p->early_run = 0;
    refit(p);
}

static int presented(tempo__pacer *p, uint64_t start_ns, uint64_t call_ns, uint64_t return_ns, bool waited);

/* The lead the wake keeps before the vblank: at once when it grows, by at
 * most TEMPO__PACER_LEAD_RELAX_NS when it shrinks. */
static void update_lead(tempo__pacer *p)
{
    double target = (double)p->predicted_cost_ns + (double)p->margin_ns + p->extra_margin_ns;
    double step = p->handover ? TEMPO__PACER_HANDOVER_RELAX(p->period_ns) : TEMPO__PACER_LEAD_RELAX_NS;
    if (target >= p->lead_ns - step) {
        p->lead_ns = target;
        p->handover = false;
    } else {
        p->lead_ns -= step;
    }
    /* A lead of a period already means "render at once": relaxing from
     * further up would keep that (and the sources' empty frames) longer. */
    if (p->lead_ns > p->period_ns)
        p->lead_ns = p->period_ns;
}

void tempo__pacer_hold_lead(tempo__pacer *p, double lead_ns)
{
    if (lead_ns > p->lead_ns && lead_ns < p->period_ns) {
        p->lead_ns = lead_ns;
        p->handover = true;
    }
}

int tempo__pacer_presented(tempo__pacer *p, uint64_t start_ns, uint64_t call_ns, uint64_t return_ns)
{
    int r = presented(p, start_ns, call_ns, return_ns, false);
    update_lead(p);
    return r;
}

int tempo__pacer_presented_after_wait(tempo__pacer *p, uint64_t start_ns, uint64_t render_end_ns,
                                      uint64_t resume_ns, uint64_t call_ns, uint64_t return_ns)
{
    /* The loop's work before the call: the largest seen, relaxing by a
     * sixteenth a present (an update that was costly once is not every
     * update's cost, but one costly every few seconds at 10 Hz is kept). */
    double work = call_ns > resume_ns ? (double)(call_ns - resume_ns) : 0.0;
    p->wait_work_ns = work >= p->wait_work_ns ? work : p->wait_work_ns - (p->wait_work_ns - work) / 16;
    /* The render's cost is what it was when the frame was drawn; the
     * time the present waited is no part of it. */
    int r = presented(p, start_ns, render_end_ns, return_ns, true);
    update_lead(p);
    return r;
}

static int presented(tempo__pacer *p, uint64_t start_ns, uint64_t call_ns, uint64_t return_ns, bool waited)
{
    p->st.presents++;
    int64_t given_up = p->given_up; /* vblanks before this present's that the loop gave up */
    p->given_up = 0;
    /* What a present that waited needs before its vblank, forgotten over
     * minutes (~18 at 60 Hz) down to the base margin. */
    p->wait_need_ns -= (p->wait_need_ns - (double)p->margin_ns) / 65536;
    uint64_t pred_before = p->predicted_cost_ns;
    if (call_ns >= start_ns)
        add_cost(p, call_ns - start_ns);
    /* Every return much closer to the previous one than the period: a
     * faster display than the mode said (every other return would still
     * fit the slow period, so this looks at all returns, not the fit's).
     * Start over from the interval we see. Not while the probe times the
     * calls: presents that do not block return at its call times, a
     * quarter and a half period apart, a rhythm of the loop's own. */
    uint64_t prev = p->probing ? 0 : p->prev_return_ns;
    p->prev_return_ns = return_ns;
    if (p->probing) {
        p->short_run = 0;
        p->long_run = 0;
        p->long_sum = 0;
    }
    if (prev != 0 && return_ns > prev && (double)(return_ns - prev) < 0.75 * p->period_ns) {
        if (++p->short_run >= MAX_OUTLIER_RUN) {
            p->st.resets++;
            p->period_ns = (double)(return_ns - prev);
            p->guess_ns = p->period_ns;
            tempo__pacer_reset(p);
            add_sample(p, 0, return_ns);
            return TEMPO__PACER_OK;
        }
    } else {
        p->short_run = 0;
    }
    /* Every return 1.25 to 1.75 periods after the previous one: not a
     * missed vblank (that is 2 periods) but a display, or a compositor,
     * delivering fewer frames than its mode says. Start over from the
     * mean interval seen. (A loop that renders at once after each return
     * sees every frame the display delivers.) */
    if (prev != 0 && return_ns > prev && (double)(return_ns - prev) > 1.25 * p->period_ns &&
        (double)(return_ns - prev) < 1.75 * p->period_ns) {
        p->long_sum += return_ns - prev;
        if (++p->long_run >= MAX_OUTLIER_RUN) {
            p->st.resets++;
            p->period_ns = (double)p->long_sum / p->long_run;
            p->guess_ns = p->period_ns;
            tempo__pacer_reset(p);
            add_sample(p, 0, return_ns);
            return TEMPO__PACER_OK;
        }
    } else {
        p->long_run = 0;
        p->long_sum = 0;
    }
    if (p->nfit == 0) {
        add_sample(p, 0, return_ns);
        return TEMPO__PACER_OK;
    }
    if (return_ns <= p->last_t) {
        p->st.outliers++;
        return TEMPO__PACER_OK;
    }
    double P = p->period_ns;
    int64_t n;
    bool ok;
    if (p->locked) {
        /* Number it by the vblank it lands nearest; accept it if it lands
         * just after (returns are late, never early). */
        double rel = (double)(return_ns - p->anchor_ns) / P;
        n = (int64_t)llround(rel);
        double resid = (double)(return_ns - p->anchor_ns) - (double)n * P;
        /* A return well before the vblank it should wait for did not
         * block: vsync is not in effect (a driver or compositor ignoring
         * it). Learning from it would teach the pacer its own rhythm, a
         * little faster each frame. */
        ok = n >= 1 && resid > -EARLY_TOLERANCE_NS && resid < P / 4;
        if (!ok && n >= 1 && resid <= -EARLY_TOLERANCE_NS)
            p->early_run++; /* before its vblank: did not block */
    } else {
        double d = (double)(return_ns - p->last_t);
        n = (int64_t)llround(d / P);
        ok = n >= 1 && fabs(d - (double)n * P) < P / 4;
    }
    if (!ok) {
        p->st.outliers++;
        if (++p->outlier_run >= MAX_OUTLIER_RUN) {
            /* Mostly early returns: the presents stopped blocking. Late ones
             * only: a display whose frames drift (a compositor's irregular
             * repaints), learnt afresh. */
            bool unblocked = p->early_run * 2 >= p->outlier_run;
            p->st.resets++;
            tempo__pacer_reset(p);
            add_sample(p, 0, return_ns);
            return unblocked ? TEMPO__PACER_UNBLOCKED : TEMPO__PACER_OK;
        }
        return TEMPO__PACER_OK;
    }
    uint64_t cost = call_ns >= start_ns ? call_ns - start_ns : 0;
    /* A render that ended past the vblank it was drawn for lost it before
     * its present waited: that miss is the render's (below). */
    if (waited && p->locked && n > 1 &&
        call_ns >= tempo__pacer_next_vblank(p, p->last_t + (uint64_t)(P / 2 + (double)given_up * P)))
        waited = false;
    /* Every vblank without a present counts (a given-up one too: the
     * display showed a frame twice); the present lost those after the one
     * it was drawn for. */
    if (p->locked && n > 1)
        p->st.missed += (uint64_t)(n - 1);
    int64_t lost = n - 1 - given_up;
    if (p->low_latency && p->locked) {
        /* Low latency: the extra margin is a quantile of what the render and
         * the present leave over the lead, tracked by the misses. */
        double step = TEMPO__PACER_LOWLAT_STEP(P), floor = TEMPO__PACER_LOWLAT_FLOOR(P);
        if (lost > 0) {
            /* Up to a whole period: a machine that needs it gets it (the
             * lead is then a period: render at once after each return, as
             * the textbook loop does), not a miss every few frames. */
            double up = p->extra_margin_ns + step < floor ? floor : p->extra_margin_ns + step;
            p->extra_margin_ns = up < P ? up : P;
        } else {
            double down = step / TEMPO__PACER_LOWLAT_HITS;
            p->extra_margin_ns = p->extra_margin_ns > floor + down ? p->extra_margin_ns - down : floor;
        }
    } else if (p->locked && lost > 0 && waited) {
        /* The present waited for an update and was called too close to its
         * vblank for its own work: it needs more, at once a safe amount
         * (doubled, at least P/8, at most P/2; the render's margin logic
         * below, for the same reason). Its updates in that stretch wait
         * for the present again. A present that does not lose the vblank
         * when called late (SDL3 pacing presents itself returns at once
         * and keeps its grid) never gets here, and keeps waiting. */
        double up = 2 * p->wait_need_ns > P / 8 ? 2 * p->wait_need_ns : P / 8;
        p->wait_need_ns = up < P / 2 ? up : P / 2;
    } else if (p->locked && lost > 0) {
        /* The render kept to its prediction (give or take the base margin)
         * and still missed: the present needs more time before the flip
         * than the margin leaves (its own work, unseen: only a miss tells).
         * Fall back at once to a safer margin, doubled and at least P/4
         * (TEMPO__PACER_START_MARGIN, where the pacer starts; at most P/2),
         * and keep it: creeping up by small steps lost a frame per step,
         * and a work whose tail is twice its median (SDL's software present
         * under X11: 2.4 ms, spikes to 7) one per spike.
         * From P/8 the first step still lost one more frame to that work,
         * and under a loaded machine's late wake-ups a frame per spike
         * (31 a minute where P/4 loses none); the price is ~2 ms of
         * latency with a cheap present (4.1 ms of margin instead of 2.1). */
        if (cost <= pred_before + p->margin_ns && p->extra_margin_ns < P / 2) {
            double least = TEMPO__PACER_START_MARGIN(P);
            double up = 2 * p->extra_margin_ns > least ? 2 * p->extra_margin_ns : least;
            p->extra_margin_ns = up < P / 2 ? up : P / 2;
            p->margin_floor_ns = p->extra_margin_ns; /* what the present was seen to need */
        }
    } else if (p->locked) {
        /* Every vblank met: give the margin back slowly, but not below what
         * a miss showed the present needs (each try below it would cost a
         * frame: with 0.3-1.5 ms of present work, 7 misses in 50 s). That
         * floor is forgotten over about an hour (the present may get
         * cheaper; TEMPO__PACER_FLOOR_FORGET). */
        p->margin_floor_ns -= p->margin_floor_ns / TEMPO__PACER_FLOOR_FORGET;
        if (p->extra_margin_ns > p->margin_floor_ns)
            p->extra_margin_ns -= (p->extra_margin_ns - p->margin_floor_ns) / 1024;
    }
    add_sample(p, p->last_k + n, return_ns);
    return TEMPO__PACER_OK;
}

uint64_t tempo__pacer_next_vblank(const tempo__pacer *p, uint64_t t_ns)
{
    if (p->nfit == 0 || t_ns <= p->anchor_ns)
        return p->nfit == 0 ? t_ns : p->anchor_ns;
    double n = ceil((double)(t_ns - p->anchor_ns) / p->period_ns);
    uint64_t v = p->anchor_ns + (uint64_t)llround(n * p->period_ns);
    if (v < t_ns) /* rounding of n * period */
        v = p->anchor_ns + (uint64_t)llround((n + 1) * p->period_ns);
    return v;
}

uint64_t tempo__pacer_wake_ns(const tempo__pacer *p, uint64_t now_ns)
{
    if (!p->locked)
        return now_ns;
    uint64_t need = p->predicted_cost_ns + p->margin_ns + (uint64_t)p->extra_margin_ns;
    if ((double)need >= p->period_ns)
        return now_ns; /* no slack: render at once, the present paces us */
    /* The vblank to aim at: the next one, unless less than the base margin
     * is left before it. The wake before it: the lead, which may still be
     * relaxing from a costlier frame (never later than that), or at once
     * if that is past: a return that came late (a busy machine) leaves
     * less than the lead, but the lead is a safety margin over the
     * render's cost, and a render started at once may still make the
     * vblank, where waiting for the one after loses it for sure. */
    uint64_t v = tempo__pacer_next_vblank(p, now_ns + p->margin_ns);
    uint64_t lead = p->lead_ns > (double)need ? (uint64_t)p->lead_ns : need;
    return v - now_ns > lead ? v - lead : now_ns;
}

bool tempo__pacer_give_up(tempo__pacer *p, uint64_t start_ns, uint64_t due_ns, uint64_t vblank_ns, uint64_t now_ns)
{
    if (!p->locked || vblank_ns == 0 || p->given_up != 0)
        return false;
    uint64_t next = tempo__pacer_next_vblank(p, now_ns + p->margin_ns);
    if (next <= vblank_ns || tempo__pacer_next_vblank(p, due_ns + p->margin_ns) > vblank_ns)
        return false;
    if (now_ns > start_ns)
        add_cost(p, now_ns - start_ns);
    int64_t n = llround((double)(next - vblank_ns) / p->period_ns);
    p->given_up = n >= 1 ? n : 1;
    p->st.given_up += (uint64_t)p->given_up;
    return true;
}

uint64_t tempo__pacer_wake_vblank_ns(const tempo__pacer *p, uint64_t now_ns)
{
    return p->locked ? tempo__pacer_next_vblank(p, now_ns + p->margin_ns) : 0;
}

/* ---- A present that waits for an update ---------------------------------- */

uint64_t tempo__pacer_wait_deadline(const tempo__pacer *p, uint64_t vblank_ns)
{
    /* What a present that waited was seen to need, or what the renders'
     * misses taught the present needs (its own work before the flip, the
     * extra margin), whichever is more: a present known to have work of
     * its own is not first tried with less (a frame lost each try). */
    double need_ns = p->margin_ns + p->extra_margin_ns;
    if (p->wait_need_ns > need_ns)
        need_ns = p->wait_need_ns;
    uint64_t need = (uint64_t)need_ns;
    return vblank_ns > need ? vblank_ns - need : 0;
}

bool tempo__pacer_may_wait(const tempo__pacer *p, uint64_t vblank_ns, uint64_t now_ns, uint64_t due_ns)
{
    /* Only on a fit of some standing: just locked (6 returns, the probe's
     * among them) it was seen 3 ms off the vblanks with returns up to 3 ms
     * late, and a present that waited to its predicted deadline then
     * lost the real vblank; nor while the lead relaxes from the probe's. */
    if (!p->locked || p->nfit < TEMPO__PACER_JUDGE_SAMPLES || p->handover)
        return false;
    if (due_ns >= vblank_ns)
        return false; /* the present returns before it is due */
    uint64_t from = due_ns > now_ns ? due_ns : now_ns;
    return from + (uint64_t)p->wait_work_ns <= tempo__pacer_wait_deadline(p, vblank_ns);
}

/* ---- Are the returns the display's vblanks? ------------------------------- */

/* How many returns of the fit lie within an eighth of a period after the
 * fitted vblank line. */
static int returns_on_the_line(const tempo__pacer *p)
{
    int on = 0;
    for (int i = 0; i < p->nfit; i++) {
        double x = (double)(p->fit_k[i] - p->last_k);
        double r = (double)((int64_t)(p->fit_t[i] - p->anchor_ns)) - p->period_ns * x;
        on += r <= p->period_ns / 8;
    }
    return on;
}

int tempo__pacer_judge(const tempo__pacer *p, uint64_t display_period_ns, bool software)
{
    if (!p->locked || p->nfit < TEMPO__PACER_JUDGE_SAMPLES || display_period_ns == 0)
        return TEMPO__PACER_JUDGE_MORE;
    double r = p->period_ns / (double)display_period_ns;
    double tol = software ? 0.005 : 0.02;
    if (!(r > 0.75 && r < 1.0 - tol))
        return TEMPO__PACER_JUDGE_DISPLAY;
    /* A grid of the present's own is a clock (whole-millisecond sleeps):
     * its returns sit on the line. A compositor's irregular frame callbacks
     * (weston: 48 frames/s under a 60 Hz mode, each up to 6-10 ms late)
     * scatter over the period, and a fit of them faster than the mode is a
     * numbering of those returns, not a grid. */
    return returns_on_the_line(p) >= p->nfit - p->nfit / 8 ? TEMPO__PACER_JUDGE_OWN_GRID
                                                           : TEMPO__PACER_JUDGE_DISPLAY;
}

/* ---- Does the present block? ------------------------------------------------ */

void tempo__probe_start(tempo__probe *pr, uint64_t period_ns)
{
    memset(pr, 0, sizeof *pr);
    pr->period_ns = period_ns ? period_ns : (NS_PER_S + DEFAULT_HZ / 2) / DEFAULT_HZ;
}

uint64_t tempo__probe_wake_ns(tempo__probe *pr, uint64_t prev_render_ns, uint64_t prev_return_ns,
                              uint64_t predicted_cost_ns)
{
    uint64_t q = pr->period_ns / 4;
    uint64_t base = predicted_cost_ns > q ? predicted_cost_ns : q;
    /* All the "a" renders of a round first, then all the "b" ones: with a
     * blocking present only the one step from a to b moves the phase;
     * alternating moved it back and forth, a late frame each pair. */
    uint64_t call = prev_return_ns + base + (pr->n >= TEMPO__PROBE_PAIRS ? q : 0);
    uint64_t wake = call - (predicted_cost_ns < call - prev_return_ns ? predicted_cost_ns : call - prev_return_ns);
    /* In steps: a present that does not block returns long before the
     * bound, and one that returned past it (a missed vblank) is late
     * whatever the step, so neither is moved. */
    uint64_t latest = prev_render_ns + pr->period_ns + (uint64_t)TEMPO__PACER_HANDOVER_RELAX((double)pr->period_ns);
    pr->moving = prev_render_ns != 0 && wake > latest && latest >= prev_return_ns &&
                 pr->round_moves < TEMPO__PROBE_MAX_MOVES;
    return pr->moving ? latest : wake;
}

/* d reduced modulo the period into (-P/2, P/2]. */
static int64_t mod_period(int64_t d, int64_t P)
{
    d %= P;
    if (d > P / 2)
        d -= P;
    if (d <= -P / 2)
        d += P;
    return d;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t probe_duration(uint64_t call_ns, uint64_t return_ns)
{
    return return_ns > call_ns ? (int64_t)(return_ns - call_ns) : 0;
}

static int probe_verdict(tempo__probe *pr);

int tempo__probe_presented(tempo__probe *pr, uint64_t call_ns, uint64_t return_ns)
{
    /* dur[] holds the "a" presents first, then the "b" ones: the order the
     * first probe makes them in (tempo__probe_wake_ns). A present on its
     * way to its phase is not one of them. */
    if (pr->moving) {
        pr->moving = false;
        pr->moved++;
        pr->round_moves++;
        return TEMPO__PROBE_MORE;
    }
    pr->dur[pr->n++] = probe_duration(call_ns, return_ns);
    return pr->n < 2 * TEMPO__PROBE_PAIRS ? TEMPO__PROBE_MORE : probe_verdict(pr);
}

int tempo__probe_pair_presented(tempo__probe *pr, uint64_t a_call_ns, uint64_t a_return_ns, uint64_t b_call_ns,
                                uint64_t b_return_ns)
{
    int k = pr->n / 2;
    pr->dur[k] = probe_duration(a_call_ns, a_return_ns);
    pr->dur[TEMPO__PROBE_PAIRS + k] = probe_duration(b_call_ns, b_return_ns);
    pr->n += 2;
    return pr->n < 2 * TEMPO__PROBE_PAIRS ? TEMPO__PROBE_MORE : probe_verdict(pr);
}

static int probe_verdict(tempo__probe *pr)
{
    int64_t P = (int64_t)pr->period_ns, q = P / 4;
    int64_t d[TEMPO__PROBE_PAIRS];
    for (int i = 0; i < TEMPO__PROBE_PAIRS; i++)
        d[i] = mod_period(pr->dur[i] - pr->dur[TEMPO__PROBE_PAIRS + i], P);
    qsort(d, TEMPO__PROBE_PAIRS, sizeof d[0], cmp_i64);
    int64_t med = (d[TEMPO__PROBE_PAIRS / 2 - 1] + d[TEMPO__PROBE_PAIRS / 2]) / 2;
    int64_t spread = llabs(d[0]) > llabs(d[TEMPO__PROBE_PAIRS - 1]) ? llabs(d[0]) : llabs(d[TEMPO__PROBE_PAIRS - 1]);
    int64_t dur[2 * TEMPO__PROBE_PAIRS];
    memcpy(dur, pr->dur, sizeof dur);
    qsort(dur, 2 * TEMPO__PROBE_PAIRS, sizeof dur[0], cmp_i64);
    pr->last_median_ns = med;
    pr->last_duration_ns = (dur[TEMPO__PROBE_PAIRS - 1] + dur[TEMPO__PROBE_PAIRS]) / 2;
    pr->n = 0;
    pr->round_moves = 0;
    if (llabs(med - q) < P / 8)
        return TEMPO__PROBE_BLOCKS;
    /* Free only when every pair agrees: a present that does not wait takes
     * its own work's time whenever it is called. Presents that wait for a
     * compositor's irregular frame callbacks give differences all over the
     * period, whose median can land near 0 (weston: the loop then paced by
     * its timer while the presents blocked 80-90% of the time). */
    if (llabs(med) < P / 8 && spread < P / 8)
        return TEMPO__PROBE_FREE;
    pr->rounds++;
    return TEMPO__PROBE_UNSURE;
}
