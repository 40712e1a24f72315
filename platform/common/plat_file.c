/* plat_file_open_read (plat_file.h): the one file reader of both backends.
 * The OS part (opening only regular files, without blocking; UTF-16 paths on
 * Windows) is the ground floor's (platform/os/os.h); this file wraps the
 * opened file as the SDL_RWops that SDL_image and SDL_mixer read, with a
 * small read-ahead buffer for the decoders' small reads (music streams from
 * the file on the audio thread). */
#include <errno.h>
#include <stdlib.h>

#include <SDL.h>

#include "os/os.h"
#include "plat_file.h"

/* As much as stdio's and SDL's own file readers buffer. */
#define READ_AHEAD 4096

typedef struct rw_file {
    os_file *f;
    size_t pos, len; /* buf[pos..len) is read ahead of the logical position */
    unsigned char buf[READ_AHEAD];
} rw_file;

static rw_file *file_of(SDL_RWops *rw)
{
    return rw->hidden.unknown.data1;
}

static Sint64 SDLCALL rw_seek(SDL_RWops *rw, Sint64 offset, int whence)
{
    rw_file *rf = file_of(rw);
    if (whence == RW_SEEK_CUR)
        offset -= (Sint64)(rf->len - rf->pos); /* the OS position is ahead by the buffered bytes */
    int how = whence == RW_SEEK_SET ? 0 : whence == RW_SEEK_CUR ? 1 : whence == RW_SEEK_END ? 2 : -1;
    int64_t at = how < 0 ? -1 : os_file_seek(rf->f, offset, how);
    if (at < 0)
        return SDL_SetError("seek failed");
    rf->pos = rf->len = 0;
    return at;
}

static Sint64 SDLCALL rw_size(SDL_RWops *rw)
{
    rw_file *rf = file_of(rw);
    int64_t here = os_file_seek(rf->f, 0, 1);
    int64_t end = here < 0 ? -1 : os_file_seek(rf->f, 0, 2);
    if (here < 0 || end < 0 || os_file_seek(rf->f, here, 0) != here) /* the buffer stays valid */
        return SDL_SetError("cannot measure the file");
    return end;
}

static size_t SDLCALL rw_read(SDL_RWops *rw, void *ptr, size_t size, size_t maxnum)
{
    rw_file *rf = file_of(rw);
    if (size == 0 || maxnum == 0)
        return 0;
    size_t want = size * maxnum;
    if (want / size != maxnum)
        want = (size_t)-1 / size * size;
    unsigned char *out = ptr;
    size_t got = 0;
    int err = 0;
    while (got < want) {
        if (rf->pos < rf->len) {
            size_t k = rf->len - rf->pos < want - got ? rf->len - rf->pos : want - got;
            SDL_memcpy(out + got, rf->buf + rf->pos, k);
            rf->pos += k;
            got += k;
            continue;
        }
        int64_t n;
        if (want - got >= READ_AHEAD) { /* large reads go straight to the caller */
            n = os_file_read(rf->f, out + got, want - got, &err);
            if (n > 0)
                got += (size_t)n;
        } else {
            n = os_file_read(rf->f, rf->buf, READ_AHEAD, &err);
            rf->pos = 0;
            rf->len = n > 0 ? (size_t)n : 0;
        }
        if (n < 0) {
            SDL_SetError("read failed: errno %d", err);
            break;
        }
        if (n == 0)
            break; /* the end */
    }
    return got / size;
}

static size_t SDLCALL rw_write(SDL_RWops *rw, const void *ptr, size_t size, size_t num)
{
    (void)rw;
    (void)ptr;
    (void)size;
    (void)num;
    SDL_SetError("the file is open for reading");
    return 0;
}

static int SDLCALL rw_close(SDL_RWops *rw)
{
    if (rw != NULL) {
        rw_file *rf = file_of(rw);
        os_file_close(rf->f);
        free(rf);
        SDL_FreeRW(rw);
    }
    return 0;
}

struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular)
{
    *not_regular = false;
    int err = 0;
    os_file *f = os_file_open_read(path, &err);
    if (f == NULL) {
        *not_regular = err == OS_FILE_NOT_REGULAR;
        errno = err > 0 ? err : 0;
        return NULL;
    }
    rw_file *rf = malloc(sizeof *rf);
    SDL_RWops *rw = rf != NULL ? SDL_AllocRW() : NULL;
    if (rw == NULL) {
        free(rf);
        os_file_close(f);
        errno = ENOMEM;
        return NULL;
    }
    rf->f = f;
    rf->pos = rf->len = 0;
    rw->size = rw_size;
    rw->seek = rw_seek;
    rw->read = rw_read;
    rw->write = rw_write;
    rw->close = rw_close;
    rw->type = SDL_RWOPS_UNKNOWN;
    rw->hidden.unknown.data1 = rf;
    return rw;
}
