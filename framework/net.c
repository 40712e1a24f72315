/* The network client thread of tempo/net.h, on SDL2_net and the OS socket.
 *
 * SDL2_net resolves, connects and closes; everything after the connect goes
 * through the OS socket itself (platform/plat_socket.h), because SDL_net
 * has neither non-blocking sockets nor a wait for "writable", and its
 * blocking send is what stalled the loop thread (issue 19). The socket is
 * made non-blocking and the thread blocks in the OS (poll, or select on
 * Winsock) with no timeout on two sockets: the TCP connection, readable
 * always and writable while the send queue holds bytes, and a UDP "wake"
 * socket. A datagram to the wake socket from itself is the portable
 * self-pipe: tempo_net_send sends one when it puts bytes into an empty send
 * queue (the thread was not waiting for "writable"), tempo_net_destroy one
 * to make it look at `stopping`. A stray datagram from elsewhere only makes
 * the thread look around and go back to sleep.
 *
 * The send queue is a byte ring allocated once (desc.send_cap_bytes). Only
 * the head/length indices and counters are under `lock`: tempo_net_send
 * copies a whole frame into the free part, the thread sends from the used
 * part without the lock (the producer never writes there) and then advances
 * the head. So a send costs a copy and two short lock holds, whatever the
 * peer does, and the thread reads while writes are pending and writes while
 * reads are pending (except while tempo_netq_push_wait waits for the loop
 * to make room in the receive queue: see net.h).
 *
 * The OS socket. SDL_net has no getter for it. Its TCP and UDP socket
 * structs (every 2.x release) begin { int ready; SOCKET channel; IPaddress
 * ... }, and the public address getters return a pointer to that IPaddress
 * inside the struct: the descriptor is read only when the address sits
 * exactly where that layout puts it (SOCKET is an int on POSIX,
 * pointer-sized on Win64), so a different layout is reported as an ERROR
 * (TEMPO_ENOTSUP), never a wrong read. With our own poll() there is no
 * FD_SETSIZE limit on POSIX any more (SDL_net's select had one).
 *
 * Ownership: the loop thread creates and destroys; the network thread owns
 * the receive buffer; `sock` is published under `lock` once connected and
 * closed by destroy after the join.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_net.h>

#include "net_core.h"
#include "net_frame.h"
#include "plat_socket.h"
#include "platform.h"
#include "tempo/net.h"
#include "tempo_internal.h"

struct tempo_net {
    tempo__net_core core; /* first: what both transports share (net_core.h) */
    tempo_handle *stop; /* manual-reset: cancels a push_wait in progress */
    atomic_bool stopping;
    plat_thread *thread;
    UDPsocket wake;
    plat_socket wake_fd;

    /* [core.lock] */
    UDPpacket *wake_pkt; /* one byte, addressed to the wake socket */
    TCPsocket sock;      /* NULL until connected */
    plat_socket fd;      /* sock's OS socket */
    bool ended;          /* CLOSED or ERROR reported: sends fail */
    uint64_t flush_deadline_ns;

    /* [network thread] */
    uint8_t *rx;
    size_t rx_cap, rx_fill;
};

/* [lock held] Makes the network thread look at the send queue and
 * `stopping`. A full wake socket drops the datagram: then one is pending
 * already, which is all that is needed. */
static void wake_thread(tempo_net *n)
{
    if (n->wake_pkt)
        SDLNet_UDP_Send(n->wake, -1, n->wake_pkt);
}

/* [network thread] Reports the connection's state to the loop thread,
 * through the queue so it arrives after the frames before it. Waits for room
 * like a frame would; gives up only when the tempo_net is being destroyed
 * (then nobody is listening). From CLOSED or ERROR on, every tempo_net_send
 * fails: `error` and `ended` are set before the message is pushed, so a
 * game that saw the message can never queue a frame that would be lost. */
