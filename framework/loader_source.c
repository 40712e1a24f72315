/* tempo_loader_attach(): the loader as a tempo_loop source (tempo/loader.h),
 * built on the loader's public API plus two hooks of its own
 * (sources_internal.h). [loop thread]
 *
 * Why not tempo_loader_process_until() alone: it declines to start an item
 * when its running cost estimate exceeds the time left, and the estimate only
 * changes when an item is delivered. One slow item (a 60 ms first texture
 * upload) makes the estimate larger than any gap between frames, and from
 * then on nothing is ever delivered. The loop's must_progress breaks that:
 * the first call of each frame makes one unit of progress whatever the
 * estimate says, which also brings the estimate back to reality. A unit is
 * one item, or one strip of a large image's texture upload (issue 21: a
 * whole 256x256 software upload per frame was forced past the deadline):
 * the image is delivered when its last strip is up.
 *
 * Record and replay, through the source contract (tempo/loop.h): every
 * delivery is handed to tempo_loop_source_deliver() as a LOAD item (id,
 * type, error, group, bytes; not the asset). A delivery cannot be taken
 * back (the loader calls `done` right after), so while the loop replays
 * (call->replaying) the dispatch delivers nothing by itself: the loop hands
 * each recorded completion to loader_deliver, which makes the loader
 * deliver that request (loaded again, live) right before its recorded tick,
 * waiting for the loader threads if they are behind. */
#include <stdlib.h>

#include "sources_internal.h"
#include "tempo/loader.h"
#include "tempo/loop.h"
#include "tempo_internal.h"

/* How long a replay waits for the loader threads to finish one request. */
#define REPLAY_WAIT_NS (30 * TEMPO_NS_PER_S)

typedef struct loader_source {
    tempo_loader *ld;
    tempo_loop *loop;
    uint64_t missed; /* replayed completions the loader could not deliver */
} loader_source;

static bool loader_has_results(tempo_loader *ld)
{
    tempo_loader_stats st;
    return tempo_loader_get_stats(ld, &st) == 0 && st.finished > 0;
}

static int loader_dispatch(void *self, tempo_source_call *call)
{
    loader_source *s = self;
    tempo_loader *ld = s->ld;
    if (call->replaying)
        return loader_has_results(ld) ? 1 : 0; /* held for their recorded ticks: parked */
    uint32_t items = 0, strips = 0;
    /* Idle time first: budget-sized slices up to the deadline (each call
     * stops before an item that would probably end after it, and uploads a
     * large image's rows in strips that fit). */
    for (;;) {
        uint32_t before = strips;
        int r = tempo__loader_process_step(ld, call->deadline_ns, false, &strips);
        if (r < 0)
            return r;
        if (r == 0 && strips == before)
            break;
        items += (uint32_t)r;
        if (r == 0)
            break; /* a strip used the time left */
    }
    if (items == 0 && strips == 0 && call->must_progress && loader_has_results(ld)) {
        /* The guaranteed unit: one item, or one strip of a large image. */
        int r = tempo__loader_process_step(ld, call->deadline_ns, true, &strips);
        if (r < 0)
            return r;
        items += (uint32_t)r;
    }
    call->items = items + strips; /* a strip is a unit of progress too */
    return loader_has_results(ld) ? 1 : 0;
}

/* [loop thread] Every delivery of the loader goes through the loop, which
 * records it (loader_deliver does nothing live: the loader goes on to call
 * `done`). */
static void loader_tap(void *user, const tempo_load_result *res)
{
    loader_source *s = user;
    tempo_replay_item it = {.kind = TEMPO_REPLAY_LOAD, .type = (uint32_t)res->type, .id = res->id,
                            .error = res->error, .group = res->group, .value = res->bytes};
    tempo_loop_source_deliver(s->loop, tempo_loader_handle(s->ld), &it, res);
}

/* [loop thread] The source's deliver (tempo/loop.h). A recorded completion
 * in a replay (live NULL): deliver that request now. */
static void loader_deliver(void *self, const tempo_replay_item *it, const void *live)
{
    loader_source *s = self;
    if (live != NULL)
        return; /* live: the loader delivers by itself */
    int r = tempo__loader_deliver_id(s->ld, it->id, REPLAY_WAIT_NS);
    if (r < 0) {
        s->missed++;
        tempo__set_error(r, "replay: loader request %llu could not be delivered at its tick",
                         (unsigned long long)it->id);
    }
}

static void loader_detached(void *self)
{
    loader_source *s = self;
    tempo__loader_set_tap(s->ld, NULL, NULL);
    *tempo__loader_attachment(s->ld) = (tempo__attachment){0};
    free(s);
}

/* Its destroy leaves the loop (tempo__attachment). */
static int loader_leave(tempo_loop *loop, void *object, const char *what)
{
    return tempo__leave_loop(loop, tempo_loader_handle(object), what);
}

int tempo_loader_attach(tempo_loader *ld, tempo_loop *loop)
{
    if (ld == NULL || loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_attach: %s is NULL", ld == NULL ? "loader" : "loop");
    if (tempo__loader_attachment(ld)->loop != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loader_attach: the loader is already attached to a loop");
    loader_source *s = calloc(1, sizeof *s);
    if (s == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_loader_attach: out of memory");
    s->ld = ld;
    s->loop = loop;
    tempo_source_desc d = {.name = TEMPO__LOADER_SOURCE,
                           .handle = tempo_loader_handle(ld),
                           .dispatch = loader_dispatch,
                           .detach = loader_detached,
                           .self = s,
                           .deliver = loader_deliver};
    int r = tempo_loop_add_source(loop, &d);
    if (r < 0) {
        free(s); /* a failed add never calls detach */
        return r;
    }
    *tempo__loader_attachment(ld) = (tempo__attachment){loop, loader_leave};
    tempo__loader_set_tap(ld, loader_tap, s);
    return 0;
}

int tempo_loader_detach(tempo_loader *ld)
{
    if (ld == NULL || tempo__loader_attachment(ld)->loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_detach: %s",
                                ld == NULL ? "loader is NULL" : "the loader is not attached to a loop");
    return tempo_loop_remove_source(tempo__loader_attachment(ld)->loop, tempo_loader_handle(ld));
}
