/* The loop's display pacing and pauses on the shared fake clock (issue 11):
 *  - the default loop (zero descriptor, no vsync, no cap) never spins: it
 *    renders at the display's refresh rate and sleeps in between
 *    (problem 4; on 873cb95 it rendered every frame without sleeping);
 *  - with vsync the present is a wait: a fake vsync present blocks until
 *    the next vblank of a 60 or 59.94 Hz display by advancing the fake
 *    clock; the loop learns the period, wakes just in time, counts the
 *    blocked time as waiting, and input reaches the screen within one
 *    refresh plus the render cost;
 *  - the game's pause stops updates and keeps rendering; the idle pause
 *    tells the game, and input (a pause key) reaches the game while paused.
 * Every verdict is on the fake clock. */
#include <math.h>
#include <stdlib.h>

#include <SDL.h>

#include "harness.h"
#include "loop_internal.h" /* L->pres.window_visibility: a stand-in window system */
#include "tempo/tempo.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* ---- A game that counts, on a fake clock ----------------------------------- */

typedef struct game {
    tempo_fake_clock *fc;
    uint64_t updates, renders, presents;
    uint64_t present_cost_ns; /* counting_present: the work of a present that does not block */
    uint64_t cost_lo, cost_hi; /* each render spends uniform [lo, hi] fake time */
    uint64_t rng;
    float last_alpha;
    /* fake vsync display: vblank k at vb0 + k * num / den */
    uint64_t vb0, num, den;
    int64_t last_k;
    int missed;                /* presents that skipped a vblank after warm-up */
    int missed_in_render;      /* of those, the render itself ended past the vblank it missed */
    uint64_t render_end_ns;    /* when the last render ended */
    uint64_t warmup_until;
    uint64_t max_blocked_ns;   /* the longest present after warm-up */
    /* input: scheduled arrivals, seen by input_event, shown by the present */
    uint64_t next_input_ns, input_step_ns;
    uint64_t oldest_unshown_ns; /* arrival of the oldest input seen but not yet rendered */
    uint64_t oldest_in_frame_ns; /* what the current render shows */
    uint64_t max_latency_ns;
    uint64_t inputs_seen;
    uint64_t pushed_arrival_ns; /* when the input just pushed arrived */
    bool pause_key_resumes;
    int pause_calls, resume_calls;
    uint64_t render_at[64];    /* when the first renders started */
    int nrender_at;
    /* fake_vsync_present: the present's own work before the flip, uniform
     * in [lo, hi] (0: none), and 1 % of presents up to spike_hi */
    uint64_t work_lo, work_hi, spike_hi;
    uint64_t stall_at, stall_ns; /* the first render at or after stall_at costs stall_ns more */
    uint64_t start_late_hi;      /* each render starts uniform [0, hi] after its call (a loop woken late) */
    /* read_in_update: the game reads its input in update() (as bench_latency's
     * games do), so a frame shows the input its last update read */
    bool read_in_update;
    uint64_t arrival[4096];      /* read_in_update: each input's arrival, in order */
    uint32_t narrived, nread, nrendered, nshown; /* inputs arrived, read by an update, drawn, shown */
    uint64_t last_update_at;     /* when the last update ran */
    uint64_t renders_after_update; /* renders at the very instant of an update (same frame) */
    uint64_t lat_sum_ns, lat_n;  /* read_in_update: each input's arrival -> the vblank showing it,
                                    after warm-up */
} game;

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    game *g = user;
    g->updates++;
    g->last_update_at = tempo_fake_clock_now(g->fc);
    g->nread = g->narrived;
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    game *g = user;
    g->renders++;
    if (g->start_late_hi != 0)
        tempo_fake_clock_advance(g->fc, rnd(&g->rng) % (g->start_late_hi + 1));
    if (g->nrender_at < (int)(sizeof g->render_at / sizeof g->render_at[0]))
        g->render_at[g->nrender_at++] = tempo_fake_clock_now(g->fc);
    g->last_alpha = alpha;
    if (g->read_in_update) {
        g->nrendered = g->nread;
        g->renders_after_update += g->updates > 0 && g->last_update_at == tempo_fake_clock_now(g->fc);
    } else {
        g->oldest_in_frame_ns = g->oldest_unshown_ns;
        g->oldest_unshown_ns = 0;
    }
    uint64_t cost = g->cost_lo + (g->cost_hi > g->cost_lo ? rnd(&g->rng) % (g->cost_hi - g->cost_lo + 1) : 0);
    if (g->stall_at != 0 && tempo_fake_clock_now(g->fc) >= g->stall_at) {
        g->stall_at = 0;
        cost += g->stall_ns;
    }
    tempo_fake_clock_advance(g->fc, cost);
    g->render_end_ns = tempo_fake_clock_now(g->fc);
}

static uint64_t vblank_at(const game *g, int64_t k)
{
    return g->vb0 + (uint64_t)k * g->num / g->den;
}

/* The fake vsync present: blocks until the first vblank at or after now
 * (one flip per vblank) by advancing the clock there, plus a small late
 * return. */
static void fake_vsync_present(tempo_loop *loop, void *user)
{
    (void)loop;
    game *g = user;
    uint64_t now = tempo_fake_clock_now(g->fc);
    if (g->work_hi != 0) { /* the flip is the first vblank after the work */
        uint64_t work = g->work_lo + rnd(&g->rng) % (g->work_hi - g->work_lo + 1);
        if (g->spike_hi != 0 && rnd(&g->rng) % 100 == 0)
            work = g->work_hi + rnd(&g->rng) % (g->spike_hi - g->work_hi + 1);
        tempo_fake_clock_advance(g->fc, work);
    }
    uint64_t called = now;
    now = tempo_fake_clock_now(g->fc);
    int64_t k = now <= g->vb0 ? 0 : (int64_t)((now - g->vb0) * g->den / g->num);
    while (vblank_at(g, k) < now)
        k++;
    if (k <= g->last_k)
        k = g->last_k + 1;
    bool steady = now >= g->warmup_until;
    if (steady && g->last_k >= 0 && k != g->last_k + 1) {
        g->missed++;
        g->missed_in_render += g->render_end_ns > vblank_at(g, g->last_k + 1);
    }
    g->last_k = k;
    uint64_t v = vblank_at(g, k);
    tempo_fake_clock_set(g->fc, v + 20 * US + rnd(&g->rng) % (60 * US));
    if (steady && v - called > g->max_blocked_ns)
        g->max_blocked_ns = v - called;
    if (steady && g->oldest_in_frame_ns != 0 && v - g->oldest_in_frame_ns > g->max_latency_ns)
        g->max_latency_ns = v - g->oldest_in_frame_ns;
    for (; g->read_in_update && g->nshown < g->nrendered; g->nshown++)
        if (steady) {
            g->lat_sum_ns += v - g->arrival[g->nshown];
            g->lat_n++;
        }
    g->oldest_in_frame_ns = 0;
    g->presents++;
}

/* Input arrives on a schedule: the loop's fake sleep stops at the next
 * arrival and an SDL key event is queued, as if the OS woke the loop. */
static uint64_t input_hook(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    game *g = user;
    if (g->input_step_ns == 0 || g->next_input_ns > deadline_ns)
        return deadline_ns == TEMPO_INFINITE ? now_ns : deadline_ns;
    /* An arrival during a render or present is seen at the next wait. */
    uint64_t at = g->next_input_ns > now_ns ? g->next_input_ns : now_ns;
    g->pushed_arrival_ns = g->next_input_ns;
    g->next_input_ns += g->input_step_ns;
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.scancode = SDL_SCANCODE_SPACE;
    SDL_PushEvent(&e);
    return at;
}

static bool on_input(tempo_loop *loop, const tempo_input_event *ev, void *user)
{
    game *g = user;
    g->inputs_seen++;
    if (g->oldest_unshown_ns == 0)
        g->oldest_unshown_ns = g->pushed_arrival_ns;
    if (g->narrived < sizeof g->arrival / sizeof g->arrival[0])
        g->arrival[g->narrived++] = g->pushed_arrival_ns;
    if (g->pause_key_resumes && ev->type == TEMPO_INPUT_KEY && ev->u.key.scancode == SDL_SCANCODE_ESCAPE)
        tempo_loop_pause(loop, false);
    return false;
}

static void on_pause(tempo_loop *loop, bool paused, void *user)
{
    (void)loop;
    game *g = user;
    if (paused)
        g->pause_calls++;
    else
        g->resume_calls++;
}

static void game_init(game *g)
{
    memset(g, 0, sizeof *g);
    g->fc = tempo_fake_clock_create(T0);
    g->rng = 0x2545F4914F6CDD1Du;
    g->last_k = -1;
    g->vb0 = T0 + 5 * MS + 777;
    g->num = S;
    g->den = 60;
}

static tempo_loop *game_loop(game *g, tempo_loop_desc d)
{
    d.clock = tempo_fake_clock_get(g->fc);
    d.update = on_update;
    d.render = on_render;
    d.on_pause = on_pause;
    d.user = g;
    return tempo_loop_create(&d);
}

/* Runs frames until the fake clock reaches `until`; at most max_frames. */
static uint64_t run_until(tempo_loop *loop, game *g, uint64_t until, uint64_t max_frames)
{
    uint64_t frames = 0;
    while (tempo_fake_clock_now(g->fc) < until && frames < max_frames) {
        if (tempo_loop_frame(loop) != 0)
            break;
        frames++;
    }
    return frames;
}

static void drain_sdl_events(void)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

/* ---- Problem 4: the default loop never spins --------------------------------- */

static void zero_descriptor_renders_at_the_display_rate_and_sleeps(void)
{
    static const tempo_loop_policy policies[] = {TEMPO_LOOP_INTERPOLATED, TEMPO_LOOP_VARIABLE,
                                                 TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS};
    for (int p = 0; p < 3; p++) {
        game g;
        game_init(&g);
        g.cost_lo = g.cost_hi = 1 * MS;
        /* Nothing set but the fake clock (and the counting callbacks). */
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .clock = tempo_fake_clock_get(g.fc), .policy = policies[p],
            .update = on_update, .render = on_render, .user = &g});
        uint64_t frames = run_until(loop, &g, T0 + 2 * S, 1000000);
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        tempo_fake_clock_stats cs;
        tempo_fake_clock_get_stats(g.fc, &cs);
        tt_note("%s: %llu frames, %llu renders, %llu updates in %.3f s; %llu sleeps",
                tempo_loop_policy_name(policies[p]), (unsigned long long)frames,
                (unsigned long long)g.renders, (unsigned long long)g.updates,
                (double)(tempo_fake_clock_now(g.fc) - T0) / 1e9, (unsigned long long)cs.waits);
        /* Time moved on: the loop slept instead of rendering in place. */
        CHECK_GE_U64(tempo_fake_clock_now(g.fc), T0 + 2 * S);
        /* 60 renders per second (no window: the 60 Hz fallback). */
        CHECK_GE_U64(g.renders, 119);
        CHECK_LE_U64(g.renders, 122);
        /* It sleeps between renders: about one sleep per render or update. */
        CHECK_GE_U64(cs.waits, g.renders - 1);
        CHECK_LE_U64(frames, g.renders + g.updates + 4);
        CHECK_GE_DBL(st->total.wait_share, 0.9);
        CHECK_EQ_U64(tempo_loop_get_refresh_ns(loop), 16666667);
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(g.fc);
        if (tt_failed())
            return;
    }
}

static void display_hz_sets_the_pace(void)
{
    game g;
    game_init(&g);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.display_hz = 144});
    run_until(loop, &g, T0 + 1 * S, 1000000);
    tt_note("144 Hz display: %llu renders in 1 s", (unsigned long long)g.renders);
    CHECK_GE_U64(g.renders, 143);
    CHECK_LE_U64(g.renders, 146);
    /* A cap still wins, below or above the display rate. */
    CHECK_EQ_INT(tempo_loop_set_max_render_hz(loop, 30), 0);
    uint64_t r = g.renders;
    run_until(loop, &g, T0 + 2 * S, 1000000);
    CHECK_GE_U64(g.renders - r, 29);
    CHECK_LE_U64(g.renders - r, 31);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

