/* The background loader (tempo/loader.h): ordering, priority, cancel at every
 * stage, progress, bad input, shutdown in flight, the finalize budget on a
 * fake clock, and a multi-threaded run for TSan.
 *
 * Determinism: a request is held on a loader thread by a custom job that
 * blocks on a Tempo event (hold_work), so "queued", "running" and "finished
 * but not delivered" are reached on purpose, never by timing. Fixtures
 * (PNGs via IMG_SavePNG, WAVs written byte by byte, broken files) are
 * generated into the working directory at start and removed at the end.
 * Audio uses SDL's dummy driver; images use a software renderer on a
 * surface, so no window or display is needed. */
#if defined(__linux__)
#ifndef _GNU_SOURCE /* sdl2-compat's flags already define it (-D_GNU_SOURCE=1) */
#define _GNU_SOURCE /* SCHED_IDLE: desc.low_priority's case */
#endif
#endif
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>

#if defined(_WIN32)
#include <windows.h> /* GetThreadPriority: desc.low_priority's case */
#elif defined(__linux__)
#include <errno.h>
#include <sched.h>
#include <sys/resource.h> /* getpriority on a thread id: desc.low_priority's case */
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "asset_seeds.h"
#include "refusals.h"
#include "harness.h"
#include "loader_internal.h" /* the learnt upload costs, and the upload in progress */
#include "sources_internal.h"
#include "upload_split.h"
#include "tempo/loader.h"
#include "tempo/wait.h"

#define MS TEMPO_NS_PER_MS
#define US TEMPO_NS_PER_US
#define FX "tl_fx_" /* fixture file prefix */

static bool audio_ok;

/* ---- Fixtures ------------------------------------------------------------- */

static const char *const fixture_files[] = {
    FX "a.png", FX "b.png", FX "rgb.png", FX "wide.png", FX "wide.bmp", FX "wide.tga", FX "empty.png", FX "huge.png", FX "huge.gif", FX "huge.bmp", FX "huge.jpg", FX "trunc.png", FX "crc.png", FX "noise.png",
    FX "beep.wav", FX "nochan.wav", FX "norate.wav", FX "badtag.wav", FX "beep.aiff", FX "nochan.aiff", FX "framelie.aiff", FX "fmtpast.wav", FX "datalie.wav", FX "empty.wav",
    FX "big.png", FX "text.txt", FX "empty.bin", FX "k1.bin", FX "k2.bin", FX "k3.bin",
};

static void write_file(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(name, "wb");
    if (f == NULL) {
        printf("cannot write fixture %s\n", name);
        exit(2);
    }
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
}

static unsigned char *read_whole(const char *name, size_t *len)
{
    SDL_RWops *rw = SDL_RWFromFile(name, "rb");
    Sint64 n = SDL_RWsize(rw);
    unsigned char *b = malloc((size_t)n);
    SDL_RWread(rw, b, 1, (size_t)n);
    SDL_RWclose(rw);
    *len = (size_t)n;
    return b;
}

static SDL_Surface *pattern_surface(int w, int h)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
    for (int y = 0; y < h; y++) {
        Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + y * s->pitch);
        for (int x = 0; x < w; x++)
            row[x] = SDL_MapRGBA(s->format, (Uint8)(x * 4), (Uint8)(y * 4), 128, 255);
    }
    return s;
}

static void make_png(const char *name, int w, int h)
{
    SDL_Surface *s = pattern_surface(w, h);
    if (IMG_SavePNG(s, name) != 0) {
        printf("IMG_SavePNG %s: %s\n", name, SDL_GetError());
        exit(2);
    }
    SDL_FreeSurface(s);
}

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

enum wav_lie { WAV_HONEST, WAV_NO_CHANNELS, WAV_NO_RATE, WAV_BAD_TAG, WAV_FMT_PAST_EOF, WAV_DATA_LIE };

/* A 16-bit PCM RIFF/WAVE file of `frames` frames of a square wave, with
 * one chosen lie in its header. */
static void make_wav(const char *name, int channels, int rate, int frames, enum wav_lie lie)
{
    uint32_t data_len = (uint32_t)(frames * channels * 2);
    unsigned char *b = calloc(1, 44 + data_len);
    memcpy(b, "RIFF", 4);
    put32(b + 4, 36 + data_len);
    memcpy(b + 8, "WAVEfmt ", 8);
    put32(b + 16, lie == WAV_FMT_PAST_EOF ? 4000 : 16);
    put16(b + 20, lie == WAV_BAD_TAG ? 0x1234 : 1); /* 1 = PCM */
    put16(b + 22, lie == WAV_NO_CHANNELS ? 0 : (unsigned)channels);
    put32(b + 24, lie == WAV_NO_RATE ? 0 : (uint32_t)rate);
    put32(b + 28, (uint32_t)(rate * channels * 2));
    put16(b + 32, (unsigned)(channels * 2));
    put16(b + 34, 16);
    memcpy(b + 36, "data", 4);
    put32(b + 40, lie == WAV_DATA_LIE ? 0x7fffff00u : data_len);
    for (int i = 0; i < frames * channels; i++)
        put16(b + 44 + 2 * i, ((i / channels) / 50) % 2 ? 0x2000 : (unsigned)(uint16_t)-0x2000);
    write_file(name, b, 44 + data_len);
    free(b);
}

/* A 16-bit AIFF with `channels` channels at 22050 Hz (0 channels is the lie). */
static void make_aiff(const char *name, int channels, int frames, uint32_t claimed_frames)
{
    int ch = channels ? channels : 1;
    uint32_t data_len = (uint32_t)(frames * ch * 2);
    size_t total = 12 + 26 + 16 + data_len;
    unsigned char *b = calloc(1, total);
    unsigned char *p = b;
#define BE32(v) (p[0] = (unsigned char)((v) >> 24), p[1] = (unsigned char)((v) >> 16), p[2] = (unsigned char)((v) >> 8), p[3] = (unsigned char)(v), p += 4)
#define BE16(v) (p[0] = (unsigned char)((v) >> 8), p[1] = (unsigned char)(v), p += 2)
    memcpy(p, "FORM", 4), p += 4;
    BE32((uint32_t)total - 8);
    memcpy(p, "AIFFCOMM", 8), p += 8;
    BE32(18u);
    BE16((unsigned)channels);
    BE32(claimed_frames ? claimed_frames : (uint32_t)frames);
    BE16(16u);
    /* 22050 as an 80-bit extended float: exponent 16383 + 14, mantissa 22050 << 49 */
    BE16(16383u + 14u);
    BE32(22050u << 17);
    BE32(0u);
    memcpy(p, "SSND", 4), p += 4;
    BE32(8 + data_len);
    BE32(0u);
    BE32(0u);
#undef BE32
#undef BE16
    write_file(name, b, total);
    free(b);
}

static void make_fixtures(void)
{
    make_png(FX "a.png", 16, 8);
    make_png(FX "b.png", 32, 32);
    make_png(FX "wide.png", 300, 40);
    {
        /* 512x512, every pixel different in its row and column (a strip
         * uploaded at the wrong row shows). */
        SDL_Surface *big = SDL_CreateRGBSurfaceWithFormat(0, 512, 512, 32, SDL_PIXELFORMAT_RGBA32);
        for (int y = 0; y < 512; y++) {
            Uint32 *row = (Uint32 *)((Uint8 *)big->pixels + y * big->pitch);
            for (int x = 0; x < 512; x++)
                row[x] = SDL_MapRGBA(big->format, (Uint8)x, (Uint8)y, (Uint8)((x >> 8) | ((y >> 8) << 1) | ((x * 7 + y * 13) << 2)), 255);
        }
        if (IMG_SavePNG(big, FX "big.png") != 0) {
            printf("IMG_SavePNG big.png: %s\n", SDL_GetError());
            exit(2);
        }
        SDL_FreeSurface(big);
    }
    SDL_Surface *rgb = SDL_CreateRGBSurfaceWithFormat(0, 32, 32, 24, SDL_PIXELFORMAT_RGB24);
    SDL_FillRect(rgb, NULL, SDL_MapRGB(rgb->format, 10, 200, 30));
    IMG_SavePNG(rgb, FX "rgb.png");
    SDL_FreeSurface(rgb);
    SDL_Surface *s = pattern_surface(300, 40);
    SDL_SaveBMP(s, FX "wide.bmp");
    SDL_FreeSurface(s);
    /* An uncompressed 24-bit TGA: no signature, so only the decoded surface
     * tells its size. */
    static unsigned char tga[18 + 300 * 40 * 3];
    tga[2] = 2; /* true colour */
    put16(tga + 12, 300);
    put16(tga + 14, 40);
    tga[16] = 24;
    tga[17] = 0x20; /* top-down */
    write_file(FX "wide.tga", tga, sizeof tga);
    write_file(FX "empty.png", "", 0);
    /* Headers that claim 60000x60000 in files of a few hundred bytes. */
    static const unsigned char huge_png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D',
                                             'R', 0, 0, 0xea, 0x60, 0, 0, 0xea, 0x60, 8, 6, 0, 0, 0, 0x6b, 0x1b,
                                             0x2e, 0x58, 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    write_file(FX "huge.png", huge_png, sizeof huge_png);
    static const unsigned char huge_gif[] = {'G', 'I', 'F', '8', '9', 'a', 0x60, 0xea, 0x60, 0xea, 0, 0, 0, ';'};
    write_file(FX "huge.gif", huge_gif, sizeof huge_gif);
    SDL_Surface *small = pattern_surface(16, 16);
    SDL_SaveBMP(small, FX "huge.bmp");
    IMG_SaveJPG(small, FX "huge.jpg", 80);
    SDL_FreeSurface(small);
    size_t hn;
    unsigned char *hb = read_whole(FX "huge.bmp", &hn);
    put32(hb + 18, 60000);
    put32(hb + 22, 60000);
    write_file(FX "huge.bmp", hb, hn);
    free(hb);
    hb = read_whole(FX "huge.jpg", &hn);
    for (size_t i = 2; i + 9 < hn; i++)
        if (hb[i] == 0xFF && (hb[i + 1] == 0xC0 || hb[i + 1] == 0xC2)) {
            hb[i + 5] = hb[i + 7] = 0xea; /* height and width, big-endian: 60000 */
            hb[i + 6] = hb[i + 8] = 0x60;
            break;
        }
    write_file(FX "huge.jpg", hb, hn);
    free(hb);
    size_t n;
    unsigned char *png = read_whole(FX "b.png", &n);
    write_file(FX "trunc.png", png, n / 2);
    for (size_t i = 8; i + 12 <= n;) { /* one byte of the first IDAT's data flipped */
        uint32_t len = (uint32_t)png[i] << 24 | (uint32_t)png[i + 1] << 16 | (uint32_t)png[i + 2] << 8 | png[i + 3];
        if (memcmp(png + i + 4, "IDAT", 4) == 0 && len > 0) {
            png[i + 8 + len / 2] ^= 0x5a;
            break;
        }
        i += 12 + (size_t)len;
    }
    write_file(FX "crc.png", png, n);
    free(png);
    unsigned char noise[4096];
    uint32_t seed = 1;
    for (size_t i = 0; i < sizeof noise; i++) {
        seed = seed * 1664525u + 1013904223u;
        noise[i] = (unsigned char)(seed >> 24);
    }
    write_file(FX "noise.png", noise, sizeof noise);
    make_wav(FX "beep.wav", 1, 22050, 2205, WAV_HONEST);
    make_wav(FX "nochan.wav", 1, 22050, 200, WAV_NO_CHANNELS);
    make_wav(FX "norate.wav", 1, 22050, 200, WAV_NO_RATE);
    make_wav(FX "badtag.wav", 1, 22050, 200, WAV_BAD_TAG);
    make_aiff(FX "beep.aiff", 1, 2205, 0);
    make_aiff(FX "nochan.aiff", 0, 200, 0);
    make_aiff(FX "framelie.aiff", 1, 200, 0x7fffffffu);
    make_wav(FX "fmtpast.wav", 1, 22050, 200, WAV_FMT_PAST_EOF);
    make_wav(FX "datalie.wav", 1, 22050, 200, WAV_DATA_LIE);
    write_file(FX "empty.wav", "", 0);
    write_file(FX "text.txt", "hello loader", 12);
    write_file(FX "empty.bin", "", 0);
    static unsigned char k[3000];
    write_file(FX "k1.bin", k, 1000);
    write_file(FX "k2.bin", k, 2000);
    write_file(FX "k3.bin", k, 3000);
}

