/* loading: a few hundred images and sounds load behind a progress bar while
 * an animation keeps moving. Press S to load the same assets synchronously
 * on the loop thread (a batch per frame, as a game without a loader would)
 * and watch the frame-time graph; L loads them with Tempo's loader again.
 *
 * The loop is passive: it sleeps in tempo_wait on a 60 Hz timer, the
 * loader's handle and window messages. The timer comes first in the wait
 * set, so a due frame always wins; otherwise, whenever the loader's handle is
 * signalled, loader_ready() finalizes up to one budget's worth (2 ms) but
 * stops before an item that would probably cross the next frame: finalizing
 * uses the idle time between frames without making frames late. frame() is the per-frame logic and loader_ready() what a
 * tempo_loop_watch callback will do.
 *
 * Assets (200 PNGs of 256x256, 60 short WAVs) are generated on the first run
 * into --assets DIR (default ./tempo-loading-assets) and reused afterwards.
 * Headless (--headless, or no display) it runs both modes one after the other
 * and prints their statistics. Keys: L loader, S synchronous, Esc quit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#define make_dir(p) _mkdir(p)
#else
#include <sys/stat.h>
#define make_dir(p) mkdir((p), 0755)
#endif

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>
#include <tempo/debugdraw.h>
#include <tempo/loader.h>
#include <tempo/wait.h>

#include "sample.h"

#define N_IMAGES 200
#define N_SOUNDS 60
#define N_ASSETS (N_IMAGES + N_SOUNDS)
#define IMG_SIDE 256
#define FRAME_NS (TEMPO_NS_PER_S / 60)
#define GROUP_LEVEL 1
#define GRAPH_N 240

typedef enum mode { MODE_LOADER, MODE_SYNC, MODE_COUNT } mode;
static const char *const mode_names[MODE_COUNT] = {"loader", "sync"};

typedef struct run_stats {
    bool done;
    int frames;
    uint64_t longest_ns, p99_ns, total_ns;
} run_stats;

typedef struct app {
    sample_app s;
    char assets[512];
    char paths[N_ASSETS][600];
    int sync_batch;
    bool audio;
    tempo_loader *loader;
    /* the current load */
    mode mode;
    bool loading;
    uint64_t load_start_ns;
    int next_sync;   /* sync mode: next asset */
    int sync_done;   /* sync mode: assets loaded */
    uint64_t sync_bytes;
    SDL_Texture *tex[N_IMAGES];
    Mix_Chunk *snd[N_SOUNDS];
    int failed;
    uint64_t intervals[4096]; /* frame intervals of the current load */
    int n_intervals;
    run_stats stats[MODE_COUNT];
    /* the frame loop */
    uint64_t start_ns, last_frame_ns;
    uint64_t graph[GRAPH_N];
    int graph_n;
} app;

/* ---- Assets ---------------------------------------------------------------- */

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

static bool exists(const char *path)
{
    SDL_RWops *rw = SDL_RWFromFile(path, "rb");
    bool ok = rw != NULL && SDL_RWsize(rw) > 0;
    if (rw)
        SDL_RWclose(rw);
    return ok;
}