/* ---- Vsync: the present is a wait ------------------------------------------------ */

static void vsync_run(uint64_t num, uint64_t den, const char *label)
{
    game g;
    game_init(&g);
    g.num = num;
    g.den = den;
    g.cost_lo = 2 * MS;
    g.cost_hi = 3 * MS;
    g.warmup_until = T0 + 1 * S;
    g.next_input_ns = T0 + 3 * MS;
    g.input_step_ns = 7300 * US; /* not a multiple of the refresh */
    tempo_fake_clock_on_wait(g.fc, input_hook, &g);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){
        .present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_ON, .input_event = on_input});
    CHECK(tempo_loop_get_vsync(loop));
    run_until(loop, &g, T0 + 11 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    double period = (double)num / (double)den;
    /* the pacer's extra margin for the present's own work: its start, P/4
     * (this present has none, so no miss raises it) */
    double extra = TEMPO__PACER_START_MARGIN(1e9 / 60);
    double renders_per_s = st->last_second.renders_per_s;
    tt_note("%s: refresh %llu ns (true %.0f), %.2f renders/s, %.2f frames/s, wait %.0f%% (present %.0f%%), "
            "game %.0f%%; latency max %.2f ms (bound %.2f), longest present %.2f ms, missed %d (stats %llu)",
            label, (unsigned long long)st->refresh_ns, period, renders_per_s, st->last_second.frames_per_s,
            st->last_second.wait_share * 100,
            100.0 * (double)st->last_second.present_ns / (double)st->last_second.elapsed_ns,
            st->last_second.game_share * 100, (double)g.max_latency_ns / 1e6,
            (period + (double)g.cost_hi + 0.5e6 + extra) / 1e6, (double)g.max_blocked_ns / 1e6, g.missed,
            (unsigned long long)st->total.missed_vblanks);
    CHECK(st->vsync);
    CHECK_LT_DBL(fabs((double)st->refresh_ns - period), 1000.0);
    CHECK_LT_DBL(fabs(renders_per_s - 1e9 / period), 1.01);
    CHECK_EQ_INT(g.missed, 0);
    /* Blocked in the present is waiting, not game time: the game's share
     * is its render cost (2-3 ms of ~16.7). */
    CHECK_GE_U64(st->last_second.present_ns, 1);
    CHECK_LE_DBL(st->last_second.game_share, 0.2);
    CHECK_GE_DBL(st->last_second.wait_share, 0.8);
    /* Just in time: the render starts so close to its vblank that the
     * present waits at most the margins plus the unused predicted cost. */
    CHECK_LE_DBL((double)g.max_blocked_ns, (double)(st->predicted_render_ns + 500 * US - 2 * MS + 100 * US) + extra);
    /* Input to the screen: one refresh + the render cost (its largest) +
     * the pacer's margins (0.5 ms, and P/4). */
    CHECK_GE_U64(g.inputs_seen, 1000);
    CHECK_LE_DBL((double)g.max_latency_ns, period + (double)g.cost_hi + 500e3 + extra);
    /* The loop sleeps about once per render and once per update, not more. */
    CHECK_LE_DBL(st->last_second.frames_per_s, 60 + 1e9 / period + 1e9 / 7.3e6 + 3);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
    drain_sdl_events();
}

/* desc.low_latency (issue 39 section 3): 60 updates/s on a 60 Hz display,
 * the game reading its input in update(), renders of 2-3 ms, vblanks 2.5 ms
 * after the loop's start. The default loop keeps its ticks on the start's
 * phase: ~1 ms after the render wake (lead 3.4 ms), so the input a tick
 * reads waits for the next frame's render (mean input-to-screen 28.4 ms:
 * half a period for the tick, a period less ~1 ms for the render, the
 * lead). With low latency the tick runs at the render wake, right before
 * the render: half a period plus the lead (15.7 ms, with the lead's extra
 * margin at its start, P/4; 11.5 ms without it), no vblank missed, 60
 * renders and 60 updates a second. `low`: the flag; returns the mean
 * latency in ns. */
static double low_latency_run(bool low, uint64_t *renders_after_update, uint64_t *updates, uint64_t *renders)
{
    game g;
    game_init(&g);
    g.vb0 = T0 + 2500 * US;
    g.cost_lo = 2 * MS;
    g.cost_hi = 3 * MS;
    g.warmup_until = T0 + 1 * S;
    g.read_in_update = true;
    g.next_input_ns = T0 + 3 * MS;
    g.input_step_ns = 7300 * US; /* not a multiple of the refresh: every phase */
    tempo_fake_clock_on_wait(g.fc, input_hook, &g);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_ON,
                                                       .input_event = on_input, .low_latency = low});
    run_until(loop, &g, T0 + 1 * S, 10000000);
    uint64_t r0 = g.renders, u0 = g.updates, a0 = g.renders_after_update;
    run_until(loop, &g, T0 + 11 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    double mean = g.lat_n ? (double)g.lat_sum_ns / (double)g.lat_n : 0;
    tt_note("low_latency %d: mean input-to-screen %.2f ms over %llu inputs; %llu of %llu renders "
            "right after an update; %llu updates; missed %d; pacing %s, predicted render %.2f ms",
            low, mean / 1e6, (unsigned long long)g.lat_n,
            (unsigned long long)(g.renders_after_update - a0), (unsigned long long)(g.renders - r0),
            (unsigned long long)(g.updates - u0), g.missed, tempo_loop_pacing_name(st->pacing),
            (double)st->predicted_render_ns / 1e6);
    CHECK_EQ_INT(st->pacing, TEMPO_LOOP_PACING_VSYNC);
    *renders_after_update = g.renders_after_update - a0;
    *updates = g.updates - u0;
    *renders = g.renders - r0;
    if (low)
        CHECK_EQ_INT(g.missed, 0);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
    drain_sdl_events();
    return mean;
}

static void low_latency_runs_the_tick_at_the_render_wake(void)
{
    const double P = 1e9 / 60;
    uint64_t after, updates, renders;
    double mean_default = low_latency_run(false, &after, &updates, &renders);
    double mean = low_latency_run(true, &after, &updates, &renders);
    /* Every render follows its update in the same frame; the rates stay. */
    CHECK_GE_U64(after, renders - 2);
    CHECK_GE_U64(updates, 598);
    CHECK_LE_U64(updates, 602);
    CHECK_GE_U64(renders, 598);
    CHECK_LE_U64(renders, 602);
    /* Half a period for the wake, then the lead (render 2-3 ms + 0.5 ms
     * margin + the extra margin's start, P/4, the cost rounded up); at least a
     * third of a frame below the default's ticks on the start's phase. */
    CHECK_LE_DBL(mean, P / 2 + 3.5e6 + 0.5e6 + P / 4);
    CHECK_LE_DBL(mean, mean_default - P / 3);
}

static void vsync_60hz_present_is_a_wait(void)
{
    vsync_run(S, 60, "60 Hz");
}

static void vsync_59_94hz_present_is_a_wait(void)
{
    vsync_run(S * 1001, 60000, "59.94 Hz");
}

static void vsync_toggle_needs_a_present_the_loop_makes(void)
{
    game g;
    game_init(&g);
    tempo_loop *plain = game_loop(&g, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_ON});
    CHECK(!tempo_loop_get_vsync(plain)); /* the game presents: the loop cannot pace by it */
    CHECK_EQ_INT(tempo_loop_set_vsync(plain, true), TEMPO_ENOTSUP);
    tempo_loop_destroy(plain);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.present = fake_vsync_present});
    /* AUTO with a present the loop makes: measured, and it blocks. */
    CHECK(tempo_loop_get_vsync(loop));
    CHECK_EQ_INT(tempo_loop_get_pacing(loop), TEMPO_LOOP_PACING_PROBING);
    run_until(loop, &g, T0 + 1 * S, 1000000);
    CHECK_GE_U64(g.presents, 59);
    CHECK_EQ_INT(tempo_loop_get_pacing(loop), TEMPO_LOOP_PACING_VSYNC);
    CHECK_EQ_INT(tempo_loop_set_vsync(loop, false), 0);
    CHECK_EQ_INT(tempo_loop_get_pacing(loop), TEMPO_LOOP_PACING_TIMER);
    CHECK_EQ_INT(tempo_loop_set_vsync(loop, true), 0);
    CHECK(tempo_loop_get_vsync(loop));
    uint64_t r = g.renders;
    run_until(loop, &g, T0 + 3 * S, 1000000);
    CHECK_GE_U64(g.renders - r, 119);
    CHECK_LE_U64(g.renders - r, 121);
    CHECK_EQ_INT(tempo_loop_get_pacing(loop), TEMPO_LOOP_PACING_VSYNC);
    CHECK_EQ_INT(tempo_loop_set_vsync(loop, false), 0);
    CHECK_EQ_INT(tempo_loop_set_vsync(NULL, false), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_get_pacing(NULL), TEMPO_LOOP_PACING_TIMER);
    CHECK_STR_EQ(tempo_loop_pacing_name(TEMPO_LOOP_PACING_WITHHELD), "presents-withheld");
    CHECK_STR_EQ(tempo_loop_pacing_name(TEMPO_LOOP_PACING_COUNT), "?");
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

static void counting_present(tempo_loop *loop, void *user)
{
    game *g = user;
    (void)loop;
    g->presents++; /* "vsync" that does not block: it costs only its own work */
    tempo_fake_clock_advance(g->fc, g->present_cost_ns);
}

/* The renderer says PRESENTVSYNC but the present does not block (a driver
 * or compositor that ignores it, SDL's offscreen driver with the software
 * renderer): the loop must still not spin, whatever the render and present
 * cost. (On the merged loop, a 3 ms render with a 1 ms present taught the
 * pacer a "faster display" and bounce --headless rendered 306 times/s.) */
static void nonblocking_vsync_run(uint64_t render_ns, uint64_t jitter_ns, uint64_t present_ns)
{
    game g;
    game_init(&g);
    g.cost_lo = render_ns;
    g.cost_hi = render_ns + jitter_ns;
    g.present_cost_ns = present_ns;
    tempo_loop *loop =
        game_loop(&g, (tempo_loop_desc){.present = counting_present, .vsync = TEMPO_LOOP_VSYNC_ON});
    uint64_t frames = run_until(loop, &g, T0 + 2 * S, 1000000);
    tt_note("render %llu+%llu us, present %llu us: %llu frames, %llu presents in 2 s",
            (unsigned long long)(render_ns / US), (unsigned long long)(jitter_ns / US),
            (unsigned long long)(present_ns / US),
            (unsigned long long)frames, (unsigned long long)g.presents);
    CHECK_GE_U64(tempo_fake_clock_now(g.fc), T0 + 2 * S);
    CHECK_GE_U64(g.presents, 100);
    /* The loop's floor: one render per 15/16 of the nominal 60 Hz period. */
    CHECK_LE_U64(g.presents, 2 * S / (S / 60 - S / 60 / 16) + 1);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

static void vsync_that_does_not_block_still_paces(void)
{
    static const uint64_t costs[][3] = {
        {500 * US, 0, 0},      {3 * MS, 0, 0},         {3 * MS, 0, 1 * MS},  {1 * MS, 0, 2 * MS},
        {8 * MS, 0, 100 * US}, {12 * MS, 0, 3 * MS},   {1 * MS, 5 * MS, 0},  {2 * MS, 2 * MS, 1 * MS},
        {0, 10 * MS, 0},       {5 * MS, 10 * MS, 2 * MS},
    };
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++)
        nonblocking_vsync_run(costs[i][0], costs[i][1], costs[i][2]);
}


/* A present that does not block, whose 2nd to 5th calls each take 5 ms:
 * the X server busy while the window first appears, under SDL's software
 * renderer drawing to the window (SDL_FRAMEBUFFER_ACCELERATION=0). */
