/* Unit tests of the throttled network queue (tempo/netq.h).
 *
 * Policy arithmetic runs on a fake clock: the handler "costs" time by
 * advancing it, so every budget, count and age below is exact. The
 * multi-threaded cases use the real clock and check only order and counts
 * (they are what TSan looks at). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/loop.h"
#include "tempo/netq.h"
#include "tempo/wait.h"

#define MS TEMPO_NS_PER_MS
#define US TEMPO_NS_PER_US
#define S TEMPO_NS_PER_S

/* ---- Fake clock and a scripted handler ---------------------------------- */

static uint64_t fake_now;

static uint64_t fake_clock(void *user)
{
    (void)user;
    return fake_now;
}

typedef struct sink {
    uint64_t cost_ns;   /* each message advances the fake clock this much */
    uint32_t count;     /* messages handled */
    uint32_t last_seq;  /* payload of the last one (a sequence number) */
    bool order_ok;
    tempo_netq *push_into; /* if set, each message pushes one more */
    tempo_netq *producer;  /* if set, a producer pushing message i at producer_t0 + i * producer_step_ns */
    uint64_t producer_t0, producer_step_ns; /* (on the fake clock), up to producer_total messages */
    uint32_t producer_total, producer_seq;
} sink;

/* The producer's pushes due by now. */
static void producer_catch_up(sink *s)
{
    while (s->producer != NULL && s->producer_seq < s->producer_total &&
           s->producer_t0 + (uint64_t)s->producer_seq * s->producer_step_ns <= fake_now) {
        uint32_t seq = s->producer_seq++;
        uint64_t now = fake_now;
        fake_now = s->producer_t0 + (uint64_t)seq * s->producer_step_ns; /* stamped when it was due */
        tempo_netq_push(s->producer, 1, &seq, sizeof seq);
        fake_now = now;
    }
}

static void on_msg(const tempo_netq_msg *m, void *user)
{
    sink *s = user;
    uint32_t seq = 0;
    if (m->size >= sizeof seq)
        memcpy(&seq, m->data, sizeof seq);
    if (s->count > 0 && seq != s->last_seq + 1)
        s->order_ok = false;
    s->last_seq = seq;
    s->count++;
    fake_now += s->cost_ns;
    if (s->push_into)
        tempo_netq_push(s->push_into, 99, &seq, sizeof seq);
    producer_catch_up(s);
}

static tempo_netq *fake_queue(tempo_netq_desc d)
{
    d.clock.now = fake_clock;
    fake_now = 1000 * MS;
    tempo_netq *q = tempo_netq_create(&d);
    CHECK(q != NULL);
    return q;
}

static void push_seq(tempo_netq *q, uint32_t from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t seq = from + i;
        int r = tempo_netq_push(q, 1, &seq, sizeof seq);
        if (r != 0) {
            tt_fail(__FILE__, __LINE__, "push %u: %s", seq, tempo_errname(r));
            return;
        }
    }
}

static bool signaled(tempo_handle *h)
{
    return tempo_wait(&h, 1, 0, 0) == 0;
}

/* ---- CLASSIC: the article's numbers -------------------------------------- */

static void classic_budget_steps_one_ms_per_frame(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    push_seq(q, 0, 150);
    /* Each drain: budget +-1 ms by the backlog at its start (> 100 grows),
     * clamped to [20, 40]; with 1 ms messages it handles budget/1ms of them. */
    static const struct { uint32_t backlog, budget_ms; } want[] = {
        {150, 21}, {129, 22}, {107, 23}, {84, 22}, {62, 21}, {41, 20}, {21, 20}, {1, 20},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tempo_netq_stats st;
        tempo_netq_get_stats(q, &st);
        CHECK_EQ_INT(st.backlog, want[i].backlog);
        int n = tempo_netq_drain(q, on_msg, &s);
        tempo_netq_get_stats(q, &st);
        CHECK_EQ_U64(st.last_budget_ns, want[i].budget_ms * MS);
        CHECK_EQ_U64(st.budget_ns, want[i].budget_ms * MS);
        uint32_t expect = want[i].backlog < want[i].budget_ms ? want[i].backlog : want[i].budget_ms;
        CHECK_EQ_INT(n, expect);
        CHECK_EQ_U64(st.last_drain_ns, expect * MS);
        fake_now += 5 * MS; /* render */
    }
    CHECK_EQ_INT(s.count, 150);
    CHECK(s.order_ok);
    CHECK(!signaled(tempo_netq_handle(q)));
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.flushes, 0);
    CHECK_EQ_U64(st.overruns, 0);
    tempo_netq_destroy(q);
}

static void classic_budget_clamps_at_forty(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    sink s = {.cost_ns = 200 * US, .order_ok = true};
    uint64_t expect = 20 * MS;
    for (int frame = 0; frame < 40; frame++) {
        /* Keep the backlog between 100 and 300: 290 queued each frame. */
        tempo_netq_stats st;
        tempo_netq_get_stats(q, &st);
        push_seq(q, s.count + st.backlog, 290 - st.backlog);
        tempo_netq_drain(q, on_msg, &s);
        tempo_netq_get_stats(q, &st);
        expect = expect + MS > 40 * MS ? 40 * MS : expect + MS;
        CHECK_EQ_U64(st.last_budget_ns, expect);
        CHECK_EQ_INT(st.last_processed, (int)(expect / (200 * US)));
        if (tt_failed())
            break;
    }
    CHECK_EQ_U64(expect, 40 * MS);
    CHECK(s.order_ok);
    tempo_netq_destroy(q);
}

static void classic_flushes_above_three_hundred(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    push_seq(q, 0, 300);
    /* Exactly 300 is not "more than 300": a budgeted drain. */
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 21);
    push_seq(q, 300, 22); /* 301 queued */
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 301);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.flushes, 1);
    CHECK_EQ_U64(st.last_budget_ns, UINT64_MAX);
    CHECK_EQ_U64(st.budget_ns, 22 * MS); /* the adaptive value moved on */
    CHECK_EQ_U64(st.last_drain_ns, 301 * MS);
    CHECK_EQ_U64(st.overruns, 1); /* messages started after 40 ms */
    CHECK_EQ_INT(st.backlog, 0);
    CHECK(s.order_ok);
    tempo_netq_destroy(q);
}