static void report(tempo_net *n, uint32_t type, int code, const char *fmt, ...) TEMPO__PRINTF(4, 5);
static void report(tempo_net *n, uint32_t type, int code, const char *fmt, ...)
{
    tempo_net_status st = {code, ""};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.detail, sizeof st.detail, fmt, ap);
    va_end(ap);
    if (type != TEMPO_NET_MSG_CONNECTED) {
        atomic_store(&n->core.error, type == TEMPO_NET_MSG_CLOSED ? TEMPO_ESHUTDOWN : code);
        plat_mutex_lock(n->core.lock);
        n->ended = true;
        n->core.st.dropped_bytes += n->core.tx_len;
        n->core.tx_len = 0;
        n->core.tx_head = 0;
        plat_mutex_unlock(n->core.lock);
    }
    /* The game gets this in the ERROR message and from tempo_net_error():
     * a caller-visible outcome, so DEBUG (base.h). */
    if (type == TEMPO_NET_MSG_ERROR)
        tempo__log(TEMPO_LOG_DEBUG, "tempo_net %s:%u: %s: %s", n->core.host, n->core.port, tempo_errname(code), st.detail);
    tempo_netq_push_wait(n->core.q, type, &st, sizeof st, n->stop, TEMPO_INFINITE);
}

/* The OS socket behind an SDL_net socket, or false when it cannot be known
 * (see "The OS socket" at the top). */
static bool socket_of(const void *sock, const IPaddress *inside, plat_socket *out)
{
    struct int_layout {
        int ready;
        int channel;
        IPaddress address;
    };
    struct ptr_layout {
        int ready;
        uintptr_t channel;
        IPaddress address;
    };
    if (sock == NULL || inside == NULL)
        return false;
    ptrdiff_t off = (const char *)inside - (const char *)sock;
    if (off == (ptrdiff_t)offsetof(struct int_layout, address)) {
        int fd;
        memcpy(&fd, (const char *)sock + offsetof(struct int_layout, channel), sizeof fd);
        *out = (plat_socket)fd;
        return fd >= 0;
    }
    if (off == (ptrdiff_t)offsetof(struct ptr_layout, address)) {
        uintptr_t fd;
        memcpy(&fd, (const char *)sock + offsetof(struct ptr_layout, channel), sizeof fd);
        *out = (plat_socket)fd;
        return fd != UINTPTR_MAX; /* INVALID_SOCKET */
    }
    return false;
}

/* [network thread] Pushes every whole frame in the receive buffer and
 * keeps the partial one. Returns false when the stream is malformed (already
 * reported) or the thread must stop reading. */
static bool push_frames(tempo_net *n)
{
    size_t off = 0;
    bool ok = true;
    for (;;) {
        tempo__frame f;
        const char *why = "";
        int r = tempo__frame_decode(n->rx + off, n->rx_fill - off, &n->core.lim, &f, &why);
        if (r == 0)
            break;
        if (r < 0) {
            /* The header as read, next to what this connection accepts. */
            const uint8_t *reserved = n->rx + off + 6;
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                   "malformed stream: %s (length %" PRIu32 ", most %" PRIu32 "; type %u, 1..%u; reserved %02x%02x)",
                   why, f.size, n->core.lim.max_payload, (unsigned)f.type, (unsigned)n->core.lim.max_type, reserved[0],
                   reserved[1]);
            return false;
        }
        /* Counted before the push: a loop that has the frame sees it counted. */
        plat_mutex_lock(n->core.lock);
        n->core.st.frames_received++;
        plat_mutex_unlock(n->core.lock);
        int p = tempo_netq_push_wait(n->core.q, f.type, f.payload, f.size, n->stop, TEMPO_INFINITE);
        if (p != 0) {
            plat_mutex_lock(n->core.lock);
            n->core.st.frames_received--;
            plat_mutex_unlock(n->core.lock);
        }
        if (p == TEMPO_ERANGE) {
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT, "a %u-byte frame can never fit the queue", f.size);
            return false;
        }
        if (p != 0) { /* cancelled by destroy, or the queue was shut down */
            ok = false;
            break;
        }
        off += (size_t)r;
    }
    memmove(n->rx, n->rx + off, n->rx_fill - off);
    n->rx_fill -= off;
    return ok;
}

