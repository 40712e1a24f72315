/* bench_loop: what tempo_loop costs an idle game, next to the SDL_Delay loop
 * people write by hand, measured in one run.
 *
 * The game is empty (update and render do nothing, nothing is drawn) in a
 * real window, at 60 updates per second with render on demand: the case
 * where a passive loop should cost next to nothing. Per method:
 *   CPU %        process CPU time / wall time (one core = 100%);
 *   wake-ups/s   voluntary context switches per second (the OS's count of
 *                times the process went to sleep, so every wake-up, whoever
 *                caused it);
 *   lateness     when the update started minus when its tick was due
 *                (tick k at start + floor(k * 1e9 / 60)); p50, p99, max;
 *   own/frame    the loop's own time per frame: outside the game's callbacks
 *                and outside the wait (Tempo: from tempo_loop_get_stats; its
 *                event pumping happens inside tempo_wait, the SDL_Delay
 *                loop's SDL_PollEvent outside SDL_Delay, so also compare
 *                CPU/frame, which counts everything);
 *   CPU/frame    CPU time / frames.
 *
 * Methods (each in its own child process: this program re-run with
 * --only METHOD, so CPU time and switch counts belong to it alone):
 *   tempo            tempo_loop_run, default wait route (x11 fd + eventfd)
 *   tempo-sdl-route  the same with TEMPO_SDL_WAIT_ROUTE=sdl (the portable
 *                    fallback that blocks in SDL_WaitEventTimeout)
 *   tempo-wait       no tempo_loop: the bare primitive it is built on, a
 *                    periodic tempo timer + tempo_wait(TEMPO_WAIT_MESSAGES)
 *                    and SDL_PollEvent when it reports messages; the gap to
 *                    "tempo" is what the loop itself adds
 *   sdl-delay        a hand-written loop: SDL_PollEvent, update when due,
 *                    then SDL_Delay to the next tick rounded up to whole ms
 *                    (never early, one wake-up per tick: the best an
 *                    SDL_Delay loop does)
 *
 * Usage: bench_loop [--quick] [--seconds S] [--only METHOD]
 * Exit: 0 (targets are reported, not enforced), 77 when no real window can
 * be opened (meson's "skipped": run it under xvfb-run -a), 1 on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/tempo.h"

#define HZ 60u
#define EXIT_SKIP BENCH_EXIT_SKIP
#define MAX_SAMPLES (HZ * 700)

typedef struct result {
    double wall_s, cpu_pct, wakes_per_s, updates_per_s, frames_per_s;
    double late_p50_us, late_p99_us, late_max_us;
    double own_us, cpu_per_frame_us;
    char route[48];
} result;

static const char *const methods[] = {"tempo", "tempo-sdl-route", "tempo-wait", "sdl-delay"};
#define METHOD_COUNT 4
#define BASELINE 3 /* sdl-delay: the ratios' denominator */

/* ---- Helpers ------------------------------------------------------------------ */

static uint64_t tick_at(uint64_t start, uint64_t k)
{
    return start + (k / HZ) * TEMPO_NS_PER_S + (k % HZ) * TEMPO_NS_PER_S / HZ;
}

static double pct_us(const uint64_t *v, size_t n, double p) /* sorted */
{
    return (double)bench_pct_u64(v, n, p) / 1e3;
}

static SDL_Window *open_window(void)
{
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return NULL;
    const char *drv = SDL_GetCurrentVideoDriver();
    if (drv == NULL || strcmp(drv, "dummy") == 0 || strcmp(drv, "offscreen") == 0)
        return NULL; /* not a real window: the numbers would mean nothing */
    return SDL_CreateWindow("bench_loop", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 320, 240,
                            SDL_WINDOW_SHOWN);
}

/* Lets the window appear and settle before measuring. */
static void settle(void)
{
    uint64_t end = tempo_now_ns() + 300 * TEMPO_NS_PER_MS;
    SDL_Event e;
    while (tempo_now_ns() < end) {
        while (SDL_PollEvent(&e)) {
        }
        SDL_Delay(10);
    }
}

/* ---- Tempo ------------------------------------------------------------------------ */