static void classic_numbers_are_configurable(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){
        .policy = TEMPO_NETQ_CLASSIC, .budget_start_ns = 5 * MS, .budget_step_ns = 2 * MS, .budget_min_ns = 3 * MS,
        .budget_max_ns = 9 * MS, .grow_backlog = 10, .flush_backlog = 50});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    push_seq(q, 0, 40);
    /* 40 > 10: 7; 33: 9; 24: 9 (clamped); 15: 9; 6 (<=10): 7, handles all 6. */
    static const int budgets[] = {7, 9, 9, 9, 7};
    static const int counts[] = {7, 9, 9, 9, 6};
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), counts[i]);
        tempo_netq_stats st;
        tempo_netq_get_stats(q, &st);
        CHECK_EQ_U64(st.last_budget_ns, budgets[i] * MS);
    }
    /* Empty drains step down to the minimum. */
    tempo_netq_drain(q, on_msg, &s);
    tempo_netq_drain(q, on_msg, &s);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.budget_ns, 3 * MS);
    push_seq(q, 40, 51);
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 51); /* > 50: flush */
    CHECK(s.order_ok);
    tempo_netq_destroy(q);
}

/* ---- The other policies --------------------------------------------------- */

static void fixed_budget_is_constant(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_FIXED_BUDGET, .budget_start_ns = 8 * MS});
    sink s = {.cost_ns = 2 * MS, .order_ok = true};
    push_seq(q, 0, 1000);
    for (int i = 0; i < 10; i++)
        CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 4);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.last_budget_ns, 8 * MS);
    CHECK_EQ_U64(st.flushes, 0);
    tempo_netq_destroy(q);
}

static void drain_all_takes_only_what_was_queued(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL});
    sink s = {.cost_ns = 1 * MS, .order_ok = true, .push_into = q};
    push_seq(q, 0, 500);
    /* Each handled message pushes another: the drain must still end. */
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 500);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(st.backlog, 500);
    CHECK_EQ_U64(st.last_budget_ns, UINT64_MAX);
    CHECK_EQ_U64(st.overruns, 1);
    CHECK(signaled(tempo_netq_handle(q)));
    tempo_netq_destroy(q);
}

static void deadline_caps_frames_without_flushing(void)
{
    /* The burst: 10 000 messages of 0.2 ms, frames every 16.7 ms. */
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DEADLINE});
    sink s = {.cost_ns = 200 * US, .order_ok = true};
    uint64_t frame = 16666667, next = fake_now;
    /* A few quiet frames first, so the interval is measured. */
    for (int i = 0; i < 5; i++) {
        tempo_netq_drain(q, on_msg, &s);
        next += frame;
        fake_now = next;
    }
    push_seq(q, 0, 10000);
    uint64_t worst = 0;
    int frames = 0;
    while (s.count < 10000 && frames < 1000) {
        uint64_t t0 = fake_now;
        tempo_netq_drain(q, on_msg, &s);
        if (fake_now - t0 > worst)
            worst = fake_now - t0;
        frames++;
        next += frame;
        fake_now = fake_now + 2 * MS > next ? fake_now + 2 * MS : next;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(s.count, 10000);
    CHECK(s.order_ok);
    /* Never over the cap plus one message (the clock is checked after each). */
    CHECK_LE_U64(worst, 40 * MS + 200 * US);
    CHECK_EQ_U64(st.flushes, 0);
    CHECK_EQ_U64(st.overruns, 0);
    tt_note("10k burst: %d frames, worst drain %.1f ms, max age %.0f ms", frames, worst / 1e6,
            st.max_age_ns / 1e6);
    tempo_netq_destroy(q);
}

/* bench_game's burst: 10 000 messages of 2.5 us (25 ms of work) pushed at
 * once, into a queue that has not measured a message yet (its first
 * budget is budget_start_ns, 20 ms), on a vsync-paced loop: a drain at the
 * start of each frame, then a 2 ms render, then the present blocks to the
 * next 16.7 ms boundary. The first drain used to stop at its 20 ms budget
 * and leave the last 2 000 messages to the next frame, 33.3 ms after their
 * push (bench_game: 36.5 ms). A drain under DEADLINE now goes on (up to
 * budget_max_ns) while the next message would be older than the target by
 * the next frame: all within 25 ms. */
static void deadline_finishes_what_the_next_frame_would_handle_too_late(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){0}); /* DEADLINE, 33 ms */
    sink s = {.cost_ns = 2500, .order_ok = true};
    uint64_t frame = 16666667, t0 = fake_now;
    push_seq(q, 0, 10000);
    int frames = 0;
    uint64_t worst = 0;
    while (s.count < 10000 && frames < 100) {
        uint64_t a = fake_now;
        tempo_netq_drain(q, on_msg, &s);
        if (fake_now - a > worst)
            worst = fake_now - a;
        frames++;
        fake_now += 2 * MS; /* render */
        fake_now = t0 + ((fake_now - t0) / frame + 1) * frame; /* the present's vblank */
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    tt_note("10k x 2.5 us at once: %d frames, longest drain %.1f ms, oldest %.1f ms (target 33)", frames,
            worst / 1e6, st.max_age_ns / 1e6);
    CHECK_EQ_INT(s.count, 10000);
    CHECK(s.order_ok);
    CHECK_LE_U64(st.max_age_ns, 33 * MS);
    CHECK_LE_U64(worst, 40 * MS + 2500); /* never past the cap */
    tempo_netq_destroy(q);
}

/* A loop that paces its frames gives the drain its deadline (the time
 * left before the render). A burst of 21 ms of work at once, before any
 * message was timed: the first drain planned with budget_start_ns (20 ms)
 * and, its target being 33 ms with "a frame of margin", then took it all in
 * one frame (a 21 ms drain: a late frame). Now a drain with a deadline
 * uses the time before it and never more, so the burst goes over two
 * frames: no drain past its frame's deadline, none older than 33 ms. */
static void deadline_spreads_a_burst_over_the_frames_of_a_paced_loop(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){0}); /* DEADLINE, 33 ms */
    sink s = {.cost_ns = 2100, .order_ok = true};
    uint64_t frame = 16666667, t0 = fake_now;
    push_seq(q, 0, 10000);
    int frames = 0;
    uint64_t longest = 0;
    while (s.count < 10000 && frames < 100) {
        uint64_t a = fake_now, render_at = t0 + (uint64_t)frames * frame + 12 * MS;
        tempo_netq_drain_until(q, on_msg, &s, render_at);
        if (fake_now - a > longest)
            longest = fake_now - a;
        frames++;
        fake_now = t0 + (uint64_t)frames * frame; /* render, present: the next frame */
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    tt_note("10k x 2.1 us at once, drains until 12 ms into each frame: %d frames, longest drain %.1f ms, "
            "oldest %.1f ms (target 33)", frames, longest / 1e6, st.max_age_ns / 1e6);
    CHECK_EQ_INT(s.count, 10000);
    CHECK(s.order_ok);
    CHECK_LE_U64(longest, 12 * MS + 2100); /* within its frame */
    CHECK_LE_U64(st.max_age_ns, 33 * MS);
    tempo_netq_destroy(q);
}

