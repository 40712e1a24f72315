/* Tempo: SDL_mixer playback with position notifications.
 *
 * A thin layer over SDL_mixer that adds what DirectSound's
 * SetNotificationPositions gave: "signal this handle when this channel's (or
 * the music's) playback passes sample frame N" and "when it finishes". The
 * audio thread raises the notification, setting Tempo handles (which wake the
 * loop's wait) and queueing a notice with the exact positions and times; the
 * loop thread reads the notices. Nothing here calls SDL_mixer from inside
 * SDL_mixer's callbacks: those only count frames, record and signal.
 *
 *   tempo_audio *au = tempo_audio_create(NULL);
 *   tempo_audio_attach(au, loop, on_notice, game);    // a source of the loop
 *   int ch = tempo_audio_play(au, -1, click, 0);
 *   tempo_audio_mark(au, ch, 24000, NULL, 1);   // frame 24000: 0.5 s at 48 kHz
 *   tempo_audio_mark_ms(au, ch, 750, NULL, 3);  // or in time: 750 ms in
 *   tempo_audio_mark_end(au, ch, NULL, 2);
 *   ...
 *   static void on_notice(const tempo_audio_notice *n, void *user)
 *   {
 *       on_beat(user, n->tag, n->play_ns);   // on the loop thread, in order
 *   }
 *
 * tempo_audio_attach makes the notices a source of the loop (tempo/source.h):
 * the loop waits on the audio's handle, reads the notices and calls
 * on_notice, paced and counted like every source, recorded and replayed
 * with the loop. Do not tempo_loop_watch() tempo_audio_handle(): it is a
 * manual-reset event that stays signalled until the notices are read, so a
 * watch whose callback does not empty the queue makes the loop spin. Without
 * a loop, wait on the handle yourself and read with tempo_audio_poll().

 * What "passed" means. SDL pulls audio in device buffers of buffer_frames.
 * The mixer renders a buffer just before handing it to the device, and a
 * notice is raised while the buffer that contains frame N is being mixed:
 * the device has then played every buffer before it (so the notice is never
 * more than one buffer early relative to the nominal position, and never
 * before the device has consumed the buffers ahead of N), and frame N
 * reaches the speaker a little later, after its offset within the buffer
 * plus the output latency (SDL's queue and the driver's). Each notice carries
 * both: `raised_ns` (when it was raised) and `play_ns` (the estimate of when
 * frame N is heard), so a rhythm game judges against play_ns.
 *
 * Positions count sample frames at the device rate (one frame = one sample
 * per output channel) from the start of the play, continuing across loops.
 * They follow plays started through this API; SDL_mixer calls made directly
 * on the same channels (Mix_Pause, Mix_SetMusicPosition, fades that halt a
 * channel are fine) may make them disagree with what is heard: pause with
 * tempo_audio_pause(), which stops the positions with the sound.
 *
 * Pause. tempo_audio_pause() pauses every play and the music; their
 * positions stand still, so no mark is raised while paused, and after
 * tempo_audio_resume() they go on from the same frame (the notices'
 * device_frame then includes the paused time). Plays started while paused
 * play (a pause menu's clicks) and are not touched by the resume. Attached
 * to a loop, the audio can also follow the loop's pauses (desc fields
 * pause_with_game and quiet_when_idle).
 *
 * Formats: call Mix_Init before loading music in OGG, MP3, FLAC or OPUS.
 * Mix_Init(MIX_INIT_OGG | ...) loads a format's decoder; without it
 * SDL_mixer loads the decoder on the first Mix_LoadMUS of that format,
 * unlocked (a race when that load runs on the loader's thread while another
 * load or playback starts elsewhere), and a build whose decoder library is
 * missing only fails then. tempo_audio_create() calls Mix_Init for OGG, MP3,
 * FLAC and OPUS on the loop thread (each this SDL_mixer supports; a missing
 * one is logged at DEBUG, and loading that format then fails with
 * SDL_mixer's error), so music loaded after it needs nothing more. Music
 * loaded before tempo_audio_create (or without a tempo_audio) needs your own
 * Mix_Init first (tempo/loader.h). WAV needs no decoder. Tempo never calls
 * Mix_Quit() (the game may have its own Mix_Init); call it at exit if you
 * like.
 *
 * One tempo_audio may be open at a time (SDL_mixer has one global mixer);
 * it owns SDL_mixer's device and its music-finished hook. Do not call
 * Mix_OpenAudio/Mix_CloseAudio/Mix_HookMusicFinished/Mix_AllocateChannels
 * yourself while it is open.
 *
 * Thread: every function runs on the loop thread unless it says otherwise.
 */
