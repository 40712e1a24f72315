/* Tempo: a network client thread that feeds a tempo_netq and sends from a
 * bounded queue (optional module, built when SDL2_net is found: meson option
 * `net`). On the web backend (-Dplatform=web) a browser page has no TCP
 * sockets: there the same API speaks WebSocket (framework/net_ws.c) to
 * ws://host:port/, a WebSocket-to-TCP bridge (websockify) in front of the
 * unchanged TCP server, with the same frames, queue semantics and errors;
 * the differences are listed under "On the web" below (docs/web.md).
 *
 *   tempo_netq *q = tempo_netq_create(NULL);
 *   tempo_net *net = tempo_net_create(&(tempo_net_desc){
 *       .host = "127.0.0.1", .port = 7777, .queue = q, .max_type = MSG_LAST });
 *   // loop thread: drain q as usual; the handler sees the frames' types and
 *   // payloads, plus TEMPO_NET_MSG_CONNECTED / _CLOSED / _ERROR.
 *   tempo_net_send(net, MSG_MOVE, &move, sizeof move);  // returns at once
 *   tempo_net_destroy(net);   // before the queue; flushes for <= 1 s
 *   tempo_netq_destroy(q);
 *
 * Receiving. The thread connects, then reads length-prefixed frames from the
 * TCP socket and pushes each one as a message (its type, its payload). It
 * blocks in the OS while nothing arrives (no polling) and, when the receive
 * queue (desc.queue) is full, waits for room without reading, so TCP flow
 * control slows the sender down: nothing is dropped. (While it waits for
 * room it does not write either: writing resumes as soon as the loop drains
 * the queue.) Anything wrong with the connection or the stream ends the
 * connection and is reported to the loop thread in order, after the frames
 * that came before it, as a TEMPO_NET_MSG_ERROR message (and
 * tempo_net_error()); the decoder never reads past what it received.
 *
 * Sending never blocks. tempo_net_send() copies the whole frame (header and
 * payload) into a bounded send queue, desc.send_cap_bytes (default 4 MiB,
 * allocated and its pages touched once, by the network thread before it
 * connects, so neither tempo_net_create's caller nor a send pays for them),
 * and returns: 0 when queued, TEMPO_EFULL when
 * the frame does not fit now. A frame is queued whole or not at all, and
 * nothing queued is dropped silently. The network thread writes the queue
 * to the non-blocking socket in order, as fast as the peer reads, waiting in
 * the OS for "writable" and "readable" at once, so it keeps reading while a
 * slow peer holds up writes and keeps writing while frames arrive. A peer
 * that stops reading makes the queue fill and sends return TEMPO_EFULL (the
 * game decides: retry next tick, drop its own low-priority frames, or
 * disconnect); the loop thread never waits. TEMPO_EFULL counts in
 * tempo_net_stats.sends_full. 0 means queued, not delivered: frames still
 * queued when the connection ends (CLOSED, ERROR) are discarded and counted
 * in tempo_net_stats.dropped_bytes, and from that moment every send fails.
 *
 * Shutdown flushes with a bound. tempo_net_destroy() stops reading, lets the
 * thread write what is queued for at most desc.flush_timeout_ns (default
 * 1 s), then closes. A peer that reads drains the queue in that time; one
 * that does not costs the caller at most the bound (plus the OS's close),
 * and the unwritten byte count is logged (WARN: nothing else can report
 * it).
 *
 * Wire format, every frame:
 *   bytes 0-3  payload length, unsigned 32-bit big-endian. Malformed if the
 *              top bit is set (a negative length to a signed reader) or it
 *              is above max_payload_bytes;
 *   bytes 4-5  type, 16-bit big-endian; malformed unless 1 <= type <= max_type;
 *   bytes 6-7  reserved, must be 0 (room for flags later);
 *   then the payload. A stream that ends inside a frame is malformed too.
 *
 * On the web (framework/net_ws.c). desc.host and desc.port name the bridge;
 * the page connects to ws://host:port/ (subprotocol "binary"), and the
 * bridge forwards the byte stream, so WebSocket message boundaries mean
 * nothing: frames are reassembled as from TCP. There is no network thread:
 * the WebSocket's events run on the page's main thread between the loop's
 * frames (create and destroy there: the loop thread), and the loop sees a
 * message at its next frame. A full receive queue cannot slow a WebSocket
 * down: received bytes wait in a backlog (at least 16 MiB, 4 x the largest
 * frame above that) and are pushed as the loop drains room; a backlog over
 * that bound ends the connection with ERROR TEMPO_ENOMEM. Sends go to the
 * browser while it holds under 64 KiB unsent, the rest waits in the send
 * queue (so TEMPO_EFULL works as natively). The peer's close with WebSocket
 * code 1000 (websockify's "Target closed": the TCP server closed) is CLOSED;
 * any other close is ERROR TEMPO_EIO naming the URL, the code and the
 * frames received ("WebSocket to ws://127.0.0.1:7778/ closed (code 1006)
 * after 12 frames": 1006 is a dropped connection, e.g. a dead bridge), and
 * one before the socket opened is "cannot connect to ws://...: closed
 * (code 1006) before it opened". tempo_net_destroy hands what is queued to
 * the browser, which sends it before its close frame after destroy
 * returned: a page cannot wait, so flush_timeout_ns is not used.
 *
 * Logging (tempo/base.h): the failures of tempo_net_send() and the end of
 * a connection reach the caller (a return value, an ERROR message), so they
 * are logged at DEBUG only; a game that keeps sending to a peer that left
 * floods nothing. A bad descriptor (misuse) is logged at WARN, and so is
 * what nobody else can see: bytes destroy's flush could not write.
 */
