/* Unit tests of the game loop (tempo/loop.h) on a fake clock: every instant
 * below is a number the test chooses, so the cases are exact and fast. The
 * fake clock's wait_until() lands on the deadline plus a chosen jitter, or
 * returns early like a wake-up by input, or jumps (a stall); render and
 * update callbacks may spend fake time too. Real-time behaviour is in
 * test_loop_realtime.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>

#include "harness.h"
#include "loop_internal.h"
#include "tempo/input.h"
#include "tempo/loader.h"
#include "tempo/loop.h"
#include "tempo/netq.h"
#include "tempo/tempo.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S) /* the fake clock starts here: far from 0 */

/* ---- The fake clock ------------------------------------------------------------ */

typedef struct fake_clock {
    uint64_t now;
    uint32_t rng;
    uint64_t late_max;       /* wake at deadline + uniform [0, late_max] */
    int early_percent;       /* this share of waits return halfway, like input */
    uint64_t paused_advance; /* how far a TEMPO_INFINITE wait moves time */
    uint64_t stall_at_wait;  /* the N-th wait (1-based) ... */
    uint64_t stall_ns;       /* ... lands this much later */
    uint64_t waits, infinite_waits;
    bool deadline_in_past;   /* wait_until was called with a deadline <= now */
} fake_clock;

static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static uint64_t rnd_range(uint32_t *s, uint64_t max) /* uniform [0, max] */
{
    return max ? (((uint64_t)rnd(s) << 32) | rnd(s)) % (max + 1) : 0;
}

static uint64_t fake_now(void *user)
{
    return ((fake_clock *)user)->now;
}

static void fake_wait_until(void *user, uint64_t deadline)
{
    fake_clock *c = user;
    c->waits++;
    if (deadline == TEMPO_INFINITE) {
        c->infinite_waits++;
        c->now += c->paused_advance ? c->paused_advance : S;
        return;
    }
    if (deadline <= c->now)
        c->deadline_in_past = true;
    if (c->early_percent && (int)(rnd(&c->rng) % 100) < c->early_percent) {
        c->now += (deadline - c->now) / 2;
        return;
    }
    c->now = deadline + rnd_range(&c->rng, c->late_max);
    if (c->waits == c->stall_at_wait)
        c->now += c->stall_ns;
}

static void fake_init(fake_clock *c)
{
    memset(c, 0, sizeof *c);
    c->now = T0;
    c->rng = 0x12345678u;
}

static tempo_loop_clock clock_of(fake_clock *c)
{
    return (tempo_loop_clock){fake_now, fake_wait_until, c};
}

/* ---- A small deterministic game --------------------------------------------------- */

typedef struct body {
    float x, y, vx, vy;
} body;

#define BODIES 8

typedef struct game {
    body b[BODIES];
    fake_clock *clk;
    uint64_t updates, renders, frames_seen;
    uint64_t stop_after_updates; /* quit when reached (0: never) */
    uint64_t stop_at_ns;         /* quit at this fake time (0: never) */
    uint64_t render_cost_max;    /* each render spends uniform [min, max] fake time */
    uint64_t render_cost_min;
    uint64_t update_cost;        /* each update spends this fake time */
    uint32_t rng;
    double game_time_s;
    /* observations */
    float alpha_min, alpha_max;
    bool alpha_nonzero;
    uint64_t last_update_at, last_render_at;
    uint64_t updates_at_render;
    uint64_t dt_min, dt_max;
} game;

static void game_init(game *g, fake_clock *clk)
{
    memset(g, 0, sizeof *g);
    g->clk = clk;
    g->rng = 0xC0FFEEu;
    g->alpha_min = 2.0f;
    g->alpha_max = -1.0f;
    g->dt_min = UINT64_MAX;
    for (int i = 0; i < BODIES; i++)
        g->b[i] = (body){40.0f + 70.0f * (float)i, 30.0f + 45.0f * (float)i, 90.0f - 25.0f * (float)i,
                         -40.0f + 17.0f * (float)i};
}

/* Float physics with gravity, damping and bounces: the kind of code whose
 * result depends on every rounding, so equal hashes mean equal updates. */
static void game_step(game *g, float dt)
{
    /* Scripted input: an impulse every 97th update, on a rotating body. */
    if (g->updates % 97 == 13)
        g->b[g->updates % BODIES].vy -= 300.0f;
    for (int i = 0; i < BODIES; i++) {
        body *b = &g->b[i];
        b->vy += 400.0f * dt;
        b->vx *= 1.0f - 0.01f * dt;
        b->x += b->vx * dt;
        b->y += b->vy * dt;
        if (b->x < 0 || b->x > 640) {
            b->vx = -b->vx * 0.9f;
            b->x = b->x < 0 ? -b->x : 1280 - b->x;
        }
        if (b->y > 480) {
            b->vy = -b->vy * 0.85f;
            b->y = 960 - b->y;
        }
    }
}

static uint64_t game_hash(const game *g)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    const unsigned char *p = (const unsigned char *)g->b;
    for (size_t i = 0; i < sizeof g->b; i++) {
        h ^= p[i];
        h *= 1099511628211u;
    }
    return h;
}

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    game *g = user;
    if (dt_ns < g->dt_min)
        g->dt_min = dt_ns;
    if (dt_ns > g->dt_max)
        g->dt_max = dt_ns;
    g->last_update_at = g->clk->now;
    game_step(g, (float)dt_ns * 1e-9f);
    g->updates++;
    g->game_time_s += (double)dt_ns * 1e-9;
    g->clk->now += g->update_cost;
    if (g->stop_after_updates && g->updates == g->stop_after_updates)
        tempo_loop_quit(loop);
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    game *g = user;
    if (alpha < g->alpha_min)
        g->alpha_min = alpha;
    if (alpha > g->alpha_max)
        g->alpha_max = alpha;
    if (alpha != 0.0f)
        g->alpha_nonzero = true;
    g->renders++;
    g->last_render_at = g->clk->now;
    g->updates_at_render = g->updates;
    g->clk->now += g->render_cost_min + rnd_range(&g->rng, g->render_cost_max - g->render_cost_min);
    if (g->stop_at_ns && g->clk->now >= g->stop_at_ns)
        tempo_loop_quit(loop);
}

static tempo_loop *game_loop(game *g, fake_clock *clk, tempo_loop_desc desc)
{
    desc.update = on_update;
    desc.render = on_render;
    desc.user = g;
    desc.clock = clock_of(clk);
    tempo_loop *loop = tempo_loop_create(&desc);
    CHECK(loop != NULL);
    return loop;
}

/* Runs frames until quit (or max_frames). Returns the frame count. */
static uint64_t run_frames(tempo_loop *loop, uint64_t max_frames)
{
    uint64_t n = 0;
    while (n < max_frames) {
        int r = tempo_loop_frame(loop);
        n++;
        if (r != 0) {
            CHECK_EQ_INT(r, 1);
            break;
        }
    }
    return n;
}

/* ---- Schedule arithmetic and histogram ---------------------------------------------- */

static void sched_math_is_exact(void)
{
    static const uint32_t rates[] = {1, 7, 24, 25, 30, 60, 120, 144, 1000, 99991, 100000};
    uint32_t seed = 99;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        uint32_t hz = rates[i];
        for (uint64_t k = 0; k < 2000; k++) {
            uint64_t at = tempo__sched_at(T0, hz, k);
            /* at(k) = floor(k * 1e9 / hz): exact in a double while k * 1e9 < 2^53. */
            double exact = (double)k * 1e9 / (double)hz;
            if ((uint64_t)floor(exact) != at - T0) {
                tt_fail(__FILE__, __LINE__, "hz %u k %llu: %llu vs %.3f", hz, (unsigned long long)k,
                        (unsigned long long)(at - T0), exact);
                return;
            }
            CHECK_EQ_U64(tempo__sched_count(T0, hz, at), k + 1);
            if (at > T0)
                CHECK_EQ_U64(tempo__sched_count(T0, hz, at - 1), k);
        }
        for (int j = 0; j < 2000 && !tt_failed(); j++) {
            uint64_t t = T0 + rnd_range(&seed, 5000 * S);
            uint64_t c = tempo__sched_count(T0, hz, t);
            CHECK(c >= 1);
            CHECK_LE_U64(tempo__sched_at(T0, hz, c - 1), t);
            CHECK_LT_U64(t, tempo__sched_at(T0, hz, c));
        }
    }
    CHECK_EQ_U64(tempo__sched_count(T0, 60, T0 - 1), 0);
    /* Far out: 10^12 ticks at 144 Hz (220 years) still exact, no overflow. */
    CHECK_EQ_U64(tempo__sched_at(0, 144, UINT64_C(1000000000000)), UINT64_C(6944444444444444444));
    CHECK_EQ_U64(tempo__sched_count(0, 144, UINT64_C(6944444444444444444)), UINT64_C(1000000000001));
    CHECK_EQ_U64(tempo__sched_at(0, 1, UINT64_MAX), UINT64_MAX); /* saturates */
}

static void histogram_percentiles(void)
{
    tempo__hist *h = calloc(1, sizeof *h);
    CHECK_EQ_U64(tempo__hist_percentile(h, 50), 0);
    for (uint64_t v = 1; v <= 10000; v++)
        tempo__hist_add(h, v * 1000); /* 1 us .. 10 ms */
    uint64_t p50 = tempo__hist_percentile(h, 50), p99 = tempo__hist_percentile(h, 99);
    CHECK_LE_U64(p50, 5000 * 1000 * 104 / 100);
    CHECK_GE_U64(p50, 5000 * 1000 * 96 / 100);
    CHECK_LE_U64(p99, 9900 * 1000 * 104 / 100);
    CHECK_GE_U64(p99, 9900 * 1000 * 96 / 100);
    CHECK_EQ_U64(tempo__hist_percentile(h, 100), 10000 * 1000);
    CHECK_EQ_U64(h->max, 10000 * 1000);
    tempo__hist_clear(h);
    tempo__hist_add(h, 7);
    CHECK_EQ_U64(tempo__hist_percentile(h, 50), 7); /* small values are exact */
    tempo__hist_add(h, UINT64_MAX);
    CHECK_EQ_U64(tempo__hist_percentile(h, 100), UINT64_MAX);
    free(h);
}

/* ---- Creation and settings ---------------------------------------------------------- */

static void zero_desc_means_defaults(void)
{
    tempo_loop *loop = tempo_loop_create(NULL);
    CHECK(loop != NULL);
    CHECK_EQ_INT(tempo_loop_get_policy(loop), TEMPO_LOOP_INTERPOLATED);
    CHECK_EQ_INT(tempo_loop_get_update_hz(loop), 60);
    CHECK_EQ_INT(tempo_loop_get_max_render_hz(loop), 0);
    CHECK_EQ_U64(tempo_loop_get_step_ns(loop), 16666667);
    CHECK(!tempo_loop_is_paused(loop));
    tempo_loop_destroy(loop);

    loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 25, .policy = TEMPO_LOOP_LOCKSTEP});
    CHECK_EQ_INT(tempo_loop_get_update_hz(loop), 25);
    CHECK_EQ_U64(tempo_loop_get_step_ns(loop), 40 * MS);
    CHECK_EQ_INT(tempo_loop_set_update_hz(loop, 0), TEMPO_ERANGE);
    CHECK_EQ_INT(tempo_loop_set_update_hz(loop, 100001), TEMPO_ERANGE);
    CHECK_EQ_INT(tempo_loop_set_update_hz(loop, 144), 0);
    CHECK_EQ_U64(tempo_loop_get_step_ns(loop), 6944444);
    CHECK_EQ_INT(tempo_loop_set_policy(loop, TEMPO_LOOP_POLICY_COUNT), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_set_policy(loop, TEMPO_LOOP_VARIABLE), 0);
    CHECK_EQ_INT(tempo_loop_get_policy(loop), TEMPO_LOOP_VARIABLE);
    CHECK_EQ_INT(tempo_loop_set_max_render_hz(loop, 100001), TEMPO_ERANGE);
    CHECK_EQ_INT(tempo_loop_set_max_render_hz(loop, 0), 0);
    tempo_loop_destroy(loop);

    CHECK(tempo_loop_create(&(tempo_loop_desc){.policy = (tempo_loop_policy)7}) == NULL);
    CHECK(strstr(tempo_get_error(), "policy") != NULL);
    CHECK(tempo_loop_create(&(tempo_loop_desc){.update_hz = 200000}) == NULL);
    CHECK(strstr(tempo_get_error(), "update_hz") != NULL);
    CHECK(strstr(tempo_get_error(), "max_render_hz") == NULL);
    /* The error names the field at fault, not its neighbour. */
    CHECK(tempo_loop_create(&(tempo_loop_desc){.max_render_hz = 200000}) == NULL);
    CHECK(strstr(tempo_get_error(), "max_render_hz 200000") != NULL);
    CHECK(strstr(tempo_get_error(), "update_hz") == NULL);

    CHECK_EQ_INT(tempo_loop_frame(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_quit(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_request_render(NULL), TEMPO_EINVAL);
    CHECK(tempo_loop_get_stats(NULL) == NULL);
    tempo_loop_destroy(NULL);
    CHECK_STR_EQ(tempo_loop_policy_name(TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS), "constant-speed-max-fps");
    CHECK_STR_EQ(tempo_loop_policy_name((tempo_loop_policy)-1), "?");
    CHECK_STR_EQ(tempo_loop_wake_name(TEMPO_LOOP_WAKE_MESSAGES), "input");
}

/* ---- Schedule behaviour ---------------------------------------------------------------- */

typedef struct tick_log {
    fake_clock *clk;
    uint64_t first, n;
    uint64_t bad_k, bad_at;
    uint32_t hz;
    bool early;
} tick_log;

static void log_tick(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    tick_log *t = user;
    if (t->n == 0)
        t->first = t->clk->now;
    uint64_t due = tempo__sched_at(t->first, t->hz, t->n);
    if (t->clk->now < due && !t->early) {
        t->early = true;
        t->bad_k = t->n;
        t->bad_at = t->clk->now;
    }
    t->n++;
}

static void fixed_rate_never_drifts_or_runs_early(void)
{
    /* 10 minutes at 60 Hz with jittered, sometimes early wake-ups: exactly
     * one update per tick of the exact schedule, and none before its time. */
    fake_clock clk;
    fake_init(&clk);
    clk.late_max = 900 * US;
    clk.early_percent = 20;
    tick_log log = {.clk = &clk, .hz = 60};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .render_on_demand = true, .update = log_tick, .user = &log, .clock = clock_of(&clk)});
    uint64_t end = T0 + 600 * S;
    while (clk.now < end)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t expect = tempo__sched_count(log.first, 60, clk.now);
    CHECK_EQ_U64(log.n, expect);
    CHECK(!log.early);
    if (log.early)
        tt_note("tick %llu ran at %llu", (unsigned long long)log.bad_k, (unsigned long long)log.bad_at);
    CHECK(!clk.deadline_in_past); /* the loop only sleeps toward the future */
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(s->total.updates, log.n);
    CHECK_EQ_U64(s->total.dropped_updates, 0);
    CHECK_EQ_U64(s->total.stalls, 0);
    tempo_loop_destroy(loop);
}

