/* bench_present: what the loop does with the presents a display driver gives
 * it, on whichever SDL video driver SDL_VIDEODRIVER picks (issue 23: x11 on
 * Xvfb next to wayland on weston, side by side; ./dev bench-wayland runs it).
 *
 *   --case first     a window with a vsync renderer under a 60 Hz loop, from
 *                    the moment the window is created: the first presents'
 *                    durations (on weston the first one after the window maps
 *                    blocked 160-175 ms), every pacing the loop went through
 *                    and when, and what the loop made of it over the run
 *                    (updates, dropped, stalls, withheld presents, paused).
 *   --case minimize  1 s shown, then SDL_MinimizeWindow and --seconds (3)
 *                    minimized: updates/s, dropped, stalls, paused time, time
 *                    blocked in presents, the presents that blocked > 4
 *                    refresh periods before the loop named the state, and how
 *                    long until it did (the span ends with a frame that
 *                    did not present, or paused: the updates due are run). --run-while-hidden sets
 *                    desc.run_while_hidden (default: the hidden-pause).
 *
 * Prints "RESULT key=value ..." lines (and "PACING" lines for the first
 * case) for a script to read. Exit 0, 77 when no window can be opened, 1 on
 * a usage error. Reports only: no verdict here (the timing depends on the
 * machine; test_wayland holds the verdicts). Thread: main thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define MAX_PRESENTS 12
#define MAX_CHANGES 24

typedef struct run {
    SDL_Renderer *renderer;
    uint64_t t0;                 /* the window was created */
    uint64_t updates;
    int presents;
    uint64_t present_ns[MAX_PRESENTS]; /* durations of the first presents */
    uint64_t present_at[MAX_PRESENTS]; /* their returns, from t0 */
    uint64_t long_bound_ns;      /* a present longer than this blocked > 4 periods */
    int long_presents;           /* since the minimize */
    bool counting;
} run;

static uint64_t since(uint64_t t0)
{
    return tempo_now_ns() - t0;
}

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    ((run *)user)->updates++;
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    run *r = user;
    SDL_SetRenderDrawColor(r->renderer, 40, 90, 160, 255);
    SDL_RenderClear(r->renderer);
}

