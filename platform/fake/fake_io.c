/* The fake backend's file watches and native input: the least that keeps
 * the contract. Files are read by the shared reader (common/plat_file.c);
 * there are no file watches and no native input, reported as TEMPO_ENOTSUP
 * like the sdl backend off Linux. */
#include <stddef.h>


#include "platform.h"
#include "tempo_internal.h"

plat_handle *plat_filewatch_create(const char *dir)
{
    (void)dir;
    tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "file watch: not on the fake backend");
    return NULL;
}

int plat_filewatch_read(plat_handle *fw, plat_filewatch_fn fn, void *user)
{
    (void)fw;
    (void)fn;
    (void)user;
    return TEMPO_ENOTSUP;
}

plat_input *plat_input_open(struct SDL_Window *window, unsigned devices)
{
    (void)window;
    (void)devices;
    tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "native input: not on the fake backend");
    return NULL;
}

void plat_input_close(plat_input *in)
{
    (void)in;
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
