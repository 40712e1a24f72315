/* tempo/net.h over WebSockets (framework/net_ws.c), checked inside a browser
 * page against a TCP server behind websockify (docs/web.md). tests/web_test.js
 * starts the pieces and loads check/net_ws_check.html with the arguments
 *   BRIDGE_PORT KILL_PORT DEAD_PORT
 * BRIDGE_PORT: websockify in front of the test's scripted TCP server;
 * KILL_PORT: a second websockify in front of the same server, which the
 * test kills when asked (the "kill" script); DEAD_PORT: nobody listens.
 * The first frame a connection sends (type SCRIPT) names the script the
 * server plays on that connection (tests/web_test.js, scriptServer):
 *   echo       every later frame comes back, byte for byte, in pieces of
 *              1..7 bytes and in runs of several frames per write;
 *   close      three frames ("a", "bb", "ccc") split across writes, then
 *              the server closes its socket;
 *   malformed  one frame ("ok"), then a header of type 0;
 *   truncated  one frame ("ok"), then 8 + 4 of a 10-byte frame, then close;
 *   kill       one frame ("ok"), then the test kills the bridge (SIGKILL).
 * Every case must see CONNECTED, the frames in order, then exactly one
 * CLOSED or ERROR whose detail names the cause, within a few seconds.
 *
 * The page's main thread delivers the WebSocket's events, so the cases
 * wait with emscripten_sleep (linked with -sASYNCIFY), which hands the
 * thread to the browser between polls of the queue. */
#ifndef _POSIX_C_SOURCE /* a build's flags may define it already */
#define _POSIX_C_SOURCE 200809L /* pthread under -std=c11 */
#endif
#include <emscripten.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tempo/tempo.h"
#include "tempo_internal.h"

#if !TEMPO_HAVE_NET
#error "tests/web needs tempo/net.h: configure with -Dnet=auto, as ./dev web does"
#endif

enum { SCRIPT = 1, DATA = 2, MAX_TYPE = 9 };

static uint16_t bridge_port, kill_port, dead_port;

#define MAX_SEEN 256

typedef struct seen {
    uint32_t type;
    uint32_t size;
    uint8_t data[64];
    tempo_net_status status; /* CONNECTED / CLOSED / ERROR */
} seen;

typedef struct conn {
    tempo_netq *q;
    tempo_net *net;
    seen msgs[MAX_SEEN];
    int n;
    bool ended;          /* CLOSED or ERROR seen */
    size_t echo_bytes;   /* payload bytes of DATA frames seen */
    uint64_t echo_sum;   /* their sum, for the echo case */
} conn;

static void on_msg(const tempo_netq_msg *m, void *user)
{
    conn *c = user;
    if (m->type == TEMPO_NET_MSG_CLOSED || m->type == TEMPO_NET_MSG_ERROR)
        c->ended = true;
    if (m->type == DATA) {
        for (uint32_t i = 0; i < m->size; i++)
            c->echo_sum += (uint64_t)((const uint8_t *)m->data)[i] * (c->echo_bytes + i + 1);
        c->echo_bytes += m->size;
    }
    if (c->n == MAX_SEEN)
        return;
    seen *s = &c->msgs[c->n++];
    s->type = m->type;
    s->size = m->size;
    if (m->type >= TEMPO_NET_MSG_CONNECTED)
        memcpy(&s->status, m->data, sizeof s->status);
    else
        memcpy(s->data, m->data, m->size < sizeof s->data ? m->size : sizeof s->data);
}

/* Drains the queue, giving the browser the thread in between, until `done`
 * or `timeout_ms`. */
static bool wait_until(conn *c, bool (*done)(conn *), int timeout_ms)
{
    double end = emscripten_get_now() + timeout_ms;
    for (;;) {
        tempo_netq_drain(c->q, on_msg, c);
        if (done(c))
            return true;
        if (emscripten_get_now() > end)
            return false;
        emscripten_sleep(5);
    }
}

static bool connected(conn *c)
{
    return c->n > 0 || c->ended;
}

static bool ended(conn *c)
{
    return c->ended;
}

static size_t queue_cap; /* 0: the default; set by a case for its open_conn */

