/* Asset hot-reload (tempo/hotreload.h, issue 20 item 3) on a real file
 * watch: a temporary directory, BMP files written by the test, the loader
 * attached to a real-clock loop with no window (SDL events only).
 *
 * No verdict depends on timing: the loop runs until what is expected has
 * happened, with generous give-up bounds (10 s), and "no wake while nothing
 * changes" is counted (the hotreload sources' dispatch calls and the loop's
 * watch wakes over an idle stretch), not timed. Backends or systems without
 * file watches skip (TEMPO_ENOTSUP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#if defined(_WIN32)
#include <direct.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

#include "harness.h"
#include "tempo/tempo.h"

#define GIVE_UP_NS (10 * TEMPO_NS_PER_S)
/* The default settle time (a generous bound: a save here takes microseconds). */
#define SETTLE_NS TEMPO_HOTRELOAD_DEFAULT_SETTLE_NS

static char dir[512];

static void path_of(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static bool make_dir(void)
{
    return tt_make_temp_dir("tempo-hotreload", dir, sizeof dir);
}

static void remove_dir(void)
{
    const char *names[] = {"hero.bmp", "hero.bmp~", "hero.tmp", "other.bmp"};
    char p[600];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        path_of(p, sizeof p, names[i]);
        remove(p);
    }
#if defined(_WIN32)
    _rmdir(dir);
#else
    rmdir(dir);
#endif
}

/* Replaces `to` by `from` in one step, as an editor's save does. */
static bool rename_over(const char *from, const char *to)
{
    char a[600], b[600];
    path_of(a, sizeof a, from);
    path_of(b, sizeof b, to);
#if defined(_WIN32)
    return MoveFileExA(a, b, MOVEFILE_REPLACE_EXISTING) != 0;
#else
    return rename(a, b) == 0;
#endif
}

/* A w x h BMP named `name` in the directory, written in place. */
static bool write_bmp(const char *name, int w, int h)
{
    char p[600];
    path_of(p, sizeof p, name);
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return false;
    SDL_FillRect(s, NULL, 0xff336699u);
    bool ok = SDL_SaveBMP(s, p) == 0;
    SDL_FreeSurface(s);
    return ok;
}

typedef struct got {
    int calls;
    int error;
    int w, h;
    bool on_loop_thread;
    char text[256];
} got;

static SDL_threadID loop_thread;

static void on_reload(tempo_hotreload *hr, const tempo_load_result *r, void *user)
{
    (void)hr;
    got *g = user;
    g->calls++;
    g->error = r->error;
    g->on_loop_thread = SDL_ThreadID() == loop_thread;
    snprintf(g->text, sizeof g->text, "%s", r->error_text != NULL ? r->error_text : "(null)");
    g->w = g->h = 0;
    if (r->surface != NULL) {
        g->w = r->surface->w;
        g->h = r->surface->h;
        SDL_FreeSurface(r->surface); /* ours */
    }
}

/* Linux (inotify) under the sdl backend, and the win32 backend. */
static bool watches_expected(void)
{
#if defined(__linux__)
    return true;
#else
    return strcmp(tempo_backend_name(), "win32") == 0;
#endif
}

typedef struct rig {
    tempo_loop *loop;
    tempo_loader *ld;
    tempo_hotreload *hr;
} rig;

/* A directory holding hero.bmp (w x h; none when w is 0) and other.bmp,
 * written before the watch starts, a loop, a loader and a hotreload. */
