/* The platform floor: everything a Tempo backend provides, one header per
 * subsystem, each saying what a port must implement and where each backend
 * does it:
 *
 *   plat_backend.h  name, capabilities (TEMPO_CAP_*), process-wide end
 *   plat_clock.h    the monotonic clock, sleeping to a deadline, process usage
 *   plat_wait.h     events, timers, the multi-handle wait, message pumping,
 *                   the controller poll bound, fault injection (tests)
 *   plat_thread.h   threads, mutexes, background priority, thread CPU time
 *   plat_file.h     the file reader, file-change watches
 *   plat_input.h    native input devices (win32: DirectInput8)
 *   plat_video.h    SDL video preparation, a window's visibility
 *   plat_host.h     the host's loop (TEMPO_CAP_HOST_LOOP: web)
 *   plat_socket.h   non-blocking sockets for the network thread (per OS)
 *
 * This header includes them all, for the framework's files; a platform file
 * includes the ones it implements or uses.
 *
 * Exactly one backend (platform/sdl/, platform/win32/ or platform/web/) is
 * compiled into the library. Tests also build the framework against
 * platform/fake/ (a virtual clock and scripted handles, fake_platform.h),
 * which runs the same conformance suite; it is never installed. What more
 * than one backend builds is a common module (platform/common/, plat_ names,
 * each a named file list in platform/common/meson.build): a backend builds
 * its own files and the modules it names, never another backend's files.
 * Under all of it lies the ground floor, platform/os/ (os.h: thin OS
 * wrappers, one file per OS where the OS differs), which calls neither SDL
 * nor Tempo.
 *
 * Who may call whom (docs/layout.md): the framework calls down into what is
 * declared here, after validating arguments, so every backend sees the
 * same, already-checked input and gives the same errors. The platform never
 * calls up: no tempo_* function and no framework internal. It works with
 * its own objects (plat_handle, plat_input...), and the framework maps
 * public ids to them (framework/handle_pool.c) before calling down, or lends
 * a public id to a backend-owned object (tempo__handle_lend). Where the
 * platform must run framework code (the host's loop), it calls function
 * pointers the framework lent it (plat_host_calls). What both floors use is
 * the basement below them: the error detail and the log (tempo_internal.h:
 * tempo__set_error, tempo__set_error_at, tempo__log; framework/error.c,
 * which calls nothing but SDL's log and the C library), for "NULL with the
 * detail set", and the plain types and codes of tempo/base.h and
 * tempo/wait.h.
 *
 * Thread rules are those of the public functions that wrap these; every
 * function is safe from any thread unless it says otherwise. */
#ifndef TEMPO_PLATFORM_H
#define TEMPO_PLATFORM_H

#include "plat_backend.h"
#include "plat_clock.h"
#include "plat_file.h"
#include "plat_host.h"
#include "plat_input.h"
#include "plat_thread.h"
#include "plat_video.h"
#include "plat_wait.h"

#endif /* TEMPO_PLATFORM_H */
