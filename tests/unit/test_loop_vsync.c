/* Display pacing on the real clock with real renderers (issue 11): the
 * default loop never spins, and with SDL_RENDERER_PRESENTVSYNC the loop
 * presents itself, paces by the presents and counts their blocking as
 * waiting. Under Xvfb the opengl and software renderers pace presents at
 * ~60/s; under the dummy driver SDL simulates vsync or presents return at
 * once (the loop must not spin either way).
 *
 * Real time on a shared machine: only order and occurrence, with bounds a
 * loaded machine cannot break (load lowers rates and raises nothing but
 * game time). So a run lasts its time and until it has rendered the
 * frames it asserts: a loaded X server can hold a present for most of a
 * second (a TSan build beside CI's background builds rendered 2 frames in
 * 1.5 s). The exact pacing verdicts are in test_loop_pacing (fake clock);
 * the numbers printed here are for the report. */
#include <stdio.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS

static bool video_ok;

/* A run that has not rendered its frames by then ends anyway (and fails). */
#define RUN_BACKSTOP_MS 60000

typedef struct counter {
    SDL_Renderer *r;
    uint64_t renders;
    uint64_t min_renders, end_ns; /* the run ends at a render past both */
    Uint32 hold_first_ms;         /* the first render takes this long */
} counter;

static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    counter *c = user;
    c->renders++;
    if (c->renders == 1 && c->hold_first_ms > 0)
        SDL_Delay(c->hold_first_ms);
    if (c->r != NULL) {
        SDL_SetRenderDrawColor(c->r, 20, 20, 40, 255);
        SDL_RenderClear(c->r);
    }
    if (c->renders >= c->min_renders && tempo_now_ns() >= c->end_ns)
        tempo_loop_quit(loop);
}

static Uint32 SDLCALL quit_later(Uint32 interval, void *loop)
{
    (void)interval;
    tempo_loop_quit(loop);
    return 0;
}

typedef struct run_result {
    double seconds, renders_per_s, cpu_share;
    const tempo_loop_stats *st;
} run_result;

/* Runs the loop for `ms` and until it has rendered `min_renders` frames. */
static run_result run_for(tempo_loop *loop, counter *c, int ms, uint64_t min_renders)
{
    tempo_usage u0, u1;
    SDL_TimerID t = SDL_AddTimer(RUN_BACKSTOP_MS, quit_later, loop);
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns();
    c->min_renders = min_renders;
    c->end_ns = t0 + (uint64_t)ms * MS;
    tempo_loop_run(loop);
    run_result r;
    r.seconds = (double)(tempo_now_ns() - t0) / 1e9;
    tempo_process_usage(&u1);
    SDL_RemoveTimer(t);
    r.renders_per_s = (double)c->renders / r.seconds;
    r.cpu_share = (double)(u1.cpu_ns - u0.cpu_ns) / 1e9 / r.seconds;
    r.st = tempo_loop_get_stats(loop);
    return r;
}

/* Problem 4 on the real clock: a zero descriptor used to render ~1.4 M
 * frames/s at 100% CPU. */
static void default_loop_does_not_spin(void)
{
    counter c = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.render = render, .user = &c});
    run_result r = run_for(loop, &c, 500, 2);
    tt_note("zero descriptor: %.1f renders/s, CPU %.1f%% of a core, refresh %llu ns", r.renders_per_s,
            r.cpu_share * 100, (unsigned long long)tempo_loop_get_refresh_ns(loop));
    CHECK_GE_U64(c.renders, c.min_renders); /* the run was not ended by its backstop */
    /* The display rate (60 without a known refresh) plus slack; an
     * unbounded loop does hundreds of thousands. */
    CHECK_LE_DBL(r.renders_per_s, 1e9 / (double)tempo_loop_get_refresh_ns(loop) * 1.2 + 5);
    CHECK_LT_DBL(r.cpu_share, 0.5);
    tempo_loop_destroy(loop);
}

