/* Real-time smoke tests of the game loop: the real clock, the real wait,
 * SDL's dummy video driver (no display needed). What these catch: a loop
 * that spins instead of sleeping, one that does not wake for its timer, or
 * one that another thread cannot wake.
 *
 * Machines are shared and loaded, so nothing here depends on how soon the
 * scheduler runs a thread: the checks are on order, occurrence, the wake
 * reasons the loop reports, and bounds that load can only make easier
 * (never more updates than the clock allows; a late wake means fewer
 * frames, not more). Precision is bench_loop's job; the numbers are notes. */
#if defined(__linux__)
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE /* syscall (thread_slice.h) */
#endif
#endif
#include <stdatomic.h>
#include <stdio.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "harness.h"
#include "refusals.h"
#include "tempo/tempo.h"
#include "thread_slice.h"

#define MS TEMPO_NS_PER_MS

static bool video_ok;

/* A run that has not made its progress by then ends anyway (and fails). */
#define RUN_BACKSTOP_NS (60 * TEMPO_NS_PER_S)

typedef struct counter {
    uint64_t updates, renders;
    uint64_t woke_at;
    tempo_handle *deadline;
    uint64_t t0;          /* real_loop_run: the run's start */
    Uint32 hold_first_ms; /* the first update takes this long */
} counter;

static void count_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    counter *c = user;
    if (++c->updates == 1 && c->hold_first_ms > 0)
        SDL_Delay(c->hold_first_ms);
}

static void count_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    ((counter *)user)->renders++;
}

static void quit_on_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)h;
    ((counter *)user)->woke_at = tempo_now_ns();
    tempo_loop_quit(loop);
}

/* Progress the rate test asserts: 14 of the 30 ticks of its 500 ms run or
 * dropped by the stall clamp (counted; those of the last 250 ms,
 * max_gap_ns, a starved loop may meet only after the end, and one), and a
 * render. */
static bool made_progress(tempo_loop *loop, const counter *c)
{
    return c->updates + tempo_loop_get_stats(loop)->total.dropped_updates >= 14 && c->renders >= 1;
}

/* The rate test's end: its watched timer, at 500 ms and then every 50 ms
 * until the loop has made its progress (a loop starved past the end meets
 * the timer before the ticks it owes). */
static void end_when_done(tempo_loop *loop, tempo_handle *h, void *user)
{
    counter *c = user;
    uint64_t now = tempo_now_ns();
    if (made_progress(loop, c) || now - c->t0 > RUN_BACKSTOP_NS)
        quit_on_watch(loop, h, user);
    else
        tempo_timer_set(h, now + 50 * MS, 0);
}

static void real_loop_run(Uint32 hold_first_ms)
{
    if (!video_ok)
        TT_SKIP("no SDL video (dummy driver)");
    SDL_Window *win = SDL_CreateWindow("loop", 0, 0, 64, 64, 0);
    if (win == NULL)
        TT_SKIP("SDL_CreateWindow failed with the dummy driver");
    counter c = {.hold_first_ms = hold_first_ms};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.max_render_hz = 60,
                                                             .window = win,
                                                             .update = count_update,
                                                             .render = count_render,
                                                             .user = &c});
    CHECK(loop != NULL);
    /* The run ends through a watched one-shot timer: the plug-in path. */
    tempo_handle *end = tempo_timer_create(false);
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns();
    c.t0 = t0;
    tempo_timer_set(end, t0 + 500 * MS, 0);
    CHECK_EQ_INT(tempo_loop_watch(loop, end, end_when_done, &c), 0);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    uint64_t wall = tempo_now_ns() - t0;
    tempo_process_usage(&u1);
    const tempo_loop_stats *s = tempo_loop_get_stats(loop);
    double cpu = (double)(u1.cpu_ns - u0.cpu_ns) / (double)wall;
    tt_note("%.3f s: %llu updates, %llu renders, %llu frames (%llu timer wakes), CPU %.1f%%, route %s",
            (double)wall / 1e9, (unsigned long long)c.updates, (unsigned long long)c.renders,
            (unsigned long long)s->total.frames, (unsigned long long)s->total.wakes[TEMPO_LOOP_WAKE_TIMER],
            100 * cpu, tempo_wait_route());
    tt_note("lateness p50 %llu us, p99 %llu us, max %llu us", (unsigned long long)s->total.lateness_p50_ns / 1000,
            (unsigned long long)s->total.lateness_p99_ns / 1000,
            (unsigned long long)s->total.lateness_max_ns / 1000);
    CHECK_GE_U64(wall, 500 * MS);
    CHECK(c.woke_at >= t0 + 500 * MS); /* ended by the watched timer */
    double wall_s = (double)wall / 1e9;
    /* Never ahead of the clock (60 Hz updates, renders capped at 60 Hz). */
    CHECK_LE_DBL((double)c.updates, wall_s * 60 + 1);
    CHECK_LE_DBL((double)c.renders, wall_s * 60 + 1);
    /* The run ended by its progress, not its backstop: a loop that stops
     * updating or rendering fails. */
    CHECK(made_progress(loop, &c));
    CHECK_LT_U64(wall, RUN_BACKSTOP_NS);
    /* Slept: at least one wake by its timer, and about one frame per update
     * or render, never the thousands of a loop that polls (load makes
     * frames fewer). The CPU share only shrinks under load. */
    CHECK_GE_U64(s->total.wakes[TEMPO_LOOP_WAKE_TIMER], 1);
    CHECK_LE_DBL((double)s->total.frames, wall_s * 120 + 10);
    CHECK(cpu < 0.25); /* ~1% expected */
    tempo_loop_destroy(loop);
    tempo_timer_destroy(end);
    SDL_DestroyWindow(win);
}