static void on_present(tempo_loop *loop, void *user)
{
    (void)loop;
    run *r = user;
    uint64_t a = tempo_now_ns();
    SDL_RenderPresent(r->renderer);
    uint64_t d = tempo_now_ns() - a;
    if (r->presents < MAX_PRESENTS) {
        r->present_ns[r->presents] = d;
        r->present_at[r->presents] = tempo_now_ns() - r->t0;
    }
    r->presents++;
    if (r->counting && d > r->long_bound_ns)
        r->long_presents++;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static int first_case(SDL_Window *win, run *r, tempo_loop *loop, double seconds)
{
    tempo_loop_pacing seen[MAX_CHANGES];
    uint64_t seen_at[MAX_CHANGES];
    int changes = 0;
    tempo_loop_pacing last = TEMPO_LOOP_PACING_COUNT;
    uint64_t end = (uint64_t)(seconds * 1e9);
    while (since(r->t0) < end) {
        tempo_loop_frame(loop);
        tempo_loop_pacing p = tempo_loop_get_pacing(loop);
        if (p != last && changes < MAX_CHANGES) {
            seen[changes] = p;
            seen_at[changes++] = since(r->t0);
            last = p;
        }
    }
    (void)win;
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    for (int i = 0; i < changes; i++)
        printf("PACING at=%.1fms %s\n", ms(seen_at[i]), tempo_loop_pacing_name(seen[i]));
    printf("RESULT case=first driver=%s route=%s", SDL_GetCurrentVideoDriver(), tempo_wait_route());
    printf(" presents_ms=");
    for (int i = 0; i < r->presents && i < MAX_PRESENTS; i++)
        printf("%s%.1f", i ? "," : "", ms(r->present_ns[i]));
    printf(" first_present_return_ms=%.1f", r->presents ? ms(r->present_at[0]) : 0.0);
    printf(" elapsed_s=%.2f updates=%llu renders=%llu dropped=%llu stalls=%llu withheld_presents=%llu"
           " withheld_ms=%.0f paused_ms=%.0f present_ms=%.0f pacing=%s refresh_hz=%.2f\n",
           ms(since(r->t0)) / 1000.0, (unsigned long long)r->updates, (unsigned long long)st->total.renders,
           (unsigned long long)st->total.dropped_updates, (unsigned long long)st->total.stalls,
           (unsigned long long)st->total.withheld_presents, ms(st->total.withheld_ns), ms(st->total.paused_ns),
           ms(st->total.present_ns), tempo_loop_pacing_name(st->pacing),
           st->refresh_ns ? 1e9 / (double)st->refresh_ns : 0.0);
    return 0;
}

static int minimize_case(SDL_Window *win, run *r, tempo_loop *loop, double seconds, bool run_hidden)
{
    uint64_t t = tempo_now_ns();
    while (since(t) < 1000 * MS)
        tempo_loop_frame(loop);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tempo_loop_pacing before = st->pacing;
    uint64_t refresh = st->refresh_ns ? st->refresh_ns : 16666667;
    r->long_bound_ns = 4 * refresh > 50 * MS ? 4 * refresh : 50 * MS;
    uint64_t u0 = r->updates, drop0 = st->total.dropped_updates, stall0 = st->total.stalls;
    uint64_t slow0 = st->total.slowdown_ns;
    uint64_t paused0 = st->total.paused_ns, pres0 = st->total.present_ns, rend0 = st->total.renders;
    SDL_MinimizeWindow(win);
    r->counting = true;
    int long_at_state = -1;
    double state_after_ms = -1;
    uint64_t t1 = tempo_now_ns(), span_ns = (uint64_t)(seconds * 1e9);
    while (since(t1) < span_ns) {
        tempo_loop_frame(loop);
        if (long_at_state < 0 && tempo_loop_get_pacing(loop) == TEMPO_LOOP_PACING_WITHHELD) {
            long_at_state = r->long_presents;
            state_after_ms = ms(since(t1));
        }
    }
    /* A probe present may have blocked across the end of the span, with the
     * updates due meanwhile not run yet: the loop's next frame runs them
     * (at most a few frames, the next probe is 500 ms away). */
    for (int i = 0, p = r->presents; i < 8 && !tempo_loop_get_stats(loop)->paused; i++, p = r->presents) {
        tempo_loop_frame(loop);
        if (r->presents == p)
            break;
    }
    uint64_t span = since(t1);
    st = tempo_loop_get_stats(loop);
    double secs = (double)span / 1e9;
    printf("RESULT case=minimize driver=%s route=%s mode=%s pacing_before=%s updates_per_s=%.1f"
           " renders_per_s=%.1f dropped=%llu stalls=%llu paused_ms=%.0f present_ms=%.0f span_ms=%.0f"
           " long_presents=%d long_before_state=%d state_after_ms=%.0f"
           " slowdown_ms=%.0f pacing_end=%s\n",
           SDL_GetCurrentVideoDriver(), tempo_wait_route(), run_hidden ? "run_while_hidden" : "pause",
           tempo_loop_pacing_name(before), (double)(r->updates - u0) / secs,
           (double)(st->total.renders - rend0) / secs, (unsigned long long)(st->total.dropped_updates - drop0),
           (unsigned long long)(st->total.stalls - stall0), ms(st->total.paused_ns - paused0),
           ms(st->total.present_ns - pres0), ms(span), r->long_presents, long_at_state, state_after_ms,
           ms(st->total.slowdown_ns - slow0), tempo_loop_pacing_name(st->pacing));
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = "first";
    double seconds = 0;
    bool run_hidden = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
            which = argv[++i];
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--run-while-hidden") == 0) {
            run_hidden = true;
        } else if (strcmp(argv[i], "--quick") == 0) {
            seconds = 1;
        } else {
            fprintf(stderr, "usage: %s [--case first|minimize] [--seconds S] [--run-while-hidden] [--quick]\n",
                    argv[0]);
            return 1;
        }
    }
    bool first = strcmp(which, "first") == 0;
    if (!first && strcmp(which, "minimize") != 0) {
        fprintf(stderr, "%s: unknown case '%s'\n", argv[0], which);
        return 1;
    }
    if (seconds <= 0)
        seconds = first ? 2 : 3;
    if (tempo_video_prepare() != 0) {
        printf("skipped: %s\n", tempo_get_error());
        return 77;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        printf("skipped: SDL_Init: %s\n", SDL_GetError());
        return 77;
    }
    run r = {0};
    r.t0 = tempo_now_ns();
    SDL_Window *win = SDL_CreateWindow("tempo-bench-present", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                       320, 240, SDL_WINDOW_SHOWN);
    r.renderer = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (r.renderer == NULL) {
        printf("skipped: no window or renderer: %s\n", SDL_GetError());
        SDL_Quit();
        return 77;
    }
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .update = on_update, .render = on_render, .user = &r, .window = win,
        .renderer = r.renderer, .present = on_present, .run_while_hidden = run_hidden});
    if (loop == NULL) {
        printf("tempo_loop_create: %s\n", tempo_get_error());
        return 1;
    }
    int rc = first ? first_case(win, &r, loop, seconds) : minimize_case(win, &r, loop, seconds, run_hidden);
    tempo_loop_destroy(loop);
    SDL_DestroyRenderer(r.renderer);
    SDL_DestroyWindow(win);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
