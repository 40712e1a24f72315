/* tempo/audio.h on SDL's "dummy" and "disk" audio drivers, which consume
 * buffers in real time on any machine (no sound card): position
 * notifications fire in order, from the device buffer that holds the
 * requested frame, never before the device has really played that far, and
 * end / cancel / replay / loop / music cases report what happened.
 *
 * The buffer is 480 frames at 48 kHz = exactly 10 ms, because both drivers
 * pace themselves with SDL_Delay(buffer in whole ms) after each buffer: a
 * busy machine only makes them late, never early. So every time bound here
 * is a lower bound ("not before the frame's nominal time") that load cannot
 * break; how late notices arrive depends on the machine's load and is
 * printed as a note, not checked (the dummy driver fell 170-285 ms behind
 * nominal beside a parallel build). Waits for notices have a generous
 * TIMEOUT_NS that only a lost notice reaches. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "audio_lock.h"
#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define RATE 48000
#define BUF 480
#define BUF_NS (10 * MS)
#define TIMEOUT_NS (20000 * MS) /* only reached when a notice is lost */

static char disk_file[512];

static tempo_audio *open_on(const char *driver, int max_markers)
{
    SDL_setenv("SDL_AUDIODRIVER", driver, 1);
    if (strcmp(driver, "disk") == 0)
        SDL_setenv("SDL_DISKAUDIOFILE", disk_file, 1);
    tempo_audio *au = tempo_audio_create(&(tempo_audio_desc){
        .frequency = RATE, .buffer_frames = BUF, .max_markers = max_markers});
    if (au == NULL)
        tt_fail(__FILE__, __LINE__, "tempo_audio_create(%s): %s", driver, tempo_get_error());
    return au;
}

/* Locks the open audio devices (audio_lock.h). The audio thread raises
 * notices and sets their handles under this lock, so holding it stops the
 * callback, and taking it once waits for one in progress. */
static tt_audio_lock held;

static void lock_audio_devices(bool lock)
{
    if (lock)
        tt_audio_lock_all(&held);
    else
        tt_audio_unlock_all(&held);
}

/* A chunk of `frames` stereo frames of a quiet tone, in the device format. */
typedef struct sound {
    Mix_Chunk *chunk;
    Sint16 *pcm;
} sound;

static sound make_sound(int frames)
{
    sound s;
    s.pcm = calloc((size_t)frames * 2, sizeof *s.pcm);
    for (int i = 0; i < frames; i++)
        s.pcm[2 * i] = s.pcm[2 * i + 1] = (Sint16)((i % 100 < 50) ? 500 : -500);
    s.chunk = Mix_QuickLoad_RAW((Uint8 *)s.pcm, (Uint32)frames * 4);
    CHECK(s.chunk != NULL);
    return s;
}

static void free_sound(sound s)
{
    Mix_FreeChunk(s.chunk);
    free(s.pcm);
}

/* Waits on the audio handle until `n` notices arrived (or timeout). Each
 * notice's loop-side receive time goes to received[]. */
