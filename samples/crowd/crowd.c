/* crowd: a crowd walking into view over the network, handled by the
 * throttled queue (tempo/netq.h) and the network thread (tempo/net.h).
 *
 * The client starts samples/crowd_server (or connects to --port N), which
 * sends spawn/move/despawn messages in scripted bursts. Each message costs
 * --cost-us of CPU work (default 200 us) to stand in for real object
 * creation. The frame-time graph shows the difference between the policies:
 * drain-all (and the classic flush above 300 queued) freeze a frame for the
 * whole burst; the budgeted policies keep frames short.
 *
 * Keys: 1 deadline (the queue's default), 2 classic, 3 drain-all, 4 fixed
 * budget; B a burst of 5 000, W a wave of 300; V vsync on/off; Esc quits.
 *
 * Headless (--headless, or no display): runs the scenario (default
 * "burst") for --seconds, prints statistics; --policy all runs it once per
 * policy and prints a table.
 *
 * --record FILE records the run (tempo/replay.h): the attached network
 * queue's messages at the tick they reached the game, and the crowd's hash
 * every 6 ticks. --replay FILE runs it again with no server and no network,
 * as fast as possible, and prints "replay: N ticks, hash H, matches" (exit
 * 0) or the first tick whose crowd differs (exit 1).
 *
 * Everything runs in tempo_loop_run() (tempo/loop.h) at 60 updates per
 * second, CONSTANT_SPEED_MAX_FPS: update() walks the crowd, render() draws
 * it after each batch. The network thread's queue is one of the loop's
 * sources (tempo_net_attach): when messages arrive the loop wakes and drains
 * them under the policy's budget, once per game frame, with the time until
 * the next update or render as the deadline. No glue in the game.
 * The work graph shows drain + update + draw per rendered frame (the drain
 * time comes from the loop's per-source statistics); the loop's own
 * statistics (stall clamp, dropped updates, lateness) go in the summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tempo/debugdraw.h>
#include <tempo/net.h>
#include <tempo/tempo.h>

#include "crowd_proto.h"
#include "sample.h"
#include "spawn.h"

#define MS TEMPO_NS_PER_MS
#define TICK_NS (TEMPO_NS_PER_S / 60)
#define GRAPH_N 240

typedef struct actor {
    int16_t x, y, tx, ty;
    uint8_t kind;
    bool alive;
} actor;

typedef struct run_stats {
    uint64_t frames, slow_frames, handled, max_busy_ns, p99_busy_ns, max_drain_ns;
    tempo_netq_stats q;
    tempo_loop_counts loop; /* the loop's totals for the run */
    uint32_t actors_peak;
    bool ended;     /* the server's CROWD_END was handled */
    bool net_error; /* the connection failed */
} run_stats;

typedef struct crowd {
    sample_app app;
    /* options */
    int port;
    const char *server_path;
    const char *scenario;
    const char *policy_arg;
    uint64_t cost_ns;
    const char *record, *replay;
    /* one run */
    tempo_loop *loop;
    tempo_netq *q;
    tempo_net *net;
    tempo_netq_policy policy;
    actor *actors;
    uint32_t alive;
    uint64_t busy_ns; /* work since the last render: drains + updates + draw */
    uint64_t drain_seen_ns; /* the netq source's busy_ns at the last render */
    uint64_t graph[GRAPH_N];
    uint64_t *busy_all;
    size_t busy_n, busy_cap;
    run_stats st;
    bool replaying; /* nothing is drawn, no CPU is burnt per message */
} crowd;

/* ---- Messages ------------------------------------------------------------- */

/* Stands in for creating or updating a game object: CPU work, not a wait. */
static void burn(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t end = tempo_now_ns() + ns;
    volatile uint32_t x = 1;
    while (tempo_now_ns() < end)
        x = x * 1664525u + 1013904223u;
}

