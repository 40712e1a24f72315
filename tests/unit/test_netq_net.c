/* The network client thread (tempo/net.h) against a real TCP server: a
 * small server thread in this test, listening on 127.0.0.1 on an ephemeral
 * port, sends scripted bytes; the test drains the queue like a loop.
 *
 * The server uses BSD sockets directly (test_sockets.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_net.h>

#include "harness.h"
#include "test_sockets.h"
#include "tempo/net.h"
#include "tempo/netq.h"

#define MS TEMPO_NS_PER_MS

/* ---- A one-connection scripted server ------------------------------------ */

typedef struct server {
    sock_t listener;
    uint16_t port;
    uint8_t *script; /* bytes to send after accepting */
    size_t len;
    bool echo;             /* then read one frame and send it back */
    tempo_handle *release; /* then wait for this before closing (if set) */
    uint64_t hold_ns;      /* but at most this long; 0 = no limit */
    SDL_Thread *thread;
    atomic_int accepted;
} server;

/* [server thread] */
static int server_main(void *arg)
{
    server *sv = arg;
    sock_t c = accept(sv->listener, NULL, NULL);
    if (c == BAD_SOCK)
        return 1;
    atomic_store(&sv->accepted, 1);
    send_all(c, sv->script, sv->len);
    if (sv->echo) {
        uint8_t h[8], body[256];
        if (recv_all(c, h, 8)) {
            uint32_t n = (uint32_t)h[0] << 24 | h[1] << 16 | h[2] << 8 | h[3];
            if (n <= sizeof body && recv_all(c, body, n)) {
                send_all(c, h, 8);
                send_all(c, body, n);
            }
        }
    }
    if (sv->release)
        tempo_wait(&sv->release, 1, sv->hold_ns ? sv->hold_ns : TEMPO_INFINITE, 0);
    close_sock(c);
    return 0;
}

static bool server_start(server *sv)
{
    sv->listener = listen_loopback(&sv->port);
    if (sv->listener == BAD_SOCK) {
        tt_fail(__FILE__, __LINE__, "cannot listen on 127.0.0.1");
        return false;
    }
    atomic_init(&sv->accepted, 0);
    sv->thread = SDL_CreateThread(server_main, "test-server", sv);
    return sv->thread != NULL;
}

static void server_stop(server *sv)
{
    if (sv->release)
        tempo_event_set(sv->release);
    SDL_WaitThread(sv->thread, NULL);
    close_sock(sv->listener);
    free(sv->script);
}

/* Script builder. */
typedef struct script {
    uint8_t *buf;
    size_t len, cap;
} script;

static void add_bytes(script *s, const void *p, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->buf = realloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

static void add_frame(script *s, uint16_t type, const void *p, uint32_t n)
{
    uint8_t h[TEMPO_NET_HEADER_BYTES];
    tempo_net_frame_header(h, type, n);
    add_bytes(s, h, sizeof h);
    add_bytes(s, p, n);
}

/* ---- The client side ------------------------------------------------------- */

typedef struct seen {
    int connected, closed, errors, frames;
    int error_code;
    char detail[128];
    uint32_t next_seq;
    bool order_ok;
} seen;

static void on_msg(const tempo_netq_msg *m, void *user)
{
    seen *s = user;
    if (m->type == TEMPO_NET_MSG_CONNECTED) {
        s->connected++;
    } else if (m->type == TEMPO_NET_MSG_CLOSED) {
        s->closed++;
    } else if (m->type == TEMPO_NET_MSG_ERROR) {
        const tempo_net_status *st = m->data;
        s->errors++;
        s->error_code = st->code;
        snprintf(s->detail, sizeof s->detail, "%s", st->detail);
    } else {
        uint32_t seq = 0;
        if (m->size >= 4)
            memcpy(&seq, m->data, 4);
        if (seq != s->next_seq || m->type != 1 + seq % 3)
            s->order_ok = false;
        s->next_seq = seq + 1;
        s->frames++;
    }
}

/* Drains like a loop until the connection ended (CLOSED or ERROR) or 30 s. */
static void drain_until_end(tempo_netq *q, seen *s)
{
    tempo_handle *h = tempo_netq_handle(q);
    uint64_t give_up = tempo_now_ns() + 30 * TEMPO_NS_PER_S; /* only when lost */
    while (s->closed == 0 && s->errors == 0) {
        uint64_t now = tempo_now_ns();
        if (now >= give_up || tempo_wait(&h, 1, give_up - now, 0) != 0) {
            tt_fail(__FILE__, __LINE__, "no end of connection after %d frames", s->frames);
            return;
        }
        tempo_netq_drain(q, on_msg, s);
    }
}

static tempo_net *connect_to(tempo_netq *q, uint16_t port)
{
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = port, .queue = q, .max_type = 3,
                                                       .max_payload_bytes = 4096});
    CHECK(n != NULL);
    return n;
}