static int collect(tempo_audio *au, tempo_handle *extra, tempo_audio_notice *out,
                   uint64_t *received, int n, uint64_t timeout_ns)
{
    tempo_handle *set[2] = {tempo_audio_handle(au), extra};
    int nset = extra ? 2 : 1;
    int got = 0;
    uint64_t t0 = tempo_now_ns();
    while (got < n && tempo_now_ns() - t0 < timeout_ns) {
        int r = tempo_wait(set, nset, timeout_ns, 0);
        if (r < 0)
            break;
        /* Stamp each notice after polling it: one raised between the wake
         * and the poll would otherwise look received before it was raised. */
        while (got < n && tempo_audio_poll(au, &out[got]) > 0)
            received[got++] = tempo_now_ns();
    }
    return got;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void markers_on(const char *driver)
{
    tempo_audio *au = open_on(driver, 0);
    if (au == NULL)
        return;
    tempo_audio_spec spec;
    CHECK_EQ_INT(tempo_audio_get_spec(au, &spec), 0);
    CHECK_EQ_INT(spec.frequency, RATE);
    CHECK_EQ_INT(spec.buffer_frames, BUF);
    CHECK_EQ_INT(spec.bytes_per_frame, 4);

    const int len = 28800; /* 0.6 s */
    static const uint64_t at[] = {0, 100, 4800, 9600, 14399, 14400, 24000, 28799};
    enum { NM = sizeof at / sizeof at[0] };
    sound s = make_sound(len);
    tempo_handle *beat = tempo_event_create(false, false);
    /* Hold the audio callback while the play and its marks are set up: on a
     * slow (sanitizer) run the first buffer was once mixed before frames 0
     * and 100 were marked, and a mark for a passed frame fires late by
     * design. */
    lock_audio_devices(true);
    int ch = tempo_audio_play(au, -1, s.chunk, 0);
    CHECK_GE_INT(ch, 0);
    /* Marked out of order on purpose: notices still come in frame order. */
    for (int i = NM - 1; i >= 0; i--)
        CHECK_EQ_INT(tempo_audio_mark(au, ch, at[i], beat, (uint64_t)i), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, ch, beat, 100), 0);
    lock_audio_devices(false);

    tempo_audio_notice n[NM + 1];
    uint64_t rx[NM + 1];
    int got = collect(au, beat, n, rx, NM + 1, TIMEOUT_NS);
    CHECK_EQ_INT(got, NM + 1);
    tempo_audio_stats st;
    tempo_audio_get_stats(au, &st);
    CHECK(st.start_ns != 0);
    int64_t late_rx[NM], late_raised[NM];
    for (int i = 0; i < got && i < NM; i++) {
        CHECK_EQ_INT(n[i].kind, TEMPO_AUDIO_MARK);
        CHECK_EQ_INT(n[i].channel, ch);
        CHECK_EQ_U64(n[i].tag, (uint64_t)i);
        CHECK_EQ_U64(n[i].frame, at[i]);
        /* One play, one start: device_frame - frame is the same for all. */
        CHECK_EQ_U64(n[i].device_frame - n[i].frame, n[0].device_frame - n[0].frame);
        /* Raised while mixing the buffer that holds it. */
        CHECK_LE_U64(n[i].mixed_frames, n[i].device_frame);
        CHECK_LT_U64(n[i].device_frame, n[i].mixed_frames + BUF);
        /* Not before the device has played the buffers ahead of it: the
         * nominal time of the frame minus at most one buffer. */
        uint64_t nominal = st.start_ns + n[i].device_frame * TEMPO_NS_PER_S / RATE;
        CHECK_GE_U64(n[i].raised_ns + BUF_NS, nominal);
        CHECK_GE_U64(n[i].play_ns, nominal); /* + offset + one buffer of latency */
        /* Raised in frame order, received after being raised. How long after
         * the nominal time is the machine's business (see the note). */
        if (i > 0)
            CHECK_LE_U64(n[i - 1].raised_ns, n[i].raised_ns);
        CHECK_GE_U64(rx[i], n[i].raised_ns);
        late_rx[i] = (int64_t)rx[i] - (int64_t)nominal;
        late_raised[i] = (int64_t)n[i].raised_ns - (int64_t)nominal;
    }
    if (got == NM + 1) {
        CHECK_EQ_INT(n[NM].kind, TEMPO_AUDIO_END);
        CHECK_EQ_U64(n[NM].tag, 100);
        CHECK_EQ_U64(n[NM].frame, (uint64_t)len);
        qsort(late_rx, NM, sizeof late_rx[0], cmp_i64);
        qsort(late_raised, NM, sizeof late_raised[0], cmp_i64);
        tt_note("%s: marker vs nominal frame time: raised p50 %+.2f ms max %+.2f ms; "
                "loop received p50 %+.2f ms max %+.2f ms (buffer %.1f ms)",
                driver, (double)late_raised[NM / 2] / 1e6, (double)late_raised[NM - 1] / 1e6,
                (double)late_rx[NM / 2] / 1e6, (double)late_rx[NM - 1] / 1e6, (double)BUF_NS / 1e6);
    }
    /* Everything read: the handle is reset, nothing is outstanding. The
     * audio thread publishes a notice and then sets the handle, so the set
     * of the last notice can land just after the loop read it (seen once
     * under wine): a harmless spurious wake that the next empty poll clears.
     * Both happen under the device lock: taking it waits for that set to
     * land (a fixed sleep did not, on a loaded machine). */
    tempo_audio_notice extra;
    CHECK_EQ_INT(tempo_audio_poll(au, &extra), 0);
    lock_audio_devices(true);
    lock_audio_devices(false);
    CHECK_EQ_INT(tempo_audio_poll(au, &extra), 0);
    tempo_handle *h = tempo_audio_handle(au);
    CHECK_EQ_INT(tempo_wait(&h, 1, 0, 0), TEMPO_ETIMEDOUT);
    tempo_audio_get_stats(au, &st);
    CHECK_EQ_INT(st.pending, 0);
    CHECK_EQ_INT(st.outstanding, 0);
    CHECK_GE_U64(st.notices, NM + 1);
    tempo_audio_destroy(au);
    tempo_event_destroy(beat);
    free_sound(s);
}