/* [network thread] Reads what the socket has. Returns false when the
 * connection ended (reported) or the thread must stop reading. */
static bool read_some(tempo_net *n, plat_socket fd)
{
    int err = 0;
    long got = plat_socket_recv(fd, n->rx + n->rx_fill, n->rx_cap - n->rx_fill, &err);
    if (got == PLAT_SOCKET_WOULD_BLOCK)
        return true;
    if (got <= 0) {
        char why[96];
        if (got < 0) {
            plat_socket_describe(err, why, sizeof why);
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "receive failed: %s", why);
        } else if (n->rx_fill > 0) {
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                   "malformed stream: connection ended inside a frame (truncated; %zu bytes of it received)",
                   n->rx_fill);
        } else {
            report(n, TEMPO_NET_MSG_CLOSED, 0, "closed by the peer");
        }
        return false;
    }
    plat_mutex_lock(n->core.lock);
    n->core.st.received_bytes += (uint64_t)got;
    plat_mutex_unlock(n->core.lock);
    n->rx_fill += (size_t)got;
    return push_frames(n);
}

/* [network thread] Writes from the send ring until it is empty or the
 * socket is full. Returns false when the connection failed (reported). */
static bool write_some(tempo_net *n, plat_socket fd)
{
    for (;;) {
        plat_mutex_lock(n->core.lock);
        size_t chunk = n->core.tx_len < n->core.tx_cap - n->core.tx_head ? n->core.tx_len : n->core.tx_cap - n->core.tx_head;
        const uint8_t *p = n->core.tx + n->core.tx_head;
        plat_mutex_unlock(n->core.lock);
        if (chunk == 0)
            return true;
        /* Unlocked: senders only write the free part of the ring. */
        int err = 0;
        long k = plat_socket_send(fd, p, chunk, &err);
        if (k == PLAT_SOCKET_WOULD_BLOCK)
            return true;
        if (k < 0) {
            char why[96];
            plat_socket_describe(err, why, sizeof why);
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "send failed: %s", why);
            return false;
        }
        plat_mutex_lock(n->core.lock);
        n->core.tx_head = (n->core.tx_head + (size_t)k) % n->core.tx_cap;
        n->core.tx_len -= (size_t)k;
        if (n->core.tx_len == 0)
            n->core.tx_head = 0; /* keeps the next frame in one piece when it can */
        n->core.st.sent_bytes += (uint64_t)k;
        plat_mutex_unlock(n->core.lock);
        if ((size_t)k < chunk)
            return true; /* the socket took what fits */
    }
}

/* [network thread] Empties the wake socket (non-blocking). */
static void drain_wake(tempo_net *n)
{
    uint8_t buf[16];
    int err;
    while (plat_socket_recv(n->wake_fd, buf, sizeof buf, &err) >= 0) {
    }
}

/* [network thread] Allocates the send ring and touches every page of it, a mebibyte at a
 * time, so that no send takes a first-touch page fault (or the zeroing of
 * a huge page: up to milliseconds each, measured). On the network thread,
 * before it connects: nothing is queued until the socket is published
 * (tempo_net_send says TEMPO_EBUSY before), and the caller of
 * tempo_net_create does not pay ~0.25 ms per MiB (a 4 MiB ring cost it
 * 1.1 ms on average, 64 MiB 54 ms). False when destroy came first or the
 * memory is not there (reported). */
static bool make_send_ring(tempo_net *n)
{
    n->core.tx = malloc(n->core.tx_cap);
    if (n->core.tx == NULL) {
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_ENOMEM, "no memory for the %zu-byte send queue", n->core.tx_cap);
        return false;
    }
    const size_t chunk = (size_t)1 << 20;
    for (size_t at = 0; at < n->core.tx_cap; at += chunk) {
        if (atomic_load(&n->stopping))
            return false;
        memset(n->core.tx + at, 0, n->core.tx_cap - at < chunk ? n->core.tx_cap - at : chunk);
    }
    return true;
}

