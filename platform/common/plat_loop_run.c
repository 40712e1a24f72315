/* tempo_loop_run() of the backends whose loop thread may block (sdl,
 * win32, and the fake backend of the tests): frames one after another,
 * each sleeping in its wait. The web backend hands the loop to the browser
 * instead (platform/web/web_loop.c). */
#include "platform.h"
#include "tempo/loop.h"

int plat_loop_run(struct tempo_loop *loop)
{
    int r;
    while ((r = tempo_loop_frame(loop)) == 0) {
    }
    r = r < 0 ? r : 0;
    tempo__loop_run_ended(loop, r); /* desc.on_stop: may destroy the loop */
    return r;
}