static void markers_fire_in_order_within_a_buffer_on_dummy(void)
{
    markers_on("dummy");
}

static void markers_fire_in_order_within_a_buffer_on_disk(void)
{
    markers_on("disk");
    remove(disk_file);
}

static void marks_after_the_fact_and_beyond_the_end(void)
{
    tempo_audio *au = open_on("dummy", 0);
    if (au == NULL)
        return;
    sound s = make_sound(2400); /* 50 ms */
    int ch = tempo_audio_play(au, 5, s.chunk, 0);
    CHECK_EQ_INT(ch, 5);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 1000000, NULL, 1), 0); /* never reached */
    CHECK_EQ_INT(tempo_audio_mark_end(au, ch, NULL, 2), 0);
    tempo_audio_notice n[4];
    uint64_t rx[4];
    CHECK_EQ_INT(collect(au, NULL, n, rx, 2, TIMEOUT_NS), 2);
    CHECK_EQ_INT(n[0].kind, TEMPO_AUDIO_CANCELED);
    CHECK_EQ_U64(n[0].tag, 1);
    CHECK_EQ_INT(n[1].kind, TEMPO_AUDIO_END);
    CHECK_EQ_U64(n[1].frame, 2400);
    /* The play is over: a passed frame fires at once, a later one is
     * canceled at once, and so is a second END request. */
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 10, NULL, 3), 0);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 5000, NULL, 4), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, ch, NULL, 5), 0);
    CHECK_EQ_INT(tempo_audio_poll(au, &n[0]), 1);
    CHECK_EQ_INT(tempo_audio_poll(au, &n[1]), 1);
    CHECK_EQ_INT(tempo_audio_poll(au, &n[2]), 1);
    CHECK_EQ_INT(n[0].kind, TEMPO_AUDIO_MARK);
    CHECK_EQ_U64(n[0].tag, 3);
    CHECK_EQ_INT(n[1].kind, TEMPO_AUDIO_CANCELED);
    CHECK_EQ_U64(n[1].tag, 4);
    CHECK_EQ_INT(n[2].kind, TEMPO_AUDIO_END);
    CHECK_EQ_U64(n[2].tag, 5);
    CHECK_EQ_INT(tempo_audio_poll(au, &n[3]), 0);
    tempo_audio_destroy(au);
    free_sound(s);
}