static void open_conn(conn *c, uint16_t port, const char *script, const tempo_net_desc *extra)
{
    memset(c, 0, sizeof *c);
    c->q = tempo_netq_create(&(tempo_netq_desc){.cap_bytes = queue_cap});
    CHECK(c->q != NULL);
    tempo_net_desc d = extra ? *extra : (tempo_net_desc){0};
    d.host = "127.0.0.1";
    d.port = port;
    d.queue = c->q;
    d.max_type = MAX_TYPE;
    c->net = tempo_net_create(&d);
    tt_note("tempo_net_create(ws://127.0.0.1:%u/): %s", port, c->net ? "a net" : tempo_get_error());
    CHECK(c->net != NULL);
    if (c->net == NULL)
        return;
    CHECK_EQ_INT(tempo_net_send(c->net, DATA, "x", 1), TEMPO_EBUSY); /* before CONNECTED */
    CHECK(wait_until(c, connected, 5000));
    CHECK(c->n >= 1);
    if (c->n >= 1 && script)
        CHECK_EQ_INT(c->msgs[0].type, TEMPO_NET_MSG_CONNECTED);
    if (script)
        CHECK_EQ_INT(tempo_net_send(c->net, SCRIPT, script, strlen(script)), 0);
}

static void close_conn(conn *c)
{
    tempo_net_destroy(c->net);
    tempo_netq_destroy(c->q);
}

/* The last message: the end, with its code and detail noted. */
static const seen *the_end(conn *c)
{
    const seen *e = c->n ? &c->msgs[c->n - 1] : NULL;
    for (int i = 0; i < c->n; i++)
        tt_note("message %d: type %u, %u bytes", i, (unsigned)c->msgs[i].type, (unsigned)c->msgs[i].size);
    if (e && e->type >= TEMPO_NET_MSG_CONNECTED)
        tt_note("end: %s %s: %s", e->type == TEMPO_NET_MSG_CLOSED ? "CLOSED" : "ERROR", tempo_errname(e->status.code),
                e->status.detail);
    return e;
}

static void frames_then_an_orderly_close(void)
{
    conn c;
    open_conn(&c, bridge_port, "close", NULL);
    CHECK(wait_until(&c, ended, 5000));
    /* CONNECTED, "a", "bb", "ccc" (reassembled from pieces), CLOSED. */
    CHECK_EQ_INT(c.n, 5);
    static const char *want[] = {"a", "bb", "ccc"};
    for (int i = 0; i < 3 && i + 1 < c.n; i++) {
        CHECK_EQ_INT(c.msgs[i + 1].type, DATA);
        CHECK_EQ_INT(c.msgs[i + 1].size, strlen(want[i]));
        CHECK(memcmp(c.msgs[i + 1].data, want[i], strlen(want[i])) == 0);
    }
    const seen *e = the_end(&c);
    CHECK(e && e->type == TEMPO_NET_MSG_CLOSED && e->status.code == 0);
    CHECK_EQ_INT(tempo_net_error(c.net), TEMPO_ESHUTDOWN);
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, "late", 4), TEMPO_EIO);
    tempo_net_stats st;
    CHECK_EQ_INT(tempo_net_get_stats(c.net, &st), 0);
    CHECK_EQ_U64(st.frames_received, 3);
    CHECK_EQ_U64(st.received_bytes, 3 * 8 + 6);
    close_conn(&c);
}

/* Frames of every size from 0 up, sent in a burst larger than the browser
 * takes at once, come back whole and in order through the bridge. */
static void frames_echo_through_the_bridge(void)
{
    conn c;
    open_conn(&c, bridge_port, "echo", NULL);
    size_t sent = 0;
    uint64_t sum = 0;
    static uint8_t buf[3000];
    int frames = 0;
    for (size_t size = 0; size <= sizeof buf; size += 97, frames++) {
        for (size_t i = 0; i < size; i++)
            buf[i] = (uint8_t)(size * 31 + i * 7);
        for (size_t i = 0; i < size; i++)
            sum += (uint64_t)buf[i] * (sent + i + 1);
        CHECK_EQ_INT(tempo_net_send(c.net, DATA, buf, size), 0);
        sent += size;
    }
    double t0 = emscripten_get_now();
    bool all = false;
    double end = t0 + 5000;
    while (!all && emscripten_get_now() < end) {
        tempo_netq_drain(c.q, on_msg, &c);
        all = c.echo_bytes >= sent || c.ended;
        if (!all)
            emscripten_sleep(5);
    }
    tt_note("echo: %d frames, %zu payload bytes back in %.0f ms", frames, c.echo_bytes, emscripten_get_now() - t0);
    CHECK(!c.ended);
    CHECK_EQ_U64(c.echo_bytes, sent);
    CHECK_EQ_U64(c.echo_sum, sum);
    tempo_net_stats st;
    CHECK_EQ_INT(tempo_net_get_stats(c.net, &st), 0);
    CHECK_EQ_U64(st.frames_received, (uint64_t)frames);
    CHECK_EQ_U64(st.queued_bytes_total, st.sent_bytes + st.queued_bytes + st.dropped_bytes);
    close_conn(&c);
}

