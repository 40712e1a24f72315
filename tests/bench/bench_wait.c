/* bench_wait: what an idle 60 Hz main loop costs, Tempo's wait next to the
 * three loops people write with plain SDL, measured in one run.
 *
 * Every method drives a real window (nothing drawn) at 60 Hz, in two phases:
 *  1. idle: CPU %, voluntary context switches per second, and tick lateness
 *     against the ideal schedule (tick k is due at start + k * 16 666 667 ns;
 *     lateness = when the loop saw tick k minus that; negative = EARLY);
 *  2. signalled: a second thread signals at random 2-20 ms intervals and we
 *     measure the time from the signal (timestamp taken just before it) to
 *     the main loop noticing it. Kept apart from phase 1 so the signalling
 *     thread does not pollute the CPU numbers.
 *
 * Methods:
 *   tempo            periodic tempo timer + tempo_wait(TEMPO_WAIT_MESSAGES),
 *                    SDL_PollEvent when it returns n; signal: tempo_event_set
 *   tempo-sdl-route  the same with TEMPO_SDL_WAIT_ROUTE=sdl (Tempo's portable
 *                    fallback: it blocks in SDL_WaitEventTimeout)
 *   spin             SDL_PollEvent spin loop; signal: atomic flag + timestamp
 *   delay            SDL_Delay to the next tick (rounded up to whole ms, so
 *                    it is never early and wakes once per tick: the best an
 *                    SDL_Delay loop can do), then poll; signal: atomic flag,
 *                    noticed at the next wake
 *   addtimer         SDL_AddTimer with 16/17 ms intervals (rounded from the
 *                    ideal schedule) pushing a user event + SDL_WaitEvent;
 *                    signal: SDL_PushEvent of another user event. SDL
 *                    reschedules each tick from the millisecond its timer
 *                    thread woke at, so every late wake-up is kept: it drifts.
 *   floor            (Linux only, a reference, not a peer) the best this
 *                    machine's kernel does right now: poll() with no timeout
 *                    on an absolute periodic timerfd (no timer slack), an
 *                    eventfd (signal) and the X connection, pumping SDL only
 *                    when X has data. Tempo can at best match it (up to noise); the gap between
 *                    the two rows is Tempo's own overhead.
 *
 * Each method runs in its own child process (this program re-executed with
 * --only METHOD), so CPU time and context switches belong to that method
 * alone, per-thread state such as the kernel timer slack Tempo tightens does
 * not leak into the baselines, and the SDL backend reads
 * TEMPO_SDL_WAIT_ROUTE afresh. The child prints one "RESULT key=value..."
 * line; the parent prints the table and the DESIGN.md section 5 targets.
 *
 * Usage: bench_wait [--quick] [--seconds S] [--only METHOD]
 * Exit: 0 (targets are reported, not enforced), 77 when no real window can
 * be opened (meson's "skipped"), 1 when a method failed to run.
 *
 * Only SDL, Tempo and the C library are used (children run through
 * bench_common's popen wrapper), so the file also builds for Windows; the
 * floor row is Linux-only. */
#if !defined(_WIN32)
#ifndef _POSIX_C_SOURCE /* a build's flags may define it already */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/tempo.h"

#if defined(__linux__)
#define BENCH_FLOOR_ROW 1 /* (SDL_config.h already defines HAVE_FLOOR, for floor()) */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <SDL_syswm.h>
#endif

#define PERIOD_NS UINT64_C(16666667) /* 60 Hz */
#define EXIT_SKIP BENCH_EXIT_SKIP

/* ---- Samples ------------------------------------------------------------- */

typedef struct series {
    int64_t *v;
    size_t n, cap;
} series;

static void series_push(series *s, int64_t x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        int64_t *v = realloc(s->v, cap * sizeof *v);
        if (v == NULL) {
            fprintf(stderr, "bench_wait: out of memory\n");
            exit(1);
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
}

/* Nearest-rank percentile of a sorted series; 0 when empty. */
static int64_t pct(const series *s, double p)
{
    return bench_pct_i64(s->v, s->n, p);
}

/* Median of v[0..n) (n > 0), leaving v as it was. Medians, not means, so one
 * preempted tick on a shared machine does not read as drift. */
static int64_t median_of(const int64_t *v, size_t n)
{
    int64_t *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return 0;
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, bench_cmp_i64);
    int64_t m = copy[n / 2];
    free(copy);
    return m;
}

/* ---- The signalling thread ---------------------------------------------- */