static void remove_fixtures(void)
{
    for (size_t i = 0; i < SDL_arraysize(fixture_files); i++)
        remove(fixture_files[i]);
}

/* ---- Recording deliveries --------------------------------------------------- */

typedef struct rec {
    uint64_t id;
    int error;
    tempo_load_type type;
    void *user;
    int w, h;           /* image */
    Uint32 format;      /* texture format */
    size_t size;        /* bytes / chunk alen */
    uint64_t bytes;
    bool had_object;
    char text[300];
    char path[64];
    char data[32];
    tempo_load_progress progress; /* the group's, as seen inside the callback */
    SDL_threadID thread;
} rec;

#define MAX_RECS 4096
static rec recs[MAX_RECS];
static int nrecs;
static int discards;

static void reset_recs(void)
{
    nrecs = 0;
    discards = 0;
}

/* Records what arrived and frees the object (the callback owns it). */
static void on_done(tempo_loader *l, const tempo_load_result *r, void *user)
{
    if (nrecs >= MAX_RECS)
        return;
    rec *e = &recs[nrecs++];
    memset(e, 0, sizeof *e);
    e->id = r->id;
    e->error = r->error;
    e->type = r->type;
    e->user = user;
    e->bytes = r->bytes;
    e->thread = SDL_ThreadID();
    snprintf(e->text, sizeof e->text, "%s", r->error_text);
    snprintf(e->path, sizeof e->path, "%s", r->path);
    tempo_loader_progress(l, r->group, &e->progress);
    e->had_object = r->texture || r->surface || r->chunk || r->music || r->data || r->custom;
    if (r->surface) {
        e->w = r->surface->w;
        e->h = r->surface->h;
        SDL_FreeSurface(r->surface);
    }
    if (r->texture) {
        SDL_QueryTexture(r->texture, &e->format, NULL, &e->w, &e->h);
        SDL_DestroyTexture(r->texture);
    }
    if (r->chunk) {
        e->size = r->chunk->alen;
        Mix_FreeChunk(r->chunk);
    }
    if (r->music)
        Mix_FreeMusic(r->music);
    if (r->data) {
        e->size = r->size;
        snprintf(e->data, sizeof e->data, "%s", (const char *)r->data);
        SDL_free(r->data);
    }
    if (r->custom)
        free(r->custom);
}

static rec *find_rec(uint64_t id)
{
    for (int i = 0; i < nrecs; i++)
        if (recs[i].id == id)
            return &recs[i];
    return NULL;
}

/* Processes until `want` deliveries have been recorded, waiting passively
 * on the loader's handle in between. */
static void drain(tempo_loader *l, int want)
{
    tempo_handle *h = tempo_loader_handle(l);
    while (nrecs < want) {
        int w = tempo_wait(&h, 1, 10 * TEMPO_NS_PER_S, 0);
        if (w != 0) {
            tt_fail(__FILE__, __LINE__, "no result within 10 s (have %d of %d)", nrecs, want);
            return;
        }
        tempo_loader_process(l);
    }
}

static uint64_t submit_file(tempo_loader *l, tempo_load_type type, const char *path, int priority, uint32_t group,
                            void *user)
{
    return tempo_loader_submit(l, &(tempo_load_request){.type = type, .path = path, .priority = priority,
                                                         .group = group, .done = on_done, .user = user});
}

/* Delivers everything finished, however many process() calls the real-time
 * budget takes (under valgrind one item can exceed it). */
static int process_all(tempo_loader *l)
{
    int total = 0, n;
    while ((n = tempo_loader_process(l)) > 0)
        total += n;
    return total;
}

/* One result of one request, synchronously: submit, drain, return the record. */
static rec *load_one(tempo_loader *l, tempo_load_type type, const char *path)
{
    reset_recs();
    uint64_t id = submit_file(l, type, path, 0, 0, NULL);
    CHECK(id != 0);
    if (id == 0)
        return &recs[0];
    drain(l, 1);
    return &recs[0];
}

/* ---- A custom job that holds a loader thread -------------------------------- */

typedef struct hold {
    tempo_handle *started; /* auto-reset: set when work begins */
    tempo_handle *release; /* manual-reset: lets work finish */
    atomic_int ran;
} hold;

static void hold_init(hold *h)
{
    h->started = tempo_event_create(false, false);
    h->release = tempo_event_create(true, false);
    atomic_init(&h->ran, 0);
}

static void hold_free(hold *h)
{
    tempo_event_destroy(h->started);
    tempo_event_destroy(h->release);
}

static int hold_work(tempo_load_job *job, void **result)
{
    hold *h = job->user;
    atomic_fetch_add(&h->ran, 1);
    tempo_event_set(h->started);
    tempo_wait(&h->release, 1, TEMPO_INFINITE, 0);
    *result = malloc(32); /* something to free: leaks show under ASan */
    job->bytes = 32;
    return 0;
}

static void free_discard(tempo_load_job *job, void *result)
{
    (void)job;
    free(result);
    discards++;
}

static uint64_t submit_hold(tempo_loader *l, hold *h, int priority)
{
    return tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = hold_work,
                                                         .discard = free_discard, .done = on_done, .user = h,
                                                         .priority = priority});
}

static void wait_started(hold *h)
{
    CHECK_EQ_INT(tempo_wait(&h->started, 1, 10 * TEMPO_NS_PER_S, 0), 0);
}

/* A trivial custom job: its user pointer is its tag. */
static int quick_work(tempo_load_job *job, void **result)
{
    (void)job;
    (void)result;
    return 0;
}

static uint64_t submit_tag(tempo_loader *l, intptr_t tag, int priority)
{
    return tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                         .done = on_done, .user = (void *)tag,
                                                         .priority = priority});
}

/* The calling thread's scheduling priority, higher for more CPU: Linux's
 * per-thread nice negated, Windows' thread priority. */
#if defined(_WIN32) || defined(__linux__)
#define HAVE_THREAD_PRIORITY 1
static int thread_priority(void)
{
#if defined(_WIN32)
    return GetThreadPriority(GetCurrentThread());
#else
    return -getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
#endif
}

/* A custom job that reports the priority of the loader thread running it. */
static int priority_work(tempo_load_job *job, void **result)
{
    (void)result;
    *(int *)job->user = thread_priority();
    return 0;
}
#endif

#if defined(__linux__)
/* A custom job that reports the scheduling policy of the loader thread
 * running it. */
static int policy_work(tempo_load_job *job, void **result)
{
    (void)result;
    *(int *)job->user = sched_getscheduler(0);
    return 0;
}
#endif

#ifdef HAVE_THREAD_PRIORITY
/* Runs one custom job on a new loader's thread (desc.low_priority as
 * given) and returns what `work` wrote to its int (`unset` if it did not
 * run). */
static int loader_thread_reports(bool low_priority, int (*work)(tempo_load_job *job, void **result), int unset)
{
    int got = unset;
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.low_priority = low_priority});
    reset_recs();
    CHECK(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = work, .done = on_done,
                                                        .user = &got}) != 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    CHECK_EQ_INT(tempo_loader_process(l), 1);
    CHECK_EQ_INT(recs[0].error, 0);
    tempo_loader_destroy(l);
    return got;
}
#endif

/* ---- Cases: basics ------------------------------------------------------------ */

static void create_and_destroy(void)
{
    tempo_loader_destroy(NULL);
    tempo_loader *l = tempo_loader_create(NULL);
    CHECK(l != NULL);
    CHECK(tempo_loader_handle(l) != NULL);
    CHECK_EQ_INT(tempo_loader_pending(l), 0);
    CHECK_EQ_INT(tempo_loader_process(l), 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 0), 0);
    tempo_loader_destroy(l);
    l = tempo_loader_create(&(tempo_loader_desc){.threads = 4, .low_priority = true});
    CHECK(l != NULL);
    reset_recs();
    submit_file(l, TEMPO_LOAD_BYTES, FX "text.txt", 0, 0, NULL);
    drain(l, 1);
    CHECK_EQ_INT(recs[0].error, 0);
    tempo_loader_destroy(l);
    CHECK(tempo_loader_create(&(tempo_loader_desc){.threads = -1}) == NULL);
    CHECK(tempo_loader_create(&(tempo_loader_desc){.threads = 17}) == NULL);
    CHECK(strstr(tempo_get_error(), "threads") != NULL);
}

static void submit_rejects_bad_requests(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    reset_recs();
    CHECK_EQ_U64(tempo_loader_submit(NULL, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = "x"}), 0);
    CHECK_EQ_U64(tempo_loader_submit(l, NULL), 0);
    CHECK_EQ_U64(tempo_loader_submit(l, &(tempo_load_request){.type = 0, .path = "x", .done = on_done}), 0);
    CHECK_EQ_U64(tempo_loader_submit(l, &(tempo_load_request){.type = 99, .path = "x", .done = on_done}), 0);
    CHECK_EQ_U64(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .done = on_done}), 0);
    CHECK(strstr(tempo_get_error(), "path") != NULL);
    CHECK_EQ_U64(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .done = on_done}), 0);
    CHECK_EQ_U64(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                               .args_size = 4, .done = on_done}),
                 0);
    CHECK_EQ_INT(tempo_loader_pending(l), 0);
    CHECK_EQ_INT(tempo_loader_process(l), 0);
    CHECK_EQ_INT(nrecs, 0); /* a failed submit never calls back */
    CHECK_EQ_INT(tempo_loader_cancel(NULL, 1), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loader_process(NULL), TEMPO_EINVAL);
    tempo_loader_destroy(l);
}

static void bytes_request_reads_the_whole_file(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    rec *e = load_one(l, TEMPO_LOAD_BYTES, FX "text.txt");
    CHECK_EQ_INT(e->error, 0);
    CHECK_STR_EQ(e->text, "");
    CHECK_STR_EQ(e->path, FX "text.txt");
    CHECK_EQ_U64(e->size, 12);
    CHECK_EQ_U64(e->bytes, 12);
    CHECK_STR_EQ(e->data, "hello loader"); /* NUL-terminated by the loader */
    /* An empty file is a valid (empty) byte load. */
    e = load_one(l, TEMPO_LOAD_BYTES, FX "empty.bin");
    CHECK_EQ_INT(e->error, 0);
    CHECK(e->had_object);
    CHECK_EQ_U64(e->size, 0);
    tempo_loader_destroy(l);
}

static void path_is_copied_at_submit(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    char path[64];
    snprintf(path, sizeof path, "%s", FX "text.txt");
    uint64_t id = submit_file(l, TEMPO_LOAD_BYTES, path, 0, 0, NULL);
    memset(path, 'z', sizeof path - 1); /* the caller's memory changes; the request does not */
    tempo_event_set(h.release);
    drain(l, 2);
    rec *e = find_rec(id);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_INT(e->error, 0);
        CHECK_STR_EQ(e->data, "hello loader");
    }
    tempo_loader_destroy(l);
    hold_free(&h);
}

/* ---- Cases: ordering -------------------------------------------------------------- */

static void fifo_within_one_priority(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    for (intptr_t i = 1; i <= 20; i++)
        CHECK(submit_tag(l, i, 0) != 0);
    tempo_event_set(h.release);
    drain(l, 21);
    CHECK(recs[0].user == &h);
    for (int i = 1; i <= 20; i++)
        CHECK_EQ_INT((intptr_t)recs[i].user, i);
    tempo_loader_destroy(l);
    hold_free(&h);
}

