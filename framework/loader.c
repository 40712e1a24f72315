/* The background loader (tempo/loader.h).
 *
 * One lock (`lock`) guards everything shared between the loop thread, the
 * loader threads and other submitters: the three request lists, the counters,
 * the groups and the `cancelled` flags. A request is on exactly one list:
 *
 *   submit -> queue --(loader thread takes it)--> running --> finished
 *                \--(cancel)-----------------------------------^
 *   finished --(tempo_loader_process / destroy on the loop thread)--> delivered, freed
 *
 * While a request is running, its result fields belong to the loader thread
 * that took it; after it moves to `finished` (under the lock) they belong to
 * the loop thread. Nothing else touches them, so they need no lock.
 *
 * Three events connect the threads, each kept consistent with the lists under
 * the lock: `work_ev` (auto-reset) wakes one loader thread per signal and a
 * thread that takes an item passes the signal on while work remains;
 * `done_ev` (manual-reset) is signalled exactly while `finished` is not
 * empty; `idle_ev` (manual-reset) is signalled while nothing is queued or
 * running. `stop_ev` (manual-reset) ends the loader threads.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>

#include "asset_check.h"
#include "platform.h"
#include "sources_internal.h"
#include "tempo/loader.h"
#include "tempo_internal.h"
#include "upload_split.h"

#define DEFAULT_BUDGET_NS (2 * TEMPO_NS_PER_MS)
#define DEFAULT_MAX_PENDING 8192
#define MAX_THREADS 16
/* Without a renderer's limit: the common GPU maximum, and a 1 GiB RGBA
 * surface at most, whatever a lying header claims. */
#define DEFAULT_MAX_IMAGE_SIDE 16384
/* Whole-file reads go through SDL_RWFromConstMem, whose size is an int. */
#define MAX_FILE_BYTES ((uint64_t)INT32_MAX)

typedef enum req_state { REQ_QUEUED, REQ_RUNNING, REQ_FINISHED } req_state;

typedef struct req {
    struct req *prev, *next; /* on one of the loader's lists (under lock) */
    uint64_t id;
    tempo_load_type type;
    int priority;
    uint32_t group;
    req_state state;   /* under lock */
    bool cancelled;    /* under lock; read by the loop thread after it took the request */
    uint64_t counted_bytes; /* what this request adds to its group's bytes_total (under lock) */
    tempo_load_done_fn done;
    void *user;
    tempo_load_work_fn work;
    tempo_load_finalize_fn finalize;
    tempo_load_discard_fn discard;
    tempo_load_job job; /* custom jobs; job.args is the loader's copy */
    uint64_t submit_ns;
    /* Written by the loader thread while running, then by the loop thread. */
    uint64_t work_ns;
    uint64_t bytes;
    int error;
    char *error_text; /* SDL_malloc'd, or NULL for "" */
    SDL_Surface *surface;
    SDL_Texture *texture; /* with `surface` still set: an upload in strips, rows_done rows up */
    int rows_done;
    Mix_Chunk *chunk;
    Mix_Music *music;
    void *data;
    size_t size;
    void *custom;
    char path[]; /* the copied path; "" for custom jobs */
} req;

typedef struct req_list {
    req *head, *tail;
    uint32_t count;
} req_list;

typedef struct group_rec {
    uint32_t id;
    tempo_load_progress p;
} group_rec;

struct tempo_loader {
    /* Set at create, read-only afterwards (any thread). */
    SDL_Renderer *renderer;
    uint32_t tex_formats[16];
    int n_tex_formats;
    int max_tex_w, max_tex_h; /* images larger fail with TEMPO_ERANGE */
    uint64_t max_pixels;      /* images with more pixels fail with TEMPO_ERANGE */
    bool allow_unchecked;     /* desc.allow_unchecked_formats */
    tempo_load_group_done_fn group_done;
    void *group_done_user;
    uint64_t budget_ns;
    uint32_t max_pending;
    uint64_t (*now_ns)(void *);
    void *now_user;
    bool low_priority;
    int n_threads;
    plat_thread *threads[MAX_THREADS];
    tempo_handle *work_ev, *done_ev, *idle_ev, *stop_ev;
    plat_mutex *lock;

    /* Under lock. */
    req_list queue, running, finished;
    bool stopping;
    uint64_t next_id;
    group_rec *groups;
    int n_groups, cap_groups;
    tempo_loader_stats stats; /* queued/running/finished are filled from the lists */

    /* Loop thread only. */
    bool in_process;      /* inside process() or destroy()'s delivery: done callbacks run */
    uint64_t item_avg_ns; /* running average cost of one finalize + done, texture upload
                             excluded (process_until) */
    double upload_ns_per_byte; /* learnt texture upload cost (upload_split.h); 0: none yet */
    uint64_t upload_ns;   /* time the last upload_rows() call took */
    tempo__loader_tap_fn tap; /* the recorder's view of deliveries (loader_source.c), or NULL */
    void *tap_user;
    tempo_loop *loop;     /* the loop it is a source of (loader_source.c), or NULL */
};

/* ---- SDL_mixer's process-wide lock -------------------------------------
 * SDL_mixer 2.6 keeps its decoder registry in unlocked globals (see
 * loader.h); every loader's threads take this lock around Mix_Load*. It is
 * created by the first loader and freed with the last (loop thread only, so
 * the count needs no lock of its own). */
static plat_mutex *mix_lock;
static int mix_lock_users;

/* ---- Small helpers ------------------------------------------------------ */

static uint64_t default_now(void *user)
{
    (void)user;
    return tempo_now_ns();
}

static void list_push_back(req_list *l, req *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->count++;
}

static void list_insert_after(req_list *l, req *at, req *r)
{
    if (at == NULL) { /* at the front */
        r->prev = NULL;
        r->next = l->head;
        if (l->head)
            l->head->prev = r;
        else
            l->tail = r;
        l->head = r;
    } else {
        r->prev = at;
        r->next = at->next;
        if (at->next)
            at->next->prev = r;
        else
            l->tail = r;
        at->next = r;
    }
    l->count++;
}

static void list_remove(req_list *l, req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
}

static req *list_pop_front(req_list *l)
{
    req *r = l->head;
    if (r)
        list_remove(l, r);
    return r;
}

/* Priority order: after the last request of equal or higher priority, so
 * equal priorities stay FIFO. Scanning from the tail makes the common case
 * (everything at one priority) O(1). [under lock] */
static void queue_insert(req_list *q, req *r)
{
    req *at = q->tail;
    while (at != NULL && at->priority < r->priority)
        at = at->prev;
    list_insert_after(q, at, r);
}

/* [under lock] */
static group_rec *find_group(tempo_loader *l, uint32_t id)
{
    for (int i = 0; i < l->n_groups; i++)
        if (l->groups[i].id == id)
            return &l->groups[i];
    return NULL;
}

