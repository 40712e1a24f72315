/* tempo_netq_attach(): the queue as a tempo_loop source (tempo/netq.h).
 * [loop thread]
 *
 * Each dispatch drains the queue; the drains of one loop frame share the
 * budget the policy planned at its first (the loop may dispatch a source
 * more than once a frame), and frames without one count for CLASSIC's step
 * down. Each message goes to the game through the loop
 * (tempo_loop_source_deliver) as a MESSAGE item, so a recording holds it
 * and a replay hands the game the recorded bytes instead. */
#include <stdlib.h>
#include <string.h>

#include "netq_internal.h"
#include "platform.h"
#include "sources_internal.h"
#include "tempo/loop.h"
#include "tempo/netq.h"
#include "tempo_internal.h"

/* [loop thread] The source's deliver (tempo/loop.h): the message as it is
 * (live), or one rebuilt from a recording. */
static void att_item(void *self, const tempo_replay_item *it, const void *live)
{
    tempo_netq *q = self;
    if (live != NULL) {
        q->att_fn(live, q->att_user);
        return;
    }
    /* Replayed: a copy of the recorded bytes, aligned as the queue
     * promises (malloc aligns for max_align_t: 16 bytes on 64-bit targets). */
    static const _Alignas(16) uint8_t empty[16];
    void *copy = NULL;
    const void *data = empty;
    if (it->size > 0) {
        copy = malloc(it->size);
        if (copy == NULL)
            return;
        memcpy(copy, it->data, it->size);
        data = copy;
    }
    tempo_netq_msg m = {.type = it->type, .size = it->size, .data = data, .pushed_ns = q->now(q->clock_user)};
    q->att_fn(&m, q->att_user);
    free(copy);
}

/* [loop thread] Each message of an attached queue goes to the game through
 * the loop (tempo_loop_source_deliver), which records or replays it. */
static void att_deliver(const tempo_netq_msg *msg, void *user)
{
    tempo_netq *q = user;
    tempo_replay_item it = {
        .kind = TEMPO_REPLAY_MESSAGE, .type = msg->type, .data = msg->data, .size = msg->size};
    tempo_loop_source_deliver(q->at.loop, q->ready, &it, msg);
}

/* [loop thread] The loop's dispatch: one frame per loop frame. The deadline
 * is taken relative to the loop's clock (which may not be the queue's). */
static int netq_dispatch(void *self, tempo_source_call *call)
{
    tempo_netq *q = self;
    tempo__netq_drain_args a = {.to_deadline = call->deadline_ns > call->now_ns ? call->deadline_ns - call->now_ns : 0,
                                .must_progress = call->must_progress};
    if (!q->att_seen || call->frame != q->att_frame) {
        a.new_frame = true;
        a.empty_frames = q->att_seen && call->frame > q->att_frame ? call->frame - q->att_frame - 1 : 0;
        q->att_seen = true;
        q->att_frame = call->frame;
    }
    int r = tempo__netq_drain(q, att_deliver, q, &a, call);
    if (r < 0)
        return r;
    plat_mutex_lock(q->lock);
    bool more = q->count > 0;
    plat_mutex_unlock(q->lock);
    return more ? 1 : 0;
}

/* [loop thread] The loop let go of the queue (remove, destroy). */
static void netq_detached(void *self)
{
    tempo_netq *q = self;
    q->at = (tempo__attachment){0};
    q->att_fn = NULL;
    q->att_user = NULL;
}

/* [loop thread] Its destroy leaves the loop (tempo__attachment). */
static int netq_leave(tempo_loop *loop, void *object, const char *what)
{
    tempo_netq *q = object;
    return tempo__leave_loop(loop, q->ready, what);
}

int tempo_netq_attach(tempo_netq *q, tempo_loop *loop, tempo_netq_handler fn, void *user)
{
    if (q == NULL || loop == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_attach: the %s is NULL",
                                q == NULL ? "queue" : loop == NULL ? "loop" : "handler");
    if (q->at.loop != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_netq_attach: the queue is already attached to a loop");
    tempo_source_desc d = {.name = TEMPO__NETQ_SOURCE,
                           .handle = q->ready,
                           .dispatch = netq_dispatch,
                           .detach = netq_detached,
                           .self = q,
                           .deliver = att_item};
    int r = tempo_loop_add_source(loop, &d);
    if (r < 0)
        return r;
    q->at = (tempo__attachment){loop, netq_leave};
    q->att_fn = fn;
    q->att_user = user;
    q->att_seen = false;
    return 0;
}

int tempo_netq_detach(tempo_netq *q)
{
    if (q == NULL || q->at.loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_netq_detach: %s",
                                q == NULL ? "the queue is NULL" : "the queue is not attached");
    return tempo_loop_remove_source(q->at.loop, q->ready);
}
