/* The loop's registry: the game's watches and the sources in one table
 * (tempo/loop.h: tempo_loop_watch, tempo_loop_add_source), and the
 * dispatch of one source with its deadline, parking and statistics. The
 * frame (loop.c) decides when; this file keeps the entries. Its state is
 * its own (tempo_loop.reg, a tempo__registry): only this file writes it,
 * and a dispatch, handed its start and deadline, returns what the frame
 * applies (its error, the game time it took). [loop thread] */
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "replay_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

/* ---- The registry: watches and sources ---------------------------------------------- */

int tempo__loop_find_watch(const tempo_loop *L, const tempo_handle *h)
{
    for (int i = 0; i < L->reg.nwatch; i++)
        if (L->reg.watches[i].handle == h)
            return i;
    return -1;
}

static int find_watch_by_id(const tempo_loop *L, uint64_t id)
{
    for (int i = 0; i < L->reg.nwatch; i++)
        if (L->reg.watches[i].id == id)
            return i;
    return -1;
}

/* The source added with `h`, or NULL. */
tempo__source *tempo__loop_find_source(tempo_loop *L, const tempo_handle *h)
{
    int i = h != NULL ? tempo__loop_find_watch(L, h) : -1;
    return i >= 0 && L->reg.watches[i].source >= 0 ? &L->reg.watches[i].src : NULL;
}

/* A new entry at the end of the table, or NULL when it is full. */
static tempo__watch *add_entry(tempo_loop *L, tempo_handle *handle)
{
    if (L->reg.nwatch == TEMPO_LOOP_MAX_WATCHES)
        return NULL;
    tempo__watch *w = &L->reg.watches[L->reg.nwatch++];
    memset(w, 0, sizeof *w);
    w->handle = handle;
    w->id = ++L->reg.next_watch_id;
    w->source = -1;
    return w;
}

int tempo_loop_watch(tempo_loop *L, tempo_handle *handle, tempo_loop_watch_fn fn, void *user)
{
    if (L == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_watch: %s is NULL", L == NULL ? "loop" : "fn");
    if (tempo__handle_kind(handle) == 0) /* NULL or destroyed */
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_watch: handle %p is %s", (void *)handle,
                                handle == NULL ? "NULL" : "not a live handle (destroyed?)");
    if (tempo__loop_find_watch(L, handle) >= 0)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_watch: handle %p is already watched or a source",
                                (void *)handle);
    tempo__watch *w = add_entry(L, handle);
    if (w == NULL)
        return tempo__set_error(TEMPO_ETOOMANY, "tempo_loop_watch: the loop already waits on %d handles",
                                TEMPO_LOOP_MAX_WATCHES);
    w->fn = fn;
    w->user = user;
    return 0;
}

static void drop_watch(tempo_loop *L, int i)
{
    /* The frame dispatches from a snapshot and looks entries up by id before
     * each call, so compacting the live array here is safe mid-dispatch. */
    memmove(&L->reg.watches[i], &L->reg.watches[i + 1], sizeof L->reg.watches[0] * (size_t)(L->reg.nwatch - i - 1));
    L->reg.nwatch--;
}