/* [under lock] */
static group_rec *get_group(tempo_loader *l, uint32_t id)
{
    group_rec *g = find_group(l, id);
    if (g)
        return g;
    if (l->n_groups == l->cap_groups) {
        int cap = l->cap_groups ? l->cap_groups * 2 : 8;
        group_rec *ng = realloc(l->groups, (size_t)cap * sizeof *ng);
        if (ng == NULL)
            return NULL;
        l->groups = ng;
        l->cap_groups = cap;
    }
    g = &l->groups[l->n_groups++];
    memset(g, 0, sizeof *g);
    g->id = id;
    return g;
}

/* [under lock] Keeps idle_ev signalled exactly while nothing is queued or running. */
static void update_idle(tempo_loader *l)
{
    if (l->queue.count == 0 && l->running.count == 0)
        tempo_event_set(l->idle_ev);
}

/* [under lock] Adjusts the group's byte total once the real size is known. */
static void count_bytes(tempo_loader *l, req *r, uint64_t bytes)
{
    group_rec *g = find_group(l, r->group);
    if (g)
        g->p.bytes_total = g->p.bytes_total - r->counted_bytes + bytes;
    r->counted_bytes = bytes;
}

/* Records a request's failure; returns `code`. [the thread owning r] */
static int req_fail(req *r, int code, const char *fmt, ...) TEMPO__PRINTF(3, 4);
static int req_fail(req *r, int code, const char *fmt, ...)
{
    char buf[1280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    SDL_free(r->error_text);
    r->error_text = buf[0] ? SDL_strdup(buf) : NULL;
    r->error = code;
    return code;
}

/* SDL's per-thread error text after a failed SDL call, or `fallback`. */
static const char *sdl_text(const char *fallback)
{
    const char *e = SDL_GetError();
    return e && e[0] ? e : fallback;
}

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

/* ---- Loader thread: reading and decoding --------------------------------- */

/* Opens r->path for reading and measures it. Only regular files are
 * opened (plat_file_open_read): a FIFO would block open() forever, and a
 * directory's "size" can be anything. [loader thread] */
static int open_checked(tempo_loader *l, req *r, SDL_RWops **out, uint64_t *size)
{
    *out = NULL;
    errno = 0;
    SDL_ClearError();
    bool not_regular = false;
    SDL_RWops *rw = plat_file_open_read(r->path, &not_regular);
    if (rw == NULL && not_regular)
        return req_fail(r, TEMPO_EIO, "%s is not a regular file (a directory, FIFO, device or socket)", r->path);
    if (rw == NULL) {
        /* SDL says "Couldn't open X" without the reason. On POSIX errno has
         * it; elsewhere (Win32 CreateFile) ask the C library the same
         * question. */
        char sdl_msg[1100];
        int e = errno;
        snprintf(sdl_msg, sizeof sdl_msg, "cannot open %s", r->path);
        if (e == 0) {
            const char *t = SDL_GetError();
            if (t && t[0])
                snprintf(sdl_msg, sizeof sdl_msg, "%s", t);
            FILE *f = fopen(r->path, "rb");
            if (f)
                fclose(f);
            else
                e = errno;
        }
        const char *why = errno_text(e);
        if (why)
            return req_fail(r, errno_code(e), "%s: %s", sdl_msg, why);
        if (e)
            return req_fail(r, errno_code(e), "%s: errno %d", sdl_msg, e);
        return req_fail(r, TEMPO_EIO, "%s", sdl_msg);
    }
    Sint64 n = SDL_RWsize(rw);
    if (n < 0) {
        SDL_RWclose(rw);
        return req_fail(r, TEMPO_EIO, "cannot size %s: %s", r->path, sdl_text("not a regular file"));
    }
    *size = (uint64_t)n;
    plat_mutex_lock(l->lock);
    count_bytes(l, r, *size);
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
typedef struct scratch {
    unsigned char *buf;
    size_t cap;
} scratch;

#define SCRATCH_KEEP_BYTES ((size_t)8 << 20)

/* Reads the whole file with a NUL after it: into `s` (the buffer stays
 * owned by `s`) or, with s NULL, into a new SDL_malloc'd buffer that the
 * caller owns. [loader thread] */
static int read_all(tempo_loader *l, req *r, scratch *s, unsigned char **buf, size_t *len)
{
    SDL_RWops *rw;
    uint64_t n;
    int rc = open_checked(l, r, &rw, &n);
    if (rc < 0)
        return rc;
    if (n > MAX_FILE_BYTES) {
        SDL_RWclose(rw);
        return req_fail(r, TEMPO_ERANGE, "%s is %llu bytes, more than the loader reads into memory (%llu)",
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
        return req_fail(r, TEMPO_ENOMEM, "%llu bytes for %s", (unsigned long long)n, r->path);
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
        return req_fail(r, TEMPO_EIO, "short read of %s: %llu of %llu bytes", r->path, (unsigned long long)got,
                        (unsigned long long)n);
    }
    b[got] = 0;
    r->bytes = got;
    *buf = b;
    *len = got;
    return 0;
}

static bool too_large(const tempo_loader *l, uint32_t w, uint32_t h)
{
    return w > (uint32_t)l->max_tex_w || h > (uint32_t)l->max_tex_h || (uint64_t)w * h > l->max_pixels;
}

static tempo__asset_limits limits_of(const tempo_loader *l)
{
    return (tempo__asset_limits){
        .max_w = (uint32_t)l->max_tex_w, .max_h = (uint32_t)l->max_tex_h, .max_pixels = l->max_pixels};
}

/* Records a refused check as the request's error. [loader thread] */
static int check_fail(req *r, int code, const tempo__asset_info *info)
{
    return req_fail(r, code, "%s: %s", r->path, info->why);
}

/* The decoder of the format the check identified, so SDL_image's own
 * detection (and the file name's TGA hint) cannot pick another one. NULL for
 * the unchecked formats: those go to IMG_Load_RW (only when allowed), whose
 * detection order the check mirrors. */
static SDL_Surface *(*image_decoder(tempo__asset_format f))(SDL_RWops *)
{
    switch (f) {
    case TEMPO__ASSET_PNG: return IMG_LoadPNG_RW;
    case TEMPO__ASSET_JPEG: return IMG_LoadJPG_RW;
    case TEMPO__ASSET_GIF: return IMG_LoadGIF_RW;
    case TEMPO__ASSET_BMP: return IMG_LoadBMP_RW;
    case TEMPO__ASSET_QOI: return IMG_LoadQOI_RW;
    case TEMPO__ASSET_TGA: return IMG_LoadTGA_RW;
    case TEMPO__ASSET_PNM: return IMG_LoadPNM_RW;
    case TEMPO__ASSET_XPM: return IMG_LoadXPM_RW;
    case TEMPO__ASSET_WEBP: return IMG_LoadWEBP_RW;
    default: return NULL;
    }
}

static bool named_tga(const char *path)
{
    const char *ext = strrchr(path, '.');
    return ext && SDL_strcasecmp(ext, ".tga") == 0;
}

/* The texture format SDL_CreateTextureFromSurface (SDL 2.26) would pick for
 * `s`, or 0 to leave the surface alone (colour keys and palettes: SDL's own
 * conversion handles those specially). [loader thread] */
static Uint32 texture_format_for(const tempo_loader *l, const SDL_Surface *s)
{
    const SDL_PixelFormat *fmt = s->format;
    if (l->n_tex_formats == 0 || fmt->palette != NULL || SDL_HasColorKey((SDL_Surface *)s))
        return 0;
    for (int i = 0; i < l->n_tex_formats; i++)
        if (l->tex_formats[i] == fmt->format)
            return 0; /* already a match: uploaded as is */
    SDL_bool need_alpha = fmt->Amask != 0;
    for (int i = 0; i < l->n_tex_formats; i++) {
        Uint32 f = l->tex_formats[i];
        if (!SDL_ISPIXELFORMAT_FOURCC(f) && SDL_ISPIXELFORMAT_ALPHA(f) == need_alpha)
            return f;
    }
    return SDL_ISPIXELFORMAT_FOURCC(l->tex_formats[0]) ? 0 : l->tex_formats[0];
}

/* [loader thread] */
static int load_image(tempo_loader *l, req *r, scratch *sc)
{
    unsigned char *buf;
    size_t len;
    int rc = read_all(l, r, sc, &buf, &len);
    if (rc < 0)
        return rc;
    if (len == 0)
        return req_fail(r, TEMPO_EFORMAT, "%s is an empty file", r->path);
    /* Identify the format by its bytes and refuse an oversized or lying
     * header before the decoder allocates width * height * 4 bytes on its
     * word. */
    tempo__asset_limits lim = limits_of(l);
    tempo__asset_info info;
    rc = tempo__asset_check_image(buf, len, named_tga(r->path), &lim, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked))
        return check_fail(r, rc, &info);
    SDL_RWops *rw = SDL_RWFromConstMem(buf, (int)len);
    if (rw == NULL)
        return req_fail(r, TEMPO_ENOMEM, "%s", sdl_text("SDL_RWFromConstMem failed"));
    SDL_Surface *(*decode)(SDL_RWops *) = image_decoder(info.format);
    SDL_ClearError();
    SDL_Surface *s = decode ? decode(rw) : IMG_Load_RW(rw, 0);
    SDL_RWclose(rw);
    if (s == NULL)
        return req_fail(r, TEMPO_EFORMAT, "%s: %s", r->path, sdl_text("SDL_image could not decode it"));
    if (too_large(l, (uint32_t)s->w, (uint32_t)s->h)) {
        req_fail(r, TEMPO_ERANGE, "%s is %dx%d, larger than the image limit %dx%d, %llu pixels", r->path, s->w,
                 s->h, l->max_tex_w, l->max_tex_h, (unsigned long long)l->max_pixels);
        SDL_FreeSurface(s);
        return r->error;
    }
    /* Convert here so the loop thread only uploads. If this fails (memory),
     * SDL converts on the loop thread instead: slower, still correct. */
    Uint32 f = texture_format_for(l, s);
    if (f != 0) {
        SDL_Surface *c = SDL_ConvertSurfaceFormat(s, f, 0);
        if (c != NULL) {
            SDL_BlendMode bm;
            SDL_GetSurfaceBlendMode(s, &bm);
            SDL_SetSurfaceBlendMode(c, bm);
            SDL_FreeSurface(s);
            s = c;
        }
    }
    r->surface = s;
    return 0;
}

static int require_audio(req *r)
{
    if (!Mix_QuerySpec(NULL, NULL, NULL))
        return req_fail(r, TEMPO_EINVAL, "%s: SDL_mixer audio is not open (call Mix_OpenAudio before loading %s)",
                        r->path, r->type == TEMPO_LOAD_SOUND ? "sounds" : "music");
    return 0;
}

/* [loader thread] */
static int load_sound(tempo_loader *l, req *r, scratch *sc)
{
    int rc = require_audio(r);
    unsigned char *buf;
    size_t len;
    if (rc < 0 || (rc = read_all(l, r, sc, &buf, &len)) < 0)
        return rc;
    tempo__asset_info info;
    rc = tempo__asset_check_sound(buf, len, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked))
        return check_fail(r, rc, &info);
    SDL_RWops *rw = SDL_RWFromConstMem(buf, (int)len);
    if (rw == NULL)
        return req_fail(r, TEMPO_ENOMEM, "%s", sdl_text("SDL_RWFromConstMem failed"));
    plat_mutex_lock(mix_lock);
    SDL_ClearError();
    /* freesrc 0: SDL_mixer 2.6.2 does not close a source it was told to
     * close on every failure path (Mix_LoadMusic_RW returns early for data
     * it cannot identify; found by fuzz_asset_load), so Tempo closes it. */
    Mix_Chunk *c = Mix_LoadWAV_RW(rw, 0);
    if (c == NULL)
        req_fail(r, TEMPO_EFORMAT, "%s: %s", r->path, sdl_text("SDL_mixer could not decode it"));
    plat_mutex_unlock(mix_lock);
    SDL_RWclose(rw);
    r->chunk = c;
    return c ? 0 : r->error;
}

/* The decoder for the format the check identified (never the file name's:
 * a ".wav" name would send any bytes to the WAV reader). MUS_NONE lets
 * SDL_mixer detect it (only for allowed unchecked data: its MOD fallback). */
static Mix_MusicType music_type_for(tempo__asset_format f)
{
    switch (f) {
    case TEMPO__ASSET_WAV:
    case TEMPO__ASSET_AIFF: return MUS_WAV; /* one reader for both (codecs/music_wav.c) */
    case TEMPO__ASSET_OGG: return MUS_OGG;
    case TEMPO__ASSET_OPUS: return MUS_OPUS;
    case TEMPO__ASSET_FLAC: return MUS_FLAC;
    case TEMPO__ASSET_MP3: return MUS_MP3;
    case TEMPO__ASSET_MIDI: return MUS_MID;
    default: return MUS_NONE;
    }
}

/* The music check reads the file where its chunks are. [loader thread] */
static size_t rw_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
    SDL_RWops *rw = ctx;
    if (off > INT64_MAX || SDL_RWseek(rw, (Sint64)off, RW_SEEK_SET) < 0)
        return 0;
    size_t got = 0;
    while (got < len) {
        size_t k = SDL_RWread(rw, (char *)buf + got, 1, len - got);
        if (k == 0)
            break;
        got += k;
    }
    return got;
}

