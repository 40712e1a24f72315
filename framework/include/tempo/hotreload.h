/* Tempo: asset hot-reload.
 *
 * Edit an asset while the game runs and the game gets the new version: a
 * tempo_hotreload watches one directory, and when a file the game registered
 * there changes it loads it again through the game's tempo_loader and hands
 * the result to a callback on the loop thread.
 *
 *   tempo_hotreload *hr = tempo_hotreload_create(&(tempo_hotreload_desc){
 *       .dir = "assets", .loader = ld });
 *   tempo_hotreload_watch(hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_hero, game);
 *   tempo_hotreload_attach(hr, loop);     // a source of the loop, like the loader
 *   tempo_loader_attach(ld, loop);        // the loader delivers the reloads
 *
 *   static void on_hero(tempo_hotreload *hr, const tempo_load_result *r, void *user) {
 *       if (r->error == 0) { SDL_DestroyTexture(hero); hero = r->texture; }  // now yours
 *       else SDL_Log("%s: %s", r->path, r->error_text);                       // keep the old one
 *   }
 *
 * Passive: the directory is watched by the OS (inotify on Linux under the
 * sdl backend, ReadDirectoryChangesW under the win32 backend), whose handle
 * sits in the loop's wait set. Nothing polls and nothing wakes the loop while
 * no file in the directory changes. Other backends and systems (the sdl
 * backend off Linux) have no file watches: create fails with TEMPO_ENOTSUP.
 *
 * Settling: an editor's save is several events (write in place and close;
 * or write a temporary file, rename the original away, rename the temporary
 * in). A changed file is reloaded once no event about it has come for
 * desc.settle_ns, so one save gives one reload, of the complete file, and a
 * rename-away-then-in is a change, not a deletion. A file deleted for good
 * gives its callback the loader's error (TEMPO_ENOENT); the game keeps its
 * old asset.
 *
 * Delivery guarantee: every reload that started (the file settled and was
 * submitted to the loader) gets exactly one callback on the loop thread:
 * with the new asset, with the loader's error, or with TEMPO_ECANCELED (and
 * no object) when it is unwatched or the hotreload is destroyed first; those
 * TEMPO_ECANCELED calls are made from inside tempo_hotreload_unwatch() /
 * _destroy(), and the loader frees whatever it loaded for them. A change that
 * has not settled yet when the watch ends is dropped without a call. A file
 * changed again while its reload is in flight is reloaded again after that
 * reload is delivered.
 *
 * Record/replay: a recording keeps each decision to reload (the file's
 * name, at its tick) and the loader's completion; a replay reloads the
 * same files at the same ticks and delivers them at their recorded ticks,
 * whatever happens on disk meanwhile (live changes are ignored). It loads
 * the files as they are when replaying: content that changed since the
 * recording is not reproduced. The replaying game watches the same files,
 * and attaches the loader and the hotreload in the same order.
 *
 * Threads: every function here runs on the loop thread (the loader's), and
 * so do the callbacks.
 */
#ifndef TEMPO_HOTRELOAD_H
#define TEMPO_HOTRELOAD_H

#include "base.h"
#include "loader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_loop tempo_loop; /* tempo/loop.h */
typedef struct tempo_hotreload tempo_hotreload;

/* [loop thread] A reload's outcome, as the loader's `done` gets it (see
 * tempo_load_result for what the callback owns: on success the object is
 * the callback's to keep or free). result->path is the loader's path of the
 * file (desc.dir + "/" + name). It may call tempo_hotreload_watch() and
 * _unwatch() (its own file included), not tempo_hotreload_destroy(). */
typedef void (*tempo_hotreload_fn)(tempo_hotreload *hr, const tempo_load_result *result, void *user);

/* The default of tempo_hotreload_desc.settle_ns: 100 ms. Editors finish a
 * save's events within a few milliseconds; a person does not notice 100. */
#define TEMPO_HOTRELOAD_DEFAULT_SETTLE_NS (100 * TEMPO_NS_PER_MS)

typedef struct tempo_hotreload_desc {
    const char *dir;      /* required: the watched directory (UTF-8; not recursive); copied */
    tempo_loader *loader; /* required: reloads are submitted to it; not owned; must outlive
                             the hotreload (destroy the hotreload first) and be attached to
                             the same loop (tempo_loader_attach) for reloads to arrive */
    uint64_t settle_ns;   /* quiet time after a file's last event before it is reloaded;
                             0 => TEMPO_HOTRELOAD_DEFAULT_SETTLE_NS */
    int priority;         /* loader priority of the reloads; 0 => 0 */
    uint32_t group;       /* loader progress group of the reloads; 0 => group 0 */
} tempo_hotreload_desc;