enum sig_kind { SIG_FLAG, SIG_TEMPO_EVENT, SIG_SDL_EVENT, SIG_EVENTFD };

/* Cross-thread state. `pending` is the timestamp of the signal the main loop
 * has not noticed yet (0: none); the signaller only signals when it is 0, so
 * one timestamp always belongs to one signal even for loops that notice late
 * (the SDL_Delay loop), and every latency is measured from its own signal. */
static struct {
    _Atomic uint64_t pending;
    atomic_bool stop;
    atomic_uint sent, skipped;
    enum sig_kind kind;
    tempo_handle *event; /* SIG_TEMPO_EVENT */
    Uint32 event_type;   /* SIG_SDL_EVENT */
    int fd;              /* SIG_EVENTFD */
} sig;

/* [signaller thread] Sleeps a random 2-20 ms (SDL_Delay: the exact instant
 * does not matter, only that it is unrelated to the tick), then signals. */
static int SDLCALL signaller_main(void *unused)
{
    (void)unused;
    uint32_t seed = 0x9e3779b9u;
    while (!atomic_load(&sig.stop)) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        SDL_Delay(2 + seed % 19);
        if (atomic_load(&sig.stop))
            break;
        uint64_t expected = 0;
        uint64_t ts = tempo_now_ns();
        if (!atomic_compare_exchange_strong(&sig.pending, &expected, ts)) {
            atomic_fetch_add(&sig.skipped, 1); /* the last one is still unseen */
            continue;
        }
        atomic_fetch_add(&sig.sent, 1);
        if (sig.kind == SIG_TEMPO_EVENT) {
            tempo_event_set(sig.event);
        } else if (sig.kind == SIG_SDL_EVENT) {
            SDL_Event e;
            SDL_zero(e);
            e.type = sig.event_type;
            SDL_PushEvent(&e);
        } else if (sig.kind == SIG_EVENTFD) {
#if defined(BENCH_FLOOR_ROW)
            uint64_t one = 1;
            ssize_t ignored = write(sig.fd, &one, sizeof one);
            (void)ignored;
#endif
        } /* SIG_FLAG: `pending` itself is the flag */
    }
    return 0;
}

/* ---- Phases -------------------------------------------------------------- */

typedef struct phase {
    uint64_t end_ns; /* loops stop at their first wake at or after this */
    series late;     /* tick lateness, ns (negative: early) */
    series xwake;    /* signal -> noticed, ns */
    uint64_t ticks, missed;
    int64_t drift_ns; /* median lateness of the last quarter of ticks minus the first */
} phase;

/* The main loop noticed the signal at `now`. */
static void observe(phase *ph, uint64_t now)
{
    uint64_t ts = atomic_exchange(&sig.pending, 0);
    if (ts != 0)
        series_push(&ph->xwake, now > ts ? (int64_t)(now - ts) : 0);
}

/* A loop that tracks ticks itself (spin, delay): tick k is the first k with
 * start + k * PERIOD_NS <= now; earlier unseen ticks count as missed. */
static void tick_by_clock(phase *ph, uint64_t start, uint64_t now, uint64_t *last_k, uint64_t *next_due)
{
    uint64_t k = (now - start) / PERIOD_NS;
    series_push(&ph->late, (int64_t)(now - (start + k * PERIOD_NS)));
    ph->ticks++;
    ph->missed += k - *last_k - 1;
    *last_k = k;
    *next_due = start + (k + 1) * PERIOD_NS;
}

static void drain_sdl_events(void)
{
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
    }
}

/* -- Tempo: a periodic tempo timer + tempo_wait over {tick, signal}. */
static int run_tempo(phase *ph)
{
    tempo_handle *tick = tempo_timer_create(false);
    if (tick == NULL) {
        fprintf(stderr, "tempo_timer_create: %s\n", tempo_get_error());
        return -1;
    }
    tempo_handle *set[2] = {tick, sig.event};
    const uint64_t start = tempo_now_ns();
    uint64_t k = 0;
    int rc = 0;
    tempo_timer_set(tick, start + PERIOD_NS, PERIOD_NS);
    for (uint64_t now = start; now < ph->end_ns;) {
        int r = tempo_wait(set, 2, TEMPO_INFINITE, TEMPO_WAIT_MESSAGES);
        now = tempo_now_ns();
        if (r == 0) {
            uint64_t missed = tempo_timer_missed(tick);
            k += 1 + missed;
            ph->missed += missed;
            ph->ticks++;
            series_push(&ph->late, (int64_t)(now - (start + k * PERIOD_NS)));
        } else if (r == 1) {
            observe(ph, now);
        } else if (r == 2) {
            drain_sdl_events();
        } else {
            fprintf(stderr, "tempo_wait: %s (%s)\n", tempo_strerror(r), tempo_get_error());
            rc = -1;
            break;
        }
    }
    tempo_timer_destroy(tick);
    return rc;
}

