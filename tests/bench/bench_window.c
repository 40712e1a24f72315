/* bench_window: SDL's software renderer on a window, presented through SDL's
 * window texture (SDL's default) and through the window's own surface
 * (SDL_HINT_FRAMEBUFFER_ACCELERATION "0").
 *
 * Why: on x11 and offscreen, SDL 2.26 backs a window's surface with a
 * texture of an *accelerated* renderer unless that hint is "0"
 * (SDL_video.c, SDL_CreateWindowFramebuffer: checked once per video init,
 * `checked_texture_framebuffer`). Without a GPU that renderer is OpenGL on
 * Mesa's llvmpipe, so every SDL_RenderPresent of a software renderer copies
 * the frame through llvmpipe and its threads. A game without a GPU can set
 * the hint before SDL_Init; this measures what it saves.
 *
 * For each video driver that can open a window (x11 when DISPLAY is set,
 * offscreen; "windows" on Windows, where SDL never takes the texture path)
 * and each window path, a child process (a fresh SDL: the hint is read once
 * per video init) creates a 640x480 window and an SDL_RENDERER_SOFTWARE
 * renderer without vsync, then draws a fixed 2D frame (clear, 240 filled
 * rects, 16 copies of a 64x64 texture) and presents it, --frames N times
 * (300; --quick 60) after 10 frames of warm-up. Timed apart: the draw
 * (up to and with SDL_RenderFlush, so batched draws are not counted in the
 * present) and SDL_RenderPresent alone. Also the process's CPU per frame
 * (all threads, tempo_process_usage), the threads in the process after the
 * run (Linux: /proc/self/task; elsewhere "?") and the path SDL took: the
 * window carries "_SDL_WindowTextureData" (SDL_video.c's
 * SDL_WINDOWTEXTUREDATA) when it presents through the texture, and the GL
 * renderer string is named when a GL context is current on this thread.
 *
 * Prints the command line and one Markdown table. Reports only: no verdict
 * on timings. Exit 0, 77 when no driver can open a window, 1 when a child
 * failed otherwise, 2 on a usage error. Thread: main thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/base.h"

#if defined(__linux__)
#include <dirent.h>
#endif

#define WIDTH 640
#define HEIGHT 480
#define WARMUP_FRAMES 10
#define RECTS 240
#define SPRITES 16
#define SPRITE_SIDE 64

/* SDL_video.c's key for the window texture's data (SDL_WINDOWTEXTUREDATA);
 * SDL_GetWindowData is public, the key is SDL's. */
#define WINDOW_TEXTURE_KEY "_SDL_WindowTextureData"

typedef struct window_path {
    const char *name;  /* on the command line and in the RESULT line */
    const char *label; /* in the table */
    const char *hint;  /* SDL_HINT_FRAMEBUFFER_ACCELERATION, set with OVERRIDE */
} window_path;

/* "1" takes exactly the branches an unset hint takes in SDL 2.26 (try the
 * accelerated renderers, the first that works); setting it with OVERRIDE
 * keeps an SDL_FRAMEBUFFER_ACCELERATION in the environment from changing
 * the default row. */
static const window_path paths[] = {
    {"default", "SDL's default", "1"},
    {"surface", "SDL_FRAMEBUFFER_ACCELERATION=0", "0"},
};
#define PATH_COUNT (int)(sizeof paths / sizeof paths[0])

/* ---- Child: one driver, one path, one RESULT line ------------------------ */

/* Threads in this process now, or -1 where it cannot be told. */
static int thread_count(void)
{
#if defined(__linux__)
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
#else
    return -1;
#endif
}

/* The GL renderer string when an OpenGL / GLES context is current on this
 * thread (the window texture's renderer made it so), else "-". Spaces
 * become '_' so the RESULT line stays one token per value. */
static void gl_renderer_name(char *buf, size_t size)
{
    snprintf(buf, size, "-");
    if (SDL_GL_GetCurrentContext() == NULL)
        return;
    typedef const unsigned char *(SDLCALL * get_string_fn)(unsigned int);
    get_string_fn get_string = (get_string_fn)SDL_GL_GetProcAddress("glGetString");
    const unsigned char *s = get_string ? get_string(0x1F01 /* GL_RENDERER */) : NULL;
    snprintf(buf, size, "%s", s ? (const char *)s : "GL");
    for (char *c = buf; *c != '\0'; c++)
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
            *c = '_';
}

