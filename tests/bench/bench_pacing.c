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
 *   grid     SDL's emulated vsync (the software renderer created with
 *            PRESENTVSYNC sleeps to a 16 ms grid of its own on a 60 Hz
 *            display) under OFF (baseline), AUTO and ON.
 * Part 2 (--real, needs a display: xvfb-run -a): SDL's software renderer
 * in a real window, created with flags 0 and with PRESENTVSYNC, each under
 * OFF (baseline) and AUTO (and ON for PRESENTVSYNC), `--seconds` per row.
 * Noisy on a loaded machine.
 * Part 3 (--quota, Linux, root): the slow-machine probe (render 8 ms and
 * update 2 ms of CPU, 60 Hz) under a real CPU quota of 10 % of a core (a
 * cgroup of its own: v2 cpu.max, else v1 cpu.cfs_quota_us), Tempo and the
 * textbook loop in turn, twice each, `--seconds` per run; the cgroup is
 * created and removed here, and the part says why it is skipped when
 * neither hierarchy has the cpu controller.
 * With TEMPO_BENCH_DATA set, writes pacing-slow.dat (render cost, classic,
 * Tempo game time / wall time; fake clock) and pacing-quota.dat for
 * tests/bench/bench_plots.gp.
 *
 * Usage: bench_pacing [--real] [--quota] [--seconds N] [--quick] (--quick: 2 s per real
 * row and quota run, one quota run each, for CI's smoke run). */
#if defined(__linux__)
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
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
    bool grid;                    /* SDL's emulated vsync: sleeps to a 16 ms grid of its own */
    uint64_t last_present_ms;
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
    if (g->grid) {
        /* SDL_RenderPresent with emulated vsync (SDL 2.0.18+): SDL_Delay in
         * whole ms to 1000 / 60 = 16 ms after the last present, which then
         * moves on by whole intervals. */
        tempo_fake_clock_advance(g->fc, g->present_ns);
        uint64_t ms = tempo_fake_clock_now(g->fc) / MS, elapsed = ms - g->last_present_ms;
        if (elapsed < 16) {
            tempo_fake_clock_advance(g->fc, (16 - elapsed) * MS);
            ms = tempo_fake_clock_now(g->fc) / MS;
        }
        elapsed = ms - g->last_present_ms;
        g->last_present_ms = g->last_present_ms == 0 || elapsed > 1000 ? ms : g->last_present_ms + elapsed / 16 * 16;
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
    double renders, wakes, p99_ms, p99_last_ms, updates, speed, grid_ms;
    double renders_run, wakes_run; /* over the whole run */
    uint64_t probes;
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
    r.renders_run = st->total.renders_per_s;
    r.wakes_run = st->total.sleeps_per_s;
    r.probes = st->total.probes;
    r.p99_ms = (double)st->total.lateness_p99_ns / 1e6;
    if (!g.withheld_to)
        r.updates = c->updates_per_s;
    r.speed = (double)g.updates * (double)tempo_loop_get_step_ns(loop) / (double)(tempo_fake_clock_now(g.fc) - T0);
    r.dropped = st->total.dropped_updates;
    r.stalls = st->total.stalls;
    r.pacing = st->pacing;
    r.grid_ms = (double)st->present_grid_ns / 1e6;
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

/* ---- bench_game's fake-vsync noise row, on the fake clock ------------------
 * A present that does work of its own before the flip (0.3-1.5 ms, per
 * frame) and then blocks to the next 1/60 s; render 0.5-1 ms, update
 * 0.1 ms; the loop's wake-ups late by 0-0.1 ms, and in some runs a share
 * of them by up to a few ms more (a loaded machine). Render intervals over
 * 16.7 + 1 ms after the first second (bench_game's count), missed vblanks. */
typedef struct vgame {
    tempo_fake_clock *fc;
    uint64_t rng, start, last_render, over, missed, lastk, late_wakes;
    double late_share, late_max_ms;
    uint64_t work_lo, work_hi, spike_hi; /* the present's own work; 1 % of presents up to spike_hi */
    uint64_t missed_all;                 /* missed vblanks including the first second */
    uint64_t over_all;                   /* late render intervals including the first second */
    uint64_t preempt_at, preempt_ns;     /* the first render at or after preempt_at costs preempt_ns more */
    double preempt_share;                /* ...and this share of all renders up to preempt_ns more */
} vgame;

static double urand(uint64_t *s)
{
    return (double)(rnd(s) >> 11) / 9007199254740992.0;
}

static uint64_t v_lateness(vgame *v)
{
    uint64_t late = (uint64_t)(urand(&v->rng) * 100 * US);
    if (urand(&v->rng) < v->late_share) {
        late += (uint64_t)(urand(&v->rng) * v->late_max_ms * MS);
        v->late_wakes++;
    }
    return late;
}

static uint64_t v_wait(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    vgame *v = user;
    if (deadline_ns == TEMPO_INFINITE)
        return now_ns;
    return (deadline_ns > now_ns ? deadline_ns : now_ns) + v_lateness(v);
}

static void v_update(tempo_loop *loop, uint64_t dt, void *user)
{
    (void)loop;
    (void)dt;
    tempo_fake_clock_advance(((vgame *)user)->fc, 100 * US);
}

static void v_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    vgame *v = user;
    uint64_t now = tempo_fake_clock_now(v->fc);
    if (v->last_render != 0 && now > v->start + S && now - v->last_render > S / 60 + 1 * MS)
        v->over++;
    if (v->last_render != 0 && now - v->last_render > S / 60 + 1 * MS)
        v->over_all++;
    v->last_render = now;
    tempo_fake_clock_advance(v->fc, 500 * US + (uint64_t)(urand(&v->rng) * 500 * US));
    if (v->preempt_at != 0 && now >= v->preempt_at) {
        v->preempt_at = 0;
        tempo_fake_clock_advance(v->fc, v->preempt_ns);
    } else if (v->preempt_share > 0 && urand(&v->rng) < v->preempt_share) {
        tempo_fake_clock_advance(v->fc, (uint64_t)(urand(&v->rng) * (double)v->preempt_ns));
    }
}

static void v_present(tempo_loop *loop, void *user)
{
    (void)loop;
    vgame *v = user;
    uint64_t work = v->work_lo + (uint64_t)(urand(&v->rng) * (double)(v->work_hi - v->work_lo));
    if (v->spike_hi != 0 && urand(&v->rng) < 0.01)
        work = v->work_hi + (uint64_t)(urand(&v->rng) * (double)(v->spike_hi - v->work_hi));
    tempo_fake_clock_advance(v->fc, work);
    uint64_t now = tempo_fake_clock_now(v->fc), P = 16666667;
    uint64_t k = (now - v->start) / P + 1;
    if (v->lastk != 0 && k > v->lastk + 1 && now > v->start + S)
        v->missed += k - v->lastk - 1;
    if (v->lastk != 0 && k > v->lastk + 1)
        v->missed_all += k - v->lastk - 1;
    v->lastk = k;
    tempo_fake_clock_set(v->fc, v->start + k * P + v_lateness(v));
}

static void vsync_noise_table(void)
{
    printf("\n## bench_game's fake-vsync row (Tempo, nothing attached) on the fake clock (60 s; render "
           "0.5-1 ms, update 0.1 ms; wake-ups 0-0.1 ms late; counts after the first second unless said)\n\n");
    printf("| present work | wake-ups delayed further | render intervals > 17.7 ms | missed vblanks | "
           "incl. the first second: intervals, missed | delayed wake-ups |\n");
    printf("|---|---|---|---|---|---|\n");
    static const struct {
        double share, max_ms;
        uint64_t lo, hi, spike;
    } cases[] = {{0, 0, 300 * US, 1500 * US, 0},
                 {0.05, 3, 300 * US, 1500 * US, 0},
                 {0.10, 5, 300 * US, 1500 * US, 0},
                 /* bench_game's, measured under Xvfb (--trace): p50 2.4, p99 3.1-4, up to 6.75 ms */
                 {0, 0, 2200 * US, 3200 * US, 7 * MS}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vgame v = {.rng = 12345, .start = T0, .late_share = cases[i].share, .late_max_ms = cases[i].max_ms,
                   .work_lo = cases[i].lo, .work_hi = cases[i].hi, .spike_hi = cases[i].spike};
        v.fc = tempo_fake_clock_create(T0);
        tempo_fake_clock_on_wait(v.fc, v_wait, &v);
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .update = v_update, .render = v_render, .present = v_present, .vsync = TEMPO_LOOP_VSYNC_ON,
            .display_hz = 60, .clock = tempo_fake_clock_get(v.fc), .user = &v});
        while (tempo_fake_clock_now(v.fc) < T0 + 61 * S)
            tempo_loop_frame(loop);
        char what[64];
        if (cases[i].share == 0)
            snprintf(what, sizeof what, "none (Tempo's own)");
        else
            snprintf(what, sizeof what, "%.0f %% by up to %.0f ms more", cases[i].share * 100, cases[i].max_ms);
        char work[64];
        if (cases[i].spike)
            snprintf(work, sizeof work, "%.1f-%.1f ms, 1 %% up to %.0f ms", (double)cases[i].lo / 1e6,
                     (double)cases[i].hi / 1e6, (double)cases[i].spike / 1e6);
        else
            snprintf(work, sizeof work, "%.1f-%.1f ms", (double)cases[i].lo / 1e6, (double)cases[i].hi / 1e6);
        printf("| %s | %s | %llu | %llu | %llu, %llu | %llu |\n", work, what, (unsigned long long)v.over,
               (unsigned long long)v.missed, (unsigned long long)v.over_all, (unsigned long long)v.missed_all,
               (unsigned long long)v.late_wakes);
        tempo_loop_destroy(loop);
        tempo_fake_clock_destroy(v.fc);
        drain();
    }
}