static void frames_arrive_in_order_then_close(void)
{
    script sc = {0};
    for (uint32_t i = 0; i < 3000; i++) {
        uint8_t p[200];
        memcpy(p, &i, 4);
        memset(p + 4, (int)i, sizeof p - 4);
        add_frame(&sc, (uint16_t)(1 + i % 3), p, 4 + i % 190);
    }
    server sv = {.script = sc.buf, .len = sc.len};
    if (!server_start(&sv))
        return;
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL});
    tempo_net *n = connect_to(q, sv.port);
    seen s = {.order_ok = true};
    drain_until_end(q, &s);
    CHECK_EQ_INT(s.connected, 1);
    CHECK_EQ_INT(s.frames, 3000);
    CHECK(s.order_ok);
    CHECK_EQ_INT(s.closed, 1);
    CHECK_EQ_INT(s.errors, 0);
    CHECK_EQ_INT(tempo_net_error(n), TEMPO_ESHUTDOWN);
    tempo_net_destroy(n);
    server_stop(&sv);
    tempo_netq_destroy(q);
}

static void check_malformed(const char *what, const uint8_t *bad, size_t bad_len, const char *why)
{
    script sc = {0};
    for (uint32_t i = 0; i < 3; i++)
        add_frame(&sc, (uint16_t)(1 + i % 3), &i, 4);
    add_bytes(&sc, bad, bad_len);
    /* Good bytes after the bad frame must never be delivered. */
    uint32_t after = 3;
    add_frame(&sc, 1 + 3 % 3, &after, 4);
    server sv = {.script = sc.buf, .len = sc.len};
    if (!server_start(&sv))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, sv.port);
    seen s = {.order_ok = true};
    drain_until_end(q, &s);
    if (s.frames != 3 || s.errors != 1 || s.error_code != TEMPO_EFORMAT || strstr(s.detail, why) == NULL)
        tt_fail(__FILE__, __LINE__, "%s: %d frames, %d errors, code %d, detail \"%s\"", what, s.frames, s.errors,
                s.error_code, s.detail);
    CHECK_EQ_INT(tempo_net_error(n), TEMPO_EFORMAT);
    tempo_net_destroy(n);
    server_stop(&sv);
    tempo_netq_destroy(q);
}

static void malformed_frames_are_connection_errors(void)
{
    static const uint8_t negative[8] = {0xFF, 0xFF, 0xFF, 0xFE, 0, 1, 0, 0};
    static const uint8_t oversized[8] = {0, 0, 0x10, 0x01, 0, 1, 0, 0}; /* 4097 > 4096 */
    static const uint8_t unknown[12] = {0, 0, 0, 4, 0, 9, 0, 0, 1, 2, 3, 4};
    static const uint8_t reserved[12] = {0, 0, 0, 4, 0, 1, 0, 1, 1, 2, 3, 4};
    /* The detail says what was wrong and shows the header next to the
     * limits (before: the first half only). */
    check_malformed("negative length", negative, sizeof negative, "negative frame length (length 4294967294");
    check_malformed("oversized length", oversized, sizeof oversized, "above the limit (length 4097, most 4096;");
    check_malformed("unknown type", unknown, sizeof unknown, "unknown frame type (length 4, most 4096; type 9, 1..3;");
    check_malformed("reserved bytes", reserved, sizeof reserved,
                    "not zero (length 4, most 4096; type 1, 1..3; reserved 0001)");
}

