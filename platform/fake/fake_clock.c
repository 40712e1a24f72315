/* The fake backend's clock (fake_platform.h): virtual by default, moved by
 * waits that would block, by plat_sleep_until_ns and by the test
 * (fake_script.c, which fires the scripts due as it moves it); or the real
 * monotonic clock with real time on. The floor under the rest of the fake
 * backend and under the handle half (plat_now_ns): it calls none of them. */
#include <stdatomic.h>
#include <string.h>

#include "plat_clock.h"
#include "plat_wait.h"
#include "fake_internal.h"
#include "fake_platform.h"
#include "plat_sdl_clock.h"
#include "tempo_internal.h"

static _Atomic(uint64_t) g_now = PLAT_FAKE_START_NS; /* written under fake__lock, read anywhere */
/* -1: not decided yet (the environment decides at first use), 0 virtual, 1 real. */
static atomic_int g_real = -1;

static bool real_time(void)
{
    int r = atomic_load(&g_real);
    if (r < 0) {
        const char *env = SDL_getenv("TEMPO_FAKE_REAL_TIME");
        int want = env != NULL && env[0] == '1';
        atomic_compare_exchange_strong(&g_real, &r, want);
        r = atomic_load(&g_real);
    }
    return r == 1;
}

bool fake__virtual(void)
{
    return !real_time();
}

bool plat_fake_is_virtual(void)
{
    return !real_time();
}

void plat_fake_set_real_time(bool on)
{
    atomic_store(&g_real, on ? 1 : 0);
}

uint64_t fake__real_now_ns(void)
{
    return plat_sdl_counter_ns();
}

uint64_t fake__now_locked(void)
{
    return real_time() ? fake__real_now_ns() : atomic_load(&g_now);
}

bool fake__move_to_locked(uint64_t t)
{
    if (!real_time() && t != UINT64_MAX && t > atomic_load(&g_now)) {
        atomic_store(&g_now, t);
        return true;
    }
    return false;
}

uint64_t plat_now_ns(void)
{
    return real_time() ? fake__real_now_ns() : atomic_load(&g_now);
}

int plat_process_usage(tempo_usage *out)
{
    /* A process on a virtual clock has no CPU time to speak of. */
    memset(out, 0, sizeof *out);
    return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOTSUP, "fake backend: no process usage");
}