static bool rig_open(rig *r, int w, int h)
{
    memset(r, 0, sizeof *r);
    loop_thread = SDL_ThreadID();
    if (!make_dir()) {
        tt_fail(__FILE__, __LINE__, "cannot make a temporary directory");
        return false;
    }
    if (w > 0)
        CHECK(write_bmp("hero.bmp", w, h));
    CHECK(write_bmp("other.bmp", 4, 4));
    r->loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 20, .max_render_hz = 20});
    r->ld = tempo_loader_create(NULL);
    CHECK(r->loop != NULL);
    CHECK(r->ld != NULL);
    r->hr = tempo_hotreload_create(&(tempo_hotreload_desc){.dir = dir, .loader = r->ld});
    if (r->hr == NULL) {
        tt_note("tempo_hotreload_create: %s", tempo_get_error());
        if (!watches_expected()) {
            tempo_loader_destroy(r->ld);
            tempo_loop_destroy(r->loop);
            remove_dir();
            TT_SKIP("no file watches on this backend/OS");
        }
        tt_fail(__FILE__, __LINE__, "tempo_hotreload_create failed on a backend that has file watches");
        return false;
    }
    CHECK_EQ_INT(tempo_loader_attach(r->ld, r->loop), 0);
    CHECK_EQ_INT(tempo_hotreload_attach(r->hr, r->loop), 0);
    return r->loop != NULL && r->ld != NULL;
}

static void rig_close(rig *r)
{
    tempo_hotreload_destroy(r->hr);
    tempo_loop_destroy(r->loop);
    tempo_loader_destroy(r->ld);
    remove_dir();
}

/* Runs frames until *flag reaches `want` or GIVE_UP_NS passes. */
static void run_until(rig *r, const int *flag, int want)
{
    uint64_t end = tempo_now_ns() + GIVE_UP_NS;
    while (*flag < want && tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(r->loop), 0);
}

/* Runs frames for about `ns` of real time. */
static void run_for(rig *r, uint64_t ns)
{
    uint64_t end = tempo_now_ns() + ns;
    while (tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(r->loop), 0);
}

/* The hotreload sources' dispatch calls so far. */
static uint64_t hotreload_calls(rig *r)
{
    const tempo_loop_stats *st = tempo_loop_get_stats(r->loop);
    uint64_t calls = 0;
    for (int i = 0; i < st->source_count; i++)
        if (strncmp(st->sources[i].name, "hotreload", 9) == 0)
            calls += st->sources[i].total.calls;
    return calls;
}

/* ---- Cases ---------------------------------------------------------------- */

/* Idle: nothing wakes the loop for the watch; then one in-place save gives
 * exactly one reload, on the loop thread, with the new size. */
static void reloads_changed_file_on_loop_thread(void)
{
    rig r;
    if (!rig_open(&r, 8, 8))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "a/b.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "..", TEMPO_LOAD_IMAGE, on_reload, &g), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "x.bin", TEMPO_LOAD_CUSTOM, on_reload, &g), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_attach(r.hr, r.loop), TEMPO_EBUSY);

    /* Idle: a stretch of real frames (the loop wakes for its own timer)
     * with no file touched. The hotreload's sources must never have been
     * dispatched, and no frame may have woken for a watched handle. */
    run_for(&r, 400 * TEMPO_NS_PER_MS);
    const tempo_loop_stats *st = tempo_loop_get_stats(r.loop);
    uint64_t frames = st->total.frames;
    uint64_t watch_wakes = st->total.wakes[TEMPO_LOOP_WAKE_WATCH];
    tt_note("idle: %llu frames, %llu watch wakes, %llu hotreload dispatches", (unsigned long long)frames,
            (unsigned long long)watch_wakes, (unsigned long long)hotreload_calls(&r));
    CHECK_GE_U64(frames, 2);
    CHECK_EQ_U64(watch_wakes, 0);
    CHECK_EQ_U64(hotreload_calls(&r), 0);
    CHECK_EQ_INT(g.calls, 0);

    /* A change to another file of the directory is read and ignored. */
    CHECK(write_bmp("other.bmp", 5, 5));
    CHECK(write_bmp("hero.bmp", 16, 8));
    run_until(&r, &g.calls, 1);
    CHECK_EQ_INT(g.calls, 1);
    CHECK_EQ_INT(g.error, 0);
    CHECK_EQ_INT(g.w, 16);
    CHECK_EQ_INT(g.h, 8);
    CHECK(g.on_loop_thread);
    CHECK_GE_U64(hotreload_calls(&r), 1);

    /* One save, one reload: nothing more comes. */
    run_for(&r, 5 * SETTLE_NS);
    CHECK_EQ_INT(g.calls, 1);

    /* Again, to a third size. */
    CHECK(write_bmp("hero.bmp", 3, 7));
    run_until(&r, &g.calls, 2);
    CHECK_EQ_INT(g.calls, 2);
    CHECK_EQ_INT(g.w, 3);
    CHECK_EQ_INT(g.h, 7);
    tempo_hotreload_stats hs;
    CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    CHECK_EQ_U64(hs.reloads, 2);
    CHECK_EQ_U64(hs.delivered, 2);
    CHECK_EQ_U64(hs.failed, 0);
    CHECK_EQ_INT(hs.in_flight, 0);
    CHECK_EQ_INT(hs.watched, 1);
    CHECK_GE_U64(hs.events, 3);
    rig_close(&r);
}

