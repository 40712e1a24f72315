/* The loader's file I/O (loader_internal.h): open a request's file,
 * measure it and read it whole, recording a failure in the request. Called
 * by the formats' decoders; calls only down into loader_request.c and the
 * platform's file reader. [loader thread] */
#include <errno.h>

#include "loader_internal.h"

/* Whole-file reads go through SDL_RWFromConstMem, whose size is an int. */
#define MAX_FILE_BYTES ((uint64_t)INT32_MAX)

/* ---- Opening and reading files ---------------------------------------------- */

/* strerror() is not required to be thread-safe; these are the reasons a
 * file open or read fails in practice. */
static const char *errno_text(int e)
{
    switch (e) {
    case ENOENT: return "No such file or directory";
    case ENOTDIR: return "A path component is not a directory";
    case EISDIR: return "Is a directory";
    case EACCES: return "Permission denied";
    case ENAMETOOLONG: return "File name too long";
    case EMFILE: return "Too many open files";
    case ENOMEM: return "Out of memory";
    case EINVAL: return "Invalid argument";
    case EIO: return "Input/output error";
    default: return NULL;
    }
}

static int errno_code(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        return TEMPO_ENOENT;
    case ENAMETOOLONG:
        return TEMPO_ERANGE;
    case ENOMEM:
        return TEMPO_ENOMEM;
    default:
        return TEMPO_EIO;
    }
}

/* Opens r->path for reading and measures it. Only regular files are
 * opened (plat_file_open_read): a FIFO would block open() forever, and a
 * directory's "size" can be anything. [loader thread] */
int tempo__loader_open(tempo_loader *l, load_req *r, SDL_RWops **out, uint64_t *size)
{
    *out = NULL;
    errno = 0;
    SDL_ClearError();
    bool not_regular = false;
    SDL_RWops *rw = plat_file_open_read(r->path, &not_regular);
    if (rw == NULL && not_regular)
        return tempo__loader_fail(r, TEMPO_EIO, "%s is not a regular file (a directory, FIFO, device or socket)",
                                  r->path);
    if (rw == NULL) {
        /* errno has the OS reason on every OS (Windows' errors are mapped
         * by the ground floor, platform/os/). */
        int e = errno;
        const char *why = errno_text(e);
        if (why)
            return tempo__loader_fail(r, errno_code(e), "cannot open %s: %s", r->path, why);
        if (e)
            return tempo__loader_fail(r, errno_code(e), "cannot open %s: errno %d", r->path, e);
        return tempo__loader_fail(r, TEMPO_EIO, "cannot open %s", r->path);
    }
    Sint64 n = SDL_RWsize(rw);
    if (n < 0) {
        SDL_RWclose(rw);
        return tempo__loader_fail(r, TEMPO_EIO, "cannot size %s: %s", r->path,
                                  tempo__loader_sdl_text("not a regular file"));
    }
    *size = (uint64_t)n;
    plat_mutex_lock(l->lock);
    tempo__loader_count_bytes(l, r, *size);
    plat_mutex_unlock(l->lock);
    *out = rw;
    return 0;
}

/* Reads into the thread's reusable buffer (load_scratch, kept by the
 * reader thread: loader_reader.c) or a fresh one. [loader thread] */
int tempo__loader_read_all(tempo_loader *l, load_req *r, load_scratch *s, unsigned char **buf, size_t *len)
{
    SDL_RWops *rw;
    uint64_t n;
    int rc = tempo__loader_open(l, r, &rw, &n);
    if (rc < 0)
        return rc;
    if (n > MAX_FILE_BYTES) {
        SDL_RWclose(rw);
        return tempo__loader_fail(r, TEMPO_ERANGE, "%s is %llu bytes, more than the loader reads into memory (%llu)",
                                  r->path, (unsigned long long)n, (unsigned long long)MAX_FILE_BYTES);
    }
    unsigned char *b;
    if (s != NULL && s->cap >= (size_t)n + 1) {
        b = s->buf;
    } else if (s != NULL) {
        SDL_free(s->buf); /* no realloc: the old contents are not needed */
        s->buf = b = SDL_malloc((size_t)n + 1);
        s->cap = b ? (size_t)n + 1 : 0;
    } else {
        b = SDL_malloc((size_t)n + 1);
    }
    if (b == NULL) {
        SDL_RWclose(rw);
        return tempo__loader_fail(r, TEMPO_ENOMEM, "%llu bytes for %s", (unsigned long long)n, r->path);
    }
    size_t got = 0;
    while (got < n) {
        size_t k = SDL_RWread(rw, b + got, 1, (size_t)n - got);
        if (k == 0)
            break;
        got += k;
    }
    SDL_RWclose(rw);
    /* A read that waited on the disk woke this thread, and that wake-up
     * wins it the next pick on the core it lands on, often the loop
     * thread's: the decode after it would keep that core for a slice
     * (1.4-1.9 ms inside bench_game's drains, perf). So give the turn back
     * before decoding, as after any wake-up (true): a short wait on the
     * disk ends well within 0.5 ms of the yield before the request, and
     * with `false` the decode after it kept the loop thread's core
     * 1.4-1.8 ms in 3 of 20 rows of 8 s (perf). A read from the page cache
     * slept on nothing, and its yield returns at once. */
    if (l->low_priority)
        plat_thread_background_yield(true);
    if (got < n) {
        if (s == NULL)
            SDL_free(b);
        return tempo__loader_fail(r, TEMPO_EIO, "short read of %s: %llu of %llu bytes", r->path,
                                  (unsigned long long)got, (unsigned long long)n);
    }
    b[got] = 0;
    r->bytes = got;
    *buf = b;
    *len = got;
    return 0;
}