static void slow_at_first_present(tempo_loop *loop, void *user)
{
    (void)loop;
    game *g = user;
    g->presents++;
    tempo_fake_clock_advance(g->fc, g->presents >= 2 && g->presents <= 5 ? 5 * MS : g->present_cost_ns);
}

/* The probe's "a" presents were the slow ones, so its quarter-period test
 * said "blocks". The returns it had made came at its own call times, 4 to
 * 9 ms apart: no display. The loop must not pace by a vblank learnt from
 * them. (Before: the pacer took the run of short intervals for a faster
 * display than the mode said, learnt an 8.5 ms period, and every present
 * then returned just after a vblank of that rhythm of its own: paced as a
 * 118 Hz vsync for good, 59 vblanks "missed" a second, one measurement in
 * all; seen in a game under Xvfb, 2 runs of 8, at 127.6 Hz.) */
static void probe_rhythm_is_not_a_display(void)
{
    game g;
    game_init(&g);
    g.cost_lo = 300 * US;
    g.cost_hi = 1400 * US;
    g.present_cost_ns = 200 * US;
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.present = slow_at_first_present});
    run_until(loop, &g, T0 + 4 * S, 1000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    tempo_loop_counts c = st->last_second;
    tt_note("pacing %s, refresh %.3f ms; last second: %.2f renders/s, %.1f sleeps/s, %llu missed vblanks; "
            "%llu probes in all",
            tempo_loop_pacing_name(st->pacing), (double)tempo_loop_get_refresh_ns(loop) / 1e6, c.renders_per_s,
            c.sleeps_per_s, (unsigned long long)c.missed_vblanks, (unsigned long long)st->total.probes);
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "timer");
    CHECK_EQ_U64(tempo_loop_get_refresh_ns(loop), 16666667);
    CHECK_EQ_U64(c.missed_vblanks, 0);
    CHECK_LE_DBL(c.renders_per_s, 60 * 1.005 + (double)c.probes);
    CHECK_GE_DBL(c.renders_per_s, 60 * 0.995);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

static int busy_source(void *self, tempo_source_call *call)
{
    game *g = self;
    /* Units of 6 ms until the deadline (at least one), always more left:
     * a loader with a long queue of texture uploads. */
    do {
        tempo_fake_clock_advance(g->fc, 6 * MS);
        call->items++;
    } while (tempo_fake_clock_now(g->fc) < call->deadline_ns);
    return 1;
}

/* A source that always has work fills the time up to each render and
 * overruns it by up to one unit: frames run late, and renders must still
 * reach about every vblank (a guard for how a passed pacer wake is
 * handled: it makes the render due, it is never moved forward). */
static void vsync_late_frames_still_render(void)
{
    game g;
    game_init(&g);
    g.cost_lo = g.cost_hi = 1 * MS;
    tempo_handle *work = tempo_event_create(true, true); /* manual reset, stays signalled */
    tempo_loop *loop =
        game_loop(&g, (tempo_loop_desc){.present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_ON});
    tempo_loop_add_source(loop, &(tempo_source_desc){.name = "busy", .handle = work, .dispatch = busy_source,
                                                     .self = &g});
    uint64_t frames = run_until(loop, &g, T0 + 2 * S, 100000);
    tt_note("%llu frames, %llu renders, %llu updates in 2 s with a source that always has work",
            (unsigned long long)frames, (unsigned long long)g.renders, (unsigned long long)g.updates);
    CHECK_GE_U64(g.renders, 55); /* at worst one render every two vblanks */
    tempo_loop_destroy(loop);
    tempo_event_destroy(work);
    tempo_fake_clock_destroy(g.fc);
}


/* A burst of network messages arrives while the loop thread is preempted
 * in a render, after the pacer has learnt half a period of margin for a
 * present that does 2.2-3.2 ms of its own work (1 % up to 7 ms: SDL's
 * window texture under Xvfb). bench_game, 4 s in: 10 000 messages, one
 * render of 8.41 ms among 0.5-1 ms ones. The pacer predicted from the
 * largest of the last 16 costs, so the lead passed the period: the loop
 * rendered at once after every present, the netq's deadline was always
 * now, and it handled one message a frame (the oldest 517 ms old here,
 * 417-534 ms in bench_game). */
static void burst_msg(const tempo_netq_msg *m, void *user)
{
    (void)m;
    tempo_fake_clock_advance(((game *)user)->fc, 2500);
}

static void preempted_render_does_not_starve_the_netq(void)
{
    game g;
    game_init(&g);
    g.cost_lo = 500 * US;
    g.cost_hi = 1 * MS;
    g.work_lo = 2200 * US;
    g.work_hi = 3200 * US;
    g.spike_hi = 7 * MS;
    tempo_loop *loop =
        game_loop(&g, (tempo_loop_desc){.present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_ON});
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = tempo_fake_clock_get(g.fc)});
    CHECK(loop != NULL && q != NULL);
    if (loop == NULL || q == NULL) {
        tempo_loop_destroy(loop);
        tempo_netq_destroy(q);
        tempo_fake_clock_destroy(g.fc);
        return;
    }
    CHECK_EQ_INT(tempo_netq_attach(q, loop, burst_msg, &g), 0);
    run_until(loop, &g, T0 + 4 * S, 1000000);
    uint64_t missed = tempo_loop_get_stats(loop)->total.missed_vblanks;
    for (uint32_t i = 0; i < 10000; i++)
        CHECK_EQ_INT(tempo_netq_push(q, 1, &i, sizeof i), 0);
    g.stall_at = tempo_fake_clock_now(g.fc);
    g.stall_ns = 8410 * US - 750 * US; /* 8.41 ms with the render's own */
    run_until(loop, &g, T0 + 6 * S, 1000000);
    tempo_netq_stats ns;
    tempo_netq_get_stats(q, &ns);
    uint64_t missed_after = tempo_loop_get_stats(loop)->total.missed_vblanks - missed;
    tt_note("oldest message %.1f ms; %" PRIu64 " vblanks missed in the 2 s after the burst", (double)ns.max_age_ns / 1e6,
            missed_after);
    CHECK_EQ_U64(ns.processed, 10000);
    /* ~6.7 ms for the sources a frame (the learnt margin takes the rest):
     * 25 ms of messages in 4-5 frames, not 10 000 */
    CHECK_LE_U64(ns.max_age_ns, 120 * MS);
    CHECK_LE_U64(missed_after, 2);
    tempo_loop_destroy(loop);
    tempo_netq_destroy(q);
    tempo_fake_clock_destroy(g.fc);
}

/* ---- Issue 21 section 1: AUTO decides from what the present does -------------- */

/* One run: a present that blocks on the vblanks of a num/den display, or
 * one that does not (SDL's software renderer: it reports PRESENTVSYNC and
 * returns at once), under desc.vsync `mode`; input arrives 137 times a
 * second. Returns the last second's counts after 4 s. */
static tempo_loop_counts pacing_run(tempo_loop_vsync mode, bool blocks, uint64_t num, uint64_t den,
                                    tempo_loop_pacing *pacing, uint64_t *refresh_ns)
{
    game g;
    game_init(&g);
    g.num = num;
    g.den = den;
    g.cost_lo = 1 * MS;
    g.cost_hi = 3 * MS;
    g.present_cost_ns = 300 * US;
    g.next_input_ns = T0 + 3 * MS;
    g.input_step_ns = 7300 * US;
    tempo_fake_clock_on_wait(g.fc, input_hook, &g);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){
        .present = blocks ? fake_vsync_present : counting_present, .vsync = mode, .input_event = on_input,
        .display_hz = 60});
    run_until(loop, &g, T0 + 4 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    *pacing = st->pacing;
    *refresh_ns = st->refresh_ns;
    tempo_loop_counts c = st->last_second;
    tt_note("vsync %d, present %s, %.2f Hz: pacing %s, refresh %llu ns, %.2f renders/s, %.2f updates/s, "
            "%.1f sleeps/s, %.1f frames/s, lateness p99 %.3f ms",
            (int)mode, blocks ? "blocks" : "does not block", 1e9 * (double)den / (double)num,
            tempo_loop_pacing_name(st->pacing), (unsigned long long)st->refresh_ns, c.renders_per_s,
            c.updates_per_s, c.sleeps_per_s, c.frames_per_s, (double)c.lateness_p99_ns / 1e6);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
    drain_sdl_events();
    return c;
}

static void auto_vsync_decides_from_the_present(void)
{
    static const uint64_t disp[][2] = {{S, 60}, {S * 1001, 60000}};
    const double input_hz = 1e9 / 7.3e6;
    for (int d = 0; d < 2; d++) {
        double hz = 1e9 * (double)disp[d][1] / (double)disp[d][0];
        for (int mode = TEMPO_LOOP_VSYNC_AUTO; mode <= TEMPO_LOOP_VSYNC_OFF; mode++) {
            for (int blocks = 0; blocks <= 1; blocks++) {
                tempo_loop_pacing pacing;
                uint64_t refresh;
                tempo_loop_counts c =
                    pacing_run((tempo_loop_vsync)mode, blocks, disp[d][0], disp[d][1], &pacing, &refresh);
                bool vsync = blocks && mode != TEMPO_LOOP_VSYNC_OFF;
                CHECK_STR_EQ(tempo_loop_pacing_name(pacing),
                             tempo_loop_pacing_name(vsync ? TEMPO_LOOP_PACING_VSYNC : TEMPO_LOOP_PACING_TIMER));
                /* Renders at the refresh, never above it: the display's vblanks
                 * with vsync, else the timer at the display's rate (60). */
                double expect = vsync ? hz : 60.0;
                /* A re-measurement of the timer's presents (every 2, 4, ..
                 * 32 s) moves the render phase a whole period: one render
                 * more and a few wake-ups off the update grid, per probe. */
                double probes = (double)c.probes;
                CHECK_LE_DBL(c.renders_per_s, expect * 1.005 + 0.1 + probes);
                CHECK_GE_DBL(c.renders_per_s, expect * 0.995 - 0.1);
                if (vsync)
                    CHECK_LT_DBL(fabs(1e9 / (double)refresh - hz), 0.05);
                /* Wake-ups: one per render (updates share the timer's slots, or
                 * sleep in the present) plus one per input, and a few. */
                CHECK_LE_DBL(c.sleeps_per_s, (blocks ? hz + 60.0 : 60.0) + input_hz + 2 + 8 * probes);
                if (tt_failed())
                    return;
            }
        }
    }
}

/* The first measurement of a blocking present calls its renders at two
 * phases a quarter period apart. Made a, b, a, b, ... every a-to-b step
 * was a render interval of 1.25 periods, a late frame each (4 in the first
 * 0.2 s); made a, a, a, a, b, b, b, b there was one such step, and one
 * more from the loop's first render to the first "a" (issue 39 section 2:
 * two of bench_game's three late intervals in the first 0.5 s). With a
 * blocking present the render phase can only move later by lengthening a
 * render interval, so the probe moves it in steps, as the hand-over does:
 * no interval over 1 ms more than a period (bench_game's "late"). Counted
 * over the first 64 renders, the hand-over included.
 * The step leaves room for a loop woken late: at 60 Hz a step of P/20
 * (0.83 ms) with renders starting up to 0.3 ms late (a real machine's
 * wake-ups: 0.05-0.2 ms at p99, 0.6 ms at worst) made intervals of 17.7 ms
 * (bench_game: steps of 17.53-17.66 ms, 4 over 17.67 in the first 0.5 s of
 * 120 rows); P/24 (0.69 ms) leaves 0.31 ms (2 of 120). */
