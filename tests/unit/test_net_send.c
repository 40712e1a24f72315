/* tempo_net_send (tempo/net.h) against a peer that misbehaves (issue 19):
 * one that stops reading, one that resets, one that closes. The peer is a
 * plain socket in this test on 127.0.0.1, ephemeral port, on its own
 * thread.
 *
 * No verdict here depends on time: a send that blocks would hang the case
 * until a generous give-up (the peer then starts reading anyway, so the case
 * ends and fails on its assertions instead of the harness timeout). The one
 * timing case (send_call_time_with_10mb_pending) only prints numbers.
 * The peer uses BSD sockets directly (test_sockets.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_net.h>

#include "harness.h"
#include "test_sockets.h"
#include "plat_socket.h" /* internal: the OS error text, checked directly */
#include "tempo/clock.h"
#include "tempo/loop.h"
#include "tempo/net.h"
#include "tempo/netq.h"

#define S TEMPO_NS_PER_S
#define GIVE_UP_NS (30 * S) /* only when something is lost or blocked */

/* ---- Frames: content is a function of the sequence number ---------------------- */

enum { MAX_PAYLOAD = 60000 };

static uint32_t frame_size(uint32_t seq)
{
    return 1000 + (seq * 7919u) % (MAX_PAYLOAD - 1000 + 1); /* 1000..60000 */
}

static uint16_t frame_type(uint32_t seq)
{
    return (uint16_t)(1 + seq % 3);
}

static uint8_t frame_byte(uint32_t seq, uint32_t i)
{
    return (uint8_t)(seq * 131u + i * 7u + (i >> 8));
}

static void frame_fill(uint8_t *p, uint32_t seq)
{
    uint32_t n = frame_size(seq);
    for (uint32_t i = 0; i < n; i++)
        p[i] = frame_byte(seq, i);
    memcpy(p, &seq, 4);
}

/* ---- The peer ------------------------------------------------------------------ */

typedef enum peer_mode {
    PEER_STALL_THEN_READ, /* send `send_frames` on go_send; read and check frames on go_read */
    PEER_RESET,           /* on go, once data arrived: reset (SO_LINGER 0, close) */
    PEER_CLOSE,           /* send one frame, then an orderly close */
    PEER_GO_FRAME_RESET,  /* on go, once data arrived: send one frame, then reset */
    PEER_ECHO             /* read one frame, send it back, wait for go, close */
} peer_mode;

typedef struct peer {
    peer_mode mode;
    int rcvbuf;           /* SO_RCVBUF of the accepted socket; 0 = the OS's */
    int send_frames;
    tempo_handle *go_send, *go_read, *go; /* manual-reset events */
    sock_t listener;
    uint16_t port;
    SDL_Thread *thread;
    /* results [peer thread, read after the join] */
    uint32_t frames_ok;   /* frames read, each the expected one */
    uint32_t bad_frames;  /* out of order, wrong type/size/bytes */
    uint64_t bytes_read;
    bool read_gave_up;    /* go_read never came: started reading on the give-up */
    char why[160];
} peer;

/* Waits for a test event with the give-up; true if it came. */
static bool await(tempo_handle *h)
{
    return tempo_wait(&h, 1, GIVE_UP_NS, 0) == 0;
}

/* [peer thread] Reads frames until the client closes, checking each. */
static void read_and_check(peer *p, sock_t c)
{
    static uint8_t body[MAX_PAYLOAD], want[MAX_PAYLOAD];
    uint32_t seq = 0;
    uint8_t h[TEMPO_NET_HEADER_BYTES];
    while (recv_all(c, h, sizeof h)) {
        uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        uint16_t type = (uint16_t)(h[4] << 8 | h[5]);
        if (n != frame_size(seq) || type != frame_type(seq)) {
            if (p->bad_frames++ == 0)
                snprintf(p->why, sizeof p->why, "frame %u: size %u type %u, want %u type %u", seq, n, type,
                         frame_size(seq), frame_type(seq));
            return; /* the stream is lost */
        }
        if (!recv_all(c, body, n))
            break;
        frame_fill(want, seq);
        if (memcmp(body, want, n) != 0 && p->bad_frames++ == 0)
            snprintf(p->why, sizeof p->why, "frame %u: payload bytes differ", seq);
        p->bytes_read += sizeof h + n;
        p->frames_ok++;
        seq++;
    }
}