/* Runs the game for 10 000 updates and returns the state hash. */
static uint64_t run_fixed(tempo_loop_policy policy, uint32_t render_hz, uint64_t *renders)
{
    fake_clock clk;
    fake_init(&clk);
    clk.late_max = 2 * MS; /* sloppy wake-ups */
    clk.early_percent = 10;
    clk.rng ^= render_hz * 2654435761u; /* a different timing history per rate */
    game g;
    game_init(&g, &clk);
    g.stop_after_updates = 10000;
    g.render_cost_min = 200 * US;
    g.render_cost_max = 3 * MS;
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.policy = policy, .max_render_hz = render_hz});
    run_frames(loop, 10000000);
    CHECK_EQ_U64(g.updates, 10000);
    CHECK_EQ_U64(g.dt_min, 16666667);
    CHECK_EQ_U64(g.dt_max, 16666667);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(s->total.updates, 10000);
    CHECK_EQ_U64(s->total.dropped_updates, 0);
    if (policy == TEMPO_LOOP_INTERPOLATED)
        CHECK(g.alpha_nonzero);
    else
        CHECK(!g.alpha_nonzero);
    *renders = g.renders;
    tempo_loop_destroy(loop);
    return game_hash(&g);
}

static void same_state_at_any_render_rate(void)
{
    static const tempo_loop_policy policies[] = {TEMPO_LOOP_INTERPOLATED, TEMPO_LOOP_LOCKSTEP,
                                                 TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS};
    static const uint32_t rates[] = {15, 30, 60, 144, 0};
    uint64_t reference = 0;
    for (size_t p = 0; p < 3; p++) {
        for (size_t r = 0; r < 5; r++) {
            uint64_t renders = 0;
            uint64_t h = run_fixed(policies[p], rates[r], &renders);
            tt_note("%-22s render %3u Hz: %6llu renders, hash %016llx", tempo_loop_policy_name(policies[p]),
                    rates[r], (unsigned long long)renders, (unsigned long long)h);
            if (p == 0 && r == 0)
                reference = h;
            CHECK_EQ_U64(h, reference);
            /* The render rate really differed: 10 000 updates = 166.7 s. */
            if (policies[p] == TEMPO_LOOP_INTERPOLATED && rates[r] != 0) {
                CHECK_GE_U64(renders, (uint64_t)(rates[r] * 166.6 * 0.97));
                CHECK_LE_U64(renders, (uint64_t)(rates[r] * 166.7) + 2);
            }
            if (policies[p] == TEMPO_LOOP_LOCKSTEP) /* quit in the last update skips its render */
                CHECK_EQ_U64(renders, 9999);
            if (policies[p] == TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS)
                CHECK_LE_U64(renders, 10000);
            if (tt_failed())
                return;
        }
    }
}

/* VARIABLE: the same 166.7 s of game time at another frame rate. */
static uint64_t run_variable(uint32_t render_hz, uint64_t *updates)
{
    fake_clock clk;
    fake_init(&clk);
    clk.late_max = 500 * US;
    game g;
    game_init(&g, &clk);
    g.stop_at_ns = T0 + 10000 * UINT64_C(16666667);
    g.render_cost_min = 100 * US;
    g.render_cost_max = 100 * US;
    tempo_loop *loop =
        game_loop(&g, &clk, (tempo_loop_desc){.policy = TEMPO_LOOP_VARIABLE, .max_render_hz = render_hz});
    run_frames(loop, 10000000);
    *updates = g.updates;
    CHECK(g.dt_min != g.dt_max || render_hz == 0);
    tempo_loop_destroy(loop);
    return game_hash(&g);
}

static void variable_delta_diverges_with_frame_rate(void)
{
    uint64_t u30, u60, u144, again;
    uint64_t h30 = run_variable(30, &u30);
    uint64_t h60 = run_variable(60, &u60);
    uint64_t h144 = run_variable(144, &u144);
    uint64_t h60b = run_variable(60, &again);
    tt_note("variable: 30 Hz %llu updates hash %016llx; 60 Hz %llu %016llx; 144 Hz %llu %016llx",
            (unsigned long long)u30, (unsigned long long)h30, (unsigned long long)u60, (unsigned long long)h60,
            (unsigned long long)u144, (unsigned long long)h144);
    CHECK_NE_INT(h30 == h60, 1);
    CHECK_NE_INT(h60 == h144, 1);
    CHECK_NE_INT(h30 == h144, 1);
    CHECK_EQ_U64(h60b, h60); /* same rate, same timing: the loop itself is reproducible */
    CHECK_GE_U64(u144, 4 * u30); /* one update per frame */
}

static void slow_updates_slow_the_game_instead_of_hanging(void)
{
    /* Every update takes two steps of real time: catching up is impossible. */
    fake_clock clk;
    fake_init(&clk);
    game g;
    game_init(&g, &clk);
    g.update_cost = 2 * 16666667;
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    uint64_t max_per_frame = 0, frames_with_render = 0;
    for (int f = 0; f < 600; f++) {
        uint64_t u = g.updates, rd = g.renders;
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        if (g.updates - u > max_per_frame)
            max_per_frame = g.updates - u;
        frames_with_render += g.renders > rd;
    }
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    double elapsed_s = (double)(clk.now - T0) / 1e9;
    double game_speed = (double)g.updates / 60.0 / elapsed_s;
    tt_note("%.1f s: %llu updates (game at %.2fx), max %llu per frame, capped %llu, stalls %llu, dropped %llu",
            elapsed_s, (unsigned long long)g.updates, game_speed, (unsigned long long)max_per_frame,
            (unsigned long long)s->total.capped_frames, (unsigned long long)s->total.stalls,
            (unsigned long long)s->total.dropped_updates);
    CHECK_LE_U64(max_per_frame, 5);
    CHECK_GE_U64(frames_with_render, 590); /* it keeps drawing */
    CHECK(game_speed > 0.45 && game_speed < 0.55); /* half speed, not a spiral */
    CHECK_GE_U64(s->total.capped_frames, 1);
    /* A slow machine is no stall (issue 21 section 3): the loop ran all
     * along, the debt is kept at max_gap and the slowdown is named. */
    CHECK_EQ_U64(s->total.stalls, 0);
    CHECK_EQ_U64(s->total.dropped_updates, 0);
    CHECK_GE_U64(s->total.slowdown_ns, 4 * S);
    tempo_loop_destroy(loop);
}


/* Issue 21 section 3 (seed 004): an update that changed nothing visible
 * says so, and render on demand then skips the render; the skipped renders
 * are counted. Existing games (no call) render after every update. */
typedef struct still_game {
    uint64_t updates, renders;
    bool still; /* the menu shows nothing new */
} still_game;

static void still_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    still_game *g = user;
    g->updates++;
    if (g->still)
        CHECK_EQ_INT(tempo_loop_skip_render(loop), 0);
}

static void still_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    ((still_game *)user)->renders++;
}

static void update_without_change_skips_the_render(void)
{
    static const struct {
        tempo_loop_policy policy;
        bool on_demand;
    } cases[] = {{TEMPO_LOOP_INTERPOLATED, true}, {TEMPO_LOOP_LOCKSTEP, false},
                 {TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_clock clk;
        fake_init(&clk);
        still_game g = {0};
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .policy = cases[i].policy, .render_on_demand = cases[i].on_demand, .update = still_update,
            .render = still_render, .user = &g, .clock = clock_of(&clk)});
        while (clk.now < T0 + 1 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        uint64_t r1 = g.renders, u1 = g.updates;
        g.still = true;
        while (clk.now < T0 + 2 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        uint64_t r2 = g.renders, u2 = g.updates;
        const tempo_loop_stats *s = tempo_loop_get_stats(loop);
        uint64_t skipped = s->total.skipped_renders;
        g.still = false;
        while (clk.now < T0 + 3 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        tt_note("%s%s: moving %llu renders / %llu updates; still %llu / %llu (skipped %llu); moving again %llu",
                tempo_loop_policy_name(cases[i].policy), cases[i].on_demand ? " on demand" : "",
                (unsigned long long)r1, (unsigned long long)u1, (unsigned long long)(r2 - r1),
                (unsigned long long)(u2 - u1), (unsigned long long)skipped,
                (unsigned long long)(g.renders - r2));
        CHECK_GE_U64(r1, 59);
        CHECK_GE_U64(u2 - u1, 59); /* game time goes on */
        CHECK_LE_U64(r2 - r1, 1);  /* the frame that was owed when the menu stood still */
        CHECK_GE_U64(skipped, 58);
        CHECK_GE_U64(g.renders - r2, 59);
        tempo_loop_destroy(loop);
    }
    CHECK_EQ_INT(tempo_loop_skip_render(NULL), TEMPO_EINVAL);
}

/* The textbook deWiTTERS loop (seed 001), computed here as the reference:
 * up to max_frameskip updates while the clock is past the next tick, then
 * one render; the backlog is never dropped. Returns game time / wall time
 * over `wall_ns`. */
static double classic_loop_speed(uint64_t update_ns, uint64_t render_ns, uint32_t frameskip, uint64_t wall_ns)
{
    uint64_t step = 16666667, now = T0, next = T0, updates = 0;
    while (now < T0 + wall_ns) {
        uint32_t loops = 0;
        while (now > next && loops < frameskip) {
            now += update_ns;
            next += step;
            loops++;
            updates++;
        }
        now += render_ns; /* renders as often as it can */
        if (loops == 0 && now <= next)
            now = next + 1; /* a fast machine: the next tick (no spin on the fake clock) */
    }
    return (double)updates * (double)step / (double)(now - T0);
}

/* Issue 21 section 3: the stall clamp threw the debt away as soon as
 * renders were slower than ~83 ms (60 Hz, frameskip 5), and above ~267 ms
 * every render got one update (game at 1/5 of the classic loop's speed).
 * Now the debt is capped at max_gap: game time / wall time stays within 2%
 * of the textbook loop at every render cost. */
static void slow_renders_keep_the_classic_speed(void)
{
    static const uint64_t costs_ms[] = {5, 20, 50, 83, 100, 150, 200, 270, 300, 500};
    for (size_t i = 0; i < sizeof costs_ms / sizeof costs_ms[0]; i++) {
        for (uint32_t skip = 5; skip <= 10; skip += 5) {
            fake_clock clk;
            fake_init(&clk);
            game g;
            game_init(&g, &clk);
            g.update_cost = 100 * US;
            g.render_cost_min = g.render_cost_max = costs_ms[i] * MS;
            tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_frameskip = skip});
            while (clk.now < T0 + 20 * S)
                CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            const tempo_loop_stats *s = tempo_loop_get_stats(loop);
            double speed = g.game_time_s / ((double)(clk.now - T0) / 1e9);
            double classic = classic_loop_speed(100 * US, costs_ms[i] * MS, skip, 20 * S);
            tt_note("render %3llu ms, frameskip %2u: game/wall %.3f, classic %.3f; slowdown %.2f s, stalls %llu, "
                    "dropped %llu, capped %llu",
                    (unsigned long long)costs_ms[i], skip, speed, classic, (double)s->total.slowdown_ns / 1e9,
                    (unsigned long long)s->total.stalls, (unsigned long long)s->total.dropped_updates,
                    (unsigned long long)s->total.capped_frames);
            CHECK_LT_DBL(fabs(speed / classic - 1.0), 0.02);
            CHECK_EQ_U64(s->total.stalls, 0);
            CHECK_EQ_U64(s->total.dropped_updates, 0);
            if (speed < 0.98) {
                CHECK_GE_U64(s->total.slowdown_ns, 1);
                /* Seed 004 sleeps 2 ms even when behind; Tempo does not
                 * (loop.h, "Catch-up and stalls"): behind schedule, no
                 * frame sleeps. */
                CHECK_LE_U64(s->total.frames - s->total.wakes[TEMPO_LOOP_WAKE_DUE], 1);
            }
            tempo_loop_destroy(loop);
            if (tt_failed())
                return;
        }
    }
}

static void gap_of_30s_is_dropped_not_replayed(void)
{
    fake_clock clk;
    fake_init(&clk);
    clk.stall_at_wait = 100;
    clk.stall_ns = 30 * S;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    uint64_t max_per_frame = 0;
    uint64_t before_gap = 0, gap_frame_updates = 0;
    for (int f = 0; f < 400; f++) {
        uint64_t u = g.updates, w = clk.waits;
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        uint64_t ran = g.updates - u;
        if (ran > max_per_frame)
            max_per_frame = ran;
        if (w < 100 && clk.waits >= 100) {
            before_gap = u;
            gap_frame_updates = ran;
        }
    }
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    uint64_t after = g.updates - before_gap - gap_frame_updates;
    double after_s = (double)(clk.now - (T0 + 30 * S)) / 1e9 - (double)before_gap / 60.0;
    tt_note("gap frame ran %llu updates; dropped %llu; then %llu updates in %.2f s",
            (unsigned long long)gap_frame_updates, (unsigned long long)s->total.dropped_updates,
            (unsigned long long)after, after_s);
    CHECK_LE_U64(gap_frame_updates, 5);
    CHECK_LE_U64(max_per_frame, 5);
    CHECK_EQ_U64(s->total.stalls, 1);
    CHECK_GE_U64(s->total.dropped_updates, 1790);
    CHECK_LE_U64(s->total.dropped_updates, 1805);
    /* Afterwards the game runs at its normal rate: no fast-forward. */
    CHECK(fabs((double)after / after_s - 60.0) < 2.0);
    CHECK_GE_U64(s->total.lateness_max_ns, 30 * S);
    tempo_loop_destroy(loop);
}

typedef struct alpha_check {
    fake_clock *clk;
    uint64_t first_update_at;
    uint64_t updates;
    uint64_t renders;
    double worst_error;
    float alpha_min, alpha_max;
} alpha_check;

static void alpha_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    alpha_check *a = user;
    if (a->updates++ == 0)
        a->first_update_at = a->clk->now;
}

static void alpha_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    alpha_check *a = user;
    a->renders++;
    if (alpha < a->alpha_min)
        a->alpha_min = alpha;
    if (alpha > a->alpha_max)
        a->alpha_max = alpha;
    /* 25 Hz: update k is due at first + k * 40 ms exactly. */
    uint64_t last_due = a->first_update_at + (a->updates - 1) * 40 * MS;
    double expect = (double)(a->clk->now - last_due) / (double)(40 * MS);
    if (expect < 1.0) {
        double err = fabs(expect - (double)alpha);
        if (err > a->worst_error)
            a->worst_error = err;
    }
    a->clk->now += rnd_range(&a->clk->rng, 4 * MS); /* render cost */
}