#ifndef TEMPO_NET_H
#define TEMPO_NET_H

#include "base.h"
#include "netq.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_NET_HEADER_BYTES 8
/* The largest max_payload_bytes accepted (the receive buffer is this big). */
#define TEMPO_NET_MAX_PAYLOAD (UINT32_C(1) << 24)

/* Message types the network thread pushes about the connection itself. They
 * are above 0xFFFF, so no frame type can be mistaken for one. Each carries a
 * tempo_net_status payload. */
enum {
    TEMPO_NET_MSG_CONNECTED = 0x10000, /* code 0 */
    TEMPO_NET_MSG_CLOSED = 0x10001,    /* the peer closed between frames: code 0 */
    TEMPO_NET_MSG_ERROR = 0x10002      /* code: TEMPO_EIO (resolve, connect,
                                          a receive, send or wait that
                                          failed: the detail says what
                                          happened, e.g. "receive failed:
                                          connection reset by the peer
                                          (ECONNRESET, errno 104: ...)",
                                          with the OS's error name, number
                                          and text; a connect also names
                                          host:port, and refused (nobody
                                          listens: the server is not up
                                          yet) reads "connection refused
                                          ... (ECONNREFUSED, ...)" where the
                                          OS's error outlives SDL_net's
                                          failed connect (POSIX; on Windows
                                          SDL_net's own text follows),
                                          TEMPO_EFORMAT (malformed stream:
                                          what was wrong, then the header's
                                          length and type next to this
                                          connection's limits), TEMPO_ENOMEM
                                          (no memory for the send queue,
                                          before connecting), TEMPO_ENOTSUP
                                          (an SDL_net whose socket struct
                                          Tempo cannot read: it needs the
                                          OS socket to send without
                                          blocking) */
};

typedef struct tempo_net_status {
    int32_t code;      /* 0 or a TEMPO_E* code */
    char detail[124];  /* NUL-terminated English text: what happened and the
                          OS's error text (SDL_net's for a name that does
                          not resolve, with the name); may be cut at 123
                          bytes */
} tempo_net_status;

typedef struct tempo_net tempo_net;
typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

typedef struct tempo_net_desc {
    const char *host;           /* NULL => "127.0.0.1"; copied */
    uint16_t port;              /* required */
    tempo_netq *queue;          /* required; not owned; must outlive the
                                   tempo_net */
    uint32_t max_payload_bytes; /* 0 => 65536; at most TEMPO_NET_MAX_PAYLOAD */
    uint16_t max_type;          /* 0 => 255: frame types 1..max_type are valid */
    size_t send_cap_bytes;      /* 0 => 4 MiB: the send queue, in bytes of
                                   frames (8-byte header + payload each);
                                   64 .. 1 GiB; allocated once, by the
                                   network thread before it connects (an
                                   ERROR message, TEMPO_ENOMEM, if it
                                   cannot be) */
    uint64_t flush_timeout_ns;  /* 0 => 1 s: the most tempo_net_destroy()
                                   waits for queued frames to be written
                                   (1 => practically no flush) */
} tempo_net_desc;

/* Counters of one tempo_net (tempo_net_get_stats). Bytes are frame bytes,
 * headers included. At any time:
 *   queued_bytes_total == sent_bytes + queued_bytes + dropped_bytes. */
typedef struct tempo_net_stats {
    /* Now. */
    size_t queued_bytes;        /* in the send queue, not yet taken by the OS */
    size_t send_cap_bytes;      /* the send queue's capacity */
    size_t peak_queued_bytes;   /* most queued at once */
    /* Since tempo_net_create(). */
    uint64_t frames_queued;     /* tempo_net_send() calls that returned 0 */
    uint64_t queued_bytes_total; /* their bytes */
    uint64_t sends_full;        /* tempo_net_send() calls refused: TEMPO_EFULL */
    uint64_t sent_bytes;        /* written to the socket (taken by the OS) */
    uint64_t dropped_bytes;     /* queued but never written: the connection
                                   ended with them still queued */
    uint64_t received_bytes;    /* read from the socket */
    uint64_t frames_received;   /* frames pushed into the receive queue */
    uint64_t bytes_total;       /* sent_bytes + received_bytes: all the
                                   traffic of the connection */
} tempo_net_stats;

