/* Tempo: what a loop serves besides its own schedule: watched handles,
 * sources, and what a source delivers (tempo/loop.h runs them; this header
 * is the contract a source is written against).
 *
 * A source is anything that queues work for the loop thread: the network
 * queue, the loader's finished results, audio notices, native input, or a
 * game's own queue. It has a handle (signalled when work arrives) and a
 * dispatch that does what fits before a deadline the loop gives it, and
 * says whether work remains. The loop owns everything else, so a game never
 * writes the glue that decides how much a source may do or when to look at
 * it again:
 *  - deadline: each call gets the next due update or render (while paused:
 *    one update step from the last frame), so work fills the idle time
 *    between frames and a due frame waits for one unit at most;
 *  - parking: a source that says work remains and has used its time (the
 *    deadline passed, or the call did nothing) leaves the wait until the
 *    next frame (an update or render ran), so a source whose handle stays
 *    signalled never makes the loop wake at once with nothing to do. A
 *    source that stopped early (its own budget) with time left is called
 *    again after the loop has looked at input and its schedule;
 *  - progress: the first call of each frame sets must_progress, and the
 *    source then handles at least one unit if any waits, whatever its cost
 *    estimate says: no estimate can starve it. That unit may overrun the
 *    deadline (counted as an overrun);
 *  - pause: parking never outlives a pause. Pausing and resuming re-arm
 *    every parked source, and while paused the loop keeps frames of one
 *    update step for the sources that have work (and only for them: an idle
 *    paused loop still sleeps with no timeout).
 * A source that reports remaining work is called again at its next turn even
 * if its handle is not signalled (an auto-reset handle's signal is consumed
 * by the wait), so both kinds of handle work.
 * Framework sources attach with one call each, declared beside their
 * object: tempo_netq_attach() (tempo/netq.h), tempo_loader_attach()
 * (tempo/loader.h), tempo_audio_attach() (tempo/audio.h),
 * tempo_net_attach() (tempo/net.h), tempo_input_attach() (tempo/input.h),
 * tempo_hotreload_attach() (tempo/hotreload.h: written only against this
 * contract); desc.input's native devices are a source of the loop itself.
 * Those that hand the game items (messages, loader completions, audio
 * notices, reloads) declare what they deliver (below), so the loop records
 * and replays all of them the same way; input is recorded from desc.input's
 * ring. Per-source statistics are in tempo_loop_stats.sources (tempo/stats.h).
 *
 * The framework's attaches share one shape: attach(object, loop[, fn, user])
 * and detach(object); the object remembers its loop. Lifetime, in any
 * order: an attached object leaves its loop with its detach function (or
 * tempo_loop_remove_source with its handle), when it is destroyed (each
 * object's destroy detaches it first), and when the loop is destroyed (the
 * object then knows it is no longer attached: its detach returns
 * TEMPO_EINVAL, and it may be attached to another loop). So the loop never
 * waits on a freed handle, whichever is destroyed first. The one thing
 * refused: destroying an object from its own callback (a loader's done, an
 * audio notice, a queue's handler), where the loop still uses it: the
 * destroy then does nothing (TEMPO_EBUSY in tempo_get_error()). Do not
 * watch these objects' handles (tempo_netq_handle, tempo_loader_handle,
 * tempo_audio_handle) instead of attaching them: each is a manual-reset
 * event that stays signalled until its work is done, so a watch whose
 * callback leaves work makes the loop wake again at once, spinning, with no
 * pacing, no progress guarantee and no statistics.
 *
 * Unless a function says "Thread: any", call it on the loop thread.
 * docs/loop.md ("Sources and watches") has the rules with examples.
 */
#ifndef TEMPO_SOURCE_H
#define TEMPO_SOURCE_H

#include "base.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

/* ---- Watched handles ---------------------------------------------------- */

/* Watches and sources are entries of one registry in the loop, served in
 * the order added: a watch is the simplest entry (a callback when its
 * handle is signalled; counted as a "watch" wake), a source the paced one
 * (counted as a "source" wake). A handle is in it once, either way.
 *
 * The most handles a loop watches: a wait takes TEMPO_WAIT_MAX_HANDLES, and
 * the loop keeps two for itself (its wake event and its timer). Sources
 * count too: each takes one of these slots. */
#define TEMPO_LOOP_MAX_WATCHES (TEMPO_WAIT_MAX_HANDLES - 2)

typedef void (*tempo_loop_watch_fn)(tempo_loop *loop, tempo_handle *handle, void *user);

