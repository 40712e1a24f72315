/* See sample.h. */
#include "sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_image.h>

int sample_parse(sample_app *app, int argc, char **argv, const char *usage,
                 int (*extra)(const char *arg, const char *value, void *user), void *user)
{
    memset(app, 0, sizeof *app);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--headless") == 0) {
            app->headless = true;
        } else if (strcmp(a, "--seconds") == 0 && v != NULL) {
            app->seconds = atof(v);
            i++;
        } else if (strcmp(a, "--screenshot") == 0 && v != NULL) {
            app->screenshot = v;
            i++;
        } else if (strcmp(a, "--no-vsync") == 0) {
            app->no_vsync = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: %s [--headless] [--seconds N] [--screenshot FILE.png] [--no-vsync]%s%s\n", argv[0],
                   usage ? " " : "", usage ? usage : "");
            return 1;
        } else {
            int took = extra ? extra(a, v, user) : -1;
            if (took < 0) {
                fprintf(stderr, "%s: unknown option %s (try --help)\n", argv[0], a);
                return 2;
            }
            i += took;
        }
    }
    return 0;
}

static int init_video(sample_app *app)
{
    /* Before SDL's video init: Tempo refuses a compositor SDL would crash
     * on (tempo_video_prepare), and then we run headless instead. */
    if (!app->headless && tempo_video_prepare() != 0) {
        fprintf(stderr, "no usable display (%s): running headless with the offscreen driver\n",
                tempo_get_error());
        app->headless = true;
    }
    if (!app->headless && SDL_InitSubSystem(SDL_INIT_VIDEO) == 0)
        return 0;
    if (!app->headless)
        fprintf(stderr, "no display (%s): running headless with the offscreen driver\n", SDL_GetError());
    app->headless = true;
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "SDL video: %s\n", SDL_GetError());
        return -1;
    }
    return 0;
}

void sample_use_software_renderer(void)
{
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
}

int sample_open(sample_app *app, const char *title, int width, int height)
{
    if (init_video(app) != 0)
        return -1;
    if (app->headless && app->seconds <= 0)
        app->seconds = 5;
    app->video_driver = SDL_GetCurrentVideoDriver();
    app->width = width;
    app->height = height;
    app->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width,
                                   height, SDL_WINDOW_SHOWN);
    if (app->window == NULL) {
        fprintf(stderr, "SDL_CreateWindow: %s\n", SDL_GetError());
        return -1;
    }
    /* Vsync by default: the loop presents (desc.renderer), counts the
     * blocked present as waiting and wakes just in time for each vblank;
     * without vsync a software-paced present tears or judders on a real
     * display (59.94 vs 60 Hz). */
    app->renderer = SDL_CreateRenderer(app->window, -1, app->no_vsync ? 0 : SDL_RENDERER_PRESENTVSYNC);
    if (app->renderer == NULL) {
        fprintf(stderr, "SDL_CreateRenderer: %s\n", SDL_GetError());
        return -1;
    }
    return 0;
}

void sample_toggle_vsync(tempo_loop *loop)
{
    bool on = !tempo_loop_get_vsync(loop);
    int r = tempo_loop_set_vsync(loop, on);
    if (r != 0)
        printf("vsync: %s (%s)\n", tempo_strerror(r), tempo_get_error());
    else
        printf("vsync %s\n", on ? "on" : "off (renders paced at the display rate)");
}

int sample_screenshot(sample_app *app, const char *path)
{
    int w, h;
    if (SDL_GetRendererOutputSize(app->renderer, &w, &h) != 0)
        goto fail;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        goto fail;
    if (SDL_RenderReadPixels(app->renderer, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) != 0 ||
        IMG_SavePNG(s, path) != 0) {
        SDL_FreeSurface(s);
        goto fail;
    }
    SDL_FreeSurface(s);
    printf("screenshot: %s (%dx%d)\n", path, w, h);
    return 0;
fail:
    fprintf(stderr, "screenshot %s: %s\n", path, SDL_GetError());
    return -1;
}

void sample_quit_loop(tempo_loop *loop, tempo_handle *handle, void *user)
{
    (void)handle;
    (void)user;
    tempo_loop_quit(loop);
}

char *sample_temp_path(char *buf, size_t size, const char *name)
{
    static const char *const vars[] = {"TMPDIR", "TEMP", "TMP"};
    char dir[400] = "/tmp";
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        /* SDL_getenv shares one buffer on Windows: copy before the next call. */
        const char *v = SDL_getenv(vars[i]);
        if (v != NULL && v[0] != '\0') {
            snprintf(dir, sizeof dir, "%s", v);
            break;
        }
    }
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

void sample_close(sample_app *app)
{
    if (app->renderer)
        SDL_DestroyRenderer(app->renderer);
    if (app->window)
        SDL_DestroyWindow(app->window);
    app->renderer = NULL;
    app->window = NULL;
    SDL_Quit();
}
