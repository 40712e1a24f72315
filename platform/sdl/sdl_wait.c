/* The sdl backend: its name, what it can do, and its wait, which is the
 * common wait over SDL (common/plat_sdl_wait.c: the fd route on Linux with
 * the eventfd waker, else the sdl-events route). Its other parts are common
 * modules too (platform/meson.build names them): the clock
 * (plat_clock_sdl.c), threads (plat_thread_sdl.c), file watches
 * (plat_filewatch_inotify.c), no native input (plat_input_none.c) and no
 * host loop (plat_host_none.c). Mirror of platform/win32/win32_wait.c. */
#include "plat_sdl_wait.h"
#include "plat_backend.h"
#include "plat_wait.h"

const char *plat_backend_name(void)
{
    return "sdl";
}

unsigned plat_capabilities(void)
{
    return TEMPO_CAP_SDL_ROUTE;
}

int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    return plat_sdl_wait(handles, n, timeout_ns, flags);
}
