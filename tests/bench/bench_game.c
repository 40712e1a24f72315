/* bench_game: one game with every source active at once (issue 11), Tempo's
 * sources next to the naive glue, in one run.
 *
 * The game: 60 updates/s, rendering capped at 60 Hz (software renderer, an
 * offscreen window without a display), and at the same time
 *   - a network burst: a producer thread pushes 10 000 messages at 0.5 s
 *     (push_wait, as the network thread does), each costing 2 us to handle
 *     on the loop thread (--msg-us N; bench_netq covers 0.2 ms messages,
 *     where a burst is seconds of work and no glue keeps every frame);
 *   - a level load: 500 PNGs (256x256) requested at 0.5 s;
 *   - audio marks: a looping sound with a mark every 100 ms, each notice
 *     re-marking the next one;
 *   - scripted input: another thread pushes a key press or release every
 *     25 ms (SDL_PushEvent), read by update() from a tempo_input ring.
 *
 * Two glues, one after the other in the same run:
 *   tempo   the sources attached to the loop (tempo_netq_attach with the
 *           default DEADLINE policy, tempo_loader_attach,
 *           tempo_audio_attach, desc.input): the loop owns deadlines and
 *           budgets; the loader's thread at low priority
 *           (desc.low_priority, as docs/loading.md advises for loading
 *           while the game plays), and once more at normal priority with
 *           the fake vsync;
 *   naive   what a game writes without them: the queue watched and drained
 *           completely whenever signalled (DRAIN_ALL), the level loaded
 *           synchronously on the loop thread when it is requested, the
 *           audio handle watched and polled.
 *
 * Per pacing, two rows without the burst and the load first: the machine's
 * own noise (no Tempo loop at all: sleep to absolute 1/60 s deadlines on a
 * tempo_timer then render and present, or render and the fake vsync present
 * back to back, or with the fake vsync also a plain loop that sleeps until
 * a fixed lead before each vblank first, whose late wakes are the OS
 * timer's) and Tempo's loop with nothing attached (its own pacing). Then
 * the plain loop once more, capped and woken before each vblank, under the
 * load's threads (the burst's producer, a thread emptying its queue, a
 * low-priority decoder of the PNGs, whose images the plain loop uploads and
 * draws as the game does): the glues' contention and texture work without
 * their scheduling; with the fake vsync twice, woken at the fixed lead and
 * (after Tempo's sources row) at the lead that row kept: the machine's
 * noise at Tempo's own lead.
 * Reported per glue, over the whole run (and of those, before the burst at
 * 0.5 s: the probe of the present, the pacer's learning; and during the
 * burst and the load: from 0.5 s until both are done, 1 s at least):
 * render intervals over one 60 Hz
 * refresh (16.7 ms; with 1 ms of slack for timer jitter) and the longest
 * one, the oldest message's age when handled, the time to load all 500
 * images, audio notices and key events handled, CPU (% of one core, all
 * threads) and wake-ups per second (loop frames that slept; and the
 * process's voluntary context switches).
 *
 * Each glue runs twice: renders capped at 60 Hz (max_render_hz), and paced
 * by a 60 Hz fake vsync: the loop presents (desc.present, after it has
 * run the frame's queued draws: desc.renderer), and the present
 * blocks until the next 1/60 s boundary like a vsync'd SDL_RenderPresent;
 * the loop learns those vblanks, counts the blocked time as waiting and
 * wakes just before each one (issue 11, display pacing).
 *
 * Options: --quick (100 PNGs, 2 000 messages, 3 s), --cache DIR (where the
 * PNGs are generated once; default tempo-bench-game-cache in TMPDIR),
 * --seconds N, --msg-us N, --trace (every missed vblank of the fake-vsync
 * rows: its CLOCK_MONOTONIC time, to find it in `perf sched record -k
 * CLOCK_MONOTONIC`;
 * the pacer's planned wake, the wake's lateness, render cost, the present's
 * own work (and of it, the frame's draws that SDL queued until the present,
 * and the loop thread's CPU time: on Linux, the rest is waiting for other
 * threads, SDL's window texture and the display server) and the lead in
 * force; every late render interval with the render
 * phases around it, the planned wake (the pacer's, or the plain loop's
 * lead), the wake's lateness and the loop's
 * callback time before the render; every wake over 1 ms late of each
 * fake-vsync row, whether or not it made a late interval, with the row's
 * start in CLOCK_MONOTONIC (a late wake of Tempo's whose frame gave its
 * vblank up counts, and is marked); in the capped rows, every late render
 * interval with the wake against its slot and the time from the wake to the
 * render; the distributions are printed always, with the present's
 * work in the burst's first second apart), --burst-at S
 * (the burst and the load start S seconds into each run instead of 0.5 s:
 * once the pacer has learnt the present, as in a game that has been running),
 * --rounds N (every row N times, round after round, then the burst window
 * of each round side by side with the totals: a late frame there is rare
 * enough that one round cannot tell a glue's from the machine's; and for
 * each fake-vsync round whose oldest message missed its target, where the
 * time went: the burst's drains, the loop thread's time off its core in
 * each, the pacer's lead),
 * --low-latency (Tempo's loops with desc.low_latency: issue 39 section 3's
 * regression check against these rows). */
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE /* RUSAGE_THREAD (Linux) */
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#define make_dir(p) _mkdir(p)
#else
#include <sys/stat.h>
#define make_dir(p) mkdir((p), 0755)
#endif

#if defined(__linux__)
#include <sys/resource.h>
#include <time.h>
#endif

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>

#include "bench_common.h"
#include "bench_vsync.h"
#include "loop_internal.h" /* the pacer's state, for --trace */
#include "platform.h"      /* plat_thread_set_background, _yield: the noise rows' decoder */
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define US TEMPO_NS_PER_US
#define HZ 60
#define IMG_SIDE 256
#define FRAME_NS 16666667u
#define SLACK_NS (1 * MS)

static int n_images = 500;
static int n_messages = 10000;
static uint64_t msg_cost_ns = 2 * US; /* --msg-us */
static uint64_t burst_at_ns = 500 * MS; /* --burst-at: the burst and the load start here */
static double run_s = 8;
static char cache_dir[1024]; /* --cache; default bench_default_cache() */
static char (*paths)[1100];
static int rounds = 1; /* --rounds */
static bool trace; /* --trace: every missed vblank of the fake-vsync runs, one line each */
static bool low_latency; /* --low-latency: Tempo's loops with desc.low_latency */

/* ---- Fixtures ------------------------------------------------------------------ */

static void generate(void)
{
    make_dir(cache_dir);
    paths = calloc((size_t)n_images, sizeof *paths);
    int made = 0;
    uint64_t t0 = tempo_now_ns();
    for (int i = 0; i < n_images; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/game-%03d.png", cache_dir, i);
        SDL_RWops *probe = SDL_RWFromFile(paths[i], "rb");
        bool have = probe && SDL_RWsize(probe) > 0;
        if (probe)
            SDL_RWclose(probe);
        if (have)
            continue;
        SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, IMG_SIDE, IMG_SIDE, 32, SDL_PIXELFORMAT_RGBA32);
        uint32_t seed = 0x2545f491u * (uint32_t)(i + 1);
        for (int y = 0; y < IMG_SIDE; y++) {
            Uint8 *row = (Uint8 *)s->pixels + y * s->pitch;
            for (int x = 0; x < IMG_SIDE; x++) {
                seed = seed * 1664525u + 1013904223u; /* some noise: compresses like art */
                row[4 * x + 0] = (Uint8)(x * 2 + i + (seed >> 29));
                row[4 * x + 1] = (Uint8)(y + (((x / 16) ^ (y / 16)) & 1) * 80);
                row[4 * x + 2] = (Uint8)((x ^ y) + 3 * i);
                row[4 * x + 3] = 255;
            }
        }
        if (IMG_SavePNG(s, paths[i]) != 0) {
            fprintf(stderr, "bench_game: cannot write %s: %s\n", paths[i], SDL_GetError());
            exit(1);
        }
        SDL_FreeSurface(s);
        made++;
    }
    if (made)
        printf("generated %d PNGs in %s (%.1f s)\n", made, cache_dir, (double)(tempo_now_ns() - t0) / 1e9);
    for (int i = 0; i < n_images; i++) { /* into the OS file cache for both glues */
        SDL_RWops *rw = SDL_RWFromFile(paths[i], "rb");
        char buf[65536];
        while (rw && SDL_RWread(rw, buf, 1, sizeof buf) > 0) {
        }
        if (rw)
            SDL_RWclose(rw);
    }
}

/* ---- The game ------------------------------------------------------------------- */

typedef struct result {
    uint64_t renders, over, over_before, over_during, longest_ns, oldest_age_ns, handled, load_ns, notices, keys;
    double cpu_share, sleeps_per_s, switches_per_s;
    uint64_t present_p50_ns; /* the present's own work, p50 over the burst's first second */
    uint64_t lead_p50_ns;    /* fake vsync, Tempo: the pacer's lead in force from the burst on, p50 */
    /* Rows that sleep to a planned wake (Tempo's pacer or cap, the plain
     * loop's lead or deadline): the late render intervals whose own wake
     * was over 1 ms late (the OS's share of `over`); with the fake vsync,
     * all such wakes too. */
    uint64_t late_wakes, over_late_wake;
    char drains[256];        /* the burst's drains, for a round over the age target (print_section2) */
} result;