/* Starts watching desc->dir. Returns the hotreload, owned by the caller, or
 * NULL with the reason in tempo_get_error(): TEMPO_EINVAL (NULL desc, dir or
 * loader), TEMPO_ENOTSUP (no file watches on this backend/OS), TEMPO_ENOENT
 * (no such directory), TEMPO_ENOMEM, TEMPO_EPLATFORM (the OS refused; its
 * text in the detail). Thread: loop thread. */
TEMPO_API tempo_hotreload *tempo_hotreload_create(const tempo_hotreload_desc *desc);

/* Detaches the hotreload from its loop (if attached), calls back every
 * reload in flight with TEMPO_ECANCELED (see "Delivery guarantee"), cancels
 * them in the loader, stops watching and frees everything. NULL is a no-op.
 * Not from a tempo_hotreload_fn of this hotreload. Thread: loop thread. */
TEMPO_API void tempo_hotreload_destroy(tempo_hotreload *hr);

/* Reloads `name` (a file in desc.dir: a plain name, no separator; copied)
 * as `type` (TEMPO_LOAD_IMAGE, _SOUND, _MUSIC or _BYTES) whenever it
 * changes, calling fn(hr, result, user) with each reload. The file need not
 * exist yet: creating it counts as a change. Names are compared exactly
 * (case too) with what the OS reports. `user` is not touched.
 * Returns 0, TEMPO_EINVAL (NULL hr/name/fn, a name with a separator or
 * empty, "." or "..", another type), TEMPO_EBUSY (name already watched) or
 * TEMPO_ENOMEM. Thread: loop thread. */
TEMPO_API int tempo_hotreload_watch(tempo_hotreload *hr, const char *name, tempo_load_type type,
                                    tempo_hotreload_fn fn, void *user);

/* Stops reloading `name`. A reload of it in flight is called back with
 * TEMPO_ECANCELED before this returns; a change not settled yet is dropped.
 * Returns 0 or TEMPO_EINVAL (NULL, or not watched). Thread: loop thread. */
TEMPO_API int tempo_hotreload_unwatch(tempo_hotreload *hr, const char *name);

/* Makes the hotreload a source of `loop` (tempo_loop_add_source): two
 * entries, "hotreload" (the directory's change handle) and
 * "hotreload-settle" (a one-shot timer armed only while a change settles).
 * The loop dispatches them on the loop thread; neither wakes it while no
 * file changes. Returns 0, TEMPO_EINVAL (NULL), TEMPO_EBUSY (already
 * attached) or TEMPO_ETOOMANY (fewer than two source slots free). */
TEMPO_API int tempo_hotreload_attach(tempo_hotreload *hr, tempo_loop *loop);

/* Leaves the loop it is attached to (changes are then read again after the
 * next attach). tempo_hotreload_destroy() and tempo_loop_destroy() detach it
 * too. Not from the hotreload's own dispatch (a tempo_hotreload_fn runs from
 * the loader's, so it may). Returns 0 or TEMPO_EINVAL (NULL, not attached).
 * Thread: loop thread. */
TEMPO_API int tempo_hotreload_detach(tempo_hotreload *hr);

/* Counters since create. */
typedef struct tempo_hotreload_stats {
    uint32_t watched;   /* files watched now */
    uint32_t settling;  /* changed files waiting to settle */
    uint32_t in_flight; /* reloads submitted and not yet called back */
    uint64_t events;    /* change notices read from the OS (any name in the directory) */
    uint64_t reloads;   /* reloads submitted to the loader */
    uint64_t delivered; /* callbacks made, errors and cancellations included */
    uint64_t failed;    /* callbacks with an error other than TEMPO_ECANCELED */
    uint64_t overflows; /* times the OS lost track (every watched file was reloaded) */
} tempo_hotreload_stats;

/* Fills *out. Returns 0 or TEMPO_EINVAL. Thread: loop thread. */
TEMPO_API int tempo_hotreload_get_stats(const tempo_hotreload *hr, tempo_hotreload_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_HOTRELOAD_H */