static void replaying_a_channel_ends_the_old_play(void)
{
    tempo_audio *au = open_on("dummy", 0);
    if (au == NULL)
        return;
    /* 10 s: a replay that comes late (a loaded machine) still finds the
     * first play far from frame `late` and from its end. */
    const uint64_t late = 400000;
    sound s = make_sound(480000);
    tempo_handle *started = tempo_event_create(false, false);
    CHECK_EQ_INT(tempo_audio_play(au, 3, s.chunk, 0), 3);
    CHECK_EQ_INT(tempo_audio_mark(au, 3, 2 * BUF, started, 9), 0);
    CHECK_EQ_INT(tempo_audio_mark(au, 3, late, NULL, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, 3, NULL, 2), 0);
    /* Replace the play once it has played two buffers (not after a fixed
     * sleep: the audio thread may not have run at all by then). */
    tempo_audio_notice n[3];
    uint64_t rx[1];
    CHECK_EQ_INT(collect(au, started, &n[0], rx, 1, TIMEOUT_NS), 1);
    CHECK_EQ_U64(n[0].tag, 9);
    CHECK_EQ_INT(tempo_audio_play(au, 3, s.chunk, 0), 3); /* replaces it */
    CHECK_EQ_INT(tempo_audio_poll(au, &n[0]), 1);
    CHECK_EQ_INT(tempo_audio_poll(au, &n[1]), 1);
    CHECK_EQ_INT(n[0].kind, TEMPO_AUDIO_CANCELED);
    CHECK_EQ_U64(n[0].tag, 1);
    CHECK_EQ_INT(n[1].kind, TEMPO_AUDIO_END);
    CHECK_EQ_U64(n[1].tag, 2);
    CHECK_LT_U64(n[1].frame, late);
    CHECK_GE_U64(n[1].frame, 2 * BUF); /* it did play past the first mark */
    tempo_event_destroy(started);
    /* Marks now follow the new play, counted from its own start. */
    CHECK_EQ_INT(tempo_audio_mark(au, 3, 960, NULL, 3), 0);
    CHECK_EQ_INT(collect(au, NULL, &n[2], rx, 1, TIMEOUT_NS), 1);
    CHECK_EQ_INT(n[2].kind, TEMPO_AUDIO_MARK);
    CHECK_EQ_U64(n[2].tag, 3);
    CHECK_GE_U64(n[2].device_frame, n[1].device_frame);
    CHECK_EQ_INT(tempo_audio_stop(au, 3), 0);
    tempo_audio_destroy(au);
    free_sound(s);
}

/* A looping play's frames count on across its loops. The callback is held
 * while the play and its marks are set up: a caller preempted for more than
 * the sound's 83 ms between the play and the mark (a loaded machine) would
 * find frame 3500 passed, and a mark for a passed frame fires late, at the
 * next buffer, by design. `hold_ms` is that preemption, made on purpose. */
static void looping_plays_count_across_loops_held(uint32_t hold_ms)
{
    tempo_audio *au = open_on("dummy", 0);
    if (au == NULL)
        return;
    sound s = make_sound(1000); /* not a multiple of the buffer */
    lock_audio_devices(true);
    int ch = tempo_audio_play(au, -1, s.chunk, 3); /* 4 times in all */
    CHECK_GE_INT(ch, 0);
    SDL_Delay(hold_ms);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 3500, NULL, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, ch, NULL, 2), 0);
    lock_audio_devices(false);
    tempo_audio_notice n[2];
    uint64_t rx[2];
    CHECK_EQ_INT(collect(au, NULL, n, rx, 2, TIMEOUT_NS), 2);
    CHECK_EQ_INT(n[0].kind, TEMPO_AUDIO_MARK);
    CHECK_LE_U64(n[0].mixed_frames, n[0].device_frame);
    CHECK_LT_U64(n[0].device_frame, n[0].mixed_frames + BUF);
    CHECK_EQ_INT(n[1].kind, TEMPO_AUDIO_END);
    CHECK_EQ_U64(n[1].frame, 4000);
    tempo_audio_destroy(au);
    free_sound(s);
}

static void looping_plays_count_across_loops(void)
{
    looping_plays_count_across_loops_held(0);
}

static void looping_plays_count_across_loops_when_the_caller_is_held(void)
{
    looping_plays_count_across_loops_held(200);
}