#define MAX_DRAINS 16 /* the burst's drains kept per run (game.drain_*) */

typedef struct game {
    bool naive;
    bool quiet;           /* baseline: no burst, no load (the machine's own frame noise) */
    bool vsync;           /* paced by the fake vsync present */
    tempo_handle *vblank; /* its timer */
    SDL_Renderer *ren;
    tempo_loop *loop;
    tempo_netq *q;
    tempo_loader *ld;
    tempo_audio *au;
    tempo_input *in;
    int channel;
    uint64_t next_mark;
    SDL_Texture **tex;
    int loaded;
    bool load_started;
    uint64_t start_ns, load_start_ns, load_done_ns;
    uint64_t load_requested_ns; /* how long the n_images tempo_loader_submit() calls took */
    long submit_blocked, submit_preempted; /* the loop thread's context switches meanwhile (-1: unknown) */
    long submit_cpu_us;                    /* ...and its CPU time meanwhile (-1: unknown) */
    uint64_t last_render_ns;
    uint64_t last_before_ns; /* the loop's callback time in the frame before that render */
    uint64_t plain_planned, plain_woke; /* the plain loop's wake before this frame (0: it did not sleep) */
    uint64_t plain_lead;
    result r;
    float x;
    /* The fake vsync's record of each present, for the miss analysis. */
    struct vrec {
        uint64_t planned, woke, render, call, ready, ret; /* ns; planned: the pacer's wake (0: none) */
        uint64_t drawn; /* the frame's queued draws done (SDL_RenderFlush), between call and ready */
        uint64_t before; /* the frame's callbacks (sources, updates) before the render */
        double lead, need; /* the lead in force; cost + margins */
        int64_t k;         /* the vblank it landed on */
        int64_t cpu;       /* the loop thread's CPU time in SDL_RenderPresent (-1: unknown) */
        /* A frame before it too late for its vblank, which gave it up
         * (tempo__loop_pace_late_wake): the wake asked for, and when it came (0: none). */
        uint64_t gave_planned, gave_woke;
    } *vr;
    uint64_t given_up; /* the pacer's st.given_up at the last present */
    int nvr, cap_vr;
    /* The burst's drains as on_message sees them (a gap of more than 0.5 ms
     * between two messages starts a new one; the first MAX_DRAINS are kept),
     * for the age analysis. */
    uint64_t msg_last_ns, first_push_ns, worst_push_ns, worst_at_ns;
    uint64_t drain_from[MAX_DRAINS], drain_to[MAX_DRAINS], drain_n[MAX_DRAINS];
    int ndrain;
    /* ...and the loop thread's time off its core in each: its CPU time at
     * the drain's first message and every DRAIN_SAMPLE-th (a clock read of
     * ~0.3 us per ~0.5 ms of messages), against the wall clock. */
    int64_t drain_cpu0[MAX_DRAINS], drain_cpu1[MAX_DRAINS];
    uint64_t drain_at1[MAX_DRAINS];
    /* Every render's time, for the plot's data file `plot` (NULL: not plotted). */
    const char *plot;
    uint64_t *rt;
    int nrt, cap_rt;
    /* Capped rows: SDL_RenderPresent's time in the burst's first second. */
    uint64_t pw[256];
    int npw;
} game;

/* The calling thread's CPU time in ns (-1 where unknown): exact, where
 * getrusage's lags by up to ~1 ms. */
static int64_t thread_cpu_ns(void)
{
#if defined(__linux__)
    struct timespec c;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c) == 0)
        return (int64_t)c.tv_sec * 1000000000 + c.tv_nsec;
#endif
    return -1;
}

#define DRAIN_SAMPLE 256

/* The drain's time off the core: wall minus CPU between its first sample
 * and its last (0 where the thread's CPU time is unknown). */
static double drain_off_ms(const game *g, int d)
{
    if (g->drain_cpu0[d] < 0 || g->drain_cpu1[d] < 0)
        return 0;
    double wall = (double)(g->drain_at1[d] - g->drain_from[d]), cpu = (double)(g->drain_cpu1[d] - g->drain_cpu0[d]);
    return wall > cpu ? (wall - cpu) / 1e6 : 0;
}

static void on_message(const tempo_netq_msg *m, void *user)
{
    (void)m;
    game *g = user;
    uint64_t now = tempo_now_ns();
    if (g->first_push_ns == 0 || m->pushed_ns < g->first_push_ns)
        g->first_push_ns = m->pushed_ns;
    if (now - m->pushed_ns > g->worst_at_ns - g->worst_push_ns) {
        g->worst_push_ns = m->pushed_ns;
        g->worst_at_ns = now;
    }
    if (g->msg_last_ns == 0 || now - g->msg_last_ns > 500 * US) {
        if (g->ndrain < MAX_DRAINS) {
            g->drain_from[g->ndrain] = g->drain_at1[g->ndrain] = now;
            g->drain_cpu0[g->ndrain] = g->drain_cpu1[g->ndrain] = thread_cpu_ns();
        }
        g->ndrain++;
    }
    if (g->ndrain <= MAX_DRAINS) {
        int d = g->ndrain - 1;
        g->drain_to[d] = now;
        if (++g->drain_n[d] % DRAIN_SAMPLE == 0) {
            g->drain_at1[d] = now;
            g->drain_cpu1[d] = thread_cpu_ns();
        }
    }
    bench_spin_ns(msg_cost_ns); /* creating the object the message describes */
    g->msg_last_ns = tempo_now_ns();
    g->r.handled++;
}

static void load_done(game *g)
{
    if (++g->loaded == n_images)
        g->load_done_ns = tempo_now_ns();
}

/* The next of g->tex made from `s` on the loop thread (NULL for a failed
 * decode), `s` freed: the naive glue's loading screen and the plain loop's
 * uploads. */
static void upload_surface(game *g, SDL_Surface *s)
{
    g->tex[g->loaded] = s ? SDL_CreateTextureFromSurface(g->ren, s) : NULL;
    SDL_FreeSurface(s);
    load_done(g);
}

/* g->tex's textures destroyed and the array freed (NULL: nothing). */
static void free_textures(game *g)
{
    for (int i = 0; g->tex != NULL && i < n_images; i++)
        if (g->tex[i])
            SDL_DestroyTexture(g->tex[i]);
    free(g->tex);
    g->tex = NULL;
}

static void on_loaded(tempo_loader *ld, const tempo_load_result *res, void *user)
{
    (void)ld;
    game *g = user;
    if (res->error == 0)
        g->tex[g->loaded] = res->texture;
    load_done(g);
}

/* The burst's drains in one line (`out`, "" without a burst): where each
 * began after the first push, its messages, and the loop thread's time
 * off its core where it was 0.5 ms or more. */
static void describe_drains(const game *g, char *out, size_t cap)
{
    out[0] = 0;
    for (int k = 0; k < g->ndrain && k < MAX_DRAINS; k++) {
        size_t n = strlen(out);
        double off = drain_off_ms(g, k);
        snprintf(out + n, cap - n, "%s+%.1f (%llu%s", k ? ", " : "",
                 (double)(g->drain_from[k] - g->first_push_ns) / 1e6, (unsigned long long)g->drain_n[k],
                 off >= 0.5 ? "" : ")");
        if (off >= 0.5) {
            n = strlen(out);
            snprintf(out + n, cap - n, ", %.1f off)", off);
        }
    }
}

static void start_load(game *g)
{
    g->load_started = true;
    g->load_start_ns = tempo_now_ns();
    if (!g->naive) {
        /* Blocked (a lock, a syscall) or preempted (another thread took the
         * core) while submitting: the thread's context switches. */
        g->submit_blocked = g->submit_preempted = -1;
#if defined(__linux__)
        struct rusage u0, u1;
        getrusage(RUSAGE_THREAD, &u0);
#endif
        int64_t cpu0 = thread_cpu_ns();
        for (int i = 0; i < n_images; i++)
            tempo_loader_submit(g->ld, &(tempo_load_request){
                                           .type = TEMPO_LOAD_IMAGE, .path = paths[i], .done = on_loaded, .user = g});
        g->load_requested_ns = tempo_now_ns() - g->load_start_ns;
        int64_t cpu1 = thread_cpu_ns();
        g->submit_cpu_us = cpu0 >= 0 && cpu1 >= cpu0 ? (long)((cpu1 - cpu0) / 1000) : -1;
#if defined(__linux__)
        getrusage(RUSAGE_THREAD, &u1);
        g->submit_blocked = u1.ru_nvcsw - u0.ru_nvcsw;
        g->submit_preempted = u1.ru_nivcsw - u0.ru_nivcsw;
#endif
        return;
    }
    /* The naive loading screen: everything now, on the loop thread. */
    for (int i = 0; i < n_images; i++)
        upload_surface(g, IMG_Load(paths[i]));
}

static void mark_next(game *g)
{
    g->next_mark += 4800; /* 100 ms at 48 kHz */
    tempo_audio_mark(g->au, g->channel, g->next_mark, NULL, g->next_mark);
}

static void on_notice(const tempo_audio_notice *n, void *user)
{
    game *g = user;
    if (n->kind == TEMPO_AUDIO_MARK) {
        g->r.notices++;
        mark_next(g);
    }
}