/* A send queue of 64 KiB fills while the browser holds what it was given
 * (the page does not yield): TEMPO_EFULL, nothing queued half; then it
 * drains and every queued frame comes back. */
static void a_full_send_queue_refuses_then_drains(void)
{
    conn c;
    open_conn(&c, bridge_port, "echo", &(tempo_net_desc){.send_cap_bytes = 64 << 10, .max_payload_bytes = 1 << 16});
    static uint8_t buf[16000];
    memset(buf, 0x5a, sizeof buf);
    int queued = 0, full = 0;
    for (int i = 0; i < 40; i++) {
        int r = tempo_net_send(c.net, DATA, buf, sizeof buf);
        if (r == 0)
            queued++;
        else if (r == TEMPO_EFULL)
            full++;
        else
            CHECK_EQ_INT(r, 0);
    }
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, NULL, (64 << 10)), TEMPO_EINVAL);
    static uint8_t big[70000];
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, big, sizeof big), TEMPO_ERANGE);
    tempo_net_stats st;
    CHECK_EQ_INT(tempo_net_get_stats(c.net, &st), 0);
    tt_note("send queue: %d queued, %d refused (TEMPO_EFULL; sends_full %llu, peak %zu of %zu bytes)", queued, full,
            (unsigned long long)st.sends_full, st.peak_queued_bytes, st.send_cap_bytes);
    CHECK(full > 0);
    CHECK_EQ_U64(st.sends_full, (uint64_t)full);
    CHECK_LE_U64(st.peak_queued_bytes, st.send_cap_bytes);
    size_t want = (size_t)queued * sizeof buf;
    double end = emscripten_get_now() + 10000;
    while (c.echo_bytes < want && !c.ended && emscripten_get_now() < end) {
        tempo_netq_drain(c.q, on_msg, &c);
        emscripten_sleep(5);
    }
    CHECK_EQ_U64(c.echo_bytes, want);
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, buf, sizeof buf), 0); /* room again */
    close_conn(&c);
}

/* A receive queue with room for a few frames, not drained while 200 come
 * back and then the server closes: the page cannot slow the WebSocket down,
 * so the frames wait in net_ws.c's backlog and arrive, all and in order,
 * before the CLOSED, as the loop drains. */