/* The first drain of a queue that has timed nothing gets budget_start_ns
 * (20 ms). With a target of many frames it now plans again once its first
 * messages are timed, and spreads that drain like the next ones: 10 ms of
 * work at once with a 200 ms target took one 10 ms drain before; now the
 * first drain is the floor's 4 ms. */
static void deadline_first_drain_replans_once_timed(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.target_age_ns = 200 * MS});
    sink s = {.cost_ns = 2000, .order_ok = true};
    uint64_t frame = 16666667, t0 = fake_now;
    push_seq(q, 0, 5000);
    uint64_t a = fake_now;
    tempo_netq_drain(q, on_msg, &s);
    uint64_t first = fake_now - a;
    int frames = 1;
    while (s.count < 5000 && frames < 100) {
        fake_now = t0 + (uint64_t)frames * frame;
        tempo_netq_drain(q, on_msg, &s);
        frames++;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    tt_note("5000 x 2 us at once, target 200 ms: first drain %.1f ms, %d frames, oldest %.1f ms", first / 1e6,
            frames, st.max_age_ns / 1e6);
    CHECK_EQ_INT(s.count, 5000);
    CHECK(s.order_ok);
    CHECK_LE_U64(first, 4 * MS + 2000);
    CHECK_LE_U64(st.max_age_ns, 200 * MS);
    tempo_netq_destroy(q);
}

/* The same burst of 3 us messages, but the producer is still pushing it
 * when the first drain begins, 1 ms after the first push (10 000 messages
 * over 5 ms, faster than they are handled; bench_game: the first drain's
 * snapshot held 2 124 of the 10 000). A drain used to end with the
 * messages queued when it began (2 000), and the rest waited a frame, then
 * came in one drain: the last 35.7 ms old (bench_game: 51 ms).
 * DEADLINE now also takes what arrived meanwhile, while its budget lasts,
 * when leaving it to the next drain would make it older than the target
 * (not otherwise: bench_netq's waves keep their frames). */
static void deadline_takes_what_arrives_during_the_drain(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){0}); /* DEADLINE, 33 ms */
    sink s = {.cost_ns = 3000, .order_ok = true, .producer = q, .producer_step_ns = 500, .producer_total = 10000};
    uint64_t frame = 16666667, t0 = fake_now;
    s.producer_t0 = t0;
    fake_now = t0 + 1 * MS; /* the loop wakes */
    int frames = 0;
    while (s.count < 10000 && frames < 100) {
        producer_catch_up(&s);
        tempo_netq_drain(q, on_msg, &s);
        frames++;
        fake_now += 2 * MS; /* render */
        fake_now = t0 + ((fake_now - t0) / frame + 1) * frame; /* the present's vblank */
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    tt_note("10k x 3 us pushed over 5 ms, first drain 1 ms in: %d frames, oldest %.1f ms (target 33)", frames,
            st.max_age_ns / 1e6);
    CHECK_EQ_INT(s.count, 10000);
    CHECK(s.order_ok);
    CHECK_LE_U64(st.max_age_ns, 33 * MS);
    tempo_netq_destroy(q);
}

static void deadline_handles_light_traffic_at_once(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DEADLINE});
    sink s = {.cost_ns = 200 * US, .order_ok = true};
    for (int f = 0; f < 100; f++) {
        push_seq(q, s.count, 5); /* 1 ms of work per frame: under the floor */
        int n = tempo_netq_drain(q, on_msg, &s);
        CHECK_EQ_INT(n, 5);
        fake_now += 16 * MS;
        if (tt_failed())
            break;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_LE_U64(st.max_age_ns, 1 * MS);
    CHECK(s.order_ok);
    tempo_netq_destroy(q);
}

static void deadline_spreads_a_burst_within_its_target(void)
{
    /* 150 messages of 1 ms, 20 ms frames. CLASSIC takes 21+22+23+... ms
     * frames; DEADLINE spreads the work over a 200 ms target: smaller
     * frames, every message still handled within the target. (200 ms was
     * the default before issue 21; the default is now 33 ms, too short for
     * 150 ms of work, so the target is given here.) */
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DEADLINE, .target_age_ns = 200 * MS});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    for (int i = 0; i < 5; i++) { /* measure interval and cost */
        push_seq(q, s.count, 1);
        tempo_netq_drain(q, on_msg, &s);
        fake_now += 19 * MS;
    }
    uint32_t base = s.count;
    push_seq(q, base, 150);
    uint64_t worst = 0;
    int frames = 0;
    while (s.count < base + 150 && frames < 100) {
        uint64_t t0 = fake_now;
        tempo_netq_drain(q, on_msg, &s);
        tempo_netq_stats st;
        tempo_netq_get_stats(q, &st);
        if (st.last_budget_ns > worst)
            worst = st.last_budget_ns;
        tt_note("frame %d: budget %.1f ms, handled %u", frames, st.last_budget_ns / 1e6, st.last_processed);
        fake_now = t0 + (fake_now - t0 > 20 * MS ? fake_now - t0 : 20 * MS) + 2 * MS;
        frames++;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(s.count, base + 150);
    CHECK_LT_U64(worst, 20 * MS);
    CHECK_LE_U64(st.max_age_ns, 200 * MS);
    CHECK_EQ_U64(st.flushes, 0);
    tt_note("150 x 1 ms: %d frames, largest budget %.1f ms, max age %.0f ms", frames, worst / 1e6,
            st.max_age_ns / 1e6);
    tempo_netq_destroy(q);
}

/* Issue 21: the default age target is two 60 Hz frames (33 ms). A burst of
 * 24 ms of work arriving at once is handled within it; with the old 200 ms
 * default the same burst was spread over ~10 frames and its last message
 * waited ~150 ms. */
