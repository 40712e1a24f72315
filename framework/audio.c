/* Audio: SDL_mixer playback with position notifications.
 *
 * Counting. Every play started here gets an effect on its channel
 * (Mix_RegisterEffect): SDL_mixer calls it with exactly the bytes of the
 * chunk it mixes into the current device buffer, so summing them gives the
 * frames played, across loops, without touching the audio. The effect's
 * "done" callback tells us the play ended (finished, halted, replaced).
 * Music has no per-stream effect in SDL_mixer 2, so a MIX_CHANNEL_POST
 * effect (run once per device buffer after everything is mixed) counts the
 * device clock and, while our music plays, its frames: music always starts
 * at a buffer boundary and fills whole buffers until it ends. The music's
 * end comes from Mix_HookMusicFinished. (MIX_CHANNEL_POST rather than
 * Mix_SetPostMix: effects chain, so the game keeps the post-mix slot.)
 *
 * Locking. SDL runs the mixer callback, and so every effect and done
 * callback, under the audio device's lock; SDL_mixer's own API takes the
 * same lock. The loop thread takes it too (SDL_LockAudioDevice on the
 * mixer's device, found when we open it) around "halt, reset the counters,
 * register the effect, play" and around adding marks, so a play always
 * starts at the buffer boundary our counters expect and marks never race
 * the callbacks. Everything marked [device lock] is only touched under it.
 *
 * Notices travel from whoever raised them (the audio thread, or the loop
 * thread inside a halt) to the loop thread through a single-producer ring:
 * producers are serialised by the device lock, the consumer is the loop
 * thread. Its capacity equals max_markers and every notice belongs to one
 * outstanding mark, so it never overflows. Raising a notice only stores it
 * and calls tempo_event_set (one short lock, never blocks on a waiter).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "audio_internal.h"
#include "handle_pool.h"
#include "platform.h"
#include "sources_internal.h"
#include "tempo/audio.h"
#include "tempo_internal.h"

#define DEFAULT_FREQUENCY 48000
#define DEFAULT_CHANNELS 2
#define DEFAULT_BUFFER_FRAMES 1024
#define DEFAULT_MIX_CHANNELS 16
#define DEFAULT_MAX_MARKERS 256
#define MAX_DEVICE_ID 64 /* SDL2 keeps at most 16 open devices; ids are small */

/* What tempo_audio_create accepts (audio.h). Frequency: what sound cards
 * and SDL's resampler do (8 kHz telephone to 384 kHz). Channels: SDL2
 * refuses more than 8. Buffer: SDL's spec.samples is a Uint16 that some
 * backends round up to a power of two, so 32768 is the most that survives;
 * and at most MAX_BUFFER_MS long, because closing waits for the buffer in
 * flight and two more (SDL2's SDL_RunAudio drains with SDL_Delay of two
 * buffers before the device's thread ends): 1024 frames at 1 Hz made
 * tempo_audio_destroy wait 1024 s on the dummy driver. Mixer channels and
 * markers: their tables are allocated whole at create, and SDL_mixer mixes
 * every channel every buffer. */
#define MIN_FREQUENCY 8000
#define MAX_FREQUENCY 384000
#define MAX_CHANNELS 8
#define MIN_BUFFER_FRAMES 64
#define MAX_BUFFER_FRAMES 32768
#define MAX_BUFFER_MS 200
#define MAX_MIX_CHANNELS 1024
#define MAX_MAX_MARKERS (1 << 20)

typedef struct stream {
    uint64_t gen;       /* plays started on it so far (0: never played) */
    bool active;        /* the current play has not ended */
    bool held;          /* paused by tempo_audio_pause (or a followed loop pause) */
    uint64_t frames;    /* frames of the current (or last) play mixed so far */
    uint64_t start_dev; /* device frame where the current play started */
} stream;

typedef struct mark {
    int channel; /* index into streams: mixer channel, or nchan for music */
    uint64_t gen;
    uint64_t frame;
    bool end;
    tempo_handle *signal;
    uint64_t tag;
} mark;

struct tempo_audio {
    tempo_audio_spec spec;
    SDL_AudioDeviceID dev;
    uint64_t latency_ns;
    uint64_t buffer_ns;
    int nchan;            /* mixer channels; streams[nchan] is the music */
    uint32_t max_markers;
    tempo_handle *ready;  /* manual-reset: notices waiting */

    /* [device lock] */
    stream *streams;
    mark *marks;
    uint32_t nmarks;
    uint64_t seq;       /* number of the buffer being mixed */
    uint64_t mixed;     /* device frames before the buffer being mixed */
    uint64_t buf_seq;   /* buffer whose start time buf_ns holds */
    uint64_t buf_ns;    /* when mixing of buffer buf_seq began */
    bool started;

