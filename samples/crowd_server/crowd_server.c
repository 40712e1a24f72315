/* crowd_server: the scripted game server of the crowd sample.
 *
 * Listens on 127.0.0.1 only (an ephemeral port unless --port is given),
 * prints "PORT <n>" on stdout, serves one client, then exits when it
 * disconnects. It sends a scenario of spawn/move/despawn messages in the
 * tempo/net.h frame format:
 *   waves     a crowd walking into view: 300 spawns over 50 ms every second,
 *             each wave leaving (300 despawns) 3 s later; moves at 10 Hz
 *   burst     10 000 spawns at once at 0.5 s, all despawned at once at 4.5 s
 *   overload  10 000 messages/s for 4 s
 *   trickle   30 messages/s
 * plus a steady 500 moves/s among the living. With --duration S it sends
 * CROWD_END after S seconds; without, it runs until the client leaves. The
 * client can ask for more (CROWD_CMD_BURST, CROWD_CMD_WAVE).
 *
 * Sockets: BSD sockets directly, because SDL2_net can only listen on all
 * interfaces and cannot report an ephemeral port. POSIX is what is built
 * and tested; the Winsock spellings are there but untested. Time and pacing
 * use Tempo's clock; between events the server blocks in poll() until the
 * next one is due (or a command arrives). */
#ifndef _POSIX_C_SOURCE /* a build's flags may define it already */
#define _POSIX_C_SOURCE 200809L /* poll, getsockname under -std=c11 */
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_server.h"

#include <tempo/net.h>
#include <tempo/tempo.h>

#include "../crowd/crowd_proto.h"

#define MS TEMPO_NS_PER_MS

typedef struct wave {
    uint64_t start_ns;
    uint32_t first_id, count, sent;
    bool despawned;
} wave;

#define MAX_WAVES 64

typedef struct server {
    sock_t client;
    const char *scenario;
    uint64_t t0, end_ns;
    uint32_t next_id;
    bool alive[CROWD_MAX_ACTORS];
    uint32_t live;
    wave waves[MAX_WAVES];
    int n_waves;
    uint64_t next_wave_ns, next_moves_ns, next_stream_ns, burst_despawn_ns;
    uint32_t burst_first, burst_count;
    uint32_t rng;
    uint64_t sent;
    /* outgoing bytes, flushed after each round of events */
    uint8_t *out;
    size_t out_len, out_cap;
} server;

static uint32_t rnd(server *s)
{
    s->rng = s->rng * 1664525u + 1013904223u;
    return s->rng >> 8;
}

static void emit(server *s, uint16_t type, const void *payload, uint32_t size)
{
    if (s->out_len + TEMPO_NET_HEADER_BYTES + size > s->out_cap) {
        s->out_cap = (s->out_cap + TEMPO_NET_HEADER_BYTES + size) * 2;
        s->out = realloc(s->out, s->out_cap);
        if (s->out == NULL) {
            fprintf(stderr, "crowd_server: out of memory\n");
            exit(1);
        }
    }
    tempo_net_frame_header(s->out + s->out_len, type, size);
    memcpy(s->out + s->out_len + TEMPO_NET_HEADER_BYTES, payload, size);
    s->out_len += TEMPO_NET_HEADER_BYTES + size;
    s->sent++;
}

/* Sends what was emitted. Blocks while the client applies back-pressure
 * (its queue is full, so it stopped reading). Returns false if it left. */
static bool flush_out(server *s)
{
    size_t off = 0;
    while (off < s->out_len) {
        size_t chunk = s->out_len - off > 65536 ? 65536 : s->out_len - off;
        int k = (int)send(s->client, (const char *)s->out + off, (int)chunk, 0);
        if (k <= 0)
            return false;
        off += (size_t)k;
    }
    s->out_len = 0;
    return true;
}

static void spawn(server *s, int16_t x, int16_t y, uint8_t kind)
{
    if (s->next_id >= CROWD_MAX_ACTORS)
        return; /* ids are never reused; the demo is over long before */
    crowd_spawn m = {s->next_id, x, y, kind, {0}};
    s->alive[s->next_id++] = true;
    s->live++;
    emit(s, CROWD_SPAWN, &m, sizeof m);
}

static void despawn(server *s, uint32_t id)
{
    if (id >= CROWD_MAX_ACTORS || !s->alive[id])
        return;
    s->alive[id] = false;
    s->live--;
    crowd_despawn m = {id};
    emit(s, CROWD_DESPAWN, &m, sizeof m);
}