#ifndef TEMPO_AUDIO_H
#define TEMPO_AUDIO_H

#include <SDL_mixer.h>

#include "base.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SDL_mixer's types are named by their typedefs, Mix_Chunk and Mix_Music, from SDL_mixer.h:
 * the struct tag behind Mix_Music is `_Mix_Music` in SDL_mixer 2.6 and `Mix_Music` from 2.8
 * on, so only the typedef names the same type on both (a forward-declared tag made every
 * game's Mix_Music * an incompatible pointer on 2.8, an error under gcc 14). */

/* The channel number that names the music stream in marks and notices. */
#define TEMPO_AUDIO_MUSIC (-2)

typedef struct tempo_audio tempo_audio;
typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

/* Every int field is 0 (the default) or in the range beside it; anything
 * else makes tempo_audio_create fail with TEMPO_EINVAL. */
typedef struct tempo_audio_desc {
    int frequency;       /* sample frames per second, 8000..384000; 0 = 48000 */
    int channels;        /* output channels, 1..8 (SDL2's most); 0 = 2 (stereo) */
    int buffer_frames;   /* device buffer in frames, 64..32768 and at most 200 ms long
                            (frequency / 5 frames: closing the device waits for up to 3
                            buffers, SDL2's drain); 0 = 1024 (21.3 ms at 48 kHz): the
                            granularity of notices and part of the output latency */
    int mix_channels;    /* SDL_mixer channels (Mix_AllocateChannels), 1..1024; 0 = 16 */
    int max_markers;     /* marks outstanding at once (pending or unread), 1..1048576
                            (allocated at create); 0 = 256 */
    const char *device;  /* output device name; NULL = the default device */
    uint64_t latency_ns; /* output latency added to play_ns; 0 = one device buffer
                            (SDL2's usual queue; measure the real one to calibrate) */
    /* Attached to a loop (tempo_audio_attach), pause the audio as
     * tempo_audio_pause does while the loop's game pause is on
     * (tempo_loop_set_game_paused: a pause menu). false => the game pause
     * leaves the audio alone. */
    bool pause_with_game;
    /* Attached to a loop, pause the audio while the loop is idle-paused
     * (minimized, hidden, tempo_loop_pause: desc.on_pause's pauses), and
     * then stop SDL's audio thread, so a minimized game is quiet: after
     * about 10 device buffers of silence (which the device plays meanwhile)
     * the loop thread holds the device's lock (SDL_LockAudioDevice), on
     * which the audio thread then blocks until the resume releases it. An
     * SDL2 device paused with SDL_PauseAudioDevice would still wake for
     * every buffer to write silence (~47 times/s at 48 kHz and 1024 frames).
     * While held: the device is not fed (drivers play silence, an underrun);
     * plays started meanwhile start at the resume; and any SDL_mixer call
     * that takes the audio lock (Mix_PlayChannel, Mix_FreeChunk,
     * Mix_FreeMusic, and the loader decoding a non-WAV sound, see
     * tempo/loader.h) from a thread other than the loop thread waits for
     * the resume, so make those on the loop thread. On sdl2-compat (SDL3
     * underneath) the held lock also keeps SDL's device lock taken, so
     * SDL's own device calls (SDL_GetAudioDeviceStatus,
     * SDL_PauseAudioDevice, SDL_CloseAudioDevice) wait for the resume from
     * every thread, the loop thread included: leave the device to Tempo
     * while the loop is paused. The hold also ends
     * when the loop quits (the audio stays paused) and when the audio is
     * detached or closed, so a teardown never waits for it. false => the
     * idle pause leaves the audio playing. */
    bool quiet_when_idle;
} tempo_audio_desc;

/* The format actually in use (SDL converts everything to it). */
typedef struct tempo_audio_spec {
    int frequency;
    int channels;
    int buffer_frames;
    int bytes_per_frame; /* 16-bit samples: 2 * channels */
    uint16_t format;     /* SDL_AudioFormat, AUDIO_S16SYS */
} tempo_audio_spec;

typedef enum tempo_audio_notice_kind {
    TEMPO_AUDIO_MARK = 1,     /* playback passed the marked frame */
    TEMPO_AUDIO_END = 2,      /* the play finished (ended, halted or replaced) */
    TEMPO_AUDIO_CANCELED = 3, /* the play ended before reaching the marked frame */
} tempo_audio_notice_kind;

/* One notification, copied by value. */
typedef struct tempo_audio_notice {
    uint32_t kind;         /* tempo_audio_notice_kind */
    int32_t channel;       /* mixer channel, or TEMPO_AUDIO_MUSIC */
    uint64_t tag;          /* the caller's value from the mark */
    uint64_t frame;        /* MARK/CANCELED: the marked frame; END: frames played in all
                              (music that ends by itself: to within one buffer) */
    uint64_t device_frame; /* the same point on the device's clock: frames the device has
                              been given since open (start of play + frame) */
    uint64_t mixed_frames; /* device frames mixed before the buffer that raised it:
                              mixed_frames <= device_frame < mixed_frames + buffer_frames
                              for a MARK raised on time */
    uint64_t raised_ns;    /* tempo_now_ns() on the thread that raised it */
    uint64_t play_ns;      /* estimate of when `frame` is heard: the start of the buffer
                              holding it + its offset in the buffer + latency_ns */
} tempo_audio_notice;

typedef struct tempo_audio_stats {
    uint64_t device_frames; /* frames mixed since open (the audio clock) */
    uint64_t buffers;       /* device buffers mixed */
    uint64_t start_ns;      /* when the first buffer began mixing (0 before that) */
    uint64_t last_buffer_ns; /* when the latest buffer began mixing; its first frame is
                                device_frames - buffer_frames. With start_ns this gives
                                the device's real clock rate (drivers drift from nominal) */
    uint64_t notices;       /* notices raised */
    uint32_t pending;       /* marks not yet reached */
    uint32_t outstanding;   /* marks not yet read by tempo_audio_poll */
    bool paused;            /* tempo_audio_is_paused() */
    bool quiet;             /* quiet_when_idle: the device's thread is held now */
} tempo_audio_stats;

/* Opens the audio device through SDL_mixer (initialising SDL's audio
 * subsystem; close quits it again) with 16-bit samples in the requested
 * format exactly (SDL converts), and starts it playing silence. `desc` may
 * be NULL. Returns the object, owned by the caller, or NULL: TEMPO_EBUSY if
 * a tempo_audio or SDL_mixer device is already open, TEMPO_EINVAL for a
 * field outside its range (tempo_audio_desc; tempo_get_error() names the
 * field, its value and the range; nothing is opened), TEMPO_EPLATFORM if
 * SDL/SDL_mixer fail (detail in tempo_get_error()). */
TEMPO_API tempo_audio *tempo_audio_create(const tempo_audio_desc *desc);

/* Halts everything, closes the device, frees the object. Notices not yet
 * read are discarded; no handle is signalled after this returns. If
 * attached (tempo_audio_attach), it leaves its loop first (closing after
 * the loop's destroy is fine too). NULL is a no-op. From its own notice
 * callback it does nothing (TEMPO_EBUSY in tempo_get_error()): close after
 * the callback returns. */
TEMPO_API void tempo_audio_destroy(tempo_audio *au);

/* Fills *out. Returns 0 or TEMPO_EINVAL. Thread: any. */
TEMPO_API int tempo_audio_get_spec(const tempo_audio *au, tempo_audio_spec *out);

/* The manual-reset event that is signalled while notices are waiting to be
 * read (tempo_audio_poll resets it when it empties the queue). With a loop,
 * attach the audio instead (tempo_audio_attach, below): the loop
 * then waits on this handle itself. Do not tempo_loop_watch() it: it stays
 * signalled until the notices are read, so the loop would wake again at
 * once, spinning. Without a loop, tempo_wait() on it. Owned by `au`; valid
 * until tempo_audio_destroy. */
TEMPO_API tempo_handle *tempo_audio_handle(tempo_audio *au);

/* Called for each audio notice, in the order raised, on the loop thread. */
typedef void (*tempo_audio_notice_fn)(const tempo_audio_notice *notice, void *user);

/* Makes the audio's notices (tempo_audio_mark, _mark_end) a source of
 * `loop`: the loop reads them with tempo_audio_poll() and calls fn(notice,
 * user) for each. Named "audio" in the statistics (its oldest age is how
 * long a notice waited after being raised). Do not call tempo_audio_poll()
 * yourself while attached. While attached, the audio follows the loop's game
 * pause and idle pause as its desc asked (tempo_audio_desc.pause_with_game,
 * quiet_when_idle; from the attach on: a loop already paused pauses it at
 * once); detaching ends that. tempo_audio_destroy() detaches it first.
 * Returns 0, TEMPO_EINVAL, TEMPO_EBUSY (already attached to a loop),
 * TEMPO_ETOOMANY or TEMPO_ENOMEM. Thread: loop thread. */
TEMPO_API int tempo_audio_attach(tempo_audio *au, tempo_loop *loop, tempo_audio_notice_fn fn, void *user);
/* Leaves the loop it is attached to. Returns 0, TEMPO_EINVAL (NULL, not
 * attached) or TEMPO_EBUSY (from its own notice callback). Thread: loop
 * thread. */
TEMPO_API int tempo_audio_detach(tempo_audio *au);

/* Plays `chunk` (loaded in the device format, e.g. Mix_LoadWAV or
 * Mix_QuickLoad_RAW after tempo_audio_get_spec) on `channel`, or on a free
 * channel if channel is -1; `loops` extra repetitions (-1: forever). A play
 * already on that channel is halted first (its END mark fires, its unreached
 * marks are CANCELED). Positions of the new play start at frame 0 at the
 * start of the next device buffer. The chunk must stay alive while it plays.
 * Returns the channel, TEMPO_EBUSY (no free channel: logged at DEBUG only,
 * a busy scene is no fault), TEMPO_EINVAL or TEMPO_EPLATFORM (SDL_mixer's
 * error in tempo_get_error()). */
TEMPO_API int tempo_audio_play(tempo_audio *au, int channel, Mix_Chunk *chunk, int loops);

/* Halts `channel` (-1: every channel). Its END marks fire, unreached marks
 * are CANCELED. Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_audio_stop(tempo_audio *au, int channel);

/* Plays `music` (Mix_LoadMUS...) from its start, `loops` times (-1: forever;
 * 0 and 1 both mean once, as in Mix_PlayMusic), halting the music playing
 * before. Marks use channel TEMPO_AUDIO_MUSIC. The music must stay alive
 * while it plays. Returns 0, TEMPO_EINVAL or TEMPO_EPLATFORM. */
TEMPO_API int tempo_audio_play_music(tempo_audio *au, Mix_Music *music, int loops);

/* Halts the music (END marks fire). Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_audio_stop_music(tempo_audio *au);

/* Asks for a MARK notice when the play most recently started on `channel`
 * (or TEMPO_AUDIO_MUSIC) passes `frame`. If it already has, the notice is
 * raised at once; if the play ends first, a CANCELED notice is raised
 * instead. `signal` (may be NULL) is an event that is set together with the
 * notice (not for CANCELED), from the audio thread; it must stay alive until
 * the notice is read or the audio closed. `tag` is returned in the notice.
 * Returns 0, TEMPO_EFULL (max_markers outstanding: read notices first),
 * TEMPO_EINVAL (bad channel, nothing was ever played on it, signal not an
 * event). */
TEMPO_API int tempo_audio_mark(tempo_audio *au, int channel, uint64_t frame, tempo_handle *signal,
                               uint64_t tag);

/* The first device frame at or after `ms` milliseconds into a play:
 * ceil(ms * frequency / 1000), so a mark placed with it is never raised for
 * a frame before that time (at 44.1 kHz, 1 ms is frame 45, not 44). Writes
 * *frame and returns 0, TEMPO_EINVAL (NULL arguments) or TEMPO_ERANGE (the
 * frame does not fit in 64 bits). Thread: any. */
TEMPO_API int tempo_audio_frame_at_ms(const tempo_audio *au, uint64_t ms, uint64_t *frame);

/* The time of `frame` into a play in whole milliseconds, rounded down
 * (floor(frame * 1000 / frequency)): the inverse of tempo_audio_frame_at_ms
 * for display (notice.frame in ms). Returns 0 for a NULL `au`. Thread: any. */
TEMPO_API uint64_t tempo_audio_ms_at_frame(const tempo_audio *au, uint64_t frame);

/* tempo_audio_mark() at a time instead of a frame: when the play passes
 * `ms` milliseconds (the frame tempo_audio_frame_at_ms gives, which the
 * notice's `frame` field then holds). Same arguments and results as
 * tempo_audio_mark, plus TEMPO_ERANGE for an `ms` beyond 64-bit frames. */
TEMPO_API int tempo_audio_mark_ms(tempo_audio *au, int channel, uint64_t ms, tempo_handle *signal,
                                  uint64_t tag);

/* Asks for an END notice when the play most recently started on `channel`
 * finishes (at once if it already has). Same arguments and results as
 * tempo_audio_mark. */
TEMPO_API int tempo_audio_mark_end(tempo_audio *au, int channel, tempo_handle *signal, uint64_t tag);

/* Takes the oldest notice into *out. Notices come in the order they were
 * raised (for one play: increasing frame, then its END). Returns 1 if one
 * was taken, 0 if none is waiting (the handle is then reset), TEMPO_EINVAL. */
TEMPO_API int tempo_audio_poll(tempo_audio *au, tempo_audio_notice *out);

/* Pauses every play and the music (Mix_Pause, Mix_PauseMusic) between two
 * device buffers: their positions stop, so no MARK is raised while paused,
 * and they go on from the same frame after tempo_audio_resume(). Plays
 * started while paused play normally; the resume does not touch them. END
 * and CANCELED still come when a paused play is stopped or replaced. The
 * device keeps running (playing silence for the paused plays). Pausing a
 * paused audio does nothing (no counting: one resume undoes any number of
 * pauses). In the millisecond in which SDL's tick count reads 0 (the first
 * after SDL starts its timer, and every 49.7 days) it waits about 1 ms:
 * SDL_mixer 2's Mix_Pause does nothing then. Returns 0 or TEMPO_EINVAL
 * (NULL). */
TEMPO_API int tempo_audio_pause(tempo_audio *au);

/* Resumes what tempo_audio_pause() paused, from where it stood, unless a
 * loop pause the audio follows (desc.pause_with_game, quiet_when_idle) is
 * still on: then it resumes when that ends. Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_audio_resume(tempo_audio *au);

/* True while paused, by tempo_audio_pause() or a loop pause it follows.
 * false for NULL. */
TEMPO_API bool tempo_audio_is_paused(const tempo_audio *au);

/* Fills *out. Returns 0 or TEMPO_EINVAL. */
TEMPO_API int tempo_audio_get_stats(const tempo_audio *au, tempo_audio_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_AUDIO_H */
