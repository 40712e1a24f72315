/* The platform contract: everything a Tempo backend provides.
 *
 * Exactly one backend (platform/sdl/, platform/win32/ or platform/web/) is
 * compiled into the library. Tests also build the framework against
 * platform/fake/ (a virtual clock and scripted handles, fake_platform.h),
 * which runs the same conformance suite; it is never installed. The
 * framework calls only what is declared here, after validating arguments, so
 * every backend sees the same, already-checked input and gives the same
 * errors. A backend's files mirror each other: <backend>_clock.c,
 * <backend>_wait.c, <backend>_thread.c, <backend>_filewatch.c,
 * <backend>_input.c (win32: win32_dinput.c). What the backends share has
 * one home: platform/plat_*.h (header-only logic: plat_sched.h,
 * plat_announce.h) and platform/common/ (plat_handle.c: the handles of the
 * backends that emulate them -- sdl, web, fake -- whose waits differ only
 * in how they sleep and wake, plat_handle.h; plat_file.c: the file reader,
 * plat_file_open_read; plat_host_none.c: the host-loop stub of every
 * backend but the web, plat_host.h; plat_sdl_hook.c: the SDL event-queue hook and
 * controller polling of message waits, every build; plat_clock_windows.c:
 * the clock and process usage, Windows builds). Under both lies the ground
 * floor, platform/os/ (os.h: thin OS wrappers, one file per OS where the OS
 * differs: os_file_posix.c, os_file_windows.c), which calls neither SDL nor
 * Tempo.
 *
 * The platform layer never calls up into the framework: it
 * works with its own objects (plat_handle, plat_input...), and the framework
 * maps public ids to them (framework/handle_pool.c) before calling down, or
 * lends a public id to a backend-owned object (tempo__handle_lend). What it
 * does use from the framework is the error detail (tempo__set_error, for
 * "NULL with the detail set") and the plain types and codes of tempo/base.h
 * and tempo/wait.h.
 *
 * Thread rules are those of the public functions that wrap these; every
 * function here is safe from any thread unless it says otherwise.
 */
#ifndef TEMPO_PLATFORM_H
#define TEMPO_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "plat_host.h"
#include "tempo/wait.h"

/* ---- Identity ---------------------------------------------------------- */

/* "sdl", "win32" or "web". */
const char *plat_backend_name(void);

/* TEMPO_CAP_* bits (tempo/base.h) of this backend: what callers and tests
 * check instead of comparing backend names. */
unsigned plat_capabilities(void);

/* Static string naming how the last message wait blocked (see
 * tempo_wait_route()). */
const char *plat_wait_route(void);

/* Settles what must be settled before SDL's video init; see
 * tempo_video_prepare(). [loop thread] (platform/common/plat_sdl_video.c) */
int plat_video_prepare(void);

/* What the window system says of a window's visibility. */
typedef enum plat_visibility {
    PLAT_VISIBILITY_SHOWN = 0, /* shown (or nothing says otherwise where the window
                                  system would say it) */
    PLAT_VISIBILITY_HIDDEN,    /* hidden or minimized */
    PLAT_VISIBILITY_UNSAID     /* the window system may say nothing of a window that is
                                  not shown: only its presents, withheld, tell */
} plat_visibility;

/* Whether `window` is shown, as the window system says it (issue 39: a
 * present that blocks long is a slow machine unless the window system says
 * the window is not shown). HIDDEN when SDL's flags say hidden or
 * minimized; on the x11 driver (TEMPO_HAVE_X11) also when the X server
 * says so and SDL has not heard yet: the window is not viewable (unmapped:
 * hidden, or iconified by the window manager) or its _NET_WM_STATE holds
 * _NET_WM_STATE_HIDDEN (a few round trips: for occasional calls). UNSAID
 * on the wayland driver for a window without keyboard focus: SDL 2.26 sends
 * no MINIMIZED or HIDDEN there, and a compositor only stops the surface's
 * frame callbacks; a window with keyboard focus is shown (compositors take
 * the focus from a window they minimize or cover with a lock screen).
 * SHOWN otherwise. `window` NULL (the loop's desc.window): SHOWN, or on
 * wayland SHOWN while one of SDL's windows has keyboard focus, else UNSAID.
 * [loop thread] (platform/common/plat_sdl_video.c) */
