/* The ground floor: thin wrappers over the operating system that both
 * backends (and platform/common/) build on. One header, one file per OS
 * where the OS differs (os_<what>_posix.c / os_<what>_windows.c; meson picks
 * by host). Nothing here calls Tempo -- neither the public API nor the
 * framework's internals (no tempo__set_error): failures come back as values
 * (errno codes), and the caller above records the detail. No SDL either.
 *
 * Thread: any; an object is used by one thread at a time. */
#ifndef TEMPO_OS_H
#define TEMPO_OS_H

#include <stddef.h>
#include <stdint.h>

/* ---- Files ---------------------------------------------------------------
 * Read-only files, opened only if they are regular files and never
 * blocking on the way (a FIFO without a writer would block open() forever,
 * a pipe or device a read). The OS-specific part is this seam: open (with
 * the path's encoding: UTF-8 on POSIX, converted to UTF-16 for CreateFileW
 * on Windows) and the three calls on the open file. */

typedef struct os_file os_file;

/* What os_file_open_read() reports for a path that exists but is not a
 * regular file (directory, FIFO, device, socket, pipe). Not an errno value. */
#define OS_FILE_NOT_REGULAR (-1)

/* Opens `path` (UTF-8) for reading. The type is judged on the opened file,
 * not the path, so it cannot be swapped in between. NULL on failure with
 * *err set: OS_FILE_NOT_REGULAR, or an errno value (ENOENT, EACCES,
 * ENAMETOOLONG, ENOMEM, ...; Windows errors are mapped to these), 0 if the
 * OS gave no reason that maps. */
os_file *os_file_open_read(const char *path, int *err);

/* Reads up to `len` bytes at the current position. Returns how many (0 at
 * the end), or -1 with *err set to an errno value. */
int64_t os_file_read(os_file *f, void *buf, size_t len, int *err);

/* Moves the position to `offset` from the start (whence 0), the current
 * position (1) or the end (2), like lseek. Returns the new position or -1. */
int64_t os_file_seek(os_file *f, int64_t offset, int whence);

/* Closes the file and frees `f`. NULL is a no-op. */
void os_file_close(os_file *f);

#endif /* TEMPO_OS_H */
