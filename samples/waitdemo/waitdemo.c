/* waitdemo: a window that sleeps in tempo_wait() until something happens,
 * then shows why it woke and what the sleeping cost.
 *
 * Wake sources: a 2 Hz periodic timer (the clock on screen), an event set by
 * a worker thread at random 0.3-1.5 s intervals, and window input (keys,
 * mouse, resize). Esc or closing the window quits. Nothing is redrawn unless
 * the program woke up, so an idle window costs next to nothing. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tempo/debugdraw.h>
#include <tempo/tempo.h>

#include "sample.h"

enum { WAKE_TIMER, WAKE_WORKER, WAKE_INPUT, WAKE_KINDS };
static const char *const wake_names[WAKE_KINDS] = {"timer", "worker", "input"};

typedef struct worker {
    tempo_handle *ping; /* set by the worker */
    tempo_handle *stop; /* manual-reset: tells the worker to finish */
    atomic_uint sent;
} worker;

/* [worker thread] Sleeps a random 0.3-1.5 s (in a Tempo wait, so the stop
 * event interrupts it), then pings the main loop. */
static int worker_main(void *p)
{
    worker *w = p;
    uint32_t seed = 12345;
    for (;;) {
        seed = seed * 1103515245u + 12345u;
        uint64_t pause = (300 + (seed >> 16) % 1200) * TEMPO_NS_PER_MS;
        if (tempo_wait(&w->stop, 1, pause, 0) == 0)
            return 0;
        atomic_fetch_add(&w->sent, 1);
        tempo_event_set(w->ping);
    }
}

typedef struct log_line {
    int kind;
    double at_s;
    char what[48];
} log_line;

#define LOG_LINES 14

typedef struct demo {
    sample_app app;
    uint64_t start_ns;
    uint64_t wakes[WAKE_KINDS];
    log_line log[LOG_LINES];
    int log_count;
    double cpu_percent; /* over the last second */
    double wakes_per_s;
    uint64_t win_start_ns, win_cpu_ns, win_wakes, total_wakes;
} demo;

static void note(demo *d, int kind, const char *what)
{
    d->wakes[kind]++;
    if (d->log_count == LOG_LINES) {
        memmove(d->log, d->log + 1, sizeof d->log[0] * (LOG_LINES - 1));
        d->log_count--;
    }
    log_line *l = &d->log[d->log_count++];
    l->kind = kind;
    l->at_s = (double)(tempo_now_ns() - d->start_ns) / 1e9;
    snprintf(l->what, sizeof l->what, "%s", what);
}

static void sample_usage(demo *d)
{
    uint64_t now = tempo_now_ns();
    if (now - d->win_start_ns < TEMPO_NS_PER_S)
        return;
    tempo_usage u;
    if (tempo_process_usage(&u) == 0) {
        double wall = (double)(now - d->win_start_ns);
        d->cpu_percent = 100.0 * (double)(u.cpu_ns - d->win_cpu_ns) / wall;
        d->wakes_per_s = (double)(d->total_wakes - d->win_wakes) * 1e9 / wall;
        d->win_cpu_ns = u.cpu_ns;
    }
    d->win_wakes = d->total_wakes;
    d->win_start_ns = now;
}

