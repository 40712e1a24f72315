/* bench_latency: input to present, Tempo next to the classic loops (issue 39
 * section 3: "input reaches the screen first").
 *
 * A thread injects input at random times (SDL_PushEvent of a mouse motion
 * whose x is the input's id, 1, 2, 3...; gaps uniform in 1/4..7/4 of a
 * frame, seeded per round). Every loop reads its inputs in an update (the
 * game's state: the newest id read), renders at the same cost (a busy
 * --render-ms, 2 ms by default, then a clear to the colour coding that id)
 * and presents; the present reads one pixel back, so what is timed is the
 * id the frame really shows. Every loop runs at 60 updates/s and 60
 * frames/s on one display:
 *   the fake vsync (default): a 60 Hz display whose vblanks lie at a random
 *     phase per round; a frame is on screen at the first vblank after its
 *     present's work (SDL_RenderPresent on SDL's software renderer) is done,
 *     and a vsync'd present blocks until then, as in bench_game;
 *   --real: SDL's own vsync (an accelerated renderer created with
 *     SDL_RENDERER_PRESENTVSYNC: OpenGL, llvmpipe under Xvfb); a frame is on
 *     screen when its present returns. Only the loops with a blocking
 *     present run.
 * The loops:
 *   tempo, vsync pacing   tempo_loop with desc.present blocking on the fake
 *                         vblank: the loop learns the vblanks and wakes at
 *                         next vblank - predicted render cost - margin;
 *   tempo, vsync pacing, low latency
 *                         the same with desc.low_latency: the update ticks at
 *                         the render wake, the lead the learnt render cost
 *                         plus what the misses show the present needs;
 *   tempo, timer pacing   the same loop with vsync OFF and a present that does
 *                         not block: renders on its timer at the display's
 *                         rate (display_hz 60);
 *   textbook vsync        while (1) { poll events; update; render; present },
 *                         the present blocking (SDL_RENDERER_PRESENTVSYNC);
 *   deWiTTERS             his recommended loop (constant game speed,
 *                         independent FPS, MAX_FRAMESKIP 5; input read in
 *                         update_game), at 60 ticks/s, and at the article's
 *                         25 ticks/s; the present blocks;
 *   wait-with-timeout     GLFW's glfwWaitEventsTimeout loop written with
 *                         SDL_WaitEventTimeout: sleep until the next frame
 *                         (a 60 Hz grid from its start, whole ms) or an
 *                         event, keep the events, and at the frame update,
 *                         render and present without vsync;
 *   reference             not a peer and not in the goal: the textbook loop,
 *                         asleep until a fixed lead (--lead-ms, 8) before
 *                         each vblank first, as a pacer that renders as late
 *                         as the render's cost allows would (fake vsync
 *                         only): what rendering late buys on this machine,
 *                         and what that lead costs in missed vblanks;
 *   reference             tempo, vsync pacing with TEMPO_LOOP_VARIABLE: one
 *                         update right before each render, at the pacer's
 *                         wake: the pacer's lead without the fixed ticks'
 *                         phase (the input waits for the render slot only).
 * Rounds are interleaved: every loop runs once per round (the order rotates
 * between rounds), with the round's seed and vblank phase, so the machine's
 * load falls on every loop alike; verdicts are differences against the
 * textbook loop of the same run, never absolute times. Inputs are injected
 * from 0.5 s into each run (the warm-up: Tempo's probe of the present and
 * its pacer's learning; missed vblanks are counted after it too).
 *
 * Printed: per loop, latency p50 / p99 / max over every round's inputs and
 * the difference of the p50 from the textbook loop's in frames, frames/s,
 * missed vblanks and frames never shown; where the time goes (p50 of each
 * stretch: input -> read by an update -> render -> present called -> the
 * present's work done -> on screen, and the lead: render to screen);
 * the goal (DESIGN.md section 5: Tempo's p50 the lowest of all, at least
 * 1/3 of a frame below the textbook loop's, at equal frame rate and no
 * missed frames) as met or not. XTest injection (under Xvfb) is left out:
 * libXtst is not a dependency (no xtst.pc on the build machines).
 *
 * Options: --quick (1 round of 1.5 s per loop: checks that every loop runs
 * and every input reaches the screen, with no timing verdict), --rounds N
 * (5), --seconds S per loop and round (4), --render-ms MS (2), --real,
 * --lead-ms MS (the reference row's, 8), --seed N. Exit 0, 1 when a check
 * fails (a frame showing something other than what was drawn, an input
 * never shown, a loop that did not run), BENCH_EXIT_SKIP without video. Thread: main thread, plus the injector. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "bench_latency.h"
#include "bench_vsync.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define HZ 60
#define FRAME_NS 16666667u
#define WARMUP_NS (500 * MS)
#define MAX_FRAMESKIP 5

static int rounds = 5;
static double run_s = 4;
static uint64_t render_cost_ns = 2 * MS;
static uint64_t late_lead_ns = 8 * MS; /* --lead-ms: the reference row's */
static bool quick, real;
static uint64_t seed = 39;

