/* What tempo/net.h's two transports share: net.c (TCP, with a network
 * thread) and net_ws.c (a WebSocket to a bridge, on the page's main
 * thread). Each transport's struct tempo_net begins with a tempo__net_core,
 * so the calls that only touch this part (tempo_net_error, _get_stats,
 * _attach, _detach: net_core.c) are written once, as are the desc's checks
 * and defaults and tempo_net_send's checks, bounded send ring and results. */
#ifndef TEMPO_NET_CORE_H
#define TEMPO_NET_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net_frame.h"
#include "platform.h"
#include "tempo/net.h"

typedef struct tempo__net_core {
    tempo_netq *q;
    bool attached; /* [loop thread] tempo_net_attach attached q (destroy detaches it) */
    char host[256];
    uint16_t port;
    tempo__frame_limits lim;
    uint64_t flush_timeout_ns;
    atomic_int error; /* 0, or the code that ended the connection */
    plat_mutex *lock;
    /* [lock] the send ring: tx_len bytes from tx_head, wrapping */
    uint8_t *tx;
    size_t tx_cap, tx_head, tx_len;
    tempo_net_stats st; /* queued_bytes, send_cap_bytes, bytes_total filled on read */
} tempo__net_core;

/* The transport's core: its struct tempo_net's first member. */
static inline tempo__net_core *tempo__net_core_of(tempo_net *n)
{
    return (tempo__net_core *)(void *)n;
}

/* tempo_net_create's checks of desc: 0, or TEMPO_EINVAL set with the reason. */
int tempo__net_check_desc(const tempo_net_desc *desc);

/* Fills c from a checked desc (host, port, limits, flush bound, the send
 * ring's capacity; the ring itself is the transport's to allocate) and
 * creates its lock. Returns 0, or TEMPO_ENOMEM set. */
int tempo__net_core_setup(tempo__net_core *c, const tempo_net_desc *desc);

/* For tempo_net_destroy: leaves the loop the queue was attached to (from the
 * queue's own handler it cannot, and stays attached). */
void tempo__net_core_detach_for_destroy(tempo__net_core *c);

/* For tempo_net_destroy, last: the lock and the ring. */
void tempo__net_core_free(tempo__net_core *c);

/* The transport's hooks for tempo__net_core_send, both [lock held]:
 * state: 0 when a frame may be queued, TEMPO_EBUSY when not connected yet,
 * TEMPO_EIO when the connection has ended; queued: after a frame went into
 * the ring (was_empty: the ring was empty before it), or NULL. */
typedef int (*tempo__net_state_fn)(tempo__net_core *c);
typedef void (*tempo__net_queued_fn)(tempo__net_core *c, bool was_empty);

/* tempo_net_send on the core: the argument checks, then under the lock the
 * transport's state, then the frame into the ring whole or not at all; the
 * result's detail kept for tempo_get_error() at DEBUG (every failure is the
 * caller's to see). Returns what tempo_net_send returns. */
int tempo__net_core_send(tempo_net *n, uint16_t type, const void *data, size_t size, tempo__net_state_fn state,
                         tempo__net_queued_fn queued);

#endif /* TEMPO_NET_CORE_H */