static void on_message(const tempo_netq_msg *m, void *user)
{
    crowd *c = user;
    switch (m->type) {
    case CROWD_SPAWN: {
        crowd_spawn s;
        memcpy(&s, m->data, sizeof s);
        if (s.id < CROWD_MAX_ACTORS && !c->actors[s.id].alive) {
            c->actors[s.id] = (actor){s.x, s.y, (int16_t)(s.x + 200), s.y, s.kind, true};
            c->alive++;
        }
        burn(c->cost_ns);
        break;
    }
    case CROWD_MOVE: {
        crowd_move mv;
        memcpy(&mv, m->data, sizeof mv);
        if (mv.id < CROWD_MAX_ACTORS && c->actors[mv.id].alive) {
            c->actors[mv.id].tx = mv.x;
            c->actors[mv.id].ty = mv.y;
        }
        burn(c->cost_ns);
        break;
    }
    case CROWD_DESPAWN: {
        crowd_despawn d;
        memcpy(&d, m->data, sizeof d);
        if (d.id < CROWD_MAX_ACTORS && c->actors[d.id].alive) {
            c->actors[d.id].alive = false;
            c->alive--;
        }
        burn(c->cost_ns);
        break;
    }
    case CROWD_END:
        c->st.ended = true;
        break;
    case TEMPO_NET_MSG_CONNECTED:
        break;
    case TEMPO_NET_MSG_CLOSED:
    case TEMPO_NET_MSG_ERROR: {
        const tempo_net_status *s = m->data;
        if (!c->st.ended)
            fprintf(stderr, "crowd: connection: %s\n", s->detail);
        c->st.net_error = m->type == TEMPO_NET_MSG_ERROR;
        if (c->app.headless)
            tempo_loop_quit(c->loop);
        break;
    }
    default:
        break;
    }
    if (c->alive > c->st.actors_peak)
        c->st.actors_peak = c->alive;
}

/* The state a replay must reproduce: every live actor, the count and
 * whether the script ended. */
static uint64_t crowd_hash(tempo_loop *loop, void *user)
{
    (void)loop;
    const crowd *c = user;
    uint64_t h = 1469598103934665603u;
    for (uint32_t i = 0; i < CROWD_MAX_ACTORS; i++) {
        const actor *a = &c->actors[i];
        if (!a->alive)
            continue;
        uint64_t v[2] = {(uint64_t)(uint16_t)a->x | (uint64_t)(uint16_t)a->y << 16 | (uint64_t)(uint16_t)a->tx << 32 |
                             (uint64_t)(uint16_t)a->ty << 48,
                         (uint64_t)i << 8 | a->kind};
        for (int k = 0; k < 2; k++)
            h = (h ^ v[k]) * 1099511628211u;
    }
    return (h ^ ((uint64_t)c->alive << 1 | c->st.ended)) * 1099511628211u;
}

/* [loop] Drain time since the last render, from the loop's statistics of
 * its one source (the queue). */
static uint64_t drain_since_render(crowd *c, tempo_loop *loop)
{
    const tempo_loop_stats *ls = tempo_loop_get_stats(loop);
    uint64_t total = ls->source_count > 0 ? ls->sources[0].total.busy_ns : 0;
    uint64_t dt = total - c->drain_seen_ns;
    c->drain_seen_ns = total;
    return dt;
}

/* ---- The frame ------------------------------------------------------------ */

static void draw(crowd *c)
{
    static const SDL_Color colours[6] = {{240, 90, 90, 255},  {90, 200, 120, 255}, {90, 150, 250, 255},
                                         {240, 200, 80, 255}, {200, 110, 230, 255}, {90, 220, 220, 255}};
    SDL_Renderer *r = c->app.renderer;
    SDL_SetRenderDrawColor(r, 14, 16, 22, 255);
    SDL_RenderClear(r);
    static SDL_Rect rects[6][1024];
    int n[6] = {0};
    for (uint32_t i = 0; i < CROWD_MAX_ACTORS; i++) {
        const actor *a = &c->actors[i];
        if (!a->alive)
            continue;
        int k = a->kind % 6;
        rects[k][n[k]++] = (SDL_Rect){a->x, a->y, 3, 3};
        if (n[k] == 1024) {
            SDL_SetRenderDrawColor(r, colours[k].r, colours[k].g, colours[k].b, 255);
            SDL_RenderFillRects(r, rects[k], n[k]);
            n[k] = 0;
        }
    }
    for (int k = 0; k < 6; k++) {
        SDL_SetRenderDrawColor(r, colours[k].r, colours[k].g, colours[k].b, 255);
        SDL_RenderFillRects(r, rects[k], n[k]);
    }

    tempo_netq_stats st;
    tempo_netq_get_stats(c->q, &st);
    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    tempo_debug_textf(r, 8, 6, 2, "crowd  policy: %s", tempo_netq_policy_name(c->policy));
    tempo_debug_textf(r, 8, 26, 1, "actors %u   backlog %u   oldest %.0f ms   budget %.1f ms   last drain %u msgs in %.1f ms",
                      c->alive, st.backlog, st.oldest_age_ns / 1e6,
                      st.budget_ns == UINT64_MAX ? -1.0 : st.budget_ns / 1e6, st.last_processed,
                      st.last_drain_ns / 1e6);
    tempo_debug_textf(r, 8, 38, 1, "max age %.0f ms   flushes %llu   overruns %llu   full waits %llu   handled %llu",
                      st.max_age_ns / 1e6, (unsigned long long)st.flushes, (unsigned long long)st.overruns,
                      (unsigned long long)st.full_waits, (unsigned long long)st.processed);
    SDL_SetRenderDrawColor(r, 150, 150, 150, 255);
    tempo_debug_text(r, 8, c->app.height - 14, 1,
                     "1 classic  2 drain-all  3 fixed  4 deadline   B burst of 5000   W wave of 300   Esc quit");
    /* Work per frame (drain + frame), newest on the right; the line is one
     * 60 Hz frame. */
    tempo_debug_graph(r,
                      &(tempo_debug_graph_desc){.x = c->app.width - 248, .y = c->app.height - 90, .w = 240,
                                                .h = 70, .full_scale_ns = 50 * MS, .warn_ns = TICK_NS},
                      c->graph, GRAPH_N);
    tempo_debug_text(r, c->app.width - 248, c->app.height - 102, 1, "work per frame (50 ms full scale)");
}

