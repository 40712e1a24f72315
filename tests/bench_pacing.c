/* bench_pacing: what the loop's pacing decisions give, side by side in one
 * run (issue 21 sections 1 and 3, issue 23 items 2 and 3).
 *
 * Part 1, on the fake clock (deterministic, the same numbers on every
 * machine): one table per question, each row against a baseline measured
 * in the same run.
 *   pacing   a present that does not block (SDL's software renderer: it
 *            reports PRESENTVSYNC and returns at once) under desc.vsync OFF
 *            (baseline) and AUTO, and a present that blocks on a 60 Hz
 *            vblank under AUTO; input 137/s. renders/s, wake-ups/s (frames
 *            that slept), update lateness p99, the pacing in force.
 *   slow     render cost 5..500 ms (update 0.1 ms, 60 Hz, max_frameskip 5):
 *            game time / wall time of Tempo next to the textbook deWiTTERS
 *            loop computed here (baseline).
 *   withheld a 60 Hz vsync present that blocks 167 ms for 4 s (a Wayland
 *            compositor withholding frame callbacks), run_while_hidden:
 *            updates/s during it, dropped updates, time back to vsync.
 * Part 2 (--real, needs a display: xvfb-run -a): SDL's software renderer
 * created with PRESENTVSYNC in a real window, 5 s per row, OFF (baseline)
 * and AUTO. Noisy on a loaded machine.
 *
 * Usage: bench_pacing [--real] [--seconds N] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "tempo/tempo.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)

typedef struct bgame {
    tempo_fake_clock *fc;
    uint64_t rng;
    uint64_t render_lo, render_hi, update_ns, present_ns;
    bool blocks;                  /* the present waits for the next 60 Hz vblank */
    uint64_t withheld_from, withheld_to;
    uint64_t next_input;          /* 137 inputs/s */
    uint64_t updates;
} bgame;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void b_update(tempo_loop *loop, uint64_t dt, void *user)
{
    (void)loop;
    (void)dt;
    bgame *g = user;
    g->updates++;
    tempo_fake_clock_advance(g->fc, g->update_ns);
}

static void b_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    bgame *g = user;
    uint64_t span = g->render_hi - g->render_lo;
    tempo_fake_clock_advance(g->fc, g->render_lo + (span ? rnd(&g->rng) % (span + 1) : 0));
}

static void b_present(tempo_loop *loop, void *user)
{
    (void)loop;
    bgame *g = user;
    uint64_t now = tempo_fake_clock_now(g->fc);
    if (now >= g->withheld_from && now < g->withheld_to) {
        tempo_fake_clock_advance(g->fc, 167 * MS);
        return;
    }
    if (!g->blocks) {
        tempo_fake_clock_advance(g->fc, g->present_ns);
        return;
    }
    uint64_t P = S / 60, vb0 = T0 + 5 * MS;
    uint64_t k = now <= vb0 ? 0 : (now - vb0 + P - 1) / P;
    tempo_fake_clock_set(g->fc, vb0 + k * P + 30 * US);
}

static uint64_t b_input(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    bgame *g = user;
    if (g->next_input == 0 || g->next_input > deadline_ns)
        return deadline_ns == TEMPO_INFINITE ? now_ns : deadline_ns;
    uint64_t at = g->next_input > now_ns ? g->next_input : now_ns;
    g->next_input += 7300 * US;
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.scancode = SDL_SCANCODE_SPACE;
    SDL_PushEvent(&e);
    return at;
}

static void drain(void)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

typedef struct row {
    double renders, wakes, p99_ms, updates, speed;
    uint64_t dropped, stalls;
    double back_s;
    tempo_loop_pacing pacing;
} row;

