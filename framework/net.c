/* The network client thread of tempo/net.h, on SDL2_net.
 *
 * The thread blocks in SDLNet_CheckSockets() with no timeout on two
 * sockets: the TCP connection and a UDP "wake" socket. To stop it,
 * tempo_net_destroy() sets `stopping` and sends one datagram to the wake
 * socket from itself. SDL2_net offers no shutdown() and no way to interrupt
 * a blocked select; a datagram to ourselves is the portable self-pipe (the
 * wake socket is bound to an ephemeral port; a stray datagram from elsewhere
 * only makes the thread look at `stopping` and go back to sleep).
 *
 * Ownership: the loop thread creates and destroys; the network thread owns
 * the receive buffer and the socket set; `sock` is published under
 * send_lock once connected, for tempo_net_send() from any thread, and closed
 * by destroy after the join.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_net.h>

#include "net_frame.h"
#include "platform.h"
#include "tempo/net.h"
#include "tempo_internal.h"

struct tempo_net {
    tempo_netq *q;
    char host[256];
    uint16_t port;
    tempo__frame_limits lim;
    tempo_handle *stop; /* manual-reset: cancels a push_wait in progress */
    atomic_bool stopping;
    atomic_int error; /* 0, or the code that ended the connection */
    plat_thread *thread;
    UDPsocket wake;
    IPaddress wake_to; /* 127.0.0.1:<wake port> */

    plat_mutex *send_lock;
    TCPsocket sock; /* [send_lock] NULL until connected */
    bool send_failed;

    /* [network thread] */
    uint8_t *rx;
    size_t rx_cap, rx_fill;
};

/* [network thread] Reports the connection's state to the loop thread,
 * through the queue so it arrives after the frames before it. Waits for room
 * like a frame would; gives up only when the tempo_net is being destroyed
 * (then nobody is listening). */
static void report(tempo_net *n, uint32_t type, int code, const char *fmt, ...) TEMPO__PRINTF(4, 5);
static void report(tempo_net *n, uint32_t type, int code, const char *fmt, ...)
{
    tempo_net_status st = {code, ""};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.detail, sizeof st.detail, fmt, ap);
    va_end(ap);
    if (type != TEMPO_NET_MSG_CONNECTED)
        atomic_store(&n->error, type == TEMPO_NET_MSG_CLOSED ? TEMPO_ESHUTDOWN : code);
    if (type == TEMPO_NET_MSG_ERROR)
        tempo__set_error(code, "tempo_net %s:%u: %s", n->host, n->port, st.detail);
    tempo_netq_push_wait(n->q, type, &st, sizeof st, n->stop, TEMPO_INFINITE);
}

/* [network thread] Pushes every whole frame in the receive buffer and
 * keeps the partial one. Returns false when the stream is malformed (already
 * reported) or the thread must stop. */
static bool push_frames(tempo_net *n)
{
    size_t off = 0;
    bool ok = true;
    while (ok) {
        tempo__frame f;
        const char *why = "";
        int r = tempo__frame_decode(n->rx + off, n->rx_fill - off, &n->lim, &f, &why);
        if (r == 0)
            break;
        if (r < 0) {
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT, "malformed stream: %s", why);
            return false;
        }
        int p = tempo_netq_push_wait(n->q, f.type, f.payload, f.size, n->stop, TEMPO_INFINITE);
        if (p == TEMPO_ERANGE) {
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT, "a %u-byte frame can never fit the queue", f.size);
            return false;
        }
        if (p != 0) /* cancelled, shut down: stop quietly */
            return false;
        off += (size_t)r;
    }
    memmove(n->rx, n->rx + off, n->rx_fill - off);
    n->rx_fill -= off;
    return ok;
}