/* ---- bench_game's burst after a preempted render, on the fake clock --------
 * The fake-vsync row above with SDL's window texture's present (2.2-3.2 ms
 * of its own work, 1 % up to 7 ms: the pacer learns half a period of
 * margin) and a netq (DEADLINE, attached) that gets bench_game's burst 4 s
 * in: 10 000 messages of 2.5 us each, pushed in one update. The render of
 * the burst's frame is preempted for 8.41 ms (measured in bench_game, at
 * the burst: the sender, two decoders and Xvfb on two cores), or a share
 * of all renders for up to 8.41 ms. The oldest message's age, and the
 * frames the burst took, against the same run without preemption. */
typedef struct bburst {
    vgame v;
    tempo_netq *q;
    uint64_t burst_at, last_ns; /* last_ns: when the last message was handled */
    bool pushed;
} bburst;

static void bb_update(tempo_loop *loop, uint64_t dt, void *user)
{
    bburst *b = user;
    v_update(loop, dt, &b->v);
    if (!b->pushed && tempo_fake_clock_now(b->v.fc) >= b->burst_at) {
        b->pushed = true;
        for (uint32_t i = 0; i < 10000; i++)
            tempo_netq_push(b->q, 1, &i, sizeof i);
    }
}

static void bb_render(tempo_loop *loop, float alpha, void *user)
{
    v_render(loop, alpha, &((bburst *)user)->v);
}

