/* Tempo: the background loader.
 *
 * Decoding assets takes milliseconds each; hundreds of them on the loop thread
 * freeze the game. The loader moves the slow part (file reads, SDL_image and
 * SDL_mixer decoding, your own work functions) to long-lived loader threads and
 * hands the results back to the loop thread, which finalizes them (e.g.
 * SDL_CreateTextureFromSurface, which must run on the render thread) under a
 * per-frame time budget:
 *
 *   tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){ .renderer = ren });
 *   tempo_loader_submit(ld, &(tempo_load_request){
 *       .type = TEMPO_LOAD_IMAGE, .path = "hero.png", .group = LEVEL, .done = on_hero });
 *   ...
 *   tempo_loader_attach(ld, loop);         // the loop finalizes
 *                                          // between frames
 *   tempo_load_progress p;
 *   tempo_loader_progress(ld, LEVEL, &p);  // p.items_done / p.items_total
 *
 *   static void on_hero(tempo_loader *ld, const tempo_load_result *r, void *user) {
 *       if (r->error == 0) hero_texture = r->texture;   // now yours to destroy
 *       else SDL_Log("%s: %s", r->path, r->error_text);
 *   }
 *
 * Requests are copied by value: the path, the parameters and a custom job's
 * argument bytes are copied at submit, so no pointer into caller memory is
 * kept (except `user`, which Tempo only passes along). Loader threads sleep in
 * tempo_wait() on an event and wake the moment work arrives: an idle loader
 * costs nothing.
 *
 * Delivery guarantee: every request that tempo_loader_submit() accepted (it
 * returned an id) gets exactly one `done` call, on the loop thread, from
 * tempo_loader_process() or tempo_loader_destroy(): with its object, with an
 * error, or with TEMPO_ECANCELED. Never from inside submit or cancel.
 *
 * Order: higher priority starts first, FIFO within one priority. With one
 * loader thread (the default) results are delivered in that order; with more,
 * requests start in that order and are delivered as they finish.
 *
 * Library requirements (checked against SDL_image 2.6 and SDL_mixer 2.6;
 * docs/loading.md, "SDL_image and SDL_mixer", says why each holds):
 *  - tempo_loader_create() calls IMG_Init() for PNG, JPG, TIF and WEBP on
 *    the loop thread; call IMG_Quit() (if at all) after
 *    tempo_loader_destroy().
 *  - Sound and music requests need Mix_OpenAudio() first (else the request
 *    fails with TEMPO_EINVAL); Mix_CloseAudio()/Mix_Quit() only after
 *    tempo_loader_destroy(). Call Mix_Init() for the compressed formats you
 *    load before their first request (tempo_audio_create() does it for OGG,
 *    MP3, FLAC and OPUS: opening the tempo_audio first is enough).
 *  - A sound (Mix_Chunk) that is not WAV/AIFF/VOC stalls playback for its
 *    decode time: keep sound effects as WAV, load long compressed audio as
 *    music, which streams from its file (kept open until Mix_FreeMusic()).
 *
 * Hostile files: every bad file becomes that request's error, never a
 * crash, a giant allocation or a hang. Before a decoder sees the data the
 * loader identifies the format by its first bytes (never by the file name;
 * TGA, which has none, by the name ".tga"), checks what its header claims
 * (image sizes against desc.max_texture_size and desc.max_image_pixels,
 * default TEMPO_LOADER_DEFAULT_MAX_PIXELS; audio channels and rates; MIDI
 * songs over 10 minutes as a sound or a day as music are TEMPO_ERANGE), and
 * calls that format's decoder itself. Formats that cannot be checked first
 * (SVG, TIFF, ICO/CUR, PCX, LBM, XCF, XV, AVIF, JPEG XL, VOC, data without
 * an audio signature) are TEMPO_ENOTSUP unless desc.allow_unchecked_formats.
 * Only regular files are opened (a FIFO or device: TEMPO_EIO at once).
 * docs/loading.md ("What the loader checks") has every check, and the
 * costs measured. Expected failures are in the result (and logged at
 * TEMPO_LOG_DEBUG only, see tempo_log_set_level): a game loading untrusted
 * files is not flooded.
 *
 * Threads: create, destroy and process on the loop thread (the renderer's
 * thread); submit, cancel, progress, stats and wait_idle from any thread.
 * Work functions run on a loader thread; finalize, discard and done run on
 * the loop thread.
 */