/* A 16-bit stereo WAV file in memory, for Mix_LoadMUS_RW. */
static Uint8 *make_wav(int frames, size_t *size)
{
    size_t data = (size_t)frames * 4;
    *size = 44 + data;
    Uint8 *w = calloc(1, *size);
    Uint32 v;
    memcpy(w, "RIFF", 4);
    v = SDL_SwapLE32((Uint32)(36 + data)); memcpy(w + 4, &v, 4);
    memcpy(w + 8, "WAVEfmt ", 8);
    v = SDL_SwapLE32(16); memcpy(w + 16, &v, 4);
    Uint16 h = SDL_SwapLE16(1); memcpy(w + 20, &h, 2);  /* PCM */
    h = SDL_SwapLE16(2); memcpy(w + 22, &h, 2);         /* channels */
    v = SDL_SwapLE32(RATE); memcpy(w + 24, &v, 4);
    v = SDL_SwapLE32(RATE * 4); memcpy(w + 28, &v, 4);
    h = SDL_SwapLE16(4); memcpy(w + 32, &h, 2);
    h = SDL_SwapLE16(16); memcpy(w + 34, &h, 2);
    memcpy(w + 36, "data", 4);
    v = SDL_SwapLE32((Uint32)data); memcpy(w + 40, &v, 4);
    for (int i = 0; i < frames * 2; i++) {
        Sint16 x = SDL_SwapLE16((Sint16)((i / 2) % 100 < 50 ? 300 : -300));
        memcpy(w + 44 + 2 * i, &x, 2);
    }
    return w;
}

static void music_markers_and_end(void)
{
    tempo_audio *au = open_on("dummy", 0);
    if (au == NULL)
        return;
    size_t size;
    Uint8 *wav = make_wav(24000, &size); /* 0.5 s */
    Mix_Music *mus = Mix_LoadMUS_RW(SDL_RWFromConstMem(wav, (int)size), 1);
    CHECK(mus != NULL);
    if (mus == NULL) {
        tt_note("Mix_LoadMUS_RW: %s", Mix_GetError());
        tempo_audio_destroy(au);
        free(wav);
        return;
    }
    tempo_handle *sig = tempo_event_create(false, false);
    CHECK_EQ_INT(tempo_audio_play_music(au, mus, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark(au, TEMPO_AUDIO_MUSIC, 4800, sig, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark(au, TEMPO_AUDIO_MUSIC, 12000, sig, 2), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, TEMPO_AUDIO_MUSIC, sig, 3), 0);
    tempo_audio_notice n[3];
    uint64_t rx[3];
    CHECK_EQ_INT(collect(au, sig, n, rx, 3, TIMEOUT_NS), 3);
    tempo_audio_stats st;
    tempo_audio_get_stats(au, &st);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(n[i].kind, TEMPO_AUDIO_MARK);
        CHECK_EQ_INT(n[i].channel, TEMPO_AUDIO_MUSIC);
        CHECK_EQ_U64(n[i].tag, (uint64_t)i + 1);
        CHECK_LE_U64(n[i].mixed_frames, n[i].device_frame);
        CHECK_LT_U64(n[i].device_frame, n[i].mixed_frames + BUF);
        uint64_t nominal = st.start_ns + n[i].device_frame * TEMPO_NS_PER_S / RATE;
        CHECK_GE_U64(n[i].raised_ns + BUF_NS, nominal);
    }
    CHECK_EQ_INT(n[2].kind, TEMPO_AUDIO_END);
    /* Music that ends by itself is known to within one buffer. */
    CHECK_GE_U64(n[2].frame + BUF, 24000);
    CHECK_LE_U64(n[2].frame, 24000 + BUF);
    tempo_audio_destroy(au);
    Mix_FreeMusic(mus);
    tempo_event_destroy(sig);
    free(wav);
}