    /* The notice ring: written under the device lock, read by the loop. */
    tempo_audio_notice *ring;
    atomic_uint_fast64_t ring_head, ring_tail; /* counters; slot = counter % cap */

    /* For stats from any thread. */
    atomic_uint_fast64_t stat_frames, stat_buffers, stat_start_ns, stat_last_ns, stat_notices;
    atomic_uint stat_pending;

    /* [loop thread] marks not yet read by tempo_audio_poll */
    uint32_t outstanding;

    /* [loop thread] Pause: why the audio is paused (AUDIO_PAUSE_* bits),
     * what the plays were last told, and the device hold of an idle pause
     * (quiet_when_idle): settling until quiet_seq, then the loop thread
     * holds the device lock, which stops SDL's audio thread. */
    unsigned pause_mask;
    bool paused;
    bool pause_with_game, quiet_when_idle;
    bool settling;      /* waiting for silent buffers before the hold */
    uint64_t quiet_seq; /* the buffer count at which to take the hold */
    uint64_t settle_ns; /* give-up: hold anyway after this (a stuck device) */
    bool holding;       /* the loop thread holds the device lock */
    bool no_hold;       /* the loop quit: no (new) hold */
    atomic_bool stat_paused, stat_quiet;

    tempo__attachment at; /* [loop thread] the loop it is a source of (audio_source.c) */
};

enum {
    AUDIO_PAUSE_USER = 1u << 0, /* tempo_audio_pause */
    AUDIO_PAUSE_GAME = 1u << 1, /* the loop's game pause (pause_with_game) */
    AUDIO_PAUSE_IDLE = 1u << 2, /* the loop's idle pause (quiet_when_idle) */
};

/* Silent buffers the device gets after an idle pause before its thread is
 * stopped: more than a ring of queued buffers (SDL's DirectSound backend
 * keeps 8 and would loop stale sound from an unfed ring), so whatever the
 * driver replays while unfed is silence. */
#define QUIET_BUFFERS 10

/* Mix_HookMusicFinished has no user pointer; only one tempo_audio exists. */
static _Atomic(tempo_audio *) g_audio;

static void lock(tempo_audio *au)
{
    SDL_LockAudioDevice(au->dev);
}

static void unlock(tempo_audio *au)
{
    SDL_UnlockAudioDevice(au->dev);
}

static int music_index(const tempo_audio *au)
{
    return au->nchan;
}

/* ---- Raising notices [device lock] --------------------------------------- */

/* [audio thread, device lock] Called first by every mixing callback: the
 * first call of each buffer notes when its mixing began. */
static void note_buffer_start(tempo_audio *au)
{
    if (au->buf_seq != au->seq) {
        au->buf_seq = au->seq;
        au->buf_ns = tempo_now_ns();
    }
}

/* [device lock] */
static void raise_notice(tempo_audio *au, const mark *m, uint32_t kind, uint64_t frame,
                         uint64_t device_frame)
{
    tempo_audio_notice n;
    memset(&n, 0, sizeof n);
    n.kind = kind;
    n.channel = m->channel == au->nchan ? TEMPO_AUDIO_MUSIC : m->channel;
    n.tag = m->tag;
    n.frame = frame;
    n.device_frame = device_frame;
    n.mixed_frames = au->mixed;
    n.raised_ns = tempo_now_ns();
    /* Between buffers (a halt on the loop thread, the music ending before
     * any effect ran in this buffer) the next buffer starts about now. */
    uint64_t base = au->buf_seq == au->seq ? au->buf_ns : n.raised_ns;
    uint64_t ahead = device_frame > au->mixed ? device_frame - au->mixed : 0;
    n.play_ns = base + ahead * TEMPO_NS_PER_S / (uint64_t)au->spec.frequency + au->latency_ns;

    uint64_t head = atomic_load_explicit(&au->ring_head, memory_order_relaxed);
    au->ring[head % au->max_markers] = n;
    atomic_store_explicit(&au->ring_head, head + 1, memory_order_release);
    atomic_fetch_add_explicit(&au->stat_notices, 1, memory_order_relaxed);
    tempo_event_set(au->ready);
    if (m->signal != NULL && kind != TEMPO_AUDIO_CANCELED)
        tempo_event_set(m->signal);
}

/* [device lock] Removes marks[i] (order among pending marks is irrelevant:
 * each buffer raises in frame order, see fire_passed). */
static void drop_mark(tempo_audio *au, uint32_t i)
{
    au->marks[i] = au->marks[--au->nmarks];
    atomic_store_explicit(&au->stat_pending, au->nmarks, memory_order_relaxed);
}

/* [device lock] Raises, in frame order, every pending mark of stream `ch`'s
 * current play that lies before frames_now. */