static void first_probe_makes_no_long_render_interval(void)
{
    for (int d = 0; d < 3; d++) {
        game g;
        game_init(&g);
        g.cost_lo = 1 * MS;
        g.cost_hi = 2 * MS;
        g.start_late_hi = d == 2 ? 300 * US : 0;
        uint32_t hz = d == 1 ? 144 : 60;
        tempo_loop *loop = game_loop(&g, (tempo_loop_desc){
            .present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_AUTO, .display_hz = hz});
        g.den = hz;
        run_until(loop, &g, T0 + 2 * S, 10000000);
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), tempo_loop_pacing_name(TEMPO_LOOP_PACING_VSYNC));
        CHECK_EQ_INT(g.nrender_at, 64);
        uint64_t P = S / hz;
        int longer = 0;
        uint64_t longest = 0;
        for (int i = 1; i < g.nrender_at; i++) {
            uint64_t iv = g.render_at[i] - g.render_at[i - 1];
            longer += iv > P + 1 * MS;
            longest = iv > longest ? iv : longest;
        }
        tt_note("%u Hz, renders up to %.1f ms late, first 64 renders: %d intervals over a period + 1 ms, "
                "longest %.2f ms",
                hz, (double)g.start_late_hi / 1e6, longer, (double)longest / 1e6);
        CHECK_EQ_INT(longer, 0);
        /* the step, a render started late, and one woken a hair late */
        CHECK_LE_U64(longest, P + (uint64_t)TEMPO__PACER_HANDOVER_RELAX((double)P) + g.start_late_hi + 50 * US);
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(g.fc);
        drain_sdl_events();
        if (tt_failed())
            return;
    }
}

/* Issue 39 section 2: a present with work of its own before its flip
 * (SDL's software present under Xvfb: 1.3-3.0 ms) lost its first vblank
 * ~0.45 s into every run, where a plain loop lost none: the hand-over to
 * vsync pacing relaxed the lead to the render's cost and the base margin,
 * and only that miss taught the pacer the present's work (P/4 of extra
 * margin). The pacer now starts with that P/4: from the loop's first
 * present, 3 s at 60 and 144 Hz, renders of 0.1-0.4 ms, present work
 * 1.5-2.5 ms (1.5-1.7 ms at 144 Hz, where P/4 is 1.74 ms): no vblank
 * lost (before: 1 at 60 Hz, 1 at 144 Hz). */
static void present_work_loses_no_vblank_at_the_start(void)
{
    for (int d = 0; d < 2; d++) {
        game g;
        game_init(&g);
        uint32_t hz = d == 0 ? 60 : 144;
        g.den = hz;
        g.cost_lo = 100 * US;
        g.cost_hi = 400 * US;
        g.work_lo = 1500 * US;
        g.work_hi = d == 0 ? 2500 * US : 1700 * US;
        g.warmup_until = T0; /* every present counts */
        tempo_loop *loop = game_loop(&g, (tempo_loop_desc){
            .present = fake_vsync_present, .vsync = TEMPO_LOOP_VSYNC_ON, .display_hz = hz});
        run_until(loop, &g, T0 + 3 * S, 10000000);
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        tt_note("%u Hz, present work %.1f-%.1f ms: %d vblanks lost in 3 s (%llu presents), pacing %s", hz,
                (double)g.work_lo / 1e6, (double)g.work_hi / 1e6, g.missed, (unsigned long long)g.presents,
                tempo_loop_pacing_name(st->pacing));
        CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), tempo_loop_pacing_name(TEMPO_LOOP_PACING_VSYNC));
        CHECK_GE_U64(g.presents, 3 * hz - 3);
        CHECK_EQ_INT(g.missed, 0);
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(g.fc);
        drain_sdl_events();
    }
}

/* ---- A late wake-up holds back no other render --------------------------- */

typedef struct late_once {
    game g;
    tempo_loop *loop;
    uint64_t inject_after; /* the first render wake after this is late */
    uint64_t late_ns;      /* by this much */
    uint64_t late_wake_at; /* when that wake was asked for (0: not yet) */
    uint64_t before;       /* the last render before it */
    uint64_t at[64];       /* the renders from the late one on */
    int n;
} late_once;

static uint64_t late_once_wake(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    late_once *v = user;
    if (deadline_ns == TEMPO_INFINITE)
        return now_ns;
    uint64_t late = 20 * US + rnd(&v->g.rng) % (60 * US); /* a real timer's precision */
    if (v->late_wake_at == 0 && deadline_ns >= v->inject_after &&
        deadline_ns == v->loop->sched.pace.pace_wake_ns) {
        v->late_wake_at = deadline_ns; /* the render's wake: the OS runs something else first */
        late = v->late_ns;
    }
    return deadline_ns + late;
}

static void late_once_render(tempo_loop *loop, float alpha, void *user)
{
    late_once *v = user;
    if (v->late_wake_at == 0)
        v->before = tempo_fake_clock_now(v->g.fc);
    else if (v->n < (int)(sizeof v->at / sizeof v->at[0]))
        v->at[v->n++] = tempo_fake_clock_now(v->g.fc);
    on_render(loop, alpha, &v->g);
}

static void late_once_present(tempo_loop *loop, void *user)
{
    fake_vsync_present(loop, &((late_once *)user)->g);
}

/* 60 Hz vsync, render 0.3-0.5 ms, present work 1.5-2 ms, waits 20-80 us
 * late; the first render wake after 2 s `late_ns` late. */
static void late_once_start(late_once *v, uint64_t late_ns)
{
    memset(v, 0, sizeof *v);
    game_init(&v->g);
    v->g.cost_lo = 300 * US;
    v->g.cost_hi = 500 * US;
    v->g.work_lo = 1500 * US;
    v->g.work_hi = 2000 * US;
    v->g.warmup_until = T0 + 1 * S;
    v->inject_after = T0 + 2 * S;
    v->late_ns = late_ns;
    tempo_fake_clock_on_wait(v->g.fc, late_once_wake, v);
    v->loop = tempo_loop_create(&(tempo_loop_desc){
        .present = late_once_present, .vsync = TEMPO_LOOP_VSYNC_ON, .display_hz = 60,
        .clock = tempo_fake_clock_get(v->g.fc), .update = on_update, .render = late_once_render, .user = v});
}

/* The lead before the vblank that the render at `at` made (its present's
 * flip: the first vblank after the render and the present's work), ms. */
static double lead_ms(const late_once *v, uint64_t at)
{
    int64_t k = (int64_t)((at - v->g.vb0) * v->g.den / v->g.num) + 1;
    return (double)(vblank_at(&v->g, k) - at) / 1e6;
}


/* Issue 39 section 2: bench_game's wakes over 1 ms late came in runs of 2-6
 * in Tempo's rows and alone in the plain loop's. The first of a run was the
 * machine's (a kernel thread on the loop thread's core); the others were
 * the loop's own: the floor that keeps a present that does not block from
 * spinning (one render per 15/16 of a period) counted from when the late
 * render ran, so the next render waited past the pacer's wake, 1/16 of a
 * period less late, and the one after it... each taking its lateness out
 * of the lead before its vblank and counting it as render cost. Here
 * (late_once_start) one render's wake is 3 ms late: the next renders start
 * where the pacer asked (before: 1.95 ms and 0.94 ms late, leads of 3.19
 * and 4.20 ms). */
