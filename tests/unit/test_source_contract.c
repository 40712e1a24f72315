/* The source contract (tempo/loop.h) proved with a source written here,
 * against the public headers only: a "ticker" that queues numbered messages
 * for the loop thread and hands each to the game through
 * tempo_loop_source_deliver(). It has no record or replay code, yet a
 * recording and its replay hand the game the same items at the same ticks
 * (the replay's own live items, different on purpose, never reach the
 * game). Also: the errors of tempo_loop_source_deliver(), and watches and
 * sources as one registry (order, capacity, wake reasons). Headless, on a
 * fake clock; the recording goes into the working directory (the build
 * directory) and is removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tempo/loop.h"
#include "tempo/replay.h"
#include "tempo/wait.h"

#define S TEMPO_NS_PER_S
#define TICKS 300
#define MAX_LOG 1024

/* ---- The new source: only tempo/loop.h and tempo/wait.h ------------------- */

typedef void (*ticker_fn)(uint32_t number, const char *text, void *user);

typedef struct ticker {
    tempo_loop *loop;
    tempo_handle *ready; /* manual-reset: set while numbers wait */
    uint32_t queue[64];
    int count;
    ticker_fn fn;
    void *user;
    int rc_delivered, rc_dropped, rc_other; /* what tempo_loop_source_deliver returned */
    int live_seen, replayed_seen;           /* deliver's `live` set / NULL */
} ticker;

/* The producer's side (the game's update here; a thread would do too, with
 * a lock). */
static void ticker_push(ticker *t, uint32_t number)
{
    if (t->count < (int)(sizeof t->queue / sizeof t->queue[0]))
        t->queue[t->count++] = number;
    tempo_event_set(t->ready);
}

static int ticker_dispatch(void *self, tempo_source_call *call)
{
    ticker *t = self;
    for (int i = 0; i < t->count; i++) {
        char text[32];
        int n = snprintf(text, sizeof text, "tick-tock %u", (unsigned)t->queue[i]);
        tempo_replay_item it = {.kind = TEMPO_REPLAY_MESSAGE, .type = t->queue[i], .data = text, .size = (uint32_t)n};
        int r = tempo_loop_source_deliver(t->loop, t->ready, &it, &t->queue[i]);
        if (r == 1)
            t->rc_delivered++;
        else if (r == 0)
            t->rc_dropped++;
        else
            t->rc_other++;
        call->items++;
    }
    t->count = 0;
    tempo_event_reset(t->ready);
    return 0;
}

/* The item as the game sees it, live or rebuilt from the item's fields. */
static void ticker_deliver(void *self, const tempo_replay_item *item, const void *live)
{
    ticker *t = self;
    if (live != NULL)
        t->live_seen++;
    else
        t->replayed_seen++;
    char text[64];
    size_t n = item->size < sizeof text - 1 ? item->size : sizeof text - 1;
    memcpy(text, item->data, n);
    text[n] = '\0';
    t->fn(item->type, text, t->user);
}

static void ticker_detach(void *self)
{
    ticker *t = self;
    t->loop = NULL;
}

static int ticker_attach(ticker *t, tempo_loop *loop, ticker_fn fn, void *user)
{
    memset(t, 0, sizeof *t);
    t->ready = tempo_event_create(true, false);
    if (t->ready == NULL)
        return TEMPO_ENOMEM;
    t->fn = fn;
    t->user = user;
    t->loop = loop;
    return tempo_loop_add_source(loop, &(tempo_source_desc){.name = "ticker",
                                                            .handle = t->ready,
                                                            .dispatch = ticker_dispatch,
                                                            .detach = ticker_detach,
                                                            .self = t,
                                                            .deliver = ticker_deliver});
}

static void ticker_destroy(ticker *t)
{
    if (t->loop != NULL)
        tempo_loop_remove_source(t->loop, t->ready);
    tempo_event_destroy(t->ready);
}

/* ---- The game ----------------------------------------------------------------- */

typedef struct entry {
    uint64_t tick; /* updates run before the item arrived */
    uint32_t number;
    char text[32];
} entry;

typedef struct game {
    uint64_t now;     /* the fake clock */
    uint64_t updates;
    uint32_t offset;  /* added to what the producer pushes */
    bool stop_at_end; /* recording: quit after TICKS updates */
    ticker t;
    entry log[MAX_LOG];
    int nlog;
} game;

static uint64_t fc_now(void *user)
{
    return ((game *)user)->now;
}

