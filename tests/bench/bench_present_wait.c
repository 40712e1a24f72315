/* bench_present_wait: does a present that blocks delay the updates? (issue 36
 * item 10), side by side in one run.
 *
 * Under Xvfb, SDL3 (through sdl2-compat) paces the renderer's presents
 * itself on a 60 Hz grid where classic SDL2's present did not block; the
 * loop paced them as vsync, and bounce's 10 Hz updates ran when the present
 * returned: 7-8 ms late at p50 against ~0.05 ms with classic SDL2. The
 * target (docs/pacing.md, DESIGN section 5): update lateness within 1.5x of
 * a present that does not block, measured here on whatever SDL this is.
 *
 * Part 1 (the real clock, no window: any SDL, any video driver): a game
 * (10 Hz unless said; update 0.2 ms, render 1-3 ms, both spent asleep on a
 * Tempo timer) under desc.vsync AUTO, whose desc.present is
 *   - one that does not block (0.3 ms of work: the baseline);
 *   - SDL3's own grid: the present's work, then a sleep to the next point of
 *     a grid of 1e9 / 60 ns that starts where the first present returned (a
 *     present called past its point does not sleep; the grid keeps its
 *     phase), with 1 ms and 2.3 ms of work (2.3: SDL3's GL present under
 *     Xvfb, measured);
 *   - a display's vsync: blocks until the next vblank (a late call waits
 *     for the one after): 60 Hz, its vblanks half a frame after the first
 *     update; 59.94 Hz (drifting 0.1 ms an update against the ticks); and
 *     60 Hz under 45 Hz updates (three phases, one inside the present).
 * The update lateness is the loop's (tempo_loop_stats), second by second
 * after the first: p50 the median of the seconds' medians, p99 the largest
 * second's p99 (with 10 updates a second, its latest update). Ratios
 * against the baseline; for the rows the target is about (SDL3 pacing its
 * presents, DESIGN section 5), "ok" when p50 is within 1.5x of it (p99
 * moves by milliseconds with the machine's load). The display rows show
 * what remains with a display's vsync: an update due in the last stretch
 * before a vblank waits for the present (what the present was seen to
 * need: 0.5 ms, up to half a period after missed vblanks), one due while a
 * frame renders for the render.
 * Part 2 (--real, needs a display: xvfb-run -a): SDL's default renderer in a
 * real window (opengl under Xvfb), created with flags 0 (no vsync asked: the
 * baseline) and with SDL_RENDERER_PRESENTVSYNC (classic SDL2 under Xvfb: a
 * present that sleeps to a ~16 ms grid of its own, paced by the timer;
 * SDL3 through sdl2-compat: its 60 Hz grid, paced as vsync), a 10 Hz game
 * drawing 400 rectangles, under AUTO. Noisy on a loaded machine, and the
 * old loop's lateness there depended on where the first frame put SDL3's
 * grid (Part 1 sets it).
 *
 * Usage: bench_present_wait [--real] [--seconds N] [--rounds N] (each row N s,
 * default 8; the rows run in turn, --rounds times, default 1, each round
 * printed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/tempo.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define PERIOD_NS (S / 60) /* 16666666: SDL3's grid is whole nanoseconds */

enum { PRESENT_FREE, PRESENT_SDL3, PRESENT_FIFO, PRESENT_SDL };

typedef struct bench_game {
    int kind;
    tempo_handle *timer;       /* the sleeps: a Tempo timer, as precise as the loop's */
    uint64_t rng;
    uint64_t work_ns;          /* the present's own work */
    uint64_t before_ns;        /* FIFO: the first update due this long before a vblank */
    uint64_t num, den;         /* FIFO: vblanks num / den ns apart */
    uint64_t grid_ns;          /* SDL3: the grid's last point; FIFO: its first vblank */
    uint64_t measure_from_ns;
    uint64_t updates;
    uint64_t presents, missed; /* FIFO: vblanks that passed without a present */
    int64_t last_k;
    SDL_Renderer *renderer;    /* PRESENT_SDL */
} bench_game;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* Sleeps until `t` (absolute, tempo_now_ns) on the game's timer. */
static void sleep_until(bench_game *g, uint64_t t)
{
    if (t <= tempo_now_ns())
        return;
    tempo_timer_set(g->timer, t, 0);
    tempo_wait(&g->timer, 1, TEMPO_INFINITE, 0);
}