/* [peer thread] */
static int peer_main(void *arg)
{
    peer *p = arg;
    sock_t c = accept(p->listener, NULL, NULL);
    if (c == BAD_SOCK)
        return 1;
    if (p->rcvbuf > 0)
        setsockopt(c, SOL_SOCKET, SO_RCVBUF, (const char *)&p->rcvbuf, sizeof p->rcvbuf);
    uint8_t h[TEMPO_NET_HEADER_BYTES];
    switch (p->mode) {
    case PEER_STALL_THEN_READ:
        if (p->go_send && await(p->go_send)) {
            for (int i = 0; i < p->send_frames; i++) {
                uint8_t small[100] = {0};
                uint32_t seq = (uint32_t)i;
                memcpy(small, &seq, 4);
                tempo_net_frame_header(h, 1, sizeof small);
                send_all(c, h, sizeof h);
                send_all(c, small, sizeof small);
            }
        }
        p->read_gave_up = !await(p->go_read);
        read_and_check(p, c);
        break;
    case PEER_RESET: {
        /* Close with linger 0 and with unread data: either alone makes the
         * close a RST on Linux and Windows; wine closes gracefully with
         * linger 0 alone but resets with unread data. */
        await(p->go);
        char peek;
        recv(c, &peek, 1, MSG_PEEK); /* the client's frame is here, unread */
        struct linger lg = {1, 0};
        setsockopt(c, SOL_SOCKET, SO_LINGER, (const char *)&lg, sizeof lg);
        break;
    }
    case PEER_GO_FRAME_RESET: {
        await(p->go);
        uint32_t zero = 0;
        tempo_net_frame_header(h, 1, 4);
        send_all(c, h, sizeof h);
        send_all(c, (const uint8_t *)&zero, 4);
        char peek;
        recv(c, &peek, 1, MSG_PEEK);
        struct linger lg = {1, 0};
        setsockopt(c, SOL_SOCKET, SO_LINGER, (const char *)&lg, sizeof lg);
        break;
    }
    case PEER_CLOSE: {
        uint32_t zero = 0;
        tempo_net_frame_header(h, 1, 4);
        send_all(c, h, sizeof h);
        send_all(c, (const uint8_t *)&zero, 4);
        break;
    }
    case PEER_ECHO: {
        uint8_t body[256];
        if (recv_all(c, h, sizeof h)) {
            uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
            if (n <= sizeof body && recv_all(c, body, n)) {
                send_all(c, h, sizeof h);
                send_all(c, body, n);
            }
        }
        await(p->go);
        break;
    }
    }
    close_sock(c);
    return 0;
}

static bool peer_start(peer *p)
{
    p->listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t_ alen = sizeof a;
    if (p->listener == BAD_SOCK || bind(p->listener, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(p->listener, 1) != 0 || getsockname(p->listener, (struct sockaddr *)&a, &alen) != 0) {
        tt_fail(__FILE__, __LINE__, "cannot listen on 127.0.0.1");
        return false;
    }
    p->port = ntohs(a.sin_port);
    p->thread = SDL_CreateThread(peer_main, "test-peer", p);
    CHECK(p->thread != NULL);
    return p->thread != NULL;
}

/* Releases every event the peer may wait on, joins it, closes the listener. */
static void peer_stop(peer *p)
{
    tempo_handle *hs[3] = {p->go_send, p->go_read, p->go};
    for (int i = 0; i < 3; i++)
        if (hs[i])
            tempo_event_set(hs[i]);
    SDL_WaitThread(p->thread, NULL);
    close_sock(p->listener);
    for (int i = 0; i < 3; i++)
        tempo_event_destroy(hs[i]);
}

/* ---- The client side ----------------------------------------------------------- */

typedef struct seen {
    int connected, closed, errors, frames;
    int error_code;
    char detail[128];
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
        s->frames++;
    }
}

/* Drains like a loop until `cond` holds or the give-up. */
static bool drain_until(tempo_netq *q, seen *s, bool (*cond)(const seen *))
{
    tempo_handle *h = tempo_netq_handle(q);
    uint64_t give_up = tempo_now_ns() + GIVE_UP_NS;
    while (!cond(s)) {
        uint64_t now = tempo_now_ns();
        if (now >= give_up || tempo_wait(&h, 1, give_up - now, 0) != 0) {
            tt_fail(__FILE__, __LINE__, "gave up waiting: connected %d frames %d closed %d errors %d",
                    s->connected, s->frames, s->closed, s->errors);
            return false;
        }
        tempo_netq_drain(q, on_msg, s);
    }
    return true;
}

static bool is_connected(const seen *s)
{
    return s->connected > 0 || s->errors > 0;
}

static bool has_ended(const seen *s)
{
    return s->closed > 0 || s->errors > 0;
}

static bool got_frame(const seen *s)
{
    return s->frames > 0 || has_ended(s);
}

/* ---- Counting log lines (SDL's log output) -------------------------------------- */

static atomic_int log_lines[SDL_NUM_LOG_PRIORITIES];

static void count_line(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    (void)message;
    if (priority >= 0 && priority < SDL_NUM_LOG_PRIORITIES)
        atomic_fetch_add(&log_lines[priority], 1);
}

typedef struct log_capture {
    SDL_LogOutputFunction fn;
    void *user;
    tempo_log_level level;
    SDL_LogPriority app_priority;
} log_capture;

