/* rhythm: a metronome driven by audio position notifications.
 *
 * One bar of clicks (generated here: an accented beat and three plain ones)
 * loops on a mixer channel. Every beat is an audio mark; the audio thread
 * raises it while mixing the buffer that holds the click, the loop gets the
 * notice, and a one-shot timer at the notice's play_ns (when the click is
 * heard) flashes the screen. Tap any key, mouse button or pad button on the
 * beat: the screen shows how far the tap was from the nearest click.
 *
 * It runs in tempo_loop_run() (tempo/loop.h): LOCKSTEP at 60 Hz, one update
 * and one render per tick. The loop watches the audio notice handle and the
 * flash timer; input reaches it through desc.input, so update() reads the
 * taps from the per-frame ring, each stamped with when the loop woke for
 * it. Between beats there is nothing to animate, and the game pauses its
 * own loop (tempo_loop_pause) in the first tick that brings nothing new:
 * it then sleeps with no timeout until a notice, the flash timer or input
 * arrives, and resumes without a burst; render() draws only when something
 * changed or a flash fades. The first render starts the clicks.
 * Headless runs use SDL's dummy audio driver (unless SDL_AUDIODRIVER says
 * otherwise) and print the marker timing and loop figures at exit.
 *
 * Options: --bpm N (120), --buffer FRAMES (480), --latency MS (output
 * latency added to the heard time; default one buffer), --autotap (a thread
 * "taps" via SDL_PushEvent up to 30 ms around each click; on by default
 * when headless, so the input path is exercised and measured too). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_mixer.h>
#include <tempo/debugdraw.h>
#include <tempo/tempo.h>

#include "sample.h"

#define BEATS_PER_BAR 4
#define MARK_AHEAD 4      /* beats marked in advance */
#define MAX_NOTICES 4096  /* kept for the summary */
#define TAPS 16
#define FLASH_NS (180 * TEMPO_NS_PER_MS)

typedef struct options {
    int bpm, buffer_frames;
    double latency_ms;
    bool autotap;
} options;

/* The auto-tapper: a thread that pushes a key press near each click. */
typedef struct tapper {
    tempo_handle *stop;      /* manual-reset */
    tempo_handle *click;     /* set by the loop when a new click time is known */
    tempo_handle *timer;     /* the tapper's own */
    _Atomic uint64_t click_ns;
    _Atomic uint64_t pushed_ns[64]; /* push time of tap k % 64 */
    atomic_uint pushed;
} tapper;

typedef struct rhythm {
    sample_app app;
    options opt;
    tempo_audio *au;
    tempo_audio_spec spec;
    Mix_Chunk *bar;
    Sint16 *bar_pcm;
    int channel;
    uint64_t frames_per_beat, beat_ns;
    uint64_t next_mark; /* next beat to mark */

    /* Beats whose click time is known (from notices), oldest first. */
    uint64_t heard_ns[8], heard_beat[8];
    int nheard;
    uint64_t flash_queue[8]; /* click times not yet flashed */
    int nflash;
    uint64_t flash_start_ns, flash_beat;
    tempo_handle *show;

    tempo_loop *loop;
    tempo_input *in; /* filled by the loop (desc.input), read by update() */
    bool idle;       /* the game paused its loop: nothing to animate */
    bool redraw;     /* something new to show (a tap, a flash, an expose) */

    /* Taps: offset to the nearest click, positive = late. */
    int64_t taps[TAPS];
    int ntaps;
    uint64_t total_taps;

    /* For the summary. */
    tempo_audio_notice notices[MAX_NOTICES];
    uint64_t received_ns[MAX_NOTICES];
    int nnotices;
    uint64_t start_ns;
    tapper *tap;       /* NULL unless --autotap */
    unsigned taps_seen;
    int64_t tap_wake[TAPS]; /* push -> loop for the auto-taps */
    int ntap_wake;
    /* for the shutdown (on_stop) */
    tapper tap_state; /* what tap points to with --autotap */
    SDL_Thread *tap_thread;
    tempo_handle *time_up;
} rhythm;

/* main()'s exit status, set by the shutdown (on_stop). */
static int g_exit_status = 1;

