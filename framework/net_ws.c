/* tempo/net.h over a WebSocket: the transport of a backend without TCP
 * sockets (web: a browser page). framework/meson.build compiles this file
 * instead of net.c there (plat_has_sockets false).
 *
 * The peer is a WebSocket-to-TCP bridge in front of the unchanged TCP
 * server (websockify, docs/web.md): desc.host and desc.port name the
 * bridge, and the page connects to ws://host:port/ with the "binary"
 * subprotocol. The bridge forwards bytes, not frames: one WebSocket message
 * may carry part of a frame or several, so the receive side reassembles the
 * byte stream exactly as net.c does (net_frame.c's decoder), and the send
 * side writes the same bytes native sends.
 *
 * Threads. Emscripten's WebSocket calls run on the page's main thread
 * (every one is proxied there, and 3.1.6 delivers every callback there), so
 * there is no network thread: the browser's event loop is the wait.
 * onopen / onmessage / onclose run on the main thread between the loop's
 * frames; a main-thread task never blocks, so:
 *  - receiving pushes with tempo_netq_push (never _wait). A full receive
 *    queue cannot slow a WebSocket down (no flow control reaches the
 *    page), so the bytes stay in a receive backlog and a browser timer
 *    pushes again every RETRY_MS until the loop has drained room: frames
 *    are delayed, never dropped. The backlog is bounded
 *    (BACKLOG_FACTOR x the receive queue's frame limit, at least 16 MiB):
 *    beyond it the connection ends with an ERROR (TEMPO_ENOMEM) naming it;
 *  - the connection's own messages (CONNECTED, CLOSED, ERROR) go through
 *    the same backlog, after every frame received before them;
 *  - sending copies the frame into the bounded send ring (as net.c) and
 *    hands ring bytes to the WebSocket while its bufferedAmount (what the
 *    browser holds, not yet on the wire) is under WS_BUFFERED_MAX; the rest
 *    waits in the ring, and a timer hands it over as the browser drains.
 *    So the send queue stays bounded and a full one returns TEMPO_EFULL.
 *    A send from another thread queues and asks the main thread to hand
 *    the bytes over (emscripten_async_run_in_main_runtime_thread).
 * The loop sees a pushed message at its next frame (an animation frame or
 * an update's timer: web_loop.c), so no wake-up is needed.
 *
 * Ownership: the loop thread (the page's main thread) creates and destroys;
 * `lock` guards the ring and the counters against senders on other threads.
 * Every net alive is in g_nets (main thread only), so a main-thread task
 * queued by a sender on another thread finds only nets that still exist. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten/eventloop.h>
#include <emscripten/threading.h>
#include <emscripten/websocket.h>

#include "net_core.h"
#include "net_frame.h"
#include "platform.h"
#include "tempo/net.h"
#include "tempo_internal.h"

/* The most bytes handed to the WebSocket and not yet sent by the browser. */
#define WS_BUFFERED_MAX ((unsigned long long)64 << 10)
/* How often a full receive queue, or a send ring the browser cannot take
 * yet, is looked at again. */
#define RETRY_MS 4.0
#define BACKLOG_FACTOR 4
#define MIN_BACKLOG ((size_t)16 << 20)

typedef enum ws_state { WS_CONNECTING, WS_OPEN, WS_ENDED } ws_state;

struct tempo_net {
    tempo__net_core core; /* first: what both transports share (net_core.h) */
    char url[300]; /* ws://host:port/ */
    EMSCRIPTEN_WEBSOCKET_T ws; /* > 0 */
    tempo_net *next;           /* [main thread] g_nets */
    long timer_id;             /* [main thread] the retry timer, 0: none */

    /* [core.lock] */
    ws_state state;

    /* [main thread] The receive backlog: stream bytes not yet decoded and
     * pushed, then (once the connection ended or opened) the status message
     * that follows them. */
    uint8_t *rx;
    size_t rx_len, rx_cap, rx_max;
    bool reading;          /* false once the stream ended or went bad */
    bool status_pending;   /* `status` is pushed after rx's frames */
    uint32_t status_type;
    tempo_net_status status;
    bool connected_pending; /* CONNECTED waits before everything (rare: a full queue) */
};

static tempo_net *g_nets; /* [main thread] every live net */

static void arm_retry(tempo_net *n);