static void move_random(server *s, int n)
{
    for (int i = 0; i < n && s->live > 0; i++) {
        /* A few tries to land on a living actor; ids are dense enough. */
        for (int tries = 0; tries < 8; tries++) {
            uint32_t id = rnd(s) % s->next_id;
            if (!s->alive[id])
                continue;
            crowd_move m = {id, (int16_t)(rnd(s) % CROWD_WORLD_W), (int16_t)(40 + rnd(s) % (CROWD_WORLD_H - 40))};
            emit(s, CROWD_MOVE, &m, sizeof m);
            break;
        }
    }
}

static void start_wave(server *s, uint64_t now, uint32_t count)
{
    if (s->n_waves == MAX_WAVES) {
        memmove(s->waves, s->waves + 1, sizeof s->waves[0] * (MAX_WAVES - 1));
        s->n_waves--;
    }
    s->waves[s->n_waves++] = (wave){now, s->next_id, count, 0, false};
}

static void start_burst(server *s, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        spawn(s, (int16_t)(rnd(s) % CROWD_WORLD_W), (int16_t)(40 + rnd(s) % (CROWD_WORLD_H - 40)),
              (uint8_t)(rnd(s) % 6));
}

/* Emits everything due at `now`; returns when the next thing is due. */
static uint64_t run_due(server *s, uint64_t now)
{
    bool waves = strcmp(s->scenario, "waves") == 0;
    uint64_t next = UINT64_MAX;

    if (waves && now >= s->next_wave_ns) {
        start_wave(s, s->next_wave_ns, 300);
        s->next_wave_ns += TEMPO_NS_PER_S;
    }
    if (waves)
        next = s->next_wave_ns;
    for (int w = 0; w < s->n_waves; w++) {
        wave *v = &s->waves[w];
        /* Walking into view: spread over 50 ms, from the left edge. */
        uint64_t due = now - v->start_ns >= 50 * MS ? v->count : (now - v->start_ns) * v->count / (50 * MS) + 1;
        while (v->sent < due && v->sent < v->count) {
            spawn(s, (int16_t)(rnd(s) % 40), (int16_t)(40 + rnd(s) % (CROWD_WORLD_H - 40)), (uint8_t)(w % 6));
            v->sent++;
        }
        if (v->sent < v->count && now + 1 * MS < next)
            next = now + 1 * MS;
        if (!v->despawned && now >= v->start_ns + 3 * TEMPO_NS_PER_S) {
            for (uint32_t i = 0; i < v->count; i++)
                despawn(s, v->first_id + i);
            v->despawned = true;
        }
        if (!v->despawned && v->start_ns + 3 * TEMPO_NS_PER_S < next)
            next = v->start_ns + 3 * TEMPO_NS_PER_S;
    }

    if (strcmp(s->scenario, "burst") == 0 && s->burst_count == 0 && now >= s->t0 + 500 * MS) {
        s->burst_first = s->next_id;
        s->burst_count = 10000;
        start_burst(s, 10000);
        s->burst_despawn_ns = s->t0 + 4500 * MS;
    }
    if (strcmp(s->scenario, "burst") == 0 && s->burst_count == 0 && s->t0 + 500 * MS < next)
        next = s->t0 + 500 * MS;
    if (s->burst_despawn_ns) {
        if (now >= s->burst_despawn_ns) {
            for (uint32_t i = 0; i < s->burst_count; i++)
                despawn(s, s->burst_first + i);
            s->burst_despawn_ns = 0;
        } else if (s->burst_despawn_ns < next) {
            next = s->burst_despawn_ns;
        }
    }

    /* Streams: overload (10 000/s for 4 s) and trickle (30/s). */
    bool overload = strcmp(s->scenario, "overload") == 0, trickle = strcmp(s->scenario, "trickle") == 0;
    if ((overload && now < s->t0 + 4500 * MS) || trickle) {
        uint64_t step = overload ? TEMPO_NS_PER_S / 10000 : TEMPO_NS_PER_S / 30;
        if (s->next_stream_ns == 0)
            s->next_stream_ns = s->t0 + 500 * MS;
        while (s->next_stream_ns <= now) {
            if (s->live < 2000)
                spawn(s, (int16_t)(rnd(s) % CROWD_WORLD_W), (int16_t)(40 + rnd(s) % (CROWD_WORLD_H - 40)),
                      (uint8_t)(rnd(s) % 6));
            else
                move_random(s, 1);
            s->next_stream_ns += step;
        }
        if (s->next_stream_ns < next)
            next = s->next_stream_ns;
    }

    /* Everyone alive shuffles around a little: 50 moves every 100 ms. */
    if (now >= s->next_moves_ns) {
        move_random(s, 50);
        s->next_moves_ns += 100 * MS;
        if (s->next_moves_ns < now)
            s->next_moves_ns = now + 100 * MS;
    }
    if (s->next_moves_ns < next)
        next = s->next_moves_ns;
    if (s->end_ns && s->end_ns < next)
        next = s->end_ns;
    return next;
}