/* -- The spin loop: poll, read the clock, again. */
static int run_spin(phase *ph)
{
    const uint64_t start = tempo_now_ns();
    uint64_t last_k = 0, next_due = start + PERIOD_NS;
    for (;;) {
        drain_sdl_events();
        uint64_t now = tempo_now_ns();
        if (atomic_load_explicit(&sig.pending, memory_order_relaxed) != 0)
            observe(ph, tempo_now_ns());
        if (now >= next_due)
            tick_by_clock(ph, start, now, &last_k, &next_due);
        if (now >= ph->end_ns)
            return 0;
    }
}

/* -- SDL_Delay to the next tick, then poll. */
static int run_delay(phase *ph)
{
    const uint64_t start = tempo_now_ns();
    uint64_t last_k = 0, next_due = start + PERIOD_NS;
    for (;;) {
        uint64_t now = tempo_now_ns();
        if (atomic_load_explicit(&sig.pending, memory_order_relaxed) != 0)
            observe(ph, tempo_now_ns());
        if (now >= next_due)
            tick_by_clock(ph, start, now, &last_k, &next_due);
        drain_sdl_events();
        if (now >= ph->end_ns)
            return 0;
        now = tempo_now_ns();
        if (now < next_due)
            SDL_Delay((Uint32)((next_due - now + TEMPO_NS_PER_MS - 1) / TEMPO_NS_PER_MS));
    }
}

/* -- SDL_AddTimer pushing a user event per tick + SDL_WaitEvent. */
static Uint32 tick_event_type;

typedef struct addtimer_state {
    _Atomic int k; /* ticks pushed so far */
} addtimer_state;

/* Milliseconds from the start to tick k, rounded: 17, 33, 50, 67, 83, 100... */
static Uint32 tick_ms(int k)
{
    return (Uint32)(((int64_t)k * 100 + 3) / 6);
}

/* [SDL timer thread] Pushes tick k and asks for the interval to tick k+1. */
static Uint32 SDLCALL addtimer_cb(Uint32 interval, void *param)
{
    (void)interval;
    addtimer_state *st = param;
    int k = atomic_fetch_add(&st->k, 1) + 1;
    SDL_Event e;
    SDL_zero(e);
    e.type = tick_event_type;
    e.user.code = k;
    SDL_PushEvent(&e);
    return tick_ms(k + 1) - tick_ms(k);
}

static int run_addtimer(phase *ph)
{
    static addtimer_state st;
    atomic_store(&st.k, 0);
    const uint64_t start = tempo_now_ns();
    SDL_TimerID id = SDL_AddTimer(tick_ms(1), addtimer_cb, &st);
    if (id == 0) {
        fprintf(stderr, "SDL_AddTimer: %s\n", SDL_GetError());
        return -1;
    }
    int64_t last_k = 0;
    int rc = 0;
    for (uint64_t now = start; now < ph->end_ns;) {
        SDL_Event e;
        if (!SDL_WaitEvent(&e)) {
            fprintf(stderr, "SDL_WaitEvent: %s\n", SDL_GetError());
            rc = -1;
            break;
        }
        now = tempo_now_ns();
        if (e.type == tick_event_type) {
            int64_t k = e.user.code;
            series_push(&ph->late, (int64_t)now - (int64_t)(start + (uint64_t)k * PERIOD_NS));
            ph->ticks++;
            ph->missed += (uint64_t)(k - last_k - 1);
            last_k = k;
        } else if (e.type == sig.event_type) {
            observe(ph, now);
        }
    }
    SDL_RemoveTimer(id);
    return rc;
}

#if defined(BENCH_FLOOR_ROW)
static SDL_Window *g_window;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * TEMPO_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
    return (struct timespec){.tv_sec = (time_t)(ns / TEMPO_NS_PER_S), .tv_nsec = (long)(ns % TEMPO_NS_PER_S)};
}

/* The X connection's descriptor, or -1 (then SDL is pumped on every wake). */
static int x_fd(void)
{
#if defined(SDL_VIDEO_DRIVER_X11)
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (SDL_GetWindowWMInfo(g_window, &info) && info.subsystem == SDL_SYSWM_X11)
        return ConnectionNumber(info.info.x11.display);
#endif
    return -1;
}