/* Counts every line from here on, DEBUG included. */
static log_capture log_capture_begin(void)
{
    log_capture c;
    SDL_LogGetOutputFunction(&c.fn, &c.user);
    c.level = tempo_log_get_level();
    c.app_priority = SDL_LogGetPriority(SDL_LOG_CATEGORY_APPLICATION);
    for (int i = 0; i < SDL_NUM_LOG_PRIORITIES; i++)
        atomic_store(&log_lines[i], 0);
    tempo_log_set_level(TEMPO_LOG_DEBUG);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_DEBUG);
    SDL_LogSetOutputFunction(count_line, NULL);
    return c;
}

static void log_capture_end(const log_capture *c)
{
    SDL_LogSetOutputFunction(c->fn, c->user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, c->app_priority);
    tempo_log_set_level(c->level);
}

/* ---- 1. Sends never block: a peer that stops reading ----------------------------- */

enum { PEER_FRAMES = 100 };

typedef struct game {
    tempo_net *net;
    seen s;
    uint8_t payload[MAX_PAYLOAD];
    uint32_t next_seq;   /* the frame this tick tries (retried after EFULL) */
    uint64_t updates, accepted, full, other, last_other;
    uint64_t accepted_bytes;
    int phase;           /* 0 filling, 1 full: peer sends, 2 peer reads */
} game;

static void net_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    game *g = user;
    g->updates++;
    if (g->s.connected == 0)
        return;
    frame_fill(g->payload, g->next_seq);
    int r = tempo_net_send(g->net, frame_type(g->next_seq), g->payload, frame_size(g->next_seq));
    if (r == 0) {
        g->accepted++;
        g->accepted_bytes += TEMPO_NET_HEADER_BYTES + frame_size(g->next_seq);
        g->next_seq++;
    } else if (r == TEMPO_EFULL) {
        g->full++;
    } else {
        g->other++;
        g->last_other = (uint64_t)(-r);
    }
}

static void send_never_blocks_while_the_peer_stalls(void)
{
    peer p = {.mode = PEER_STALL_THEN_READ, .rcvbuf = 64 * 1024, .send_frames = PEER_FRAMES,
              .go_send = tempo_event_create(true, false), .go_read = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL});
    static game g;
    memset(&g, 0, sizeof g);
    g.net = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3,
                                                .send_cap_bytes = 1 << 20, .flush_timeout_ns = GIVE_UP_NS});
    CHECK(g.net != NULL);
    tempo_fake_clock *fc = tempo_fake_clock_create(S);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .update = net_update, .user = &g,
                                                            .clock = tempo_fake_clock_get(fc)});
    CHECK(loop != NULL);
    CHECK_EQ_INT(tempo_net_attach(g.net, loop, on_msg, &g.s), 0);

    uint64_t give_up = tempo_now_ns() + 2 * GIVE_UP_NS;
    uint64_t full_at_peer_frames = 0, accepted_at_release = 0, updates_at_release = 0;
    int frames_at_peer_frames = 0;
    uint64_t extra_ticks = 0;
    while (tempo_now_ns() < give_up && !tt_failed()) {
        int r = tempo_loop_frame(loop);
        if (r != 0) {
            CHECK_EQ_INT(r, 0);
            break;
        }
        if (g.phase == 0 && g.full > 0) {
            /* The send queue is full with the peer reading nothing: now the
             * peer sends; the thread must read them although its writes
             * are stuck. */
            tempo_event_set(p.go_send);
            g.phase = 1;
        } else if (g.phase == 1 && g.s.frames >= PEER_FRAMES && ++extra_ticks >= 60) {
            /* Sixty more ticks with the queue full, then the peer reads. */
            full_at_peer_frames = g.full;
            frames_at_peer_frames = g.s.frames;
            accepted_at_release = g.accepted;
            updates_at_release = g.updates;
            tempo_event_set(p.go_read);
            g.phase = 2;
        } else if (g.phase == 2 && g.accepted >= accepted_at_release + 50) {
            break; /* sends are accepted again: done */
        }
    }
    tt_note("%llu updates; %llu frames queued (%llu bytes), %llu sends refused with EFULL; the peer's %d frames "
            "arrived while the send queue was full",
            (unsigned long long)g.updates, (unsigned long long)g.accepted, (unsigned long long)g.accepted_bytes,
            (unsigned long long)g.full, frames_at_peer_frames);
    CHECK_EQ_INT(g.phase, 2);
    CHECK_EQ_U64(g.other, 0); /* only 0 or TEMPO_EFULL */
    if (g.other)
        tt_note("other error: %s", tempo_errname(-(int)g.last_other));
    CHECK_GE_U64(full_at_peer_frames, 1); /* refused, never waited: the ticks went on */
    CHECK_EQ_INT(frames_at_peer_frames, PEER_FRAMES);
    CHECK_GE_U64(g.accepted, accepted_at_release + 50);
    CHECK(g.updates > updates_at_release);

    /* Ticks: none missing, none dropped, none capped, while the queue filled. */
    const tempo_loop_stats *ls = tempo_loop_get_stats(loop);
    /* Ticks at start + k * period, k = 0, 1, ...: one more than periods. */
    uint64_t expected = (tempo_fake_clock_now(fc) - S) * 60 / S + 1;
    CHECK_EQ_U64(ls->total.updates, g.updates);
    CHECK_GE_U64(g.updates + 1, expected);
    CHECK_LE_U64(g.updates, expected + 1);
    CHECK_EQ_U64(ls->total.dropped_updates, 0);
    CHECK_EQ_U64(ls->total.stalls, 0);

    /* The counters agree with what the game saw; wait until the peer has
     * taken everything queued (it reads now). */
    tempo_net_stats st = {0};
    uint64_t until = tempo_now_ns() + GIVE_UP_NS;
    while (tempo_net_get_stats(g.net, &st) == 0 && st.queued_bytes > 0 && tempo_now_ns() < until)
        SDL_Delay(5);
    CHECK_EQ_U64(st.queued_bytes, 0);
    CHECK_EQ_U64(st.frames_queued, g.accepted);
    CHECK_EQ_U64(st.queued_bytes_total, g.accepted_bytes);
    CHECK_EQ_U64(st.sent_bytes, g.accepted_bytes);
    CHECK_EQ_U64(st.sends_full, g.full);
    CHECK_EQ_U64(st.dropped_bytes, 0);
    CHECK_EQ_U64(st.send_cap_bytes, 1 << 20);
    CHECK_GE_U64(st.peak_queued_bytes, (1 << 20) - TEMPO_NET_HEADER_BYTES - MAX_PAYLOAD);
    CHECK_EQ_U64(st.frames_received, PEER_FRAMES);
    CHECK_EQ_U64(st.received_bytes, PEER_FRAMES * (TEMPO_NET_HEADER_BYTES + 100));
    CHECK_EQ_U64(st.bytes_total, st.sent_bytes + st.received_bytes);

    /* Destroy flushes (the peer reads), then the peer has every frame. It
     * also detaches the queue it attached (issue 20: no detach first). */
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 1);
    tempo_net_destroy(g.net);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    CHECK_EQ_INT(tempo_netq_detach(q), TEMPO_EINVAL);
    peer_stop(&p);
    CHECK(!p.read_gave_up);
    CHECK_EQ_U64(p.frames_ok, g.accepted);
    CHECK_EQ_U64(p.bytes_read, g.accepted_bytes);
    CHECK_EQ_INT(p.bad_frames, 0);
    if (p.bad_frames)
        tt_note("%s", p.why);
    tempo_loop_destroy(loop);
    tempo_fake_clock_destroy(fc);
    tempo_netq_destroy(q);
}

