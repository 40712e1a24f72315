/* Waitable handles and the wait on them (tempo/wait.h's contract): what
 * every port implements. A port with kernel objects implements them itself
 * (win32_wait.c: events, waitable timers, MsgWaitForMultipleObjectsEx); a
 * port without builds the emulated handles (plat_handle.h,
 * common/plat_handle.c) and makes its wait of them (common/plat_sdl_wait.c
 * over SDL; fake_wait.c on a virtual clock), which also defines
 * plat_event_set and plat_timer_set on the handle half's. The framework maps the public
 * ids (tempo_handle *) to these objects in framework/handle_pool.c.
 * Thread: any, except where it says otherwise. */
#ifndef TEMPO_PLAT_WAIT_H
#define TEMPO_PLAT_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "tempo/wait.h"

/* ---- Handles ------------------------------------------------------------
 * struct plat_handle is private to the backend: an event or a timer. The
 * game never sees one: framework/handle_pool.c maps the public ids
 * (tempo_handle *) to them and checks every id, so the functions here get
 * live objects of the right kind. Reference counted: the creator's
 * reference (dropped by plat_handle_destroy) plus one per holder
 * (plat_handles_retain), so a wait blocked on a destroyed handle keeps its
 * memory until it returns. */

typedef struct plat_handle plat_handle;

enum plat_handle_kind { PLAT_HANDLE_EVENT = 1, PLAT_HANDLE_TIMER = 2, PLAT_HANDLE_FILEWATCH = 3 };

/* NULL on failure, with the detail set. */
plat_handle *plat_event_create(bool manual_reset, bool initially_signaled);
void plat_event_set(plat_handle *event);
void plat_event_reset(plat_handle *event);

plat_handle *plat_timer_create(bool manual_reset);
void plat_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns);
void plat_timer_cancel(plat_handle *timer);
uint64_t plat_timer_missed(const plat_handle *timer);

/* Takes / drops one reference on each of the `n` objects (the last drop
 * frees it). Lock-free: the handle table calls retain with its lock held.
 * An object whose handle was destroyed may still get set/reset/arm calls
 * from holders that looked it up just before: they must do nothing. */
void plat_handles_retain(plat_handle *const *h, int n);
void plat_handles_release(plat_handle *const *h, int n);

/* Kills the handle (never signalled again, even for a wait still blocked
 * on it) and drops the creator's reference. */
void plat_handle_destroy(plat_handle *h);

/* The wait described in tempo/wait.h. 0 <= n <= TEMPO_WAIT_MAX_HANDLES and
 * the caller holds a reference on every entry for the call (a handle
 * destroyed meanwhile is simply never returned). Returns an index, n
 * (messages), TEMPO_ETIMEDOUT or TEMPO_EPLATFORM. */
int plat_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags);

/* ---- Messages ------------------------------------------------------------ */

/* Static string naming how the last message wait blocked (see
 * tempo_wait_route()). */
const char *plat_wait_route(void);

/* Moves pending window messages/input into SDL's event queue
 * (SDL_PumpEvents on both backends today). [loop thread] */
void plat_pump(void);

/* Controller polling bound (issue 7). SDL2 can only poll game controllers:
 * while a joystick is open SDL_WaitEventTimeout stops blocking and polls
 * every 1 ms. With `interval_ns` > 0, message waits made while a joystick is
 * open instead wake every `interval_ns` to pump events (which updates the
 * joysticks) and otherwise block as usual; 0 (the default) leaves SDL's own
 * behaviour. A backend whose controllers signal handles (DirectInput event
 * notification) may ignore it. Thread: any (takes effect at the next wait). */
void plat_set_input_poll_interval_ns(uint64_t interval_ns);

/* ---- Fault injection (tests only) ---------------------------------------
 * Makes every signal of a blocked wait (an event set, a timer re-armed, a
 * pushed SDL event waking a message wait) pause for `delay_ns` between its
 * steps, as if the signalling thread were preempted there: the sdl backend
 * sleeps between raising its waker's flag and writing its eventfd (or
 * signalling its condition variable); the win32 backend sleeps between
 * checking the event is alive and SetEvent. 0 (the default) turns it off.
 * Thread: any; affects every thread from the next signal on. */
void plat_fault_set_signal_delay_ns(uint64_t delay_ns);
/* How many signals have entered that pause since the process started: a
 * test waits for it to grow instead of guessing how long a thread takes to
 * get there on a loaded machine. Thread: any. */
uint64_t plat_fault_signal_pauses(void);

#endif /* TEMPO_PLAT_WAIT_H */
