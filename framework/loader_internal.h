/* The background loader's insides, shared by its files (tempo/loader.h is
 * the public side). The names here are private to the loader_*.c files.
 * Its files stand on floors, and calls only point down (docs/layout.md):
 *
 *   loader.c          the object: create and destroy, the loop it belongs to
 *   loader_queue.c    submit in priority order, the progress groups, cancel
 *                     and the queries (any thread)
 *   loader_reader.c   the reader threads: take a request, run its format's
 *                     decoder [loader thread]
 *   loader_deliver.c  process(): finalize + done on the loop thread within a
 *                     budget, strips sized to the time left, the
 *                     record/replay delivery hooks
 *   ------
 *   loader_formats.c  the per-format table: one entry per tempo_load_type
 *                     (decode off the loop thread, finalize and free on it)
 *   ------
 *   loader_io.c       a request's file: open, measure, read whole
 *   loader_upload.c   texture uploads in strips, learning the cost per byte
 *   ------
 *   loader_request.c  the request and its lists, the group lookup, the idle
 *                     signal, a request's failure record and its freeing
 *   upload_split.c    the pure strip-size arithmetic (upload_split.h)
 *
 * loader.c calls the floors under it (the reader's thread body, delivery,
 * the formats' setup); queue, reader and deliver call none of each other.
 * Above them all, loader_source.c (tempo_loader_attach) uses the public API
 * and the hooks in sources_internal.h.
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
#ifndef TEMPO_LOADER_INTERNAL_H
#define TEMPO_LOADER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "platform.h"
#include "sources_internal.h"
#include "tempo/loader.h"
#include "tempo_internal.h"

#define TEMPO__LOADER_MAX_THREADS 16

typedef enum load_state { REQ_QUEUED, REQ_RUNNING, REQ_FINISHED } load_state;

typedef struct load_req {
    struct load_req *prev, *next; /* on one of the loader's lists (under lock) */
    uint64_t id;
    tempo_load_type type;
    int priority;
    uint32_t group;
    load_state state;       /* under lock */
    bool cancelled;         /* under lock; read by the loop thread after it took the request */
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
} load_req;

typedef struct load_list {
    load_req *head, *tail;
    uint32_t count;
} load_list;

typedef struct load_group {
    uint32_t id;
    tempo_load_progress p;
} load_group;

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
    bool formats_held; /* holds a tempo__load_formats_ref() */
    int n_threads;
    plat_thread *threads[TEMPO__LOADER_MAX_THREADS];
    tempo_handle *work_ev, *done_ev, *idle_ev, *stop_ev;
    plat_mutex *lock;

    /* Under lock. */
    load_list queue, running, finished;
    bool stopping;
    uint64_t next_id;
    load_group *groups;
    int n_groups, cap_groups;
    tempo_loader_stats stats; /* queued/running/finished are filled from the lists */

    /* Loop thread only. */
    bool in_process;      /* inside process() or destroy()'s delivery: done callbacks run */
    uint64_t item_avg_ns; /* running average cost of one finalize + done, texture upload
                             excluded (process_until) */
    double upload_ns_per_byte; /* learnt texture upload cost (upload_split.h); 0: none yet */
    double create_ns_per_byte; /* learnt texture creation cost per byte of the texture
                                  (tempo__upload_create_ns); 0: none yet */
    uint64_t upload_ns;   /* time the last upload call took */
    tempo__loader_tap_fn tap; /* the recorder's view of deliveries (loader_source.c), or NULL */
    void *tap_user;
    tempo__attachment at; /* the loop it is a source of (loader_source.c) */
};

/* ---- loader_request.c: the request and its lists ------------------------ */