/* ---- 2. A reset is described ------------------------------------------------------ */

/* True under wine, whose closesocket() ends a connection with a FIN even
 * with SO_LINGER 0 and unread data (Windows and Linux send a RST). */
static bool under_wine(void)
{
#ifdef _WIN32
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll != NULL && GetProcAddress(ntdll, "wine_get_version") != NULL;
#else
    return false;
#endif
}

static void os_errors_are_described(void)
{
    /* The words the ERROR detail starts with, and the OS's own name and
     * text (Winsock's on Windows, errno's elsewhere). */
#ifdef _WIN32
    const int reset = WSAECONNRESET, timed_out = WSAETIMEDOUT;
#else
    const int reset = ECONNRESET, timed_out = ETIMEDOUT;
#endif
    char buf[124];
    plat_socket_describe(reset, buf, sizeof buf);
    tt_note("%s", buf);
    CHECK(strncmp(buf, "connection reset by the peer (", 30) == 0);
    CHECK(strstr(buf, "ECONNRESET") != NULL);
    plat_socket_describe(timed_out, buf, sizeof buf);
    tt_note("%s", buf);
    CHECK(strncmp(buf, "connection timed out (", 22) == 0);
    CHECK(strstr(buf, "ETIMEDOUT") != NULL);
}

