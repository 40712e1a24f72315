/* duel_server: the relay of the duel sample.
 *
 * Listens on 127.0.0.1 only (an ephemeral port unless --port is given),
 * prints "PORT <n>" on stdout, and takes two players, then --spectators N
 * more clients (default 0). Each gets a DUEL_HELLO (its number: 0 and 1
 * play, 2 and up watch; and the match seed) and answers with DUEL_JOIN
 * (its protocol version, build fingerprint and identity), which the relay
 * checks and forwards: a player's to the other player and to every
 * spectator (a spectator's to nobody). Once every client has joined all get
 * DUEL_START, so each has the players' JOINs before the match starts.
 * It forwards every DUEL_INPUT frame of a player to the other player and to
 * the spectators unchanged (a spectator's are dropped: it has no paddle),
 * drops DUEL_SNAPSHOT frames, and on
 * DUEL_STALL{ms} stops reading that player's socket for ms milliseconds
 * (the test of a peer that stops reading: the player's sends pile up in the
 * socket buffers while its game must keep ticking). When a player leaves
 * the other clients get DUEL_LEFT (a spectator leaving is only logged); the
 * server exits when every client has left.
 *
 * It is not a game server: it knows nothing of the game's state. The two
 * clients simulate the same match in lockstep from the same inputs.
 *
 * Sockets: BSD sockets and poll() directly (SDL2_net can neither listen on
 * 127.0.0.1 only nor report an ephemeral port), like crowd_server. POSIX is
 * what is built and tested; the Winsock spellings are there but untested. */
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

#include "duel_game.h"

#define MAX_FRAME (TEMPO_NET_HEADER_BYTES + 65536)

typedef struct player {
    sock_t sock;
    bool open;
    uint64_t stalled_until; /* tempo_now_ns(): not read before this */
    uint8_t buf[MAX_FRAME];
    size_t len;
    bool joined; /* its DUEL_JOIN came and was forwarded */
    uint64_t forwarded, dropped_bytes;
} player;

#define MAX_CLIENTS 10 /* two players and up to 8 spectators */

static player players[MAX_CLIENTS];
static int nclients = 2; /* 2 + --spectators */
static bool started;     /* DUEL_START went out */

static void send_all(player *p, uint16_t type, const void *payload, uint32_t size)
{
    /* The largest frame the relay makes or forwards: a DUEL_JOIN (its
     * build identity); inputs and the hello are smaller. */
    uint8_t frame[TEMPO_NET_HEADER_BYTES + sizeof(duel_join)];
    if (!p->open || size > sizeof(duel_join))
        return;
    tempo_net_frame_header(frame, type, size);
    memcpy(frame + TEMPO_NET_HEADER_BYTES, payload, size);
    size_t off = 0, n = TEMPO_NET_HEADER_BYTES + size;
    while (off < n) {
        int k = (int)send(p->sock, (const char *)frame + off, (int)(n - off), 0);
        if (k <= 0)
            return; /* it left; its recv will say so */
        off += (size_t)k;
    }
}

/* A player's frame to everyone but the sender: the other player and the
 * spectators. */
static void forward(int from, uint16_t type, const void *payload, uint32_t size)
{
    for (int k = 0; k < nclients; k++)
        if (k != from)
            send_all(&players[k], type, payload, size);
}

static void leave(int i)
{
    if (!players[i].open)
        return;
    players[i].open = false;
    close_sock(players[i].sock);
    fprintf(stderr, "duel_server: %s %d left (%llu inputs forwarded, %llu snapshot bytes dropped)\n",
            i < 2 ? "player" : "spectator", i, (unsigned long long)players[i].forwarded,
            (unsigned long long)players[i].dropped_bytes);
    if (i < 2)
        forward(i, DUEL_LEFT, NULL, 0);
}

static bool all_joined(void)
{
    for (int k = 0; k < nclients; k++)
        if (!players[k].joined)
            return false;
    return true;
}

static bool any_open(void)
{
    for (int k = 0; k < nclients; k++)
        if (players[k].open)
            return true;
    return false;
}

