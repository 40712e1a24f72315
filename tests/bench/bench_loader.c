/* bench_loader: loading 500 PNGs (256x256) while a 60 Hz frame loop runs,
 * synchronously on the loop thread vs Tempo's loader, in one run.
 *
 *   sync, all at once   the classic loading screen: one frame loads everything
 *   sync, 2 ms/frame    the loop thread loads until 2 ms of each frame are
 *                       spent (at least one image per frame)
 *   tempo loader        decoding on a loader thread, textures created in
 *                       tempo_loader_process_until() under its 2 ms budget; also
 *                       with 2 threads, and with desc.low_priority
 *
 * Every mode ends with the same textures (SDL_CreateTextureFromSurface on the
 * loop thread). A frame = wake on the 60 Hz timer, draw the newest textures
 * and a moving square, present. The loop waits on the timer (index 0) and the
 * loader's handle: whenever the handle is signalled and no frame is due, it
 * calls tempo_loader_process_until(next frame), so finalizing uses the loop's
 * idle time in slices of at most the budget and stops before an item that
 * would probably cross the next frame. The "once per frame" row serves the handle at most once
 * per frame instead: the finalize rate is then capped at budget / item cost
 * per frame (2 ms / ~1 ms per 256x256 software texture here: ~120 images/s).
 *
 * Reported per mode, over the frames of the load: longest and p99 frame
 * interval (frame start to next frame start: what a player sees as a hitch;
 * 16.7 ms is perfect), the longest stretch the loop thread was busy without
 * a break, and the total load time, with its ratio to "sync, all at once".
 * The design target (DESIGN.md section 5): no frame over one frame + the
 * finalize budget, total <= 1.2x the synchronous load.
 *
 * The PNGs are generated on first run into a cache directory (--cache DIR,
 * default tempo-bench-loader-cache in TMPDIR) and read once before timing,
 * so every mode finds them in the OS file cache. Without a display the
 * offscreen video driver and the software renderer are used. --quick loads
 * 100 PNGs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#define make_dir(p) _mkdir(p)
static long minor_faults(void)
{
    return -1; /* not counted on Windows */
}
#else
#include <sys/resource.h>
#include <sys/stat.h>
#define make_dir(p) mkdir((p), 0755)
/* Page faults matter on VMs where one costs ~12 us (this benchmark's
 * development machine): every freshly touched MB then costs ~3 ms. */
static long minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}
#endif

#include <SDL.h>
#include <SDL_image.h>

#include "bench_common.h"
#include "tempo/loader.h"
#include "tempo/wait.h"

#define MS TEMPO_NS_PER_MS
#define IMG_SIDE 256
#define FRAME_NS (TEMPO_NS_PER_S / 60)
#define BUDGET_NS (2 * MS)
#define MAX_FRAMES 20000

typedef enum mode { IDLE, SYNC_ALL, SYNC_BUDGET, LOADER } mode;

typedef struct run {
    const char *name;
    const char *data; /* plot data file for ./dev bench, NULL = none */
    mode mode;
    int threads;
    bool low_priority;
    bool once_per_frame;
    /* results */
    int frames;
    uint64_t longest_ns, p99_ns, stall_ns, total_ns, busy_ns, cpu_ns;
    long faults;
    int loaded, failed;
    uint64_t process_max_ns, item_max_ns, process_calls, items_over_budget; /* loader modes */
} run;

static SDL_Renderer *ren;
static int n_images = 500;
static char cache_dir[1024]; /* --cache; default bench_default_cache() */
static char (*paths)[1100];

/* ---- Fixtures ------------------------------------------------------------ */

