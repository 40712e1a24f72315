/* The crowd sample's protocol, shared by samples/crowd (the client) and
 * samples/crowd_server. Frames use the tempo/net.h wire format; payloads are
 * little-endian structs (both ends are this sample on one machine). */
#ifndef CROWD_PROTO_H
#define CROWD_PROTO_H

#include <stdint.h>

/* Server -> client. */
enum {
    CROWD_SPAWN = 1,   /* crowd_spawn: an actor appears */
    CROWD_MOVE = 2,    /* crowd_move: it walks to a new spot */
    CROWD_DESPAWN = 3, /* crowd_despawn: it leaves */
    CROWD_END = 4,     /* crowd_end: the scenario's script is over */
    CROWD_MAX_TYPE = 4
};

/* Client -> server. */
enum {
    CROWD_CMD_BURST = 1, /* crowd_cmd: spawn `count` actors at once */
    CROWD_CMD_WAVE = 2   /* crowd_cmd: a wave of `count` over 50 ms */
};

typedef struct crowd_spawn {
    uint32_t id;
    int16_t x, y;   /* world pixels, 0..639 x 0..359 */
    uint8_t kind;   /* colour */
    uint8_t pad[3];
} crowd_spawn;

typedef struct crowd_move {
    uint32_t id;
    int16_t x, y;
} crowd_move;

typedef struct crowd_despawn {
    uint32_t id;
} crowd_despawn;

typedef struct crowd_end {
    uint32_t messages; /* how many the server sent before this one */
} crowd_end;

typedef struct crowd_cmd {
    uint32_t count;
} crowd_cmd;

#define CROWD_WORLD_W 640
#define CROWD_WORLD_H 360
/* Ids are dense and bounded so the client can keep actors in an array. */
#define CROWD_MAX_ACTORS 65536

#endif /* CROWD_PROTO_H */
