/* tempo_net_attach(): the network thread's queue as a tempo_loop source
 * (tempo/sources.h). The thread only pushes into its tempo_netq, so
 * attaching the net is attaching that queue. [loop thread] */
#include "tempo/net.h"
#include "tempo/sources.h"

/* net.c: the queue a tempo_net pushes into (desc.queue). */
tempo_netq *tempo__net_queue(tempo_net *net);

int tempo_net_attach(tempo_net *net, tempo_loop *loop, tempo_netq_handler fn, void *user)
{
    if (net == NULL)
        return TEMPO_EINVAL;
    return tempo_netq_attach(tempo__net_queue(net), loop, fn, user);
}

int tempo_net_detach(tempo_net *net)
{
    if (net == NULL)
        return TEMPO_EINVAL;
    return tempo_netq_detach(tempo__net_queue(net));
}