static int generate_assets(app *a)
{
    make_dir(a->assets);
    for (int i = 0; i < N_ASSETS; i++)
        snprintf(a->paths[i], sizeof a->paths[i], "%s/%s-%03d.%s", a->assets, i < N_IMAGES ? "img" : "snd", i,
                 i < N_IMAGES ? "png" : "wav");
    uint64_t t0 = tempo_now_ns();
    int made = 0;
    for (int i = 0; i < N_IMAGES; i++) {
        if (exists(a->paths[i]))
            continue;
        SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, IMG_SIDE, IMG_SIDE, 32, SDL_PIXELFORMAT_RGBA32);
        uint32_t seed = 2654435761u * (uint32_t)(i + 1);
        for (int y = 0; y < IMG_SIDE; y++) {
            Uint8 *row = (Uint8 *)s->pixels + y * s->pitch;
            for (int x = 0; x < IMG_SIDE; x++) {
                seed = seed * 1664525u + 1013904223u;
                int dx = x - IMG_SIDE / 2, dy = y - IMG_SIDE / 2;
                int ring = ((dx * dx + dy * dy) / (300 + (i % 9) * 90)) % 2;
                row[4 * x + 0] = (Uint8)(i * 37 + x / 2 + (seed >> 29));
                row[4 * x + 1] = (Uint8)(ring ? 200 - y / 2 : y / 3);
                row[4 * x + 2] = (Uint8)((x ^ y) / 2 + i * 11);
                row[4 * x + 3] = 255;
            }
        }
        int rc = IMG_SavePNG(s, a->paths[i]);
        SDL_FreeSurface(s);
        if (rc != 0) {
            fprintf(stderr, "loading: cannot write %s: %s\n", a->paths[i], SDL_GetError());
            return -1;
        }
        made++;
    }
    for (int i = N_IMAGES; i < N_ASSETS; i++) {
        if (exists(a->paths[i]))
            continue;
        /* A 16-bit mono blip: the RIFF header written by hand. */
        int rate = 22050, frames = rate / 5;
        size_t len = 44 + (size_t)frames * 2;
        unsigned char *b = calloc(1, len);
        memcpy(b, "RIFF", 4);
        put32(b + 4, (uint32_t)len - 8);
        memcpy(b + 8, "WAVEfmt ", 8);
        put32(b + 16, 16);
        put16(b + 20, 1);
        put16(b + 22, 1);
        put32(b + 24, (uint32_t)rate);
        put32(b + 28, (uint32_t)rate * 2);
        put16(b + 32, 2);
        put16(b + 34, 16);
        memcpy(b + 36, "data", 4);
        put32(b + 40, (uint32_t)frames * 2);
        int period = 20 + (i - N_IMAGES) * 2;
        for (int f = 0; f < frames; f++) {
            int amp = 8000 * (frames - f) / frames;
            put16(b + 44 + 2 * f, (unsigned)(uint16_t)((f / (period / 2)) % 2 ? amp : -amp));
        }
        SDL_RWops *rw = SDL_RWFromFile(a->paths[i], "wb");
        if (rw == NULL || SDL_RWwrite(rw, b, 1, len) != len) {
            fprintf(stderr, "loading: cannot write %s: %s\n", a->paths[i], SDL_GetError());
            free(b);
            return -1;
        }
        SDL_RWclose(rw);
        free(b);
        made++;
    }
    if (made)
        printf("generated %d assets in %s (%.1f s)\n", made, a->assets, (double)(tempo_now_ns() - t0) / 1e9);
    return 0;
}

/* ---- Loading in either mode ----------------------------------------------------- */

static int n_assets(const app *a)
{
    return a->audio ? N_ASSETS : N_IMAGES;
}

static void free_assets(app *a)
{
    for (int i = 0; i < N_IMAGES; i++) {
        if (a->tex[i])
            SDL_DestroyTexture(a->tex[i]);
        a->tex[i] = NULL;
    }
    for (int i = 0; i < N_SOUNDS; i++) {
        if (a->snd[i])
            Mix_FreeChunk(a->snd[i]);
        a->snd[i] = NULL;
    }
}

/* Each request's user pointer says where its asset goes. */
typedef struct asset_ref {
    app *a;
    int index;
} asset_ref;

static asset_ref refs[N_ASSETS];

/* [loop thread] A result from the loader: the texture or chunk is ours now
 * (cancelled and failed requests carry none). */
static void on_loaded(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    asset_ref *ref = user;
    app *a = ref->a;
    if (r->error != 0) {
        if (r->error != TEMPO_ECANCELED) {
            fprintf(stderr, "loading: %s: %s\n", r->path, r->error_text);
            a->failed++;
        }
        return;
    }
    if (ref->index < N_IMAGES)
        a->tex[ref->index] = r->texture;
    else
        a->snd[ref->index - N_IMAGES] = r->chunk;
}

