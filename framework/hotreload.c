/* Asset hot-reload (tempo/hotreload.h): a source written only against the
 * source contract (tempo_loop_add_source) and the loader's public API, on a
 * platform file watch (plat_file.h, PLAT_HANDLE_FILEWATCH). [loop thread]
 *
 * Two sources: the directory's change handle ("hotreload"), whose dispatch
 * reads the OS's notices and marks watched files as settling, and a one-shot
 * timer ("hotreload-settle"), armed only while something settles, whose
 * dispatch submits the files that have been quiet for settle_ns. Both
 * dispatches finish their work in one call (return 0): neither is signalled,
 * so neither wakes the loop, while nothing changes. The settle source
 * declares what it delivers (a file's name: reload it now), so the loop
 * records the reloads and replays them at their ticks, with no replay code
 * here (tempo/loop.h, "What a source delivers").
 *
 * A reload in flight is a `ticket` (the loader's `user`): it outlives an
 * unwatch or a destroy, which orphan it (ticket->w = NULL) and cancel the
 * request, so the loader's later TEMPO_ECANCELED delivery only frees it. */
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "tempo/hotreload.h"
#include "tempo/loop.h"
#include "tempo/wait.h"
#include "tempo_internal.h"

typedef struct ticket ticket;

typedef struct watch {
    char *name;
    tempo_load_type type;
    tempo_hotreload_fn fn;
    void *user;
    bool settling;       /* changed; reload once quiet */
    uint64_t changed_ns; /* the last notice about it (tempo_now_ns) */
    ticket *inflight;    /* the reload submitted and not yet delivered */
    bool again;          /* changed while in flight: reload after delivery */
} watch;

struct ticket {
    tempo_hotreload *hr;
    watch *w; /* NULL: orphaned (unwatched or destroyed); the delivery only frees it */
    uint64_t id;
};

struct tempo_hotreload {
    char *dir;
    tempo_loader *loader;
    uint64_t settle_ns;
    int priority;
    uint32_t group;
    tempo_handle *changes; /* the file watch's public id (kind PLAT_HANDLE_FILEWATCH) */
    tempo_handle *settle;  /* one-shot timer */
    tempo_loop *loop;      /* attached to; NULL when not */
    int attached;          /* sources still in the loop (0..2) */
    watch **watches;
    int count, cap;
    tempo_hotreload_stats st;
};

static watch *find(const tempo_hotreload *hr, const char *name)
{
    for (int i = 0; i < hr->count; i++)
        if (strcmp(hr->watches[i]->name, name) == 0)
            return hr->watches[i];
    return NULL;
}

/* The earliest time a settling file is due, or UINT64_MAX. */
static uint64_t next_settle(const tempo_hotreload *hr)
{
    uint64_t at = UINT64_MAX;
    for (int i = 0; i < hr->count; i++) {
        const watch *w = hr->watches[i];
        if (w->settling && w->changed_ns + hr->settle_ns < at)
            at = w->changed_ns + hr->settle_ns;
    }
    return at;
}

static void arm_settle(tempo_hotreload *hr)
{
    uint64_t at = next_settle(hr);
    if (at == UINT64_MAX)
        tempo_timer_cancel(hr->settle);
    else
        tempo_timer_set(hr->settle, at, 0);
}

static void mark(tempo_hotreload *hr, watch *w, uint64_t now)
{
    if (!w->settling)
        hr->st.settling++;
    w->settling = true;
    w->changed_ns = now;
}

/* ---- Delivery ------------------------------------------------------------ */

static void submit(tempo_hotreload *hr, watch *w);

/* [loop thread] The loader's `done` for every reload. */
static void reloaded(tempo_loader *ld, const tempo_load_result *res, void *user)
{
    (void)ld;
    ticket *t = user;
    watch *w = t->w;
    tempo_hotreload *hr = t->hr;
    free(t);
    if (w == NULL)
        return; /* orphaned: its callback already ran with TEMPO_ECANCELED */
    w->inflight = NULL;
    hr->st.in_flight--;
    hr->st.delivered++;
    if (res->error != 0 && res->error != TEMPO_ECANCELED)
        hr->st.failed++;
    bool again = w->again;
    w->again = false;
    w->fn(hr, res, w->user);
    /* The callback may have unwatched this very file (freeing w): only a
     * pointer still in the array may be touched. */
    for (int i = 0; again && i < hr->count; i++)
        if (hr->watches[i] == w) {
            submit(hr, w);
            break;
        }
}

