/* duel: the protocol between the clients and the relay server, and the
 * deterministic pong simulation both clients run in lockstep.
 *
 * Frames use the tempo/net.h wire format (length, type, payload). Payloads
 * are little-endian structs: both ends are this sample built for one
 * machine (the relay only looks at the type and forwards the bytes).
 *
 * The simulation is integer-only (positions in 1/256 px, a 32-bit LCG), so
 * two clients, a replay and another C library or backend all compute the
 * same state from the same inputs: the checkpoint hashes prove it. */
#ifndef DUEL_GAME_H
#define DUEL_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/determinism.h"

/* 2: clients send DUEL_JOIN and the relay starts the match once both have.
 * 3: DUEL_JOIN carries the build identity, and a build that may compute
 * other bits is refused.
 * 4: spectators: a HELLO with player 2 or more; the relay sends them both
 * players' JOINs and inputs, and DUEL_START once every client has joined. */
#define DUEL_PROTO_VERSION 4

/* Frame types. */
enum {
    DUEL_HELLO = 1,    /* server -> client: duel_hello, on connect */
    DUEL_START = 2,    /* server -> both: both players have joined (no payload) */
    DUEL_INPUT = 3,    /* client -> server -> the other client: duel_input */
    DUEL_LEFT = 4,     /* server -> client: the other player left (no payload) */
    DUEL_STALL = 5,    /* client -> server: duel_stall: stop reading my socket (test) */
    DUEL_SNAPSHOT = 6, /* client -> server: bulk spectator data; the relay drops it */
    DUEL_JOIN = 7,     /* client -> server -> the other client: duel_join, after HELLO */
    DUEL_MAX_TYPE = 7
};

typedef struct duel_hello {
    uint32_t player;  /* 0: left paddle (its music drives the power-ups), 1: right, 2+: spectator */
    uint32_t version; /* DUEL_PROTO_VERSION */
    uint64_t seed;    /* the match's random seed, the same for both */
} duel_hello;

/* The client's half of the handshake. The relay checks the version and
 * forwards the frame to the other player before DUEL_START, so each client
 * knows its peer's build before the match starts: a peer whose float code
 * may compute other bits (tempo_build_compare, tempo/determinism.h: another
 * fingerprint, or a non-portable one from another compiler or CPU) is
 * refused, both builds named, and the match does not start. */
typedef struct duel_join {
    uint32_t version;     /* DUEL_PROTO_VERSION */
    uint32_t fingerprint; /* the sender's tempo_fingerprint() */
    char identity[TEMPO_BUILD_IDENTITY_MAX]; /* the sender's TEMPO_BUILD_IDENTITY, NUL-terminated */
} duel_join;

/* Input buttons and flags of one player for one simulation tick. */
enum { DUEL_UP = 1, DUEL_DOWN = 2 };
enum { DUEL_PAUSE = 1, DUEL_BEAT = 2 };

typedef struct duel_input {
    uint32_t tick;   /* the simulation tick it applies to (1, 2, ...) */
    uint8_t player;
    uint8_t buttons; /* DUEL_UP | DUEL_DOWN */
    uint8_t flags;   /* DUEL_PAUSE: toggle the pause; DUEL_BEAT: a music beat (player 0) */
    uint8_t pad;
} duel_input;

typedef struct duel_stall {
    uint32_t ms; /* how long the relay stops reading the sender's socket */
} duel_stall;

/* ---- The simulation ------------------------------------------------------ */

#define DUEL_W 640
#define DUEL_H 360
#define DUEL_FP 256 /* fixed point: 1 px = 256 units */

typedef struct duel_sim {
    uint32_t tick;             /* ticks simulated */
    uint32_t rng;
    int32_t bx, by, bvx, bvy;  /* ball centre and velocity per tick, fixed point */
    int32_t py[2];             /* paddle centres, fixed point */
    int32_t half[2];           /* paddle half-heights, px */
    uint32_t grown_until[2];   /* the power-up's effect ends at this tick */
    uint32_t score[2];
    uint32_t beats;            /* beats of player 0's music seen */
    bool paused;
    bool pu_live;              /* a power-up waits on the field */
    int32_t pux, puy;          /* its centre, px */
    uint8_t last_hit;          /* the paddle that touched the ball last */
} duel_sim;

/* Starts a match from `seed`. */
void duel_sim_init(duel_sim *s, uint64_t seed);

/* Runs tick s->tick + 1 with both players' inputs for it. */
void duel_sim_step(duel_sim *s, const uint8_t buttons[2], const uint8_t flags[2]);

/* FNV-1a over every field that matters. */
uint64_t duel_sim_hash(const duel_sim *s);

/* The --bot player: buttons for `player` decided from the state alone, so
 * every client computes the same ones. */
uint8_t duel_bot(const duel_sim *s, int player);

#endif /* DUEL_GAME_H */
