/* The multi-handle wait over SDL (plat_sdl_wait.h): how a blocked wait sleeps
 * and is woken. A common module: the sdl backend's plat_wait is this
 * (sdl/sdl_wait.c), the web backend's polls through it (web/web_wait.c).
 * The handles themselves -- events, timers, their state and references --
 * are the handle half shared with the fake backend (plat_handle.h,
 * common/plat_handle.c).
 *
 * State: every handle's state, the list of blocked waits and the pool of
 * idle wakers are guarded by the handles' one mutex, plat_handle_lock().
 * Signalling is "change state under the lock, then wake each blocked wait
 * that holds the handle" (wake_holders, below, which plat_event_set and
 * plat_timer_set hand to the handle half). A wait re-checks its
 * handles under the lock before every sleep, and its waker keeps a signal
 * raised while it was not yet asleep, so no signal is ever lost between the
 * check and the sleep. A wait that holds timers sleeps until the nearest due
 * time (plat_handles_next_due) and decides "signalled" by comparing with
 * the clock.
 *
 * Message waits (TEMPO_WAIT_MESSAGES) take one of two routes:
 *  - fd route (Linux, eventfd waker): the video driver is x11 (we also poll
 *    the X display connection), wayland (we also poll the wl_display
 *    connection, see wayland_arm), or one without an input source of its
 *    own (dummy, offscreen, no video). ppoll() sleeps with nanosecond timeouts;
 *    SDL events pushed by other threads (SDL_PushEvent, SDL timer callbacks)
 *    wake it through the shared SDL event-queue hook (plat_sdl_hook.h), which
 *    signals the waker.
 *  - sdl route (portable fallback; other video drivers, a joystick open, the
 *    cond waker, or TEMPO_SDL_WAIT_ROUTE=sdl): SDL_WaitEventTimeout(NULL, ms)
 *    blocks inside SDL; signals wake it by pushing a private SDL user event.
 *    Millisecond timeouts, rounded up: up to ~1 ms late, never early.
 *
 * Joysticks: SDL2 can only poll them, and while one is attached its
 * SDL_WaitEventTimeout polls every 1 ms (SDL_events_need_polling). When the
 * input layer sets a controller poll interval (plat_set_input_poll_interval_ns)
 * and the fd route is available, a wait with a joystick open stays on the fd
 * route and caps each sleep at that interval, pumping events (which runs
 * SDL_JoystickUpdate) after each wake: 250 wake-ups/s at the default 4 ms
 * instead of ~1000. Without an interval, or without the fd route, such waits
 * go to the sdl route as before.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
/* SDL_syswm.h includes <X11/Xlib.h> whenever SDL itself was built with its
 * x11 driver (SDL_VIDEO_DRIVER_X11, from SDL_config.h), whether or not this
 * build has the X11 headers: include it only for a display route that needs
 * it, and hide SDL's x11 part when the x11 route is not compiled (the
 * SDL_SysWMinfo union keeps its size: it is padded to 64 bytes). */
#if defined(TEMPO_HAVE_X11) && !defined(SDL_VIDEO_DRIVER_X11)
#undef TEMPO_HAVE_X11 /* an SDL without its x11 driver: nothing to poll */
#endif
#if defined(TEMPO_HAVE_WAYLAND) && !defined(SDL_VIDEO_DRIVER_WAYLAND)
#undef TEMPO_HAVE_WAYLAND
#endif
#if defined(TEMPO_HAVE_X11) || defined(TEMPO_HAVE_WAYLAND)
#if !defined(TEMPO_HAVE_X11)
#undef SDL_VIDEO_DRIVER_X11
#endif
#include <SDL_syswm.h>
#endif
#if defined(TEMPO_HAVE_X11)
#include <X11/Xlib.h>
#endif
#if defined(TEMPO_HAVE_WAYLAND)
#include <errno.h>
#include <wayland-client-core.h>
#endif

