/* loading: a few hundred images and sounds load behind a progress bar while
 * an animation keeps moving. Press S to load the same assets synchronously
 * on the loop thread (a batch per frame, as a game without a loader would)
 * and watch the frame-time graph; L loads them with Tempo's loader again.
 *
 * Everything runs inside tempo_loop_run(): 60 updates and at most 60
 * renders a second (both fall due at the same instant, so one wake-up a
 * frame), and the loader is one of the loop's sources:
 *
 *   tempo_loader_attach(loader, loop);
 *
 * Between frames the loop sleeps; when the loader has results it wakes and
 * finalizes them until the next update or render is due, stopping before an
 * item that would probably cross it: finalizing uses the idle time between
 * frames without making frames late. The loop also guarantees one item per
 * frame (so a slow item can never stall the load), and keeps the source out
 * of its wait until the next frame once its time is used.
 *
 * Assets (200 PNGs of 256x256, 60 short WAVs) are generated on the first run
 * into --assets DIR (default: tempo-loading-assets in the temporary directory,
 * never the current one) and reused afterwards.
 * Headless (--headless, or no display) it runs both modes one after the other
 * and prints their statistics, the loop's included. Keys: L loader,
 * S synchronous, V vsync on/off, Esc quit.
 *
 * --watch adds asset hot-reload (tempo/hotreload.h): edit or replace one of
 * the images in the assets directory while the sample runs and its thumbnail
 * is reloaded through the same loader, delivered on the loop thread. The
 * directory is watched by the OS; nothing polls it:
 *
 *   tempo_hotreload *hr = tempo_hotreload_create(&(tempo_hotreload_desc){
 *       .dir = assets, .loader = loader });
 *   tempo_hotreload_watch(hr, "img-000.png", TEMPO_LOAD_IMAGE, on_reload, &tex[0]);
 *   tempo_hotreload_attach(hr, loop); */
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
#include <tempo/hotreload.h>
#include <tempo/loader.h>
#include <tempo/loop.h>
#include <tempo/wait.h>

#include "sample.h"

#define N_IMAGES 200
#define N_SOUNDS 60
#define N_ASSETS (N_IMAGES + N_SOUNDS)
#define IMG_SIDE 256
#define FRAME_HZ 60 /* updates and renders per second */
#define GROUP_LEVEL 1
#define GRAPH_N 240

typedef enum mode { MODE_LOADER, MODE_SYNC, MODE_COUNT } mode;
static const char *const mode_names[MODE_COUNT] = {"loader", "sync"};

typedef struct run_stats {
    bool done;
    int frames;
    uint64_t longest_ns, p99_ns, total_ns;
    tempo_loop_counts loop; /* the loop's counters over the load */
    uint64_t src_calls, src_forced; /* loader dispatches; those past the deadline (one item) */
} run_stats;

