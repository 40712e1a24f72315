/* Tempo: waitable handles (events and timers) and the multi-handle wait.
 *
 * The model is the Win32 kernel-object one, so a Windows programmer finds no
 * surprises and both backends can be checked by one conformance suite:
 *
 *   tempo_handle *tick = tempo_timer_create(false);
 *   tempo_handle *net  = tempo_event_create(false, false);
 *   tempo_timer_set(tick, tempo_now_ns(), TEMPO_NS_PER_S / 60);
 *   for (;;) {
 *       tempo_handle *set[] = { tick, net };
 *       int r = tempo_wait(set, 2, TEMPO_INFINITE, TEMPO_WAIT_MESSAGES);
 *       if (r == 0)      update(tempo_timer_missed(tick));
 *       else if (r == 1) drain_network();
 *       else if (r == 2) pump_sdl_events();     // r == n: messages pending
 *       else             fail(tempo_strerror(r));
 *   }
 *
 * Handles are opaque; each is either an event or a timer. A handle belongs to
 * whoever created it and is freed by tempo_event_destroy() /
 * tempo_timer_destroy(). Destroying a handle another thread is blocked on is
 * a programming error: Tempo keeps the memory valid until that wait returns,
 * but the destroyed handle is never signalled again.
 *
 * A `tempo_handle *` is an id (a table slot and a generation, as sokol_gfx's
 * ids), not an address: never dereference it. Every function checks it, so a
 * destroyed handle is TEMPO_EINVAL everywhere, every time -- also a copy kept
 * after the destroy and after later handles reused its slot -- and can never
 * reach another handle's state. At most 65535 handles are alive at once.
 */
#ifndef TEMPO_WAIT_H
#define TEMPO_WAIT_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_handle tempo_handle;

/* The most handles one wait accepts (the Win32 MAXIMUM_WAIT_OBJECTS minus the
 * slot MsgWaitForMultipleObjects keeps for the message queue). */
#define TEMPO_WAIT_MAX_HANDLES 63

/* `timeout_ns` meaning "no timeout". */
#define TEMPO_INFINITE UINT64_MAX

/* Flags for tempo_wait(). */
enum {
    /* Also return when window messages or input are pending for the calling
     * thread (the return value is then `n`). Only the thread that initialised
     * SDL video (the loop thread) may pass this flag. */
    TEMPO_WAIT_MESSAGES = 1u << 0
};

/* ---- Events ----------------------------------------------------------- */

/* Creates an event. An auto-reset event (manual_reset false) is consumed by
 * the one wait it releases; a manual-reset event releases every waiter and
 * stays signalled until tempo_event_reset().
 * Returns the new handle, owned by the caller, or NULL (out of memory; see
 * tempo_get_error()). Thread: any. */
TEMPO_API tempo_handle *tempo_event_create(bool manual_reset, bool initially_signaled);

/* Signals the event. Setting a signalled event does nothing (signals do not
 * count). Thread: any, including SDL timer callbacks and audio callbacks: it
 * takes two short internal locks (the handle table's and the backend's),
 * never blocks on a waiter and never calls into SDL's event queue on the
 * fast routes.
 * Returns 0, or TEMPO_EINVAL if `event` is NULL, destroyed or not an event. */
TEMPO_API int tempo_event_set(tempo_handle *event);

/* Makes the event non-signalled. Thread: any. Returns 0 or TEMPO_EINVAL
 * (NULL, destroyed, not an event). */
TEMPO_API int tempo_event_reset(tempo_handle *event);

/* Destroys the event, signalled or not. NULL is a no-op. Thread: any.
 * Misuse is reported, never silent (a line in the log, and the detail in
 * tempo_get_error()): a handle already destroyed is ignored; a
 * timer is destroyed all the same (like Win32's CloseHandle), so nothing
 * leaks. */
TEMPO_API void tempo_event_destroy(tempo_handle *event);

/* ---- Waitable timers --------------------------------------------------- */

/* Creates a disarmed timer. An auto-reset timer's signal is consumed by the
 * wait it releases; a manual-reset timer stays signalled after it fires
 * until it is set again (Win32: cancelling does not clear the signal).
 * Returns the new handle, owned by the caller, or NULL. Thread: any. */
TEMPO_API tempo_handle *tempo_timer_create(bool manual_reset);

/* Arms the timer: it first falls due at the absolute time `due_ns` (on the
 * tempo_now_ns() clock; a time in the past is due at once) and then, if
 * `period_ns` > 0, at due_ns + k * period_ns for k = 1, 2, ... exactly. The
 * schedule is absolute: it never drifts and a tick is never signalled before
 * its time. When waits come late, the periods that fell due in between
 * coalesce into one signal, and tempo_timer_missed() reports how many extra
 * periods went by. Setting clears the current signal and the missed count.
 * Returns 0, or TEMPO_EINVAL (NULL, destroyed, not a timer). Thread: any. */
TEMPO_API int tempo_timer_set(tempo_handle *timer, uint64_t due_ns, uint64_t period_ns);

/* Disarms the timer. A signal it already raised stays (Win32 semantics).
 * Returns 0 or TEMPO_EINVAL. Thread: any. */
TEMPO_API int tempo_timer_cancel(tempo_handle *timer);

/* How many periods were coalesced into the signal consumed by the last wait
 * that returned this timer, beyond the one it was signalled for: 0 when the
 * waiter kept up, 3 when it returned just after the 4th tick since the one
 * before. 0 for one-shot timers, NULL, destroyed handles or non-timers.
 * Thread: any. */
TEMPO_API uint64_t tempo_timer_missed(const tempo_handle *timer);

/* Destroys the timer. NULL is a no-op. Thread: any. Misuse is reported as
 * for tempo_event_destroy(): an event given here is destroyed all the same. */
TEMPO_API void tempo_timer_destroy(tempo_handle *timer);

/* ---- The wait ---------------------------------------------------------- */

/* Blocks in the operating system until one of the `n` handles is signalled,
 * or (with TEMPO_WAIT_MESSAGES) window messages or input are pending, or
 * `timeout_ns` has elapsed. It never spins and never polls at a fixed rate
 * where the platform can block (see tempo_wait_route()).
 *
 * Returns:
 *   0..n-1          the lowest index among the signalled handles; if it is
 *                   auto-reset, the wait consumed its signal (exactly one
 *                   waiter is released per signal);
 *   n               messages/input are pending (only with TEMPO_WAIT_MESSAGES;
 *                   handles are checked first, like MsgWaitForMultipleObjects).
 *                   The caller then drains SDL's queue (SDL_PollEvent);
 *   TEMPO_ETIMEDOUT nothing happened for `timeout_ns` (never returned early);
 *   TEMPO_ETOOMANY  n > TEMPO_WAIT_MAX_HANDLES;
 *   TEMPO_EINVAL    n < 0, handles NULL with n > 0, a NULL or destroyed entry;
 *   TEMPO_EPLATFORM the OS wait failed (detail in tempo_get_error()).
 * A signal raised before the wait starts is never lost. `n` may be 0 (then
 * it is a precise sleep, or a pure message wait).
 * The array is read during the call only. Thread: any without
 * TEMPO_WAIT_MESSAGES; the loop thread with it. */
TEMPO_API int tempo_wait(tempo_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_WAIT_H */