#include "plat_announce.h"
#include "plat_handle.h"
#include "plat_sdl_hook.h"
#include "plat_filewatch_inotify.h"
#include "plat_sdl_wait.h"
#include "plat_waker.h"
#include "plat_backend.h"
#include "plat_clock.h"
#include "plat_wait.h"
#include "tempo_internal.h"

typedef struct waiter {
    struct waiter *next, *prev; /* g_active list, or g_pool (next only) */
    plat_handle *const *handles;
    int n;
    bool sdl_route; /* woken by pushing an SDL event instead of the waker */
    plat_waker *waker;
} waiter;

static waiter *g_active; /* blocked waits [handle lock] */
static waiter *g_pool;   /* idle waiters with their wakers [handle lock] */
static Uint32 g_wake_type; /* private SDL event type of the sdl route [handle lock] */
static _Atomic(const char *) g_route = "none";

enum route { ROUTE_NONE, ROUTE_FD, ROUTE_SDL };

const char *plat_wait_route(void)
{
    return atomic_load(&g_route);
}

/* [handle lock] Wakes one blocked wait. */
static void wake(waiter *w)
{
    if (w->sdl_route) {
        SDL_Event e;
        SDL_zero(e);
        e.type = g_wake_type;
        /* Fails only when SDL's queue is full; then the wait has pending
         * events to return for anyway, and re-checks handles first. */
        SDL_PushEvent(&e);
    } else {
        plat_waker_signal(w->waker);
    }
}

/* [handle lock] Wakes every blocked wait that holds `h`: the wake
 * (plat_handle_wake_fn) of every set and re-arm. */
static void wake_holders(const plat_handle *h)
{
    for (waiter *w = g_active; w != NULL; w = w->next)
        for (int i = 0; i < w->n; i++)
            if (w->handles[i] == h) {
                wake(w);
                break;
            }
}

/* The contract's set and re-arm (plat_wait.h): the handle half's, waking
 * the waits that hold the handle. The fault pause sits inside
 * plat_waker_signal, between its two steps. */
void plat_event_set(plat_handle *event)
{
    plat_handle_event_set(event, wake_holders);
}

void plat_timer_set(plat_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    plat_handle_timer_set(timer, due_ns, period_ns, wake_holders);
}

/* ---- Waiters ------------------------------------------------------------ */

/* [handle lock] Takes an idle waiter (or makes one) and links it as blocked,
 * holding a reference to each handle. */
static waiter *waiter_begin(plat_handle *const *handles, int n, bool sdl_route)
{
    waiter *w = g_pool;
    if (w != NULL) {
        g_pool = w->next;
        plat_waker_drain(w->waker);
    } else {
        w = calloc(1, sizeof *w);
        if (w == NULL) {
            tempo__set_error(TEMPO_ENOMEM, "waiter: out of memory");
            return NULL;
        }
        w->waker = plat_waker_create();
        if (w->waker == NULL) {
            free(w);
            return NULL;
        }
    }
    w->handles = handles;
    w->n = n;
    w->sdl_route = sdl_route;
    w->prev = NULL;
    w->next = g_active;
    if (g_active != NULL)
        g_active->prev = w;
    g_active = w;
    plat_handles_retain(handles, n);
    return w;
}

/* [handle lock] Unlinks the waiter, drops its references, and pools it. */
static void waiter_end(waiter *w)
{
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        g_active = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
    plat_handles_release(w->handles, w->n);
    w->handles = NULL;
    w->n = 0;
    w->next = g_pool;
    g_pool = w;
}

/* ---- Message routes ----------------------------------------------------- */

/* The display connection a message wait on the fd route also polls. */
typedef struct display_conn {
    int fd;   /* -1: none (no window yet, or a driver without one) */
    void *wl; /* the wl_display (wayland driver), else NULL */
} display_conn;

#if defined(TEMPO_HAVE_X11) || defined(TEMPO_HAVE_WAYLAND)
/* [loop thread] The window-system info of any SDL window (SDL only exposes
 * the display connection through a window); false without a window. */