/* -- The kernel's floor: one poll() with no timeout, so no poll slack either. */
static int run_floor(phase *ph)
{
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (tfd < 0) {
        fprintf(stderr, "timerfd_create: %s\n", strerror(errno));
        return -1;
    }
    const uint64_t start = mono_ns();
    struct itimerspec its = {.it_interval = ns_to_ts(PERIOD_NS), .it_value = ns_to_ts(start + PERIOD_NS)};
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
    struct pollfd fds[3] = {{.fd = tfd, .events = POLLIN}, {.fd = sig.fd, .events = POLLIN}, {.fd = x_fd(), .events = POLLIN}};
    nfds_t nfds = fds[2].fd >= 0 ? 3 : 2;
    uint64_t k = 0;
    int rc = 0;
    drain_sdl_events(); /* SDL_PumpEvents empties Xlib's queue: from now on, news comes through the fd */
    for (uint64_t now = start; now < ph->end_ns;) {
        int n = poll(fds, nfds, -1);
        now = mono_ns();
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "poll: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        uint64_t count;
        if ((fds[0].revents & POLLIN) && read(tfd, &count, sizeof count) == sizeof count) {
            k += count;
            ph->missed += count - 1;
            ph->ticks++;
            series_push(&ph->late, (int64_t)(now - (start + k * PERIOD_NS)));
        }
        if ((fds[1].revents & POLLIN) && read(sig.fd, &count, sizeof count) == sizeof count)
            observe(ph, tempo_now_ns()); /* the signaller's clock */
        if (nfds == 2 || (fds[2].revents & POLLIN))
            drain_sdl_events();
    }
    close(tfd);
    return rc;
}
#endif

typedef struct method {
    const char *name;
    const char *label; /* table row; tempo rows add the route */
    int (*run)(phase *ph);
    enum sig_kind sig;
} method;

static const method methods[] = {
    {"tempo", "tempo", run_tempo, SIG_TEMPO_EVENT},
    {"tempo-sdl-route", "tempo", run_tempo, SIG_TEMPO_EVENT},
    {"spin", "SDL_PollEvent spin", run_spin, SIG_FLAG},
    {"delay", "SDL_Delay loop", run_delay, SIG_FLAG},
    {"addtimer", "SDL_AddTimer+WaitEvent", run_addtimer, SIG_SDL_EVENT},
#if defined(BENCH_FLOOR_ROW)
    {"floor", "ref: OS floor (timerfd)", run_floor, SIG_EVENTFD},
#endif
};
#define METHOD_COUNT (int)(sizeof methods / sizeof methods[0])

/* ---- Child: run one method, print one RESULT line ------------------------ */

static int run_phase(const method *m, phase *ph, double seconds, bool signalling, tempo_usage *u0,
                     tempo_usage *u1, uint64_t *wall_ns)
{
    SDL_Thread *th = NULL;
    drain_sdl_events();
    if (signalling) {
        atomic_store(&sig.stop, false);
        atomic_store(&sig.pending, 0);
        th = SDL_CreateThread(signaller_main, "bench-signaller", NULL);
        if (th == NULL) {
            fprintf(stderr, "SDL_CreateThread: %s\n", SDL_GetError());
            return -1;
        }
    }
    tempo_process_usage(u0);
    uint64_t t0 = tempo_now_ns();
    ph->end_ns = t0 + (uint64_t)(seconds * 1e9);
    int rc = m->run(ph);
    *wall_ns = tempo_now_ns() - t0;
    tempo_process_usage(u1);
    if (th != NULL) {
        atomic_store(&sig.stop, true);
        SDL_WaitThread(th, NULL);
        atomic_store(&sig.pending, 0);
        if (sig.event != NULL)
            tempo_event_reset(sig.event);
    }
    drain_sdl_events();
    /* Drift needs the ticks in order, so before sorting. An absolute
     * schedule keeps it at noise level however long the run. */
    size_t q = ph->late.n / 4;
    if (q > 0)
        ph->drift_ns = median_of(ph->late.v + ph->late.n - q, q) - median_of(ph->late.v, q);
    if (ph->late.n > 0)
        qsort(ph->late.v, ph->late.n, sizeof ph->late.v[0], bench_cmp_i64);
    if (ph->xwake.n > 0)
        qsort(ph->xwake.v, ph->xwake.n, sizeof ph->xwake.v[0], bench_cmp_i64);
    return rc;
}