static void reset_by_the_peer_is_described(void)
{
    if (under_wine())
        TT_SKIP("wine's closesocket sends a FIN, not a RST, even with SO_LINGER 0 (os_errors_are_described "
                "checks Winsock's text)");
    peer p = {.mode = PEER_RESET, .go = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3});
    seen s = {0};
    drain_until(q, &s, is_connected);
    CHECK_EQ_INT(s.connected, 1);
    CHECK_EQ_INT(tempo_net_send(n, 1, "unread", 6), 0);
    tempo_event_set(p.go);
    drain_until(q, &s, has_ended);
    tt_note("ERROR detail: \"%s\"", s.detail);
    CHECK_EQ_INT(s.errors, 1);
    CHECK_EQ_INT(s.closed, 0);
    CHECK_EQ_INT(s.error_code, TEMPO_EIO);
    CHECK(strstr(s.detail, "reset") != NULL);
    CHECK(strstr(s.detail, "ECONNRESET") != NULL); /* also in WSAECONNRESET */
    CHECK_EQ_INT(tempo_net_error(n), TEMPO_EIO);

    /* And after the ERROR every send fails, quietly (issues 3, 4). */
    log_capture lc = log_capture_begin();
    int ok = 0, eio = 0;
    for (int i = 0; i < 1000; i++) {
        int r = tempo_net_send(n, 1, "x", 1);
        ok += r == 0;
        eio += r == TEMPO_EIO;
    }
    log_capture_end(&lc);
    int warn = atomic_load(&log_lines[SDL_LOG_PRIORITY_WARN]), error = atomic_load(&log_lines[SDL_LOG_PRIORITY_ERROR]);
    CHECK_EQ_INT(ok, 0);
    CHECK_EQ_INT(eio, 1000);
    CHECK_EQ_INT(warn, 0);
    CHECK_EQ_INT(error, 0);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* ---- 3 and 4. After CLOSED every send fails, at DEBUG ----------------------------- */

static void sends_after_close_fail_and_log_at_debug(void)
{
    peer p = {.mode = PEER_CLOSE};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3});
    seen s = {0};
    drain_until(q, &s, has_ended);
    CHECK_EQ_INT(s.connected, 1);
    CHECK_EQ_INT(s.frames, 1);
    CHECK_EQ_INT(s.closed, 1);
    CHECK_EQ_INT(s.errors, 0);
    CHECK_EQ_INT(tempo_net_error(n), TEMPO_ESHUTDOWN);

    /* The first send after CLOSED used to return 0 (the OS took it; the
     * frame was lost), and each later one logged a WARN line. */
    log_capture lc = log_capture_begin();
    int ok = 0, eio = 0, other = 0;
    for (int i = 0; i < 1000; i++) {
        int r = tempo_net_send(n, 1, "x", 1);
        if (r == 0)
            ok++;
        else if (r == TEMPO_EIO)
            eio++;
        else
            other++;
    }
    log_capture_end(&lc);
    int warn = atomic_load(&log_lines[SDL_LOG_PRIORITY_WARN]);
    int debug = atomic_load(&log_lines[SDL_LOG_PRIORITY_DEBUG]);
    tt_note("1000 sends after CLOSED: %d returned 0, %d TEMPO_EIO, %d other; log lines: %d WARN, %d DEBUG", ok,
            eio, other, warn, debug);
    CHECK_EQ_INT(ok, 0);
    CHECK_EQ_INT(eio, 1000);
    CHECK_EQ_INT(warn, 0);
    CHECK_EQ_INT(atomic_load(&log_lines[SDL_LOG_PRIORITY_ERROR]), 0);
    CHECK_EQ_INT(debug, 1000); /* still there for whoever asks for DEBUG */
    CHECK(strstr(tempo_get_error(), "ended") != NULL);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* ---- 5. The byte counters count ---------------------------------------------------- */

static void stats_count_the_bytes_both_ways(void)
{
    peer p = {.mode = PEER_ECHO, .go = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3});
    tempo_net_stats st;
    CHECK_EQ_INT(tempo_net_get_stats(n, &st), 0);
    CHECK_EQ_U64(st.bytes_total, 0);
    CHECK_EQ_U64(st.send_cap_bytes, 4u << 20); /* the default */
    seen s = {0};
    drain_until(q, &s, is_connected);
    uint8_t body[100];
    memset(body, 0x5A, sizeof body);
    CHECK_EQ_INT(tempo_net_send(n, 2, body, sizeof body), 0);
    drain_until(q, &s, got_frame);
    CHECK_EQ_INT(s.frames, 1);
    CHECK_EQ_INT(tempo_net_get_stats(n, &st), 0);
    CHECK_EQ_U64(st.frames_queued, 1);
    CHECK_EQ_U64(st.sent_bytes, TEMPO_NET_HEADER_BYTES + sizeof body);
    CHECK_EQ_U64(st.received_bytes, TEMPO_NET_HEADER_BYTES + sizeof body);
    CHECK_EQ_U64(st.frames_received, 1);
    CHECK_EQ_U64(st.bytes_total, 2 * (TEMPO_NET_HEADER_BYTES + sizeof body));
    CHECK_EQ_U64(st.queued_bytes, 0);
    CHECK_EQ_INT(tempo_net_get_stats(NULL, &st), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_get_stats(n, NULL), TEMPO_EINVAL);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* ---- A thread that stopped reading sleeps ----------------------------------------- */