static void deadline_default_target_is_two_frames(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){0});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    for (int i = 0; i < 5; i++) { /* measure interval and cost */
        push_seq(q, s.count, 1);
        tempo_netq_drain(q, on_msg, &s);
        fake_now += 15 * MS;
    }
    uint32_t base = s.count;
    push_seq(q, base, 24);
    int frames = 0;
    while (s.count < base + 24 && frames < 100) {
        uint64_t t0 = fake_now;
        tempo_netq_drain(q, on_msg, &s);
        fake_now = t0 + 16 * MS + (fake_now - t0);
        frames++;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    tt_note("24 x 1 ms, 16 ms frames: %d frames, max age %.1f ms", frames, st.max_age_ns / 1e6);
    CHECK_EQ_INT(s.count, base + 24);
    CHECK_LE_U64(st.max_age_ns, 33 * MS + 1 * MS); /* the target, one message of slack */
    CHECK(s.order_ok);
    tempo_netq_destroy(q);
}

static void set_policy_switches_live(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    push_seq(q, 0, 200);
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 21);
    CHECK_EQ_INT(tempo_netq_set_policy(q, TEMPO_NETQ_DRAIN_ALL), 0);
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 179);
    CHECK_EQ_INT(tempo_netq_set_policy(q, (tempo_netq_policy)42), TEMPO_EINVAL);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(st.policy, TEMPO_NETQ_DRAIN_ALL);
    CHECK_STR_EQ(tempo_netq_policy_name(TEMPO_NETQ_DEADLINE), "deadline");
    CHECK_STR_EQ(tempo_netq_policy_name((tempo_netq_policy)42), "?");
    tempo_netq_destroy(q);
}

/* ---- Contents, memory bound, handle, shutdown ---------------------------- */

typedef struct blob_check {
    uint32_t next;
    bool ok;
} blob_check;

/* Message i has type i and i % 53 bytes, each byte (i + k) & 0xff. */
static void on_blob(const tempo_netq_msg *m, void *user)
{
    blob_check *c = user;
    uint32_t i = c->next++;
    if (m->type != i || m->size != i % 53 || m->data == NULL || ((uintptr_t)m->data & 15) != 0)
        c->ok = false;
    for (uint32_t k = 0; k < m->size && c->ok; k++)
        if (((const unsigned char *)m->data)[k] != ((i + k) & 0xff))
            c->ok = false;
}

static int push_blob(tempo_netq *q, uint32_t i)
{
    unsigned char b[64];
    for (uint32_t k = 0; k < i % 53; k++)
        b[k] = (unsigned char)(i + k);
    return tempo_netq_push(q, i, b, i % 53);
}

static void payloads_survive_wraparound(void)
{
    /* A 1000-byte ring holds ~20 records: pushing and draining in uneven
     * steps wraps it hundreds of times, through every pad size. */
    tempo_netq *q = fake_queue((tempo_netq_desc){.cap_bytes = 1000, .policy = TEMPO_NETQ_DRAIN_ALL});
    blob_check c = {0, true};
    uint32_t pushed = 0;
    for (int round = 0; round < 500 && c.ok; round++) {
        int want = 1 + round % 7;
        for (int k = 0; k < want; k++) {
            int r = push_blob(q, pushed);
            if (r == TEMPO_EFULL)
                break;
            CHECK_EQ_INT(r, 0);
            pushed++;
        }
        if (round % 3 != 0)
            tempo_netq_drain(q, on_blob, &c);
    }
    tempo_netq_drain(q, on_blob, &c);
    CHECK(c.ok);
    CHECK_EQ_INT(c.next, pushed);
    CHECK(pushed > 1000);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.backlog_bytes, 0);
    CHECK_EQ_U64(st.cap_bytes, 992);
    tempo_netq_destroy(q);
}

static void full_queue_refuses_and_counts(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.cap_bytes = 32 * 10, .policy = TEMPO_NETQ_DRAIN_ALL});
    char payload[16] = "0123456789abcde";
    for (int i = 0; i < 10; i++)
        CHECK_EQ_INT(tempo_netq_push(q, 1, payload, 16), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 1, payload, 16), TEMPO_EFULL);
    CHECK_EQ_INT(tempo_netq_push(q, 1, NULL, 0), TEMPO_EFULL);
    CHECK_EQ_INT(tempo_netq_push(q, 1, payload, 1000), TEMPO_ERANGE); /* never fits */
    CHECK_EQ_INT(tempo_netq_push(q, 1, NULL, 5), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_netq_push(NULL, 1, payload, 1), TEMPO_EINVAL);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.overflows, 2);
    CHECK_EQ_U64(st.pushed, 10);
    CHECK_EQ_INT(st.backlog, 10);
    CHECK_EQ_U64(st.backlog_bytes, 320);
    CHECK_EQ_INT(st.peak_backlog, 10);
    sink s = {.order_ok = true};
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 10);
    /* Room again; a message as big as the whole ring fits an empty queue. */
    char big[320 - 16] = {0};
    CHECK_EQ_INT(tempo_netq_push(q, 2, big, sizeof big), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 2, NULL, 0), TEMPO_EFULL);
    tempo_netq_destroy(q);
}

static int warn_lines;

static void count_warns(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    (void)message;
    warn_lines += priority >= SDL_LOG_PRIORITY_WARN;
}

/* Each failed push says why in tempo_get_error() (before: no detail, so an
 * older failure's text stayed), and the outcomes a producer handles (full,
 * never fits, shut down) are no WARN lines; misuse (NULL data) is. */
static void failed_pushes_say_why(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.cap_bytes = 32 * 10, .policy = TEMPO_NETQ_DRAIN_ALL});
    char payload[16] = "0123456789abcde";
    for (int i = 0; i < 10; i++)
        CHECK_EQ_INT(tempo_netq_push(q, 1, payload, 16), 0);
    SDL_LogOutputFunction prev;
    void *prev_user;
    SDL_LogGetOutputFunction(&prev, &prev_user);
    SDL_LogSetOutputFunction(count_warns, NULL);
    warn_lines = 0;
    static const struct {
        int code;
        const char *says;
    } cases[] = {{TEMPO_EFULL, "no room now for 16 bytes (cap 320)"},
                 {TEMPO_ERANGE, "a 1000-byte message can never fit the 320-byte queue"},
                 {TEMPO_ESHUTDOWN, "shut down"}};
    for (int i = 0; i < 3; i++) {
        tempo_netq_set_policy(NULL, TEMPO_NETQ_DRAIN_ALL); /* an older failure's text, to be replaced */
        int before = warn_lines;
        if (i == 2)
            tempo_netq_shutdown(q);
        CHECK_EQ_INT(tempo_netq_push(q, 1, payload, i == 1 ? 1000 : 16), cases[i].code);
        tt_note("%s: %s", tempo_errname(cases[i].code), tempo_get_error());
        CHECK(strstr(tempo_get_error(), "tempo_netq_push") != NULL);
        CHECK(strstr(tempo_get_error(), cases[i].says) != NULL);
        CHECK_EQ_INT(warn_lines, before);
    }
    CHECK_EQ_INT(tempo_netq_push(q, 1, NULL, 5), TEMPO_EINVAL);
    CHECK(strstr(tempo_get_error(), "data is NULL") != NULL);
    CHECK_EQ_INT(warn_lines, 3 + 1); /* the three set_policy(NULL) and this one */
    SDL_LogSetOutputFunction(prev, prev_user);
    tempo_netq_destroy(q);
}