static void phase_free(phase *ph)
{
    free(ph->late.v);
    free(ph->xwake.v);
    memset(ph, 0, sizeof *ph);
}

static int child_main(const char *name, double seconds)
{
    const method *m = NULL;
    for (int i = 0; i < METHOD_COUNT; i++)
        if (strcmp(methods[i].name, name) == 0)
            m = &methods[i];
    if (m == NULL) {
        fprintf(stderr, "bench_wait: unknown method %s\n", name);
        return 2;
    }
    /* The SDL backend reads this once, at the first message wait. */
    if (strcmp(name, "tempo-sdl-route") == 0)
        SDL_setenv("TEMPO_SDL_WAIT_ROUTE", "sdl", 1);

    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
        fprintf(stderr, "bench_wait: SKIP: no display for a real window (SDL video: %s)\n", SDL_GetError());
        return EXIT_SKIP;
    }
    const char *driver = SDL_GetCurrentVideoDriver();
    if (driver == NULL || strcmp(driver, "dummy") == 0 || strcmp(driver, "offscreen") == 0) {
        fprintf(stderr, "bench_wait: SKIP: video driver '%s' has no real window; run under xvfb-run -a\n",
                driver ? driver : "(none)");
        SDL_Quit();
        return EXIT_SKIP;
    }
    SDL_Window *win = SDL_CreateWindow("bench_wait", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 320, 200,
                                       SDL_WINDOW_SHOWN);
    if (win == NULL) {
        fprintf(stderr, "bench_wait: SKIP: SDL_CreateWindow: %s\n", SDL_GetError());
        SDL_Quit();
        return EXIT_SKIP;
    }
    Uint32 types = SDL_RegisterEvents(2);
    if (types == (Uint32)-1) {
        fprintf(stderr, "SDL_RegisterEvents: %s\n", SDL_GetError());
        return 1;
    }
    tick_event_type = types;
    sig.event_type = types + 1;
    sig.kind = m->sig;
#if defined(BENCH_FLOOR_ROW)
    g_window = win;
    if (m->sig == SIG_EVENTFD && (sig.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        fprintf(stderr, "eventfd: %s\n", strerror(errno));
        return 1;
    }
#endif
    if (m->sig == SIG_TEMPO_EVENT && (sig.event = tempo_event_create(false, false)) == NULL) {
        fprintf(stderr, "tempo_event_create: %s\n", tempo_get_error());
        return 1;
    }

    /* Warm-up: the window maps, SDL and Tempo make their lazy allocations. */
    phase warm = {0}, idle = {0}, busy = {0};
    tempo_usage u0, u1, s0, s1, w0, w1;
    uint64_t wall = 0, busy_wall = 0, warm_wall = 0;
    int rc = run_phase(m, &warm, seconds < 1 ? 0.15 : 0.3, false, &w0, &w1, &warm_wall);
    if (rc == 0)
        rc = run_phase(m, &idle, seconds, false, &u0, &u1, &wall);
    if (rc == 0)
        rc = run_phase(m, &busy, seconds, true, &s0, &s1, &busy_wall);
    if (rc != 0) {
        fprintf(stderr, "bench_wait: method %s failed\n", name);
        return 1;
    }

    /* Plot data (./dev bench): the idle phase's tick lateness, sorted, as a
     * cumulative distribution. */
    char dname[64];
    snprintf(dname, sizeof dname, "wait-late-%s.dat", name);
    FILE *data = bench_data_open(dname);
    if (data != NULL) {
        fprintf(data, "# %s: tick lateness ms, fraction of ticks at most that late\n", name);
        for (size_t i = 0; i < idle.late.n; i++)
            fprintf(data, "%.4f %.5f\n", (double)idle.late.v[i] / 1e6, (double)(i + 1) / (double)idle.late.n);
        fclose(data);
    }

    const char *route = m->sig == SIG_TEMPO_EVENT ? tempo_wait_route() : "-";
    if (strcmp(name, "tempo-sdl-route") == 0 && strcmp(route, "sdl-events") != 0) {
        fprintf(stderr, "bench_wait: TEMPO_SDL_WAIT_ROUTE=sdl was ignored (route %s)\n", route);
        return 1;
    }
    printf("RESULT method=%s route=%s driver=%s wall_ns=%llu cpu_ns=%llu csw=%llu has_csw=%d ticks=%llu "
           "missed=%llu late_n=%zu late_p50=%lld late_p99=%lld late_max=%lld late_min=%lld drift=%lld "
           "xw_n=%zu xw_p50=%lld xw_p99=%lld xw_max=%lld sent=%u skipped=%u\n",
           name, route, driver, (unsigned long long)wall, (unsigned long long)(u1.cpu_ns - u0.cpu_ns),
           (unsigned long long)(u1.voluntary_switches - u0.voluntary_switches), u1.has_switches ? 1 : 0,
           (unsigned long long)idle.ticks, (unsigned long long)idle.missed, idle.late.n,
           (long long)pct(&idle.late, 50), (long long)pct(&idle.late, 99),
           (long long)(idle.late.n ? idle.late.v[idle.late.n - 1] : 0), (long long)(idle.late.n ? idle.late.v[0] : 0),
           (long long)idle.drift_ns, busy.xwake.n, (long long)pct(&busy.xwake, 50), (long long)pct(&busy.xwake, 99),
           (long long)(busy.xwake.n ? busy.xwake.v[busy.xwake.n - 1] : 0), atomic_load(&sig.sent),
           atomic_load(&sig.skipped));
    fflush(stdout);

    phase_free(&warm);
    phase_free(&idle);
    phase_free(&busy);
    tempo_event_destroy(sig.event);
#if defined(BENCH_FLOOR_ROW)
    if (m->sig == SIG_EVENTFD)
        close(sig.fd);
#endif
    SDL_DestroyWindow(win);
    tempo_shutdown();
    SDL_Quit();
    return 0;
}