static void naive_audio(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    game *g = user;
    tempo_audio_notice n;
    while (tempo_audio_poll(g->au, &n) > 0)
        on_notice(&n, g);
}

static void naive_queue(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    game *g = user;
    tempo_netq_drain(g->q, on_message, g);
}

static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    game *g = user;
    tempo_input_event ev;
    while (tempo_input_poll(g->in, &ev) > 0)
        if (ev.type == TEMPO_INPUT_KEY && ev.u.key.down)
            g->r.keys++;
    g->x += (float)dt_ns * 1e-7f;
    if (g->x > 600)
        g->x = 0;
    if (!g->load_started && !g->quiet && tempo_now_ns() - g->start_ns >= burst_at_ns)
        start_load(g);
}

/* Whether `t_ns` falls in the burst's first second (from burst_at_ns on):
 * where the present's work is measured. */
static bool in_burst_first_second(const game *g, uint64_t t_ns)
{
    return t_ns >= g->start_ns + burst_at_ns && t_ns < g->start_ns + burst_at_ns + 1000 * MS;
}

static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    game *g = user;
    uint64_t now = tempo_now_ns();
    if (g->last_render_ns != 0) {
        uint64_t iv = now - g->last_render_ns;
        if (iv > FRAME_NS + SLACK_NS) {
            g->r.over++;
            uint64_t at = now - g->start_ns;
            if (!g->vsync) { /* capped: a late wake (the OS's share, count_late_wakes), or the frame's work? */
                uint64_t slot = loop != NULL ? g->last_render_ns + FRAME_NS : g->plain_planned;
                uint64_t woke = loop != NULL ? loop->wake_ns : g->plain_woke;
                g->r.over_late_wake += slot != 0 && woke > slot + SLACK_NS;
                if (trace && loop != NULL)
                    printf("  late %s, 60 Hz cap, at +%.0f ms: %.2f ms; the frame woke %+.2f ms after its slot, "
                           "rendered %.2f ms after the wake\n",
                           g->naive ? "naive" : g->quiet ? "tempo, nothing attached" : "tempo sources",
                           (double)at / 1e6, (double)iv / 1e6, ((double)woke - (double)slot) / 1e6,
                           (double)(now - woke) / 1e6);
            }
            if (at < burst_at_ns)
                g->r.over_before++; /* the start: the probe of the present, the pacer's learning */
            else if (at < burst_at_ns + 1000 * MS ||
                     (!g->quiet && (g->load_done_ns == 0 || g->r.handled < (uint64_t)n_messages)))
                g->r.over_during++; /* the burst and the load (at least 1 s of it) */
        }
        if (iv > g->r.longest_ns)
            g->r.longest_ns = iv;
    }
    g->last_render_ns = now;
    g->last_before_ns = loop != NULL ? loop->frame_game_ns : 0;
    g->r.renders++;
    if (g->rt != NULL && g->nrt < g->cap_rt)
        g->rt[g->nrt++] = now;
    SDL_SetRenderDrawColor(g->ren, 20, 24, 32, 255);
    SDL_RenderClear(g->ren);
    for (int i = 0; i < 8 && i < g->loaded; i++) {
        SDL_Rect dst = {10 + 70 * i, 10, 64, 64};
        if (g->tex[g->loaded - 1 - i])
            SDL_RenderCopy(g->ren, g->tex[g->loaded - 1 - i], NULL, &dst);
    }
    SDL_SetRenderDrawColor(g->ren, 240, 200, 80, 255);
    SDL_Rect box = {(int)g->x, 200, 32, 32};
    SDL_RenderFillRect(g->ren, &box);
    if (!g->vsync) {
        uint64_t t = tempo_now_ns();
        SDL_RenderPresent(g->ren); /* with the fake vsync the loop presents */
        if (in_burst_first_second(g, t) && g->npw < 256)
            g->pw[g->npw++] = tempo_now_ns() - t;
    }
}

/* The fake vsync: present, then block until the next 1/60 s boundary after
 * the run's start, as a vsync'd present blocks until the next vblank. */