static void start_load(app *a, mode m)
{
    if (a->loading && a->mode == MODE_LOADER)
        tempo_loader_cancel_group(a->loader, GROUP_LEVEL);
    /* Let the image on the loader thread finish (a passive wait), then
     * deliver the cancellations: that frees whatever was decoded. */
    tempo_loader_wait_idle(a->loader, TEMPO_INFINITE);
    while (tempo_loader_process(a->loader) > 0) {
    }
    free_assets(a);
    a->mode = m;
    a->loading = true;
    a->failed = 0;
    a->n_intervals = 0;
    a->next_sync = a->sync_done = 0;
    a->sync_bytes = 0;
    a->load_start_ns = tempo_now_ns();
    if (m == MODE_LOADER) {
        for (int i = 0; i < n_assets(a); i++) {
            refs[i] = (asset_ref){a, i};
            tempo_loader_submit(a->loader, &(tempo_load_request){
                                               .type = i < N_IMAGES ? TEMPO_LOAD_IMAGE : TEMPO_LOAD_SOUND,
                                               .path = a->paths[i],
                                               .group = GROUP_LEVEL,
                                               .priority = i < N_IMAGES ? 0 : 1, /* sounds are small: first */
                                               .done = on_loaded,
                                               .user = &refs[i],
                                           });
        }
    }
}

/* [loop thread] What a game without a loader does: decode on the loop thread. */
static void load_sync_one(app *a)
{
    int i = a->next_sync++;
    SDL_RWops *rw = SDL_RWFromFile(a->paths[i], "rb");
    if (rw)
        a->sync_bytes += (uint64_t)SDL_RWsize(rw);
    if (i < N_IMAGES) {
        SDL_Surface *s = rw ? IMG_Load_RW(rw, 0) : NULL;
        a->tex[i] = s ? SDL_CreateTextureFromSurface(a->s.renderer, s) : NULL;
        SDL_FreeSurface(s);
        if (a->tex[i] == NULL)
            a->failed++;
    } else {
        a->snd[i - N_IMAGES] = rw ? Mix_LoadWAV_RW(rw, 0) : NULL;
        if (a->snd[i - N_IMAGES] == NULL)
            a->failed++;
    }
    if (rw)
        SDL_RWclose(rw);
    a->sync_done++;
}

static void progress(const app *a, int *done, int *total, uint64_t *bytes_done, uint64_t *bytes_total)
{
    if (a->mode == MODE_LOADER) {
        tempo_load_progress p;
        tempo_loader_progress(a->loader, GROUP_LEVEL, &p);
        *done = (int)p.items_done;
        *total = (int)p.items_total;
        *bytes_done = p.bytes_done;
        *bytes_total = p.bytes_total;
    } else {
        *done = a->sync_done;
        *total = n_assets(a);
        *bytes_done = *bytes_total = a->sync_bytes;
    }
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
    return p < q ? -1 : p > q;
}

static void finish_load(app *a)
{
    run_stats *st = &a->stats[a->mode];
    st->done = true;
    st->total_ns = tempo_now_ns() - a->load_start_ns;
    st->frames = a->n_intervals;
    qsort(a->intervals, (size_t)a->n_intervals, sizeof a->intervals[0], cmp_u64);
    st->longest_ns = a->n_intervals ? a->intervals[a->n_intervals - 1] : 0;
    int k = (a->n_intervals * 99 + 99) / 100 - 1; /* nearest rank */
    st->p99_ns = a->n_intervals ? a->intervals[k < 0 ? 0 : k] : 0;
    a->loading = false;
    if (a->audio && a->snd[0])
        Mix_PlayChannel(-1, a->snd[0], 0);
}

/* ---- The frame -------------------------------------------------------------------- */