void tempo__loader_list_push_back(load_list *l, load_req *r);
/* Inserts r after `at` (NULL: at the front). */
void tempo__loader_list_insert_after(load_list *l, load_req *at, load_req *r);
void tempo__loader_list_remove(load_list *l, load_req *r);
load_req *tempo__loader_list_pop_front(load_list *l);
load_req *tempo__loader_list_find(load_list *l, uint64_t id);
/* [under lock] */
load_group *tempo__loader_group_find(tempo_loader *l, uint32_t id);
/* [under lock] Keeps idle_ev signalled exactly while nothing is queued or running. */
void tempo__loader_update_idle(tempo_loader *l);
/* [under lock] Adjusts the group's byte total once the real size is known. */
void tempo__loader_count_bytes(tempo_loader *l, load_req *r, uint64_t bytes);
/* Records a request's failure; returns `code`. [the thread owning r] */
int tempo__loader_fail(load_req *r, int code, const char *fmt, ...) TEMPO__PRINTF(3, 4);
/* SDL's per-thread error text after a failed SDL call, or `fallback`. */
const char *tempo__loader_sdl_text(const char *fallback);
/* Frees the request itself (its result objects must be gone). [loop thread] */
void tempo__loader_free_req(load_req *r);

/* ---- loader_io.c: a request's file ---------------------------------------- */

/* A loader thread's reusable file buffer (kept by loader_reader.c). */
typedef struct load_scratch {
    unsigned char *buf;
    size_t cap;
} load_scratch;

/* Opens r->path (regular files only) and measures it, counting the size
 * into its group. On failure records it in r and returns it. [loader thread] */
int tempo__loader_open(tempo_loader *l, load_req *r, SDL_RWops **out, uint64_t *size);

/* Reads the whole file with a NUL after it: into `s` (the buffer stays owned
 * by `s`) or, with s NULL, into a new SDL_malloc'd buffer that the caller
 * owns. Sets r->bytes. [loader thread] */
int tempo__loader_read_all(tempo_loader *l, load_req *r, load_scratch *s, unsigned char **buf, size_t *len);

/* ---- loader_upload.c: texture uploads in strips ----------------------------- */

/* Whether r's image goes up in strips. [loop thread] */
bool tempo__loader_streamable(const tempo_loader *l, const load_req *r);

/* The bytes of one row of `s` as the texture holds it (its pitch may pad). */
uint64_t tempo__loader_row_bytes(const SDL_Surface *s);

/* Uploads the next `rows` rows of r's surface (creating the texture first)
 * and learns the cost per byte. Returns 0 or a failed request's error (the
 * texture, if any, is freed with the request). [loop thread] */
int tempo__loader_upload_rows(tempo_loader *l, load_req *r, int rows);

/* ---- loader_formats.c: one entry per request type -------------------------
 * Adding a format is adding an entry: its tempo_load_type, whether it names
 * a file, how it is decoded and how its result is finalized and freed. */
typedef struct load_format {
    const char *name;  /* for logs: "image", "sound", ... */
    bool reads_file;   /* submit requires a path */
    /* Decodes r into its result fields, or records the failure (returns
     * <0). `sc` is the thread's reusable file buffer. [loader thread] */
    int (*decode)(tempo_loader *l, load_req *r, load_scratch *sc);
    /* Turns the decoded result into what `done` gets (a texture from a
     * surface...), or records the failure. NULL: nothing to do. Called only
     * for requests neither failed nor cancelled. [loop thread] */
    void (*finalize)(tempo_loader *l, load_req *r);
    /* Frees the result objects and clears their fields. [loop thread] */
    void (*release)(load_req *r);
} load_format;

/* The entry for `type`, or NULL for an unknown type. */
const load_format *tempo__load_format_of(tempo_load_type type);

/* Per-loader setup and teardown of what the formats share process-wide
 * (SDL_mixer's lock; SDL_image's decoder init). Returns 0 or <0 with the
 * detail set. [loop thread] */
int tempo__load_formats_ref(void);
void tempo__load_formats_unref(void);

/* ---- loader_reader.c: the reader threads ---------------------------------- */

/* The reader thread's body: plat_thread_create(tempo__loader_reader_main, name, loader). */
int tempo__loader_reader_main(void *loader);

/* ---- loader_deliver.c: the loop thread's half ------------------------------ */

/* Finalizes (unless cancelled or failed), counts and delivers one request,
 * then frees it. `destroying`: the loader is going away, so everything not
 * yet delivered counts as cancelled. [loop thread] */
void tempo__loader_deliver(tempo_loader *l, load_req *r, bool destroying);

#endif /* TEMPO_LOADER_INTERNAL_H */
