/* SDL's portable clock and millisecond sleep, where no OS clock is used:
 * the sdl backend on systems without clock_gettime (and the web backend,
 * which builds plat_clock_sdl.c), and the fake backend with real time on.
 * Header-only; thread: any. */
#ifndef TEMPO_PLAT_SDL_CLOCK_H
#define TEMPO_PLAT_SDL_CLOCK_H

#include <stdint.h>

#include <SDL.h>

/* SDL's performance counter in nanoseconds (monotonic; its own epoch). */
static inline uint64_t plat_sdl_counter_ns(void)
{
    static Uint64 freq;
    if (freq == 0)
        freq = SDL_GetPerformanceFrequency(); /* constant; a racy first write stores the same value */
    Uint64 c = SDL_GetPerformanceCounter();
    /* Split to avoid overflowing c * 1e9 (it would after ~30 min at 10 MHz). */
    return (c / freq) * 1000000000u + (c % freq) * 1000000000u / freq;
}

/* Sleeps until `deadline_ns` on the clock `now_ns` with SDL_Delay, which
 * counts milliseconds: rounded up, so it never wakes early. */
static inline void plat_sdl_delay_until_ns(uint64_t deadline_ns, uint64_t (*now_ns)(void))
{
    for (uint64_t now = now_ns(); now < deadline_ns; now = now_ns()) {
        uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
        SDL_Delay(ms > 0x7fffffffu ? 0x7fffffffu : (Uint32)ms);
    }
}

#endif /* TEMPO_PLAT_SDL_CLOCK_H */