/* [loader thread] */
static int load_music(tempo_loader *l, req *r)
{
    int rc = require_audio(r);
    SDL_RWops *rw;
    uint64_t n;
    if (rc < 0 || (rc = open_checked(l, r, &rw, &n)) < 0)
        return rc;
    r->bytes = n;
    if (n == 0) {
        SDL_RWclose(rw);
        return req_fail(r, TEMPO_EFORMAT, "%s is an empty file", r->path);
    }
    /* Music streams, so the file is not read whole: the check seeks to
     * every chunk header SDL_mixer's reader will visit, wherever it is. */
    tempo__asset_reader rd = {.size = n, .read = rw_read_at, .ctx = rw};
    tempo__asset_info info;
    rc = tempo__asset_check_music(&rd, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked)) {
        SDL_RWclose(rw);
        return check_fail(r, rc, &info);
    }
    if (SDL_RWseek(rw, 0, RW_SEEK_SET) != 0) {
        SDL_RWclose(rw);
        return req_fail(r, TEMPO_EIO, "cannot seek %s: %s", r->path, sdl_text("seek failed"));
    }
    plat_mutex_lock(mix_lock);
    SDL_ClearError();
    Mix_Music *m = Mix_LoadMUSType_RW(rw, music_type_for(info.format), 1); /* closes rw on failure */
    if (m == NULL)
        req_fail(r, TEMPO_EFORMAT, "%s: %s", r->path, sdl_text("SDL_mixer could not decode it"));
    plat_mutex_unlock(mix_lock);
    r->music = m;
    return m ? 0 : r->error;
}

