/* The handle half of the backends that emulate waitable handles on SDL (sdl,
 * web, fake): the objects, their signalled state, reference counts and
 * timers (platform/common/plat_handle.c). The other half -- how a blocked
 * wait sleeps and is woken -- is each backend's own: the sdl backend's
 * wakers (eventfd or condition variable) and SDL event routes
 * (platform/common/plat_sdl_wait.c, which the web backend builds too), the fake
 * backend's one condition variable and virtual clock
 * (platform/fake/fake_wait.c). The win32 backend has real kernel objects
 * and none of this.
 *
 * The two halves meet in three places:
 *  - one lock, plat_handle_lock(), guards every handle's state here and
 *    whatever the wait half keeps beside it (sdl: its blocked waits and
 *    wakers; fake: its clock and scripts);
 *  - the clock: timers are absolute schedules (plat_sched.h) compared with
 *    plat_now_ns(), the backend's clock (fake: the virtual one), so a tick
 *    is never early and never drifts;
 *  - plat_handle_changed(), which the wait half defines: "this handle was
 *    set or re-armed, wake whoever waits on it".
 *
 * plat_wait.h declares the public side (plat_event_create ...
 * plat_handle_destroy), defined in plat_handle.c; what follows is for the
 * wait halves. Thread: any, unless tagged [handle lock] (the caller holds
 * plat_handle_lock()). */
#ifndef TEMPO_PLAT_HANDLE_H
#define TEMPO_PLAT_HANDLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "plat_sched.h"
#include "plat_wait.h"

/* A handle whose signal is a descriptor being readable (a file watch: only
 * the sdl backend's plat_filewatch_inotify.c makes them). */
typedef struct plat_fd_ops {
    bool (*readable)(int fd); /* [handle lock] now, without blocking */
    void (*close)(int fd);    /* at the last release */
} plat_fd_ops;

#define PLAT_HANDLE_MAGIC 0x54454d50u /* "TEMP" */

struct plat_handle {
    uint32_t magic; /* PLAT_HANDLE_MAGIC while alive, 0 once destroyed (holders may remain) [handle lock] */
    uint8_t kind;   /* enum plat_handle_kind; constant */
    bool manual_reset; /* constant */
    bool signaled;     /* events; timers: has fired (until acquired) [handle lock] */
    atomic_int refs;   /* the owner's + one per holder (plat_handles_retain, each wait) */
    plat_sched sched;  /* timers [handle lock] */
    uint64_t missed;   /* timers [handle lock] */
    int fd;            /* fd handles: the descriptor, else -1; constant */
    const plat_fd_ops *fd_ops; /* fd handles, else NULL; constant */
};

/* The one lock of the handles, created on first use; NULL (detail set) when
 * SDL cannot make it. */
SDL_mutex *plat_handle_lock(void);

/* The lock if it exists, else NULL (creates nothing). */
SDL_mutex *plat_handle_lock_peek(void);

/* Frees the lock; the next plat_handle_lock() makes a new one, so handles
 * that outlive it keep working. Only when no thread holds or waits on it
 * (the sdl backend's plat_shutdown, with no wait blocked). */
void plat_handle_lock_destroy(void);

/* A live handle with one reference (the creator's), or NULL with the detail
 * set. For fd handles the caller then sets fd and fd_ops (before anyone
 * else sees the handle). */
plat_handle *plat_handle_new(enum plat_handle_kind kind, bool manual_reset, bool signaled);

/* [handle lock] plat_event_set() with the lock already held: sets a live
 * event and calls plat_handle_changed(). */
void plat_event_set_locked(plat_handle *event);

/* [handle lock] The lowest index whose handle is signalled at `now_ns`, or
 * -1. Consumes that handle's signal if it is auto-reset, and a timer's due
 * ticks (the signal; the rest are counted as missed); the later handles are
 * left alone, as WaitForMultipleObjects does. A destroyed handle is never
 * signalled. */
int plat_handles_acquire_first(plat_handle *const *h, int n, uint64_t now_ns);

/* [handle lock] The earliest next tick of the live timers among the
 * handles, capped by `limit_ns`: when the wait must look again. */
uint64_t plat_handles_next_due(plat_handle *const *h, int n, uint64_t limit_ns);

/* ---- Defined by the wait half -------------------------------------------- */

/* [handle lock] `h` was set, or a timer re-armed (its waits must recompute
 * how long to sleep): wake every blocked wait that may hold it. */
void plat_handle_changed(const plat_handle *h);

/* Where plat_fault_set_signal_delay_ns()'s pause goes (plat_wait.h). true:
 * plat_event_set and plat_timer_set pause before they take the lock, as a
 * signal preempted between its lookup and its effect (fake). false: the
 * wait half pauses inside its own wake-up, between its steps (sdl: in
 * plat_waker_signal). */
extern const bool plat_fault_pause_before_signal;

/* ---- Fault injection ---------------------------------------------------- */

/* Sleeps for plat_fault_set_signal_delay_ns()'s delay, if one is set, and
 * counts the pause (plat_fault_signal_pauses). */
void plat_fault_pause(void);

#endif /* TEMPO_PLAT_HANDLE_H */