static void alpha_is_in_unit_interval_and_exact(void)
{
    static const uint32_t caps[] = {0, 60, 144, 1000};
    for (size_t i = 0; i < 4; i++) {
        fake_clock clk;
        fake_init(&clk);
        clk.late_max = 3 * MS;
        clk.early_percent = 15;
        alpha_check a = {.clk = &clk, .alpha_min = 2, .alpha_max = -1};
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 25,
                                                                 .max_render_hz = caps[i],
                                                                 .update = alpha_update,
                                                                 .render = alpha_render,
                                                                 .user = &a,
                                                                 .clock = clock_of(&clk)});
        while (clk.now < T0 + 60 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        tt_note("cap %4u Hz: %llu renders, alpha in [%g, %g], worst error %.2g", caps[i],
                (unsigned long long)a.renders, a.alpha_min, a.alpha_max, a.worst_error);
        CHECK_GE_DBL(a.alpha_min, 0.0);
        CHECK_LT_DBL(a.alpha_max, 1.0);
        CHECK_GE_DBL(a.alpha_max, 0.9); /* the whole range is used */
        CHECK_LT_DBL(a.worst_error, 1e-6);
        tempo_loop_destroy(loop);
    }
}

static void lateness_is_measured_and_never_negative(void)
{
    fake_clock clk;
    fake_init(&clk);
    clk.late_max = 2 * MS;
    clk.early_percent = 30;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.render_on_demand = true});
    while (clk.now < T0 + 20 * S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    const tempo_loop_counts *t = &s->total;
    tt_note("lateness p50 %llu p99 %llu max %llu ns over %llu ticks", (unsigned long long)t->lateness_p50_ns,
            (unsigned long long)t->lateness_p99_ns, (unsigned long long)t->lateness_max_ns,
            (unsigned long long)t->late_samples);
    /* A negative lateness would wrap to a huge unsigned value. */
    CHECK_LE_U64(t->lateness_max_ns, 2 * MS);
    CHECK_LE_U64(t->lateness_p99_ns, t->lateness_max_ns);
    CHECK_LE_U64(t->lateness_p50_ns, t->lateness_p99_ns);
    CHECK_GE_U64(t->lateness_p50_ns, 700 * US); /* uniform 0..2 ms: median ~1 ms */
    CHECK_LE_U64(t->lateness_p50_ns, 1300 * US);
    CHECK_GE_U64(t->late_samples, t->updates - 1);
    CHECK_LE_U64(s->last_second.lateness_max_ns, 2 * MS);
    CHECK_GE_U64(s->last_second.late_samples, 55);
    tempo_loop_destroy(loop);
}

static void one_wake_per_tick_when_rates_align(void)
{
    /* update 60 Hz, render cap 60 Hz: the slots coincide, so the loop wakes
     * 60 times a second, not 120. 30/60: every other render has an update.
     * 25/60: they meet 5 times a second (every 200 ms): 25 + 60 - 5 = 80. */
    static const uint32_t ups[] = {60, 30, 25};
    static const uint32_t expect_frames[] = {60, 60, 80};
    for (int i = 0; i < 3; i++) {
        fake_clock clk;
        fake_init(&clk);
        game g;
        game_init(&g, &clk);
        tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.update_hz = ups[i], .max_render_hz = 60});
        while (clk.now < T0 + 10 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        const tempo_loop_stats *s = tempo_loop_get_stats(loop);
        tt_note("update %u / render 60: %.1f frames/s, %.1f updates/s, %.1f renders/s", ups[i],
                s->last_second.frames_per_s, s->last_second.updates_per_s, s->last_second.renders_per_s);
        CHECK(fabs(s->last_second.frames_per_s - expect_frames[i]) < 1.5);
        CHECK(fabs(s->last_second.updates_per_s - ups[i]) < 1.5);
        CHECK(fabs(s->last_second.renders_per_s - 60) < 1.5);
        CHECK_EQ_U64(s->total.wakes[TEMPO_LOOP_WAKE_DUE], 1); /* only the very first frame */
        tempo_loop_destroy(loop);
    }
}

static void policies_render_as_documented(void)
{
    /* LOCKSTEP: one render per update; CSMF: one per batch (at most one per
     * update); INTERPOLATED with a cap: the cap; render on demand: only
     * when something happened. */
    struct {
        tempo_loop_desc desc;
        double updates_per_s, renders_per_s;
    } cases[] = {
        {{.update_hz = 30, .max_render_hz = 144, .policy = TEMPO_LOOP_LOCKSTEP}, 30, 30},
        {{.update_hz = 30, .max_render_hz = 144, .policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS}, 30, 30},
        {{.update_hz = 60, .max_render_hz = 20, .policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS}, 60, 20},
        {{.update_hz = 30, .max_render_hz = 144}, 30, 144},
        {{.update_hz = 30, .max_render_hz = 144, .render_on_demand = true}, 30, 30},
        {{.update_hz = 50, .max_render_hz = 100, .policy = TEMPO_LOOP_VARIABLE}, 100, 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake_clock clk;
        fake_init(&clk);
        clk.late_max = 100 * US;
        game g;
        game_init(&g, &clk);
        tempo_loop *loop = game_loop(&g, &clk, cases[i].desc);
        while (clk.now < T0 + 5 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        const tempo_loop_counts *c = &tempo_loop_get_stats(loop)->last_second;
        tt_note("%s %u/%u%s: %.1f updates/s %.1f renders/s", tempo_loop_policy_name(cases[i].desc.policy),
                cases[i].desc.update_hz, cases[i].desc.max_render_hz,
                cases[i].desc.render_on_demand ? " on demand" : "", c->updates_per_s, c->renders_per_s);
        CHECK(fabs(c->updates_per_s - cases[i].updates_per_s) < 1.5);
        CHECK(fabs(c->renders_per_s - cases[i].renders_per_s) < 1.5);
        tempo_loop_destroy(loop);
    }
}

static void catch_up_differs_by_policy(void)
{
    /* 100 ms late at 60 Hz (under the 250 ms clamp): 7 ticks are owed.
     * CONSTANT_SPEED_MAX_FPS runs a batch of max_frameskip (5) and renders
     * once; LOCKSTEP runs one update + one render per frame, back to back;
     * INTERPOLATED batches like CSMF and renders with alpha. */
    static const tempo_loop_policy policies[] = {TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS, TEMPO_LOOP_LOCKSTEP,
                                                 TEMPO_LOOP_INTERPOLATED};
    static const uint64_t first_batch[] = {5, 1, 5};
    for (int p = 0; p < 3; p++) {
        fake_clock clk;
        fake_init(&clk);
        game g;
        game_init(&g, &clk);
        tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.policy = policies[p], .max_render_hz = 60});
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(g.updates, 1);
        clk.now += 100 * MS + 16666667; /* the next tick plus 100 ms */
        uint64_t waits = clk.waits;
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(g.updates, 1 + first_batch[p]);
        CHECK_EQ_U64(g.renders, 2);
        uint64_t frames = 1;
        while (g.updates < 8) {
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            frames++;
        }
        CHECK_EQ_U64(clk.waits, waits); /* caught up without sleeping */
        CHECK_EQ_U64(frames, policies[p] == TEMPO_LOOP_LOCKSTEP ? 7 : 2);
        /* LOCKSTEP renders with every update; the others respect the 60 Hz
         * cap, so the second catch-up frame (same instant) draws nothing. */
        CHECK_EQ_U64(g.renders, policies[p] == TEMPO_LOOP_LOCKSTEP ? 1 + frames : 2);
        const tempo_loop_stats *s = tempo_loop_get_stats(loop);
        CHECK_EQ_U64(s->total.dropped_updates, 0);
        CHECK_EQ_U64(s->total.capped_frames, policies[p] == TEMPO_LOOP_LOCKSTEP ? 6 : 1);
        CHECK_EQ_U64(s->total.wakes[TEMPO_LOOP_WAKE_DUE], 1 + frames);
        tempo_loop_destroy(loop);
        if (tt_failed()) {
            tt_note("policy %s", tempo_loop_policy_name(policies[p]));
            return;
        }
    }
}

static void request_render_draws_once(void)
{
    fake_clock clk;
    fake_init(&clk);
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.update_hz = 10, .render_on_demand = true});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* first update + render */
    CHECK_EQ_U64(g.renders, 1);
    /* Past the next display refresh (60 Hz without a window): renders
     * without a cap are paced to the display, requested ones too. */
    clk.now += 20 * MS;
    CHECK_EQ_INT(tempo_loop_request_render(loop), 0);
    CHECK_EQ_INT(tempo_loop_request_render(loop), 0); /* requests do not count */
    uint64_t waits = clk.waits;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_U64(g.renders, 2);
    CHECK_EQ_U64(g.updates, 1);
    CHECK_EQ_U64(clk.waits, waits); /* it did not sleep first */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* sleeps to the next update, renders it */
    CHECK_EQ_U64(g.updates, 2);
    CHECK_EQ_U64(g.renders, 3);
    CHECK_EQ_U64(clk.now, g.last_update_at);
    tempo_loop_destroy(loop);
}

typedef struct rate_switch {
    fake_clock *clk;
    tempo_loop *loop;
    uint64_t times[64];
    int n;
} rate_switch;

static void switch_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    rate_switch *r = user;
    if (r->n < 64)
        r->times[r->n] = r->clk->now;
    r->n++;
    if (r->n == 10)
        tempo_loop_set_update_hz(loop, 10);
    if (r->n == 20)
        tempo_loop_set_update_hz(loop, 120);
}

static void rate_change_keeps_phase_without_burst(void)
{
    fake_clock clk;
    fake_init(&clk);
    rate_switch rs = {.clk = &clk};
    tempo_loop *loop =
        tempo_loop_create(&(tempo_loop_desc){.render_on_demand = true, .update = switch_update, .user = &rs,
                                              .clock = clock_of(&clk)});
    rs.loop = loop;
    while (rs.n < 40)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_GE_U64(rs.times[9] - rs.times[8], 16666666); /* 60 Hz: floor(k * 1e9 / 60) steps */
    CHECK_LE_U64(rs.times[9] - rs.times[8], 16666667);
    CHECK_EQ_U64(rs.times[10] - rs.times[9], 100 * MS); /* first 10 Hz step after the change */
    CHECK_EQ_U64(rs.times[19] - rs.times[18], 100 * MS);
    CHECK_EQ_U64(rs.times[20] - rs.times[19], 8333333); /* 120 Hz from the last update */
    CHECK_EQ_U64(rs.times[30] - rs.times[20], 83333333);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(s->total.capped_frames, 0);
    CHECK_EQ_U64(s->total.dropped_updates, 0);
    /* Policy switches to and from VARIABLE keep going without a burst too. */
    uint64_t u = (uint64_t)rs.n;
    CHECK_EQ_INT(tempo_loop_set_policy(loop, TEMPO_LOOP_VARIABLE), 0);
    CHECK_EQ_INT(tempo_loop_set_max_render_hz(loop, 60), 0);
    for (int i = 0; i < 60; i++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(tempo_loop_set_policy(loop, TEMPO_LOOP_INTERPOLATED), 0);
    uint64_t t = clk.now, u2 = (uint64_t)rs.n;
    while (clk.now < t + S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(u2 - u >= 59 && u2 - u <= 61);
    CHECK((uint64_t)rs.n - u2 >= 119 && (uint64_t)rs.n - u2 <= 121);
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.capped_frames, 0);
    tempo_loop_destroy(loop);
}

/* ---- Quit and re-entrancy --------------------------------------------------------------- */

/* desc.on_stop: the game's shutdown, run by tempo_loop_run() once the loop
 * stopped (on the web tempo_loop_run() never returns, so a sample that
 * shuts down here runs unchanged on every backend). */
typedef struct stop_probe {
    int calls, result, frame_rc;
    tempo_loop *loop;
} stop_probe;

static void stop_quit_render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    (void)user;
    tempo_loop_quit(loop);
}

static void stop_record(tempo_loop *loop, int result, void *user)
{
    stop_probe *p = user;
    p->calls++;
    p->result = result;
    p->loop = loop;
    p->frame_rc = tempo_loop_frame(loop); /* outside every frame: 1 (quit), not TEMPO_EBUSY */
    tempo_loop_destroy(loop);             /* allowed here: run touches the loop no more */
}

static void on_stop_runs_once_after_run_and_may_destroy(void)
{
    fake_clock clk;
    fake_init(&clk);
    stop_probe p = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .render = stop_quit_render, .on_stop = stop_record, .user = &p, .clock = clock_of(&clk)});
    CHECK(loop != NULL);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    CHECK_EQ_INT(p.calls, 1);
    CHECK_EQ_INT(p.result, 0);
    CHECK(p.loop == loop);
    CHECK_EQ_INT(p.frame_rc, 1);

    /* A game driving tempo_loop_frame() itself has its own end: no on_stop. */
    stop_probe q = {0};
    loop = tempo_loop_create(&(tempo_loop_desc){
        .render = stop_quit_render, .on_stop = stop_record, .user = &q, .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 1);
    CHECK_EQ_INT(q.calls, 0);
    tempo_loop_destroy(loop);
}

static void quit_reentry(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    int *result = user;
    *result = tempo_loop_frame(loop);
    tempo_loop_quit(loop);
}

static void quit_from_callback_and_no_reentry(void)
{
    fake_clock clk;
    fake_init(&clk);
    int reentry = 0;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.render = quit_reentry, .user = &reentry,
                                                             .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 1);
    CHECK_EQ_INT(reentry, TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_frame(loop), 1); /* stays quit */
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    tempo_loop_destroy(loop);

    /* Quit inside update stops the batch: the 10 000th update is the last. */
    game g;
    fake_init(&clk);
    game_init(&g, &clk);
    g.stop_after_updates = 3;
    loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 10});
    clk.now = T0;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    clk.now += 200 * MS; /* 12 updates owed, 5 allowed: quit after the 3rd */
    CHECK_EQ_INT(tempo_loop_frame(loop), 1);
    CHECK_EQ_U64(g.updates, 3);
    CHECK_EQ_U64(g.renders, 1); /* no render after quit */
    tempo_loop_destroy(loop);
}

/* ---- Watches ---------------------------------------------------------------------------- */

typedef struct watch_log {
    int calls[4];
    tempo_handle *h[4];
    int unwatch_self_at; /* call number of h[0] at which it unwatches itself */
    bool unwatch_other;  /* h[0]'s callback unwatches h[1] */
    bool watch_new;      /* h[0]'s callback watches h[3] */
    int order[8], norder;
} watch_log;