static void submit(tempo_hotreload *hr, watch *w)
{
    if (w->inflight != NULL) {
        w->again = true;
        return;
    }
    ticket *t = calloc(1, sizeof *t);
    size_t len = strlen(hr->dir) + 1 + strlen(w->name) + 1;
    char *path = malloc(len);
    if (t == NULL || path == NULL) {
        free(t);
        free(path);
        tempo__set_error(TEMPO_ENOMEM, "hotreload: out of memory; %s not reloaded", w->name);
        return;
    }
    strcpy(path, hr->dir);
    strcat(path, "/");
    strcat(path, w->name);
    t->hr = hr;
    t->w = w;
    t->id = tempo_loader_submit(hr->loader, &(tempo_load_request){.type = w->type,
                                                                  .path = path,
                                                                  .priority = hr->priority,
                                                                  .group = hr->group,
                                                                  .done = reloaded,
                                                                  .user = t});
    free(path);
    if (t->id == 0) {
        /* The loader refused (full, shutting down): the detail is set; the
         * next change tries again. */
        free(t);
        return;
    }
    w->inflight = t;
    hr->st.in_flight++;
    hr->st.reloads++;
}

/* Ends `w`'s reload in flight: its callback gets TEMPO_ECANCELED now, the
 * loader's own delivery later only frees the ticket. */
static void cancel_inflight(tempo_hotreload *hr, watch *w)
{
    ticket *t = w->inflight;
    if (t == NULL)
        return;
    t->w = NULL;
    w->inflight = NULL;
    w->again = false;
    hr->st.in_flight--;
    hr->st.delivered++;
    tempo_loader_cancel(hr->loader, t->id);
    size_t len = strlen(hr->dir) + 1 + strlen(w->name) + 1;
    char *path = malloc(len);
    if (path != NULL) {
        strcpy(path, hr->dir);
        strcat(path, "/");
        strcat(path, w->name);
    }
    tempo_load_result res = {.id = t->id,
                             .type = w->type,
                             .group = hr->group,
                             .error = TEMPO_ECANCELED,
                             .error_text = "hot-reload stopped before the reload was delivered",
                             .path = path != NULL ? path : w->name,
                             .user = t};
    w->fn(hr, &res, w->user);
    free(path);
}

/* ---- The two sources ------------------------------------------------------ */

typedef struct {
    tempo_hotreload *hr;
    uint64_t now;
    int overflow;
} notice_ctx;

static void on_notice(const char *name, void *user)
{
    notice_ctx *c = user;
    tempo_hotreload *hr = c->hr;
    hr->st.events++;
    if (name == NULL) {
        c->overflow = 1;
        return;
    }
    watch *w = find(hr, name);
    if (w != NULL)
        mark(hr, w, c->now);
}

static int changes_dispatch(void *self, tempo_source_call *call)
{
    tempo_hotreload *hr = self;
    plat_handle *fw = tempo__handle_get(hr->changes, PLAT_HANDLE_FILEWATCH);
    if (fw == NULL)
        return tempo__set_error(TEMPO_EINVAL, "hotreload: its file watch is gone");
    /* The settle timer runs on tempo_now_ns(), not the loop's clock (which
     * may be a fake one): file times are real. */
    notice_ctx c = {.hr = hr, .now = tempo_now_ns()};
    int r = plat_filewatch_read(fw, on_notice, &c);
    plat_handles_release(&fw, 1);
    if (r < 0)
        return r;
    if (c.overflow) {
        hr->st.overflows++;
        for (int i = 0; i < hr->count; i++)
            mark(hr, hr->watches[i], c.now);
    }
    call->items = (uint32_t)r;
    arm_settle(hr);
    return 0;
}

/* [loop thread] The settle source's deliver (tempo/loop.h): reload the
 * file the item names. Live from settle_dispatch; in a replay the loop
 * hands over the recorded decisions at their ticks instead (and drops the
 * live ones), so the reloads are submitted in the recorded order and the
 * loader's recorded completions find them. */
