/* See plat_sdl_hook.h. Compiled into both backends. */
#include <stdatomic.h>
#include <stddef.h>

#include <SDL.h>

#include "plat_sdl_hook.h"
#include "plat_wait.h"

static plat_announce g_announce;
static _Atomic(SDL_threadID) g_loop_thread;  /* the thread of the last message wait */
static _Atomic(plat_sdl_wake_fn) g_wake_fn;  /* the backend's; one per build */
static _Atomic(void *) g_wake_ctx;           /* the blocked waiter, NULL while none */
static _Atomic(uint64_t) g_pad_poll_ns;      /* plat_set_input_poll_interval_ns; 0: none */

plat_announce *plat_sdl_announce(void)
{
    return &g_announce;
}

/* [any thread that pushes an SDL event] */
static int SDLCALL on_event_added(void *userdata, SDL_Event *event)
{
    (void)userdata;
    (void)event;
    /* Events the loop thread adds itself (its own SDL_PumpEvents) need no wake. */
    if (SDL_ThreadID() == atomic_load(&g_loop_thread))
        return 0;
    plat_announce_push(&g_announce);
    /* One load decides: a wait that ends right after leaves a stale context,
     * whose wake is harmless (backends keep wake targets alive: pooled
     * wakers, thread ids); a wait that begins right after sees the push
     * announced and re-checks SDL's queue (plat_announce.h). */
    void *ctx = atomic_load(&g_wake_ctx);
    plat_sdl_wake_fn fn = atomic_load(&g_wake_fn);
    if (ctx != NULL && fn != NULL)
        fn(ctx);
    return 0;
}

void plat_sdl_hook_begin(plat_sdl_wake_fn wake, void *ctx)
{
    atomic_store(&g_loop_thread, SDL_ThreadID());
    if (SDL_WasInit(SDL_INIT_EVENTS)) {
        SDL_DelEventWatch(on_event_added, NULL);
        SDL_AddEventWatch(on_event_added, NULL);
    }
    atomic_store(&g_wake_fn, wake);
    atomic_store(&g_wake_ctx, ctx);
}

void plat_sdl_hook_end(void)
{
    atomic_store(&g_wake_ctx, NULL);
}

void plat_sdl_hook_shutdown(void)
{
    atomic_store(&g_wake_ctx, NULL);
    SDL_DelEventWatch(on_event_added, NULL);
}

bool plat_sdl_joystick_open(void)
{
    if (!SDL_WasInit(SDL_INIT_JOYSTICK))
        return false;
    for (int i = 0, n = SDL_NumJoysticks(); i < n; i++)
        if (SDL_JoystickFromInstanceID(SDL_JoystickGetDeviceInstanceID(i)) != NULL)
            return true;
    return false;
}

void plat_set_input_poll_interval_ns(uint64_t interval_ns)
{
    atomic_store(&g_pad_poll_ns, interval_ns);
}

uint64_t plat_sdl_pad_poll_ns(void)
{
    return atomic_load(&g_pad_poll_ns);
}
