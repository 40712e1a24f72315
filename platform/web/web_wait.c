/* Handles and the wait of the web backend: platform/sdl's (sdl_wait.c, on
 * its portable condition-variable waker and the sdl-events message route),
 * compiled here with the three functions this backend answers itself moved
 * aside, so that no line of it is copied:
 *  - plat_wait: on the page's main thread every wait is a poll (timeout
 *    0). Blocking there freezes the page -- no paint, no input, no timers,
 *    nothing that could end the wait ever runs -- and emscripten's
 *    SDL_WaitEventTimeout / condition waits would spin on it. The loop's
 *    frames come from the browser instead (web_loop.c); worker threads
 *    (loader, network) block as on any backend.
 *  - plat_backend_name: "web"; plat_capabilities: the sdl-events route is
 *    the only one (no display fd, no eventfd). */
#define plat_wait web__sdl_wait
#define plat_backend_name web__sdl_backend_name
#define plat_capabilities web__sdl_capabilities
#include "sdl/sdl_wait.c"
#undef plat_wait
#undef plat_backend_name
#undef plat_capabilities

#include <emscripten/threading.h>

/* platform.h, included by sdl_wait.c above, declared the moved-aside names
 * (web__sdl_wait...); the real ones follow. */
const char *plat_backend_name(void)
{
    return "web";
}

unsigned plat_capabilities(void)
{
    return TEMPO_CAP_SDL_ROUTE;
}

int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    if (timeout_ns != 0 && emscripten_is_main_browser_thread())
        timeout_ns = 0; /* a poll: see the top of this file */
    return web__sdl_wait(handles, n, timeout_ns, flags);
}