static void fake_vsync_present(tempo_loop *loop, void *user)
{
    game *g = user;
    uint64_t call = tempo_now_ns();
    /* The frame's queued draws (SDL batches them until the present). The
     * loop has run them already (SDL_RenderFlush before its present), so
     * this one finds none; kept so that "draws" in the trace shows it. */
    SDL_RenderFlush(g->ren);
    uint64_t drawn = tempo_now_ns();
    int64_t cpu0 = thread_cpu_ns();
    SDL_RenderPresent(g->ren);
    int64_t cpu1 = thread_cpu_ns();
    uint64_t now = tempo_now_ns();
    uint64_t k = bench_vsync_wait(g->vblank, g->start_ns, FRAME_NS, now);
    if (g->vr != NULL && g->nvr < g->cap_vr) {
        struct vrec *v = &g->vr[g->nvr++];
        *v = (struct vrec){.render = g->last_render_ns, .before = g->last_before_ns, .call = call, .drawn = drawn,
                           .ready = now, .ret = tempo_now_ns(), .k = (int64_t)k,
                           .cpu = cpu0 >= 0 && cpu1 >= cpu0 ? cpu1 - cpu0 : -1};
        if (loop != NULL) { /* still this frame's: the loop sets the next after the present */
            v->planned = loop->sched.pace.pacing == TEMPO_LOOP_PACING_VSYNC ? loop->sched.pace.pace_wake_ns : 0;
            v->woke = loop->wake_ns;
            v->lead = loop->pres.pacer.lead_ns;
            v->need = (double)loop->pres.pacer.predicted_cost_ns + (double)loop->pres.pacer.margin_ns +
                      loop->pres.pacer.extra_margin_ns;
            if (loop->pres.pacer.st.given_up != g->given_up) {
                g->given_up = loop->pres.pacer.st.given_up;
                v->gave_planned = loop->pres.gave_up_planned_ns;
                v->gave_woke = loop->pres.gave_up_woke_ns;
            }
        } else if (g->plain_planned != 0) { /* the plain loop woken before the vblank: its wake, timed the same */
            v->planned = g->plain_planned;
            v->woke = g->plain_woke;
            v->lead = (double)g->plain_lead;
        }
        g->plain_planned = 0;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* p-th percentile (0..100) of n values, sorted in place. */
static double pct_ms(uint64_t *v, int n, double p)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    int i = (int)(p / 100 * (n - 1) + 0.5);
    return (double)v[i] / 1e6;
}

/* The present's own work in the burst's first second, into out[cap]
 * (returns how many): the fake vsync's records (call to ready; the first
 * record, the loop's first present, left out), or the capped render's
 * SDL_RenderPresent. */
static int burst_present_work(const game *g, uint64_t *out, int cap)
{
    int n = 0;
    if (g->vsync) {
        for (int i = 1; i < g->nvr && n < cap; i++)
            if (in_burst_first_second(g, g->vr[i].call))
                out[n++] = g->vr[i].ready - g->vr[i].call;
    } else {
        for (int i = 0; i < g->npw && n < cap; i++)
            out[n++] = g->pw[i];
    }
    return n;
}

/* Its p50: section 2's age target depends on it (3 frames while the
 * present takes more than half the period, 2 otherwise). */
static uint64_t burst_present_p50(const game *g)
{
    uint64_t v[256];
    return (uint64_t)(pct_ms(v, burst_present_work(g, v, 256), 50) * 1e6 + 0.5);
}

/* Tempo with the fake vsync: the p50 of the pacer's lead (how long before
 * its vblank it asked to wake) over the presents from the burst on (0:
 * none). The plain loop woken at Tempo's lead takes it. */
static uint64_t lead_p50(const game *g)
{
    uint64_t *v = calloc((size_t)g->nvr + 1, sizeof *v);
    int n = 0;
    if (v == NULL)
        return 0;
    for (int i = 0; i < g->nvr; i++)
        if (g->vr[i].planned != 0 && g->vr[i].call >= g->start_ns + burst_at_ns)
            v[n++] = (uint64_t)g->vr[i].lead;
    uint64_t p50 = (uint64_t)(pct_ms(v, n, 50) * 1e6 + 0.5);
    free(v);
    return p50;
}

/* How late a frame's wake was after the one planned: its own, or the one
 * before it that gave its vblank up (Tempo's pacer), whichever is later. */
static uint64_t wake_late_ns(const struct vrec *v)
{
    uint64_t late = v->planned != 0 && v->woke >= v->planned ? v->woke - v->planned : 0;
    uint64_t gave = v->gave_woke >= v->gave_planned ? v->gave_woke - v->gave_planned : 0;
    return late > gave ? late : gave;
}

/* A frame whose wake was over 1 ms (SLACK_NS) after the one planned. */
static bool late_wake(const struct vrec *v)
{
    return wake_late_ns(v) > SLACK_NS;
}

/* Fake vsync: the rows' wakes over 1 ms late (SLACK_NS, the late
 * interval's slack) and, of the late render intervals, those whose own
 * wake was one: what the OS's timer cost the row, Tempo's and the plain
 * loop's counted alike (capped rows: render() counts the latter). */
static void count_late_wakes(const game *g, result *r)
{
    for (int i = 1; i < g->nvr; i++) {
        const struct vrec *v = &g->vr[i];
        bool late = late_wake(v);
        r->late_wakes += late;
        r->over_late_wake += late && v->render - g->vr[i - 1].render > FRAME_NS + SLACK_NS;
    }
}

/* What the fake vsync saw: per missed vblank (a present that landed more
 * than one vblank after the previous one) the frame's times against the
 * vblank it should have made, and the distributions over all frames. */
static void print_vsync_trace(const game *g, const char *name)
{
    int n = g->nvr, missed = 0, miss_frames = 0;
    uint64_t *late = calloc((size_t)n + 1, sizeof *late), *cost = calloc((size_t)n + 1, sizeof *cost),
             *work = calloc((size_t)n + 1, sizeof *work), *used = calloc((size_t)n + 1, sizeof *used),
             *lead = calloc((size_t)n + 1, sizeof *lead), *ret = calloc((size_t)n + 1, sizeof *ret),
             *bwork = calloc((size_t)n + 1, sizeof *bwork), *pcpu = calloc((size_t)n + 1, sizeof *pcpu);
    int nl = 0, nc = 0, nu = 0, np = 0, nb = burst_present_work(g, bwork, n + 1);
    for (int i = 1; i < n; i++) {
        const struct vrec *v = &g->vr[i], *p = &g->vr[i - 1];
        uint64_t vb = g->start_ns + (uint64_t)(p->k + 1) * FRAME_NS; /* the vblank after the previous one */
        ret[i - 1] = p->ret - (g->start_ns + (uint64_t)p->k * FRAME_NS);
        cost[nc] = v->call - v->render;
        work[nc++] = v->ready - v->call;
        if (v->cpu >= 0)
            pcpu[np++] = (uint64_t)v->cpu;
        if (v->planned != 0 && v->woke >= v->planned && v->woke - v->planned < FRAME_NS) {
            late[nl] = v->woke - v->planned;
            used[nl] = v->ready > v->planned ? v->ready - v->planned : 0; /* wake -> ready to flip */
            lead[nl++] = (uint64_t)v->lead;
            nu++;
        }
        if (trace && v->render - p->render > FRAME_NS + SLACK_NS) /* a late render interval, and why */
            printf("  late %s at +%.0f ms: %.2f ms; render phase %.2f -> %.2f ms after its vblank; planned wake %+.2f, "
                   "woke %+.2f ms after it, callbacks before the render %.2f ms%s\n",
                   name, (double)(v->render - g->start_ns) / 1e6, (double)(v->render - p->render) / 1e6,
                   (double)((p->render - g->start_ns) % FRAME_NS) / 1e6,
                   (double)((v->render - g->start_ns) % FRAME_NS) / 1e6,
                   v->planned ? ((double)v->planned - (double)(g->start_ns + (uint64_t)p->k * FRAME_NS)) / 1e6 : 0.0,
                   v->planned ? ((double)v->woke - (double)v->planned) / 1e6 : 0.0, (double)v->before / 1e6,
                   v->gave_woke != 0                      ? " (a frame too late gave its vblank up)"
                   : i >= 2 && p->k > g->vr[i - 2].k + 1 ? " (after a missed vblank)"
                   : v->k > p->k + 1                      ? " (its present missed the vblank)"
                                                          : "");
        if (v->k > p->k + 1) {
            missed += (int)(v->k - p->k - 1);
            miss_frames++;
            if (trace)
                printf("  miss %s at %.3f s CLOCK_MONOTONIC\n", name, (double)v->call / 1e9);
            if (trace)
                printf("  miss %s k=%lld (+%lld): planned %+.2f ms before vb, woke %+.2f late, render at %+.2f, "
                       "cost %.2f, present work %.2f (draws %.2f, the loop thread's CPU %.2f), ready %+.2f after vb; "
                       "lead %.2f need %.2f; prev return %.2f after its vb\n",
                       name, (long long)v->k, (long long)(v->k - p->k - 1),
                       v->planned ? ((double)vb - (double)v->planned) / 1e6 : 0.0,
                       v->planned ? ((double)v->woke - (double)v->planned) / 1e6 : 0.0,
                       ((double)v->render - (double)vb) / 1e6, (double)(v->call - v->render) / 1e6,
                       (double)(v->ready - v->call) / 1e6, (double)(v->drawn - v->call) / 1e6,
                       v->cpu >= 0 ? (double)v->cpu / 1e6 : -1.0, ((double)v->ready - (double)vb) / 1e6, v->lead / 1e6,
                       v->need / 1e6, (double)ret[i - 1] / 1e6);
        }
    }
    printf("  %s: %d presents, %d missed vblanks (%d frames); wake lateness p50/p99/max %.3f/%.3f/%.3f ms; "
           "render cost %.3f/%.3f/%.3f; present work %.3f/%.3f/%.3f (the loop thread's CPU in it %.3f/%.3f/%.3f, "
           "the rest waiting for other threads); wake->ready %.3f/%.3f/%.3f against "
           "lead %.3f/%.3f/%.3f; vblank return late %.3f/%.3f/%.3f; present work in the burst's first second "
           "%.3f/%.3f/%.3f\n",
           name, n, missed, miss_frames, pct_ms(late, nl, 50), pct_ms(late, nl, 99), pct_ms(late, nl, 100),
           pct_ms(cost, nc, 50), pct_ms(cost, nc, 99), pct_ms(cost, nc, 100), pct_ms(work, nc, 50),
           pct_ms(work, nc, 99), pct_ms(work, nc, 100), pct_ms(pcpu, np, 50), pct_ms(pcpu, np, 99),
           pct_ms(pcpu, np, 100), pct_ms(used, nu, 50), pct_ms(used, nu, 99),
           pct_ms(used, nu, 100), pct_ms(lead, nu, 50), pct_ms(lead, nu, 99), pct_ms(lead, nu, 100),
           pct_ms(ret, n > 0 ? n - 1 : 0, 50), pct_ms(ret, n > 0 ? n - 1 : 0, 99),
           pct_ms(ret, n > 0 ? n - 1 : 0, 100), pct_ms(bwork, nb, 50), pct_ms(bwork, nb, 99),
           pct_ms(bwork, nb, 100));
    if (trace) { /* every wake over 1 ms late, whether or not it made a late interval: are they clustered? */
        int nw = 0;
        for (int i = 1; i < n; i++) {
            const struct vrec *v = &g->vr[i];
            if (!late_wake(v))
                continue;
            if (nw++ == 0)
                printf("  %s, from %.6f s CLOCK_MONOTONIC: wakes over 1 ms late (at ms: late by ms):", name,
                       (double)g->start_ns / 1e9);
            if (v->gave_woke > v->gave_planned + SLACK_NS) /* its frame gave its vblank up */
                printf(" +%.2f: %.2f (gave its vblank up)", (double)(v->gave_planned - g->start_ns) / 1e6,
                       (double)(v->gave_woke - v->gave_planned) / 1e6);
            else
                printf(" +%.2f: %.2f", (double)(v->planned - g->start_ns) / 1e6,
                       (double)(v->woke - v->planned) / 1e6);
        }
        if (nw)
            printf("\n");
    }
    free(bwork);
    free(pcpu);
    free(late);
    free(cost);
    free(work);
    free(used);
    free(lead);
    free(ret);
}

/* ---- Threads: the network producer and the input script ------------------------ */

typedef struct script {
    tempo_netq *q;
    uint64_t start_ns;
    tempo_handle *stop;
    int messages;
} script;

/* Sleeps until the burst's time; false if stopped first. */
static bool wait_for_burst(const script *s)
{
    uint64_t now = tempo_now_ns();
    return now >= s->start_ns + burst_at_ns || tempo_wait(&s->stop, 1, s->start_ns + burst_at_ns - now, 0) != 0;
}

static int SDLCALL producer(void *p)
{
    script *s = p;
    if (!wait_for_burst(s))
        return 0;
    for (int i = 0; i < s->messages; i++)
        if (tempo_netq_push_wait(s->q, 1, &i, sizeof i, s->stop, TEMPO_INFINITE) != 0)
            break;
    return 0;
}

static int SDLCALL typist(void *p)
{
    script *s = p;
    for (int i = 0;; i++) {
        if (tempo_wait(&s->stop, 1, 25 * MS, 0) == 0)
            return 0;
        SDL_Event e = {0};
        e.type = i % 2 ? SDL_KEYUP : SDL_KEYDOWN;
        e.key.keysym.scancode = SDL_SCANCODE_SPACE;
        e.key.keysym.sym = SDLK_SPACE;
        e.key.state = i % 2 ? SDL_RELEASED : SDL_PRESSED;
        SDL_PushEvent(&e);
    }
}

static void quit_loop(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)h;
    (void)user;
    tempo_loop_quit(loop);
}

/* The load's threads beside a plain loop: what it shares the machine with
 * while a Tempo glue handles the burst and the load. The producer pushes
 * the burst into a DRAIN_ALL queue that `sink` empties on its own thread
 * (the messages cost nothing there: when to run them on the loop thread is
 * the scheduling Tempo is measured for), and `decoder` decodes the 500
 * PNGs at low priority, one after the other, as the loader's one thread
 * does (tempo_loader_desc.low_priority), and hands each to the loop, which
 * uploads it (upload_decoded) and draws the newest 8, as the game does: a
 * texture is made on the render thread in any loop. */