static void bb_present(tempo_loop *loop, void *user)
{
    v_present(loop, &((bburst *)user)->v);
}

static void bb_message(const tempo_netq_msg *m, void *user)
{
    (void)m;
    bburst *b = user;
    b->last_ns = tempo_fake_clock_advance(b->v.fc, 2500);
}

static void burst_table(void)
{
    printf("\n## bench_game's burst after a preempted render (fake clock; the fake-vsync row with SDL's "
           "window texture's present: 2.2-3.2 ms of work, 1 %% up to 7 ms; render 0.5-1 ms; netq DEADLINE "
           "attached, 10 000 messages of 2.5 us pushed 4 s in; 8 s)\n\n");
    printf("| renders preempted | oldest message ms | burst handled in ms | frames | missed vblanks | "
           "render intervals > 17.7 ms | oldest ratio |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const struct {
        const char *what;
        bool at_burst;
        double share;
    } cases[] = {{"none (baseline)", false, 0},
                 {"the burst's frame, 8.41 ms", true, 0},
                 {"2 % of all, up to 8.41 ms", false, 0.02},
                 {"the burst's frame and 2 % of all", true, 0.02}};
    double base = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bburst b = {.v = {.rng = 12345, .start = T0, .work_lo = 2200 * US, .work_hi = 3200 * US,
                          .spike_hi = 7 * MS, .preempt_ns = 8410 * US, .preempt_share = cases[i].share},
                    .burst_at = T0 + 4 * S};
        b.v.preempt_at = cases[i].at_burst ? b.burst_at : 0;
        b.v.fc = tempo_fake_clock_create(T0);
        tempo_fake_clock_on_wait(b.v.fc, v_wait, &b.v);
        b.q = tempo_netq_create(&(tempo_netq_desc){.clock = tempo_fake_clock_get(b.v.fc)});
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .update = bb_update, .render = bb_render, .present = bb_present, .vsync = TEMPO_LOOP_VSYNC_ON,
            .display_hz = 60, .clock = tempo_fake_clock_get(b.v.fc), .user = &b});
        if (b.q == NULL || loop == NULL || tempo_netq_attach(b.q, loop, bb_message, &b) != 0) {
            printf("| %s | setup failed: %s | | | | | |\n", cases[i].what, tempo_get_error());
        } else {
            while (tempo_fake_clock_now(b.v.fc) < T0 + 8 * S)
                tempo_loop_frame(loop);
            tempo_netq_stats ns;
            tempo_netq_get_stats(b.q, &ns);
            double oldest = (double)ns.max_age_ns / 1e6;
            if (i == 0)
                base = oldest;
            char ratio[32];
            bench_fmt_ratio(ratio, sizeof ratio, oldest, base);
            printf("| %s | %.1f | %.1f | %.0f | %llu | %llu | %s |\n", cases[i].what, oldest,
                   (double)(b.last_ns - b.burst_at) / 1e6, (double)(b.last_ns - b.burst_at) / (1e9 / 60),
                   (unsigned long long)b.v.missed, (unsigned long long)b.v.over, ratio);
        }
        tempo_loop_destroy(loop);
        tempo_netq_destroy(b.q);
        tempo_fake_clock_destroy(b.v.fc);
        drain();
    }
}

