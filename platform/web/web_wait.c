/* The wait of the web backend: the common wait over SDL (plat_sdl_wait.h,
 * common/plat_sdl_wait.c, on the portable condition-variable waker and the
 * sdl-events message route; the handles themselves are common/plat_handle.c's,
 * as on every backend but win32), with what this backend answers itself:
 *  - plat_wait: on the page's main thread a wait never blocks. Blocking
 *    there freezes the page -- no paint, no input, no timers, nothing that
 *    could end the wait ever runs -- and emscripten's SDL_WaitEventTimeout /
 *    condition waits would spin on it. The loop's frames come from the
 *    browser instead (web_loop.c), and its waits are polls (timeout 0). A
 *    program linked with -sASYNCIFY that waits on the main thread outside
 *    the loop (samples/waitdemo) gets its wait as polls with the browser
 *    run in between (emscripten_sleep: the page paints, input and timers
 *    arrive), at most WEB_POLL_MS apart; without Asyncify such a wait is one
 *    poll. Worker threads (loader, network) block as on any backend.
 *  - plat_backend_name: "web"; plat_capabilities: the sdl-events route is
 *    the only one (no display fd, no eventfd), and the browser owns the
 *    loop (TEMPO_CAP_HOST_LOOP: web_loop.c). */
#include <emscripten.h>
#include <emscripten/threading.h>

#include "plat_sdl_wait.h"
#include "plat_backend.h"
#include "plat_clock.h"
#include "plat_wait.h"
#include "web_internal.h"

/* How often a main-thread wait under Asyncify looks again: the sleep hands
 * the page to the browser, which cannot wake it early. */
#define WEB_POLL_MS 4

/* Whether the program was linked with -sASYNCIFY (emscripten_sleep works). */
EM_JS(int, web_has_asyncify, (void), { return typeof Asyncify === 'object' ? 1 : 0; });

const char *plat_backend_name(void)
{
    return "web";
}

unsigned plat_capabilities(void)
{
    return TEMPO_CAP_SDL_ROUTE | TEMPO_CAP_HOST_LOOP;
}

/* [main thread] Set by web_loop.c around the frames it runs: those waits
 * stay single polls, Asyncify or not (a frame must not sleep inside the
 * browser's callback). */
bool web__in_driver_frame;

int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    if (timeout_ns == 0 || !emscripten_is_main_browser_thread())
        return plat_sdl_wait(handles, n, timeout_ns, flags);
    if (web__in_driver_frame || !web_has_asyncify())
        return plat_sdl_wait(handles, n, 0, flags); /* a poll: see the top of this file */
    uint64_t deadline = timeout_ns == TEMPO_INFINITE ? UINT64_MAX : plat_now_ns() + timeout_ns;
    for (;;) {
        int r = plat_sdl_wait(handles, n, 0, flags);
        uint64_t now = plat_now_ns();
        if (r != TEMPO_ETIMEDOUT || now >= deadline)
            return r;
        uint64_t left_ms = (deadline - now + 999999u) / 1000000u;
        emscripten_sleep(left_ms < WEB_POLL_MS ? (unsigned)left_ms : WEB_POLL_MS);
    }
}