static void draw(app *a, uint64_t now)
{
    SDL_Renderer *r = a->s.renderer;
    int w = a->s.width;
    SDL_SetRenderDrawColor(r, 16, 18, 26, 255);
    SDL_RenderClear(r);

    /* Thumbnails of what has arrived. */
    int shown = 0;
    for (int i = 0; i < N_IMAGES && shown < 48; i++) {
        if (a->tex[i] == NULL)
            continue;
        SDL_Rect d = {16 + (shown % 16) * 38, 150 + (shown / 16) * 38, 34, 34};
        SDL_RenderCopy(r, a->tex[i], NULL, &d);
        shown++;
    }

    /* The animation: positions come from the clock, so a long frame shows as a jump. */
    double t = (double)(now - a->start_ns) / 1e9;
    SDL_Rect ball = {(int)(w / 2 - 12 + (w / 2 - 40) * SDL_sin(t * 2.2)), 112, 24, 24};
    SDL_SetRenderDrawColor(r, 255, 200, 60, 255);
    SDL_RenderFillRect(r, &ball);
    for (int i = 0; i < 12; i++) {
        double ang = t * 3.0 + i * (3.14159265358979 / 6);
        SDL_SetRenderDrawColor(r, 90, 160, 255, (Uint8)(60 + i * 16));
        SDL_RenderDrawLine(r, w - 60, 60, w - 60 + (int)(30 * SDL_cos(ang)), 60 + (int)(30 * SDL_sin(ang)));
    }

    /* The progress bar. */
    int done, total;
    uint64_t bd, bt;
    progress(a, &done, &total, &bd, &bt);
    SDL_Rect bar = {16, 80, w - 120, 16};
    SDL_SetRenderDrawColor(r, 60, 64, 80, 255);
    SDL_RenderDrawRect(r, &bar);
    SDL_Rect fill = {bar.x + 2, bar.y + 2, total ? (bar.w - 4) * done / total : 0, bar.h - 4};
    SDL_SetRenderDrawColor(r, a->mode == MODE_LOADER ? 90 : 230, a->mode == MODE_LOADER ? 220 : 110, 120, 255);
    SDL_RenderFillRect(r, &fill);

    SDL_SetRenderDrawColor(r, 235, 235, 235, 255);
    tempo_debug_textf(r, 16, 12, 2, "Tempo loading: %s", mode_names[a->mode]);
    tempo_debug_textf(r, 16, 40, 1, "%s %d/%d assets, %.1f/%.1f MB%s%s", a->loading ? "loading" : "loaded", done,
                      total, (double)bd / 1e6, (double)bt / 1e6, a->failed ? ", failures: see stderr" : "",
                      a->mode == MODE_SYNC ? "  (on the loop thread)" : "  (on the loader thread)");
    for (int m = 0; m < MODE_COUNT; m++) {
        const run_stats *st = &a->stats[m];
        if (st->done)
            tempo_debug_textf(r, 16, 54 + 10 * m, 1, "%-6s longest frame %5.1f ms  p99 %5.1f ms  total %5.2f s",
                              mode_names[m], (double)st->longest_ns / 1e6, (double)st->p99_ns / 1e6,
                              (double)st->total_ns / 1e9);
    }
    tempo_debug_graph(r, &(tempo_debug_graph_desc){.x = 16, .y = a->s.height - 110, .w = GRAPH_N * 2, .h = 80},
                      a->graph, a->graph_n);
    SDL_SetRenderDrawColor(r, 150, 150, 150, 255);
    tempo_debug_text(r, 16 + GRAPH_N * 2 + 10, a->s.height - 110, 1, "frame interval\n(line: 16.7 ms)");
    tempo_debug_text(r, 16, a->s.height - 20, 1, "L: load with the loader   S: load on the loop thread   Esc: quit");
}

/* [loop thread] The per-frame logic (what tempo_loop's render step will call):
 * record the frame interval, do the synchronous loading work if that mode
 * is on, check for completion, draw. */
