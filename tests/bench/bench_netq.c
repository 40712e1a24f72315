/* bench_netq: the throttled network queue's policies under network
 * scenarios, and its raw throughput next to a mutex + growable array.
 *
 * Part 1 (deterministic): a simulated 60 Hz game on a fake clock. Each
 * message costs 0.2 ms of handling, each frame 2 ms of rendering; the loop
 * drains when the queue's handle is signalled, renders, and sleeps to the
 * next tick (missed ticks coalesce, as tempo timers do). Messages arrive on
 * a script; a push that finds the queue full is refused and counted (the
 * network thread would wait instead; the count shows how far behind it is).
 * Identical numbers on every run and machine.
 *
 * Part 2 (real time, noisy on shared machines): 1-4 producer threads push
 * 32-byte messages into one consumer that waits on the handle and drains;
 * the baseline is the usual mutex + growable array of heap-copied messages
 * (swapped out whole by the consumer), timed in the same run.
 *
 * --quick: ~5x shorter (CI smoke check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/netq.h"
#include "tempo/wait.h"

#define MS TEMPO_NS_PER_MS
#define US TEMPO_NS_PER_US

static bool quick;

/* ---- Part 1: policies on a fake clock ------------------------------------ */

#define TICK_NS 16666667u
#define RENDER_NS (2 * MS)
#define COST_NS (200 * US)
#define MSG_BYTES 16
#define CAP_BYTES (512 * 1024)

typedef struct scenario {
    const char *name;
    const char *what;
    uint32_t count;
    uint64_t (*arrival)(uint32_t i); /* non-decreasing in i */
} scenario;

static uint64_t burst_at(uint32_t i)
{
    (void)i;
    return 500 * MS;
}

static uint64_t waves_at(uint32_t i)
{
    /* A crowd walking into view: 300 spawns over 50 ms, once a second. */
    return 500 * MS + (uint64_t)(i / 300) * TEMPO_NS_PER_S + (uint64_t)(i % 300) * (50 * MS / 300);
}

static uint64_t steady_at(uint32_t i)
{
    return 500 * MS + (uint64_t)i * TEMPO_NS_PER_S / 3000;
}

static uint64_t overload_at(uint32_t i)
{
    return 500 * MS + (uint64_t)i * TEMPO_NS_PER_S / 10000;
}

static uint64_t trickle_at(uint32_t i)
{
    return 500 * MS + (uint64_t)i * TEMPO_NS_PER_S / 30;
}