static void fake_tables(void)
{
    /* 40 s: the timer's re-measurements (at ~2, 6, 14 and 30 s, one render
     * more each) are in the run's figures as often as in a game's first
     * 40 s; afterwards they come every 32 s. */
    printf("## Pacing by what the present does (fake clock, 40 s, input 137/s, render 1-3 ms)\n\n");
    printf("| present | desc.vsync | pacing | renders/s | wake-ups/s | measurements | lateness p99 ms | renders ratio | "
           "wake-ups ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    bgame nb = {.render_lo = 1 * MS, .render_hi = 3 * MS, .present_ns = 700 * US, .next_input = T0 + 3 * MS};
    row base = fake_run(nb, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_OFF, .display_hz = 60}, 40);
    row autor = fake_run(nb, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_AUTO, .display_hz = 60}, 40);
    bgame bl = nb;
    bl.blocks = true;
    row vs = fake_run(bl, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_AUTO, .display_hz = 60}, 40);
    const struct {
        const char *present, *mode;
        row *r;
    } rows[] = {{"does not block", "OFF (baseline)", &base}, {"does not block", "AUTO", &autor},
                {"blocks (60 Hz)", "AUTO", &vs}};
    for (int i = 0; i < 3; i++)
        printf("| %s | %s | %s | %.2f | %.1f | %llu | %.3f | %.4f | %.3f |\n", rows[i].present, rows[i].mode,
               tempo_loop_pacing_name(rows[i].r->pacing), rows[i].r->renders_run, rows[i].r->wakes_run,
               (unsigned long long)rows[i].r->probes, rows[i].r->p99_ms,
               ratio(rows[i].r->renders_run, base.renders_run), ratio(rows[i].r->wakes_run, base.wakes_run));

    printf("\n## SDL's emulated vsync: a present that sleeps to a 16 ms grid on a 60 Hz display (fake clock, 40 s, "
           "input 137/s, render 1-3 ms)\n\n");
    printf("| desc.vsync | pacing | present grid ms | renders/s | wake-ups/s | measurements | lateness p99 ms | "
           "renders ratio | wake-ups ratio |\n|---|---|---|---|---|---|---|---|---|\n");
    bgame gg = nb;
    gg.grid = true;
    row gbase = {0};
    for (int m = TEMPO_LOOP_VSYNC_OFF; m >= TEMPO_LOOP_VSYNC_AUTO; m--) {
        row r = fake_run(gg, (tempo_loop_desc){.vsync = (tempo_loop_vsync)m, .display_hz = 60}, 40);
        if (m == TEMPO_LOOP_VSYNC_OFF)
            gbase = r;
        printf("| %s | %s | %.3f | %.2f | %.1f | %llu | %.3f | %.4f | %.3f |\n",
               m == TEMPO_LOOP_VSYNC_OFF ? "OFF (baseline)" : m == TEMPO_LOOP_VSYNC_ON ? "ON" : "AUTO",
               tempo_loop_pacing_name(r.pacing), r.grid_ms, r.renders_run, r.wakes_run,
               (unsigned long long)r.probes, r.p99_ms, ratio(r.renders_run, gbase.renders_run),
               ratio(r.wakes_run, gbase.wakes_run));
    }

    printf("\n## A slow machine: game time / wall time (fake clock, 20 s, update 0.1 ms, 60 Hz)\n\n");
    printf("| render cost | max_frameskip | classic loop (baseline) | Tempo | ratio | stalls | dropped |\n");
    printf("|---|---|---|---|---|---|---|\n");
    static const uint64_t costs[] = {5, 50, 100, 200, 270, 300, 500};
    FILE *dat = bench_data_open("pacing-slow.dat");
    if (dat != NULL) {
        /* The plot's curve: more render costs than the table, max_frameskip 5. */
        fprintf(dat, "# render_ms classic tempo (game time / wall time, fake clock, 20 s, update 0.1 ms, 60 Hz)\n");
        for (uint64_t ms = 5; ms <= 500; ms += ms < 50 ? 5 : ms < 150 ? 10 : 25) {
            bgame sg = {.render_lo = ms * MS, .render_hi = ms * MS, .update_ns = 100 * US};
            row r = fake_run(sg, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_OFF}, 20);
            fprintf(dat, "%llu %.4f %.4f\n", (unsigned long long)ms, classic_speed(100 * US, ms * MS, 5, 20 * S),
                    r.speed);
        }
        fclose(dat);
    }
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
        uint32_t skip = costs[i] == 300 ? 10 : 5;
        bgame sg = {.render_lo = costs[i] * MS, .render_hi = costs[i] * MS, .update_ns = 100 * US};
        row r = fake_run(sg, (tempo_loop_desc){.vsync = TEMPO_LOOP_VSYNC_OFF, .max_frameskip = skip}, 20);
        double c = classic_speed(100 * US, costs[i] * MS, skip, 20 * S);
        printf("| %llu ms | %u | %.3f | %.3f | %.3f | %llu | %llu |\n", (unsigned long long)costs[i], skip, c,
               r.speed, ratio(r.speed, c), (unsigned long long)r.stalls, (unsigned long long)r.dropped);
    }

    vsync_noise_table();
    burst_table();

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
    printf("| renderer flags | desc.vsync | pacing | present grid ms | renders/s | wake-ups/s | lateness p99 ms | "
           "p99 last second ms | renders ratio | wake-ups ratio | p99 ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    /* 0: what the game did (it never asked for vsync, the renderer
     * reports PRESENTVSYNC all the same); PRESENTVSYNC: SDL then emulates
     * vsync, its present sleeps to a whole-ms grid of its own (16 ms). Each
     * against OFF with the same flags (the baseline). */
    static const struct {
        Uint32 flags;
        tempo_loop_vsync mode;
    } rows[] = {{0, TEMPO_LOOP_VSYNC_OFF},
                {0, TEMPO_LOOP_VSYNC_AUTO},
                {SDL_RENDERER_PRESENTVSYNC, TEMPO_LOOP_VSYNC_OFF},
                {SDL_RENDERER_PRESENTVSYNC, TEMPO_LOOP_VSYNC_AUTO},
                {SDL_RENDERER_PRESENTVSYNC, TEMPO_LOOP_VSYNC_ON}};
    row base = {0};
    for (size_t m = 0; m < sizeof rows / sizeof rows[0]; m++) {
        SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
        SDL_Window *w = SDL_CreateWindow("bench_pacing", 0, 0, 320, 240, 0);
        SDL_Renderer *rd = w ? SDL_CreateRenderer(w, -1, rows[m].flags) : NULL;
        SDL_RendererInfo info;
        if (rd == NULL || SDL_GetRendererInfo(rd, &info) != 0) {
            printf("(no software renderer: %s)\n", SDL_GetError());
            return 0;
        }
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .window = w, .renderer = rd, .render = real_render, .user = rd, .vsync = rows[m].mode});
        uint64_t end = tempo_now_ns() + seconds * S;
        while (tempo_now_ns() < end && tempo_loop_frame(loop) == 0) {
        }
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        row r = {.renders = st->total.renders_per_s, .wakes = st->total.sleeps_per_s,
                 .p99_ms = (double)st->total.lateness_p99_ns / 1e6, .pacing = st->pacing,
                 .p99_last_ms = (double)st->last_second.lateness_p99_ns / 1e6,
                 .grid_ms = (double)st->present_grid_ns / 1e6};
        if (rows[m].mode == TEMPO_LOOP_VSYNC_OFF)
            base = r;
        printf("| %s (reports %s) | %s | %s | %.3f | %.2f | %.1f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
               rows[m].flags ? "PRESENTVSYNC" : "0",
               (info.flags & SDL_RENDERER_PRESENTVSYNC) ? "PRESENTVSYNC" : "none",
               rows[m].mode == TEMPO_LOOP_VSYNC_OFF ? "OFF (baseline)"
               : rows[m].mode == TEMPO_LOOP_VSYNC_ON ? "ON"
                                                     : "AUTO",
               tempo_loop_pacing_name(r.pacing), r.grid_ms, r.renders, r.wakes, r.p99_ms, r.p99_last_ms,
               ratio(r.renders, base.renders), ratio(r.wakes, base.wakes), ratio(r.p99_ms, base.p99_ms));
        tempo_loop_destroy(loop);
        SDL_DestroyRenderer(rd);
        SDL_DestroyWindow(w);
    }
    return 0;
}

