/* Threads and mutexes of the SDL backend: thin wrappers over SDL's. */
#include <stdlib.h>

#include <SDL.h>

#include "platform.h"
#include "tempo_internal.h"

plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg)
{
    SDL_Thread *t = SDL_CreateThread(fn, name, arg);
    if (t == NULL)
        tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateThread(%s): %s", name, SDL_GetError());
    return (plat_thread *)t;
}

int plat_thread_join(plat_thread *t)
{
    int status = 0;
    SDL_WaitThread((SDL_Thread *)t, &status);
    return status;
}

plat_mutex *plat_mutex_create(void)
{
    SDL_mutex *m = SDL_CreateMutex();
    if (m == NULL)
        tempo__set_error(TEMPO_EPLATFORM, "SDL_CreateMutex: %s", SDL_GetError());
    return (plat_mutex *)m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    SDL_DestroyMutex((SDL_mutex *)m);
}

void plat_mutex_lock(plat_mutex *m)
{
    SDL_LockMutex((SDL_mutex *)m);
}

void plat_mutex_unlock(plat_mutex *m)
{
    SDL_UnlockMutex((SDL_mutex *)m);
}