/* [device lock] The pending position mark of stream `ch`'s current play with
 * the lowest frame below `limit` (UINT64_MAX: any frame), or UINT32_MAX. */
static uint32_t earliest_mark(const tempo_audio *au, int ch, uint64_t limit)
{
    const stream *s = &au->streams[ch];
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < au->nmarks; i++) {
        const mark *m = &au->marks[i];
        if (m->channel == ch && m->gen == s->gen && !m->end && (limit == UINT64_MAX || m->frame < limit) &&
            (best == UINT32_MAX || m->frame < au->marks[best].frame))
            best = i;
    }
    return best;
}

static void fire_passed(tempo_audio *au, int ch, uint64_t frames_now)
{
    const stream *s = &au->streams[ch];
    for (;;) {
        uint32_t best = earliest_mark(au, ch, frames_now);
        if (best == UINT32_MAX)
            return;
        mark m = au->marks[best];
        drop_mark(au, best);
        raise_notice(au, &m, TEMPO_AUDIO_MARK, m.frame, s->start_dev + m.frame);
    }
}

/* [device lock] The current play of stream `ch` ended: unreached marks are
 * canceled (in frame order), then END marks fire. */
static void finish_stream(tempo_audio *au, int ch)
{
    stream *s = &au->streams[ch];
    if (!s->active)
        return;
    s->active = false;
    s->held = false; /* an ended play is not resumed; its start stays put */
    fire_passed(au, ch, s->frames); /* reached in a call that ended it */
    for (;;) {
        uint32_t best = earliest_mark(au, ch, UINT64_MAX);
        if (best == UINT32_MAX)
            break;
        mark m = au->marks[best];
        drop_mark(au, best);
        raise_notice(au, &m, TEMPO_AUDIO_CANCELED, m.frame, s->start_dev + m.frame);
    }
    for (uint32_t i = 0; i < au->nmarks;) {
        mark *m = &au->marks[i];
        if (m->channel == ch && m->gen == s->gen && m->end) {
            mark copy = *m;
            drop_mark(au, i);
            raise_notice(au, &copy, TEMPO_AUDIO_END, s->frames, s->start_dev + s->frames);
        } else {
            i++;
        }
    }
}

/* ---- SDL_mixer callbacks: count, record, signal; never call SDL_mixer ---- */

/* [audio thread] (or the loop thread inside Mix_* while it holds the lock)
 * A channel play's samples being mixed into the current buffer. */
static void SDLCALL on_channel_mix(int chan, void *stream_buf, int len, void *udata)
{
    (void)stream_buf;
    tempo_audio *au = udata;
    if (chan < 0 || chan >= au->nchan)
        return;
    note_buffer_start(au);
    /* Looping chunks are mixed in two calls per buffer; sums stay exact. */
    au->streams[chan].frames += (uint64_t)len / (uint64_t)au->spec.bytes_per_frame;
    fire_passed(au, chan, au->streams[chan].frames);
}

/* [audio thread or loop thread, device lock] The channel's play ended. */
static void SDLCALL on_channel_done(int chan, void *udata)
{
    tempo_audio *au = udata;
    if (chan >= 0 && chan < au->nchan)
        finish_stream(au, chan);
}

/* [audio thread] After the whole buffer is mixed: the device clock, and the
 * music's frames (it always fills whole buffers while it plays). */
static void SDLCALL on_post_mix(int chan, void *stream_buf, int len, void *udata)
{
    (void)chan;
    (void)stream_buf;
    tempo_audio *au = udata;
    note_buffer_start(au);
    if (!au->started) {
        au->started = true;
        atomic_store_explicit(&au->stat_start_ns, au->buf_ns, memory_order_relaxed);
    }
    uint64_t n = (uint64_t)len / (uint64_t)au->spec.bytes_per_frame;
    stream *music = &au->streams[music_index(au)];
    if (music->active && !music->held) {
        music->frames += n;
        fire_passed(au, music_index(au), music->frames);
    }
    /* A paused play's position stands still while the device clock runs
     * on: its start moves later on the device clock, so device_frame =
     * start_dev + frame stays the buffer that really holds the frame.
     * (SDL_mixer does not mix a paused channel, so its effect is not
     * called and its count stands still by itself.) */
    for (int i = 0; i <= au->nchan; i++)
        if (au->streams[i].held)
            au->streams[i].start_dev += n;
    au->mixed += n;
    au->seq++;
    atomic_store_explicit(&au->stat_last_ns, au->buf_ns, memory_order_relaxed);
    atomic_store_explicit(&au->stat_frames, au->mixed, memory_order_relaxed);
    atomic_store_explicit(&au->stat_buffers, au->seq, memory_order_relaxed);
}

