/* SDL's video for a test that ./dev runs on X11 (TEMPO_REQUIRE_X11, under
 * Xvfb): SDL_Init(SDL_INIT_VIDEO), and where SDL came up without its x11
 * driver, up to TT_X11_TRIES more tries of x11 by name, 250 ms apart.
 *
 * SDL falls back to its next driver when XOpenDisplay fails, and the case
 * then failed as "x11/xdotool is unavailable (driver offscreen)": once in CI
 * (2026-12-01, the tsan-x11 stage), in one test while the tests started
 * beside it, before and after it, had the display. The X server is the
 * machine's, not the code under test; its own log is now kept beside the
 * stage's (.ci/stages.sh, run_suites). Each retry is a '#' line on stdout,
 * and a display still missing after the last one fails the case as before.
 * Without the flag this is SDL_Init(SDL_INIT_VIDEO).
 *
 * Header-only: the harness library does not link SDL; the includer includes
 * SDL.h first. Thread: the main one. */
#ifndef TEMPO_TESTS_VIDEO_X11_H
#define TEMPO_TESTS_VIDEO_X11_H

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define TT_X11_TRIES 4

/* Whether SDL's video runs on its x11 driver. */
static inline bool tt_video_is_x11(void)
{
    const char *d = SDL_GetCurrentVideoDriver();
    return d != NULL && SDL_strcmp(d, "x11") == 0;
}

/* See the top of this file. Returns SDL_Init's result (0 or negative). */
static inline int tt_video_init(void)
{
    int r = SDL_Init(SDL_INIT_VIDEO);
    if (!tt_env_flag("TEMPO_REQUIRE_X11"))
        return r;
    for (int i = 1; i <= TT_X11_TRIES && !(r == 0 && tt_video_is_x11()); i++) {
        const char *display = getenv("DISPLAY");
        if (r == 0)
            printf("# video: SDL chose %s, not x11 (DISPLAY %s); x11 again in 250 ms (try %d of %d)\n",
                   SDL_GetCurrentVideoDriver(), display ? display : "unset", i, TT_X11_TRIES);
        else
            printf("# video: %s (DISPLAY %s); x11 again in 250 ms (try %d of %d)\n", SDL_GetError(),
                   display ? display : "unset", i, TT_X11_TRIES);
        fflush(stdout);
        if (r == 0)
            SDL_QuitSubSystem(SDL_INIT_VIDEO);
        SDL_Delay(250);
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "x11");
        r = SDL_InitSubSystem(SDL_INIT_VIDEO);
    }
    return r;
}

#endif /* TEMPO_TESTS_VIDEO_X11_H */