static void generate(void)
{
    make_dir(cache_dir);
    uint64_t t0 = tempo_now_ns();
    int made = 0;
    for (int i = 0; i < n_images; i++) {
        SDL_RWops *probe = SDL_RWFromFile(paths[i], "rb");
        if (probe && SDL_RWsize(probe) > 0) {
            SDL_RWclose(probe);
            continue;
        }
        if (probe)
            SDL_RWclose(probe);
        /* Gradients, a few shapes and some noise: compresses like real art,
         * not like a flat colour. */
        SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, IMG_SIDE, IMG_SIDE, 32, SDL_PIXELFORMAT_RGBA32);
        uint32_t seed = 0x9e3779b9u * (uint32_t)(i + 1);
        for (int y = 0; y < IMG_SIDE; y++) {
            Uint8 *row = (Uint8 *)s->pixels + y * s->pitch;
            for (int x = 0; x < IMG_SIDE; x++) {
                seed = seed * 1664525u + 1013904223u;
                int dx = x - IMG_SIDE / 2, dy = y - IMG_SIDE / 2;
                bool ring = ((dx * dx + dy * dy) / (400 + i % 7 * 100)) % 2;
                row[4 * x + 0] = (Uint8)(x + i * 3 + (seed >> 29));
                row[4 * x + 1] = (Uint8)(y * 2 + (ring ? 60 : 0) + (seed >> 30));
                row[4 * x + 2] = (Uint8)((x ^ y) + i);
                row[4 * x + 3] = (Uint8)(ring ? 255 : 200 + (seed >> 27));
            }
        }
        if (IMG_SavePNG(s, paths[i]) != 0) {
            fprintf(stderr, "bench_loader: cannot write %s: %s\n", paths[i], SDL_GetError());
            exit(1);
        }
        SDL_FreeSurface(s);
        made++;
    }
    if (made)
        printf("generated %d PNGs in %s (%.1f s)\n", made, cache_dir, (double)(tempo_now_ns() - t0) / 1e9);
    /* Read everything once: every mode then finds the files in the OS cache. */
    uint64_t bytes = 0;
    for (int i = 0; i < n_images; i++) {
        SDL_RWops *rw = SDL_RWFromFile(paths[i], "rb");
        if (rw == NULL) {
            fprintf(stderr, "bench_loader: %s\n", SDL_GetError());
            exit(1);
        }
        bytes += (uint64_t)SDL_RWsize(rw);
        char buf[65536];
        while (SDL_RWread(rw, buf, 1, sizeof buf) > 0) {
        }
        SDL_RWclose(rw);
    }
    printf("%d PNGs of %dx%d, %.1f MB on disk\n", n_images, IMG_SIDE, IMG_SIDE, (double)bytes / 1e6);
}

/* ---- The frame loop --------------------------------------------------------- */

typedef struct state {
    run *run;
    tempo_loader *loader;
    SDL_Texture **tex;
    int next;      /* sync: next image to load */
    int delivered; /* loaded + failed */
    uint64_t start_ns, end_ns;
    uint64_t frame_start[MAX_FRAMES];
    int frames;
    uint64_t stall_ns, busy_ns;
} state;

static void on_loaded(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    state *st = user;
    int index = (int)r->id - 1; /* ids are 1..n in submit order */
    if (r->error == 0 && index >= 0 && index < n_images) {
        st->tex[index] = r->texture;
        st->run->loaded++;
    } else {
        if (r->texture)
            SDL_DestroyTexture(r->texture);
        st->run->failed++;
        fprintf(stderr, "bench_loader: %s: %s\n", r->path, r->error_text);
    }
    st->delivered++;
}

/* Loads one image on the loop thread, the way a game without a loader does. */
static void load_sync(state *st)
{
    int i = st->next++;
    SDL_Surface *s = IMG_Load(paths[i]);
    SDL_Texture *t = s ? SDL_CreateTextureFromSurface(ren, s) : NULL;
    SDL_FreeSurface(s);
    if (t) {
        st->tex[i] = t;
        st->run->loaded++;
    } else {
        st->run->failed++;
        fprintf(stderr, "bench_loader: %s: %s\n", paths[i], SDL_GetError());
    }
    st->delivered++;
}

