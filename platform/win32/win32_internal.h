/* What the win32 backend's files share (win32__ prefix).
 *
 * The backend waits on Win32 kernel objects directly: events are CreateEventW
 * events, timers are waitable timers, the wait is WaitForMultipleObjects or,
 * with TEMPO_WAIT_MESSAGES, MsgWaitForMultipleObjectsEx. SDL2 still owns the
 * window, the renderer and audio; the backend only asks SDL to pump.
 */
#ifndef TEMPO_WIN32_INTERNAL_H
#define TEMPO_WIN32_INTERNAL_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <stdbool.h>
#include <stdint.h>

#include "plat_input.h"
#include "plat_wait.h"
#include "tempo/wait.h"

/* Records GetLastError()'s code and FormatMessage text, prefixed by `what`
 * (the failed call), with tempo__set_error. Returns `code`. Thread: any. */
int win32__error(int code, const char *what);

/* Creates a waitable timer, high-resolution where the system supports it
 * (Windows 10 1803+: CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, expiries at
 * ~0.5 ms instead of the 15.6 ms scheduler tick). Where it does not, the
 * first timer raises the process timer resolution to 1 ms (timeBeginPeriod)
 * until plat_shutdown(). NULL on failure, detail set. Thread: any. */
HANDLE win32__timer_create(bool manual_reset);

/* Arms `timer` once for the absolute time `due_ns` (plat_now_ns clock) as a
 * relative due time, rounded up to the 100 ns unit, so it never expires
 * before due_ns; a due time at or before now_ns expires at once. Like every
 * SetWaitableTimer call it also clears the timer's signal. Returns false on
 * failure (detail set). Thread: any. */
bool win32__timer_arm(HANDLE timer, uint64_t due_ns, uint64_t now_ns);

/* Clears the timer's signal and leaves it disarmed (CancelWaitableTimer
 * alone keeps the signal). Thread: any. */
void win32__timer_quench(HANDLE timer);

/* A pooled auto-reset high-resolution timer for one blocking call (a wait's
 * deadline, a precise sleep): taken, armed, waited on, given back. */
typedef struct win32_timer {
    struct win32_timer *next; /* pool link [pool lock] */
    HANDLE handle;
} win32_timer;

/* NULL on failure (detail set). Thread: any. */
win32_timer *win32__timer_take(void);
void win32__timer_give(win32_timer *t);

/* The kernel object behind an event (for SetEventNotification): valid
 * while the caller holds a reference on `event`. */
HANDLE win32__event_os(plat_handle *event);

/* Test seam for the message wait (tests/conformance/test_win32.c): when non-NULL, called
 * instead of MsgWaitForMultipleObjectsEx, so a test can act as real Windows
 * does where wine differs (queued input reported before the handles, the
 * QS_TOUCH|QS_POINTER bits rejected by Windows 7). Set it only while no
 * message wait runs. */
typedef DWORD(WINAPI *win32_msgwait_fn)(DWORD count, const HANDLE *handles, DWORD ms, DWORD mask,
                                        DWORD flags);
extern win32_msgwait_fn win32__msgwait;

/* The QS_* mask message waits use now: QS_ALLINPUT, less QS_TOUCH|QS_POINTER
 * once the system rejected them (Windows 7). Thread: any. */
unsigned win32__queue_mask(void);

/* ---- Native input (win32_dinput*.c) and the message wait ---- */

/* The module Tempo is linked into (libtempo-0.dll, or the program when
 * linked statically), for window classes and DirectInput8Create. Thread: any. */
HINSTANCE win32__module(void);

/* While native devices are open (plat_input_open), SDL's own events for
 * them must not end a message wait: DirectInput's notification is that
 * input's wake, and the input layer drops SDL's copy. `keyboard`/`mouse`
 * say which devices, `delta` is +1 at open and -1 at close. The events stay
 * in SDL's queue for the next dispatch. [loop thread] */
void win32__quiet_sdl_input(bool keyboard, bool mouse, int delta);

/* Whole wheel notches in a movement of `dz` (WHEEL_DELTA units), keeping the
 * remainder in *rem for the next movement in the same direction. */
int win32__wheel_notches(int32_t *rem, int32_t dz);

/* The native input tick's period in ms (0: none): fast while a polled device
 * (DIDC_POLLEDDEVICE) is acquired, slow while a device is lost and the
 * window is in front. */
unsigned win32__input_tick_ms(bool polled_acquired, bool lost, bool in_front);

/* Test seam: when non-NULL, the controller enumeration thread calls it
 * before each EnumDevices (a test holds it to stand for a slow
 * enumeration). [enumeration thread] */
extern void (*win32__enum_hook)(void);

/* Test seam: unacquires the keyboard and mouse without telling `in`, as a
 * secure desktop does. [loop thread] */
struct plat_input;
void win32__dinput_lose(struct plat_input *in);

/* Frees the timer pool and ends the timeBeginPeriod raise, if any. [loop thread] */
void win32__clock_shutdown(void);

/* ---- Handles with backend state (win32_wait.c) --------------------------
 * For handles other files build, such as file watches (win32_filewatch.c). */
typedef struct plat_handle plat_handle;

/* Makes `os` (a manual-reset event, owned from now on: closed with the
 * handle's last reference) a live handle of `kind` carrying `ext`, which
 * ext_close(ext) releases when the handle is destroyed (plat_handle_destroy,
 * before `os` is closed). NULL on failure (detail set; the caller still owns
 * `os` and `ext`). Thread: any. */
plat_handle *win32__handle_wrap(int kind, HANDLE os, void *ext, void (*ext_close)(void *ext));

/* The ext of a live handle, or NULL once it is destroyed. Thread: any. */
void *win32__handle_ext(const plat_handle *h);

#endif /* TEMPO_WIN32_INTERNAL_H */