static void on_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    watch_log *w = user;
    for (int i = 0; i < 4; i++)
        if (w->h[i] == h) {
            w->calls[i]++;
            if (w->norder < 8)
                w->order[w->norder++] = i;
            if (i == 0) {
                if (w->unwatch_self_at && w->calls[0] == w->unwatch_self_at)
                    CHECK_EQ_INT(tempo_loop_unwatch(loop, h), 0);
                if (w->unwatch_other)
                    CHECK_EQ_INT(tempo_loop_unwatch(loop, w->h[1]), 0);
                if (w->watch_new) {
                    CHECK_EQ_INT(tempo_loop_watch(loop, w->h[3], on_watch, w), 0);
                    w->watch_new = false;
                }
            }
        }
}

static void watches_fire_once_per_frame(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 10, .render_on_demand = true,
                                                             .clock = clock_of(&clk)});
    watch_log w = {0};
    w.h[0] = tempo_event_create(false, false); /* auto-reset */
    w.h[1] = tempo_event_create(true, false);  /* manual-reset */
    w.h[2] = tempo_event_create(false, false);
    w.h[3] = tempo_event_create(false, true);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(tempo_loop_watch(loop, w.h[i], on_watch, &w), 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, w.h[0], on_watch, &w), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_watch(loop, NULL, on_watch, &w), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_watch(loop, w.h[3], NULL, &w), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_unwatch(loop, w.h[3]), TEMPO_EINVAL);

    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0] + w.calls[1] + w.calls[2], 0);

    /* All three signalled: each called once, in watch order, in one frame. */
    tempo_event_set(w.h[2]);
    tempo_event_set(w.h[1]);
    tempo_event_set(w.h[0]);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0], 1);
    CHECK_EQ_INT(w.calls[1], 1);
    CHECK_EQ_INT(w.calls[2], 1);
    CHECK_EQ_INT(w.order[0], 0);
    CHECK_EQ_INT(w.order[1], 1);
    CHECK_EQ_INT(w.order[2], 2);
    /* Auto-reset signals were consumed; the manual-reset one keeps firing. */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0], 1);
    CHECK_EQ_INT(w.calls[1], 3);
    CHECK_EQ_INT(w.calls[2], 1);
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_WATCH], 3);
    tempo_event_reset(w.h[1]);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[1], 3);

    /* h[0]'s callback unwatches h[1] (signalled, later in the frame): h[1]
     * is not called; it also watches h[3] (signalled): from the next frame. */
    tempo_event_set(w.h[1]);
    tempo_event_set(w.h[0]);
    w.unwatch_other = true;
    w.watch_new = true;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0], 2);
    CHECK_EQ_INT(w.calls[1], 3);
    CHECK_EQ_INT(w.calls[3], 0);
    w.unwatch_other = false;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[3], 1);
    CHECK_EQ_INT(w.calls[1], 3);

    /* Unwatching itself from its own callback. */
    w.unwatch_self_at = 3;
    tempo_event_set(w.h[0]);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0], 3);
    tempo_event_set(w.h[0]);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(w.calls[0], 3);
    CHECK_EQ_INT(tempo_loop_unwatch(loop, w.h[0]), TEMPO_EINVAL);

    tempo_loop_destroy(loop);
    for (int i = 0; i < 4; i++)
        tempo_event_destroy(w.h[i]);
}

static void noop_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    (*(int *)user)++;
}

static void watch_limit_is_the_wait_limit_minus_two(void)
{
    CHECK_EQ_INT(TEMPO_LOOP_MAX_WATCHES, 61);
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.clock = clock_of(&clk)});
    tempo_handle *h[TEMPO_LOOP_MAX_WATCHES + 1];
    int calls = 0;
    for (int i = 0; i <= TEMPO_LOOP_MAX_WATCHES; i++)
        h[i] = tempo_event_create(false, true);
    for (int i = 0; i < TEMPO_LOOP_MAX_WATCHES; i++)
        CHECK_EQ_INT(tempo_loop_watch(loop, h[i], noop_watch, &calls), 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, h[TEMPO_LOOP_MAX_WATCHES], noop_watch, &calls), TEMPO_ETOOMANY);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(calls, TEMPO_LOOP_MAX_WATCHES); /* every one, in one frame */
    CHECK_EQ_INT(tempo_loop_unwatch(loop, h[30]), 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, h[TEMPO_LOOP_MAX_WATCHES], noop_watch, &calls), 0);
    tempo_loop_destroy(loop);
    for (int i = 0; i <= TEMPO_LOOP_MAX_WATCHES; i++)
        tempo_event_destroy(h[i]);
}

/* A game may pause its own loop from update() (an idle screen, a menu):
 * the pause takes effect after that frame, and the resume restarts the
 * schedule like any other: one update, no catch-up, no stall. */
typedef struct self_pauser {
    uint64_t updates, pause_at;
} self_pauser;

static void self_pausing_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    self_pauser *p = user;
    if (++p->updates == p->pause_at)
        CHECK_EQ_INT(tempo_loop_pause(loop, true), 0);
}

static void resume_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)h;
    (void)user;
    CHECK_EQ_INT(tempo_loop_pause(loop, false), 0);
}

static void pause_from_update_resumes_without_burst(void)
{
    for (int policy = 0; policy < TEMPO_LOOP_VARIABLE; policy++) {
        fake_clock clk;
        fake_init(&clk);
        clk.paused_advance = 100 * MS; /* six ticks: under the stall clamp */
        self_pauser p = {0, 10};
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .update_hz = 60, .max_render_hz = 60, .policy = (tempo_loop_policy)policy,
            .update = self_pausing_update, .user = &p, .clock = clock_of(&clk)});
        tempo_handle *resume = tempo_event_create(false, false);
        CHECK_EQ_INT(tempo_loop_watch(loop, resume, resume_watch, NULL), 0);
        for (int f = 0; f < 1000 && p.updates < 10; f++)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK(tempo_loop_is_paused(loop));
        /* The next frame sleeps with no timeout and is woken (like input
         * waking an idle game) by a watch that resumes: the very frame
         * that slept must restart the schedule. */
        tempo_event_set(resume);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(clk.infinite_waits, 1);
        CHECK(!tempo_loop_is_paused(loop));
        CHECK_EQ_U64(p.updates, 11); /* one update, not the six ticks slept through */
        uint64_t resumed = clk.now;
        for (int f = 0; f < 10000 && clk.now < resumed + S; f++)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK(p.updates - 11 >= 59 && p.updates - 11 <= 61);
        const tempo_loop_counts *t = &tempo_loop_get_stats(loop)->total;
        CHECK_EQ_U64(t->capped_frames, 0);
        CHECK_EQ_U64(t->stalls, 0);
        CHECK_EQ_U64(t->dropped_updates, 0);
        CHECK_EQ_U64(t->lateness_max_ns, 0); /* the fake clock wakes exactly on time */
        CHECK_GE_U64(t->paused_ns, 100 * MS);
        tt_note("%s: %llu updates in the second after the resume", tempo_loop_policy_name((tempo_loop_policy)policy),
                (unsigned long long)(p.updates - 11));
        tempo_loop_destroy(loop);
        tempo_event_destroy(resume);
    }
}

/* ---- Events: pause, focus, quit (needs SDL's event queue, no video) --------------------- */

static bool events_ok;

static void push_window_event(Uint8 what)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = what;
    e.window.windowID = 1;
    CHECK_EQ_INT(SDL_PushEvent(&e), 1);
}

typedef struct event_count {
    int window, quit, other;
} event_count;

static void count_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    event_count *c = user;
    if (e->type == SDL_WINDOWEVENT)
        c->window++;
    else if (e->type == SDL_QUIT)
        c->quit++;
    else
        c->other++;
}

static void pause_when_minimized_and_no_burst_on_resume(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    fake_clock clk;
    fake_init(&clk);
    clk.paused_advance = 10 * S;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    while (clk.now < T0 + S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t u = g.updates, r = g.renders;

    push_window_event(SDL_WINDOWEVENT_MINIMIZED);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* sees the event: paused */
    CHECK(tempo_loop_is_paused(loop));
    u = g.updates;
    r = g.renders;
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* 30 s asleep, no timeout */
    CHECK_EQ_U64(clk.infinite_waits, 3);
    CHECK_EQ_U64(g.updates, u);
    CHECK_EQ_U64(g.renders, r);
    CHECK(tempo_loop_get_stats(loop)->paused);

    push_window_event(SDL_WINDOWEVENT_RESTORED);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(!tempo_loop_is_paused(loop));
    CHECK_EQ_U64(g.updates, u + 1); /* one update, not 30 s of them */
    CHECK_EQ_U64(g.renders, r + 1);
    uint64_t resume = clk.now;
    while (clk.now < resume + S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(g.updates - u >= 60 && g.updates - u <= 62);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(s->total.dropped_updates, 0);
    CHECK_EQ_U64(s->total.stalls, 0);
    CHECK_GE_U64(s->total.paused_ns, 30 * S);
    tempo_loop_destroy(loop);
}

/* A minimized window that gets keyboard focus back is shown again, even
 * when no RESTORED comes: SDL3 (sdl2-compat) on Wayland sends only
 * FOCUS_GAINED when weston's switcher brings the window back (issue 36,
 * item 9: the loop stayed paused in a visible, focused window). */
static void focus_gained_ends_the_minimized_pause(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    fake_clock clk;
    fake_init(&clk);
    clk.paused_advance = S;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    while (clk.now < T0 + S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    push_window_event(SDL_WINDOWEVENT_MINIMIZED);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(tempo_loop_is_paused(loop));
    uint64_t u = g.updates;
    push_window_event(SDL_WINDOWEVENT_FOCUS_GAINED);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(!tempo_loop_is_paused(loop));
    uint64_t resume = clk.now;
    while (clk.now < resume + S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(g.updates - u >= 60 && g.updates - u <= 62);
    tempo_loop_destroy(loop);
}

/* desc.run_while_hidden (issue 19, item 8): minimized or hidden, the loop
 * keeps its schedule; the default still pauses. */
static void run_while_hidden_keeps_ticking(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    for (int run = 0; run < 2; run++) {
        fake_clock clk;
        fake_init(&clk);
        clk.paused_advance = S;
        game g;
        game_init(&g, &clk);
        tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60, .run_while_hidden = run});
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        static const Uint8 hide[] = {SDL_WINDOWEVENT_MINIMIZED, SDL_WINDOWEVENT_HIDDEN};
        static const Uint8 show[] = {SDL_WINDOWEVENT_RESTORED, SDL_WINDOWEVENT_SHOWN};
        for (int k = 0; k < 2; k++) {
            push_window_event(hide[k]);
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            CHECK_EQ_INT(tempo_loop_is_paused(loop), !run);
            uint64_t u = g.updates, start = clk.now;
            while (clk.now < start + S)
                CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            if (run)
                CHECK(g.updates - u >= 59 && g.updates - u <= 61); /* a second of ticks */
            else
                CHECK_EQ_U64(g.updates, u);
            push_window_event(show[k]);
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            CHECK(!tempo_loop_is_paused(loop));
        }
        /* The game's own pause still pauses it. */
        CHECK_EQ_INT(tempo_loop_pause(loop, true), 0);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK(tempo_loop_is_paused(loop));
        tempo_loop_destroy(loop);
    }
}

static void focus_loss_pauses_only_when_asked(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    for (int ask = 0; ask < 2; ask++) {
        fake_clock clk;
        fake_init(&clk);
        game g;
        game_init(&g, &clk);
        tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.pause_on_focus_loss = ask});
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        push_window_event(SDL_WINDOWEVENT_FOCUS_LOST);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_INT(tempo_loop_is_paused(loop), ask);
        push_window_event(SDL_WINDOWEVENT_FOCUS_GAINED);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK(!tempo_loop_is_paused(loop));
        /* The game's own pause works the same way. */
        CHECK_EQ_INT(tempo_loop_pause(loop, true), 0);
        uint64_t u = g.updates;
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(g.updates, u);
        CHECK_EQ_INT(tempo_loop_pause(loop, false), 0);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(g.updates, u + 1);
        tempo_loop_destroy(loop);
    }
}

static void events_reach_the_game_and_sdl_quit_ends_the_loop(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    fake_clock clk;
    fake_init(&clk);
    event_count c = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 1, .render_on_demand = true,
                                                             .event = count_event, .user = &c,
                                                             .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t renders0 = tempo_loop_get_stats(loop)->total.renders;
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.scancode = SDL_SCANCODE_A;
    CHECK_EQ_INT(SDL_PushEvent(&e), 1);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(c.other, 1);
    /* Render on demand: an event is reason enough to draw. */
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.renders, renders0 + 1);
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_MESSAGES], 1);
    SDL_zero(e);
    e.type = SDL_QUIT;
    CHECK_EQ_INT(SDL_PushEvent(&e), 1);
    CHECK_EQ_INT(tempo_loop_frame(loop), 1);
    CHECK_EQ_INT(c.quit, 1);
    tempo_loop_destroy(loop);
}

/* ---- Input: buffered per frame, stamped with the wake time ------------------------------- */

typedef struct input_game {
    fake_clock *clk;
    tempo_input *in;
    uint64_t woke_at;        /* when the last wait_until returned */
    uint64_t callback_cost;  /* fake time each event callback spends */
    int events_seen;         /* SDL events the callback got, input or not */
    uint32_t queued_at_callback[16]; /* ring depth when the callback saw input event i */
    int ncallback_inputs;
    tempo_input_event got[16]; /* read by update(), in order */
    uint64_t read_at[16];      /* the fake time of the update that read it */
    int ngot;
    int updates;
} input_game;

static uint64_t input_game_now(void *user)
{
    return ((input_game *)user)->clk->now;
}

static void input_game_wait(void *user, uint64_t deadline)
{
    input_game *ig = user;
    fake_wait_until(ig->clk, deadline);
    ig->woke_at = ig->clk->now;
}

static void input_game_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    input_game *ig = user;
    ig->events_seen++;
    if (e->type == SDL_KEYDOWN || e->type == SDL_KEYUP || e->type == SDL_MOUSEMOTION) {
        tempo_input_stats st;
        CHECK_EQ_INT(tempo_input_get_stats(ig->in, &st), 0);
        if (ig->ncallback_inputs < 16)
            ig->queued_at_callback[ig->ncallback_inputs++] = st.queued;
    }
    ig->clk->now += ig->callback_cost; /* a slow callback must not move later stamps */
}

static void input_game_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    input_game *ig = user;
    ig->updates++;
    tempo_input_event ev;
    while (tempo_input_poll(ig->in, &ev) > 0) {
        if (ig->ngot < 16) {
            ig->read_at[ig->ngot] = ig->clk->now;
            ig->got[ig->ngot++] = ev;
        }
    }
}