static SDL_Texture *make_sprite(SDL_Renderer *r)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, SPRITE_SIDE, SPRITE_SIDE, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return NULL;
    for (int y = 0; y < SPRITE_SIDE; y++) {
        Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + y * s->pitch);
        for (int x = 0; x < SPRITE_SIDE; x++) {
            int dx = x - SPRITE_SIDE / 2, dy = y - SPRITE_SIDE / 2;
            Uint32 a = dx * dx + dy * dy < (SPRITE_SIDE / 2) * (SPRITE_SIDE / 2) ? 0xFFu : 0u;
            row[x] = a << 24 | (Uint32)(x * 4) << 16 | (Uint32)(y * 4) << 8 | 0x80u;
        }
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(r, s);
    SDL_FreeSurface(s);
    if (t != NULL)
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    return t;
}

/* One frame of a small 2D game: fixed content that moves with the frame
 * number, so every present carries a changed picture. */
static void draw_frame(SDL_Renderer *r, SDL_Texture *sprite, int frame)
{
    SDL_SetRenderDrawColor(r, 20, 24, 40, 255);
    SDL_RenderClear(r);
    SDL_Rect rects[RECTS / 4];
    for (int c = 0; c < 4; c++) {
        for (int i = 0; i < RECTS / 4; i++) {
            int k = c * (RECTS / 4) + i;
            rects[i].x = (k * 37 + frame * (1 + c)) % (WIDTH - 24);
            rects[i].y = (k * 53 + frame) % (HEIGHT - 24);
            rects[i].w = 8 + k % 16;
            rects[i].h = 8 + k % 12;
        }
        SDL_SetRenderDrawColor(r, (Uint8)(60 + 50 * c), (Uint8)(200 - 40 * c), (Uint8)(90 + 30 * c), 255);
        SDL_RenderFillRects(r, rects, RECTS / 4);
    }
    for (int i = 0; i < SPRITES; i++) {
        SDL_Rect dst = {(i * 97 + frame * 3) % (WIDTH - SPRITE_SIDE), (i * 61 + frame * 2) % (HEIGHT - SPRITE_SIDE),
                        SPRITE_SIDE, SPRITE_SIDE};
        SDL_RenderCopy(r, sprite, NULL, &dst);
    }
}

