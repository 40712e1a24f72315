/* The fake backend's file watches: none, reported as TEMPO_ENOTSUP like
 * the sdl backend off Linux. Files are read by the shared reader
 * (common/plat_file.c); native input is the sdl backend's (none: input
 * arrives as SDL events, common/plat_input_none.c). */
#include <stddef.h>

#include "plat_file.h"
#include "plat_wait.h"
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