static void push_key(SDL_EventType type, SDL_Scancode sc)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = type;
    e.key.state = type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED;
    e.key.keysym.scancode = sc;
    CHECK_EQ_INT(SDL_PushEvent(&e), 1);
}

static void push_motion(int x, int y)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = x;
    e.motion.y = y;
    e.motion.xrel = 3;
    CHECK_EQ_INT(SDL_PushEvent(&e), 1);
}

static void input_reaches_the_ring_with_the_wake_time(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    fake_clock clk;
    fake_init(&clk);
    input_game ig;
    memset(&ig, 0, sizeof ig);
    ig.clk = &clk;
    ig.in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    CHECK(ig.in != NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 100, .max_render_hz = 100, .event = input_game_event, .update = input_game_update,
        .user = &ig,
        .clock = {input_game_now, input_game_wait, &ig}, .input = ig.in});
    CHECK(loop != NULL);
    if (tt_failed())
        return;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* T0: the first update, nothing queued */
    CHECK_EQ_INT(ig.updates, 1);
    CHECK_EQ_INT(ig.ngot, 0);

    /* Three input events and one that is not input, then a frame: the wait
     * returns at the next tick (T0 + 10 ms), the events are stamped with
     * that instant even though each callback spends 1 ms, and that frame's
     * update reads them in order. */
    ig.callback_cost = 1 * MS;
    push_key(SDL_KEYDOWN, SDL_SCANCODE_A);
    push_motion(10, 20);
    SDL_Event user_ev;
    SDL_zero(user_ev);
    user_ev.type = SDL_USEREVENT;
    CHECK_EQ_INT(SDL_PushEvent(&user_ev), 1);
    push_key(SDL_KEYUP, SDL_SCANCODE_A);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t wake1 = ig.woke_at;
    CHECK_EQ_U64(wake1, T0 + 10 * MS);
    CHECK_EQ_INT(ig.events_seen, 4);    /* the callback still sees everything */
    CHECK_EQ_INT(ig.ncallback_inputs, 3);
    CHECK_EQ_INT(ig.queued_at_callback[0], 1); /* already in the ring when the callback runs */
    CHECK_EQ_INT(ig.queued_at_callback[1], 2);
    CHECK_EQ_INT(ig.queued_at_callback[2], 3);
    CHECK_EQ_INT(ig.updates, 2);
    CHECK_EQ_INT(ig.ngot, 3);
    if (tt_failed())
        goto out;
    CHECK_EQ_INT(ig.got[0].type, TEMPO_INPUT_KEY);
    CHECK_EQ_INT(ig.got[0].u.key.scancode, SDL_SCANCODE_A);
    CHECK_EQ_INT(ig.got[0].u.key.down, 1);
    CHECK_EQ_INT(ig.got[1].type, TEMPO_INPUT_MOUSE_MOTION);
    CHECK_EQ_INT(ig.got[1].u.motion.x, 10);
    CHECK_EQ_INT(ig.got[1].u.motion.dx, 3);
    CHECK_EQ_INT(ig.got[2].type, TEMPO_INPUT_KEY);
    CHECK_EQ_INT(ig.got[2].u.key.down, 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_U64(ig.got[i].time_ns, wake1);
        CHECK_EQ_U64(ig.read_at[i], wake1 + 4 * MS); /* after the four callbacks */
    }

    /* Input that wakes the loop between ticks stays in the ring until the
     * next update, each batch with its own wake time. */
    ig.callback_cost = 0;
    clk.early_percent = 100; /* the wait returns halfway, as for real input */
    push_key(SDL_KEYDOWN, SDL_SCANCODE_B);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t wake2 = ig.woke_at;
    CHECK(wake2 > wake1 + 4 * MS && wake2 < T0 + 20 * MS);
    CHECK_EQ_INT(ig.updates, 2); /* no update due: the event waits in the ring */
    CHECK_EQ_INT(ig.ngot, 3);
    clk.early_percent = 0;
    push_key(SDL_KEYUP, SDL_SCANCODE_B);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    uint64_t wake3 = ig.woke_at;
    CHECK_EQ_U64(wake3, T0 + 20 * MS);
    CHECK_EQ_INT(ig.updates, 3);
    CHECK_EQ_INT(ig.ngot, 5);
    CHECK_EQ_INT(ig.got[3].u.key.scancode, SDL_SCANCODE_B);
    CHECK_EQ_U64(ig.got[3].time_ns, wake2);
    CHECK_EQ_INT(ig.got[4].u.key.down, 0);
    CHECK_EQ_U64(ig.got[4].time_ns, wake3);
    tempo_input_stats st;
    CHECK_EQ_INT(tempo_input_get_stats(ig.in, &st), 0);
    CHECK_EQ_U64(st.pushed, 5);
    CHECK_EQ_U64(st.delivered, 5);
    CHECK_EQ_U64(st.dropped, 0);
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_MESSAGES], 3);
out:
    tempo_loop_destroy(loop);
    tempo_input_destroy(ig.in);
}

/* Without desc.input the loop buffers nothing: the callback alone gets the
 * events, and a tempo_input the game owns is left alone. */
static void no_input_field_means_no_buffering(void)
{
    if (!events_ok)
        TT_SKIP("SDL events unavailable");
    SDL_FlushEvents(SDL_FIRSTEVENT, SDL_LASTEVENT);
    fake_clock clk;
    fake_init(&clk);
    input_game ig;
    memset(&ig, 0, sizeof ig);
    ig.clk = &clk;
    ig.in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 100, .max_render_hz = 100, .event = input_game_event, .update = input_game_update,
        .user = &ig,
        .clock = {input_game_now, input_game_wait, &ig}});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    push_key(SDL_KEYDOWN, SDL_SCANCODE_C);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(ig.events_seen, 1);
    CHECK_EQ_INT(ig.ngot, 0);
    tempo_input_stats st;
    CHECK_EQ_INT(tempo_input_get_stats(ig.in, &st), 0);
    CHECK_EQ_U64(st.pushed, 0);
    tempo_loop_destroy(loop);
    tempo_input_destroy(ig.in);
}

/* ---- Statistics ---------------------------------------------------------------------------- */

static void statistics_add_up(void)
{
    fake_clock clk;
    fake_init(&clk);
    clk.late_max = 200 * US;
    game g;
    game_init(&g, &clk);
    g.render_cost_min = 1 * MS;
    g.render_cost_max = 1 * MS;
    g.update_cost = 2 * MS;
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.update_hz = 50, .max_render_hz = 100});
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.frames, 0); /* before the first frame */
    while (clk.now < T0 + 3 * S + 5 * MS)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    const tempo_loop_counts *w = &s->last_second, *t = &s->total;
    uint64_t wakes = 0;
    for (int i = 0; i < TEMPO_LOOP_WAKE_COUNT; i++)
        wakes += t->wakes[i];
    CHECK_EQ_U64(wakes, t->frames);
    CHECK_EQ_U64(t->updates, g.updates);
    CHECK_EQ_U64(t->renders, g.renders);
    CHECK(fabs(w->wait_share + w->game_share + w->loop_share - 1.0) < 1e-9);
    /* Per second: 50 updates x 2 ms + 100 renders x 1 ms = 20% in the game;
     * on a fake clock the loop itself costs nothing. */
    CHECK(fabs(w->game_share - 0.20) < 0.01);
    CHECK_EQ_U64(w->loop_ns, 0);
    CHECK(w->elapsed_ns >= S && w->elapsed_ns < S + 20 * MS);
    CHECK(fabs(w->updates_per_s - 50) < 1.1);
    CHECK_EQ_U64(t->elapsed_ns, clk.now - T0);
    /* The history ring: renders every 10 ms, but every other one comes
     * after a 2 ms update, so intervals alternate 12 / 8 ms (+ jitter); the
     * loop is awake 1 ms (render) or 3 ms (update + render) of each. */
    CHECK_EQ_INT(s->history_count, TEMPO_LOOP_HISTORY);
    uint64_t sum = 0;
    for (int i = 0; i < TEMPO_LOOP_HISTORY && !tt_failed(); i++) {
        CHECK(s->interval_ns[i] >= 8 * MS - 200 * US && s->interval_ns[i] <= 12 * MS + 200 * US);
        CHECK(s->busy_ns[i] >= 1 * MS && s->busy_ns[i] <= 3 * MS);
        sum += s->interval_ns[i];
    }
    CHECK(sum / TEMPO_LOOP_HISTORY >= 10 * MS - 100 * US && sum / TEMPO_LOOP_HISTORY <= 10 * MS + 100 * US);
    tempo_loop_destroy(loop);
}

/* ---- Next due time (for sources that fill the idle time) ------------------------------------ */

typedef struct due_probe {
    fake_clock *clk;
    uint64_t last_deadline; /* what the loop asked the clock to wait for */
} due_probe;

static void due_wait_until(void *user, uint64_t deadline)
{
    due_probe *p = user;
    p->last_deadline = deadline;
    fake_wait_until(p->clk, deadline);
}

static uint64_t due_now(void *user)
{
    return ((due_probe *)user)->clk->now;
}

static void next_due_is_the_next_tick_or_render(void)
{
    CHECK_EQ_U64(tempo_loop_next_due_ns(NULL), TEMPO_INFINITE);
    fake_clock clk;
    fake_init(&clk);
    due_probe probe = {&clk, 0};
    /* 25 Hz updates, renders capped at 60 Hz: ticks every 40 ms, render
     * slots every 16.67 ms, both from the first frame's time. */
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 25, .max_render_hz = 60, .clock = {due_now, due_wait_until, &probe}});
    CHECK_EQ_U64(tempo_loop_next_due_ns(loop), T0); /* before the first frame: now */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    for (int f = 0; f < 200 && !tt_failed(); f++) {
        /* Every due tick and slot ran at clk.now: the next ones lie after it. */
        uint64_t tick = tempo__sched_at(T0, 25, tempo__sched_count(T0, 25, clk.now));
        uint64_t slot = tempo__sched_at(T0, 60, tempo__sched_count(T0, 60, clk.now));
        uint64_t due = tempo_loop_next_due_ns(loop);
        CHECK_EQ_U64(due, tick < slot ? tick : slot);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        CHECK_EQ_U64(probe.last_deadline, due); /* and that is when the loop woke */
        CHECK_EQ_U64(clk.now, due);
    }
    /* One wake per distinct instant: every 200 ms, 5 ticks + 12 slots with
     * one shared, so 200 wakes take 12.5 periods. */
    CHECK_EQ_U64(clk.now, T0 + 2500 * MS);
    /* Paused: nothing is scheduled. */
    CHECK_EQ_INT(tempo_loop_pause(loop, true), 0);
    CHECK_EQ_U64(tempo_loop_next_due_ns(loop), TEMPO_INFINITE);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_U64(probe.last_deadline, TEMPO_INFINITE);
    CHECK_EQ_U64(tempo_loop_next_due_ns(loop), TEMPO_INFINITE);
    CHECK_EQ_INT(tempo_loop_pause(loop, false), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* resumes: one update and render at once */
    CHECK(tempo_loop_next_due_ns(loop) > clk.now);
    CHECK(tempo_loop_next_due_ns(loop) != TEMPO_INFINITE);
    tempo_loop_destroy(loop);
}

/* A clock whose waits return after at most 1 ms, as when a watched handle
 * that stays signalled keeps waking the loop. */
static uint64_t step_now(void *user)
{
    return *(uint64_t *)user;
}

static void step_wait_until(void *user, uint64_t deadline)
{
    uint64_t *now = user;
    if (deadline == TEMPO_INFINITE || deadline > *now + MS)
        *now += MS;
    else if (deadline > *now)
        *now = deadline;
}

/* ---- Sources ------------------------------------------------------------------------------ */

/* A source with `work` units, each costing `cost` of fake time; it handles
 * units until its deadline (at least one when the loop says must_progress)
 * and records what the loop gave it. */
typedef struct probe_source {
    uint64_t *now;
    uint64_t work, cost;
    bool ignore_deadline;  /* one unit per call, whatever the time */
    int calls, forced_calls;
    uint64_t items;
    uint64_t last_deadline, last_frame;
    int fail_at_call;      /* return TEMPO_EIO at this call (1-based), 0: never */
    int detached;
    tempo_loop *remove_self_loop;
    tempo_handle *handle;
    tempo_handle *remove_other; /* removed (with remove_self_loop) at the first call */
} probe_source;

static int probe_dispatch(void *self, tempo_source_call *call)
{
    probe_source *p = self;
    p->calls++;
    p->last_deadline = call->deadline_ns;
    p->last_frame = call->frame;
    if (p->fail_at_call && p->calls == p->fail_at_call)
        return TEMPO_EIO;
    if (p->remove_self_loop)
        CHECK_EQ_INT(tempo_loop_remove_source(p->remove_self_loop, p->handle), TEMPO_EBUSY);
    if (p->remove_other) {
        CHECK_EQ_INT(tempo_loop_remove_source(p->remove_self_loop, p->remove_other), 0);
        p->remove_other = NULL;
    }
    if (call->must_progress)
        p->forced_calls++;
    while (p->work > 0) {
        if (!(call->must_progress && call->items == 0) && (p->ignore_deadline || *p->now >= call->deadline_ns))
            break;
        if (!call->must_progress && call->items == 0 && *p->now + p->cost > call->deadline_ns)
            break;
        *p->now += p->cost;
        p->work--;
        p->items++;
        call->items++;
        if (p->ignore_deadline)
            break;
    }
    return p->work > 0 ? 1 : 0;
}

static void probe_detach(void *self)
{
    ((probe_source *)self)->detached++;
}