static int child_main(const char *driver, const char *path_name, int frames)
{
    const window_path *p = NULL;
    for (int i = 0; i < PATH_COUNT; i++)
        if (strcmp(paths[i].name, path_name) == 0)
            p = &paths[i];
    if (p == NULL) {
        fprintf(stderr, "bench_window: unknown window path %s\n", path_name);
        return 2;
    }
    /* Before SDL_Init: SDL reads the framebuffer hint once per video init,
     * at the first window surface. OVERRIDE wins over the environment. */
    SDL_SetHintWithPriority(SDL_HINT_VIDEODRIVER, driver, SDL_HINT_OVERRIDE);
    SDL_SetHintWithPriority(SDL_HINT_FRAMEBUFFER_ACCELERATION, p->hint, SDL_HINT_OVERRIDE);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "bench_window: %s: skipped: SDL_Init: %s\n", driver, SDL_GetError());
        return BENCH_EXIT_SKIP;
    }
    SDL_Window *win = SDL_CreateWindow("bench_window", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, WIDTH,
                                       HEIGHT, SDL_WINDOW_SHOWN);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE) : NULL;
    SDL_Texture *sprite = r ? make_sprite(r) : NULL;
    if (sprite == NULL) {
        fprintf(stderr, "bench_window: %s: skipped: no window, software renderer or texture: %s\n", driver,
                SDL_GetError());
        if (r)
            SDL_DestroyRenderer(r);
        if (win)
            SDL_DestroyWindow(win);
        SDL_Quit();
        return BENCH_EXIT_SKIP;
    }
    uint64_t *present_ns = calloc((size_t)frames, sizeof *present_ns);
    uint64_t *draw_ns = calloc((size_t)frames, sizeof *draw_ns);
    if (present_ns == NULL || draw_ns == NULL) {
        fprintf(stderr, "bench_window: out of memory\n");
        return 1;
    }
    /* Warm-up: the first presents create the window texture's GL state
     * (llvmpipe compiles its shaders); a game pays that once. */
    for (int f = 0; f < WARMUP_FRAMES; f++) {
        SDL_PumpEvents();
        draw_frame(r, sprite, f);
        SDL_RenderPresent(r);
    }
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t start = tempo_now_ns();
    for (int f = 0; f < frames; f++) {
        SDL_PumpEvents();
        uint64_t t0 = tempo_now_ns();
        draw_frame(r, sprite, WARMUP_FRAMES + f);
        SDL_RenderFlush(r);
        uint64_t t1 = tempo_now_ns();
        SDL_RenderPresent(r);
        uint64_t t2 = tempo_now_ns();
        draw_ns[f] = t1 - t0;
        present_ns[f] = t2 - t1;
    }
    uint64_t wall = tempo_now_ns() - start;
    tempo_process_usage(&u1);
    int threads = thread_count();
    bool texture = SDL_GetWindowData(win, WINDOW_TEXTURE_KEY) != NULL;
    char gl[128];
    gl_renderer_name(gl, sizeof gl);
    qsort(present_ns, (size_t)frames, sizeof *present_ns, bench_cmp_u64);
    qsort(draw_ns, (size_t)frames, sizeof *draw_ns, bench_cmp_u64);
    /* gl last: the parent reads it to the end of the line. */
    printf("RESULT driver=%s path=%s texture=%d frames=%d present_p50=%llu present_p99=%llu draw_p50=%llu"
           " cpu_ns=%llu wall_ns=%llu threads=%d gl=%s\n",
           SDL_GetCurrentVideoDriver(), p->name, texture ? 1 : 0, frames,
           (unsigned long long)bench_pct_u64(present_ns, (size_t)frames, 50),
           (unsigned long long)bench_pct_u64(present_ns, (size_t)frames, 99),
           (unsigned long long)bench_pct_u64(draw_ns, (size_t)frames, 50),
           (unsigned long long)(u1.cpu_ns - u0.cpu_ns), (unsigned long long)wall, threads, gl);
    free(present_ns);
    free(draw_ns);
    SDL_DestroyTexture(sprite);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    SDL_Quit();
    return 0;
}

/* ---- Parent: a child per driver and path, one table ---------------------- */

typedef struct result {
    int exit_code;
    bool ok;
    int texture, frames, threads;
    double present_p50, present_p99, draw_p50, cpu_ns, wall_ns;
    char gl[128];
} result;

