/* The fake backend's scripting interface (platform/fake/), for tests only.
 *
 * The fake backend implements platform.h on a virtual clock: plat_now_ns()
 * reads a number that only moves when something moves it, and a wait that
 * would block moves it instead of sleeping, to the earliest of its timeout,
 * its armed timers and its scripted signals (below), then returns what is
 * signalled there. A wait with none of those (no timeout, nothing armed)
 * blocks for real until another thread signals one of its handles or pushes
 * an SDL event. plat_sleep_until_ns() moves the clock to its deadline.
 * Everything is deterministic on one thread; threads that signal each other
 * work too, but one that acts after *real* time passes (SDL_Delay) races a
 * wait that jumps to its deadline at once.
 *
 * With real time on (plat_fake_set_real_time, or TEMPO_FAKE_REAL_TIME=1 in
 * the environment before the first call), the clock is the real monotonic
 * one and waits block for real on one condition variable: the same handle
 * semantics, for the conformance cases that need time to pass on other
 * threads.
 *
 * The framework built against this backend is the internal static library
 * tempo_fake (tests/support/meson.build); it is never installed. Thread: any. */
#ifndef TEMPO_FAKE_PLATFORM_H
#define TEMPO_FAKE_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "plat_wait.h"

/* Where the virtual clock starts: far from 0, which some callers treat as
 * "never". */
#define PLAT_FAKE_START_NS (UINT64_C(1000) * 1000000000u)

/* True while the clock is virtual (the default). */
bool plat_fake_is_virtual(void);

/* Switches between the virtual clock (false) and real time (true). Call
 * before any handle or wait exists. */
void plat_fake_set_real_time(bool on);

/* Moves the virtual clock forward to `t_ns` (nothing if it is there or
 * past it), firing every scripted signal due by then and waking blocked
 * waits. No effect with real time on. */
void plat_fake_advance_to_ns(uint64_t t_ns);

/* Scripts "set this event at virtual time at_ns": when the clock reaches
 * at_ns the event is set (as plat_event_set), and a wait holding the event
 * counts at_ns among its deadlines, so it jumps there and returns it. At
 * most PLAT_FAKE_MAX_SCRIPTS pending at once; an event may have several.
 * A script on an event destroyed before it fires does nothing. Returns 0,
 * TEMPO_EINVAL (not an event) or TEMPO_EFULL. Works with real time too
 * (at_ns on the real clock). */
#define PLAT_FAKE_MAX_SCRIPTS 64
int plat_fake_script_set(plat_handle *event, uint64_t at_ns);

/* How many waits blocked for real (no deadline to jump to) so far, and how
 * many times a wait moved the virtual clock: tests check that a wait
 * jumped rather than slept. */
uint64_t plat_fake_real_blocks(void);
uint64_t plat_fake_jumps(void);

#endif /* TEMPO_FAKE_PLATFORM_H */