static void hung_up_socket_nobody_reads_does_not_spin(void)
{
    /* The game shut its receive queue down, so the thread stops reading;
     * then the peer sends and resets. The thread must sleep until destroy,
     * not wake again and again for the error it does not read (poll
     * reports POLLERR/POLLHUP whatever it was asked; under wine the close is
     * a FIN, which poll does not report unasked, so there it passes either
     * way).
     * Process CPU over 300 ms: a spinning thread burns most of it, a
     * sleeping one nothing (a loaded machine can only hide a spin, never
     * fake one). */
    peer p = {.mode = PEER_GO_FRAME_RESET, .go = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3});
    seen s = {0};
    drain_until(q, &s, is_connected);
    tempo_netq_shutdown(q);
    CHECK_EQ_INT(tempo_net_send(n, 1, "unread", 6), 0);
    tempo_event_set(p.go);
    SDL_WaitThread(p.thread, NULL); /* the peer has sent and closed */
    p.thread = NULL;
    SDL_Delay(50);
    tempo_usage u0, u1;
    CHECK_EQ_INT(tempo_process_usage(&u0), 0);
    SDL_Delay(300);
    CHECK_EQ_INT(tempo_process_usage(&u1), 0);
    uint64_t cpu = u1.cpu_ns - u0.cpu_ns;
    tt_note("process CPU over 300 ms with a hung-up socket nobody reads: %.1f ms", cpu / 1e6);
    CHECK_LT_U64(cpu, 100 * TEMPO_NS_PER_MS);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* ---- Queue limits and the bounded flush -------------------------------------------- */

static void frame_larger_than_the_queue_is_erange(void)
{
    peer p = {.mode = PEER_ECHO, .go = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n =
        tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3, .send_cap_bytes = 64});
    seen s = {0};
    drain_until(q, &s, is_connected);
    uint8_t body[57] = {0};
    CHECK_EQ_INT(tempo_net_send(n, 1, body, 57), TEMPO_ERANGE); /* 8 + 57 > 64 */
    CHECK_EQ_INT(tempo_net_send(n, 1, body, 56), 0);            /* exactly fits */
    CHECK(tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .send_cap_bytes = 63}) == NULL);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* ---- Errors that say which argument, and why a connect failed --------------------- */

/* Every EINVAL of tempo_net_create and tempo_net_send names its field
 * (before: one text for every field of create; send set none, so
 * tempo_get_error() still showed an older failure). */
static void bad_arguments_name_the_field(void)
{
    tempo_netq *q = tempo_netq_create(NULL);
    char host[300];
    memset(host, 'h', sizeof host - 1);
    host[sizeof host - 1] = '\0';
    static const struct {
        int which;
        const char *says;
    } creates[] = {{0, "desc is NULL"}, {1, "desc.queue"}, {2, "desc.port"}, {3, "desc.host is 299 bytes"},
                   {4, "desc.max_payload_bytes 16777217"}, {5, "desc.send_cap_bytes 63"},
                   {6, "desc.send_cap_bytes 1073741825"}};
    for (size_t i = 0; i < sizeof creates / sizeof creates[0]; i++) {
        tempo_net_desc d = {.port = 9, .queue = q};
        switch (creates[i].which) {
        case 1: d.queue = NULL; break;
        case 2: d.port = 0; break;
        case 3: d.host = host; break;
        case 4: d.max_payload_bytes = TEMPO_NET_MAX_PAYLOAD + 1; break;
        case 5: d.send_cap_bytes = 63; break;
        case 6: d.send_cap_bytes = ((size_t)1 << 30) + 1; break;
        default: break;
        }
        CHECK(tempo_net_create(creates[i].which == 0 ? NULL : &d) == NULL);
        tt_note("create %d: %s", creates[i].which, tempo_get_error());
        CHECK(strstr(tempo_get_error(), creates[i].says) != NULL);
    }

    peer p = {.mode = PEER_ECHO, .go = tempo_event_create(true, false)};
    if (!peer_start(&p)) {
        tempo_netq_destroy(q);
        return;
    }
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3});
    seen s = {0};
    drain_until(q, &s, is_connected);
    static const char *const sends[] = {"NULL", "type 0", "data is NULL", "largest payload"};
    for (int i = 0; i < 4; i++) {
        tempo_net_create(NULL); /* an older failure's text, to be replaced */
        int r = i == 0   ? tempo_net_send(NULL, 1, "x", 1)
                : i == 1 ? tempo_net_send(n, 0, "x", 1)
                : i == 2 ? tempo_net_send(n, 1, NULL, 4)
                         : tempo_net_send(n, 1, "x", (size_t)TEMPO_NET_MAX_PAYLOAD + 1);
        tt_note("send %d: %s", i, tempo_get_error());
        CHECK_EQ_INT(r, TEMPO_EINVAL);
        CHECK(strstr(tempo_get_error(), "tempo_net_send") != NULL);
        CHECK(strstr(tempo_get_error(), sends[i]) != NULL);
    }
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

/* A connect nobody answers says where to and, on POSIX, the OS's reason
 * (before: SDL_net's "Couldn't connect to remote host", whatever happened). */