/* ---- The loops ------------------------------------------------------------------ */

enum {
    TEMPO_VSYNC, TEMPO_TIMER, TEXTBOOK, DEWITTERS, DEWITTERS_25, WAIT_TIMEOUT, LATE, TEMPO_VARIABLE,
    TEMPO_LOWLAT, /* last: the plot's blocks keep their indices */
    NLOOPS
};

static const struct loop_info {
    const char *name;
    bool blocking;  /* the present blocks until the vblank */
    bool reference; /* not a peer: a yardstick for the analysis (not in the goal) */
} loops[NLOOPS] = {
    [TEMPO_VSYNC] = {"tempo, vsync pacing", true},
    [TEMPO_LOWLAT] = {"tempo, vsync pacing, low latency", true},
    [TEMPO_TIMER] = {"tempo, timer pacing", false},
    [TEXTBOOK] = {"textbook vsync loop", true},
    [DEWITTERS] = {"deWiTTERS, 60 ticks/s", true},
    [DEWITTERS_25] = {"deWiTTERS, 25 ticks/s (the article's)", true},
    [WAIT_TIMEOUT] = {"wait-with-timeout (GLFW-style)", false},
    [LATE] = {"reference: textbook loop woken a fixed lead before each vblank", true, true},
    [TEMPO_VARIABLE] = {"reference: tempo, vsync pacing, VARIABLE policy (the update right before each render)", true,
                        true},
};

typedef struct game {
    SDL_Renderer *ren;
    bool blocking;
    uint64_t start_ns, origin_ns; /* the run's start; the display's vblank 0 */
    tempo_handle *vblank;         /* the fake vsync's timer */
    tempo_input *in;              /* tempo rows: the loop's input ring */
    uint32_t latest;              /* the newest input an update read */
    uint32_t drawn;               /* what the last render drew */
    uint32_t pending[256];        /* the peers: inputs taken from SDL, not yet read by an update */
    int npending;
    uint64_t render_ns;           /* when the last render began */
    uint64_t last_ret_ns, last_k; /* --real: the previous present's return and its frame number */
    uint64_t mismatched;          /* frames whose pixel was not what the render drew */
    uint64_t updates;
    lat_track tr;
} game;

/* An update read input `id` (ids arrive in order). */
static void read_input(game *g, uint32_t id, uint64_t now)
{
    if (id > g->latest && id < g->tr.cap) {
        g->tr.in[id].read = now;
        g->latest = id;
    }
}

/* The peers' event handling: SDL's queue into pending (a GLFW callback's
 * work: the input is kept, and the game reads it in its next update). */
static void take_event(game *g, const SDL_Event *e)
{
    if (e->type == SDL_MOUSEMOTION && g->npending < (int)(sizeof g->pending / sizeof g->pending[0]))
        g->pending[g->npending++] = (uint32_t)e->motion.x;
}

static void poll_events(game *g)
{
    SDL_Event e;
    while (SDL_PollEvent(&e))
        take_event(g, &e);
}

/* The peers' update: reads what was taken from SDL. */
static void peer_update(game *g)
{
    uint64_t now = tempo_now_ns();
    for (int i = 0; i < g->npending; i++)
        read_input(g, g->pending[i], now);
    g->npending = 0;
    g->updates++;
}

/* Every loop's render: the same cost, then the frame cleared to the colour
 * of the newest input read. */
static void draw(game *g)
{
    g->render_ns = tempo_now_ns();
    bench_spin_ns(render_cost_ns);
    uint8_t r, gr, b;
    lat_colour_of(g->latest, &r, &gr, &b);
    SDL_SetRenderDrawColor(g->ren, r, gr, b, 255);
    SDL_RenderClear(g->ren);
    g->drawn = g->latest;
}