static void a_late_wake_holds_back_no_other_render(void)
{
    late_once v;
    late_once_start(&v, 3 * MS);
    run_until(v.loop, &v.g, T0 + 3 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(v.loop);
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    CHECK_GE_INT(v.n, 4);
    if (v.n < 4) {
        tempo_loop_destroy(v.loop);
        tempo_fake_clock_destroy(v.g.fc);
        return;
    }
    const uint64_t P = S / 60;
    /* Each render's start before the vblank its present made: the lead. */
    double lead[4];
    for (int i = 0; i < 4; i++)
        lead[i] = lead_ms(&v, v.at[i]);
    tt_note("wake asked for at +%.3f s, 3 ms late; render intervals from it %.2f, %.2f, %.2f ms; leads before "
            "the vblank %.2f (late), %.2f, %.2f, %.2f ms; %d vblanks lost after warm-up",
            (double)(v.late_wake_at - T0) / 1e9, (double)(v.at[1] - v.at[0]) / 1e6,
            (double)(v.at[2] - v.at[1]) / 1e6, (double)(v.at[3] - v.at[2]) / 1e6, lead[0], lead[1], lead[2],
            lead[3], v.g.missed);
    CHECK_GE_U64(v.at[0], v.late_wake_at + v.late_ns);
    /* Back where the pacer asked: the late render's interval less its
     * lateness (and a wake's 80 us), then a period apart. */
    CHECK_LE_U64(v.at[1] - v.at[0], P - v.late_ns + 200 * US);
    CHECK_LE_U64(v.at[2] - v.at[1], P + 200 * US);
    CHECK_LE_U64(v.at[3] - v.at[2], P + 200 * US);
    CHECK(lead[1] > lead[0] + 2.5 && lead[2] > lead[0] + 2.5);
    CHECK_EQ_INT(v.g.missed, 0);
    tempo_loop_destroy(v.loop);
    tempo_fake_clock_destroy(v.g.fc);
    drain_sdl_events();
}

/* Issue 39 section 2: a wake that comes after its vblank (bench_game: 7.9
 * and 10.0 ms late against a ~5 ms lead, the kernel on the loop thread's
 * core) rendered at once: its frame, drawn too early, waited for the next
 * vblank, and the render after it for the one after that: two render
 * intervals over a period (21-25 and 25-29 ms) for one vblank lost.
 * Now the render is given up for the next vblank's wake: one interval of
 * two periods, the frame drawn at the usual lead (fresher by the 8 ms),
 * and no margin learnt from the vblank lost (the present did not miss it).
 * The game of late_once_start; the wake 8 ms late, past its vblank. */
static void a_wake_past_its_vblank_renders_for_the_next(void)
{
    late_once v;
    late_once_start(&v, 8 * MS);
    run_until(v.loop, &v.g, v.inject_after, 10000000);
    /* What the pacer learns of the present's need (its own, and one that
     * waited for an update): a vblank given up is no miss of the present's. */
    double margin = v.loop->pres.pacer.extra_margin_ns, wait_need = v.loop->pres.pacer.wait_need_ns;
    run_until(v.loop, &v.g, T0 + 3 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(v.loop);
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    CHECK_GE_INT(v.n, 3);
    if (v.n >= 3) {
        const uint64_t P = S / 60, over = P + 1 * MS; /* bench_game's late interval */
        uint64_t iv[3] = {v.at[0] - v.before, v.at[1] - v.at[0], v.at[2] - v.at[1]};
        int late = (iv[0] > over) + (iv[1] > over) + (iv[2] > over);
        tt_note("wake asked for at +%.3f s, 8 ms late; render intervals from the render before it %.2f, %.2f, "
                "%.2f ms (%d over a period); leads %.2f, %.2f ms; vblanks given up %llu, lost after warm-up %d; "
                "extra margin %.2f -> %.2f ms, a waiting present's need %.2f -> %.2f ms",
                (double)(v.late_wake_at - T0) / 1e9, (double)iv[0] / 1e6, (double)iv[1] / 1e6, (double)iv[2] / 1e6,
                late, lead_ms(&v, v.at[0]), lead_ms(&v, v.at[1]),
                (unsigned long long)v.loop->pres.pacer.st.given_up, v.g.missed, margin / 1e6,
                v.loop->pres.pacer.extra_margin_ns / 1e6, wait_need / 1e6, v.loop->pres.pacer.wait_need_ns / 1e6);
        CHECK_EQ_INT(late, 1);
        CHECK_GE_U64(iv[0], 2 * P - 200 * US);
        CHECK_LE_U64(iv[1], P + 200 * US);
        CHECK(lead_ms(&v, v.at[0]) > 4.0 && lead_ms(&v, v.at[0]) < 6.0);
        CHECK_EQ_U64(v.loop->pres.pacer.st.given_up, 1);
        CHECK_EQ_INT(v.g.missed, 1);
        CHECK(v.loop->pres.pacer.extra_margin_ns <= margin);
        CHECK(v.loop->pres.pacer.wait_need_ns <= wait_need);
    }
    tempo_loop_destroy(v.loop);
    tempo_fake_clock_destroy(v.g.fc);
    drain_sdl_events();
}

/* LOCKSTEP renders after its ticks, not on a schedule: the probe renders
 * still wait for their instants, so the verdict holds there too. */
static void lockstep_measures_the_present_too(void)
{
    for (int blocks = 0; blocks <= 1; blocks++) {
        game g;
        game_init(&g);
        g.cost_lo = 1 * MS;
        g.cost_hi = 2 * MS;
        g.present_cost_ns = 500 * US;
        tempo_loop *loop = game_loop(&g, (tempo_loop_desc){
            .policy = TEMPO_LOOP_LOCKSTEP, .present = blocks ? fake_vsync_present : counting_present});
        run_until(loop, &g, T0 + 2 * S, 1000000);
        tempo_loop_pacing p = tempo_loop_get_pacing(loop);
        tt_note("lockstep, present %s: pacing %s, %llu renders in 2 s", blocks ? "blocks" : "does not block",
                tempo_loop_pacing_name(p), (unsigned long long)g.renders);
        CHECK_STR_EQ(tempo_loop_pacing_name(p),
                     tempo_loop_pacing_name(blocks ? TEMPO_LOOP_PACING_VSYNC : TEMPO_LOOP_PACING_TIMER));
        CHECK_GE_U64(g.renders, 115);
        CHECK_LE_U64(g.renders, 125);
        if (!blocks) {
            /* Renders follow the ticks: no phase to move, so no periodic
             * re-measurement (it would need a longer render interval). */
            run_until(loop, &g, T0 + 20 * S, 10000000);
            const tempo_loop_stats *st = tempo_loop_get_stats(loop);
            CHECK_EQ_U64(st->total.probes, 1);
            CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "timer");
        }
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(g.fc);
    }
}

/* ---- Issue 23 item 2: presents that stop coming back are a state --------------- */

typedef struct withheld_game {
    game g;
    tempo_loop *loop;
    uint64_t from_ns, to_ns;      /* presents block 167 ms in [from, to) */
    int long_before_state;        /* long presents made before the loop named the state */
    uint64_t state_at_ns;         /* when the loop first reported WITHHELD */
    uint64_t vsync_back_at_ns;    /* when it paced by vsync again after `to` */
} withheld_game;

static void withheld_present(tempo_loop *loop, void *user)
{
    withheld_game *w = user;
    uint64_t now = tempo_fake_clock_now(w->g.fc);
    if (now >= w->from_ns && now < w->to_ns) {
        if (tempo_loop_get_pacing(loop) != TEMPO_LOOP_PACING_WITHHELD)
            w->long_before_state++;
        w->g.presents++;
        tempo_fake_clock_advance(w->g.fc, 167 * MS); /* the compositor sends no frame callback */
        return;
    }
    fake_vsync_present(loop, &w->g);
}

/* A Wayland window (SDL 2.26): the window system says nothing of a window
 * it does not show; its withheld presents are the only sign (issue 39:
 * elsewhere the window system's word decides, test_loop_visible). */
static plat_visibility wayland_says_nothing(SDL_Window *window)
{
    (void)window;
    return PLAT_VISIBILITY_UNSAID;
}

static void withheld_run(bool run_while_hidden)
{
    withheld_game w;
    memset(&w, 0, sizeof w);
    game_init(&w.g);
    w.g.cost_lo = w.g.cost_hi = 1 * MS;
    w.from_ns = T0 + 2 * S;
    w.to_ns = T0 + 6 * S;
    tempo_loop_desc d = {.present = withheld_present, .run_while_hidden = run_while_hidden,
                         .clock = tempo_fake_clock_get(w.g.fc), .update = on_update, .render = on_render,
                         .on_pause = on_pause, .user = &w};
    w.loop = tempo_loop_create(&d);
    w.loop->pres.window_visibility = wayland_says_nothing;
    /* on_update/on_render/on_pause take the game at the start of w. */
    run_until(w.loop, &w.g, T0 + 2 * S, 1000000);
    CHECK_EQ_INT(tempo_loop_get_pacing(w.loop), TEMPO_LOOP_PACING_VSYNC);
    uint64_t u0 = w.g.updates;
    const tempo_loop_stats *st = tempo_loop_get_stats(w.loop);
    uint64_t dropped0 = st->total.dropped_updates, stalls0 = st->total.stalls;
    uint64_t slowdown0 = st->total.slowdown_ns, capped0 = st->total.capped_frames;
    while (tempo_fake_clock_now(w.g.fc) < T0 + 8 * S) {
        CHECK_EQ_INT(tempo_loop_frame(w.loop), 0);
        uint64_t now = tempo_fake_clock_now(w.g.fc);
        tempo_loop_pacing p = tempo_loop_get_pacing(w.loop);
        if (p == TEMPO_LOOP_PACING_WITHHELD && w.state_at_ns == 0)
            w.state_at_ns = now;
        if (p == TEMPO_LOOP_PACING_VSYNC && now >= w.to_ns && w.vsync_back_at_ns == 0)
            w.vsync_back_at_ns = now;
        if (now < w.to_ns && now >= w.from_ns + 1 * S && w.state_at_ns != 0) {
            CHECK_STR_EQ(tempo_loop_pacing_name(tempo_loop_get_stats(w.loop)->pacing), "presents-withheld");
            CHECK(tempo_loop_is_paused(w.loop) == !run_while_hidden);
        }
        if (tt_failed())
            break;
    }
    st = tempo_loop_get_stats(w.loop);
    uint64_t updates = w.g.updates - u0;
    tt_note("%s: %d long presents before the state (at +%.3f s), vsync back %.3f s after the frames; "
            "%llu updates in 6 s, dropped %llu, stalls %llu, withheld %.2f s, %llu withheld presents; "
            "pause calls %d, resume calls %d",
            run_while_hidden ? "run when hidden" : "pause when hidden", w.long_before_state,
            (double)(w.state_at_ns - w.from_ns) / 1e9, (double)(w.vsync_back_at_ns - w.to_ns) / 1e9,
            (unsigned long long)updates, (unsigned long long)(st->total.dropped_updates - dropped0),
            (unsigned long long)(st->total.stalls - stalls0), (double)st->total.withheld_ns / 1e9,
            (unsigned long long)st->total.withheld_presents, w.g.pause_calls, w.g.resume_calls);
    CHECK_LE_INT(w.long_before_state, 2);
    CHECK(w.state_at_ns != 0);
    CHECK(w.vsync_back_at_ns != 0);
    CHECK_LE_U64(w.vsync_back_at_ns - w.to_ns, 1 * S);
    CHECK_EQ_U64(st->total.dropped_updates - dropped0, 0);
    CHECK_EQ_U64(st->total.stalls - stalls0, 0);
    CHECK_GE_U64(st->total.withheld_ns, 3 * S);
    uint64_t slowdown = st->total.slowdown_ns - slowdown0;
    tt_note("slowdown %.1f ms (game time given up at the debt cap), %llu capped frames", (double)slowdown / 1e6,
            (unsigned long long)(st->total.capped_frames - capped0));
    if (run_while_hidden) {
        /* Updates kept the full rate through the 4 s of withheld frames,
         * but for what the two long presents before the state gave up:
         * 334 ms owed, paced by vsync, where the catch-up is bounded per
         * render and the debt kept at max_gap (250 ms): 0-84 ms, by the
         * phase the first long present starts at (68.7 ms here, with the
         * pacer's extra margin starting at P/4). */
        CHECK_LE_U64(slowdown, 84 * MS);
        uint64_t owed = updates + (slowdown + S / 120) / (S / 60);
        CHECK_GE_U64(owed, 6 * 60 - 2);
        CHECK_LE_U64(owed, 6 * 60 + 2);
        CHECK_EQ_INT(w.g.pause_calls, 0);
    } else {
        /* The hidden-pause: paused from the state until frames came back. */
        CHECK_EQ_INT(w.g.pause_calls, 1);
        CHECK_EQ_INT(w.g.resume_calls, 1);
        CHECK_LE_U64(updates, 2 * 60 + 2 * 10 + 70);
    }
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    tempo_loop_destroy(w.loop);
    tempo_fake_clock_destroy(w.g.fc);
}

static void withheld_presents_keep_the_update_rate(void)
{
    withheld_run(true);
}

static void withheld_presents_are_the_hidden_pause(void)
{
    withheld_run(false);
}

/* Presents withheld from the k-th present on, for every k over the first
 * probe (which ends with a verdict and a change of pacing on one of these
 * presents): at most two presents block before the loop names the state.
 * Measured on weston (bench_present, 1 of 3 rounds): the hidden-pause came
 * after three 167 ms presents when the window was minimized while the loop
 * was probing; the verdict's change of pacing had reset the run of long
 * presents. */
typedef struct withheld_from_game {
    game g;
    int k, presents, long_before_state;
} withheld_from_game;

static void withheld_from_present(tempo_loop *loop, void *user)
{
    withheld_from_game *w = user;
    if (++w->presents < w->k) {
        tempo_fake_clock_advance(w->g.fc, 200 * US); /* does not block: the probe says "timer" */
        return;
    }
    if (tempo_loop_get_pacing(loop) != TEMPO_LOOP_PACING_WITHHELD)
        w->long_before_state++;
    tempo_fake_clock_advance(w->g.fc, 167 * MS); /* the compositor sends no frame callback */
}

static void withheld_during_a_probe_takes_two_presents(void)
{
    int worst = 0, worst_k = 0;
    for (int k = 1; k <= 16; k++) {
        withheld_from_game w;
        memset(&w, 0, sizeof w);
        game_init(&w.g);
        w.g.cost_lo = w.g.cost_hi = 1 * MS;
        w.k = k;
        tempo_loop_desc d = {.present = withheld_from_present, .run_while_hidden = true,
                             .clock = tempo_fake_clock_get(w.g.fc), .update = on_update, .render = on_render,
                             .user = &w};
        tempo_loop *loop = tempo_loop_create(&d);
        while (tempo_fake_clock_now(w.g.fc) < T0 + 3 * S && tempo_loop_get_pacing(loop) != TEMPO_LOOP_PACING_WITHHELD)
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        if (tempo_loop_get_pacing(loop) != TEMPO_LOOP_PACING_WITHHELD) {
            tt_note("k=%d: never withheld", k);
            worst = 99;
            worst_k = k;
        } else if (w.long_before_state > worst) {
            worst = w.long_before_state;
            worst_k = k;
        }
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(w.g.fc);
        if (tt_failed())
            break;
    }
    tt_note("most presents blocked before the state: %d (withheld from present %d on)", worst, worst_k);
    CHECK_LE_INT(worst, 2);
}

/* ---- Issue 23 item 3: the refresh learnt is what the display delivers ----------- */

typedef struct delivery {
    game g;
    uint64_t base_ns;       /* frame k of the compositor at base + k * S/48 + jitter */
    int64_t k;              /* the next frame */
    uint64_t next_frame_ns; /* its time */
    uint64_t jitter_ns;     /* 0 => 2 ms */
} delivery;

/* A compositor that delivers 48 frames/s irregularly (each frame callback
 * up to 2 ms late on a 48 Hz grid: intervals 18.8 to 22.8 ms) under a
 * display mode that says 65 Hz. */
static void delivered_present(tempo_loop *loop, void *user)
{
    (void)loop;
    delivery *v = user;
    uint64_t now = tempo_fake_clock_now(v->g.fc);
    while (v->next_frame_ns < now) {
        v->k++;
        v->next_frame_ns = v->base_ns + (uint64_t)v->k * S / 48 + rnd(&v->g.rng) % (v->jitter_ns ? v->jitter_ns : 2 * MS);
    }
    tempo_fake_clock_set(v->g.fc, v->next_frame_ns + 30 * US);
    v->k++;
    v->next_frame_ns = v->base_ns + (uint64_t)v->k * S / 48 + rnd(&v->g.rng) % (v->jitter_ns ? v->jitter_ns : 2 * MS);
    v->g.presents++;
}

/* A compositor whose frame callbacks come irregularly (48 frames/s on a 60 Hz
 * mode, each callback up to 6, 8 or 10 ms late on its grid: weston's pixman
 * repaints here) keeps AUTO pacing by the presents for 30 s. The presents
 * block, so the quarter-period probe must never call them free: it did
 * (the median of four differences spread over the period landed near 0)
 * and the loop paced by its 60 Hz timer while the presents blocked 87-93 %
 * of the time (old code: timer after 4.8, 0.2 and 1.8 s). */
static void irregular_frames_keep_vsync_pacing(void)
{
    const uint64_t jitter[] = {6 * MS, 8 * MS, 10 * MS};
    for (int j = 0; j < 3; j++) {
        delivery v;
        memset(&v, 0, sizeof v);
        game_init(&v.g);
        v.g.cost_lo = 1 * MS;
        v.g.cost_hi = 2 * MS;
        v.jitter_ns = jitter[j];
        v.base_ns = v.next_frame_ns = T0 + 7 * MS;
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .present = delivered_present, .display_hz = 60, .clock = tempo_fake_clock_get(v.g.fc),
            .update = on_update, .render = on_render, .user = &v});
        uint64_t timer_at = 0;
        int probes = 0;
        tempo_loop_pacing last = TEMPO_LOOP_PACING_COUNT;
        while (tempo_fake_clock_now(v.g.fc) < T0 + 30 * S) {
            CHECK_EQ_INT(tempo_loop_frame(loop), 0);
            tempo_loop_pacing p = tempo_loop_get_pacing(loop);
            if (p == TEMPO_LOOP_PACING_TIMER && timer_at == 0)
                timer_at = tempo_fake_clock_now(v.g.fc) - T0;
            if (p != last && p == TEMPO_LOOP_PACING_PROBING)
                probes++;
            last = p;
            if (tt_failed())
                break;
        }
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        double renders_per_s = (double)st->total.renders * 1e9 / (double)st->total.elapsed_ns;
        tt_note("callbacks up to %llu ms late: pacing %s, timer %s%.2f s, %d probes, refresh %.2f Hz, %.2f "
                "renders/s (last second %.2f), blocked in presents %.0f %%",
                (unsigned long long)(jitter[j] / MS), tempo_loop_pacing_name(st->pacing),
                timer_at ? "from " : "never ", (double)timer_at / 1e9, probes, 1e9 / (double)st->refresh_ns,
                renders_per_s, st->last_second.renders_per_s,
                100.0 * (double)st->total.present_ns / (double)st->total.elapsed_ns);
        CHECK_EQ_U64(timer_at, 0);
        /* The whole run's rate: single seconds with a re-probe in them dip
         * to 35-38 renders/s at 8 and 10 ms on the code before the merge
         * with frames2 as well. */
        CHECK_GE_DBL(renders_per_s, 40.0);
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(v.g.fc);
    }
}