/* [audio thread or loop thread, device lock] Music finished or was halted. */
static void SDLCALL on_music_done(void)
{
    tempo_audio *au = atomic_load(&g_audio);
    if (au != NULL)
        finish_stream(au, music_index(au));
}

/* ---- Pause [loop thread] ---------------------------------------------------- */

/* Gives the device lock back (an idle pause ends, close, detach). */
static void release_hold(tempo_audio *au)
{
    au->settling = false;
    if (au->holding) {
        au->holding = false;
        atomic_store(&au->stat_quiet, false);
        unlock(au);
    }
}

/* [device lock] Mix_Pause(ch) of a playing channel, made to hold.
 * SDL_mixer 2 (2.6 to 2.8) stores the SDL_GetTicks() of the pause as the
 * channel's "paused" field, and 0 there means "playing": during the
 * millisecond in which SDL's 32-bit tick count reads 0 (the first after
 * SDL's timer starts, i.e. a pause at once after opening the audio, and
 * again every 49.7 days when the count wraps) Mix_Pause does nothing, so
 * the play went on and raised its marks while we counted it held. Wait
 * that millisecond out: the audio thread waits with us, at most ~1 ms once
 * per wrap, which the device's queue absorbs. The device lock keeps the
 * channel playing meanwhile (only the mixer and the API end a play). */
static void pause_channel(int ch)
{
    Mix_Pause(ch);
    while (Mix_Playing(ch) && !Mix_Paused(ch)) {
        SDL_Delay(1);
        Mix_Pause(ch);
    }
}

/* Brings the plays in line with pause_mask: pausing holds every play that
 * is running now (Mix_Pause / Mix_PauseMusic), resuming lets exactly those
 * go on. Under the device lock, so a pause falls between two buffers and
 * no count is half-updated. */
static void apply_pause(tempo_audio *au)
{
    bool want = au->pause_mask != 0;
    if (want != au->paused) {
        lock(au);
        au->paused = want;
        for (int i = 0; i < au->nchan; i++) {
            stream *s = &au->streams[i];
            if (want && s->active && Mix_Playing(i) && !Mix_Paused(i)) {
                pause_channel(i);
                s->held = true;
            } else if (!want && s->held) {
                Mix_Resume(i);
                s->held = false;
            }
        }
        stream *m = &au->streams[music_index(au)];
        if (want && m->active && Mix_PlayingMusic() && !Mix_PausedMusic()) {
            Mix_PauseMusic();
            m->held = true;
        } else if (!want && m->held) {
            Mix_ResumeMusic();
            m->held = false;
        }
        unlock(au);
        atomic_store(&au->stat_paused, want);
    }
    bool idle = (au->pause_mask & AUDIO_PAUSE_IDLE) != 0;
    if (!idle || au->no_hold) {
        release_hold(au);
    } else if (!au->holding && !au->settling) {
        lock(au);
        au->quiet_seq = au->seq + QUIET_BUFFERS;
        unlock(au);
        au->settle_ns = tempo_now_ns() + (QUIET_BUFFERS + 2) * au->buffer_ns + 250 * TEMPO_NS_PER_MS;
        au->settling = true;
        tempo_event_set(au->ready); /* the source's dispatch does the settling */
    }
}