/* Every loop's present: the frame's pixel read back (what it shows), the
 * present, and when the frame reaches the screen. */
static void present(game *g)
{
    uint64_t call = tempo_now_ns();
    Uint32 px = 0;
    SDL_Rect one = {0, 0, 1, 1};
    SDL_RenderReadPixels(g->ren, &one, SDL_PIXELFORMAT_ARGB8888, &px, 4);
    uint32_t id = lat_id_of((uint8_t)(px >> 16), (uint8_t)(px >> 8), (uint8_t)px);
    g->mismatched += id != g->drawn;
    SDL_RenderPresent(g->ren);
    uint64_t done = tempo_now_ns(), k, shown;
    if (real) {
        /* SDL's vsync: on screen at the return; the frame number from the
         * returns' spacing (a gap of two periods is a missed vblank). */
        k = g->last_k == 0 ? 1
                           : g->last_k + (done - g->last_ret_ns < FRAME_NS / 2
                                              ? 0
                                              : (done - g->last_ret_ns + FRAME_NS / 2) / FRAME_NS);
        g->last_k = k;
        g->last_ret_ns = done;
        shown = done;
        if (g->tr.from_k == UINT64_MAX && done >= g->start_ns + WARMUP_NS)
            g->tr.from_k = k;
    } else {
        k = g->blocking ? bench_vsync_wait(g->vblank, g->origin_ns, FRAME_NS, done)
                        : bench_vblank_after(g->origin_ns, FRAME_NS, done);
        shown = g->origin_ns + k * FRAME_NS;
    }
    lat_track_present(&g->tr, id, k, g->render_ns, call, done, shown);
}

/* ---- Tempo ---------------------------------------------------------------------- */

static void tempo_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    game *g = user;
    uint64_t now = tempo_now_ns();
    tempo_input_event ev;
    while (tempo_input_poll(g->in, &ev) > 0)
        if (ev.type == TEMPO_INPUT_MOUSE_MOTION)
            read_input(g, (uint32_t)ev.u.motion.x, now);
    g->updates++;
}

static void tempo_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    draw(user);
}

static void tempo_present(tempo_loop *loop, void *user)
{
    (void)loop;
    present(user);
}

static void quit_loop(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)h;
    (void)user;
    tempo_loop_quit(loop);
}

/* What the Tempo rows say about their pacing, for the analysis. */
typedef struct tempo_info {
    tempo_loop_pacing pacing;     /* at the end of the last round */
    uint64_t predicted_render_ns; /* the same */
    uint64_t missed_vblanks;      /* tempo_loop_stats' count, summed over the rounds */
} tempo_info;

static int run_tempo(game *g, SDL_Window *win, bool vsync, tempo_loop_policy policy, bool low_latency,
                     uint64_t end_ns, tempo_info *info)
{
    g->in = tempo_input_create(NULL);
    tempo_loop *loop = g->in == NULL ? NULL
                                     : tempo_loop_create(&(tempo_loop_desc){
                                           .update_hz = HZ, .window = win, .renderer = g->ren,
                                           .present = tempo_present, .update = tempo_update, .render = tempo_render,
                                           .user = g, .input = g->in, .display_hz = HZ, .policy = policy,
                                           .low_latency = low_latency,
                                           .vsync = vsync ? TEMPO_LOOP_VSYNC_ON : TEMPO_LOOP_VSYNC_OFF});
    tempo_handle *end = tempo_timer_create(false);
    if (loop == NULL || end == NULL) {
        fprintf(stderr, "bench_latency: %s\n", tempo_get_error());
        tempo_input_destroy(g->in);
        tempo_timer_destroy(end);
        return 1;
    }
    tempo_timer_set(end, end_ns, 0);
    tempo_loop_watch(loop, end, quit_loop, NULL);
    int rc = tempo_loop_run(loop);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    info->pacing = st->pacing;
    info->predicted_render_ns = st->predicted_render_ns;
    info->missed_vblanks += st->total.missed_vblanks; /* over the rounds, warm-up included */
    tempo_loop_destroy(loop);
    tempo_input_destroy(g->in);
    tempo_timer_destroy(end);
    return rc != 0;
}

/* ---- The peers ------------------------------------------------------------------ */

static void run_textbook(game *g, uint64_t end_ns)
{
    while (tempo_now_ns() < end_ns) {
        poll_events(g);
        peer_update(g);
        draw(g);
        present(g);
    }
}

