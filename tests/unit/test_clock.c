/* The shared clock (tempo/clock.h): the real default, the fake clock's
 * reads, advances, waits and hook, and advancing it from several threads. */
#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS

static void zero_clock_is_the_real_one(void)
{
    tempo_clock zero = {0};
    CHECK(!tempo_clock_is_fake(&zero));
    CHECK(!tempo_clock_is_fake(NULL));
    uint64_t a = tempo_now_ns();
    uint64_t b = tempo_clock_now(&zero);
    uint64_t c = tempo_clock_now(NULL);
    uint64_t d = tempo_now_ns();
    CHECK_LE_U64(a, b);
    CHECK_LE_U64(b, c);
    CHECK_LE_U64(c, d);
}

static void fake_clock_reads_and_advances(void)
{
    tempo_fake_clock *fc = tempo_fake_clock_create(1000 * MS);
    CHECK(fc != NULL);
    tempo_clock clk = tempo_fake_clock_get(fc);
    CHECK(tempo_clock_is_fake(&clk));
    CHECK_EQ_U64(tempo_clock_now(&clk), 1000 * MS);
    CHECK_EQ_U64(tempo_fake_clock_advance(fc, 5 * MS), 1005 * MS);
    CHECK_EQ_U64(tempo_clock_now(&clk), 1005 * MS);
    CHECK_EQ_INT(tempo_fake_clock_set(fc, 2000 * MS), 0);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 2000 * MS);
    /* Never backwards. */
    CHECK_EQ_INT(tempo_fake_clock_set(fc, 1999 * MS), TEMPO_ERANGE);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 2000 * MS);
    CHECK_EQ_INT(tempo_fake_clock_set(fc, 2000 * MS), 0);
    /* Saturates instead of wrapping. */
    CHECK_EQ_U64(tempo_fake_clock_advance(fc, UINT64_MAX), UINT64_MAX);
    tempo_fake_clock_destroy(fc);
}

static void null_arguments(void)
{
    tempo_clock clk = tempo_fake_clock_get(NULL);
    CHECK(!tempo_clock_is_fake(&clk));
    CHECK_EQ_U64(tempo_fake_clock_now(NULL), 0);
    CHECK_EQ_U64(tempo_fake_clock_advance(NULL, 5), 0);
    CHECK_EQ_INT(tempo_fake_clock_set(NULL, 5), TEMPO_EINVAL);
    tempo_fake_clock_stats st;
    CHECK_EQ_INT(tempo_fake_clock_get_stats(NULL, &st), TEMPO_EINVAL);
    tempo_fake_clock_on_wait(NULL, NULL, NULL);
    tempo_fake_clock_destroy(NULL);
}

static void wait_jumps_to_the_deadline(void)
{
    tempo_fake_clock *fc = tempo_fake_clock_create(10 * MS);
    tempo_clock clk = tempo_fake_clock_get(fc);
    clk.wait_until(clk.user, 26 * MS);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 26 * MS);
    /* A deadline in the past leaves the time alone. */
    clk.wait_until(clk.user, 20 * MS);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 26 * MS);
    /* Nothing due: the time stands still (no hook to move it). */
    clk.wait_until(clk.user, TEMPO_INFINITE);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 26 * MS);
    tempo_fake_clock_stats st;
    CHECK_EQ_INT(tempo_fake_clock_get_stats(fc, &st), 0);
    CHECK_EQ_U64(st.waits, 3);
    CHECK_EQ_U64(st.infinite_waits, 1);
    CHECK_EQ_U64(st.slept_ns, 16 * MS);
    tempo_fake_clock_destroy(fc);
}

typedef struct hook_log {
    uint64_t now, deadline;
    uint64_t answer;
    int calls;
} hook_log;

static uint64_t hook(void *user, uint64_t now_ns, uint64_t deadline_ns)
{
    hook_log *h = user;
    h->now = now_ns;
    h->deadline = deadline_ns;
    h->calls++;
    return h->answer;
}

static void wait_hook_decides_where_to_stop(void)
{
    tempo_fake_clock *fc = tempo_fake_clock_create(100 * MS);
    tempo_clock clk = tempo_fake_clock_get(fc);
    hook_log h = {.answer = 103 * MS};
    tempo_fake_clock_on_wait(fc, hook, &h);
    clk.wait_until(clk.user, 116 * MS); /* an early wake-up, e.g. input */
    CHECK_EQ_INT(h.calls, 1);
    CHECK_EQ_U64(h.now, 100 * MS);
    CHECK_EQ_U64(h.deadline, 116 * MS);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 103 * MS);
    h.answer = 130 * MS; /* a late one */
    clk.wait_until(clk.user, 116 * MS);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 130 * MS);
    h.answer = 1 * MS; /* backwards: ignored */
    clk.wait_until(clk.user, TEMPO_INFINITE);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 130 * MS);
    CHECK_EQ_U64(h.deadline, TEMPO_INFINITE);
    tempo_fake_clock_stats st;
    tempo_fake_clock_get_stats(fc, &st);
    CHECK_EQ_U64(st.slept_ns, 30 * MS);
    /* Removing the hook restores the jump to the deadline. */
    tempo_fake_clock_on_wait(fc, NULL, NULL);
    clk.wait_until(clk.user, 140 * MS);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 140 * MS);
    CHECK_EQ_INT(h.calls, 3);
    tempo_fake_clock_destroy(fc);
}