static const scenario scenarios[] = {
    {"burst", "10 000 messages at once (2 s of work)", 10000, burst_at},
    {"waves", "300 messages over 50 ms, every second, 5 times", 1500, waves_at},
    {"steady", "3 000 msg/s for 5 s (60% of one core)", 15000, steady_at},
    {"overload", "10 000 msg/s for 4 s: 2x what a 60 Hz frame could absorb", 40000, overload_at},
    {"trickle", "30 msg/s for 5 s", 150, trickle_at},
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

static const tempo_netq_policy policies[] = {TEMPO_NETQ_CLASSIC, TEMPO_NETQ_DRAIN_ALL, TEMPO_NETQ_FIXED_BUDGET,
                                             TEMPO_NETQ_DEADLINE};
#define N_POLICIES (sizeof policies / sizeof policies[0])

typedef struct sim {
    uint64_t now;
    const scenario *sc;
    uint32_t next; /* next arrival index */
    tempo_netq *q;
} sim;

static uint64_t sim_clock(void *user)
{
    return ((sim *)user)->now;
}

/* Pushes every message that has arrived by `until`, stamped at its arrival
 * time, then sets the clock to `until`. */
static void feed(sim *s, uint64_t until)
{
    uint8_t payload[MSG_BYTES] = {0};
    while (s->next < s->sc->count) {
        uint64_t t = s->sc->arrival(s->next);
        if (t > until)
            break;
        s->now = t > s->now ? t : s->now;
        memcpy(payload, &s->next, sizeof s->next);
        tempo_netq_push(s->q, 1, payload, sizeof payload); /* EFULL: counted by the queue */
        s->next++;
    }
    s->now = until;
}

static void sim_handle(const tempo_netq_msg *m, void *user)
{
    (void)m;
    sim *s = user;
    feed(s, s->now + COST_NS);
}

typedef struct result {
    uint64_t max_frame, p99_frame, max_age, done_at;
    uint32_t peak;
    uint64_t overflows, frames, slow_frames;
} result;

static result simulate(const scenario *sc, tempo_netq_policy policy)
{
    sim s = {.now = 0, .sc = sc};
    s.q = tempo_netq_create(&(tempo_netq_desc){.policy = policy, .cap_bytes = CAP_BYTES, .clock = {.now = sim_clock,
                                               .user = &s}});
    size_t cap = 1 << 16, n = 0;
    uint64_t *frames = malloc(cap * sizeof *frames);
    uint64_t tick = 0, limit = 300 * TEMPO_NS_PER_S;
    /* Plot data (./dev bench): the burst's frame times, one file per policy. */
    FILE *data = NULL;
    if (strcmp(sc->name, "burst") == 0) {
        char name[64];
        snprintf(name, sizeof name, "netq-burst-%s.dat", tempo_netq_policy_name(policy));
        data = bench_data_open(name);
        if (data != NULL)
            fprintf(data, "# burst, %s: frame start s (fake clock), frame ms\n", tempo_netq_policy_name(policy));
    }
    result r = {0};
    tempo_netq_stats st;
    for (;;) {
        uint64_t start = s.now;
        feed(&s, start);
        tempo_netq_get_stats(s.q, &st);
        if (st.backlog > 0) /* the handle is signalled */
            tempo_netq_drain(s.q, sim_handle, &s);
        feed(&s, s.now + RENDER_NS);
        if (n == cap)
            frames = realloc(frames, (cap *= 2) * sizeof *frames);
        frames[n++] = s.now - start;
        if (data != NULL)
            fprintf(data, "%.4f %.3f\n", start / 1e9, (s.now - start) / 1e6);
        tempo_netq_get_stats(s.q, &st);
        if (r.done_at == 0 && s.next == sc->count && st.backlog == 0)
            r.done_at = s.now;
        /* At least 6 s of frames, so p99 is over ~360 frames. */
        if ((r.done_at && s.now >= 6 * TEMPO_NS_PER_S) || s.now > limit)
            break;
        /* Sleep to the next tick; after an overrun the tick is already due
         * (missed ones coalesce) and the next frame starts at once. */
        tick += TICK_NS;
        if (s.now >= tick)
            tick += (s.now - tick) / TICK_NS * TICK_NS;
        else
            feed(&s, tick);
    }
    tempo_netq_get_stats(s.q, &st);
    for (size_t i = 0; i < n; i++) {
        if (frames[i] > r.max_frame)
            r.max_frame = frames[i];
        if (frames[i] > TICK_NS)
            r.slow_frames++;
    }
    qsort(frames, n, sizeof *frames, bench_cmp_u64);
    r.p99_frame = bench_pct_u64(frames, n, 99);
    r.frames = n;
    r.max_age = st.max_age_ns;
    r.peak = st.peak_backlog;
    r.overflows = st.overflows;
    free(frames);
    if (data != NULL)
        fclose(data);
    tempo_netq_destroy(s.q);
    return r;
}

static void part1(void)
{
    printf("## Policies: simulated 60 Hz loop on a fake clock (deterministic)\n\n");
    printf("Message cost 0.2 ms, render 2 ms per frame, queue cap %d KiB (%d messages of %d bytes).\n",
           CAP_BYTES / 1024, (int)(CAP_BYTES / TEMPO_NETQ_MSG_BYTES(MSG_BYTES)), MSG_BYTES);
    printf("Frame = drain + render; the loop drains once per frame, at the tick. Frames > 16.7 ms miss a\n"
           "60 Hz tick. Age = how long a message waited before its handler ran. 6 s simulated per run.\n");
    printf("Ratios are against CLASSIC in the same scenario (lower is better).\n\n");
    printf("| scenario | policy | max frame ms | p99 frame ms | frames > 16.7 ms | max age ms | peak backlog | "
           "overflows | done at s | max frame / classic | max age / classic |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < N_SCENARIOS; i++) {
        result res[N_POLICIES];
        for (size_t p = 0; p < N_POLICIES; p++)
            res[p] = simulate(&scenarios[i], policies[p]);
        for (size_t p = 0; p < N_POLICIES; p++) {
            const result *r = &res[p];
            printf("| %s | %s | %.1f | %.1f | %llu | %.0f | %u | %llu | %.2f | %.2f | %.2f |\n", scenarios[i].name,
                   tempo_netq_policy_name(policies[p]), r->max_frame / 1e6, r->p99_frame / 1e6,
                   (unsigned long long)r->slow_frames, r->max_age / 1e6, r->peak, (unsigned long long)r->overflows,
                   r->done_at / 1e9, (double)r->max_frame / (double)res[0].max_frame,
                   res[0].max_age ? (double)r->max_age / (double)res[0].max_age : 0.0);
        }
    }
    printf("\nScenarios:\n");
    for (size_t i = 0; i < N_SCENARIOS; i++)
        printf("- %s: %s\n", scenarios[i].name, scenarios[i].what);
    printf("\n");
}

/* ---- Part 2: raw throughput, real time ----------------------------------- */

#define TP_BYTES 32

/* The baseline: mutex + growable array of heap copies; the consumer swaps
 * the whole array out under the lock. */
typedef struct bmsg {
    uint32_t type, size;
    void *data;
} bmsg;

typedef struct baseq {
    SDL_mutex *m;
    bmsg *v;
    size_t n, cap;
    tempo_handle *ready;
} baseq;

static int base_push(baseq *b, uint32_t type, const void *data, size_t size)
{
    void *copy = malloc(size);
    if (copy == NULL)
        return TEMPO_ENOMEM;
    memcpy(copy, data, size);
    SDL_LockMutex(b->m);
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        bmsg *v = realloc(b->v, cap * sizeof *v);
        if (v == NULL) {
            SDL_UnlockMutex(b->m);
            free(copy);
            return TEMPO_ENOMEM;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = (bmsg){type, (uint32_t)size, copy};
    bool was_empty = b->n == 1;
    SDL_UnlockMutex(b->m);
    if (was_empty)
        tempo_event_set(b->ready);
    return 0;
}

typedef struct tp_run {
    bool baseline;
    tempo_netq *q;
    baseq *b;
    tempo_handle *go;
    uint32_t per_producer;
    uint32_t id;
} tp_run;

/* [producer thread] */
static int tp_produce(void *arg)
{
    tp_run *r = arg;
    uint8_t payload[TP_BYTES] = {0};
    tempo_wait(&r->go, 1, TEMPO_INFINITE, 0);
    for (uint32_t i = 0; i < r->per_producer; i++) {
        memcpy(payload, &i, sizeof i);
        int e = r->baseline ? base_push(r->b, r->id, payload, sizeof payload)
                            : tempo_netq_push_wait(r->q, r->id, payload, sizeof payload, NULL, TEMPO_INFINITE);
        if (e != 0)
            return e;
    }
    return 0;
}

static uint64_t consumed, checksum;

static void tp_handle(const tempo_netq_msg *m, void *user)
{
    (void)user;
    consumed++;
    checksum += ((const uint8_t *)m->data)[0] + m->type;
}

/* Returns messages per second. */
static double tp_once(bool baseline, int producers, uint32_t total)
{
    tempo_netq *q = baseline ? NULL : tempo_netq_create(&(tempo_netq_desc){.policy = TEMPO_NETQ_DRAIN_ALL});
    baseq b = {0};
    if (baseline) {
        b.m = SDL_CreateMutex();
        b.ready = tempo_event_create(true, false);
    }
    tempo_handle *go = tempo_event_create(true, false);
    tp_run runs[4];
    SDL_Thread *th[4];
    uint32_t per = total / (uint32_t)producers;
    for (int i = 0; i < producers; i++) {
        runs[i] = (tp_run){baseline, q, &b, go, per, (uint32_t)i};
        th[i] = SDL_CreateThread(tp_produce, "bench-producer", &runs[i]);
    }
    tempo_handle *h = baseline ? b.ready : tempo_netq_handle(q);
    consumed = 0;
    uint64_t want = (uint64_t)per * (uint64_t)producers;
    bmsg *spare = NULL;
    size_t spare_cap = 0;
    SDL_Delay(20); /* let the producers reach the start line */
    uint64_t t0 = tempo_now_ns();
    tempo_event_set(go);
    while (consumed < want) {
        if (tempo_wait(&h, 1, 10 * TEMPO_NS_PER_S, 0) != 0) {
            fprintf(stderr, "bench: consumer stalled at %llu\n", (unsigned long long)consumed);
            exit(1);
        }
        if (!baseline) {
            tempo_netq_drain(q, tp_handle, NULL);
            continue;
        }
        SDL_LockMutex(b.m);
        bmsg *v = b.v;
        size_t n = b.n, cap = b.cap;
        b.v = spare;
        b.cap = spare_cap;
        b.n = 0;
        tempo_event_reset(b.ready);
        SDL_UnlockMutex(b.m);
        for (size_t i = 0; i < n; i++) {
            tempo_netq_msg m = {v[i].type, v[i].size, v[i].data, 0};
            tp_handle(&m, NULL);
            free(v[i].data);
        }
        spare = v;
        spare_cap = cap;
    }
    uint64_t dt = tempo_now_ns() - t0;
    for (int i = 0; i < producers; i++)
        SDL_WaitThread(th[i], NULL);
    tempo_event_destroy(go);
    if (baseline) {
        free(b.v);
        free(spare);
        SDL_DestroyMutex(b.m);
        tempo_event_destroy(b.ready);
    }
    tempo_netq_destroy(q);
    return (double)want / ((double)dt / 1e9);
}

/* Best of 5, alternating with the other contender would be fairer still;
 * best-of is the least disturbed run on a shared machine. */
static double tp_best(bool baseline, int producers, uint32_t total)
{
    double r[5];
    for (int i = 0; i < 5; i++)
        r[i] = tp_once(baseline, producers, total);
    qsort(r, 5, sizeof r[0], bench_cmp_dbl);
    return r[4];
}

static void part2(void)
{
    uint32_t total = quick ? 80000 : 400000;
    printf("## Raw throughput: producers -> one consumer (real time, best of 5)\n\n");
    printf("%u messages of %d bytes in total per run. netq: default 4 MiB cap, producers use push_wait, consumer\n"
           "drains (drain-all) each time the handle is signalled. netq reads the clock twice per message (the\n"
           "push stamp and the drain's budget check, ~40 ns each here); the baseline reads none. Baseline: mutex +\n"
           "growable array of heap copies, swapped out whole by the consumer, same event for wake-ups.\n"
           "%d CPUs; other processes share them, so rows vary from run to run.\n\n",
           total, TP_BYTES, SDL_GetCPUCount());
    printf("| producers | netq M msg/s | mutex+array M msg/s | netq / baseline |\n|---:|---:|---:|---:|\n");
    for (int p = 1; p <= 4; p++) {
        double a = tp_best(false, p, total);
        double b = tp_best(true, p, total);
        printf("| %d | %.2f | %.2f | %.2f |\n", p, a / 1e6, b / 1e6, a / b);
        fflush(stdout);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else {
            fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return 2;
        }
    }
    printf("# bench_netq%s\n\n", quick ? " (--quick)" : "");
    part1();
    part2();
    tempo_shutdown();
    return 0;
}