/* One frame: loading work of the synchronous modes, then the scene. */
static void frame(state *st, uint64_t now)
{
    if (st->frames < MAX_FRAMES)
        st->frame_start[st->frames++] = now;
    if (st->run->mode == SYNC_ALL) {
        while (st->next < n_images)
            load_sync(st);
    } else if (st->run->mode == SYNC_BUDGET && st->next < n_images) {
        uint64_t t0 = tempo_now_ns();
        do
            load_sync(st);
        while (st->next < n_images && tempo_now_ns() - t0 < BUDGET_NS);
    }
    SDL_SetRenderDrawColor(ren, 20, 22, 30, 255);
    SDL_RenderClear(ren);
    int shown = 0;
    for (int i = n_images - 1; i >= 0 && shown < 40; i--) {
        if (st->tex[i] == NULL)
            continue;
        SDL_Rect d = {8 + (shown % 10) * 62, 60 + (shown / 10) * 62, 58, 58};
        SDL_RenderCopy(ren, st->tex[i], NULL, &d);
        shown++;
    }
    double t = (double)(now - st->start_ns) / 1e9;
    SDL_Rect sq = {(int)(300 + 280 * SDL_sin(t * 3.0)), 12, 40, 40};
    SDL_SetRenderDrawColor(ren, 250, 200, 60, 255);
    SDL_RenderFillRect(ren, &sq);
    SDL_RenderPresent(ren);
}

static void run_mode(run *rn)
{
    state *st = calloc(1, sizeof *st);
    st->run = rn;
    st->tex = calloc((size_t)n_images, sizeof *st->tex);
    tempo_handle *tick = tempo_timer_create(false);
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
    }

    tempo_usage u0 = {0}, u1 = {0};
    tempo_process_usage(&u0);
    long f0 = minor_faults();
    st->start_ns = tempo_now_ns();
    if (rn->mode == LOADER) {
        st->loader = tempo_loader_create(
            &(tempo_loader_desc){.threads = rn->threads, .renderer = ren, .finalize_budget_ns = BUDGET_NS,
                                 .low_priority = rn->low_priority});
        for (int i = 0; i < n_images; i++)
            tempo_loader_submit(st->loader, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = paths[i],
                                                                   .done = on_loaded, .user = st});
    }
    tempo_timer_set(tick, st->start_ns, FRAME_NS);
    bool processed_this_frame = false; /* only with once_per_frame */
    /* The baseline: the same frames for 2 s with nothing loading. */
    const uint64_t idle_end = st->start_ns + 2 * TEMPO_NS_PER_S;
    while (rn->mode == IDLE ? tempo_now_ns() < idle_end : st->delivered < n_images) {
        tempo_handle *set[2] = {tick, st->loader ? tempo_loader_handle(st->loader) : NULL};
        int n = st->loader && !(rn->once_per_frame && processed_this_frame) ? 2 : 1;
        int w = tempo_wait(set, n, TEMPO_INFINITE, TEMPO_WAIT_MESSAGES);
        uint64_t t0 = tempo_now_ns();
        if (w == 0) {
            /* A frame. Once-per-frame policy: serve the loader now if it has
             * results and was not served since the last frame. */
            if (st->loader && rn->once_per_frame && !processed_this_frame && tempo_wait(&set[1], 1, 0, 0) == 0)
                tempo_loader_process(st->loader);
            frame(st, t0);
            processed_this_frame = false;
        } else if (w == 1 && n == 2) {
            if (rn->once_per_frame) {
                tempo_loader_process(st->loader);
                processed_this_frame = true;
            } else {
                /* The timer's schedule is absolute: the next frame is due at
                 * the next multiple of the period. */
                uint64_t next_due = st->start_ns + ((t0 - st->start_ns) / FRAME_NS + 1) * FRAME_NS;
                tempo_loader_process_until(st->loader, next_due);
            }
        } else if (w == n) {
            while (SDL_PollEvent(&ev)) {
            }
        } else {
            fprintf(stderr, "bench_loader: tempo_wait: %s\n", tempo_strerror(w));
            exit(1);
        }
        uint64_t busy = tempo_now_ns() - t0;
        st->busy_ns += busy;
        if (busy > st->stall_ns)
            st->stall_ns = busy;
    }
    st->end_ns = tempo_now_ns();
    tempo_process_usage(&u1);
    rn->cpu_ns = u1.cpu_ns - u0.cpu_ns;
    rn->faults = f0 < 0 ? -1 : minor_faults() - f0;
    /* One more frame closes the interval of the last loading frame. */
    tempo_wait(&tick, 1, TEMPO_INFINITE, 0);
    frame(st, tempo_now_ns());

    rn->total_ns = st->end_ns - st->start_ns;
    rn->stall_ns = st->stall_ns;
    rn->busy_ns = st->busy_ns;
    rn->frames = st->frames - 1;
    uint64_t *iv = malloc(sizeof *iv * (size_t)(rn->frames > 0 ? rn->frames : 1));
    for (int i = 0; i < rn->frames; i++)
        iv[i] = st->frame_start[i + 1] - st->frame_start[i];
    /* Plot data: each frame interval at the time the frame ended. */
    FILE *data = rn->data ? bench_data_open(rn->data) : NULL;
    if (data != NULL) {
        fprintf(data, "# %s: seconds since the load started, frame interval ms\n", rn->name);
        for (int i = 0; i < rn->frames; i++)
            fprintf(data, "%.4f %.3f\n", (double)(st->frame_start[i + 1] - st->start_ns) / 1e9, (double)iv[i] / 1e6);
        fclose(data);
    }
    qsort(iv, (size_t)rn->frames, sizeof *iv, bench_cmp_u64);
    rn->longest_ns = rn->frames ? iv[rn->frames - 1] : 0;
    rn->p99_ns = bench_pct_u64(iv, (size_t)rn->frames, 99);
    free(iv);

    if (st->loader) {
        tempo_loader_stats ls;
        tempo_loader_get_stats(st->loader, &ls);
        rn->process_max_ns = ls.process_max_ns;
        rn->item_max_ns = ls.item_max_ns;
        rn->process_calls = ls.process_calls;
        rn->items_over_budget = ls.items_over_budget;
    }
    tempo_loader_destroy(st->loader);
    for (int i = 0; i < n_images; i++)
        if (st->tex[i])
            SDL_DestroyTexture(st->tex[i]);
    tempo_timer_destroy(tick);
    free(st->tex);
    free(st);
}