/* An editor's save by rename: the old file moved away, a temporary written
 * and renamed in. One reload of the new content, and no error (the moment
 * with no hero.bmp is a change in progress, not a deletion). */
static void rename_save_is_one_change(void)
{
    rig r;
    if (!rig_open(&r, 8, 8))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    run_for(&r, 100 * TEMPO_NS_PER_MS);
    CHECK_EQ_INT(g.calls, 0);
    CHECK(rename_over("hero.bmp", "hero.bmp~"));
    CHECK(write_bmp("hero.tmp", 12, 10));
    CHECK(rename_over("hero.tmp", "hero.bmp"));
    run_until(&r, &g.calls, 1);
    run_for(&r, 5 * SETTLE_NS);
    tt_note("rename save: %d call(s), error %d, %dx%d", g.calls, g.error, g.w, g.h);
    CHECK_EQ_INT(g.calls, 1);
    CHECK_EQ_INT(g.error, 0);
    CHECK_EQ_INT(g.w, 12);
    CHECK_EQ_INT(g.h, 10);
    rig_close(&r);
}

/* A file deleted for good: its callback gets the loader's TEMPO_ENOENT with
 * a text naming the file. */
static void deleted_file_gives_clear_error(void)
{
    rig r;
    if (!rig_open(&r, 8, 8))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    run_for(&r, 100 * TEMPO_NS_PER_MS);
    char p[600];
    path_of(p, sizeof p, "hero.bmp");
    CHECK_EQ_INT(remove(p), 0);
    run_until(&r, &g.calls, 1);
    tt_note("deleted: error %d (%s): %s", g.error, tempo_strerror(g.error), g.text);
    CHECK_EQ_INT(g.calls, 1);
    CHECK_EQ_INT(g.error, TEMPO_ENOENT);
    CHECK(strstr(g.text, "hero.bmp") != NULL || g.text[0] != '\0');
    CHECK(g.on_loop_thread);
    tempo_hotreload_stats hs;
    CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    CHECK_EQ_U64(hs.failed, 1);

    /* It comes back: the next reload succeeds. */
    CHECK(write_bmp("hero.bmp", 9, 9));
    run_until(&r, &g.calls, 2);
    CHECK_EQ_INT(g.error, 0);
    CHECK_EQ_INT(g.w, 9);
    rig_close(&r);
}

/* Destroy with a reload in flight: its callback runs once, with
 * TEMPO_ECANCELED, from inside destroy; the loader's later delivery of the
 * cancelled request reaches nobody and frees everything (ASan/LSan runs
 * check the "leaks nothing" half). A large image keeps the reload busy. */
