/* The multi-handle wait over SDL and the emulated handles (plat_handle.h):
 * a common module (common/plat_sdl_wait.c, on a waker: plat_waker.h) that a
 * backend makes its plat_wait of. The sdl backend's plat_wait is this one
 * (sdl/sdl_wait.c); the web backend's polls through it on the page's main
 * thread (web/web_wait.c). The module also defines plat_wait_route,
 * plat_pump, plat_shutdown, plat_event_set and plat_timer_set for the
 * backends that build it. */
#ifndef TEMPO_PLAT_SDL_WAIT_H
#define TEMPO_PLAT_SDL_WAIT_H

#include <stdint.h>

#include "plat_wait.h"
#include "plat_handle.h"

/* plat_wait (plat_wait.h) over SDL: the fd route (eventfd waker, Linux) or
 * the sdl-events route; its thread rules and results are plat_wait's. */
int plat_sdl_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags);

#endif /* TEMPO_PLAT_SDL_WAIT_H */