/* ---- Part 3: a real CPU quota (Linux cgroups) --------------------------------- */

#define QUOTA_RENDER_NS (8 * MS)
#define QUOTA_UPDATE_NS (2 * MS)

#if defined(__linux__)
static uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * S + (uint64_t)ts.tv_nsec;
}

/* Spends `ns` of CPU time (not wall time: under the quota it takes longer). */
static void burn_cpu(uint64_t ns)
{
    uint64_t end = cpu_now_ns() + ns;
    volatile uint64_t x = 0;
    while (cpu_now_ns() < end)
        for (int i = 0; i < 1000; i++)
            x = x + (uint64_t)i;
}

static uint64_t quota_updates;

static void q_update(tempo_loop *loop, uint64_t dt, void *user)
{
    (void)loop;
    (void)dt;
    (void)user;
    quota_updates++;
    burn_cpu(QUOTA_UPDATE_NS);
}

static void q_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    (void)user;
    burn_cpu(QUOTA_RENDER_NS);
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
    bool ok = fputs(text, f) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok;
}

/* The child: joins the cgroup `dir` (0 = this process), runs the probe
 * with Tempo or the textbook loop for `seconds` and prints one line. */
static int quota_child(const char *which, const char *dir, uint64_t seconds)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (!write_file(path, "0\n")) {
        printf("error cannot join %s: %s\n", dir, strerror(errno));
        return 1;
    }
    const uint64_t step = S / 60;
    if (strcmp(which, "tempo") == 0) {
        if (SDL_Init(SDL_INIT_EVENTS) != 0)
            return 1;
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update = q_update, .render = q_render});
        uint64_t t0 = tempo_now_ns();
        while (tempo_now_ns() < t0 + seconds * S && tempo_loop_frame(loop) == 0) {
        }
        uint64_t wall = tempo_now_ns() - t0;
        const tempo_loop_stats *st = tempo_loop_get_stats(loop);
        printf("result %.4f %llu %llu %llu %.3f\n",
               (double)quota_updates * (double)tempo_loop_get_step_ns(loop) / (double)wall,
               (unsigned long long)st->total.stalls, (unsigned long long)st->total.dropped_updates,
               (unsigned long long)st->total.capped_frames, (double)st->total.slowdown_ns / 1e9);
        tempo_loop_destroy(loop);
        SDL_Quit();
        return 0;
    }
    /* deWiTTERS' "constant game speed independent of variable FPS" with
     * MAX_FRAMESKIP 5, sleeping to the next tick when none was due. */
    uint64_t t0 = tempo_now_ns(), next = t0, now = t0;
    while (now < t0 + seconds * S) {
        int loops = 0;
        while ((now = tempo_now_ns()) > next && loops < 5) {
            q_update(NULL, step, NULL);
            next += step;
            loops++;
        }
        q_render(NULL, 0, NULL);
        now = tempo_now_ns();
        if (loops == 0 && now < next) {
            struct timespec ts = {(time_t)((next - now) / S), (long)((next - now) % S)};
            nanosleep(&ts, NULL);
        }
        now = tempo_now_ns();
    }
    printf("result %.4f 0 0 0 0\n", (double)quota_updates * (double)step / (double)(now - t0));
    return 0;
}