/* [network thread] */
static int net_main(void *arg)
{
    tempo_net *n = arg;
    IPaddress ip;
    if (SDLNet_ResolveHost(&ip, n->host, n->port) != 0) {
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "cannot resolve: %s", SDLNet_GetError());
        return 0;
    }
    TCPsocket s = SDLNet_TCP_Open(&ip);
    if (s == NULL) {
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "cannot connect: %s", SDLNet_GetError());
        return 0;
    }
    plat_mutex_lock(n->send_lock);
    n->sock = s;
    plat_mutex_unlock(n->send_lock);

    SDLNet_SocketSet set = SDLNet_AllocSocketSet(2);
    if (set == NULL) {
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "socket set: %s", SDLNet_GetError());
        return 0;
    }
    SDLNet_TCP_AddSocket(set, s);
    SDLNet_UDP_AddSocket(set, n->wake);
    UDPpacket *pkt = SDLNet_AllocPacket(16);
    if (pkt == NULL) {
        report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "packet: %s", SDLNet_GetError());
        SDLNet_FreeSocketSet(set);
        return 0;
    }
    report(n, TEMPO_NET_MSG_CONNECTED, 0, "connected");

    while (!atomic_load(&n->stopping)) {
        /* No timeout: the wake datagram ends the wait. */
        int ready = SDLNet_CheckSockets(set, UINT32_MAX);
        if (ready < 0) {
            report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "select: %s", SDLNet_GetError());
            break;
        }
        if (SDLNet_SocketReady(n->wake)) {
            while (SDLNet_UDP_Recv(n->wake, pkt) > 0) {
            }
            continue; /* re-check `stopping` */
        }
        if (!SDLNet_SocketReady(s))
            continue;
        int got = SDLNet_TCP_Recv(s, n->rx + n->rx_fill, (int)(n->rx_cap - n->rx_fill));
        if (got <= 0) {
            if (atomic_load(&n->stopping))
                break;
            if (n->rx_fill > 0)
                report(n, TEMPO_NET_MSG_ERROR, TEMPO_EFORMAT,
                       "malformed stream: connection ended inside a frame (truncated; %zu bytes of it received)",
                       n->rx_fill);
            else if (got == 0)
                report(n, TEMPO_NET_MSG_CLOSED, 0, "closed by the peer");
            else
                report(n, TEMPO_NET_MSG_ERROR, TEMPO_EIO, "receive failed: %s", SDLNet_GetError());
            break;
        }
        n->rx_fill += (size_t)got;
        if (!push_frames(n))
            break;
    }
    SDLNet_FreePacket(pkt);
    SDLNet_FreeSocketSet(set);
    return 0;
}

tempo_net *tempo_net_connect(const tempo_net_desc *desc)
{
    if (desc == NULL || desc->queue == NULL || desc->port == 0 || desc->max_payload_bytes > TEMPO_NET_MAX_PAYLOAD ||
        (desc->host != NULL && strlen(desc->host) >= 256)) {
        tempo__set_error(TEMPO_EINVAL, "tempo_net_connect: queue and port are required, max_payload_bytes <= %u",
                         (unsigned)TEMPO_NET_MAX_PAYLOAD);
        return NULL;
    }
    if (SDLNet_Init() != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "SDLNet_Init: %s", SDLNet_GetError());
        return NULL;
    }
    tempo_net *n = calloc(1, sizeof *n);
    if (n == NULL) {
        SDLNet_Quit();
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_connect: out of memory");
        return NULL;
    }
    n->q = desc->queue;
    snprintf(n->host, sizeof n->host, "%s", desc->host ? desc->host : "127.0.0.1");
    n->port = desc->port;
    n->lim.max_payload = desc->max_payload_bytes ? desc->max_payload_bytes : 65536;
    n->lim.max_type = desc->max_type ? desc->max_type : 255;
    n->rx_cap = TEMPO_NET_HEADER_BYTES + n->lim.max_payload;
    n->rx = malloc(n->rx_cap);
    n->stop = tempo_event_create(true, false);
    n->send_lock = plat_mutex_create();
    atomic_init(&n->stopping, false);
    atomic_init(&n->error, 0);
    if (n->rx == NULL || n->stop == NULL || n->send_lock == NULL)
        goto fail;
    n->wake = SDLNet_UDP_Open(0);
    IPaddress *bound = n->wake ? SDLNet_UDP_GetPeerAddress(n->wake, -1) : NULL;
    if (bound == NULL || SDLNet_ResolveHost(&n->wake_to, "127.0.0.1", SDLNet_Read16(&bound->port)) != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "tempo_net_connect: wake socket: %s", SDLNet_GetError());
        goto fail;
    }
    n->thread = plat_thread_create(net_main, "tempo-net", n);
    if (n->thread == NULL)
        goto fail;
    return n;