static void fc_wait(void *user, uint64_t deadline)
{
    game *g = user;
    if (deadline != TEMPO_INFINITE && deadline > g->now)
        g->now = deadline;
}

static void on_tick(uint32_t number, const char *text, void *user)
{
    game *g = user;
    if (g->nlog == MAX_LOG)
        return;
    entry *e = &g->log[g->nlog++];
    e->tick = g->updates;
    e->number = number;
    snprintf(e->text, sizeof e->text, "%s", text);
}

static void on_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    game *g = user;
    g->updates++;
    /* The producer: numbers at irregular ticks, sometimes two at once. */
    if (g->updates % 3 == 1)
        ticker_push(&g->t, g->offset + (uint32_t)g->updates);
    if (g->updates % 7 == 0) {
        ticker_push(&g->t, g->offset + 10000 + (uint32_t)g->updates);
        ticker_push(&g->t, g->offset + 20000 + (uint32_t)g->updates);
    }
    if (g->stop_at_end && g->updates == TICKS)
        tempo_loop_quit(loop);
}

static void on_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    (void)user;
}

/* The state a replay checks after every tick: the log so far. */
static uint64_t log_hash(tempo_loop *loop, void *user)
{
    (void)loop;
    const game *g = user;
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < g->nlog; i++) {
        const entry *e = &g->log[i];
        uint64_t v[2] = {e->tick, e->number};
        for (int k = 0; k < 2; k++)
            h = (h ^ v[k]) * 1099511628211u;
        for (const char *c = e->text; *c; c++)
            h = (h ^ (uint8_t)*c) * 1099511628211u;
    }
    return h;
}

static int run(tempo_loop *loop)
{
    int r;
    uint64_t frames = 0;
    while ((r = tempo_loop_frame(loop)) == 0 && ++frames < 10000000) {
    }
    return r;
}

static const char *const rec_path = "test_source_contract.trec";

static game *record_game(void)
{
    game *g = calloc(1, sizeof *g);
    g->now = 1000 * S;
    g->stop_at_end = true;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60,
                                                            .update = on_update, .render = on_render, .user = g,
                                                            .clock = {fc_now, fc_wait, g}});
    CHECK(loop != NULL);
    CHECK_EQ_INT(ticker_attach(&g->t, loop, on_tick, g), 0);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = rec_path, .seed = 5, .hash = log_hash,
                                                              .hash_user = g, .hash_every = 1}),
                 0);
    CHECK_EQ_INT(run(loop), 1);
    tempo_record_stats rs;
    tempo_loop_get_record_stats(loop, &rs);
    CHECK_EQ_U64(rs.items, (uint64_t)g->nlog);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop); /* the ticker leaves the loop */
    CHECK(g->t.loop == NULL);
    ticker_destroy(&g->t);
    return g;
}

/* A recording and its replay deliver the same items at the same ticks,
 * and the replaying source's own (different) items never reach the game. */
static void a_new_source_records_and_replays_without_replay_code(void)
{
    game *rec = record_game();
    tt_note("recorded %d items over %d ticks", rec->nlog, TICKS);
    CHECK_GE_INT(rec->nlog, 150);
    CHECK_EQ_INT(rec->t.rc_delivered, rec->nlog);
    CHECK_EQ_INT(rec->t.live_seen, rec->nlog);
    CHECK_EQ_INT(rec->t.replayed_seen, 0);
    CHECK_EQ_INT(rec->t.rc_other, 0);
    /* Items arrive before the update after the one that pushed them. */
    CHECK_EQ_U64(rec->log[0].tick, 1);
    CHECK_EQ_INT(rec->log[0].number, 1);

    game *rp_game = calloc(1, sizeof *rp_game);
    rp_game->offset = 500000; /* the replay's live producer pushes other numbers */
    tempo_replay *rp =
        tempo_replay_create(&(tempo_replay_desc){.path = rec_path, .hash = log_hash, .hash_user = rp_game});
    CHECK(rp != NULL);
    if (rp == NULL) {
        free(rec);
        free(rp_game);
        return;
    }
    CHECK_EQ_U64(tempo_replay_get_info(rp)->ticks, TICKS);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .update = on_update,
                                                            .render = on_render, .user = rp_game,
                                                            .clock = tempo_replay_clock(rp)});
    CHECK_EQ_INT(ticker_attach(&rp_game->t, loop, on_tick, rp_game), 0);
    CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    CHECK_EQ_INT(run(loop), 1);
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    CHECK(res.matches);
    CHECK_EQ_U64(res.ticks, TICKS);
    CHECK_EQ_U64(res.checks, TICKS + 1);
    if (!res.matches)
        tt_note("%s", res.report);

    /* Item by item: the same numbers and texts at the same ticks. */
    CHECK_EQ_INT(rp_game->nlog, rec->nlog);
    int n = rp_game->nlog < rec->nlog ? rp_game->nlog : rec->nlog;
    for (int i = 0; i < n && !tt_failed(); i++) {
        CHECK_EQ_U64(rp_game->log[i].tick, rec->log[i].tick);
        CHECK_EQ_INT(rp_game->log[i].number, rec->log[i].number);
        CHECK_STR_EQ(rp_game->log[i].text, rec->log[i].text);
        if (tt_failed())
            tt_note("item %d differs", i);
    }
    /* Every live item of the replay was dropped, every recorded one replayed. */
    CHECK_EQ_INT(rp_game->t.rc_delivered, 0);
    CHECK_GE_INT(rp_game->t.rc_dropped, rec->nlog - 3); /* the last ticks' pushes may not be dispatched */
    CHECK_EQ_INT(rp_game->t.live_seen, 0);
    CHECK_EQ_INT(rp_game->t.replayed_seen, rec->nlog);
    CHECK_EQ_INT(rp_game->t.rc_other, 0);
    tempo_loop_destroy(loop);
    tempo_replay_destroy(rp);
    ticker_destroy(&rp_game->t);
    free(rec);
    free(rp_game);
    remove(rec_path);
}

