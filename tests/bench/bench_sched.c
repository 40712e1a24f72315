/* bench_sched: what Linux's scheduler does to a loop thread that shares its
 * core with a background thread (the loader's, desc.low_priority), under
 * the scheduling choices Tempo makes there (issue 39) and the ones before
 * them:
 *  - plat_thread_set_background(): the loader's threads in SCHED_IDLE,
 *    where they were in SCHED_BATCH at nice 19;
 *  - plat_thread_background_yield(): they give up the turn a wake-up wins
 *    them, on waking and at most every 0.5 ms while they work;
 *  - a 20 ms scheduler slice the loop thread asked for (tempo_loop_create,
 *    until the yield; hold_slice below), where the kernel's default is
 *    ~1.4 ms; D shows what that cost.
 *
 * All threads are pinned to one core, so this is the kernel's choice
 * between them alone, with no other core to move any to:
 *  A. A thread that wakes: a normal thread sleeps to absolute deadlines
 *     3-4 ms apart (clock_nanosleep) while the background thread computes
 *     without pause on the core; each wake-up's lateness.
 *  B. A frame's work: the frame thread wakes the background thread every
 *     4th frame (a submit), computes 11 ms (a burst's drain), then sleeps
 *     5.7 ms (the present); the background thread computes 30 ms per wake
 *     (decoding). Lost: the wall time inside the 11 ms that the frame thread
 *     was off the core (gaps over 50 us between two clock reads), i.e. the
 *     drain's work that did not get done.
 *  C. As B, with a normal thread running 10 us every 2.7 ms (the kworkers
 *     that bench_game's traces showed preempting the loop thread), the
 *     background thread woken every frame for 2 ms (a frame's decodes).
 *  D. The frame thread against a normal thread (a game's worker) that
 *     computes without pause: its wake-ups 16.7 ms apart, 5 ms of work
 *     each, with the kernel's slice and with 20 ms held.
 *  E. As B, the background thread kept 8 PNGs behind (a level's load):
 *     each read from the disk (dropped from the page cache after its last
 *     read), then decoded. A read that waits on the disk is a wake-up too,
 *     and without a yield between it and the decode, the decode takes the
 *     turn that wake-up won it. Rows: yields on waking and before each
 *     request only (the loader before it yielded after the read), also
 *     after the read (now), and a real tempo_loader.
 * The rows without a background thread are the baselines of the same run,
 * and the loader rows run a real tempo_loader's thread (one custom job per
 * submit; E: an image request per file). What it showed on the 2-core 6.18
 * VM (docs/benchmarks.md): no row of A wakes late; in B and C, without the
 * yield, every frame that woke the background thread lost up to a tick
 * (~4 ms); with it, none did, except where one job ran 30 ms with no yield
 * between (B's loader row); in D the held slice made about one wake-up in
 * five 10-20 ms late; in E, a loader with no yield between its read and
 * its decode cost 21 of 240 frames over 1 ms (the hand-written thread
 * 13-33), with it 0-1 (as the baseline: kernel threads take a frame's
 * millisecond now and then).
 * Linux only (elsewhere: skipped). Kernels before 6.12 have no per-thread
 * slice: the "held" rows then say "not held". */
#if defined(__linux__)
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE /* sched_setaffinity, SCHED_BATCH, SCHED_IDLE */
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <SDL_image.h>

#include "bench_common.h"
#include "platform.h"
#include "tempo/tempo.h"
#include "thread_slice.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS

enum bg_kind { BG_NONE, BG_NICE19, BG_BATCH, BG_IDLE, BG_TEMPO, BG_LOADER, BG_NORMAL, BG_READ_BEFORE, BG_READ_NOW };
static const char *const bg_name[] = {"none (baseline)",
                                      "nice 19",
                                      "nice 19 + SCHED_BATCH (before)",
                                      "SCHED_IDLE, no yield (before)",
                                      "SCHED_IDLE + plat_thread_background_yield (now)",
                                      "a tempo_loader thread (desc.low_priority)",
                                      "a normal thread (a game's worker)",
                                      "SCHED_IDLE, no yield between the read and the decode (before)",
                                      "SCHED_IDLE, a yield between the read and the decode (now)"};