static void source_api_rules(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.clock = clock_of(&clk)});
    tempo_handle *h = tempo_event_create(true, false);
    tempo_handle *h2 = tempo_event_create(false, false);
    probe_source p = {.now = &clk.now, .handle = h};
    tempo_source_desc d = {.name = "probe", .handle = h, .dispatch = probe_dispatch, .detach = probe_detach, .self = &p};
    CHECK_EQ_INT(tempo_loop_add_source(NULL, &d), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_add_source(loop, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.handle = h}), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &d), 0);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &d), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_watch(loop, h, noop_watch, NULL), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_unwatch(loop, h), TEMPO_EINVAL); /* a source is not a watch */
    CHECK_EQ_INT(tempo_loop_remove_source(loop, h2), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(p.calls, 0); /* nothing signalled */

    /* Its own dispatch cannot remove it (detach would free what runs). */
    p.work = 1;
    p.cost = MS;
    p.remove_self_loop = loop;
    tempo_event_set(h);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(p.calls, 1);
    CHECK_EQ_U64(p.items, 1);
    p.remove_self_loop = NULL;
    tempo_event_reset(h);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    CHECK_EQ_INT(st->source_count, 1);
    CHECK_STR_EQ(st->sources[0].name, "probe");
    CHECK_EQ_U64(st->sources[0].total.calls, 1);
    CHECK_EQ_U64(st->sources[0].total.items, 1);
    CHECK_EQ_U64(st->sources[0].total.busy_ns, MS);

    /* A failing dispatch: the frame reports it and the source is gone. */
    p.fail_at_call = 2;
    p.work = 1;
    tempo_event_set(h);
    CHECK_EQ_INT(tempo_loop_frame(loop), TEMPO_EIO);
    CHECK_EQ_INT(p.detached, 1);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    CHECK_EQ_INT(tempo_loop_remove_source(loop, h), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);

    /* Remove runs detach; destroy detaches what is left. */
    probe_source q = {.now = &clk.now};
    tempo_source_desc d2 = {.handle = h2, .dispatch = probe_dispatch, .detach = probe_detach, .self = &q};
    CHECK_EQ_INT(tempo_loop_add_source(loop, &d2), 0);
    CHECK_STR_EQ(tempo_loop_get_stats(loop)->sources[0].name, "source");
    CHECK_EQ_INT(tempo_loop_remove_source(loop, h2), 0);
    CHECK_EQ_INT(q.detached, 1);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &d2), 0);
    tempo_loop_destroy(loop);
    CHECK_EQ_INT(q.detached, 2);

    /* A dispatch that removes an earlier source: the counters of the
     * running one still land on it (the array moved under it). */
    loop = tempo_loop_create(&(tempo_loop_desc){.clock = clock_of(&clk)});
    probe_source first = {.now = &clk.now}, second = {.now = &clk.now, .work = 3, .cost = MS};
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "first", .handle = h, .dispatch = probe_dispatch,
                                                                    .detach = probe_detach, .self = &first}),
                 0);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "second", .handle = h2,
                                                                    .dispatch = probe_dispatch, .self = &second}),
                 0);
    second.remove_self_loop = loop;
    second.handle = h2;
    second.remove_other = h;
    tempo_event_set(h2);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(first.detached, 1);
    st = tempo_loop_get_stats(loop);
    CHECK_EQ_INT(st->source_count, 1);
    CHECK_STR_EQ(st->sources[0].name, "second");
    CHECK_EQ_U64(st->sources[0].total.calls, 1);
    CHECK_EQ_U64(st->sources[0].total.items, second.items);
    tempo_loop_destroy(loop);

    /* The source limit. */
    loop = tempo_loop_create(&(tempo_loop_desc){.clock = clock_of(&clk)});
    tempo_handle *many[TEMPO_LOOP_MAX_SOURCES + 1];
    for (int i = 0; i <= TEMPO_LOOP_MAX_SOURCES; i++) {
        many[i] = tempo_event_create(false, false);
        tempo_source_desc di = {.handle = many[i], .dispatch = probe_dispatch, .self = &q};
        CHECK_EQ_INT(tempo_loop_add_source(loop, &di), i < TEMPO_LOOP_MAX_SOURCES ? 0 : TEMPO_ETOOMANY);
    }
    tempo_loop_destroy(loop);
    for (int i = 0; i <= TEMPO_LOOP_MAX_SOURCES; i++)
        tempo_event_destroy(many[i]);
    tempo_event_destroy(h);
    tempo_event_destroy(h2);
}

static void source_with_work_is_parked_until_the_next_frame(void)
{
    /* A source that always has work (0.1 ms a unit) behind a handle left
     * set: with a watch it would be called at every 1 ms wake-up of this
     * clock (snooze was the game's job). The loop gives it the time until
     * the next frame, then parks it: one call per frame fills the idle
     * time. Both kinds of handle (an auto-reset one is consumed by the
     * wait, yet the source still reported work). */
    for (int manual = 0; manual < 2; manual++) {
        uint64_t now = T0;
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .update_hz = 60, .max_render_hz = 60, .clock = {step_now, step_wait_until, &now}});
        tempo_handle *h = tempo_event_create(manual, true);
        probe_source p = {.now = &now, .work = UINT64_MAX, .cost = 100 * US};
        CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "busy", .handle = h,
                                                                        .dispatch = probe_dispatch, .self = &p}),
                     0);
        while (now < T0 + S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        tt_note("%s handle, 1 s: %d calls (%d with must_progress), %llu items, %llu updates, %llu frames",
                manual ? "manual" : "auto", p.calls, p.forced_calls, (unsigned long long)p.items,
                (unsigned long long)st->total.updates, (unsigned long long)st->total.frames);
        /* It fills the idle time (16.7 ms per frame at 0.1 ms a unit)... */
        CHECK_GE_U64(p.items, 9000);
        /* ...in few calls: never a wake-up with nothing to do. */
        CHECK_LE_INT(p.calls, 3 * 61);
        CHECK_GE_INT(p.forced_calls, 59);
        CHECK_LE_U64(st->total.frames, 4 * 61);
        CHECK(st->total.updates >= 60 && st->total.updates <= 61);
        tempo_loop_destroy(loop);
        tempo_event_destroy(h);
    }
}

/* The overlay grows a line per source (plus a heading) and draws them. */
static void overlay_shows_each_source(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.max_render_hz = 60, .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_stats_height(loop), TEMPO_LOOP_STATS_H);
    CHECK_EQ_INT(tempo_loop_stats_height(NULL), TEMPO_LOOP_STATS_H);
    tempo_handle *h = tempo_event_create(true, true);
    probe_source p = {.now = &clk.now, .work = 100000, .cost = 100 * US};
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "probe", .handle = h,
                                                                    .dispatch = probe_dispatch, .self = &p}),
                 0);
    while (clk.now < T0 + 2 * S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    int height = tempo_loop_stats_height(loop);
    CHECK_EQ_INT(height, TEMPO_LOOP_STATS_H + 2 * TEMPO_LOOP_STATS_SOURCE_H);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    CHECK_GE_U64(st->sources[0].last_second.items, 9000); /* the source's last second */
    CHECK_GE_U64(st->sources[0].last_second.calls, 59);

    SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, TEMPO_LOOP_STATS_W, height, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
    if (r == NULL) {
        tempo_loop_destroy(loop);
        tempo_event_destroy(h);
        SDL_FreeSurface(surf);
        TT_SKIP("no software renderer");
    }
    SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
    SDL_RenderClear(r);
    CHECK_EQ_INT(tempo_loop_draw_stats(loop, r, 0, 0), 0);
    SDL_RenderPresent(r);
    /* Something bright (text) in each source line: not only the panel. */
    int lit[2] = {0, 0};
    for (int line = 0; line < 2; line++)
        for (int y = TEMPO_LOOP_STATS_H + line * TEMPO_LOOP_STATS_SOURCE_H;
             y < TEMPO_LOOP_STATS_H + (line + 1) * TEMPO_LOOP_STATS_SOURCE_H; y++)
            for (int x = 0; x < TEMPO_LOOP_STATS_W; x++) {
                Uint32 px = ((Uint32 *)surf->pixels)[y * (surf->pitch / 4) + x];
                if (((px >> 16) & 0xff) > 120 && ((px >> 8) & 0xff) > 120)
                    lit[line]++;
            }
    CHECK_GE_INT(lit[0], 20);
    CHECK_GE_INT(lit[1], 20);
    if (getenv("TEMPO_TEST_BMP"))
        SDL_SaveBMP(surf, getenv("TEMPO_TEST_BMP"));
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    tempo_loop_destroy(loop);
    tempo_event_destroy(h);
}

/* The overlay scales to the window (issue 19, item 12): the layout rule as
 * a pure function, then the panel drawn on a 2560x1440 target. */
static Uint32 pixel_at(SDL_Surface *surf, int x, int y)
{
    return ((Uint32 *)surf->pixels)[y * (surf->pitch / 4) + x] & 0xffffff;
}

static void overlay_scales_to_the_window(void)
{
    const int W = TEMPO_LOOP_STATS_W, H = TEMPO_LOOP_STATS_H;
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(1280, 720, W, H), 1);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(1920, 1080, W, H), 1);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(2400, 1080, W, H), 2);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(2560, 1440, W, H), 2);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(3840, 2160, W, H), 3);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(7680, 4320, W, H), 6);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(3840, 800, W, H), 1);       /* the height limits */
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(2560, 1440, W, H + 17 * 12), 1); /* many sources */
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(320, 240, W, H), 1);        /* never below 1 */
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(0, 0, W, H), 1);
    CHECK_EQ_INT(tempo_loop_stats_fit_scale(1 << 30, 1 << 30, W, H), 16); /* capped */
    CHECK_EQ_INT(tempo_loop_stats_scale(NULL, NULL), 1);

    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.max_render_hz = 60, .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, 2560, 1440, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
    if (r == NULL) {
        tempo_loop_destroy(loop);
        SDL_FreeSurface(surf);
        TT_SKIP("no software renderer");
    }
    CHECK_EQ_INT(tempo_loop_stats_scale(loop, r), 2);
    SDL_SetRenderDrawColor(r, 0, 0, 0, 255);
    SDL_RenderClear(r);
    CHECK_EQ_INT(tempo_loop_draw_stats(loop, r, 0, 0), 0);
    SDL_RenderPresent(r);
    /* The border (70, 80, 100) runs along x = 2 * W - 1 and y = 2 * H - 1;
     * right of and below it the target is untouched. */
    CHECK_EQ_INT(pixel_at(surf, 2 * W - 1, H), 0x465064);
    CHECK_EQ_INT(pixel_at(surf, W, 2 * H - 1), 0x465064);
    CHECK_EQ_INT(pixel_at(surf, 2 * W, H), 0);
    CHECK_EQ_INT(pixel_at(surf, W, 2 * H), 0);
    /* With a logical size the area is the logical one: 640x360 => 1. */
    CHECK_EQ_INT(SDL_RenderSetLogicalSize(r, 640, 360), 0);
    CHECK_EQ_INT(tempo_loop_stats_scale(loop, r), 1);
    CHECK_EQ_INT(tempo_loop_draw_stats_scaled(loop, r, 0, 0, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_draw_stats_scaled(loop, r, 0, 0, 17), TEMPO_EINVAL);
    if (getenv("TEMPO_TEST_BMP"))
        SDL_SaveBMP(surf, getenv("TEMPO_TEST_BMP"));
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    tempo_loop_destroy(loop);
}

/* Issue 11 problem 1 on the source interface: 20 results of 20 ms each
 * (the finalize spends 20 ms of fake time), a 60 Hz loop. The loader's own
 * estimate soon says no item fits between two frames; the guaranteed unit
 * per frame still delivers every one. */
static fake_clock *livelock_clk;
static int livelock_delivered;

static int livelock_work(tempo_load_job *job, void **result)
{
    (void)job;
    *result = NULL;
    return 0;
}

static int livelock_finalize(tempo_load_job *job, void **result)
{
    (void)job;
    (void)result;
    livelock_clk->now += 20 * MS; /* a 20 ms texture upload */
    return 0;
}

static void livelock_done(tempo_loader *ld, const tempo_load_result *r, void *user)
{
    (void)ld;
    (void)user;
    CHECK_EQ_INT(r->error, 0);
    livelock_delivered++;
}

static void loader_with_slow_items_never_livelocks(void)
{
    fake_clock clk;
    fake_init(&clk);
    livelock_clk = &clk;
    livelock_delivered = 0;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_now, .user = &clk}});
    CHECK(ld != NULL);
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), TEMPO_EBUSY);
    for (int i = 0; i < 20; i++)
        CHECK(tempo_loader_submit(ld, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = livelock_work,
                                                             .finalize = livelock_finalize,
                                                             .done = livelock_done}) > 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(ld, TEMPO_INFINITE), 0); /* all 20 finished, none delivered */
    for (int f = 0; f < 2000 && livelock_delivered < 20 && clk.now < T0 + 10 * S; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tt_note("delivered %d of 20 after %.2f s of fake time; %llu updates, %llu renders", livelock_delivered,
            (double)(clk.now - T0) / 1e9, (unsigned long long)g.updates, (unsigned long long)g.renders);
    CHECK_EQ_INT(livelock_delivered, 20);
    CHECK_LE_U64(clk.now - T0, 2 * S); /* about one per frame: 20 x (20 ms + a frame) */
    CHECK_EQ_INT(st->source_count, 1);
    CHECK_STR_EQ(st->sources[0].name, "loader");
    CHECK_EQ_U64(st->sources[0].total.items, 20);
    CHECK_GE_U64(st->sources[0].total.overruns, 1); /* each 20 ms item overruns a 16.7 ms frame */
    CHECK_GE_U64(g.renders, 20);                    /* and the game kept rendering meanwhile */
    CHECK_EQ_INT(tempo_loader_detach(ld), 0);
    CHECK_EQ_INT(tempo_loader_detach(ld), TEMPO_EINVAL);
    tempo_loader_destroy(ld);
    tempo_loop_destroy(loop);
}

/* Issue 21: a texture upload larger than the loader's 2 ms budget (a
 * 1024x1024 image, 4 MiB at the 1 ns/byte prior: ~4.2 ms) goes up in strips
 * across dispatches instead of one forced whole upload, and is delivered
 * once, after its last strip. Each strip is a unit of the source's progress. */
static int strip_delivered;
static int strip_w, strip_h;

static void strip_done(tempo_loader *ld, const tempo_load_result *r, void *user)
{
    (void)ld;
    (void)user;
    CHECK_EQ_INT(r->error, 0);
    if (r->texture) {
        SDL_QueryTexture(r->texture, NULL, NULL, &strip_w, &strip_h);
        SDL_DestroyTexture(r->texture);
    }
    strip_delivered++;
}

static void loader_uploads_a_large_image_in_strips(void)
{
    static const char *path = "tloop_big.png"; /* in the build directory (workdir) */
    SDL_Surface *img = SDL_CreateRGBSurfaceWithFormat(0, 1024, 1024, 32, SDL_PIXELFORMAT_RGBA32);
    CHECK(img != NULL && IMG_SavePNG(img, path) == 0);
    SDL_FreeSurface(img);
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    fake_clock clk;
    fake_init(&clk);
    strip_delivered = 0;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    tempo_loader *ld =
        tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .clock = {.now = fake_now, .user = &clk}});
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK(tempo_loader_submit(ld, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = path, .done = strip_done}) > 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(ld, TEMPO_INFINITE), 0);
    for (int f = 0; f < 100 && strip_delivered == 0; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_loader_stats ls;
    tempo_loader_get_stats(ld, &ls);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tt_note("delivered %d, %llu strips, loop items %llu", strip_delivered, (unsigned long long)ls.upload_strips,
            (unsigned long long)st->sources[0].total.items);
    CHECK_EQ_INT(strip_delivered, 1);
    CHECK_EQ_INT(strip_w, 1024);
    CHECK_EQ_INT(strip_h, 1024);
    CHECK_GE_U64(ls.upload_strips, 2);
    CHECK_EQ_U64(st->sources[0].total.items, 1 + ls.upload_strips); /* a strip is a unit */
    tempo_loader_destroy(ld);
    tempo_loop_destroy(loop);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
    remove(path);
}