#ifndef TEMPO_LOADER_H
#define TEMPO_LOADER_H

#include <SDL_mixer.h>

#include "base.h"
#include "clock.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SDL's types, declared here so this header needs no SDL.h: `struct
 * SDL_Texture` is SDL_Texture, and so on (the same tags in SDL2 and
 * sdl2-compat). SDL_mixer's come from SDL_mixer.h by their typedef names:
 * Mix_Music's struct tag changed in SDL_mixer 2.8 (audio.h). */
struct SDL_Renderer;
struct SDL_Texture;
struct SDL_Surface;

typedef struct tempo_loader tempo_loader;
typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

typedef enum tempo_load_type {
    TEMPO_LOAD_IMAGE = 1, /* SDL_image decode -> SDL_Surface, or SDL_Texture with a renderer */
    TEMPO_LOAD_SOUND = 2, /* Mix_LoadWAV_RW -> Mix_Chunk (decoded to the device format) */
    TEMPO_LOAD_MUSIC = 3, /* Mix_LoadMUSType_RW -> Mix_Music (streams from the file) */
    TEMPO_LOAD_BYTES = 4, /* the whole file in memory */
    TEMPO_LOAD_CUSTOM = 5 /* your work function on a loader thread + finalize on the loop thread */
} tempo_load_type;

/* What a custom job's callbacks receive. The loader owns it; it is valid from
 * the start of work until `done` returns. */
typedef struct tempo_load_job {
    uint64_t id;
    const void *args; /* the loader's copy of request.args; NULL if args_size is 0 */
    size_t args_size;
    void *user;     /* request.user */
    uint64_t bytes; /* work may set it: the bytes it read, for progress */
} tempo_load_job;

/* [loader thread] Does the slow part of a custom job: read, decode, build.
 * Store the product in *result (it starts NULL; it may stay NULL). Return 0,
 * or a negative TEMPO_E* code: then set the reason with SDL_SetError() (the
 * loader clears SDL's per-thread error before calling and copies the text
 * into the result), and clean up anything already in *result yourself or
 * leave it for `discard`. Must return: tempo_loader_destroy() waits for it. */
typedef int (*tempo_load_work_fn)(tempo_load_job *job, void **result);

/* [loop thread] Optional second half of a custom job, run within the
 * process budget after work succeeded and only if the request was not
 * cancelled: the place for what must happen on the loop thread (create a
 * texture, insert the object into the world). May replace *result. Return 0,
 * or a negative TEMPO_E* code (reason via SDL_SetError(), as for work): then
 * the loader calls `discard` on whatever *result holds. */
typedef int (*tempo_load_finalize_fn)(tempo_load_job *job, void **result);

/* [loop thread] Optional: frees a custom result that nobody will receive: the
 * request was cancelled after work ran, finalize failed, the loader was
 * destroyed, or the request has no `done`. Called only for a non-NULL
 * result. Without it such results are simply dropped (leaked if they own
 * memory). */
typedef void (*tempo_load_discard_fn)(tempo_load_job *job, void *result);

typedef struct tempo_load_result tempo_load_result;

/* [loop thread] Delivers a request's outcome; see tempo_load_result for what
 * the callback owns. It may call tempo_loader_submit(), _cancel(),
 * _progress() and _stats(); not tempo_loader_process() (returns TEMPO_EBUSY)
 * nor tempo_loader_destroy(). During tempo_loader_destroy() it is called with
 * TEMPO_ECANCELED and submit fails with TEMPO_ESHUTDOWN. */
typedef void (*tempo_load_done_fn)(tempo_loader *loader, const tempo_load_result *result, void *user);

/* A request. Zero fields take the default beside them. Everything is copied
 * by tempo_loader_submit(); the struct may be reused or freed afterwards. */
typedef struct tempo_load_request {
    tempo_load_type type;     /* required */
    const char *path;         /* IMAGE/SOUND/MUSIC/BYTES: the file (UTF-8), required; any length
                                 (the OS judges it; too long is a per-request TEMPO_ERANGE) */
    int priority;             /* higher starts first; 0 => 0; FIFO within one priority */
    uint32_t group;           /* progress group (tempo_loader_progress); 0 => group 0 */
    uint64_t size_hint_bytes; /* counted in the group's bytes_total until a loader thread has
                                 measured the file; 0 => unknown */
    tempo_load_done_fn done;  /* NULL => the loader frees the object right after finalizing
                                 (for custom jobs whose effect is their finalize) */
    void *user;               /* passed to done and the custom callbacks; never touched */
    /* TEMPO_LOAD_CUSTOM only: */
    tempo_load_work_fn work;         /* required */
    tempo_load_finalize_fn finalize; /* NULL => none */
    tempo_load_discard_fn discard;   /* NULL => none (see tempo_load_discard_fn) */
    const void *args;                /* argument bytes, copied: the "message" by value */
    size_t args_size;                /* 0 => no arguments */
} tempo_load_request;

/* A request's outcome, valid during the `done` call only (copy what you
 * keep). On success (error == 0) exactly the object for the type is set and
 * belongs to the callback from then on: keep it or free it with
 *   texture: SDL_DestroyTexture   surface: SDL_FreeSurface
 *   chunk:   Mix_FreeChunk        music:   Mix_FreeMusic
 *   data:    SDL_free             custom:  your own
 * On failure or cancellation every object is NULL: the loader already freed
 * whatever existed. */
struct tempo_load_result {
    uint64_t id;
    tempo_load_type type;
    uint32_t group;
    int error;              /* 0, or TEMPO_ECANCELED, or the failure (below) */
    const char *error_text; /* "" on success; otherwise the detail: SDL_GetError() text of the
                               failing SDL/SDL_image/SDL_mixer call, the OS reason, or ours */
    const char *path;       /* the loader's copy of request.path; "" for custom jobs */
    void *user;             /* request.user */
    const void *args;       /* custom: the loader's copy of request.args; else NULL */
    size_t args_size;
    uint64_t bytes;        /* bytes read from the file (custom: job.bytes) */
    uint64_t work_ns;      /* time on the loader thread */
    uint64_t latency_ns;   /* submit -> this callback, on tempo_now_ns() */
    struct SDL_Texture *texture; /* IMAGE with a renderer */
    struct SDL_Surface *surface; /* IMAGE without a renderer */
    Mix_Chunk *chunk;
    Mix_Music *music;
    void *data;            /* BYTES: SDL_malloc'd, `size` bytes plus a NUL after them */
    size_t size;
    void *custom;          /* CUSTOM: what work/finalize left in *result */
};
/* Per-request errors:
 *   TEMPO_ENOENT    the file does not exist
 *   TEMPO_ERANGE    path too long for the OS; image (or what its header
 *                   claims) larger than desc.max_texture_size or
 *                   desc.max_image_pixels; file over 2 GiB; a MIDI song
 *                   too long (see "Hostile files")
 *   TEMPO_EIO       the file cannot be opened or read (no permission), or it is
 *                   not a regular file (a directory, FIFO, device, socket)
 *   TEMPO_EFORMAT   empty file, not a format the loader recognises by its first
 *                   bytes, a header that lies (see "Hostile files"), a sound
 *                   under one sample frame at the audio device's rate, or the
 *                   decoder rejected the data; the text says why
 *   TEMPO_ENOTSUP   a format that cannot be checked before decoding, without
 *                   desc.allow_unchecked_formats
 *   TEMPO_EINVAL    sound/music without Mix_OpenAudio()
 *   TEMPO_ENOMEM    out of memory
 *   TEMPO_EPLATFORM texture creation failed (SDL text)
 *   TEMPO_ECANCELED cancelled, or the loader was destroyed first
 *   custom jobs: whatever work/finalize returned */

typedef struct tempo_load_progress tempo_load_progress; /* defined below */

/* [loop thread] Optional (desc.group_done): a batch of `group` (see
 * tempo_load_progress) is complete: called right after the `done` of the
 * delivery that made items_done reach items_total, with the batch's final
 * progress, so a loading screen need not poll. A submit to the group from
 * that `done` (or later) starts a new batch, which notifies again when it
 * completes. tempo_loader_destroy() also notifies the batches it completes
 * by cancelling them. It may call what a `done` callback may. */
typedef void (*tempo_load_group_done_fn)(tempo_loader *loader, uint32_t group, const tempo_load_progress *progress,
                                         void *user);

/* 8192 x 8192: 256 MiB as a 32-bit surface (see "Hostile files"). */
#define TEMPO_LOADER_DEFAULT_MAX_PIXELS (UINT64_C(8192) * 8192)

typedef struct tempo_loader_desc {
    int threads;                 /* loader threads; 0 => 1 (max 16) */
    struct SDL_Renderer *renderer; /* NULL => images are delivered as SDL_Surface; otherwise as
                                    SDL_Texture, created on the loop thread in process(). The
                                    loader threads also convert each surface to the texture
                                    format SDL would pick, so the loop thread only uploads. */
    uint64_t finalize_budget_ns; /* per tempo_loader_process() call; 0 => 2 ms */
    int max_pending;             /* requests accepted but not yet delivered; 0 => 8192;
                                    submit past it fails with TEMPO_EFULL */
    int max_texture_size;        /* images wider or taller fail with TEMPO_ERANGE, checked
                                    against the size the header claims before decoding (see
                                    "Hostile files": a lying header cannot make the decoder
                                    allocate gigabytes) and against the decoded surface.
                                    0 => the renderer's limit (SDL_GetRendererInfo), or 16384
                                    without a renderer or when it reports none (the software
                                    renderer). Non-zero replaces it: for tests, or to keep
                                    textures small. */
    bool low_priority;           /* false => loader threads keep the priority they are
                                    created with: loading gets its fair share of a busy machine
                                    (a loading screen). true => they become background threads
                                    (Linux: SCHED_IDLE at nice 19, and they give up the turn a
                                    wake-up wins them, on waking and between requests: a custom
                                    `work` of many ms keeps it until it returns, so split it;
                                    elsewhere SDL_THREAD_PRIORITY_LOW; Windows: the lowest): a
                                    contended core goes first to the loop thread and to what
                                    presents its frames (the X server or compositor, the GL
                                    driver's threads), as loading while the game plays wants;
                                    but loading then crawls while other threads keep every core
                                    busy, the game's workers included. docs/loading.md, "Loading
                                    while the game plays": a missed vblank per load at normal
                                    priority on a 2-core machine, none at low. */
    tempo_clock clock;           /* clock of the finalize budget; zero => tempo_now_ns. The
                                    same tempo_clock as the loop's and the queue's
                                    (tempo/clock.h): one fake clock drives all three. */
    uint64_t max_image_pixels;   /* images claiming or decoding to more pixels (w * h) fail with
                                    TEMPO_ERANGE; 0 => TEMPO_LOADER_DEFAULT_MAX_PIXELS (8192^2,
                                    256 MiB as a 32-bit surface) */
    bool allow_unchecked_formats; /* false => formats not checked before decoding (SVG, TIFF,
                                     VOC, ...: "Hostile files") fail with TEMPO_ENOTSUP. true =>
                                     decoded anyway (sized after): only for trusted files */
    tempo_load_group_done_fn group_done; /* NULL => no batch notification */
    void *group_done_user;               /* passed to group_done */
} tempo_loader_desc;

/* Creates a loader and starts its threads. `desc` may be NULL (defaults).
 * Returns the loader, owned by the caller, or NULL (invalid desc: the
 * detail names the field and its allowed range; out of memory; thread
 * creation failed; detail in tempo_get_error()).
 * Thread: loop thread (the renderer's, if one is given). */
TEMPO_API tempo_loader *tempo_loader_create(const tempo_loader_desc *desc);

/* Stops and frees the loader. Requests still queued are not started; a
 * request a loader thread is working on finishes its current step (decodes
 * cannot be interrupted) and is then discarded: destroy waits for it. Every
 * undelivered request gets its `done` call with TEMPO_ECANCELED, from here,
 * and every surface, chunk, music, buffer and custom result (via discard)
 * still held is freed. If attached (tempo_loader_attach), it leaves its
 * loop first (destroying the loop first is fine too). NULL is a no-op.
 * From a `done` callback of this loader it does nothing (TEMPO_EBUSY in
 * tempo_get_error()), and other threads must have stopped calling into
 * the loader before it starts (their submits would race with the free).
 * Thread: loop thread. */
TEMPO_API void tempo_loader_destroy(tempo_loader *loader);

/* Queues a request (copied; see tempo_load_request) and wakes a loader
 * thread. Returns the request id (> 0, unique for this loader), or 0 on
 * failure, with the reason in tempo_get_error(): NULL or invalid request
 * (TEMPO_EINVAL), too many pending (TEMPO_EFULL), loader shutting down
 * (TEMPO_ESHUTDOWN), out of memory. A failed submit never calls `done`.
 * Problems with the file itself are not detected here: they arrive as the
 * request's error. Thread: any. */
TEMPO_API uint64_t tempo_loader_submit(tempo_loader *loader, const tempo_load_request *request);

/* Cancels request `id`. Wherever it is, its `done` call will carry
 * TEMPO_ECANCELED and no object, and it arrives from the next
 * tempo_loader_process(), not from here:
 *   queued:   removed from the queue, never started;
 *   running:  the loader thread finishes its step, then the result is freed;
 *   finished but not yet delivered: the result is freed (never finalized).
 * Returns 0, TEMPO_ENOENT (unknown id, already delivered, or being delivered
 * right now) or TEMPO_EINVAL (loader NULL). Cancelling twice is harmless
 * (the second returns 0 too while it is still pending). Thread: any. */
TEMPO_API int tempo_loader_cancel(tempo_loader *loader, uint64_t id);

/* Cancels every undelivered request of `group`, as tempo_loader_cancel().
 * Returns how many were newly cancelled, or TEMPO_EINVAL. Thread: any. */
TEMPO_API int tempo_loader_cancel_group(tempo_loader *loader, uint32_t group);

/* Signalled (manual-reset) while finished results wait for
 * tempo_loader_process(); reset by process when none are left. With a loop,
 * attach the loader instead (tempo_loader_attach, below): the
 * loop then waits on this handle and processes the results itself. Do not
 * tempo_loop_watch() it: it stays signalled until the results are
 * processed, so a watch whose callback leaves any makes the loop spin.
 * Without a loop, tempo_wait() on it. Owned by the loader: do not set,
 * reset or destroy it. Thread: any. */
TEMPO_API tempo_handle *tempo_loader_handle(tempo_loader *loader);

/* Makes the loader a source of `loop`: each frame the loop finalizes and
 * delivers its finished results (each request's `done`) in the idle time
 * before the next update or render, and at least one per frame, however long
 * one takes (the loader's running cost estimate can no longer starve
 * delivery). An image whose texture upload does not fit before the deadline
 * goes up in strips of rows sized by the learnt upload cost, one strip batch
 * per dispatch, and is delivered when its last rows are up: a strip counts
 * as one unit (of the per-frame guarantee and of the "loader" items in the
 * statistics, which are deliveries plus strips;
 * tempo_loader_stats.upload_strips has the strips). While paused it keeps
 * delivering, a step at a time. The loader's desc.clock must be the loop's
 * clock (both default to tempo_now_ns()). Named "loader" in the statistics
 * (without item ages: each result's latency_ns has it).
 * tempo_loader_destroy() detaches it first. Returns 0, TEMPO_EINVAL (NULL),
 * TEMPO_EBUSY (already attached to a loop), TEMPO_ETOOMANY (no source slot)
 * or TEMPO_ENOMEM. Thread: loop thread. */
TEMPO_API int tempo_loader_attach(tempo_loader *loader, tempo_loop *loop);
/* Leaves the loop it is attached to; results wait in the loader again
 * (tempo_loader_process). Returns 0, TEMPO_EINVAL (NULL, not attached) or
 * TEMPO_EBUSY (from its own dispatch). Thread: loop thread. */
TEMPO_API int tempo_loader_detach(tempo_loader *loader);

/* Finalizes finished results and delivers them (`done`) until the budget
 * (desc.finalize_budget_ns, on desc.clock) is used up, checking the clock
 * after each item; at least one item per call, so the longest call is about
 * the budget plus one item. Cancelled results are freed here. The handle
 * stays signalled while results remain.
 *
 * When to call it: whenever the handle is signalled and nothing else is due,
 * i.e. wait on the frame timer at a lower index than the handle. Finalizing
 * then fills the idle time between frames in budget-sized slices, and a due
 * frame waits for one slice at most. Calling it only once per frame also
 * keeps frames short but caps delivery at (budget / cost of one item) items
 * per frame: bench_loader measured 2.7x the synchronous load time that way
 * (2 ms / ~1 ms per software texture), against 0.75x with idle-time slices.
 *
 * Returns the number delivered (0 when none waited), TEMPO_EBUSY when called
 * from inside a `done` callback, or TEMPO_EINVAL. Thread: loop thread. */
TEMPO_API int tempo_loader_process(tempo_loader *loader);

/* tempo_loader_process() for loops that know when their next frame is due
 * (`deadline_ns`, on desc.clock): it also stops before an item that would
 * probably end after the deadline (the estimate is the running average of
 * recent items), and delivers nothing once less than one average item fits.
 * A due frame then waits for one mis-estimated item at most, not for a whole
 * budget. The budget still caps each call. An image whose texture upload
 * does not fit goes up in strips of rows instead (SDL_CreateTexture, then
 * SDL_UpdateTexture per strip, sized by the upload cost per byte the loader
 * learns from every upload, the first strip leaving room for the texture's
 * creation, whose cost per byte it learns apart; none smaller than 16 KiB):
 * each call uploads what fits, and the image is delivered by the call that
 * uploads its last rows (images SDL must convert itself, i.e. palettes and
 * colour keys, are uploaded whole). Returns as tempo_loader_process(), 0
 * included when there was no time or only a strip went up
 * (stats.upload_strips counts those).
 * Thread: loop thread.
 *
 * Its estimate only changes when an item is delivered, so called alone it
 * can deliver nothing for good once one slow item made the estimate longer
 * than every gap between frames. In a tempo_loop (tempo/loop.h) use
 * tempo_loader_attach() instead: the loop gives the
 * deadline, parks the loader until the next frame when its time is used,
 * and guarantees one item per frame whatever the estimate says. */
TEMPO_API int tempo_loader_process_until(tempo_loader *loader, uint64_t deadline_ns);

/* Blocks until no request is queued or running (finished results may still
 * wait for tempo_loader_process) or `timeout_ns` passes (TEMPO_INFINITE: no
 * limit). Returns 0, TEMPO_ETIMEDOUT or TEMPO_EINVAL. A passive wait. For
 * tests and "load everything before the level starts". Thread: any. */
TEMPO_API int tempo_loader_wait_idle(tempo_loader *loader, uint64_t timeout_ns);

/* Progress of one request group, for loading screens. A batch is everything
 * submitted to the group until all of it has been delivered: the next submit
 * after that starts a new batch from zero. */
struct tempo_load_progress {
    uint32_t items_total;     /* submitted in this batch */
    uint32_t items_done;      /* delivered: loaded + failed + cancelled */
    uint32_t items_failed;    /* delivered with an error other than TEMPO_ECANCELED */
    uint32_t items_cancelled; /* delivered as TEMPO_ECANCELED */
    uint64_t bytes_total;     /* sizes known so far: measured by a loader thread when it opens
                                 the file, else the request's size_hint_bytes. Grows while
                                 unhinted files are still queued. */
    uint64_t bytes_done;      /* bytes read by the delivered items */
};

/* Fills *out for `group` (all zero for a group never used). Returns 0 or
 * TEMPO_EINVAL. Thread: any. */
TEMPO_API int tempo_loader_progress(tempo_loader *loader, uint32_t group, tempo_load_progress *out);

typedef struct tempo_loader_stats {
    uint32_t queued;   /* waiting for a loader thread */
    uint32_t running;  /* on a loader thread */
    uint32_t finished; /* waiting for tempo_loader_process (incl. cancelled ones) */
    uint64_t submitted, delivered, failed, cancelled; /* totals since create */
    uint64_t process_calls;     /* tempo_loader_process calls that delivered something or
                                   uploaded a strip */
    uint64_t process_max_ns;    /* the longest call, on desc.clock: at most about the budget
                                   plus one item */
    uint64_t item_max_ns;       /* the longest single finalize + done, on desc.clock */
    uint64_t items_over_budget; /* items whose finalize + done alone took longer than the whole
                                   budget: these make long frames; consider smaller assets or
                                   moving work from finalize into work */
    uint64_t upload_strips;     /* partial texture uploads: strips of a large image's rows
                                   uploaded by tempo_loader_process_until (or the loop) because
                                   the whole image did not fit before the deadline; the image
                                   is delivered when its last rows are up (issue 21) */
} tempo_loader_stats;

/* Fills *out. Returns 0 or TEMPO_EINVAL. Thread: any. */
TEMPO_API int tempo_loader_get_stats(tempo_loader *loader, tempo_loader_stats *out);

/* Requests accepted but not yet delivered (queued + running + finished), or
 * 0 for NULL. Thread: any. */
TEMPO_API int tempo_loader_pending(tempo_loader *loader);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_LOADER_H */