static int set_pause_bit(tempo_audio *au, unsigned bit, bool on)
{
    if (au == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio: pause or resume of a NULL audio");
    if (on)
        au->pause_mask |= bit;
    else
        au->pause_mask &= ~bit;
    apply_pause(au);
    return 0;
}

int tempo_audio_pause(tempo_audio *au)
{
    return set_pause_bit(au, AUDIO_PAUSE_USER, true);
}

int tempo_audio_resume(tempo_audio *au)
{
    return set_pause_bit(au, AUDIO_PAUSE_USER, false);
}

bool tempo_audio_is_paused(const tempo_audio *au)
{
    return au != NULL && au->paused;
}

void tempo__audio_follow_loop(tempo_audio *au, bool idle_paused, bool game_paused, bool quitting)
{
    au->no_hold = quitting;
    set_pause_bit(au, AUDIO_PAUSE_GAME, au->pause_with_game && game_paused);
    set_pause_bit(au, AUDIO_PAUSE_IDLE, au->quiet_when_idle && idle_paused);
}

int tempo__audio_settle(tempo_audio *au)
{
    if (!au->settling)
        return 0;
    lock(au);
    uint64_t seq = au->seq;
    unlock(au);
    if (seq < au->quiet_seq && tempo_now_ns() < au->settle_ns)
        return 1; /* look again at the next paused frame */
    /* The device has had silent buffers enough: keep the lock, so SDL's
     * audio thread blocks on it (an SDL2 device paused with
     * SDL_PauseAudioDevice still wakes for every buffer, to write silence).
     * On SDL3 (sdl2-compat) the lock is the audio stream's, and SDL's
     * thread blocks on it inside the physical device's lock
     * (SDL_PlaybackAudioThreadIterate): until the hold ends, every SDL call
     * that takes that device lock (SDL_GetAudioDeviceStatus,
     * SDL_PauseAudioDevice, SDL_CloseAudioDevice) waits, and on this thread
     * it would wait for itself. None is made while holding: close and
     * detach let go first (release_hold). */
    lock(au);
    au->settling = false;
    au->holding = true;
    atomic_store(&au->stat_quiet, true);
    return 0;
}

/* ---- Open / close --------------------------------------------------------- */

/* SDL_mixer does not tell which SDL audio device it opened, and we need its
 * lock: compare device states before and after Mix_OpenAudioDevice. */
static void device_states(SDL_AudioStatus *out)
{
    for (SDL_AudioDeviceID id = 1; id < MAX_DEVICE_ID; id++)
        out[id] = SDL_GetAudioDeviceStatus(id);
}

/* false (and the error set) if `value` is neither 0 (the default) nor in
 * min..max. */
static bool in_range(const char *field, int value, int min, int max, int dflt)
{
    if (value == 0 || (value >= min && value <= max))
        return true;
    tempo__set_error(TEMPO_EINVAL, "tempo_audio_create: %s %d is out of range (%d..%d; 0 = %d)", field, value,
                     min, max, dflt);
    return false;
}

/* Checks the descriptor before anything is opened and fills in the
 * defaults of its 0 fields. */
static bool desc_ok(tempo_audio_desc *d)
{
    if (!in_range("frequency", d->frequency, MIN_FREQUENCY, MAX_FREQUENCY, DEFAULT_FREQUENCY) ||
        !in_range("channels", d->channels, 1, MAX_CHANNELS, DEFAULT_CHANNELS) ||
        !in_range("buffer_frames", d->buffer_frames, MIN_BUFFER_FRAMES, MAX_BUFFER_FRAMES,
                  DEFAULT_BUFFER_FRAMES) ||
        !in_range("mix_channels", d->mix_channels, 1, MAX_MIX_CHANNELS, DEFAULT_MIX_CHANNELS) ||
        !in_range("max_markers", d->max_markers, 1, MAX_MAX_MARKERS, DEFAULT_MAX_MARKERS))
        return false;
    d->frequency = d->frequency ? d->frequency : DEFAULT_FREQUENCY;
    d->channels = d->channels ? d->channels : DEFAULT_CHANNELS;
    d->buffer_frames = d->buffer_frames ? d->buffer_frames : DEFAULT_BUFFER_FRAMES;
    d->mix_channels = d->mix_channels ? d->mix_channels : DEFAULT_MIX_CHANNELS;
    d->max_markers = d->max_markers ? d->max_markers : DEFAULT_MAX_MARKERS;
    int64_t rate = d->frequency, frames = d->buffer_frames;
    if (frames * 1000 > rate * MAX_BUFFER_MS) {
        tempo__set_error(TEMPO_EINVAL,
                         "tempo_audio_create: buffer_frames %d at frequency %d lasts %.2f ms, over %d ms "
                         "(at most frequency * %d / 1000 frames)",
                         (int)frames, (int)rate, (double)frames * 1000.0 / (double)rate, MAX_BUFFER_MS,
                         MAX_BUFFER_MS);
        return false;
    }
    return true;
}

tempo_audio *tempo_audio_create(const tempo_audio_desc *desc)
{
    tempo_audio_desc d = desc ? *desc : (tempo_audio_desc){0};
    if (!desc_ok(&d))
        return NULL;
    tempo_audio *expected = NULL;
    tempo_audio *au = calloc(1, sizeof *au);
    if (au == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_audio_create: out of memory");
        return NULL;
    }
    if (!atomic_compare_exchange_strong(&g_audio, &expected, au)) {
        free(au);
        tempo__set_error(TEMPO_EBUSY, "tempo_audio_create: an audio device is already open");
        return NULL;
    }
    au->spec.frequency = d.frequency;
    au->spec.channels = d.channels;
    au->spec.buffer_frames = d.buffer_frames;
    au->spec.format = AUDIO_S16SYS;
    au->spec.bytes_per_frame = 2 * au->spec.channels;
    au->nchan = d.mix_channels;
    au->max_markers = (uint32_t)d.max_markers;
    au->pause_with_game = d.pause_with_game;
    au->quiet_when_idle = d.quiet_when_idle;
    au->buffer_ns = (uint64_t)au->spec.buffer_frames * TEMPO_NS_PER_S / (uint64_t)au->spec.frequency;
    au->latency_ns = d.latency_ns ? d.latency_ns : au->buffer_ns;
    au->buf_seq = UINT64_MAX; /* no buffer mixed yet */
    au->streams = calloc((size_t)au->nchan + 1, sizeof *au->streams);
    au->marks = calloc(au->max_markers, sizeof *au->marks);
    au->ring = calloc(au->max_markers, sizeof *au->ring);
    au->ready = tempo_event_create(true, false);
    if (au->streams == NULL || au->marks == NULL || au->ring == NULL || au->ready == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_audio_create: out of memory");
        goto fail;
    }
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "SDL_InitSubSystem(AUDIO): %s", SDL_GetError());
        goto fail;
    }
    SDL_AudioStatus before[MAX_DEVICE_ID], after[MAX_DEVICE_ID];
    device_states(before);
    /* allowed_changes 0: SDL converts to exactly this format, so frame
     * counts and buffer sizes are what we asked for. */
    if (Mix_OpenAudioDevice(au->spec.frequency, au->spec.format, au->spec.channels,
                            au->spec.buffer_frames, d.device, 0) != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "Mix_OpenAudioDevice: %s", Mix_GetError());
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        goto fail;
    }
    device_states(after);
    for (SDL_AudioDeviceID id = 1; id < MAX_DEVICE_ID && au->dev == 0; id++)
        if (before[id] == SDL_AUDIO_STOPPED && after[id] != SDL_AUDIO_STOPPED)
            au->dev = id;
    if (au->dev == 0) {
        /* SDL_mixer was already open (it only counted another reference). */
        Mix_CloseAudio();
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        tempo__set_error(TEMPO_EBUSY, "tempo_audio_create: SDL_mixer's device was already open");
        goto fail;
    }
    /* The compressed music decoders load on demand (Mix_Init); without
     * this, Mix_LoadMUS of an OGG or MP3 fails with "Unrecognized audio
     * format" for a game that never heard of Mix_Init. */
    static const struct {
        int flag;
        const char *name;
    } decoders[] = {{MIX_INIT_OGG, "OGG"}, {MIX_INIT_MP3, "MP3"}, {MIX_INIT_FLAC, "FLAC"},
                    {MIX_INIT_OPUS, "OPUS"}};
    for (size_t i = 0; i < sizeof decoders / sizeof decoders[0]; i++)
        if ((Mix_Init(decoders[i].flag) & decoders[i].flag) == 0)
            tempo__log(TEMPO_LOG_DEBUG, "tempo_audio_create: no %s decoder in this SDL_mixer: %s",
                       decoders[i].name, Mix_GetError());
    Mix_AllocateChannels(au->nchan);
    lock(au);
    Mix_HookMusicFinished(on_music_done);
    int ok = Mix_RegisterEffect(MIX_CHANNEL_POST, on_post_mix, NULL, au);
    unlock(au);
    if (!ok) {
        tempo__set_error(TEMPO_EPLATFORM, "Mix_RegisterEffect(POST): %s", Mix_GetError());
        Mix_HookMusicFinished(NULL);
        Mix_CloseAudio();
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        goto fail;
    }
    return au;