static void frame(app *a, uint64_t now)
{
    if (a->last_frame_ns) {
        uint64_t iv = now - a->last_frame_ns;
        if (a->graph_n == GRAPH_N)
            memmove(a->graph, a->graph + 1, sizeof a->graph[0] * (GRAPH_N - 1));
        else
            a->graph_n++;
        a->graph[a->graph_n - 1] = iv;
        if (a->loading && a->n_intervals < (int)SDL_arraysize(a->intervals))
            a->intervals[a->n_intervals++] = iv;
    }
    a->last_frame_ns = now;
    if (a->loading && a->mode == MODE_SYNC)
        for (int k = 0; k < a->sync_batch && a->next_sync < n_assets(a); k++)
            load_sync_one(a);
    if (a->loading && ((a->mode == MODE_SYNC && a->sync_done == n_assets(a)) ||
                       (a->mode == MODE_LOADER && tempo_loader_pending(a->loader) == 0)))
        finish_load(a);
    draw(a, now);
}

/* [loop thread] The loader's handle is signalled: finalize within the
 * budget, and stop before an item that would probably delay the next frame
 * (what a tempo_loop_watch callback will do). The frame timer's schedule is
 * absolute, so the next frame is due at the next multiple of the period. */
static void loader_ready(app *a, uint64_t now)
{
    uint64_t next_frame = a->start_ns + ((now - a->start_ns) / FRAME_NS + 1) * FRAME_NS;
    tempo_loader_process_until(a->loader, next_frame);
}

static int extra_option(const char *arg, const char *value, void *user)
{
    app *a = user;
    if (strcmp(arg, "--assets") == 0 && value) {
        snprintf(a->assets, sizeof a->assets, "%s", value);
        return 1;
    }
    if (strcmp(arg, "--sync-batch") == 0 && value) {
        a->sync_batch = atoi(value) > 0 ? atoi(value) : 1;
        return 1;
    }
    return -1;
}