typedef struct background {
    script sc;                  /* the producer's */
    SDL_atomic_t handled;       /* messages the sink took */
    SDL_Surface **decoded;      /* [n_images]: the decoder's images, the loop's from ndecoded on */
    _Atomic int ndecoded;       /* how many of them the decoder has stored */
} background;

static void discard(const tempo_netq_msg *m, void *user)
{
    (void)m;
    SDL_AtomicAdd(user, 1);
}

static int SDLCALL sink(void *p)
{
    background *b = p;
    tempo_handle *hs[2] = {b->sc.stop, tempo_netq_handle(b->sc.q)};
    while (tempo_wait(hs, 2, TEMPO_INFINITE, 0) == 1)
        tempo_netq_drain(b->sc.q, discard, &b->handled);
    return 0;
}

static int SDLCALL decoder(void *p)
{
    background *b = p;
    plat_thread_set_background(); /* as the loader's threads with desc.low_priority */
    if (!wait_for_burst(&b->sc))
        return 0;
    for (int i = 0; i < n_images; i++) {
        if (tempo_wait(&b->sc.stop, 1, 0, 0) == 0)
            return 0;
        plat_thread_background_yield(i == 0); /* as the loader's threads: after the wake, between items */
        b->decoded[i] = IMG_Load(paths[i]);
        b->ndecoded = i + 1; /* seq_cst: the loop sees the image stored before the count */
    }
    return 0;
}

/* The plain loop's uploads: every image the decoder has stored since the
 * last frame, made a texture on the loop thread after the present (as the
 * naive glue's SDL_CreateTextureFromSurface), so that the plain loop's
 * frames hold the game's texture work too. Before the render instead, each
 * frame's uploads would move its render call later and count as a late
 * interval with no vblank missed (run J, docs/bench-game.md). */
static void upload_decoded(game *g, background *b)
{
    int n = b->ndecoded;
    while (g->loaded < n) {
        SDL_Surface *s = b->decoded[g->loaded];
        b->decoded[g->loaded] = NULL;
        upload_surface(g, s);
    }
}

/* ---- One run -------------------------------------------------------------------- */

/* The run's per-frame records: the fake vsync's presents (vsync), and the
 * render times when `plot` names a data file for the plot. */
static void records_start(game *g, const char *plot)
{
    int cap = (int)(run_s * HZ * 2) + 100;
    if (g->vsync) {
        g->cap_vr = cap;
        g->vr = calloc((size_t)cap, sizeof *g->vr);
    }
    if (plot != NULL) {
        g->plot = plot;
        g->cap_rt = cap;
        g->rt = calloc((size_t)cap, sizeof *g->rt);
    }
}

/* Prints the fake vsync's trace as `name`, writes the render intervals
 * from 0.25 s before the burst to 1.5 s after it (time since the burst in
 * s, interval in ms) to g->plot in TEMPO_BENCH_DATA, and frees the
 * records. */
static void records_finish(game *g, const char *name)
{
    if (g->vsync)
        print_vsync_trace(g, name);
    free(g->vr);
    FILE *f = g->rt != NULL ? bench_data_open(g->plot) : NULL;
    if (f != NULL) {
        fprintf(f, "# bench_game: time since the burst and the load (s), render interval (ms)\n");
        uint64_t burst = g->start_ns + burst_at_ns;
        for (int i = 1; i < g->nrt; i++) {
            double at = ((double)g->rt[i] - (double)burst) / 1e9;
            if (at >= -0.25 && at <= 1.5)
                fprintf(f, "%.4f %.3f\n", at, (double)(g->rt[i] - g->rt[i - 1]) / 1e6);
        }
        fclose(f);
    }
    free(g->rt);
}

/* A Tempo glue (or the naive one): `low_priority`, the loader's threads in
 * the background (tempo_loader_desc.low_priority), as docs/loading.md
 * advises for loading while the game plays. */
static int run(bool naive, bool quiet, bool vsync, bool low_priority, SDL_Window *win, SDL_Renderer *ren,
               const char *plot, result *out)
{
    game g = {.naive = naive, .quiet = quiet, .vsync = vsync, .ren = ren};
    records_start(&g, plot);
    g.vblank = tempo_timer_create(false);
    g.tex = calloc((size_t)n_images, sizeof *g.tex);
    g.q = tempo_netq_create(naive ? &(tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL} : NULL);
    g.ld = naive ? NULL : tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .low_priority = low_priority});
    g.au = tempo_audio_create(&(tempo_audio_desc){.frequency = 48000, .buffer_frames = 480});
    g.in = tempo_input_create(NULL);
    g.loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = HZ, .max_render_hz = vsync ? 0 : HZ, .window = win,
                                                  .update = update, .render = render, .user = &g, .input = g.in,
                                                  .renderer = vsync ? ren : NULL, /* flushed before the present */
                                                  .present = vsync ? fake_vsync_present : NULL,
                                                  .vsync = vsync ? TEMPO_LOOP_VSYNC_ON : TEMPO_LOOP_VSYNC_OFF,
                                                  .low_latency = low_latency});
    if (g.q == NULL || (!naive && g.ld == NULL) || g.au == NULL || g.in == NULL || g.loop == NULL) {
        fprintf(stderr, "bench_game: %s\n", tempo_get_error());
        return 1;
    }
    static Sint16 pcm[48000 * 2]; /* one second of silence, looped */
    Mix_Chunk *chunk = Mix_QuickLoad_RAW((Uint8 *)pcm, sizeof pcm);
    g.channel = tempo_audio_play(g.au, -1, chunk, -1);
    g.next_mark = 0;
    mark_next(&g);
    if (naive) {
        tempo_loop_watch(g.loop, tempo_netq_handle(g.q), naive_queue, &g);
        tempo_loop_watch(g.loop, tempo_audio_handle(g.au), naive_audio, &g);
    } else {
        tempo_netq_attach(g.q, g.loop, on_message, &g);
        tempo_loader_attach(g.ld, g.loop);
        tempo_audio_attach(g.au, g.loop, on_notice, &g);
    }
    tempo_handle *end = tempo_timer_create(false);
    script sc = {g.q, 0, tempo_event_create(true, false), quiet ? 0 : n_messages};
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);

    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    g.start_ns = sc.start_ns = tempo_now_ns();
    tempo_timer_set(end, g.start_ns + (uint64_t)(run_s * 1e9), 0);
    tempo_loop_watch(g.loop, end, quit_loop, NULL);
    SDL_Thread *prod = SDL_CreateThread(producer, "producer", &sc);
    SDL_Thread *typ = SDL_CreateThread(typist, "typist", &sc);
    int rc = tempo_loop_run(g.loop);
    uint64_t wall = tempo_now_ns() - g.start_ns;
    tempo_process_usage(&u1);
    tempo_event_set(sc.stop);
    SDL_WaitThread(prod, NULL);
    SDL_WaitThread(typ, NULL);

    tempo_netq_stats qs;
    tempo_netq_get_stats(g.q, &qs);
    const tempo_loop_stats *ls = tempo_loop_get_stats(g.loop);
    g.r.oldest_age_ns = qs.max_age_ns;
    if (qs.backlog > 0 && qs.oldest_age_ns > g.r.oldest_age_ns)
        g.r.oldest_age_ns = qs.oldest_age_ns;
    g.r.load_ns = g.load_done_ns ? g.load_done_ns - g.load_start_ns : 0;
    g.r.cpu_share = (double)(u1.cpu_ns - u0.cpu_ns) / (double)wall;
    g.r.sleeps_per_s = ls->total.sleeps_per_s;
    g.r.switches_per_s = u1.has_switches ? (double)(u1.voluntary_switches - u0.voluntary_switches) * 1e9 / (double)wall
                                         : -1;
    g.r.present_p50_ns = burst_present_p50(&g);
    g.r.lead_p50_ns = vsync ? lead_p50(&g) : 0;
    count_late_wakes(&g, &g.r);
    describe_drains(&g, g.r.drains, sizeof g.r.drains);
    *out = g.r;
    if (!naive && !quiet) {
        const tempo_loop_counts *t = &ls->total;
        printf("tempo run%s%s: %llu frames, %llu updates, %llu renders; wait %.0f%% (present %.0f%%), game %.0f%%; "
               "capped %llu, stalls %llu, missed vblanks %llu\n",
               vsync ? " (fake vsync)" : "", low_priority ? "" : " (loader at normal priority)",
               (unsigned long long)t->frames, (unsigned long long)t->updates, (unsigned long long)t->renders,
               100 * t->wait_share, t->elapsed_ns ? 100.0 * (double)t->present_ns / (double)t->elapsed_ns : 0.0,
               100 * t->game_share, (unsigned long long)t->capped_frames, (unsigned long long)t->stalls,
               (unsigned long long)t->missed_vblanks);
        for (int k = 0; k < ls->source_count; k++) {
            const tempo_loop_source_counts *c = &ls->sources[k].total;
            printf("  source %-7s %6llu calls %7llu items %8.1f ms busy %5llu overruns %5llu forced, oldest %.1f ms\n",
                   ls->sources[k].name, (unsigned long long)c->calls, (unsigned long long)c->items,
                   (double)c->busy_ns / 1e6, (unsigned long long)c->overruns, (unsigned long long)c->forced,
                   (double)c->max_age_ns / 1e6);
        }
        if (g.ndrain > 0) {
            printf("  burst: first push at +0 (%.1f ms into the run); oldest message pushed at +%.1f ms, handled at +%.1f ms; drains:",
                   (double)(g.first_push_ns - g.start_ns) / 1e6, (double)(g.worst_push_ns - g.first_push_ns) / 1e6, (double)(g.worst_at_ns - g.first_push_ns) / 1e6);
            for (int k = 0; k < g.ndrain && k < MAX_DRAINS; k++)
                printf(" [+%.1f..+%.1f ms, %llu, %.1f ms off the core]",
                       (double)(g.drain_from[k] - g.first_push_ns) / 1e6,
                       (double)(g.drain_to[k] - g.first_push_ns) / 1e6, (unsigned long long)g.drain_n[k],
                       drain_off_ms(&g, k));
            printf("\n");
        }
        tempo_loader_stats lst;
        if (tempo_loader_get_stats(g.ld, &lst) == 0)
            printf("  loader: %.2f ms to submit the %d requests from %.3f s CLOCK_MONOTONIC (the loop thread's CPU "
                   "%.2f ms, blocked %ld times, preempted %ld); %llu delivered, %llu upload strips, longest item "
                   "%.1f ms, longest call %.1f ms\n",
                   (double)g.load_requested_ns / 1e6, n_images, (double)g.load_start_ns / 1e9,
                   (double)g.submit_cpu_us / 1e3, g.submit_blocked, g.submit_preempted,
                   (unsigned long long)lst.delivered,
                   (unsigned long long)lst.upload_strips, lst.item_max_ns / 1e6,
                   lst.process_max_ns / 1e6);
    }

    records_finish(&g, naive          ? "naive"
                       : quiet        ? "tempo, nothing attached"
                       : low_priority ? "tempo sources"
                                      : "tempo sources, loader at normal priority");

    tempo_loop_destroy(g.loop); /* detaches the sources */
    tempo_loader_destroy(g.ld);
    tempo_audio_destroy(g.au);
    Mix_FreeChunk(chunk);
    tempo_netq_destroy(g.q);
    tempo_input_destroy(g.in);
    tempo_timer_destroy(end);
    tempo_timer_destroy(g.vblank);
    tempo_event_destroy(sc.stop);
    free_textures(&g);
    return rc != 0;
}