static void handle_is_set_while_messages_remain(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_FIXED_BUDGET, .budget_start_ns = 3 * MS});
    tempo_handle *h = tempo_netq_handle(q);
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    CHECK(!signaled(h));
    push_seq(q, 0, 5);
    CHECK(signaled(h));
    CHECK(signaled(h)); /* manual-reset: waits do not consume it */
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 3);
    CHECK(signaled(h)); /* two left: the loop must come back next frame */
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 2);
    CHECK(!signaled(h));
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 0); /* spurious call is fine */
    push_seq(q, 5, 1);
    CHECK(signaled(h));
    CHECK(tempo_netq_handle(NULL) == NULL);
    tempo_netq_destroy(q);
}

static void stats_report_age_and_backlog(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL});
    push_seq(q, 0, 3);
    fake_now += 7 * MS;
    push_seq(q, 3, 2);
    fake_now += 5 * MS;
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(st.backlog, 5);
    CHECK_EQ_U64(st.oldest_age_ns, 12 * MS);
    CHECK_EQ_U64(st.backlog_bytes, 5 * TEMPO_NETQ_MSG_BYTES(4));
    CHECK_EQ_U64(st.budget_ns, UINT64_MAX);
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    tempo_netq_drain(q, on_msg, &s);
    tempo_netq_get_stats(q, &st);
    /* Messages 0-2 (pushed at +0) start at +12, +13, +14 ms; 3-4 (pushed
     * at +7) at +15, +16: the oldest any was when handled is 14 ms. */
    CHECK_EQ_U64(st.max_age_ns, 14 * MS);
    CHECK_EQ_U64(st.oldest_age_ns, 0);
    CHECK_EQ_U64(st.processed, 5);
    CHECK_EQ_U64(st.drains, 1);
    CHECK_EQ_U64(st.last_drain_ns, 5 * MS);
    CHECK_EQ_INT(tempo_netq_get_stats(NULL, &st), TEMPO_EINVAL);
    tempo_netq_destroy(q);
}

static void shutdown_with_pending_data(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    push_seq(q, 0, 50);
    tempo_netq_shutdown(q);
    tempo_netq_shutdown(q); /* idempotent */
    uint32_t x = 1;
    CHECK_EQ_INT(tempo_netq_push(q, 1, &x, sizeof x), TEMPO_ESHUTDOWN);
    CHECK_EQ_INT(tempo_netq_push_wait(q, 1, &x, sizeof x, NULL, 0), TEMPO_ESHUTDOWN);
    /* What was queued can still be drained... */
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), 20);
    /* ...or freed by destroy (ASan's leak check watches this). */
    tempo_netq_destroy(q);
    tempo_netq_destroy(NULL);
}

static void reentrant_drain_is_refused(void);

static tempo_netq *reentry_q;
static int reentry_result;

static void drain_from_handler(const tempo_netq_msg *m, void *user)
{
    (void)m;
    (void)user;
    reentry_result = tempo_netq_drain(reentry_q, drain_from_handler, NULL);
}

static void reentrant_drain_is_refused(void)
{
    reentry_q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    push_seq(reentry_q, 0, 1);
    CHECK_EQ_INT(tempo_netq_drain(reentry_q, drain_from_handler, NULL), 1);
    CHECK_EQ_INT(reentry_result, TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_netq_drain(reentry_q, NULL, NULL), TEMPO_EINVAL);
    tempo_netq_destroy(reentry_q);
}

/* netq.h: destroying the queue from its own handler does nothing (TEMPO_EBUSY
 * in tempo_get_error(), one WARN line: it is misuse) and the drain goes on.
 * Only the loop's drain was guarded (by the loop): from tempo_netq_drain()
 * and _drain_until() the destroy freed the queue under the drain, which then
 * read it (ASan: heap-use-after-free in drain). */
typedef struct self_destroy {
    tempo_netq *q;
    int handled;
    char error[256]; /* tempo_get_error() right after each refused destroy */
} self_destroy;

static int busy_warns, other_lines; /* the loop thread's log, counted by busy_log */

static void busy_log(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    if (priority == SDL_LOG_PRIORITY_WARN && strstr(message, tempo_strerror(TEMPO_EBUSY)) != NULL &&
        strstr(message, "tempo_netq_destroy") != NULL)
        busy_warns++;
    else
        other_lines++;
}

static void destroy_in_handler(const tempo_netq_msg *m, void *user)
{
    (void)m;
    self_destroy *d = user;
    d->handled++;
    tempo_netq_destroy(d->q);
    snprintf(d->error, sizeof d->error, "%s", tempo_get_error());
    fake_now += 1 * MS;
}

