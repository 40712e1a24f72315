/* Tempo: version, error codes, the monotonic clock and library-wide state.
 *
 * Conventions that hold for every Tempo header:
 *  - Functions returning `int` return 0 (or a non-negative count/index) on
 *    success and a negative TEMPO_E* code on failure; tempo_strerror() names it.
 *  - When a failure comes from the OS or SDL, the native text is logged
 *    (through SDL_Log, category APPLICATION, at or above tempo_log_set_level)
 *    and kept for the calling thread: tempo_get_error() returns it.
 *    Expected outcomes the caller already gets as a returned error (a file
 *    the loader refuses, a submit to a full queue, a tempo_net_send to a
 *    full send queue or an ended connection, tempo_audio_play finding no
 *    free channel, a replay file that is missing or malformed, native
 *    input on a backend without it) are logged at DEBUG only, so a game
 *    that retries every frame floods nothing. WARN is for failures of the
 *    OS or SDL and misuse of the API, and for what no caller can see.
 *  - Creation functions return NULL on failure and set that text.
 *  - Time is uint64_t nanoseconds on the clock of tempo_now_ns().
 *  - Unless a function says "Thread: any", call it from the loop thread
 *    (the thread that initialised SDL video and owns the window).
 */
#ifndef TEMPO_BASE_H
#define TEMPO_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols are hidden by default in the ELF shared library; only TEMPO_API
 * ones are exported. (PE DLLs export everything without dllexport marks.) */
#if defined(__ELF__) && defined(__GNUC__)
#define TEMPO_API __attribute__((visibility("default")))
#else
#define TEMPO_API
#endif

/* Lets the compiler check printf-style arguments against the format (Tempo's
 * one copy of the attribute: public headers, the framework and the tests use
 * it). On mingw GCC's "printf" archetype is msvcrt's dialect (no %zu, %llu);
 * Tempo builds with __USE_MINGW_ANSI_STDIO, whose vsnprintf is C99's. */
#if defined(__MINGW32__)
#define TEMPO_PRINTF(fmt_index, first_arg) __attribute__((format(gnu_printf, fmt_index, first_arg)))
#elif defined(__GNUC__) || defined(__clang__)
#define TEMPO_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define TEMPO_PRINTF(fmt_index, first_arg)
#endif

#define TEMPO_VERSION_MAJOR 0
#define TEMPO_VERSION_MINOR 3
#define TEMPO_VERSION_PATCH 0

/* One list of error codes. Values are stable; new codes are appended. */
#define TEMPO_ERRNO_MAP(X)                                                      \
    X(EINVAL, -1, "invalid argument")                                           \
    X(ENOMEM, -2, "out of memory")                                              \
    X(ETIMEDOUT, -3, "timed out")                                               \
    X(ETOOMANY, -4, "too many handles (a wait takes at most 63)")               \
    X(ENOTSUP, -5, "not supported by this backend")                             \
    X(EPLATFORM, -6, "operating system or SDL call failed (see tempo_get_error)") \
    X(ESHUTDOWN, -7, "object is shut down")                                     \
    X(EFULL, -8, "queue is full")                                               \
    X(ECANCELED, -9, "operation was cancelled")                                 \
    X(ENOENT, -10, "no such file")                                              \
    X(EIO, -11, "input/output error")                                           \
    X(EFORMAT, -12, "malformed or unsupported data")                            \
    X(EBUSY, -13, "object is in use")                                           \
    X(ERANGE, -14, "value out of range")                                        \
    X(EBUILD, -15, "built differently: floating-point results may differ")

enum {
#define TEMPO_ERRNO_ENUM_(name, value, text) TEMPO_##name = (value),
    TEMPO_ERRNO_MAP(TEMPO_ERRNO_ENUM_)
#undef TEMPO_ERRNO_ENUM_
};

/* A static English description of `code` ("success" for 0, "unknown error"
 * for a code not in the list). Thread: any. Never returns NULL. */
TEMPO_API const char *tempo_strerror(int code);

/* The short upper-case name of `code` ("TEMPO_EINVAL"), or "TEMPO_E?" for an
 * unknown code. Thread: any. */
TEMPO_API const char *tempo_errname(int code);

/* Native detail (SDL_GetError text, errno or GetLastError text) of the last
 * Tempo failure on the calling thread; "" if none. The string belongs to
 * Tempo and stays valid until the next Tempo call on this thread.
 * Thread: any (each thread has its own). */
TEMPO_API const char *tempo_get_error(void);

/* Log levels of Tempo's own messages, lowest first. */
typedef enum tempo_log_level {
    TEMPO_LOG_DEBUG = 1, /* expected per-request failures (refused files, full queues) */
    TEMPO_LOG_INFO = 2,
    TEMPO_LOG_WARN = 3,  /* failures of the OS, SDL or a misuse of the API: the default level */
    TEMPO_LOG_ERROR = 4,
    TEMPO_LOG_NONE = 5   /* nothing */
} tempo_log_level;

/* Tempo logs only messages at or above `level` (default TEMPO_LOG_WARN);
 * they go to SDL_LogMessage (category APPLICATION), so SDL's own priority
 * for that category filters them too: for DEBUG lines also call
 * SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_DEBUG).
 * A message below the level costs no formatting for the log (the detail
 * for tempo_get_error() is still kept). Returns 0, or TEMPO_EINVAL for a
 * level outside the enum. Thread: any (an atomic store). */
TEMPO_API int tempo_log_set_level(tempo_log_level level);