typedef struct quota_result {
    double speed, slowdown_s;
    unsigned long long stalls, dropped, capped;
    bool ok;
} quota_result;

static void on_quota_line(const char *line, void *user)
{
    quota_result *r = user;
    if (sscanf(line, "result %lf %llu %llu %llu %lf", &r->speed, &r->stalls, &r->dropped, &r->capped,
               &r->slowdown_s) == 5)
        r->ok = true;
    else
        fputs(line, stdout);
}

/* A mount of `type` (cgroup2, or cgroup with the cpu option) from
 * /proc/self/mounts into `dir`. */
static bool find_mount(bool v2, char *dir, size_t n)
{
    FILE *f = fopen("/proc/self/mounts", "r");
    if (f == NULL)
        return false;
    char line[1024], dev[256], mnt[512], type[64], opts[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "%255s %511s %63s %511s", dev, mnt, type, opts) != 4)
            continue;
        if (v2 && strcmp(type, "cgroup2") == 0)
            found = true;
        if (!v2 && strcmp(type, "cgroup") == 0) {
            for (char *tok = strtok(opts, ","); tok != NULL && !found; tok = strtok(NULL, ","))
                found = strcmp(tok, "cpu") == 0;
        }
        if (found)
            snprintf(dir, n, "%s", mnt);
    }
    fclose(f);
    return found;
}