/* ---- Parent: run every method in a child, print the table ----------------- */

typedef struct result {
    int exit_code;
    bool ok;
    char method[32], route[64], driver[32];
    double wall_ns, cpu_ns, csw, has_csw, ticks, missed, late_n, late_p50, late_p99, late_max, late_min, drift;
    double xw_n, xw_p50, xw_p99, xw_max, sent, skipped;
} result;

static void parse_result(char *line, result *r)
{
    struct {
        const char *key;
        double *value;
    } nums[] = {
        {"wall_ns", &r->wall_ns},   {"cpu_ns", &r->cpu_ns},     {"csw", &r->csw},
        {"has_csw", &r->has_csw},   {"ticks", &r->ticks},       {"missed", &r->missed},
        {"late_n", &r->late_n},     {"late_p50", &r->late_p50}, {"late_p99", &r->late_p99},
        {"late_max", &r->late_max}, {"late_min", &r->late_min}, {"drift", &r->drift},
        {"xw_n", &r->xw_n},         {"xw_p50", &r->xw_p50},     {"xw_p99", &r->xw_p99},
        {"xw_max", &r->xw_max},     {"sent", &r->sent},         {"skipped", &r->skipped},
    };
    int found = 0;
    for (char *tok = strtok(line, " \r\n"); tok != NULL; tok = strtok(NULL, " \r\n")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        const char *val = eq + 1;
        if (strcmp(tok, "method") == 0)
            snprintf(r->method, sizeof r->method, "%s", val);
        else if (strcmp(tok, "route") == 0)
            snprintf(r->route, sizeof r->route, "%s", val);
        else if (strcmp(tok, "driver") == 0)
            snprintf(r->driver, sizeof r->driver, "%s", val);
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            if (strcmp(tok, nums[i].key) == 0) {
                *nums[i].value = strtod(val, NULL);
                found++;
            }
    }
    r->ok = found == (int)(sizeof nums / sizeof nums[0]) && r->wall_ns > 0;
}

static void on_child_line(const char *line, void *user)
{
    if (strncmp(line, "RESULT ", 7) == 0) {
        char copy[4096]; /* parse_result tokenises in place */
        snprintf(copy, sizeof copy, "%s", line + 7);
        parse_result(copy, user);
    }
    else
        fputs(line, stderr);
}

/* Runs `self --only name` and collects its RESULT line; its other output is
 * passed through to stderr. Fills r->exit_code. */
static void run_child(const char *self, const char *name, double seconds, result *r)
{
    char args[256];
    snprintf(args, sizeof args, "--only %s --seconds %.9g", name, seconds);
    memset(r, 0, sizeof *r);
    r->exit_code = bench_run_child(self, args, on_child_line, r);
}

static void fmt_ms(char *buf, size_t size, double ns)
{
    snprintf(buf, size, "%.3f", ns / 1e6);
}

static double cpu_percent(const result *r)
{
    return 100.0 * r->cpu_ns / r->wall_ns;
}