static bool any_window_wm_info(SDL_SysWMinfo *info)
{
    static Uint32 last_id; /* [loop thread] the window found last time */
    SDL_Window *win = last_id != 0 ? SDL_GetWindowFromID(last_id) : NULL;
    for (Uint32 id = 1; win == NULL && id <= last_id + 64; id++)
        win = SDL_GetWindowFromID(id);
    if (win == NULL)
        return false;
    last_id = SDL_GetWindowID(win);
    SDL_VERSION(&info->version);
    return SDL_GetWindowWMInfo(win, info) == SDL_TRUE;
}
#endif

#if defined(TEMPO_HAVE_X11)
/* The X display connection's descriptor, or -1. */
static int x11_display_fd(void)
{
    SDL_SysWMinfo info;
    if (!any_window_wm_info(&info) || info.subsystem != SDL_SYSWM_X11)
        return -1;
    return XConnectionNumber(info.info.x11.display);
}
#endif

#if defined(TEMPO_HAVE_WAYLAND)
/* SDL's wl_display, or NULL. */
static struct wl_display *wayland_display(void)
{
    SDL_SysWMinfo info;
    if (!any_window_wm_info(&info) || info.subsystem != SDL_SYSWM_WAYLAND)
        return NULL;
    return info.info.wl.display;
}

/* [loop thread] Makes the wl_display fd safe to sleep on; true when the
 * caller must sleep on it and then call wayland_disarm().
 *
 * libwayland reads the socket into per-queue lists: an event read earlier
 * (by SDL's pump, or by Mesa's EGL while it waited for a frame callback on
 * its own queue) can sit in SDL's default queue with nothing left on the
 * socket, and poll() would sleep through it. wl_display_prepare_read()
 * fails (EAGAIN) exactly when the default queue holds such events; then
 * SDL's pump dispatches them (they become SDL events the verdict sees) and
 * we try again. Once prepared, any new event makes the fd readable. We
 * never read the socket ourselves: after the sleep wayland_disarm() cancels
 * the prepared read and a readable fd makes the wait pump SDL, whose
 * SDL_PumpEvents reads and dispatches (SDL stays the owner of the queue,
 * libdecor included). The flush sends what SDL and the renderer queued
 * (requests sit in libwayland's buffer until flushed), as SDL's own
 * WaitEventTimeout does before it sleeps.
 *
 * While the read is prepared another thread's wl_display_read_events() on
 * this display waits for us; Tempo renders on the loop thread, so only a
 * game rendering on another thread could notice (a read stalled until the
 * loop wakes). */
static bool wayland_arm(struct wl_display *wl)
{
    for (int tries = 0; tries < 4; tries++) {
        if (wl_display_prepare_read(wl) == 0) {
            /* EAGAIN: the socket buffer is full and the compositor is slow
             * to read; the rest goes out at the next pump. Anything else is
             * a broken connection, which SDL's pump reports (SDL_QUIT). */
            if (wl_display_flush(wl) < 0 && errno != EAGAIN) {
                wl_display_cancel_read(wl);
                SDL_PumpEvents();
                return false;
            }
            return true;
        }
        SDL_PumpEvents(); /* dispatches the queued events into SDL (not armed here) */
    }
    return false; /* events keep coming: the verdict sees them, no sleep yet */
}

static void wayland_disarm(struct wl_display *wl)
{
    wl_display_cancel_read(wl);
}
#endif


/* [loop thread] Picks the route of a message wait; sets *conn for ROUTE_FD
 * and *poll_ns to the controller poll interval the fd route must keep (0:
 * none). */