int tempo_loop_unwatch(tempo_loop *L, tempo_handle *handle)
{
    if (L == NULL || handle == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_unwatch: %s is NULL", L == NULL ? "loop" : "handle");
    int i = tempo__loop_find_watch(L, handle);
    if (i < 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_unwatch: handle %p is not watched", (void *)handle);
    if (L->reg.watches[i].source >= 0) /* a source leaves with tempo_loop_remove_source */
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_unwatch: handle %p is a source's "
                                              "(tempo_loop_remove_source removes it)", (void *)handle);
    drop_watch(L, i);
    return 0;
}

/* ---- Record/replay channels (sources_internal.h) ------------------------------------- */

/* The class of a source named `name`: the one a framework source declares
 * under it, else the name's own (a new one at its first appearance). 0:
 * every class is taken. */
static uint32_t channel_class(tempo__channels *c, const char *name)
{
    static const char *const declared[] = TEMPO__DECLARED_CHANNEL_CLASSES;
    const uint32_t first_named = sizeof declared / sizeof declared[0] + 1;
    for (uint32_t k = 1; k < first_named; k++)
        if (strcmp(name, declared[k - 1]) == 0)
            return k;
    for (int k = 0; k < c->nnamed; k++)
        if (strcmp(name, c->name[k]) == 0)
            return first_named + (uint32_t)k;
    if (first_named + (uint32_t)c->nnamed == TEMPO__CHANNEL_CLASSES) {
        tempo__log(TEMPO_LOG_WARN, "loop: more than %u source names; \"%s\" is not recorded",
                   (unsigned)(TEMPO__CHANNEL_CLASSES - first_named), name);
        return 0;
    }
    snprintf(c->name[c->nnamed], sizeof c->name[c->nnamed], "%s", name);
    return first_named + (uint32_t)c->nnamed++;
}

/* A new source's channel id (0: none, it runs unrecorded). Attach order
 * within a class: the same game attaches the same way when it records and
 * when it replays, so the ids match across runs. */
static uint32_t new_channel(tempo__channels *c, const char *name)
{
    uint32_t cls = channel_class(c, name);
    if (cls == 0)
        return 0;
    return TEMPO__REPLAY_SOURCE_CHANNELS | cls << 16 | (c->next[cls]++ & 0xFFFF);
}

/* ---- Sources --------------------------------------------------------------------------- */

int tempo_loop_add_source(tempo_loop *L, const tempo_source_desc *desc)
{
    if (L == NULL || desc == NULL || desc->handle == NULL || desc->dispatch == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_add_source: %s is NULL",
                                L == NULL      ? "loop"
                                : desc == NULL ? "desc"
                                : desc->handle == NULL ? "desc.handle"
                                                       : "desc.dispatch");
    if (tempo__loop_find_watch(L, desc->handle) >= 0)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_add_source: handle %p is already watched or a source",
                                (void *)desc->handle);
    if (L->reg.nsource == TEMPO_LOOP_MAX_SOURCES)
        return tempo__set_error(TEMPO_ETOOMANY, "tempo_loop_add_source: the loop already has %d sources",
                                TEMPO_LOOP_MAX_SOURCES);
    tempo__watch *w = add_entry(L, desc->handle);
    if (w == NULL)
        return tempo__set_error(TEMPO_ETOOMANY, "tempo_loop_add_source: the loop already waits on %d handles",
                                TEMPO_LOOP_MAX_WATCHES);
    w->source = 0;
    L->reg.nsource++;
    tempo__source *src = &w->src;
    src->desc = *desc;
    snprintf(src->name, sizeof src->name, "%s", desc->name ? desc->name : "source");
    /* A new source owes no progress in a frame it has not seen. */
    src->progress_frame = UINT64_MAX;
    /* What it delivers is recorded and replayed through its channel. */
    if (desc->deliver != NULL)
        src->channel = new_channel(&L->reg.channels, src->name);
    return 0;
}

int tempo__loop_channel_source(tempo_loop *L, uint32_t channel, tempo_source_deliver_fn *deliver, void **self)
{
    for (int i = 0; channel != 0 && i < L->reg.nwatch; i++) {
        const tempo__source *src = &L->reg.watches[i].src;
        if (L->reg.watches[i].source >= 0 && src->channel == channel) {
            *deliver = src->desc.deliver;
            *self = src->desc.self;
            return 0;
        }
    }
    return TEMPO_EINVAL;
}

int tempo__loop_source_lookup(tempo_loop *L, tempo_handle *handle, tempo_source_deliver_fn *deliver, void **self,
                              uint32_t *channel)
{
    const tempo__source *src = tempo__loop_find_source(L, handle);
    if (src == NULL || src->desc.deliver == NULL)
        return TEMPO_EINVAL;
    *deliver = src->desc.deliver;
    *self = src->desc.self;
    *channel = src->channel;
    return 0;
}

/* Removes the source entry i, then runs its detach. */
static void drop_source(tempo_loop *L, int i)
{
    tempo__source gone = L->reg.watches[i].src;
    drop_watch(L, i);
    L->reg.nsource--;
    if (gone.desc.detach != NULL)
        gone.desc.detach(gone.desc.self);
}

int tempo__loop_remove_source(tempo_loop *L, tempo_handle *handle)
{
    int i = L != NULL && handle != NULL ? tempo__loop_find_watch(L, handle) : -1;
    if (i < 0 || L->reg.watches[i].source < 0)
        return TEMPO_EINVAL;
    if (L->reg.watches[i].id == L->reg.dispatching)
        return TEMPO_EBUSY; /* its dispatch is still running: detach would free it */
    drop_source(L, i);
    return 0;
}

int tempo_loop_remove_source(tempo_loop *L, tempo_handle *handle)
{
    int r = tempo__loop_remove_source(L, handle);
    if (r == TEMPO_EINVAL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_remove_source: %s", L == NULL ? "loop is NULL"
                                : handle == NULL ? "handle is NULL"
                                                 : "no source of this loop has that handle");
    if (r == TEMPO_EBUSY)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_remove_source: called from that source's own dispatch");
    return r;
}

int tempo__leave_loop(tempo_loop *L, tempo_handle *handle, const char *what)
{
    if (L == NULL)
        return 0;
    int r = tempo__loop_remove_source(L, handle);
    if (r == TEMPO_EBUSY)
        return tempo__set_error(TEMPO_EBUSY, "%s called from the object's own loop callback: ignored "
                                             "(destroy it after the callback returns)", what);
    return 0;
}

/* Last added first. A detach may remove other sources (a hot-reload has
 * two): start again from the end each time. */
void tempo__loop_detach_all(tempo_loop *L)
{
    while (L->reg.nsource > 0) {
        int i = L->reg.nwatch - 1;
        while (L->reg.watches[i].source < 0)
            i--;
        drop_source(L, i);
    }
}