/* [loop] One update (1/60 s): the crowd walks a pixel towards its
 * targets. Headless runs end once the script is over and handled. */
static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    crowd *c = user;
    uint64_t t0 = tempo_now_ns();
    for (uint32_t i = 0; i < CROWD_MAX_ACTORS; i++) {
        actor *a = &c->actors[i];
        if (!a->alive)
            continue;
        a->x = (int16_t)(a->x + (a->tx > a->x) - (a->tx < a->x));
        a->y = (int16_t)(a->y + (a->ty > a->y) - (a->ty < a->y));
    }
    c->busy_ns += tempo_now_ns() - t0;
    if (c->app.headless && c->st.ended) {
        tempo_netq_stats qs;
        tempo_netq_get_stats(c->q, &qs);
        if (qs.backlog == 0)
            tempo_loop_quit(loop);
    }
}

/* [loop] One rendered frame: draw, account the frame's work, present (in a
 * window, or headless when a screenshot is wanted). */
static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    crowd *c = user;
    if (c->replaying)
        return;
    uint64_t drained = drain_since_render(c, loop);
    c->busy_ns += drained;
    if (drained > c->st.max_drain_ns)
        c->st.max_drain_ns = drained;
    uint64_t t0 = tempo_now_ns();
    draw(c);
    c->busy_ns += tempo_now_ns() - t0;

    memmove(c->graph, c->graph + 1, sizeof c->graph[0] * (GRAPH_N - 1));
    c->graph[GRAPH_N - 1] = c->busy_ns;
    if (c->busy_n == c->busy_cap) {
        c->busy_cap = c->busy_cap ? c->busy_cap * 2 : 1024;
        c->busy_all = realloc(c->busy_all, c->busy_cap * sizeof *c->busy_all);
    }
    c->busy_all[c->busy_n++] = c->busy_ns;
    c->st.frames++;
    if (c->busy_ns > TICK_NS)
        c->st.slow_frames++;
    if (c->busy_ns > c->st.max_busy_ns)
        c->st.max_busy_ns = c->busy_ns;
    c->busy_ns = 0; /* the loop presents (desc.renderer) when there is someone to see it */
}

static void send_cmd(crowd *c, uint16_t type, uint32_t count)
{
    crowd_cmd cmd = {count};
    int r = tempo_net_send(c->net, type, &cmd, sizeof cmd);
    if (r != 0)
        fprintf(stderr, "crowd: send: %s\n", tempo_strerror(r));
}

/* [loop] Keys. SDL_QUIT (closing the window) ends the loop by itself. */
static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    crowd *c = user;
    if (e->type != SDL_KEYDOWN)
        return;
    switch (e->key.keysym.sym) {
    case SDLK_ESCAPE:
        tempo_loop_quit(loop);
        break;
    case SDLK_1:
    case SDLK_2:
    case SDLK_3:
    case SDLK_4:
        c->policy = (tempo_netq_policy)(e->key.keysym.sym - SDLK_1);
        tempo_netq_set_policy(c->q, c->policy);
        break;
    case SDLK_b:
        send_cmd(c, CROWD_CMD_BURST, 5000);
        break;
    case SDLK_w:
        send_cmd(c, CROWD_CMD_WAVE, 300);
        break;
    case SDLK_v:
        sample_toggle_vsync(loop);
        break;
    default:
        break;
    }
}