static void truncated_frame_at_close_is_an_error(void)
{
    script sc = {0};
    uint32_t zero = 0;
    add_frame(&sc, 1, &zero, 4);
    static const uint8_t half[10] = {0, 0, 0, 20, 0, 1, 0, 0, 'a', 'b'}; /* 20 announced, 2 sent */
    add_bytes(&sc, half, sizeof half);
    server sv = {.script = sc.buf, .len = sc.len};
    if (!server_start(&sv))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, sv.port);
    seen s = {.order_ok = true};
    drain_until_end(q, &s);
    CHECK_EQ_INT(s.frames, 1);
    CHECK_EQ_INT(s.errors, 1);
    CHECK_EQ_INT(s.error_code, TEMPO_EFORMAT);
    CHECK(strstr(s.detail, "truncated") != NULL);
    tt_note("%s", s.detail);
    tempo_net_destroy(n);
    server_stop(&sv);
    tempo_netq_destroy(q);
}

static void refused_connection_is_reported(void)
{
    uint16_t port = 0;
    sock_t s = listen_loopback(&port);
    close_sock(s); /* nobody listens there now */
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, port);
    seen st = {.order_ok = true};
    drain_until_end(q, &st);
    CHECK_EQ_INT(st.connected, 0);
    CHECK_EQ_INT(st.errors, 1);
    CHECK_EQ_INT(st.error_code, TEMPO_EIO);
    CHECK_EQ_INT(tempo_net_error(n), TEMPO_EIO);
    CHECK_EQ_INT(tempo_net_send(n, 1, "x", 1), TEMPO_EIO); /* not "not yet" */
    tt_note("%s", st.detail);
    tempo_net_destroy(n);
    tempo_netq_destroy(q);
}

static void destroy_wakes_an_idle_connection(void)
{
    /* The server keeps the connection open and silent for 20 s: a destroy
     * that did not wake the network thread would return only when the
     * server closes. Waking takes microseconds; 10 s of slack is for load. */
    server sv = {.script = malloc(1), .len = 0, .release = tempo_event_create(true, false),
                 .hold_ns = 20 * TEMPO_NS_PER_S};
    if (!server_start(&sv))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, sv.port);
    /* Wait for CONNECTED; then the thread goes to sleep in select with no
     * timeout (destroy works whether or not it got there yet). */
    tempo_handle *h = tempo_netq_handle(q);
    CHECK_EQ_INT(tempo_wait(&h, 1, 20 * TEMPO_NS_PER_S, 0), 0);
    seen s = {.order_ok = true};
    tempo_netq_drain(q, on_msg, &s);
    CHECK_EQ_INT(s.connected, 1);
    CHECK_EQ_INT(tempo_net_error(n), 0);
    uint64_t t0 = tempo_now_ns();
    tempo_net_destroy(n);
    uint64_t took = tempo_now_ns() - t0;
    tt_note("destroy took %.3f ms", took / 1e6);
    CHECK_LT_U64(took, 10 * TEMPO_NS_PER_S);
    server_stop(&sv);
    tempo_event_destroy(sv.release);
    tempo_netq_destroy(q);
}

