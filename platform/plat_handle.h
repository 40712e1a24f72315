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
 *  - the wake: "this handle was set or re-armed, wake whoever waits on
 *    it", a function of the wait half's (plat_handle_wake_fn) that it hands
 *    to every set and re-arm. The wait half defines the contract's
 *    plat_event_set and plat_timer_set (plat_wait.h) on
 *    plat_handle_event_set and plat_handle_timer_set, with its wake (and,
 *    on the fake backend, the fault pause first): calls point from the wait
 *    half into this one, and this one calls nothing of the wait half's.
 *
 * plat_wait.h declares the public side (plat_event_create ...
 * plat_handle_destroy), defined in plat_handle.c except the set and the
 * re-arm; what follows is for the wait halves. Thread: any, unless tagged
 * [handle lock] (the caller holds plat_handle_lock()). */
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

/* [handle lock] The wait half's: `h` was set, or a timer re-armed (its
 * waits must recompute how long to sleep): wake every blocked wait that may
 * hold it. */
typedef void (*plat_handle_wake_fn)(const plat_handle *h);

/* [handle lock] Sets a live event that was not set, and calls wake(event). */
void plat_event_set_locked(plat_handle *event, plat_handle_wake_fn wake);

/* plat_event_set (plat_wait.h) without the fault pause: takes the lock,
 * plat_event_set_locked. */
void plat_handle_event_set(plat_handle *event, plat_handle_wake_fn wake);

/* plat_timer_set (plat_wait.h) without the fault pause: under the lock,
 * arms a live timer's schedule, clears its signal and missed count, and
 * calls wake(timer). */
void plat_handle_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns, plat_handle_wake_fn wake);

/* [handle lock] The lowest index whose handle is signalled at `now_ns`, or
 * -1. Consumes that handle's signal if it is auto-reset, and a timer's due
 * ticks (the signal; the rest are counted as missed); the later handles are
 * left alone, as WaitForMultipleObjects does. A destroyed handle is never
 * signalled. */
int plat_handles_acquire_first(plat_handle *const *h, int n, uint64_t now_ns);

/* [handle lock] The earliest next tick of the live timers among the
 * handles, capped by `limit_ns`: when the wait must look again. */
uint64_t plat_handles_next_due(plat_handle *const *h, int n, uint64_t limit_ns);

#endif /* TEMPO_PLAT_HANDLE_H */