/* [network thread] */
static int net_main(void *arg)
{
    tempo_net *n = arg;
    if (!make_send_ring(n))
        return 0;
    IPaddress ip;
    if (SDLNet_ResolveHost(&ip, n->core.host, n->core.port) != 0) {
        /* SDL_net sets no text for a name that does not resolve. */
        const char *why = SDLNet_GetError();
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "cannot resolve \"%s\"%s%s", n->core.host, why[0] ? ": " : "", why);
        return 0;
    }
    plat_socket_clear_error();
    TCPsocket s = SDLNet_TCP_Open(&ip);
    if (s == NULL) {
        /* SDL_net's text ("Couldn't connect to remote host") does not say
         * why: the OS's error, left by its failed connect, does (refused:
         * nobody listens; timed out; unreachable). */
        int e = plat_socket_last_error();
        char why[160];
        if (e != 0)
            plat_socket_describe(e, why, sizeof why);
        else
            snprintf(why, sizeof why, "%s", SDLNet_GetError());
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "cannot connect to %s:%u: %s", n->core.host, (unsigned)n->core.port, why);
        return 0;
    }
    plat_socket fd;
    if (!socket_of(s, SDLNet_TCP_GetPeerAddress(s), &fd)) {
        SDLNet_TCP_Close(s); /* never published: tempo_net_send reports EIO */
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_ENOTSUP, "this SDL_net's TCPsocket layout is unknown: no OS socket");
        return 0;
    }
    int e = plat_socket_set_nonblocking(fd);
    if (e != 0) {
        char why[96];
        plat_socket_describe(e, why, sizeof why);
        SDLNet_TCP_Close(s);
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "non-blocking: %s", why);
        return 0;
    }
    plat_mutex_lock(n->core.lock);
    n->sock = s;
    n->fd = fd;
    plat_mutex_unlock(n->core.lock);
    report(n, TEMPO_NET_MSG_CONNECTED, 0, "connected");

    bool reading = true;
    for (;;) {
        bool stopping = atomic_load(&n->stopping);
        plat_mutex_lock(n->core.lock);
        size_t pending = n->core.tx_len;
        uint64_t flush_deadline = n->flush_deadline_ns;
        plat_mutex_unlock(n->core.lock);
        uint64_t timeout = UINT64_MAX; /* the wake datagram ends the wait */
        if (stopping) {
            /* Destroy: no more reading, write what is queued until the
             * flush deadline. */
            uint64_t now = tempo_now_ns();
            if (pending == 0 || now >= flush_deadline)
                break;
            timeout = flush_deadline - now;
            reading = false;
        }
        /* Not reading (the receive queue was shut down) and nothing to
         * write: this waits on the wake socket alone, for a send or destroy. */
        int err = 0;
        int ready = plat_socket_wait(fd, reading, pending > 0, n->wake_fd, timeout, &err);
        if (ready < 0) {
            char why[96];
            plat_socket_describe(err, why, sizeof why);
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "wait failed: %s", why);
            break;
        }
        if (ready & PLAT_SOCKET_WAKE)
            drain_wake(n);
        if ((ready & PLAT_SOCKET_WRITABLE) && !write_some(n, fd))
            break;
        if ((ready & PLAT_SOCKET_READABLE) && !read_some(n, fd)) {
            if (atomic_load(&n->core.error) != 0)
                break; /* the connection ended */
            reading = false; /* cancelled by destroy or queue shut down: keep flushing */
        }
    }
    return 0;
}