/* Without a recording or replay the contract is a plain call. */
static void deliver_is_live_without_record_or_replay(void)
{
    game *g = calloc(1, sizeof *g);
    g->now = 5 * S;
    g->stop_at_end = true;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60,
                                                            .update = on_update, .render = on_render, .user = g,
                                                            .clock = {fc_now, fc_wait, g}});
    CHECK_EQ_INT(ticker_attach(&g->t, loop, on_tick, g), 0);
    CHECK_EQ_INT(run(loop), 1);
    CHECK_GE_INT(g->nlog, 150);
    CHECK_EQ_INT(g->t.rc_delivered, g->nlog);
    CHECK_EQ_INT(g->t.live_seen, g->nlog);
    tempo_loop_destroy(loop);
    ticker_destroy(&g->t);
    free(g);
}

static int plain_dispatch(void *self, tempo_source_call *call)
{
    (void)self;
    (void)call;
    return 0;
}

static void deliver_refuses_what_is_not_a_delivering_source(void)
{
    game *g = calloc(1, sizeof *g);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update = on_update, .render = on_render, .user = g,
                                                            .clock = {fc_now, fc_wait, g}});
    CHECK_EQ_INT(ticker_attach(&g->t, loop, on_tick, g), 0);
    tempo_handle *plain = tempo_event_create(true, false);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.handle = plain, .dispatch = plain_dispatch}), 0);
    tempo_handle *other = tempo_event_create(true, false);
    tempo_replay_item it = {.kind = TEMPO_REPLAY_MESSAGE, .type = 1, .data = "x", .size = 1};
    CHECK_EQ_INT(tempo_loop_source_deliver(NULL, g->t.ready, &it, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, g->t.ready, NULL, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, NULL, &it, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, other, &it, NULL), TEMPO_EINVAL); /* not a source */
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, plain, &it, NULL), TEMPO_EINVAL); /* no deliver */
    tempo_replay_item bad = {.kind = (tempo_replay_kind)9};
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, g->t.ready, &bad, NULL), TEMPO_EINVAL);
    tempo_replay_item big = {.kind = TEMPO_REPLAY_MESSAGE, .data = "", .size = (16u << 20) + 1};
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, g->t.ready, &big, NULL), TEMPO_ERANGE);
    CHECK_EQ_INT(g->nlog, 0);
    CHECK_EQ_INT(tempo_loop_source_deliver(loop, g->t.ready, &it, NULL), 1);
    CHECK_EQ_INT(g->nlog, 1);
    CHECK_STR_EQ(g->log[0].text, "x");
    tempo_loop_destroy(loop);
    tempo_event_destroy(plain);
    tempo_event_destroy(other);
    ticker_destroy(&g->t);
    free(g);
}

/* ---- One registry for watches and sources ------------------------------------ */

typedef struct order_log {
    char seq[64];
    int n;
} order_log;

static order_log *g_order;

static void note_order(char c)
{
    if (g_order->n < (int)sizeof g_order->seq - 1)
        g_order->seq[g_order->n++] = c;
}