static void higher_priority_first(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    /* tag = priority * 10 + arrival within that priority */
    static const int prios[] = {0, 5, -3, 5, 0, 9, -3, 5, 0, 9};
    int seen[20] = {0};
    for (size_t i = 0; i < SDL_arraysize(prios); i++) {
        int p = prios[i];
        intptr_t tag = (p + 10) * 10 + seen[p + 10]++;
        submit_tag(l, tag, p);
    }
    tempo_event_set(h.release);
    drain(l, 11);
    static const intptr_t want[] = {190, 191, 150, 151, 152, 100, 101, 102, 70, 71};
    for (size_t i = 0; i < SDL_arraysize(want); i++)
        CHECK_EQ_INT((intptr_t)recs[i + 1].user, want[i]);
    tempo_loader_destroy(l);
    hold_free(&h);
}

/* ---- Cases: cancel at every stage ------------------------------------------------- */

static void cancel_queued_never_runs(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h, q;
    hold_init(&h);
    hold_init(&q);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    uint64_t id = submit_hold(l, &q, 0);
    uint64_t img = submit_file(l, TEMPO_LOAD_IMAGE, FX "a.png", 0, 0, NULL);
    CHECK_EQ_INT(tempo_loader_cancel(l, id), 0);
    CHECK_EQ_INT(tempo_loader_cancel(l, id), 0); /* twice is harmless */
    CHECK_EQ_INT(tempo_loader_cancel(l, img), 0);
    /* Reported from process(), not from cancel(). */
    CHECK_EQ_INT(nrecs, 0);
    CHECK_EQ_INT(tempo_wait((tempo_handle *[]){tempo_loader_handle(l)}, 1, 0, 0), 0);
    CHECK_EQ_INT(process_all(l), 2);
    CHECK_EQ_INT(nrecs, 2);
    CHECK_EQ_U64(recs[0].id, id);
    CHECK_EQ_INT(recs[0].error, TEMPO_ECANCELED);
    CHECK(!recs[0].had_object);
    CHECK(strstr(recs[0].text, "cancel") != NULL);
    CHECK_EQ_INT(recs[1].error, TEMPO_ECANCELED);
    tempo_event_set(h.release);
    drain(l, 3);
    CHECK_EQ_INT(atomic_load(&q.ran), 0);
    CHECK_EQ_INT(recs[2].error, 0);
    CHECK_EQ_INT(tempo_loader_cancel(l, id), TEMPO_ENOENT); /* already delivered */
    CHECK_EQ_INT(tempo_loader_cancel(l, 12345), TEMPO_ENOENT);
    tempo_loader_destroy(l);
    hold_free(&h);
    hold_free(&q);
}

static void cancel_in_flight_discards_the_result(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    uint64_t id = submit_hold(l, &h, 0);
    wait_started(&h);
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_INT(st.running, 1);
    CHECK_EQ_INT(tempo_loader_cancel(l, id), 0);
    tempo_event_set(h.release);
    drain(l, 1);
    CHECK_EQ_INT(recs[0].error, TEMPO_ECANCELED);
    CHECK(!recs[0].had_object);
    CHECK_EQ_INT(discards, 1); /* the work's result was freed through discard */
    CHECK_EQ_INT(atomic_load(&h.ran), 1);
    tempo_loader_destroy(l);
    hold_free(&h);
}

static void cancel_finished_before_delivery(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    reset_recs();
    uint64_t img = submit_file(l, TEMPO_LOAD_IMAGE, FX "b.png", 0, 0, NULL);
    uint64_t raw = submit_file(l, TEMPO_LOAD_BYTES, FX "text.txt", 0, 0, NULL);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_INT(st.finished, 2);
    CHECK_EQ_INT(tempo_loader_cancel(l, img), 0);
    CHECK_EQ_INT(process_all(l), 2);
    rec *a = find_rec(img), *b = find_rec(raw);
    CHECK(a && b);
    if (a && b) {
        CHECK_EQ_INT(a->error, TEMPO_ECANCELED); /* its decoded surface was freed (ASan checks) */
        CHECK(!a->had_object);
        CHECK_EQ_INT(b->error, 0);
    }
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.cancelled, 1);
    CHECK_EQ_U64(st.delivered, 2);
    tempo_loader_destroy(l);
}

static void cancel_group_reaches_every_stage(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    /* finished: one bytes load of group 7, done before the hold starts */
    submit_file(l, TEMPO_LOAD_BYTES, FX "k1.bin", 0, 7, NULL);
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    /* running: the hold, group 7 */
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = hold_work,
                                                 .discard = free_discard, .done = on_done, .user = &h,
                                                 .group = 7});
    wait_started(&h);
    /* queued: two of group 7, one of group 8 */
    submit_file(l, TEMPO_LOAD_BYTES, FX "k2.bin", 0, 7, NULL);
    submit_file(l, TEMPO_LOAD_BYTES, FX "k3.bin", 0, 7, NULL);
    uint64_t other = submit_file(l, TEMPO_LOAD_BYTES, FX "k3.bin", 0, 8, NULL);
    CHECK_EQ_INT(tempo_loader_cancel_group(l, 7), 4);
    CHECK_EQ_INT(tempo_loader_cancel_group(l, 7), 0);
    tempo_event_set(h.release);
    drain(l, 5);
    int cancelled = 0;
    for (int i = 0; i < nrecs; i++)
        cancelled += recs[i].error == TEMPO_ECANCELED;
    CHECK_EQ_INT(cancelled, 4);
    rec *o = find_rec(other);
    CHECK(o && o->error == 0);
    tempo_load_progress p;
    tempo_loader_progress(l, 7, &p);
    CHECK_EQ_INT(p.items_total, 4);
    CHECK_EQ_INT(p.items_done, 4);
    CHECK_EQ_INT(p.items_cancelled, 4);
    tempo_loader_destroy(l);
    hold_free(&h);
}

/* ---- Cases: progress -------------------------------------------------------------- */

static void progress_counts_items_and_bytes(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    tempo_load_progress p;
    CHECK_EQ_INT(tempo_loader_progress(l, 3, &p), 0);
    CHECK_EQ_INT(p.items_total, 0);
    submit_hold(l, &h, 100); /* group 0: keeps the thread busy */
    wait_started(&h);
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = FX "k1.bin", .group = 3,
                                                 .size_hint_bytes = 900, .done = on_done});
    submit_file(l, TEMPO_LOAD_BYTES, FX "k2.bin", 0, 3, NULL);
    submit_file(l, TEMPO_LOAD_BYTES, FX "k3.bin", 0, 3, NULL);
    submit_file(l, TEMPO_LOAD_BYTES, FX "missing.bin", 0, 3, NULL);
    uint64_t c = submit_file(l, TEMPO_LOAD_BYTES, FX "k1.bin", 0, 3, NULL);
    tempo_loader_cancel(l, c);
    tempo_loader_progress(l, 3, &p);
    CHECK_EQ_INT(p.items_total, 5);
    CHECK_EQ_INT(p.items_done, 0);
    CHECK_EQ_U64(p.bytes_total, 900); /* only the hint is known before a thread opens the files */
    tempo_event_set(h.release);
    drain(l, 6);
    tempo_loader_progress(l, 3, &p);
    CHECK_EQ_INT(p.items_total, 5);
    CHECK_EQ_INT(p.items_done, 5);
    CHECK_EQ_INT(p.items_failed, 1);
    CHECK_EQ_INT(p.items_cancelled, 1);
    CHECK_EQ_U64(p.bytes_total, 6000); /* the hint was replaced by the measured 1000 */
    CHECK_EQ_U64(p.bytes_done, 6000);
    /* Inside each callback the item already counts as done. */
    int last_done = 0;
    for (int i = 0; i < nrecs; i++) {
        if (recs[i].user == &h)
            continue;
        CHECK_EQ_INT(recs[i].progress.items_done, last_done + 1);
        last_done = recs[i].progress.items_done;
    }
    /* Everything delivered: the next submit starts a new batch. */
    submit_file(l, TEMPO_LOAD_BYTES, FX "k2.bin", 0, 3, NULL);
    tempo_loader_progress(l, 3, &p);
    CHECK_EQ_INT(p.items_total, 1);
    CHECK_EQ_INT(p.items_done, 0);
    drain(l, 7);
    tempo_loader_progress(l, 3, &p);
    CHECK_EQ_INT(p.items_done, 1);
    CHECK_EQ_U64(p.bytes_done, 2000);
    tempo_loader_destroy(l);
    hold_free(&h);
}

/* ---- Cases: the finalize budget on a fake clock ------------------------------------- */

static uint64_t fake_now;
static uint64_t fake_step;

static uint64_t fake_clock(void *user)
{
    (void)user;
    return fake_now;
}

static int advance_finalize(tempo_load_job *job, void **result)
{
    (void)job;
    (void)result;
    fake_now += fake_step;
    return 0;
}

static void budget_limits_each_process_call(void)
{
    fake_now = 1000 * MS;
    fake_step = MS / 2;
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_clock}});
    reset_recs();
    for (int i = 0; i < 10; i++)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                     .finalize = advance_finalize, .done = on_done});
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    tempo_handle *h = tempo_loader_handle(l);
    /* 2 ms default budget, 0.5 ms per item, clock checked after each item. */
    CHECK_EQ_INT(tempo_loader_process(l), 4);
    CHECK_EQ_INT(tempo_wait(&h, 1, 0, 0), 0); /* still signalled: more waits */
    CHECK_EQ_INT(tempo_loader_process(l), 4);
    CHECK_EQ_INT(tempo_loader_process(l), 2);
    CHECK_EQ_INT(tempo_wait(&h, 1, 0, 0), TEMPO_ETIMEDOUT); /* reset once empty */
    CHECK_EQ_INT(tempo_loader_process(l), 0);
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.process_calls, 3);
    CHECK_EQ_U64(st.items_over_budget, 0);
    CHECK_EQ_U64(st.process_max_ns, 2 * MS);
    CHECK_EQ_U64(st.item_max_ns, MS / 2);
    /* 0.7 ms items: the third crosses the budget (2.1 ms), then the call stops. */
    fake_step = 7 * MS / 10;
    for (int i = 0; i < 4; i++)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                     .finalize = advance_finalize, .done = on_done});
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    CHECK_EQ_INT(tempo_loader_process(l), 3);
    CHECK_EQ_INT(tempo_loader_process(l), 1);
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.items_over_budget, 0);
    CHECK_EQ_U64(st.process_max_ns, 21 * MS / 10);
    /* An item longer than the whole budget still goes alone, one per call. */
    fake_step = 5 * MS;
    for (int i = 0; i < 2; i++)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                     .finalize = advance_finalize, .done = on_done});
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    CHECK_EQ_INT(tempo_loader_process(l), 1);
    CHECK_EQ_INT(tempo_loader_process(l), 1);
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.items_over_budget, 2);
    CHECK_EQ_U64(st.item_max_ns, 5 * MS);
    tempo_loader_destroy(l);
}

static void process_until_stops_before_the_deadline(void)
{
    fake_now = 0;
    fake_step = MS / 2;
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.clock = {.now = fake_clock}});
    reset_recs();
    for (int i = 0; i < 10; i++)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                     .finalize = advance_finalize, .done = on_done});
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    /* No history yet: the first item always starts. 0.5 ms items, deadline
     * 1.2 ms away: after two items (t = 1.0) the third would end at 1.5. */
    CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 12 * MS / 10), 2);
    /* Less than one average item before the deadline: nothing starts. */
    CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 4 * MS / 10), 0);
    CHECK_EQ_INT(tempo_loader_process_until(l, fake_now), 0);
    CHECK_EQ_INT(tempo_wait((tempo_handle *[]){tempo_loader_handle(l)}, 1, 0, 0), 0); /* still waiting */
    /* A far deadline: the budget (2 ms) is the limit again. */
    CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 100 * MS), 4);
    CHECK_EQ_INT(tempo_loader_process_until(l, UINT64_MAX), 4);
    CHECK_EQ_INT(nrecs, 10);
    tempo_loader_destroy(l);
}