tempo_net *tempo_net_create(const tempo_net_desc *desc)
{
    if (tempo__net_check_desc(desc) != 0)
        return NULL;
    if (SDLNet_Init() != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "SDLNet_Init: %s", SDLNet_GetError());
        return NULL;
    }
    tempo_net *n = calloc(1, sizeof *n);
    if (n == NULL) {
        SDLNet_Quit();
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_create: out of memory");
        return NULL;
    }
    int setup = tempo__net_core_setup(&n->core, desc);
    n->rx_cap = TEMPO_NET_HEADER_BYTES + n->core.lim.max_payload;
    n->rx = malloc(n->rx_cap);
    /* n->core.tx: allocated by the network thread (make_send_ring). */
    n->stop = tempo_event_create(true, false);
    atomic_init(&n->stopping, false);
    if (n->rx == NULL || setup != 0) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_create: out of memory");
        goto fail;
    }
    if (n->stop == NULL)
        goto fail;
    n->wake = SDLNet_UDP_Open(0);
    IPaddress *bound = n->wake ? SDLNet_UDP_GetPeerAddress(n->wake, -1) : NULL;
    n->wake_pkt = SDLNet_AllocPacket(1);
    if (bound == NULL || n->wake_pkt == NULL ||
        SDLNet_ResolveHost(&n->wake_pkt->address, "127.0.0.1", SDLNet_Read16(&bound->port)) != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "tempo_net_create: wake socket: %s", SDLNet_GetError());
        goto fail;
    }
    n->wake_pkt->len = 1;
    n->wake_pkt->data[0] = 0;
    int e = 0;
    if (!socket_of(n->wake, bound, &n->wake_fd)) {
        tempo__set_error(TEMPO_ENOTSUP, "tempo_net_create: this SDL_net's UDPsocket layout is unknown");
        goto fail;
    }
    if ((e = plat_socket_set_nonblocking(n->wake_fd)) != 0) {
        char why[96];
        plat_socket_describe(e, why, sizeof why);
        tempo__set_error(TEMPO_EPLATFORM, "tempo_net_create: wake socket: %s", why);
        goto fail;
    }
    n->thread = plat_thread_create(net_main, "tempo-net", n);
    if (n->thread == NULL)
        goto fail;
    return n;
fail:
    tempo_net_destroy(n);
    return NULL;
}

void tempo_net_destroy(tempo_net *n)
{
    if (n == NULL)
        return;
    /* It leaves the loop it was attached to (the queue does; the queue
     * itself outlives the net). From the queue's own handler the queue
     * cannot leave: it stays attached (see tempo_net_attach). */
    tempo__net_core_detach_for_destroy(&n->core);
    if (n->thread) {
        uint64_t now = tempo_now_ns();
        plat_mutex_lock(n->core.lock);
        n->flush_deadline_ns = now + n->core.flush_timeout_ns < now ? UINT64_MAX : now + n->core.flush_timeout_ns;
        plat_mutex_unlock(n->core.lock);
        atomic_store(&n->stopping, true);
        tempo_event_set(n->stop); /* ends a push_wait for room in the receive queue */
        plat_mutex_lock(n->core.lock);
        wake_thread(n);
        plat_mutex_unlock(n->core.lock);
        plat_thread_join(n->thread);
        if (n->core.tx_len > 0) /* nobody can see this but the log */
            tempo__log(TEMPO_LOG_WARN,
                       "tempo_net_destroy %s:%u: %zu queued bytes not written: the peer read nothing for the "
                       "flush bound (%.0f ms)",
                       n->core.host, n->core.port, n->core.tx_len, (double)n->core.flush_timeout_ns / 1e6);
    }
    if (n->sock)
        SDLNet_TCP_Close(n->sock);
    if (n->wake)
        SDLNet_UDP_Close(n->wake);
    if (n->wake_pkt)
        SDLNet_FreePacket(n->wake_pkt);
    tempo_event_destroy(n->stop);
    free(n->rx);
    tempo__net_core_free(&n->core);
    free(n);
    SDLNet_Quit();
}

/* [lock held] tempo_net_send's view of the connection: a frame waits for
 * the connect, and fails once CLOSED or ERROR was reported. */
static int tcp_state(tempo__net_core *c)
{
    tempo_net *n = (tempo_net *)(void *)c;
    return n->ended ? TEMPO_EIO : n->sock == NULL ? TEMPO_EBUSY : 0;
}

/* [lock held] A frame went into an empty ring: the thread is not waiting
 * for "writable", so it is woken. */
static void tcp_queued(tempo__net_core *c, bool was_empty)
{
    if (was_empty)
        wake_thread((tempo_net *)(void *)c);
}

int tempo_net_send(tempo_net *n, uint16_t type, const void *data, size_t size)
{
    return tempo__net_core_send(n, type, data, size, tcp_state, tcp_queued);
}
