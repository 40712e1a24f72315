/* What every backend's message wait shares on the SDL side (one home for
 * code the sdl and win32 backends used to carry twice):
 *
 * - The SDL event-queue hook. SDL_PushEvent from another thread touches
 *   neither the X connection nor the Win32 queue, so a message wait would
 *   sleep through it. An SDL event watch, registered while a message wait
 *   runs, announces each push from a thread other than the waiting one
 *   (plat_announce.h: SDL2 calls watches before the event is appended) and
 *   calls the backend's wake function for the blocked waiter.
 * - Controllers. SDL2 only polls game controllers (in SDL_PumpEvents), and a
 *   message wait with a joystick open must pump at the input layer's
 *   interval (plat_set_input_poll_interval_ns, declared in plat_wait.h, is
 *   defined here for both backends).
 *
 * Thread rules are on each function. */
#ifndef TEMPO_PLAT_SDL_HOOK_H
#define TEMPO_PLAT_SDL_HOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "plat_announce.h"

/* Wakes the waiter registered by plat_sdl_hook_begin (its `ctx`). Called on
 * the pushing thread; must be safe from any thread. */
typedef void (*plat_sdl_wake_fn)(void *ctx);

/* The announcements of cross-thread pushes (plat_announce.h): the wait takes
 * snapshots and rechecks through it. [loop thread], except what
 * plat_announce.h says about pushes. */
plat_announce *plat_sdl_announce(void);

/* [loop thread] A message wait begins on this thread: (re-)registers the
 * event watch if SDL's event queue is up (re-registering survives
 * SDL_Quit(), which forgets watches), marks this thread as the one whose
 * own pushes need no wake, and makes `wake(ctx)` the wake for pushes from
 * other threads until plat_sdl_hook_end. `ctx` is not NULL; `wake` is the
 * same function at every call of a build. */
void plat_sdl_hook_begin(plat_sdl_wake_fn wake, void *ctx);

/* [loop thread] The message wait ended: pushes are still announced, but
 * nobody is woken. */
void plat_sdl_hook_end(void);

/* [loop thread] Removes the watch (plat_shutdown). */
void plat_sdl_hook_shutdown(void);

/* [loop thread] True while SDL has a joystick open (SDL must then pump to
 * read it). */
bool plat_sdl_joystick_open(void);

/* The controller poll interval the input layer asked for (0: none), whether
 * or not a joystick is open. Thread: any. */
uint64_t plat_sdl_pad_poll_ns(void);

#endif /* TEMPO_PLAT_SDL_HOOK_H */
