/* Tempo: a network client thread that feeds a tempo_netq (optional module,
 * built when SDL2_net is found: meson option `net`).
 *
 *   tempo_netq *q = tempo_netq_create(NULL);
 *   tempo_net *net = tempo_net_connect(&(tempo_net_desc){
 *       .host = "127.0.0.1", .port = 7777, .queue = q, .max_type = MSG_LAST });
 *   // loop thread: drain q as usual; the handler sees the frames' types and
 *   // payloads, plus TEMPO_NET_MSG_CONNECTED / _CLOSED / _ERROR.
 *   tempo_net_destroy(net);   // before the queue
 *   tempo_netq_destroy(q);
 *
 * The thread connects, then reads length-prefixed frames from the TCP
 * socket and pushes each one as a message (its type, its payload). It blocks
 * in the OS while nothing arrives (no polling) and, when the queue is full,
 * waits for room without reading, so TCP flow control slows the sender down:
 * nothing is dropped. Anything wrong with the connection or the stream ends
 * the reading and is reported to the loop thread in order, after the frames
 * that came before it, as a TEMPO_NET_MSG_ERROR message (and
 * tempo_net_error()); the decoder never reads past what it received.
 *
 * Wire format, every frame:
 *   bytes 0-3  payload length, unsigned 32-bit big-endian. Malformed if the
 *              top bit is set (a negative length to a signed reader) or it
 *              is above max_payload_bytes;
 *   bytes 4-5  type, 16-bit big-endian; malformed unless 1 <= type <= max_type;
 *   bytes 6-7  reserved, must be 0 (room for flags later);
 *   then the payload. A stream that ends inside a frame is malformed too.
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
    TEMPO_NET_MSG_ERROR = 0x10002      /* code: TEMPO_EIO (connect, resolve,
                                          socket; also a socket that SDL_net's
                                          select() cannot watch because the
                                          process has too many files open:
                                          POSIX FD_SETSIZE, 1024, is in the
                                          detail), TEMPO_EFORMAT (malformed
                                          stream); detail says what */
};

typedef struct tempo_net_status {
    int32_t code;      /* 0 or a TEMPO_E* code */
    char detail[124];  /* NUL-terminated English text (SDL_net's error text
                          for socket failures) */
} tempo_net_status;

typedef struct tempo_net tempo_net;

typedef struct tempo_net_desc {
    const char *host;           /* NULL => "127.0.0.1"; copied */
    uint16_t port;              /* required */
    tempo_netq *queue;          /* required; not owned; must outlive the
                                   tempo_net */
    uint32_t max_payload_bytes; /* 0 => 65536; at most TEMPO_NET_MAX_PAYLOAD */
    uint16_t max_type;          /* 0 => 255: frame types 1..max_type are valid */
} tempo_net_desc;

/* Starts the network thread, which connects to host:port and then reads.
 * Returns at once, before the connection is made: the outcome arrives in the
 * queue (CONNECTED or ERROR). Returns the new object, owned by the caller, or
 * NULL (invalid descriptor, SDL_net or thread start failure; detail in
 * tempo_get_error()). Initialises SDL_net (reference-counted).
 * Thread: the loop thread. */
TEMPO_API tempo_net *tempo_net_connect(const tempo_net_desc *desc);

/* Stops the thread and closes the connection; frames not yet pushed are
 * discarded, messages already pushed stay in the queue. NULL is a no-op.
 * Waits for a connect still in progress (instant on 127.0.0.1; up to the
 * OS connect timeout for an unreachable remote host). Thread: the loop
 * thread. */
TEMPO_API void tempo_net_destroy(tempo_net *net);

/* Sends one frame (type 1..65535, `size` bytes of `data`) to the peer,
 * blocking until the OS accepted it. Returns 0, TEMPO_EINVAL (bad arguments,
 * size above TEMPO_NET_MAX_PAYLOAD), TEMPO_EBUSY (not connected yet) or
 * TEMPO_EIO (the connection failed or was closed; detail in
 * tempo_get_error()). Thread: any (sends are serialised). */
TEMPO_API int tempo_net_send(tempo_net *net, uint16_t type, const void *data, size_t size);

/* 0 while the connection is fine (or still connecting); after it ended, the
 * code of its ERROR message, or TEMPO_ESHUTDOWN after an orderly close.
 * Thread: any. */
TEMPO_API int tempo_net_error(tempo_net *net);

/* Writes the 8-byte header of a frame with `size` payload bytes and `type`
 * into `out` (for servers and tests speaking the same format). Returns 0, or
 * TEMPO_EINVAL if out is NULL, type is 0 or size has the top bit set.
 * Thread: any. */
TEMPO_API int tempo_net_frame_header(uint8_t out[TEMPO_NET_HEADER_BYTES], uint16_t type, uint32_t size);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_NET_H */
