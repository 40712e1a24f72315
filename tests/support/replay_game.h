/* The scripted game of test_replay.c and bench_replay.c: float physics
 * and a seeded RNG (replay_game_core.h, which also says which compiler
 * flags its bits depend on), input read from the ring in update(),
 * messages through a replay channel, and a fake clock whose "live world"
 * pushes input and delivers messages at wall-clock moments. Static
 * functions: include it once per program. */
#ifndef TEMPO_TEST_REPLAY_GAME_H
#define TEMPO_TEST_REPLAY_GAME_H

#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "replay_game_core.h"
#include "tempo/input.h"
#include "tempo/loop.h"
#include "tempo/netq.h"
#include "tempo/replay.h"

#ifndef US
#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)
#endif

/* ---- The scripted game ---------------------------------------------------------------- */

_Static_assert(GAME_EV_KEY == TEMPO_INPUT_KEY && GAME_EV_MOTION == TEMPO_INPUT_MOUSE_MOTION,
               "replay_game_core.h's event kinds are tempo_input_type's");

typedef struct fclock {
    uint64_t now;
    uint32_t rng;
    uint64_t render_min, render_max;
    uint64_t late_max;
    /* time-driven arrivals (the "live" world): input events into the ring
     * and messages through the channel, each when the clock passes it */
    bool live;
    uint64_t next_input_ns, next_msg_ns;
    uint32_t script;
    tempo_loop *loop;
    tempo_input *in;
    tempo_netq *q; /* set: messages are pushed here instead of delivered on channel 5 */
} fclock;

typedef struct game {
    game_state s; /* the positions, RNG, tick count and score: what the hash covers */
    uint64_t stop_after;
    uint64_t perturb_at; /* 0: never; else nudge a body in that update (1-based) */
    int read_limit;      /* most events one update reads (0: all): the rest wait in the ring */
    bool use_queued;     /* the game also looks at how many events wait (the ring's state) */
    tempo_input *in;
    fclock *clk;
    uint64_t renders;
} game;

static uint32_t xs32(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void game_init(game *g, uint64_t seed, tempo_input *in, fclock *clk)
{
    memset(g, 0, sizeof *g);
    game_state_init(&g->s, seed);
    g->in = in;
    g->clk = clk;
}

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    game *g = user;
    tempo_input_event ev;
    if (g->use_queued && g->in != NULL) {
        tempo_input_stats ist;
        tempo_input_get_stats(g->in, &ist);
        game_state_queued(&g->s, ist.queued);
    }
    int reads = 0;
    while (g->in != NULL && (g->read_limit == 0 || reads++ < g->read_limit) && tempo_input_poll(g->in, &ev) > 0)
        game_state_event(&g->s, ev.type, ev.u.key.scancode, ev.u.key.down, ev.u.motion.x, ev.u.motion.dx);
    game_state_tick(&g->s, dt_ns);
    if (g->perturb_at && g->s.updates == g->perturb_at)
        g->s.b[3].x += 0.001f;
    if (g->stop_after && g->s.updates == g->stop_after)
        tempo_loop_quit(loop);
}

static void on_message(tempo_loop *loop, uint32_t ch, const tempo_replay_item *it, void *user)
{
    (void)loop;
    (void)ch;
    game *g = user;
    CHECK_EQ_INT(it->kind, TEMPO_REPLAY_MESSAGE);
    game_state_message(&g->s, it->type, it->data, it->size);
}

/* The same through an attached tempo_netq. */
static void on_netq(const tempo_netq_msg *m, void *user)
{
    tempo_replay_item it = {.kind = TEMPO_REPLAY_MESSAGE, .type = m->type, .data = m->data, .size = m->size};
    CHECK_EQ_U64((uintptr_t)m->data % 16, 0);
    on_message(NULL, 0, &it, user);
}

static uint64_t game_hash(tempo_loop *loop, void *user)
{
    (void)loop;
    return game_state_hash(&((const game *)user)->s);
}

/* The live world: what arrived by now goes in. Called whenever fake time
 * moves (the loop's wait, a render). */
static void arrivals(fclock *c)
{
    if (!c->live)
        return;
    while (c->now >= c->next_input_ns) {
        uint32_t r = xs32(&c->script);
        tempo_input_event e;
        memset(&e, 0, sizeof e);
        e.time_ns = c->next_input_ns;
        if (r & 1) {
            e.type = TEMPO_INPUT_KEY;
            e.u.key.scancode = (int32_t)(r >> 8) % 200;
            e.u.key.down = (r >> 4) & 1;
        } else {
            e.type = TEMPO_INPUT_MOUSE_MOTION;
            e.u.motion.x = (int32_t)(r >> 8) % 640;
            e.u.motion.dx = (int32_t)((r >> 20) % 21) - 10;
        }
        tempo_input_push(c->in, &e);
        c->next_input_ns += 3 * MS + (r >> 3) % (40 * MS);
    }
    while (c->now >= c->next_msg_ns) {
        uint32_t r = xs32(&c->script);
        char msg[64];
        int n = snprintf(msg, sizeof msg, "entity %u moved to %u", r % 1000, (r >> 10) % 5000);
        tempo_replay_item it = {.kind = TEMPO_REPLAY_MESSAGE, .type = r % 17, .data = msg, .size = (uint32_t)n};
        if (c->q != NULL)
            CHECK_EQ_INT(tempo_netq_push(c->q, it.type, msg, (size_t)n), 0);
        else
            CHECK_EQ_INT(tempo_loop_deliver(c->loop, 5, &it), 0);
        c->next_msg_ns += 1 * MS + (r >> 5) % (70 * MS);
    }
}

static uint64_t fc_now(void *user)
{
    return ((fclock *)user)->now;
}

static void fc_wait(void *user, uint64_t deadline)
{
    fclock *c = user;
    if (deadline == TEMPO_INFINITE)
        c->now += 10 * MS;
    else if (deadline > c->now)
        c->now = deadline + (c->late_max ? xs32(&c->rng) % c->late_max : 0);
    arrivals(c);
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    game *g = user;
    g->renders++;
    fclock *c = g->clk;
    if (c != NULL) {
        c->now += c->render_min + (c->render_max > c->render_min ? xs32(&c->rng) % (c->render_max - c->render_min) : 0);
        arrivals(c);
    }
}

static void fclock_init(fclock *c, uint32_t salt)
{
    memset(c, 0, sizeof *c);
    c->now = T0;
    c->rng = 0x9E3779B9u ^ salt;
    c->render_min = 200 * US;
    c->render_max = 3 * MS;
    c->late_max = 2 * MS;
    c->script = 0xC0FFEEu;
    c->next_input_ns = T0 + 5 * MS;
    c->next_msg_ns = T0 + 7 * MS;
}

static tempo_loop *make_loop(game *g, fclock *c, tempo_input *in, uint32_t render_hz, tempo_loop_policy policy)
{
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .max_render_hz = render_hz, .policy = policy, .update = on_update,
        .render = on_render, .user = g, .input = in, .clock = {fc_now, fc_wait, c}});
    CHECK(loop != NULL);
    if (c != NULL) {
        c->loop = loop;
        c->in = in;
    }
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, g), 0);
    return loop;
}

static int run(tempo_loop *loop)
{
    int r;
    uint64_t frames = 0;
    while ((r = tempo_loop_frame(loop)) == 0 && ++frames < 50000000) {
    }
    return r;
}

static tempo_input *new_input(void)
{
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true, .capacity = 4096});
    CHECK(in != NULL);
    return in;
}

#endif /* TEMPO_TEST_REPLAY_GAME_H */