/* Reads the client's commands. Returns false when it has gone. */
static bool read_commands(server *s, uint64_t now)
{
    uint8_t buf[256];
    int k = (int)recv(s->client, (char *)buf, sizeof buf, 0);
    if (k <= 0)
        return false;
    /* Commands are tiny and sent whole; a short read just loses a command. */
    for (int off = 0; off + TEMPO_NET_HEADER_BYTES + 4 <= k;) {
        uint32_t len = (uint32_t)buf[off] << 24 | buf[off + 1] << 16 | buf[off + 2] << 8 | buf[off + 3];
        uint16_t type = (uint16_t)(buf[off + 4] << 8 | buf[off + 5]);
        if (len != sizeof(crowd_cmd) || off + TEMPO_NET_HEADER_BYTES + (int)len > k)
            break;
        crowd_cmd c;
        memcpy(&c, buf + off + TEMPO_NET_HEADER_BYTES, sizeof c);
        if (c.count > 20000)
            c.count = 20000;
        if (type == CROWD_CMD_BURST)
            start_burst(s, c.count);
        else if (type == CROWD_CMD_WAVE)
            start_wave(s, now, c.count);
        off += TEMPO_NET_HEADER_BYTES + (int)len;
    }
    return true;
}

int main(int argc, char **argv)
{
    static server s;
    int port = 0;
    double duration = 0;
    s.scenario = "waves";
    s.rng = 12345;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--port") == 0 && v)
            port = atoi(v), i++;
        else if (strcmp(argv[i], "--scenario") == 0 && v)
            s.scenario = v, i++;
        else if (strcmp(argv[i], "--duration") == 0 && v)
            duration = atof(v), i++;
        else {
            fprintf(stderr, "usage: %s [--port N] [--scenario waves|burst|overload|trickle] [--duration S]\n",
                    argv[0]);
            return 2;
        }
    }
    if (strcmp(s.scenario, "waves") && strcmp(s.scenario, "burst") && strcmp(s.scenario, "overload") &&
        strcmp(s.scenario, "trickle")) {
        fprintf(stderr, "crowd_server: unknown scenario %s\n", s.scenario);
        return 2;
    }
    sock_t l = sample_server_listen("crowd_server", port, 1);
    if (l == BAD_SOCK)
        return 1;

    s.client = accept(l, NULL, NULL);
    close_sock(l);
    if (s.client == BAD_SOCK) {
        perror("crowd_server: accept");
        return 1;
    }
    s.t0 = tempo_now_ns();
    s.next_wave_ns = s.t0 + 500 * MS;
    s.next_moves_ns = s.t0 + 100 * MS;
    s.end_ns = duration > 0 ? s.t0 + (uint64_t)(duration * 1e9) : 0;
    bool ended = false;
    for (;;) {
        uint64_t now = tempo_now_ns();
        uint64_t next = UINT64_MAX;
        if (!ended) {
            next = run_due(&s, now);
            if (s.end_ns && now >= s.end_ns) {
                crowd_end e = {(uint32_t)s.sent};
                emit(&s, CROWD_END, &e, sizeof e);
                ended = true;
                next = UINT64_MAX;
            }
        }
        if (!flush_out(&s))
            break;
        /* Block until the next event is due or the client speaks. */
        now = tempo_now_ns();
        int timeout_ms = next == UINT64_MAX ? -1 : next <= now ? 0 : (int)((next - now + MS - 1) / MS);
        struct pollfd p = {.fd = s.client, .events = POLLIN};
        int r = poll(&p, 1, timeout_ms);
        if (r < 0)
            break;
        if (r > 0 && !read_commands(&s, tempo_now_ns()))
            break; /* the client left */
    }
    fprintf(stderr, "crowd_server: sent %llu messages, client gone\n", (unsigned long long)s.sent);
    close_sock(s.client);
    free(s.out);
    return 0;
}
