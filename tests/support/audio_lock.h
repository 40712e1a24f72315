/* Holding SDL's audio callback from a test: the audio tests lock every open
 * device while they set up plays and marks, so no buffer is mixed in between
 * (SDL_mixer does not say which device it opened; SDL's device locks are
 * recursive and Tempo takes them too).
 *
 * The open devices are looked up before any is locked, and the unlock takes
 * the same list: nothing asks SDL_GetAudioDeviceStatus while a lock is held.
 * On sdl2-compat SDL_LockAudioDevice locks the SDL3 audio stream bound to the
 * device (sdl2_compat.c, SDL_LockAudioDevice), while SDL_GetAudioDeviceStatus
 * asks SDL3_AudioDevicePaused, which takes the physical device's lock
 * (SDL_audio.c, ObtainLogicalAudioDevice). SDL3's audio thread takes the two
 * the other way round: the device lock for a whole iteration, and inside it
 * the stream's to pull the mix (SDL_PlaybackAudioThreadIterate). A status
 * asked under the lock while that thread waited for it deadlocked the tests
 * (issue 36, item 8: audio-pause 3 of 3 runs, audio-ms 1 of 3). */
#ifndef TEMPO_TESTS_AUDIO_LOCK_H
#define TEMPO_TESTS_AUDIO_LOCK_H

#include <SDL.h>

typedef struct tt_audio_lock {
    SDL_AudioDeviceID ids[16];
    int n;
} tt_audio_lock;

/* Locks every open audio device; `l` remembers which, for tt_audio_unlock. */
static inline void tt_audio_lock_all(tt_audio_lock *l)
{
    l->n = 0;
    for (SDL_AudioDeviceID id = 1; id < 16; id++)
        if (SDL_GetAudioDeviceStatus(id) != SDL_AUDIO_STOPPED)
            l->ids[l->n++] = id;
    for (int i = 0; i < l->n; i++)
        SDL_LockAudioDevice(l->ids[i]);
}

/* Unlocks what tt_audio_lock_all locked, in the reverse order. */
static inline void tt_audio_unlock_all(tt_audio_lock *l)
{
    for (int i = l->n; i-- > 0;)
        SDL_UnlockAudioDevice(l->ids[i]);
    l->n = 0;
}

#endif