fail:
    tempo_event_destroy(au->ready);
    free(au->ring);
    free(au->marks);
    free(au->streams);
    atomic_store(&g_audio, NULL);
    free(au);
    return NULL;
}

void tempo_audio_destroy(tempo_audio *au)
{
    if (au == NULL)
        return;
    if (tempo__attachment_leave(&au->at, au, "tempo_audio_destroy") < 0)
        return;
    release_hold(au);
    Mix_HaltChannel(-1); /* done callbacks raise the last notices */
    Mix_HaltMusic();
    lock(au);
    Mix_HookMusicFinished(NULL);
    Mix_UnregisterEffect(MIX_CHANNEL_POST, on_post_mix);
    unlock(au);
    Mix_CloseAudio();
    SDL_QuitSubSystem(SDL_INIT_AUDIO);
    atomic_store(&g_audio, NULL);
    tempo_event_destroy(au->ready);
    free(au->ring);
    free(au->marks);
    free(au->streams);
    free(au);
}

int tempo_audio_get_spec(const tempo_audio *au, tempo_audio_spec *out)
{
    if (au == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_get_spec: the %s is NULL", au == NULL ? "audio" : "out");
    *out = au->spec;
    return 0;
}

tempo_handle *tempo_audio_handle(tempo_audio *au)
{
    return au ? au->ready : NULL;
}

tempo__attachment *tempo__audio_attachment(tempo_audio *au)
{
    return &au->at;
}

/* ---- Playback --------------------------------------------------------------- */

/* [device lock] Resets stream `ch` for a new play starting at the next
 * buffer boundary. */
static void begin_stream(tempo_audio *au, int ch)
{
    stream *s = &au->streams[ch];
    s->gen++;
    s->active = true;
    s->held = false; /* a new play is not paused (SDL_mixer unpauses it too) */
    s->frames = 0;
    s->start_dev = au->mixed;
}

int tempo_audio_play(tempo_audio *au, int channel, Mix_Chunk *chunk, int loops)
{
    if (au == NULL || chunk == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_play: the %s is NULL", au == NULL ? "audio" : "chunk");
    if (channel < -1 || channel >= au->nchan)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_play: channel %d is not -1 or in 0..%d", channel,
                                au->nchan - 1);
    if (loops < -1)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_play: loops %d is below -1", loops);
    lock(au);
    if (channel == -1) {
        /* A channel that is not playing cannot start except through this
         * thread, so the choice stays valid. */
        for (int i = 0; i < au->nchan && channel == -1; i++)
            if (!au->streams[i].active && !Mix_Playing(i))
                channel = i;
        if (channel == -1) {
            unlock(au);
            /* Expected in a busy scene and returned: DEBUG (tempo/base.h). */
            return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EBUSY, "tempo_audio_play: all %d channels busy",
                                       au->nchan);
        }
    } else if (Mix_Playing(channel)) {
        Mix_HaltChannel(channel); /* ends the old play: on_channel_done */
    }
    finish_stream(au, channel); /* in case SDL_mixer had already let it go */
    begin_stream(au, channel);
    int r = 0;
    if (!Mix_RegisterEffect(channel, on_channel_mix, on_channel_done, au)) {
        r = tempo__set_error(TEMPO_EPLATFORM, "Mix_RegisterEffect: %s", Mix_GetError());
        au->streams[channel].active = false;
    } else if (Mix_PlayChannel(channel, chunk, loops) < 0) {
        r = tempo__set_error(TEMPO_EPLATFORM, "Mix_PlayChannel: %s", Mix_GetError());
        Mix_UnregisterEffect(channel, on_channel_mix); /* calls on_channel_done */
    }
    unlock(au);
    return r < 0 ? r : channel;
}