static int parse_extra(const char *arg, const char *value, void *user)
{
    options *o = user;
    if (value == NULL && strcmp(arg, "--autotap") != 0)
        return -1;
    if (strcmp(arg, "--bpm") == 0)
        o->bpm = atoi(value);
    else if (strcmp(arg, "--buffer") == 0)
        o->buffer_frames = atoi(value);
    else if (strcmp(arg, "--latency") == 0)
        o->latency_ms = atof(value);
    else if (strcmp(arg, "--autotap") == 0) {
        o->autotap = true;
        return 0;
    } else
        return -1;
    return 1;
}

/* ---- Sound ---------------------------------------------------------------- */

/* One bar of clicks in the device format: a short decaying sine per beat. */
static int make_bar(rhythm *g)
{
    const int rate = g->spec.frequency, chans = g->spec.channels;
    uint64_t frames = g->frames_per_beat * BEATS_PER_BAR;
    g->bar_pcm = calloc((size_t)frames * (size_t)chans, sizeof(Sint16));
    if (g->bar_pcm == NULL)
        return -1;
    const int click = rate * 30 / 1000; /* 30 ms */
    for (int b = 0; b < BEATS_PER_BAR; b++) {
        double hz = b == 0 ? 1760.0 : 880.0, amp = b == 0 ? 14000.0 : 9000.0;
        Sint16 *p = g->bar_pcm + (size_t)b * g->frames_per_beat * (size_t)chans;
        for (int i = 0; i < click; i++) {
            double t = (double)i / rate;
            double v = amp * sin(6.283185307179586 * hz * t) * exp(-t * 160.0);
            for (int c = 0; c < chans; c++)
                p[i * chans + c] = (Sint16)v;
        }
    }
    g->bar = Mix_QuickLoad_RAW((Uint8 *)g->bar_pcm, (Uint32)(frames * (uint64_t)g->spec.bytes_per_frame));
    return g->bar ? 0 : -1;
}

static int open_audio(rhythm *g)
{
    tempo_audio_desc desc = {
        .buffer_frames = g->opt.buffer_frames,
        .latency_ns = (uint64_t)(g->opt.latency_ms * 1e6),
    };
    /* Headless runs (CI) use the dummy driver: real-time pacing, no device. */
    if (g->app.headless && SDL_getenv("SDL_AUDIODRIVER") == NULL)
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    g->au = tempo_audio_create(&desc);
    if (g->au == NULL) {
        fprintf(stderr, "audio: %s; falling back to the dummy driver (silent)\n", tempo_get_error());
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
        g->au = tempo_audio_create(&desc);
    }
    if (g->au == NULL) {
        fprintf(stderr, "audio: %s\n", tempo_get_error());
        return -1;
    }
    tempo_audio_get_spec(g->au, &g->spec);
    g->frames_per_beat = (uint64_t)g->spec.frequency * 60u / (uint64_t)g->opt.bpm;
    g->beat_ns = g->frames_per_beat * TEMPO_NS_PER_S / (uint64_t)g->spec.frequency;
    if (make_bar(g) != 0) {
        fprintf(stderr, "audio: cannot make the click sound: %s\n", Mix_GetError());
        return -1;
    }
    return 0;
}

/* Starts the metronome: the bar loops forever from the next device buffer. */
static int start_audio(rhythm *g)
{
    g->channel = tempo_audio_play(g->au, -1, g->bar, -1);
    if (g->channel < 0) {
        fprintf(stderr, "audio: %s (%s)\n", tempo_strerror(g->channel), tempo_get_error());
        return -1;
    }
    return 0;
}

static void mark_ahead(rhythm *g, uint64_t up_to_beat)
{
    while (g->next_mark <= up_to_beat) {
        if (tempo_audio_mark(g->au, g->channel, g->next_mark * g->frames_per_beat, NULL, g->next_mark) != 0)
            break;
        g->next_mark++;
    }
}

/* [tapper thread] Waits for each new click time, then presses a key at a
 * random offset within +-30 ms of it (in a Tempo wait: stop interrupts). */