/* The plain loop's lead with the fake vsync when it wakes before each
 * vblank: a fixed 8.9 ms, what Tempo's pacer learnt on this machine when
 * the row was written (the render's cost, the base margin, and P/2 of
 * extra margin after two misses of the present's own work). Since
 * 8e6c0d3 one miss teaches P/4 and Tempo's lead is ~5 ms, so a late OS
 * wake-up that the fixed lead absorbs costs Tempo a vblank. The row woken
 * at Tempo's lead (the p50 of the lead Tempo's sources row of the same
 * round kept from the burst on) tells that apart: the machine's noise at
 * the same lead. */
#define PLAIN_LEAD_NS (8900 * US)

/* The machine's own noise: the simplest loop, no Tempo loop, no burst, no
 * load, the same render and the same waits (a tempo_timer, as the fake
 * vsync's). Capped: sleep to absolute 1/60 s deadlines, then render and
 * present. Fake vsync: render, then the fake vsync present, back to back;
 * or (lead_ns != 0) first sleep until lead_ns before the next vblank, as
 * Tempo's pacer does, so its late wakes (the OS timer's) count too
 * (`at_tempo`: lead_ns is the lead Tempo kept, for the trace's name). The
 * typist's events are drained (and counted) before each render. `loaded`:
 * the load's threads (background) run meanwhile, from the burst's time on,
 * and the loop uploads what the decoder made and draws it, as the game
 * does: the machine's noise under the same contention as the glues' and
 * with the game's texture work, without Tempo's scheduling (the burst's
 * messages are run on the sink's thread). */
static int run_plain(bool vsync, uint64_t lead_ns, bool at_tempo, bool loaded, SDL_Renderer *ren, const char *plot,
                     result *out)
{
    bool jit = lead_ns != 0;
    game g = {.quiet = true, .vsync = vsync, .ren = ren};
    records_start(&g, plot);
    g.vblank = tempo_timer_create(false);
    tempo_handle *tick = tempo_timer_create(false);
    script sc = {NULL, 0, tempo_event_create(true, false), 0};
    background bg = {.sc = {.stop = sc.stop, .messages = n_messages}};
    if (loaded && (bg.sc.q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL})) == NULL) {
        fprintf(stderr, "bench_game: %s\n", tempo_get_error());
        return 1;
    }
    if (loaded) {
        bg.decoded = calloc((size_t)n_images, sizeof *bg.decoded);
        g.tex = calloc((size_t)n_images, sizeof *g.tex);
        if (bg.decoded == NULL || g.tex == NULL) {
            fprintf(stderr, "bench_game: out of memory\n");
            free(bg.decoded);
            free(g.tex);
            return 1;
        }
    }
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    g.start_ns = sc.start_ns = tempo_now_ns();
    uint64_t end = g.start_ns + (uint64_t)(run_s * 1e9), sleeps = 0, last = g.start_ns;
    SDL_Thread *typ = SDL_CreateThread(typist, "typist", &sc);
    bg.sc.start_ns = g.start_ns;
    SDL_Thread *prod = NULL, *snk = NULL, *dec = NULL;
    if (loaded) {
        prod = SDL_CreateThread(producer, "producer", &bg.sc);
        snk = SDL_CreateThread(sink, "sink", &bg);
        dec = SDL_CreateThread(decoder, "decoder", &bg);
    }
    uint64_t k = 1;
    while (last < end) {
        if (!vsync) {
            tempo_timer_set(tick, g.start_ns + k * FRAME_NS, 0);
            tempo_wait(&tick, 1, TEMPO_INFINITE, 0);
            sleeps++;
            uint64_t now = tempo_now_ns(), due = (now - g.start_ns) / FRAME_NS + 1;
            g.plain_planned = g.start_ns + k * FRAME_NS; /* render() times the wake against it */
            g.plain_woke = now;
            k = due > k + 1 ? due : k + 1; /* behind: the next deadline still ahead */
        } else if (jit) {
            uint64_t now = tempo_now_ns();
            uint64_t vb = g.start_ns + bench_vblank_after(g.start_ns, FRAME_NS, now) * FRAME_NS;
            if (vb - now > lead_ns) {
                tempo_timer_set(tick, vb - lead_ns, 0);
                tempo_wait(&tick, 1, TEMPO_INFINITE, 0);
                sleeps++;
                g.plain_planned = vb - lead_ns;
                g.plain_woke = tempo_now_ns();
                g.plain_lead = lead_ns;
            }
        }
        SDL_Event e;
        while (SDL_PollEvent(&e))
            if (e.type == SDL_KEYDOWN)
                g.r.keys++;
        g.x += 1.6667f;
        if (g.x > 600)
            g.x = 0;
        render(NULL, 0, &g);
        if (vsync) {
            fake_vsync_present(NULL, &g);
            sleeps++;
        }
        if (loaded) /* where Tempo's loader delivers: between a frame's present and the next wake */
            upload_decoded(&g, &bg);
        last = tempo_now_ns();
    }
    uint64_t wall = tempo_now_ns() - g.start_ns;
    tempo_process_usage(&u1);
    tempo_event_set(sc.stop);
    SDL_WaitThread(typ, NULL);
    SDL_WaitThread(prod, NULL);
    SDL_WaitThread(snk, NULL);
    SDL_WaitThread(dec, NULL);
    if (loaded) {
        g.r.handled = (uint64_t)SDL_AtomicGet(&bg.handled);
        g.r.load_ns = g.load_done_ns ? g.load_done_ns - (g.start_ns + burst_at_ns) : 0;
        tempo_netq_destroy(bg.sc.q);
        for (int i = 0; i < n_images; i++)
            SDL_FreeSurface(bg.decoded[i]); /* decoded, not uploaded before the end */
        free(bg.decoded);
        free_textures(&g);
    }
    g.r.cpu_share = (double)(u1.cpu_ns - u0.cpu_ns) / (double)wall;
    g.r.sleeps_per_s = (double)sleeps * 1e9 / (double)wall;
    g.r.switches_per_s = u1.has_switches ? (double)(u1.voluntary_switches - u0.voluntary_switches) * 1e9 / (double)wall
                                         : -1;
    g.r.present_p50_ns = burst_present_p50(&g);
    count_late_wakes(&g, &g.r);
    *out = g.r;
    records_finish(&g, !jit     ? "machine noise"
                       : !loaded ? "machine noise, woken before each vblank"
                       : !at_tempo ? "machine noise under the load's threads, woken before each vblank"
                                   : "machine noise under the load's threads, woken at Tempo's lead");
    tempo_timer_destroy(tick);
    tempo_timer_destroy(g.vblank);
    tempo_event_destroy(sc.stop);
    return 0;
}

