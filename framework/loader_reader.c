/* The loader's reader threads (loader_internal.h): each takes the next
 * request in priority order, reads its file and runs its format's decoder
 * (loader_formats.c), then moves it to `finished` for the loop thread.
 * [loader thread] unless a function says otherwise. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A loader thread's reusable file buffer. Decoders only read the file's
 * bytes, so images and sounds reuse one buffer instead of a fresh
 * allocation per request: fresh memory costs a page fault per 4 KiB on first
 * touch, ~12 us each on the VM bench_loader was developed on (30 faults for
 * a 120 KB PNG). Buffers above SCRATCH_KEEP_BYTES are released after the
 * request so one huge file does not pin memory. */
#define SCRATCH_KEEP_BYTES ((size_t)8 << 20)

/* [loader thread] */
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
/* ---- The thread ------------------------------------------------------------ */

/* [loader thread] */
static void run(tempo_loader *l, load_req *r, load_scratch *sc)
{
    uint64_t t0 = tempo_now_ns();
    tempo__load_format_of(r->type)->decode(l, r, sc); /* submit checked the type */
    r->work_ns = tempo_now_ns() - t0;
}

/* [loader thread] Takes requests in priority order until told to stop;
 * sleeps in tempo_wait when the queue is empty. */
int tempo__loader_reader_main(void *arg)
{
    tempo_loader *l = arg;
    tempo_handle *wake[2] = {l->stop_ev, l->work_ev}; /* stop wins: lowest index */
    load_scratch sc = {0};
    /* Opt-in (desc.low_priority): a contended core then goes to the loop
     * thread first, and waking this thread (a submit) does not take the
     * loop thread's core. Not fatal if the OS refuses (a debug line says
     * so): the jobs run at the priority the thread has. */
    if (l->low_priority)
        plat_thread_set_background();
    for (;;) {
        plat_mutex_lock(l->lock);
        if (l->stopping) {
            plat_mutex_unlock(l->lock);
            SDL_free(sc.buf);
            return 0;
        }
        load_req *r = tempo__loader_list_pop_front(&l->queue);
        if (r != NULL) {
            r->state = REQ_RUNNING;
            tempo__loader_list_push_back(&l->running, r);
            /* One signal woke one thread: pass it on while work remains. */
            if (l->queue.count > 0)
                tempo_event_set(l->work_ev);
        }
        plat_mutex_unlock(l->lock);

        if (r == NULL) {
            int w = tempo_wait(wake, 2, TEMPO_INFINITE, 0);
            if (w == 0) {
                SDL_free(sc.buf);
                return 0;
            }
            if (w < 0) {
                tempo__set_error(w, "loader thread: tempo_wait failed: %s", tempo_get_error());
                SDL_free(sc.buf);
                return w;
            }
            continue;
        }

        run(l, r, &sc);
        if (sc.cap > SCRATCH_KEEP_BYTES) {
            SDL_free(sc.buf);
            sc = (load_scratch){0};
        }

        plat_mutex_lock(l->lock);
        tempo__loader_list_remove(&l->running, r);
        r->state = REQ_FINISHED;
        tempo__loader_list_push_back(&l->finished, r);
        tempo_event_set(l->done_ev);
        tempo__loader_update_idle(l);
        plat_mutex_unlock(l->lock);
    }
}