/* [loader thread] */
static int load_bytes(tempo_loader *l, req *r)
{
    unsigned char *buf;
    size_t len;
    int rc = read_all(l, r, NULL, &buf, &len); /* the caller gets this buffer */
    if (rc < 0)
        return rc;
    r->data = buf;
    r->size = len;
    return 0;
}

/* [loader thread] */
static int run_custom(tempo_loader *l, req *r)
{
    SDL_ClearError();
    void *result = NULL;
    int rc = r->work(&r->job, &result);
    r->custom = result;
    r->bytes = r->job.bytes;
    plat_mutex_lock(l->lock);
    count_bytes(l, r, r->bytes);
    plat_mutex_unlock(l->lock);
    if (rc < 0)
        return req_fail(r, rc, "%s", sdl_text(tempo_strerror(rc)));
    return 0;
}

/* [loader thread] */
static void run(tempo_loader *l, req *r, scratch *sc)
{
    uint64_t t0 = tempo_now_ns();
    switch (r->type) {
    case TEMPO_LOAD_IMAGE: load_image(l, r, sc); break;
    case TEMPO_LOAD_SOUND: load_sound(l, r, sc); break;
    case TEMPO_LOAD_MUSIC: load_music(l, r); break;
    case TEMPO_LOAD_BYTES: load_bytes(l, r); break;
    case TEMPO_LOAD_CUSTOM: run_custom(l, r); break;
    }
    r->work_ns = tempo_now_ns() - t0;
}

/* [loader thread] Takes requests in priority order until told to stop;
 * sleeps in tempo_wait when the queue is empty. */
static int worker_main(void *arg)
{
    tempo_loader *l = arg;
    tempo_handle *wake[2] = {l->stop_ev, l->work_ev}; /* stop wins: lowest index */
    scratch sc = {0};
    /* Opt-in (desc.low_priority): a contended core then goes to the loop
     * thread first. Not fatal if the OS refuses. */
    if (l->low_priority && SDL_SetThreadPriority(SDL_THREAD_PRIORITY_LOW) != 0)
        SDL_LogDebug(SDL_LOG_CATEGORY_APPLICATION, "tempo loader: cannot lower thread priority: %s", SDL_GetError());
    for (;;) {
        plat_mutex_lock(l->lock);
        if (l->stopping) {
            plat_mutex_unlock(l->lock);
            SDL_free(sc.buf);
            return 0;
        }
        req *r = list_pop_front(&l->queue);
        if (r != NULL) {
            r->state = REQ_RUNNING;
            list_push_back(&l->running, r);
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
            sc = (scratch){0};
        }

        plat_mutex_lock(l->lock);
        list_remove(&l->running, r);
        r->state = REQ_FINISHED;
        list_push_back(&l->finished, r);
        tempo_event_set(l->done_ev);
        update_idle(l);
        plat_mutex_unlock(l->lock);
    }
}

/* ---- Loop thread: finalize and deliver -------------------------------- */

/* Frees whatever object the request holds. [loop thread] */
static void free_objects(req *r)
{
    if (r->texture)
        SDL_DestroyTexture(r->texture);
    if (r->surface)
        SDL_FreeSurface(r->surface);
    if (r->chunk)
        Mix_FreeChunk(r->chunk);
    if (r->music)
        Mix_FreeMusic(r->music);
    if (r->data)
        SDL_free(r->data);
    if (r->custom && r->discard)
        r->discard(&r->job, r->custom);
    r->texture = NULL;
    r->surface = NULL;
    r->chunk = NULL;
    r->music = NULL;
    r->data = NULL;
    r->size = 0;
    r->custom = NULL;
}

/* ---- Texture uploads in strips (issue 21) ----------------------------------
 * SDL_CreateTextureFromSurface uploads a whole image in one call on the loop
 * thread: a 256x256 software texture took longer than the time left before
 * a frame, and must_progress then forced it past the deadline every frame.
 * An image whose surface the loader thread already converted to one of the
 * renderer's formats is uploaded instead as SDL_CreateTexture + one
 * SDL_UpdateTexture per strip of rows (the same bytes SDL's own function
 * copies), each strip sized by the learnt cost per byte to what is left
 * before the deadline. Other surfaces (palettes, colour keys, RLE) keep
 * SDL_CreateTextureFromSurface. */

int tempo__upload_rows(double ns_per_byte, uint64_t time_left_ns, uint64_t row_bytes, int rows_left,
                       bool must_progress)
{
    if (rows_left <= 0)
        return 0;
    if (row_bytes == 0)
        return rows_left;
    if (!(ns_per_byte > 0))
        ns_per_byte = TEMPO__UPLOAD_PRIOR_NS_PER_BYTE;
    double row_ns = ns_per_byte * (double)row_bytes;
    double fit = (double)time_left_ns / row_ns;
    int min_rows = (int)(TEMPO__UPLOAD_MIN_STRIP_BYTES / row_bytes);
    if (min_rows < 1)
        min_rows = 1;
    if (fit >= (double)rows_left)
        return rows_left;
    int rows = (int)fit;
    if (rows >= min_rows)
        return rows;
    if (!must_progress)
        return 0;
    return min_rows < rows_left ? min_rows : rows_left;
}

double tempo__upload_learn(double old, uint64_t bytes, uint64_t took_ns)
{
    if (bytes == 0)
        return old;
    double sample = (double)took_ns / (double)bytes;
    if (!(old > 0))
        return sample;
    return old + (sample - old) / 4;
}