static void learnt_refresh_is_what_is_delivered(void)
{
    delivery v;
    memset(&v, 0, sizeof v);
    game_init(&v.g);
    v.g.cost_lo = 1 * MS;
    v.g.cost_hi = 2 * MS;
    v.base_ns = v.next_frame_ns = T0 + 7 * MS;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .present = delivered_present, .display_hz = 65, .clock = tempo_fake_clock_get(v.g.fc),
        .update = on_update, .render = on_render, .user = &v});
    run_until(loop, &v.g, T0 + 6 * S, 1000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    double hz = 1e9 / (double)st->refresh_ns;
    tt_note("mode 65 Hz, ~48 frames/s delivered: pacing %s, learnt %.2f Hz, %.2f renders/s",
            tempo_loop_pacing_name(st->pacing), hz, st->last_second.renders_per_s);
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    CHECK_LT_DBL(fabs(hz - 48.0), 1.5);
    CHECK_LT_DBL(fabs(st->last_second.renders_per_s - 48.0), 2.0);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(v.g.fc);
}

/* ---- Pauses -------------------------------------------------------------------------- */

static void game_pause_stops_updates_and_keeps_rendering(void)
{
    game g;
    game_init(&g);
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.update_hz = 30});
    run_until(loop, &g, T0 + 1 * S + 5 * MS, 1000000);
    uint64_t u = g.updates, r = g.renders;
    CHECK_EQ_INT(tempo_loop_set_game_paused(loop, true), 0);
    CHECK(tempo_loop_is_game_paused(loop));
    CHECK(!tempo_loop_is_paused(loop)); /* not the idle pause */
    float alpha = g.last_alpha;
    run_until(loop, &g, T0 + 3 * S, 1000000);
    CHECK_EQ_U64(g.updates, u);               /* game time stood still */
    CHECK_GE_U64(g.renders - r, 119);         /* the menu rendered at 60 Hz */
    CHECK_LE_U64(g.renders - r, 121);
    CHECK_EQ_DBL(g.last_alpha, alpha > 0 ? g.last_alpha : 0); /* frozen, not jumping */
    CHECK(tempo_loop_get_stats(loop)->game_paused);
    CHECK_EQ_INT(g.pause_calls, 0); /* on_pause is the idle pause's */
    /* Resume: no catch-up burst for the 2 s in the menu. */
    CHECK_EQ_INT(tempo_loop_set_game_paused(loop, false), 0);
    tempo_loop_frame(loop);
    CHECK_EQ_U64(g.updates, u + 1);
    run_until(loop, &g, T0 + 4 * S, 1000000);
    CHECK_GE_U64(g.updates - u, 29);
    CHECK_LE_U64(g.updates - u, 32);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

static void game_pause_in_lockstep_renders_at_the_pace(void)
{
    game g;
    game_init(&g);
    tempo_loop *loop =
        game_loop(&g, (tempo_loop_desc){.update_hz = 10, .policy = TEMPO_LOOP_LOCKSTEP});
    run_until(loop, &g, T0 + 1 * S, 1000000);
    tempo_loop_set_game_paused(loop, true);
    uint64_t u = g.updates, r = g.renders;
    uint64_t frames = run_until(loop, &g, T0 + 2 * S, 1000000);
    CHECK_EQ_U64(g.updates, u);
    CHECK_GE_U64(g.renders - r, 59);
    CHECK_LE_U64(g.renders - r, 61);
    CHECK_LE_U64(frames, 62); /* and slept between them */
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(g.fc);
}

static void idle_pause_tells_the_game_and_a_pause_key_resumes(void)
{
    game g;
    game_init(&g);
    g.pause_key_resumes = true;
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    tempo_loop *loop =
        game_loop(&g, (tempo_loop_desc){.input = in, .input_event = on_input});
    run_until(loop, &g, T0 + 100 * MS, 1000000);
    tempo_loop_pause(loop, true);
    tempo_loop_frame(loop);
    CHECK_EQ_INT(g.pause_calls, 1);
    CHECK_EQ_INT(g.resume_calls, 0);
    /* Paused: the loop's waits have no deadline and nothing runs. */
    uint64_t r = g.renders, u = g.updates;
    tempo_fake_clock_stats before, after;
    tempo_fake_clock_get_stats(g.fc, &before);
    for (int i = 0; i < 5; i++) {
        tempo_fake_clock_advance(g.fc, 1 * S);
        tempo_loop_frame(loop);
    }
    tempo_fake_clock_get_stats(g.fc, &after);
    CHECK_EQ_U64(after.infinite_waits - before.infinite_waits, after.waits - before.waits);
    CHECK_EQ_U64(g.renders, r);
    CHECK_EQ_U64(g.updates, u);
    /* The pause key arrives while paused: input_event sees it at once
     * (update() does not run) and resumes the loop. */
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.scancode = SDL_SCANCODE_ESCAPE;
    SDL_PushEvent(&e);
    tempo_loop_frame(loop);
    CHECK(!tempo_loop_is_paused(loop));
    CHECK_EQ_INT(g.resume_calls, 1);
    CHECK_EQ_U64(g.updates, u + 1); /* resumed in that very frame, no catch-up */
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_ESCAPE));
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    tempo_fake_clock_destroy(g.fc);
    drain_sdl_events();
}

static void push_window_event(Uint8 what)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = what;
    SDL_PushEvent(&e);
}

/* Minimized is the same idle pause: the game hears of it, nothing runs,
 * the waits have no deadline; restored, it resumes without catch-up. */
static void minimize_pauses_and_tells_the_game(void)
{
    game g;
    game_init(&g);
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    tempo_loop *loop = game_loop(&g, (tempo_loop_desc){.input = in});
    run_until(loop, &g, T0 + 100 * MS, 1000000);
    push_window_event(SDL_WINDOWEVENT_MINIMIZED);
    tempo_loop_frame(loop);
    CHECK(tempo_loop_is_paused(loop));
    CHECK_EQ_INT(g.pause_calls, 1);
    uint64_t r = g.renders, u = g.updates;
    tempo_fake_clock_stats before, after;
    tempo_fake_clock_get_stats(g.fc, &before);
    for (int i = 0; i < 3; i++) {
        tempo_fake_clock_advance(g.fc, 1 * S);
        tempo_loop_frame(loop);
    }
    tempo_fake_clock_get_stats(g.fc, &after);
    CHECK_EQ_U64(after.infinite_waits - before.infinite_waits, 3);
    CHECK_EQ_U64(after.waits - before.waits, 3);
    CHECK_EQ_U64(g.renders, r);
    CHECK_EQ_U64(g.updates, u);
    push_window_event(SDL_WINDOWEVENT_RESTORED);
    tempo_loop_frame(loop);
    CHECK(!tempo_loop_is_paused(loop));
    CHECK_EQ_INT(g.resume_calls, 1);
    CHECK_EQ_U64(g.updates, u + 1);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    tempo_fake_clock_destroy(g.fc);
    drain_sdl_events();
}

/* ---- SDL's emulated vsync and measuring the timer again (issue 21 section 1) ---- */

typedef struct grid_game {
    game g;
    uint64_t last_present_ms; /* SDL's renderer->last_present */
    uint64_t blocks_from_ns;  /* switching_present: blocks on vblanks from then on */
    uint64_t last_render_ns, max_interval_ns, interval_from_ns;
    uint64_t vsync_at_ns;     /* when the loop first paced by vsync after blocks_from */
} grid_game;

/* SDL_RenderPresent of a renderer whose vsync SDL emulates (the software
 * renderer created with SDL_RENDERER_PRESENTVSYNC, SDL 2.0.18+): sleep in
 * whole milliseconds until 1000 / 60 = 16 ms after the last present, then
 * move last_present on by whole intervals. A grid of 62.5 Hz, whatever
 * the display does. */
static void sdl_emulated_vsync_present(tempo_loop *loop, void *user)
{
    (void)loop;
    grid_game *v = user;
    const uint64_t interval = 16;
    tempo_fake_clock_advance(v->g.fc, v->g.present_cost_ns);
    uint64_t now = tempo_fake_clock_now(v->g.fc) / MS;
    uint64_t elapsed = now - v->last_present_ms;
    if (elapsed < interval) {
        tempo_fake_clock_advance(v->g.fc, (interval - elapsed) * MS); /* SDL_Delay */
        now = tempo_fake_clock_now(v->g.fc) / MS;
    }
    elapsed = now - v->last_present_ms;
    if (v->last_present_ms == 0 || elapsed > 1000)
        v->last_present_ms = now;
    else
        v->last_present_ms += elapsed / interval * interval;
    v->g.presents++;
}

static void grid_render(tempo_loop *loop, float alpha, void *user)
{
    grid_game *v = user;
    uint64_t now = tempo_fake_clock_now(v->g.fc);
    if (v->last_render_ns != 0 && now >= v->interval_from_ns && (v->blocks_from_ns == 0 || now < v->blocks_from_ns) &&
        now - v->last_render_ns > v->max_interval_ns)
        v->max_interval_ns = now - v->last_render_ns;
    v->last_render_ns = now;
    on_render(loop, alpha, &v->g);
}