/* [main thread] Decides how the connection ended: error code, no more
 * sends, the ring's bytes dropped and counted; the message itself follows
 * the frames received before it (pump_rx). The first end decided is the one
 * reported, except that `override` (the stream itself was malformed: the
 * cause, whatever closed the socket afterwards) replaces an end not yet
 * pushed. `close_ws`: Tempo ends it (malformed input, a backlog over its
 * bound), so the WebSocket is closed too, as net.c closes the socket. */
static void end_with(tempo_net *n, bool override, bool close_ws, uint32_t type, int code, const char *fmt, ...)
    TEMPO__PRINTF(6, 7);
static void end_with(tempo_net *n, bool override, bool close_ws, uint32_t type, int code, const char *fmt, ...)
{
    if (atomic_load(&n->core.error) != 0 && !(override && n->status_pending))
        return;
    n->status_type = type;
    n->status.code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->status.detail, sizeof n->status.detail, fmt, ap);
    va_end(ap);
    n->status_pending = true;
    n->reading = false;
    atomic_store(&n->core.error, type == TEMPO_NET_MSG_CLOSED ? TEMPO_ESHUTDOWN : code);
    plat_mutex_lock(n->core.lock);
    bool was_live = n->state != WS_ENDED;
    n->state = WS_ENDED;
    n->core.st.dropped_bytes += n->core.tx_len;
    n->core.tx_len = 0;
    n->core.tx_head = 0;
    plat_mutex_unlock(n->core.lock);
    if (type == TEMPO_NET_MSG_ERROR)
        tempo__log(TEMPO_LOG_DEBUG, "tempo_net %s: %s: %s", n->url, tempo_errname(code), n->status.detail);
    if (close_ws && was_live)
        emscripten_websocket_close(n->ws, 1000, "malformed input");
}

/* [main thread] Pushes what the backlog holds, in order: CONNECTED, the
 * whole frames, then the end's status once every frame before it is in (a
 * partial frame left then is part of what the status reports). Stops at a
 * full queue; the retry timer comes back. */
static void pump_rx(tempo_net *n)
{
    if (n->connected_pending) {
        tempo_net_status st = {0, "connected"};
        if (tempo_netq_push(n->core.q, TEMPO_NET_MSG_CONNECTED, &st, sizeof st) == TEMPO_EFULL) {
            arm_retry(n);
            return;
        }
        n->connected_pending = false;
    }
    size_t off = 0;
    bool full = false;
    while (n->rx_len > off) {
        tempo__frame f;
        const char *why = "";
        int r = tempo__frame_decode(n->rx + off, n->rx_len - off, &n->core.lim, &f, &why);
        if (r == 0)
            break;
        if (r < 0) {
            /* The header as read, next to what this connection accepts. */
            const uint8_t *reserved = n->rx + off + 6;
            end_with(n, true, true, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                     "malformed stream: %s (length %" PRIu32 ", most %" PRIu32 "; type %u, 1..%u; reserved %02x%02x)",
                     why, f.size, n->core.lim.max_payload, (unsigned)f.type, (unsigned)n->core.lim.max_type, reserved[0],
                     reserved[1]);
            off = n->rx_len; /* nothing after it can be trusted */
            break;
        }
        /* Counted before the push: a loop that has the frame sees it counted. */
        plat_mutex_lock(n->core.lock);
        n->core.st.frames_received++;
        plat_mutex_unlock(n->core.lock);
        int p = tempo_netq_push(n->core.q, f.type, f.payload, f.size);
        if (p != 0) {
            plat_mutex_lock(n->core.lock);
            n->core.st.frames_received--;
            plat_mutex_unlock(n->core.lock);
        }
        if (p == TEMPO_EFULL) {
            full = true; /* kept: pushed again by the timer */
            break;
        }
        if (p == TEMPO_ERANGE) {
            end_with(n, true, true, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT, "a %u-byte frame can never fit the queue",
                     f.size);
            off = n->rx_len;
            break;
        }
        if (p != 0) { /* the queue was shut down: nobody reads any more */
            n->reading = false;
            n->status_pending = false;
            off = n->rx_len;
            break;
        }
        off += (size_t)r;
    }
    memmove(n->rx, n->rx + off, n->rx_len - off);
    n->rx_len -= off;
    if (full) {
        arm_retry(n);
        return;
    }
    if (!n->status_pending)
        return; /* a partial frame (if any) waits for the next message */
    n->rx_len = 0;
    if (tempo_netq_push(n->core.q, n->status_type, &n->status, sizeof n->status) == TEMPO_EFULL) {
        arm_retry(n);
        return;
    }
    n->status_pending = false;
}

