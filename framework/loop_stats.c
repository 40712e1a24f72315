/* The loop's statistics: the lateness histogram, the statistics windows,
 * and the public view (tempo_loop_get_stats, gathered
 * from the registry and the pacing; the names of policies, pacings and
 * wakes). Only the frame (loop.c) writes the counters. [loop thread] */
#include <string.h>

#include "loop_internal.h"

#define NS_PER_S UINT64_C(1000000000)

/* ---- Histogram ---------------------------------------------------------------- */

static int log2_u64(uint64_t v) /* v > 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(v);
#else
    int e = 0;
    while (v >>= 1)
        e++;
    return e;
#endif
}

static int bucket_of(uint64_t v)
{
    if (v < TEMPO__HIST_SUB)
        return (int)v;
    int e = log2_u64(v); /* >= 5 */
    int sub = (int)((v >> (e - 5)) & (TEMPO__HIST_SUB - 1));
    return TEMPO__HIST_SUB + (e - 5) * TEMPO__HIST_SUB + sub;
}

/* The smallest value of bucket i and its width. */
static void bucket_range(int i, uint64_t *lo, uint64_t *width)
{
    if (i < TEMPO__HIST_SUB) {
        *lo = (uint64_t)i;
        *width = 1;
        return;
    }
    int e = (i - TEMPO__HIST_SUB) / TEMPO__HIST_SUB + 5;
    uint64_t sub = (uint64_t)((i - TEMPO__HIST_SUB) % TEMPO__HIST_SUB);
    *width = UINT64_C(1) << (e - 5);
    *lo = (UINT64_C(1) << e) + sub * *width;
}

void tempo__hist_clear(tempo__hist *h)
{
    memset(h, 0, sizeof *h);
}

void tempo__hist_add(tempo__hist *h, uint64_t v)
{
    h->bucket[bucket_of(v)]++;
    h->count++;
    if (v > h->max)
        h->max = v;
}

uint64_t tempo__hist_percentile(const tempo__hist *h, double p)
{
    if (h->count == 0)
        return 0;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)h->count + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    if (rank == h->count)
        return h->max;
    uint64_t seen = 0;
    for (int i = 0; i < TEMPO__HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t lo, width;
            bucket_range(i, &lo, &width);
            uint64_t mid = lo + width / 2;
            return mid > h->max ? h->max : mid;
        }
    }
    return h->max;
}

/* ---- Statistics ------------------------------------------------------------------ */

static void add_counts(tempo_loop_counts *to, const tempo_loop_counts *from)
{
    to->elapsed_ns += from->elapsed_ns;
    to->frames += from->frames;
    to->updates += from->updates;
    to->renders += from->renders;
    for (int i = 0; i < TEMPO_LOOP_WAKE_COUNT; i++)
        to->wakes[i] += from->wakes[i];
    to->capped_frames += from->capped_frames;
    to->stalls += from->stalls;
    to->dropped_updates += from->dropped_updates;
    to->slowdown_ns += from->slowdown_ns;
    to->wait_ns += from->wait_ns;
    to->game_ns += from->game_ns;
    to->loop_ns += from->loop_ns;
    to->paused_ns += from->paused_ns;
    to->present_ns += from->present_ns;
    to->missed_vblanks += from->missed_vblanks;
    to->withheld_presents += from->withheld_presents;
    to->withheld_ns += from->withheld_ns;
    to->skipped_renders += from->skipped_renders;
    to->probes += from->probes;
    to->late_samples += from->late_samples;
}

/* Fills the percentiles and the derived rates and shares of c. */
static void derive(tempo_loop_counts *c, const tempo__hist *h)
{
    c->lateness_p50_ns = tempo__hist_percentile(h, 50);
    c->lateness_p99_ns = tempo__hist_percentile(h, 99);
    c->lateness_max_ns = h->max;
    double s = (double)c->elapsed_ns / 1e9;
    if (s > 0) {
        c->updates_per_s = (double)c->updates / s;
        c->renders_per_s = (double)c->renders / s;
        c->frames_per_s = (double)c->frames / s;
        c->sleeps_per_s = (double)(c->frames - c->wakes[TEMPO_LOOP_WAKE_DUE]) / s;
    }
    double busy = (double)c->wait_ns + (double)c->game_ns + (double)c->loop_ns;
    if (busy > 0) {
        c->wait_share = (double)c->wait_ns / busy;
        c->game_share = (double)c->game_ns / busy;
        c->loop_share = (double)c->loop_ns / busy;
    }
}

void tempo__stats_start(tempo__loop_stats *s, uint64_t now_ns)
{
    memset(s, 0, sizeof *s);
    s->first_ns = now_ns;
    s->win_start_ns = now_ns;
}

void tempo__stats_lateness(tempo__loop_stats *s, uint64_t late_ns)
{
    tempo__hist_add(&s->win_hist, late_ns);
    tempo__hist_add(&s->all_hist, late_ns);
    s->win.late_samples++;
}

