/* What the window system says of a window (plat_window_visibility, issue
 * 39): SDL's flags on every driver, and on x11 the X server's word before
 * SDL hears of it (_NET_WM_STATE_HIDDEN set by hand, as a window manager
 * sets it when it minimizes the window). A real window: the dummy driver,
 * or x11 under xvfb-run; skipped without video and on wayland (whose
 * minimized window test_wayland covers under weston). */
#include <stdio.h>
#include <string.h>

#include <SDL.h>
#if defined(TEMPO_HAVE_X11) && defined(SDL_VIDEO_DRIVER_X11)
#include <SDL_syswm.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#define TEST_X11 1
#endif

#include "harness.h"
#include "platform.h"
#include "tempo/tempo.h"

#if defined(TEST_X11)
/* Sets (or removes) _NET_WM_STATE_HIDDEN on the window, as a window
 * manager does when it minimizes it, and waits until the server has it. */
static void x11_set_hidden(SDL_Window *w, bool hidden)
{
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (SDL_GetWindowWMInfo(w, &info) != SDL_TRUE || info.subsystem != SDL_SYSWM_X11)
        return;
    Display *d = info.info.x11.display;
    Atom state = XInternAtom(d, "_NET_WM_STATE", False);
    Atom atom = XInternAtom(d, "_NET_WM_STATE_HIDDEN", False);
    if (hidden)
        XChangeProperty(d, info.info.x11.window, state, XA_ATOM, 32, PropModeReplace, (unsigned char *)&atom, 1);
    else
        XDeleteProperty(d, info.info.x11.window, state);
    XSync(d, False);
}
#endif

static void window_system_says_hidden(void)
{
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        TT_SKIP("no video driver");
    const char *driver = SDL_GetCurrentVideoDriver();
    if (strcmp(driver, "wayland") == 0) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        TT_SKIP("wayland: test_wayland minimizes a window under weston");
    }
    SDL_Window *w = SDL_CreateWindow("test_loop_visible", 0, 0, 64, 64, 0);
    if (w == NULL) {
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        TT_SKIP("no window");
    }
    SDL_PumpEvents();
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    CHECK_EQ_INT(plat_window_visibility(NULL), PLAT_VISIBILITY_SHOWN);
    SDL_HideWindow(w);
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_HIDDEN);
    SDL_ShowWindow(w);
    SDL_PumpEvents();
    CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    bool x11 = false;
#if defined(TEST_X11)
    if (strcmp(driver, "x11") == 0) {
        /* The server's word before SDL hears of it: no pump in between. */
        x11 = true;
        x11_set_hidden(w, true);
        CHECK(!(SDL_GetWindowFlags(w) & SDL_WINDOW_MINIMIZED));
        CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_HIDDEN);
        x11_set_hidden(w, false);
        CHECK_EQ_INT(plat_window_visibility(w), PLAT_VISIBILITY_SHOWN);
    }
#endif
    tt_note("driver %s%s", driver, x11 ? ", _NET_WM_STATE_HIDDEN read from the X server" : "");
    SDL_DestroyWindow(w);
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

static const tt_case cases[] = {
    TT_CASE(window_system_says_hidden),
};

int main(int argc, char **argv)
{
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("SDL_Init: %s\n0 passed, 1 failed\n", SDL_GetError());
        return 1;
    }
    int rc = TT_MAIN(argc, argv, cases);
    SDL_Quit();
    return rc;
}