static void destroy_with_change_in_flight(void)
{
    rig r;
    if (!rig_open(&r, 8, 8))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    CHECK(write_bmp("hero.bmp", 2048, 2048));
    /* Until the file settled and the reload went to the loader. */
    tempo_hotreload_stats hs = {0};
    uint64_t end = tempo_now_ns() + GIVE_UP_NS;
    while (hs.reloads == 0 && tempo_now_ns() < end) {
        CHECK_EQ_INT(tempo_loop_frame(r.loop), 0);
        CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    }
    CHECK_EQ_U64(hs.reloads, 1);
    if (hs.in_flight == 1) {
        CHECK_EQ_INT(g.calls, 0);
        tempo_hotreload_destroy(r.hr);
        r.hr = NULL;
        CHECK_EQ_INT(g.calls, 1);
        CHECK_EQ_INT(g.error, TEMPO_ECANCELED);
        CHECK(g.on_loop_thread);
    } else {
        tt_note("the reload was delivered before destroy (%d call): nothing was in flight", g.calls);
    }
    /* The loader delivers the cancelled request to the orphaned ticket. */
    end = tempo_now_ns() + GIVE_UP_NS;
    while (tempo_loader_pending(r.ld) > 0 && tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(r.loop), 0);
    CHECK_EQ_INT(tempo_loader_pending(r.ld), 0);
    CHECK_LE_INT(g.calls, 1);
    const tempo_loop_stats *st = tempo_loop_get_stats(r.loop);
    CHECK_EQ_INT(st->source_count, 1); /* the loader only: destroy detached both of the hotreload's */
    rig_close(&r);
}

/* Unwatch with a reload in flight, and a loop destroyed before the
 * hotreload (which then detaches nothing and frees cleanly). */
static void unwatch_in_flight_and_loop_destroyed_first(void)
{
    rig r;
    if (!rig_open(&r, 0, 0))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    CHECK(write_bmp("hero.bmp", 2048, 2048)); /* created after the watch: a change too */
    tempo_hotreload_stats hs = {0};
    uint64_t end = tempo_now_ns() + GIVE_UP_NS;
    while (hs.reloads == 0 && tempo_now_ns() < end) {
        CHECK_EQ_INT(tempo_loop_frame(r.loop), 0);
        CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    }
    CHECK_EQ_U64(hs.reloads, 1);
    int before = g.calls;
    CHECK_EQ_INT(tempo_hotreload_unwatch(r.hr, "hero.bmp"), 0);
    CHECK_EQ_INT(tempo_hotreload_unwatch(r.hr, "hero.bmp"), TEMPO_EINVAL);
    if (before == 0) {
        CHECK_EQ_INT(g.calls, 1);
        CHECK_EQ_INT(g.error, TEMPO_ECANCELED);
    }
    tempo_loop_destroy(r.loop); /* detaches the loader and the hotreload */
    r.loop = NULL;
    CHECK_EQ_INT(tempo_hotreload_detach(r.hr), TEMPO_EINVAL);
    tempo_hotreload_destroy(r.hr);
    r.hr = NULL;
    CHECK_LE_INT(g.calls, 1);
    rig_close(&r); /* the loader's destroy frees the cancelled request */
}

/* A change while the file's reload is in flight: one more reload after
 * that one is delivered, so the last callback has the last content. */
static void change_during_reload_reloads_again(void)
{
    rig r;
    if (!rig_open(&r, 8, 8))
        return;
    got g = {0};
    CHECK_EQ_INT(tempo_hotreload_watch(r.hr, "hero.bmp", TEMPO_LOAD_IMAGE, on_reload, &g), 0);
    CHECK(write_bmp("hero.bmp", 2048, 2048));
    tempo_hotreload_stats hs = {0};
    uint64_t end = tempo_now_ns() + GIVE_UP_NS;
    while (hs.reloads == 0 && tempo_now_ns() < end) {
        CHECK_EQ_INT(tempo_loop_frame(r.loop), 0);
        CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    }
    /* In flight, or just delivered: either way one more. On Windows the
     * write fails while the loader thread has the file open (SDL opens it
     * with FILE_SHARE_READ only): retry, as an editor's user would. */
    bool wrote = false;
    end = tempo_now_ns() + GIVE_UP_NS;
    while (!(wrote = write_bmp("hero.bmp", 6, 5)) && tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(r.loop), 0);
    CHECK(wrote);
    run_until(&r, &g.calls, 2);
    run_for(&r, 5 * SETTLE_NS);
    CHECK_EQ_INT(tempo_hotreload_get_stats(r.hr, &hs), 0);
    tt_note("%d calls, %llu reloads; last: error %d, %dx%d", g.calls, (unsigned long long)hs.reloads, g.error, g.w,
            g.h);
    CHECK_EQ_INT(g.calls, 2);
    CHECK_EQ_U64(hs.reloads, 2);
    CHECK_EQ_INT(g.error, 0);
    CHECK_EQ_INT(g.w, 6);
    CHECK_EQ_INT(g.h, 5);
    rig_close(&r);
}