static int tapper_main(void *p)
{
    tapper *t = p;
    uint32_t seed = 4242;
    for (;;) {
        tempo_handle *set[2] = {t->stop, t->click};
        if (tempo_wait(set, 2, TEMPO_INFINITE, 0) != 1)
            return 0;
        seed = seed * 1103515245u + 12345u;
        int64_t jitter = ((int64_t)((seed >> 16) % 61) - 30) * (int64_t)TEMPO_NS_PER_MS;
        tempo_timer_set(t->timer, (uint64_t)((int64_t)atomic_load(&t->click_ns) + jitter), 0);
        tempo_handle *wset[2] = {t->stop, t->timer};
        if (tempo_wait(wset, 2, TEMPO_INFINITE, 0) != 1)
            return 0;
        SDL_Event e;
        SDL_zero(e);
        e.type = SDL_KEYDOWN;
        e.key.state = SDL_PRESSED;
        e.key.keysym.scancode = SDL_SCANCODE_SPACE;
        e.key.keysym.sym = SDLK_SPACE;
        unsigned k = atomic_load(&t->pushed);
        atomic_store(&t->pushed_ns[k % 64], tempo_now_ns());
        atomic_store(&t->pushed, k + 1);
        SDL_PushEvent(&e);
        e.type = SDL_KEYUP;
        e.key.state = SDL_RELEASED;
        SDL_PushEvent(&e);
    }
}

/* ---- Loop callbacks ------------------------------------------------------- */

/* Resumes the loop if the game paused it; the frame that sees this then
 * runs an update and a render at once. Returns whether it was idle. */
static bool resume(rhythm *g)
{
    if (!g->idle)
        return false;
    g->idle = false;
    tempo_loop_pause(g->loop, false);
    return true;
}

/* Something to show now: resume, or draw without waiting for the tick. */
static void wake_up(rhythm *g)
{
    g->redraw = true;
    if (!resume(g))
        tempo_loop_request_render(g->loop);
}

static bool fading(const rhythm *g, uint64_t now)
{
    return g->flash_start_ns != 0 && now >= g->flash_start_ns && now - g->flash_start_ns <= FLASH_NS;
}

static void rearm_show(rhythm *g)
{
    if (g->nflash > 0)
        tempo_timer_set(g->show, g->flash_queue[0], 0);
    else
        tempo_timer_cancel(g->show);
}

/* [loop source] One audio notice (tempo_audio_attach): queue the flash,
 * mark more. Nothing to draw yet: the flash timer does that. */
static void on_notice(const tempo_audio_notice *notice, void *user)
{
    rhythm *g = user;
    tempo_audio_notice n = *notice;
    uint64_t now = tempo_now_ns();
    if (n.kind == TEMPO_AUDIO_MARK) {
        if (g->nnotices < MAX_NOTICES) {
            g->notices[g->nnotices] = n;
            g->received_ns[g->nnotices++] = now;
        }
        if (g->nheard == 8) {
            memmove(g->heard_ns, g->heard_ns + 1, 7 * sizeof g->heard_ns[0]);
            memmove(g->heard_beat, g->heard_beat + 1, 7 * sizeof g->heard_beat[0]);
            g->nheard--;
        }
        g->heard_ns[g->nheard] = n.play_ns;
        g->heard_beat[g->nheard++] = n.tag;
        if (g->nflash < 8)
            g->flash_queue[g->nflash++] = n.play_ns;
        if (g->tap != NULL) {
            atomic_store(&g->tap->click_ns, n.play_ns);
            tempo_event_set(g->tap->click);
        }
        mark_ahead(g, n.tag + MARK_AHEAD);
        rearm_show(g);
    }
}

/* [loop watch] The flash timer fired: the click is being heard now. */
static void on_show(tempo_loop *loop, tempo_handle *handle, void *user)
{
    (void)loop;
    (void)handle;
    rhythm *g = user;
    uint64_t now = tempo_now_ns();
    while (g->nflash > 0 && g->flash_queue[0] <= now) {
        g->flash_start_ns = g->flash_queue[0];
        memmove(g->flash_queue, g->flash_queue + 1, (size_t)(g->nflash - 1) * sizeof g->flash_queue[0]);
        g->nflash--;
        g->flash_beat++;
    }
    rearm_show(g);
    wake_up(g); /* the fade runs at the loop's 60 Hz until it is over */
}