/* Issue 11 problem 2: a source parked in the frame before a pause used to
 * stay parked for the whole pause. A queue of 300 messages of 1 ms each,
 * 5 ms per frame (FIXED_BUDGET): the loop pauses right after the first
 * drain, for 2 s; the queue must still be drained during the pause (watches
 * and sources keep working while paused), and once it is empty the paused
 * loop must sleep with no timeout again. */
static uint64_t pause_msg_cost;
static fake_clock *pause_clk;

static void costly_message(const tempo_netq_msg *m, void *user)
{
    (void)m;
    (*(int *)user)++;
    pause_clk->now += pause_msg_cost;
}

static void parked_source_keeps_working_while_paused(void)
{
    fake_clock clk;
    fake_init(&clk);
    clk.paused_advance = 2 * S;
    pause_clk = &clk;
    pause_msg_cost = MS;
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){
        .policy = TEMPO_NETQ_FIXED_BUDGET, .budget_start_ns = 5 * MS, .clock = {.now = fake_now, .user = &clk}});
    int handled = 0;
    CHECK_EQ_INT(tempo_netq_attach(q, loop, costly_message, &handled), 0);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, costly_message, &handled), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    for (int i = 0; i < 300; i++)
        CHECK_EQ_INT(tempo_netq_push(q, 1, &i, sizeof i), 0);
    /* Run until the queue has been drained once and is parked. */
    for (int f = 0; f < 100 && !(handled > 0 && tempo_loop_get_stats(loop)->sources[0].parked); f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(tempo_loop_get_stats(loop)->sources[0].parked);
    CHECK_EQ_INT(tempo_loop_pause(loop, true), 0);
    uint64_t paused_at = clk.now, updates = g.updates;
    for (int f = 0; f < 100000 && clk.now < paused_at + 2 * S; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_netq_stats ns;
    tempo_netq_get_stats(q, &ns);
    tt_note("after 2 s paused: %d of 300 handled, oldest was %.0f ms old; %llu infinite waits",
            handled, (double)ns.max_age_ns / 1e6, (unsigned long long)clk.infinite_waits);
    CHECK_EQ_INT(handled, 300);
    CHECK_EQ_U64(g.updates, updates); /* paused: no updates */
    /* 300 x 1 ms at 5 ms per 16.7 ms step: done within about 1.1 s. */
    CHECK_LE_U64(ns.max_age_ns, 1200 * MS);
    /* Idle and paused again: the wait has no timeout (the fake clock moves
     * 2 s per such wait, which ended the loop above). */
    CHECK_GE_U64(clk.infinite_waits, 1);
    CHECK_EQ_INT(tempo_loop_pause(loop, false), 0);
    tempo_loop_destroy(loop); /* detaches the queue */
    CHECK_EQ_INT(tempo_netq_detach(q), TEMPO_EINVAL);
    tempo_netq_destroy(q);
}

/* Issue 20: every attached object leaves its loop by itself when destroyed,
 * in either order. Before, destroying an attached loader left its freed
 * handle in the loop's wait set (the next frame failed with TEMPO_EINVAL,
 * and its dispatch would have read the freed loader). */
static void count_message(const tempo_netq_msg *m, void *user)
{
    (void)m;
    (*(int *)user)++;
}

static void objects_destroyed_before_the_loop_leave_it(void)
{
    fake_clock clk;
    fake_init(&clk);
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_now, .user = &clk}});
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = {.now = fake_now, .user = &clk}});
    CHECK(ld != NULL && q != NULL);
    int handled = 0;
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, count_message, &handled), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 2);
    /* Work waiting in both when they go: their handles are signalled. */
    CHECK(tempo_loader_submit(ld, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = livelock_work}) > 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(ld, TEMPO_INFINITE), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 1, "x", 1), 0);
    tempo_loader_destroy(ld);
    tempo_netq_destroy(q);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    uint64_t renders = g.renders;
    for (int f = 0; f < 5; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_GE_U64(g.renders, renders + 5); /* the loop keeps running */
    CHECK_EQ_INT(handled, 0);
    tempo_loop_destroy(loop);
}

static void loop_destroyed_before_the_objects(void)
{
    fake_clock clk;
    fake_init(&clk);
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_now, .user = &clk}});
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = {.now = fake_now, .user = &clk}});
    CHECK(ld != NULL && q != NULL);
    int handled = 0;
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, count_message, &handled), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_loop_destroy(loop); /* detaches both: they know */
    CHECK_EQ_INT(tempo_loader_detach(ld), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_netq_detach(q), TEMPO_EINVAL);
    /* Not attached any more, so another loop takes them. */
    tempo_loop *loop2 = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    CHECK_EQ_INT(tempo_loader_attach(ld, loop2), 0);
    CHECK_EQ_INT(tempo_netq_attach(q, loop2, count_message, &handled), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 1, "x", 1), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop2), 0);
    CHECK_EQ_INT(handled, 1);
    tempo_loop_destroy(loop2);
    tempo_loader_destroy(ld);
    tempo_netq_destroy(q);
}

/* Destroyed from another callback in the middle of a frame: a watch that
 * comes before the queue in the frame's order destroys the queue (whose
 * handle is signalled, so the frame would dispatch it next), and update()
 * destroys the loader. The frame skips what left; later frames go on. */
typedef struct mid_frame {
    tempo_netq *q;
    tempo_loader *ld;
    int handled;
} mid_frame;

static void destroy_queue_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    mid_frame *m = user;
    tempo_netq_destroy(m->q);
    m->q = NULL;
}

static void destroy_loader_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    mid_frame *m = user;
    tempo_loader_destroy(m->ld);
    m->ld = NULL;
}

static void objects_destroyed_mid_frame_leave_it(void)
{
    fake_clock clk;
    fake_init(&clk);
    mid_frame m = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .max_render_hz = 60, .update = destroy_loader_update, .user = &m, .clock = clock_of(&clk)});
    m.ld = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_now, .user = &clk}});
    m.q = tempo_netq_create(&(tempo_netq_desc){.clock = {.now = fake_now, .user = &clk}});
    tempo_handle *go = tempo_event_create(false, false);
    CHECK_EQ_INT(tempo_loop_watch(loop, go, destroy_queue_watch, &m), 0);
    CHECK_EQ_INT(tempo_netq_attach(m.q, loop, count_message, &m.handled), 0);
    CHECK_EQ_INT(tempo_loader_attach(m.ld, loop), 0);
    CHECK(tempo_loader_submit(m.ld, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = livelock_work}) > 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(m.ld, TEMPO_INFINITE), 0);
    CHECK_EQ_INT(tempo_netq_push(m.q, 1, "x", 1), 0);
    tempo_event_set(go);
    for (int f = 0; f < 5; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(m.q == NULL && m.ld == NULL);
    CHECK_EQ_INT(m.handled, 0); /* the queue left before its turn in the frame */
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    tempo_loop_destroy(loop);
    tempo_event_destroy(go);
}

/* Destroying a queue from its own handler: the loop is still draining it,
 * so the destroy is refused (it freed the queue under the drain before). */
static tempo_netq *self_destroy_q;

static void destroying_message(const tempo_netq_msg *m, void *user)
{
    (void)m;
    (*(int *)user)++;
    tempo_netq_destroy(self_destroy_q);
    CHECK(strstr(tempo_get_error(), "tempo_netq_destroy called from the queue's own handler") != NULL);
}

static void netq_destroy_from_its_own_handler_is_refused(void)
{
    fake_clock clk;
    fake_init(&clk);
    game g;
    game_init(&g, &clk);
    tempo_loop *loop = game_loop(&g, &clk, (tempo_loop_desc){.max_render_hz = 60});
    self_destroy_q = tempo_netq_create(&(tempo_netq_desc){.clock = {.now = fake_now, .user = &clk}});
    int handled = 0;
    CHECK_EQ_INT(tempo_netq_attach(self_destroy_q, loop, destroying_message, &handled), 0);
    CHECK_EQ_INT(tempo_netq_push(self_destroy_q, 1, "a", 1), 0);
    CHECK_EQ_INT(tempo_netq_push(self_destroy_q, 1, "b", 1), 0);
    for (int f = 0; f < 5; f++)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(handled, 2);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 1); /* still there, still drained */
    CHECK_EQ_INT(tempo_netq_push(self_destroy_q, 1, "c", 1), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(handled, 3);
    tempo_netq_destroy(self_destroy_q); /* from outside: leaves and frees */
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_loop_destroy(loop);
}

/* Issue 20: a source's wake is a "source" wake, a watch's a "watch" wake
 * (sources used to be counted as watches). */
static int wake_source_dispatch(void *self, tempo_source_call *call)
{
    (void)call;
    (*(int *)self)++;
    return 0;
}

static void on_plain_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    (*(int *)user)++;
}

static void source_wakes_are_counted_as_source(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 10, .render_on_demand = true,
                                                             .clock = clock_of(&clk)});
    tempo_handle *hs = tempo_event_create(false, false);
    tempo_handle *hw = tempo_event_create(false, false);
    int dispatched = 0, watched = 0;
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "game", .handle = hs,
                                                                    .dispatch = wake_source_dispatch,
                                                                    .self = &dispatched}),
                 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, hw, on_plain_watch, &watched), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    for (int i = 0; i < 3; i++) {
        tempo_event_set(hs);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    }
    tempo_event_set(hw);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tt_note("wakes: source %llu, watch %llu, timer %llu", (unsigned long long)st->total.wakes[TEMPO_LOOP_WAKE_SOURCE],
            (unsigned long long)st->total.wakes[TEMPO_LOOP_WAKE_WATCH],
            (unsigned long long)st->total.wakes[TEMPO_LOOP_WAKE_TIMER]);
    CHECK_EQ_INT(dispatched, 3);
    CHECK_EQ_INT(watched, 1);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_SOURCE], 3);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_WATCH], 1);
    CHECK_STR_EQ(tempo_loop_wake_name(TEMPO_LOOP_WAKE_SOURCE), "source");
    CHECK_STR_EQ(tempo_loop_wake_name(TEMPO_LOOP_WAKE_WATCH), "watch");
    CHECK_STR_EQ(tempo_loop_wake_name(TEMPO_LOOP_WAKE_COUNT), "?");
    tempo_loop_destroy(loop);
    tempo_event_destroy(hs);
    tempo_event_destroy(hw);
}

/* Issue 10: tempo_loop_destroy() from inside the frame freed the loop under
 * it (ASan: use-after-free in loop_now). It is refused now: nothing is
 * destroyed and the reason is in tempo_get_error(). */
static bool destroy_refused;

static void destroying_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    (void)user;
    tempo_loop_destroy(loop);
    destroy_refused = strstr(tempo_get_error(), "tempo_loop_destroy") != NULL;
    tempo_loop_quit(loop); /* the loop is still alive: ASan would say so otherwise */
}

static void destroy_from_a_callback_is_refused(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update = destroying_update, .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 1);
    CHECK(destroy_refused);
    CHECK(tempo_loop_get_step_ns(loop) > 0); /* still alive: nothing was freed (ASan checks) */
    tempo_loop_destroy(loop);                /* afterwards it works */
    tempo_loop_destroy(NULL);
}

/* Issue 10: with max_frameskip 5 and a render cap, one 200 ms update was
 * followed by 13 updates back to back with no render between them: the cap
 * bounded one frame's batch, and the frames after it could not render yet.
 * The cap bounds the updates between two renders. */
typedef struct skip_game {
    fake_clock *clk;
    uint64_t updates, since_render, max_since_render, renders;
} skip_game;

static void skip_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    skip_game *g = user;
    if (++g->updates == 10)
        g->clk->now += 200 * MS;
    if (++g->since_render > g->max_since_render)
        g->max_since_render = g->since_render;
}

static void skip_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    skip_game *g = user;
    g->since_render = 0;
    g->renders++;
}

static void frameskip_bounds_updates_between_renders(void)
{
    for (int policy = 0; policy < TEMPO_LOOP_VARIABLE; policy++) {
        fake_clock clk;
        fake_init(&clk);
        skip_game g = {.clk = &clk};
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .max_frameskip = 5, .max_render_hz = 60, .policy = (tempo_loop_policy)policy,
            .update = skip_update, .render = skip_render, .user = &g, .clock = clock_of(&clk)});
        while (clk.now < T0 + 2 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        tt_note("%s: at most %llu updates between renders; %llu updates, capped %llu",
                tempo_loop_policy_name((tempo_loop_policy)policy), (unsigned long long)g.max_since_render,
                (unsigned long long)g.updates, (unsigned long long)st->total.capped_frames);
        CHECK_LE_U64(g.max_since_render, policy == TEMPO_LOOP_LOCKSTEP ? 1 : 5);
        CHECK_GE_U64(st->total.capped_frames, 1); /* 12 ticks were owed: the cap held them */
        /* The game slows down for the stall instead of fast-forwarding, then
         * runs at its rate again: about 2 s of updates minus what was held. */
        CHECK_GE_U64(g.updates, 100);
        tempo_loop_destroy(loop);
    }
}

/* A render cap below update_hz / max_frameskip: one render interval holds
 * more updates than max_frameskip (6 at 60/10 Hz). The bound between renders
 * is then what one interval holds, so the game keeps its speed. */
static void low_render_cap_keeps_the_update_rate(void)
{
    for (int policy = 0; policy < TEMPO_LOOP_VARIABLE; policy += 2) { /* INTERPOLATED, CONSTANT_SPEED */
        fake_clock clk;
        fake_init(&clk);
        skip_game g = {.clk = &clk};
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .max_frameskip = 5, .max_render_hz = 10, .policy = (tempo_loop_policy)policy,
            .update = skip_update, .render = skip_render, .user = &g, .clock = clock_of(&clk)});
        g.updates = 100; /* no 200 ms update here */
        while (clk.now < T0 + 10 * S)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        uint64_t updates = g.updates - 100;
        tt_note("%s: %llu updates in 10 s, at most %llu between renders",
                tempo_loop_policy_name((tempo_loop_policy)policy), (unsigned long long)updates,
                (unsigned long long)g.max_since_render);
        CHECK(updates >= 600 && updates <= 601);
        CHECK_LE_U64(g.max_since_render, 6);
        tempo_loop_destroy(loop);
    }
}

/* Issue 11: a render request from the loop thread set the loop's wake
 * event, so the next wait returned at once, counted as a cross-thread
 * signal. */
static bool wake_was_set = true;

static void requesting_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    (void)user;
    CHECK_EQ_INT(tempo_loop_request_render(loop), 0);
    wake_was_set = tempo_wait(&loop->wake, 1, 0, 0) == 0;
}