/* Handles the complete frames in player i's buffer. */
static void handle_frames(int i)
{
    player *p = &players[i];
    size_t off = 0;
    while (p->len - off >= TEMPO_NET_HEADER_BYTES) {
        const uint8_t *h = p->buf + off;
        uint32_t size = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        uint16_t type = (uint16_t)(h[4] << 8 | h[5]);
        if (size > MAX_FRAME - TEMPO_NET_HEADER_BYTES) {
            fprintf(stderr, "duel_server: player %d sent a %u-byte frame\n", i, size);
            leave(i);
            return;
        }
        if (p->len - off < TEMPO_NET_HEADER_BYTES + size)
            break;
        const uint8_t *payload = h + TEMPO_NET_HEADER_BYTES;
        if (type == DUEL_INPUT && size == sizeof(duel_input) && i < 2) {
            forward(i, DUEL_INPUT, payload, size);
            p->forwarded++;
        } else if (type == DUEL_JOIN && size == sizeof(duel_join) && !p->joined) {
            duel_join j;
            memcpy(&j, payload, sizeof j);
            if (j.version != DUEL_PROTO_VERSION) {
                fprintf(stderr, "duel_server: player %d speaks protocol version %u, this relay %u\n", i, j.version,
                        DUEL_PROTO_VERSION);
                leave(i);
                return;
            }
            if (i < 2)
                forward(i, DUEL_JOIN, payload, size);
            p->joined = true;
            if (all_joined() && !started) {
                /* After every JOIN: TCP keeps the players' JOINs first. */
                for (int k = 0; k < nclients; k++)
                    send_all(&players[k], DUEL_START, NULL, 0);
                started = true;
                fprintf(stderr, "duel_server: both players joined%s: match started\n",
                        nclients > 2 ? " and the spectators" : "");
            }
        } else if (type == DUEL_STALL && size == sizeof(duel_stall)) {
            duel_stall st;
            memcpy(&st, payload, sizeof st);
            p->stalled_until = tempo_now_ns() + (uint64_t)st.ms * TEMPO_NS_PER_MS;
            fprintf(stderr, "duel_server: not reading player %d for %u ms\n", i, st.ms);
        } else {
            p->dropped_bytes += size;
        }
        off += TEMPO_NET_HEADER_BYTES + size;
    }
    memmove(p->buf, p->buf + off, p->len - off);
    p->len -= off;
}

int main(int argc, char **argv)
{
    int port = 0;
    uint64_t seed = 0x5eed;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--port") == 0 && v)
            port = atoi(v), i++;
        else if (strcmp(argv[i], "--seed") == 0 && v)
            seed = strtoull(v, NULL, 0), i++;
        else if (strcmp(argv[i], "--spectators") == 0 && v && atoi(v) >= 0 && atoi(v) <= MAX_CLIENTS - 2)
            nclients = 2 + atoi(v), i++;
        else {
            fprintf(stderr, "usage: %s [--port N] [--seed N] [--spectators 0-%d]\n", argv[0], MAX_CLIENTS - 2);
            return 2;
        }
    }
    sock_t l = sample_server_listen("duel_server", port, nclients);
    if (l == BAD_SOCK)
        return 1;

    for (int i = 0; i < nclients; i++) {
        players[i].sock = accept(l, NULL, NULL);
        if (players[i].sock == BAD_SOCK) {
            perror("duel_server: accept");
            return 1;
        }
        players[i].open = true;
        duel_hello hi = {(uint32_t)i, DUEL_PROTO_VERSION, seed};
        send_all(&players[i], DUEL_HELLO, &hi, sizeof hi);
        fprintf(stderr, "duel_server: %s %d joined\n", i < 2 ? "player" : "spectator", i);
    }
    close_sock(l);

    while (any_open()) {
        struct pollfd fds[MAX_CLIENTS];
        int who[MAX_CLIENTS], n = 0, timeout_ms = -1;
        uint64_t now = tempo_now_ns();
        for (int i = 0; i < nclients; i++) {
            if (!players[i].open)
                continue;
            if (players[i].stalled_until > now) {
                int ms = (int)((players[i].stalled_until - now + TEMPO_NS_PER_MS - 1) / TEMPO_NS_PER_MS);
                timeout_ms = timeout_ms < 0 || ms < timeout_ms ? ms : timeout_ms;
                continue;
            }
            fds[n] = (struct pollfd){.fd = players[i].sock, .events = POLLIN};
            who[n++] = i;
        }
        if (poll(fds, (unsigned)n, timeout_ms) < 0)
            break;
        for (int k = 0; k < n; k++) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            player *p = &players[who[k]];
            int got = (int)recv(p->sock, (char *)p->buf + p->len, (int)(sizeof p->buf - p->len), 0);
            if (got <= 0) {
                leave(who[k]);
                continue;
            }
            p->len += (size_t)got;
            handle_frames(who[k]);
        }
    }
    return 0;
}