struct SDL_Window;
plat_visibility plat_window_visibility(struct SDL_Window *window);

/* Frees process-wide resources; see tempo_shutdown(). [loop thread] */
void plat_shutdown(void);

/* ---- Clock ------------------------------------------------------------- */

/* Monotonic nanoseconds. The epoch is the backend's. */
uint64_t plat_now_ns(void);

/* Sleeps until `deadline_ns` on plat_now_ns()'s clock, as precisely as the OS
 * allows and never returning before it. No spinning. */
void plat_sleep_until_ns(uint64_t deadline_ns);

/* Process CPU time and voluntary context switches (tempo_process_usage). */
int plat_process_usage(tempo_usage *out);

/* ---- Waitable handles ---------------------------------------------------
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

/* ---- Threads and locks ------------------------------------------------- */

typedef struct plat_thread plat_thread;
typedef struct plat_mutex plat_mutex;

/* Starts `fn(arg)` on a new thread called `name`. NULL on failure (detail
 * set with tempo__set_error). */
plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg);
/* Waits for the thread to finish, frees it, and returns fn's result. */
int plat_thread_join(plat_thread *t);

/* Makes the calling thread a background thread: a contended core goes to
 * the other threads first, and its wake-ups do not preempt them. Linux
 * (sdl backend): SCHED_BATCH at nice 19. Nice 19 alone is not enough on
 * EEVDF kernels (Linux 6.6 on): a nice-19 thread woken by the loop thread
 * could still preempt it on its own core, and ran there 1.85 ms while the
 * other core idled (bench_game, the frame that submits a level's load);
 * SCHED_BATCH threads never preempt on wake-up. Elsewhere on the sdl
 * backend: SDL_THREAD_PRIORITY_LOW. win32: THREAD_PRIORITY_LOWEST. web:
 * TEMPO_ENOTSUP (the browser schedules its workers). Returns 0,
 * TEMPO_ENOTSUP, or TEMPO_EPLATFORM (the OS refused, as a sandbox may;
 * the detail set and logged at debug level only: the caller decides
 * whether that matters, and a background thread is optional). Thread:
 * the one to lower; it cannot be undone (the thread keeps it until it
 * ends). */
int plat_thread_set_background(void);

/* ---- Files ------------------------------------------------------------- */

struct SDL_RWops;

/* Opens `path` (UTF-8) for reading if, and only if, it is a regular file,
 * without ever blocking: a FIFO without a writer would block open() (and a
 * pipe or device a read) forever. The type is judged on the opened file,
 * not the path, so it cannot be swapped in between. Returns an SDL_RWops
 * owned by the caller (read-only, seekable, with a small read-ahead), or
 * NULL: then *not_regular is true if the path exists but is not a regular
 * file (directory, FIFO, device, socket, pipe), else errno holds the OS
 * reason (Windows errors mapped to errno values; 0 if none maps). One
 * implementation for both backends: platform/common/plat_file.c over
 * platform/os/os.h. */
struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular);

/* ---- File-change watches ----------------------------------------------
 * A file watch is a handle (PLAT_HANDLE_FILEWATCH) over one directory's
 * entries, not recursive: it is signalled -- manual-reset, by the OS, with
 * no thread and no polling -- while changes wait to be read, and
 * plat_filewatch_read() reads them (which unsignals it). sdl backend: an
 * inotify descriptor (Linux; plat_filewatch_inotify.c) that message waits on the fd
 * route and non-message waits put in their ppoll() set; elsewhere
 * TEMPO_ENOTSUP. win32 backend: ReadDirectoryChangesW with an OVERLAPPED
 * event in the wait set (win32_filewatch.c). It is destroyed with
 * plat_handle_destroy() like any handle. */

/* Watches the directory `dir` (UTF-8). NULL with the detail set:
 * TEMPO_ENOTSUP (no file watches on this backend/OS), TEMPO_ENOENT (no such
 * directory), TEMPO_EPLATFORM (the OS refused; its text in the detail). */
plat_handle *plat_filewatch_create(const char *dir);

