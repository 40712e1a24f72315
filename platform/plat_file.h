/* Files: the reader (one implementation for every port:
 * common/plat_file.c over the ground floor, platform/os/os.h) and
 * file-change watches, which every port implements (sdl, web:
 * common/plat_filewatch_inotify.c; win32: win32_filewatch.c; fake:
 * fake_io.c, none). Thread: any, except where it says otherwise. */
#ifndef TEMPO_PLAT_FILE_H
#define TEMPO_PLAT_FILE_H

#include <stdbool.h>

#include "plat_wait.h"

struct SDL_RWops;

/* Opens `path` (UTF-8) for reading if, and only if, it is a regular file,
 * without ever blocking: a FIFO without a writer would block open() (and a
 * pipe or device a read) forever. The type is judged on the opened file,
 * not the path, so it cannot be swapped in between. Returns an SDL_RWops
 * owned by the caller (read-only, seekable, with a small read-ahead), or
 * NULL: then *not_regular is true if the path exists but is not a regular
 * file (directory, FIFO, device, socket, pipe), else errno holds the OS
 * reason (Windows errors mapped to errno values; 0 if none maps). */
struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular);

/* ---- File-change watches ----------------------------------------------
 * A file watch is a handle (PLAT_HANDLE_FILEWATCH) over one directory's
 * entries, not recursive: it is signalled -- manual-reset, by the OS, with
 * no thread and no polling -- while changes wait to be read, and
 * plat_filewatch_read() reads them (which unsignals it). sdl backend: an
 * inotify descriptor (Linux; common/plat_filewatch_inotify.c) that message
 * waits on the fd route and non-message waits put in their ppoll() set;
 * elsewhere TEMPO_ENOTSUP. win32 backend: ReadDirectoryChangesW with an OVERLAPPED
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

#endif /* TEMPO_PLAT_FILE_H */