/* ---- One run: server, connection, loop ---------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int run(crowd *c, tempo_netq_policy policy, run_stats *out)
{
    child server = {0, -1};
    int port = c->port;
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%g", c->app.seconds);
    if (port == 0) {
        char *argv[] = {(char *)c->server_path, "--scenario", (char *)c->scenario, "--duration", seconds, NULL};
        if (c->app.seconds <= 0)
            argv[3] = NULL; /* interactive: the server runs until we leave */
        char line[64];
        if (child_start(&server, argv) != 0 || child_read_line(&server, line, sizeof line) != 0 ||
            sscanf(line, "PORT %d", &port) != 1) {
            fprintf(stderr, "crowd: the server did not start (%s)\n", c->server_path);
            child_stop(&server);
            return -1;
        }
    }

    memset(c->actors, 0, sizeof(actor) * CROWD_MAX_ACTORS);
    memset(c->graph, 0, sizeof c->graph);
    memset(&c->st, 0, sizeof c->st);
    c->alive = 0;
    c->busy_n = 0;
    c->busy_ns = 0;
    c->drain_seen_ns = 0;
    c->policy = policy;
    c->q = tempo_netq_create(&(tempo_netq_desc){.policy = policy});
    c->net = c->q ? tempo_net_create(&(tempo_net_desc){.port = (uint16_t)port, .queue = c->q,
                                                        .max_type = CROWD_MAX_TYPE, .max_payload_bytes = 64})
                  : NULL;
    c->loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60,
        .policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS, /* one render per batch of updates */
        .window = c->app.window,
        /* The loop presents, vsync paced; headless runs without a screenshot
         * skip presenting altogether. */
        .renderer = !c->app.headless || c->app.screenshot != NULL ? c->app.renderer : NULL,
        .update = update,
        .render = render,
        .event = on_event,
        .user = c,
    });
    tempo_handle *time_up = tempo_timer_create(false);
    if (c->q == NULL || c->net == NULL || c->loop == NULL || time_up == NULL) {
        fprintf(stderr, "crowd: %s\n", tempo_get_error());
        return -1;
    }
    tempo_net_attach(c->net, c->loop, on_message, c);
    if (c->record != NULL &&
        tempo_loop_record(c->loop, &(tempo_record_desc){.path = c->record, .hash = crowd_hash, .hash_user = c,
                                                        .hash_every = 6}) != 0) {
        fprintf(stderr, "crowd: record: %s\n", tempo_get_error());
        return -1;
    }
    /* Headless: stop when the script is over and handled (update()), or at
     * a limit with room for drain-all's long frames. */
    if (c->app.seconds > 0) {
        uint64_t limit = tempo_now_ns() + (uint64_t)((c->app.seconds + (c->app.headless ? 10 : 0)) * 1e9);
        tempo_timer_set(time_up, limit, 0);
        tempo_loop_watch(c->loop, time_up, sample_quit_loop, NULL);
    }
    int rc = tempo_loop_run(c->loop);
    if (rc != 0)
        fprintf(stderr, "crowd: loop: %s (%s)\n", tempo_strerror(rc), tempo_get_error());
    c->st.loop = tempo_loop_get_stats(c->loop)->total;
    if (c->record != NULL) {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(c->loop, &rs);
        uint64_t h = crowd_hash(c->loop, c);
        if (tempo_loop_record_stop(c->loop) != 0)
            fprintf(stderr, "crowd: record: %s\n", tempo_get_error());
        printf("record: %llu ticks, %llu messages, hash %016llx, %llu bytes in %s, %.1f us per tick\n",
               (unsigned long long)rs.ticks, (unsigned long long)rs.items, (unsigned long long)h,
               (unsigned long long)rs.bytes, c->record, rs.ticks ? (double)rs.cost_ns / 1e3 / (double)rs.ticks : 0.0);
    }
    if (c->app.screenshot) {
        draw(c);
        sample_screenshot(&c->app, c->app.screenshot);
    }

    tempo_net_destroy(c->net);
    child_stop(&server);
    tempo_netq_get_stats(c->q, &c->st.q);
    c->st.handled = c->st.q.processed;
    if (c->busy_n > 0) {
        qsort(c->busy_all, c->busy_n, sizeof *c->busy_all, cmp_u64);
        c->st.p99_busy_ns = c->busy_all[c->busy_n * 99 / 100];
    }
    *out = c->st;
    tempo_loop_destroy(c->loop);
    tempo_netq_destroy(c->q);
    tempo_timer_destroy(time_up);
    c->loop = NULL;
    c->q = NULL;
    c->net = NULL;
    return 0;
}