static row fake_run(bgame g, tempo_loop_desc d, uint64_t seconds)
{
    g.fc = tempo_fake_clock_create(T0);
    g.rng = 0x9E3779B97F4A7C15u;
    if (g.next_input)
        tempo_fake_clock_on_wait(g.fc, b_input, &g);
    d.clock = tempo_fake_clock_get(g.fc);
    d.update = b_update;
    d.render = b_render;
    d.present = b_present;
    d.user = &g;
    tempo_loop *loop = tempo_loop_create(&d);
    row r = {0};
    uint64_t u_from = 0;
    while (tempo_fake_clock_now(g.fc) < T0 + seconds * S) {
        tempo_loop_frame(loop);
        uint64_t now = tempo_fake_clock_now(g.fc);
        if (g.withheld_to && u_from == 0 && now >= g.withheld_from)
            u_from = g.updates;
        if (g.withheld_to && now >= g.withheld_to && r.back_s == 0 &&
            tempo_loop_get_pacing(loop) == TEMPO_LOOP_PACING_VSYNC)
            r.back_s = (double)(now - g.withheld_to) / 1e9;
        if (g.withheld_to && now >= g.withheld_to && r.updates == 0)
            r.updates = (double)(g.updates - u_from) / ((double)(g.withheld_to - g.withheld_from) / 1e9);
    }
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    const tempo_loop_counts *c = &st->last_second;
    r.renders = c->renders_per_s;
    r.wakes = c->sleeps_per_s;
    r.p99_ms = (double)st->total.lateness_p99_ns / 1e6;
    if (!g.withheld_to)
        r.updates = c->updates_per_s;
    r.speed = (double)g.updates * (double)tempo_loop_get_step_ns(loop) / (double)(tempo_fake_clock_now(g.fc) - T0);
    r.dropped = st->total.dropped_updates;
    r.stalls = st->total.stalls;
    r.pacing = st->pacing;
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
    drain();
    return r;
}

static double classic_speed(uint64_t update_ns, uint64_t render_ns, uint32_t skip, uint64_t wall_ns)
{
    uint64_t step = 16666667, now = T0, next = T0, updates = 0;
    while (now < T0 + wall_ns) {
        uint32_t loops = 0;
        while (now > next && loops < skip) {
            now += update_ns;
            next += step;
            loops++;
            updates++;
        }
        now += render_ns;
        if (loops == 0 && now <= next)
            now = next + 1;
    }
    return (double)updates * (double)step / (double)(now - T0);
}

static double ratio(double a, double b)
{
    return b != 0 ? a / b : 0;
}

static void fake_tables(void)
{
    printf("## Pacing by what the present does (fake clock, 4 s, input 137/s, render 1-3 ms)\n\n");
    printf("| present | desc.vsync | pacing | renders/s | wake-ups/s | lateness p99 ms | renders ratio | wake-ups ratio |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    bgame nb = {.render_lo = 1 * MS, .render_hi = 3 * MS, .present_ns = 700 * US, .next_input = T0 + 3 * MS};
    row base = fake_run(nb, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_OFF, .display_hz = 60}, 4);
    row autor = fake_run(nb, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_AUTO, .display_hz = 60}, 4);
    bgame bl = nb;
    bl.blocks = true;
    row vs = fake_run(bl, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_AUTO, .display_hz = 60}, 4);
    const struct {
        const char *present, *mode;
        row *r;
    } rows[] = {{"does not block", "OFF (baseline)", &base}, {"does not block", "AUTO", &autor},
                {"blocks (60 Hz)", "AUTO", &vs}};
    for (int i = 0; i < 3; i++)
        printf("| %s | %s | %s | %.2f | %.1f | %.3f | %.3f | %.3f |\n", rows[i].present, rows[i].mode,
               tempo_loop_pacing_name(rows[i].r->pacing), rows[i].r->renders, rows[i].r->wakes,
               rows[i].r->p99_ms, ratio(rows[i].r->renders, base.renders), ratio(rows[i].r->wakes, base.wakes));

    printf("\n## A slow machine: game time / wall time (fake clock, 20 s, update 0.1 ms, 60 Hz)\n\n");
    printf("| render cost | max_frameskip | classic loop (baseline) | Tempo | ratio | stalls | dropped |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const uint64_t costs[] = {5, 50, 100, 200, 270, 300, 500};
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
        uint32_t skip = costs[i] == 300 ? 10 : 5;
        bgame sg = {.render_lo = costs[i] * MS, .render_hi = costs[i] * MS, .update_ns = 100 * US};
        row r = fake_run(sg, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_OFF, .max_frameskip = skip}, 20);
        double c = classic_speed(100 * US, costs[i] * MS, skip, 20 * S);
        printf("| %llu ms | %u | %.3f | %.3f | %.3f | %llu | %llu |\n", (unsigned long long)costs[i], skip, c,
               r.speed, ratio(r.speed, c), (unsigned long long)r.stalls, (unsigned long long)r.dropped);
    }

    printf("\n## Presents withheld for 4 s (fake clock, 60 Hz vsync present blocking 167 ms), run_while_hidden\n\n");
    printf("| | updates/s while withheld | dropped | stalls | back to vsync after |\n|---|---|---|---|---|\n");
    bgame wg = {.render_lo = 1 * MS, .render_hi = 1 * MS, .blocks = true, .withheld_from = T0 + 2 * S,
                .withheld_to = T0 + 6 * S};
    row w = fake_run(wg, (tempo_loop_desc){.run_while_hidden = true}, 8);
    printf("| update_hz 60 (baseline 60) | %.1f | %llu | %llu | %.3f s |\n", w.updates,
           (unsigned long long)w.dropped, (unsigned long long)w.stalls, w.back_s);
}