static void refused_connect_says_where_and_why(void)
{
    uint16_t port = 0;
    sock_t l = listen_loopback(&port);
    if (l == BAD_SOCK)
        TT_SKIP("no loopback socket");
    close_sock(l); /* nobody listens on that port now */
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = port, .queue = q});
    seen s = {0};
    drain_until(q, &s, has_ended);
    char where[32];
    snprintf(where, sizeof where, "127.0.0.1:%u", (unsigned)port);
    tt_note("ERROR %s: %s", tempo_errname(s.error_code), s.detail);
    CHECK_EQ_INT(s.errors, 1);
    CHECK_EQ_INT(s.error_code, TEMPO_EIO);
    CHECK(strstr(s.detail, where) != NULL);
#ifndef _WIN32
    /* Winsock's last error does not survive SDL_net's failed connect (its
     * closesocket): there the detail is SDL_net's text after host:port. */
    CHECK(strstr(s.detail, "ECONNREFUSED") != NULL);
#endif
    tempo_net_destroy(n);
    tempo_netq_destroy(q);
}


/* tempo_net_create returns at once whatever the send queue's size: the
 * network thread touches its pages, not the caller (before: create touched
 * all of them, 1.1 ms for the default 4 MiB on the loop thread, 54 ms for
 * 64 MiB). Counted in page faults, not time. A send right after CONNECTED
 * goes through. */
static void create_leaves_the_send_queue_to_the_network_thread(void)
{
    uint64_t before, after;
    if (!tt_thread_page_faults(&before))
        TT_SKIP("page faults are counted per thread on Linux only");
    peer p = {.mode = PEER_ECHO, .go = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tt_thread_page_faults(&before);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .send_cap_bytes = 64u << 20});
    tt_thread_page_faults(&after);
    tt_note("tempo_net_create with a 64 MiB send queue: %llu page faults on the calling thread",
            (unsigned long long)(after - before));
    CHECK(n != NULL);
    CHECK_LT_U64(after - before, 1024); /* 64 MiB is 16384 pages */
    seen s = {0};
    drain_until(q, &s, is_connected);
    CHECK_EQ_INT(s.connected, 1);
    static uint8_t body[60000];
    memset(body, 1, sizeof body); /* its own pages, before counting */
    tt_thread_page_faults(&before);
    CHECK_EQ_INT(tempo_net_send(n, 1, body, sizeof body), 0);
    tt_thread_page_faults(&after);
    tt_note("a 60000-byte send after CONNECTED: %llu page faults", (unsigned long long)(after - before));
    CHECK_LT_U64(after - before, 4);
    tempo_net_destroy(n);
    peer_stop(&p);
    tempo_netq_destroy(q);
}

static void destroy_flush_is_bounded(void)
{
    /* The peer never reads while the client destroys with 16 MB queued,
     * more than the OS's socket buffers hold: destroy gives up after
     * flush_timeout_ns (300 ms) instead of waiting for the peer, and says
     * so once at WARN. The time is only checked against a give-up: 20 s
     * for 0.3 s. The peer's receive buffer is pinned at 64 KB. Under wine
     * 10 (Debian 13) the OS still took all 16.8 MB within the bound in 1
     * run of 12 (destroy 33-40 ms, the peer then read every frame): so
     * the contract checked is "everything arrived, or one WARN says what
     * did not", never a silent loss. */
    peer p = {.mode = PEER_STALL_THEN_READ, .rcvbuf = 64 * 1024, .go_read = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3,
                                                       .send_cap_bytes = 32u << 20,
                                                       .flush_timeout_ns = 300 * TEMPO_NS_PER_MS});
    seen s = {0};
    drain_until(q, &s, is_connected);
    static uint8_t payload[MAX_PAYLOAD];
    uint32_t seq = 0;
    tempo_net_stats st = {0};
    int r = 0;
    while (st.queued_bytes < (16u << 20) && r == 0) {
        frame_fill(payload, seq);
        r = tempo_net_send(n, frame_type(seq), payload, frame_size(seq));
        seq += r == 0;
        tempo_net_get_stats(n, &st);
    }
    CHECK_EQ_INT(r, 0);
    log_capture lc = log_capture_begin();
    uint64_t t0 = tempo_now_ns();
    tempo_net_destroy(n);
    uint64_t took = tempo_now_ns() - t0;
    log_capture_end(&lc);
    tt_note("destroy with %.1f MB queued and a peer that reads nothing took %.1f ms (bound 300 ms)",
            st.queued_bytes / 1e6, took / 1e6);
    CHECK_LT_U64(took, 20 * S);
    int warns = (int)atomic_load(&log_lines[SDL_LOG_PRIORITY_WARN]); /* "... queued bytes not written" */
    peer_stop(&p);
    /* What was written before the close arrived intact, as a prefix. */
    CHECK_EQ_INT(p.bad_frames, 0);
    CHECK_LE_U64(p.frames_ok, seq);
    tt_note("the peer then read %u of %u frames; %d WARN", (unsigned)p.frames_ok, seq, warns);
    if (warns == 0)
        CHECK_EQ_U64(p.frames_ok, seq); /* all flushed within the bound: nothing to say */
    else {
        CHECK_EQ_INT(warns, 1); /* once, for the bytes that never left */
        CHECK_LT_U64(p.frames_ok, seq);
    }
    tempo_netq_destroy(q);
}

