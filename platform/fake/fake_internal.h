/* What the fake backend's files share (platform/fake/). One process-wide
 * lock, the handles' (plat_handle_lock, plat_handle.h), guards the virtual
 * clock, every handle's state and the scripts; one condition variable wakes
 * every blocked wait when any of them changes.
 *
 * Declared here, from the top down: fake_script.c's lock and condition
 * variable, scripts and the clock's moving, then fake_clock.c's clock.
 * fake_wait.c calls down into both, fake_script.c into fake_clock.c (and
 * the handle half, plat_handle.c), and fake_clock.c into none of them (the
 * handle half calls it: plat_now_ns). */
#ifndef TEMPO_FAKE_INTERNAL_H
#define TEMPO_FAKE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "platform.h"

/* ---- fake_script.c ---- */

/* The lock (plat_handle_lock) and the condition variable, both created by
 * the first fake__lock() (NULL with the detail set if SDL cannot make
 * either); fake__lock() must not be called with the lock held. */
SDL_mutex *fake__lock(void);
SDL_cond *fake__cond(void);

/* [fake__lock] Wakes every blocked wait (they re-check). */
void fake__wake_all_locked(void);

/* [fake__lock] The handles' wake (plat_handle_wake_fn, plat_handle.h): `h`
 * changed, so every blocked wait re-checks (fake__wake_all_locked). */
void fake__wake_holders(const plat_handle *h);

/* [fake__lock] Moves the virtual clock to t (if later), fires the scripts
 * due by then and wakes every blocked wait. */
void fake__advance_locked(uint64_t t);

/* [fake__lock] Sets every scripted event due at `now`, earliest first. */
void fake__fire_scripts_locked(uint64_t now);

/* [fake__lock] The earliest scripted signal of one of the n handles, or
 * `limit` if none is earlier (a wait's next deadline). */
uint64_t fake__next_script_locked(plat_handle *const *handles, int n, uint64_t limit);

/* [fake__lock] Counters for plat_fake_real_blocks / plat_fake_jumps. */
extern uint64_t fake__n_real_blocks, fake__n_jumps;

/* ---- fake_clock.c ---- */

/* True while the clock is virtual. */
bool fake__virtual(void);

/* [fake__lock] The clock now. */
uint64_t fake__now_locked(void);

/* [fake__lock] Sets the virtual clock to t if it is virtual and t is later
 * (and not UINT64_MAX); true if it moved. */
bool fake__move_to_locked(uint64_t t);

/* The real monotonic clock, ns. */
uint64_t fake__real_now_ns(void);

#endif /* TEMPO_FAKE_INTERNAL_H */