/* Empty but for the end of the run: a clock read per update is cheaper
 * than a watched timer, which every frame would poll (~1 us). */
static void empty_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    if (tempo_now_ns() >= *(const uint64_t *)user)
        tempo_loop_quit(loop);
}

static void empty_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    (void)user;
}

static int run_tempo(double seconds, result *res)
{
    uint64_t end_ns = 0;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = HZ,
                                                             .render_on_demand = true,
                                                             .update = empty_update,
                                                             .render = empty_render,
                                                             .user = &end_ns});
    if (loop == NULL)
        return -1;
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns();
    end_ns = t0 + (uint64_t)(seconds * 1e9);
    int rc = tempo_loop_run(loop);
    uint64_t wall = tempo_now_ns() - t0;
    tempo_process_usage(&u1);
    if (rc != 0)
        return -1;
    const tempo_loop_counts *t = &tempo_loop_get_stats(loop)->total;
    double s = (double)wall / 1e9;
    res->wall_s = s;
    res->cpu_pct = 100.0 * (double)(u1.cpu_ns - u0.cpu_ns) / (double)wall;
    res->wakes_per_s = (double)(u1.voluntary_switches - u0.voluntary_switches) / s;
    res->updates_per_s = (double)t->updates / s;
    res->frames_per_s = (double)t->frames / s;
    res->late_p50_us = (double)t->lateness_p50_ns / 1e3;
    res->late_p99_us = (double)t->lateness_p99_ns / 1e3;
    res->late_max_us = (double)t->lateness_max_ns / 1e3;
    res->own_us = t->frames ? (double)t->loop_ns / (double)t->frames / 1e3 : 0;
    res->cpu_per_frame_us = t->frames ? (double)(u1.cpu_ns - u0.cpu_ns) / (double)t->frames / 1e3 : 0;
    snprintf(res->route, sizeof res->route, "%s", tempo_wait_route());
    tempo_loop_destroy(loop);
    return 0;
}

/* ---- The bare wait primitive ----------------------------------------------------- */

static int finish(result *res, uint64_t *late, size_t nlate, uint64_t wall, uint64_t frames, uint64_t updates,
                  uint64_t own_ns, const tempo_usage *u0, const tempo_usage *u1)
{
    qsort(late, nlate, sizeof *late, bench_cmp_u64);
    double s = (double)wall / 1e9;
    res->wall_s = s;
    res->cpu_pct = 100.0 * (double)(u1->cpu_ns - u0->cpu_ns) / (double)wall;
    res->wakes_per_s = (double)(u1->voluntary_switches - u0->voluntary_switches) / s;
    res->updates_per_s = (double)updates / s;
    res->frames_per_s = (double)frames / s;
    res->late_p50_us = pct_us(late, nlate, 50);
    res->late_p99_us = pct_us(late, nlate, 99);
    res->late_max_us = nlate ? (double)late[nlate - 1] / 1e3 : 0;
    res->own_us = frames ? (double)own_ns / (double)frames / 1e3 : 0;
    res->cpu_per_frame_us = frames ? (double)(u1->cpu_ns - u0->cpu_ns) / (double)frames / 1e3 : 0;
    free(late);
    return 0;
}

static volatile uint64_t sink;
static void baseline_update(void) { sink++; }
static void baseline_render(void) { sink++; }