static void grid_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    on_update(loop, dt_ns, &((grid_game *)user)->g);
}

static bool grid_input(tempo_loop *loop, const tempo_input_event *ev, void *user)
{
    return on_input(loop, ev, &((grid_game *)user)->g);
}

static tempo_loop_counts grid_run(tempo_loop_vsync mode, tempo_loop_pacing *pacing, uint64_t *grid_ns,
                                  uint64_t *p99_total)
{
    grid_game v;
    memset(&v, 0, sizeof v);
    game_init(&v.g);
    v.g.cost_lo = 1 * MS;
    v.g.cost_hi = 3 * MS;
    v.g.present_cost_ns = 300 * US;
    v.g.next_input_ns = T0 + 3 * MS;
    v.g.input_step_ns = 7300 * US;
    tempo_fake_clock_on_wait(v.g.fc, input_hook, &v.g);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .present = sdl_emulated_vsync_present, .vsync = mode, .display_hz = 60, .input_event = grid_input,
        .clock = tempo_fake_clock_get(v.g.fc), .update = grid_update, .render = grid_render, .user = &v});
    run_until(loop, &v.g, T0 + 4 * S, 10000000);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    *pacing = st->pacing;
    *grid_ns = st->present_grid_ns;
    *p99_total = st->total.lateness_p99_ns;
    tempo_loop_counts c = st->last_second;
    tt_note("vsync %d, SDL's emulated vsync (16 ms grid) on a 60 Hz display: pacing %s, present grid %llu ns, "
            "%.2f renders/s, %.1f sleeps/s, lateness p99 %.3f ms (whole run), %llu probes",
            (int)mode, tempo_loop_pacing_name(st->pacing), (unsigned long long)st->present_grid_ns,
            c.renders_per_s, c.sleeps_per_s, (double)*p99_total / 1e6, (unsigned long long)st->total.probes);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(v.g.fc);
    drain_sdl_events();
    return c;
}

/* A present that blocks, but on SDL's own 16 ms grid on a 60 Hz display,
 * is paced by the timer at the display's refresh under AUTO and ON, and
 * the stats name the grid. (Before: paced as a 62.5 Hz vsync.) */
static void sdl_emulated_vsync_is_paced_by_the_timer(void)
{
    tempo_loop_pacing pacing;
    uint64_t grid, p99_off, p99;
    const double input_hz = 1e9 / 7.3e6;
    grid_run(TEMPO_LOOP_VSYNC_OFF, &pacing, &grid, &p99_off);
    CHECK_STR_EQ(tempo_loop_pacing_name(pacing), "timer");
    CHECK_EQ_U64(grid, 0);
    for (int mode = TEMPO_LOOP_VSYNC_AUTO; mode <= TEMPO_LOOP_VSYNC_ON; mode++) {
        tempo_loop_counts c = grid_run((tempo_loop_vsync)mode, &pacing, &grid, &p99);
        CHECK_STR_EQ(tempo_loop_pacing_name(pacing), "timer");
        CHECK_GE_U64(grid, 16 * MS - 100 * US);
        CHECK_LE_U64(grid, 16 * MS + 100 * US);
        double probes = (double)c.probes;
        CHECK_LE_DBL(c.renders_per_s, 60 * 1.005 + probes);
        CHECK_GE_DBL(c.renders_per_s, 60 * 0.995);
        CHECK_LE_DBL(c.sleeps_per_s, 60 + input_hz + 2 + 8 * probes);
        CHECK_LE_U64(p99, p99_off + 1 * MS);
    }
}

/* Presents that do not block until `blocks_from`, then block on the 60 Hz
 * vblanks (vsync turned on in the driver, the window on another display). */
static void switching_present(tempo_loop *loop, void *user)
{
    grid_game *v = user;
    if (tempo_fake_clock_now(v->g.fc) < v->blocks_from_ns)
        counting_present(loop, &v->g);
    else
        fake_vsync_present(loop, &v->g);
    if (v->vsync_at_ns == 0 && tempo_fake_clock_now(v->g.fc) >= v->blocks_from_ns &&
        tempo_loop_get_pacing(loop) == TEMPO_LOOP_PACING_VSYNC)
        v->vsync_at_ns = tempo_fake_clock_now(v->g.fc);
}

/* Returns how long after the switch the loop paced by vsync (0: never). */
static uint64_t switch_run(uint64_t vb_phase_ns, bool shown_event, uint64_t *max_interval, uint64_t *probes,
                           int *missed)
{
    grid_game v;
    memset(&v, 0, sizeof v);
    game_init(&v.g);
    v.g.vb0 = T0 + vb_phase_ns;
    v.g.cost_lo = v.g.cost_hi = 2 * MS;
    v.g.present_cost_ns = 300 * US;
    v.blocks_from_ns = T0 + 10 * S;
    v.g.warmup_until = v.blocks_from_ns;
    v.interval_from_ns = T0 + 1 * S;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .present = switching_present, .display_hz = 60, .clock = tempo_fake_clock_get(v.g.fc),
        .update = grid_update, .render = grid_render, .user = &v});
    run_until(loop, &v.g, v.blocks_from_ns, 10000000);
    CHECK_STR_EQ(tempo_loop_pacing_name(tempo_loop_get_pacing(loop)), "timer");
    if (shown_event) {
        run_until(loop, &v.g, v.blocks_from_ns + 500 * MS, 10000000);
        CHECK_EQ_U64(v.vsync_at_ns, 0);
        push_window_event(SDL_WINDOWEVENT_SHOWN);
    }
    while (v.vsync_at_ns == 0 && tempo_fake_clock_now(v.g.fc) < v.blocks_from_ns + 60 * S)
        run_until(loop, &v.g, tempo_fake_clock_now(v.g.fc) + 100 * MS, 10000000);
    run_until(loop, &v.g, tempo_fake_clock_now(v.g.fc) + 2 * S, 10000000); /* and stays */
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    *max_interval = v.max_interval_ns;
    *probes = st->total.probes;
    *missed = v.g.missed;
    tt_note("vblank phase %.1f ms%s: vsync %.3f s after the presents began to block; pacing now %s, "
            "%llu probes in all, longest render interval %.3f ms, vblanks without a new frame %d",
            (double)vb_phase_ns / 1e6, shown_event ? ", window shown at +0.5 s" : "",
            v.vsync_at_ns ? (double)(v.vsync_at_ns - v.blocks_from_ns) / 1e9 : -1.0,
            tempo_loop_pacing_name(st->pacing), (unsigned long long)st->total.probes,
            (double)v.max_interval_ns / 1e6, v.g.missed);
    CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    uint64_t after = v.vsync_at_ns ? v.vsync_at_ns - v.blocks_from_ns : 0;
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(v.g.fc);
    drain_sdl_events();
    return after;
}

/* Once the timer is chosen the loop measures again: periodically (2, 4, 8,
 * 16, then every 32 s), at once after 3 presents that blocked more than a
 * quarter period, and at once when the window is shown again, without a
 * visible frame lost (no render interval above the refresh period while
 * the presents do not block, no vblank without a new frame once they do).
 * (Before: a timer chosen by the measurement was never measured again.) */
static void timer_is_measured_again(void)
{
    const uint64_t P = S / 60;
    uint64_t max_interval, probes;
    int missed;
    /* Presents blocking ~3 ms (the timer's renders end just before the
     * vblanks): only the periodic measurement sees it, within 32 s (here
     * the one at ~14 s: verdicts at ~0, 2 and 6 s). */
    uint64_t t = switch_run(5 * MS + 777, false, &max_interval, &probes, &missed);
    CHECK_GE_U64(t, 1);
    CHECK_LE_U64(t, 32 * S + 200 * MS);
    CHECK_LE_U64(max_interval, P + 10 * US);
    CHECK_EQ_INT(missed, 0);
    /* Verdicts at ~0, 2, 6 s: the backoff doubles. */
    CHECK_LE_U64(probes, 6);
    /* Presents blocking ~10 ms: 3 in a row start the measurement. */
    t = switch_run(12 * MS, false, &max_interval, &probes, &missed);
    CHECK_GE_U64(t, 1);
    /* 3 presents, then the ~9 of a probe and up to 10 that move its render
     * phase P/24 at a time (from after a return to P/4, then to P/2) */
    CHECK_LE_U64(t, 400 * MS);
    CHECK_LE_U64(max_interval, P + 10 * US);
    CHECK_EQ_INT(missed, 0);
    /* The window shown again: measured at once. */
    t = switch_run(5 * MS + 777, true, &max_interval, &probes, &missed);
    CHECK_GE_U64(t, 500 * MS);
    CHECK_LE_U64(t, 900 * MS); /* a probe of up to 19 presents after the event */
    CHECK_LE_U64(max_interval, P + 10 * US);
    CHECK_EQ_INT(missed, 0);
}

/* ---- A blocking present does not delay the updates (issue 36 item 10) ---- */

/* The renderer present of SDL3 when SDL3 paces the presents itself (what
 * sdl2-compat's renderer does under Xvfb with SDL_RENDERER_PRESENTVSYNC):
 * the present's own work, then a sleep to the next point of a grid of
 * 1e9 / 60 ns, in nanoseconds (so exactly the display's period), that
 * starts where the first present returned; a present called past its grid
 * point does not sleep and the grid keeps its phase (it starts again after
 * a second without a present). Measured there: returns 16.667 ms apart,
 * ~2.3 ms of work in a present called late. */
typedef struct late_game {
    game g;
    int kind;                  /* LATE_FREE, LATE_SDL3 or LATE_FIFO */
    uint64_t grid_ns;          /* LATE_SDL3: the grid's last point (0: no present yet) */
    uint64_t work_ns;          /* LATE_SDL3: the present's own work before the sleep */
    uint64_t update_ns;        /* each update's cost */
    uint64_t wake_lo, wake_hi; /* every wait returns this much late: a real timer's precision */
} late_game;

enum { LATE_FREE, LATE_SDL3, LATE_FIFO };

/* LATE_FIFO: the present's own work before the flip (fake_vsync_present's
 * work_lo..work_hi), for the next late_run. */
static uint64_t late_game_work_lo, late_game_work_hi;

static void sdl3_paced_present(tempo_loop *loop, void *user)
{
    (void)loop;
    late_game *v = user;
    const uint64_t interval = S / 60;
    tempo_fake_clock_advance(v->g.fc, v->work_ns);
    uint64_t now = tempo_fake_clock_now(v->g.fc);
    if (v->grid_ns != 0 && now - v->grid_ns < interval) {
        now = v->grid_ns + interval;
        tempo_fake_clock_set(v->g.fc, now);
    }
    if (v->grid_ns == 0 || now - v->grid_ns > S)
        v->grid_ns = now;
    else
        v->grid_ns += (now - v->grid_ns) / interval * interval;
    v->g.presents++;
}

static void late_present(tempo_loop *loop, void *user)
{
    late_game *v = user;
    if (v->kind == LATE_FIFO)
        fake_vsync_present(loop, &v->g);
    else if (v->kind == LATE_SDL3)
        sdl3_paced_present(loop, v);
    else
        counting_present(loop, &v->g);
}

static void late_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    late_game *v = user;
    on_update(loop, dt_ns, &v->g);
    tempo_fake_clock_advance(v->g.fc, v->update_ns);
}

static void late_render(tempo_loop *loop, float alpha, void *user)
{
    on_render(loop, alpha, &((late_game *)user)->g);
}