static int wakes = 400, frames = 240;

/* What the background thread does: A and D compute until stopped, B and C
 * compute work_ns per post of `go`, E reads and decodes a file per post. */
enum bg_mode { BG_COMPUTES, BG_PER_POST, BG_READS };

typedef struct bg {
    enum bg_kind kind;
    enum bg_mode mode;
    uint64_t work_ns; /* B, C: per post */
    sem_t go;
    atomic_bool stop;
    tempo_loader *ld; /* BG_LOADER: a submit replaces the post */
    unsigned posted;  /* E: files posted or submitted (the frame thread's) */
    unsigned dropped; /* E: files dropped from the page cache (the frame thread's) */
    atomic_uint done; /* E: files read and decoded (the loader's: delivered) */
} bg;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000u), (long)(t % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* Computes for `ns` of wall time. */
static void spin_ns(uint64_t ns)
{
    uint64_t end = now_ns() + ns;
    while (now_ns() < end) {
    }
}

static bool pin_to_cpu0(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    return sched_setaffinity(0, sizeof s, &s) == 0;
}

/* E's files: PNGs written once into a temporary folder, kept out of the
 * page cache (drop_cached) so that each read waits on the disk. */
#define E_FILES 32
#define E_BACKLOG 8 /* files posted and not yet done */
static char e_dir[512];
static char e_path[E_FILES][600];
static uint64_t e_bytes; /* the files' mean size */

/* Drops `path` from the page cache: its next read waits on the disk. Its
 * pages are clean (make_files synced them), so the kernel drops them. */
static void drop_cached(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* Writes E's PNGs (256x256, gradients and noise, as bench_game's) into a
 * new folder under TMPDIR; false (and why, on stderr) where it cannot. */
static bool make_files(void)
{
    bench_default_cache(e_dir, sizeof e_dir, "tempo-bench-sched-XXXXXX");
    if (mkdtemp(e_dir) == NULL) {
        fprintf(stderr, "bench_sched: mkdtemp(%s): %s\n", e_dir, strerror(errno));
        return false;
    }
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 256, 256, 32, SDL_PIXELFORMAT_RGBA32);
    if (s == NULL) {
        fprintf(stderr, "bench_sched: %s\n", SDL_GetError());
        return false;
    }
    uint32_t seed = 0x9e3779b9u;
    bool ok = true;
    for (int i = 0; i < E_FILES && ok; i++) {
        for (int y = 0; y < s->h; y++) {
            Uint8 *row = (Uint8 *)s->pixels + y * s->pitch;
            for (int x = 0; x < s->w * 4; x++) {
                seed = seed * 1664525u + 1013904223u;
                row[x] = (Uint8)(x + y * (i + 1) + (seed >> 29));
            }
        }
        snprintf(e_path[i], sizeof e_path[i], "%s/e-%02d.png", e_dir, i);
        int fd = -1;
        if (IMG_SavePNG(s, e_path[i]) != 0) {
            fprintf(stderr, "bench_sched: cannot write %s: %s\n", e_path[i], SDL_GetError());
            ok = false;
        } else if ((fd = open(e_path[i], O_RDONLY)) < 0 || fsync(fd) != 0) {
            fprintf(stderr, "bench_sched: cannot sync %s: %s\n", e_path[i], strerror(errno));
            ok = false;
        }
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0)
            e_bytes += (uint64_t)st.st_size / E_FILES;
        if (fd >= 0)
            close(fd);
        drop_cached(e_path[i]);
    }
    SDL_FreeSurface(s);
    return ok;
}