int tempo_audio_stop(tempo_audio *au, int channel)
{
    if (au == NULL || channel < -1 || channel >= au->nchan)
        return au == NULL ? tempo__set_error(TEMPO_EINVAL, "tempo_audio_stop: the audio is NULL")
                          : tempo__set_error(TEMPO_EINVAL, "tempo_audio_stop: channel %d is not -1 or in 0..%d",
                                             channel, au->nchan - 1);
    Mix_HaltChannel(channel);
    return 0;
}

int tempo_audio_play_music(tempo_audio *au, Mix_Music *music, int loops)
{
    if (au == NULL || music == NULL || loops < -1)
        return TEMPO_EINVAL;
    lock(au);
    Mix_HaltMusic(); /* ends the old play: on_music_done */
    finish_stream(au, music_index(au));
    begin_stream(au, music_index(au));
    int r = 0;
    if (Mix_PlayMusic(music, loops) != 0) {
        r = tempo__set_error(TEMPO_EPLATFORM, "Mix_PlayMusic: %s", Mix_GetError());
        finish_stream(au, music_index(au));
    }
    unlock(au);
    return r;
}

int tempo_audio_stop_music(tempo_audio *au)
{
    if (au == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_stop_music: the audio is NULL");
    Mix_HaltMusic();
    return 0;
}

/* ---- Marks and notices ------------------------------------------------------ */

static int add_mark(tempo_audio *au, int channel, uint64_t frame, bool end, tempo_handle *signal,
                    uint64_t tag)
{
    const char *fn = end ? "tempo_audio_mark_end" : "tempo_audio_mark";
    if (au == NULL)
        return tempo__set_error(TEMPO_EINVAL, "%s: the audio is NULL", fn);
    if (channel < TEMPO_AUDIO_MUSIC || channel == -1 || channel >= au->nchan)
        return tempo__set_error(TEMPO_EINVAL, "%s: channel %d is not TEMPO_AUDIO_MUSIC or in 0..%d", fn, channel,
                                au->nchan - 1);
    if (signal != NULL && tempo__handle_kind(signal) != PLAT_HANDLE_EVENT)
        return tempo__set_error(TEMPO_EINVAL, "%s: signal %p is not a live event", fn, (void *)signal);
    if (au->outstanding >= au->max_markers) /* returned: the game reads its notices first */
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EFULL, "%s: %d marks outstanding, max_markers", fn,
                                   au->outstanding);
    int ch = channel == TEMPO_AUDIO_MUSIC ? music_index(au) : channel;
    mark m = {.channel = ch, .frame = frame, .end = end, .signal = signal, .tag = tag};
    lock(au);
    stream *s = &au->streams[ch];
    if (s->gen == 0) {
        unlock(au);
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_mark: nothing played on channel %d", channel);
    }
    m.gen = s->gen;
    if (end && !s->active)
        raise_notice(au, &m, TEMPO_AUDIO_END, s->frames, s->start_dev + s->frames);
    else if (!end && frame < s->frames)
        raise_notice(au, &m, TEMPO_AUDIO_MARK, frame, s->start_dev + frame);
    else if (!end && !s->active)
        raise_notice(au, &m, TEMPO_AUDIO_CANCELED, frame, s->start_dev + frame);
    else {
        au->marks[au->nmarks++] = m;
        atomic_store_explicit(&au->stat_pending, au->nmarks, memory_order_relaxed);
    }
    unlock(au);
    au->outstanding++;
    return 0;
}