static uint64_t late_wake(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    late_game *v = user;
    if (deadline_ns == TEMPO_INFINITE)
        return now_ns;
    return deadline_ns + v->wake_lo + rnd(&v->g.rng) % (v->wake_hi - v->wake_lo + 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

typedef struct late_result {
    uint64_t p50, p99, max;
    uint64_t missed;       /* vblanks without a new frame after warm-up (the display's count) */
    uint64_t missed_waiting; /* of those, lost by a present that waited: its render had ended before
                                the vblank (the others are a render that overran the predicted cost,
                                test_pacer's business: with renders of 1-4 ms, one in ~3 000) */
    double renders_per_s;
} late_result;

/* A game of `update_hz` (update 0.2 ms, render `render_lo`..`render_hi`)
 * whose present is `kind`: one that does not block (the baseline), SDL3's
 * grid (present work `work_ns`), or a display's vsync (vblanks from T0 +
 * `phase_ns`, num/den ns apart), under vsync AUTO, every wait 20-80 us
 * late; `seconds` of which the first 2 are warm-up. The update lateness is
 * the loop's (tempo_loop_stats), every second after warm-up: p50 the
 * median of the seconds' medians, p99 and max the largest in any second. */
static late_result late_run(int kind, uint32_t update_hz, uint64_t num, uint64_t den, uint64_t phase_ns,
                            uint64_t render_lo, uint64_t render_hi, uint64_t work_ns, int seconds)
{
    static const char *const kinds[] = {"does not block", "SDL3's 60 Hz grid", "vsync"};
    late_game v;
    memset(&v, 0, sizeof v);
    game_init(&v.g);
    v.kind = kind;
    v.g.num = num;
    v.g.den = den;
    v.g.vb0 = T0 + phase_ns;
    v.g.cost_lo = render_lo;
    v.g.cost_hi = render_hi;
    v.g.present_cost_ns = 300 * US;
    v.work_ns = work_ns;
    v.update_ns = 200 * US;
    v.wake_lo = 20 * US;
    v.wake_hi = 80 * US;
    v.g.warmup_until = T0 + 2 * S;
    v.g.work_lo = late_game_work_lo;
    v.g.work_hi = late_game_work_hi;
    tempo_fake_clock_on_wait(v.g.fc, late_wake, &v);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .present = late_present, .update_hz = update_hz, .display_hz = 60, .clock = tempo_fake_clock_get(v.g.fc),
        .update = late_update, .render = late_render, .user = &v});
    run_until(loop, &v.g, T0 + 2 * S, 10000000);
    uint64_t renders = v.g.renders;
    uint64_t p50s[64];
    int n = 0;
    late_result r = {0};
    const tempo_loop_stats *st = NULL;
    for (int sec = 3; sec <= seconds && n < 64; sec++) {
        /* Past the second's end by a frame or two: its window has rolled. */
        run_until(loop, &v.g, T0 + (uint64_t)sec * S + 40 * MS, 10000000);
        st = tempo_loop_get_stats(loop);
        p50s[n++] = st->last_second.lateness_p50_ns;
        if (st->last_second.lateness_p99_ns > r.p99)
            r.p99 = st->last_second.lateness_p99_ns;
        if (st->last_second.lateness_max_ns > r.max)
            r.max = st->last_second.lateness_max_ns;
    }
    qsort(p50s, (size_t)n, sizeof p50s[0], cmp_u64);
    r.p50 = p50s[(n - 1) / 2];
    r.missed = (uint64_t)v.g.missed;
    r.missed_waiting = (uint64_t)(v.g.missed - v.g.missed_in_render);
    r.renders_per_s = (double)(v.g.renders - renders) / ((double)(tempo_fake_clock_now(v.g.fc) - T0) / 1e9 - 2);
    tt_note("%u Hz updates, present %s (%.2f Hz, vblank phase %.1f ms, render %.1f-%.1f ms, present work up to %.1f ms): "
            "pacing %s; update lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms; %.2f renders/s, %llu missed "
            "(%llu by a present that waited)",
            update_hz, kinds[kind], 1e9 * (double)den / (double)num, (double)phase_ns / 1e6,
            (double)render_lo / 1e6, (double)render_hi / 1e6,
            (double)(kind == LATE_FIFO ? late_game_work_hi : work_ns) / 1e6,
            tempo_loop_pacing_name(st->pacing), (double)r.p50 / 1e6, (double)r.p99 / 1e6, (double)r.max / 1e6,
            r.renders_per_s, (unsigned long long)r.missed, (unsigned long long)r.missed_waiting);
    if (kind != LATE_FREE)
        CHECK_STR_EQ(tempo_loop_pacing_name(st->pacing), "vsync");
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(v.g.fc);
    drain_sdl_events();
    return r;
}

/* A present that blocks until the vblank blocked the loop with it: a 10 Hz
 * update due meanwhile ran when it returned. Under Xvfb SDL3 paces the
 * presents itself on a 60 Hz grid that starts at the first present, one
 * frame's work after the schedule started, so every update fell due that
 * long before a grid point, inside the next frame's render or blocked
 * present (sdl2-compat: bounce's updates 7-8 ms late at p50; classic SDL2's
 * present did not block: ~0.05 ms). Now, when the presents are found to
 * block, updates that all fall on one phase of the vblanks (10 Hz on 60)
 * move once to an eighth of a period after a vblank, and a present waits
 * for an update due before its vblank (rates that do not divide the
 * refresh, a display drifting against the ticks). Before, here:
 * SDL3's grid with 0.3 ms of present work 3.9 ms late at p50 and p99 (with
 * 2.3 ms the first frame happened to put the ticks outside: 0.05); a
 * display's vsync with its vblanks half a frame after the start and a
 * 6-8 ms render 8.3 ms (half a frame) at p50; 45 Hz updates max 5.1 ms and
 * 2 vblanks missed. Now every p50 and p99 within 1.5x of a present that
 * does not block (the waits' 20-80 us), but for updates that fall due in a
 * render or in the last stretch before a vblank (the present's own need:
 * no present can wait for them without losing the vblank), which wait for
 * those. */
static void blocking_present_does_not_delay_updates(void)
{
    const uint64_t P = S / 60;
    late_result base = late_run(LATE_FREE, 10, S, 60, 0, 1500 * US, 5 * MS, 0, 10);
    CHECK_LE_U64(base.p50, 80 * US); /* the waits' 20-80 us */
    CHECK_LE_U64(base.p99, 80 * US);
    uint64_t bound50 = base.p50 * 3 / 2, bound99 = base.p99 * 3 / 2;
    /* SDL3's grid, the present's work as under Xvfb (2.3 ms) and cheaper. */
    static const uint64_t works[] = {2300 * US, 300 * US};
    for (int i = 0; i < 2; i++) {
        late_result r = late_run(LATE_SDL3, 10, S, 60, 0, 1500 * US, 5 * MS, works[i], 10);
        CHECK_LE_U64(r.p50, bound50);
        CHECK_LE_U64(r.p99, bound99);
        CHECK_GE_DBL(r.renders_per_s, 59.9);
        CHECK_LE_DBL(r.renders_per_s, 60.1);
    }
    /* A display's vsync, its vblanks half a frame after the start, a costly
     * render (6-8 ms). */
    late_result r = late_run(LATE_FIFO, 10, S, 60, P / 2, 6 * MS, 8 * MS, 0, 10);
    CHECK_LE_U64(r.p50, bound50);
    CHECK_LE_U64(r.p99, bound99);
    CHECK_EQ_U64(r.missed, 0);
    /* The last stretch before a vblank, which no present can wait through:
     * the margins (0.5 ms, and P/4 for the present's own work, which the
     * pacer starts with) and up to 0.5 ms of the loop's work and the
     * return (the render's unused predicted cost, the update, the wake). */
    const uint64_t stretch = 500 * US + (uint64_t)TEMPO__PACER_START_MARGIN(P) + 500 * US;
    /* 24 Hz updates, 2.5 periods apart: two phases, not moved (a move would
     * only change which one the next render meets); one falls in the last
     * stretch (none did before the pacer started with P/4 of margin). */
    r = late_run(LATE_FIFO, 24, S, 60, 5 * MS, 1 * MS, 3 * MS, 0, 10);
    CHECK_LE_U64(r.p50, bound50);
    CHECK_LE_U64(r.max, stretch);
    CHECK_EQ_U64(r.missed, 0);
    /* 45 Hz updates, 4/3 of a period apart: they fall at three phases, one
     * of them inside the blocked present (render 1-4 ms, so the present
     * blocks for what the render left of the predicted cost): the present
     * waits for it. An update waits for a render at most, or the last
     * stretch, never for a present that blocks (before: 14.6 ms). */
    r = late_run(LATE_FIFO, 45, S, 60, 5 * MS, 1 * MS, 4 * MS, 0, 20);
    CHECK_LE_U64(r.p50, bound50);
    CHECK_LE_U64(r.max, stretch);
    /* None lost by a wait. A render of up to 4 ms now and then overruns
     * the predicted cost (the second largest of the last 32) by more than
     * the margin: which draws do depends on the whole run (0 of 1 200
     * vblanks here before the probe moved its phase in steps, 3 after). */
    CHECK_EQ_U64(r.missed_waiting, 0);
    CHECK_LE_U64(r.missed, 4);
    /* 59.94 Hz: the vblanks drift 0.1 ms an update against the ticks, a
     * whole period in 17 s, through the render and the blocked present;
     * SDL's software present (2.2-3.2 ms of work before its flip: the
     * pacer's margin for it, P/4, then spans most of the blocked present,
     * so updates there wait for it, as before), render 0.5-1 ms. No vblank
     * lost to a present that waited. */
    late_game_work_lo = 2200 * US;
    late_game_work_hi = 3200 * US;
    r = late_run(LATE_FIFO, 10, S * 1001, 60000, 5 * MS, 500 * US, 1 * MS, 0, 40);
    late_game_work_lo = late_game_work_hi = 0;
    CHECK_LE_U64(r.p50, bound50);
    CHECK_LE_U64(r.max, P / 2);
    CHECK_EQ_U64(r.missed, 0);
}

static const tt_case cases[] = {
    TT_CASE(zero_descriptor_renders_at_the_display_rate_and_sleeps),
    TT_CASE(display_hz_sets_the_pace),
    TT_CASE(vsync_60hz_present_is_a_wait),
    TT_CASE(low_latency_runs_the_tick_at_the_render_wake),
    TT_CASE(vsync_59_94hz_present_is_a_wait),
    TT_CASE(vsync_toggle_needs_a_present_the_loop_makes),
    TT_CASE(vsync_that_does_not_block_still_paces),
    TT_CASE(probe_rhythm_is_not_a_display),
    TT_CASE(vsync_late_frames_still_render),
    TT_CASE(auto_vsync_decides_from_the_present),
    TT_CASE(first_probe_makes_no_long_render_interval),
    TT_CASE(present_work_loses_no_vblank_at_the_start),
    TT_CASE(a_late_wake_holds_back_no_other_render),
    TT_CASE(a_wake_past_its_vblank_renders_for_the_next),
    TT_CASE(lockstep_measures_the_present_too),
    TT_CASE(withheld_presents_keep_the_update_rate),
    TT_CASE(withheld_presents_are_the_hidden_pause),
    TT_CASE(withheld_during_a_probe_takes_two_presents),
    TT_CASE(learnt_refresh_is_what_is_delivered),
    TT_CASE(irregular_frames_keep_vsync_pacing),
    TT_CASE(game_pause_stops_updates_and_keeps_rendering),
    TT_CASE(game_pause_in_lockstep_renders_at_the_pace),
    TT_CASE(idle_pause_tells_the_game_and_a_pause_key_resumes),
    TT_CASE(minimize_pauses_and_tells_the_game),
    TT_CASE(sdl_emulated_vsync_is_paced_by_the_timer),
    TT_CASE(timer_is_measured_again),
    TT_CASE(preempted_render_does_not_starve_the_netq),
    TT_CASE(blocking_present_does_not_delay_updates),
};

int main(int argc, char **argv)
{
    /* SDL's event queue only (no video): the loop reads it, the tests push. */
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n0 passed, 1 failed\n", SDL_GetError());
        return 1;
    }
    int rc = TT_MAIN(argc, argv, cases);
    SDL_Quit();
    return rc;
}
