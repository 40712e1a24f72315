/* What sdl_wait.c and sdl_filewatch.c share (sdl__ prefix): a handle whose
 * signal is a file descriptor being readable (PLAT_HANDLE_FILEWATCH).
 *
 * The handle itself lives in sdl_wait.c with the other handles, so the wait
 * sees every kind in one place; everything that touches the descriptor (and
 * needs POSIX headers) lives in sdl_filewatch.c, which is the only file that
 * creates such handles. */
#ifndef TEMPO_SDL_FILEWATCH_H
#define TEMPO_SDL_FILEWATCH_H

#include <stdbool.h>

#include "platform.h"

/* [sdl_wait.c] A live FILEWATCH handle that owns `fd` (closed with
 * sdl__fd_close when the last reference goes). NULL on failure, detail set;
 * the fd is then still the caller's. Thread: any. */
plat_handle *sdl__fd_handle_create(int fd);

/* [sdl_wait.c] The descriptor of a FILEWATCH handle, or -1 (destroyed, or
 * another kind). Thread: any. */
int sdl__fd_handle_fd(const plat_handle *h);

/* [sdl_filewatch.c] True if `fd` is readable now (a zero-timeout poll).
 * Called with the backend's handle lock held. */
bool sdl__fd_readable(int fd);

/* [sdl_filewatch.c] Closes `fd`. */
void sdl__fd_close(int fd);

#endif /* TEMPO_SDL_FILEWATCH_H */