typedef struct app {
    sample_app s;
    char assets[512];
    char paths[N_ASSETS][600];
    int sync_batch;
    bool audio;
    tempo_loader *loader;
    tempo_loop *loop;
    bool watch;            /* --watch: hot-reload the images */
    tempo_hotreload *hr;   /* with --watch, when the backend has file watches */
    /* the current load */
    mode mode;
    bool loading;
    uint64_t load_start_ns;
    tempo_loop_counts loop_at_start;
    tempo_loop_source_counts src_at_start; /* the loader source's counters */
    int next_sync;   /* sync mode: next asset */
    int sync_done;   /* sync mode: assets loaded */
    bool batch_due;  /* sync mode: a render happened since the last batch */
    uint64_t sync_bytes;
    SDL_Texture *tex[N_IMAGES];
    Mix_Chunk *snd[N_SOUNDS];
    int failed;
    uint64_t intervals[4096]; /* frame intervals of the current load */
    int n_intervals;
    run_stats stats[MODE_COUNT];
    /* For the shutdown (on_stop), which runs when the loop ends on every
     * backend (on the web tempo_loop_run() never returns). */
    tempo_handle *time_up; /* --seconds (headless: the safety net) */
    SDL_RendererInfo info;
    int exit_code; /* main()'s */
    /* the game */
    bool started;     /* the first load was started */
    double anim_s;    /* animation time: advanced by update() */
    uint64_t last_render_ns;
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

/* ---- Hot reload (--watch) --------------------------------------------------- */

static int reloads; /* reloaded images shown so far */

/* [loop thread] An edited image is back: `user` is its texture slot. On an
 * error (a half-written or deleted file) the old texture stays. */
static void on_reload(tempo_hotreload *hr, const tempo_load_result *r, void *user)
{
    (void)hr;
    SDL_Texture **slot = user;
    if (r->error != 0) {
        fprintf(stderr, "loading: reload of %s failed, keeping the old image: %s\n", r->path, r->error_text);
        return;
    }
    if (*slot != NULL)
        SDL_DestroyTexture(*slot);
    *slot = r->texture; /* ours now */
    reloads++;
    printf("loading: reloaded %s (%.1f ms after the change settled)\n", r->path, (double)r->latency_ns / 1e6);
}

/* Watches every image of the assets directory; without file watches on
 * this backend it says so and the sample runs as without --watch. */
static void start_watch(app *a)
{
    a->hr = tempo_hotreload_create(&(tempo_hotreload_desc){.dir = a->assets, .loader = a->loader});
    if (a->hr == NULL) {
        fprintf(stderr, "loading: --watch: %s\n", tempo_get_error());
        return;
    }
    for (int i = 0; i < N_IMAGES; i++) {
        char name[32];
        snprintf(name, sizeof name, "img-%03d.png", i);
        tempo_hotreload_watch(a->hr, name, TEMPO_LOAD_IMAGE, on_reload, &a->tex[i]);
    }
    if (tempo_hotreload_attach(a->hr, a->loop) != 0) {
        fprintf(stderr, "loading: --watch: %s\n", tempo_get_error());
        tempo_hotreload_destroy(a->hr);
        a->hr = NULL;
        return;
    }
    printf("loading: watching %s: edit an img-NNN.png there and its thumbnail reloads\n", a->assets);
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

/* [loop thread] From update() or a key press: starts loading every asset in
 * mode `m`, throwing away what the previous load brought. */
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
    a->batch_due = true;
    a->sync_bytes = 0;
    const tempo_loop_stats *ls = tempo_loop_get_stats(a->loop);
    a->loop_at_start = ls->total;
    memset(&a->src_at_start, 0, sizeof a->src_at_start);
    if (ls->source_count > 0)
        a->src_at_start = ls->sources[0].total;
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

/* The loop's raw counters between two snapshots of its totals. */
static tempo_loop_counts counts_since(const tempo_loop_counts *now, const tempo_loop_counts *then)
{
    tempo_loop_counts d = {0};
    d.elapsed_ns = now->elapsed_ns - then->elapsed_ns;
    d.frames = now->frames - then->frames;
    d.updates = now->updates - then->updates;
    d.renders = now->renders - then->renders;
    for (int w = 0; w < TEMPO_LOOP_WAKE_COUNT; w++)
        d.wakes[w] = now->wakes[w] - then->wakes[w];
    d.capped_frames = now->capped_frames - then->capped_frames;
    d.stalls = now->stalls - then->stalls;
    d.dropped_updates = now->dropped_updates - then->dropped_updates;
    d.wait_ns = now->wait_ns - then->wait_ns;
    d.game_ns = now->game_ns - then->game_ns;
    d.loop_ns = now->loop_ns - then->loop_ns;
    return d;
}

/* [loop thread] Ends the current load once everything has arrived: from
 * update() (so the total time may include up to one update step after the
 * last delivery). */
static void check_done(app *a)
{
    if (!a->loading)
        return;
    if (a->mode == MODE_SYNC ? a->sync_done < n_assets(a) : tempo_loader_pending(a->loader) > 0)
        return;
    run_stats *st = &a->stats[a->mode];
    st->done = true;
    st->total_ns = tempo_now_ns() - a->load_start_ns;
    st->frames = a->n_intervals;
    qsort(a->intervals, (size_t)a->n_intervals, sizeof a->intervals[0], cmp_u64);
    st->longest_ns = a->n_intervals ? a->intervals[a->n_intervals - 1] : 0;
    int k = (a->n_intervals * 99 + 99) / 100 - 1; /* nearest rank */
    st->p99_ns = a->n_intervals ? a->intervals[k < 0 ? 0 : k] : 0;
    st->loop = counts_since(&tempo_loop_get_stats(a->loop)->total, &a->loop_at_start);
    const tempo_loop_stats *ls = tempo_loop_get_stats(a->loop);
    if (ls->source_count > 0) {
        st->src_calls = ls->sources[0].total.calls - a->src_at_start.calls;
        st->src_forced = ls->sources[0].total.forced - a->src_at_start.forced;
    }
    a->loading = false;
    if (a->audio && a->snd[0])
        Mix_PlayChannel(-1, a->snd[0], 0);
}

/* ---- The loop's callbacks ------------------------------------------------------------ */

static void draw(app *a, double anim_s)
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

    /* The animation: a function of game time, so a long frame (and the
     * catch-up updates after it) shows as a jump. */
    double t = anim_s;
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
    if (a->hr != NULL)
        tempo_debug_textf(r, 16, 139, 1, "--watch: edit an image in %s and it reloads (%d so far)", a->assets,
                          reloads);
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
    /* The loop's last complete second. */
    const tempo_loop_counts *c = &tempo_loop_get_stats(a->loop)->last_second;
    SDL_SetRenderDrawColor(r, 150, 150, 150, 255);
    tempo_debug_textf(r, 16, 270, 1,
                      "loop: %3.0f updates/s %3.0f renders/s %4.0f frames/s  late p99 %.2f ms  game %2.0f%%"
                      "  woke: timer %llu source %llu",
                      c->updates_per_s, c->renders_per_s, c->frames_per_s, (double)c->lateness_p99_ns / 1e6,
                      100 * c->game_share, (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_TIMER],
                      (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_SOURCE]);
    tempo_debug_graph(r, &(tempo_debug_graph_desc){.x = 16, .y = a->s.height - 110, .w = GRAPH_N * 2, .h = 80},
                      a->graph, a->graph_n);
    tempo_debug_text(r, 16 + GRAPH_N * 2 + 10, a->s.height - 110, 1, "frame interval\n(line: 16.7 ms)");
    tempo_debug_text(r, 16, a->s.height - 20, 1, "L: load with the loader   S: load on the loop thread   Esc: quit");
}

/* [loop thread] One game step: the animation, the start of the first load,
 * the synchronous mode's loading work, and (headless) the next mode. */
static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    app *a = user;
    a->anim_s += (double)dt_ns * 1e-9;
    /* The first load starts after a quarter second of animation, as a game
     * shows its loading screen first: the first frames pay one-off costs
     * (first draws, first texture) that are not the loading's. */
    if (!a->started && a->anim_s >= 0.25) {
        start_load(a, MODE_LOADER);
        a->started = true;
    }
    /* A batch per rendered frame, not per update: after a long frame the
     * loop runs the missed updates back to back, and a batch in each would
     * make the next frame longer still. */
    if (a->loading && a->mode == MODE_SYNC && a->batch_due) {
        a->batch_due = false;
        for (int k = 0; k < a->sync_batch && a->next_sync < n_assets(a); k++)
            load_sync_one(a);
    }
    check_done(a);
    /* Headless: loader run, then sync run, then done. */
    if (a->s.headless && a->started && !a->loading) {
        if (!a->stats[MODE_SYNC].done)
            start_load(a, MODE_SYNC);
        else
            tempo_loop_quit(loop);
    }
}