static void a_full_receive_queue_delays_frames_and_loses_none(void)
{
    enum { FRAMES = 200, SIZE = 100 };
    conn c;
    queue_cap = 1024;
    open_conn(&c, bridge_port, "echo", NULL);
    queue_cap = 0;
    uint8_t buf[SIZE];
    uint64_t sum = 0;
    for (int i = 0; i < FRAMES; i++) {
        for (int k = 0; k < SIZE; k++) {
            buf[k] = (uint8_t)(i * 13 + k);
            sum += (uint64_t)buf[k] * ((uint64_t)i * SIZE + (uint64_t)k + 1);
        }
        CHECK_EQ_INT(tempo_net_send(c.net, DATA, buf, sizeof buf), 0);
    }
    emscripten_sleep(500); /* everything arrives meanwhile; the queue holds a few */
    tempo_netq_stats qs;
    tempo_netq_get_stats(c.q, &qs);
    tt_note("receive queue of %zu bytes, not drained for 500 ms: %u messages in it", qs.cap_bytes, qs.peak_backlog);
    double end = emscripten_get_now() + 5000;
    while (c.echo_bytes < (size_t)FRAMES * SIZE && emscripten_get_now() < end) {
        tempo_netq_drain(c.q, on_msg, &c);
        emscripten_sleep(1);
    }
    CHECK_EQ_U64(c.echo_bytes, (uint64_t)FRAMES * SIZE);
    CHECK_EQ_U64(c.echo_sum, sum);
    CHECK(!c.ended);
    CHECK_LT_INT(qs.peak_backlog, FRAMES); /* the queue was full: the backlog held the rest */
    close_conn(&c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Round trips of one 16-byte frame through the bridge to the echo script,
 * one at a time, polled with emscripten_sleep(0) (a yield to the browser).
 * Reported (docs/web.md); judged only that every one comes back. */
static void ping_through_the_bridge(void)
{
    enum { PINGS = 200 };
    conn c;
    open_conn(&c, bridge_port, "echo", NULL);
    static double rtt[PINGS];
    int got = 0;
    uint8_t payload[16] = {0};
    for (int i = 0; i < PINGS; i++) {
        size_t before = c.echo_bytes;
        double t0 = emscripten_get_now();
        CHECK_EQ_INT(tempo_net_send(c.net, DATA, payload, sizeof payload), 0);
        double end = t0 + 2000;
        while (c.echo_bytes == before && !c.ended && emscripten_get_now() < end) {
            emscripten_sleep(0);
            tempo_netq_drain(c.q, on_msg, &c);
        }
        if (c.echo_bytes == before)
            break;
        rtt[got++] = emscripten_get_now() - t0;
    }
    CHECK_EQ_INT(got, PINGS);
    if (got > 0) {
        qsort(rtt, (size_t)got, sizeof rtt[0], cmp_double);
        tt_note("ping: %d round trips of a 16-byte frame through websockify: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                got, rtt[got / 2], rtt[(got * 99) / 100 < got ? (got * 99) / 100 : got - 1], rtt[got - 1]);
    }
    close_conn(&c);
}

enum { THREAD_FRAMES = 50, THREAD_SIZE = 40 };

static void *send_from_a_thread(void *arg)
{
    tempo_net *net = arg;
    uint8_t buf[THREAD_SIZE];
    intptr_t fails = 0;
    for (int i = 0; i < THREAD_FRAMES; i++) {
        memset(buf, i + 1, sizeof buf);
        if (tempo_net_send(net, DATA, buf, sizeof buf) != 0)
            fails++;
    }
    return (void *)fails;
}

/* tempo_net_send from a Worker (a pthread): queued there, handed to the
 * WebSocket by the main thread, echoed back whole. */
static void sends_from_another_thread_arrive(void)
{
    conn c;
    open_conn(&c, bridge_port, "echo", NULL);
    pthread_t t;
    CHECK_EQ_INT(pthread_create(&t, NULL, send_from_a_thread, c.net), 0);
    double end = emscripten_get_now() + 5000;
    while (c.echo_bytes < (size_t)THREAD_FRAMES * THREAD_SIZE && !c.ended && emscripten_get_now() < end) {
        tempo_netq_drain(c.q, on_msg, &c);
        emscripten_sleep(2);
    }
    void *fails = NULL;
    pthread_join(t, &fails);
    CHECK(fails == NULL);
    CHECK_EQ_U64(c.echo_bytes, (uint64_t)THREAD_FRAMES * THREAD_SIZE);
    int data = 0;
    bool in_order = true;
    for (int i = 0; i < c.n; i++)
        if (c.msgs[i].type == DATA)
            in_order = in_order && c.msgs[i].data[0] == (uint8_t)(++data);
    CHECK(in_order);
    tt_note("from a pthread: %d frames back in order", data);
    close_conn(&c);
}

static void malformed_input_is_the_native_error(void)
{
    conn c;
    open_conn(&c, bridge_port, "malformed", NULL);
    CHECK(wait_until(&c, ended, 5000));
    CHECK_EQ_INT(c.n, 3); /* CONNECTED, "ok", ERROR */
    if (c.n >= 2)
        CHECK(c.msgs[1].type == DATA && c.msgs[1].size == 2 && memcmp(c.msgs[1].data, "ok", 2) == 0);
    const seen *e = the_end(&c);
    CHECK(e && e->type == TEMPO_NET_MSG_ERROR && e->status.code == TEMPO_EFORMAT);
    /* net.c's words for a header of type 0 (net_frame.c's reason, then the header). */
    CHECK(e && strstr(e->status.detail, "malformed stream: ") == e->status.detail);
    CHECK(e && strstr(e->status.detail, "type 0, 1..9") != NULL);
    CHECK_EQ_INT(tempo_net_error(c.net), TEMPO_EFORMAT);
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, "x", 1), TEMPO_EIO);
    close_conn(&c);
}

static void a_stream_cut_inside_a_frame_is_malformed(void)
{
    conn c;
    open_conn(&c, bridge_port, "truncated", NULL);
    CHECK(wait_until(&c, ended, 5000));
    CHECK_EQ_INT(c.n, 3);
    const seen *e = the_end(&c);
    CHECK(e && e->type == TEMPO_NET_MSG_ERROR && e->status.code == TEMPO_EFORMAT);
    CHECK(e && strstr(e->status.detail, "connection ended inside a frame (truncated; 12 bytes") != NULL);
    close_conn(&c);
}

static void a_bridge_killed_mid_session_is_an_error(void)
{
    conn c;
    open_conn(&c, kill_port, "kill", NULL);
    CHECK(wait_until(&c, ended, 8000));
    CHECK_EQ_INT(c.n, 3); /* CONNECTED, "ok", ERROR */
    const seen *e = the_end(&c);
    CHECK(e && e->type == TEMPO_NET_MSG_ERROR && e->status.code == TEMPO_EIO);
    char want[64];
    snprintf(want, sizeof want, "WebSocket to ws://127.0.0.1:%u/ closed (code 1006", kill_port);
    CHECK(e && strstr(e->status.detail, want) != NULL);
    CHECK(e && strstr(e->status.detail, "after 1 frames") != NULL);
    CHECK_EQ_INT(tempo_net_send(c.net, DATA, "x", 1), TEMPO_EIO);
    close_conn(&c);
}

static void no_bridge_is_a_connect_error(void)
{
    conn c;
    open_conn(&c, dead_port, NULL, NULL);
    CHECK(c.ended);
    CHECK_EQ_INT(c.n, 1); /* the ERROR alone: it never connected */
    const seen *e = the_end(&c);
    CHECK(e && e->type == TEMPO_NET_MSG_ERROR && e->status.code == TEMPO_EIO);
    char want[64];
    snprintf(want, sizeof want, "cannot connect to ws://127.0.0.1:%u/", dead_port);
    CHECK(e && strstr(e->status.detail, want) != NULL);
    close_conn(&c);
}

static void a_bad_descriptor_is_einval(void)
{
    tempo_netq *q = tempo_netq_create(NULL);
    CHECK(tempo_net_create(&(tempo_net_desc){.port = 0, .queue = q}) == NULL);
    CHECK_EQ_INT(tempo__error_code(), TEMPO_EINVAL);
    CHECK(tempo_net_create(&(tempo_net_desc){.port = 1, .queue = q, .send_cap_bytes = 10}) == NULL);
    CHECK_EQ_INT(tempo__error_code(), TEMPO_EINVAL);
    CHECK(tempo_net_create(&(tempo_net_desc){.port = 1}) == NULL);
    CHECK_EQ_INT(tempo__error_code(), TEMPO_EINVAL);
    tempo_netq_destroy(q);
}

static const tt_case cases[] = {
    TT_CASE(a_bad_descriptor_is_einval),
    TT_CASE(frames_then_an_orderly_close),
    TT_CASE(frames_echo_through_the_bridge),
    TT_CASE(a_full_send_queue_refuses_then_drains),
    TT_CASE(ping_through_the_bridge),
    TT_CASE(a_full_receive_queue_delays_frames_and_loses_none),
    TT_CASE(sends_from_another_thread_arrive),
    TT_CASE(malformed_input_is_the_native_error),
    TT_CASE(a_stream_cut_inside_a_frame_is_malformed),
    TT_CASE(no_bridge_is_a_connect_error),
    TT_CASE(a_bridge_killed_mid_session_is_an_error),
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: net_ws_check BRIDGE_PORT KILL_PORT DEAD_PORT (tests/web_test.js starts them)\n");
        return 2;
    }
    bridge_port = (uint16_t)atoi(argv[1]);
    kill_port = (uint16_t)atoi(argv[2]);
    dead_port = (uint16_t)atoi(argv[3]);
    char *none[] = {argv[0], NULL};
    return TT_MAIN(1, none, cases);
}