static double csw_per_s(const result *r)
{
    return r->has_csw > 0 ? r->csw * 1e9 / r->wall_ns : -1;
}

static void row_label(char *buf, size_t size, const method *m, const result *r)
{
    if (m->sig == SIG_TEMPO_EVENT && r->ok)
        snprintf(buf, size, "%s (%s)", m->label, r->route);
    else
        snprintf(buf, size, "%s", m->label);
}

static void print_row(const method *m, const result *r, const result *ref)
{
    char label[80], c[6][16], x[2][16], q[4][16], csw[16];
    row_label(label, sizeof label, m, r);
    if (!r->ok && r->exit_code == -1) {
        printf("%-24s n/a (this backend has no such route)\n", label);
        return;
    }
    if (!r->ok) {
        printf("%-24s FAILED (exit code %d)\n", label, r->exit_code);
        return;
    }
    fmt_ms(c[0], sizeof c[0], r->late_p50);
    fmt_ms(c[1], sizeof c[1], r->late_p99);
    fmt_ms(c[2], sizeof c[2], r->late_max);
    fmt_ms(c[3], sizeof c[3], r->late_min);
    fmt_ms(x[0], sizeof x[0], r->xw_p50);
    fmt_ms(x[1], sizeof x[1], r->xw_p99);
    if (csw_per_s(r) >= 0)
        snprintf(csw, sizeof csw, "%.1f", csw_per_s(r));
    else
        snprintf(csw, sizeof csw, "n/a");
    bool have_ref = ref != NULL && ref->ok;
    bench_fmt_ratio(q[0], sizeof q[0], cpu_percent(r), have_ref ? cpu_percent(ref) : 0);
    bench_fmt_ratio(q[1], sizeof q[1], csw_per_s(r), have_ref ? csw_per_s(ref) : 0);
    bench_fmt_ratio(q[2], sizeof q[2], r->late_p50, have_ref ? ref->late_p50 : 0);
    bench_fmt_ratio(q[3], sizeof q[3], r->xw_p50, have_ref ? ref->xw_p50 : 0);
    printf("%-24s %6.3f %7s %7s %7s %7s %7s  %8s %8s  %7s %7s %7s %7s\n", label, cpu_percent(r), csw, c[0], c[1],
           c[2], c[3], x[0], x[1], q[0], q[1], q[2], q[3]);
}

/* One line of DESIGN.md section 5 verdicts for a Tempo row. */
static void print_targets(const method *m, const result *r)
{
    char label[80], cell[7][24];
    row_label(label, sizeof label, m, r);
    if (!r->ok)
        return;
    double cpu = cpu_percent(r), csw = csw_per_s(r);
    snprintf(cell[0], sizeof cell[0], "%s %.3f%%", cpu <= 0.3 ? "ok" : "MISS", cpu);
    if (csw >= 0)
        snprintf(cell[1], sizeof cell[1], "%s %.1f", csw <= 61.0 ? "ok" : "MISS", csw);
    else
        snprintf(cell[1], sizeof cell[1], "n/a");
    snprintf(cell[2], sizeof cell[2], "%s %.1fus", r->late_p50 <= 50e3 ? "ok" : "MISS", r->late_p50 / 1e3);
    snprintf(cell[3], sizeof cell[3], "%s %+.0fus", r->late_min >= 0 ? "ok" : "MISS", r->late_min / 1e3);
    snprintf(cell[4], sizeof cell[4], "%s %+.0fus", r->drift <= 50e3 && r->drift >= -50e3 ? "ok" : "MISS",
             r->drift / 1e3);
    snprintf(cell[5], sizeof cell[5], "%s %.1fus", r->xw_p50 <= 30e3 ? "ok" : "MISS", r->xw_p50 / 1e3);
    snprintf(cell[6], sizeof cell[6], "%s %.0fus", r->xw_p99 <= 100e3 ? "ok" : "MISS", r->xw_p99 / 1e3);
    printf("%-24s %-11s %-11s %-12s %-12s %-11s %-12s %-12s\n", label, cell[0], cell[1], cell[2], cell[3], cell[4],
           cell[5], cell[6]);
}