void tempo__stats_render(tempo__loop_stats *s, uint64_t now_ns)
{
    s->win.renders++;
    if (s->last_render_ns != 0 && now_ns >= s->last_render_ns) {
        uint64_t interval = now_ns - s->last_render_ns;
        uint64_t sleep = s->sleep_since_render_ns;
        tempo_loop_stats *p = &s->pub;
        p->interval_ns[p->history_next] = interval;
        p->busy_ns[p->history_next] = sleep < interval ? interval - sleep : 0;
        p->history_next = (p->history_next + 1) % TEMPO_LOOP_HISTORY;
        if (p->history_count < TEMPO_LOOP_HISTORY)
            p->history_count++;
    }
    s->last_render_ns = now_ns;
    s->sleep_since_render_ns = 0;
}

void tempo__stats_frame(tempo__loop_stats *s, tempo_loop_wake wake, uint64_t t0, uint64_t t_end,
                        uint64_t wait_ns, uint64_t game_ns, bool paused_wait)
{
    tempo_loop_counts *w = &s->win;
    uint64_t total = t_end >= t0 ? t_end - t0 : 0;
    if (wait_ns > total)
        wait_ns = total;
    if (game_ns > total - wait_ns)
        game_ns = total - wait_ns;
    w->frames++;
    w->wakes[wake]++;
    w->wait_ns += wait_ns;
    w->game_ns += game_ns;
    w->loop_ns += total - wait_ns - game_ns;
    if (paused_wait)
        w->paused_ns += wait_ns;

    if (t_end >= s->win_start_ns && t_end - s->win_start_ns >= NS_PER_S) {
        w->elapsed_ns = t_end - s->win_start_ns;
        s->pub.last_second = *w;
        derive(&s->pub.last_second, &s->win_hist);
        add_counts(&s->done, w);
        memset(w, 0, sizeof *w);
        tempo__hist_clear(&s->win_hist);
        s->win_start_ns = t_end;
    }
}

void tempo__stats_refresh(tempo__loop_stats *s, uint64_t now_ns)
{
    tempo_loop_counts *t = &s->pub.total;
    *t = s->done;
    tempo_loop_counts partial = s->win;
    partial.elapsed_ns = now_ns >= s->win_start_ns ? now_ns - s->win_start_ns : 0;
    add_counts(t, &partial);
    derive(t, &s->all_hist);
}

/* ---- Names and the public statistics -------------------------------------------- */

static const char *const policy_names[TEMPO_LOOP_POLICY_COUNT] = {
    "interpolated", "lockstep", "constant-speed-max-fps", "variable"};
static const char *const wake_names[TEMPO_LOOP_WAKE_COUNT] = {"due",   "timer",  "input",
                                                              "watch", "signal", "source"};
static const char *const pacing_names[TEMPO_LOOP_PACING_COUNT] = {"timer", "vsync", "probing",
                                                                  "presents-withheld"};

const char *tempo_loop_policy_name(tempo_loop_policy policy)
{
    return (unsigned)policy < TEMPO_LOOP_POLICY_COUNT ? policy_names[policy] : "?";
}

const char *tempo_loop_pacing_name(tempo_loop_pacing pacing)
{
    return (unsigned)pacing < TEMPO_LOOP_PACING_COUNT ? pacing_names[pacing] : "?";
}

const char *tempo_loop_wake_name(tempo_loop_wake wake)
{
    return (unsigned)wake < TEMPO_LOOP_WAKE_COUNT ? wake_names[wake] : "?";
}

const tempo_loop_stats *tempo_loop_get_stats(tempo_loop *L)
{
    if (L == NULL)
        return NULL;
    if (L->started)
        tempo__stats_refresh(&L->st, loop_now(L));
    L->st.pub.paused = L->pause_mask != 0;
    L->st.pub.source_count = 0;
    for (int i = 0; i < L->reg.nwatch; i++) {
        if (L->reg.watches[i].source < 0)
            continue;
        const tempo__source *src = &L->reg.watches[i].src;
        tempo_loop_source_stats *o = &L->st.pub.sources[L->st.pub.source_count++];
        memcpy(o->name, src->name, sizeof o->name);
        o->pending = src->more;
        o->parked = src->parked;
        o->oldest_age_ns = src->oldest_age_ns;
        o->last_second = src->last;
        o->total = src->total;
    }
    L->st.pub.game_paused = L->sched.game_paused;
    L->st.pub.vsync = L->sched.pace.vsync;
    L->st.pub.pacing = L->sched.pace.pacing;
    L->st.pub.refresh_ns = tempo_loop_get_refresh_ns(L);
    L->st.pub.predicted_render_ns = L->sched.pace.vsync ? L->pres.pacer.predicted_cost_ns : 0;
    L->st.pub.present_grid_ns = L->sched.pace.pacing == TEMPO_LOOP_PACING_TIMER ? L->pres.present_grid_ns : 0;
    return &L->st.pub;
}