/* --replay: the recorded messages reach on_message at their ticks through
 * a queue attached like the network's (tempo_net_attach is
 * tempo_netq_attach of its queue), with no server and no connection. */
static int replay_main(crowd *c)
{
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = c->replay, .hash = crowd_hash, .hash_user = c});
    if (rp == NULL) {
        fprintf(stderr, "replay: %s\n", tempo_get_error());
        return 1;
    }
    c->replaying = true;
    c->cost_ns = 0;
    c->q = tempo_netq_create(NULL);
    c->loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .policy = TEMPO_LOOP_CONSTANT_SPEED_MAX_FPS, .update = update, .render = render,
        .user = c, .clock = tempo_replay_clock(rp)});
    if (c->q == NULL || c->loop == NULL || tempo_netq_attach(c->q, c->loop, on_message, c) != 0 ||
        tempo_loop_replay(c->loop, rp) != 0) {
        fprintf(stderr, "replay: %s\n", tempo_get_error());
        return 1;
    }
    uint64_t t0 = tempo_now_ns();
    int rc = tempo_loop_run(c->loop);
    double secs = (double)(tempo_now_ns() - t0) / 1e9;
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    fprintf(stderr, "replay: recorded on %s, %.0f ticks/s\n", tempo_replay_get_info(rp)->backend,
            secs > 0 ? (double)res.ticks / secs : 0.0);
    if (rc != 0)
        printf("replay: %llu ticks, error %s\n", (unsigned long long)res.ticks, tempo_strerror(rc));
    else if (res.matches)
        printf("replay: %llu ticks, hash %016llx, matches\n", (unsigned long long)res.ticks,
               (unsigned long long)res.hash);
    else if (res.diverged_at != 0)
        printf("replay: %llu ticks, hash %016llx, diverges at tick %llu (last match at %llu)\n",
               (unsigned long long)res.ticks, (unsigned long long)res.hash, (unsigned long long)res.diverged_at,
               (unsigned long long)res.last_match);
    else
        printf("replay: %llu ticks, hash %016llx, did not finish\n", (unsigned long long)res.ticks,
               (unsigned long long)res.hash);
    tempo_loop_destroy(c->loop);
    tempo_netq_destroy(c->q);
    tempo_replay_destroy(rp);
    return rc == 0 && res.matches ? 0 : 1;
}

static void print_row(const crowd *c, tempo_netq_policy p, const run_stats *s)
{
    printf("| %s | %s | %llu | %.1f | %.1f | %.1f | %llu | %.0f | %u | %llu | %llu | %llu | %llu | %s |\n",
           c->scenario, tempo_netq_policy_name(p), (unsigned long long)s->frames, s->max_drain_ns / 1e6,
           s->max_busy_ns / 1e6, s->p99_busy_ns / 1e6,
           (unsigned long long)s->slow_frames, s->q.max_age_ns / 1e6, s->q.peak_backlog,
           (unsigned long long)s->q.flushes, (unsigned long long)s->q.overruns,
           (unsigned long long)s->q.full_waits, (unsigned long long)s->handled,
           s->net_error ? "net error" : s->ended ? "complete" : "cut short");
}

static void print_loop_row(tempo_netq_policy p, const run_stats *s)
{
    const tempo_loop_counts *t = &s->loop;
    printf("| %s | %.1f | %.1f | %.2f | %.1f | %llu | %llu | %llu | %llu / %llu / %llu / %llu | %.1f%% |\n",
           tempo_netq_policy_name(p), t->updates_per_s, t->renders_per_s, (double)t->lateness_p99_ns / 1e6,
           (double)t->lateness_max_ns / 1e6, (unsigned long long)t->capped_frames, (unsigned long long)t->stalls,
           (unsigned long long)t->dropped_updates, (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_TIMER],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SOURCE], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_MESSAGES],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_DUE], 100 * t->wait_share);
}