static void invalid_arguments_and_limits(void)
{
    CHECK(tempo_audio_create(&(tempo_audio_desc){.frequency = -1}) == NULL);
    tempo_audio *au = open_on("dummy", 2);
    if (au == NULL)
        return;
    CHECK(tempo_audio_create(NULL) == NULL); /* one at a time */
    CHECK(strstr(tempo_get_error(), "already open") != NULL);
    sound s = make_sound(48000);
    tempo_audio_notice n;
    /* Each failure says which argument (before: no detail for most, so
     * tempo_get_error() kept the text of an older failure). */
#define REFUSED(call, code, says)                                                                                    \
    do {                                                                                                             \
        tempo_audio_frame_at_ms(NULL, 0, NULL); /* an older failure's text, to be replaced */                     \
        CHECK_EQ_INT(call, code);                                                                                    \
        if (strstr(tempo_get_error(), says) == NULL)                                                                 \
            tt_fail(__FILE__, __LINE__, "%s: \"%s\" lacks \"%s\"", #call, tempo_get_error(), says);               \
    } while (0)
    REFUSED(tempo_audio_play(au, 16, s.chunk, 0), TEMPO_EINVAL, "tempo_audio_play: channel 16 is not -1 or in 0..1");
    REFUSED(tempo_audio_play(au, 0, NULL, 0), TEMPO_EINVAL, "tempo_audio_play: the chunk is NULL");
    REFUSED(tempo_audio_play(NULL, 0, s.chunk, 0), TEMPO_EINVAL, "tempo_audio_play: the audio is NULL");
    REFUSED(tempo_audio_play(au, 0, s.chunk, -2), TEMPO_EINVAL, "loops -2");
    REFUSED(tempo_audio_mark(au, 0, 10, NULL, 0), TEMPO_EINVAL, "nothing played on channel 0");
    REFUSED(tempo_audio_mark(au, -1, 10, NULL, 0), TEMPO_EINVAL, "tempo_audio_mark: channel -1");
    REFUSED(tempo_audio_mark(au, TEMPO_AUDIO_MUSIC, 10, NULL, 0), TEMPO_EINVAL, "tempo_audio_mark");
    REFUSED(tempo_audio_poll(au, NULL), TEMPO_EINVAL, "tempo_audio_poll: the out is NULL");
    REFUSED(tempo_audio_stop(au, 99), TEMPO_EINVAL, "tempo_audio_stop: channel 99");
    REFUSED(tempo_audio_get_stats(NULL, NULL), TEMPO_EINVAL, "tempo_audio_get_stats");
    CHECK(tempo_audio_handle(NULL) == NULL);
    int ch = tempo_audio_play(au, -1, s.chunk, 0);
    tempo_handle *timer = tempo_timer_create(false);
    REFUSED(tempo_audio_mark(au, ch, 10, timer, 0), TEMPO_EINVAL, "is not a live event"); /* events only */
    tempo_timer_destroy(timer);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 40000, NULL, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 40001, NULL, 2), 0);
    REFUSED(tempo_audio_mark(au, ch, 40002, NULL, 3), TEMPO_EFULL, "2 marks outstanding");
#undef REFUSED
    CHECK_EQ_INT(tempo_audio_stop(au, ch), 0); /* cancels both */
    CHECK_EQ_INT(tempo_audio_poll(au, &n), 1);
    CHECK_EQ_INT(n.kind, TEMPO_AUDIO_CANCELED);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 40002, NULL, 3), 0); /* room again */
    tempo_audio_destroy(au);
    free_sound(s);
    /* Open again after close. */
    au = open_on("dummy", 0);
    CHECK(au != NULL);
    tempo_audio_destroy(au);
    tempo_audio_destroy(NULL);
}

/* Creates with `d` on the dummy driver, expecting a refusal whose
 * tempo_get_error() holds each of `want` (the field, the value, the range).
 * If it opens instead, it is closed again (taking up to 3 of its buffers:
 * the values below are chosen so that an old, accepting build still closes
 * quickly enough to report). */
static void refused(int line, tempo_audio_desc d, const char *want1, const char *want2, const char *want3)
{
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    tempo_audio *au = tempo_audio_create(&d);
    if (au != NULL) {
        tt_fail(__FILE__, line, "accepted: frequency %d channels %d buffer_frames %d mix_channels %d max_markers %d",
                d.frequency, d.channels, d.buffer_frames, d.mix_channels, d.max_markers);
        tempo_audio_destroy(au);
        return;
    }
    const char *err = tempo_get_error();
    tt_note("%s", err);
    const char *want[] = {want1, want2, want3};
    for (int i = 0; i < 3; i++)
        if (want[i] != NULL && strstr(err, want[i]) == NULL)
            tt_fail(__FILE__, line, "error \"%s\" does not say \"%s\"", err, want[i]);
}