static void destroy_from_own_handler_is_refused(void)
{
    SDL_LogOutputFunction prev;
    void *prev_user;
    SDL_LogGetOutputFunction(&prev, &prev_user);
    SDL_LogPriority prev_priority = SDL_LogGetPriority(SDL_LOG_CATEGORY_APPLICATION);
    SDL_LogSetOutputFunction(busy_log, NULL);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_VERBOSE);
    static const char *const entry[] = {"tempo_netq_drain", "tempo_netq_drain_until"};
    for (int i = 0; i < 2; i++) {
        self_destroy d = {.q = fake_queue((tempo_netq_desc){0})}; /* DEADLINE: 3 x 1 ms fit its budget */
        push_seq(d.q, 0, 3);
        busy_warns = other_lines = 0;
        int r = i == 0 ? tempo_netq_drain(d.q, destroy_in_handler, &d)
                       : tempo_netq_drain_until(d.q, destroy_in_handler, &d, fake_now + 50 * MS);
        tt_note("%s: destroy from the handler -> \"%s\"", entry[i], d.error);
        CHECK_EQ_INT(r, 3); /* the drain went on */
        CHECK_EQ_INT(d.handled, 3);
        if (strstr(d.error, "tempo_netq_destroy") == NULL || strstr(d.error, "own handler") == NULL)
            tt_fail(__FILE__, __LINE__, "%s: error \"%s\": wanted tempo_netq_destroy ... own handler", entry[i],
                    d.error);
        CHECK_EQ_INT(busy_warns, 3); /* one per refused call, and nothing else */
        CHECK_EQ_INT(other_lines, 0);
        tempo_netq_stats st;
        CHECK_EQ_INT(tempo_netq_get_stats(d.q, &st), 0);
        CHECK_EQ_U64(st.processed, 3);
        CHECK_EQ_INT(st.backlog, 0);
        /* The queue still works, and a destroy after the drain frees it
         * (ASan's leak check and valgrind watch this), without a word. */
        sink s = {.order_ok = true};
        push_seq(d.q, 7, 1);
        CHECK_EQ_INT(tempo_netq_drain(d.q, on_msg, &s), 1);
        CHECK_EQ_INT(s.last_seq, 7);
        tempo_netq_destroy(d.q);
        CHECK_EQ_INT(busy_warns, 3);
        CHECK_EQ_INT(other_lines, 0);
    }
    SDL_LogSetOutputFunction(prev, prev_user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, prev_priority);
}

/* The error names exactly the field(s) at fault (issue 14: DEADLINE with
 * only budget_max_ns = 10 ms failed, blaming "budget_min_ns > budget_max_ns
 * or cap_bytes" although neither of the first two was set). */
static void expect_error(tempo_netq_desc d, const char *must, const char *must_not)
{
    tempo_netq *q = tempo_netq_create(&d);
    CHECK(q == NULL);
    tempo_netq_destroy(q);
    const char *e = tempo_get_error();
    if (strstr(e, must) == NULL || (must_not && strstr(e, must_not) != NULL))
        tt_fail(__FILE__, __LINE__, "error \"%s\": wanted \"%s\"%s%s", e, must, must_not ? " without " : "",
                must_not ? must_not : "");
}

static void bad_descriptors_fail(void)
{
    expect_error((tempo_netq_desc){.policy = (tempo_netq_policy)9}, "policy 9", "budget");
    expect_error((tempo_netq_desc){.budget_min_ns = 50 * MS, .budget_max_ns = 40 * MS},
                 "budget_min_ns 50000000 above budget_max_ns 40000000", "cap_bytes");
    expect_error((tempo_netq_desc){.cap_bytes = 20}, "cap_bytes 20", "budget");
    expect_error((tempo_netq_desc){.floor_ns = 20 * MS, .budget_max_ns = 10 * MS}, "floor_ns 20000000 above budget_max_ns",
                 "budget_min");
    expect_error((tempo_netq_desc){.budget_start_ns = 50 * MS, .budget_max_ns = 40 * MS},
                 "budget_start_ns 50000000 above budget_max_ns", "budget_min");
    expect_error((tempo_netq_desc){.budget_start_ns = 5 * MS, .budget_min_ns = 10 * MS},
                 "budget_start_ns 5000000 below budget_min_ns", "budget_max");

    /* One field alone never fails: the defaults give way to it. */
    tempo_netq_stats st;
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_DEADLINE, .budget_max_ns = 10 * MS});
    CHECK(q != NULL);
    tempo_netq_destroy(q);
    q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC, .budget_max_ns = 10 * MS});
    CHECK(q != NULL);
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.budget_ns, 10 * MS); /* start and min follow the max down */
    tempo_netq_destroy(q);
    q = tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC, .budget_min_ns = 50 * MS});
    CHECK(q != NULL);
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.budget_ns, 50 * MS); /* max and start follow the min up */
    tempo_netq_destroy(q);

    q = tempo_netq_create(NULL);
    CHECK(q != NULL);
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.cap_bytes, 4u << 20);
    CHECK_EQ_U64(st.budget_ns, 20 * MS);
    /* New queues bound both frame time and message age. */
    CHECK_EQ_INT(st.policy, TEMPO_NETQ_DEADLINE);
    tempo_netq_destroy(q);
}

/* ---- Attached to a loop --------------------------------------------------- */

static void loop_wait_until(void *user, uint64_t deadline)
{
    (void)user;
    if (deadline != TEMPO_INFINITE && deadline > fake_now)
        fake_now = deadline;
}

static tempo_loop *fake_loop(void)
{
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .max_render_hz = 60, .clock = {fake_clock, loop_wait_until, NULL}});
    CHECK(loop != NULL);
    return loop;
}

/* Issue 11 problem 3: CLASSIC (seed 000) steps its budget once per FRAME,
 * empty frames included. Driven by a watch, idle frames never called the
 * drain: after a flood and 10 s of idle the budget was still 39-40 ms and
 * the next 150-message burst got 30 ms instead of the seed's 21 ms. */
static void classic_steps_in_empty_frames_too(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC});
    tempo_loop *loop = fake_loop();
    sink s = {.cost_ns = 200 * US, .order_ok = true};
    CHECK_EQ_INT(tempo_netq_attach(q, loop, on_msg, &s), 0);
    /* A flood: between 100 and 300 queued every frame for 40 frames. */
    tempo_netq_stats st;
    for (int f = 0; f < 40; f++) {
        tempo_netq_get_stats(q, &st);
        push_seq(q, s.count + st.backlog, 290 - st.backlog);
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    }
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.budget_ns, 40 * MS);
    /* Let the rest drain, then 10 s with nothing at all. */
    uint64_t idle_from = fake_now;
    while (fake_now < idle_from + 10 * S)
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_INT(st.backlog, 0);
    uint64_t drains = st.drains;
    /* The burst: 150 > 100 queued, so this frame's budget is 20 + 1 ms. */
    push_seq(q, s.count, 150);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_netq_get_stats(q, &st);
    tt_note("burst after 10 s idle: budget %.1f ms, %u handled in %.1f ms; %llu frames seen",
            st.last_budget_ns / 1e6, st.last_processed, st.last_drain_ns / 1e6, (unsigned long long)st.frames);
    CHECK_EQ_U64(st.drains, drains + 1);
    CHECK_EQ_U64(st.last_budget_ns, 21 * MS);
    CHECK_EQ_INT(st.last_processed, 105); /* 21 ms / 0.2 ms */
    CHECK_EQ_U64(st.last_drain_ns, 21 * MS);
    CHECK_GE_U64(st.frames, 600);
    CHECK(s.order_ok);
    tempo_loop_destroy(loop);
    tempo_netq_destroy(q);
}

