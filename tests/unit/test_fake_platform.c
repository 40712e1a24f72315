/* The fake backend's own promises (platform/fake/fake_platform.h): a wait
 * that would block moves the virtual clock to its deadline instead of
 * sleeping, scripted signals land at their virtual time, and a loop built
 * on this backend runs on virtual time with no desc.clock at all. Linked
 * against tempo_fake; every time is exact. */
#include <SDL.h>

#include "fake_platform.h"
#include "handle_pool.h"
#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S

static plat_handle *obj_of(tempo_handle *h)
{
    plat_handle *o = tempo__handle_get(h, 0);
    plat_handles_release(&o, 1); /* the table keeps it alive */
    return o;
}

static void a_timeout_is_a_jump_not_a_sleep(void)
{
    tempo_handle *e = tempo_event_create(false, false);
    uint64_t real0 = SDL_GetTicks64();
    uint64_t t0 = tempo_now_ns();
    uint64_t jumps = plat_fake_jumps(), blocks = plat_fake_real_blocks();
    CHECK_EQ_INT(tempo_wait(&e, 1, 3600 * S, 0), TEMPO_ETIMEDOUT);
    CHECK_EQ_U64(tempo_now_ns() - t0, 3600 * S); /* exactly the timeout */
    CHECK_EQ_U64(plat_fake_jumps() - jumps, 1);
    CHECK_EQ_U64(plat_fake_real_blocks() - blocks, 0);
    CHECK_LT_U64(SDL_GetTicks64() - real0, 10000); /* an hour took no real hour (bound: a lost jump) */
    /* A zero timeout does not move the clock. */
    t0 = tempo_now_ns();
    CHECK_EQ_INT(tempo_wait(&e, 1, 0, 0), TEMPO_ETIMEDOUT);
    CHECK_EQ_U64(tempo_now_ns(), t0);
    tempo_event_destroy(e);
}

static void timers_fire_at_their_exact_virtual_time(void)
{
    tempo_handle *t = tempo_timer_create(false);
    uint64_t t0 = tempo_now_ns();
    tempo_timer_set(t, t0 + 10 * MS, 16666667);
    for (int k = 0; k < 100; k++) {
        CHECK_EQ_INT(tempo_wait(&t, 1, TEMPO_INFINITE, 0), 0);
        CHECK_EQ_U64(tempo_now_ns(), t0 + 10 * MS + (uint64_t)k * 16666667);
        CHECK_EQ_U64(tempo_timer_missed(t), 0);
        if (tt_failed())
            break;
    }
    /* Time moved by the test: the ticks passed meanwhile are missed ones. */
    plat_fake_advance_to_ns(tempo_now_ns() + 5 * 16666667);
    CHECK_EQ_INT(tempo_wait(&t, 1, 0, 0), 0);
    CHECK_EQ_U64(tempo_timer_missed(t), 4);
    tempo_timer_destroy(t);
}

static void a_scripted_signal_lands_at_its_time(void)
{
    tempo_handle *e = tempo_event_create(false, false);
    tempo_handle *other = tempo_event_create(false, false);
    uint64_t t0 = tempo_now_ns();
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), t0 + 250 * MS), 0);
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), t0 + 400 * MS), 0);
    /* A wait that does not hold the event is not woken by its script. */
    CHECK_EQ_INT(tempo_wait(&other, 1, 100 * MS, 0), TEMPO_ETIMEDOUT);
    CHECK_EQ_U64(tempo_now_ns(), t0 + 100 * MS);
    tempo_handle *set[2] = {other, e};
    CHECK_EQ_INT(tempo_wait(set, 2, TEMPO_INFINITE, 0), 1);
    CHECK_EQ_U64(tempo_now_ns(), t0 + 250 * MS);
    CHECK_EQ_INT(tempo_wait(set, 2, 1 * S, 0), 1);
    CHECK_EQ_U64(tempo_now_ns(), t0 + 400 * MS);
    /* Passed by a clock moved from outside: set then (auto-reset: once). */
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), t0 + 500 * MS), 0);
    plat_fake_advance_to_ns(t0 + 600 * MS);
    CHECK_EQ_INT(tempo_wait(&e, 1, 0, 0), 0);
    CHECK_EQ_INT(tempo_wait(&e, 1, 0, 0), TEMPO_ETIMEDOUT);
    /* Due already: set at once. Timers cannot be scripted. */
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), 0), 0);
    CHECK_EQ_INT(tempo_wait(&e, 1, 0, 0), 0);
    tempo_handle *t = tempo_timer_create(false);
    CHECK_EQ_INT(plat_fake_script_set(obj_of(t), t0), TEMPO_EINVAL);
    /* A script on an event destroyed before it fires does nothing. */
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), tempo_now_ns() + 1 * S), 0);
    tempo_event_destroy(e);
    plat_fake_advance_to_ns(tempo_now_ns() + 2 * S);
    tempo_timer_destroy(t);
    tempo_event_destroy(other);
}

typedef struct counter {
    int updates, renders;
    uint64_t first_ns, last_ns;
} counter;

static void count_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)dt_ns;
    counter *c = user;
    if (c->updates++ == 0)
        c->first_ns = tempo_now_ns();
    c->last_ns = tempo_now_ns();
    if (c->updates == 61)
        tempo_loop_quit(loop);
}

static void count_render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    (void)alpha;
    ((counter *)user)->renders++;
}