/* Whether r's image goes up in strips. [loop thread] */
static bool streamable(const tempo_loader *l, const req *r)
{
    const SDL_Surface *s = r->surface;
    if (r->type != TEMPO_LOAD_IMAGE || l->renderer == NULL || s == NULL || SDL_MUSTLOCK(s) ||
        s->format->palette != NULL || SDL_HasColorKey((SDL_Surface *)s))
        return false;
    for (int i = 0; i < l->n_tex_formats; i++)
        if (l->tex_formats[i] == s->format->format)
            return !SDL_ISPIXELFORMAT_FOURCC(s->format->format);
    return false;
}

/* Uploads the next `rows` rows of r's surface (creating the texture first)
 * and learns the cost per byte. Returns 0 or a failed request's error (the
 * texture, if any, is freed with the request). [loop thread] */
static int upload_rows(tempo_loader *l, req *r, int rows)
{
    SDL_Surface *s = r->surface;
    uint64_t t0 = l->now_ns(l->now_user);
    SDL_ClearError();
    if (r->texture == NULL) {
        r->texture = SDL_CreateTexture(l->renderer, s->format->format, SDL_TEXTUREACCESS_STATIC, s->w, s->h);
        if (r->texture == NULL)
            return req_fail(r, TEMPO_EPLATFORM, "%s: SDL_CreateTexture: %s", r->path, sdl_text("failed"));
        /* What SDL_CreateTextureFromSurface carries over (no colour key here). */
        Uint8 cr, cg, cb, ca;
        SDL_BlendMode bm;
        SDL_GetSurfaceColorMod(s, &cr, &cg, &cb);
        SDL_SetTextureColorMod(r->texture, cr, cg, cb);
        SDL_GetSurfaceAlphaMod(s, &ca);
        SDL_SetTextureAlphaMod(r->texture, ca);
        SDL_GetSurfaceBlendMode(s, &bm);
        SDL_SetTextureBlendMode(r->texture, bm);
        r->rows_done = 0;
    }
    /* The cost per byte is learnt from the copy alone: a texture's creation
     * (GPU memory on opengl) in a first small strip would make the next
     * strips far too small for many uploads. */
    uint64_t tc = l->now_ns(l->now_user);
    if (rows > s->h - r->rows_done)
        rows = s->h - r->rows_done;
    if (rows > 0) {
        SDL_Rect rect = {0, r->rows_done, s->w, rows};
        const Uint8 *px = (const Uint8 *)s->pixels + (size_t)r->rows_done * (size_t)s->pitch;
        if (SDL_UpdateTexture(r->texture, &rect, px, s->pitch) != 0)
            return req_fail(r, TEMPO_EPLATFORM, "%s: SDL_UpdateTexture: %s", r->path, sdl_text("failed"));
        r->rows_done += rows;
    }
    uint64_t t1 = l->now_ns(l->now_user);
    l->upload_ns = t1 - t0;
    l->upload_ns_per_byte = tempo__upload_learn(
        l->upload_ns_per_byte, (uint64_t)rows * (uint64_t)s->w * SDL_BYTESPERPIXEL(s->format->format), t1 - tc);
    return 0;
}

/* [loop thread] */
static void finalize(tempo_loader *l, req *r)
{
    if (r->type == TEMPO_LOAD_IMAGE && l->renderer != NULL && r->surface != NULL &&
        (r->texture != NULL || streamable(l, r))) {
        /* The rest of the rows (all of them when no strip went up yet). */
        upload_rows(l, r, r->surface->h);
        SDL_FreeSurface(r->surface);
        r->surface = NULL;
    } else if (r->type == TEMPO_LOAD_IMAGE && l->renderer != NULL && r->surface != NULL) {
        SDL_ClearError();
        r->texture = SDL_CreateTextureFromSurface(l->renderer, r->surface);
        SDL_FreeSurface(r->surface);
        r->surface = NULL;
        if (r->texture == NULL)
            req_fail(r, TEMPO_EPLATFORM, "%s: SDL_CreateTextureFromSurface: %s", r->path,
                     sdl_text("failed"));
    } else if (r->type == TEMPO_LOAD_CUSTOM && r->finalize != NULL) {
        SDL_ClearError();
        int rc = r->finalize(&r->job, &r->custom);
        if (rc < 0) {
            req_fail(r, rc, "%s", sdl_text(tempo_strerror(rc)));
            free_objects(r);
        }
    }
}

static void free_req(req *r)
{
    free((void *)r->job.args);
    SDL_free(r->error_text);
    free(r);
}

/* Finalizes (unless cancelled or failed), counts and delivers one request,
 * then frees it. `destroying`: the loader is going away, so everything not
 * yet delivered counts as cancelled. [loop thread] */
static void deliver(tempo_loader *l, req *r, bool destroying)
{
    bool cancelled = r->cancelled || destroying; /* nobody writes it once finished is left */
    if (!cancelled && r->error == 0)
        finalize(l, r);
    if (cancelled) {
        free_objects(r);
        req_fail(r, TEMPO_ECANCELED, "%s",
                 r->cancelled ? "cancelled (tempo_loader_cancel)" : "loader destroyed before delivery");
    } else if (r->error != 0) {
        free_objects(r); /* e.g. a custom result left next to an error */
        /* Expected: the result carries it. A game loading untrusted files
         * must not be flooded (or slowed) by one log line per refusal. */
        tempo__log(TEMPO_LOG_DEBUG, "tempo loader: request %llu (%s) failed: %s: %s", (unsigned long long)r->id,
                   r->type == TEMPO_LOAD_CUSTOM ? "custom job" : r->path, tempo_errname(r->error),
                   r->error_text ? r->error_text : "");
    }

    plat_mutex_lock(l->lock);
    group_rec *g = find_group(l, r->group);
    bool batch_done = false;
    tempo_load_progress batch = {0};
    if (g) {
        g->p.items_done++;
        g->p.bytes_done += r->bytes;
        if (r->error == TEMPO_ECANCELED)
            g->p.items_cancelled++;
        else if (r->error != 0)
            g->p.items_failed++;
        /* This delivery completes the batch: a submit from the `done`
         * below starts a new one (as for progress). */
        if (g->p.items_done == g->p.items_total) {
            batch_done = true;
            batch = g->p;
        }
    }
    l->stats.delivered++;
    if (r->error == TEMPO_ECANCELED)
        l->stats.cancelled++;
    else if (r->error != 0)
        l->stats.failed++;
    plat_mutex_unlock(l->lock);

    tempo_load_result res;
    if (r->done != NULL || l->tap != NULL) {
        res = (tempo_load_result){
            .id = r->id,
            .type = r->type,
            .group = r->group,
            .error = r->error,
            .error_text = r->error_text ? r->error_text : "",
            .path = r->path,
            .user = r->user,
            .args = r->type == TEMPO_LOAD_CUSTOM ? r->job.args : NULL,
            .args_size = r->type == TEMPO_LOAD_CUSTOM ? r->job.args_size : 0,
            .bytes = r->bytes,
            .work_ns = r->work_ns,
            .latency_ns = tempo_now_ns() - r->submit_ns,
            .texture = r->texture,
            .surface = r->surface,
            .chunk = r->chunk,
            .music = r->music,
            .data = r->data,
            .size = r->size,
            .custom = r->custom,
        };
        if (l->tap != NULL && !destroying)
            l->tap(l->tap_user, &res);
    }
    if (r->done != NULL) {
        r->done(l, &res, r->user);
    } else {
        free_objects(r); /* nobody to hand it to */
    }
    uint32_t group = r->group;
    free_req(r);
    if (batch_done && l->group_done != NULL)
        l->group_done(l, group, &batch, l->group_done_user);
}