static void custom_budget_from_desc(void)
{
    fake_now = 0;
    fake_step = MS;
    tempo_loader *l = tempo_loader_create(
        &(tempo_loader_desc){.clock = {.now = fake_clock}, .finalize_budget_ns = 5 * MS});
    reset_recs();
    for (int i = 0; i < 12; i++)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                     .finalize = advance_finalize, .done = on_done});
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    CHECK_EQ_INT(tempo_loader_process(l), 5);
    CHECK_EQ_INT(tempo_loader_process(l), 5);
    CHECK_EQ_INT(tempo_loader_process(l), 2);
    tempo_loader_destroy(l);
}

/* ---- Cases: images, sounds, music ---------------------------------------------------- */

static void images_without_a_renderer_are_surfaces(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    rec *e = load_one(l, TEMPO_LOAD_IMAGE, FX "a.png");
    CHECK_EQ_INT(e->error, 0);
    CHECK_EQ_INT(e->w, 16);
    CHECK_EQ_INT(e->h, 8);
    CHECK(e->bytes > 0);
    e = load_one(l, TEMPO_LOAD_IMAGE, FX "wide.bmp"); /* no limit without a renderer */
    CHECK_EQ_INT(e->error, 0);
    CHECK_EQ_INT(e->w, 300);
    tempo_loader_destroy(l);
}

static void images_with_a_renderer_are_textures(void)
{
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    CHECK(ren != NULL);
    SDL_RendererInfo info;
    SDL_GetRendererInfo(ren, &info);
    tt_note("renderer %s: %u texture formats, first %s, max texture %dx%d", info.name, info.num_texture_formats,
            SDL_GetPixelFormatName(info.texture_formats[0]), info.max_texture_width, info.max_texture_height);
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren});
    /* b.png decodes to a format the renderer takes as is; rgb.png to RGB24,
     * which the loader thread converts. Either way the texture must have the
     * format SDL_CreateTextureFromSurface picks for the decoded surface. */
    static const char *const files[] = {FX "b.png", FX "rgb.png"};
    for (int i = 0; i < 2; i++) {
        SDL_Surface *s = IMG_Load(files[i]);
        SDL_Texture *t = SDL_CreateTextureFromSurface(ren, s);
        Uint32 sdl_pick = 0;
        SDL_QueryTexture(t, &sdl_pick, NULL, NULL, NULL);
        tt_note("%s decodes to %s; SDL picks %s", files[i], SDL_GetPixelFormatName(s->format->format),
                SDL_GetPixelFormatName(sdl_pick));
        SDL_DestroyTexture(t);
        SDL_FreeSurface(s);
        rec *e = load_one(l, TEMPO_LOAD_IMAGE, files[i]);
        CHECK_EQ_INT(e->error, 0);
        CHECK_EQ_INT(e->w, 32);
        CHECK_EQ_INT(e->h, 32);
        CHECK_EQ_INT(e->format, sdl_pick);
    }
    tempo_loader_destroy(l);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

/* ---- Cases: texture uploads in strips (issue 21) -------------------------------------- */

static void upload_rows_all_when_they_fit(void)
{
    /* 256x256 RGBA at 1 ns/byte: 262 144 ns for the whole image. */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 262144, 1024, 256, false), 256);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 10 * MS, 1024, 256, true), 256);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 262144, 1024, 10, false), 10); /* fewer left than fit */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 0, 1024, 0, true), 0);          /* nothing left */
}

static void upload_rows_a_strip_of_what_fits(void)
{
    /* 100 us at 1 ns/byte and 1 KiB rows: 97 rows (97.6 fit). */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 100 * US, 1024, 256, false), 97);
    /* Twice the cost per byte: half the rows. */
    CHECK_EQ_INT(tempo__upload_rows(2.0, 100 * US, 1024, 256, false), 48);
    /* No measurement yet: the prior (1 ns/byte). */
    CHECK_EQ_INT(tempo__upload_rows(0.0, 100 * US, 1024, 256, false), 97);
}

static void upload_rows_waits_below_one_minimum_strip(void)
{
    /* 1 KiB rows: a minimum strip is 16 rows. 10 rows fit: wait... */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 10 * 1024, 1024, 256, false), 0);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 0, 1024, 256, false), 0);
    /* ...unless the caller must progress: one minimum strip. */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 10 * 1024, 1024, 256, true), 16);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 0, 1024, 256, true), 16);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 0, 1024, 5, true), 5); /* the last rows */
    /* Rows wider than a minimum strip: one row is the minimum. */
    CHECK_EQ_INT(tempo__upload_rows(1.0, 0, 65536, 100, true), 1);
    CHECK_EQ_INT(tempo__upload_rows(1.0, 70000, 65536, 100, false), 1);
}

static void upload_learns_the_cost_per_byte(void)
{
    double c = tempo__upload_learn(0.0, 1000, 2000); /* first sample: 2 ns/byte */
    CHECK(c > 1.999 && c < 2.001);
    c = tempo__upload_learn(c, 1000, 6000); /* 6 ns/byte: a quarter of the way */
    CHECK(c > 2.999 && c < 3.001);
    c = tempo__upload_learn(c, 0, 6000); /* no bytes: nothing learnt */
    CHECK(c > 2.999 && c < 3.001);
    tt_note("learnt %.3f ns/byte", c);
}

static SDL_Texture *split_texture;

static void keep_texture(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    (void)user;
    CHECK_EQ_INT(r->error, 0);
    split_texture = r->texture;
    nrecs++;
}

/* A 512x512 image (1 MiB) with 200 us per call at the prior 1 ns/byte goes
 * up in strips over several calls, is delivered once, whole, and its pixels
 * are the decoded file's. The fake clock stands still, so the learnt cost
 * stays at "none" and every strip is sized by the prior. */
static void large_image_arrives_whole_after_a_split_upload(void)
{
    fake_now = 1000 * MS;
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 512, 512, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    CHECK(ren != NULL);
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .clock = {.now = fake_clock}});
    reset_recs();
    split_texture = NULL;
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = FX "big.png", .done = keep_texture});
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    /* The deadline already passed: nothing, not even a strip. */
    CHECK_EQ_INT(tempo_loader_process_until(l, fake_now), 0);
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.upload_strips, 0);
    /* The guaranteed unit past the deadline: one minimum strip (8 rows of 2 KiB). */
    uint32_t strips = 0;
    CHECK_EQ_INT(tempo__loader_process_step(l, fake_now, true, &strips), 0);
    CHECK_EQ_INT(strips, 1);
    int calls = 0;
    while (nrecs == 0 && calls < 100) {
        int n = tempo_loader_process_until(l, fake_now + 200 * US);
        CHECK(n == 0 || n == 1);
        calls++;
        tempo_loader_get_stats(l, &st);
        CHECK_EQ_U64(st.finished, (uint64_t)(nrecs == 0)); /* held until its last rows are up */
        if (tt_failed())
            break;
    }
    tempo_loader_get_stats(l, &st);
    /* 504 rows left, 97 per call: 5 strips, then the last 19 rows fit whole. */
    tt_note("delivered after %d calls, %llu strips", calls, (unsigned long long)st.upload_strips);
    CHECK_EQ_INT(nrecs, 1);
    CHECK_EQ_INT(calls, 6);
    CHECK_EQ_U64(st.upload_strips, 1 + 5);
    CHECK_EQ_U64(st.delivered, 1);
    CHECK(split_texture != NULL);
    if (split_texture != NULL) {
        int w = 0, h = 0;
        SDL_QueryTexture(split_texture, NULL, NULL, &w, &h);
        CHECK_EQ_INT(w, 512);
        CHECK_EQ_INT(h, 512);
        SDL_SetTextureBlendMode(split_texture, SDL_BLENDMODE_NONE);
        SDL_RenderCopy(ren, split_texture, NULL, NULL);
        SDL_RenderPresent(ren);
        SDL_Surface *want = IMG_Load(FX "big.png");
        SDL_Surface *wc = SDL_ConvertSurfaceFormat(want, SDL_PIXELFORMAT_ARGB8888, 0);
        int bad = 0, first_x = -1, first_y = -1;
        Uint32 got_px = 0, want_px = 0;
        for (int y = 0; y < 512; y++) {
            const Uint32 *g = (const Uint32 *)((const Uint8 *)target->pixels + y * target->pitch);
            const Uint32 *e = (const Uint32 *)((const Uint8 *)wc->pixels + y * wc->pitch);
            for (int x = 0; x < 512; x++)
                if (g[x] != e[x] && bad++ == 0) {
                    first_x = x;
                    first_y = y;
                    got_px = g[x];
                    want_px = e[x];
                }
        }
        if (bad)
            tt_note("first difference at (%d, %d): got %08x, want %08x", first_x, first_y, (unsigned)got_px,
                    (unsigned)want_px);
        CHECK_EQ_INT(bad, 0);
        SDL_FreeSurface(wc);
        SDL_FreeSurface(want);
        SDL_DestroyTexture(split_texture);
    }
    tempo_loader_destroy(l);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

static void upload_creation_is_set_aside_per_byte(void)
{
    CHECK_EQ_U64(tempo__upload_create_ns(0.0, 1u << 20), 0); /* nothing measured yet: nothing */
    CHECK_EQ_U64(tempo__upload_create_ns(-1.0, 1u << 20), 0);
    CHECK_EQ_U64(tempo__upload_create_ns(0.05, 1u << 20), 52429); /* 1 MiB at 0.05 ns/byte */
}

/* The loader's upload of a 512x512 image (1 MiB, rows of 2 KiB) on a still
 * fake clock: with 200 us before the deadline at the prior 1 ns/byte, 97
 * rows fit. Creating the texture takes time too (about 1 ms for 2048x2048
 * on opengl, bench_upload), which the cost per byte, learnt from copies
 * alone, does not hold: the first strip used to be as large as the next
 * ones and the creating call overran its deadline by the creation. With a
 * creation cost learnt (0.05 ns per byte of the texture: 52 us), the first
 * strip leaves room for it (72 rows); the next strips have the whole time. */
static void first_strip_leaves_room_for_the_texture_creation(void)
{
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    CHECK(ren != NULL);
    const double learnt[2] = {0.0, 0.05};
    const int first[2] = {97, 72};
    for (int i = 0; i < 2; i++) {
        fake_now = 1000 * MS;
        tempo_loader *l =
            tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .clock = {.now = fake_clock}});
        reset_recs();
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = FX "big.png", .done = on_done});
        CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
        l->create_ns_per_byte = learnt[i];
        CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 200 * US), 0);
        int rows = l->finished.head != NULL ? l->finished.head->rows_done : -1;
        CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 200 * US), 0);
        int second = l->finished.head != NULL ? l->finished.head->rows_done - rows : -1;
        tt_note("creation %.2f ns/byte: first strip %d rows, second %d", learnt[i], rows, second);
        CHECK_EQ_INT(rows, first[i]);
        CHECK_EQ_INT(second, 97);
        tempo_loader_destroy(l); /* the half-made texture: cancelled and freed */
        CHECK_EQ_INT(nrecs, 1);
        CHECK_EQ_INT(recs[0].error, TEMPO_ECANCELED);
    }
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

/* The creation is learnt from what it takes: a clock that moves 100 us at
 * each reading puts one step between the readings around SDL_CreateTexture,
 * so after one 512x512 image the loader holds 100 us per MiB of texture. */
static uint64_t fake_tick;

static uint64_t ticking_clock(void *user)
{
    (void)user;
    uint64_t t = fake_now;
    fake_now += fake_tick;
    return t;
}