/* Starts the network thread, which connects to host:port and then reads
 * and writes. Returns at once, before the connection is made: the outcome
 * arrives in the queue (CONNECTED or ERROR). Returns the new object, owned
 * by the caller (free it with tempo_net_destroy), or NULL with the detail in
 * tempo_get_error(): TEMPO_EINVAL (NULL desc or queue, port 0, host longer
 * than 255 bytes, max_payload_bytes or send_cap_bytes out of range),
 * TEMPO_ENOMEM, TEMPO_EPLATFORM (SDL_net, its wake socket, the thread),
 * TEMPO_ENOTSUP (an SDL_net whose socket struct Tempo cannot read; on the
 * web, a browser without WebSocket); on the web also TEMPO_EINVAL off the
 * page's main thread, and TEMPO_EPLATFORM when the browser refuses the
 * URL. The
 * strings in desc are copied; desc->queue is borrowed and must outlive the
 * tempo_net. Initialises SDL_net (reference-counted). Thread: the loop
 * thread. */
TEMPO_API tempo_net *tempo_net_create(const tempo_net_desc *desc);

/* Stops reading, writes what the send queue still holds for at most
 * desc.flush_timeout_ns (default 1 s; frames left after that are discarded
 * and their byte count logged at WARN), then stops the thread, closes the
 * connection and frees everything. Frames received but not yet pushed are
 * discarded; messages already pushed stay in the queue. Waits for a connect
 * still in progress (instant on 127.0.0.1; up to the OS connect timeout
 * for an unreachable remote host). Attached (tempo_net_attach,
 * below), it detaches the queue first, so a new tempo_net on the
 * same queue is attached again; from the queue's own handler (a reconnect
 * on CLOSED) the queue stays attached instead. NULL is a no-op. No other
 * thread may be inside tempo_net_send() on it. Thread: the loop thread. */
TEMPO_API void tempo_net_destroy(tempo_net *net);

/* Attaches the network thread's queue (tempo_net_desc.queue) to `loop` as
 * tempo_netq_attach() does: frames and TEMPO_NET_MSG_CONNECTED / _CLOSED /
 * _ERROR reach fn on the loop thread. tempo_net_destroy() detaches the
 * queue (the queue itself outlives the net: tempo_netq_destroy detaches it
 * too), except when called from the queue's own handler (a reconnect on
 * CLOSED): the queue then stays attached and keeps delivering to fn, so
 * give the new net the same queue and do not attach again. Returns as
 * tempo_netq_attach(). Thread: loop thread. */
TEMPO_API int tempo_net_attach(tempo_net *net, tempo_loop *loop, tempo_netq_handler fn, void *user);
/* Detaches the net's queue. Returns as tempo_netq_detach(). Thread: loop
 * thread. */
TEMPO_API int tempo_net_detach(tempo_net *net);

/* Queues one frame (type 1..65535, `size` bytes of `data`, copied: the
 * caller keeps `data`) for the network thread to send, and returns at once:
 * it never waits for the peer or the OS (one copy and a short lock; the
 * first frame into an empty queue also sends a 1-byte datagram to wake the
 * thread). Returns:
 *   0             queued whole; it goes out after the frames queued before it;
 *   TEMPO_EFULL   the send queue has no room for it now: nothing was queued
 *                 (the peer reads slower than the game sends; try later);
 *   TEMPO_ERANGE  8 + size exceeds desc.send_cap_bytes: it can never fit;
 *   TEMPO_EBUSY   not connected yet (before TEMPO_NET_MSG_CONNECTED);
 *   TEMPO_EIO     the connection has ended or never came about (every send
 *                 from the moment CLOSED or ERROR is pushed);
 *   TEMPO_EINVAL  net NULL, type 0, data NULL with size > 0, or size above
 *                 TEMPO_NET_MAX_PAYLOAD.
 * A failure sets the detail for tempo_get_error() and is logged at DEBUG
 * only. Thread: any (sends from several threads are serialised; each
 * frame is queued whole). */
TEMPO_API int tempo_net_send(tempo_net *net, uint16_t type, const void *data, size_t size);

/* 0 while the connection is fine (or still connecting); after it ended, the
 * code of its ERROR message, or TEMPO_ESHUTDOWN after an orderly close.
 * TEMPO_EINVAL for NULL. Thread: any. */
TEMPO_API int tempo_net_error(tempo_net *net);

/* Fills *out with a consistent snapshot of the counters. Returns 0 or
 * TEMPO_EINVAL (NULL argument). Thread: any. */
TEMPO_API int tempo_net_get_stats(tempo_net *net, tempo_net_stats *out);

/* Writes the 8-byte header of a frame with `size` payload bytes and `type`
 * into `out` (for servers and tests speaking the same format). Returns 0, or
 * TEMPO_EINVAL if out is NULL, type is 0 or size has the top bit set.
 * Thread: any. */
TEMPO_API int tempo_net_frame_header(uint8_t out[TEMPO_NET_HEADER_BYTES], uint16_t type, uint32_t size);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_NET_H */