static void b_update(tempo_loop *loop, uint64_t dt, void *user)
{
    (void)loop;
    (void)dt;
    bench_game *g = user;
    uint64_t now = tempo_now_ns();
    if (g->updates == 0) {
        g->measure_from_ns = now + S;
        /* FIFO: the display's vblanks fall `before_ns` after the first
         * update (the loop moves its ticks once it knows them). */
        if (g->kind == PRESENT_FIFO)
            g->grid_ns = now + g->num / g->den - g->before_ns;
    }
    g->updates++;
    sleep_until(g, now + 200 * US);
}

static void b_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    bench_game *g = user;
    if (g->kind == PRESENT_SDL) {
        /* A scene of some cost: 400 rectangles. */
        SDL_SetRenderDrawColor(g->renderer, 20, 30, 40, 255);
        SDL_RenderClear(g->renderer);
        SDL_SetRenderDrawColor(g->renderer, 200, 180, 60, 255);
        for (int i = 0; i < 400; i++) {
            SDL_Rect r = {(int)(rnd(&g->rng) % 600), (int)(rnd(&g->rng) % 440), 40, 40};
            SDL_RenderFillRect(g->renderer, &r);
        }
        return;
    }
    sleep_until(g, tempo_now_ns() + 1 * MS + rnd(&g->rng) % (2 * MS));
}

static void b_present(tempo_loop *loop, void *user)
{
    (void)loop;
    bench_game *g = user;
    uint64_t now = tempo_now_ns() + g->work_ns;
    sleep_until(g, now); /* the present's own work */
    g->presents++;
    if (g->kind == PRESENT_SDL3) {
        if (g->grid_ns != 0 && now - g->grid_ns < PERIOD_NS) {
            now = g->grid_ns + PERIOD_NS;
            sleep_until(g, now);
        }
        g->grid_ns = g->grid_ns == 0 || now - g->grid_ns > S ? now : g->grid_ns + (now - g->grid_ns) / PERIOD_NS * PERIOD_NS;
    } else if (g->kind == PRESENT_FIFO && g->grid_ns != 0) {
        /* vblank k at grid + floor(k * num / den) */
        int64_t k = now <= g->grid_ns ? 0 : (int64_t)((now - g->grid_ns) * g->den / g->num);
        while (g->grid_ns + (uint64_t)k * g->num / g->den < now)
            k++;
        if (k <= g->last_k)
            k = g->last_k + 1; /* one flip per vblank */
        if (g->last_k >= 0 && now >= g->measure_from_ns)
            g->missed += (uint64_t)(k - g->last_k - 1);
        g->last_k = k;
        sleep_until(g, g->grid_ns + (uint64_t)k * g->num / g->den);
    }
}

typedef struct result {
    double p50_ms, p99_ms, renders;
    uint64_t missed;
    tempo_loop_pacing pacing;
    double grid_ms;
    char renderer[32];
} result;

/* Runs `loop` for `seconds`, reading its lateness every second after the
 * first (the window of the second just ended). */