/* [main thread] Hands ring bytes to the WebSocket while the browser holds
 * less than WS_BUFFERED_MAX unsent. */
static void pump_tx(tempo_net *n)
{
    for (;;) {
        unsigned long long buffered = 0;
        plat_mutex_lock(n->core.lock);
        bool open = n->state == WS_OPEN;
        size_t len = n->core.tx_len;
        plat_mutex_unlock(n->core.lock);
        if (!open || len == 0)
            return;
        /* emscripten 3.1.6 (Debian 12) declares the out-parameter unsigned
         * long long *, later ones (Debian 13's) size_t *: through void * it
         * converts to either, and a 4-byte size_t written into the low half
         * of the zeroed 8 bytes (wasm is little-endian) reads the same. */
        emscripten_websocket_get_buffered_amount(n->ws, (void *)&buffered);
        if (buffered >= WS_BUFFERED_MAX) {
            arm_retry(n);
            return;
        }
        plat_mutex_lock(n->core.lock);
        size_t chunk = n->core.tx_len < n->core.tx_cap - n->core.tx_head ? n->core.tx_len : n->core.tx_cap - n->core.tx_head;
        if ((unsigned long long)chunk > WS_BUFFERED_MAX - buffered)
            chunk = (size_t)(WS_BUFFERED_MAX - buffered);
        uint8_t *p = n->core.tx + n->core.tx_head;
        plat_mutex_unlock(n->core.lock);
        /* Unlocked: senders only write the free part of the ring; the
         * browser copies the bytes (the heap is shared memory). */
        EMSCRIPTEN_RESULT e = emscripten_websocket_send_binary(n->ws, p, (uint32_t)chunk);
        if (e != EMSCRIPTEN_RESULT_SUCCESS) {
            end_with(n, false, true, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "WebSocket to %s: send failed (emscripten result %d)", n->url,
                     (int)e);
            pump_rx(n);
            return;
        }
        plat_mutex_lock(n->core.lock);
        n->core.tx_head = (n->core.tx_head + chunk) % n->core.tx_cap;
        n->core.tx_len -= chunk;
        if (n->core.tx_len == 0)
            n->core.tx_head = 0;
        n->core.st.sent_bytes += chunk;
        plat_mutex_unlock(n->core.lock);
    }
}

static void on_retry(void *user)
{
    tempo_net *n = user;
    n->timer_id = 0;
    pump_rx(n);
    pump_tx(n);
}

/* [main thread] */
static void arm_retry(tempo_net *n)
{
    if (n->timer_id == 0)
        n->timer_id = emscripten_set_timeout(on_retry, RETRY_MS, n);
}

/* [main thread] A sender on another thread queued bytes: hand them over
 * for every net still alive. */
static void pump_all(void)
{
    for (tempo_net *n = g_nets; n; n = n->next)
        pump_tx(n);
}

static EM_BOOL on_open(int type, const EmscriptenWebSocketOpenEvent *e, void *user)
{
    (void)type;
    (void)e;
    tempo_net *n = user;
    plat_mutex_lock(n->core.lock);
    if (n->state == WS_CONNECTING)
        n->state = WS_OPEN;
    plat_mutex_unlock(n->core.lock);
    n->connected_pending = true;
    pump_rx(n);
    return EM_TRUE;
}

