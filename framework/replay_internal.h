/* Record/replay hooks between replay.c, the loop (loop.c) and the input
 * ring (input.c). Everything here runs on the loop thread. */
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

/* ---- Sources (loop.c) ---- */

/* Channel ids from here up belong to sources (tempo_loop_add_source with
 * desc.deliver); games use the ones below (tempo_loop_channel refuses the
 * others). */
#define TEMPO__REPLAY_SOURCE_CHANNELS UINT32_C(0x80000000)

/* A source with desc.deliver was added: registers its channel and returns
 * the id (0: no memory; the source then runs unrecorded). The id is the
 * same in every run that adds sources of the same names in the same order:
 * 0x80000000 | class << 16 | index among the sources of its class, where
 * "netq" is class 1, "audio" 2 and "loader" 3 (the ids of recordings made
 * before the contract, which still replay), other names 4, 5, ... in the
 * order they first appear in this loop. */
uint32_t tempo__replay_source_added(tempo_loop *loop, const char *name, tempo_source_deliver_fn deliver, void *self);

/* The source left the loop: its channel goes. id 0: nothing. */
void tempo__replay_source_removed(tempo_loop *loop, uint32_t id);

/* Finds the source added with `handle` (loop.c): its deliver, self and
 * channel. Returns 0 or TEMPO_EINVAL (no such source, or no deliver). */
int tempo__loop_source_lookup(tempo_loop *loop, tempo_handle *handle, tempo_source_deliver_fn *deliver, void **self,
                              uint32_t *channel);

#endif /* TEMPO_REPLAY_INTERNAL_H */