/* A tap: offset to the nearest click, known or predicted. */
static void on_tap(rhythm *g, uint64_t t)
{
    if (g->nheard == 0)
        return;
    int64_t best = INT64_MAX;
    for (int i = 0; i <= g->nheard; i++) {
        uint64_t click = i < g->nheard ? g->heard_ns[i] : g->heard_ns[g->nheard - 1] + g->beat_ns;
        int64_t d = (int64_t)(t - click);
        if (llabs(d) < llabs(best))
            best = d;
    }
    if (g->ntaps == TAPS) {
        memmove(g->taps, g->taps + 1, (TAPS - 1) * sizeof g->taps[0]);
        g->ntaps--;
    }
    g->taps[g->ntaps++] = best;
    g->total_taps++;
}

/* An auto-tap arrived: how long from SDL_PushEvent to the loop's wake. */
static void on_auto_tap(rhythm *g, uint64_t t)
{
    unsigned k = g->taps_seen++;
    if (g->tap == NULL || k >= atomic_load(&g->tap->pushed))
        return;
    if (g->ntap_wake == TAPS) {
        memmove(g->tap_wake, g->tap_wake + 1, (TAPS - 1) * sizeof g->tap_wake[0]);
        g->ntap_wake--;
    }
    g->tap_wake[g->ntap_wake++] = (int64_t)(t - atomic_load(&g->tap->pushed_ns[k % 64]));
}

static void draw(rhythm *g)
{
    SDL_Renderer *r = g->app.renderer;
    uint64_t now = tempo_now_ns();
    double fade = 0.0;
    if (g->flash_start_ns != 0 && now >= g->flash_start_ns && now - g->flash_start_ns < FLASH_NS)
        fade = 1.0 - (double)(now - g->flash_start_ns) / (double)FLASH_NS;
    bool accent = g->flash_beat > 0 && (g->flash_beat - 1) % BEATS_PER_BAR == 0;
    Uint8 v = (Uint8)(16 + fade * (accent ? 220 : 150));
    SDL_SetRenderDrawColor(r, v, (Uint8)(16 + fade * 120), (Uint8)(24 + fade * 40), 255);
    SDL_RenderClear(r);

    SDL_SetRenderDrawColor(r, 240, 240, 240, 255);
    tempo_debug_textf(r, 16, 14, 2, "Tempo rhythm  %d BPM", g->opt.bpm);
    tempo_debug_textf(r, 16, 40, 1, "beat %llu of the bar %llu   audio buffer %d frames (%.1f ms)",
                      (unsigned long long)(g->flash_beat ? (g->flash_beat - 1) % BEATS_PER_BAR + 1 : 0),
                      (unsigned long long)(g->flash_beat ? (g->flash_beat - 1) / BEATS_PER_BAR + 1 : 0),
                      g->spec.buffer_frames, 1000.0 * g->spec.buffer_frames / g->spec.frequency);
    /* The four beat boxes. */
    for (int b = 0; b < BEATS_PER_BAR; b++) {
        SDL_Rect box = {16 + b * 90, 64, 80, 80};
        bool on = g->flash_beat > 0 && (int)((g->flash_beat - 1) % BEATS_PER_BAR) == b && fade > 0;
        SDL_SetRenderDrawColor(r, on ? 255 : 90, on ? 220 : 90, on ? 80 : 110, 255);
        if (on)
            SDL_RenderFillRect(r, &box);
        else
            SDL_RenderDrawRect(r, &box);
    }
    /* Tap offsets: a bar per tap around a centre line (+-100 ms). */
    SDL_SetRenderDrawColor(r, 230, 230, 230, 255);
    if (g->ntaps > 0) {
        double last = (double)g->taps[g->ntaps - 1] / 1e6, mean = 0;
        for (int i = 0; i < g->ntaps; i++)
            mean += (double)g->taps[i] / 1e6;
        mean /= g->ntaps;
        tempo_debug_textf(r, 16, 160, 2, "last tap %+.0f ms %s", last, last < 0 ? "(early)" : "(late)");
        tempo_debug_textf(r, 16, 184, 1, "mean of the last %d taps: %+.1f ms", g->ntaps, mean);
    } else {
        tempo_debug_text(r, 16, 160, 2, "tap any key on the beat");
    }
    int cx = 16 + 180, cy = 230;
    SDL_SetRenderDrawColor(r, 120, 120, 120, 255);
    SDL_RenderDrawLine(r, cx, cy - 24, cx, cy + 24);
    for (int i = 0; i < g->ntaps; i++) {
        int dx = (int)((double)g->taps[i] / 1e6 * 1.6); /* 1.6 px per ms */
        SDL_SetRenderDrawColor(r, 120, 200, 255, (Uint8)(80 + 175 * (i + 1) / g->ntaps));
        SDL_Rect bar = {dx < 0 ? cx + dx : cx, cy - 20 + i * 40 / TAPS, dx < 0 ? -dx : dx + 1, 2};
        SDL_RenderFillRect(r, &bar);
    }
    SDL_SetRenderDrawColor(r, 140, 140, 140, 255);
    const tempo_loop_stats *ls = tempo_loop_get_stats(g->loop);
    tempo_debug_textf(r, 16, g->app.height - 34, 1, "wait route %s; %llu loop wake-ups (%s); notices %d",
                      tempo_wait_route(), (unsigned long long)(ls ? ls->total.frames : 0),
                      g->idle ? "idle" : "animating", g->nnotices);
    tempo_debug_text(r, 16, g->app.height - 20, 1, "tap: any key / mouse / pad button;  Esc quits");
}