static int extra(const char *arg, const char *value, void *user)
{
    crowd *c = user;
    if (value == NULL)
        return -1;
    if (strcmp(arg, "--port") == 0)
        c->port = atoi(value);
    else if (strcmp(arg, "--server") == 0)
        c->server_path = value;
    else if (strcmp(arg, "--scenario") == 0)
        c->scenario = value;
    else if (strcmp(arg, "--policy") == 0)
        c->policy_arg = value;
    else if (strcmp(arg, "--record") == 0)
        c->record = value;
    else if (strcmp(arg, "--replay") == 0)
        c->replay = value;
    else if (strcmp(arg, "--cost-us") == 0)
        c->cost_ns = (uint64_t)(atof(value) * 1000);
    else
        return -1;
    return 1;
}

int main(int argc, char **argv)
{
    static crowd c;
    static char server_path[1024];
    c.scenario = NULL;
    c.cost_ns = 200 * TEMPO_NS_PER_US;
    if (sample_parse(&c.app, argc, argv,
                     "[--scenario waves|burst|overload|trickle] [--policy classic|drain-all|fixed|deadline|all] "
                     "[--cost-us N] [--port N | --server PATH] [--record FILE | --replay FILE]",
                     extra, &c) != 0)
        return 1;
    /* The server sits next to this program in the build tree. */
    if (c.server_path == NULL) {
        const char *slash = strrchr(argv[0], '/');
        snprintf(server_path, sizeof server_path, "%.*scrowd_server", slash ? (int)(slash - argv[0] + 1) : 0,
                 argv[0]);
        c.server_path = server_path;
    }
    if (c.replay != NULL) {
        c.actors = calloc(CROWD_MAX_ACTORS, sizeof(actor));
        int r = c.actors != NULL ? replay_main(&c) : 1;
        free(c.actors);
        tempo_shutdown();
        return r;
    }
    if (c.app.headless && c.app.seconds <= 0)
        c.app.seconds = 6;
    if (sample_open(&c.app, "Tempo crowd", 640, 360) != 0)
        return 1;
    if (c.scenario == NULL)
        c.scenario = c.app.headless ? "burst" : "waves";
    c.actors = calloc(CROWD_MAX_ACTORS, sizeof(actor));

    tempo_netq_policy policies[TEMPO_NETQ_POLICY_COUNT];
    int n_policies = 0;
    const char *want = c.policy_arg ? c.policy_arg : "classic";
    for (int p = 0; p < TEMPO_NETQ_POLICY_COUNT; p++)
        if (strcmp(want, "all") == 0 || strcmp(want, tempo_netq_policy_name((tempo_netq_policy)p)) == 0)
            policies[n_policies++] = (tempo_netq_policy)p;
    if (n_policies == 0) {
        fprintf(stderr, "crowd: unknown policy %s\n", want);
        return 2;
    }
    if (c.record != NULL && n_policies > 1) {
        fprintf(stderr, "crowd: --record records one run: choose one --policy\n");
        return 2;
    }

    run_stats st[TEMPO_NETQ_POLICY_COUNT];
    int ok = 0;
    for (int i = 0; i < n_policies; i++)
        if (run(&c, policies[i], &st[i]) == 0)
            ok++;
    if (ok == n_policies) {
        printf("crowd summary (%s, video %s, wait route %s): %.0f us per message, 60 Hz frames\n",
               tempo_backend_name(), c.app.video_driver, tempo_wait_route(), c.cost_ns / 1e3);
        SDL_RendererInfo ri = {0};
        if (c.app.renderer == NULL || SDL_GetRendererInfo(c.app.renderer, &ri) != 0)
            ri.name = "none";
        printf("Frame work = drain + walking and drawing the crowd (SDL's %s renderer).\n", ri.name);
        printf("| scenario | policy | frames | max drain ms | max frame work ms | p99 ms | frames > 16.7 ms | max age "
               "ms | peak backlog | flushes | overruns | full waits | handled | script |\n");
        printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (int i = 0; i < n_policies; i++)
            print_row(&c, policies[i], &st[i]);
        printf("The loop (tempo_loop_get_stats): 60 updates/s, constant-speed-max-fps; a frame later than "
               "250 ms is a stall, its updates are dropped.\n");
        printf("| policy | updates/s | renders/s | lateness p99 ms | lateness max ms | capped frames | stalls | "
               "dropped updates | woke timer / source / input / due | waiting |\n");
        printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (int i = 0; i < n_policies; i++)
            print_loop_row(policies[i], &st[i]);
    }
    free(c.actors);
    free(c.busy_all);
    tempo_shutdown();
    sample_close(&c.app);
    return ok == n_policies ? 0 : 1;
}