/* Adds `handle` to the loop's wait set. Whenever it is signalled the loop
 * calls fn(loop, handle, user) on the loop thread, at most once per handle
 * per frame, after the frame's SDL events and before its updates. Waking
 * the loop consumes an auto-reset handle's signal. For the game's own
 * events (a timer, a "level loaded" event): a handle that stays signalled
 * wakes the loop again at once, so anything that queues work belongs in a
 * source (tempo_loop_add_source), which the loop paces. Every watched
 * handle is checked every frame, so a busy one cannot starve the others.
 * A watch added from a callback takes effect from the next frame.
 * handle: not owned; must stay alive until unwatched (destroying a watched
 * handle makes tempo_loop_frame() fail with TEMPO_EINVAL).
 * Returns 0, TEMPO_EINVAL (NULL argument, destroyed handle), TEMPO_EBUSY
 * (already watched, or added as a source) or TEMPO_ETOOMANY
 * (TEMPO_LOOP_MAX_WATCHES watches and sources). */
TEMPO_API int tempo_loop_watch(tempo_loop *loop, tempo_handle *handle, tempo_loop_watch_fn fn,
                               void *user);

/* Removes `handle` from the wait set; its callback is not called again,
 * not even later in the current frame. Safe from any loop callback,
 * including the handle's own. Returns 0, or TEMPO_EINVAL (NULL, or the
 * handle is not watched). */
TEMPO_API int tempo_loop_unwatch(tempo_loop *loop, tempo_handle *handle);

/* ---- Sources ------------------------------------------------------------- */

/* One dispatch call: the loop fills the inputs, the source the outputs. */
typedef struct tempo_source_call {
    uint64_t now_ns;      /* in: the loop's clock when the call starts */
    uint64_t deadline_ns; /* in: stop before this, on the loop's clock: the next
                             update or render (<= now_ns when one is due now) */
    bool must_progress;   /* in: no unit of this source ran yet this frame:
                             handle at least one if any waits, even past the
                             deadline */
    uint64_t frame;       /* in: the loop's frame counter, one more for each frame
                             (an iteration that ran an update or a render; while
                             paused with work pending, one update step): for
                             sources whose budget is per frame, which see every
                             frame, empty ones included, as frame - previous */
    uint32_t items;       /* out: units handled by this call (0 before the call) */
    uint64_t oldest_age_ns; /* out: age of the oldest unit this call handled or
                               left waiting, when the source knows (0 before) */
    bool replaying;       /* in: the loop replays a recording (tempo/replay.h):
                             tempo_loop_source_deliver() drops what this call
                             delivers, and the recorded items reach desc.deliver
                             at their ticks instead. Only a source with an effect
                             it cannot take back before it delivers (the loader
                             finishes a request by handing it over) needs to look:
                             it may hold its work */
} tempo_source_call;

/* Does the work that fits before call->deadline_ns (at least one unit when
 * call->must_progress and any waits), checking the clock after each unit.
 * Returns > 0 when work remains, 0 when the source is empty, or a negative
 * TEMPO_E* code: the loop then removes the source (its detach runs) and
 * tempo_loop_frame() returns that code. [loop thread] */
typedef int (*tempo_source_dispatch_fn)(void *self, tempo_source_call *call);

/* ---- What a source delivers: recorded and replayed by the loop ------------
 * A source that hands things to the game (messages, completions, notices)
 * declares a deliver function (desc.deliver) and has its dispatch pass each
 * item through tempo_loop_source_deliver() instead of calling the game
 * itself. The loop then owns record and replay (tempo/replay.h), and the
 * source carries no code for either:
 *  - live: tempo_loop_source_deliver() calls deliver(self, item, live) at
 *    once;
 *  - recording: the same, after writing the item into the recording for the
 *    tick whose update comes next;
 *  - replaying: the live item is dropped (deliver is not called), and the
 *    loop calls deliver(self, item, NULL) with each recorded item right
 *    before the update of its recorded tick.
 * An item is a tempo_replay_item by value: a source of its own data uses
 * TEMPO_REPLAY_MESSAGE (a type and up to 16 MiB of bytes); LOAD and AUDIO
 * are the loader's and the audio's. Only the fields of its kind are
 * recorded, so deliver must rebuild what it hands over from those fields
 * when `live` is NULL; `live` is the source's own full object (the message
 * with its times, say) that the dispatch passed along.
 * A recording names each source by its desc.name and its attach order among
 * the sources of that name: a replaying game attaches its sources with the
 * same names in the same order (it normally runs the same code), and a
 * source that is not attached in the replay misses its items. */