static void texture_creation_cost_is_learnt(void)
{
    fake_now = 1000 * MS;
    fake_tick = 100 * US;
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    CHECK(ren != NULL);
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .clock = {.now = ticking_clock}});
    reset_recs();
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = FX "big.png", .done = on_done});
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    CHECK(l->create_ns_per_byte == 0.0);
    CHECK_EQ_INT(tempo_loader_process(l), 1); /* whole: creation, then one copy */
    CHECK_EQ_INT(nrecs, 1);
    CHECK_EQ_INT(recs[0].error, 0);
    double want = 100e3 / (double)(1u << 20);
    tt_note("learnt creation %.4f ns/byte (want %.4f), copy %.4f ns/byte", l->create_ns_per_byte, want,
            l->upload_ns_per_byte);
    CHECK(l->create_ns_per_byte > want * 0.999 && l->create_ns_per_byte < want * 1.001);
    tempo_loader_destroy(l);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

/* desc.low_priority, which docs/loading.md advises while the game plays:
 * the loader threads run below the thread that created the loader; by
 * default they keep its priority. */
static void low_priority_lowers_the_loader_threads(void)
{
#ifdef HAVE_THREAD_PRIORITY
    int mine = thread_priority(), seen[2];
    for (int low = 0; low < 2; low++)
        seen[low] = loader_thread_reports(low != 0, priority_work, mine + 100);
    tt_note("this thread %d; the loader's %d by default, %d with low_priority", mine, seen[0], seen[1]);
    CHECK_EQ_INT(seen[0], mine);
    CHECK_LT_INT(seen[1], mine);
#else
    TT_SKIP("no per-thread priority to read on this platform");
#endif
}

/* desc.low_priority on Linux: SCHED_IDLE as well as nice 19. On EEVDF
 * kernels (6.6 on) a nice-19 loader thread, woken by the loop thread's
 * first submit, preempted it on its own core and decoded a PNG there for
 * 1.85 ms while the other core idled (bench_game's capped submit frame,
 * `perf sched timehist`); SCHED_BATCH stopped that. SCHED_IDLE, with the
 * loop thread's slice (test_loop_realtime), also took bench_game's burst
 * drains from 1.0-1.3 ms off the core to 0.2-0.5 ms (docs/pacing.md). By
 * default the loader threads keep the creating thread's policy. */
static void low_priority_loader_threads_are_sched_idle(void)
{
#if defined(__linux__)
    int mine = sched_getscheduler(0), seen[2];
    for (int low = 0; low < 2; low++)
        seen[low] = loader_thread_reports(low != 0, policy_work, -1);
    tt_note("policy: this thread %d; the loader's %d by default, %d with low_priority (SCHED_IDLE %d)", mine,
            seen[0], seen[1], SCHED_IDLE);
    CHECK_EQ_INT(seen[0], mine);
    CHECK_EQ_INT(seen[1], SCHED_IDLE);
#else
    TT_SKIP("SCHED_IDLE is Linux's");
#endif
}

/* A split upload still pending when the loader is destroyed, or cancelled,
 * is delivered as cancelled and its half-made texture freed (LSan/ASan). */
static void split_upload_cancelled_or_destroyed_midway(void)
{
    fake_now = 1000 * MS;
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    for (int destroy = 0; destroy < 2; destroy++) {
        tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .clock = {.now = fake_clock}});
        reset_recs();
        uint64_t id = tempo_loader_submit(
            l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = FX "big.png", .done = on_done});
        CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
        CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 200 * US), 0);
        tempo_loader_stats st;
        tempo_loader_get_stats(l, &st);
        CHECK_EQ_U64(st.upload_strips, 1);
        if (!destroy) {
            CHECK_EQ_INT(tempo_loader_cancel(l, id), 0);
            CHECK_EQ_INT(tempo_loader_process_until(l, fake_now + 200 * US), 1);
            CHECK_EQ_INT(nrecs, 1);
        }
        tempo_loader_destroy(l);
        CHECK_EQ_INT(nrecs, 1);
        CHECK_EQ_INT(recs[0].error, TEMPO_ECANCELED);
        CHECK(!recs[0].had_object);
    }
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

static void sounds_and_music(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device (SDL dummy driver unavailable)");
    tempo_loader *l = tempo_loader_create(NULL);
    rec *e = load_one(l, TEMPO_LOAD_SOUND, FX "beep.wav");
    CHECK_EQ_INT(e->error, 0);
    CHECK(e->size > 0); /* converted to the device format: 2205 mono frames at 22050 Hz -> 0.1 s */
    int freq = 0, ch = 0;
    Uint16 fmt = 0;
    Mix_QuerySpec(&freq, &fmt, &ch);
    size_t want = (size_t)(freq / 10) * (size_t)ch * (SDL_AUDIO_BITSIZE(fmt) / 8);
    CHECK_LE_U64(e->size, want + 64 * ch * 4);
    CHECK_GE_U64(e->size + 64 * ch * 4, want);
    e = load_one(l, TEMPO_LOAD_MUSIC, FX "beep.wav");
    CHECK_EQ_INT(e->error, 0);
    CHECK(e->had_object);
    CHECK_EQ_U64(e->bytes, 44 + 2205 * 2);
    /* The AIFF writer is right (so the broken one below is broken only in its lie). */
    e = load_one(l, TEMPO_LOAD_SOUND, FX "beep.aiff");
    CHECK_EQ_INT(e->error, 0);
    e = load_one(l, TEMPO_LOAD_MUSIC, FX "beep.aiff");
    CHECK_EQ_INT(e->error, 0);
    tempo_loader_destroy(l);
}

static void sounds_need_open_audio(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device");
    Mix_CloseAudio();
    tempo_loader *l = tempo_loader_create(NULL);
    rec *e = load_one(l, TEMPO_LOAD_SOUND, FX "beep.wav");
    CHECK_EQ_INT(e->error, TEMPO_EINVAL);
    CHECK(strstr(e->text, "Mix_OpenAudio") != NULL);
    e = load_one(l, TEMPO_LOAD_MUSIC, FX "beep.wav");
    CHECK_EQ_INT(e->error, TEMPO_EINVAL);
    tempo_loader_destroy(l);
    audio_ok = Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) == 0;
    CHECK(audio_ok);
}

/* ---- Cases: bad input ------------------------------------------------------------------ */

static void expect_error(tempo_loader *l, tempo_load_type type, const char *path, int code, const char *needle)
{
    rec *e = load_one(l, type, path);
    if (e->error != code)
        tt_fail(__FILE__, __LINE__, "%s: error %s, want %s (\"%s\")", path, tempo_errname(e->error),
                tempo_errname(code), e->text);
    CHECK(!e->had_object);
    CHECK(e->text[0] != '\0');
    if (needle && strstr(e->text, needle) == NULL)
        tt_fail(__FILE__, __LINE__, "%s: text \"%s\" lacks \"%s\"", path, e->text, needle);
    tt_note("%-22s %-14s %s", path[0] ? path : "(empty)", tempo_errname(e->error), e->text);
}

static void bad_image_input(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    expect_error(l, TEMPO_LOAD_IMAGE, FX "missing.png", TEMPO_ENOENT, "missing.png");
    expect_error(l, TEMPO_LOAD_IMAGE, FX "empty.png", TEMPO_EFORMAT, "empty");
    expect_error(l, TEMPO_LOAD_IMAGE, FX "trunc.png", TEMPO_EFORMAT, "truncated PNG");
    /* Damaged on the way: refused before libpng, which would print its own
     * "libpng error: IDAT: CRC error" line on stderr for each load. */
    expect_error(l, TEMPO_LOAD_IMAGE, FX "crc.png", TEMPO_EFORMAT, "the IDAT chunk at byte");
    expect_error(l, TEMPO_LOAD_IMAGE, FX "noise.png", TEMPO_EFORMAT, NULL);
    expect_error(l, TEMPO_LOAD_IMAGE, ".", TEMPO_EIO, NULL);
    expect_error(l, TEMPO_LOAD_BYTES, ".", TEMPO_EIO, NULL);
    rec *e = load_one(l, TEMPO_LOAD_IMAGE, ""); /* ENOENT from glibc; the C runtime on Windows may say EINVAL */
    CHECK(e->error == TEMPO_ENOENT || e->error == TEMPO_EIO);
    CHECK(e->text[0] != '\0');
    /* A 300-byte file name: longer than any file system allows (255). */
    char longname[320];
    memset(longname, 'x', 300);
    strcpy(longname + 300, ".png");
    e = load_one(l, TEMPO_LOAD_IMAGE, longname);
    CHECK(e->error == TEMPO_ERANGE || e->error == TEMPO_ENOENT);
    CHECK(e->text[0] != '\0');
    tt_note("300-byte name          %-14s %.60s...", tempo_errname(e->error), e->text);
    /* A path longer than PATH_MAX. */
    static char deep[6000];
    for (int i = 0; i < 1000; i++)
        memcpy(deep + 5 * i, "dir1/", 5);
    strcpy(deep + 5000, "a.png");
    e = load_one(l, TEMPO_LOAD_IMAGE, deep);
    CHECK(e->error == TEMPO_ERANGE || e->error == TEMPO_ENOENT);
    tt_note("5005-byte path         %-14s", tempo_errname(e->error));
    tempo_loader_destroy(l);
}

static void lying_image_headers_are_refused_before_decoding(void)
{
    /* No renderer: the default limit (16384) still applies, so none of these
     * makes a decoder allocate 60000 * 60000 * 4 bytes. */
    tempo_loader *l = tempo_loader_create(NULL);
    static const char *const files[] = {FX "huge.png", FX "huge.gif", FX "huge.bmp", FX "huge.jpg"};
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = tempo_now_ns();
        expect_error(l, TEMPO_LOAD_IMAGE, files[i], TEMPO_ERANGE, "60000x60000");
        /* The refusal itself (ERANGE naming the header's size) shows that no
         * decoder ran; the time bound only catches a refusal that came after
         * a giant decode, and is generous so that machine load cannot reach it. */
        CHECK_LT_U64(tempo_now_ns() - t0, 20 * TEMPO_NS_PER_S);
    }
    tempo_loader_destroy(l);
}

static void image_too_large_for_the_renderer(void)
{
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    /* The software renderer reports no limit, so fake one through the desc. */
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren, .max_texture_size = 256});
    expect_error(l, TEMPO_LOAD_IMAGE, FX "wide.png", TEMPO_ERANGE, "claims 300x40"); /* from the PNG header */
    expect_error(l, TEMPO_LOAD_IMAGE, FX "wide.bmp", TEMPO_ERANGE, "claims 300x40"); /* BMP header, too */
    expect_error(l, TEMPO_LOAD_IMAGE, FX "wide.tga", TEMPO_ERANGE, "claims 300x40"); /* the TGA header too */
    rec *e = load_one(l, TEMPO_LOAD_IMAGE, FX "b.png");
    CHECK_EQ_INT(e->error, 0);
    tempo_loader_destroy(l);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