static void settle_deliver(void *self, const tempo_replay_item *item, const void *live)
{
    tempo_hotreload *hr = self;
    if (live != NULL) {
        submit(hr, (watch *)live); /* the watch itself */
        return;
    }
    char *name = malloc((size_t)item->size + 1);
    if (name == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "hotreload: out of memory; a replayed reload is lost");
        return;
    }
    memcpy(name, item->data, item->size);
    name[item->size] = '\0';
    watch *w = find(hr, name); /* NULL: not watched in this run */
    free(name);
    if (w != NULL)
        submit(hr, w);
}

static int settle_dispatch(void *self, tempo_source_call *call)
{
    tempo_hotreload *hr = self;
    uint64_t now = tempo_now_ns();
    uint32_t items = 0;
    /* Delivering submits, which may not reorder the array (nor call the
     * game), so one pass is enough. */
    for (int i = 0; i < hr->count; i++) {
        watch *w = hr->watches[i];
        if (w->settling && w->changed_ns + hr->settle_ns <= now) {
            w->settling = false;
            hr->st.settling--;
            tempo_replay_item it = {
                .kind = TEMPO_REPLAY_MESSAGE, .data = w->name, .size = (uint32_t)strlen(w->name)};
            tempo_loop_source_deliver(hr->loop, hr->settle, &it, w);
            items++;
        }
    }
    call->items = items;
    arm_settle(hr);
    return 0;
}

static void source_detached(void *self)
{
    tempo_hotreload *hr = self;
    if (--hr->attached == 0)
        hr->loop = NULL;
}

