/* Record and replay (tempo/replay.h): the recorder and the replayer around
 * the loop's updates, and the delivery channels. The file format itself is
 * replay_file.c.
 *
 * Ticks are counted from the start of the recording (or of the replay):
 * tick k is the k-th update() after it. Everything that reaches the game
 * is attributed to the tick whose update comes next: an item delivered in
 * a watch callback before update k, and an input event read inside update
 * k, are both records of tick k, and the replay hands both over right
 * before update k (the events through the ring, which update k reads
 * again). Hashes are taken right after an update, before anything else
 * reaches the game, and so sit first among the next tick's records. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "loop_internal.h"
#include "platform.h"
#include "replay_file.h"
#include "replay_internal.h"
#include "tempo/replay.h"
#include "tempo_internal.h"

#define DEFAULT_HASH_EVERY 60u

/* A game's channel (tempo_loop_channel). The sources' channels are the
 * registry's (loop_sources.c: tempo__loop_channel_source). */
typedef struct channel {
    uint32_t id;
    tempo_replay_item_fn fn;
    void *user;
} channel;

typedef struct recorder {
    FILE *f;
    tempo__rpf_writer w;
    tempo_replay_hash_fn hash;
    void *hash_user;
    uint32_t hash_every, flush_every;
    uint64_t step_ns; /* the header's: other dt_ns get a DT record */
    bool in_update;
    int io_error; /* first write failure, reported by stop */
    tempo_record_stats st;
} recorder;

struct tempo_replay {
    uint8_t *data;
    size_t size;
    char *path;
    tempo_replay_desc desc;
    tempo_replay_info info;
    tempo__rpf_reader rd;
    tempo_loop *loop;       /* attached to */
    uint64_t now;           /* the fake clock */
    uint64_t step_ns;
    uint64_t tick;          /* updates replayed */
    uint32_t advance_left;  /* ticks left in the current ADVANCE */
    bool have_peek;
    tempo__rpf_record peek; /* read ahead after an update (anything but HASH) */
    bool eof;               /* END read, or the damage reached */
    bool dt_set;
    uint64_t dt_ns;
    tempo_replay_result res;
    char identity_here[TEMPO_BUILD_IDENTITY_MAX]; /* the replaying build's; "": unknown */
};

typedef struct tempo__replay_state {
    channel *ch; /* the game's */
    int nch, capch;
    recorder *rec;     /* recording, or NULL */
    tempo_replay *rp;  /* replaying, or NULL */
} tempo__replay_state;

/* The replay's state of a loop: the user of the hooks it installed in the
 * loop (tempo__loop_set_hooks), or NULL before the game used record,
 * replay or a channel. */
static tempo__replay_state *peek_state(const tempo_loop *L)
{
    return L->hooks.user;
}

static void install_hooks(tempo_loop *L, tempo__replay_state *s);

/* The state, created (and the hooks installed) on first use. NULL: no memory. */
static tempo__replay_state *state_of(tempo_loop *L)
{
    tempo__replay_state *s = peek_state(L);
    if (s == NULL && (s = calloc(1, sizeof *s)) != NULL)
        install_hooks(L, s);
    return s;
}

static uint64_t loop_clock(const tempo_loop *L)
{
    return L->clock.now(L->clock.user); /* the real clock or desc.clock */
}

static bool replaying(const tempo_loop *L)
{
    const tempo__replay_state *s = L != NULL ? peek_state(L) : NULL;
    return s != NULL && s->rp != NULL;
}

/* ---- Channels ------------------------------------------------------------------- */

static channel *find_channel(tempo__replay_state *s, uint32_t id)
{
    for (int i = 0; s != NULL && i < s->nch; i++)
        if (s->ch[i].id == id)
            return &s->ch[i];
    return NULL;
}