static int run_wait(double seconds, result *res)
{
    uint64_t *late = malloc(sizeof *late * MAX_SAMPLES);
    tempo_handle *tick = tempo_timer_create(false);
    if (late == NULL || tick == NULL)
        return -1;
    size_t nlate = 0;
    uint64_t frames = 0, updates = 0, own_ns = 0;
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), k = 0;
    /* 60 Hz is not a whole number of ns: re-arm each tick at its exact
     * absolute time instead of a periodic 16 666 667 ns timer that drifts. */
    tempo_timer_set(tick, tick_at(t0, 0), 0);
    for (;;) {
        uint64_t f0 = tempo_now_ns();
        if (f0 >= end || nlate == MAX_SAMPLES)
            break;
        int r = tempo_wait(&tick, 1, TEMPO_INFINITE, TEMPO_WAIT_MESSAGES);
        uint64_t f1 = tempo_now_ns(), cb = 0;
        frames++;
        if (r < 0)
            return -1;
        if (r == 1) {
            SDL_Event e;
            while (SDL_PollEvent(&e)) {
            }
        }
        uint64_t now = tempo_now_ns();
        if (now >= tick_at(t0, k)) {
            late[nlate++] = now - tick_at(t0, k);
            uint64_t a = tempo_now_ns();
            baseline_update();
            baseline_render();
            cb = tempo_now_ns() - a;
            k = (now - t0) / TEMPO_NS_PER_S * HZ + (now - t0) % TEMPO_NS_PER_S * HZ / TEMPO_NS_PER_S + 1;
            updates++;
            tempo_timer_set(tick, tick_at(t0, k), 0);
        }
        own_ns += tempo_now_ns() - f1 - cb;
        (void)f0;
    }
    uint64_t wall = tempo_now_ns() - t0;
    tempo_process_usage(&u1);
    tempo_timer_destroy(tick);
    snprintf(res->route, sizeof res->route, "%s", tempo_wait_route());
    return finish(res, late, nlate, wall, frames, updates, own_ns, &u0, &u1);
}

/* ---- The hand-written SDL_Delay loop ------------------------------------------------ */

static int run_sdl_delay(double seconds, result *res)
{
    uint64_t *late = malloc(sizeof *late * MAX_SAMPLES);
    if (late == NULL)
        return -1;
    size_t nlate = 0;
    uint64_t frames = 0, updates = 0, own_ns = 0;
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), k = 0;
    for (;;) {
        uint64_t f0 = tempo_now_ns();
        if (f0 >= end)
            break;
        frames++;
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
        }
        uint64_t cb = 0, now = tempo_now_ns();
        while (now >= tick_at(t0, k) && updates < MAX_SAMPLES) {
            late[nlate++] = now - tick_at(t0, k);
            uint64_t a = tempo_now_ns();
            baseline_update();
            baseline_render();
            cb += tempo_now_ns() - a;
            k++;
            updates++;
            now = tempo_now_ns();
        }
        uint64_t next = tick_at(t0, k);
        uint64_t before_wait = tempo_now_ns();
        own_ns += before_wait - f0 - cb;
        if (next > before_wait)
            SDL_Delay((Uint32)((next - before_wait + 999999) / 1000000)); /* round up: never early */
    }
    uint64_t wall = tempo_now_ns() - t0;
    tempo_process_usage(&u1);
    snprintf(res->route, sizeof res->route, "SDL_Delay");
    return finish(res, late, nlate, wall, frames, updates, own_ns, &u0, &u1);
}

/* ---- Child and parent ------------------------------------------------------------------ */

static int child(const char *method, double seconds)
{
    if (strcmp(method, "tempo-sdl-route") == 0)
        SDL_setenv("TEMPO_SDL_WAIT_ROUTE", "sdl", 1);
    SDL_Window *w = open_window();
    if (w == NULL) {
        fprintf(stderr, "bench_loop: no real window (%s)\n", SDL_GetError());
        return EXIT_SKIP;
    }
    settle();
    result r = {0};
    int rc = strcmp(method, "sdl-delay") == 0    ? run_sdl_delay(seconds, &r)
             : strcmp(method, "tempo-wait") == 0 ? run_wait(seconds, &r)
                                                 : run_tempo(seconds, &r);
    if (rc != 0) {
        fprintf(stderr, "bench_loop: %s failed: %s\n", method, tempo_get_error());
        return 1;
    }
    printf("RESULT wall=%.4f cpu=%.4f wakes=%.3f ups=%.3f fps=%.3f p50=%.2f p99=%.2f max=%.2f own=%.3f "
           "cpf=%.3f route=%s\n",
           r.wall_s, r.cpu_pct, r.wakes_per_s, r.updates_per_s, r.frames_per_s, r.late_p50_us, r.late_p99_us,
           r.late_max_us, r.own_us, r.cpu_per_frame_us, r.route);
    SDL_DestroyWindow(w);
    tempo_shutdown();
    SDL_Quit();
    return 0;
}

typedef struct spawned {
    result *r;
    int found;
} spawned;