/* Called by plat_filewatch_read() for each entry of the directory whose
 * content may have changed (written and closed, renamed in or out, created,
 * deleted), named relative to the directory (UTF-8, no separator); NULL
 * when the OS lost track (queue overflow): anything may have changed. The
 * same name may come more than once. */
typedef void (*plat_filewatch_fn)(const char *name, void *user);

/* Reads every change waiting on `fw` without blocking, calling fn for each,
 * and leaves the handle unsignalled if nothing more waits. Returns how many
 * names it reported, or a negative TEMPO_E* (TEMPO_EPLATFORM). One thread
 * at a time per watch (the framework: the loop thread). */
int plat_filewatch_read(plat_handle *fw, plat_filewatch_fn fn, void *user);

/* Mutexes are not recursive (win32: SRW locks): never lock one twice on
 * the same thread. */
plat_mutex *plat_mutex_create(void);
void plat_mutex_destroy(plat_mutex *m);
void plat_mutex_lock(plat_mutex *m);
void plat_mutex_unlock(plat_mutex *m);

/* CPU time (user + system) the calling thread has used so far, in *out_ns.
 * Returns 0, TEMPO_ENOTSUP where the OS keeps no per-thread count, or
 * TEMPO_EPLATFORM. Resolution is the OS's: ~1 us on Linux (RUSAGE_THREAD),
 * the scheduler tick (~10-16 ms) on Windows and under wine (GetThreadTimes).
 * Used by the conformance suite to prove a passive wait burns no CPU. */
int plat_thread_cpu_ns(uint64_t *out_ns);

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

/* ---- Native input devices (win32: DirectInput8) --------------------------
 * A backend whose input devices can signal a handle reads them itself and
 * produces tempo_input_event values (tempo/input.h: SDL scancodes, SDL
 * button and controller numbering). The win32 backend does, through
 * DirectInput8 with SetEventNotification, and has TEMPO_CAP_NATIVE_INPUT.
 * The sdl backend has no native input (it arrives as SDL events): it defines
 * these functions as stubs (plat_input_none.c) whose plat_input_open fails with
 * TEMPO_ENOTSUP, so no caller needs to know the backend.
 * While keyboard/mouse are open here, SDL still reports the same keys as
 * SDL events: the input layer must take those devices from one source only. */

struct SDL_Window;
struct tempo_input_event;
typedef struct plat_input plat_input;
typedef void (*plat_input_fn)(const struct tempo_input_event *ev, void *user);

enum {
    PLAT_INPUT_KEYBOARD = 1u << 0, /* the system keyboard (device id 0) */
    PLAT_INPUT_MOUSE = 1u << 1,    /* the system mouse (device id 0) */
    PLAT_INPUT_PADS = 1u << 2      /* every game controller, as they come and go */
};

/* Opens the `devices` for `window` (cooperative level on its HWND:
 * foreground, non-exclusive) with buffered data and event notification.
 * Returns NULL with the detail set: TEMPO_ENOTSUP where the backend has no
 * native input, TEMPO_EPLATFORM when DirectInput fails. [loop thread] */
plat_input *plat_input_open(struct SDL_Window *window, unsigned devices);

/* Closes the devices. NULL is a no-op. [loop thread] */
void plat_input_close(plat_input *in);

/* An auto-reset event (plat_event_create), owned by `in` and destroyed by
 * plat_input_close, signalled when a device has buffered data, a controller
 * came or went, or the window got the focus back (the devices must be
 * re-acquired). The framework gives it a public id (tempo__handle_lend,
 * framework/wait.c) for the loop's wait set and calls plat_input_read when
 * it is returned. NULL where the backend has no native input. */
plat_handle *plat_input_handle(plat_input *in);

/* Drains every device's buffer, calling fn for each translated event (per
 * device oldest first, time_ns = now_ns), re-acquires devices lost to a
 * focus change (keys still down when the keyboard was lost are released),
 * and opens/closes controllers that came or went (DEVICE_ADDED/REMOVED).
 * Returns the number of events, or a negative TEMPO_E*. [loop thread] */
int plat_input_read(plat_input *in, uint64_t now_ns, plat_input_fn fn, void *user);

#endif /* TEMPO_PLATFORM_H */