/* The bytes this process has had read from storage (not the page cache),
 * from /proc/self/io; 0 where that cannot be read. */
static uint64_t storage_read_bytes(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    unsigned long long v = 0;
    char line[128];
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return v;
}

/* Removes what make_files wrote (the paths it did not reach are empty). */
static void remove_files(void)
{
    for (int i = 0; i < E_FILES; i++)
        if (e_path[i][0] != '\0')
            remove(e_path[i]);
    rmdir(e_dir);
}

/* E's request on a hand-written background thread, as the loader's:
 * reads `path` whole (waiting on the disk), yields if `yield`, decodes. */
static void read_and_decode(const char *path, bool yield)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size)) != NULL) {
        ssize_t k;
        while (got < (size_t)st.st_size && (k = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
            got += (size_t)k;
    }
    if (fd >= 0)
        close(fd);
    if (yield)
        plat_thread_background_yield(true); /* as tempo__loader_read_all (false before 81ac2a5) */
    SDL_Surface *img = buf != NULL ? IMG_Load_RW(SDL_RWFromConstMem(buf, (int)got), 1) : NULL;
    if (img == NULL) {
        fprintf(stderr, "bench_sched: cannot read %s: %s\n", path, buf ? SDL_GetError() : strerror(errno));
        exit(1);
    }
    SDL_FreeSurface(img);
    free(buf);
}

/* E's background thread: a file per post, as a loader's thread takes its
 * requests: it yields on waking and before each one. */
static void read_files(bg *b)
{
    for (unsigned i = 0;; i++) {
        if (sem_trywait(&b->go) != 0) {
            sem_wait(&b->go);
            if (atomic_load(&b->stop))
                break;
            plat_thread_background_yield(true);
        }
        if (atomic_load(&b->stop))
            break;
        plat_thread_background_yield(false);
        read_and_decode(e_path[i % E_FILES], b->kind == BG_READ_NOW);
        atomic_fetch_add(&b->done, 1);
    }
}

static void *background(void *p)
{
    bg *b = p;
    pin_to_cpu0();
    if (b->kind == BG_NICE19 || b->kind == BG_BATCH)
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
    if (b->kind == BG_BATCH)
        sched_setscheduler(0, SCHED_BATCH, &(struct sched_param){0});
    if (b->kind == BG_IDLE || b->kind == BG_TEMPO || b->kind == BG_READ_BEFORE || b->kind == BG_READ_NOW)
        plat_thread_set_background();
    if (b->mode == BG_READS) {
        read_files(b);
        return NULL;
    }
    while (!atomic_load(&b->stop)) {
        if (b->mode == BG_PER_POST) {
            sem_wait(&b->go);
            if (atomic_load(&b->stop))
                break;
        }
        uint64_t end = now_ns() + (b->mode == BG_COMPUTES ? 1000 * MS : b->work_ns);
        if (b->kind == BG_TEMPO)
            plat_thread_background_yield(true); /* as the loader's threads after a wake */
        while (now_ns() < end && !atomic_load(&b->stop)) {
            if (b->kind == BG_TEMPO)
                plat_thread_background_yield(false); /* and while they work */
        }
    }
    return NULL;
}

/* BG_LOADER's job: the same computation, on the loader's thread. */
static int spin_job(tempo_load_job *job, void **result)
{
    (void)result;
    spin_ns(*(const uint64_t *)job->args);
    return 0;
}

/* E's done callback on the real loader: a file read and decoded. */
static void file_done(tempo_loader *ld, const tempo_load_result *r, void *user)
{
    (void)ld;
    bg *b = user;
    if (r->error == TEMPO_ECANCELED) /* bg_stop's tempo_loader_destroy */
        return;
    if (r->error != 0) {
        fprintf(stderr, "bench_sched: the loader: %s\n", r->error_text);
        exit(1);
    }
    SDL_FreeSurface(r->surface);
    atomic_fetch_add(&b->done, 1);
}

/* E: posts (or submits) files until E_BACKLOG are not yet done. */
static void post_files(bg *b)
{
    if (b->kind == BG_LOADER && tempo_loader_process(b->ld) < 0) { /* delivers the files read */
        fprintf(stderr, "bench_sched: the loader: %s\n", tempo_get_error());
        exit(1);
    }
    for (; b->posted - atomic_load(&b->done) < E_BACKLOG; b->posted++) {
        if (b->kind != BG_LOADER) {
            sem_post(&b->go);
            continue;
        }
        tempo_load_request rq = {
            .type = TEMPO_LOAD_IMAGE, .path = e_path[b->posted % E_FILES], .done = file_done, .user = b};
        if (tempo_loader_submit(b->ld, &rq) == 0) {
            fprintf(stderr, "bench_sched: the loader: %s\n", tempo_get_error());
            exit(1);
        }
    }
}

/* E: drops the files done since the last call from the page cache. */
static void drop_done(bg *b)
{
    for (unsigned done = atomic_load(&b->done); b->dropped != done; b->dropped++)
        drop_cached(e_path[b->dropped % E_FILES]);
}

/* Wakes the background thread for work_ns (a frame's submit; E: files). */
static void bg_post(bg *b)
{
    if (b->mode == BG_READS) {
        post_files(b);
        return;
    }
    if (b->kind != BG_LOADER) {
        sem_post(&b->go);
        return;
    }
    tempo_load_request rq = {
        .type = TEMPO_LOAD_CUSTOM, .work = spin_job, .args = &b->work_ns, .args_size = sizeof b->work_ns};
    if (tempo_loader_submit(b->ld, &rq) == 0 || tempo_loader_process(b->ld) < 0) { /* delivers earlier jobs */
        fprintf(stderr, "bench_sched: the loader: %s\n", tempo_get_error());
        exit(1);
    }
}

/* Starts the background thread of `kind` (none for BG_NONE; BG_LOADER: a
 * loader of one thread, on CPU 0 as the process is) and returns room for
 * n samples; exits where either cannot be had. */
static uint64_t *bg_start(bg *b, pthread_t *t, enum bg_kind kind, enum bg_mode mode, uint64_t work_ns, int n)
{
    *b = (bg){.kind = kind, .mode = mode, .work_ns = work_ns};
    sem_init(&b->go, 0, 0);
    atomic_init(&b->stop, false);
    atomic_init(&b->done, 0);
    uint64_t *v = calloc((size_t)n, sizeof *v);
    bool ok = v != NULL;
    if (ok && kind == BG_LOADER)
        ok = (b->ld = tempo_loader_create(&(tempo_loader_desc){.threads = 1, .low_priority = true})) != NULL;
    else if (ok && kind != BG_NONE)
        ok = pthread_create(t, NULL, background, b) == 0;
    if (!ok) {
        fprintf(stderr, "bench_sched: cannot start the background thread\n");
        exit(1);
    }
    return v;
}

static void bg_stop(bg *b, pthread_t t)
{
    atomic_store(&b->stop, true);
    if (b->kind == BG_LOADER) {
        tempo_loader_destroy(b->ld); /* waits for the job it runs */
    } else if (b->kind != BG_NONE) {
        sem_post(&b->go);
        pthread_join(t, NULL);
    }
    sem_destroy(&b->go);
}

/* C's kernel worker: a normal thread on the core that runs 10 us every
 * 2.7 ms, as the kworkers the traces of bench_game showed preempting the
 * loop thread (docs/bench-game.md). */
static atomic_bool kworker_stop;

static void *kworker(void *p)
{
    (void)p;
    pin_to_cpu0();
    while (!atomic_load(&kworker_stop)) {
        sleep_until(now_ns() + 2700 * US);
        spin_ns(10 * US);
    }
    return NULL;
}

typedef struct dist {
    uint64_t p50, p99, max;
    int over_1ms;
    double total_ms;
    unsigned files; /* E: read and decoded */
} dist;

static dist summarize(uint64_t *v, int n)
{
    dist d = {0};
    for (int i = 0; i < n; i++) {
        d.over_1ms += v[i] > 1 * MS;
        d.total_ms += (double)v[i] / 1e6;
    }
    qsort(v, (size_t)n, sizeof *v, bench_cmp_u64);
    d.p50 = bench_pct_u64(v, (size_t)n, 50);
    d.p99 = bench_pct_u64(v, (size_t)n, 99);
    d.max = n > 0 ? v[n - 1] : 0;
    return d;
}

static uint64_t slice_before;

/* Sets the calling thread's slice to slice_ns and keeps the one before for
 * release_slice. False where the thread is not SCHED_OTHER (the slice is a
 * normal thread's), where there is none to set (before 6.12 the kernel
 * reports 0), or the kernel refused. */
static bool hold_slice(uint64_t slice_ns)
{
    if (sched_getscheduler(0) != SCHED_OTHER)
        return false;
    slice_before = tt_thread_slice_ns();
    return slice_before != 0 && tt_thread_set_slice_ns(slice_ns);
}

/* Puts back the slice hold_slice found. */
static void release_slice(void)
{
    (void)tt_thread_set_slice_ns(slice_before);
}

/* Ends a run: gives the slice back if `held`, stops the background
 * thread, and summarizes and frees the n samples. */
static dist bg_finish(bg *b, pthread_t t, bool held, uint64_t *v, int n)
{
    if (held)
        release_slice();
    bg_stop(b, t);
    dist d = summarize(v, n);
    free(v);
    return d;
}

/* A: the lateness of `wakes` wake-ups of this (normal) thread. */
static dist run_wakes(enum bg_kind kind)
{
    bg b;
    pthread_t t;
    uint64_t *late = bg_start(&b, &t, kind, BG_COMPUTES, 0, wakes);
    sleep_until(now_ns() + 20 * MS); /* it is computing */
    uint32_t rng = 12345;
    for (int i = 0; i < wakes; i++) {
        rng = rng * 1664525u + 1013904223u;
        uint64_t due = now_ns() + 3 * MS + (rng >> 22) * US / 4; /* 3-4 ms ahead */
        sleep_until(due);
        late[i] = now_ns() - due;
    }
    return bg_finish(&b, t, false, late, wakes);
}

/* D: the lateness of the frame thread's wake-ups, 16.7 ms apart with 5 ms
 * of work each, beside a normal thread that computes without pause. */
static dist run_frame_wakes(enum bg_kind kind, bool hold, bool *held)
{
    bg b;
    pthread_t t;
    uint64_t *late = bg_start(&b, &t, kind, BG_COMPUTES, 0, frames);
    *held = hold && hold_slice(20 * MS);
    sleep_until(now_ns() + 20 * MS); /* it is computing */
    uint64_t next = now_ns();
    for (int f = 0; f < frames; f++) {
        next += 16667 * US;
        sleep_until(next);
        late[f] = now_ns() - next;
        spin_ns(5 * MS);
    }
    return bg_finish(&b, t, *held, late, frames);
}

/* B, C and E: the wall time lost inside each frame's 11 ms of work, with
 * the background thread woken every `every`th frame for work_ns (E, mode
 * BG_READS: for files). */
static dist run_frames(enum bg_kind kind, enum bg_mode mode, int every, uint64_t work_ns, bool hold, bool *held)
{
    bg b;
    pthread_t t;
    uint64_t *lost = bg_start(&b, &t, kind, mode, work_ns, frames);
    *held = hold && hold_slice(20 * MS);
    uint64_t next = now_ns() + 5 * MS;
    for (int f = 0; f < frames; f++) {
        sleep_until(next);
        uint64_t start = now_ns(), last = start, gone = 0;
        if (f % every == 0)
            bg_post(&b); /* the frame's submit */
        while (last - start < 11 * MS) {
            uint64_t x = now_ns();
            if (x - last > 50 * US)
                gone += x - last;
            last = x;
        }
        lost[f] = gone;
        next = last + 5700 * US;
        if (mode == BG_READS)
            drop_done(&b); /* after the frame's work: a syscall a file */
    }
    unsigned files = atomic_load(&b.done);
    dist d = bg_finish(&b, t, *held, lost, frames);
    d.files = files;
    return d;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            wakes = 100;
            frames = 60;
        } else {
            fprintf(stderr, "usage: bench_sched [--quick]\n");
            return 2;
        }
    }
    if (!pin_to_cpu0()) {
        printf("bench_sched: cannot pin to CPU 0 (%s): skipped\n", strerror(errno));
        return BENCH_EXIT_SKIP;
    }
    printf("bench_sched: the loop thread and a background thread on one core (CPU 0); load average %.2f\n\n",
           bench_load_average());

    printf("A. a normal thread waking every 3-4 ms on the core a background thread computes on (%d wakes)\n\n"
           "| background thread | wake lateness p50 / p99 / max, ms | wakes over 1 ms | p99 against none |\n"
           "|---|---|---:|---:|\n",
           wakes);
    dist base = {0};
    for (int k = BG_NONE; k <= BG_TEMPO; k++) {
        dist d = run_wakes((enum bg_kind)k);
        if (k == BG_NONE)
            base = d;
        char r[32];
        bench_fmt_ratio(r, sizeof r, (double)d.p99, (double)base.p99);
        printf("| %s | %.3f / %.3f / %.3f | %d | %s |\n", bg_name[k], d.p50 / 1e6, d.p99 / 1e6, d.max / 1e6,
               d.over_1ms, r);
    }

    printf("\nB. %d frames of 11 ms of work then 5.7 ms asleep, the background thread woken every 4th frame "
           "for 30 ms of its own\n\n"
           "| background thread | the frame thread's slice | lost per frame p50 / p99 / max, ms | frames losing "
           "over 1 ms | lost in all, ms | against none |\n|---|---|---|---:|---:|---:|\n",
           frames);
    static const struct {
        enum bg_kind kind;
        bool hold;
    } rows[] = {{BG_NONE, false}, {BG_BATCH, false}, {BG_BATCH, true},   {BG_IDLE, false},
                {BG_IDLE, true},  {BG_TEMPO, false}, {BG_LOADER, false}};
    double base_lost = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bool held = false;
        dist d = run_frames(rows[i].kind, BG_PER_POST, 4, 30 * MS, rows[i].hold, &held);
        if (i == 0)
            base_lost = d.total_ms;
        char r[32];
        bench_fmt_ratio(r, sizeof r, d.total_ms, base_lost);
        const char *slice = !rows[i].hold ? "the kernel's"
                            : held        ? "20 ms held (tempo_loop_create until now)"
                                          : "not held (no such slice)";
        printf("| %s | %s | %.3f / %.3f / %.3f | %d | %.1f | %s |\n", bg_name[rows[i].kind], slice, d.p50 / 1e6,
               d.p99 / 1e6, d.max / 1e6, d.over_1ms, d.total_ms, r);
    }

    printf("\nC. as B, with a kernel worker's 10 us every 2.7 ms on the core, the background thread woken every "
           "frame for 2 ms, the frame thread at the kernel's slice\n\n"
           "| background thread | lost per frame p50 / p99 / max, ms | frames losing over 1 ms | lost in all, ms | "
           "against none |\n|---|---|---:|---:|---:|\n");
    pthread_t kw;
    atomic_init(&kworker_stop, false);
    if (pthread_create(&kw, NULL, kworker, NULL) != 0) {
        fprintf(stderr, "bench_sched: cannot start the kernel worker's stand-in\n");
        return 1;
    }
    static const enum bg_kind c_rows[] = {BG_NONE, BG_IDLE, BG_TEMPO, BG_LOADER};
    for (size_t i = 0; i < sizeof c_rows / sizeof c_rows[0]; i++) {
        bool held = false;
        dist d = run_frames(c_rows[i], BG_PER_POST, 1, 2 * MS, false, &held);
        if (i == 0)
            base_lost = d.total_ms;
        char r[32];
        bench_fmt_ratio(r, sizeof r, d.total_ms, base_lost);
        printf("| %s | %.3f / %.3f / %.3f | %d | %.1f | %s |\n", bg_name[c_rows[i]], d.p50 / 1e6, d.p99 / 1e6,
               d.max / 1e6, d.over_1ms, d.total_ms, r);
    }
    atomic_store(&kworker_stop, true);
    pthread_join(kw, NULL);

    printf("\nD. %d frames 16.7 ms apart, 5 ms of work each, beside a normal thread that computes without "
           "pause; the frame thread's wake-up lateness\n\n"
           "| background thread | the frame thread's slice | wake lateness p50 / p99 / max, ms | wakes over 1 ms | "
           "p99 against the kernel's slice |\n|---|---|---|---:|---:|\n",
           frames);
    dist kernel = {0};
    for (int hold = 0; hold <= 1; hold++) {
        bool held = false;
        dist d = run_frame_wakes(BG_NORMAL, hold, &held);
        if (!hold)
            kernel = d;
        char r[32];
        bench_fmt_ratio(r, sizeof r, (double)d.p99, (double)kernel.p99);
        printf("| %s | %s | %.3f / %.3f / %.3f | %d | %s |\n", bg_name[BG_NORMAL],
               !hold ? "the kernel's (tempo_loop_create now)" : held ? "20 ms held (before)" : "not held (no such slice)",
               d.p50 / 1e6, d.p99 / 1e6, d.max / 1e6, d.over_1ms, r);
    }

    if (!make_files()) {
        remove_files();
        printf("\nE: skipped (no files to read)\n");
        return 0;
    }
    printf("\nE. %d frames as B, the background thread kept %d PNGs of 256x256 behind, each read from the disk "
           "(dropped from the page cache) then decoded\n\n"
           "| background thread | lost per frame p50 / p99 / max, ms | frames losing over 1 ms | lost in all, ms | "
           "against none | files read and decoded | their bytes read from the disk (readahead: ~101%%) |\n"
           "|---|---|---:|---:|---:|---:|---:|\n",
           frames, E_BACKLOG);
    static const enum bg_kind e_rows[] = {BG_NONE, BG_READ_BEFORE, BG_READ_NOW, BG_LOADER};
    for (size_t i = 0; i < sizeof e_rows / sizeof e_rows[0]; i++) {
        bool held = false;
        uint64_t disk = storage_read_bytes();
        dist d = run_frames(e_rows[i], BG_READS, 1, 0, false, &held);
        disk = storage_read_bytes() - disk;
        if (i == 0)
            base_lost = d.total_ms;
        char r[32];
        bench_fmt_ratio(r, sizeof r, d.total_ms, base_lost);
        printf("| %s | %.3f / %.3f / %.3f | %d | %.1f | %s | %u | %.0f%% |\n", bg_name[e_rows[i]], d.p50 / 1e6,
               d.p99 / 1e6, d.max / 1e6, d.over_1ms, d.total_ms, r, d.files,
               d.files > 0 ? 100.0 * (double)disk / ((double)d.files * (double)e_bytes) : 0.0);
    }
    remove_files();
    return 0;
}
#else
#include <stdio.h>

#include "bench_common.h"

int main(void)
{
    printf("bench_sched: Linux's scheduler only: skipped\n");
    return BENCH_EXIT_SKIP;
}
#endif