/* deWiTTERS' "constant game speed independent of variable FPS": updates at
 * ticks_hz with at most MAX_FRAMESKIP per frame, input read in the update,
 * and a render (with interpolation, not needed here) after them. */
static void run_dewitters(game *g, uint64_t end_ns, uint32_t ticks_hz)
{
    uint64_t next_tick = g->start_ns, skip = TEMPO_NS_PER_S / ticks_hz;
    while (tempo_now_ns() < end_ns) {
        int n = 0;
        while (tempo_now_ns() > next_tick && n < MAX_FRAMESKIP) {
            poll_events(g);
            peer_update(g);
            next_tick += skip;
            n++;
        }
        draw(g);
        present(g);
    }
}

/* glfwWaitEventsTimeout's loop: sleep until the next frame or an event
 * (whole ms: SDL's timeout; rounded up, so it never spins), keep the
 * events, and at the frame update, render, present. */
static void run_wait_timeout(game *g, uint64_t end_ns)
{
    uint64_t next = g->start_ns + FRAME_NS;
    for (uint64_t now = tempo_now_ns(); now < end_ns; now = tempo_now_ns()) {
        if (now < next) {
            SDL_Event e;
            if (SDL_WaitEventTimeout(&e, (int)((next - now + MS - 1) / MS)))
                take_event(g, &e);
            continue;
        }
        poll_events(g);
        peer_update(g);
        draw(g);
        present(g);
        next += FRAME_NS;
        if (next <= now) /* behind: the next frame of the grid still ahead */
            next = g->start_ns + ((now - g->start_ns) / FRAME_NS + 1) * FRAME_NS;
    }
}

/* The reference row (fake vsync only): the textbook loop, but first asleep
 * until a fixed lead (--lead-ms) before the next vblank, as a pacer that
 * renders as late as the render's cost allows would: what a late render
 * buys on this machine, and what it costs in missed vblanks at that lead. */
static void run_late(game *g, uint64_t end_ns)
{
    tempo_handle *tick = tempo_timer_create(false);
    for (uint64_t now = tempo_now_ns(); now < end_ns && tick != NULL; now = tempo_now_ns()) {
        uint64_t k = bench_vblank_after(g->origin_ns, FRAME_NS, now + late_lead_ns);
        tempo_timer_set(tick, g->origin_ns + k * FRAME_NS - late_lead_ns, 0);
        tempo_wait(&tick, 1, TEMPO_INFINITE, 0);
        poll_events(g);
        peer_update(g);
        draw(g);
        present(g);
    }
    tempo_timer_destroy(tick);
}

/* ---- The injector --------------------------------------------------------------- */

typedef struct injector {
    lat_track *tr;     /* writes tr->in[id].injected only (the main thread never reads it meanwhile) */
    uint64_t start_ns; /* the first input is due from start_ns on */
    uint64_t rng;
    Uint32 window_id;
    tempo_handle *stop;
    uint32_t injected; /* read after the thread is joined */
} injector;