static void bad_sound_input(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device");
    tempo_loader *l = tempo_loader_create(NULL);
    expect_error(l, TEMPO_LOAD_SOUND, FX "missing.wav", TEMPO_ENOENT, NULL);
    expect_error(l, TEMPO_LOAD_SOUND, FX "empty.wav", TEMPO_EFORMAT, "empty");
    expect_error(l, TEMPO_LOAD_SOUND, FX "nochan.wav", TEMPO_EFORMAT, "channels");
    expect_error(l, TEMPO_LOAD_SOUND, FX "badtag.wav", TEMPO_EFORMAT, "0x1234");
    expect_error(l, TEMPO_LOAD_SOUND, FX "fmtpast.wav", TEMPO_EFORMAT, NULL);
    expect_error(l, TEMPO_LOAD_SOUND, FX "noise.png", TEMPO_ENOTSUP, "no audio signature"); /* SDL_mixer: MOD? */
    expect_error(l, TEMPO_LOAD_SOUND, ".", TEMPO_EIO, NULL);
    expect_error(l, TEMPO_LOAD_MUSIC, FX "missing.ogg", TEMPO_ENOENT, NULL);
    expect_error(l, TEMPO_LOAD_MUSIC, FX "empty.wav", TEMPO_EFORMAT, "empty");
    /* SDL_mixer 2.6.2 itself dies with SIGFPE on 0-channel WAV/AIFF music:
     * the loader's header check stops them first. */
    expect_error(l, TEMPO_LOAD_MUSIC, FX "nochan.wav", TEMPO_EFORMAT, "0 channels");
    expect_error(l, TEMPO_LOAD_MUSIC, FX "norate.wav", TEMPO_EFORMAT, "0 Hz");
    expect_error(l, TEMPO_LOAD_MUSIC, FX "nochan.aiff", TEMPO_EFORMAT, "0 channels");
    expect_error(l, TEMPO_LOAD_SOUND, FX "norate.wav", TEMPO_EFORMAT, "0 Hz");
    expect_error(l, TEMPO_LOAD_SOUND, FX "nochan.aiff", TEMPO_EFORMAT, "0 channels");
    expect_error(l, TEMPO_LOAD_MUSIC, ".", TEMPO_EIO, NULL);
    /* A data chunk that claims 2 GiB but holds 400 bytes: SDL 2.26 would
     * malloc the 2 GiB, then (SDL_HINT_WAVE_TRUNCATION unset) decode what is
     * there. The loader clamps the claim first: same sound, no giant
     * allocation. 200 mono frames at 22050 Hz -> 400 stereo frames at 44100. */
    rec *e = load_one(l, TEMPO_LOAD_SOUND, FX "datalie.wav");
    tt_note("datalie.wav (sound)    %-14s size %llu %s", tempo_errname(e->error), (unsigned long long)e->size,
            e->text);
    CHECK_EQ_INT(e->error, 0);
    int freq = 0, ch = 0;
    Uint16 fmt = 0;
    Mix_QuerySpec(&freq, &fmt, &ch);
    CHECK_LE_U64(e->size, (size_t)(200 * freq / 22050 + 16) * (size_t)ch * (SDL_AUDIO_BITSIZE(fmt) / 8));
    /* An AIFF claiming 2^31 frames: SDL_mixer would malloc 4 GiB, then fail. */
    expect_error(l, TEMPO_LOAD_SOUND, FX "framelie.aiff", TEMPO_EFORMAT, "frames");
    CHECK_LE_U64(e->size, 1u << 20);
    tempo_loader_destroy(l);
}

/* ---- Cases: custom jobs ------------------------------------------------------------------ */

typedef struct equip_msg {
    int character;
    int item;
    char slot[16];
} equip_msg;

static SDL_threadID work_thread, finalize_thread;

static int equip_work(tempo_load_job *job, void **result)
{
    work_thread = SDL_ThreadID();
    const equip_msg *m = job->args;
    int *out = malloc(sizeof *out);
    *out = m->character * 1000 + m->item;
    *result = out;
    job->bytes = 77;
    return 0;
}

static int equip_finalize(tempo_load_job *job, void **result)
{
    (void)job;
    finalize_thread = SDL_ThreadID();
    *(int *)*result += 1; /* the loop-thread half */
    return 0;
}

static void custom_job_args_are_copied(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    equip_msg m = {.character = 7, .item = 42, .slot = "left hand"};
    uint64_t id = tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = equip_work,
                                                                .finalize = equip_finalize, .args = &m,
                                                                .args_size = sizeof m, .done = on_done});
    m.character = 0; /* caller reuses its message: the request kept a copy */
    m.item = 0;
    tempo_event_set(h.release);
    drain(l, 2);
    rec *e = find_rec(id);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ_INT(e->error, 0);
        CHECK_EQ_U64(e->bytes, 77);
        CHECK_EQ_INT(e->type, TEMPO_LOAD_CUSTOM);
        CHECK_STR_EQ(e->path, "");
    }
    CHECK(work_thread != SDL_ThreadID());
    CHECK(finalize_thread == SDL_ThreadID());
    CHECK(recs[0].thread == SDL_ThreadID());
    tempo_loader_destroy(l);
    hold_free(&h);
}

static int check_args_work(tempo_load_job *job, void **result)
{
    const equip_msg *m = job->args;
    int *out = malloc(sizeof *out);
    *out = m->character * 1000 + m->item;
    *result = out;
    return 0;
}

static int result_value;

static void on_value(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    (void)user;
    result_value = r->custom ? *(int *)r->custom : -1;
    CHECK_EQ_U64(r->args_size, sizeof(equip_msg));
    CHECK_STR_EQ(((const equip_msg *)r->args)->slot, "head");
    free(r->custom);
    nrecs++;
}

static void custom_result_reaches_the_callback(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    reset_recs();
    equip_msg m = {.character = 3, .item = 9, .slot = "head"};
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = check_args_work,
                                                 .args = &m, .args_size = sizeof m, .done = on_value});
    drain(l, 1);
    CHECK_EQ_INT(result_value, 3009);
    tempo_loader_destroy(l);
}

static int failing_work(tempo_load_job *job, void **result)
{
    (void)job;
    *result = malloc(8); /* left for discard */
    SDL_SetError("the dragon ate the save file");
    return TEMPO_EIO;
}

static int failing_finalize(tempo_load_job *job, void **result)
{
    (void)job;
    (void)result;
    SDL_SetError("no room in the world");
    return TEMPO_EFULL;
}

static void custom_errors_carry_sdl_text(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    reset_recs();
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = failing_work,
                                                 .discard = free_discard, .done = on_done});
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = equip_work,
                                                 .args = &(equip_msg){0}, .args_size = sizeof(equip_msg),
                                                 .finalize = failing_finalize, .discard = free_discard,
                                                 .done = on_done});
    drain(l, 2);
    CHECK_EQ_INT(recs[0].error, TEMPO_EIO);
    CHECK_STR_EQ(recs[0].text, "the dragon ate the save file");
    CHECK_EQ_INT(recs[1].error, TEMPO_EFULL);
    CHECK_STR_EQ(recs[1].text, "no room in the world");
    CHECK(!recs[0].had_object && !recs[1].had_object);
    CHECK_EQ_INT(discards, 2);
    tempo_loader_destroy(l);
}

static void without_a_callback_the_loader_frees(void)
{
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.renderer = ren});
    reset_recs();
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_IMAGE, .path = FX "b.png"});
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = FX "k3.bin"});
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = equip_work,
                                                 .args = &(equip_msg){0}, .args_size = sizeof(equip_msg),
                                                 .discard = free_discard});
    if (audio_ok)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_SOUND, .path = FX "beep.wav"});
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    while (tempo_loader_pending(l) > 0)
        tempo_loader_process(l);
    CHECK_EQ_INT(discards, 1); /* ASan reports the rest if they leaked */
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.delivered, audio_ok ? 4 : 3);
    tempo_loader_destroy(l);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

static void queue_full_is_an_error(void)
{
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.max_pending = 3});
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    CHECK(submit_tag(l, 1, 0) != 0);
    CHECK(submit_tag(l, 2, 0) != 0);
    CHECK_EQ_U64(submit_tag(l, 3, 0), 0);
    CHECK(strstr(tempo_get_error(), "max_pending") != NULL);
    tempo_event_set(h.release);
    drain(l, 3);
    CHECK(submit_tag(l, 4, 0) != 0); /* room again once delivered */
    drain(l, 4);
    tempo_loader_destroy(l);
    hold_free(&h);
}

static tempo_loader *reentry_loader;
static int reentry_process_rc = 1;
static uint64_t reentry_child;

static void on_reenter(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)r;
    (void)user;
    reentry_process_rc = tempo_loader_process(l);
    reentry_child = submit_tag(l, 99, 0); /* submitting from a callback is fine */
    tempo_loader_destroy(l);              /* refused: this is its own callback */
    nrecs++;
}

static void callbacks_may_submit_but_not_reenter(void)
{
    tempo_loader *l = reentry_loader = tempo_loader_create(NULL);
    reset_recs();
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                 .done = on_reenter});
    drain(l, 1);
    CHECK_EQ_INT(reentry_process_rc, TEMPO_EBUSY);
    CHECK(reentry_child != 0);
    drain(l, 2);
    CHECK_EQ_INT((intptr_t)recs[1].user, 99);
    tempo_loader_destroy(l);
}

static void wait_idle_times_out_while_busy(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    uint64_t t0 = tempo_now_ns();
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 20 * MS), TEMPO_ETIMEDOUT);
    CHECK_GE_U64(tempo_now_ns() - t0, 20 * MS);
    tempo_event_set(h.release);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S), 0);
    drain(l, 1);
    tempo_loader_destroy(l);
    hold_free(&h);
}

/* ---- Cases: shutdown with work everywhere ------------------------------------------------- */

typedef struct delayed_set {
    tempo_handle *event;
    uint64_t delay_ns;
} delayed_set;

static int delayed_set_main(void *p)
{
    delayed_set *d = p;
    tempo_wait(NULL, 0, d->delay_ns, 0);
    tempo_event_set(d->event);
    return 0;
}

static void destroy_with_work_queued_and_in_flight(void)
{
    SDL_Surface *target = SDL_CreateRGBSurfaceWithFormat(0, 64, 64, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *ren = SDL_CreateSoftwareRenderer(target);
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.threads = 2, .renderer = ren});
    hold h1, h2;
    hold_init(&h1);
    hold_init(&h2);
    reset_recs();
    int accepted = 0;
    /* finished but not delivered: objects of every kind */
    accepted += submit_file(l, TEMPO_LOAD_IMAGE, FX "b.png", 0, 0, NULL) != 0;
    accepted += submit_file(l, TEMPO_LOAD_BYTES, FX "k3.bin", 0, 0, NULL) != 0;
    if (audio_ok) {
        accepted += submit_file(l, TEMPO_LOAD_SOUND, FX "beep.wav", 0, 0, NULL) != 0;
        accepted += submit_file(l, TEMPO_LOAD_MUSIC, FX "beep.wav", 0, 0, NULL) != 0;
    }
    tempo_loader_wait_idle(l, 10 * TEMPO_NS_PER_S);
    /* in flight: both threads held */
    accepted += submit_hold(l, &h1, 0) != 0;
    accepted += submit_hold(l, &h2, 0) != 0;
    wait_started(&h1);
    wait_started(&h2);
    /* queued */
    for (int i = 0; i < 20; i++)
        accepted += submit_file(l, i % 2 ? TEMPO_LOAD_IMAGE : TEMPO_LOAD_BYTES, FX "a.png", 0, 0, NULL) != 0;
    /* Destroy blocks until the held jobs return; release them from another
     * thread a little later, while destroy is already waiting. */
    delayed_set d1 = {h1.release, 30 * MS}, d2 = {h2.release, 40 * MS};
    SDL_Thread *t1 = SDL_CreateThread(delayed_set_main, "release1", &d1);
    SDL_Thread *t2 = SDL_CreateThread(delayed_set_main, "release2", &d2);
    uint64_t t0 = tempo_now_ns();
    tempo_loader_destroy(l);
    uint64_t took = tempo_now_ns() - t0;
    SDL_WaitThread(t1, NULL);
    SDL_WaitThread(t2, NULL);
    CHECK_EQ_INT(nrecs, accepted);
    int cancelled = 0;
    for (int i = 0; i < nrecs; i++)
        cancelled += recs[i].error == TEMPO_ECANCELED && !recs[i].had_object;
    CHECK_EQ_INT(cancelled, accepted);
    CHECK_EQ_INT(discards, 2); /* both held jobs' results went through discard */
    CHECK(strstr(recs[0].text, "destroyed") != NULL);
    tt_note("destroy with %d undelivered requests took %.1f ms", accepted, (double)took / 1e6);
    hold_free(&h1);
    hold_free(&h2);
    SDL_DestroyRenderer(ren);
    SDL_FreeSurface(target);
}

