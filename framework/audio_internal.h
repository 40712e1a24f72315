/* Internals of tempo_audio shared by audio.c and audio_source.c (the loop
 * source): following the loop's pauses. [loop thread] */
#ifndef TEMPO_AUDIO_INTERNAL_H
#define TEMPO_AUDIO_INTERNAL_H

#include "tempo/audio.h"

/* The loop's idle pause and game pause changed (or the audio was attached
 * to, or detached from, a loop: both false then). Pauses or resumes the
 * audio as desc.pause_with_game and desc.quiet_when_idle ask; an idle
 * pause with quiet_when_idle starts settling towards the device hold.
 * `quitting`: the loop has quit, so the game is about to tear down: the
 * device hold is let go (the audio stays paused) and not taken again, so
 * a thread the teardown joins (a loader decoding a sound, which takes the
 * audio lock) is never left waiting for it. */
void tempo__audio_follow_loop(tempo_audio *au, bool idle_paused, bool game_paused, bool quitting);

/* One step of an idle pause's settling: returns 1 while the device still
 * needs silent buffers before its thread is stopped (call again at the
 * next paused frame), 0 once it is held (or nothing is settling). */
int tempo__audio_settle(tempo_audio *au);

#endif /* TEMPO_AUDIO_INTERNAL_H */