static bool has_token(const char *path, const char *token)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    char word[64];
    bool found = false;
    while (!found && fscanf(f, "%63s", word) == 1)
        found = strcmp(word, token) == 0;
    fclose(f);
    return found;
}

/* Creates a cgroup limited to 10 % of a core in `dir`; the reason when it
 * cannot, in `why`. */
static bool make_quota_cgroup(char *dir, size_t n, char *why, size_t wn, const char **how)
{
    char mnt[512], path[700];
    char v2why[1400] = "no cgroup v2 mounted";
    if (find_mount(true, mnt, sizeof mnt)) {
        snprintf(path, sizeof path, "%s/cgroup.controllers", mnt);
        if (has_token(path, "cpu")) {
            snprintf(path, sizeof path, "%s/cgroup.subtree_control", mnt);
            write_file(path, "+cpu\n"); /* may be on already */
            snprintf(dir, n, "%s/tempo-bench-pacing-%ld", mnt, (long)getpid());
            snprintf(path, sizeof path, "%s/cpu.max", dir);
            if (mkdir(dir, 0755) == 0 && write_file(path, "10000 100000\n")) {
                *how = "cgroup v2 cpu.max 10000 100000";
                return true;
            }
            snprintf(v2why, sizeof v2why, "cgroup v2 at %s: cannot create %s with cpu.max (%s)", mnt, dir,
                     strerror(errno));
            rmdir(dir);
        } else {
            snprintf(v2why, sizeof v2why, "cgroup v2 at %s has no cpu controller", mnt);
        }
    }
    if (find_mount(false, mnt, sizeof mnt)) {
        snprintf(dir, n, "%s/tempo-bench-pacing-%ld", mnt, (long)getpid());
        char period[700];
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        snprintf(period, sizeof period, "%s/cpu.cfs_period_us", dir);
        if (mkdir(dir, 0755) == 0 && write_file(period, "100000\n") && write_file(path, "10000\n")) {
            *how = "cgroup v1 cpu.cfs_quota_us 10000 / cpu.cfs_period_us 100000";
            return true;
        }
        snprintf(why, wn, "%s; cgroup v1 cpu at %s: cannot create %s with a quota (%s)", v2why, mnt, dir,
                 strerror(errno));
        rmdir(dir);
        return false;
    }
    snprintf(why, wn, "%s, and no cgroup v1 hierarchy has the cpu controller", v2why);
    return false;
}

