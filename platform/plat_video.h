/* The window system: what SDL's video init needs settled first, and what
 * the window system says of a window's visibility. One implementation for
 * every port (common/plat_sdl_video.c, on SDL's window-manager info).
 * [loop thread] */
#ifndef TEMPO_PLAT_VIDEO_H
#define TEMPO_PLAT_VIDEO_H

/* Settles what must be settled before SDL's video init; see
 * tempo_video_prepare(). [loop thread] (platform/common/plat_sdl_video.c) */
int plat_video_prepare(void);

/* What the window system says of a window's visibility. */
typedef enum plat_visibility {
    PLAT_VISIBILITY_SHOWN = 0, /* shown (or nothing says otherwise where the window
                                  system would say it) */
    PLAT_VISIBILITY_HIDDEN,    /* hidden or minimized */
    PLAT_VISIBILITY_UNSAID     /* the window system may say nothing of a window that is
                                  not shown: only its presents, withheld, tell */
} plat_visibility;

/* Whether `window` is shown, as the window system says it (issue 39: a
 * present that blocks long is a slow machine unless the window system says
 * the window is not shown). HIDDEN when SDL's flags say hidden or
 * minimized; on the x11 driver (TEMPO_HAVE_X11) also when the X server
 * says so and SDL has not heard yet: the window is not viewable (unmapped:
 * hidden, or iconified by the window manager) or its _NET_WM_STATE holds
 * _NET_WM_STATE_HIDDEN (a few round trips: for occasional calls). UNSAID
 * on the wayland driver for a window without keyboard focus: SDL 2.26 sends
 * no MINIMIZED or HIDDEN there, and a compositor only stops the surface's
 * frame callbacks; a window with keyboard focus is shown (compositors take
 * the focus from a window they minimize or cover with a lock screen).
 * SHOWN otherwise. `window` NULL (the loop's desc.window): SHOWN, or on
 * wayland SHOWN while one of SDL's windows has keyboard focus, else UNSAID.
 * [loop thread] (platform/common/plat_sdl_video.c) */
struct SDL_Window;
plat_visibility plat_window_visibility(struct SDL_Window *window);

#endif /* TEMPO_PLAT_VIDEO_H */