/* tempo_audio_create checks every field against what a device takes
 * (audio.h) and names the field, its value and the range; the device is
 * not opened for a refused value (frequency 1 used to open, and closing it
 * took 1024 s: SDL2's audio thread sleeps a buffer and then waits two more
 * for the drain, and 1024 frames last 1024 s at 1 Hz). */
static void create_checks_ranges_and_names_the_field(void)
{
    /* With a device that cannot open, an unchecked 1 Hz is SDL's error
     * (TEMPO_EPLATFORM), not this range's. */
    refused(__LINE__, (tempo_audio_desc){.frequency = 1, .device = "tempo-test: no such device"}, "frequency 1",
            "8000..384000", NULL);
    refused(__LINE__, (tempo_audio_desc){.frequency = 7999}, "frequency 7999", "8000..384000", NULL);
    refused(__LINE__, (tempo_audio_desc){.frequency = 384001}, "frequency 384001", "8000..384000", NULL);
    refused(__LINE__, (tempo_audio_desc){.frequency = -1}, "frequency -1", "8000..384000", NULL);
    refused(__LINE__, (tempo_audio_desc){.channels = 9}, "channels 9", "1..8", NULL);
    refused(__LINE__, (tempo_audio_desc){.channels = -2}, "channels -2", "1..8", NULL);
    refused(__LINE__, (tempo_audio_desc){.buffer_frames = 63}, "buffer_frames 63", "64..32768", NULL);
    refused(__LINE__, (tempo_audio_desc){.frequency = 384000, .buffer_frames = 32769}, "buffer_frames 32769",
            "64..32768", NULL);
    /* A buffer longer than 200 ms (closing waits up to 3 of them). */
    refused(__LINE__, (tempo_audio_desc){.buffer_frames = 9601}, "buffer_frames 9601", "frequency 48000",
            "200 ms");
    refused(__LINE__, (tempo_audio_desc){.frequency = 8000, .buffer_frames = 1601}, "buffer_frames 1601",
            "frequency 8000", "200 ms");
    refused(__LINE__, (tempo_audio_desc){.mix_channels = -1}, "mix_channels -1", "1..1024", NULL);
    refused(__LINE__, (tempo_audio_desc){.mix_channels = 1025}, "mix_channels 1025", "1..1024", NULL);
    refused(__LINE__, (tempo_audio_desc){.max_markers = -5}, "max_markers -5", "1..1048576", NULL);
    refused(__LINE__, (tempo_audio_desc){.max_markers = 1048577}, "max_markers 1048577", "1..1048576", NULL);

    /* The limits themselves open, and close in at most 3 buffers plus
     * slack (an informational time: load can only lengthen it). */
    static const tempo_audio_desc edges[] = {
        {.frequency = 8000, .buffer_frames = 1600, .channels = 1}, /* the longest buffer: 200 ms */
        {.frequency = 384000, .buffer_frames = 64, .channels = 8},
        {.frequency = 384000, .buffer_frames = 32768, .mix_channels = 1024, .max_markers = 1048576},
        {.frequency = 48000, .buffer_frames = 9600, .mix_channels = 1, .max_markers = 1},
    };
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        tempo_audio *au = tempo_audio_create(&edges[i]);
        if (au == NULL) {
            tt_fail(__FILE__, __LINE__, "edge %zu refused: %s", i, tempo_get_error());
            continue;
        }
        tempo_audio_spec sp;
        CHECK_EQ_INT(tempo_audio_get_spec(au, &sp), 0);
        CHECK_EQ_INT(sp.frequency, edges[i].frequency);
        CHECK_EQ_INT(sp.buffer_frames, edges[i].buffer_frames);
        uint64_t t0 = tempo_now_ns();
        tempo_audio_destroy(au);
        tt_note("%d Hz, %d frames: destroy took %.0f ms", sp.frequency, sp.buffer_frames,
                (double)(tempo_now_ns() - t0) / 1e6);
    }
}