static void full_queue_pushes_back_not_drops(void)
{
    script sc = {0};
    for (uint32_t i = 0; i < 5000; i++) {
        uint8_t p[64] = {0};
        memcpy(p, &i, 4);
        add_frame(&sc, (uint16_t)(1 + i % 3), p, sizeof p);
    }
    server sv = {.script = sc.buf, .len = sc.len};
    if (!server_start(&sv))
        return;
    /* Room for 20 messages: the network thread outruns the consumer and must
     * wait for room (TCP holds the rest) instead of dropping. */
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){
        .cap_bytes = 20 * TEMPO_NETQ_MSG_BYTES(64) + 2 * TEMPO_NETQ_MSG_BYTES(sizeof(tempo_net_status)),
        .policy = TEMPO_NETQ_FIXED_BUDGET, .budget_start_ns = 200 * TEMPO_NS_PER_US});
    tempo_net *n = connect_to(q, sv.port);
    seen s = {.order_ok = true};
    drain_until_end(q, &s);
    CHECK_EQ_INT(s.frames, 5000);
    CHECK(s.order_ok);
    CHECK_EQ_INT(s.closed, 1);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.overflows, 0);
    CHECK(st.full_waits > 0);
    tt_note("%llu drains, %llu full waits", (unsigned long long)st.drains, (unsigned long long)st.full_waits);
    tempo_net_destroy(n);
    server_stop(&sv);
    tempo_netq_destroy(q);
}

static void send_reaches_the_peer(void)
{
    server sv = {.script = malloc(1), .len = 0, .echo = true, .release = tempo_event_create(true, false)};
    if (!server_start(&sv))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, sv.port);
    tempo_handle *h = tempo_netq_handle(q);
    seen s = {.order_ok = true};
    uint32_t seq = 0;
    /* Until CONNECTED, send reports EBUSY. */
    while (s.connected == 0 && tempo_wait(&h, 1, 20 * TEMPO_NS_PER_S, 0) == 0)
        tempo_netq_drain(q, on_msg, &s);
    CHECK_EQ_INT(tempo_net_send(n, 1, &seq, sizeof seq), 0);
    CHECK_EQ_INT(tempo_net_send(n, 0, &seq, sizeof seq), TEMPO_EINVAL);
    while (s.frames == 0 && tempo_wait(&h, 1, 20 * TEMPO_NS_PER_S, 0) == 0)
        tempo_netq_drain(q, on_msg, &s);
    CHECK_EQ_INT(s.frames, 1); /* the echo */
    CHECK(s.order_ok);
    tempo_net_destroy(n);
    server_stop(&sv);
    tempo_event_destroy(sv.release);
    tempo_netq_destroy(q);
}

static void bad_descriptors_fail(void)
{
    tempo_netq *q = tempo_netq_create(NULL);
    CHECK(tempo_net_create(NULL) == NULL);
    CHECK(tempo_net_create(&(tempo_net_desc){.port = 1}) == NULL);
    CHECK(tempo_net_create(&(tempo_net_desc){.queue = q}) == NULL);
    CHECK(tempo_net_create(&(tempo_net_desc){.queue = q, .port = 1, .max_payload_bytes = UINT32_MAX}) == NULL);
    tempo_net_destroy(NULL);
    CHECK_EQ_INT(tempo_net_error(NULL), TEMPO_EINVAL);
    tempo_netq_destroy(q);
}

/* ---- Many descriptors open (issue 10) -------------------------------------- */

/* SDL_net waits with select(), whose POSIX fd_set holds descriptors below
 * FD_SETSIZE (1024) only: with ~1100 files open the network thread's
 * sockets land above it, and the first code aborted the whole process inside
 * SDLNet_CheckSockets (glibc: "bit out of range 0 - FD_SETSIZE on
 * fd_set"); the next one ended the connection with a clear error. Since
 * the thread waits with poll() on the OS sockets (issue 19) the connection
 * simply works. POSIX only: Winsock's fd_set has no such limit and its
 * sockets are not small integers. */