fail:
    if (n->rx == NULL)
        tempo__set_error(TEMPO_ENOMEM, "tempo_net_connect: out of memory");
    tempo_net_destroy(n);
    return NULL;
}

void tempo_net_destroy(tempo_net *n)
{
    if (n == NULL)
        return;
    if (n->thread) {
        atomic_store(&n->stopping, true);
        tempo_event_set(n->stop);
        UDPpacket *pkt = SDLNet_AllocPacket(16);
        if (pkt) {
            pkt->len = 1;
            pkt->data[0] = 0;
            pkt->address = n->wake_to;
            SDLNet_UDP_Send(n->wake, -1, pkt);
            SDLNet_FreePacket(pkt);
        }
        plat_thread_join(n->thread);
    }
    if (n->sock)
        SDLNet_TCP_Close(n->sock);
    if (n->wake)
        SDLNet_UDP_Close(n->wake);
    if (n->send_lock)
        plat_mutex_destroy(n->send_lock);
    tempo_event_destroy(n->stop);
    free(n->rx);
    free(n);
    SDLNet_Quit();
}

int tempo_net_send(tempo_net *n, uint16_t type, const void *data, size_t size)
{
    if (n == NULL || type == 0 || (data == NULL && size > 0) || size > TEMPO_NET_MAX_PAYLOAD)
        return TEMPO_EINVAL;
    /* Header and payload in one send when small: one segment on the wire
     * (SDL_net turns Nagle off). */
    uint8_t small[TEMPO_NET_HEADER_BYTES + 512];
    tempo_net_frame_header(small, type, (uint32_t)size);
    int r = 0;
    plat_mutex_lock(n->send_lock);
    if (n->sock == NULL) {
        r = TEMPO_EBUSY;
    } else if (n->send_failed) {
        r = TEMPO_EIO;
    } else if (size <= sizeof small - TEMPO_NET_HEADER_BYTES) {
        if (size > 0)
            memcpy(small + TEMPO_NET_HEADER_BYTES, data, size);
        int len = (int)(TEMPO_NET_HEADER_BYTES + size);
        if (SDLNet_TCP_Send(n->sock, small, len) < len)
            r = TEMPO_EIO;
    } else if (SDLNet_TCP_Send(n->sock, small, TEMPO_NET_HEADER_BYTES) < TEMPO_NET_HEADER_BYTES ||
               SDLNet_TCP_Send(n->sock, data, (int)size) < (int)size) {
        r = TEMPO_EIO;
    }
    if (r == TEMPO_EIO) {
        /* A partial frame may be on the wire: the stream is unusable. */
        n->send_failed = true;
        tempo__set_error(TEMPO_EIO, "tempo_net_send: %s", SDLNet_GetError());
    }
    plat_mutex_unlock(n->send_lock);
    return r;
}

int tempo_net_error(tempo_net *n)
{
    return n ? atomic_load(&n->error) : TEMPO_EINVAL;
}

/* For net_source.c (tempo_net_attach): the queue this thread pushes into. */
tempo_netq *tempo__net_queue(tempo_net *n);
tempo_netq *tempo__net_queue(tempo_net *n)
{
    return n ? n->q : NULL;
}