/* ---- Part 2: SDL's software renderer in a real window ----------------------- */

static void real_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    SDL_Renderer *r = user;
    SDL_SetRenderDrawColor(r, 20, 30, 40, 255);
    SDL_RenderClear(r);
}

static int real_table(uint64_t seconds)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        printf("\n(no video: %s; the real table needs a display, e.g. xvfb-run -a)\n", SDL_GetError());
        return 0;
    }
    printf("\n## SDL software renderer, real window, %llu s per row (noisy: shared machine)\n\n",
           (unsigned long long)seconds);
    printf("| renderer flags | desc.vsync | pacing | renders/s | wake-ups/s | lateness p99 ms | renders ratio | wake-ups ratio | p99 ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    row base = {0};
    for (int m = 0; m < 3; m++) {
        tempo_loop_vsync mode = m == 0 ? TEMPO_LOOP_VSYNC_OFF : TEMPO_LOOP_VSYNC_AUTO;
        /* 0: what the game did (it never asked for vsync, the
         * renderer reports PRESENTVSYNC all the same); PRESENTVSYNC: SDL
         * then simulates vsync, its present sleeps to a whole-ms grid. */
        Uint32 flags = m == 2 ? SDL_RENDERER_PRESENTVSYNC : 0;
        SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
        SDL_Window *w = SDL_CreateWindow("bench_pacing", 0, 0, 320, 240, 0);
        SDL_Renderer *rd = w ? SDL_CreateRenderer(w, -1, flags) : NULL;
        SDL_RendererInfo info;
        SDL_GetRendererInfo(rd, &info);
        if (rd == NULL) {
            printf("(no software renderer: %s)\n", SDL_GetError());
            return 0;
        }
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .window = w, .renderer = rd, .render = real_render, .user = rd, .vsync = mode});
        uint64_t end = tempo_now_ns() + seconds * S;
        while (tempo_now_ns() < end && tempo_loop_frame(loop) == 0) {
        }
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        row r = {.renders = st->total.renders_per_s, .wakes = st->total.sleeps_per_s,
                 .p99_ms = (double)st->total.lateness_p99_ns / 1e6, .pacing = st->pacing};
        if (m == 0)
            base = r;
        printf("| %s (reports %s) | %s | %s | %.2f | %.1f | %.3f | %.3f | %.3f | %.3f |\n",
               flags ? "PRESENTVSYNC" : "0", (info.flags & SDL_RENDERER_PRESENTVSYNC) ? "PRESENTVSYNC" : "none",
               m == 0 ? "OFF (baseline)" : "AUTO",
               tempo_loop_pacing_name(r.pacing), r.renders, r.wakes, r.p99_ms, ratio(r.renders, base.renders),
               ratio(r.wakes, base.wakes), ratio(r.p99_ms, base.p99_ms));
        tempo_loop_destroy(loop);
        SDL_DestroyRenderer(rd);
        SDL_DestroyWindow(w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bool real = false;
    uint64_t seconds = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--real") == 0)
            real = true;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = strtoull(argv[++i], NULL, 10);
    }
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    fake_tables();
    int rc = real ? real_table(seconds) : 0;
    SDL_Quit();
    return rc;
}