static void attached_queue_is_drained_by_the_loop(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){0}); /* DEADLINE */
    tempo_loop *loop = fake_loop();
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    CHECK_EQ_INT(tempo_netq_attach(NULL, loop, on_msg, &s), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_netq_attach(q, NULL, on_msg, &s), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, NULL, &s), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, on_msg, &s), 0);
    CHECK_EQ_INT(tempo_netq_attach(q, loop, on_msg, &s), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_netq_drain(q, on_msg, &s), TEMPO_EBUSY); /* one consumer: the loop */
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    /* 150 ms of work at once: spread over frames within the age target. */
    push_seq(q, 0, 150);
    uint64_t start = fake_now, worst = 0;
    for (int f = 0; f < 1000 && s.count < 150; f++) {
        uint64_t t = fake_now;
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
        if (fake_now - t > worst)
            worst = fake_now - t;
    }
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    const tempo_loop_stats *ls = tempo_loop_get_stats(loop);
    tt_note("150 x 1 ms: done after %.0f ms, longest frame %.1f ms, oldest %.0f ms, %llu overruns",
            (fake_now - start) / 1e6, worst / 1e6, st.max_age_ns / 1e6,
            (unsigned long long)ls->sources[0].total.overruns);
    CHECK_EQ_INT(s.count, 150);
    CHECK(s.order_ok);
    CHECK_LE_U64(st.max_age_ns, 200 * MS + 20 * MS); /* DEADLINE's target, one frame of slack */
    CHECK_LE_U64(worst, 40 * MS + 17 * MS + MS);      /* its cap + the frame's own wait + one message */
    CHECK_EQ_INT(ls->source_count, 1);
    CHECK_STR_EQ(ls->sources[0].name, "netq");
    CHECK_EQ_U64(ls->sources[0].total.items, 150);
    CHECK_GE_U64(ls->sources[0].total.max_age_ns, 1);
    /* Destroying an attached queue takes it out of the loop first. */
    tempo_netq_destroy(q);
    CHECK_EQ_INT(tempo_loop_get_stats(loop)->source_count, 0);
    CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    tempo_loop_destroy(loop);
}

/* drain_until: DEADLINE also spends the time left before the deadline. */
static void drain_until_uses_the_time_before_the_deadline(void)
{
    tempo_netq *q = fake_queue((tempo_netq_desc){.policy = TEMPO_NETQ_DEADLINE});
    sink s = {.cost_ns = 1 * MS, .order_ok = true};
    push_seq(q, 0, 100);
    /* Its first budget is budget_start_ns (20 ms); 50 ms remain: 50. */
    CHECK_EQ_INT(tempo_netq_drain_until(q, on_msg, &s, fake_now + 50 * MS), 50);
    /* A deadline already past: the planned budget alone (at least one). */
    int n = tempo_netq_drain_until(q, on_msg, &s, fake_now - 1);
    CHECK_GE_INT(n, 1);
    CHECK_LE_INT(n, 40);
    /* The other policies ignore deadlines (CLASSIC is the seed, exactly). */
    tempo_netq_set_policy(q, TEMPO_NETQ_CLASSIC);
    push_seq(q, 1000, 100);
    int before = (int)s.count;
    tempo_netq_drain_until(q, on_msg, &s, fake_now + 100 * MS);
    CHECK_EQ_INT((int)s.count - before, 21); /* > 100 queued: 20 + 1 ms, not the 100 ms left */
    tempo_netq_destroy(q);
}

/* ---- Threads (real clock) ------------------------------------------------ */

#define PRODUCERS 4
#define PER_PRODUCER 20000

typedef struct producer {
    tempo_netq *q;
    uint32_t id;
    bool wait_for_room;
    atomic_uint refused;
} producer;

/* [producer thread] */
static int produce(void *arg)
{
    producer *p = arg;
    for (uint32_t i = 0; i < PER_PRODUCER; i++) {
        uint32_t msg[3] = {p->id, i, p->id * 7919u + i};
        int r;
        if (p->wait_for_room) {
            r = tempo_netq_push_wait(p->q, p->id, msg, sizeof msg, NULL, TEMPO_INFINITE);
        } else {
            /* Without back-pressure a full queue is an error the producer
             * sees; this queue is big enough for every message. */
            r = tempo_netq_push(p->q, p->id, msg, sizeof msg);
            if (r == TEMPO_EFULL)
                atomic_fetch_add(&p->refused, 1);
        }
        if (r != 0)
            return r;
    }
    return 0;
}

typedef struct tally {
    uint32_t next[PRODUCERS];
    uint32_t bad;
    uint32_t total;
} tally;

static void on_tally(const tempo_netq_msg *m, void *user)
{
    tally *t = user;
    uint32_t msg[3];
    if (m->size != sizeof msg || m->type >= PRODUCERS) {
        t->bad++;
        return;
    }
    memcpy(msg, m->data, sizeof msg);
    if (msg[0] != m->type || msg[1] != t->next[m->type] || msg[2] != msg[0] * 7919u + msg[1])
        t->bad++;
    t->next[m->type] = msg[1] + 1;
    t->total++;
}

static void run_producers(tempo_netq_desc d, bool wait_for_room)
{
    tempo_netq *q = tempo_netq_create(&d);
    CHECK(q != NULL);
    producer p[PRODUCERS];
    SDL_Thread *th[PRODUCERS];
    for (uint32_t i = 0; i < PRODUCERS; i++) {
        p[i].q = q;
        p[i].id = i;
        p[i].wait_for_room = wait_for_room;
        atomic_init(&p[i].refused, 0);
        th[i] = SDL_CreateThread(produce, "producer", &p[i]);
        CHECK(th[i] != NULL);
    }
    /* The consumer is this thread, woken by the queue's handle like a loop. */
    tally t = {0};
    tempo_handle *h = tempo_netq_handle(q);
    uint64_t t0 = tempo_now_ns();
    while (t.total < PRODUCERS * PER_PRODUCER && t.bad == 0) {
        int w = tempo_wait(&h, 1, 10 * TEMPO_NS_PER_S, 0);
        if (w != 0) {
            tt_fail(__FILE__, __LINE__, "wait: %s after %u messages", tempo_errname(w), t.total);
            break;
        }
        tempo_netq_drain(q, on_tally, &t);
    }
    double secs = (tempo_now_ns() - t0) / 1e9;
    unsigned refused = 0;
    for (int i = 0; i < PRODUCERS; i++) {
        int status = -1;
        SDL_WaitThread(th[i], &status);
        CHECK_EQ_INT(status, 0);
        refused += atomic_load(&p[i].refused);
    }
    CHECK_EQ_INT(t.bad, 0);
    CHECK_EQ_INT(t.total, PRODUCERS * PER_PRODUCER);
    for (int i = 0; i < PRODUCERS; i++)
        CHECK_EQ_INT(t.next[i], PER_PRODUCER);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    CHECK_EQ_U64(st.pushed, PRODUCERS * PER_PRODUCER);
    CHECK_EQ_U64(st.processed, PRODUCERS * PER_PRODUCER);
    CHECK_EQ_INT(st.backlog, 0);
    CHECK(!signaled(h));
    tt_note("%d x %d messages in %.3f s, %llu drains, peak backlog %u, refused %u, full waits %llu", PRODUCERS,
            PER_PRODUCER, secs, (unsigned long long)st.drains, st.peak_backlog, refused,
            (unsigned long long)st.full_waits);
    tempo_netq_destroy(q);
}

