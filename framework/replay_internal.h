/* Record/replay hooks between replay.c, the loop (loop.c) and the input
 * ring (input.c). Everything here runs on the loop thread. */
#ifndef TEMPO_REPLAY_INTERNAL_H
#define TEMPO_REPLAY_INTERNAL_H

#include "tempo/input.h"
#include "tempo/loader.h"
#include "tempo/loop.h"
#include "tempo/replay.h"

/* ---- input.c ---- */

/* Called by tempo_input_push (and so by the loop's SDL and native input)
 * with every event that enters the ring: how the recorder sees the input
 * that reaches the game. */
typedef void (*tempo__input_tap_fn)(void *user, const tempo_input_event *ev);

/* Sets (or with tap NULL removes) the ring's tap. */
void tempo__input_set_tap(tempo_input *in, tempo__input_tap_fn tap, void *user);

/* While held, tempo_input_push ignores events (and returns 0): a replay
 * lifts it only to push the recorded events and during update(). */
void tempo__input_set_hold(tempo_input *in, bool hold);

/* Calls fn(user, ev) for the queued events, oldest first. */
void tempo__input_each(const tempo_input *in, tempo__input_tap_fn fn, void *user);

/* Empties the ring without counting the events as delivered or dropped and
 * forgets the newest time, so replayed events keep their recorded times. */
void tempo__input_clear(tempo_input *in);

/* ---- Framework sources (netq.c, audio_source.c) ---- */

/* Channel ids from here up belong to framework sources; games use the
 * ones below (tempo_loop_channel refuses the others). */
#define TEMPO__REPLAY_SOURCE_CHANNELS UINT32_C(0x80000000)
enum { TEMPO__REPLAY_NETQ = 1, TEMPO__REPLAY_AUDIO = 2, TEMPO__REPLAY_LOADER = 3 };

/* True while the loop replays a recording. */
bool tempo__replay_active(const tempo_loop *loop);

/* ---- loader.c ---- */

/* Called with every result the loader delivers (right before its `done`,
 * also for requests without one; not for the cancellations of destroy). */
typedef void (*tempo__loader_tap_fn)(void *user, const tempo_load_result *res);
void tempo__loader_set_tap(tempo_loader *loader, tempo__loader_tap_fn tap, void *user);

/* Delivers request `id` now (finalize + done), waiting up to timeout_ns of
 * real time for the loader threads to finish it: how a replay hands a live
 * result to the game at its recorded tick. Returns 0, TEMPO_ENOENT (not
 * submitted, or delivered already), TEMPO_ETIMEDOUT or TEMPO_EBUSY (from
 * a done callback). [loop thread] */
int tempo__loader_deliver_id(tempo_loader *loader, uint64_t id, uint64_t timeout_ns);

/* Registers fn as the channel of a framework source of `kind` attached to
 * the loop, and returns its id (0: no memory): the source then hands each
 * item to the game with tempo_loop_deliver(loop, id, item), which records
 * it, or in a replay drops it (the recorded one comes at its tick). */
uint32_t tempo__replay_attach_channel(tempo_loop *loop, uint32_t kind, tempo_replay_item_fn fn, void *user);

/* Removes it (the source left the loop). id 0: nothing. */
void tempo__replay_detach_channel(tempo_loop *loop, uint32_t id);

/* ---- loop.c (only when loop->replay is set) ---- */

/* Right before update(): returns the dt_ns the update gets. */
uint64_t tempo__replay_before_update(tempo_loop *loop, uint64_t dt_ns);

/* Right after update(). */
void tempo__replay_after_update(tempo_loop *loop);

/* From tempo_loop_destroy(): stops a recording, detaches a replay, frees
 * the channels. */
void tempo__replay_loop_destroy(tempo_loop *loop);

#endif /* TEMPO_REPLAY_INTERNAL_H */