static void a_loop_runs_on_virtual_time_without_desc_clock(void)
{
    /* The real wait path (timer + tempo_wait), no desc.clock: on this
     * backend its sleeps are jumps, so a second of a 60 Hz game is exact
     * and takes no real second. */
    counter c = {0};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .max_render_hz = 30, .update = count_update, .render = count_render, .user = &c});
    CHECK(loop != NULL);
    if (loop == NULL)
        return;
    uint64_t real0 = SDL_GetTicks64();
    CHECK_EQ_INT(tempo_loop_run(loop), 0);
    CHECK_EQ_INT(c.updates, 61);
    CHECK_EQ_U64(c.last_ns - c.first_ns, 1 * S); /* tick 60 of the absolute schedule, to the ns */
    CHECK_GE_INT(c.renders, 29);
    CHECK_LE_INT(c.renders, 31);
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    CHECK_EQ_U64(st->total.stalls, 0);
    CHECK_LT_U64(SDL_GetTicks64() - real0, 10000);
    tempo_loop_destroy(loop);
}

/* desc.clock for the same story: time moves to the deadline, or stops at
 * the scripted instant and sets the event there (as input would). */
typedef struct script_clock {
    uint64_t now, set_at;
    tempo_handle *event;
} script_clock;

static uint64_t sc_now(void *user)
{
    return ((script_clock *)user)->now;
}

static void sc_wait_until(void *user, uint64_t deadline)
{
    script_clock *c = user;
    if (c->set_at != 0 && c->set_at <= deadline) {
        c->now = c->set_at;
        c->set_at = 0;
        tempo_event_set(c->event);
        return;
    }
    c->now = deadline;
}

static void on_watch(tempo_loop *loop, tempo_handle *h, void *user)
{
    (void)loop;
    (void)h;
    ++*(int *)user;
}

/* Three frames: the first update (due at once), a watched event set 25 ms
 * into the wait for the next tick, then the tick. */
static void run_story(tempo_loop *loop, tempo_handle *e, int *calls, uint64_t wakes[TEMPO_LOOP_WAKE_COUNT],
                      uint64_t times[3])
{
    CHECK_EQ_INT(tempo_loop_watch(loop, e, on_watch, calls), 0);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        times[i] = tempo_loop_next_due_ns(loop);
    }
    const tempo_loop_stats *st = tempo_loop_get_stats(loop);
    for (int w = 0; w < TEMPO_LOOP_WAKE_COUNT; w++)
        wakes[w] = st->total.wakes[w];
}

static void desc_clock_and_the_backend_report_the_same_wakes(void)
{
    /* The loop's two waits -- the platform's (here virtual) and desc.clock's
     * adapter -- must tell the frame the same story. */
    tempo_loop_desc d = {.update_hz = 10, .render_on_demand = true};
    uint64_t wakes_a[TEMPO_LOOP_WAKE_COUNT], wakes_b[TEMPO_LOOP_WAKE_COUNT], due_a[3], due_b[3];
    int calls_a = 0, calls_b = 0;

    tempo_handle *e = tempo_event_create(false, false);
    tempo_loop *a = tempo_loop_create(&d);
    uint64_t t0 = tempo_now_ns();
    CHECK_EQ_INT(plat_fake_script_set(obj_of(e), t0 + 25 * MS), 0);
    run_story(a, e, &calls_a, wakes_a, due_a);
    CHECK_EQ_U64(tempo_now_ns() - t0, 100 * MS);
    tempo_loop_destroy(a);

    script_clock c = {.now = t0, .set_at = t0 + 25 * MS, .event = e};
    d.clock = (tempo_clock){sc_now, sc_wait_until, &c};
    tempo_loop *b = tempo_loop_create(&d);
    run_story(b, e, &calls_b, wakes_b, due_b);
    CHECK_EQ_U64(c.now - t0, 100 * MS);
    tempo_loop_destroy(b);
    tempo_event_destroy(e);

    CHECK_EQ_INT(calls_a, 1);
    CHECK_EQ_INT(calls_b, 1);
    for (int w = 0; w < TEMPO_LOOP_WAKE_COUNT; w++) {
        if (wakes_a[w] != wakes_b[w])
            tt_fail(__FILE__, __LINE__, "wake \"%s\": %llu on the backend's wait, %llu on desc.clock's",
                    tempo_loop_wake_name((tempo_loop_wake)w), (unsigned long long)wakes_a[w],
                    (unsigned long long)wakes_b[w]);
    }
    CHECK_EQ_U64(wakes_a[TEMPO_LOOP_WAKE_DUE], 1);
    CHECK_EQ_U64(wakes_a[TEMPO_LOOP_WAKE_WATCH], 1);
    CHECK_EQ_U64(wakes_a[TEMPO_LOOP_WAKE_TIMER], 1);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_U64(due_a[i] - t0, due_b[i] - t0);
}

static const tt_case cases[] = {
    TT_CASE(a_timeout_is_a_jump_not_a_sleep),
    TT_CASE(timers_fire_at_their_exact_virtual_time),
    TT_CASE(a_scripted_signal_lands_at_its_time),
    TT_CASE(a_loop_runs_on_virtual_time_without_desc_clock),
    TT_CASE(desc_clock_and_the_backend_report_the_same_wakes),
};

int main(int argc, char **argv)
{
    if (!plat_fake_is_virtual()) {
        printf("# TEMPO_FAKE_REAL_TIME is set: this test needs the virtual clock\n");
        plat_fake_set_real_time(false);
    }
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    return rc;
}
