/* The clock: what every port implements (sdl, web: common/plat_clock_sdl.c;
 * Windows: common/plat_clock_windows.c with win32_clock.c's sleep; fake:
 * fake_clock.c, a virtual clock, with fake_script.c's sleep, which moves
 * it). The framework reads time only here
 * (framework/clock.c, the loop's default clock). Thread: any. */
#ifndef TEMPO_PLAT_CLOCK_H
#define TEMPO_PLAT_CLOCK_H

#include <stdint.h>

#include "tempo/base.h"

/* Monotonic nanoseconds. The epoch is the backend's. */
uint64_t plat_now_ns(void);

/* Sleeps until `deadline_ns` on plat_now_ns()'s clock, as precisely as the OS
 * allows and never returning before it. No spinning. */
void plat_sleep_until_ns(uint64_t deadline_ns);

/* Process CPU time and voluntary context switches (tempo_process_usage). */
int plat_process_usage(tempo_usage *out);

#endif /* TEMPO_PLAT_CLOCK_H */
