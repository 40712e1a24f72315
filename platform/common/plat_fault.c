/* Fault injection for the backends that emulate their handles (sdl, web,
 * fake): plat_fault_set_signal_delay_ns and plat_fault_signal_pauses
 * (plat_wait.h), and the pause itself (plat_fault.h), which the signalling
 * steps call: the wakers (plat_waker_*.c) between their two steps, the fake
 * backend's set and re-arm before they take the handle lock. Calls only the
 * clock (plat_clock.h). Thread: any. */
#include <stdatomic.h>

#include "plat_clock.h"
#include "plat_fault.h"
#include "plat_wait.h"

/* plat_fault_set_signal_delay_ns(); 0: off. */
static _Atomic(uint64_t) g_fault_delay_ns;
static _Atomic(uint64_t) g_fault_pauses;

void plat_fault_set_signal_delay_ns(uint64_t delay_ns)
{
    atomic_store(&g_fault_delay_ns, delay_ns);
}

uint64_t plat_fault_signal_pauses(void)
{
    return atomic_load(&g_fault_pauses);
}

void plat_fault_pause(void)
{
    uint64_t d = atomic_load_explicit(&g_fault_delay_ns, memory_order_relaxed);
    if (d > 0) {
        atomic_fetch_add(&g_fault_pauses, 1);
        plat_sleep_until_ns(plat_now_ns() + d);
    }
}
