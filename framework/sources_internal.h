/* What the framework's sources share with their adapters (tempo/source.h).
 * [loop thread] */
#ifndef TEMPO_SOURCES_INTERNAL_H
#define TEMPO_SOURCES_INTERNAL_H

#include "tempo/audio.h"
#include "tempo/input.h"
#include "tempo/loader.h"
#include "tempo/source.h"

/* ---- Where an attached object keeps its loop, and how it leaves it ---------
 * Each object (tempo_loader, tempo_audio, tempo_input, tempo_netq; a
 * tempo_net is its queue) holds one, which its adapter (loader_source.c,
 * audio_source.c, input_source.c, netq_source.c) sets at the attach and
 * clears in its detach callback, which runs for every way of leaving the
 * loop: the object's detach, tempo_loop_remove_source, a dispatch error,
 * tempo_loop_destroy. So the detach needs no loop argument, and the object's
 * destroy leaves the loop first, through `leave`, never by calling the loop
 * itself: no order rule, and never a freed handle in a wait set. */
typedef struct tempo__attachment {
    tempo_loop *loop; /* the loop it is attached to, or NULL */
    /* The adapter's: leaves `loop` for the object's destroy (`what` names
     * the destroy in the log). Returns 0, or TEMPO_EBUSY with the detail set
     * (called from the object's own dispatch: the loop still uses the
     * object; the destroy must not go on). */
    int (*leave)(tempo_loop *loop, void *object, const char *what);
} tempo__attachment;

/* For an object's destroy: leaves the loop if attached. 0 or TEMPO_EBUSY. */
static inline int tempo__attachment_leave(const tempo__attachment *at, void *object, const char *what)
{
    return at->loop != NULL ? at->leave(at->loop, object, what) : 0;
}

/* The loader's / audio's / input's, the field itself. */
tempo__attachment *tempo__loader_attachment(tempo_loader *loader);
tempo__attachment *tempo__audio_attachment(tempo_audio *au);
tempo__attachment *tempo__input_attachment(tempo_input *in);

/* The loader source's dispatch step (loader_source.c): tempo_loader_process_until()
 * that may also upload part of a large image (a strip of rows sized by the
 * learnt cost per byte, upload_split.h) instead of waiting for a frame with
 * room for all of it. The image is delivered once all its rows are up.
 * `must_progress`: at least one item or one strip, whatever the estimates say
 * (the loop's guaranteed unit). Returns items delivered (or an error) and
 * adds the strips uploaded to *strips. */
int tempo__loader_process_step(tempo_loader *loader, uint64_t deadline_ns, bool must_progress, uint32_t *strips);

/* Called with every result the loader delivers (right before its `done`,
 * also for requests without one; not for the cancellations of destroy):
 * the loader source hands each to tempo_loop_source_deliver(). */
typedef void (*tempo__loader_tap_fn)(void *user, const tempo_load_result *res);
void tempo__loader_set_tap(tempo_loader *loader, tempo__loader_tap_fn tap, void *user);

/* Delivers request `id` now (finalize + done), waiting up to timeout_ns of
 * real time for the loader threads to finish it: how the loader source's
 * deliver hands a replayed completion to the game at its recorded tick.
 * Returns 0, TEMPO_ENOENT (not submitted, or delivered already),
 * TEMPO_ETIMEDOUT or TEMPO_EBUSY (from a done callback). [loop thread] */
int tempo__loader_deliver_id(tempo_loader *loader, uint64_t id, uint64_t timeout_ns);

/* ---- Record/replay channels ------------------------------------------------
 * A source with desc.deliver gets a channel id for its items in a recording
 * (the registry, loop_sources.c): 0x80000000 | class << 16 | its index among
 * the sources of its class, in attach order. The framework's sources declare
 * their class here, by the name they add with: the classes recordings made
 * before the source contract carry, so those still replay (docs/replay.md).
 * Every other name gets a class of its own, from the first after these on,
 * in the order it first appears in a loop. The input declares none: its
 * events are recorded from the ring, not delivered. */
#define TEMPO__NETQ_SOURCE "netq"     /* tempo_netq_attach, tempo_net_attach (netq_source.c) */
#define TEMPO__AUDIO_SOURCE "audio"   /* tempo_audio_attach (audio_source.c) */
#define TEMPO__LOADER_SOURCE "loader" /* tempo_loader_attach (loader_source.c) */
/* Class k (1, 2, ...) is the k-th name. */
#define TEMPO__DECLARED_CHANNEL_CLASSES {TEMPO__NETQ_SOURCE, TEMPO__AUDIO_SOURCE, TEMPO__LOADER_SOURCE}

/* For an adapter's leave (tempo__attachment): removes the source added
 * with `handle`. Returns 0, or TEMPO_EBUSY with the detail logged (called
 * from the object's own dispatch). `what` names the destroy in that log
 * line. */
int tempo__leave_loop(tempo_loop *loop, tempo_handle *handle, const char *what);

/* tempo_loop_remove_source without the detail: for the loop's own callers,
 * to which TEMPO_EBUSY (from the source's dispatch: try again next frame)
 * and TEMPO_EINVAL (already gone) are expected outcomes, not misuse. */
int tempo__loop_remove_source(tempo_loop *loop, tempo_handle *handle);

#endif /* TEMPO_SOURCES_INTERNAL_H */