static void print_row(const char *name, const result *r)
{
    char load[32];
    if (r->load_ns)
        snprintf(load, sizeof load, "%.2f s", (double)r->load_ns / 1e9);
    else
        snprintf(load, sizeof load, "not done");
    printf("| %s | %llu | %llu (%llu / %llu) | %.1f | %.0f | %llu | %s | %llu | %llu | %.1f%% | %.0f | %.0f |\n", name,
           (unsigned long long)r->renders, (unsigned long long)r->over, (unsigned long long)r->over_before,
           (unsigned long long)r->over_during,
           (double)r->longest_ns / 1e6,
           (double)r->oldest_age_ns / 1e6, (unsigned long long)r->handled, load, (unsigned long long)r->notices,
           (unsigned long long)r->keys, 100 * r->cpu_share, r->sleeps_per_s, r->switches_per_s);
}

/* The rows of a round, in the table's order. */
enum {
    NOISE_R, LOADED_R, QUIET_R, TEMPO_R, NAIVE_R, /* capped */
    NOISE_V, NOISE_J, LOADED_J, QUIET_V, TEMPO_V, LOADED_T, NORMAL_V, NAIVE_V, /* fake vsync */
    NROWS
};

/* What each row runs: the plain loop (run_plain: vsync, jit: woken
 * PLAIN_LEAD_NS before each vblank, at_tempo: at the lead of TEMPO_V in the
 * same round, loaded) or a glue (run: naive, quiet, vsync, low_priority);
 * its name in the tables; its data file for the plot (the first round's;
 * NULL: not plotted). */
static const struct row {
    const char *name, *plot;
    bool plain, naive, quiet, vsync, jit, at_tempo, loaded, low_priority;
} rows[NROWS] = {
    [NOISE_R] = {"machine noise: plain loop, 60 Hz cap", NULL, .plain = true},
    [LOADED_R] = {"machine noise under the load's threads: plain loop, 60 Hz cap", "game-cap-machine.dat", .plain = true,
                  .loaded = true},
    [QUIET_R] = {"tempo, nothing attached, 60 Hz cap", NULL, .quiet = true, .low_priority = true},
    [TEMPO_R] = {"tempo sources, 60 Hz cap", "game-cap-tempo.dat", .low_priority = true},
    [NAIVE_R] = {"naive (drain-all, sync load), 60 Hz cap", "game-cap-naive.dat", .naive = true},
    [NOISE_V] = {"machine noise: plain loop, fake vsync", NULL, .plain = true, .vsync = true},
    [NOISE_J] = {"machine noise: plain loop woken before each vblank, fake vsync", NULL, .plain = true, .vsync = true,
                 .jit = true},
    [LOADED_J] = {"machine noise under the load's threads: plain loop woken before each vblank, fake vsync",
                  "game-vsync-machine.dat", .plain = true, .vsync = true, .jit = true, .loaded = true},
    [QUIET_V] = {"tempo, nothing attached, fake vsync", NULL, .quiet = true, .vsync = true, .low_priority = true},
    [TEMPO_V] = {"tempo sources, fake vsync", "game-vsync-tempo.dat", .vsync = true, .low_priority = true},
    [LOADED_T] = {"machine noise under the load's threads: plain loop woken at tempo sources' lead, fake vsync", NULL,
                  .plain = true, .vsync = true, .at_tempo = true, .loaded = true},
    [NORMAL_V] = {"tempo sources, loader at normal priority, fake vsync", NULL, .vsync = true},
    [NAIVE_V] = {"naive (drain-all, sync load), fake vsync", "game-vsync-naive.dat", .naive = true, .vsync = true},
};

/* One round: every row, one after the other (the noise rows first, but
 * the one at Tempo's lead after the row it takes the lead from). The
 * first round (`plot`) writes the plot's data. */
static int run_round(SDL_Window *win, SDL_Renderer *ren, result *r, bool plot)
{
    static const int order[NROWS] = {NOISE_R, LOADED_R, QUIET_R, NOISE_V,  NOISE_J,  LOADED_J, QUIET_V,
                                     TEMPO_R, NAIVE_R,  TEMPO_V, LOADED_T, NORMAL_V, NAIVE_V};
    int fail = 0;
    for (int i = 0; i < NROWS; i++) {
        const struct row *w = &rows[order[i]];
        const char *file = plot ? w->plot : NULL;
        uint64_t lead = w->at_tempo ? r[TEMPO_V].lead_p50_ns : w->jit ? PLAIN_LEAD_NS : 0;
        if (w->at_tempo && lead == 0) {
            fprintf(stderr, "bench_game: tempo sources with the fake vsync kept no lead to wake the plain loop at\n");
            fail = 1;
            continue;
        }
        fail |= w->plain ? run_plain(w->vsync, lead, w->at_tempo, w->loaded, ren, file, &r[order[i]])
                         : run(w->naive, w->quiet, w->vsync, w->low_priority, win, ren, file, &r[order[i]]);
    }
    return fail;
}

static long long diff(uint64_t a, uint64_t b)
{
    return (long long)a - (long long)b;
}