int tempo_audio_mark(tempo_audio *au, int channel, uint64_t frame, tempo_handle *signal, uint64_t tag)
{
    return add_mark(au, channel, frame, false, signal, tag);
}

int tempo_audio_frame_at_ms(const tempo_audio *au, uint64_t ms, uint64_t *frame)
{
    if (au == NULL || frame == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_frame_at_ms: the %s is NULL",
                                au == NULL ? "audio" : "frame");
    uint64_t rate = (uint64_t)au->spec.frequency;
    /* Split ms into whole seconds and the rest so that ms * rate cannot
     * overflow for any rate SDL accepts: (ms / 1000) * rate is checked, the
     * remainder part is below 1000 * rate. */
    uint64_t secs = ms / 1000, rest = ms % 1000;
    uint64_t whole = secs * rate;
    uint64_t part = (rest * rate + 999) / 1000; /* ceil: never before `ms` */
    if ((rate != 0 && secs > UINT64_MAX / rate) || whole > UINT64_MAX - part)
        return tempo__set_error(TEMPO_ERANGE, "tempo_audio_frame_at_ms: %" PRIu64 " ms is past the last frame",
                                ms);
    *frame = whole + part;
    return 0;
}

uint64_t tempo_audio_ms_at_frame(const tempo_audio *au, uint64_t frame)
{
    if (au == NULL || au->spec.frequency <= 0)
        return 0;
    uint64_t rate = (uint64_t)au->spec.frequency;
    return frame / rate * 1000 + frame % rate * 1000 / rate;
}

int tempo_audio_mark_ms(tempo_audio *au, int channel, uint64_t ms, tempo_handle *signal, uint64_t tag)
{
    uint64_t frame = 0;
    int r = tempo_audio_frame_at_ms(au, ms, &frame);
    if (r != 0)
        return r;
    return add_mark(au, channel, frame, false, signal, tag);
}

int tempo_audio_mark_end(tempo_audio *au, int channel, tempo_handle *signal, uint64_t tag)
{
    return add_mark(au, channel, 0, true, signal, tag);
}

static bool take(tempo_audio *au, tempo_audio_notice *out)
{
    uint64_t tail = atomic_load_explicit(&au->ring_tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&au->ring_head, memory_order_acquire);
    if (tail == head)
        return false;
    *out = au->ring[tail % au->max_markers];
    atomic_store_explicit(&au->ring_tail, tail + 1, memory_order_release);
    au->outstanding--;
    return true;
}

int tempo_audio_poll(tempo_audio *au, tempo_audio_notice *out)
{
    if (au == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_poll: the %s is NULL", au == NULL ? "audio" : "out");
    if (take(au, out))
        return 1;
    /* Reset, then look again: a notice raised in between sets it again. */
    tempo_event_reset(au->ready);
    if (take(au, out)) {
        tempo_event_set(au->ready);
        return 1;
    }
    return 0;
}

int tempo_audio_get_stats(const tempo_audio *au, tempo_audio_stats *out)
{
    if (au == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_get_stats: the %s is NULL", au == NULL ? "audio" : "out");
    memset(out, 0, sizeof *out);
    out->device_frames = atomic_load_explicit(&au->stat_frames, memory_order_relaxed);
    out->buffers = atomic_load_explicit(&au->stat_buffers, memory_order_relaxed);
    out->start_ns = atomic_load_explicit(&au->stat_start_ns, memory_order_relaxed);
    out->last_buffer_ns = atomic_load_explicit(&au->stat_last_ns, memory_order_relaxed);
    out->notices = atomic_load_explicit(&au->stat_notices, memory_order_relaxed);
    out->pending = atomic_load_explicit(&au->stat_pending, memory_order_relaxed);
    out->outstanding = au->outstanding;
    out->paused = atomic_load(&au->stat_paused);
    out->quiet = atomic_load(&au->stat_quiet);
    return 0;
}