/* [loop] One tick: the taps from the input ring, then pause the loop if
 * the tick brought nothing new and nothing fades (its render then draws
 * nothing: see render()). */
static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    rhythm *g = user;
    bool tapped = false;
    tempo_input_event ev;
    while (tempo_input_poll(g->in, &ev) > 0) {
        if (ev.type == TEMPO_INPUT_KEY && ev.u.key.scancode == SDL_SCANCODE_ESCAPE) {
            tempo_loop_quit(loop);
        } else if ((ev.type == TEMPO_INPUT_KEY && ev.u.key.down && !ev.u.key.repeat) ||
                   (ev.type == TEMPO_INPUT_MOUSE_BUTTON && ev.u.button.down) ||
                   (ev.type == TEMPO_INPUT_PAD_BUTTON && ev.u.pad_button.down)) {
            on_tap(g, ev.time_ns);
            if (g->tap != NULL && ev.type == TEMPO_INPUT_KEY && ev.u.key.scancode == SDL_SCANCODE_SPACE)
                on_auto_tap(g, ev.time_ns);
            tapped = true;
            g->redraw = true;
        }
    }
    if (!tapped && !fading(g, tempo_now_ns()) && !g->idle) {
        g->idle = true;
        tempo_loop_pause(loop, true);
    }
}

/* [loop] Draws when something changed or a flash fades; lockstep renders
 * after every update, and most ticks around a pause have nothing new. */
static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    rhythm *g = user;
    if (g->redraw || fading(g, tempo_now_ns())) {
        g->redraw = false;
        draw(g);
        SDL_RenderPresent(g->app.renderer);
    }
    if (g->channel < 0) {
        /* The first frame is on screen (and the window's start-up events
         * are handled): start the clicks now, so the first beat's notice
         * finds the loop waiting rather than busy with that frame. */
        if (start_audio(g) != 0)
            tempo_loop_quit(loop);
        else
            mark_ahead(g, MARK_AHEAD);
    }
}

/* [loop] Every SDL event (input is already in the ring): an idle loop
 * resumes, so update() reads the ring now (and keeps it from filling up
 * with mouse motion). A running loop reads it at its next tick: a 1 kHz
 * mouse costs wake-ups, not renders. Window changes are redrawn. */
static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    (void)loop;
    rhythm *g = user;
    if (e->type == SDL_WINDOWEVENT)
        g->redraw = true;
    resume(g);
}