/* Threads advancing at once: every advance counts, nothing goes backwards. */
enum { THREADS = 4, STEPS = 20000 };

static int advancer(void *arg)
{
    tempo_fake_clock *fc = arg;
    uint64_t last = 0;
    for (int i = 0; i < STEPS; i++) {
        uint64_t t = tempo_fake_clock_advance(fc, 3);
        uint64_t r = tempo_fake_clock_now(fc);
        if (t <= last || r < t)
            return 1;
        last = t;
    }
    return 0;
}

static void advancing_from_threads(void)
{
    tempo_fake_clock *fc = tempo_fake_clock_create(7);
    SDL_Thread *th[THREADS];
    for (int i = 0; i < THREADS; i++)
        th[i] = SDL_CreateThread(advancer, "advancer", fc);
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        int rc = 1;
        SDL_WaitThread(th[i], &rc);
        bad += rc;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_U64(tempo_fake_clock_now(fc), 7 + (uint64_t)THREADS * STEPS * 3);
    tempo_fake_clock_destroy(fc);
}


/* ---- One fake clock drives the loop, the loader and the queue ----------------- */

typedef struct shared {
    tempo_fake_clock *fc;
    uint64_t msg_pushed_ns, msg_seen_at;
    int msgs, finalized;
} shared;

static void on_msg(const tempo_netq_msg *m, void *user)
{
    shared *s = user;
    s->msg_pushed_ns = m->pushed_ns;
    s->msg_seen_at = tempo_fake_clock_now(s->fc);
    s->msgs++;
}

static int job_work(tempo_load_job *job, void **result)
{
    (void)job;
    *result = NULL;
    return 0;
}

/* [loop thread] The finalize takes 7 ms of fake time. */
static int job_finalize(tempo_load_job *job, void **result)
{
    (void)result;
    shared *s = job->user;
    tempo_fake_clock_advance(s->fc, 7 * TEMPO_NS_PER_MS);
    s->finalized++;
    return 0;
}

static void one_fake_clock_drives_loop_loader_and_netq(void)
{
    shared s = {.fc = tempo_fake_clock_create(5000 * MS)};
    tempo_clock clk = tempo_fake_clock_get(s.fc);
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = clk});
    tempo_loader *ld = tempo_loader_create(&(tempo_loader_desc){.clock = clk});
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.clock = clk, .update_hz = 50, .max_render_hz = 50});
    CHECK(q != NULL && ld != NULL && loop != NULL);

    /* The queue stamps on the fake clock... */
    CHECK_EQ_INT(tempo_netq_push(q, 1, "x", 1), 0);
    tempo_fake_clock_advance(s.fc, 3 * MS);
    CHECK_GE_INT(tempo_netq_drain(q, on_msg, &s), 1);
    CHECK_EQ_INT(s.msgs, 1);
    CHECK_EQ_U64(s.msg_pushed_ns, 5000 * MS);
    CHECK_EQ_U64(s.msg_seen_at, 5003 * MS);

    /* ...the loop schedules and sleeps on it... */
    CHECK_EQ_U64(tempo_loop_next_due_ns(loop), 5003 * MS);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* first update at once */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0); /* sleeps to the next tick (50 Hz) */
    CHECK_EQ_U64(tempo_fake_clock_now(s.fc), 5023 * MS);

    /* ...and the loader measures its finalize budget on it: 7 ms exactly,
     * though no real time passes. */
    tempo_load_request rq = {.type = TEMPO_LOAD_CUSTOM, .work = job_work, .finalize = job_finalize, .user = &s};
    CHECK(tempo_loader_submit(ld, &rq) != 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(ld, 5 * TEMPO_NS_PER_S), 0);
    CHECK_GE_INT(tempo_loader_process(ld), 0);
    CHECK_EQ_INT(s.finalized, 1);
    tempo_loader_stats st;
    CHECK_EQ_INT(tempo_loader_get_stats(ld, &st), 0);
    CHECK_EQ_U64(st.item_max_ns, 7 * MS);
    CHECK_EQ_U64(tempo_loop_next_due_ns(loop), 5043 * MS);

    tempo_loop_destroy(loop);
    tempo_loader_destroy(ld);
    tempo_netq_destroy(q);
    tempo_fake_clock_destroy(s.fc);
}

static const tt_case cases[] = {
    TT_CASE(zero_clock_is_the_real_one),
    TT_CASE(fake_clock_reads_and_advances),
    TT_CASE(null_arguments),
    TT_CASE(wait_jumps_to_the_deadline),
    TT_CASE(wait_hook_decides_where_to_stop),
    TT_CASE(advancing_from_threads),
    TT_CASE(one_fake_clock_drives_loop_loader_and_netq),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