static void real_loop_keeps_rate_and_sleeps(void)
{
    real_loop_run(0);
}

/* A machine too loaded to run the loop for longer than the run (a
 * sanitizer build beside CI's background builds): its first update holds
 * the loop 600 ms, and the end watch fires before the ticks it owes. */
static void real_loop_keeps_rate_when_held(void)
{
    real_loop_run(600);
}

static int SDLCALL quit_later(void *p)
{
    tempo_wait(NULL, 0, 100 * MS, 0); /* a precise sleep */
    tempo_loop_quit(p);
    return 0;
}

static void quit_from_another_thread_wakes_the_loop(void)
{
    /* 1 update per second, render on demand: the loop sleeps ~1 s at a time. */
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 1, .render_on_demand = true});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* the first update */
    uint64_t t0 = tempo_now_ns();
    SDL_Thread *th = SDL_CreateThread(quit_later, "quitter", loop);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    uint64_t took = tempo_now_ns() - t0;
    SDL_WaitThread(th, NULL);
    tt_note("quit after %.1f ms (signal at 100 ms)", (double)took / 1e6);
    CHECK_GE_U64(took, 100 * MS);
    /* Woken by the quit itself (not by its next update, 1 s away, which a
     * very late quitter would meet first: the signal still counts once). */
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_SIGNAL], 1);
    tempo_loop_destroy(loop);
}

typedef struct pinger {
    tempo_handle *event;
    _Atomic uint64_t sent_at;
} pinger;

static int SDLCALL ping_later(void *p)
{
    pinger *pg = p;
    tempo_wait(NULL, 0, 50 * MS, 0);
    atomic_store(&pg->sent_at, tempo_now_ns());
    tempo_event_set(pg->event);
    return 0;
}

static void watched_handle_set_by_a_thread_wakes_the_loop(void)
{
    counter c = {0};
    pinger pg = {tempo_event_create(false, false), 0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 1, .render_on_demand = true});
    CHECK_EQ_INT(tempo_loop_watch(loop, pg.event, quit_on_watch, &c), 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    SDL_Thread *th = SDL_CreateThread(ping_later, "pinger", &pg);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    SDL_WaitThread(th, NULL);
    uint64_t sent_at = atomic_load(&pg.sent_at);
    CHECK(c.woke_at != 0);
    CHECK_GE_U64(c.woke_at, sent_at); /* the callback follows the signal */
    tt_note("watch callback %.1f us after the signal", (double)(c.woke_at - sent_at) / 1e3);
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_WATCH], 1);
    tempo_loop_destroy(loop);
    tempo_event_destroy(pg.event);
}

/* The same through a source: a "source" wake, not a "watch" one (issue 20). */
static int quit_on_dispatch(void *self, tempo_source_call *call)
{
    (void)call;
    tempo_loop_quit(self);
    return 0;
}