typedef enum tempo_replay_kind {
    TEMPO_REPLAY_MESSAGE = 1, /* a message: type, data, size (a game's own sources too) */
    TEMPO_REPLAY_LOAD = 2,    /* a loader completion: id, type, error, group, value = bytes */
    TEMPO_REPLAY_AUDIO = 3,   /* an audio notice: type = notice kind, audio_channel, id = tag,
                                 value = frame */
} tempo_replay_kind;

/* One delivery, by value (sources and tempo_loop_deliver channels). Only
 * the fields of its kind are recorded. */
typedef struct tempo_replay_item {
    tempo_replay_kind kind;
    uint32_t type;          /* MESSAGE: message type; LOAD: tempo_load_type; AUDIO: notice kind */
    const void *data;       /* MESSAGE: payload (valid during the call only); else NULL */
    uint32_t size;          /* MESSAGE: payload bytes, at most 16 MiB */
    uint64_t id;            /* LOAD: request id; AUDIO: the mark's tag */
    int32_t error;          /* LOAD: 0 or the request's TEMPO_E* */
    int32_t audio_channel;  /* AUDIO: mixer channel */
    uint32_t group;         /* LOAD: progress group */
    uint64_t value;         /* LOAD: bytes read; AUDIO: frame */
} tempo_replay_item;

/* Hands one item to the game. `item` (and its data) is valid during the
 * call only. `live`: what the dispatch passed to tempo_loop_source_deliver
 * (may be NULL there too); NULL for an item replayed from a recording.
 * May call any loop function a source's dispatch may (not remove its own
 * source). [loop thread] */
typedef void (*tempo_source_deliver_fn)(void *self, const tempo_replay_item *item, const void *live);

typedef struct tempo_source_desc {
    const char *name;           /* shown in the overlay and the statistics; copied
                                   (first 23 bytes); NULL => "source"; also names
                                   the source in a recording (see above) */
    tempo_handle *handle;       /* signalled when work arrives (manual- or auto-reset);
                                   required; not owned; must stay alive while added */
    tempo_source_dispatch_fn dispatch; /* required */
    /* Called once when the source leaves the loop (tempo_loop_remove_source,
     * a dispatch error, tempo_loop_destroy), on the loop thread: where an
     * adapter frees `self`. NULL => nothing. */
    void (*detach)(void *self);
    void *self;                 /* passed to dispatch, detach and deliver */
    /* What the source hands the game (see above). NULL => the source
     * delivers nothing the loop knows of: it is not recorded, and in a
     * replay it runs live. */
    tempo_source_deliver_fn deliver;
} tempo_source_desc;

/* The most sources one loop takes (each also uses one watch slot). */
#define TEMPO_LOOP_MAX_SOURCES 16

/* Adds a source (see above). desc is read during the call only. The source
 * is dispatched on the loop thread from the next frame on, after the frame's
 * SDL events and before its updates, in the order sources and watches were
 * added.
 * Returns 0, TEMPO_EINVAL (NULL loop/desc/handle/dispatch), TEMPO_EBUSY (the
 * handle is already watched or added) or TEMPO_ETOOMANY (no watch slot, or
 * TEMPO_LOOP_MAX_SOURCES added). On failure detach is not called.
 * Thread: loop thread (from a callback too). */
TEMPO_API int tempo_loop_add_source(tempo_loop *loop, const tempo_source_desc *desc);

/* Hands `item` from the dispatch of the source added with `handle` to the
 * game: see "What a source delivers" above. Live and while recording it
 * calls desc.deliver(self, item, live) before returning (recording: after
 * writing the item for the coming tick); while replaying it drops the item.
 * `item` and `live` are read during the call only (not owned). Call it from
 * the source's dispatch (or from code the dispatch calls), between updates:
 * an item delivered inside update() is replayed before that update.
 * Returns 1 (delivered), 0 (dropped: the loop replays), TEMPO_EINVAL (NULL
 * loop or item, no source has `handle`, the source has no deliver, an
 * unknown item kind), TEMPO_ERANGE (a payload over 16 MiB) or TEMPO_EIO (a
 * recording write failed: deliver has still run). [loop thread] */
TEMPO_API int tempo_loop_source_deliver(tempo_loop *loop, tempo_handle *handle, const tempo_replay_item *item,
                                        const void *live);

/* Removes the source added with `handle`: it is not dispatched again, not
 * even later in the current frame, and its detach runs before this returns
 * (so do not call it from that source's own dispatch: TEMPO_EBUSY).
 * Returns 0, TEMPO_EINVAL (NULL, or no source has that handle) or
 * TEMPO_EBUSY. Thread: loop thread. */
TEMPO_API int tempo_loop_remove_source(tempo_loop *loop, tempo_handle *handle);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_SOURCE_H */
