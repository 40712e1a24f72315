/* The state and the arithmetic of the scripted game of replay_game.h,
 * alone: no Tempo, no SDL, no libc beyond <string.h>, so the same code
 * runs inside test_replay (through the loop) and in tests/unit/fp_check.c, which
 * .ci/fp-matrix cross-compiles for every row of the determinism matrix.
 *
 * Float physics with only + - * / and comparisons (no libm): IEEE-754
 * rounds each of those the same way everywhere, so the state's bits are
 * the same on every compiler and CPU *provided* every operation is rounded
 * to float on its own. Two things break that, and neither is prevented by
 * an ISO -std mode: contraction of a*b+c into one FMA (clang contracts in
 * every mode on aarch64 and on x86-64 with FMA; gcc in its gnu modes, its
 * default), and x87 excess precision on 32-bit x86 (FLT_EVAL_METHOD 2).
 * This file must therefore be compiled with tempo-deterministic's flags
 * (-ffp-contract=off; -msse2 -mfpmath=sse on i686): tests/unit/meson.build and
 * .ci/fp-matrix do, and docs/determinism.md has the measured matrix. */
#ifndef TEMPO_TEST_REPLAY_GAME_CORE_H
#define TEMPO_TEST_REPLAY_GAME_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Input kinds the game reacts to: tempo_input_type's values (replay_game.h
 * checks they agree). */
#define GAME_EV_KEY 1u
#define GAME_EV_MOTION 3u

/* The 10 000-tick constant (seed 42, 60 Hz, no input): the same on every
 * backend, compiler, CPU and render rate, given the flags above. */
#define GAME_HASH_10K UINT64_C(0x9018ede7be3cc0e7)
/* The committed recording tests/data/replay_game.trec (recorded on the sdl
 * backend by test_replay's time-driven case: input and messages at
 * wall-clock moments, render cap 60): its replay must end with this hash. */
#define FIXTURE_HASH UINT64_C(0xe9013c380f272a64)

typedef struct body {
    float x, y, vx, vy;
} body;

typedef struct game_state {
    body b[8];
    uint64_t rng;
    uint64_t updates;
    uint64_t score; /* wraps: unsigned, so the same bits everywhere */
} game_state;

static inline uint64_t xs64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline void game_state_init(game_state *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->rng = seed ? seed : 1;
    for (int i = 0; i < 8; i++)
        s->b[i] = (body){40.0f + 70.0f * (float)i, 30.0f + 45.0f * (float)i, 90.0f - 25.0f * (float)i,
                         -40.0f + 17.0f * (float)i};
}

/* The number of events waiting in the ring, for a game that looks. */
static inline void game_state_queued(game_state *s, uint64_t queued)
{
    s->score = s->score * 7 + queued;
}

/* One input event read in update(). */
static inline void game_state_event(game_state *s, uint32_t type, int32_t scancode, bool down, int32_t motion_x,
                             int32_t motion_dx)
{
    if (type == GAME_EV_KEY && down)
        s->b[scancode & 7].vy -= 150.0f + (float)(xs64(&s->rng) % 100);
    else if (type == GAME_EV_MOTION)
        s->b[(motion_x >> 3) & 7].vx += 0.5f * (float)motion_dx;
    s->score += type;
}

/* The rest of update(): a scripted kick, the physics, the tick count. */
static inline void game_state_tick(game_state *s, uint64_t dt_ns)
{
    float dt = (float)dt_ns * 1e-9f;
    if (s->updates % 97 == 13)
        s->b[xs64(&s->rng) & 7].vy -= 300.0f;
    for (int i = 0; i < 8; i++) {
        body *b = &s->b[i];
        b->vy += 400.0f * dt;
        b->vx *= 1.0f - 0.01f * dt;
        b->x += b->vx * dt;
        b->y += b->vy * dt;
        if (b->x < 0 || b->x > 640) {
            b->vx = -b->vx * 0.9f;
            b->x = b->x < 0 ? -b->x : 1280 - b->x;
            s->score++;
        }
        if (b->y > 480) {
            b->vy = -b->vy * 0.85f;
            b->y = 960 - b->y;
        }
    }
    s->updates++;
}

/* A message through the game's channel. */
static inline void game_state_message(game_state *s, uint32_t type, const uint8_t *data, uint32_t size)
{
    for (uint32_t i = 0; i < size; i++)
        s->score = s->score * 31 + data[i];
    s->b[type & 7].vx += (float)(size % 13) - 6.0f;
}

static inline uint64_t game_mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xFF;
        h *= 1099511628211u;
    }
    return h;
}

/* FNV-1a over the bodies' float bits, the RNG, the tick count and the score. */
static inline uint64_t game_state_hash(const game_state *s)
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < 8; i++) {
        const float *f = &s->b[i].x;
        for (int k = 0; k < 4; k++) {
            uint32_t u;
            memcpy(&u, &f[k], 4);
            h = game_mix(h, u);
        }
    }
    h = game_mix(h, s->rng);
    h = game_mix(h, s->updates);
    return game_mix(h, s->score);
}

#endif /* TEMPO_TEST_REPLAY_GAME_CORE_H */
