/* What every Tempo sample shares: command-line options, a window (or the
 * offscreen driver when there is no display), screenshots and the summary.
 *
 * Every sample accepts:
 *   --headless         use SDL's offscreen video driver (also chosen
 *                      automatically when no display can be opened)
 *   --seconds N        quit after N seconds (default: run until closed;
 *                      headless runs default to 5 s)
 *   --screenshot FILE  write the last frame as a PNG when quitting
 *   --no-vsync         create the renderer without SDL_RENDERER_PRESENTVSYNC
 *                      (the loop then paces renders at the display's rate)
 *   --help
 * Samples use only the public Tempo headers plus SDL. */
#ifndef TEMPO_SAMPLE_H
#define TEMPO_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>

#include <tempo/loop.h>

typedef struct sample_app {
    /* options */
    bool headless;
    double seconds; /* 0: until the window is closed */
    const char *screenshot;
    bool no_vsync; /* --no-vsync; a sample that presents only on change sets it */
    /* created by sample_open */
    SDL_Window *window;
    SDL_Renderer *renderer;
    int width, height;
    const char *video_driver;
} sample_app;

/* Parses the common options; unknown "--x" options are left to the sample
 * via `extra(arg, value, user)` (return 1 if it took the value, 0 if no
 * value was needed, -1 if unknown). Prints usage and returns non-zero on
 * --help or an error. */
int sample_parse(sample_app *app, int argc, char **argv, const char *usage,
                 int (*extra)(const char *arg, const char *value, void *user), void *user);

/* For a machine without a GPU (and headless runs): SDL's software renderer,
 * with the window's pixels handed straight to the video driver. Without the
 * second hint SDL 2.26 copies them through an OpenGL texture every present,
 * which without a GPU is Mesa's llvmpipe on the CPU (docs/pacing.md, "...
 * without a GPU, SDL's window texture"; tests/bench/bench_window.c measures it).
 * Sets the hints SDL_RENDER_DRIVER = "software" and
 * SDL_FRAMEBUFFER_ACCELERATION = "0"; call before sample_open. */
void sample_use_software_renderer(void);

/* Initialises SDL video (falling back to the offscreen driver when headless
 * or when no display is available) and opens a window with a renderer.
 * Returns 0, or -1 after printing SDL's error. */
int sample_open(sample_app *app, const char *title, int width, int height);

/* The samples' vsync key (V): turns the loop's vsync off or on
 * (tempo_loop_set_vsync; the loop must present, desc.renderer) and says so
 * on stdout. */
void sample_toggle_vsync(tempo_loop *loop);

/* Writes the renderer's current target as a PNG. Call before
 * SDL_RenderPresent (the back buffer is undefined after presenting).
 * Returns 0, or -1 after printing the error. */
int sample_screenshot(sample_app *app, const char *path);

/* A tempo_loop watch callback that quits the loop: watch the --seconds
 * timer with it. */
void sample_quit_loop(tempo_loop *loop, tempo_handle *handle, void *user);

/* Writes "<temporary directory>/<name>" into buf (TMPDIR, else TEMP or TMP,
 * else /tmp): where a sample puts files it generates, so that running one
 * never writes into the current (source) directory. Returns buf. */
char *sample_temp_path(char *buf, size_t size, const char *name);

/* Destroys the window and renderer and quits SDL. */
void sample_close(sample_app *app);

#endif /* TEMPO_SAMPLE_H */