static int parent_main(const char *self, double seconds)
{
    result results[METHOD_COUNT];
    int failed = 0;
    double load_before = bench_load_average();
    for (int i = 0; i < METHOD_COUNT; i++) {
        if (strcmp(methods[i].name, "tempo-sdl-route") == 0 && !tempo_backend_has(TEMPO_CAP_SDL_ROUTE)) {
            /* The pure-SDL fallback route exists only in the SDL backend. */
            memset(&results[i], 0, sizeof results[i]);
            results[i].exit_code = -1; /* marks "not applicable" for print_row */
            printf("bench_wait: %s is not applicable to the %s backend\n", methods[i].name, tempo_backend_name());
            continue;
        }
        run_child(self, methods[i].name, seconds, &results[i]);
        if (results[i].exit_code == EXIT_SKIP) {
            printf("bench_wait: SKIPPED: no real window could be opened (see above); "
                   "run it under xvfb-run -a or on a desktop\n");
            return EXIT_SKIP;
        }
        if (results[i].exit_code != 0 || !results[i].ok) {
            results[i].ok = false;
            fprintf(stderr, "bench_wait: method %s failed (exit code %d)\n", methods[i].name,
                    results[i].exit_code);
            failed++;
        }
    }

    const result *ref = &results[0]; /* Tempo's default route */
    const char *driver = "?";
    for (int i = 0; i < METHOD_COUNT; i++)
        if (results[i].ok) {
            driver = results[i].driver;
            break;
        }
    char ref_label[80];
    row_label(ref_label, sizeof ref_label, &methods[0], ref);
    printf("\nbench_wait: 60 Hz, real window (%s), nothing drawn, %.1f s per phase "
           "(idle; then signalled every 2-20 ms), one process per method\n",
           driver, seconds);
    if (load_before >= 0)
        printf("machine: %d CPUs, load average %.2f before and %.2f after (other work on the machine shows up as "
               "lateness and CPU noise)\n",
               SDL_GetCPUCount(), load_before, bench_load_average());
    printf("\n");
    printf("%-24s %-14s %-31s   %-17s  ratio to %s\n", "", "idle", "tick lateness vs ideal (ms)",
           "x-thread wake (ms)", ref_label);
    printf("%-24s %6s %7s %7s %7s %7s %7s  %8s %8s  %7s %7s %7s %7s\n", "method", "CPU%", "csw/s", "p50", "p99",
           "max", "min", "p50", "p99", "CPU", "csw/s", "late50", "xwake50");
    for (int i = 0; i < METHOD_COUNT; i++)
        print_row(&methods[i], &results[i], ref);

    printf("\ndetails (idle phase: ticks seen / coalesced, drift = median lateness of the last quarter of ticks "
           "minus the first; signalled phase: signals seen / sent / skipped because the last was unseen, "
           "max wake latency)\n");
    for (int i = 0; i < METHOD_COUNT; i++) {
        const result *r = &results[i];
        char label[80];
        row_label(label, sizeof label, &methods[i], r);
        if (!r->ok)
            continue;
        printf("%-24s ticks %4.0f / %3.0f coalesced, drift %+8.3f ms; signals %4.0f / %4.0f / %3.0f, max %8.3f ms\n",
               label, r->ticks, r->missed, r->drift / 1e6, r->xw_n, r->sent, r->skipped, r->xw_max / 1e6);
    }

    printf("\ntargets (DESIGN.md sec. 5)  CPU<=0.3%%   wakes<=61/s lat p50<=50us never early  no drift    "
           "xwake p50<=30 xwake p99<=100\n");
    for (int i = 0; i < METHOD_COUNT; i++)
        if (methods[i].sig == SIG_TEMPO_EVENT)
            print_targets(&methods[i], &results[i]);
    printf("(wakes = voluntary context switches of all threads per second; no drift = |drift| <= 50us over this "
           "run, use --seconds 600 for the 10-minute check; targets are reported, not enforced)\n");
    if (failed > 0)
        printf("bench_wait: %d method(s) FAILED to run\n", failed);
    return failed > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    double seconds = 0;
    bool quick = false;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = strtod(argv[++i], NULL);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            printf("usage: %s [--quick] [--seconds S] [--only METHOD]\n"
                   "  --quick      0.8 s per phase instead of 4 s (a smoke check)\n"
                   "  --seconds S  seconds per phase\n"
                   "  --only M     run one method in this process and print its RESULT line; M is one of:",
                   argv[0]);
            for (int m = 0; m < METHOD_COUNT; m++)
                printf(" %s", methods[m].name);
            printf("\n");
            return strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ? 0 : 2;
        }
    }
    if (seconds <= 0)
        seconds = quick ? 0.8 : 4.0;
    if (only != NULL)
        return child_main(only, seconds);
    return parent_main(argv[0], seconds);
}