int tempo_hotreload_attach(tempo_hotreload *hr, tempo_loop *loop)
{
    if (hr == NULL || loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_attach: %s is NULL", hr == NULL ? "hotreload" : "loop");
    if (hr->loop != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_hotreload_attach: already attached to a loop");
    int r = tempo_loop_add_source(loop, &(tempo_source_desc){.name = "hotreload",
                                                            .handle = hr->changes,
                                                            .dispatch = changes_dispatch,
                                                            .detach = source_detached,
                                                            .self = hr});
    if (r < 0)
        return r;
    hr->loop = loop;
    hr->attached = 1;
    r = tempo_loop_add_source(loop, &(tempo_source_desc){.name = "hotreload-settle",
                                                        .handle = hr->settle,
                                                        .dispatch = settle_dispatch,
                                                        .detach = source_detached,
                                                        .self = hr,
                                                        .deliver = settle_deliver});
    if (r < 0) {
        tempo_loop_remove_source(loop, hr->changes);
        return r;
    }
    hr->attached = 2;
    return 0;
}

int tempo_hotreload_detach(tempo_hotreload *hr)
{
    if (hr == NULL || hr->loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_detach: %s",
                                hr == NULL ? "hotreload is NULL" : "not attached to a loop");
    tempo_loop *loop = hr->loop;
    int r1 = tempo_loop_remove_source(loop, hr->changes);
    int r2 = tempo_loop_remove_source(loop, hr->settle);
    return r1 < 0 ? r1 : r2 < 0 ? r2 : 0;
}

/* ---- Lifecycle and watches ------------------------------------------------ */

tempo_hotreload *tempo_hotreload_create(const tempo_hotreload_desc *desc)
{
    if (desc == NULL || desc->dir == NULL || desc->dir[0] == '\0' || desc->loader == NULL) {
        tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EINVAL, "tempo_hotreload_create: desc, desc.dir and desc.loader are required");
        return NULL;
    }
    tempo_hotreload *hr = calloc(1, sizeof *hr);
    if (hr == NULL || (hr->dir = malloc(strlen(desc->dir) + 1)) == NULL) {
        free(hr);
        tempo__set_error(TEMPO_ENOMEM, "tempo_hotreload_create: out of memory");
        return NULL;
    }
    strcpy(hr->dir, desc->dir);
    hr->loader = desc->loader;
    hr->settle_ns = desc->settle_ns != 0 ? desc->settle_ns : TEMPO_HOTRELOAD_DEFAULT_SETTLE_NS;
    hr->priority = desc->priority;
    hr->group = desc->group;
    plat_handle *fw = plat_filewatch_create(desc->dir);
    if (fw != NULL) {
        hr->changes = tempo__handle_add(fw, PLAT_HANDLE_FILEWATCH);
        if (hr->changes == NULL)
            plat_handle_destroy(fw);
    }
    if (hr->changes != NULL)
        hr->settle = tempo_timer_create(false);
    if (hr->settle == NULL) {
        tempo_hotreload_destroy(hr); /* keeps the detail: it sets no error */
        return NULL;
    }
    return hr;
}

static void watch_free(tempo_hotreload *hr, watch *w)
{
    cancel_inflight(hr, w);
    if (w->settling)
        hr->st.settling--;
    free(w->name);
    free(w);
}

void tempo_hotreload_destroy(tempo_hotreload *hr)
{
    if (hr == NULL)
        return;
    if (hr->loop != NULL)
        tempo_hotreload_detach(hr);
    /* From the last: a callback that unwatches another file moves only
     * those after it. */
    while (hr->count > 0) {
        watch *w = hr->watches[--hr->count];
        watch_free(hr, w);
    }
    free(hr->watches);
    if (hr->changes != NULL) {
        plat_handle *fw = tempo__handle_remove(hr->changes, &(int){0});
        if (fw != NULL)
            plat_handle_destroy(fw);
    }
    tempo_timer_destroy(hr->settle);
    free(hr->dir);
    free(hr);
}

static bool plain_name(const char *name)
{
    if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    return strchr(name, '/') == NULL && strchr(name, '\\') == NULL;
}

int tempo_hotreload_watch(tempo_hotreload *hr, const char *name, tempo_load_type type, tempo_hotreload_fn fn,
                          void *user)
{
    if (hr == NULL || name == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_watch: %s is NULL",
                                hr == NULL ? "hotreload" : name == NULL ? "name" : "fn");
    if (!plain_name(name))
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_watch: name \"%s\" is not a file name in the directory "
                                              "(empty, \".\", \"..\" or with a path separator)", name);
    if (type != TEMPO_LOAD_IMAGE && type != TEMPO_LOAD_SOUND && type != TEMPO_LOAD_MUSIC && type != TEMPO_LOAD_BYTES)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_watch: type %d is not IMAGE, SOUND, MUSIC or BYTES",
                                (int)type);
    if (find(hr, name) != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_hotreload_watch: \"%s\" is watched already", name);
    if (hr->count == hr->cap) {
        int cap = hr->cap > 0 ? hr->cap * 2 : 8;
        watch **grown = realloc(hr->watches, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return tempo__set_error(TEMPO_ENOMEM, "tempo_hotreload_watch: out of memory");
        hr->watches = grown;
        hr->cap = cap;
    }
    watch *w = calloc(1, sizeof *w);
    if (w == NULL || (w->name = malloc(strlen(name) + 1)) == NULL) {
        free(w);
        return tempo__set_error(TEMPO_ENOMEM, "tempo_hotreload_watch: out of memory");
    }
    strcpy(w->name, name);
    w->type = type;
    w->fn = fn;
    w->user = user;
    hr->watches[hr->count++] = w;
    hr->st.watched++;
    return 0;
}

int tempo_hotreload_unwatch(tempo_hotreload *hr, const char *name)
{
    if (hr == NULL || name == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_unwatch: %s is NULL", hr == NULL ? "hotreload" : "name");
    for (int i = 0; i < hr->count; i++) {
        watch *w = hr->watches[i];
        if (strcmp(w->name, name) != 0)
            continue;
        /* Out of the array first: the cancellation's callback may watch
         * or unwatch other files. */
        memmove(&hr->watches[i], &hr->watches[i + 1], (size_t)(hr->count - i - 1) * sizeof *hr->watches);
        hr->count--;
        hr->st.watched--;
        watch_free(hr, w);
        return 0;
    }
    return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_unwatch: \"%s\" is not watched", name);
}

int tempo_hotreload_get_stats(const tempo_hotreload *hr, tempo_hotreload_stats *out)
{
    if (hr == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_hotreload_get_stats: %s is NULL", hr == NULL ? "hotreload" : "out");
    *out = hr->st;
    return 0;
}