static void vsync_renderer(const char *driver, Uint32 hold_first_ms)
{
    if (!video_ok)
        TT_SKIP("no video");
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, driver);
    SDL_Window *w = SDL_CreateWindow("tempo-vsync", 0, 0, 160, 120, 0);
    SDL_Renderer *rd = w ? SDL_CreateRenderer(w, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "");
    if (rd == NULL) {
        if (w)
            SDL_DestroyWindow(w);
        char why[160];
        snprintf(why, sizeof why, "no %s renderer here: %s", driver, SDL_GetError());
        TT_SKIP(why);
    }
    SDL_RendererInfo info;
    SDL_GetRendererInfo(rd, &info);
    counter c = {.r = rd, .hold_first_ms = hold_first_ms};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.window = w, .renderer = rd, .render = render,
                                                             .user = &c});
    /* AUTO: vsync asked for, and the loop measures whether the presents
     * block (the software renderer reports PRESENTVSYNC and does not). */
    CHECK(tempo_loop_get_vsync(loop));
    run_result r = run_for(loop, &c, 1500, 3);
    const tempo_loop_counts *t = &r.st->total;
    tt_note("%s (%s) pacing %s, vsync %d: %.1f renders/s, %.1f frames/s, refresh %llu ns, predicted render %.2f ms, "
            "wait %.0f%% (present %.0f%%), game %.0f%%, missed vblanks %llu, CPU %.1f%%",
            driver, info.name, tempo_loop_pacing_name(r.st->pacing), r.st->vsync, r.renders_per_s, t->frames_per_s,
            (unsigned long long)r.st->refresh_ns, (double)r.st->predicted_render_ns / 1e6,
            t->wait_share * 100, 100.0 * (double)t->present_ns / (double)t->elapsed_ns, t->game_share * 100,
            (unsigned long long)t->missed_vblanks, r.cpu_share * 100);
    CHECK_GE_U64(c.renders, c.min_renders); /* the run was not ended by its backstop */
    CHECK_LE_DBL(r.renders_per_s, 150.0); /* paced, whatever the present does */
    CHECK_LT_DBL(r.cpu_share, 0.6);
    /* The loop presented, and the present's time went to waiting. */
    CHECK_GE_U64(t->present_ns, 1);
    CHECK_LE_U64(t->present_ns, t->wait_ns);
    /* Toggle at runtime (the samples' key): the loop follows the renderer. */
    if (tempo_loop_set_vsync(loop, false) == 0) {
        CHECK(!tempo_loop_get_vsync(loop));
        CHECK_EQ_INT(tempo_loop_set_vsync(loop, true), 0);
        CHECK(tempo_loop_get_vsync(loop));
    }
    tempo_loop_destroy(loop);
    SDL_DestroyRenderer(rd);
    SDL_DestroyWindow(w);
}

static void vsync_software_renderer(void)
{
    vsync_renderer("software", 0);
}

/* A run on a machine too loaded to run the loop for most of its time (CI's
 * TSan build beside its background builds: 2 renders in 1.5 s): the first
 * render holds the loop longer than the run's time, and the run still ends
 * with the frames it asserts. */
static void vsync_software_renderer_held_at_first_render(void)
{
    vsync_renderer("software", 1600);
}

static void vsync_opengl_renderer(void)
{
    vsync_renderer("opengl", 0);
}

/* The draws SDL queues until the present (render batching) are the
 * render's cost, not time blocked in the present: the loop runs them with
 * SDL_RenderFlush before it reads the clock for the present. A clock that
 * charges 3 ms whenever it sees the frame's draw land in the window's pixels
 * puts those 3 ms wherever the loop runs the draws: before the fix, inside
 * the present (present_ns = 3 ms a render). */
typedef struct flush_probe {
    SDL_Renderer *r;
    SDL_Surface *surf;
    uint64_t now, draw_cost;
    Uint32 seen_px;
    int renders, landed, queued;
} flush_probe;