/* How process() treats an image upload that does not fit before the deadline. */
typedef enum process_mode {
    WHOLE,     /* tempo_loader_process(): every item whole */
    SPLIT,     /* tempo_loader_process_until(): a strip now, the rest later */
    SPLIT_MUST /* the source's guaranteed unit: one item or one strip at least */
} process_mode;

/* The loop-thread half of process() and process_until(). `deadline`:
 * UINT64_MAX for none. Adds the strips uploaded to *strips. [loop thread] */
static int process(tempo_loader *l, uint64_t deadline, process_mode mode, uint32_t *strips)
{
    if (l == NULL)
        return TEMPO_EINVAL;
    if (l->in_process)
        return TEMPO_EBUSY;
    const uint64_t t0 = l->now_ns(l->now_user);
    /* With a deadline, do not start an item that would probably end after
     * it: the estimate is the running average of recent items (texture
     * uploads apart: those are sized to the time left below). */
    if (mode != SPLIT_MUST && deadline != UINT64_MAX && (t0 >= deadline || deadline - t0 < l->item_avg_ns))
        return 0;
    l->in_process = true;
    /* Where a strip must end: the deadline or the budget, whichever is first. */
    uint64_t limit = t0 + l->budget_ns < deadline ? t0 + l->budget_ns : deadline;
    uint64_t t = t0, item_max = 0, over = 0;
    int n = 0;
    uint32_t split = 0;
    for (;;) {
        plat_mutex_lock(l->lock);
        req *r = l->finished.head;
        bool stream = r != NULL && mode != WHOLE && !r->cancelled && r->error == 0 &&
                      (r->texture != NULL || streamable(l, r));
        plat_mutex_unlock(l->lock);
        if (r == NULL)
            break;
        if (stream) {
            /* Leave room for the rest of the delivery (the item average). */
            uint64_t left = limit > t ? limit - t : 0;
            left = left > l->item_avg_ns ? left - l->item_avg_ns : 0;
            SDL_Surface *sf = r->surface;
            int rows_left = sf->h - (r->texture != NULL ? r->rows_done : 0);
            uint64_t row_bytes = (uint64_t)sf->w * SDL_BYTESPERPIXEL(sf->format->format);
            bool must = mode == SPLIT_MUST && n == 0 && split == 0;
            int rows = tempo__upload_rows(l->upload_ns_per_byte, left, row_bytes, rows_left, must);
            if (rows == 0)
                break; /* not even a strip fits: the next call */
            if (rows < rows_left) {
                uint64_t ti = t;
                upload_rows(l, r, rows);
                t = l->now_ns(l->now_user);
                split++;
                if (t - ti > item_max)
                    item_max = t - ti;
                if (r->error == 0)
                    break; /* the time is used: the rest next call */
                /* A failed upload: deliver the error now. */
            }
            /* Otherwise the rest fits: delivered whole below. */
        }
        plat_mutex_lock(l->lock);
        req *front = list_pop_front(&l->finished);
        if (l->finished.count == 0)
            tempo_event_reset(l->done_ev);
        plat_mutex_unlock(l->lock);
        SDL_assert(front == r); /* loader threads only append; cancel does not move finished ones */
        (void)front;
        uint64_t ti = t;
        l->upload_ns = 0;
        deliver(l, r, false);
        n++;
        t = l->now_ns(l->now_user);
        uint64_t took = t - ti;
        if (took > item_max)
            item_max = took;
        if (took > l->budget_ns)
            over++;
        /* An exponential average over ~8 items follows a change of asset
         * size quickly without trusting one outlier. Uploads are learnt
         * apart (per byte), so one large image does not make every later
         * item look too big for the time left. */
        uint64_t cost = took > l->upload_ns ? took - l->upload_ns : 0;
        l->item_avg_ns = l->item_avg_ns ? l->item_avg_ns - l->item_avg_ns / 8 + cost / 8 : cost;
        if (t - t0 >= l->budget_ns)
            break; /* the rest waits for the next call; done_ev stays signalled */
        if (deadline != UINT64_MAX && (t >= deadline || deadline - t < l->item_avg_ns))
            break;
    }
    l->in_process = false;
    if (n > 0 || split > 0) {
        plat_mutex_lock(l->lock);
        l->stats.process_calls++;
        l->stats.items_over_budget += over;
        l->stats.upload_strips += split;
        if (t - t0 > l->stats.process_max_ns)
            l->stats.process_max_ns = t - t0;
        if (item_max > l->stats.item_max_ns)
            l->stats.item_max_ns = item_max;
        plat_mutex_unlock(l->lock);
    }
    if (strips != NULL)
        *strips += split;
    return n;
}

int tempo_loader_process(tempo_loader *l)
{
    return process(l, UINT64_MAX, WHOLE, NULL);
}

int tempo_loader_process_until(tempo_loader *l, uint64_t deadline_ns)
{
    return process(l, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns, SPLIT, NULL);
}

int tempo__loader_process_step(tempo_loader *l, uint64_t deadline_ns, bool must_progress, uint32_t *strips)
{
    return process(l, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns, must_progress ? SPLIT_MUST : SPLIT,
                   strips);
}

/* ---- Submit and cancel (any thread) ---------------------------------------- */