static result run_loop(bench_game *g, tempo_loop *loop, uint64_t seconds)
{
    result r = {0};
    uint64_t p50s[256], p99 = 0;
    size_t n = 0;
    uint64_t start = tempo_now_ns();
    for (uint64_t sec = 2; sec <= seconds && n < 256; sec++) {
        /* A little past the second's end: the loop's window has rolled. */
        uint64_t until = start + sec * S + 30 * MS;
        while (tempo_now_ns() < until && tempo_loop_frame(loop) == 0) {
        }
        const tempo_loop_counts *c = &tempo_loop_get_stats(loop)->last_second;
        if (c->updates == 0)
            continue;
        p50s[n++] = c->lateness_p50_ns;
        p99 = c->lateness_p99_ns > p99 ? c->lateness_p99_ns : p99;
    }
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    qsort(p50s, n, sizeof p50s[0], bench_cmp_u64);
    r.p50_ms = n ? (double)p50s[(n - 1) / 2] / 1e6 : 0;
    r.p99_ms = (double)p99 / 1e6;
    r.renders = st->total.renders_per_s;
    r.missed = g->kind == PRESENT_FIFO ? g->missed : st->total.missed_vblanks;
    r.pacing = st->pacing;
    r.grid_ms = (double)st->present_grid_ns / 1e6;
    return r;
}

typedef struct row_desc {
    int kind;
    uint32_t update_hz;
    uint64_t num, den; /* FIFO: the display's period, num / den ns */
    uint64_t work_ns, before_ns;
    const char *what;
    bool target;       /* the 1.5x target applies (SDL3 pacing its presents) */
} row_desc;

static result fake_present_run(const row_desc *d, uint64_t seconds)
{
    static bench_game g;
    memset(&g, 0, sizeof g);
    g.kind = d->kind;
    g.work_ns = d->work_ns;
    g.before_ns = d->before_ns;
    g.num = d->num;
    g.den = d->den;
    g.last_k = -1;
    g.rng = 0x9E3779B97F4A7C15u;
    g.timer = tempo_timer_create(false);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = d->update_hz, .display_hz = 60,
                                                             .present = b_present, .update = b_update,
                                                             .render = b_render, .user = &g});
    result r = run_loop(&g, loop, seconds);
    tempo_loop_destroy(loop);
    tempo_timer_destroy(g.timer);
    return r;
}

static void print_row(const row_desc *d, const result *r, const result *base, bool is_base)
{
    char q50[16], q99[16];
    bench_fmt_ratio(q50, sizeof q50, r->p50_ms, base->p50_ms);
    bench_fmt_ratio(q99, sizeof q99, r->p99_ms, base->p99_ms);
    printf("| %s | %u | %s | %.2f | %llu | %.3f | %.3f | %s | %s | %s |\n", d->what, d->update_hz,
           tempo_loop_pacing_name(r->pacing), r->renders, (unsigned long long)r->missed, r->p50_ms, r->p99_ms, q50,
           q99, is_base ? "baseline" : !d->target ? "-" : r->p50_ms <= 1.5 * base->p50_ms ? "ok" : "over 1.5x");
}

static void fake_present_table(uint64_t seconds, int round)
{
    printf("\n## Update lateness by what the present does (real clock, no window, %llu s per row, round %d)\n\n",
           (unsigned long long)seconds, round);
    printf("| present | update Hz | pacing | renders/s | missed vblanks | lateness p50 ms | p99 ms | p50 ratio | "
           "p99 ratio | target: p50 within 1.5x |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    static const row_desc rows[] = {
        {PRESENT_FREE, 10, S, 60, 300 * US, 0, "does not block (baseline)", false},
        {PRESENT_SDL3, 10, S, 60, 1 * MS, 0, "SDL3's 60 Hz grid, 1 ms of work", true},
        {PRESENT_SDL3, 10, S, 60, 2300 * US, 0, "SDL3's 60 Hz grid, 2.3 ms of work (Xvfb)", true},
        {PRESENT_FIFO, 10, S, 60, 300 * US, PERIOD_NS / 2, "60 Hz vsync, vblanks half a frame after the start",
         false},
        {PRESENT_FIFO, 10, S * 1001, 60000, 300 * US, 2 * MS, "59.94 Hz vsync (drifts against the ticks)", false},
        {PRESENT_FIFO, 45, S, 60, 300 * US, 2 * MS, "60 Hz vsync, updates at 45 Hz", false},
    };
    result base = fake_present_run(&rows[0], seconds);
    print_row(&rows[0], &base, &base, true);
    for (size_t i = 1; i < sizeof rows / sizeof rows[0]; i++) {
        result r = fake_present_run(&rows[i], seconds);
        print_row(&rows[i], &r, &base, false);
        fflush(stdout);
    }
}