/* [loop thread] One frame: record its interval, draw, present. */
static void render(tempo_loop *loop, float alpha, void *user)
{
    app *a = user;
    uint64_t now = tempo_now_ns();
    if (a->last_render_ns) {
        uint64_t iv = now - a->last_render_ns;
        if (a->graph_n == GRAPH_N)
            memmove(a->graph, a->graph + 1, sizeof a->graph[0] * (GRAPH_N - 1));
        else
            a->graph_n++;
        a->graph[a->graph_n - 1] = iv;
        if (a->loading && a->n_intervals < (int)SDL_arraysize(a->intervals))
            a->intervals[a->n_intervals++] = iv;
    }
    a->last_render_ns = now;
    a->batch_due = true;
    /* The animation is a function of time: extrapolate by alpha steps. */
    draw(a, a->anim_s + alpha * (double)tempo_loop_get_step_ns(loop) * 1e-9); /* the loop presents */
}

/* [loop thread] Keys; SDL_QUIT ends the loop by itself. */
static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    app *a = user;
    if (e->type != SDL_KEYDOWN || e->key.repeat)
        return;
    SDL_Keycode k = e->key.keysym.sym;
    if (k == SDLK_ESCAPE) {
        tempo_loop_quit(loop);
    } else if (k == SDLK_v) {
        sample_toggle_vsync(loop);
    } else if (k == SDLK_s || k == SDLK_l) {
        a->started = true; /* a key press before the first load replaces it */
        start_load(a, k == SDLK_s ? MODE_SYNC : MODE_LOADER);
    }
}

