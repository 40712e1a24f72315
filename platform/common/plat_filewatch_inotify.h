/* What plat_sdl_wait.c needs of plat_filewatch_inotify.c: the descriptor of
 * a file watch, a handle whose signal is a file descriptor being readable
 * (PLAT_HANDLE_FILEWATCH, with plat_fd_ops: plat_handle.h). The handle
 * object is the shared one (common/plat_handle.c), so the wait sees every
 * kind in one place; everything that touches the descriptor (and needs POSIX
 * headers) lives in plat_filewatch_inotify.c, the only file that creates such
 * handles. */
#ifndef TEMPO_PLAT_FILEWATCH_INOTIFY_H
#define TEMPO_PLAT_FILEWATCH_INOTIFY_H

#include "plat_wait.h"

/* The descriptor of a live FILEWATCH handle, or -1 (destroyed, or another
 * kind): a wait puts it in its ppoll() set. Thread: any. */
int plat_fd_handle_fd(const plat_handle *h);

#endif /* TEMPO_PLAT_FILEWATCH_INOTIFY_H */