/* The hot-reload declares what it delivers (tempo/loop.h), so the loop
 * records a reload and its replay delivers it at the same tick, with no
 * file changed during the replay and no replay code in hotreload.c: the
 * recorded decision to reload submits the request again, and the loader's
 * recorded completion hands it over at its tick. The recording goes into
 * the working directory (the build directory). */
typedef struct replay_game {
    uint64_t updates;
    uint64_t quit_at; /* 0: never */
    int calls;
    uint64_t reload_tick; /* updates run before the reload arrived */
    int w, h, error;
} replay_game;

static void rg_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    replay_game *g = user;
    g->updates++;
    if (g->quit_at != 0 && g->updates >= g->quit_at)
        tempo_loop_quit(loop);
}

static void rg_reload(tempo_hotreload *hr, const tempo_load_result *r, void *user)
{
    (void)hr;
    replay_game *g = user;
    g->calls++;
    g->reload_tick = g->updates;
    g->error = r->error;
    g->w = r->surface != NULL ? r->surface->w : 0;
    g->h = r->surface != NULL ? r->surface->h : 0;
    SDL_FreeSurface(r->surface);
}

static uint64_t rg_hash(tempo_loop *loop, void *user)
{
    (void)loop;
    const replay_game *g = user;
    return g->updates * 1000003u + (uint64_t)g->calls * 10007u + g->reload_tick * 101u + (uint64_t)g->w * 7u +
           (uint64_t)g->h;
}

static void a_reload_is_recorded_and_replayed_at_its_tick(void)
{
    const char *path = "test_hotreload_replay.trec";
    if (!make_dir()) {
        tt_fail(__FILE__, __LINE__, "cannot make a temporary directory");
        return;
    }
    CHECK(write_bmp("hero.bmp", 8, 8));
    CHECK(write_bmp("other.bmp", 4, 4));

    /* Record: the file changes once, live. */
    replay_game rec = {0};
    tempo_loop *loop = tempo_loop_create(
        &(tempo_loop_desc){.update_hz = 20, .max_render_hz = 20, .update = rg_update, .user = &rec});
    tempo_loader *ld = tempo_loader_create(NULL);
    tempo_hotreload *hr = tempo_hotreload_create(&(tempo_hotreload_desc){.dir = dir, .loader = ld});
    if (hr == NULL) {
        tempo_loader_destroy(ld);
        tempo_loop_destroy(loop);
        remove_dir();
        if (!watches_expected())
            TT_SKIP("no file watches on this backend/OS");
        tt_fail(__FILE__, __LINE__, "tempo_hotreload_create: %s", tempo_get_error());
        return;
    }
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK_EQ_INT(tempo_hotreload_attach(hr, loop), 0);
    CHECK_EQ_INT(tempo_hotreload_watch(hr, "hero.bmp", TEMPO_LOAD_IMAGE, rg_reload, &rec), 0);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = path, .hash = rg_hash, .hash_user = &rec,
                                                              .hash_every = 1}),
                 0);
    uint64_t end = tempo_now_ns() + 300 * TEMPO_NS_PER_MS;
    while (tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK(write_bmp("hero.bmp", 16, 8));
    end = tempo_now_ns() + GIVE_UP_NS;
    while (rec.calls == 0 && tempo_now_ns() < end)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_EQ_INT(rec.calls, 1);
    rec.quit_at = rec.updates + 5;
    int r = 0;
    end = tempo_now_ns() + GIVE_UP_NS;
    while ((r = tempo_loop_frame(loop)) == 0 && tempo_now_ns() < end) {
    }
    CHECK_EQ_INT(r, 1);
    tempo_record_stats rs;
    tempo_loop_get_record_stats(loop, &rs);
    tt_note("recorded %llu ticks, %llu items; reload %dx%d before update %llu", (unsigned long long)rs.ticks,
            (unsigned long long)rs.items, rec.w, rec.h, (unsigned long long)rec.reload_tick + 1);
    CHECK_EQ_U64(rs.items, 2); /* the decision to reload, the loader's completion */
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_hotreload_destroy(hr);
    tempo_loop_destroy(loop);
    tempo_loader_destroy(ld);

    /* Replay: nothing changes on disk; the same game code. */
    replay_game rp_game = {0};
    tempo_replay *rp =
        tempo_replay_create(&(tempo_replay_desc){.path = path, .hash = rg_hash, .hash_user = &rp_game});
    CHECK(rp != NULL);
    if (rp == NULL) {
        remove_dir();
        return;
    }
    loop = tempo_loop_create(
        &(tempo_loop_desc){.update = rg_update, .user = &rp_game, .clock = tempo_replay_clock(rp)});
    ld = tempo_loader_create(NULL);
    hr = tempo_hotreload_create(&(tempo_hotreload_desc){.dir = dir, .loader = ld});
    CHECK(hr != NULL);
    CHECK_EQ_INT(tempo_loader_attach(ld, loop), 0);
    CHECK_EQ_INT(tempo_hotreload_attach(hr, loop), 0);
    CHECK_EQ_INT(tempo_hotreload_watch(hr, "hero.bmp", TEMPO_LOAD_IMAGE, rg_reload, &rp_game), 0);
    CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    uint64_t frames = 0;
    while ((r = tempo_loop_frame(loop)) == 0 && ++frames < 1000000) {
    }
    CHECK_EQ_INT(r, 1);
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    if (!res.matches)
        tt_note("%s", res.report);
    CHECK(res.matches);
    CHECK_EQ_U64(res.ticks, rs.ticks);
    CHECK_EQ_INT(rp_game.calls, 1);
    CHECK_EQ_U64(rp_game.reload_tick, rec.reload_tick);
    CHECK_EQ_INT(rp_game.error, 0);
    CHECK_EQ_INT(rp_game.w, 16);
    CHECK_EQ_INT(rp_game.h, 8);
    tempo_hotreload_destroy(hr);
    tempo_loop_destroy(loop);
    tempo_loader_destroy(ld);
    tempo_replay_destroy(rp);
    remove(path);
    remove_dir();
}

