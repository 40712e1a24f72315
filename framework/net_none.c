/* tempo/net.h without a transport: the build of a backend that has no
 * sockets (web: a browser page has no TCP sockets; WebSockets and WebRTC
 * speak their own protocols, to servers made for them). framework/meson.build
 * compiles this file instead of net.c there. The entry points exist, so a
 * game built for every backend links and decides at run time:
 * tempo_net_create() fails with TEMPO_ENOTSUP and says why in
 * tempo_get_error(); no tempo_net can exist, so the calls that take one
 * return TEMPO_EINVAL, as for NULL natively. The frame header
 * (tempo_net_frame_header) is net_frame.c's, as everywhere. A transport for
 * such a backend (issue 41: WebSockets) replaces this file in the meson
 * choice, beside net.c's TCP. */
#include <stddef.h>

#include "tempo/net.h"
#include "platform.h"
#include "tempo_internal.h"

/* [loop thread] */
tempo_net *tempo_net_create(const tempo_net_desc *desc)
{
    (void)desc;
    /* The caller sees the NULL: DEBUG, like every expected failure. */
    tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP,
                        "tempo_net_create: not supported on the %s backend (it has no TCP sockets)",
                        plat_backend_name());
    return NULL;
}

void tempo_net_destroy(tempo_net *net)
{
    (void)net; /* always NULL: tempo_net_create never returns one here */
}

int tempo_net_send(tempo_net *net, uint16_t type, const void *data, size_t size)
{
    (void)net;
    (void)type;
    (void)data;
    (void)size;
    return TEMPO_EINVAL;
}

int tempo_net_error(tempo_net *net)
{
    (void)net;
    return TEMPO_EINVAL;
}

int tempo_net_get_stats(tempo_net *net, tempo_net_stats *out)
{
    (void)net;
    (void)out;
    return TEMPO_EINVAL;
}

int tempo_net_attach(tempo_net *net, tempo_loop *loop, tempo_netq_handler fn, void *user)
{
    (void)net;
    (void)loop;
    (void)fn;
    (void)user;
    return TEMPO_EINVAL;
}

int tempo_net_detach(tempo_net *net)
{
    (void)net;
    return TEMPO_EINVAL;
}