/* A new frame for the sources: an update or render ran, the loop paused or
 * resumed, or a paused frame (one step) passed with work parked. Parking
 * ends here, so no parking outlives a frame, a pause or a resume. */
void tempo__loop_new_source_frame(tempo_loop *L, uint64_t now)
{
    L->reg.frame_seq++;
    L->reg.frame_seq_ns = now;
    for (int i = 0; i < L->reg.nwatch; i++)
        L->reg.watches[i].src.parked = false; /* false for every watch too */
}

bool tempo__loop_any_parked(const tempo_loop *L)
{
    for (int i = 0; i < L->reg.nwatch; i++)
        if (L->reg.watches[i].src.parked)
            return true;
    return false;
}

/* A source that said work remains and is not parked must be called again
 * without waiting (its handle may be an auto-reset one already consumed). */
bool tempo__loop_any_ready(const tempo_loop *L)
{
    for (int i = 0; i < L->reg.nwatch; i++)
        if (L->reg.watches[i].src.more && !L->reg.watches[i].src.parked)
            return true;
    return false;
}

static void add_source_counts(tempo_loop_source_counts *c, uint64_t busy, uint32_t items, bool overrun,
                              bool forced, uint64_t age)
{
    c->calls++;
    c->items += items;
    c->busy_ns += busy;
    c->overruns += overrun;
    c->forced += forced;
    if (age > c->max_age_ns)
        c->max_age_ns = age;
}


/* Dispatches the source of entry i once, at `now` with `deadline` (the
 * frame's: the next due update or render). Returns 0 or the dispatch's
 * error (the source is then removed). */
tempo__dispatch_verdict tempo__loop_dispatch_source(tempo_loop *L, int i, uint64_t now, uint64_t deadline)
{
    tempo__source *src = &L->reg.watches[i].src;
    uint64_t id = L->reg.watches[i].id;
    tempo_source_call call = {
        .now_ns = now,
        .deadline_ns = deadline,
        .must_progress = src->progress_frame != L->reg.frame_seq,
        .frame = L->reg.frame_seq,
        .replaying = L->hooks.replaying,
    };
    if (call.must_progress)
        src->progress_frame = L->reg.frame_seq;
    L->reg.dispatching = id;
    int r = src->desc.dispatch(src->desc.self, &call);
    L->reg.dispatching = 0;
    uint64_t t = loop_now(L);
    tempo__dispatch_verdict v = {.err = 0, .game_ns = t - now};
    /* The dispatch may have added or removed other entries (not itself):
     * find it again. */
    i = find_watch_by_id(L, id);
    src = &L->reg.watches[i].src;
    bool overrun = t > call.deadline_ns;
    bool forced = now >= call.deadline_ns && call.items > 0;
    add_source_counts(&src->win, t - now, call.items, overrun, forced, call.oldest_age_ns);
    add_source_counts(&src->total, t - now, call.items, overrun, forced, call.oldest_age_ns);
    src->oldest_age_ns = call.oldest_age_ns;
    if (r < 0) {
        tempo__set_error(r, "loop: source \"%s\" failed (%s): removed", src->name, tempo_strerror(r));
        drop_source(L, i);
        v.err = r;
        return v;
    }
    src->more = r > 0;
    /* Park a source that has used its time (or could not use it): it waits
     * for the next frame instead of waking the loop again at once. One that
     * stopped early on its own budget is called again next iteration. */
    src->parked = src->more && (t >= call.deadline_ns || call.items == 0);
    return v;
}

void tempo__loop_sources_start(tempo_loop *L, uint64_t now)
{
    L->reg.frame_seq_ns = now;
}

/* A statistics window is complete: each source's becomes its last. */
void tempo__loop_sources_roll_window(tempo_loop *L)
{
    for (int i = 0; i < L->reg.nwatch; i++) {
        tempo__source *src = &L->reg.watches[i].src;
        src->last = src->win;
        memset(&src->win, 0, sizeof src->win);
    }
}

/* ---- Pause hooks (tempo__source_pause_fn) -------------------------------------------- */

void tempo__loop_tell_sources(tempo_loop *L, bool idle_paused, bool game_paused, bool quitting)
{
    for (int i = 0; i < L->reg.nwatch; i++) {
        tempo__source *src = &L->reg.watches[i].src;
        if (src->pause_hook != NULL)
            src->pause_hook(src->desc.self, idle_paused, game_paused, quitting);
    }
}

int tempo__loop_source_pause_hook(tempo_loop *L, tempo_handle *handle, tempo__source_pause_fn fn)
{
    tempo__source *src = L != NULL ? tempo__loop_find_source(L, handle) : NULL;
    if (src == NULL)
        return TEMPO_EINVAL;
    src->pause_hook = fn;
    if (fn != NULL)
        fn(src->desc.self, L->notified_paused, L->sched.game_paused, L->told_quit);
    return 0;
}


