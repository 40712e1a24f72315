/* No native input (a common module: the sdl, web and fake backends).
 * Keyboard, mouse and controller input arrive as SDL events, which
 * tempo_input_handle_sdl() translates (framework/input.c); plat_input_open()
 * says so with TEMPO_ENOTSUP so tempo_input_attach_window() leaves
 * everything on that path. Mirror of platform/win32/win32_dinput.c. */
#include <stddef.h>

#include "plat_backend.h"
#include "plat_input.h"
#include "plat_wait.h"
#include "tempo_internal.h"

plat_input *plat_input_open(struct SDL_Window *window, unsigned devices)
{
    (void)window;
    (void)devices;
    /* Expected (TEMPO_CAP_NATIVE_INPUT is not set) and returned: DEBUG. */
    tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "native input: the %s backend reads input from SDL events",
                        plat_backend_name());
    return NULL;
}

void plat_input_close(plat_input *in)
{
    (void)in; /* plat_input_open never returns one */
}

plat_handle *plat_input_handle(plat_input *in)
{
    (void)in;
    return NULL;
}

int plat_input_read(plat_input *in, uint64_t now_ns, plat_input_fn fn, void *user)
{
    (void)in;
    (void)now_ns;
    (void)fn;
    (void)user;
    return TEMPO_ENOTSUP;
}