/* The current level. Thread: any. */
TEMPO_API tempo_log_level tempo_log_get_level(void);

/* Nanoseconds on a monotonic clock that never goes backwards and does not
 * jump with wall-clock changes. The epoch is unspecified (compare times, do
 * not print them as dates). Thread: any. Cost: one clock read (~20-50 ns). */
TEMPO_API uint64_t tempo_now_ns(void);

/* Resource use of the whole process so far. */
typedef struct tempo_usage {
    uint64_t cpu_ns;             /* user + system CPU time of all threads */
    uint64_t voluntary_switches; /* times a thread blocked (0 if unknown) */
    bool has_switches;           /* false where the OS does not count them */
} tempo_usage;

/* Fills *out. Returns 0, TEMPO_EINVAL (out NULL) or TEMPO_EPLATFORM.
 * Thread: any. */
TEMPO_API int tempo_process_usage(tempo_usage *out);

/* The backend compiled in: "sdl", "win32" or "web", for logs and
 * summaries. Code that must choose asks tempo_backend_has() instead.
 * Thread: any. */
TEMPO_API const char *tempo_backend_name(void);

/* What the compiled-in backend can do (bits for tempo_backend_has). */
enum {
    /* tempo_input_attach_window() reads keyboard, mouse and controllers
     * natively (win32: DirectInput8); without it, it returns TEMPO_ENOTSUP
     * and input stays on SDL events. */
    TEMPO_CAP_NATIVE_INPUT = 1u << 0,
    /* Message waits block in the OS's own message wait together with the
     * handles (win32: MsgWaitForMultipleObjectsEx, route "msgwait");
     * without it they block in SDL or on the display connection. */
    TEMPO_CAP_OS_MESSAGE_WAIT = 1u << 1,
    /* The pure-SDL wait route exists ("sdl-events": SDL_WaitEventTimeout
     * plus an SDL user event for cross-thread wakes), selectable with the
     * environment variable TEMPO_SDL_WAIT_ROUTE=sdl where it is not
     * already the only route. */
    TEMPO_CAP_SDL_ROUTE = 1u << 2,
    /* The host owns the thread's event loop (web: the browser's main
     * thread, which must never block): tempo_loop_run() hands the loop's
     * frames to the host's callbacks and does not return into main(), so
     * the game's shutdown goes in desc.on_stop (docs/web.md). Without it,
     * tempo_loop_run() runs the frames itself and returns when they end. */
    TEMPO_CAP_HOST_LOOP = 1u << 3
};

/* True if the backend has every capability in `caps` (TEMPO_CAP_* bits);
 * false for 0. Thread: any. */
TEMPO_API bool tempo_backend_has(unsigned caps);

/* How the last wait with TEMPO_WAIT_MESSAGES on the calling process blocked,
 * for diagnostics and sample summaries, e.g. "x11-fd+eventfd",
 * "wayland-fd+eventfd", "eventfd", "sdl-events", "msgwait". "none" before the first such wait. Thread: any. */
TEMPO_API const char *tempo_wait_route(void);

/* Call before SDL_Init(SDL_INIT_VIDEO) / SDL_InitSubSystem(SDL_INIT_VIDEO):
 * settles what Tempo knows about SDL 2's video drivers that cannot be
 * fixed after video init (docs/wayland.md).
 *  - Sets the SDL hint SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR to "0" unless the
 *    game set it (as a hint or an environment variable): SDL 2.26's wayland
 *    driver crashes in its libdecor dispatch once a window was destroyed and
 *    another created. The cost: on compositors without server-side
 *    decorations (GNOME, weston) windows have no title bar; a game that
 *    wants one and never re-creates its window sets the hint to "1" first.
 *  - When SDL would pick its wayland driver (SDL_VIDEODRIVER names it, or
 *    there is no DISPLAY for x11), connects to the compositor and returns
 *    TEMPO_ENOTSUP if it advertises no wl_seat (weston's headless backend):
 *    SDL 2.26 segfaults in video init there, so this is the last moment to
 *    choose another driver, e.g. SDL_SetHint(SDL_HINT_VIDEODRIVER,
 *    "offscreen") for a headless run. The reason is in tempo_get_error()
 *    (logged at DEBUG only: the caller has the code).
 * Returns 0 otherwise (also without a compositor: SDL then fails cleanly on
 * its own). Costs one compositor roundtrip on Wayland, nothing elsewhere.
 * Not settled here: SDL_HINT_FRAMEBUFFER_ACCELERATION. Tempo cannot tell
 * whether the machine has a GPU; a game that picks SDL's software renderer
 * because it has none sets that hint to "0" before creating the renderer,
 * or SDL copies every frame through OpenGL on the CPU (docs/pacing.md).
 * Thread: the thread that initialises SDL video. */
TEMPO_API int tempo_video_prepare(void);

/* Releases Tempo's process-wide resources (the handle lock, cached wake
 * primitives). Optional: call it after every Tempo object is destroyed and no
 * thread is waiting, e.g. just before SDL_Quit(), to leave valgrind clean.
 * Tempo re-initialises itself lazily if used again. Thread: loop thread. */
TEMPO_API void tempo_shutdown(void);

/* Conversions for readability at call sites. */
#define TEMPO_NS_PER_US UINT64_C(1000)
#define TEMPO_NS_PER_MS UINT64_C(1000000)
#define TEMPO_NS_PER_S UINT64_C(1000000000)

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_BASE_H */
