/* plat_video_prepare (plat_video.h): what Tempo knows about SDL2's video
 * drivers that must be settled before SDL_Init(SDL_INIT_VIDEO). Shared by
 * both backends; only the Linux sdl backend has anything to check (the
 * Wayland part is compiled with libwayland-client, TEMPO_HAVE_WAYLAND).
 * And plat_window_visibility: what the window system says of a window (the
 * x11 part is compiled with libX11, TEMPO_HAVE_X11).
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

#include "plat_video.h"
#include "tempo_internal.h"

#if defined(TEMPO_HAVE_WAYLAND)
#include <wayland-client.h>
#endif
/* SDL_syswm.h includes <X11/Xlib.h> whenever SDL was built with its x11
 * driver: only for a build that has the X11 headers (as plat_sdl_wait.c). */
#if defined(TEMPO_HAVE_X11) && defined(SDL_VIDEO_DRIVER_X11)
#include <SDL_syswm.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#define VISIBILITY_X11 1
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

/* ---- What the window system says of a window ------------------------------ */

#if defined(VISIBILITY_X11)
/* Whether the X server holds `w` as not shown: not viewable (unmapped:
 * hidden, or iconified by a window manager that unmaps icons), or marked
 * _NET_WM_STATE_HIDDEN by the window manager (minimized, or on another
 * desktop). SDL turns both into window events when it next pumps; this is
 * the server's word now. */
static bool x11_hidden(Display *d, Window w)
{
    XWindowAttributes wa;
    if (XGetWindowAttributes(d, w, &wa) != 0 && wa.map_state != IsViewable)
        return true;
    /* only_if_exists: without the atoms no window manager set the state. */
    Atom state = XInternAtom(d, "_NET_WM_STATE", True);
    Atom hidden = XInternAtom(d, "_NET_WM_STATE_HIDDEN", True);
    if (state == None || hidden == None)
        return false;
    Atom type = None;
    int format = 0;
    unsigned long n = 0, after = 0;
    unsigned char *data = NULL;
    bool found = false;
    if (XGetWindowProperty(d, w, state, 0, 64, False, XA_ATOM, &type, &format, &n, &after, &data) == Success &&
        data != NULL) {
        if (type == XA_ATOM && format == 32) {
            const Atom *atoms = (const Atom *)data; /* format 32 comes back as longs */
            for (unsigned long i = 0; i < n && !found; i++)
                found = atoms[i] == hidden;
        }
        XFree(data);
    }
    return found;
}

static bool x11_window_hidden(SDL_Window *window)
{
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (SDL_GetWindowWMInfo(window, &info) != SDL_TRUE || info.subsystem != SDL_SYSWM_X11)
        return false;
    return x11_hidden(info.info.x11.display, info.info.x11.window);
}
#endif

plat_visibility plat_window_visibility(SDL_Window *window)
{
    if (!SDL_WasInit(SDL_INIT_VIDEO))
        return PLAT_VISIBILITY_SHOWN; /* no window system to ask, no window to hide */
    const char *driver = SDL_GetCurrentVideoDriver();
    bool wayland = driver != NULL && strcmp(driver, "wayland") == 0;
    if (window == NULL)
        return wayland && SDL_GetKeyboardFocus() == NULL ? PLAT_VISIBILITY_UNSAID : PLAT_VISIBILITY_SHOWN;
    Uint32 flags = SDL_GetWindowFlags(window);
    if (flags & (SDL_WINDOW_HIDDEN | SDL_WINDOW_MINIMIZED))
        return PLAT_VISIBILITY_HIDDEN;
    if (wayland)
        return flags & SDL_WINDOW_INPUT_FOCUS ? PLAT_VISIBILITY_SHOWN : PLAT_VISIBILITY_UNSAID;
#if defined(VISIBILITY_X11)
    if (driver != NULL && strcmp(driver, "x11") == 0 && x11_window_hidden(window))
        return PLAT_VISIBILITY_HIDDEN;
#endif
    return PLAT_VISIBILITY_SHOWN;
}