static result sdl_run(Uint32 flags, uint64_t seconds)
{
    static bench_game g;
    memset(&g, 0, sizeof g);
    result r = {0};
    g.kind = PRESENT_SDL;
    g.rng = 0x9E3779B97F4A7C15u;
    g.timer = tempo_timer_create(false);
    SDL_Window *w = SDL_CreateWindow("bench_present_wait", 0, 0, 640, 480, SDL_WINDOW_SHOWN);
    g.renderer = w != NULL ? SDL_CreateRenderer(w, -1, flags) : NULL;
    SDL_RendererInfo info;
    if (g.renderer == NULL || SDL_GetRendererInfo(g.renderer, &info) != 0) {
        snprintf(r.renderer, sizeof r.renderer, "(none: %s)", SDL_GetError());
        r.p50_ms = -1;
    } else {
        snprintf(r.renderer, sizeof r.renderer, "%s", info.name);
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 10, .window = w,
                                                                 .renderer = g.renderer, .update = b_update,
                                                                 .render = b_render, .user = &g});
        r = run_loop(&g, loop, seconds);
        snprintf(r.renderer, sizeof r.renderer, "%s", info.name);
        tempo_loop_destroy(loop);
    }
    if (g.renderer != NULL)
        SDL_DestroyRenderer(g.renderer);
    if (w != NULL)
        SDL_DestroyWindow(w);
    tempo_timer_destroy(g.timer);
    return r;
}

static void sdl_table(uint64_t seconds, int round)
{
    SDL_version v;
    SDL_GetVersion(&v);
    printf("\n## SDL %d.%d.%d (%s), video %s: its renderer in a real window, a 10 Hz game, vsync AUTO, %llu s per "
           "row, round %d (noisy)\n\n",
           v.major, v.minor, v.patch, SDL_GetRevision(), SDL_GetCurrentVideoDriver(), (unsigned long long)seconds,
           round);
    printf("| renderer flags | renderer | pacing | present grid ms | renders/s | lateness p50 ms | p99 ms | "
           "p50 ratio | p99 ratio | p50 within 1.5x |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    result base = sdl_run(0, seconds);
    result vs = sdl_run(SDL_RENDERER_PRESENTVSYNC, seconds);
    const result *rows[] = {&base, &vs};
    for (int i = 0; i < 2; i++) {
        const result *r = rows[i];
        if (r->p50_ms < 0) {
            printf("| %s | %s | | | | | | | | |\n", i ? "PRESENTVSYNC" : "0", r->renderer);
            continue;
        }
        char q50[16], q99[16];
        bench_fmt_ratio(q50, sizeof q50, r->p50_ms, base.p50_ms);
        bench_fmt_ratio(q99, sizeof q99, r->p99_ms, base.p99_ms);
        bool ok = r->p50_ms <= 1.5 * base.p50_ms;
        printf("| %s | %s | %s | %.3f | %.2f | %.3f | %.3f | %s | %s | %s |\n", i ? "PRESENTVSYNC" : "0 (baseline)",
               r->renderer, tempo_loop_pacing_name(r->pacing), r->grid_ms, r->renders, r->p50_ms, r->p99_ms, q50,
               q99, i == 0 ? "baseline" : ok ? "ok" : "over 1.5x");
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bool real = false;
    uint64_t seconds = 8;
    int rounds = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--real") == 0)
            real = true;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
    }
    if (seconds < 2)
        seconds = 2;
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    bool video = real && SDL_InitSubSystem(SDL_INIT_VIDEO) == 0;
    if (real && !video)
        printf("(no video: %s; the real-window table needs a display, e.g. xvfb-run -a)\n", SDL_GetError());
    for (int round = 1; round <= rounds; round++) {
        fake_present_table(seconds, round);
        if (video)
            sdl_table(seconds, round);
    }
    SDL_Quit();
    return 0;
}