static void print_round(const result *r)
{
    if (low_latency)
        printf("\nTempo's loops with desc.low_latency (--low-latency)\n");
    printf("\nbench_game (%s backend, %s video, software renderer): 60 updates/s, renders capped at 60 Hz\n"
           "or paced by a 60 Hz fake vsync (the loop presents; the present blocks to the next 1/60 s);\n"
           "at %.1f s a %d-message burst (%.1f us each) and %d PNGs of %dx%d; audio marks every 100 ms;\n"
           "a key event every 25 ms; %.0f s per glue, one after the other. \"machine noise\": no Tempo loop,\n"
           "sleep to absolute 1/60 s deadlines then render (capped), or render + fake vsync present back to back,\n"
           "or sleep to %.1f ms before each vblank first (as Tempo's pacer wakes; or to the lead Tempo's sources\n"
           "row kept, %.2f ms p50 this round); \"under the load's threads\":\n"
           "the same, while the burst's producer pushes into a queue emptied on another thread and one\n"
           "low-priority thread decodes the PNGs, which the plain loop uploads and draws as the game does\n"
           "(the glues' contention and texture work, without their scheduling)\n\n",
           tempo_backend_name(), SDL_GetCurrentVideoDriver(), (double)burst_at_ns / 1e9, n_messages,
           (double)msg_cost_ns / 1e3, n_images, IMG_SIDE, IMG_SIDE, run_s, (double)PLAIN_LEAD_NS / 1e6,
           (double)r[TEMPO_V].lead_p50_ns / 1e6);
    printf("| glue | renders | intervals > 16.7 ms (before %.1f s / burst + load) | longest ms | oldest message ms | "
           "messages | load all | audio notices | keys | CPU | sleeps/s | switches/s |\n",
           (double)burst_at_ns / 1e9);
    printf("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NROWS; i++)
        print_row(rows[i].name, &r[i]);
    printf("\nlate intervals above the machine-noise row: tempo nothing attached %+lld (cap) %+lld (vsync); "
           "tempo sources %+lld (cap) %+lld (vsync); during the burst + load: tempo sources %+lld (cap) %+lld (vsync)\n",
           diff(r[QUIET_R].over, r[NOISE_R].over), diff(r[QUIET_V].over, r[NOISE_V].over),
           diff(r[TEMPO_R].over, r[NOISE_R].over), diff(r[TEMPO_V].over, r[NOISE_V].over),
           diff(r[TEMPO_R].over_during, r[NOISE_R].over_during),
           diff(r[TEMPO_V].over_during, r[NOISE_V].over_during));
    printf("against the plain loop woken before each vblank (fake vsync): tempo nothing attached %+lld, "
           "tempo sources %+lld (during the burst + load %+lld); loader at normal priority %+lld (%+lld)\n",
           diff(r[QUIET_V].over, r[NOISE_J].over), diff(r[TEMPO_V].over, r[NOISE_J].over),
           diff(r[TEMPO_V].over_during, r[NOISE_J].over_during), diff(r[NORMAL_V].over, r[NOISE_J].over),
           diff(r[NORMAL_V].over_during, r[NOISE_J].over_during));
    printf("during the burst + load, against the plain loop under the load's threads: tempo sources %+lld (cap) "
           "%+lld (vsync); loader at normal priority %+lld\n",
           diff(r[TEMPO_R].over_during, r[LOADED_R].over_during),
           diff(r[TEMPO_V].over_during, r[LOADED_J].over_during),
           diff(r[NORMAL_V].over_during, r[LOADED_J].over_during));
    printf("against the plain loop under the load's threads woken at tempo sources' lead (fake vsync): tempo sources "
           "%+lld (during the burst + load %+lld)\n",
           diff(r[TEMPO_V].over, r[LOADED_T].over), diff(r[TEMPO_V].over_during, r[LOADED_T].over_during));
}

/* Issue 39 section 2's targets over the rounds, vsync and cap side by
 * side: Tempo's late intervals (the whole run, and the burst window) no
 * more than the plain loop's under the same threads; at most 1 in the
 * first 0.5 s of each round; the oldest message within 3 frames (50 ms)
 * in a round whose present took more than half the period, within 2
 * otherwise. Two columns more: the late intervals apart from those whose
 * own wake was over 1 ms late (count_late_wakes; capped, render()), so the
 * OS timer's share shows on both sides; with the fake vsync, both rows'
 * wakes over 1 ms late. */
/* Section 2's age target for a round: 3 frames (50 ms) when its present
 * took more than half the period, 2 otherwise. */
static bool slow_present(const result *t)
{
    return t->present_p50_ns * 2 > FRAME_NS;
}

static uint64_t age_target_ns(const result *t)
{
    return (slow_present(t) ? 3 : 2) * FRAME_NS;
}

static void print_section2(result (*res)[NROWS], int n)
{
    static const struct {
        const char *name;
        int tempo, plain;
    } pair[] = {{"fake vsync", TEMPO_V, LOADED_J},
                {"fake vsync, plain loop at Tempo's lead", TEMPO_V, LOADED_T},
                {"60 Hz cap", TEMPO_R, LOADED_R}};
    printf("\nissue 39 section 2 over %d rounds: tempo sources against the plain loop under the load's threads\n\n"
           "| pacing | late, whole run: tempo / plain | late in the burst + load: tempo / plain | first 0.5 s: tempo "
           "per round (worst) | plain | present's work p50 per round, ms | oldest message ms per round (target) | "
           "targets met | wakes over 1 ms late: tempo / plain | late, whole run, apart from those wakes: tempo / "
           "plain |\n|---|---:|---:|---|---:|---|---|---|---:|---:|\n",
           n);
    for (size_t i = 0; i < sizeof pair / sizeof pair[0]; i++) {
        uint64_t late_t = 0, late_p = 0, burst_t = 0, burst_p = 0, first_p = 0, worst_first = 0;
        uint64_t wakes_t = 0, wakes_p = 0, os_t = 0, os_p = 0; /* late wakes (fake vsync), late intervals after one */
        int age_ok = 0;
        char first[512] = "", work[512] = "", ages[512] = "";
        for (int k = 0; k < n; k++) {
            const result *t = &res[k][pair[i].tempo], *pl = &res[k][pair[i].plain];
            late_t += t->over;
            late_p += pl->over;
            wakes_t += t->late_wakes;
            wakes_p += pl->late_wakes;
            os_t += t->over_late_wake;
            os_p += pl->over_late_wake;
            burst_t += t->over_during;
            burst_p += pl->over_during;
            first_p += pl->over_before;
            worst_first = t->over_before > worst_first ? t->over_before : worst_first;
            age_ok += t->oldest_age_ns <= age_target_ns(t);
            size_t a = strlen(first), b = strlen(work), c = strlen(ages);
            snprintf(first + a, sizeof first - a, "%s%llu", k ? ", " : "", (unsigned long long)t->over_before);
            snprintf(work + b, sizeof work - b, "%s%.1f", k ? ", " : "", (double)t->present_p50_ns / 1e6);
            snprintf(ages + c, sizeof ages - c, "%s%.0f (%d)", k ? ", " : "", (double)t->oldest_age_ns / 1e6,
                     slow_present(t) ? 50 : 33);
        }
        bool late_met = late_t <= late_p && burst_t <= burst_p, first_met = worst_first <= 1, age_met = age_ok == n;
        char wakes[64] = "–", apart[64]; /* capped: Tempo's wakes are timed at its late intervals only */
        if (rows[pair[i].tempo].vsync)
            snprintf(wakes, sizeof wakes, "%llu / %llu", (unsigned long long)wakes_t, (unsigned long long)wakes_p);
        snprintf(apart, sizeof apart, "%llu / %llu", (unsigned long long)(late_t - os_t),
                 (unsigned long long)(late_p - os_p));
        printf("| %s | %llu / %llu | %llu / %llu | %s (%llu) | %llu | %s | %s | late %s, first 0.5 s %s, oldest %s "
               "(%d of %d rounds) | %s | %s |\n",
               pair[i].name, (unsigned long long)late_t, (unsigned long long)late_p, (unsigned long long)burst_t,
               (unsigned long long)burst_p, first, (unsigned long long)worst_first, (unsigned long long)first_p, work,
               ages, late_met ? "yes" : "NO", first_met ? "yes" : "NO", age_met ? "yes" : "NO", age_ok, n, wakes,
               apart);
    }
    /* Where the time went in the rounds over the age target: the drains
     * (start after the first push in ms, messages, the loop thread's time
     * off its core) and the pacer's lead, which bounds each frame's drain. */
    bool listed = false;
    for (int k = 0; k < n; k++) {
        const result *t = &res[k][TEMPO_V];
        if (t->oldest_age_ns <= age_target_ns(t))
            continue;
        if (!listed)
            printf("\nfake vsync, rounds over the age target: the burst's drains (start after the first push, ms "
                   "(messages, ms off the core)); the pacer's lead\n");
        listed = true;
        printf("  round %d: %.1f ms: %s; lead %.2f ms\n", k + 1, (double)t->oldest_age_ns / 1e6, t->drains,
               (double)t->lead_p50_ns / 1e6);
    }
}

/* --rounds N: the burst window of every round side by side. A late frame
 * there is rare (0-2 a round), so one round cannot tell a glue's from the
 * machine's: the totals over the rounds can. */
static void print_rounds(result (*res)[NROWS], int n)
{
    printf("\nthe burst + load window over %d rounds (late render intervals > 16.7 ms + 1 ms, and the oldest "
           "message's age, per round)\n\n",
           n);
    printf("| glue | late intervals per round | total | rounds with one | oldest message ms per round | "
           "oldest, worst round |\n|---|---|---:|---:|---|---:|\n");
    /* Per row, the totals over the rounds; DESIGN.md's target on the last
     * line: no more late frames than the machine under the same threads, the
     * oldest message within 2 frames. */
    uint64_t late_of[NROWS] = {0};
    int in_two[NROWS] = {0};
    for (int i = 0; i < NROWS; i++) {
        char late[512] = "", oldest[512] = "";
        uint64_t worst = 0;
        int with = 0;
        bool messages = false;
        for (int k = 0; k < n; k++) {
            const result *r = &res[k][i];
            size_t nl = strlen(late), no = strlen(oldest);
            snprintf(late + nl, sizeof late - nl, "%s%llu", k ? ", " : "", (unsigned long long)r->over_during);
            snprintf(oldest + no, sizeof oldest - no, "%s%.0f", k ? ", " : "", (double)r->oldest_age_ns / 1e6);
            late_of[i] += r->over_during;
            in_two[i] += r->oldest_age_ns <= 2 * FRAME_NS;
            with += r->over_during > 0;
            worst = r->oldest_age_ns > worst ? r->oldest_age_ns : worst;
            messages |= r->handled > 0 && r->oldest_age_ns > 0;
        }
        if (messages)
            printf("| %s | %s | %llu | %d | %s | %.0f |\n", rows[i].name, late, (unsigned long long)late_of[i], with,
                   oldest, (double)worst / 1e6);
        else
            printf("| %s | %s | %llu | %d | – | – |\n", rows[i].name, late, (unsigned long long)late_of[i], with);
    }
    printf("\nover %d rounds, during the burst + load: tempo sources %llu late (capped) against the machine under the "
           "load's threads %llu, %llu (fake vsync) against %llu; the oldest message within 2 frames (%.1f ms) in %d "
           "(capped) and %d (fake vsync) of %d rounds\n",
           n, (unsigned long long)late_of[TEMPO_R], (unsigned long long)late_of[LOADED_R],
           (unsigned long long)late_of[TEMPO_V], (unsigned long long)late_of[LOADED_J], 2 * FRAME_NS / 1e6,
           in_two[TEMPO_R], in_two[TEMPO_V], n);
    print_section2(res, n);
}

int main(int argc, char **argv)
{
    bench_default_cache(cache_dir, sizeof cache_dir, "tempo-bench-game-cache");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            n_images = 100;
            n_messages = 2000;
            run_s = 3;
        } else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
            snprintf(cache_dir, sizeof cache_dir, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            run_s = atof(argv[++i]);
        } else if (strcmp(argv[i], "--burst-at") == 0 && i + 1 < argc) {
            burst_at_ns = (uint64_t)(atof(argv[++i]) * 1e9);
        } else if (strcmp(argv[i], "--trace") == 0) {
            trace = true;
        } else if (strcmp(argv[i], "--msg-us") == 0 && i + 1 < argc) {
            msg_cost_ns = (uint64_t)(atof(argv[++i]) * 1e3);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--low-latency") == 0) {
            low_latency = true;
        } else {
            fprintf(stderr, "usage: bench_game [--quick] [--cache DIR] [--seconds N] [--msg-us N] [--trace] [--burst-at S]\n"
                            "                  [--rounds N] [--low-latency]\n");
            return 2;
        }
    }
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 0);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            printf("bench_game: no video (%s): skipped\n", SDL_GetError());
            return 0;
        }
    }
    IMG_Init(IMG_INIT_PNG);
    SDL_Window *win = SDL_CreateWindow("bench_game", 0, 0, 640, 480, 0);
    SDL_Renderer *ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE) : NULL;
    if (ren == NULL) {
        printf("bench_game: no window/renderer (%s): skipped\n", SDL_GetError());
        return 0;
    }
    generate();
    result(*res)[NROWS] = calloc((size_t)rounds, sizeof *res);
    if (res == NULL)
        return 1;
    int fail = 0;
    for (int i = 0; i < rounds; i++) {
        if (rounds > 1)
            printf("\n---- round %d of %d\n", i + 1, rounds);
        fail |= run_round(win, ren, res[i], i == 0);
        print_round(res[i]);
    }
    if (rounds > 1)
        print_rounds(res, rounds);
    free(res);

    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    free(paths);
    IMG_Quit();
    tempo_shutdown();
    SDL_Quit();
    return fail;
}
