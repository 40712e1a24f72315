/* The part of tempo/net.h both transports share (net_core.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_core.h"
#include "tempo_internal.h"

#define DEFAULT_SEND_CAP ((size_t)4 << 20)
#define MIN_SEND_CAP ((size_t)64)
#define MAX_SEND_CAP ((size_t)1 << 30)
#define DEFAULT_FLUSH_NS TEMPO_NS_PER_S

int tempo__net_check_desc(const tempo_net_desc *desc)
{
    if (desc == NULL || desc->queue == NULL || desc->port == 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_net_create: %s",
                                desc == NULL            ? "desc is NULL"
                                : desc->queue == NULL   ? "desc.queue is required"
                                                        : "desc.port is required (0)");
    if (desc->host != NULL && strlen(desc->host) >= 256)
        return tempo__set_error(TEMPO_EINVAL, "tempo_net_create: desc.host is %zu bytes long, at most 255",
                                strlen(desc->host));
    if (desc->max_payload_bytes > TEMPO_NET_MAX_PAYLOAD)
        return tempo__set_error(TEMPO_EINVAL, "tempo_net_create: desc.max_payload_bytes %u is above %u",
                                (unsigned)desc->max_payload_bytes, (unsigned)TEMPO_NET_MAX_PAYLOAD);
    if (desc->send_cap_bytes != 0 && (desc->send_cap_bytes < MIN_SEND_CAP || desc->send_cap_bytes > MAX_SEND_CAP))
        return tempo__set_error(TEMPO_EINVAL, "tempo_net_create: desc.send_cap_bytes %zu is not 0 or in [64, 1 GiB]",
                                desc->send_cap_bytes);
    return 0;
}

int tempo__net_core_setup(tempo__net_core *c, const tempo_net_desc *desc)
{
    c->q = desc->queue;
    snprintf(c->host, sizeof c->host, "%s", desc->host ? desc->host : "127.0.0.1");
    c->port = desc->port;
    c->lim.max_payload = desc->max_payload_bytes ? desc->max_payload_bytes : 65536;
    c->lim.max_type = desc->max_type ? desc->max_type : 255;
    c->flush_timeout_ns = desc->flush_timeout_ns ? desc->flush_timeout_ns : DEFAULT_FLUSH_NS;
    c->tx_cap = desc->send_cap_bytes ? desc->send_cap_bytes : DEFAULT_SEND_CAP;
    atomic_init(&c->error, 0);
    c->lock = plat_mutex_create();
    return c->lock != NULL ? 0 : TEMPO_ENOMEM;
}

void tempo__net_core_detach_for_destroy(tempo__net_core *c)
{
    if (c->attached && tempo_netq_detach(c->q) == TEMPO_EBUSY)
        tempo__log(TEMPO_LOG_DEBUG, "tempo_net_destroy from its queue's handler: the queue stays attached");
}

void tempo__net_core_free(tempo__net_core *c)
{
    if (c->lock)
        plat_mutex_destroy(c->lock);
    free(c->tx);
}

/* [lock held] Copies `len` bytes to the end of the ring (room checked). */
static void ring_put(tempo__net_core *c, const void *p, size_t len)
{
    size_t tail = (c->tx_head + c->tx_len) % c->tx_cap;
    size_t first = len < c->tx_cap - tail ? len : c->tx_cap - tail;
    if (first > 0)
        memcpy(c->tx + tail, p, first);
    if (len > first)
        memcpy(c->tx, (const uint8_t *)p + first, len - first);
    c->tx_len += len;
}

