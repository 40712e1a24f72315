/* See duel_game.h. Pure C, no SDL, no floats. */
#include "duel_game.h"

#include <string.h>

#define PADDLE_X 24       /* paddle centre distance from the edge, px */
#define PADDLE_HALF 30    /* px */
#define GROWN_HALF 54     /* px, while the power-up lasts */
#define GROWN_TICKS 360   /* 6 s */
#define PADDLE_SPEED (6 * DUEL_FP)
#define BALL_R 8          /* px */
#define SERVE_SPEED (5 * DUEL_FP)

static uint32_t rnd(duel_sim *s)
{
    s->rng = s->rng * 1664525u + 1013904223u;
    return s->rng >> 8;
}

/* The ball from the centre towards `to` (0 left, 1 right), at an angle. */
static void serve(duel_sim *s, int to)
{
    s->bx = DUEL_W / 2 * DUEL_FP;
    s->by = DUEL_H / 2 * DUEL_FP;
    s->bvx = to == 0 ? -SERVE_SPEED : SERVE_SPEED;
    s->bvy = (int32_t)(rnd(s) % (5 * DUEL_FP)) - 5 * DUEL_FP / 2;
}

void duel_sim_init(duel_sim *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->rng = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    for (int p = 0; p < 2; p++) {
        s->py[p] = DUEL_H / 2 * DUEL_FP;
        s->half[p] = PADDLE_HALF;
    }
    serve(s, (int)(rnd(s) & 1));
}

/* A bounce off paddle `p` when the ball reaches its face. */
static void paddle_hit(duel_sim *s, int p)
{
    int32_t face = p == 0 ? (PADDLE_X + 4 + BALL_R) * DUEL_FP : (DUEL_W - PADDLE_X - 4 - BALL_R) * DUEL_FP;
    bool crossing = p == 0 ? s->bvx < 0 && s->bx <= face && s->bx - s->bvx > face
                           : s->bvx > 0 && s->bx >= face && s->bx - s->bvx < face;
    int32_t off = s->by - s->py[p];
    int32_t reach = (s->half[p] + BALL_R) * DUEL_FP;
    if (!crossing || off < -reach || off > reach)
        return;
    s->bx = face;
    s->bvx = -s->bvx;
    s->bvx += s->bvx > 0 ? DUEL_FP / 8 : -DUEL_FP / 8; /* a little faster each hit */
    if (s->bvx > 12 * DUEL_FP)
        s->bvx = 12 * DUEL_FP;
    if (s->bvx < -12 * DUEL_FP)
        s->bvx = -12 * DUEL_FP;
    s->bvy += off / 12; /* spin: off-centre hits steer the ball */
    if (s->bvy > 7 * DUEL_FP)
        s->bvy = 7 * DUEL_FP;
    if (s->bvy < -7 * DUEL_FP)
        s->bvy = -7 * DUEL_FP;
    s->last_hit = (uint8_t)p;
}

void duel_sim_step(duel_sim *s, const uint8_t buttons[2], const uint8_t flags[2])
{
    s->tick++;
    if ((flags[0] | flags[1]) & DUEL_PAUSE)
        s->paused = !s->paused;
    if (s->paused)
        return;
    /* Power-ups come with the music: one every bar (4 beats) of player 0's. */
    if ((flags[0] & DUEL_BEAT) && ++s->beats % 4 == 0 && !s->pu_live) {
        s->pu_live = true;
        s->pux = DUEL_W / 2 - 120 + (int32_t)(rnd(s) % 240);
        s->puy = 60 + (int32_t)(rnd(s) % (DUEL_H - 100));
    }
    for (int p = 0; p < 2; p++) {
        if (buttons[p] & DUEL_UP)
            s->py[p] -= PADDLE_SPEED;
        if (buttons[p] & DUEL_DOWN)
            s->py[p] += PADDLE_SPEED;
        if (s->grown_until[p] != 0 && s->tick >= s->grown_until[p]) {
            s->half[p] = PADDLE_HALF;
            s->grown_until[p] = 0;
        }
        int32_t lo = s->half[p] * DUEL_FP, hi = (DUEL_H - s->half[p]) * DUEL_FP;
        s->py[p] = s->py[p] < lo ? lo : s->py[p] > hi ? hi : s->py[p];
    }
    s->bx += s->bvx;
    s->by += s->bvy;
    if (s->by < BALL_R * DUEL_FP || s->by > (DUEL_H - BALL_R) * DUEL_FP) {
        s->bvy = -s->bvy;
        s->by = s->by < BALL_R * DUEL_FP ? BALL_R * DUEL_FP : (DUEL_H - BALL_R) * DUEL_FP;
    }
    paddle_hit(s, 0);
    paddle_hit(s, 1);
    if (s->pu_live) {
        int32_t dx = s->bx / DUEL_FP - s->pux, dy = s->by / DUEL_FP - s->puy;
        if (dx * dx + dy * dy <= (BALL_R + 10) * (BALL_R + 10)) {
            s->pu_live = false;
            s->half[s->last_hit] = GROWN_HALF;
            s->grown_until[s->last_hit] = s->tick + GROWN_TICKS;
        }
    }
    if (s->bx < 0) {
        s->score[1]++;
        serve(s, 0);
    } else if (s->bx > DUEL_W * DUEL_FP) {
        s->score[0]++;
        serve(s, 1);
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211u;
    return h;
}

uint64_t duel_sim_hash(const duel_sim *s)
{
    uint64_t h = 1469598103934665603u;
    const int64_t v[] = {s->tick, s->rng, s->bx, s->by, s->bvx, s->bvy, s->py[0], s->py[1], s->half[0], s->half[1],
                         s->grown_until[0], s->grown_until[1], s->score[0], s->score[1], s->beats, s->paused,
                         s->pu_live, s->pux, s->puy, s->last_hit};
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++)
        h = mix(h, (uint64_t)v[i]);
    return h;
}

uint8_t duel_bot(const duel_sim *s, int player)
{
    /* Follows the ball when it comes its way, else drifts to the centre;
     * the aim wanders every second so points are won and lost. */
    bool coming = player == 0 ? s->bvx < 0 : s->bvx > 0;
    int32_t aim = ((int32_t)((s->tick / 60 + (uint32_t)player * 3) % 7) - 3) * 18 * DUEL_FP;
    int32_t target = coming ? s->by + aim : DUEL_H / 2 * DUEL_FP;
    int32_t d = target - s->py[player];
    return d < -4 * DUEL_FP ? DUEL_UP : d > 4 * DUEL_FP ? DUEL_DOWN : 0;
}