static EM_BOOL on_message(int type, const EmscriptenWebSocketMessageEvent *e, void *user)
{
    (void)type;
    tempo_net *n = user;
    if (!n->reading)
        return EM_TRUE;
    if (e->isText) {
        end_with(n, true, true, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                 "malformed stream: a text message (%" PRIu32 " bytes) from %s: the bridge must send binary",
                 e->numBytes, n->url);
        pump_rx(n);
        return EM_TRUE;
    }
    plat_mutex_lock(n->core.lock);
    n->core.st.received_bytes += e->numBytes;
    plat_mutex_unlock(n->core.lock);
    if (n->rx_len + e->numBytes > n->rx_max) {
        end_with(n, false, true, TEMPO_NET_MSG_ERROR, TEMPO_ENOMEM,
                 "receive backlog over %zu bytes: the loop does not drain the queue (%zu waiting)", n->rx_max,
                 n->rx_len + e->numBytes);
        pump_rx(n);
        return EM_TRUE;
    }
    if (n->rx_len + e->numBytes > n->rx_cap) {
        size_t cap = n->rx_cap * 2;
        while (cap < n->rx_len + e->numBytes)
            cap *= 2;
        uint8_t *p = realloc(n->rx, cap);
        if (p == NULL) {
            end_with(n, false, true, TEMPO_NET_MSG_ERROR, TEMPO_ENOMEM, "no memory for a %zu-byte receive backlog", cap);
            pump_rx(n);
            return EM_TRUE;
        }
        n->rx = p;
        n->rx_cap = cap;
    }
    memcpy(n->rx + n->rx_len, e->data, e->numBytes);
    n->rx_len += e->numBytes;
    pump_rx(n);
    return EM_TRUE;
}

static EM_BOOL on_close(int type, const EmscriptenWebSocketCloseEvent *e, void *user)
{
    (void)type;
    tempo_net *n = user;
    plat_mutex_lock(n->core.lock);
    bool opened = n->state != WS_CONNECTING;
    uint64_t frames = n->core.st.frames_received;
    plat_mutex_unlock(n->core.lock);
    /* Frames still in the backlog count: they were received whole. */
    size_t off = 0;
    int r;
    tempo__frame f;
    while ((r = tempo__frame_decode(n->rx + off, n->rx_len - off, &n->core.lim, &f, NULL)) > 0) {
        off += (size_t)r;
        frames++;
    }
    /* 1000 is an orderly close (websockify's "Target closed": the TCP
     * server closed between frames). wasClean is not: websockify closes its
     * socket right after its close frame, and the browser then calls the
     * close unclean. Every other code is an error with the code in it (1006:
     * the connection dropped without a close frame, e.g. the bridge died). */
    char reason[64] = "";
    if (e->reason[0])
        snprintf(reason, sizeof reason, ", \"%.50s\"", e->reason);
    if (!opened)
        end_with(n, false, false, TEMPO_NET_MSG_ERROR, TEMPO_EIO,
                 "cannot connect to %s: closed (code %u%s) before it opened (is the bridge up?)", n->url,
                 (unsigned)e->code, reason);
    else if (e->code == 1000 && r == 0 && off < n->rx_len)
        end_with(n, false, false, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                 "malformed stream: connection ended inside a frame (truncated; %zu bytes of it received)",
                 n->rx_len - off);
    else if (e->code == 1000)
        end_with(n, false, false, TEMPO_NET_MSG_CLOSED, 0, "closed by the peer (WebSocket code 1000%s)", reason);
    else
        end_with(n, false, false, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "WebSocket to %s closed (code %u%s) after %" PRIu64 " frames",
                 n->url, (unsigned)e->code, reason, frames);
    pump_rx(n);
    return EM_TRUE;
}

static EM_BOOL on_error(int type, const EmscriptenWebSocketErrorEvent *e, void *user)
{
    (void)type;
    (void)e;
    (void)user;
    return EM_TRUE; /* the browser follows every error with a close: reported there, with its code */
}