/* ---- Summary ---------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void figures(const char *what, int64_t *v, int n, double unit, const char *uname)
{
    if (n == 0)
        return;
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    printf("  %-44s p50 %+8.3f %s   max %+8.3f %s   min %+8.3f %s\n", what, (double)v[n / 2] / unit, uname,
           (double)v[n - 1] / unit, uname, (double)v[0] / unit, uname);
}

static void summary(rhythm *g)
{
    tempo_audio_stats st;
    tempo_audio_get_stats(g->au, &st);
    double wall = (double)(tempo_now_ns() - g->start_ns) / 1e9;
    printf("rhythm summary (%s, video %s, audio %s, wait route %s)\n", tempo_backend_name(),
           g->app.video_driver, SDL_GetCurrentAudioDriver(), tempo_wait_route());
    const tempo_loop_counts *t = &tempo_loop_get_stats(g->loop)->total;
    printf("  %d BPM for %.2f s: %d beat notices, %llu taps, %llu loop wake-ups (%.1f/s)\n", g->opt.bpm, wall,
           g->nnotices, (unsigned long long)g->total_taps, (unsigned long long)t->frames,
           (double)t->frames / wall);
    printf("  loop: lockstep 60 Hz, %llu updates, %llu renders; woke for timer %llu, input %llu, watch %llu, "
           "source %llu, signal %llu, without sleeping %llu\n",
           (unsigned long long)t->updates, (unsigned long long)t->renders,
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_TIMER], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_MESSAGES],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_WATCH], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SOURCE],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SIGNAL],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_DUE]);
    printf("  loop: idle (paused by the game) %.1f%% of the time; tick lateness p50 %.1f us, p99 %.1f us, "
           "max %.1f us\n",
           t->elapsed_ns ? 100.0 * (double)t->paused_ns / (double)t->elapsed_ns : 0.0,
           (double)t->lateness_p50_ns / 1e3, (double)t->lateness_p99_ns / 1e3, (double)t->lateness_max_ns / 1e3);
    printf("  device %d Hz, buffer %d frames = %.2f ms, %llu buffers mixed\n", g->spec.frequency,
           g->spec.buffer_frames, 1000.0 * g->spec.buffer_frames / g->spec.frequency,
           (unsigned long long)st.buffers);
    int n = g->nnotices;
    if (n == 0)
        return;
    /* Expected sample times on two clocks: the nominal rate, and the
     * device's real one (SDL's dummy/disk drivers, and sound cards, drift
     * from nominal; a rhythm game follows the device). */
    double nominal = g->spec.frequency / 1e9; /* frames per ns */
    double real = nominal;
    if (st.last_buffer_ns > st.start_ns && st.device_frames > (uint64_t)g->spec.buffer_frames)
        real = (double)(st.device_frames - (uint64_t)g->spec.buffer_frames) /
               (double)(st.last_buffer_ns - st.start_ns);
    printf("  device clock: %.1f frames/s measured vs %d nominal (%+.2f%%)\n", real * 1e9,
           g->spec.frequency, 100.0 * (real / nominal - 1.0));
    int64_t *pos = malloc(sizeof(int64_t) * (size_t)n), *vnom = malloc(sizeof(int64_t) * (size_t)n),
            *vdev = malloc(sizeof(int64_t) * (size_t)n), *vloop = malloc(sizeof(int64_t) * (size_t)n),
            *disp = malloc(sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < n; i++) {
        const tempo_audio_notice *x = &g->notices[i];
        int64_t exp_nom = (int64_t)st.start_ns + (int64_t)((double)x->device_frame / nominal);
        int64_t exp_dev = (int64_t)st.start_ns + (int64_t)((double)x->device_frame / real);
        pos[i] = (int64_t)((double)(x->device_frame - x->mixed_frames) / nominal);
        vnom[i] = (int64_t)x->raised_ns - exp_nom;
        vdev[i] = (int64_t)x->raised_ns - exp_dev;
        vloop[i] = (int64_t)g->received_ns[i] - exp_dev;
        disp[i] = (int64_t)g->received_ns[i] - (int64_t)x->raised_ns;
    }
    printf("  marker timing over %d beats (negative = before the sample's time):\n", n);
    figures("beat sample's offset inside its buffer", pos, n, 1e6, "ms");
    figures("marker raised vs expected (device clock)", vdev, n, 1e6, "ms");
    figures("marker at the loop vs expected (device clock)", vloop, n, 1e6, "ms");
    figures("marker raised vs expected (nominal rate)", vnom, n, 1e6, "ms");
    figures("audio thread -> loop thread dispatch", disp, n, 1e3, "us");
    free(pos);
    free(vnom);
    free(vdev);
    free(vloop);
    free(disp);
    if (g->total_taps > 0) {
        int64_t t[TAPS];
        memcpy(t, g->taps, sizeof t[0] * (size_t)g->ntaps);
        figures(g->tap ? "auto-tap vs heard click (+-30 ms on purpose)" : "tap vs heard click (last taps)", t,
                g->ntaps, 1e6, "ms");
    }
    if (g->ntap_wake > 0) {
        int64_t t[TAPS];
        memcpy(t, g->tap_wake, sizeof t[0] * (size_t)g->ntap_wake);
        figures("auto-tap SDL_PushEvent -> loop wake (last taps)", t, g->ntap_wake, 1e3, "us");
    }
}