static void request_render_on_the_loop_thread_is_no_signal(void)
{
    fake_clock clk;
    fake_init(&clk);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .render_on_demand = true, .update = requesting_update, .clock = clock_of(&clk)});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(!wake_was_set);
    /* The request still renders. */
    uint64_t renders = tempo_loop_get_stats(loop)->total.renders;
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_GE_U64(tempo_loop_get_stats(loop)->total.renders, renders + 1);
    tempo_loop_destroy(loop);
}

/* Issue 24: a host that calls a frame per displayed frame (the browser's
 * requestAnimationFrame) and, in between, frames at the update ticks the
 * loop names (browser timers) -- what the web backend's tempo_loop_run()
 * does. The display runs at 60.24 Hz, a hair faster than the loop's own
 * 60 Hz render slots: with slots, some display frames would find the slot
 * not yet due and show nothing new. Display frames must each render, the
 * frames between them never, and the updates keep their 25 Hz. */
typedef struct display_count {
    uint64_t renders, renders_between, updates;
    bool in_display;
} display_count;

static void display_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    ((display_count *)user)->updates++;
}

static void display_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    display_count *c = user;
    c->renders++;
    if (!c->in_display)
        c->renders_between++;
}

static void display_frames_render_and_ticks_update(void)
{
    fake_clock clk;
    fake_init(&clk);
    display_count c = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 25, .update = display_update, .render = display_render, .user = &c, .clock = clock_of(&clk)});
    const uint64_t period = 16600000; /* 60.24 Hz */
    const uint64_t step = S / 25;
    uint64_t next_vsync = T0, displays = 0, off_schedule = 0, iterations = 0;
    while (clk.now < T0 + 10 * S && iterations++ < 100000) {
        uint64_t due = tempo_loop_next_due_ns(loop);
        if (displays > 0 && due > clk.now && (due - T0) % step != 0)
            off_schedule++; /* between display frames only update ticks are due */
        if (next_vsync <= due) {
            clk.now = next_vsync > clk.now ? next_vsync : clk.now;
            c.in_display = true;
            CHECK_EQ_INT(tempo_loop_display_frame(loop), 0);
            c.in_display = false;
            displays++;
            next_vsync += period;
        } else {
            clk.now = due > clk.now ? due : clk.now;
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        }
    }
    tt_note("%llu display frames, %llu renders (%llu between them), %llu updates, %llu dues off the tick schedule",
            (unsigned long long)displays, (unsigned long long)c.renders, (unsigned long long)c.renders_between,
            (unsigned long long)c.updates, (unsigned long long)off_schedule);
    CHECK_EQ_U64(c.renders, displays);
    CHECK_EQ_U64(c.renders_between, 0);
    CHECK_EQ_U64(off_schedule, 0);
    CHECK(c.updates >= 250 && c.updates <= 251);
    /* NULL is refused, as tempo_loop_frame refuses it. */
    CHECK_EQ_INT(tempo_loop_display_frame(NULL), TEMPO_EINVAL);
    tempo_loop_destroy(loop);
}

/* ---- Every failure says why (base.h: tempo_get_error() describes the last
 * failure). Each call below once returned its code and left the detail of
 * an older, unrelated failure in place. ---- */

/* Puts a known, unrelated detail in place (a refused tempo_loop_create). */
static void prime_error(void)
{
    CHECK(tempo_loop_create(&(tempo_loop_desc){.policy = (tempo_loop_policy)99}) == NULL);
    CHECK(strstr(tempo_get_error(), "policy 99") != NULL);
}

#define CHECK_DETAIL(call, code, needle)                                                                       \
    do {                                                                                                       \
        prime_error();                                                                                         \
        int r_ = (call);                                                                                       \
        CHECK_EQ_INT(r_, code);                                                                                \
        if (strstr(tempo_get_error(), (needle)) == NULL)                                                       \
            tt_fail(__FILE__, __LINE__, "%s: tempo_get_error() \"%s\" does not name \"%s\"", #call,            \
                    tempo_get_error(), (needle));                                                              \
    } while (0)

static void ignore_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop, (void)h, (void)user;
}

static int ignore_dispatch(void *self, tempo_source_call *call)
{
    (void)self, (void)call;
    return 0;
}

static void failures_say_why(void)
{
    tempo_fake_clock *fc = tempo_fake_clock_create(0);
    tempo_loop *L = tempo_loop_create(&(tempo_loop_desc){.clock = tempo_fake_clock_get(fc)});
    CHECK(L != NULL);
    if (L == NULL)
        return;
    tempo_handle *ev = tempo_event_create(false, false);
    tempo_handle *tm = tempo_timer_create(false);
    tempo_handle *dead = tempo_event_create(false, false);
    tempo_event_destroy(dead);
    tempo_log_set_level(TEMPO_LOG_NONE); /* 60 misuse WARN lines: the detail is kept regardless */

    /* The loop (loop.c, loop_sources.c, loop_events.c, loop_overlay.c, replay.c, clock.c) */
    CHECK_DETAIL(tempo_loop_quit(NULL), TEMPO_EINVAL, "tempo_loop_quit: loop is NULL");
    CHECK_DETAIL(tempo_loop_request_render(NULL), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_pause(NULL, true), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_set_game_paused(NULL, true), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_set_vsync(NULL, true), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_set_policy(L, (tempo_loop_policy)42), TEMPO_EINVAL, "policy 42");
    CHECK_DETAIL(tempo_loop_set_update_hz(L, 0), TEMPO_ERANGE, "update_hz 0");
    CHECK_DETAIL(tempo_loop_set_max_render_hz(L, 10000000), TEMPO_ERANGE, "max_render_hz 10000000");
    CHECK_DETAIL(tempo_loop_skip_render(NULL), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_set_render_on_demand(NULL, true), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_frame(NULL), TEMPO_EINVAL, "tempo_loop_frame: loop is NULL");
    CHECK_DETAIL(tempo_loop_display_frame(NULL), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_run(NULL), TEMPO_EINVAL, "loop is NULL");
    CHECK_DETAIL(tempo_loop_watch(L, dead, ignore_watch, NULL), TEMPO_EINVAL, "not a live handle");
    CHECK_DETAIL(tempo_loop_watch(L, ev, NULL, NULL), TEMPO_EINVAL, "fn is NULL");
    CHECK_EQ_INT(tempo_loop_watch(L, ev, ignore_watch, NULL), 0);
    CHECK_DETAIL(tempo_loop_watch(L, ev, ignore_watch, NULL), TEMPO_EBUSY, "already watched");
    CHECK_DETAIL(tempo_loop_unwatch(L, tm), TEMPO_EINVAL, "not watched");
    CHECK_DETAIL(tempo_loop_remove_source(L, ev), TEMPO_EINVAL, "no source");
    CHECK_DETAIL(tempo_loop_add_source(L, &(tempo_source_desc){.handle = tm}), TEMPO_EINVAL, "desc.dispatch is NULL");
    CHECK_DETAIL(tempo_loop_add_source(L, &(tempo_source_desc){.handle = ev, .dispatch = ignore_dispatch}),
                 TEMPO_EBUSY, "already watched");
    CHECK_DETAIL(tempo_loop_channel(L, 0x80000000u, NULL, NULL), TEMPO_EINVAL, "id 0x80000000");
    CHECK_DETAIL(tempo_loop_deliver(L, 7, &(tempo_replay_item){.kind = TEMPO_REPLAY_MESSAGE}), TEMPO_EINVAL,
                 "no channel 7");
    CHECK_DETAIL(tempo_loop_record_stop(L), TEMPO_EINVAL, "not recording");
    CHECK_DETAIL(tempo_loop_replay_fp(L, NULL, 0), TEMPO_EINVAL, "replay is NULL");
    CHECK_DETAIL(tempo_loop_draw_stats(L, NULL, 0, 0), TEMPO_EINVAL, "renderer is NULL");
    CHECK_DETAIL(tempo_input_detach(NULL), TEMPO_EINVAL, "input is NULL");
    tempo_fake_clock_advance(fc, 1000);
    CHECK_DETAIL(tempo_fake_clock_set(fc, 10), TEMPO_ERANGE, "never goes back");

    /* Handles and the wait (wait.c, handle_pool.c) */
    tempo_handle *many[TEMPO_WAIT_MAX_HANDLES + 1] = {0};
    CHECK_DETAIL(tempo_wait(many, TEMPO_WAIT_MAX_HANDLES + 1, 0, 0), TEMPO_ETOOMANY, "above");
    CHECK_DETAIL(tempo_wait(NULL, 1, 0, 0), TEMPO_EINVAL, "handles is NULL");
    CHECK_DETAIL(tempo_wait(&ev, -1, 0, 0), TEMPO_EINVAL, "negative");
    CHECK_DETAIL(tempo_wait(&ev, 1, 0, 0x100), TEMPO_EINVAL, "flags");
    CHECK_DETAIL(tempo_wait(&dead, 1, 0, 0), TEMPO_EINVAL, "handles[0]");
    CHECK_DETAIL(tempo_event_set(dead), TEMPO_EINVAL, "tempo_event_set");
    CHECK_DETAIL(tempo_event_reset(NULL), TEMPO_EINVAL, "the handle is NULL");
    CHECK_DETAIL(tempo_timer_set(ev, 0, 0), TEMPO_EINVAL, "an event, not a timer");
    CHECK_DETAIL(tempo_timer_cancel(dead), TEMPO_EINVAL, "not a live handle");
    CHECK_DETAIL(tempo_process_usage(NULL), TEMPO_EINVAL, "out is NULL");

    /* Input, loader, hot reload (input.c, loader*.c, hotreload.c) */
    CHECK_DETAIL(tempo_input_push(NULL, &(tempo_input_event){0}), TEMPO_EINVAL, "input is NULL");
    CHECK_DETAIL(tempo_input_poll(NULL, NULL), TEMPO_EINVAL, "input is NULL");
    CHECK_DETAIL(tempo_input_clear_key(NULL, 4), TEMPO_EINVAL, "input is NULL");
    CHECK_DETAIL(tempo_loader_cancel(NULL, 1), TEMPO_EINVAL, "loader is NULL");
    CHECK_DETAIL(tempo_loader_process(NULL), TEMPO_EINVAL, "loader is NULL");
    CHECK_DETAIL(tempo_loader_wait_idle(NULL, 0), TEMPO_EINVAL, "loader is NULL");
    CHECK_DETAIL(tempo_loader_detach(NULL), TEMPO_EINVAL, "loader is NULL");
    CHECK_DETAIL(tempo_hotreload_detach(NULL), TEMPO_EINVAL, "hotreload is NULL");
    CHECK_DETAIL(tempo_hotreload_unwatch(NULL, "x"), TEMPO_EINVAL, "hotreload is NULL");

    /* The audit's case: a watched handle destroyed makes the frame fail,
     * and the detail names that handle, not an older failure. */
    tempo_loop_unwatch(L, ev);
    tempo_handle *gone = tempo_event_create(false, false);
    CHECK_EQ_INT(tempo_loop_watch(L, gone, ignore_watch, NULL), 0);
    tempo_event_destroy(gone);
    CHECK_DETAIL(tempo_loop_frame(L), TEMPO_EINVAL, "destroyed while in the loop's wait set");
    tempo_loop_unwatch(L, gone);

    tempo_loop_destroy(L);
    tempo_event_destroy(ev);
    tempo_timer_destroy(tm);
    tempo_fake_clock_destroy(fc);
    tempo_log_set_level(TEMPO_LOG_WARN);
}

static const tt_case cases[] = {
    TT_CASE(sched_math_is_exact),
    TT_CASE(histogram_percentiles),
    TT_CASE(zero_desc_means_defaults),
    TT_CASE(fixed_rate_never_drifts_or_runs_early),
    TT_CASE(same_state_at_any_render_rate),
    TT_CASE(variable_delta_diverges_with_frame_rate),
    TT_CASE(slow_updates_slow_the_game_instead_of_hanging),
    TT_CASE(slow_renders_keep_the_classic_speed),
    TT_CASE(update_without_change_skips_the_render),
    TT_CASE(gap_of_30s_is_dropped_not_replayed),
    TT_CASE(alpha_is_in_unit_interval_and_exact),
    TT_CASE(lateness_is_measured_and_never_negative),
    TT_CASE(one_wake_per_tick_when_rates_align),
    TT_CASE(policies_render_as_documented),
    TT_CASE(catch_up_differs_by_policy),
    TT_CASE(request_render_draws_once),
    TT_CASE(rate_change_keeps_phase_without_burst),
    TT_CASE(quit_from_callback_and_no_reentry),
    TT_CASE(on_stop_runs_once_after_run_and_may_destroy),
    TT_CASE(watches_fire_once_per_frame),
    TT_CASE(watch_limit_is_the_wait_limit_minus_two),
    TT_CASE(pause_when_minimized_and_no_burst_on_resume),
    TT_CASE(focus_gained_ends_the_minimized_pause),
    TT_CASE(pause_from_update_resumes_without_burst),
    TT_CASE(focus_loss_pauses_only_when_asked),
    TT_CASE(run_while_hidden_keeps_ticking),
    TT_CASE(overlay_scales_to_the_window),
    TT_CASE(events_reach_the_game_and_sdl_quit_ends_the_loop),
    TT_CASE(input_reaches_the_ring_with_the_wake_time),
    TT_CASE(no_input_field_means_no_buffering),
    TT_CASE(statistics_add_up),
    TT_CASE(next_due_is_the_next_tick_or_render),
    TT_CASE(source_api_rules),
    TT_CASE(source_with_work_is_parked_until_the_next_frame),
    TT_CASE(overlay_shows_each_source),
    TT_CASE(loader_with_slow_items_never_livelocks),
    TT_CASE(loader_uploads_a_large_image_in_strips),
    TT_CASE(parked_source_keeps_working_while_paused),
    TT_CASE(objects_destroyed_before_the_loop_leave_it),
    TT_CASE(loop_destroyed_before_the_objects),
    TT_CASE(objects_destroyed_mid_frame_leave_it),
    TT_CASE(netq_destroy_from_its_own_handler_is_refused),
    TT_CASE(source_wakes_are_counted_as_source),
    TT_CASE(destroy_from_a_callback_is_refused),
    TT_CASE(frameskip_bounds_updates_between_renders),
    TT_CASE(low_render_cap_keeps_the_update_rate),
    TT_CASE(request_render_on_the_loop_thread_is_no_signal),
    TT_CASE(display_frames_render_and_ticks_update),
    TT_CASE(failures_say_why),
};

int main(int argc, char **argv)
{
    /* The event cases need SDL's event queue only: no video, no display. */
    events_ok = SDL_Init(SDL_INIT_EVENTS) == 0;
    if (!events_ok)
        printf("SDL_Init(EVENTS): %s\n", SDL_GetError());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