static void watch_a(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)user;
    tempo_event_reset(h);
    note_order('a');
}

static void watch_c(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)user;
    tempo_event_reset(h);
    note_order('c');
}

static int source_b(void *self, tempo_source_call *call)
{
    tempo_event_reset(self);
    note_order('b');
    call->items = 1;
    return 0;
}

/* Watches and sources are one table: served in the order added, one
 * handle once either way, one capacity; a frame woken by a watch counts
 * as "watch", by a source as "source". */
static void watches_and_sources_share_one_registry(void)
{
    game *g = calloc(1, sizeof *g);
    g->now = 7 * S;
    order_log log = {0};
    g_order = &log;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 10, .update = on_update,
                                                            .render = on_render, .user = g,
                                                            .clock = {fc_now, fc_wait, g}});
    tempo_handle *a = tempo_event_create(true, false), *b = tempo_event_create(true, false),
                 *c = tempo_event_create(true, false);
    CHECK_EQ_INT(tempo_loop_watch(loop, a, watch_a, NULL), 0);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "b", .handle = b, .dispatch = source_b,
                                                                  .self = b}),
                 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, c, watch_c, NULL), 0);
    /* One handle, one entry. */
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.handle = a, .dispatch = source_b, .self = a}),
                 TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_watch(loop, b, watch_a, NULL), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_unwatch(loop, b), TEMPO_EINVAL);      /* a source leaves with remove_source */
    CHECK_EQ_INT(tempo_loop_remove_source(loop, a), TEMPO_EINVAL); /* a watch leaves with unwatch */

    /* Order: as added, whatever the signal order. */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* the first frame: one update */
    tempo_event_set(c);
    tempo_event_set(b);
    tempo_event_set(a);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_STR_EQ(log.seq, "abc");

    /* Wake reasons: a frame woken by the watch alone, then by the source alone. */
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    uint64_t w0 = st->total.wakes[TEMPO_LOOP_WAKE_WATCH], s0 = st->total.wakes[TEMPO_LOOP_WAKE_SOURCE];
    tempo_event_set(c);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    st = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_WATCH], w0 + 1);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_SOURCE], s0);
    tempo_event_set(b);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    st = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_WATCH], w0 + 1);
    CHECK_EQ_U64(st->total.wakes[TEMPO_LOOP_WAKE_SOURCE], s0 + 1);
    CHECK_STR_EQ(log.seq, "abccb");
    /* The statistics list the sources only. */
    CHECK_EQ_INT(st->source_count, 1);
    CHECK_STR_EQ(st->sources[0].name, "b");
    CHECK_EQ_U64(st->sources[0].total.calls, 2);

    /* One capacity for both: TEMPO_LOOP_MAX_WATCHES entries in all. */
    tempo_handle *more[TEMPO_LOOP_MAX_WATCHES];
    int added = 3, n = 0;
    while (added < TEMPO_LOOP_MAX_WATCHES) {
        more[n] = tempo_event_create(true, false);
        int r = n % 2 ? tempo_loop_watch(loop, more[n], watch_a, NULL)
                      : tempo_loop_add_source(loop, &(tempo_source_desc){.handle = more[n], .dispatch = source_b,
                                                                         .self = more[n]});
        if (r == TEMPO_ETOOMANY && n % 2 == 0) /* TEMPO_LOOP_MAX_SOURCES reached: watches fill the rest */
            r = tempo_loop_watch(loop, more[n], watch_a, NULL);
        CHECK_EQ_INT(r, 0);
        n++;
        added++;
    }
    more[n] = tempo_event_create(true, false);
    CHECK_EQ_INT(tempo_loop_watch(loop, more[n], watch_a, NULL), TEMPO_ETOOMANY);
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.handle = more[n], .dispatch = source_b,
                                                                  .self = more[n]}),
                 TEMPO_ETOOMANY);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, TEMPO_LOOP_MAX_SOURCES);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_loop_destroy(loop);
    for (int i = 0; i <= n; i++)
        tempo_event_destroy(more[i]);
    tempo_event_destroy(a);
    tempo_event_destroy(b);
    tempo_event_destroy(c);
    free(g);
}

static const tt_case cases[] = {
    TT_CASE(watches_and_sources_share_one_registry),
    TT_CASE(a_new_source_records_and_replays_without_replay_code),
    TT_CASE(deliver_is_live_without_record_or_replay),
    TT_CASE(deliver_refuses_what_is_not_a_delivering_source),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