/* ---- Main ------------------------------------------------------------------- */

/* [loop] desc.on_stop: the loop quit (Esc, the window closed, --seconds) or
 * failed. The whole shutdown is here, not after tempo_loop_run() in main():
 * on the web tempo_loop_run() never returns (docs/web.md, "One source for
 * every backend"). */
static void on_stop(tempo_loop *loop, int rc, void *user)
{
    rhythm *g = user;
    if (rc != 0)
        fprintf(stderr, "rhythm: loop: %s (%s)\n", tempo_strerror(rc), tempo_get_error());
    if (g->tap_thread != NULL) {
        tapper *tap = &g->tap_state;
        tempo_event_set(tap->stop);
        SDL_WaitThread(g->tap_thread, NULL);
        tempo_event_destroy(tap->stop);
        tempo_event_destroy(tap->click);
        tempo_timer_destroy(tap->timer);
    }
    draw(g);
    if (g->app.screenshot)
        sample_screenshot(&g->app, g->app.screenshot);
    summary(g);

    tempo_loop_destroy(loop);
    tempo_audio_destroy(g->au);
    Mix_FreeChunk(g->bar);
    free(g->bar_pcm);
    tempo_input_destroy(g->in);
    tempo_timer_destroy(g->show);
    tempo_timer_destroy(g->time_up);
    tempo_shutdown();
    sample_close(&g->app);
    free(g);
    g_exit_status = rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    rhythm *g = calloc(1, sizeof *g);
    /* 480 frames = 10 ms at 48 kHz: SDL's dummy and disk drivers pace in
     * whole milliseconds, so headless runs keep real time exactly. */
    g->opt = (options){.bpm = 120, .buffer_frames = 480};
    if (sample_parse(&g->app, argc, argv, "[--bpm N] [--buffer FRAMES] [--latency MS]", parse_extra, &g->opt) != 0)
        return 1;
    if (g->opt.bpm < 20 || g->opt.bpm > 400 || g->opt.buffer_frames < 16) {
        fprintf(stderr, "rhythm: --bpm must be 20..400 and --buffer >= 16\n");
        return 2;
    }
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    /* It draws and presents only when something changed (and measures its
     * own latency): a blocking vsync present would sit in its render time. */
    g->app.no_vsync = true;
    if (sample_open(&g->app, "Tempo rhythm", 560, 300) != 0)
        return 1;
    g->in = tempo_input_create(NULL);
    g->show = tempo_timer_create(false);
    tempo_handle *time_up = g->time_up = tempo_timer_create(false);
    g->channel = -1; /* started by the first render */
    g->redraw = true;
    if (g->in == NULL || g->show == NULL || time_up == NULL || open_audio(g) != 0) {
        fprintf(stderr, "rhythm: %s\n", tempo_get_error());
        return 1;
    }
    g->loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60,
        .policy = TEMPO_LOOP_LOCKSTEP, /* update + render per tick, renders on request at once */
        .window = g->app.window,
        .update = update,
        .render = render,
        .event = on_event,
        .user = g,
        .input = g->in,
        .on_stop = on_stop,
    });
    if (g->loop == NULL) {
        fprintf(stderr, "rhythm: %s\n", tempo_get_error());
        return 1;
    }
    tempo_audio_attach(g->au, g->loop, on_notice, g);
    tempo_loop_watch(g->loop, g->show, on_show, g);
    g->start_ns = tempo_now_ns();
    if (g->app.seconds > 0) {
        tempo_timer_set(time_up, g->start_ns + (uint64_t)(g->app.seconds * 1e9), 0);
        tempo_loop_watch(g->loop, time_up, sample_quit_loop, NULL);
    }
    if (g->opt.autotap || g->app.headless) {
        tapper *tap = &g->tap_state;
        tap->stop = tempo_event_create(true, false);
        tap->click = tempo_event_create(false, false);
        tap->timer = tempo_timer_create(false);
        g->tap = tap;
        g->tap_thread = SDL_CreateThread(tapper_main, "rhythm-tapper", tap);
    }

    /* Returns here on the native backends; on the web it never returns
     * (the browser runs the loop): the shutdown is on_stop's, on both. */
    tempo_loop_run(g->loop);
    return g_exit_status;
}
