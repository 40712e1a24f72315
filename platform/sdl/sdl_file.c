/* Opening asset files without blocking (plat_file_open_read). The SDL
 * backend also runs on Windows (-Dplatform=sdl under mingw), hence the two
 * branches here rather than in framework/. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
/* O_CLOEXEC and fdopen are POSIX.1-2008, which glibc hides under -std=c11
 * unless a feature-test macro asks (tests/meson.build: sdl_file_check). */
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>

#include <SDL.h>

#include "platform.h"

#if defined(_WIN32)
#include <windows.h>

struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular)
{
    *not_regular = false;
    /* CreateFile never waits on a named pipe (a busy one fails); a read
     * from a connected one would, so only disk files are kept. */
    SDL_RWops *rw = SDL_RWFromFile(path, "rb");
    if (rw != NULL && rw->type == SDL_RWOPS_WINFILE && GetFileType(rw->hidden.windowsio.h) != FILE_TYPE_DISK) {
        SDL_RWclose(rw);
        *not_regular = true;
        return NULL;
    }
    return rw;
}
#else
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular)
{
    *not_regular = false;
    /* O_NONBLOCK: open() on a FIFO without a writer returns at once instead
     * of waiting for one; fstat then judges the file actually opened. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *not_regular = true;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK); /* regular files ignore it; keep reads plain */
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    SDL_RWops *rw = SDL_RWFromFP(f, SDL_TRUE);
    if (rw == NULL) {
        fclose(f);
        errno = ENOMEM;
    }
    return rw;
}
#endif
