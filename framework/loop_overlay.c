/* tempo_loop_draw_stats(): the statistics panel, drawn with debugdraw only
 * (no font library, no textures). [loop thread, which owns the renderer] */
#include <stdarg.h>
#include <stdio.h>

#include "loop_internal.h"
#include "tempo/debugdraw.h"
#include "tempo_internal.h"

#define LINE_H 12
#define PAD 6

/* "850ns", "52us", "1.25ms", "3.2s": short enough for a 48-column panel. */
static const char *fmt_ns(char *buf, size_t size, uint64_t ns)
{
    if (ns < 1000)
        snprintf(buf, size, "%uns", (unsigned)ns);
    else if (ns < 1000000)
        snprintf(buf, size, "%uus", (unsigned)(ns / 1000));
    else if (ns < 1000000000)
        snprintf(buf, size, "%.2fms", (double)ns / 1e6);
    else
        snprintf(buf, size, "%.1fs", (double)ns / 1e9);
    return buf;
}

/* The frame interval the policy aims at, for the graph's scale. */
static uint64_t expected_interval_ns(const tempo_loop *L)
{
    uint32_t hz = L->sched.render_hz;
    if (hz == 0) /* paced by the display: its vblanks or its refresh rate */
        hz = (uint32_t)(TEMPO_NS_PER_S / tempo_loop_get_refresh_ns(L));
    if (L->sched.policy == TEMPO_LOOP_LOCKSTEP || L->sched.on_demand)
        hz = L->sched.update_hz;
    if (L->sched.policy == TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS && L->sched.update_hz < hz)
        hz = L->sched.update_hz;
    return (TEMPO_NS_PER_S + hz / 2) / hz;
}