static void source_handle_set_by_a_thread_is_a_source_wake(void)
{
    pinger pg = {tempo_event_create(false, false), 0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 1, .render_on_demand = true});
    CHECK_EQ_INT(tempo_loop_add_source(loop, &(tempo_source_desc){.name = "pinged", .handle = pg.event,
                                                                    .dispatch = quit_on_dispatch, .self = loop}),
                 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    SDL_Thread *th = SDL_CreateThread(ping_later, "pinger", &pg);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    SDL_WaitThread(th, NULL);
    const tempo_loop_counts *t = &tempo_loop_get_stats(loop)->total;
    CHECK_EQ_U64(t->wakes[TEMPO_LOOP_WAKE_SOURCE], 1);
    CHECK_EQ_U64(t->wakes[TEMPO_LOOP_WAKE_WATCH], 0);
    tempo_loop_destroy(loop);
    tempo_event_destroy(pg.event);
}

/* The requester: after `delay_ms`, tempo_loop_request_render(loop). */
typedef struct requester {
    tempo_loop *loop;
    uint32_t delay_ms;
} requester;

static int SDLCALL request_later(void *p)
{
    requester *r = p;
    tempo_wait(NULL, 0, (uint64_t)r->delay_ms * MS, 0);
    tempo_loop_request_render(r->loop);
    return 0;
}

/* An update that owes no render (tempo_loop_skip_render): the renders after
 * the first frame's are the requests'. */
static void update_owing_no_render(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    ((counter *)user)->updates++;
    tempo_loop_skip_render(loop);
}

static void quit_on_second_render(tempo_loop *loop, float alpha, void *user)
{
    (void)alpha;
    counter *c = user;
    if (++c->renders == 2)
        tempo_loop_quit(loop);
}

/* A thread's request wakes a loop rendering on demand and makes it render.
 * The updates (1/s) owe no render, so the second render is the request's
 * however late the thread runs: a requester held past the next update (a
 * new thread on a loaded machine) must pass too. Before, every update owed
 * a render, and a request later than the update due at 1 s found the run
 * already ended by that update's render. */
static void render_request_after(uint32_t delay_ms)
{
    counter c = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 1, .render_on_demand = true, .update = update_owing_no_render, .render = quit_on_second_render,
        .user = &c});
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* update + first render */
    uint64_t t0 = tempo_now_ns();
    requester r = {loop, delay_ms};
    SDL_Thread *th = SDL_CreateThread(request_later, "requester", &r);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    uint64_t took = tempo_now_ns() - t0;
    SDL_WaitThread(th, NULL);
    tt_note("second render after %.1f ms (request at %u ms), %llu updates", (double)took / 1e6, delay_ms,
            (unsigned long long)c.updates);
    CHECK_EQ_U64(c.renders, 2);
    CHECK_GE_U64(took, (uint64_t)delay_ms * MS); /* not before the request */
    CHECK_EQ_U64(tempo_loop_get_stats(loop)->total.wakes[TEMPO_LOOP_WAKE_SIGNAL], 1);
    CHECK_GE_U64(c.updates, delay_ms >= 1000 ? 2 : 1); /* the first frame's; the starved case's next one */
    tempo_loop_destroy(loop);
}

static void render_request_from_a_thread(void)
{
    render_request_after(50);
}

static void render_request_from_a_starved_thread(void)
{
    render_request_after(1500); /* between the updates due at 1 s and 2 s */
}

/* tempo_audio_attach: notices reach the callback on the loop thread, in
 * order, through the loop's source (SDL's dummy audio driver; the bound is
 * only a safety net: occurrence and order are what is checked). */
typedef struct notice_log {
    int n;
    uint32_t kind[4];
    uint64_t tag[4];
    SDL_threadID thread;
    bool wrong_thread;
} notice_log;

static void log_notice(const tempo_audio_notice *notice, void *user)
{
    notice_log *lg = user;
    if (SDL_ThreadID() != lg->thread)
        lg->wrong_thread = true;
    if (lg->n < 4) {
        lg->kind[lg->n] = notice->kind;
        lg->tag[lg->n] = notice->tag;
    }
    lg->n++;
}

static void quit_when_two_notices(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    if (((notice_log *)user)->n >= 2)
        tempo_loop_quit(loop);
}