/* A busy scene is no fault: tempo_audio_play finding no free channel
 * returns TEMPO_EBUSY and logs at DEBUG only (issue 19: one WARN per call
 * flooded a game's log). Counted through SDL's log output. */
static atomic_int busy_log_lines[SDL_NUM_LOG_PRIORITIES];

static void count_busy_log(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    (void)message;
    if (priority >= 0 && priority < SDL_NUM_LOG_PRIORITIES)
        atomic_fetch_add(&busy_log_lines[priority], 1);
}

static void no_free_channel_logs_at_debug(void)
{
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    tempo_audio *au = tempo_audio_create(&(tempo_audio_desc){.frequency = RATE, .buffer_frames = BUF,
                                                           .mix_channels = 2});
    if (au == NULL) {
        tt_fail(__FILE__, __LINE__, "tempo_audio_create(dummy): %s", tempo_get_error());
        return;
    }
    sound s = make_sound(4800);
    CHECK_GE_INT(tempo_audio_play(au, -1, s.chunk, -1), 0); /* forever: the channels stay busy */
    CHECK_GE_INT(tempo_audio_play(au, -1, s.chunk, -1), 0);
    SDL_LogOutputFunction prev;
    void *prev_user;
    SDL_LogGetOutputFunction(&prev, &prev_user);
    SDL_LogPriority prev_priority = SDL_LogGetPriority(SDL_LOG_CATEGORY_APPLICATION);
    tempo_log_level prev_level = tempo_log_get_level();
    tempo_log_set_level(TEMPO_LOG_DEBUG);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_DEBUG);
    SDL_LogSetOutputFunction(count_busy_log, NULL);
    int busy = 0;
    for (int i = 0; i < 1000; i++)
        busy += tempo_audio_play(au, -1, s.chunk, 0) == TEMPO_EBUSY;
    SDL_LogSetOutputFunction(prev, prev_user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, prev_priority);
    tempo_log_set_level(prev_level);
    int warn = atomic_load(&busy_log_lines[SDL_LOG_PRIORITY_WARN]);
    int debug = atomic_load(&busy_log_lines[SDL_LOG_PRIORITY_DEBUG]);
    CHECK_EQ_INT(busy, 1000);
    CHECK_EQ_INT(warn, 0);
    CHECK_EQ_INT(debug, 1000);
    CHECK(strstr(tempo_get_error(), "busy") != NULL);
    tempo_audio_stop(au, -1);
    tempo_audio_destroy(au);
    free_sound(s);
}

static const tt_case cases[] = {
    TT_CASE(markers_fire_in_order_within_a_buffer_on_dummy),
    TT_CASE(markers_fire_in_order_within_a_buffer_on_disk),
    TT_CASE(marks_after_the_fact_and_beyond_the_end),
    TT_CASE(replaying_a_channel_ends_the_old_play),
    TT_CASE(looping_plays_count_across_loops),
    TT_CASE(looping_plays_count_across_loops_when_the_caller_is_held),
    TT_CASE(music_markers_and_end),
    TT_CASE(invalid_arguments_and_limits),
    TT_CASE(create_checks_ranges_and_names_the_field),
    TT_CASE(no_free_channel_logs_at_debug),
};

int main(int argc, char **argv)
{
    /* SDL_getenv shares one buffer on Windows: copy before the next call. */
    char dir[400] = ".";
    const char *tmp = SDL_getenv("TMPDIR");
    if (tmp == NULL)
        tmp = SDL_getenv("TEMP");
    if (tmp != NULL)
        snprintf(dir, sizeof dir, "%s", tmp);
    snprintf(disk_file, sizeof disk_file, "%s/tempo-test-audio-%d.raw", dir,
             (int)(tempo_now_ns() % 100000));
    if (SDL_Init(0) != 0)
        printf("# SDL_Init: %s\n", SDL_GetError());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