static int set_channel(tempo_loop *L, uint32_t id, tempo_replay_item_fn fn, void *user)
{
    tempo__replay_state *s = state_of(L);
    if (s == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_loop_channel: out of memory");
    channel *c = find_channel(s, id);
    if (fn == NULL) {
        if (c != NULL)
            *c = s->ch[--s->nch];
        return 0;
    }
    if (c == NULL) {
        if (s->nch == s->capch) {
            int cap = s->capch ? 2 * s->capch : 8;
            channel *n = realloc(s->ch, sizeof *n * (size_t)cap);
            if (n == NULL)
                return tempo__set_error(TEMPO_ENOMEM, "tempo_loop_channel: out of memory");
            s->ch = n;
            s->capch = cap;
        }
        c = &s->ch[s->nch++];
    }
    *c = (channel){.id = id, .fn = fn, .user = user};
    return 0;
}

int tempo_loop_channel(tempo_loop *L, uint32_t id, tempo_replay_item_fn fn, void *user)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_channel: loop is NULL");
    if (id >= TEMPO__REPLAY_SOURCE_CHANNELS)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_channel: id 0x%x is not below 0x%x (the ids above are "
                                              "the sources')", (unsigned)id, (unsigned)TEMPO__REPLAY_SOURCE_CHANNELS);
    return set_channel(L, id, fn, user);
}

static int write_item(recorder *r, uint32_t id, const tempo_replay_item *it)
{
    switch (it->kind) {
    case TEMPO_REPLAY_MESSAGE:
        return tempo__rpf_write_message(&r->w, id, it->type, it->data, it->size);
    case TEMPO_REPLAY_LOAD:
        return tempo__rpf_write_load(&r->w, id, it->type, it->error, it->group, it->id, it->value);
    case TEMPO_REPLAY_AUDIO:
        return tempo__rpf_write_audio(&r->w, id, it->type, it->audio_channel, it->id, it->value);
    }
    return TEMPO_EINVAL;
}

static int check_item(const char *fn, const tempo_replay_item *item)
{
    if (item->kind < TEMPO_REPLAY_MESSAGE || item->kind > TEMPO_REPLAY_AUDIO)
        return tempo__set_error(TEMPO_EINVAL, "%s: item kind %d is not a tempo_replay_kind", fn, (int)item->kind);
    if (item->kind == TEMPO_REPLAY_MESSAGE && item->size > TEMPO__RPF_MAX_MESSAGE)
        return tempo__set_error(TEMPO_ERANGE, "%s: message size %llu above %llu", fn, (unsigned long long)item->size,
                                (unsigned long long)TEMPO__RPF_MAX_MESSAGE);
    return 0;
}

/* Writes the item for the coming tick when recording: 0 or TEMPO_EIO. */
static int record_item(tempo__replay_state *s, uint32_t id, const tempo_replay_item *item)
{
    if (s == NULL || s->rec == NULL || id == 0)
        return 0;
    uint64_t t0 = tempo_now_ns();
    int rc = write_item(s->rec, id, item);
    s->rec->st.items++;
    s->rec->st.cost_ns += tempo_now_ns() - t0;
    return rc < 0 ? TEMPO_EIO : 0;
}