int main(int argc, char **argv)
{
    bench_default_cache(cache_dir, sizeof cache_dir, "tempo-bench-loader-cache");
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) {
            snprintf(cache_dir, sizeof cache_dir, "%s", argv[++i]);
        } else {
            printf("usage: %s [--quick] [--cache DIR]\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (quick)
        n_images = 100;
    paths = calloc((size_t)n_images, sizeof *paths);
    for (int i = 0; i < n_images; i++)
        snprintf(paths[i], sizeof paths[i], "%s/img-%03d.png", cache_dir, i);

    /* No display: the offscreen driver with the software renderer (SDL would
     * otherwise pick EGL on llvmpipe, whose rasterizer threads compete with
     * the loader for the cores and make the numbers about Mesa). */
    const char *display = SDL_getenv("DISPLAY"), *wayland = SDL_getenv("WAYLAND_DISPLAY");
    bool headless = (display == NULL || !*display) && (wayland == NULL || !*wayland);
    if (headless || SDL_Init(SDL_INIT_VIDEO) != 0) {
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
        SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
        if (SDL_Init(SDL_INIT_VIDEO) != 0) {
            fprintf(stderr, "bench_loader: SDL video: %s\n", SDL_GetError());
            return 1;
        }
    }
    SDL_Window *win = SDL_CreateWindow("bench_loader", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, 640, 360, 0);
    ren = win ? SDL_CreateRenderer(win, -1, 0) : NULL; /* no vsync: Tempo paces the frames */
    if (ren == NULL) {
        fprintf(stderr, "bench_loader: window/renderer: %s\n", SDL_GetError());
        return 1;
    }
    SDL_RendererInfo info;
    SDL_GetRendererInfo(ren, &info);
    generate();
    printf("video %s, renderer %s, frames at 60 Hz, finalize budget 2 ms, %s backend\n\n",
           SDL_GetCurrentVideoDriver(), info.name, tempo_backend_name());

    run runs[] = {
        {.name = "no loading (baseline)", .data = "loader-idle.dat", .mode = IDLE},
        {.name = "sync, all at once", .data = "loader-sync-all.dat", .mode = SYNC_ALL},
        {.name = "sync, 2 ms/frame", .data = "loader-sync-budget.dat", .mode = SYNC_BUDGET},
        {.name = "tempo loader, 1 thread", .data = "loader-loader-1.dat", .mode = LOADER, .threads = 1},
        {.name = "tempo loader, 2 threads", .data = "loader-loader-2.dat", .mode = LOADER, .threads = 2},
        {.name = "loader, once per frame", .mode = LOADER, .threads = 1, .once_per_frame = true},
        {.name = "loader 1 thr, low prio", .mode = LOADER, .threads = 1, .low_priority = true},
    };
    const int n_runs = (int)SDL_arraysize(runs);
    for (int i = 0; i < n_runs; i++)
        run_mode(&runs[i]);

    const run *sync = &runs[1];
    printf("%-25s %7s %14s %11s %14s %10s %12s %8s %10s %8s\n", "mode", "frames", "longest frame", "p99 frame",
           "longest stall", "loop busy", "total load", "vs sync", "CPU", "faults");
    for (int i = 0; i < n_runs; i++) {
        run *r = &runs[i];
        char total[32] = "-", ratio[32] = "-";
        if (r->mode != IDLE) {
            snprintf(total, sizeof total, "%.0f ms", (double)r->total_ns / 1e6);
            snprintf(ratio, sizeof ratio, "%.2fx", (double)r->total_ns / (double)sync->total_ns);
        }
        printf("%-25s %7d %11.1f ms %8.1f ms %11.1f ms %9.0f%% %12s %8s %7.0f ms %8ld%s\n", r->name, r->frames,
               (double)r->longest_ns / 1e6, (double)r->p99_ns / 1e6, (double)r->stall_ns / 1e6,
               100.0 * (double)r->busy_ns / (double)r->total_ns, total, ratio, (double)r->cpu_ns / 1e6, r->faults,
               r->failed ? "  (failures!)" : "");
    }
    printf("(frame = interval between frame starts, 16.7 ms when on time; stall = longest the loop thread\n"
           " was busy in one go; loop busy = share of the load's wall time the loop thread was working;\n"
           " CPU = the process's CPU time during the load, all threads; faults = minor page faults)\n");
    for (int i = 0; i < n_runs; i++)
        if (runs[i].mode == LOADER)
            printf("%-25s process(): %llu calls, longest %.2f ms, longest item %.2f ms, %llu items over 2 ms\n",
                   runs[i].name, (unsigned long long)runs[i].process_calls, (double)runs[i].process_max_ns / 1e6,
                   (double)runs[i].item_max_ns / 1e6, (unsigned long long)runs[i].items_over_budget);
    const run *t = &runs[3];
    double frame_cap_ms = (double)(FRAME_NS + BUDGET_NS) / 1e6;
    printf("\ntarget (1 loader thread): longest frame <= %.1f ms (one frame + budget): %.1f ms, %s; "
           "total <= 1.20x sync: %.2fx, %s\n",
           frame_cap_ms, (double)t->longest_ns / 1e6, (double)t->longest_ns / 1e6 <= frame_cap_ms ? "met" : "MISSED",
           (double)t->total_ns / (double)sync->total_ns,
           (double)t->total_ns <= 1.2 * (double)sync->total_ns ? "met" : "MISSED");
    printf("machine noise: the baseline's longest frame is %.1f ms with nothing loading\n",
           (double)runs[0].longest_ns / 1e6);

    int failures = 0;
    for (int i = 0; i < n_runs; i++)
        failures += runs[i].failed;
    SDL_DestroyRenderer(ren);
    SDL_DestroyWindow(win);
    tempo_shutdown();
    IMG_Quit();
    SDL_Quit();
    free(paths);
    return failures ? 1 : 0;
}
