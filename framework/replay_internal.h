/* What replay.c calls below it: the input ring's tap and hold (input.c)
 * and the registry's channels (loop_sources.c). The loop calls replay.c
 * only through the hooks it installed (tempo__loop_hooks, loop_internal.h).
 * Everything here runs on the loop thread. */
#ifndef TEMPO_REPLAY_INTERNAL_H
#define TEMPO_REPLAY_INTERNAL_H

#include "tempo/input.h"
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

/* ---- The sources' channels (the registry, loop_sources.c) ---- */

/* Channel ids from here up belong to sources (tempo_loop_add_source with
 * desc.deliver; the registry gives them out: sources_internal.h); games use
 * the ones below (tempo_loop_channel refuses the others). */
#define TEMPO__REPLAY_SOURCE_CHANNELS UINT32_C(0x80000000)

/* Finds the source added with `handle`: its deliver, self and channel.
 * Returns 0 or TEMPO_EINVAL (no such source, or no deliver). */
int tempo__loop_source_lookup(tempo_loop *loop, tempo_handle *handle, tempo_source_deliver_fn *deliver, void **self,
                              uint32_t *channel);

/* Finds the source whose channel is `channel`: its deliver and self.
 * Returns 0 or TEMPO_EINVAL (no source of the loop has it now). */
int tempo__loop_channel_source(tempo_loop *loop, uint32_t channel, tempo_source_deliver_fn *deliver, void **self);

#endif /* TEMPO_REPLAY_INTERNAL_H */