uint64_t tempo_loader_submit(tempo_loader *l, const tempo_load_request *q)
{
    if (l == NULL || q == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: %s is NULL", l == NULL ? "loader" : "request");
        return 0;
    }
    bool file = q->type == TEMPO_LOAD_IMAGE || q->type == TEMPO_LOAD_SOUND || q->type == TEMPO_LOAD_MUSIC ||
                q->type == TEMPO_LOAD_BYTES;
    if (!file && q->type != TEMPO_LOAD_CUSTOM) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: unknown request type %d", (int)q->type);
        return 0;
    }
    if (file && q->path == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: path is NULL");
        return 0;
    }
    if (q->type == TEMPO_LOAD_CUSTOM && q->work == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: custom request without a work function");
        return 0;
    }
    if (q->args_size > 0 && q->args == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: args is NULL with args_size %llu",
                         (unsigned long long)q->args_size);
        return 0;
    }

    size_t plen = file ? strlen(q->path) : 0;
    req *r = calloc(1, sizeof *r + plen + 1);
    void *args = NULL;
    if (r == NULL || (q->args_size > 0 && (args = malloc(q->args_size)) == NULL)) {
        free(r);
        tempo__set_error(TEMPO_ENOMEM, "tempo_loader_submit: %llu bytes",
                         (unsigned long long)(sizeof *r + plen + 1 + q->args_size));
        return 0;
    }
    if (plen)
        memcpy(r->path, q->path, plen);
    if (args)
        memcpy(args, q->args, q->args_size);
    r->type = q->type;
    r->priority = q->priority;
    r->group = q->group;
    r->done = q->done;
    r->user = q->user;
    r->work = q->work;
    r->finalize = q->finalize;
    r->discard = q->discard;
    r->job.args = args;
    r->job.args_size = q->args_size;
    r->job.user = q->user;
    r->state = REQ_QUEUED;

    int err = 0;
    uint64_t id = 0; /* r belongs to the loader once queued: never read it after unlocking */
    plat_mutex_lock(l->lock);
    group_rec *g = NULL;
    uint32_t pending = l->queue.count + l->running.count + l->finished.count;
    if (l->stopping)
        err = TEMPO_ESHUTDOWN;
    else if (pending >= l->max_pending)
        err = TEMPO_EFULL;
    else if ((g = get_group(l, q->group)) == NULL)
        err = TEMPO_ENOMEM;
    if (err == 0) {
        if (g->p.items_done == g->p.items_total) /* everything delivered: a new batch */
            memset(&g->p, 0, sizeof g->p);
        g->p.items_total++;
        g->p.bytes_total += q->size_hint_bytes;
        r->counted_bytes = q->size_hint_bytes;
        r->id = r->job.id = id = ++l->next_id;
        r->submit_ns = tempo_now_ns();
        queue_insert(&l->queue, r);
        l->stats.submitted++;
        tempo_event_reset(l->idle_ev);
    }
    plat_mutex_unlock(l->lock);

    if (err != 0) {
        /* A full queue is expected back-pressure, reported by the return
         * value: debug level, or a producer retrying floods the log. */
        if (err == TEMPO_EFULL)
            tempo__set_error_at(TEMPO_LOG_DEBUG, err, "tempo_loader_submit: %u requests pending (desc.max_pending)",
                                (unsigned)pending);
        else if (err == TEMPO_ESHUTDOWN)
            tempo__set_error_at(TEMPO_LOG_DEBUG, err, "tempo_loader_submit: the loader is being destroyed");
        else
            tempo__set_error(err, "tempo_loader_submit: no memory for progress group %u", (unsigned)q->group);
        free(args);
        free(r);
        return 0;
    }
    tempo_event_set(l->work_ev);
    return id;
}

/* [under lock] Marks r cancelled; a queued request moves straight to
 * finished so the next process() reports it. Returns true if newly cancelled. */
static bool cancel_locked(tempo_loader *l, req *r)
{
    bool fresh = !r->cancelled;
    r->cancelled = true;
    if (r->state == REQ_QUEUED) {
        list_remove(&l->queue, r);
        r->state = REQ_FINISHED;
        list_push_back(&l->finished, r);
        tempo_event_set(l->done_ev);
        update_idle(l);
    }
    return fresh;
}