static void on_submit_during_destroy(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)r;
    (void)user;
    reentry_child = submit_tag(l, 5, 0);
    nrecs++;
}

static void submit_during_destroy_is_refused(void)
{
    tempo_loader *l = tempo_loader_create(NULL);
    hold h;
    hold_init(&h);
    reset_recs();
    submit_hold(l, &h, 0);
    wait_started(&h);
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = quick_work,
                                                 .done = on_submit_during_destroy});
    delayed_set d = {h.release, 10 * MS};
    SDL_Thread *t = SDL_CreateThread(delayed_set_main, "release", &d);
    reentry_child = 1;
    tempo_loader_destroy(l);
    SDL_WaitThread(t, NULL);
    CHECK_EQ_U64(reentry_child, 0);
    CHECK(strstr(tempo_get_error(), "destroyed") != NULL);
    hold_free(&h);
}

/* ---- Cases: many threads (run under TSan) --------------------------------------------------- */

#define STRESS_PER_THREAD 300

typedef struct stress {
    tempo_loader *l;
    atomic_int accepted;
    atomic_int submitters_done;
    atomic_uint_fast64_t last_id;
    int seed;
} stress;

static int stress_work(tempo_load_job *job, void **result)
{
    const int *n = job->args;
    uint32_t x = (uint32_t)*n;
    for (int i = 0; i < 2000; i++)
        x = x * 1664525u + 1013904223u;
    int *out = malloc(sizeof *out);
    *out = (int)(x & 0xffff);
    *result = out;
    return 0;
}

static int stress_submitter(void *p)
{
    stress *s = p;
    for (int i = 0; i < STRESS_PER_THREAD; i++) {
        uint64_t id;
        switch (i % 4) {
        case 0:
            id = submit_file(s->l, TEMPO_LOAD_BYTES, FX "k2.bin", i % 3, (uint32_t)(i % 5), NULL);
            break;
        case 1:
            id = submit_file(s->l, TEMPO_LOAD_IMAGE, FX "a.png", -(i % 3), (uint32_t)(i % 5), NULL);
            break;
        case 2:
            id = submit_file(s->l, TEMPO_LOAD_IMAGE, FX "missing.png", 0, 1, NULL);
            break;
        default:
            id = tempo_loader_submit(s->l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = stress_work,
                                                                  .args = &i, .args_size = sizeof i,
                                                                  .discard = free_discard, .done = on_done,
                                                                  .priority = i % 7});
            break;
        }
        if (id != 0) {
            atomic_fetch_add(&s->accepted, 1);
            atomic_store(&s->last_id, id);
        }
        if (i % 16 == 0) {
            tempo_load_progress p;
            tempo_loader_progress(s->l, 1, &p);
        }
    }
    atomic_fetch_add(&s->submitters_done, 1);
    return 0;
}

static int stress_canceller(void *p)
{
    stress *s = p;
    while (atomic_load(&s->submitters_done) < 2) {
        uint64_t id = atomic_load(&s->last_id);
        if (id > 3)
            tempo_loader_cancel(s->l, id - 3);
        tempo_loader_stats st;
        tempo_loader_get_stats(s->l, &st);
        tempo_wait(NULL, 0, 200 * TEMPO_NS_PER_US, 0);
    }
    tempo_loader_cancel_group(s->l, 4);
    return 0;
}

static void many_threads_submit_cancel_and_deliver(void)
{
    stress s = {.l = tempo_loader_create(&(tempo_loader_desc){.threads = 3})};
    atomic_init(&s.accepted, 0);
    atomic_init(&s.submitters_done, 0);
    atomic_init(&s.last_id, 0);
    reset_recs();
    SDL_Thread *a = SDL_CreateThread(stress_submitter, "submit-a", &s);
    SDL_Thread *b = SDL_CreateThread(stress_submitter, "submit-b", &s);
    SDL_Thread *c = SDL_CreateThread(stress_canceller, "cancel", &s);
    tempo_handle *h = tempo_loader_handle(s.l);
    uint64_t deadline = tempo_now_ns() + 30 * TEMPO_NS_PER_S;
    /* The loop thread keeps delivering while the others submit and cancel. */
    while (!(atomic_load(&s.submitters_done) == 2 && nrecs == atomic_load(&s.accepted))) {
        if (tempo_now_ns() > deadline) {
            tt_fail(__FILE__, __LINE__, "stress: %d of %d delivered after 30 s", nrecs, atomic_load(&s.accepted));
            break;
        }
        tempo_wait(&h, 1, 20 * MS, 0);
        tempo_loader_process(s.l);
    }
    SDL_WaitThread(a, NULL);
    SDL_WaitThread(b, NULL);
    SDL_WaitThread(c, NULL);
    while (tempo_loader_pending(s.l) > 0 && !tt_failed()) {
        tempo_wait(&h, 1, 20 * MS, 0);
        tempo_loader_process(s.l);
    }
    int accepted = atomic_load(&s.accepted);
    CHECK_EQ_INT(nrecs, accepted);
    /* Each id exactly once. */
    int dup = 0, ok = 0, cancelled = 0, failed = 0;
    for (int i = 0; i < nrecs; i++) {
        for (int j = i + 1; j < nrecs; j++)
            dup += recs[i].id == recs[j].id;
        ok += recs[i].error == 0;
        cancelled += recs[i].error == TEMPO_ECANCELED;
        failed += recs[i].error != 0 && recs[i].error != TEMPO_ECANCELED;
    }
    CHECK_EQ_INT(dup, 0);
    tempo_loader_stats st;
    tempo_loader_get_stats(s.l, &st);
    CHECK_EQ_U64(st.submitted, (uint64_t)accepted);
    CHECK_EQ_U64(st.delivered, (uint64_t)accepted);
    CHECK_EQ_U64(st.cancelled, (uint64_t)cancelled);
    CHECK_EQ_U64(st.failed, (uint64_t)failed);
    tt_note("%d accepted: %d loaded, %d failed (missing file), %d cancelled", accepted, ok, failed, cancelled);
    tempo_loader_destroy(s.l);
}

/* ---- Cases: formats, limits, notifications, the log (issues 10 and 14) ------------ */

/* Every format the loader accepts still loads after the checks. */
static void every_accepted_format_loads(void)
{
    int n = 0;
    const asset_seed *seeds = asset_seeds_write(".", &n);
    CHECK(seeds != NULL);
    if (seeds == NULL)
        return;
    tempo_loader *l = tempo_loader_create(NULL);
    for (int i = 0; i < n; i++) {
        const asset_seed *sd = &seeds[i];
        if (sd->type != TEMPO_LOAD_IMAGE && !audio_ok)
            continue;
        if (sd->img_init && !(IMG_Init(sd->img_init) & sd->img_init)) {
            tt_note("%-14s skipped: this SDL_image has no decoder for it", sd->name);
            continue;
        }
        for (int pass = 0; pass < (sd->also_music ? 2 : 1); pass++) {
            tempo_load_type type = pass ? TEMPO_LOAD_MUSIC : sd->type;
            rec *e = load_one(l, type, sd->name);
            tt_note("%-14s %-5s %-14s %dx%d %s", sd->name, type == TEMPO_LOAD_IMAGE ? "image"
                    : type == TEMPO_LOAD_SOUND ? "sound" : "music", tempo_errname(e->error), e->w, e->h, e->text);
            if (sd->decoder_optional && e->error == TEMPO_EFORMAT)
                continue; /* no decoder or sound font here: not ours to judge */
            if (e->error != 0)
                tt_fail(__FILE__, __LINE__, "%s: %s (%s)", sd->name, tempo_errname(e->error), e->text);
            if (type == TEMPO_LOAD_IMAGE) {
                CHECK_EQ_INT(e->w, sd->w);
                CHECK_EQ_INT(e->h, sd->h);
            }
        }
    }
    tempo_loader_destroy(l);
    for (int i = 0; i < n; i++)
        remove(seeds[i].name);
}

/* The decoder follows the bytes, not the name: a PNG named .tga went to
 * SDL_image's TGA reader (first in its table for a "tga" hint) and failed. */
static void the_format_follows_the_bytes_not_the_name(void)
{
    size_t n;
    unsigned char *png = read_whole(FX "b.png", &n);
    write_file(FX "png_named.tga", png, n);
    free(png);
    tempo_loader *l = tempo_loader_create(NULL);
    rec *e = load_one(l, TEMPO_LOAD_IMAGE, FX "png_named.tga");
    CHECK_EQ_INT(e->error, 0);
    CHECK_EQ_INT(e->w, 32);
    /* A .wav name does not send other bytes to the WAV music reader. */
    if (audio_ok) {
        e = load_one(l, TEMPO_LOAD_MUSIC, FX "text.txt");
        CHECK_EQ_INT(e->error, TEMPO_ENOTSUP);
    }
    tempo_loader_destroy(l);
    remove(FX "png_named.tga");
}

static void pixel_limit_and_unchecked_formats(void)
{
    /* 300x40 = 12000 pixels: within the sides, over a 10000-pixel limit. */
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.max_image_pixels = 10000});
    expect_error(l, TEMPO_LOAD_IMAGE, FX "wide.png", TEMPO_ERANGE, "claims 300x40");
    expect_error(l, TEMPO_LOAD_IMAGE, FX "wide.tga", TEMPO_ERANGE, "10000 pixels");
    rec *e = load_one(l, TEMPO_LOAD_IMAGE, FX "b.png"); /* 1024 pixels */
    CHECK_EQ_INT(e->error, 0);
    tempo_loader_destroy(l);

    /* An SVG cannot be sized before decoding: refused unless the game opts
     * in, and then still held to the limits after decoding. */
    static const char svg[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"20\" height=\"10\">"
                              "<rect width=\"20\" height=\"10\" fill=\"red\"/></svg>\n";
    write_file(FX "small.svg", svg, sizeof svg - 1);
    l = tempo_loader_create(NULL);
    expect_error(l, TEMPO_LOAD_IMAGE, FX "small.svg", TEMPO_ENOTSUP, "SVG");
    tempo_loader_destroy(l);
    l = tempo_loader_create(&(tempo_loader_desc){.allow_unchecked_formats = true});
    e = load_one(l, TEMPO_LOAD_IMAGE, FX "small.svg");
    CHECK_EQ_INT(e->error, 0);
    CHECK_EQ_INT(e->w, 20);
    CHECK_EQ_INT(e->h, 10);
    tempo_loader_destroy(l);
    l = tempo_loader_create(&(tempo_loader_desc){.allow_unchecked_formats = true, .max_image_pixels = 100});
    expect_error(l, TEMPO_LOAD_IMAGE, FX "small.svg", TEMPO_ERANGE, "is 20x10");
    tempo_loader_destroy(l);
    remove(FX "small.svg");
}

static void create_errors_name_the_field(void)
{
    static const struct {
        tempo_loader_desc d;
        const char *field, *other;
    } bad[] = {
        {{.threads = -1}, "desc.threads is -1", "max_pending"},
        {{.threads = 17}, "desc.threads is 17", "max_pending"},
        {{.max_pending = -5}, "desc.max_pending is -5", "threads"},
        {{.max_texture_size = -2}, "desc.max_texture_size is -2", "threads"},
    };
    for (size_t i = 0; i < SDL_arraysize(bad); i++) {
        CHECK(tempo_loader_create(&bad[i].d) == NULL);
        const char *t = tempo_get_error();
        tt_note("%s", t);
        if (strstr(t, bad[i].field) == NULL || strstr(t, bad[i].other) != NULL)
            tt_fail(__FILE__, __LINE__, "\"%s\": want \"%s\" and no \"%s\"", t, bad[i].field, bad[i].other);
    }
}