/* ---- Measurement: the cost of a send with ~10 MB pending ---------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void send_call_time_with_10mb_pending(void)
{
    /* DESIGN target: < 0.1 ms per call. Printed, not asserted: this
     * machine's load decides the tail. */
    peer p = {.mode = PEER_STALL_THEN_READ, .go_read = tempo_event_create(true, false)};
    if (!peer_start(&p))
        return;
    tempo_netq *q = tempo_netq_create(NULL);
    tempo_net *n = tempo_net_create(&(tempo_net_desc){.port = p.port, .queue = q, .max_type = 3,
                                                       .send_cap_bytes = 24u << 20,
                                                       .flush_timeout_ns = 1});
    seen s = {0};
    drain_until(q, &s, is_connected);
    static uint8_t payload[MAX_PAYLOAD];
    memset(payload, 0xA5, sizeof payload);
    /* ~10 MB pending: the OS's buffers first, then the send queue. */
    tempo_net_stats st = {0};
    uint64_t give_up = tempo_now_ns() + GIVE_UP_NS;
    while (st.queued_bytes < (10u << 20) && tempo_now_ns() < give_up) {
        if (tempo_net_send(n, 1, payload, sizeof payload) != 0)
            break;
        tempo_net_get_stats(n, &st);
    }
    size_t pending = st.queued_bytes;
    enum { CALLS = 2000 };
    static uint64_t took[CALLS];
    int ok = 0, full = 0;
    uint64_t max_ok = 0, blocked_calls = 0;
    bool counts_switches = true;
    for (int i = 0; i < CALLS; i++) {
        /* Voluntary switches tell a call that blocked (on the lock) from
         * one the scheduler preempted (a busy machine). */
        uint64_t sw0 = 0, sw1 = 0;
        counts_switches &= tt_thread_switches(&sw0);
        uint64_t t0 = tempo_now_ns();
        int r = tempo_net_send(n, 1, payload, i < CALLS / 2 ? sizeof payload : 1000);
        took[i] = tempo_now_ns() - t0;
        counts_switches &= tt_thread_switches(&sw1);
        blocked_calls += sw1 != sw0;
        ok += r == 0;
        full += r == TEMPO_EFULL;
        if (r == 0 && took[i] > max_ok)
            max_ok = took[i];
    }
    tempo_net_get_stats(n, &st);
    if (counts_switches)
        tt_note("calls that blocked (a voluntary context switch inside): %llu of %d", (unsigned long long)blocked_calls,
                CALLS);
    qsort(took, CALLS, sizeof took[0], cmp_u64);
    tt_note("%d sends of 60000 then 1000 bytes with %.1f MB in the send queue (%.1f MB accepted in all, %.1f MB "
            "still queued): %d queued, %d EFULL; call time p50 %.1f us, p99 %.1f us, max %.1f us, max of the queued ones %.1f us "
            "(target < 100 us; noisy machine)",
            CALLS, pending / 1e6, (double)st.queued_bytes_total / 1e6, (double)st.queued_bytes / 1e6, ok, full,
            took[CALLS / 2] / 1e3, took[CALLS * 99 / 100] / 1e3, took[CALLS - 1] / 1e3, max_ok / 1e3);
    CHECK_EQ_INT(ok + full, CALLS);
    tempo_net_destroy(n); /* flush_timeout_ns = 1: no waiting for a peer that reads nothing */
    peer_stop(&p);
    tempo_netq_destroy(q);
}

static const tt_case cases[] = {
    TT_CASE(send_never_blocks_while_the_peer_stalls),
    TT_CASE(os_errors_are_described),
    TT_CASE(reset_by_the_peer_is_described),
    TT_CASE(sends_after_close_fail_and_log_at_debug),
    TT_CASE(stats_count_the_bytes_both_ways),
    TT_CASE(frame_larger_than_the_queue_is_erange),
    TT_CASE(hung_up_socket_nobody_reads_does_not_spin),
    TT_CASE(destroy_flush_is_bounded),
    TT_CASE(bad_arguments_name_the_field),
    TT_CASE(refused_connect_says_where_and_why),
    TT_CASE(create_leaves_the_send_queue_to_the_network_thread),
    TT_CASE(send_call_time_with_10mb_pending),
};

int main(int argc, char **argv)
{
    /* Winsock needs starting before the test's own sockets; on POSIX this
     * only sets SIGPIPE to ignored. The loop needs SDL's event queue only. */
    if (SDLNet_Init() != 0 || SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL init: %s\n0 passed, 1 failed\n", SDL_GetError());
        return 1;
    }
    int r = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDLNet_Quit();
    SDL_Quit();
    return r;
}