static enum route choose_route(display_conn *conn, uint64_t *poll_ns)
{
    static int forced = -1; /* [loop thread] TEMPO_SDL_WAIT_ROUTE, read once */
    if (forced < 0) {
        const char *env = SDL_getenv("TEMPO_SDL_WAIT_ROUTE");
        forced = env != NULL && strcmp(env, "sdl") == 0;
    }
    conn->fd = -1;
    conn->wl = NULL;
    *poll_ns = 0;
    bool events = SDL_WasInit(SDL_INIT_EVENTS) != 0;
    if (!plat_waker_has_fd)
        return events ? ROUTE_SDL : ROUTE_NONE;
    /* SDL2 polls every 1 ms while a joystick is open, and the fd route would
     * not see joystick input at all: without a poll interval (the input
     * layer's, plat_sdl_hook.h) such waits go to SDL. */
    bool pads = events && !forced && plat_sdl_joystick_open();
    if (pads)
        *poll_ns = plat_sdl_pad_poll_ns();
    if (events && (forced || (*poll_ns == 0 && pads)))
        return ROUTE_SDL;
    const char *drv = SDL_WasInit(SDL_INIT_VIDEO) ? SDL_GetCurrentVideoDriver() : NULL;
    if (drv == NULL || strcmp(drv, "dummy") == 0 || strcmp(drv, "offscreen") == 0)
        return ROUTE_FD;
#if defined(TEMPO_HAVE_X11)
    if (strcmp(drv, "x11") == 0) {
        conn->fd = x11_display_fd();
        return ROUTE_FD;
    }
#endif
#if defined(TEMPO_HAVE_WAYLAND)
    if (strcmp(drv, "wayland") == 0) {
        struct wl_display *wl = wayland_display();
        conn->wl = wl;
        conn->fd = wl != NULL ? wl_display_get_fd(wl) : -1;
        return ROUTE_FD;
    }
#endif
    return ROUTE_SDL;
}

/* [any thread that pushes an SDL event] The SDL event-queue hook's wake
 * (plat_sdl_hook.h) for the fd route's waiter. Pooled waiters are never
 * freed while SDL may call the watch, so a stale one only costs one
 * spurious wake-up. */
static void wake_waiter(void *ctx)
{
    plat_waker_signal(((waiter *)ctx)->waker);
}

/* SDL's poll sentinel: an event of SDL's own that marks where a poll cycle
 * ends, never handed to the game. SDL_WaitEventTimeout pushes one when it
 * pumps and leaves it at the end of the queue when it returns without an
 * event (SDL_events.c, SDL_PumpEventsInternal), so after the sdl route's
 * first sleep one is always queued. SDL2's SDL_HasEvents skips it (it
 * peeks through SDL_PeepEvents, which skips sentinels); SDL3's counts
 * every queued event, and sdl2-compat passes SDL2's call straight to it:
 * there every message wait on the sdl route returned "messages" after one
 * sleep with nothing for the game, and never timed out (and a wait on the
 * fd route did so at once whenever the game's own timed
 * SDL_WaitEventTimeout had left one). */
#ifndef SDL_POLLSENTINEL
#define SDL_POLLSENTINEL 0x7F00
#endif

/* True when SDL's queue holds an event for the game: anything but SDL's
 * poll sentinel and our private wake-ups. Both are left queued: the
 * sentinel is SDL's to remove (the game's SDL_PollEvent ends its cycle
 * there), and it does not make SDL_WaitEventTimeout return, so the sdl
 * route still sleeps. */
static bool user_events_pending(void)
{
    /* In order: the sentinel lies below every registered type
     * (SDL_USEREVENT, 0x8000, and up). 0: no wake-up type yet. */
    const Uint32 skip[2] = {SDL_POLLSENTINEL, g_wake_type};
    Uint32 from = SDL_FIRSTEVENT;
    for (int i = 0; i < 2; i++) {
        if (skip[i] == 0 || skip[i] < from)
            continue;
        if (skip[i] > from && SDL_HasEvents(from, skip[i] - 1))
            return true;
        from = skip[i] + 1;
    }
    return SDL_HasEvents(from, SDL_LASTEVENT);
}

/* ---- The wait ----------------------------------------------------------- */

