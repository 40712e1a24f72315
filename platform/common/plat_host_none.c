/* plat_host.h on the backends whose loop thread may block (sdl, win32, the
 * fake backend of the tests): they lack TEMPO_CAP_HOST_LOOP, so
 * framework/loop_run.c runs the frames itself and never calls this. */
#include "plat_host.h"
#include "tempo_internal.h"

int plat_host_run(const plat_host_calls *calls, void *user)
{
    (void)calls;
    (void)user;
    return tempo__set_error(TEMPO_ENOTSUP, "tempo_loop_run: this backend has no host loop");
}