static void create_errors(void)
{
    tempo_loader *ld = tempo_loader_create(NULL);
    CHECK(ld != NULL);
    CHECK(tempo_hotreload_create(NULL) == NULL);
    CHECK(tempo_hotreload_create(&(tempo_hotreload_desc){.dir = "."}) == NULL);
    CHECK(tempo_hotreload_create(&(tempo_hotreload_desc){.loader = ld}) == NULL);
    tempo_hotreload *hr =
        tempo_hotreload_create(&(tempo_hotreload_desc){.dir = "no-such-dir-for-tempo-hotreload", .loader = ld});
    CHECK(hr == NULL);
    tt_note("missing directory: %s", tempo_get_error());
    tempo_hotreload_destroy(hr);
    tempo_hotreload_destroy(NULL);
    CHECK_EQ_INT(tempo_hotreload_attach(NULL, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_detach(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_unwatch(NULL, "x"), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_hotreload_get_stats(NULL, &(tempo_hotreload_stats){0}), TEMPO_EINVAL);
    tempo_loader_destroy(ld);
}

static const tt_case cases[] = {
    TT_CASE(reloads_changed_file_on_loop_thread),
    TT_CASE(rename_save_is_one_change),
    TT_CASE(deleted_file_gives_clear_error),
    TT_CASE(destroy_with_change_in_flight),
    TT_CASE(unwatch_in_flight_and_loop_destroyed_first),
    TT_CASE(change_during_reload_reloads_again),
    TT_CASE(a_reload_is_recorded_and_replayed_at_its_tick),
    TT_CASE(create_errors),
};

int main(int argc, char **argv)
{
    /* Events only: the loop needs SDL's event queue, no window. */
    if (SDL_Init(SDL_INIT_EVENTS) != 0)
        printf("SDL_Init(EVENTS): %s\n", SDL_GetError());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