static void four_producers_fifo_each(void)
{
    run_producers((tempo_netq_desc){.policy = TEMPO_NETQ_CLASSIC}, false);
}

static void four_producers_with_back_pressure(void)
{
    /* A tiny queue (100 records) keeps producers blocked in push_wait most
     * of the time: every message must still arrive once, in order. */
    run_producers((tempo_netq_desc){.policy = TEMPO_NETQ_FIXED_BUDGET, .budget_start_ns = 100 * TEMPO_NS_PER_US,
                                    .cap_bytes = 100 * TEMPO_NETQ_MSG_BYTES(12)},
                  true);
}

typedef struct waiter {
    tempo_netq *q;
    tempo_handle *cancel;
    uint64_t timeout_ns;
    int result;
} waiter;

/* [waiter thread] */
static int wait_push(void *arg)
{
    waiter *w = arg;
    uint32_t x = 7;
    w->result = tempo_netq_push_wait(w->q, 1, &x, sizeof x, w->cancel, w->timeout_ns);
    return 0;
}

static void push_wait_ends_on_room_cancel_shutdown_timeout(void)
{
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.cap_bytes = 64, .policy = TEMPO_NETQ_DRAIN_ALL});
    uint32_t x = 1;
    CHECK_EQ_INT(tempo_netq_push(q, 1, &x, sizeof x), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 1, &x, sizeof x), 0);
    CHECK_EQ_INT(tempo_netq_push(q, 1, &x, sizeof x), TEMPO_EFULL);

    /* Timeout. */
    uint64_t t0 = tempo_now_ns();
    CHECK_EQ_INT(tempo_netq_push_wait(q, 1, &x, sizeof x, NULL, 20 * MS), TEMPO_ETIMEDOUT);
    CHECK_GE_U64(tempo_now_ns() - t0, 20 * MS);

    /* Room: a drain wakes the waiter. */
    waiter w = {q, NULL, TEMPO_INFINITE, 99};
    SDL_Thread *th = SDL_CreateThread(wait_push, "waiter", &w);
    SDL_Delay(30);
    sink s = {.order_ok = true};
    tempo_netq_drain(q, on_msg, &s);
    SDL_WaitThread(th, NULL);
    CHECK_EQ_INT(w.result, 0);

    /* Cancel. */
    CHECK_EQ_INT(tempo_netq_push(q, 1, &x, sizeof x), 0);
    tempo_handle *cancel = tempo_event_create(true, false);
    w = (waiter){q, cancel, TEMPO_INFINITE, 99};
    th = SDL_CreateThread(wait_push, "waiter", &w);
    SDL_Delay(30);
    tempo_event_set(cancel);
    SDL_WaitThread(th, NULL);
    CHECK_EQ_INT(w.result, TEMPO_ECANCELED);

    /* Shutdown. */
    w = (waiter){q, NULL, TEMPO_INFINITE, 99};
    th = SDL_CreateThread(wait_push, "waiter", &w);
    SDL_Delay(30);
    tempo_netq_shutdown(q);
    SDL_WaitThread(th, NULL);
    CHECK_EQ_INT(w.result, TEMPO_ESHUTDOWN);

    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    /* Timeout and cancel always wait; room and shutdown did if the waiter
     * blocked before the drain/shutdown (it had 30 ms). */
    CHECK_GE_U64(st.full_waits, 2);
    CHECK_LE_U64(st.full_waits, 4);
    CHECK_EQ_U64(st.overflows, 1);
    tempo_event_destroy(cancel);
    tempo_netq_destroy(q);
}

static const tt_case cases[] = {
    TT_CASE(classic_budget_steps_one_ms_per_frame),
    TT_CASE(classic_budget_clamps_at_forty),
    TT_CASE(classic_flushes_above_three_hundred),
    TT_CASE(classic_numbers_are_configurable),
    TT_CASE(fixed_budget_is_constant),
    TT_CASE(drain_all_takes_only_what_was_queued),
    TT_CASE(deadline_caps_frames_without_flushing),
    TT_CASE(deadline_finishes_what_the_next_frame_would_handle_too_late),
    TT_CASE(deadline_spreads_a_burst_over_the_frames_of_a_paced_loop),
    TT_CASE(deadline_first_drain_replans_once_timed),
    TT_CASE(deadline_takes_what_arrives_during_the_drain),
    TT_CASE(deadline_handles_light_traffic_at_once),
    TT_CASE(deadline_spreads_a_burst_within_its_target),
    TT_CASE(deadline_default_target_is_two_frames),
    TT_CASE(set_policy_switches_live),
    TT_CASE(payloads_survive_wraparound),
    TT_CASE(full_queue_refuses_and_counts),
    TT_CASE(handle_is_set_while_messages_remain),
    TT_CASE(stats_report_age_and_backlog),
    TT_CASE(shutdown_with_pending_data),
    TT_CASE(classic_steps_in_empty_frames_too),
    TT_CASE(attached_queue_is_drained_by_the_loop),
    TT_CASE(drain_until_uses_the_time_before_the_deadline),
    TT_CASE(reentrant_drain_is_refused),
    TT_CASE(destroy_from_own_handler_is_refused),
    TT_CASE(failed_pushes_say_why),
    TT_CASE(bad_descriptors_fail),
    TT_CASE(four_producers_fifo_each),
    TT_CASE(four_producers_with_back_pressure),
    TT_CASE(push_wait_ends_on_room_cancel_shutdown_timeout),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