/* One line of text at integer scale k (the font has whole pixels). */
static int text(SDL_Renderer *r, int k, int x, int y, const char *fmt, ...) TEMPO__PRINTF(5, 6);
static int text(SDL_Renderer *r, int k, int x, int y, const char *fmt, ...)
{
    char line[TEMPO_DEBUG_TEXTF_MAX + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return tempo_debug_text(r, x, y, k, line);
}

#define MAX_SCALE 16

int tempo_loop_stats_fit_scale(int area_w, int area_h, int panel_w, int panel_h)
{
    if (area_w <= 0 || area_h <= 0 || panel_w <= 0 || panel_h <= 0)
        return 1;
    /* A quarter of the width (the panel is text: wide), half the height. */
    int sw = area_w / (4 * panel_w), sh = area_h / (2 * panel_h);
    int s = sw < sh ? sw : sh;
    return s < 1 ? 1 : s > MAX_SCALE ? MAX_SCALE : s;
}

int tempo_loop_stats_scale(const tempo_loop *L, SDL_Renderer *r)
{
    if (r == NULL)
        return 1;
    /* The area in the coordinates the panel is drawn in: the logical size
     * when the game set one (SDL scales it to the window), else the output
     * (window pixels, or the render target's) over the render scale. */
    int w = 0, h = 0;
    SDL_RenderGetLogicalSize(r, &w, &h);
    if (w <= 0 || h <= 0) {
        if (SDL_GetRendererOutputSize(r, &w, &h) != 0)
            return 1;
        float sx = 1, sy = 1;
        SDL_RenderGetScale(r, &sx, &sy);
        if (sx > 0)
            w = (int)((float)w / sx);
        if (sy > 0)
            h = (int)((float)h / sy);
    }
    return tempo_loop_stats_fit_scale(w, h, TEMPO_LOOP_STATS_W, tempo_loop_stats_height(L));
}

/* Copies the ring's newest `n` entries, oldest first. */
static int history(const tempo_loop_stats *s, const uint64_t *ring, uint64_t *out)
{
    int n = s->history_count;
    for (int i = 0; i < n; i++)
        out[i] = ring[(s->history_next - n + i + 2 * TEMPO_LOOP_HISTORY) % TEMPO_LOOP_HISTORY];
    return n;
}

int tempo_loop_stats_height(const tempo_loop *L)
{
    if (L == NULL || L->reg.nsource == 0)
        return TEMPO_LOOP_STATS_H;
    return TEMPO_LOOP_STATS_H + (L->reg.nsource + 1) * TEMPO_LOOP_STATS_SOURCE_H;
}

/* One line per source under a heading: its share of the last second, items
 * per second, overruns (total) and the oldest unit it reported. Drawn in
 * orange while its last second had overruns. */
static int draw_sources(SDL_Renderer *r, int k, const tempo_loop_stats *s, int tx, int ty)
{
    const int line_h = TEMPO_LOOP_STATS_SOURCE_H * k;
    int fail = 0;
    char a[16], b[16];
    double span = (double)s->last_second.elapsed_ns;
    fail |= SDL_SetRenderDrawColor(r, 150, 160, 180, 255);
    fail |= text(r, k, tx, ty, "source      busy  items/s  overrun  oldest");
    ty += line_h;
    for (int k = 0; k < s->source_count; k++) {
        const tempo_loop_source_stats *src = &s->sources[k];
        const tempo_loop_source_counts *c = &src->last_second;
        if (c->overruns)
            fail |= SDL_SetRenderDrawColor(r, 255, 170, 90, 255);
        else
            fail |= SDL_SetRenderDrawColor(r, 225, 228, 235, 255);
        double share = span > 0 ? 100.0 * (double)c->busy_ns / span : 0;
        double rate = span > 0 ? (double)c->items * 1e9 / span : 0;
        snprintf(a, sizeof a, "%.10s%s", src->name, src->parked ? "*" : "");
        fail |= text(r, k, tx, ty, "%-11s %4.1f%% %8.0f %8llu  %s", a, share, rate,
                     (unsigned long long)src->total.overruns, fmt_ns(b, sizeof b, src->oldest_age_ns));
        ty += line_h;
    }
    return fail;
}

int tempo_loop_draw_stats(tempo_loop *L, SDL_Renderer *r, int x, int y)
{
    if (L == NULL || r == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_draw_stats: %s is NULL", L == NULL ? "loop" : "renderer");
    return tempo_loop_draw_stats_scaled(L, r, x, y, tempo_loop_stats_scale(L, r));
}

int tempo_loop_draw_stats_scaled(tempo_loop *L, SDL_Renderer *r, int x, int y, int scale)
{
    if (L == NULL || r == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_draw_stats_scaled: %s is NULL",
                                L == NULL ? "loop" : "renderer");
    if (scale < 1 || scale > MAX_SCALE)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_draw_stats_scaled: scale %d outside 1..%d", scale,
                                MAX_SCALE);
    /* Every length below is at scale 1, times k. */
    const int k = scale;
    const tempo_loop_stats *s = tempo_loop_get_stats(L);
    const tempo_loop_counts *c = &s->last_second;
    Uint8 cr, cg, cb, ca;
    SDL_BlendMode mode;
    if (SDL_GetRenderDrawColor(r, &cr, &cg, &cb, &ca) != 0 || SDL_GetRenderDrawBlendMode(r, &mode) != 0)
        return tempo__set_error(TEMPO_EPLATFORM, "tempo_loop_draw_stats: %s", SDL_GetError());

    int fail = 0;
    SDL_Rect panel = {x, y, TEMPO_LOOP_STATS_W * k, tempo_loop_stats_height(L) * k};
    fail |= SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    fail |= SDL_SetRenderDrawColor(r, 8, 10, 16, 200);
    fail |= SDL_RenderFillRect(r, &panel);
    fail |= SDL_SetRenderDrawColor(r, 70, 80, 100, 255);
    fail |= SDL_RenderDrawRect(r, &panel);

    char a[64], b[16], d[16];
    int tx = x + PAD * k, ty = y + PAD * k;
    fail |= SDL_SetRenderDrawColor(r, 120, 200, 255, 255);
    /* A slow machine: the game time given up (the game runs behind the wall clock). */
    b[0] = '\0';
    if (s->total.slowdown_ns != 0)
        snprintf(b, sizeof b, "  behind %.1fs", (double)s->total.slowdown_ns / 1e9);
    fail |= text(r, k, tx, ty, "tempo loop: %s%s%s", tempo_loop_policy_name(L->sched.policy),
                 L->pause_mask ? "  PAUSED" : L->sched.game_paused ? "  GAME PAUSED" : "", b);
    ty += LINE_H * k;
    fail |= SDL_SetRenderDrawColor(r, 150, 160, 180, 255);
    /* The render pace: the cap, the learnt vblanks, or the display rate. */
    /* The pacing in force is named: timer, vsync, probing, presents-withheld. */
    if (L->sched.render_hz)
        snprintf(a, sizeof a, "cap %uHz %s", L->sched.render_hz, tempo_loop_pacing_name(L->sched.pace.pacing));
    else if (L->sched.pace.pacing == TEMPO_LOOP_PACING_TIMER && L->pres.present_grid_ns != 0)
        snprintf(a, sizeof a, "timer %.2fHz (present grid %.1fHz)", 1e9 / (double)tempo_loop_get_refresh_ns(L),
                 1e9 / (double)L->pres.present_grid_ns);
    else
        snprintf(a, sizeof a, "%s %.2fHz", tempo_loop_pacing_name(L->sched.pace.pacing),
                 1e9 / (double)tempo_loop_get_refresh_ns(L));
    fail |= text(r, k, tx, ty, "update %uHz  render %s%s", L->sched.update_hz, a,
                 L->sched.on_demand ? " on demand" : "");
    ty += (LINE_H + 2) * k;

    fail |= SDL_SetRenderDrawColor(r, 225, 228, 235, 255);
    fail |= text(r, k, tx, ty, "updates/s %6.1f   renders/s %6.1f", c->updates_per_s, c->renders_per_s);
    ty += LINE_H * k;
    fail |= text(r, k, tx, ty, "frames/s  %6.1f   sleeps/s  %6.1f", c->frames_per_s, c->sleeps_per_s);
    ty += LINE_H * k;
    fail |= text(r, k, tx, ty, "late p50 %s  p99 %s  max %s", fmt_ns(a, sizeof a, c->lateness_p50_ns),
                 fmt_ns(b, sizeof b, c->lateness_p99_ns), fmt_ns(d, sizeof d, c->lateness_max_ns));
    ty += LINE_H * k;
    fail |= text(r, k, tx, ty, "wait %5.1f%%  game %5.1f%%  loop %5.2f%%", 100 * c->wait_share,
                 100 * c->game_share, 100 * c->loop_share);
    ty += LINE_H * k;
    fail |= text(r, k, tx, ty, "woke: timer %llu  input %llu  watch %llu",
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_TIMER],
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_MESSAGES],
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_WATCH]);
    ty += LINE_H * k;
    fail |= text(r, k, tx, ty, "      source %llu  signal %llu  no sleep %llu",
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_SOURCE],
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_SIGNAL],
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_DUE]);
    ty += LINE_H * k;
    const tempo_loop_counts *t = &s->total;
    if (t->dropped_updates || t->stalls || t->capped_frames)
        fail |= SDL_SetRenderDrawColor(r, 255, 170, 90, 255);
    fail |= text(r, k, tx, ty, "total: dropped %llu  stalls %llu  capped %llu", (unsigned long long)t->dropped_updates,
                 (unsigned long long)t->stalls, (unsigned long long)t->capped_frames);
    ty += (LINE_H + 4) * k;

    /* Graphs: render-to-render interval, and the awake part of it, each
     * under its caption. */
    uint64_t samples[TEMPO_LOOP_HISTORY];
    uint64_t expect = expected_interval_ns(L);
    int gw = (TEMPO_LOOP_STATS_W - 2 * PAD) * k;
    int gh2 = 28 * k, gh1 = y + (TEMPO_LOOP_STATS_H - PAD - 2 * (TEMPO_DEBUG_GLYPH_H + 3) - 4) * k - gh2 - ty;
    fail |= SDL_SetRenderDrawColor(r, 150, 160, 180, 255);
    fail |= text(r, k, tx, ty, "frame interval (top %s)", fmt_ns(a, sizeof a, 2 * expect));
    ty += (TEMPO_DEBUG_GLYPH_H + 3) * k;
    int n = history(s, s->interval_ns, samples);
    tempo_debug_graph_desc g1 = {tx, ty, gw, gh1, 2 * expect, expect + expect / 2};
    fail |= tempo_debug_graph(r, &g1, samples, n);
    ty += gh1 + 4 * k;
    fail |= SDL_SetRenderDrawColor(r, 150, 160, 180, 255);
    fail |= text(r, k, tx, ty, "awake per frame (top %s)", fmt_ns(a, sizeof a, expect));
    ty += (TEMPO_DEBUG_GLYPH_H + 3) * k;
    n = history(s, s->busy_ns, samples);
    tempo_debug_graph_desc g2 = {tx, ty, gw, gh2, expect, expect / 2};
    fail |= tempo_debug_graph(r, &g2, samples, n);
    if (s->source_count > 0)
        fail |= draw_sources(r, k, s, tx, y + TEMPO_LOOP_STATS_H * k);

    SDL_SetRenderDrawColor(r, cr, cg, cb, ca);
    SDL_SetRenderDrawBlendMode(r, mode);
    if (fail)
        return tempo__set_error(TEMPO_EPLATFORM, "tempo_loop_draw_stats: %s", SDL_GetError());
    return 0;
}