tempo_net *tempo_net_create(const tempo_net_desc *desc)
{
    if (tempo__net_check_desc(desc) != 0)
        return NULL;
    if (!emscripten_is_main_browser_thread()) {
        tempo__set_error(TEMPO_EINVAL, "tempo_net_create: call it on the page's main thread (the loop thread): "
                                       "the WebSocket's events arrive there");
        return NULL;
    }
    if (!emscripten_websocket_is_supported()) {
        tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "tempo_net_create: this browser has no WebSocket");
        return NULL;
    }
    tempo_net *n = calloc(1, sizeof *n);
    if (n == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_create: out of memory");
        return NULL;
    }
    int setup = tempo__net_core_setup(&n->core, desc);
    /* An IPv6 literal goes in brackets in a URL. */
    bool v6 = strchr(n->core.host, ':') != NULL && n->core.host[0] != '[';
    snprintf(n->url, sizeof n->url, "ws://%s%s%s:%u/", v6 ? "[" : "", n->core.host, v6 ? "]" : "", (unsigned)n->core.port);
    n->rx_cap = TEMPO_NET_HEADER_BYTES + n->core.lim.max_payload;
    n->rx_max = BACKLOG_FACTOR * n->rx_cap > MIN_BACKLOG ? BACKLOG_FACTOR * n->rx_cap : MIN_BACKLOG;
    n->rx = malloc(n->rx_cap);
    n->core.tx = malloc(n->core.tx_cap);
    n->reading = true;
    n->state = WS_CONNECTING;
    if (n->rx == NULL || n->core.tx == NULL || setup != 0) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_create: out of memory (a %zu-byte send queue)", n->core.tx_cap);
        goto fail;
    }
    EmscriptenWebSocketCreateAttributes attr;
    emscripten_websocket_init_create_attributes(&attr);
    attr.url = n->url;
    attr.protocols = "binary";
    attr.createOnMainThread = EM_TRUE;
    EMSCRIPTEN_WEBSOCKET_T ws = emscripten_websocket_new(&attr);
    if (ws <= 0) {
        tempo__set_error(TEMPO_EPLATFORM, "tempo_net_create: new WebSocket(\"%s\") failed (emscripten result %d)",
                         n->url, (int)ws);
        goto fail;
    }
    n->ws = ws;
    emscripten_websocket_set_onopen_callback(ws, n, on_open);
    emscripten_websocket_set_onmessage_callback(ws, n, on_message);
    emscripten_websocket_set_onclose_callback(ws, n, on_close);
    emscripten_websocket_set_onerror_callback(ws, n, on_error);
    n->next = g_nets;
    g_nets = n;
    return n;
fail:
    tempo_net_destroy(n);
    return NULL;
}

void tempo_net_destroy(tempo_net *n)
{
    if (n == NULL)
        return;
    tempo__net_core_detach_for_destroy(&n->core);
    for (tempo_net **p = &g_nets; *p; p = &(*p)->next) {
        if (*p == n) {
            *p = n->next;
            break;
        }
    }
    if (n->timer_id != 0)
        emscripten_clear_timeout(n->timer_id);
    if (n->ws > 0) {
        /* The flush: the browser sends what it is given before the close
         * frame, after this returns (a page cannot wait here). What the
         * ring holds goes to it whole; only a connection that is not open
         * loses bytes, and nobody but the log can see those. */
        plat_mutex_lock(n->core.lock);
        bool open = n->state == WS_OPEN;
        plat_mutex_unlock(n->core.lock);
        if (open) {
            while (n->core.tx_len > 0) {
                size_t chunk = n->core.tx_len < n->core.tx_cap - n->core.tx_head ? n->core.tx_len : n->core.tx_cap - n->core.tx_head;
                if (emscripten_websocket_send_binary(n->ws, n->core.tx + n->core.tx_head, (uint32_t)chunk) !=
                    EMSCRIPTEN_RESULT_SUCCESS)
                    break;
                n->core.tx_head = (n->core.tx_head + chunk) % n->core.tx_cap;
                n->core.tx_len -= chunk;
            }
        }
        if (n->core.tx_len > 0)
            tempo__log(TEMPO_LOG_WARN, "tempo_net_destroy %s: %zu queued bytes not written: the WebSocket never opened",
                       n->url, n->core.tx_len);
        emscripten_websocket_close(n->ws, 1000, "tempo_net_destroy");
        emscripten_websocket_delete(n->ws); /* no callback runs after this */
    }
    free(n->rx);
    tempo__net_core_free(&n->core);
    free(n);
}

/* [lock held] tempo_net_send's view of the connection: a frame waits for
 * the open, and fails once CLOSED or ERROR was reported. */
static int ws_send_state(tempo__net_core *c)
{
    tempo_net *n = (tempo_net *)(void *)c;
    return n->state == WS_ENDED ? TEMPO_EIO : n->state == WS_CONNECTING ? TEMPO_EBUSY : 0;
}

int tempo_net_send(tempo_net *n, uint16_t type, const void *data, size_t size)
{
    int r = tempo__net_core_send(n, type, data, size, ws_send_state, NULL);
    /* Queued: the browser gets it now on the main thread, or the main
     * thread is asked to hand it over (a send from a Worker). */
    if (r == 0) {
        if (emscripten_is_main_browser_thread())
            pump_tx(n);
        else
            emscripten_async_run_in_main_runtime_thread(EM_FUNC_SIG_V, pump_all);
    }
    return r;
}