static int quota_table(const char *self, uint64_t seconds, int runs)
{
    printf("\n## A slow machine under a real CPU quota: 10 %% of a core (render 8 ms, update 2 ms of CPU, 60 Hz, "
           "max_frameskip 5), %llu s per run\n\n",
           (unsigned long long)seconds);
    char dir[600], why[4096];
    const char *how = "";
    if (!make_quota_cgroup(dir, sizeof dir, why, sizeof why, &how)) {
        printf("skipped: %s\n", why);
        return 0;
    }
    printf("(%s, created at %s and removed after; Tempo and the textbook loop in turn)\n\n", how, dir);
    printf("| run | classic loop (baseline) | Tempo | ratio | Tempo stalls / dropped / capped | Tempo behind (slowdown) |\n");
    printf("|---|---|---|---|---|---|\n");
    FILE *dat = bench_data_open("pacing-quota.dat");
    if (dat != NULL)
        fprintf(dat, "# run classic tempo (game time / wall time under 10 %% of a core; render 8 ms, update 2 ms)\n");
    int rc = 0;
    for (int run = 1; run <= runs && rc == 0; run++) {
        quota_result t = {0}, c = {0};
        char args[800];
        snprintf(args, sizeof args, "--quota-child tempo '%s' %llu", dir, (unsigned long long)seconds);
        bench_run_child(self, args, on_quota_line, &t);
        snprintf(args, sizeof args, "--quota-child classic '%s' %llu", dir, (unsigned long long)seconds);
        bench_run_child(self, args, on_quota_line, &c);
        if (!t.ok || !c.ok) {
            printf("(a child failed)\n");
            rc = 1;
            break;
        }
        printf("| %d | %.3f | %.3f | %.3f | %llu / %llu / %llu | %.1f s |\n", run, c.speed, t.speed,
               ratio(t.speed, c.speed), t.stalls, t.dropped, t.capped, t.slowdown_s);
        if (dat != NULL)
            fprintf(dat, "%d %.4f %.4f\n", run, c.speed, t.speed);
    }
    if (dat != NULL)
        fclose(dat);
    if (rmdir(dir) != 0)
        printf("(could not remove %s: %s)\n", dir, strerror(errno));
    return rc;
}
#else
static int quota_child(const char *which, const char *dir, uint64_t seconds)
{
    (void)which;
    (void)dir;
    (void)seconds;
    return 1;
}

static int quota_table(const char *self, uint64_t seconds, int runs)
{
    (void)self;
    (void)seconds;
    (void)runs;
    printf("\n## A slow machine under a real CPU quota\n\nskipped: CPU quotas (cgroups) are Linux only\n");
    return 0;
}
#endif

int main(int argc, char **argv)
{
    bool real = false, quota = false, quick = false;
    uint64_t seconds = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--real") == 0)
            real = true;
        else if (strcmp(argv[i], "--quota") == 0)
            quota = true;
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--quota-child") == 0 && i + 3 < argc)
            return quota_child(argv[i + 1], argv[i + 2], strtoull(argv[i + 3], NULL, 10));
    }
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    if (quick) /* CI's smoke run: 2 s per real row and quota run, one quota run */
        seconds = 2;
    fake_tables();
    int rc = real ? real_table(seconds) : 0;
    SDL_Quit();
    if (rc == 0 && quota)
        rc = quota_table(argv[0], seconds, quick ? 1 : 2);
    return rc;
}