static req *find_in(req_list *list, uint64_t id)
{
    for (req *r = list->head; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

int tempo_loader_cancel(tempo_loader *l, uint64_t id)
{
    if (l == NULL)
        return TEMPO_EINVAL;
    plat_mutex_lock(l->lock);
    req *r = find_in(&l->queue, id);
    if (r == NULL)
        r = find_in(&l->running, id);
    if (r == NULL)
        r = find_in(&l->finished, id);
    if (r != NULL)
        cancel_locked(l, r);
    plat_mutex_unlock(l->lock);
    return r != NULL ? 0 : TEMPO_ENOENT;
}

int tempo_loader_cancel_group(tempo_loader *l, uint32_t group)
{
    if (l == NULL)
        return TEMPO_EINVAL;
    int n = 0;
    plat_mutex_lock(l->lock);
    req_list *lists[3] = {&l->queue, &l->running, &l->finished};
    for (int i = 0; i < 3; i++) {
        req *next;
        for (req *r = lists[i]->head; r; r = next) {
            next = r->next; /* cancel_locked may move a queued r to finished */
            if (r->group == group && cancel_locked(l, r))
                n++;
        }
    }
    plat_mutex_unlock(l->lock);
    return n;
}

/* ---- Queries -------------------------------------------------------------- */

tempo_handle *tempo_loader_handle(tempo_loader *l)
{
    return l ? l->done_ev : NULL;
}

int tempo_loader_wait_idle(tempo_loader *l, uint64_t timeout_ns)
{
    if (l == NULL)
        return TEMPO_EINVAL;
    int r = tempo_wait(&l->idle_ev, 1, timeout_ns, 0);
    return r == 0 ? 0 : r;
}

int tempo_loader_progress(tempo_loader *l, uint32_t group, tempo_load_progress *out)
{
    if (l == NULL || out == NULL)
        return TEMPO_EINVAL;
    plat_mutex_lock(l->lock);
    group_rec *g = find_group(l, group);
    if (g)
        *out = g->p;
    else
        memset(out, 0, sizeof *out);
    plat_mutex_unlock(l->lock);
    return 0;
}

int tempo_loader_stats_get(tempo_loader *l, tempo_loader_stats *out)
{
    if (l == NULL || out == NULL)
        return TEMPO_EINVAL;
    plat_mutex_lock(l->lock);
    *out = l->stats;
    out->queued = l->queue.count;
    out->running = l->running.count;
    out->finished = l->finished.count;
    plat_mutex_unlock(l->lock);
    return 0;
}

int tempo_loader_pending(tempo_loader *l)
{
    if (l == NULL)
        return 0;
    plat_mutex_lock(l->lock);
    int n = (int)(l->queue.count + l->running.count + l->finished.count);
    plat_mutex_unlock(l->lock);
    return n;
}

/* ---- Create and destroy (loop thread) -------------------------------------- */

static void stop_threads(tempo_loader *l)
{
    plat_mutex_lock(l->lock);
    l->stopping = true;
    plat_mutex_unlock(l->lock);
    tempo_event_set(l->stop_ev);
    for (int i = 0; i < l->n_threads; i++)
        plat_thread_join(l->threads[i]);
    l->n_threads = 0;
}

static void free_loader(tempo_loader *l)
{
    tempo_event_destroy(l->work_ev);
    tempo_event_destroy(l->done_ev);
    tempo_event_destroy(l->idle_ev);
    tempo_event_destroy(l->stop_ev);
    if (l->lock)
        plat_mutex_destroy(l->lock);
    free(l->groups);
    free(l);
    if (--mix_lock_users == 0) {
        plat_mutex_destroy(mix_lock);
        mix_lock = NULL;
    }
}

tempo_loader *tempo_loader_create(const tempo_loader_desc *desc)
{
    tempo_loader_desc d = desc ? *desc : (tempo_loader_desc){0};
    /* One message per wrong field, naming it and its range. */
    if (d.threads < 0 || d.threads > MAX_THREADS) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.threads is %d, outside 0..%d", d.threads,
                         MAX_THREADS);
        return NULL;
    }
    if (d.max_pending < 0) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.max_pending is %d, must be >= 0", d.max_pending);
        return NULL;
    }
    if (d.max_texture_size < 0) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.max_texture_size is %d, must be >= 0",
                         d.max_texture_size);
        return NULL;
    }
    tempo_loader *l = calloc(1, sizeof *l);
    if (l == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_loader_create");
        return NULL;
    }
    if (mix_lock_users++ == 0 && (mix_lock = plat_mutex_create()) == NULL) {
        free_loader(l);
        return NULL;
    }
    l->renderer = d.renderer;
    l->low_priority = d.low_priority;
    l->budget_ns = d.finalize_budget_ns ? d.finalize_budget_ns : DEFAULT_BUDGET_NS;
    l->max_pending = d.max_pending ? (uint32_t)d.max_pending : DEFAULT_MAX_PENDING;
    if (d.clock.now != NULL) { /* the shared tempo_clock wins over the older fields */
        l->now_ns = d.clock.now;
        l->now_user = d.clock.user;
    } else {
        l->now_ns = d.now_ns ? d.now_ns : default_now;
        l->now_user = d.now_user;
    }
    l->max_pixels = d.max_image_pixels ? d.max_image_pixels : TEMPO_LOADER_DEFAULT_MAX_PIXELS;
    l->allow_unchecked = d.allow_unchecked_formats;
    l->group_done = d.group_done;
    l->group_done_user = d.group_done_user;
    if (d.renderer != NULL) {
        SDL_RendererInfo info;
        if (SDL_GetRendererInfo(d.renderer, &info) != 0) {
            tempo__set_error(TEMPO_EPLATFORM, "tempo_loader_create: SDL_GetRendererInfo: %s", SDL_GetError());
            free_loader(l);
            return NULL;
        }
        l->n_tex_formats = (int)SDL_min(info.num_texture_formats, SDL_arraysize(l->tex_formats));
        memcpy(l->tex_formats, info.texture_formats, sizeof l->tex_formats);
        l->max_tex_w = info.max_texture_width;
        l->max_tex_h = info.max_texture_height;
    }
    if (d.max_texture_size > 0)
        l->max_tex_w = l->max_tex_h = d.max_texture_size;
    if (l->max_tex_w <= 0)
        l->max_tex_w = DEFAULT_MAX_IMAGE_SIDE;
    if (l->max_tex_h <= 0)
        l->max_tex_h = DEFAULT_MAX_IMAGE_SIDE;

    l->lock = plat_mutex_create();
    l->work_ev = tempo_event_create(false, false);
    l->done_ev = tempo_event_create(true, false);
    l->idle_ev = tempo_event_create(true, true);
    l->stop_ev = tempo_event_create(true, false);
    if (!l->lock || !l->work_ev || !l->done_ev || !l->idle_ev || !l->stop_ev) {
        free_loader(l);
        return NULL;
    }
    /* SDL_image initialises a decoder lazily, unlocked, on its first use;
     * do it here, before any loader thread exists. */
    IMG_Init(IMG_INIT_PNG | IMG_INIT_JPG | IMG_INIT_TIF | IMG_INIT_WEBP);

    int want = d.threads ? d.threads : 1;
    for (int i = 0; i < want; i++) {
        char name[32];
        snprintf(name, sizeof name, "tempo-loader-%d", i);
        l->threads[i] = plat_thread_create(worker_main, name, l);
        if (l->threads[i] == NULL) {
            stop_threads(l);
            free_loader(l);
            return NULL;
        }
        l->n_threads = i + 1;
    }
    return l;
}

void tempo_loader_destroy(tempo_loader *l)
{
    if (l == NULL)
        return;
    if (l->in_process) {
        tempo__set_error(TEMPO_EBUSY, "tempo_loader_destroy called from a done callback: ignored");
        return;
    }
    if (tempo__leave_loop(l->loop, l->done_ev, "tempo_loader_destroy") < 0)
        return;
    stop_threads(l);
    /* No loader thread is left: the lists are ours. Deliver what finished
     * first (that is the order it would have been delivered in), then what
     * never started, all as cancelled. */
    l->in_process = true;
    for (;;) {
        plat_mutex_lock(l->lock);
        req *r = list_pop_front(&l->finished);
        if (r == NULL)
            r = list_pop_front(&l->queue);
        plat_mutex_unlock(l->lock);
        if (r == NULL)
            break;
        deliver(l, r, true);
    }
    l->in_process = false;
    free_loader(l);
}

tempo_loop **tempo__loader_loop(tempo_loader *l)
{
    return &l->loop;
}

/* ---- The loader source's hooks (sources_internal.h) ------------------------------ */

void tempo__loader_set_tap(tempo_loader *l, tempo__loader_tap_fn tap, void *user)
{
    l->tap = tap;
    l->tap_user = user;
}

int tempo__loader_deliver_id(tempo_loader *l, uint64_t id, uint64_t timeout_ns)
{
    if (l->in_process)
        return TEMPO_EBUSY;
    uint64_t give_up = tempo_now_ns() + timeout_ns;
    int rc = 0;
    for (;;) {
        plat_mutex_lock(l->lock);
        req *r = find_in(&l->finished, id);
        if (r != NULL) {
            list_remove(&l->finished, r);
            if (l->finished.count == 0)
                tempo_event_reset(l->done_ev);
            plat_mutex_unlock(l->lock);
            l->in_process = true;
            deliver(l, r, false);
            l->in_process = false;
            return 0;
        }
        bool pending = find_in(&l->queue, id) != NULL || find_in(&l->running, id) != NULL;
        if (!pending) {
            rc = TEMPO_ENOENT; /* never submitted, or delivered already */
        } else {
            /* Wait for the next item to finish. The reset is under the lock
             * the worker sets the event under, so no finish is missed; the
             * signal is restored below for the items left waiting. */
            tempo_event_reset(l->done_ev);
        }
        plat_mutex_unlock(l->lock);
        if (rc != 0)
            break;
        uint64_t now = tempo_now_ns();
        if (now >= give_up) {
            rc = TEMPO_ETIMEDOUT;
            break;
        }
        tempo_handle *h = l->done_ev;
        tempo_wait(&h, 1, give_up - now, 0);
    }
    plat_mutex_lock(l->lock);
    if (l->finished.count > 0)
        tempo_event_set(l->done_ev);
    plat_mutex_unlock(l->lock);
    return rc;
}
