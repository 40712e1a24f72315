/* plat_video_prepare (platform.h): what Tempo knows about SDL2's video
 * drivers that must be settled before SDL_Init(SDL_INIT_VIDEO). Shared by
 * both backends; only the Linux sdl backend has anything to check (the
 * Wayland part is compiled with libwayland-client, TEMPO_HAVE_WAYLAND).
 *
 * Two SDL 2.26.5 defects on Wayland (issue 23, docs/wayland.md):
 *  - On a compositor that advertises no wl_seat (weston's headless backend)
 *    SDL's wayland driver segfaults inside SDL_InitSubSystem(VIDEO): no
 *    error comes back, so a game cannot fall back to another driver after
 *    the fact. We connect first, list the globals (one roundtrip) and refuse.
 *  - With libdecor (used when the compositor has no xdg-decoration
 *    protocol: weston, GNOME), destroying a window and creating another
 *    segfaults in SDL's libdecor dispatch on a later pump. We turn libdecor
 *    off (SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR=0) unless the game chose. */
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "platform.h"
#include "tempo_internal.h"

#if defined(TEMPO_HAVE_WAYLAND)
#include <wayland-client.h>
#endif

#define HINT_ALLOW_LIBDECOR "SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR"

#if defined(TEMPO_HAVE_WAYLAND)
/* Whether SDL_VideoInit will get to its wayland driver: the hint (or
 * SDL_VIDEODRIVER) names it, after at most drivers that fail here; without
 * the hint SDL 2 tries x11 first, which only fails without DISPLAY. */
static bool sdl_will_try_wayland(void)
{
    const char *display = SDL_getenv("DISPLAY");
    const bool x11_fails = display == NULL || *display == '\0';
    const char *list = SDL_GetHint(SDL_HINT_VIDEODRIVER);
    if (list == NULL || *list == '\0')
        return x11_fails;
    for (const char *p = list; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 7 && SDL_strncasecmp(p, "wayland", 7) == 0)
            return true;
        if (!(len == 3 && SDL_strncasecmp(p, "x11", 3) == 0 && x11_fails))
            return false; /* an earlier driver that will probably work */
        p = end != NULL ? end + 1 : NULL;
    }
    return false;
}

static void on_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
                      uint32_t version)
{
    (void)reg;
    (void)name;
    (void)version;
    if (strcmp(iface, "wl_seat") == 0)
        *(bool *)data = true;
}

static void on_global_remove(void *data, struct wl_registry *reg, uint32_t name)
{
    (void)data;
    (void)reg;
    (void)name;
}

/* 0, or TEMPO_ENOTSUP when the compositor SDL would connect to has no seat.
 * No compositor at all is not our business: SDL fails cleanly then. */
static int check_wayland_seat(void)
{
    /* Where libwayland cannot even name a socket, SDL cannot connect either;
     * skip its "XDG_RUNTIME_DIR not set" complaint on stderr. The variables
     * are read as libwayland reads them, with libc's getenv: SDL3 (under
     * sdl2-compat) answers SDL_getenv from its own copy of the environment,
     * taken at its first use, so a name set later with setenv() reached
     * libwayland but not the message (issue 36, item 9). */
    const char *wd = getenv("WAYLAND_DISPLAY");
    if (getenv("WAYLAND_SOCKET") == NULL && getenv("XDG_RUNTIME_DIR") == NULL &&
        (wd == NULL || wd[0] != '/'))
        return 0;
    struct wl_display *d = wl_display_connect(NULL);
    if (d == NULL)
        return 0;
    bool seat = false;
    static const struct wl_registry_listener listener = {on_global, on_global_remove};
    struct wl_registry *reg = wl_display_get_registry(d);
    int rc = 0;
    if (reg != NULL) {
        wl_registry_add_listener(reg, &listener, &seat);
        /* Globals are announced in order before the roundtrip's callback. */
        if (wl_display_roundtrip(d) >= 0 && !seat) {
            const char *name = wd;
            rc = tempo__set_error_at(
                TEMPO_LOG_DEBUG, TEMPO_ENOTSUP,
                "the Wayland compositor (WAYLAND_DISPLAY=%s) advertises no wl_seat, and SDL %d.%d's "
                "wayland driver crashes in video init without one (weston's headless backend has "
                "none): not using it; pick another driver (SDL_VIDEODRIVER=offscreen or dummy for "
                "headless runs, x11 through XWayland) or a compositor with a seat (weston "
                "--backend=x11-backend.so inside Xvfb)",
                name != NULL ? name : "wayland-0", SDL_MAJOR_VERSION, SDL_MINOR_VERSION);
        }
        wl_registry_destroy(reg);
    }
    wl_display_disconnect(d);
    return rc;
}
#endif

int plat_video_prepare(void)
{
    /* SDL_GetHint also returns the environment variable of the same name:
     * either way the game (or the player) chose, and we keep it. */
    if (SDL_GetHint(HINT_ALLOW_LIBDECOR) == NULL)
        SDL_SetHint(HINT_ALLOW_LIBDECOR, "0");
#if defined(TEMPO_HAVE_WAYLAND)
    if (sdl_will_try_wayland())
        return check_wayland_seat();
#endif
    return 0;
}