static uint64_t rnd(uint64_t *s)
{
    /* xorshift64*: seeded, so every loop of a round gets the same inputs. */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* [injector thread] */
static int SDLCALL inject(void *p)
{
    injector *j = p;
    uint64_t due = j->start_ns;
    for (uint32_t id = 1; id < j->tr->cap; id++) {
        due += FRAME_NS / 4 + rnd(&j->rng) % (FRAME_NS * 3 / 2);
        uint64_t now = tempo_now_ns();
        if (due > now && tempo_wait(&j->stop, 1, due - now, 0) == 0)
            return 0;
        SDL_Event e = {0};
        e.type = SDL_MOUSEMOTION;
        e.motion.windowID = j->window_id;
        e.motion.x = (Sint32)id;
        e.motion.y = 1;
        e.motion.xrel = 1;
        j->tr->in[id].injected = tempo_now_ns();
        SDL_PushEvent(&e);
        j->injected = id;
    }
    return 0;
}

/* ---- One run, the results ------------------------------------------------------- */

typedef struct result {
    uint64_t *stage[LAT_STAGES]; /* every shown input's stretches, over the rounds */
    size_t n[LAT_STAGES], cap;
    double round_p50_ms[64];     /* each round's latency p50 */
    double round_slot_ms[64];    /* ...and its update-to-render p50 (the update's phase) */
    uint64_t presents, missed, unseen, mismatched, regressed, injected, shown, lost, updates;
    double seconds;              /* measured (after the warm-up) */
    bool ran;
    tempo_info tempo;
} result;

static int run_one(int which, SDL_Window *win, SDL_Renderer *ren, uint64_t round_seed, uint64_t phase_ns, int round,
                   result *res)
{
    const struct loop_info *li = &loops[which];
    uint32_t cap = (uint32_t)(run_s * HZ * 2) + 16;
    game g = {.ren = ren, .blocking = li->blocking, .vblank = tempo_timer_create(false)};
    g.tr.in = calloc(cap, sizeof *g.tr.in);
    g.tr.cap = cap;
    injector j = {.tr = &g.tr, .rng = round_seed | 1, .window_id = SDL_GetWindowID(win),
                  .stop = tempo_event_create(true, false)};
    if (g.vblank == NULL || g.tr.in == NULL || j.stop == NULL) {
        fprintf(stderr, "bench_latency: %s\n", g.tr.in == NULL ? "out of memory" : tempo_get_error());
        free(g.tr.in);
        tempo_timer_destroy(g.vblank);
        tempo_event_destroy(j.stop);
        return 1;
    }
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    g.start_ns = tempo_now_ns();
    g.origin_ns = g.start_ns + phase_ns - FRAME_NS; /* vblank 0 just before the start */
    /* --real: no vblank times; the first present after the warm-up sets it. */
    g.tr.from_k = real ? UINT64_MAX : bench_vblank_after(g.origin_ns, FRAME_NS, g.start_ns + WARMUP_NS);
    uint64_t end = g.start_ns + (uint64_t)(run_s * 1e9);
    j.start_ns = g.start_ns + WARMUP_NS;
    SDL_Thread *th = SDL_CreateThread(inject, "injector", &j);
    int fail = 0;
    if (which == TEMPO_VSYNC || which == TEMPO_LOWLAT || which == TEMPO_TIMER || which == TEMPO_VARIABLE)
        fail = run_tempo(&g, win, which != TEMPO_TIMER,
                         which == TEMPO_VARIABLE ? TEMPO_LOOP_VARIABLE : TEMPO_LOOP_INTERPOLATED,
                         which == TEMPO_LOWLAT, end, &res->tempo);
    else if (which == TEXTBOOK)
        run_textbook(&g, end);
    else if (which == DEWITTERS || which == DEWITTERS_25)
        run_dewitters(&g, end, which == DEWITTERS ? 60 : 25);
    else if (which == WAIT_TIMEOUT)
        run_wait_timeout(&g, end);
    else
        run_late(&g, end);
    uint64_t stopped = tempo_now_ns();
    tempo_event_set(j.stop);
    SDL_WaitThread(th, NULL);

    /* Inputs injected a few frames before the end may not have been shown. */
    uint64_t lat[8192], slot[8192];
    size_t nl = 0, ns = 0;
    for (uint32_t id = 1; id <= j.injected; id++) {
        const lat_input *e = &g.tr.in[id];
        if (e->shown != 0)
            res->shown++;
        else if (e->injected + 6 * FRAME_NS < stopped)
            res->lost++;
        for (int s = 0; s < LAT_STAGES; s++) {
            uint64_t v;
            if (lat_stage_ns(e, (lat_stage)s, &v) && res->n[s] < res->cap) {
                res->stage[s][res->n[s]++] = v;
                if (s == LAT_TOTAL && nl < sizeof lat / sizeof lat[0])
                    lat[nl++] = v;
                if (s == LAT_SLOT && ns < sizeof slot / sizeof slot[0])
                    slot[ns++] = v;
            }
        }
    }
    qsort(lat, nl, sizeof lat[0], bench_cmp_u64);
    qsort(slot, ns, sizeof slot[0], bench_cmp_u64);
    if (round < 64) {
        res->round_p50_ms[round] = (double)bench_pct_u64(lat, nl, 50) / 1e6;
        res->round_slot_ms[round] = (double)bench_pct_u64(slot, ns, 50) / 1e6;
    }
    res->injected += j.injected;
    res->presents += g.tr.presents;
    res->missed += g.tr.missed;
    res->unseen += g.tr.unseen;
    res->regressed += g.tr.regressed;
    res->mismatched += g.mismatched;
    res->updates += g.updates;
    res->seconds += (double)(stopped - (g.start_ns + WARMUP_NS)) / 1e9;
    res->ran = true;
    free(g.tr.in);
    tempo_timer_destroy(g.vblank);
    tempo_event_destroy(j.stop);
    return fail;
}

static double pct_ms(result *r, lat_stage s, double p)
{
    return (double)bench_pct_u64(r->stage[s], r->n[s], p) / 1e6;
}

/* The median over the rounds of (a's p50 - b's p50) in the same round. */
static double paired_diff_ms(const result *a, const result *b, int n)
{
    double d[64];
    int m = 0;
    for (int i = 0; i < n && i < 64; i++)
        d[m++] = a->round_p50_ms[i] - b->round_p50_ms[i];
    qsort(d, (size_t)m, sizeof d[0], bench_cmp_dbl);
    return m == 0 ? 0 : m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
}

/* The goal (DESIGN.md section 5) for Tempo's row `which`: its p50 the
 * lowest of every peer, at least 1/3 frame below the textbook loop's, at
 * equal frame rate and no missed frames. */
static void goal(result *res, int which, double base)
{
    const double frame_ms = FRAME_NS / 1e6;
    if (!res[which].ran)
        return;
    double best_other = 1e18;
    int best = -1;
    for (int i = 0; i < NLOOPS; i++)
        if (i != TEMPO_VSYNC && i != TEMPO_LOWLAT && i != TEMPO_TIMER && !loops[i].reference && res[i].ran &&
            pct_ms(&res[i], LAT_TOTAL, 50) < best_other) {
            best_other = pct_ms(&res[i], LAT_TOTAL, 50);
            best = i;
        }
    result *t = &res[which];
    double p50 = pct_ms(t, LAT_TOTAL, 50), gain = (base - p50) / frame_ms;
    double fps = t->seconds > 0 ? (double)t->presents / t->seconds : 0;
    double fps_base = res[TEXTBOOK].seconds > 0 ? (double)res[TEXTBOOK].presents / res[TEXTBOOK].seconds : 0;
    bool lowest = p50 < best_other, third = gain >= 1.0 / 3, same_rate = fps >= 0.99 * fps_base,
         no_miss = t->missed == 0 && t->unseen == 0;
    printf("\ngoal (%s): p50 lowest of every loop: %s (%.1f ms; the best other: %s, %.1f ms); "
           "%.2f frames below the textbook loop (>= 0.33): %s; frame rate %.1f against %.1f: %s; missed vblanks %llu, "
           "frames never shown %llu: %s => %s\n",
           loops[which].name, lowest ? "yes" : "NO", p50, best >= 0 ? loops[best].name : "-", best_other, gain,
           third ? "yes" : "NO", fps, fps_base, same_rate ? "yes" : "NO", (unsigned long long)t->missed,
           (unsigned long long)t->unseen, no_miss ? "yes" : "NO",
           lowest && third && same_rate && no_miss ? "MET" : "NOT MET");
}

static void print_results(result *res, int n, double load_before)
{
    const double frame_ms = FRAME_NS / 1e6;
    for (int i = 0; i < NLOOPS; i++)
        for (int s = 0; s < LAT_STAGES; s++)
            qsort(res[i].stage[s], res[i].n[s], sizeof(uint64_t), bench_cmp_u64);
    double base = pct_ms(&res[TEXTBOOK], LAT_TOTAL, 50);
    printf("\nbench_latency (%s backend, %s video, %s): 60 updates/s and 60 frames/s, render %.1f ms, "
           "%d round%s of %.1f s per loop (interleaved), inputs from %.1f s on; load average %.1f before, %.1f "
           "after: compare the rows of one run, not absolute times; the reference row wakes %.1f ms before each "
           "vblank\n\n",
           tempo_backend_name(), SDL_GetCurrentVideoDriver(),
           real ? "SDL's vsync, on screen at the present's return" : "a 60 Hz fake vsync at a random phase per round",
           (double)render_cost_ns / 1e6, n, n == 1 ? "" : "s", run_s, WARMUP_NS / 1e9, load_before,
           bench_load_average(), (double)late_lead_ns / 1e6);
    printf("| loop | inputs shown | latency p50 ms | p99 | max | p50 against the textbook loop | frames/s | "
           "missed vblanks | frames never shown |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NLOOPS; i++) {
        result *r = &res[i];
        if (!r->ran)
            continue;
        double p50 = pct_ms(r, LAT_TOTAL, 50);
        char against[64];
        if (i == TEXTBOOK || !res[TEXTBOOK].ran)
            snprintf(against, sizeof against, "–");
        else
            snprintf(against, sizeof against, "%+.2f frames (%+.1f ms; rounds' median %+.2f)", (p50 - base) / frame_ms,
                     p50 - base, paired_diff_ms(r, &res[TEXTBOOK], n) / frame_ms);
        printf("| %s | %llu | %.1f | %.1f | %.1f | %s | %.1f | %llu | %llu |\n", loops[i].name,
               (unsigned long long)r->shown, p50, pct_ms(r, LAT_TOTAL, 99), pct_ms(r, LAT_TOTAL, 100), against,
               r->seconds > 0 ? (double)r->presents / r->seconds : 0.0, (unsigned long long)r->missed,
               (unsigned long long)r->unseen);
    }
    printf("\nwhere the time goes (p50 of each stretch in ms; p50s do not add up): input -> read by an update -> "
           "its render begins -> present called -> present's work done -> on screen; and the render's start "
           "before the screen (the lead)\n\n| loop | wait for an update | update to render | render | present's "
           "work | wait for the vblank | total | lead: render to screen |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NLOOPS; i++)
        if (res[i].ran)
            printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", loops[i].name,
                   pct_ms(&res[i], LAT_WAIT, 50), pct_ms(&res[i], LAT_SLOT, 50), pct_ms(&res[i], LAT_RENDER, 50),
                   pct_ms(&res[i], LAT_PRESENT, 50), pct_ms(&res[i], LAT_VBLANK, 50), pct_ms(&res[i], LAT_TOTAL, 50),
                   pct_ms(&res[i], LAT_LEAD, 50));
    printf("\nper round (the vblank's phase and the inputs change between rounds): latency p50 ms; update to "
           "render p50 ms\n\n| loop | latency p50 per round | update to render p50 per round |\n|---|---|---|\n");
    for (int i = 0; i < NLOOPS; i++) {
        if (!res[i].ran)
            continue;
        char a[512] = "", b[512] = "";
        for (int k = 0; k < n && k < 64; k++) {
            size_t na = strlen(a), nb = strlen(b);
            snprintf(a + na, sizeof a - na, "%s%.1f", k ? ", " : "", res[i].round_p50_ms[k]);
            snprintf(b + nb, sizeof b - nb, "%s%.1f", k ? ", " : "", res[i].round_slot_ms[k]);
        }
        printf("| %s | %s | %s |\n", loops[i].name, a, b);
    }
    for (int i = 0; i < NLOOPS; i++)
        if (res[i].ran && (i == TEMPO_VSYNC || i == TEMPO_LOWLAT || i == TEMPO_TIMER || i == TEMPO_VARIABLE))
            printf("\n%s: pacing at the end of the last round %s, predicted render %.2f ms, missed vblanks (the "
                   "loop's own count, every round from its start) %llu",
                   loops[i].name, tempo_loop_pacing_name(res[i].tempo.pacing),
                   (double)res[i].tempo.predicted_render_ns / 1e6, (unsigned long long)res[i].tempo.missed_vblanks);
    printf("\n");
    if (quick || !res[TEXTBOOK].ran)
        return;
    goal(res, TEMPO_VSYNC, base);
    goal(res, TEMPO_LOWLAT, base);
}

/* The latency distribution of every loop that ran, for the plot: one block
 * per loop in the table's order (blank-line separated, gnuplot's `index`;
 * one undefined point for a loop that did not run), each "latency ms, fraction
 * of inputs at or below it" at every 1/200 of the inputs. */
static void write_plot_data(result *res)
{
    FILE *f = bench_data_open("latency.dat");
    if (f == NULL)
        return;
    fprintf(f, "# bench_latency: input-to-screen latency (ms) and its cumulative fraction, one block per loop:\n");
    for (int i = 0; i < NLOOPS; i++)
        fprintf(f, "#   %d %s\n", i, loops[i].name);
    for (int i = 0; i < NLOOPS; i++) {
        result *r = &res[i];
        if (i > 0)
            fprintf(f, "\n\n");
        if (r->n[LAT_TOTAL] == 0)
            fprintf(f, "NaN NaN\n"); /* keeps the block: gnuplot counts blocks by their data */
        for (int k = 1; k <= 200 && r->n[LAT_TOTAL] > 0; k++)
            fprintf(f, "%.3f %.3f\n", (double)bench_pct_u64(r->stage[LAT_TOTAL], r->n[LAT_TOTAL], k / 2.0) / 1e6,
                    k / 200.0);
    }
    fclose(f);
}

/* The checks of every run, --quick's purpose: each loop ran and presented,
 * every frame showed what its render drew, and every input injected long
 * enough before the end reached the screen. No timing verdict. */
static int check(result *res)
{
    int fail = 0;
    for (int i = 0; i < NLOOPS; i++) {
        result *r = &res[i];
        if (!r->ran)
            continue;
        const char *why = r->presents == 0                     ? "no present counted"
                          : r->mismatched > 0                  ? "a frame showed something else than its render drew"
                          : r->regressed > 0                   ? "a frame showed an older input than the one before"
                          : r->injected == 0 || r->shown == 0  ? "no input reached the screen"
                          : r->lost > 0                        ? "inputs never reached the screen"
                          : pct_ms(r, LAT_TOTAL, 50) <= 0      ? "a latency p50 of 0"
                                                               : NULL;
        if (why != NULL) {
            printf("FAIL %s: %s (presents %llu, mismatched %llu, regressed %llu, injected %llu, shown %llu, lost %llu)\n",
                   loops[i].name, why, (unsigned long long)r->presents, (unsigned long long)r->mismatched,
                   (unsigned long long)r->regressed, (unsigned long long)r->injected, (unsigned long long)r->shown,
                   (unsigned long long)r->lost);
            fail = 1;
        }
    }
    return fail;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--real") == 0) {
            real = true;
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc && atof(argv[i + 1]) >= 1) {
            run_s = atof(argv[++i]);
        } else if (strcmp(argv[i], "--render-ms") == 0 && i + 1 < argc && atof(argv[i + 1]) >= 0) {
            render_cost_ns = (uint64_t)(atof(argv[++i]) * 1e6);
        } else if (strcmp(argv[i], "--lead-ms") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0 &&
                   atof(argv[i + 1]) < 16) {
            late_lead_ns = (uint64_t)(atof(argv[++i]) * 1e6);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: bench_latency [--quick] [--rounds N] [--seconds S] [--render-ms MS] [--real] "
                            "[--lead-ms MS] [--seed N]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines as they happen, also into a file */
    if (quick) {
        rounds = 1;
        run_s = 1.5;
    }
    if (rounds > 64)
        rounds = 64;
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 0);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            printf("bench_latency: no video (%s): skipped\n", SDL_GetError());
            return BENCH_EXIT_SKIP;
        }
    }
    if (real)
        SDL_SetHint(SDL_HINT_RENDER_VSYNC, "1");
    SDL_Window *win = SDL_CreateWindow("bench_latency", 0, 0, 320, 240, 0);
    SDL_Renderer *ren = win == NULL ? NULL
                        : real      ? SDL_CreateRenderer(win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC)
                                    : SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE);
    if (ren == NULL) {
        printf("bench_latency: no window/renderer (%s): skipped\n", SDL_GetError());
        return BENCH_EXIT_SKIP;
    }
    result res[NLOOPS] = {0};
    size_t cap = (size_t)rounds * (size_t)(run_s * HZ * 2 + 16);
    for (int i = 0; i < NLOOPS; i++) {
        res[i].cap = cap;
        for (int s = 0; s < LAT_STAGES; s++)
            if ((res[i].stage[s] = malloc(cap * sizeof(uint64_t))) == NULL)
                return 1;
    }
    double load_before = bench_load_average();
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL | 1;
    int fail = 0;
    for (int r = 0; r < rounds && !fail; r++) {
        uint64_t round_seed = rnd(&rng), phase = rnd(&rng) % FRAME_NS;
        for (int k = 0; k < NLOOPS && !fail; k++) {
            int i = (r + k) % NLOOPS;
            if (real && (!loops[i].blocking || i == LATE))
                continue; /* SDL's vsync: every present blocks; no vblank times to wake before */
            fail |= run_one(i, win, ren, round_seed, phase, r, &res[i]);
        }
        if (rounds > 1)
            printf("round %d of %d done\n", r + 1, rounds);
    }
    print_results(res, rounds, load_before); /* sorts the samples */
    write_plot_data(res);
    fail |= check(res);
    for (int i = 0; i < NLOOPS; i++)
        for (int s = 0; s < LAT_STAGES; s++)
            free(res[i].stage[s]);
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    tempo_shutdown();
    SDL_Quit();
    return fail;
}