int tempo_loop_deliver(tempo_loop *L, uint32_t id, const tempo_replay_item *item)
{
    if (L == NULL || item == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_deliver: %s is NULL", L == NULL ? "loop" : "item");
    int e = check_item("tempo_loop_deliver", item);
    if (e < 0)
        return e;
    tempo__replay_state *s = peek_state(L);
    channel *c = find_channel(s, id);
    if (c == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_deliver: no channel %u (tempo_loop_channel sets one)",
                                (unsigned)id);
    if (s->rp != NULL)
        return 0; /* the recorded copy arrives at its tick */
    int rc = record_item(s, id, item);
    c->fn(L, id, item, c->user);
    return rc;
}

int tempo_loop_source_deliver(tempo_loop *L, tempo_handle *handle, const tempo_replay_item *item, const void *live)
{
    if (L == NULL || item == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_source_deliver: %s is NULL", L == NULL ? "loop" : "item");
    int e = check_item("tempo_loop_source_deliver", item);
    if (e < 0)
        return e;
    tempo_source_deliver_fn deliver;
    void *self;
    uint32_t id;
    if (tempo__loop_source_lookup(L, handle, &deliver, &self, &id) < 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_source_deliver: handle %p is not a source of this loop "
                                              "with a deliver function", (void *)handle);
    tempo__replay_state *s = peek_state(L);
    if (s != NULL && s->rp != NULL)
        return 0; /* the recorded copy arrives at its tick */
    int rc = record_item(s, id, item);
    deliver(self, item, live);
    return rc < 0 ? rc : 1;
}

/* ---- Recording --------------------------------------------------------------------- */

/* The OS's reason for errno value `e` (fopen and friends set errno on every
 * OS Tempo builds for). "unknown reason" for 0: a libc that set none. */
static const char *errno_text(int e)
{
    return e != 0 ? strerror(e) : "unknown reason";
}

static int file_sink(void *user, const void *data, size_t size)
{
    recorder *r = user;
    errno = 0;
    if (fwrite(data, 1, size, r->f) != size || fflush(r->f) != 0) {
        if (r->io_error == 0) /* WARN: nobody sees it before tempo_loop_record_stop */
            r->io_error = tempo__set_error(TEMPO_EIO, "recording: write failed: %s", errno_text(errno));
        return TEMPO_EIO;
    }
    r->st.bytes += size;
    return 0;
}

/* An event entered desc.input's ring. Between updates (the loop's SDL and
 * native input) it is recorded for the coming tick; inside update() it is
 * the game's own push, which its code repeats in a replay. */
static void record_tap(void *user, const tempo_input_event *ev)
{
    recorder *r = user;
    if (r->in_update) {
        r->st.input_in_update++;
        return;
    }
    uint64_t t0 = tempo_now_ns();
    tempo__rpf_write_input(&r->w, ev);
    r->st.inputs++;
    r->st.cost_ns += tempo_now_ns() - t0;
}

int tempo_loop_record_fp(tempo_loop *L, const tempo_record_desc *desc, uint32_t fingerprint)
{
    return tempo_loop_record_build(L, desc, &(tempo_build){.fingerprint = fingerprint});
}

int tempo_loop_record_build(tempo_loop *L, const tempo_record_desc *desc, const tempo_build *build)
{
    if (L == NULL || desc == NULL || desc->path == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_record: NULL loop, desc or path");
    if (desc->meta == NULL && desc->meta_size > 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_record: meta NULL with meta_size %u", desc->meta_size);
    if (desc->meta_size > TEMPO_RECORD_META_MAX)
        return tempo__set_error(TEMPO_ERANGE, "tempo_loop_record: meta_size %u over %u", desc->meta_size,
                                TEMPO_RECORD_META_MAX);
    tempo__replay_state *s = state_of(L);
    if (s == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_loop_record: out of memory");
    if (s->rec != NULL || s->rp != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_record: already recording or replaying");
    recorder *r = calloc(1, sizeof *r);
    if (r == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_loop_record: out of memory");
    errno = 0;
    r->f = fopen(desc->path, "wb");
    if (r->f == NULL) {
        int e = errno;
        free(r);
        /* The caller has the code and this text: DEBUG, as a replay that
         * cannot be opened (base.h). */
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EIO, "tempo_loop_record: cannot create %s: %s", desc->path,
                                   errno_text(e));
    }
    r->hash = desc->hash;
    r->hash_user = desc->hash_user;
    r->hash_every = desc->hash == NULL ? 0 : desc->hash_every ? desc->hash_every : DEFAULT_HASH_EVERY;
    r->flush_every = desc->flush_every ? desc->flush_every : 1;
    r->step_ns = L->sched.step_ns;
    tempo__rpf_header h = {
        .seed = desc->seed,
        .start_ns = loop_clock(L),
        .step_ns = L->sched.step_ns,
        .update_hz = L->sched.update_hz,
        .policy = (uint32_t)L->sched.policy,
        .max_frameskip = L->sched.max_frameskip,
        .max_render_hz = L->sched.render_hz,
        .hash_every = r->hash_every,
        .fingerprint = build != NULL ? build->fingerprint : 0,
        .meta_size = desc->meta_size,
        .meta = desc->meta,
    };
    snprintf(h.backend, sizeof h.backend, "%s", tempo_backend_name());
    if (build != NULL && build->identity != NULL) /* cut to what the file holds */
        snprintf(h.identity, sizeof h.identity, "%.*s", TEMPO_BUILD_IDENTITY_MAX - 1, build->identity);
    int e = tempo__rpf_writer_init(&r->w, &h, file_sink, r);
    if (e < 0) {
        tempo__rpf_writer_free(&r->w);
        fclose(r->f);
        free(r);
        return e == TEMPO_ENOMEM ? tempo__set_error(e, "tempo_loop_record: out of memory") : TEMPO_EIO;
    }
    if (L->input != NULL) {
        tempo__input_each(L->input, record_tap, r); /* already queued: tick 0 reads them */
        tempo__input_set_tap(L->input, record_tap, r);
    }
    s->rec = r;
    install_hooks(L, s);
    return 0;
}

int tempo_loop_record_stop(tempo_loop *L)
{
    tempo__replay_state *s = L != NULL ? peek_state(L) : NULL;
    if (s == NULL || s->rec == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_record_stop: %s",
                                L == NULL ? "loop is NULL" : "the loop is not recording");
    recorder *r = s->rec;
    if (L->input != NULL)
        tempo__input_set_tap(L->input, NULL, NULL);
    uint64_t h = r->hash != NULL ? r->hash(L, r->hash_user) : 0;
    tempo__rpf_finish(&r->w, h, r->hash != NULL);
    int rc = r->io_error != 0 || r->w.error != 0 ? TEMPO_EIO : 0;
    errno = 0;
    if (fclose(r->f) != 0 && rc == 0)
        rc = tempo__set_error(TEMPO_EIO, "recording: close failed: %s", errno_text(errno));
    tempo__rpf_writer_free(&r->w);
    free(r);
    s->rec = NULL;
    install_hooks(L, s);
    return rc;
}

int tempo_loop_get_record_stats(const tempo_loop *L, tempo_record_stats *out)
{
    if (L == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_get_record_stats: %s is NULL", L == NULL ? "loop" : "out");
    const tempo__replay_state *s = peek_state(L);
    if (s != NULL && s->rec != NULL)
        *out = s->rec->st;
    else
        memset(out, 0, sizeof *out);
    return 0;
}

static uint64_t rec_before(recorder *r, tempo_loop *L, uint64_t dt_ns)
{
    (void)L;
    if (dt_ns != r->step_ns) {
        uint64_t t0 = tempo_now_ns();
        tempo__rpf_write_dt(&r->w, dt_ns);
        r->st.cost_ns += tempo_now_ns() - t0;
    }
    r->in_update = true;
    return dt_ns;
}

static void rec_after(recorder *r, tempo_loop *L)
{
    uint64_t t0 = tempo_now_ns();
    r->in_update = false;
    tempo__rpf_end_tick(&r->w);
    r->st.ticks++;
    if (r->hash_every && r->st.ticks % r->hash_every == 0) {
        tempo__rpf_write_hash(&r->w, r->hash(L, r->hash_user));
        r->st.hashes++;
    }
    if (r->st.ticks % r->flush_every == 0)
        tempo__rpf_flush(&r->w);
    r->st.cost_ns += tempo_now_ns() - t0;
}

/* ---- Replay ------------------------------------------------------------------------- */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

tempo_replay *tempo_replay_create(const tempo_replay_desc *desc)
{
    if (desc == NULL || desc->path == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_replay_create: NULL desc or path");
        return NULL;
    }
    tempo_replay *rp = calloc(1, sizeof *rp);
    if (rp == NULL || (rp->path = dup_str(desc->path)) == NULL) {
        free(rp);
        tempo__set_error(TEMPO_ENOMEM, "tempo_replay_create: out of memory");
        return NULL;
    }
    rp->desc = *desc;
    rp->desc.path = rp->path;
    /* The loader's reader: only a regular file opens, and a FIFO cannot
     * block the loop thread. A replay that is missing, unreadable or not a
     * file is the caller's to handle (NULL and this detail): DEBUG, like a
     * file the loader refuses. */
    errno = 0;
    bool not_regular = false;
    SDL_RWops *f = plat_file_open_read(desc->path, &not_regular);
    if (f == NULL) {
        if (not_regular)
            tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EIO, "%s: cannot open: not a regular file (a directory, "
                                                            "FIFO, device or socket)", desc->path);
        else
            tempo__set_error_at(TEMPO_LOG_DEBUG, errno == ENOENT || errno == ENOTDIR ? TEMPO_ENOENT : TEMPO_EIO,
                                "%s: cannot open: %s", desc->path, errno_text(errno));
        tempo_replay_destroy(rp);
        return NULL;
    }
    size_t cap = 1 << 16;
    rp->data = malloc(cap);
    for (;;) {
        if (rp->data == NULL) {
            SDL_RWclose(f);
            tempo__set_error(TEMPO_ENOMEM, "tempo_replay_create: out of memory");
            tempo_replay_destroy(rp);
            return NULL;
        }
        SDL_ClearError();
        size_t got = SDL_RWread(f, rp->data + rp->size, 1, cap - rp->size);
        rp->size += got;
        if (*SDL_GetError() != '\0') {
            /* The reader's SDL error carries the OS's reason. */
            tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EIO, "%s: read error: %s", desc->path, SDL_GetError());
            SDL_RWclose(f);
            tempo_replay_destroy(rp);
            return NULL;
        }
        if (rp->size < cap)
            break;
        cap *= 2;
        uint8_t *n = realloc(rp->data, cap);
        if (n == NULL)
            free(rp->data);
        rp->data = n;
    }
    SDL_RWclose(f);

    tempo__rpf_error err;
    uint64_t ticks_ok = 0;
    int64_t n = tempo__rpf_check(rp->data, rp->size, &ticks_ok, &err);
    tempo__rpf_reader hr;
    if (tempo__rpf_reader_init(&hr, rp->data, rp->size, &err) < 0 || (n < 0 && !desc->partial)) {
        tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EFORMAT, "%s: byte %zu, tick %llu: %s", desc->path, err.offset,
                            (unsigned long long)err.tick, err.why);
        tempo_replay_destroy(rp);
        return NULL;
    }
    const tempo__rpf_header *h = &hr.header;
    tempo_replay_info *in = &rp->info;
    in->seed = h->seed;
    in->ticks = ticks_ok;
    in->start_ns = h->start_ns;
    in->update_hz = h->update_hz;
    in->policy = h->policy < TEMPO_LOOP_POLICY_COUNT ? (tempo_loop_policy)h->policy : TEMPO_LOOP_INTERPOLATED;
    in->max_frameskip = h->max_frameskip;
    in->max_render_hz = h->max_render_hz;
    in->hash_every = h->hash_every;
    memcpy(in->backend, h->backend, sizeof in->backend);
    in->version = h->version;
    in->fingerprint = h->fingerprint;
    memcpy(in->identity, h->identity, sizeof in->identity);
    in->meta = h->meta; /* into rp->data, which lives until close */
    in->meta_size = h->meta_size;
    in->complete = n >= 0;
    if (n < 0)
        snprintf(in->damage, sizeof in->damage, "byte %zu, tick %llu: %s", err.offset,
                 (unsigned long long)err.tick, err.why);
    rp->step_ns = h->step_ns;
    rp->now = h->start_ns;
    tempo__rpf_reader_init(&rp->rd, rp->data, rp->size, NULL);
    return rp;
}

void tempo_replay_destroy(tempo_replay *rp)
{
    if (rp == NULL)
        return;
    tempo__replay_state *s = rp->loop != NULL ? peek_state(rp->loop) : NULL;
    if (s != NULL) {
        s->rp = NULL;
        install_hooks(rp->loop, s);
        if (rp->loop->input != NULL)
            tempo__input_set_hold(rp->loop->input, false);
    }
    free(rp->data);
    free(rp->path);
    free(rp);
}

const tempo_replay_info *tempo_replay_get_info(const tempo_replay *rp)
{
    return rp != NULL ? &rp->info : NULL;
}

static uint64_t replay_now(void *user)
{
    return ((tempo_replay *)user)->now;
}

static void replay_wait_until(void *user, uint64_t deadline_ns)
{
    tempo_replay *rp = user;
    /* Paused (no deadline): time still moves, one step per frame, so a
     * paused replay does not freeze the fake clock. */
    if (deadline_ns == TEMPO_INFINITE)
        rp->now += rp->step_ns;
    else if (deadline_ns > rp->now)
        rp->now = deadline_ns;
}

tempo_loop_clock tempo_replay_clock(tempo_replay *rp)
{
    if (rp == NULL || rp->desc.real_time)
        return (tempo_loop_clock){0};
    return (tempo_loop_clock){replay_now, replay_wait_until, rp};
}

bool tempo_loop_is_replaying(const tempo_loop *L)
{
    return replaying(L);
}

/* The two builds of a replay, as tempo_build_compare takes them. */
static void build_pair(const tempo_replay *rp, tempo_build *rec, tempo_build *here)
{
    *rec = (tempo_build){rp->info.fingerprint, rp->info.identity, "recorded"};
    *here = (tempo_build){rp->res.fingerprint_replay, rp->identity_here, "this build"};
}

int tempo_loop_replay_fp(tempo_loop *L, tempo_replay *rp, uint32_t fingerprint)
{
    return tempo_loop_replay_build(L, rp, &(tempo_build){.fingerprint = fingerprint});
}

int tempo_loop_replay_build(tempo_loop *L, tempo_replay *rp, const tempo_build *build)
{
    if (L == NULL || rp == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_replay: %s is NULL", L == NULL ? "loop" : "replay");
    tempo__replay_state *s = state_of(L);
    if (s == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_loop_replay: out of memory");
    if (s->rec != NULL || s->rp != NULL || rp->loop != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loop_replay: busy");
    /* Before tick 0 and before the loop changes: a recording of a build
     * that may compute other bits would desync somewhere later, and the
     * report could then only guess why. */
    uint32_t fingerprint = build != NULL ? build->fingerprint : 0;
    rp->identity_here[0] = '\0';
    if (build != NULL && build->identity != NULL)
        snprintf(rp->identity_here, sizeof rp->identity_here, "%.*s", TEMPO_BUILD_IDENTITY_MAX - 1, build->identity);
    rp->res.fingerprint_recorded = rp->info.fingerprint;
    rp->res.fingerprint_replay = fingerprint;
    rp->res.fingerprint_differs = rp->info.fingerprint != 0 && fingerprint != 0 && rp->info.fingerprint != fingerprint;
    tempo_build rec, here;
    build_pair(rp, &rec, &here);
    char why[1024];
    int cmp = tempo_build_compare(&rec, &here, why, sizeof why);
    rp->res.build_differs = cmp == TEMPO_EBUILD ||
                            (rp->info.identity[0] != '\0' && rp->identity_here[0] != '\0' &&
                             strcmp(rp->info.identity, rp->identity_here) != 0);
    if (cmp == TEMPO_EBUILD && !rp->desc.other_build)
        return tempo__set_error(TEMPO_EBUILD, "tempo_loop_replay: %s: %s; or set tempo_replay_desc.other_build to "
                                "replay it anyway", rp->path, why);
    if (cmp == TEMPO_EBUILD)
        tempo__log(TEMPO_LOG_WARN, "replay: %s (replayed anyway: desc.other_build): %s", rp->path, why);
    tempo_loop_set_update_hz(L, rp->info.update_hz);
    tempo_loop_set_policy(L, rp->info.policy);
    if (L->clock.user == rp && L->sched.render_hz == 0) /* the replay's own clock */
        tempo_loop_set_max_render_hz(L, rp->info.update_hz);
    rp->loop = L;
    s->rp = rp;
    install_hooks(L, s);
    if (L->input != NULL) {
        /* From here the ring gets the recorded input only. */
        tempo__input_clear(L->input);
        tempo__input_set_hold(L->input, true);
    }
    if (rp->info.ticks == 0) {
        rp->res.finished = true;
        tempo_loop_quit(L);
    }
    return 0;
}

int tempo_replay_get_result(const tempo_replay *rp, tempo_replay_result *out)
{
    if (rp == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_replay_get_result: %s is NULL", rp == NULL ? "replay" : "out");
    *out = rp->res;
    out->matches = rp->res.finished && rp->res.diverged_at == 0;
    return 0;
}

/* The next record, from the read-ahead first. false at the end of what
 * may be replayed (END, or the damage of a partial file). */
static bool next_record(tempo_replay *rp, tempo__rpf_record *out)
{
    if (rp->have_peek) {
        *out = rp->peek;
        rp->have_peek = false;
        return true;
    }
    if (rp->eof)
        return false;
    if (tempo__rpf_next(&rp->rd, out, NULL) <= 0) {
        rp->eof = true;
        return false;
    }
    return true;
}

/* The desync report: one line naming the tick, the hashes and what the
 * builds say about the likely cause: the build difference when there is
 * one, memory, order and libm only when the builds match. */
static void report_desync(tempo_replay *rp)
{
    tempo_replay_result *r = &rp->res;
    char *out = r->report;
    size_t size = sizeof r->report;
    int n = snprintf(out, size, "replay: %s diverges at tick %llu (hash %016llx, recorded %016llx; last equal at tick %llu): ",
                     rp->path, (unsigned long long)r->diverged_at, (unsigned long long)r->actual,
                     (unsigned long long)r->expected, (unsigned long long)r->last_match);
    size_t at = n > 0 ? ((size_t)n < size ? (size_t)n : size - 1) : 0;
    tempo_build rec, here;
    build_pair(rp, &rec, &here);
    char why[1024], fp_rec[256], fp[256];
    tempo_fingerprint_describe(r->fingerprint_recorded, fp_rec, sizeof fp_rec);
    tempo_fingerprint_describe(r->fingerprint_replay, fp, sizeof fp);
    const char *id_rec = rp->info.identity[0] ? rp->info.identity : "build identity unknown";
    const char *id_here = rp->identity_here[0] ? rp->identity_here : "build identity unknown";
    if (tempo_build_compare(&rec, &here, why, sizeof why) == TEMPO_EBUILD)
        n = snprintf(out + at, size - at, "%s", why); /* names both builds and the flags */
    else if (r->fingerprint_recorded == 0 || r->fingerprint_replay == 0)
        n = snprintf(out + at, size - at,
                     "floating-point fingerprints not comparable (recorded: %s, %s; this build: %s, %s) (see "
                     "docs/determinism.md)",
                     fp_rec, id_rec, fp, id_here);
    else if (r->build_differs)
        n = snprintf(out + at, size - at,
                     "built differently (recorded: %s; this build: %s), both with portable floats (%s): look for what "
                     "a fingerprint cannot see, libm results first (another compiler or C library), then state "
                     "changed outside update(), uninitialised memory, pointer-order iteration (see "
                     "docs/determinism.md)",
                     id_rec, id_here, fp);
    else
        n = snprintf(out + at, size - at,
                     "same floating-point fingerprint (%s) and build (%s%s): look for state changed outside update(), "
                     "uninitialised memory, pointer-order iteration or libm results (see docs/determinism.md)",
                     fp, id_here, rp->info.identity[0] ? "" : "; the recorder's unknown");
    if (n < 0)
        out[at] = '\0';
    tempo__log(TEMPO_LOG_WARN, "%s", r->report);
}

static void check_hash(tempo_replay *rp, tempo_loop *L, uint64_t expected)
{
    if (rp->desc.hash == NULL)
        return;
    uint64_t actual = rp->desc.hash(L, rp->desc.hash_user);
    rp->res.checks++;
    if (actual == expected) {
        if (rp->res.diverged_at == 0)
            rp->res.last_match = rp->tick;
    } else if (rp->res.diverged_at == 0) {
        rp->res.diverged_at = rp->tick;
        rp->res.expected = expected;
        rp->res.actual = actual;
        report_desync(rp);
    }
}

/* Hands one record of the coming tick to the game. */
static void apply(tempo_replay *rp, tempo_loop *L, const tempo__rpf_record *r)
{
    tempo__replay_state *s = peek_state(L);
    tempo_replay_item it;
    memset(&it, 0, sizeof it);
    uint32_t ch = 0;
    switch (r->kind) {
    case TEMPO__RPF_INPUT:
        if (L->input != NULL) {
            tempo__input_set_hold(L->input, false);
            tempo_input_push(L->input, &r->u.input);
            tempo__input_set_hold(L->input, true);
        }
        return;
    case TEMPO__RPF_DT:
        rp->dt_set = true;
        rp->dt_ns = r->u.dt_ns;
        return;
    case TEMPO__RPF_HASH:
        check_hash(rp, L, r->u.hash);
        return;
    case TEMPO__RPF_END:
        if (r->u.end.has_hash)
            check_hash(rp, L, r->u.end.hash);
        return;
    case TEMPO__RPF_MESSAGE:
        ch = r->u.message.channel;
        it.kind = TEMPO_REPLAY_MESSAGE;
        it.type = r->u.message.type;
        it.data = r->u.message.data;
        it.size = r->u.message.size;
        break;
    case TEMPO__RPF_LOAD:
        ch = r->u.load.channel;
        it.kind = TEMPO_REPLAY_LOAD;
        it.type = r->u.load.type;
        it.error = r->u.load.error;
        it.group = r->u.load.group;
        it.id = r->u.load.id;
        it.value = r->u.load.bytes;
        break;
    case TEMPO__RPF_AUDIO:
        ch = r->u.audio.channel;
        it.kind = TEMPO_REPLAY_AUDIO;
        it.type = r->u.audio.kind;
        it.audio_channel = r->u.audio.audio_channel;
        it.id = r->u.audio.tag;
        it.value = r->u.audio.frame;
        break;
    default:
        return;
    }
    /* Its source or channel may not be there in this run: nothing then. */
    if (ch >= TEMPO__REPLAY_SOURCE_CHANNELS) {
        tempo_source_deliver_fn deliver;
        void *self;
        if (tempo__loop_channel_source(L, ch, &deliver, &self) == 0)
            deliver(self, &it, NULL);
        return;
    }
    channel *c = find_channel(s, ch);
    if (c != NULL)
        c->fn(L, ch, &it, c->user);
}

static uint64_t replay_before(tempo_replay *rp, tempo_loop *L)
{
    if (rp->advance_left == 0) {
        tempo__rpf_record r;
        while (next_record(rp, &r)) {
            if (r.kind == TEMPO__RPF_ADVANCE) {
                rp->advance_left = r.u.advance;
                break;
            }
            apply(rp, L, &r);
        }
    }
    if (L->input != NULL)
        tempo__input_set_hold(L->input, false); /* the game's own pushes, as when recorded */
    if (rp->dt_set) {
        rp->dt_set = false;
        return rp->dt_ns;
    }
    return rp->step_ns;
}

static void replay_after(tempo_replay *rp, tempo_loop *L)
{
    if (L->input != NULL)
        tempo__input_set_hold(L->input, true);
    rp->tick++;
    rp->res.ticks = rp->tick;
    if (rp->advance_left > 0)
        rp->advance_left--;
    tempo__rpf_record r;
    if (rp->tick >= rp->info.ticks) {
        /* The last tick: what reached the game before the recording stopped
         * (a hash, items after the last update), then the END hash. */
        while (next_record(rp, &r))
            if (r.kind != TEMPO__RPF_ADVANCE)
                apply(rp, L, &r);
        rp->res.finished = true;
        if (rp->desc.hash != NULL)
            rp->res.hash = rp->desc.hash(L, rp->desc.hash_user);
        tempo_loop_quit(L);
        return;
    }
    if (rp->advance_left > 0)
        return;
    /* A hash taken right after this update comes first in the next tick. */
    while (next_record(rp, &r)) {
        if (r.kind != TEMPO__RPF_HASH) {
            rp->peek = r;
            rp->have_peek = true;
            break;
        }
        apply(rp, L, &r);
    }
}

/* ---- The loop's hooks (tempo__loop_hooks) ------------------------------------------------- */

static uint64_t hook_before_update(void *user, tempo_loop *L, uint64_t dt_ns)
{
    tempo__replay_state *s = user;
    if (s->rp != NULL)
        return replay_before(s->rp, L);
    if (s->rec != NULL)
        return rec_before(s->rec, L, dt_ns);
    return dt_ns;
}

static void hook_after_update(void *user, tempo_loop *L)
{
    tempo__replay_state *s = user;
    if (s->rp != NULL)
        replay_after(s->rp, L);
    else if (s->rec != NULL)
        rec_after(s->rec, L);
}

/* The recorder's tap and the replay's hold move with the loop's input. */
static void hook_input_changed(void *user, tempo_loop *L, tempo_input *in, bool attached)
{
    tempo__replay_state *s = user;
    (void)L;
    if (!attached) {
        tempo__input_set_tap(in, NULL, NULL);
        tempo__input_set_hold(in, false);
        return;
    }
    if (s->rec != NULL)
        tempo__input_set_tap(in, record_tap, s->rec);
    if (s->rp != NULL) {
        tempo__input_clear(in); /* from here the ring gets the recorded input only */
        tempo__input_set_hold(in, true);
    }
}

/* Stops a recording, detaches a replay, frees the channels. */
static void hook_loop_destroyed(void *user, tempo_loop *L)
{
    tempo__replay_state *s = user;
    if (s->rec != NULL)
        tempo_loop_record_stop(L);
    if (s->rp != NULL) {
        s->rp->loop = NULL;
        if (L->input != NULL)
            tempo__input_set_hold(L->input, false);
    }
    free(s->ch);
    free(s);
    tempo__loop_set_hooks(L, NULL);
}

/* The hooks for what the state does now: the update hooks only while
 * recording or replaying (the loop then calls nothing around its updates). */
static void install_hooks(tempo_loop *L, tempo__replay_state *s)
{
    bool on = s->rec != NULL || s->rp != NULL;
    tempo__loop_set_hooks(L, &(tempo__loop_hooks){
                                 .user = s,
                                 .before_update = on ? hook_before_update : NULL,
                                 .after_update = on ? hook_after_update : NULL,
                                 .input_changed = hook_input_changed,
                                 .loop_destroyed = hook_loop_destroyed,
                                 .replaying = s->rp != NULL,
                             });
}