static void many_open_descriptors_are_not_fatal(void)
{
#ifdef _WIN32
    TT_SKIP("POSIX descriptor limits (Winsock's select takes a count, not a bitmap)");
#else
    enum { WANT = 1100 };
    struct rlimit old;
    if (getrlimit(RLIMIT_NOFILE, &old) != 0)
        TT_SKIP("getrlimit failed");
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < WANT + 64)
        TT_SKIP("the hard RLIMIT_NOFILE is below 1164");
    struct rlimit raised = old;
    if (raised.rlim_cur == RLIM_INFINITY || raised.rlim_cur < WANT + 64)
        raised.rlim_cur = WANT + 64;
    CHECK_EQ_INT(setrlimit(RLIMIT_NOFILE, &raised), 0);
    static int fds[WANT];
    int nfds = 0, top = -1;
    while (nfds < WANT && top < WANT) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0)
            break;
        fds[nfds++] = top = fd;
    }
    CHECK_GE_INT(top, WANT - 1);
    tt_note("%d descriptors opened, the highest %d", nfds, top);

    script sc = {0};
    for (uint32_t i = 0; i < 3; i++)
        add_frame(&sc, (uint16_t)(1 + i % 3), &i, 4);
    server sv = {.script = sc.buf, .len = sc.len};
    if (server_start(&sv)) {
        tempo_netq *q = tempo_netq_create(NULL);
        tempo_net *n = connect_to(q, sv.port);
        seen st = {.order_ok = true};
        drain_until_end(q, &st);
        tt_note("connected %d, frames %d, closed %d, errors %d: %s", st.connected, st.frames, st.closed,
                st.errors, st.detail);
        /* It works: every frame, then the orderly close. */
        CHECK_EQ_INT(st.errors, 0);
        CHECK_EQ_INT(st.connected, 1);
        CHECK_EQ_INT(st.frames, 3);
        CHECK(st.order_ok);
        CHECK_EQ_INT(st.closed, 1);
        CHECK_EQ_INT(tempo_net_send(n, 1, "x", 1), TEMPO_EIO); /* ended */
        tempo_net_destroy(n);
        server_stop(&sv);
        tempo_netq_destroy(q);
    }
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
    CHECK_EQ_INT(setrlimit(RLIMIT_NOFILE, &old), 0);

    /* Below the limit again, the same connection works. */
    script ok = {0};
    uint32_t zero = 0;
    add_frame(&ok, 1, &zero, 4);
    server sv2 = {.script = ok.buf, .len = ok.len};
    if (!server_start(&sv2))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = connect_to(q, sv2.port);
    seen st = {.order_ok = true};
    drain_until_end(q, &st);
    CHECK_EQ_INT(st.connected, 1);
    CHECK_EQ_INT(st.frames, 1);
    CHECK_EQ_INT(st.closed, 1);
    tempo_net_destroy(n);
    server_stop(&sv2);
    tempo_netq_destroy(q);
#endif
}

static const tt_case cases[] = {
    TT_CASE(frames_arrive_in_order_then_close),
    TT_CASE(malformed_frames_are_connection_errors),
    TT_CASE(truncated_frame_at_close_is_an_error),
    TT_CASE(refused_connection_is_reported),
    TT_CASE(destroy_wakes_an_idle_connection),
    TT_CASE(full_queue_pushes_back_not_drops),
    TT_CASE(send_reaches_the_peer),
    TT_CASE(bad_descriptors_fail),
    /* Last: on the old code it aborted the process. */
    TT_CASE(many_open_descriptors_are_not_fatal),
};

int main(int argc, char **argv)
{
    /* Winsock needs starting before the test's own server sockets; on POSIX
     * this only sets SIGPIPE to ignored. tempo_net keeps its own count. */
    if (SDLNet_Init() != 0) {
        printf("SDLNet_Init: %s\n0 passed, 1 failed\n", SDLNet_GetError());
        return 1;
    }
    int r = TT_MAIN(argc, argv, cases);
    SDLNet_Quit();
    return r;
}
