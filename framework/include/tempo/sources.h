/* Tempo: one-call attaches of the framework's sources to a tempo_loop.
 *
 * Each makes one object a source of the loop (tempo_loop_add_source in
 * tempo/loop.h): the loop waits on its handle, dispatches it on the loop
 * thread with the next due update or render as its deadline, parks it until
 * the next frame when it has used its time, guarantees it one unit of work
 * per frame whatever its cost estimate says, keeps it going while paused,
 * and shows it in its statistics and overlay. No watch, no snooze, no
 * deadline arithmetic in game code:
 *
 *   tempo_netq_attach(q, loop, on_message, game);   // tempo/netq.h
 *   tempo_loader_attach(ld, loop);                   // results reach `done`
 *   tempo_audio_attach(au, loop, on_notice, game);   // marks reach on_notice
 *   tempo_net_attach(net, loop, on_message, game);   // its queue, as netq
 *   tempo_input_attach(in, loop);                    // or tempo_loop_desc.input
 *
 * The game's own handles keep the plain tempo_loop_watch(). Do not watch
 * the handles of these objects (tempo_netq_handle, tempo_loader_handle,
 * tempo_audio_handle) instead of attaching them: each is a manual-reset
 * event that stays signalled until its work is done, so a watch whose
 * callback leaves work makes the loop wake again at once, spinning, with
 * no pacing, no progress guarantee and no statistics.
 *
 * One shape for all: attach(object, loop[, fn, user]) and detach(object).
 * The object remembers its loop, so detaching needs no loop argument.
 *
 * Lifetime, in any order: an attached object leaves its loop with its
 * detach function (or tempo_loop_remove_source with its handle), when it is
 * destroyed (tempo_loader_destroy, tempo_audio_destroy, tempo_netq_destroy,
 * tempo_net_destroy, tempo_input_destroy detach first), and when the loop is destroyed (the
 * object then knows it is no longer attached: its detach returns
 * TEMPO_EINVAL, and it may be attached to another loop). So the loop never
 * waits on a freed handle, whichever is destroyed first. The one thing
 * refused: destroying an object from its own callback (a loader's done, an
 * audio notice, a queue's handler), where the loop still uses it: the
 * destroy then does nothing (TEMPO_EBUSY in tempo_get_error()); destroy it
 * after the callback returns.
 *
 * Thread: all of these run on the loop thread.
 */
#ifndef TEMPO_SOURCES_H
#define TEMPO_SOURCES_H

#include "audio.h"
#include "base.h"
#include "input.h"
#include "loader.h"
#include "netq.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_loop tempo_loop; /* tempo/loop.h */
typedef struct tempo_net tempo_net;   /* tempo/net.h */

/* The loader's finished results: each frame the loop finalizes and delivers
 * them (each request's `done`) in the idle time before the next update or
 * render, and at least one per frame, however long one takes (the loader's
 * running cost estimate can no longer starve delivery). An image whose
 * texture upload does not fit before the deadline goes up in strips of rows
 * sized by the learnt upload cost, one strip batch per dispatch, and is
 * delivered when its last rows are up: a strip counts as one unit (of the
 * per-frame guarantee and of the "loader" items in the statistics, which
 * are deliveries plus strips; tempo_loader_stats.upload_strips has the
 * strips). While paused it
 * keeps delivering, a step at a time. The loader's desc.clock must be the
 * loop's clock (both default to tempo_now_ns()). Named "loader" in the
 * statistics (without item ages: each result's latency_ns has it).
 * tempo_loader_destroy() detaches it first. Returns 0, TEMPO_EINVAL (NULL),
 * TEMPO_EBUSY (already attached to a loop), TEMPO_ETOOMANY (no source
 * slot) or TEMPO_ENOMEM. */
TEMPO_API int tempo_loader_attach(tempo_loader *loader, tempo_loop *loop);
/* Leaves the loop it is attached to; results wait in the loader again
 * (tempo_loader_process). Returns 0, TEMPO_EINVAL (NULL, not attached) or
 * TEMPO_EBUSY (from its own dispatch). */
TEMPO_API int tempo_loader_detach(tempo_loader *loader);

/* Called for each audio notice, in the order raised, on the loop thread. */
typedef void (*tempo_audio_notice_fn)(const tempo_audio_notice *notice, void *user);

/* The audio's notices (tempo_audio_mark, _mark_end): the loop reads them
 * with tempo_audio_poll() and calls fn(notice, user) for each. Named "audio"
 * in the statistics (its oldest age is how long a notice waited after being
 * raised). Do not call tempo_audio_poll() yourself while attached. While
 * attached, the audio follows the loop's game pause and idle pause as its
 * desc asked (tempo_audio_desc.pause_with_game, quiet_when_idle; from the
 * attach on: a loop already paused pauses it at once); detaching ends
 * that. tempo_audio_destroy() detaches it first. Returns 0, TEMPO_EINVAL,
 * TEMPO_EBUSY (already attached to a loop), TEMPO_ETOOMANY or
 * TEMPO_ENOMEM. */
TEMPO_API int tempo_audio_attach(tempo_audio *au, tempo_loop *loop, tempo_audio_notice_fn fn, void *user);
/* Leaves the loop it is attached to. Returns 0, TEMPO_EINVAL (NULL, not
 * attached) or TEMPO_EBUSY (from its own notice callback). */
TEMPO_API int tempo_audio_detach(tempo_audio *au);

/* The network thread's queue (tempo_net_desc.queue), attached as by
 * tempo_netq_attach(): frames and TEMPO_NET_MSG_CONNECTED / _CLOSED /
 * _ERROR reach fn on the loop thread. Only in builds with the `net` option
 * (tempo/net.h). tempo_net_destroy() detaches the queue (the queue itself
 * outlives the net: tempo_netq_destroy detaches it too), except when called
 * from the queue's own handler (a reconnect on CLOSED): the queue then stays
 * attached and keeps delivering to fn, so give the new net the same queue
 * and do not attach again. Returns as tempo_netq_attach(). */
TEMPO_API int tempo_net_attach(tempo_net *net, tempo_loop *loop, tempo_netq_handler fn, void *user);
/* Detaches the net's queue. Returns as tempo_netq_detach(). */
TEMPO_API int tempo_net_detach(tempo_net *net);

/* The loop's input buffer (tempo/input.h): what tempo_loop_desc.input does
 * at create, later. Every SDL event the loop takes goes to
 * tempo_input_handle_sdl(in, ...) first, desc.input_event becomes the
 * input's listener, a paused loop suspends its controller polling, native
 * input (tempo_input_attach_window) becomes one of the loop's sources, and
 * a recording or replay takes its ring over from the attach on (see
 * desc.input in tempo/loop.h). One input per loop, one loop per input.
 * tempo_input_destroy() detaches it first, and tempo_loop_destroy() lets
 * go of it: destroy them in any order (not the input from its own
 * listener). Returns 0 (also when already attached to this loop),
 * TEMPO_EINVAL (NULL) or TEMPO_EBUSY (attached to another loop, or the loop
 * has another input). */
TEMPO_API int tempo_input_attach(tempo_input *in, tempo_loop *loop);
/* Leaves the loop: SDL events reach the event callback only, the listener
 * and any polling suspension of the loop's are lifted, native input leaves
 * the wait set, and a recording or replay lets go of the ring. Events in
 * the ring stay. Returns 0 or TEMPO_EINVAL (NULL, not attached). */
TEMPO_API int tempo_input_detach(tempo_input *in);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_SOURCES_H */