static void on_child_line(const char *line, void *user)
{
    result *r = user;
    if (strncmp(line, "RESULT ", 7) != 0) {
        fputs(line, stderr);
        return;
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", line + 7);
    char *gl = strstr(copy, " gl=");
    if (gl != NULL) {
        *gl = '\0';
        snprintf(r->gl, sizeof r->gl, "%s", gl + 4);
        r->gl[strcspn(r->gl, "\r\n")] = '\0';
    }
    int found = 0;
    for (char *tok = strtok(copy, " \r\n"); tok != NULL; tok = strtok(NULL, " \r\n")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        double v = strtod(eq + 1, NULL);
        struct {
            const char *key;
            double *d;
            int *i;
        } keys[] = {
            {"present_p50", &r->present_p50, NULL}, {"present_p99", &r->present_p99, NULL},
            {"draw_p50", &r->draw_p50, NULL},       {"cpu_ns", &r->cpu_ns, NULL},
            {"wall_ns", &r->wall_ns, NULL},         {"texture", NULL, &r->texture},
            {"frames", NULL, &r->frames},           {"threads", NULL, &r->threads},
        };
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (strcmp(tok, keys[k].key) == 0) {
                if (keys[k].d)
                    *keys[k].d = v;
                else
                    *keys[k].i = (int)v;
                found++;
            }
    }
    r->ok = gl != NULL && found == 8 && r->frames > 0;
}

static int usage(const char *argv0, int rc)
{
    fprintf(rc ? stderr : stdout, "usage: %s [--frames N] [--quick] [--driver x11|offscreen|windows]\n", argv0);
    return rc;
}

static int parent_main(const char *self, int frames, const char *only_driver)
{
    const char *drivers[3];
    int n_drivers = 0;
#if defined(_WIN32)
    drivers[n_drivers++] = "windows";
#else
    const char *display = getenv("DISPLAY");
    if (display != NULL && display[0] != '\0')
        drivers[n_drivers++] = "x11";
    else
        fprintf(stderr, "bench_window: DISPLAY is not set: x11 skipped (run under xvfb-run -a)\n");
#endif
    drivers[n_drivers++] = "offscreen";
    if (only_driver != NULL && strcmp(only_driver, "x11") != 0 && strcmp(only_driver, "offscreen") != 0 &&
        strcmp(only_driver, "windows") != 0)
        return usage(self, 2);

    printf("bench_window: SDL's software renderer (SDL_RENDERER_SOFTWARE, no vsync) on a %dx%d window, "
           "%d frames after %d of warm-up, each frame clear + %d filled rects + %d sprite copies; "
           "one child process per row\n\n",
           WIDTH, HEIGHT, frames, WARMUP_FRAMES, RECTS, SPRITES);
    printf("| driver | window path | SDL took | present p50 / p99 ms | draw p50 ms | CPU per frame ms | threads |"
           " present p50 against the default path |\n|---|---|---|---:|---:|---:|---:|---:|\n");
    int ran = 0, failed = 0;
    for (int d = 0; d < n_drivers; d++) {
        if (only_driver != NULL && strcmp(only_driver, drivers[d]) != 0)
            continue;
        result res[PATH_COUNT];
        for (int i = 0; i < PATH_COUNT; i++) {
            char args[256];
            snprintf(args, sizeof args, "--child %s %s --frames %d", drivers[d], paths[i].name, frames);
            memset(&res[i], 0, sizeof res[i]);
            res[i].exit_code = bench_run_child(self, args, on_child_line, &res[i]);
        }
        for (int i = 0; i < PATH_COUNT; i++) {
            const result *r = &res[i];
            if (!r->ok) {
                bool skipped = r->exit_code == BENCH_EXIT_SKIP;
                if (!skipped)
                    failed++;
                printf("| %s | %s | %s (exit %d) | | | | | |\n", drivers[d], paths[i].label,
                       skipped ? "skipped: no window" : "failed", r->exit_code);
                continue;
            }
            ran++;
            char took[192], threads[16], ratio[16];
            if (r->texture)
                snprintf(took, sizeof took, "window texture (%s)", strcmp(r->gl, "-") ? r->gl : "not GL");
            else
                snprintf(took, sizeof took, "window surface");
            for (char *c = took; *c != '\0'; c++)
                if (*c == '_')
                    *c = ' ';
            if (r->threads >= 0)
                snprintf(threads, sizeof threads, "%d", r->threads);
            else
                snprintf(threads, sizeof threads, "?");
            bench_fmt_ratio(ratio, sizeof ratio, r->present_p50, res[0].ok ? res[0].present_p50 : 0);
            printf("| %s | %s | %s | %.3f / %.3f | %.3f | %.3f | %s | %s |\n", drivers[d], paths[i].label, took,
                   r->present_p50 / 1e6, r->present_p99 / 1e6, r->draw_p50 / 1e6, r->cpu_ns / 1e6 / r->frames,
                   threads, ratio);
        }
    }
    printf("\nCPU per frame: the whole process's CPU time (all threads) over the timed frames / frames.\n");
    if (failed > 0)
        return 1;
    return ran > 0 ? 0 : BENCH_EXIT_SKIP;
}

int main(int argc, char **argv)
{
    int frames = 300;
    const char *child_driver = NULL, *child_path = NULL, *only_driver = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            frames = 60; /* meson test --benchmark: a smoke run */
        } else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = atoi(argv[++i]);
            if (frames < 1)
                return usage(argv[0], 2);
        } else if (strcmp(argv[i], "--driver") == 0 && i + 1 < argc) {
            only_driver = argv[++i];
        } else if (strcmp(argv[i], "--child") == 0 && i + 2 < argc) {
            child_driver = argv[++i];
            child_path = argv[++i];
        } else {
            return usage(argv[0], strcmp(argv[i], "--help") == 0 ? 0 : 2);
        }
    }
    if (child_driver != NULL)
        return child_main(child_driver, child_path, frames);
    printf("command:");
    for (int i = 0; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    return parent_main(argv[0], frames, only_driver);
}