static int extra_option(const char *arg, const char *value, void *user)
{
    app *a = user;
    if (strcmp(arg, "--watch") == 0) {
        a->watch = true;
        return 0;
    }
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

static void print_summary(const app *a, const SDL_RendererInfo *info)
{
    printf("loading summary (%s backend, video %s, renderer %s, %d images %dx%d + %d sounds)\n",
           tempo_backend_name(), a->s.video_driver, info->name, N_IMAGES, IMG_SIDE, IMG_SIDE,
           a->audio ? N_SOUNDS : 0);
    printf("  %-7s %7s %14s %11s %9s\n", "mode", "frames", "longest frame", "p99 frame", "total");
    for (int m = 0; m < MODE_COUNT; m++) {
        const run_stats *st = &a->stats[m];
        if (!st->done) {
            printf("  %-7s (not run to the end)\n", mode_names[m]);
            continue;
        }
        printf("  %-7s %7d %11.1f ms %8.1f ms %7.2f s\n", mode_names[m], st->frames, (double)st->longest_ns / 1e6,
               (double)st->p99_ns / 1e6, (double)st->total_ns / 1e9);
    }
    printf("  (sync: %d assets per frame decoded on the loop thread; loader: decoded on its own thread,\n"
           "   finalized on the loop thread in the idle time between frames, at least one a frame)\n",
           a->sync_batch);
    printf("  the loop during each load (%u Hz updates, renders paced by %s at %.2f Hz):\n",
           tempo_loop_get_update_hz(a->loop), tempo_loop_get_vsync(a->loop) ? "vsync" : "the display",
           1e9 / (double)tempo_loop_get_refresh_ns(a->loop));
    printf("  %-7s %7s %7s %10s %22s %7s %7s %6s %6s\n", "mode", "updates", "renders", "iterations",
           "woke timer/watch/other", "capped", "dropped", "game", "wait");
    for (int m = 0; m < MODE_COUNT; m++) {
        const run_stats *st = &a->stats[m];
        if (!st->done)
            continue;
        const tempo_loop_counts *c = &st->loop;
        uint64_t other = c->frames - c->wakes[TEMPO_LOOP_WAKE_TIMER] - c->wakes[TEMPO_LOOP_WAKE_SOURCE];
        double busy = (double)(c->wait_ns + c->game_ns + c->loop_ns);
        char woke[48];
        snprintf(woke, sizeof woke, "%llu/%llu/%llu", (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_TIMER],
                 (unsigned long long)c->wakes[TEMPO_LOOP_WAKE_SOURCE], (unsigned long long)other);
        printf("  %-7s %7llu %7llu %10llu %22s %7llu %7llu %5.1f%% %5.1f%%\n", mode_names[m],
               (unsigned long long)c->updates, (unsigned long long)c->renders, (unsigned long long)c->frames, woke,
               (unsigned long long)c->capped_frames, (unsigned long long)c->dropped_updates,
               busy > 0 ? 100.0 * (double)c->game_ns / busy : 0.0, busy > 0 ? 100.0 * (double)c->wait_ns / busy : 0.0);
    }
    const run_stats *ld = &a->stats[MODE_LOADER];
    if (ld->done)
        printf("  loader source: %llu dispatches, %llu of them the guaranteed item past the deadline\n",
               (unsigned long long)ld->src_calls, (unsigned long long)ld->src_forced);
    const tempo_loop_counts *t = &tempo_loop_get_stats(a->loop)->total;
    printf("  whole run: %.2f s, %llu updates, %llu renders, tick lateness p50 %.2f ms, p99 %.2f ms, max %.2f ms, "
           "stalls %llu\n",
           (double)t->elapsed_ns / 1e9, (unsigned long long)t->updates, (unsigned long long)t->renders,
           (double)t->lateness_p50_ns / 1e6, (double)t->lateness_p99_ns / 1e6, (double)t->lateness_max_ns / 1e6,
           (unsigned long long)t->stalls);
}

/* [loop] desc.on_stop: the loop ended (Esc, the window closed, --seconds,
 * headless when both modes are done, or an error `rc`). The screenshot, the
 * summary and the shutdown, here rather than after tempo_loop_run() so that
 * the same source runs in a browser page (docs/web.md). Destroys the loop. */
static void on_stop(tempo_loop *loop, int rc, void *user)
{
    (void)loop;
    app *a = user;
    if (rc != 0)
        fprintf(stderr, "loading: tempo_loop_run: %s (%s)\n", tempo_strerror(rc), tempo_get_error());
    if (a->s.screenshot) {
        draw(a, a->anim_s);
        sample_screenshot(&a->s, a->s.screenshot);
    }
    print_summary(a, &a->info);

    tempo_hotreload_destroy(a->hr); /* before the loader it reloads through */
    a->hr = NULL;
    tempo_loop_destroy(a->loop); /* detaches the loader; the timer stays ours */
    a->loop = NULL;
    tempo_loader_destroy(a->loader); /* delivers (and we free) anything still pending */
    a->loader = NULL;
    free_assets(a);
    tempo_timer_destroy(a->time_up);
    a->time_up = NULL;
    if (a->audio)
        Mix_CloseAudio();
    Mix_Quit();
    IMG_Quit();
    tempo_shutdown();
    sample_close(&a->s);
    a->exit_code = a->failed || rc != 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    static app a; /* large: keep it off the stack */
    sample_temp_path(a.assets, sizeof a.assets, "tempo-loading-assets");
    a.sync_batch = 8;
    if (sample_parse(&a.s, argc, argv, "[--assets DIR] [--sync-batch N (default 8)] [--watch]", extra_option, &a) !=
        0)
        return 1;
    if (a.assets[0] == '\0') {
        fprintf(stderr, "loading: --assets needs a directory\n");
        return 1;
    }
    /* Headless: the software renderer, its window not copied through a GL
     * texture. SDL would otherwise pick EGL on llvmpipe under the offscreen
     * driver, whose rasterizer threads compete with the loader for the
     * cores, and the numbers would be about Mesa. */
    const char *display = SDL_getenv("DISPLAY"), *wayland = SDL_getenv("WAYLAND_DISPLAY");
    bool no_display = (display == NULL || !*display) && (wayland == NULL || !*wayland);
    if (a.s.headless || no_display) {
        sample_use_software_renderer();
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
    a.loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = FRAME_HZ,
        .window = a.s.window,
        .renderer = a.s.renderer, /* the loop presents: vsync paced, or the display's rate */
        .update = update,
        .render = render,
        .event = on_event,
        .user = &a,
        .on_stop = on_stop, /* the shutdown */
    });
    a.time_up = tempo_timer_create(false);
    if (a.loader == NULL || a.loop == NULL || a.time_up == NULL) {
        fprintf(stderr, "loading: %s\n", tempo_get_error());
        return 1;
    }
    /* The loader's results come back as one of the loop's sources. */
    tempo_loader_attach(a.loader, a.loop);
    if (a.watch)
        start_watch(&a);
    /* Headless runs end when both modes are done (--seconds is ignored; 120 s
     * is a safety net). */
    double seconds = a.s.headless ? 120 : a.s.seconds;
    if (seconds > 0) {
        tempo_timer_set(a.time_up, tempo_now_ns() + (uint64_t)(seconds * 1e9), 0);
        tempo_loop_watch(a.loop, a.time_up, sample_quit_loop, NULL);
    }
    SDL_GetRendererInfo(a.s.renderer, &a.info);

    a.exit_code = 1;
    tempo_loop_run(a.loop); /* on the web it does not return: the shutdown is on_stop's */
    return a.exit_code;
}