static void on_child_line(const char *line, void *user)
{
    spawned *sp = user;
    result *r = sp->r;
    if (strncmp(line, "RESULT ", 7) == 0 &&
        sscanf(line + 7, "wall=%lf cpu=%lf wakes=%lf ups=%lf fps=%lf p50=%lf p99=%lf max=%lf own=%lf cpf=%lf "
                         "route=%47s",
               &r->wall_s, &r->cpu_pct, &r->wakes_per_s, &r->updates_per_s, &r->frames_per_s, &r->late_p50_us,
               &r->late_p99_us, &r->late_max_us, &r->own_us, &r->cpu_per_frame_us, r->route) == 11)
        sp->found = 1;
}

static int spawn(const char *self, const char *method, double seconds, result *r)
{
    char args[256];
    snprintf(args, sizeof args, "--only %s --seconds %g", method, seconds);
    spawned sp = {r, 0};
    int status = bench_run_child(self, args, on_child_line, &sp);
    if (status == EXIT_SKIP)
        return EXIT_SKIP;
    return sp.found && status == 0 ? 0 : -1;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

int main(int argc, char **argv)
{
    double seconds = 10;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            seconds = 2;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--seconds S] [--only tempo|tempo-sdl-route|tempo-wait|sdl-delay]\n", argv[0]);
            return 1;
        }
    }
    if (only != NULL)
        return child(only, seconds);

    result r[METHOD_COUNT];
    for (int m = 0; m < METHOD_COUNT; m++) {
        memset(&r[m], 0, sizeof r[m]);
        int rc = spawn(argv[0], methods[m], seconds, &r[m]);
        if (rc == EXIT_SKIP) {
            printf("bench_loop: skipped, no real window (run under xvfb-run -a)\n");
            return EXIT_SKIP;
        }
        if (rc != 0) {
            fprintf(stderr, "bench_loop: method %s failed\n", methods[m]);
            return 1;
        }
    }

    printf("bench_loop: empty game, %u updates/s, render on demand, real window, %.0f s per method (%s)\n", HZ,
           seconds, tempo_backend_name());
    printf("%-16s %7s %9s %8s %8s %9s %9s %9s %9s %9s  %s\n", "method", "CPU %", "wakes/s", "upd/s", "frames/s",
           "late p50", "late p99", "late max", "own/frm", "CPU/frm", "route");
    for (int m = 0; m < METHOD_COUNT; m++)
        printf("%-16s %7.3f %9.1f %8.2f %8.2f %7.1fus %7.1fus %7.1fus %7.2fus %7.1fus  %s\n", methods[m],
               r[m].cpu_pct, r[m].wakes_per_s, r[m].updates_per_s, r[m].frames_per_s, r[m].late_p50_us,
               r[m].late_p99_us, r[m].late_max_us, r[m].own_us, r[m].cpu_per_frame_us, r[m].route);
    const result *t = &r[0], *d = &r[BASELINE];
    printf("%-16s %6.2fx %8.2fx %7.2fx %7.2fx %8.2fx %8.2fx %8.2fx %8.2fx %8.2fx\n", "tempo/sdl-delay",
           ratio(t->cpu_pct, d->cpu_pct), ratio(t->wakes_per_s, d->wakes_per_s),
           ratio(t->updates_per_s, d->updates_per_s), ratio(t->frames_per_s, d->frames_per_s),
           ratio(t->late_p50_us, d->late_p50_us), ratio(t->late_p99_us, d->late_p99_us),
           ratio(t->late_max_us, d->late_max_us), ratio(t->own_us, d->own_us),
           ratio(t->cpu_per_frame_us, d->cpu_per_frame_us));
    printf("targets (DESIGN.md 5): CPU <= 0.3%%, wake-ups <= %u/s, lateness p50 <= 50 us, never early\n", HZ + 1);
    printf("tempo: CPU %s, wake-ups %s, p50 %s\n", t->cpu_pct <= 0.3 ? "met" : "MISSED",
           t->wakes_per_s <= HZ + 1 ? "met" : "MISSED", t->late_p50_us <= 50 ? "met" : "MISSED");
    return 0;
}