static Uint32 probe_pixel(const flush_probe *p)
{
    return ((const Uint32 *)p->surf->pixels)[8 * (p->surf->pitch / 4) + 8];
}

static uint64_t flush_probe_now(void *user)
{
    flush_probe *p = user;
    Uint32 px = probe_pixel(p);
    if (px != p->seen_px) { /* the frame's draw ran since the last reading */
        p->seen_px = px;
        p->now += p->draw_cost;
        p->landed++;
    }
    return p->now;
}

static void flush_probe_wait(void *user, uint64_t deadline_ns)
{
    flush_probe *p = user;
    if (deadline_ns != TEMPO_INFINITE && deadline_ns > p->now)
        p->now = deadline_ns;
}

static void flush_probe_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    flush_probe *p = user;
    Uint8 v = (p->renders++ & 1) ? 200 : 40; /* each frame changes the pixel */
    SDL_SetRenderDrawColor(p->r, v, v, v, 255);
    SDL_RenderClear(p->r);
    if (probe_pixel(p) == p->seen_px)
        p->queued++; /* still queued when render() returns */
}

static void queued_draws_count_as_render_cost(void)
{
    if (!video_ok)
        TT_SKIP("no video");
    SDL_SetHint(SDL_HINT_RENDER_BATCHING, "1");
    SDL_Window *w = SDL_CreateWindow("tempo-flush", 0, 0, 64, 48, 0);
    SDL_Renderer *rd = w ? SDL_CreateRenderer(w, -1, SDL_RENDERER_SOFTWARE) : NULL;
    SDL_Surface *surf = rd ? SDL_GetWindowSurface(w) : NULL;
    SDL_SetHint(SDL_HINT_RENDER_BATCHING, NULL);
    if (surf == NULL || surf->format->BytesPerPixel != 4) {
        if (rd)
            SDL_DestroyRenderer(rd);
        if (w)
            SDL_DestroyWindow(w);
        TT_SKIP("no software renderer on a 32-bit window surface");
    }
    flush_probe p = {.r = rd, .surf = surf, .now = 1000 * MS, .draw_cost = 3 * MS};
    p.seen_px = probe_pixel(&p);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .window = w, .renderer = rd, .render = flush_probe_render, .user = &p,
        .vsync = TEMPO_LOOP_VSYNC_OFF, .display_hz = 60,
        .clock = {.now = flush_probe_now, .wait_until = flush_probe_wait, .user = &p}});
    CHECK(loop != NULL);
    if (loop == NULL) {
        SDL_DestroyRenderer(rd);
        SDL_DestroyWindow(w);
        return;
    }
    while (p.now < 2000 * MS)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tt_note("%d renders, %d queued until render() returned, %d landed; present %.1f ms in all", p.renders,
            p.queued, p.landed, (double)st->total.present_ns / 1e6);
    CHECK_GE_INT(p.renders, 55);
    CHECK_EQ_INT(p.queued, p.renders); /* SDL batched every frame's draw */
    CHECK_GE_INT(p.landed, p.renders - 1);
    CHECK_LT_U64(st->total.present_ns, p.draw_cost); /* none of the draws ran in the present */
    tempo_loop_destroy(loop);
    SDL_DestroyRenderer(rd);
    SDL_DestroyWindow(w);
}

static const tt_case cases[] = {
    TT_CASE(default_loop_does_not_spin),
    TT_CASE(vsync_software_renderer),
    TT_CASE(vsync_software_renderer_held_at_first_render),
    TT_CASE(vsync_opengl_renderer),
    TT_CASE(queued_draws_count_as_render_cost),
};

int main(int argc, char **argv)
{
    /* tempo_video_prepare first, as a game does (on Wayland it turns off
     * SDL's libdecor, which crashes once a window is re-created). */
    video_ok = tempo_video_prepare() == 0 && SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) == 0;
    if (!video_ok)
        SDL_Init(SDL_INIT_TIMER);
    printf("# video driver %s\n", video_ok ? SDL_GetCurrentVideoDriver() : "(none)");
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