static void draw(demo *d)
{
    static const SDL_Color colours[WAKE_KINDS] = {{90, 170, 255, 255}, {255, 190, 60, 255}, {120, 230, 120, 255}};
    SDL_Renderer *r = d->app.renderer;
    SDL_SetRenderDrawColor(r, 16, 18, 24, 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawColor(r, 230, 230, 230, 255);
    tempo_debug_textf(r, 16, 14, 2, "Tempo waitdemo  %.1f s", (double)(tempo_now_ns() - d->start_ns) / 1e9);
    tempo_debug_textf(r, 16, 40, 1, "sleeping in tempo_wait (route: %s, backend: %s)", tempo_wait_route(),
                      tempo_backend_name());
    tempo_debug_textf(r, 16, 54, 1, "CPU %.2f%% of one core   %.1f wake-ups/s", d->cpu_percent, d->wakes_per_s);
    for (int k = 0; k < WAKE_KINDS; k++) {
        SDL_Color c = colours[k];
        SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
        SDL_Rect box = {16 + k * 150, 76, 140, 36};
        SDL_RenderDrawRect(r, &box);
        tempo_debug_textf(r, box.x + 8, box.y + 6, 1, "%s", wake_names[k]);
        tempo_debug_textf(r, box.x + 8, box.y + 18, 1, "%llu wakes", (unsigned long long)d->wakes[k]);
    }
    for (int i = 0; i < d->log_count; i++) {
        const log_line *l = &d->log[i];
        SDL_Color c = colours[l->kind];
        SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
        tempo_debug_textf(r, 16, 128 + i * 14, 1, "%8.3f s  %-7s %s", l->at_s, wake_names[l->kind], l->what);
    }
    SDL_SetRenderDrawColor(r, 140, 140, 140, 255);
    tempo_debug_text(r, 16, d->app.height - 20, 1, "press keys, move the mouse; Esc quits");
}

int main(int argc, char **argv)
{
    demo d = {0};
    if (sample_parse(&d.app, argc, argv, NULL, NULL, NULL) != 0)
        return 1;
    /* It shows the wait itself, with its own present: a blocking vsync
     * present would hide the wait it measures. */
    d.app.no_vsync = true;
    if (sample_open(&d.app, "Tempo waitdemo", 640, 360) != 0)
        return 1;

    tempo_handle *tick = tempo_timer_create(false);
    worker w = {tempo_event_create(false, false), tempo_event_create(true, false), 0};
    if (tick == NULL || w.ping == NULL || w.stop == NULL) {
        fprintf(stderr, "tempo: %s\n", tempo_get_error());
        return 1;
    }
    d.start_ns = d.win_start_ns = tempo_now_ns();
    tempo_usage u0 = {0};
    tempo_process_usage(&u0);
    d.win_cpu_ns = u0.cpu_ns;
    tempo_timer_set(tick, d.start_ns + TEMPO_NS_PER_S / 2, TEMPO_NS_PER_S / 2);
    SDL_Thread *th = SDL_CreateThread(worker_main, "waitdemo-worker", &w);

    const uint64_t end_ns = d.app.seconds > 0 ? d.start_ns + (uint64_t)(d.app.seconds * 1e9) : TEMPO_INFINITE;
    bool quit = false;
    draw(&d);
    while (!quit) {
        tempo_handle *set[2] = {tick, w.ping};
        uint64_t now = tempo_now_ns();
        if (now >= end_ns)
            break;
        int r = tempo_wait(set, 2, end_ns == TEMPO_INFINITE ? TEMPO_INFINITE : end_ns - now, TEMPO_WAIT_MESSAGES);
        if (r == TEMPO_ETIMEDOUT)
            break;
        if (r < 0) {
            fprintf(stderr, "tempo_wait: %s (%s)\n", tempo_strerror(r), tempo_get_error());
            break;
        }
        d.total_wakes++;
        char what[48];
        if (r == 0) {
            uint64_t missed = tempo_timer_missed(tick);
            snprintf(what, sizeof what, missed ? "tick (%llu missed)" : "tick", (unsigned long long)missed);
            note(&d, WAKE_TIMER, what);
        } else if (r == 1) {
            snprintf(what, sizeof what, "ping #%u from the worker", atomic_load(&w.sent));
            note(&d, WAKE_WORKER, what);
        } else {
            SDL_Event e;
            int events = 0;
            while (SDL_PollEvent(&e)) {
                events++;
                if (e.type == SDL_QUIT || (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE))
                    quit = true;
                if (e.type == SDL_KEYDOWN)
                    snprintf(what, sizeof what, "key %s", SDL_GetScancodeName(e.key.keysym.scancode));
                else if (e.type == SDL_MOUSEMOTION)
                    snprintf(what, sizeof what, "mouse at %d,%d", e.motion.x, e.motion.y);
                else if (events == 1)
                    snprintf(what, sizeof what, "SDL event 0x%x", e.type);
            }
            if (events == 0)
                continue; /* window-system traffic that produced no SDL event */
            note(&d, WAKE_INPUT, what);
        }
        sample_usage(&d);
        draw(&d);
        SDL_RenderPresent(d.app.renderer);
    }

    draw(&d);
    if (d.app.screenshot)
        sample_screenshot(&d.app, d.app.screenshot);
    tempo_event_set(w.stop);
    SDL_WaitThread(th, NULL);

    tempo_usage u1 = {0};
    tempo_process_usage(&u1);
    double wall_s = (double)(tempo_now_ns() - d.start_ns) / 1e9;
    printf("waitdemo summary (%s, video %s, wait route %s)\n", tempo_backend_name(), d.app.video_driver,
           tempo_wait_route());
    printf("  ran %.2f s, woke %llu times (%.1f/s): timer %llu, worker %llu, input %llu\n", wall_s,
           (unsigned long long)d.total_wakes, (double)d.total_wakes / wall_s, (unsigned long long)d.wakes[0],
           (unsigned long long)d.wakes[1], (unsigned long long)d.wakes[2]);
    printf("  CPU %.3f s = %.2f%% of one core\n", (double)(u1.cpu_ns - u0.cpu_ns) / 1e9,
           100.0 * (double)(u1.cpu_ns - u0.cpu_ns) / 1e9 / wall_s);

    tempo_timer_destroy(tick);
    tempo_event_destroy(w.ping);
    tempo_event_destroy(w.stop);
    tempo_shutdown();
    sample_close(&d.app);
    return 0;
}