static void audio_notices_reach_an_attached_loop(void)
{
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    tempo_audio *au = tempo_audio_create(&(tempo_audio_desc){.frequency = 48000, .buffer_frames = 480});
    if (au == NULL)
        TT_SKIP("no dummy audio driver");
    static Sint16 pcm[4800 * 2];
    Mix_Chunk *chunk = Mix_QuickLoad_RAW((Uint8 *)pcm, sizeof pcm);
    CHECK(chunk != NULL);
    notice_log lg = {.thread = SDL_ThreadID()};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 100, .render_on_demand = true, .update = quit_when_two_notices, .user = &lg});
    CHECK_EQ_INT(tempo_audio_attach(au, loop, log_notice, &lg), 0);
    CHECK_EQ_INT(tempo_audio_attach(au, loop, log_notice, &lg), TEMPO_EBUSY);
    int ch = tempo_audio_play(au, -1, chunk, 0);
    CHECK_GE_INT(ch, 0);
    CHECK_EQ_INT(tempo_audio_mark(au, ch, 2400, NULL, 7), 0);
    CHECK_EQ_INT(tempo_audio_mark_end(au, ch, NULL, 8), 0);
    tempo_handle *end = tempo_timer_create(false);
    counter c = {0};
    tempo_timer_set(end, tempo_now_ns() + 10000 * MS, 0); /* safety net only */
    CHECK_EQ_INT(tempo_loop_watch(loop, end, quit_on_watch, &c), 0);
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    CHECK_EQ_INT(lg.n, 2);
    CHECK_EQ_INT(lg.kind[0], TEMPO_AUDIO_MARK);
    CHECK_EQ_U64(lg.tag[0], 7);
    CHECK_EQ_INT(lg.kind[1], TEMPO_AUDIO_END);
    CHECK_EQ_U64(lg.tag[1], 8);
    CHECK(!lg.wrong_thread);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    CHECK_EQ_INT(st->source_count, 1);
    CHECK_STR_EQ(st->sources[0].name, "audio");
    CHECK_EQ_U64(st->sources[0].total.items, 2);
    CHECK_EQ_INT(tempo_audio_detach(au), 0);
    CHECK_EQ_INT(tempo_audio_detach(au), TEMPO_EINVAL);
    tempo_loop_destroy(loop);
    tempo_timer_destroy(end);
    tempo_audio_destroy(au);
    Mix_FreeChunk(chunk);
}

/* A loop leaves its thread's scheduler slice as it found it. It asked for
 * 20 ms (50 ms with a 20 Hz step) until the loader's threads learnt to
 * give up the turn their wake-ups win (issue 39); with EEVDF a long slice
 * also makes the loop thread's own wake-ups wait behind a busy thread of
 * normal priority (bench_sched, D), so it asks for nothing now. Before,
 * this read 20 ms with the 60 Hz loop and 50 ms beside the 20 Hz one. */
static void a_loop_leaves_its_threads_slice_alone(void)
{
    uint64_t before = tt_thread_slice_ns();
    if (before == 0)
        TT_SKIP("no per-thread scheduler slice to read (Linux 6.12 on)");
    tempo_loop *a = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60});
    CHECK(a != NULL);
    uint64_t with_one = tt_thread_slice_ns();
    tempo_loop *slow = tempo_loop_create(&(tempo_loop_desc){.update_hz = 20}); /* a 50 ms step */
    CHECK(slow != NULL);
    uint64_t with_slow = tt_thread_slice_ns();
    tempo_loop_destroy(slow);
    tempo_loop_destroy(a);
    tt_note("slice %.2f ms; %.2f with a 60 Hz loop, %.2f with a 20 Hz one beside it, %.2f after", before / 1e6,
            with_one / 1e6, with_slow / 1e6, tt_thread_slice_ns() / 1e6);
    CHECK_EQ_U64(with_one, before);
    CHECK_EQ_U64(with_slow, before);
    CHECK_EQ_U64(tt_thread_slice_ns(), before);
}

static const tt_case cases[] = {
    TT_CASE(real_loop_keeps_rate_and_sleeps),
    TT_CASE(real_loop_keeps_rate_when_held),
    TT_CASE(quit_from_another_thread_wakes_the_loop),
    TT_CASE(watched_handle_set_by_a_thread_wakes_the_loop),
    TT_CASE(source_handle_set_by_a_thread_is_a_source_wake),
    TT_CASE(render_request_from_a_thread),
    TT_CASE(render_request_from_a_starved_thread),
    TT_CASE(audio_notices_reach_an_attached_loop),
    TT_CASE(a_loop_leaves_its_threads_slice_alone),
};

int main(int argc, char **argv)
{
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "dummy");
    video_ok = SDL_Init(SDL_INIT_VIDEO) == 0;
    if (!video_ok)
        printf("SDL_Init(VIDEO) with the dummy driver: %s\n", SDL_GetError());
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