int tempo__net_core_send(tempo_net *n, uint16_t type, const void *data, size_t size, tempo__net_state_fn state,
                         tempo__net_queued_fn queued_fn)
{
    /* Returned, so DEBUG, like every failure of this call. */
    if (n == NULL)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EINVAL, "tempo_net_send: the net is NULL");
    if (type == 0)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EINVAL, "tempo_net_send: frame type 0 is reserved");
    if (data == NULL && size > 0)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EINVAL, "tempo_net_send: data is NULL for %zu bytes", size);
    if (size > TEMPO_NET_MAX_PAYLOAD)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EINVAL,
                                   "tempo_net_send: %zu bytes is above the largest payload, %u", size,
                                   (unsigned)TEMPO_NET_MAX_PAYLOAD);
    tempo__net_core *c = tempo__net_core_of(n);
    uint8_t header[TEMPO_NET_HEADER_BYTES];
    tempo_net_frame_header(header, type, (uint32_t)size);
    size_t need = TEMPO_NET_HEADER_BYTES + size;
    size_t queued = 0;
    plat_mutex_lock(c->lock);
    int r = atomic_load(&c->error) != 0 ? TEMPO_EIO : state(c);
    if (r != 0) {
        /* not connected yet, or ended */
    } else if (need > c->tx_cap) {
        r = TEMPO_ERANGE;
    } else if (need > c->tx_cap - c->tx_len) {
        r = TEMPO_EFULL;
        c->st.sends_full++;
        queued = c->tx_len;
    } else {
        bool was_empty = c->tx_len == 0;
        ring_put(c, header, sizeof header);
        if (size > 0)
            ring_put(c, data, size);
        c->st.frames_queued++;
        c->st.queued_bytes_total += need;
        if (c->tx_len > c->st.peak_queued_bytes)
            c->st.peak_queued_bytes = c->tx_len;
        if (queued_fn != NULL)
            queued_fn(c, was_empty);
    }
    plat_mutex_unlock(c->lock);
    /* Every failure here is returned to the caller: the detail is kept for
     * tempo_get_error() and logged at DEBUG only (a game whose peer left
     * may call this thousands of times). */
    switch (r) {
    case 0:
        break;
    case TEMPO_EIO:
        tempo__set_error_at(TEMPO_LOG_DEBUG, r, "tempo_net_send: the connection has ended (%s)",
                            tempo_errname(atomic_load(&c->error)));
        break;
    case TEMPO_EBUSY:
        tempo__set_error_at(TEMPO_LOG_DEBUG, r, "tempo_net_send: not connected yet");
        break;
    case TEMPO_ERANGE:
        tempo__set_error_at(TEMPO_LOG_DEBUG, r, "tempo_net_send: a %zu-byte frame never fits the %zu-byte send queue",
                            need, c->tx_cap);
        break;
    default:
        tempo__set_error_at(TEMPO_LOG_DEBUG, r, "tempo_net_send: send queue full (%zu of %zu bytes queued, %zu needed)",
                            queued, c->tx_cap, need);
        break;
    }
    return r;
}

/* ---- The calls that only read the core -------------------------------------- */

int tempo_net_error(tempo_net *n)
{
    return n ? atomic_load(&tempo__net_core_of(n)->error) : TEMPO_EINVAL;
}

int tempo_net_get_stats(tempo_net *n, tempo_net_stats *out)
{
    if (n == NULL || out == NULL)
        return TEMPO_EINVAL;
    tempo__net_core *c = tempo__net_core_of(n);
    plat_mutex_lock(c->lock);
    *out = c->st;
    out->queued_bytes = c->tx_len;
    out->send_cap_bytes = c->tx_cap;
    plat_mutex_unlock(c->lock);
    out->bytes_total = out->sent_bytes + out->received_bytes;
    return 0;
}

/* ---- As a loop source (tempo/net.h): attaching the net is attaching its queue ---- */

int tempo_net_attach(tempo_net *n, tempo_loop *loop, tempo_netq_handler fn, void *user)
{
    if (n == NULL)
        return TEMPO_EINVAL;
    tempo__net_core *c = tempo__net_core_of(n);
    int r = tempo_netq_attach(c->q, loop, fn, user);
    if (r == 0)
        c->attached = true;
    return r;
}

int tempo_net_detach(tempo_net *n)
{
    if (n == NULL)
        return TEMPO_EINVAL;
    tempo__net_core *c = tempo__net_core_of(n);
    int r = tempo_netq_detach(c->q);
    if (r != TEMPO_EBUSY)
        c->attached = false;
    return r;
}