int main(int argc, char **argv)
{
    static app a; /* large: keep it off the stack */
    snprintf(a.assets, sizeof a.assets, "tempo-loading-assets");
    a.sync_batch = 8;
    if (sample_parse(&a.s, argc, argv, "[--assets DIR] [--sync-batch N (default 8)]", extra_option, &a) != 0)
        return 1;
    if (a.assets[0] == '\0') {
        fprintf(stderr, "loading: --assets needs a directory\n");
        return 1;
    }
    /* Headless: the software renderer. SDL would otherwise pick EGL on
     * llvmpipe under the offscreen driver, whose rasterizer threads compete
     * with the loader for the cores, and the numbers would be about Mesa. */
    const char *display = SDL_getenv("DISPLAY"), *wayland = SDL_getenv("WAYLAND_DISPLAY");
    bool no_display = (display == NULL || !*display) && (wayland == NULL || !*wayland);
    if (a.s.headless || no_display) {
        SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
        if (SDL_getenv("SDL_AUDIODRIVER") == NULL)
            SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    }
    if (sample_open(&a.s, "Tempo loading", 640, 400) != 0)
        return 1;
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 && Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) == 0) {
        a.audio = true;
    } else {
        /* No sound card: SDL's dummy driver still lets the sounds load (silently). */
        fprintf(stderr, "loading: no audio device (%s): sounds load but stay silent\n", SDL_GetError());
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
        a.audio = SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 && Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) == 0;
        if (!a.audio)
            fprintf(stderr, "loading: no audio at all (%s): images only\n", SDL_GetError());
    }
    if (generate_assets(&a) != 0)
        return 1;
    a.loader = tempo_loader_create(&(tempo_loader_desc){.renderer = a.s.renderer});
    tempo_handle *tick = tempo_timer_create(false);
    if (a.loader == NULL || tick == NULL) {
        fprintf(stderr, "loading: %s\n", tempo_get_error());
        return 1;
    }
    SDL_RendererInfo info;
    SDL_GetRendererInfo(a.s.renderer, &info);

    a.start_ns = tempo_now_ns();
    tempo_timer_set(tick, a.start_ns, FRAME_NS);
    /* Headless runs end when both modes are done (--seconds is ignored; 120 s
     * is a safety net). */
    const uint64_t end_ns = a.s.headless         ? a.start_ns + 120 * TEMPO_NS_PER_S
                            : a.s.seconds > 0 ? a.start_ns + (uint64_t)(a.s.seconds * 1e9)
                                              : TEMPO_INFINITE;
    /* The first load starts after a quarter second of animation, as a game
     * shows its loading screen first: the first frames pay one-off costs
     * (first draws, first texture) that are not the loading's. */
    bool started = false;
    bool quit = false;
    while (!quit) {
        /* The wait set: the frame timer first (it wins when due), then the
         * loader's handle. */
        tempo_handle *set[2] = {tick, tempo_loader_handle(a.loader)};
        const int n = 2;
        uint64_t now = tempo_now_ns();
        if (now >= end_ns)
            break;
        int w = tempo_wait(set, n, end_ns == TEMPO_INFINITE ? TEMPO_INFINITE : end_ns - now, TEMPO_WAIT_MESSAGES);
        if (w == TEMPO_ETIMEDOUT)
            break;
        if (w < 0) {
            fprintf(stderr, "loading: tempo_wait: %s (%s)\n", tempo_strerror(w), tempo_get_error());
            break;
        }
        if (w == 0) {
            uint64_t t = tempo_now_ns();
            if (!started && t - a.start_ns >= TEMPO_NS_PER_S / 4) {
                start_load(&a, MODE_LOADER);
                started = true;
            }
            frame(&a, t);
            /* Headless: loader run, then sync run, then done. */
            if (a.s.headless && started && !a.loading) {
                if (!a.stats[MODE_SYNC].done)
                    start_load(&a, MODE_SYNC);
                else
                    quit = true;
            }
            if (quit && a.s.screenshot)
                sample_screenshot(&a.s, a.s.screenshot);
            SDL_RenderPresent(a.s.renderer);
        } else if (w == 1) {
            loader_ready(&a, tempo_now_ns());
        } else {
            SDL_Event e;
            while (SDL_PollEvent(&e)) {
                if (e.type == SDL_QUIT)
                    quit = true;
                if (e.type == SDL_KEYDOWN) {
                    SDL_Keycode k = e.key.keysym.sym;
                    if (k == SDLK_ESCAPE)
                        quit = true;
                    else if (k == SDLK_s)
                        start_load(&a, MODE_SYNC);
                    else if (k == SDLK_l)
                        start_load(&a, MODE_LOADER);
                }
            }
        }
    }
    if (!a.s.headless && a.s.screenshot) {
        draw(&a, tempo_now_ns());
        sample_screenshot(&a.s, a.s.screenshot);
    }

    printf("loading summary (%s backend, video %s, renderer %s, %d images %dx%d + %d sounds)\n",
           tempo_backend_name(), a.s.video_driver, info.name, N_IMAGES, IMG_SIDE, IMG_SIDE, a.audio ? N_SOUNDS : 0);
    printf("  %-7s %7s %14s %11s %9s\n", "mode", "frames", "longest frame", "p99 frame", "total");
    for (int m = 0; m < MODE_COUNT; m++) {
        const run_stats *st = &a.stats[m];
        if (!st->done) {
            printf("  %-7s (not run to the end)\n", mode_names[m]);
            continue;
        }
        printf("  %-7s %7d %11.1f ms %8.1f ms %7.2f s\n", mode_names[m], st->frames, (double)st->longest_ns / 1e6,
               (double)st->p99_ns / 1e6, (double)st->total_ns / 1e9);
    }
    printf("  (sync: %d assets per frame decoded on the loop thread; loader: decoded on its own thread,\n"
           "   finalized on the loop thread between frames in slices of at most 2 ms)\n", a.sync_batch);

    tempo_loader_destroy(a.loader); /* delivers (and we free) anything still pending */
    free_assets(&a);
    tempo_timer_destroy(tick);
    if (a.audio)
        Mix_CloseAudio();
    Mix_Quit();
    IMG_Quit();
    tempo_shutdown();
    sample_close(&a.s);
    return a.failed ? 1 : 0;
}