static uint64_t deadline_after(uint64_t now, uint64_t timeout_ns)
{
    return timeout_ns >= UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

/* [handle lock] The verdict at `now`, or -1 (keep waiting). Handles first, like
 * MsgWaitForMultipleObjects; then messages; then the timeout. */
static int verdict(plat_handle *const *handles, int n, bool messages, uint64_t now,
                   uint64_t deadline)
{
    int r = plat_handles_acquire_first(handles, n, now);
    if (r >= 0)
        return r;
    if (messages && user_events_pending())
        return n;
    if (now >= deadline)
        return TEMPO_ETIMEDOUT;
    return -1;
}

/* SDL_WaitEventTimeout counts milliseconds; round up so we are never early. */
static int sdl_timeout_ms(uint64_t wake_at)
{
    if (wake_at == UINT64_MAX)
        return -1;
    uint64_t now = plat_now_ns();
    uint64_t ms = wake_at > now ? (wake_at - now + 999999u) / 1000000u : 0;
    return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

int plat_sdl_wait(plat_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    SDL_mutex *lock = plat_handle_lock();
    if (lock == NULL)
        return TEMPO_EPLATFORM;
    const uint64_t deadline = deadline_after(plat_now_ns(), timeout_ns);
    const bool messages = (flags & TEMPO_WAIT_MESSAGES) != 0;
    display_conn conn = {.fd = -1, .wl = NULL};
    uint64_t pad_poll_ns = 0; /* > 0: fd route, controllers open: wake this often */
    enum route route = messages ? choose_route(&conn, &pad_poll_ns) : ROUTE_NONE;
    const int xfd = conn.fd;

    SDL_LockMutex(lock);
    if (route == ROUTE_SDL && g_wake_type == 0) {
        Uint32 type = SDL_RegisterEvents(1);
        if (type == (Uint32)-1)
            route = ROUTE_NONE; /* no user event types left: degrade visibly */
        else
            g_wake_type = type;
    }
    waiter *w = waiter_begin(handles, n, route == ROUTE_SDL);
    SDL_UnlockMutex(lock);
    if (w == NULL)
        return TEMPO_EPLATFORM;
    /* File watches are descriptors: the ppoll() of the fd route and of
     * non-message waits sleeps on them too. The sdl route sleeps inside SDL,
     * which cannot watch a descriptor: there a watch is only seen when the
     * wait wakes for something else, and we say so once. */
    int watch_fds[TEMPO_WAIT_MAX_HANDLES];
    int n_watch = 0;
    for (int i = 0; i < n; i++) {
        int fd = plat_fd_handle_fd(handles[i]);
        if (fd >= 0)
            watch_fds[n_watch++] = fd;
    }
    if (n_watch > 0 && route == ROUTE_SDL) {
        static atomic_bool told;
        if (!atomic_exchange(&told, true))
            tempo__log(TEMPO_LOG_WARN, "file watch: the wait route is sdl-events, which cannot sleep on "
                                       "the watch's descriptor; changes are seen at the next wake-up");
    }

    if (messages) {
        const bool wl = conn.wl != NULL;
        atomic_store(&g_route, route == ROUTE_SDL                      ? "sdl-events"
                               : wl && pad_poll_ns > 0                 ? "wayland-fd+eventfd+pad-poll"
                               : wl                                    ? "wayland-fd+eventfd"
                               : xfd >= 0 && pad_poll_ns > 0           ? "x11-fd+eventfd+pad-poll"
                               : xfd >= 0                              ? "x11-fd+eventfd"
                               : route == ROUTE_FD && pad_poll_ns      ? "eventfd+pad-poll"
                               : route == ROUTE_FD                     ? "eventfd"
                                                                       : "cond (no SDL event queue)");
    }
    if (route == ROUTE_FD) {
        plat_sdl_hook_begin(wake_waiter, w);
    }
    plat_announce *const ann = plat_sdl_announce();

    int r;
    uint64_t pumped_at = 0;
    /* The fd route pumps SDL on entry (the game may have left window-system
     * events in Xlib's queue while rendering), then only when the X fd was
     * readable, a signal interrupted the sleep, or a controller poll is due:
     * a wake-up for a timer or a handle needs no pump, and a pump costs
     * several recvmsg() calls on X11. On Wayland wayland_arm() also pumps
     * when SDL's queue in libwayland holds events. */
    bool pump = true;
    /* Wayland: a read prepared by wayland_arm stays prepared across wake-ups
     * that need no pump (a signal, a timer), so the common wake costs no
     * libwayland call; it is cancelled before any pump (SDL's own
     * prepare/read in the same thread would wait for it forever) and when
     * the wait returns. */
#if defined(TEMPO_HAVE_WAYLAND)
    bool wl_armed = false;
#define WL_DISARM()                          \
    do {                                     \
        if (wl_armed)                        \
            wayland_disarm(conn.wl);         \
        wl_armed = false;                    \
    } while (0)
#else
#define WL_DISARM() ((void)0)
#endif
    for (;;) {
        unsigned announced = plat_announce_snapshot(ann);
        if (route == ROUTE_SDL) {
            /* Flush our wake-ups before looking: one pushed after this point
             * is still in the queue when SDL_WaitEventTimeout starts. */
            SDL_PumpEvents();
            SDL_FlushEvent(g_wake_type);
        } else if (route == ROUTE_FD &&
                   (pump || (pad_poll_ns > 0 && plat_now_ns() >= pumped_at + pad_poll_ns))) {
            WL_DISARM();
            SDL_PumpEvents(); /* also polls the open joysticks */
            pumped_at = plat_now_ns();
        }
        int sleep_fd = xfd;
#if defined(TEMPO_HAVE_WAYLAND)
        /* Armed before the verdict, so whatever it dispatched is seen. */
        if (conn.wl != NULL) {
            if (!wl_armed)
                wl_armed = wayland_arm(conn.wl);
            if (!wl_armed)
                sleep_fd = -1; /* not safe to sleep on: only a short one below */
        }
#endif
        SDL_LockMutex(lock);
        r = verdict(handles, n, route != ROUTE_NONE, plat_now_ns(), deadline);
        if (r == n && route == ROUTE_FD)
            plat_announce_landed(ann, announced);
        if (r != -1) {
            WL_DISARM();
            break;
        }
        uint64_t wake_at = plat_handles_next_due(handles, n, deadline);
        if (pad_poll_ns > 0 && pumped_at + pad_poll_ns < wake_at)
            wake_at = pumped_at + pad_poll_ns; /* next controller poll */
        if (route == ROUTE_FD)
            wake_at = plat_announce_recheck(ann, announced, plat_now_ns(), wake_at);
        if (route == ROUTE_SDL) {
            SDL_UnlockMutex(lock);
            SDL_WaitEventTimeout(NULL, sdl_timeout_ms(wake_at));
            continue;
        }
        if (conn.wl != NULL && sleep_fd < 0) {
            /* wayland_arm could not prepare (events kept arriving, or the
             * flush failed): look again soon rather than sleep blind. */
            uint64_t soon = plat_now_ns() + 1000000u;
            if (soon < wake_at)
                wake_at = soon;
        }
        r = plat_waker_block(w->waker, lock, wake_at, sleep_fd, watch_fds, n_watch);
        if (r < 0) {
            WL_DISARM();
            break; /* the OS wait failed: report it rather than spin */
        }
        pump = (r & (SDL_WAKER_WOKE_FD | SDL_WAKER_WOKE_INTR)) != 0;
        SDL_UnlockMutex(lock);
    }
#undef WL_DISARM
    if (route == ROUTE_FD)
        plat_sdl_hook_end();
    waiter_end(w);
    SDL_UnlockMutex(lock);
    return r;
}

void plat_pump(void)
{
    SDL_PumpEvents();
}

void plat_shutdown(void)
{
    SDL_mutex *lock = plat_handle_lock_peek();
    if (lock == NULL)
        return;
    plat_sdl_hook_shutdown();
    SDL_LockMutex(lock);
    while (g_pool != NULL) {
        waiter *w = g_pool;
        g_pool = w->next;
        plat_waker_destroy(w->waker);
        free(w);
    }
    bool idle = g_active == NULL;
    SDL_UnlockMutex(lock);
    if (idle)
        plat_handle_lock_destroy(); /* handles still alive keep working: it is re-created lazily */
}
