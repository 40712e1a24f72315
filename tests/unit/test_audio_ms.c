/* tempo/audio.h marks in milliseconds (tempo_audio_mark_ms and the
 * conversions), on SDL's "dummy" audio driver. The conversion cases are pure
 * arithmetic on the opened device's rate; the playback case asserts which
 * frames the notices carry and their order, never how fast they came. */
#include <stdio.h>
#include <stdlib.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "audio_lock.h"
#include "harness.h"
#include "tempo/tempo.h"

static tempo_audio *open_at(int rate)
{
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    tempo_audio *au = tempo_audio_create(&(tempo_audio_desc){.frequency = rate, .buffer_frames = 480});
    if (au == NULL)
        tt_fail(__FILE__, __LINE__, "tempo_audio_create(%d Hz): %s", rate, tempo_get_error());
    return au;
}

static uint64_t frame_at(tempo_audio *au, uint64_t ms)
{
    uint64_t f = UINT64_MAX;
    CHECK_EQ_INT(tempo_audio_frame_at_ms(au, ms, &f), 0);
    return f;
}

/* 44.1 kHz has no whole number of frames per millisecond: the frame is
 * rounded up, so a mark is never raised before its time. */
static void ms_to_frames_round_up_at_44100(void)
{
    tempo_audio *au = open_at(44100);
    if (au == NULL)
        return;
    CHECK_EQ_U64(frame_at(au, 0), 0);
    CHECK_EQ_U64(frame_at(au, 1), 45);      /* 44.1 */
    CHECK_EQ_U64(frame_at(au, 10), 441);    /* exact */
    CHECK_EQ_U64(frame_at(au, 999), 44056); /* 44055.9 */
    CHECK_EQ_U64(frame_at(au, 1000), 44100);
    CHECK_EQ_U64(frame_at(au, 1001), 44145);
    CHECK_EQ_U64(frame_at(au, 3600 * 1000), UINT64_C(158760000)); /* an hour */
    CHECK_EQ_U64(tempo_audio_ms_at_frame(au, 0), 0);
    CHECK_EQ_U64(tempo_audio_ms_at_frame(au, 44), 0);
    CHECK_EQ_U64(tempo_audio_ms_at_frame(au, 45), 1);
    CHECK_EQ_U64(tempo_audio_ms_at_frame(au, 44100), 1000);
    CHECK_EQ_U64(tempo_audio_ms_at_frame(au, 44145), 1001);
    /* Round trip: the frame for t ms is heard at t ms (floor of the exact time). */
    for (uint64_t ms = 0; ms < 3000; ms += 7)
        CHECK_EQ_U64(tempo_audio_ms_at_frame(au, frame_at(au, ms)), ms);
    tempo_audio_destroy(au);
}

static void ms_to_frames_limits_and_errors(void)
{
    tempo_audio *au = open_at(48000);
    if (au == NULL)
        return;
    uint64_t f = 7;
    CHECK_EQ_INT(tempo_audio_frame_at_ms(au, UINT64_MAX, &f), TEMPO_ERANGE);
    CHECK_EQ_U64(f, 7); /* untouched on failure */
    /* The largest ms whose frame fits: UINT64_MAX / 48 frames per ms. */
    uint64_t max_ms = UINT64_MAX / 48;
    CHECK_EQ_INT(tempo_audio_frame_at_ms(au, max_ms, &f), 0);
    CHECK_EQ_U64(f, max_ms * 48);
    CHECK_EQ_INT(tempo_audio_frame_at_ms(au, max_ms + 1000, &f), TEMPO_ERANGE);
    CHECK_EQ_INT(tempo_audio_frame_at_ms(NULL, 1, &f), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_audio_frame_at_ms(au, 1, NULL), TEMPO_EINVAL);
    CHECK_EQ_U64(tempo_audio_ms_at_frame(NULL, 48000), 0);
    CHECK_EQ_INT(tempo_audio_mark_ms(NULL, 0, 1, NULL, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_audio_mark_ms(au, 0, 1, NULL, 0), TEMPO_EINVAL); /* nothing played yet */
    CHECK_EQ_INT(tempo_audio_mark_ms(au, 0, UINT64_MAX, NULL, 0), TEMPO_ERANGE);
    tempo_audio_destroy(au);
}

/* Marks at 0, 100 and 250 ms of a 300 ms play at 48 kHz carry frames 0,
 * 4800 and 12000, in time order however they were set; a mark past the end
 * is CANCELED with its frame. */
static void marks_in_ms_fire_at_their_frames(void)
{
    tempo_audio *au = open_at(48000);
    if (au == NULL)
        return;
    const int frames = 14400; /* 300 ms */
    Sint16 *pcm = calloc((size_t)frames * 2, sizeof *pcm);
    Mix_Chunk *chunk = Mix_QuickLoad_RAW((Uint8 *)pcm, (Uint32)frames * 4);
    CHECK(chunk != NULL);
    /* Hold the audio callback while the play and its marks are set up, so
     * no buffer is mixed in between (a passed mark would fire late, by design). */
    tt_audio_lock held;
    tt_audio_lock_all(&held); /* audio_lock.h */
    int ch = tempo_audio_play(au, -1, chunk, 0);
    CHECK_GE_INT(ch, 0);
    CHECK_EQ_INT(tempo_audio_mark_ms(au, ch, 250, NULL, 3), 0);
    CHECK_EQ_INT(tempo_audio_mark_ms(au, ch, 0, NULL, 1), 0);
    CHECK_EQ_INT(tempo_audio_mark_ms(au, ch, 100, NULL, 2), 0);
    CHECK_EQ_INT(tempo_audio_mark_ms(au, ch, 5000, NULL, 4), 0);
    tt_audio_unlock_all(&held);

    static const uint64_t want_tag[] = {1, 2, 3, 4};
    static const uint64_t want_frame[] = {0, 4800, 12000, 240000};
    static const uint64_t want_ms[] = {0, 100, 250, 5000};
    static const uint32_t want_kind[] = {TEMPO_AUDIO_MARK, TEMPO_AUDIO_MARK, TEMPO_AUDIO_MARK,
                                         TEMPO_AUDIO_CANCELED};
    tempo_handle *h = tempo_audio_handle(au);
    int got = 0;
    uint64_t t0 = tempo_now_ns();
    /* Generous: the play lasts 0.3 s; a loaded machine may take much longer. */
    while (got < 4 && tempo_now_ns() - t0 < 30 * TEMPO_NS_PER_S) {
        tempo_wait(&h, 1, 100 * TEMPO_NS_PER_MS, 0); /* a timeout just polls again */
        tempo_audio_notice n;
        while (got < 4 && tempo_audio_poll(au, &n) > 0) {
            CHECK_EQ_U64(n.tag, want_tag[got]);
            CHECK_EQ_U64(n.frame, want_frame[got]);
            CHECK_EQ_INT((int)n.kind, (int)want_kind[got]);
            CHECK_EQ_U64(tempo_audio_ms_at_frame(au, n.frame), want_ms[got]);
            got++;
        }
    }
    CHECK_EQ_INT(got, 4);
    tempo_audio_destroy(au);
    Mix_FreeChunk(chunk);
    free(pcm);
}

static const tt_case cases[] = {
    TT_CASE(ms_to_frames_round_up_at_44100),
    TT_CASE(ms_to_frames_limits_and_errors),
    TT_CASE(marks_in_ms_fire_at_their_frames),
};

int main(int argc, char **argv)
{
    if (SDL_Init(0) != 0)
        printf("# SDL_Init: %s\n", SDL_GetError());
    int r = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return r;
}