typedef struct group_note {
    uint32_t group;
    tempo_load_progress p;
    int recs_before; /* deliveries recorded when it arrived */
} group_note;

static group_note group_notes[16];
static int n_group_notes;

static void on_group_done(tempo_loader *l, uint32_t group, const tempo_load_progress *p, void *user)
{
    (void)l;
    CHECK(user == (void *)group_notes);
    if (n_group_notes < 16)
        group_notes[n_group_notes++] = (group_note){group, *p, nrecs};
}

/* A done callback that extends its own batch once. */
static void on_done_then_submit(tempo_loader *l, const tempo_load_result *r, void *user)
{
    on_done(l, r, user);
    if (user == (void *)1)
        tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = FX "k2.bin", .group = r->group,
                                                     .done = on_done});
}

static void group_done_fires_once_per_batch(void)
{
    reset_recs();
    n_group_notes = 0;
    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.group_done = on_group_done,
                                                                .group_done_user = group_notes});
    hold h;
    hold_init(&h);
    submit_hold(l, &h, 0); /* group 0, held: nothing of group 7 or 8 can finish before all are queued */
    wait_started(&h);
    for (int i = 0; i < 3; i++)
        submit_file(l, TEMPO_LOAD_BYTES, FX "k1.bin", 0, 7, NULL);
    submit_file(l, TEMPO_LOAD_BYTES, FX "missing.bin", 0, 8, NULL); /* failures count too */
    tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = FX "k3.bin", .group = 8,
                                                 .done = on_done_then_submit, .user = (void *)1});
    tempo_event_set(h.release);
    drain(l, 1 + 3 + 2 + 1);
    hold_free(&h);
    CHECK_EQ_INT(n_group_notes, 4); /* groups 0, 7, 8, and 8's second batch */
    for (int i = 0; i < n_group_notes; i++) {
        group_note *g = &group_notes[i];
        tt_note("group %u done after %d deliveries: %u/%u items, %u failed, %llu bytes", (unsigned)g->group,
                g->recs_before, (unsigned)g->p.items_done, (unsigned)g->p.items_total, (unsigned)g->p.items_failed,
                (unsigned long long)g->p.bytes_done);
        CHECK_EQ_INT(g->p.items_done, g->p.items_total);
        if (g->group == 7) {
            CHECK_EQ_INT(g->p.items_total, 3);
            CHECK_EQ_U64(g->p.bytes_done, 3000);
        } else if (g->group == 8 && i == 2) {
            /* Right after the done of its last request, failures counted. */
            CHECK_EQ_INT(g->p.items_total, 2);
            CHECK_EQ_INT(g->p.items_failed, 1);
            CHECK_EQ_INT(g->recs_before, 6);
        } else if (g->group == 8) {
            /* The submit from that done started a new batch. */
            CHECK_EQ_INT(i, 3);
            CHECK_EQ_INT(g->p.items_total, 1);
            CHECK_EQ_U64(g->p.bytes_done, 2000);
            CHECK_EQ_INT(g->recs_before, 7);
        }
    }
    /* A new batch notifies again. */
    submit_file(l, TEMPO_LOAD_BYTES, FX "k1.bin", 0, 7, NULL);
    drain(l, 8);
    CHECK_EQ_INT(n_group_notes, 5);
    CHECK_EQ_INT(group_notes[4].group, 7);
    CHECK_EQ_INT(group_notes[4].p.items_total, 1);
    /* Destroy ends a batch by cancelling it: notified, counted cancelled. */
    hold_init(&h);
    submit_hold(l, &h, 0);
    wait_started(&h);
    submit_file(l, TEMPO_LOAD_BYTES, FX "k1.bin", 0, 9, NULL);
    tempo_event_set(h.release);
    tempo_loader_destroy(l);
    hold_free(&h);
    CHECK_EQ_INT(n_group_notes, 7);
    bool saw9 = false;
    for (int i = 5; i < n_group_notes; i++)
        if (group_notes[i].group == 9) {
            saw9 = true;
            CHECK_EQ_INT(group_notes[i].p.items_cancelled, 1);
        }
    CHECK(saw9);
}

/* The log: loader failures are DEBUG lines, shown only when asked for. */
static void log_level_gates_loader_messages(void)
{
    CHECK_EQ_INT(tempo_log_get_level(), TEMPO_LOG_WARN);
    CHECK_EQ_INT(tempo_log_set_level((tempo_log_level)0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_log_set_level((tempo_log_level)6), TEMPO_EINVAL);
    tt_log_count_begin(TEMPO_LOG_WARN);
    tempo_loader *l = tempo_loader_create(NULL);
    struct { tempo_log_level level; int debug, warn; } want[] = {
        {TEMPO_LOG_WARN, 0, 0}, {TEMPO_LOG_DEBUG, 1, 0}, {TEMPO_LOG_NONE, 0, 0}};
    int debug, warn;
    for (size_t i = 0; i < SDL_arraysize(want); i++) {
        CHECK_EQ_INT(tempo_log_set_level(want[i].level), 0);
        tt_log_counted(&debug, &warn);
        rec *e = load_one(l, TEMPO_LOAD_BYTES, FX "missing.bin");
        CHECK_EQ_INT(e->error, TEMPO_ENOENT);
        tt_log_counted(&debug, &warn);
        CHECK_EQ_INT(debug, want[i].debug);
        CHECK_EQ_INT(warn, want[i].warn);
    }
    /* Misuse still warns at the default level; NONE silences even that. */
    tempo_log_set_level(TEMPO_LOG_WARN);
    tt_log_counted(&debug, &warn);
    CHECK_EQ_INT(tempo_loader_submit(l, NULL), 0);
    tt_log_counted(&debug, &warn);
    CHECK_EQ_INT(warn, 1);
    tempo_log_set_level(TEMPO_LOG_NONE);
    CHECK_EQ_INT(tempo_loader_submit(l, NULL), 0);
    tt_log_counted(&debug, &warn);
    CHECK_EQ_INT(warn, 0);
    CHECK(strstr(tempo_get_error(), "request is NULL") != NULL); /* the detail is kept regardless */
    tempo_loader_destroy(l);
    tt_log_count_end();
}

#if defined(__linux__)
/* [its own thread] Forbids setpriority and sched_setscheduler to this
 * thread and those it starts (a sandbox's seccomp filter), then runs a
 * job on a low-priority loader's thread: *(int *)arg gets its policy, or
 * -2 when the filter cannot be installed. */
static int SDLCALL refused_background(void *arg)
{
    static const long refused[] = {SYS_setpriority, SYS_sched_setscheduler};
    if (!tt_refuse_syscalls(refused, 2)) {
        *(int *)arg = -2;
        return 0;
    }
    *(int *)arg = loader_thread_reports(true, policy_work, -1);
    return 0;
}
#endif

/* desc.low_priority where the OS refuses to lower a thread (a sandbox):
 * not fatal, and not a warning either: the loader runs its jobs at the
 * priority it has, and says so at debug level only. */
static void refused_low_priority_loads_without_a_warning(void)
{
#if defined(__linux__)
    tt_log_count_begin(TEMPO_LOG_DEBUG); /* the refusals are still told, at debug level */
    int policy = -1, debug, warn;
    SDL_Thread *t = SDL_CreateThread(refused_background, "refused", &policy);
    CHECK(t != NULL);
    SDL_WaitThread(t, NULL);
    tt_log_counted(&debug, &warn);
    tt_log_count_end();
    if (policy == -2)
        TT_SKIP("cannot install a seccomp filter here");
    tt_note("policy %d under the filter; %d warning and %d debug lines", policy, warn, debug);
    CHECK_EQ_INT(policy, SCHED_OTHER); /* the filter held: the job ran at the thread's old policy */
    CHECK_EQ_INT(warn, 0);
    CHECK_EQ_INT(debug, 2); /* setpriority, sched_setscheduler */
#else
    TT_SKIP("seccomp is Linux's");
#endif
}

static const tt_case cases[] = {
    TT_CASE(create_and_destroy),
    TT_CASE(submit_rejects_bad_requests),
    TT_CASE(bytes_request_reads_the_whole_file),
    TT_CASE(path_is_copied_at_submit),
    TT_CASE(fifo_within_one_priority),
    TT_CASE(higher_priority_first),
    TT_CASE(cancel_queued_never_runs),
    TT_CASE(cancel_in_flight_discards_the_result),
    TT_CASE(cancel_finished_before_delivery),
    TT_CASE(cancel_group_reaches_every_stage),
    TT_CASE(progress_counts_items_and_bytes),
    TT_CASE(budget_limits_each_process_call),
    TT_CASE(process_until_stops_before_the_deadline),
    TT_CASE(custom_budget_from_desc),
    TT_CASE(images_without_a_renderer_are_surfaces),
    TT_CASE(images_with_a_renderer_are_textures),
    TT_CASE(upload_rows_all_when_they_fit),
    TT_CASE(upload_rows_a_strip_of_what_fits),
    TT_CASE(upload_rows_waits_below_one_minimum_strip),
    TT_CASE(upload_learns_the_cost_per_byte),
    TT_CASE(large_image_arrives_whole_after_a_split_upload),
    TT_CASE(upload_creation_is_set_aside_per_byte),
    TT_CASE(first_strip_leaves_room_for_the_texture_creation),
    TT_CASE(texture_creation_cost_is_learnt),
    TT_CASE(low_priority_lowers_the_loader_threads),
    TT_CASE(low_priority_loader_threads_are_sched_idle),
    TT_CASE(split_upload_cancelled_or_destroyed_midway),
    TT_CASE(sounds_and_music),
    TT_CASE(sounds_need_open_audio),
    TT_CASE(bad_image_input),
    TT_CASE(lying_image_headers_are_refused_before_decoding),
    TT_CASE(image_too_large_for_the_renderer),
    TT_CASE(bad_sound_input),
    TT_CASE(custom_job_args_are_copied),
    TT_CASE(custom_result_reaches_the_callback),
    TT_CASE(custom_errors_carry_sdl_text),
    TT_CASE(without_a_callback_the_loader_frees),
    TT_CASE(queue_full_is_an_error),
    TT_CASE(callbacks_may_submit_but_not_reenter),
    TT_CASE(wait_idle_times_out_while_busy),
    TT_CASE(destroy_with_work_queued_and_in_flight),
    TT_CASE(submit_during_destroy_is_refused),
    TT_CASE(many_threads_submit_cancel_and_deliver),
    TT_CASE(every_accepted_format_loads),
    TT_CASE(the_format_follows_the_bytes_not_the_name),
    TT_CASE(pixel_limit_and_unchecked_formats),
    TT_CASE(create_errors_name_the_field),
    TT_CASE(group_done_fires_once_per_batch),
    TT_CASE(log_level_gates_loader_messages),
    TT_CASE(refused_low_priority_loads_without_a_warning),
};

int main(int argc, char **argv)
{
    /* No sound card on CI machines (and none wanted): SDL's dummy driver
     * runs a real audio thread and needs no device. */
    if (SDL_getenv("SDL_AUDIODRIVER") == NULL)
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    if (SDL_Init(SDL_INIT_AUDIO) != 0) {
        printf("# SDL audio: %s (sound cases skip)\n", SDL_GetError());
    } else {
        audio_ok = Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) == 0;
        if (!audio_ok)
            printf("# Mix_OpenAudio: %s (sound cases skip)\n", Mix_GetError());
    }
    /* Warnings for the deliberately bad inputs would bury the test output. */
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_ERROR);
    make_fixtures();
    int rc = TT_MAIN(argc, argv, cases);
    if (!getenv("TL_KEEP")) /* TL_KEEP=1 leaves the fixtures for poking at by hand */
        remove_fixtures();
    if (audio_ok)
        Mix_CloseAudio();
    Mix_Quit();
    IMG_Quit();
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
