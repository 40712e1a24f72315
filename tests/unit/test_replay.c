/* Record and replay (tempo/replay.h) and its file format (replay_file.c).
 *
 * The format cases run the pure encoder/decoder over memory: round trip,
 * every truncation, every single-bit flip, damage reported at the right
 * byte and tick. The loop cases run a scripted game on a fake clock: the
 * same final hash at every render rate (a constant written here, so other
 * backends and platforms are checked against the same number), a recording
 * with time-driven input and messages replayed on another schedule, the
 * first divergent tick, a crash-cut file, and a committed recording (argv:
 * --fixture PATH) that must replay to its constant on every backend.
 * Files are written into the working directory (the build directory). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_mixer.h>

#include "harness.h"
#include "replay_file.h"
#include "tempo/audio.h"
#include "tempo/loader.h"
#include "tempo/input.h"
#include "tempo/loop.h"
#include "tempo/replay.h"

#define US TEMPO_NS_PER_US
#define MS TEMPO_NS_PER_MS
#define S TEMPO_NS_PER_S
#define T0 (1000 * S)

/* GAME_HASH_10K and FIXTURE_HASH, the constants this test holds on every
 * backend, compiler and CPU, are in replay_game_core.h (shared with
 * fp_check.c, which .ci/fp-matrix cross-builds). */

static const char *fixture_path, *fixture_v1_path;

/* ---- Memory sink ------------------------------------------------------------------ */

typedef struct membuf {
    uint8_t *p;
    size_t len, cap;
    int fail_after; /* >0: the N-th write fails */
    int writes;
} membuf;

static int mem_sink(void *user, const void *data, size_t size)
{
    membuf *m = user;
    if (m->fail_after && ++m->writes >= m->fail_after)
        return TEMPO_EIO;
    if (m->len + size > m->cap) {
        m->cap = (m->len + size) * 2;
        m->p = realloc(m->p, m->cap);
    }
    memcpy(m->p + m->len, data, size);
    m->len += size;
    return 0;
}

static const char test_meta[] = "game 1.4.2; level 3; options 0x2f; seeds 7 11 13";
static const char test_identity[] = "gcc 12.2.0, x86_64 +fma fpmath=sse2, optimized";

static tempo__rpf_header test_header(void)
{
    tempo__rpf_header h = {.seed = 0x1122334455667788u, .start_ns = T0, .step_ns = 16666667,
                           .update_hz = 60, .policy = 1, .max_frameskip = 5, .max_render_hz = 144,
                           .hash_every = 10, .fingerprint = 0x01000003u,
                           .meta = (const uint8_t *)test_meta, .meta_size = sizeof test_meta};
    strcpy(h.backend, "sdl");
    strcpy(h.identity, test_identity);
    return h;
}

/* The header size an image states (bytes 10-11). */
static size_t header_size_of(const uint8_t *p)
{
    return (size_t)p[10] | (size_t)p[11] << 8;
}

static tempo_input_event key_event(int sc, bool down, uint64_t t)
{
    tempo_input_event e;
    memset(&e, 0, sizeof e);
    e.type = TEMPO_INPUT_KEY;
    e.device_kind = TEMPO_INPUT_KEYBOARD;
    e.os_time_ms = (uint32_t)(t / MS);
    e.time_ns = t;
    e.u.key.scancode = sc;
    e.u.key.keycode = sc + 93;
    e.u.key.mod = 0x41;
    e.u.key.down = down;
    return e;
}

/* A file with every record kind over 40 ticks: ticks 0-9 one block each,
 * then blocks of 10 with a flush in the middle of tick 25. */
static void build_sample(membuf *m, uint64_t *ticks)
{
    tempo__rpf_writer w;
    tempo__rpf_header h = test_header();
    CHECK_EQ_INT(tempo__rpf_writer_init(&w, &h, mem_sink, m), 0);
    for (int t = 0; t < 40; t++) {
        if (t % 7 == 3) {
            tempo_input_event e = key_event(4 + t, t & 1, T0 + (uint64_t)t * MS);
            CHECK_EQ_INT(tempo__rpf_write_input(&w, &e), 0);
            tempo_input_event mv;
            memset(&mv, 0, sizeof mv);
            mv.type = TEMPO_INPUT_MOUSE_WHEEL;
            mv.u.wheel.x = -3;
            mv.u.wheel.precise_y = 0.25f;
            CHECK_EQ_INT(tempo__rpf_write_input(&w, &mv), 0);
        }
        if (t % 5 == 1) {
            char msg[40];
            int n = snprintf(msg, sizeof msg, "message at tick %d", t);
            CHECK_EQ_INT(tempo__rpf_write_message(&w, 7, (uint32_t)t, msg, (uint32_t)n), 0);
        }
        if (t == 12)
            CHECK_EQ_INT(tempo__rpf_write_load(&w, 2, 1, -10, 3, 99, 12345), 0);
        if (t == 13)
            CHECK_EQ_INT(tempo__rpf_write_audio(&w, 3, 1, -1, 77, 44100), 0);
        if (t == 17)
            CHECK_EQ_INT(tempo__rpf_write_dt(&w, 20000000), 0);
        if (t == 25)
            CHECK_EQ_INT(tempo__rpf_flush(&w), 0);
        CHECK_EQ_INT(tempo__rpf_end_tick(&w), 0);
        if ((t + 1) % 10 == 0)
            CHECK_EQ_INT(tempo__rpf_write_hash(&w, 0xABCD0000u + (uint64_t)t), 0);
        if (t < 10 || (t + 1) % 10 == 0)
            CHECK_EQ_INT(tempo__rpf_flush(&w), 0);
    }
    CHECK_EQ_INT(tempo__rpf_write_message(&w, 7, 999, "late", 4), 0); /* never-run tick 40 */
    CHECK_EQ_INT(tempo__rpf_finish(&w, 0xFEEDu, true), 0);
    tempo__rpf_writer_free(&w);
    *ticks = 40;
}

/* ---- Format cases ---------------------------------------------------------------- */

static void crc32_matches_the_standard(void)
{
    CHECK_EQ_U64(tempo__crc32(0, "123456789", 9), 0xCBF43926u);
    /* In pieces: the same. */
    CHECK_EQ_U64(tempo__crc32(tempo__crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    CHECK_EQ_U64(tempo__crc32(0, "", 0), 0);
}

static void round_trip_keeps_every_record(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    tempo__rpf_reader r;
    tempo__rpf_error err;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, m.p, m.len, &err), 0);
    CHECK_EQ_U64(r.header.seed, 0x1122334455667788u);
    CHECK_EQ_U64(r.header.start_ns, T0);
    CHECK_EQ_U64(r.header.step_ns, 16666667);
    CHECK_EQ_U64(r.header.update_hz, 60);
    CHECK_EQ_U64(r.header.policy, 1);
    CHECK_EQ_U64(r.header.max_render_hz, 144);
    CHECK_EQ_U64(r.header.hash_every, 10);
    CHECK_STR_EQ(r.header.backend, "sdl");
    CHECK_EQ_U64(r.header.version, 3);
    CHECK_EQ_U64(r.header.fingerprint, 0x01000003u);
    CHECK_EQ_U64(r.header.meta_size, sizeof test_meta);
    CHECK(r.header.meta != NULL && memcmp(r.header.meta, test_meta, sizeof test_meta) == 0);
    CHECK_STR_EQ(r.header.identity, test_identity);
    CHECK_EQ_U64(r.header.size, TEMPO__RPF_HEADER_V3_MIN + sizeof test_meta + strlen(test_identity));
    CHECK_EQ_U64(header_size_of(m.p), r.header.size);

    tempo__rpf_record rec;
    int got, inputs = 0, messages = 0, hashes = 0, loads = 0, audios = 0, dts = 0, ends = 0;
    uint64_t advanced = 0;
    while ((got = tempo__rpf_next(&r, &rec, &err)) == 1) {
        switch (rec.kind) {
        case TEMPO__RPF_ADVANCE:
            advanced += rec.u.advance;
            break;
        case TEMPO__RPF_INPUT:
            CHECK_EQ_U64(rec.tick % 7, 3);
            if (rec.u.input.type == TEMPO_INPUT_KEY) {
                tempo_input_event e = key_event(4 + (int)rec.tick, rec.tick & 1, T0 + rec.tick * MS);
                CHECK(memcmp(&e, &rec.u.input, sizeof e) == 0);
            } else {
                CHECK_EQ_INT(rec.u.input.type, TEMPO_INPUT_MOUSE_WHEEL);
                CHECK_EQ_INT(rec.u.input.u.wheel.x, -3);
                CHECK_EQ_DBL(rec.u.input.u.wheel.precise_y, 0.25);
            }
            inputs++;
            break;
        case TEMPO__RPF_MESSAGE: {
            char want[40];
            if (rec.tick == 40) {
                CHECK_EQ_U64(rec.u.message.type, 999);
                snprintf(want, sizeof want, "late");
            } else {
                CHECK_EQ_U64(rec.tick % 5, 1);
                CHECK_EQ_U64(rec.u.message.type, rec.tick);
                snprintf(want, sizeof want, "message at tick %d", (int)rec.tick);
            }
            CHECK_EQ_U64(rec.u.message.channel, 7);
            CHECK_EQ_U64(rec.u.message.size, strlen(want));
            CHECK(memcmp(rec.u.message.data, want, strlen(want)) == 0);
            messages++;
            break;
        }
        case TEMPO__RPF_LOAD:
            CHECK_EQ_U64(rec.tick, 12);
            CHECK_EQ_INT(rec.u.load.error, -10);
            CHECK_EQ_U64(rec.u.load.id, 99);
            CHECK_EQ_U64(rec.u.load.bytes, 12345);
            CHECK_EQ_U64(rec.u.load.group, 3);
            loads++;
            break;
        case TEMPO__RPF_AUDIO:
            CHECK_EQ_U64(rec.tick, 13);
            CHECK_EQ_INT(rec.u.audio.audio_channel, -1);
            CHECK_EQ_U64(rec.u.audio.tag, 77);
            CHECK_EQ_U64(rec.u.audio.frame, 44100);
            audios++;
            break;
        case TEMPO__RPF_HASH:
            CHECK_EQ_U64(rec.tick % 10, 0); /* after ticks 0..9: before tick 10 */
            CHECK_EQ_U64(rec.u.hash, 0xABCD0000u + rec.tick - 1);
            hashes++;
            break;
        case TEMPO__RPF_DT:
            CHECK_EQ_U64(rec.tick, 17);
            CHECK_EQ_U64(rec.u.dt_ns, 20000000);
            dts++;
            break;
        case TEMPO__RPF_END:
            CHECK_EQ_U64(rec.u.end.ticks, 40);
            CHECK_EQ_U64(rec.u.end.hash, 0xFEED);
            CHECK(rec.u.end.has_hash);
            ends++;
            break;
        }
    }
    CHECK_EQ_INT(got, 0);
    CHECK_EQ_U64(advanced, ticks);
    CHECK_EQ_INT(inputs, 2 * 6);  /* ticks 3, 10, 17, 24, 31, 38 */
    CHECK_EQ_INT(messages, 8 + 1);
    CHECK_EQ_INT(loads, 1);
    CHECK_EQ_INT(audios, 1);
    CHECK_EQ_INT(hashes, 4);
    CHECK_EQ_INT(dts, 1);
    CHECK_EQ_INT(ends, 1);
    uint64_t ok = 0;
    CHECK_EQ_INT(tempo__rpf_check(m.p, m.len, &ok, &err), 40);
    free(m.p);
}

static void empty_ticks_share_one_record(void)
{
    membuf m = {0};
    tempo__rpf_writer w;
    tempo__rpf_header h = test_header();
    CHECK_EQ_INT(tempo__rpf_writer_init(&w, &h, mem_sink, &m), 0);
    for (int t = 0; t < 100000; t++)
        CHECK_EQ_INT(tempo__rpf_end_tick(&w), 0);
    CHECK_EQ_INT(tempo__rpf_finish(&w, 1, false), 0);
    tempo__rpf_writer_free(&w);
    /* header + one block with one ADVANCE + the END block */
    CHECK_EQ_U64(m.len, TEMPO__RPF_HEADER_V3_MIN + sizeof test_meta + strlen(test_identity) + 2 * TEMPO__RPF_BLOCK_HEADER +
                            2 * TEMPO__RPF_RECORD_HEADER + 4 + 20);
    tempo__rpf_error err;
    CHECK_EQ_INT(tempo__rpf_check(m.p, m.len, NULL, &err), 100000);
    free(m.p);
}

/* Offsets of the blocks of an image and the tick each starts at. */
static int block_starts(const membuf *m, size_t *at, uint64_t *first, int max)
{
    int n = 0;
    size_t p = header_size_of(m->p);
    while (p + TEMPO__RPF_BLOCK_HEADER <= m->len && n < max) {
        uint32_t payload;
        uint64_t f = 0;
        memcpy(&payload, m->p + p + 4, 4); /* little-endian hosts only (x86, arm) */
        memcpy(&f, m->p + p + 8, 8);
        at[n] = p;
        first[n++] = f;
        p += TEMPO__RPF_BLOCK_HEADER + payload;
    }
    return n;
}

static void every_truncation_is_an_error_at_the_cut(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    size_t at[64];
    uint64_t first[64];
    int nb = block_starts(&m, at, first, 64);
    CHECK_GE_INT(nb, 10);
    uint64_t prev_ok = 0;
    for (size_t len = 0; len < m.len && !tt_failed(); len++) {
        tempo__rpf_error err;
        memset(&err, 0, sizeof err);
        uint64_t ok = 99;
        int64_t r = tempo__rpf_check(m.p, len, &ok, &err);
        if (r != TEMPO_EFORMAT) {
            tt_fail(__FILE__, __LINE__, "cut at %zu: %lld instead of TEMPO_EFORMAT", len, (long long)r);
            break;
        }
        CHECK(err.why[0] != '\0');
        CHECK_LE_U64(err.offset, len);
        /* The good ticks are exactly those of the whole blocks before the cut. */
        uint64_t want = 0;
        for (int b = 0; b < nb; b++)
            if (at[b] + TEMPO__RPF_BLOCK_HEADER <= len) {
                size_t end = b + 1 < nb ? at[b + 1] : m.len;
                if (end <= len)
                    want = b + 1 < nb ? first[b + 1] : ticks;
            }
        CHECK_EQ_U64(ok, want);
        CHECK_EQ_U64(err.tick, ok);
        CHECK_GE_U64(ok, prev_ok);
        prev_ok = ok;
        if (tt_failed())
            tt_note("cut at %zu: offset %zu tick %llu: %s", len, err.offset, (unsigned long long)err.tick,
                    err.why);
    }
    free(m.p);
}

static void every_bit_flip_is_caught(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    size_t at[64];
    uint64_t first[64];
    int nb = block_starts(&m, at, first, 64);
    uint8_t *copy = malloc(m.len);
    size_t missed = 0;
    for (size_t i = 0; i < m.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, m.p, m.len);
            copy[i] ^= (uint8_t)(1u << bit);
            tempo__rpf_error err;
            uint64_t ok;
            int64_t r = tempo__rpf_check(copy, m.len, &ok, &err);
            if (r != TEMPO_EFORMAT) {
                if (missed++ < 5)
                    tt_fail(__FILE__, __LINE__, "flip of byte %zu bit %d not caught (%lld)", i, bit,
                            (long long)r);
                continue;
            }
            /* Reported in the block that holds the byte (or the header),
             * at that block's first tick. */
            int b = -1;
            for (int k = 0; k < nb; k++)
                if (at[k] <= i)
                    b = k;
            uint64_t want_tick = b < 0 ? 0 : first[b];
            size_t want_lo = b < 0 ? 0 : at[b];
            if (err.tick != want_tick || err.offset < want_lo || (b < 0 && err.offset >= header_size_of(m.p))) {
                if (missed++ < 5)
                    tt_fail(__FILE__, __LINE__, "flip of byte %zu: offset %zu tick %llu (%s), want tick %llu",
                            i, err.offset, (unsigned long long)err.tick, err.why, (unsigned long long)want_tick);
            }
        }
    }
    CHECK_EQ_U64(missed, 0);
    free(copy);
    free(m.p);
}

static void a_failing_sink_sticks(void)
{
    membuf m = {.fail_after = 3};
    tempo__rpf_writer w;
    tempo__rpf_header h = test_header();
    CHECK_EQ_INT(tempo__rpf_writer_init(&w, &h, mem_sink, &m), 0);
    CHECK_EQ_INT(tempo__rpf_end_tick(&w), 0);
    CHECK_EQ_INT(tempo__rpf_flush(&w), 0);
    CHECK_EQ_INT(tempo__rpf_end_tick(&w), 0);
    CHECK_EQ_INT(tempo__rpf_flush(&w), TEMPO_EIO);
    CHECK_EQ_INT(tempo__rpf_write_hash(&w, 1), TEMPO_EIO);
    CHECK_EQ_INT(tempo__rpf_finish(&w, 0, false), TEMPO_EIO);
    tempo__rpf_writer_free(&w);
    /* What reached the sink is a valid prefix: one tick, no END. */
    tempo__rpf_error err;
    uint64_t ok;
    CHECK_EQ_INT(tempo__rpf_check(m.p, m.len, &ok, &err), TEMPO_EFORMAT);
    CHECK_EQ_U64(ok, 1);
    CHECK(strstr(err.why, "no end record") != NULL);
    free(m.p);
}

static void bad_headers_are_named(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    tempo__rpf_error err;
    tempo__rpf_reader r;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, (const uint8_t *)"GIF89a...", 9, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "magic") != NULL);
    uint8_t *c = malloc(m.len);
    memcpy(c, m.p, m.len);
    c[8] = 4; /* version 4 */
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, c, m.len, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "version 4") != NULL);
    CHECK_EQ_U64(err.offset, 8);
    /* A meta size that disagrees with the header size, and one over the
     * limit (checked before the checksum, so named as such). */
    memcpy(c, m.p, m.len);
    c[80] ^= 1;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, c, m.len, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "header size") != NULL);
    tt_note("%s", err.why);
    memcpy(c, m.p, m.len);
    c[81] = 0x20; /* 8192 + ... bytes */
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, c, m.len, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "over the limit") != NULL);
    CHECK_EQ_U64(err.offset, 80);
    free(c);
    free(m.p);
}

/* Files of format version 2 (fingerprint and meta, no build identity),
 * such as tests/data/replay_game.trec, still read: the same records, the
 * identity unknown (""). A version-2 image is the version-3 one without
 * the identity's size and bytes, its header size and CRC made again. */
static void version_2_files_still_read(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    size_t hs = header_size_of(m.p), h2 = TEMPO__RPF_HEADER_MIN + sizeof test_meta;
    size_t len = h2 + (m.len - hs);
    uint8_t *v2 = malloc(len);
    memcpy(v2, m.p, h2 - 4); /* magic .. meta: the same bytes */
    v2[8] = 2;
    v2[9] = 0;
    v2[10] = (uint8_t)h2;
    v2[11] = (uint8_t)(h2 >> 8);
    uint32_t crc = tempo__crc32(0, v2, h2 - 4);
    for (int i = 0; i < 4; i++)
        v2[h2 - 4 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(v2 + h2, m.p + hs, m.len - hs);
    tempo__rpf_error err;
    CHECK_EQ_INT(tempo__rpf_check(v2, len, NULL, &err), 40);
    tempo__rpf_reader r;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, v2, len, &err), 0);
    CHECK_EQ_U64(r.header.version, 2);
    CHECK_EQ_U64(r.header.size, h2);
    CHECK_EQ_U64(r.header.fingerprint, 0x01000003u);
    CHECK_EQ_U64(r.header.meta_size, sizeof test_meta);
    CHECK_STR_EQ(r.header.identity, "");
    /* A version-3 header whose identity runs past its size is refused. */
    uint8_t *bad = malloc(m.len);
    memcpy(bad, m.p, m.len);
    bad[84 + sizeof test_meta] = 200; /* identity size 200 > 127 */
    crc = tempo__crc32(0, bad, hs - 4);
    for (int i = 0; i < 4; i++)
        bad[hs - 4 + i] = (uint8_t)(crc >> (8 * i));
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, bad, m.len, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "build identity of 200 bytes") != NULL);
    free(bad);
    free(v2);
    free(m.p);
}

/* Files of format version 1 (80-byte header: no fingerprint, no meta),
 * such as tests/data/bounce_*.trec, still read: the same records. */
static void version_1_files_still_read(void)
{
    membuf m = {0};
    uint64_t ticks;
    build_sample(&m, &ticks);
    size_t hs = header_size_of(m.p);
    size_t len = TEMPO__RPF_HEADER_V1 + (m.len - hs);
    uint8_t *v1 = malloc(len);
    memcpy(v1, m.p, 76); /* magic .. backend: the same bytes */
    v1[8] = 1;
    v1[9] = 0;
    v1[10] = TEMPO__RPF_HEADER_V1;
    v1[11] = 0;
    uint32_t crc = tempo__crc32(0, v1, 76);
    for (int i = 0; i < 4; i++)
        v1[76 + i] = (uint8_t)(crc >> (8 * i));
    memcpy(v1 + TEMPO__RPF_HEADER_V1, m.p + hs, m.len - hs);
    tempo__rpf_error err;
    CHECK_EQ_INT(tempo__rpf_check(v1, len, NULL, &err), 40);
    tempo__rpf_reader r1, r2;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r1, v1, len, &err), 0);
    CHECK_EQ_U64(r1.header.version, 1);
    CHECK_EQ_U64(r1.header.size, TEMPO__RPF_HEADER_V1);
    CHECK_EQ_U64(r1.header.fingerprint, 0);
    CHECK_EQ_U64(r1.header.meta_size, 0);
    CHECK(r1.header.meta == NULL);
    CHECK_EQ_U64(r1.header.seed, 0x1122334455667788u);
    CHECK_STR_EQ(r1.header.backend, "sdl");
    CHECK_EQ_INT(tempo__rpf_reader_init(&r2, m.p, m.len, &err), 0);
    tempo__rpf_record a, b;
    int ga, gb, n = 0;
    while ((ga = tempo__rpf_next(&r1, &a, &err)) == 1 && (gb = tempo__rpf_next(&r2, &b, &err)) == 1) {
        CHECK_EQ_INT(a.kind, b.kind);
        CHECK_EQ_U64(a.tick, b.tick);
        CHECK_EQ_U64(a.offset + hs, b.offset + TEMPO__RPF_HEADER_V1);
        n++;
    }
    CHECK_EQ_INT(ga, 0);
    CHECK_GE_INT(n, 40);
    /* A version-1 header of another size is refused. */
    v1[10] = 88;
    CHECK_EQ_INT(tempo__rpf_reader_init(&r1, v1, len, &err), TEMPO_EFORMAT);
    CHECK(strstr(err.why, "header size 88") != NULL);
    free(v1);
    free(m.p);
}

/* The writer takes up to TEMPO__RPF_META_MAX bytes of meta and refuses more. */
static void meta_has_a_limit(void)
{
    static uint8_t big[TEMPO__RPF_META_MAX + 1];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    tempo__rpf_header h = test_header();
    h.meta = big;
    h.meta_size = TEMPO__RPF_META_MAX;
    membuf m = {0};
    tempo__rpf_writer w;
    CHECK_EQ_INT(tempo__rpf_writer_init(&w, &h, mem_sink, &m), 0);
    CHECK_EQ_INT(tempo__rpf_end_tick(&w), 0);
    CHECK_EQ_INT(tempo__rpf_finish(&w, 0, false), 0);
    tempo__rpf_writer_free(&w);
    tempo__rpf_reader r;
    tempo__rpf_error err;
    CHECK_EQ_INT(tempo__rpf_check(m.p, m.len, NULL, &err), 1);
    CHECK_EQ_INT(tempo__rpf_reader_init(&r, m.p, m.len, &err), 0);
    CHECK_EQ_U64(r.header.meta_size, TEMPO__RPF_META_MAX);
    CHECK(memcmp(r.header.meta, big, TEMPO__RPF_META_MAX) == 0);
    free(m.p);
    membuf m2 = {0};
    h.meta_size = TEMPO__RPF_META_MAX + 1;
    CHECK_EQ_INT(tempo__rpf_writer_init(&w, &h, mem_sink, &m2), TEMPO_ERANGE);
    tempo__rpf_writer_free(&w);
    CHECK_EQ_U64(m2.len, 0);
    free(m2.p);
}

static void fingerprints_are_described(void)
{
    char buf[256];
    CHECK_EQ_INT(tempo_fingerprint_describe(0, buf, sizeof buf), (int)strlen("fingerprint unknown"));
    CHECK_STR_EQ(buf, "fingerprint unknown");
    tempo_fingerprint_describe(TEMPO_FINGERPRINT_PORTABLE, buf, sizeof buf);
    CHECK_STR_EQ(buf, "fingerprint 01000000: portable (no fusing, no wide intermediates, FLT_EVAL_METHOD 0)");
    tempo_fingerprint_describe(0x01000001u, buf, sizeof buf);
    CHECK_STR_EQ(buf, "fingerprint 01000001: a*b+c fused (FMA contraction or a wide product) in float, "
                      "FLT_EVAL_METHOD 0");
    /* What i686 without SSE gives (measured: .ci/fp-matrix). */
    int n = tempo_fingerprint_describe(0x0100020fu, buf, sizeof buf);
    CHECK_STR_EQ(buf, "fingerprint 0100020f: a*b+c fused (FMA contraction or a wide product) in float and double, "
                      "intermediates wider than their type (x87 excess precision) in float and double, "
                      "FLT_EVAL_METHOD 2");
    CHECK_EQ_INT(n, (int)strlen(buf));
    tempo_fingerprint_describe(0x01000030u | 0xFF00u, buf, sizeof buf);
    CHECK_STR_EQ(buf, "fingerprint 0100ff30: subnormals flushed to zero, -ffast-math, FLT_EVAL_METHOD -1");
    tempo_fingerprint_describe(0x02000000u, buf, sizeof buf);
    CHECK_STR_EQ(buf, "fingerprint 02000000: probe version 2 (this Tempo knows 1)");
    /* snprintf's contract: the needed length, a terminated prefix. */
    char small[12];
    CHECK_EQ_INT(tempo_fingerprint_describe(0x0100020fu, small, sizeof small), n);
    CHECK_STR_EQ(small, "fingerprint");
    CHECK_EQ_INT(tempo_fingerprint_describe(0x0100020fu, NULL, 0), n);
    CHECK_EQ_INT(tempo_fingerprint_describe(0x0100020fu, NULL, 5), TEMPO_EINVAL);
    /* This test is built with tempo-deterministic's flags. */
    CHECK_EQ_U64(tempo_fingerprint(), TEMPO_FINGERPRINT_PORTABLE);
}

#include "replay_game.h"

static int live_read_limit; /* game.read_limit and use_queued for the next record/replay */

/* Replays `path` with a fresh game and returns the result. */
static tempo_replay_result replay_file(const char *path, bool partial, uint64_t perturb_at, uint64_t *seed_out)
{
    tempo_replay_result res;
    memset(&res, 0, sizeof res);
    game g;
    game_init(&g, 0, NULL, NULL);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){
        .path = path, .hash = game_hash, .hash_user = &g, .partial = partial});
    if (rp == NULL) {
        tt_fail(__FILE__, __LINE__, "tempo_replay_create(%s): %s", path, tempo_get_error());
        return res;
    }
    const tempo_replay_info *info = tempo_replay_get_info(rp);
    tempo_input *in = new_input();
    game_init(&g, info->seed, in, NULL);
    g.perturb_at = perturb_at;
    g.read_limit = live_read_limit;
    g.use_queued = live_read_limit != 0;
    if (seed_out)
        *seed_out = info->seed;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 30, /* the replay sets the recorded rate */
        .update = on_update, .render = on_render, .user = &g, .input = in, .clock = tempo_replay_clock(rp)});
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &g), 0);
    CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    CHECK_EQ_INT(tempo_loop_get_update_hz(loop), info->update_hz);
    CHECK_EQ_INT(run(loop), 1);
    CHECK_EQ_INT(tempo_replay_get_result(rp, &res), 0);
    CHECK_EQ_U64(g.s.updates, info->ticks);
    tempo_loop_destroy(loop);
    tempo_replay_destroy(rp);
    tempo_input_destroy(in);
    return res;
}

/* ---- Loop cases ------------------------------------------------------------------------ */

/* The scripted game at every render rate: one constant. Each run is also
 * recorded and replayed. */
static void same_constant_at_every_render_rate(void)
{
    static const uint32_t rates[] = {15, 30, 60, 144, 0};
    for (size_t i = 0; i < 5 && !tt_failed(); i++) {
        fclock c;
        fclock_init(&c, rates[i] * 2654435761u);
        game g;
        tempo_input *in = new_input();
        game_init(&g, 42, in, &c);
        g.stop_after = 10000;
        tempo_loop *loop = make_loop(&g, &c, in, rates[i], TEMPO_LOOP_INTERPOLATED);
        CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_rate.trec", .seed = 42,
                                                                  .hash = game_hash, .hash_user = &g,
                                                                  .hash_every = 100}),
                     0);
        CHECK_EQ_INT(run(loop), 1);
        uint64_t h = game_hash(loop, &g);
        tt_note("render %3u Hz: %6llu renders, hash %016llx", rates[i], (unsigned long long)g.renders,
                (unsigned long long)h);
        CHECK_EQ_U64(g.s.updates, 10000);
        CHECK_EQ_U64(h, GAME_HASH_10K);
        CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
        tempo_loop_destroy(loop);
        tempo_input_destroy(in);
        uint64_t seed = 0;
        tempo_replay_result res = replay_file("test_replay_rate.trec", false, 0, &seed);
        CHECK_EQ_U64(seed, 42);
        CHECK(res.matches);
        CHECK_EQ_U64(res.ticks, 10000);
        CHECK_EQ_U64(res.checks, 100 + 1);
        CHECK_EQ_U64(res.hash, GAME_HASH_10K);
    }
}

/* Input and messages arrive at wall-clock moments, so which tick sees them
 * depends on the schedule; the replay on another clock gives them to the
 * same ticks. */
static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    CHECK(a != NULL && b != NULL);
    char buf[4096];
    size_t n;
    while (a != NULL && b != NULL && (n = fread(buf, 1, sizeof buf, a)) > 0)
        fwrite(buf, 1, n, b);
    if (a != NULL)
        fclose(a);
    if (b != NULL)
        fclose(b);
}

/* Records the live game. cut_copy: copy the file there before stopping,
 * as a crash would leave it. */
static uint64_t record_live_ex(const char *path, uint32_t render_hz, tempo_loop_policy policy, uint64_t ticks,
                               const char *cut_copy, tempo_record_stats *st, uint32_t hash_every,
                               uint32_t flush_every)
{
    fclock c;
    fclock_init(&c, render_hz);
    c.live = true;
    game g;
    tempo_input *in = new_input();
    game_init(&g, 7, in, &c);
    g.stop_after = ticks;
    g.read_limit = live_read_limit;
    g.use_queued = live_read_limit != 0;
    tempo_loop *loop = make_loop(&g, &c, in, render_hz, policy);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = path, .seed = 7, .hash = game_hash,
                                                              .hash_user = &g, .hash_every = hash_every,
                                                              .flush_every = flush_every}),
                 0);
    CHECK_EQ_INT(run(loop), 1);
    uint64_t h = game_hash(loop, &g);
    if (st != NULL)
        tempo_loop_get_record_stats(loop, st);
    if (cut_copy != NULL)
        copy_file(path, cut_copy);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    return h;
}

static uint64_t record_live(const char *path, uint32_t render_hz, tempo_loop_policy policy, uint64_t ticks,
                            bool stop, tempo_record_stats *st)
{
    (void)stop;
    return record_live_ex(path, render_hz, policy, ticks, NULL, st, 1, 1);
}

static void live_input_replays_on_another_clock(void)
{
    tempo_record_stats st;
    uint64_t h = record_live("test_replay_live.trec", 60, TEMPO_LOOP_INTERPOLATED, 10000, true, &st);
    tt_note("recorded %llu ticks, %llu inputs, %llu messages, %llu bytes, hash %016llx",
            (unsigned long long)st.ticks, (unsigned long long)st.inputs, (unsigned long long)st.items,
            (unsigned long long)st.bytes, (unsigned long long)h);
    CHECK_GE_U64(st.inputs, 500);
    CHECK_GE_U64(st.items, 200);
    CHECK_EQ_U64(st.input_in_update, 0);
    /* Another render rate live gives another game: the arrivals matter. */
    uint64_t h144 = record_live("test_replay_live144.trec", 144, TEMPO_LOOP_INTERPOLATED, 10000, true, NULL);
    CHECK(h144 != h);
    tempo_replay_result res = replay_file("test_replay_live.trec", false, 0, NULL);
    CHECK(res.matches);
    CHECK_EQ_U64(res.ticks, 10000);
    CHECK_EQ_U64(res.checks, 10000 + 1);
    CHECK_EQ_U64(res.hash, h);
    res = replay_file("test_replay_live144.trec", false, 0, NULL);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, h144);
}

/* A game that reads one event per update, leaving the rest queued, and
 * looks at how many wait: the ring itself must be the same in every
 * replayed update, not just the events read. */
static void the_ring_is_replayed_not_just_the_reads(void)
{
    live_read_limit = 1;
    uint64_t h = record_live("test_replay_ring.trec", 144, TEMPO_LOOP_INTERPOLATED, 3000, true, NULL);
    tempo_replay_result res = replay_file("test_replay_ring.trec", false, 0, NULL);
    live_read_limit = 0;
    CHECK(res.matches);
    if (!res.matches)
        tt_note("diverged at tick %llu", (unsigned long long)res.diverged_at);
    CHECK_EQ_U64(res.hash, h);
}

static void the_first_divergent_tick_is_named(void)
{
    record_live("test_replay_div.trec", 60, TEMPO_LOOP_INTERPOLATED, 3000, true, NULL);
    tempo_replay_result res = replay_file("test_replay_div.trec", false, 1234, NULL);
    CHECK(!res.matches);
    CHECK(res.finished);
    CHECK_EQ_U64(res.diverged_at, 1234);
    CHECK_EQ_U64(res.last_match, 1233);
    CHECK(res.expected != res.actual);
}

static void variable_dt_is_replayed(void)
{
    uint64_t h = record_live("test_replay_var.trec", 75, TEMPO_LOOP_VARIABLE, 2000, true, NULL);
    tempo_replay_result res = replay_file("test_replay_var.trec", false, 0, NULL);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, h);
}

static void a_cut_recording_replays_up_to_the_cut(void)
{
    /* Recorded but never stopped (as after a crash): the file holds every
     * flushed tick; without `partial` it does not open. */
    record_live_ex("test_replay_whole.trec", 60, TEMPO_LOOP_INTERPOLATED, 500, "test_replay_cut.trec", NULL, 1, 1);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_cut.trec"});
    CHECK(rp == NULL);
    const char *e = tempo_get_error();
    CHECK(strstr(e, "tick 500") != NULL);
    CHECK(strstr(e, "no end record") != NULL);
    CHECK(strstr(e, "byte") != NULL);
    tt_note("%s", e);
    tempo_replay_result res = replay_file("test_replay_cut.trec", true, 0, NULL);
    CHECK(res.matches);
    CHECK_EQ_U64(res.ticks, 500);
    CHECK_EQ_U64(res.checks, 500);
}

static void a_corrupt_file_names_offset_and_tick(void)
{
    record_live("test_replay_bad.trec", 60, TEMPO_LOOP_INTERPOLATED, 300, true, NULL);
    FILE *f = fopen("test_replay_bad.trec", "r+b");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(ch ^ 0x10, f);
    fclose(f);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_bad.trec"});
    CHECK(rp == NULL);
    const char *e = tempo_get_error();
    tt_note("%s", e);
    CHECK(strstr(e, "test_replay_bad.trec: byte ") != NULL);
    CHECK(strstr(e, "checksum") != NULL);
    rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_bad.trec", .partial = true});
    CHECK(rp != NULL);
    if (rp != NULL) {
        const tempo_replay_info *info = tempo_replay_get_info(rp);
        CHECK(!info->complete);
        CHECK_LT_U64(info->ticks, 300);
        CHECK_GE_U64(info->ticks, 100);
        CHECK(strstr(info->damage, "checksum") != NULL);
    }
    tempo_replay_destroy(rp);
    CHECK(tempo_replay_create(&(tempo_replay_desc){.path = "no-such-file.trec"}) == NULL);
}

static void the_committed_recording_replays_to_its_constant(void)
{
    /* How the fixture was made (on the sdl backend, x86-64, gcc with
     * tempo-deterministic's flags): this recording, copied into
     * tests/data. It is made again here each run so a change of format or
     * game shows up as a different hash below. */
    uint64_t h = record_live_ex("test_replay_fixture.trec", 60, TEMPO_LOOP_INTERPOLATED, 1000, NULL, NULL, 10, 60);
    tt_note("a fresh recording: hash %016llx", (unsigned long long)h);
    CHECK_EQ_U64(h, FIXTURE_HASH);
    if (fixture_path == NULL)
        TT_SKIP("no --fixture PATH");
    tempo_replay_result res = replay_file(fixture_path, false, 0, NULL);
    tt_note("fixture: %llu ticks, hash %016llx", (unsigned long long)res.ticks, (unsigned long long)res.hash);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, FIXTURE_HASH);
    /* Recorded by a portable build, replayed by one (this test is built
     * with the flags): no mismatch. */
    CHECK_EQ_U64(res.fingerprint_recorded, TEMPO_FINGERPRINT_PORTABLE);
    CHECK_EQ_U64(res.fingerprint_replay, tempo_fingerprint());
    CHECK(!res.fingerprint_differs);
    CHECK(!res.build_differs);
    /* The committed fixture is format version 2 (before the build
     * identity): it still opens and replays (above), identity unknown. */
    tempo_replay *rp2 = tempo_replay_create(&(tempo_replay_desc){.path = fixture_path});
    CHECK(rp2 != NULL);
    if (rp2 != NULL) {
        CHECK_EQ_U64(tempo_replay_get_info(rp2)->version, 2);
        CHECK_STR_EQ(tempo_replay_get_info(rp2)->identity, "");
    }
    tempo_replay_destroy(rp2);
    /* The same recording in format version 1 (as committed before the
     * fingerprint and meta existed): the same replay, fingerprint unknown. */
    if (fixture_v1_path == NULL)
        TT_SKIP("no --fixture-v1 PATH");
    res = replay_file(fixture_v1_path, false, 0, NULL);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, FIXTURE_HASH);
    CHECK_EQ_U64(res.fingerprint_recorded, 0);
    CHECK(!res.fingerprint_differs);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = fixture_v1_path});
    CHECK(rp != NULL);
    if (rp != NULL) {
        CHECK_EQ_U64(tempo_replay_get_info(rp)->version, 1);
        CHECK_EQ_U64(tempo_replay_get_info(rp)->meta_size, 0);
        CHECK(tempo_replay_get_info(rp)->meta == NULL);
    }
    tempo_replay_destroy(rp);
}

/* The game's meta blob and the recorder's fingerprint reach the replay. */
static void meta_and_fingerprint_reach_the_replay(void)
{
    static const uint8_t meta[] = {'v', '1', '.', '4', 0, 0xFF, 0x80, 7, 11, 13};
    fclock c;
    fclock_init(&c, 3);
    game g;
    game_init(&g, 99, NULL, &c);
    g.stop_after = 120;
    tempo_loop *loop = make_loop(&g, &c, NULL, 60, TEMPO_LOOP_INTERPOLATED);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_meta.trec", .seed = 99,
                                                              .hash = game_hash, .hash_user = &g,
                                                              .meta = meta, .meta_size = sizeof meta}),
                 0);
    CHECK_EQ_INT(run(loop), 1);
    tempo_loop_destroy(loop);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_meta.trec"});
    CHECK(rp != NULL);
    if (rp == NULL)
        return;
    const tempo_replay_info *info = tempo_replay_get_info(rp);
    CHECK_EQ_U64(info->version, 3);
    CHECK_STR_EQ(info->identity, TEMPO_BUILD_IDENTITY); /* the game's, expanded in this file */
    CHECK_EQ_U64(info->seed, 99);
    CHECK_EQ_U64(info->meta_size, sizeof meta);
    CHECK(info->meta != NULL && memcmp(info->meta, meta, sizeof meta) == 0);
    CHECK_EQ_U64(info->fingerprint, tempo_fingerprint());
    CHECK_EQ_U64(info->fingerprint, TEMPO_FINGERPRINT_PORTABLE); /* built with the flags */
    tempo_replay_destroy(rp);
}

/* ---- Log capture: Tempo's lines go through SDL_Log ---- */

typedef struct log_capture {
    char lines[8][1400];
    int n;
    const game *g;              /* the game, to see when a line came */
    uint64_t updates_at[8];     /* g->s.updates when each line was logged */
} log_capture;

static void capture_log(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)category;
    log_capture *lc = user;
    if (priority < SDL_LOG_PRIORITY_WARN || lc->n >= 8)
        return;
    snprintf(lc->lines[lc->n], sizeof lc->lines[0], "%s", message);
    lc->updates_at[lc->n] = lc->g != NULL ? lc->g->s.updates : 0;
    lc->n++;
}

/* tempo_get_error() of the last replay_logged_as that was refused. */
static char refusal[1400];

/* Replays `path` with a fresh game while capturing Tempo's log lines, as
 * build `here` (NULL: this file's, through tempo_loop_replay), with
 * desc.other_build = `other_build`. *rc gets tempo_loop_replay's return;
 * on an error nothing runs. */
static tempo_replay_result replay_logged_as(const char *path, uint64_t perturb_at, log_capture *lc,
                                           const tempo_build *here, bool other_build, int *rc)
{
    SDL_LogOutputFunction prev;
    void *prev_user;
    SDL_LogGetOutputFunction(&prev, &prev_user);
    game g;
    memset(lc, 0, sizeof *lc);
    lc->g = &g;
    SDL_LogSetOutputFunction(capture_log, lc);
    game_init(&g, 0, NULL, NULL);
    tempo_replay_result res;
    memset(&res, 0, sizeof res);
    tempo_replay *rp = tempo_replay_create(
        &(tempo_replay_desc){.path = path, .hash = game_hash, .hash_user = &g, .other_build = other_build});
    CHECK(rp != NULL);
    *rc = TEMPO_EINVAL;
    if (rp != NULL) {
        tempo_input *in = new_input();
        game_init(&g, tempo_replay_get_info(rp)->seed, in, NULL);
        g.perturb_at = perturb_at;
        tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
            .update = on_update, .render = on_render, .user = &g, .input = in, .clock = tempo_replay_clock(rp)});
        CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &g), 0);
        *rc = here != NULL ? tempo_loop_replay_build(loop, rp, here) : tempo_loop_replay(loop, rp);
        if (*rc == 0)
            CHECK_EQ_INT(run(loop), 1);
        else
            snprintf(refusal, sizeof refusal, "%s", tempo_get_error());
        CHECK_EQ_INT(tempo_replay_get_result(rp, &res), 0);
        tempo_loop_destroy(loop);
        tempo_replay_destroy(rp);
        tempo_input_destroy(in);
    }
    SDL_LogSetOutputFunction(prev, prev_user);
    lc->g = NULL;
    for (int i = 0; i < lc->n; i++)
        tt_note("logged after %llu updates: %s", (unsigned long long)lc->updates_at[i], lc->lines[i]);
    return res;
}

/* replay_logged_as with this file's build and no opt-in; the replay must start. */
static tempo_replay_result replay_logged(const char *path, uint64_t perturb_at, log_capture *lc)
{
    int rc;
    tempo_replay_result res = replay_logged_as(path, perturb_at, lc, NULL, false, &rc);
    CHECK_EQ_INT(rc, 0);
    return res;
}

/* tempo_build_compare's rules, on fabricated builds. */
static void builds_are_compared(void)
{
    const uint32_t P = TEMPO_FINGERPRINT_PORTABLE, F = P | TEMPO_FINGERPRINT_FUSED_FLOAT | TEMPO_FINGERPRINT_FUSED_DOUBLE;
    const char *gcc = "gcc 12.2.0, x86_64 +fma fpmath=sse2, optimized";
    const char *clang = "clang 14.0.6, aarch64 +fast-fma, optimized";
    char why[1024];
    /* Portable on both sides: any compiler, any CPU. */
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){P, gcc, NULL}, &(tempo_build){P, clang, NULL}, why, sizeof why), 0);
    CHECK_STR_EQ(why, "");
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){P, NULL, NULL}, &(tempo_build){P, clang, NULL}, why, sizeof why), 0);
    /* Unknown fingerprint (a version-1 recording): not checkable, allowed. */
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){0, NULL, NULL}, &(tempo_build){F, gcc, NULL}, why, sizeof why), 0);
    /* Fingerprints differ. */
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){F, gcc, "recorded"}, &(tempo_build){P, gcc, "this build"}, why,
                                     sizeof why),
                 TEMPO_EBUILD);
    tt_note("%s", why);
    CHECK(strstr(why, "built differently (recorded: fingerprint 01000003: ") != NULL);
    CHECK(strstr(why, "; this build: fingerprint 01000000: portable") != NULL);
    CHECK(strstr(why, "the floating-point fingerprints differ") != NULL);
    CHECK(strstr(why, "-ffp-contract=off") != NULL);
    CHECK(strstr(why, "deterministic_consumers") != NULL);
    /* The same fused fingerprint from two compilers and CPUs (gcc
     * x86-64-v3 and clang aarch64 both give 01000003): refused. */
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){F, gcc, "theirs"}, &(tempo_build){F, clang, "ours"}, why,
                                     sizeof why),
                 TEMPO_EBUILD);
    CHECK(strstr(why, gcc) != NULL && strstr(why, clang) != NULL);
    CHECK(strstr(why, "theirs: ") != NULL && strstr(why, "; ours: ") != NULL);
    CHECK(strstr(why, "not portable") != NULL);
    /* ... and from the very same build: allowed. An unknown identity
     * cannot prove that: refused. */
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){F, gcc, NULL}, &(tempo_build){F, gcc, NULL}, why, sizeof why), 0);
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){F, "", NULL}, &(tempo_build){F, gcc, NULL}, why, sizeof why),
                 TEMPO_EBUILD);
    CHECK(strstr(why, "one build: fingerprint 01000003: ") != NULL);
    CHECK(strstr(why, "build identity unknown") != NULL);
    /* Sizes and arguments. */
    char small[8];
    int n = tempo_build_compare(&(tempo_build){F, gcc, NULL}, &(tempo_build){P, gcc, NULL}, small, sizeof small);
    CHECK_EQ_INT(n, TEMPO_EBUILD);
    CHECK_STR_EQ(small, "built d");
    CHECK_EQ_INT(tempo_build_compare(&(tempo_build){F, gcc, NULL}, &(tempo_build){P, gcc, NULL}, NULL, 0), TEMPO_EBUILD);
    CHECK_EQ_INT(tempo_build_compare(NULL, &(tempo_build){P, gcc, NULL}, why, sizeof why), TEMPO_EINVAL);
    /* This file's identity names its compiler and target. */
    tt_note("this build: %s", TEMPO_BUILD_IDENTITY);
    CHECK(strlen(TEMPO_BUILD_IDENTITY) < TEMPO_BUILD_IDENTITY_MAX);
#if defined(__clang__)
    CHECK(strncmp(TEMPO_BUILD_IDENTITY, "clang ", 6) == 0);
#elif defined(__GNUC__)
    CHECK(strncmp(TEMPO_BUILD_IDENTITY, "gcc ", 4) == 0);
#endif
    CHECK_STR_EQ(tempo_strerror(TEMPO_EBUILD), "built differently: floating-point results may differ");
}

/* Records 600 ticks of the scripted game as build `b`. */
static void record_as(const char *path, const tempo_build *b)
{
    fclock c;
    fclock_init(&c, 60);
    c.live = true;
    game g;
    tempo_input *in = new_input();
    game_init(&g, 5, in, &c);
    g.stop_after = 600;
    tempo_loop *loop = make_loop(&g, &c, in, 60, TEMPO_LOOP_INTERPOLATED);
    CHECK_EQ_INT(tempo_loop_record_build(loop, &(tempo_record_desc){.path = path, .seed = 5, .hash = game_hash,
                                                                    .hash_user = &g, .hash_every = 1},
                                         b),
                 0);
    CHECK_EQ_INT(run(loop), 1);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
}

/* A recording made by a build with other floating-point behaviour (here
 * fabricated: a fingerprint with fusing on) is refused before the first
 * tick, with both builds and the fix in tempo_get_error(); with
 * desc.other_build it replays after one line, and the desync report names
 * both builds. A replay on the same build logs nothing, and its desync
 * report points at the other causes. */
static void another_fingerprint_is_refused_or_named_when_asked(void)
{
    uint32_t here = tempo_fingerprint();
    uint32_t other = here | TEMPO_FINGERPRINT_FUSED_FLOAT | TEMPO_FINGERPRINT_FUSED_DOUBLE;
    CHECK(other != here);
    record_as("test_replay_otherfp.trec", &(tempo_build){other, TEMPO_BUILD_IDENTITY, NULL});
    char want_rec[256], want_here[256];
    tempo_fingerprint_describe(other, want_rec, sizeof want_rec);
    tempo_fingerprint_describe(here, want_here, sizeof want_here);

    /* Refused: nothing runs, nothing is logged at WARN. */
    log_capture lc;
    int rc;
    tempo_replay_result res = replay_logged_as("test_replay_otherfp.trec", 0, &lc, NULL, false, &rc);
    CHECK_EQ_INT(rc, TEMPO_EBUILD);
    const char *e = refusal;
    tt_note("refused: %s", e);
    CHECK(strstr(e, "tempo_loop_replay: test_replay_otherfp.trec: built differently (recorded: ") != NULL);
    CHECK(strstr(e, want_rec) != NULL);
    CHECK(strstr(e, want_here) != NULL);
    CHECK(strstr(e, "; this build: ") != NULL);
    CHECK(strstr(e, "the floating-point fingerprints differ") != NULL);
    CHECK(strstr(e, "other_build") != NULL);
    CHECK_EQ_U64(res.ticks, 0);

    /* The opt-in: the same floats here (the fingerprint is fabricated), so
     * it matches, after one line before the first update. */
    res = replay_logged_as("test_replay_otherfp.trec", 0, &lc, NULL, true, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(res.matches);
    CHECK(res.fingerprint_differs);
    CHECK(res.build_differs);
    CHECK_EQ_U64(res.fingerprint_recorded, other);
    CHECK_EQ_U64(res.fingerprint_replay, here);
    CHECK_STR_EQ(res.report, "");
    CHECK_EQ_INT(lc.n, 1);
    CHECK_EQ_U64(lc.updates_at[0], 0);
    CHECK(strstr(lc.lines[0], "replay: test_replay_otherfp.trec (replayed anyway: desc.other_build): built "
                              "differently") != NULL);
    CHECK(strstr(lc.lines[0], want_rec) != NULL);
    CHECK(strstr(lc.lines[0], want_here) != NULL);

    /* Diverging at tick 321: the same line first, then the report. */
    res = replay_logged_as("test_replay_otherfp.trec", 321, &lc, NULL, true, &rc);
    CHECK(!res.matches);
    CHECK_EQ_U64(res.diverged_at, 321);
    CHECK_EQ_INT(lc.n, 2);
    CHECK_EQ_U64(lc.updates_at[0], 0);
    CHECK_EQ_U64(lc.updates_at[1], 321);
    CHECK_STR_EQ(lc.lines[1], res.report);
    CHECK(strstr(res.report, "replay: test_replay_otherfp.trec diverges at tick 321 (hash ") != NULL);
    CHECK(strstr(res.report, "last equal at tick 320") != NULL);
    CHECK(strstr(res.report, "built differently") != NULL);
    CHECK(strstr(res.report, want_rec) != NULL);
    CHECK(strstr(res.report, want_here) != NULL);
    CHECK(strstr(res.report, "libm") == NULL); /* the build is to blame, not memory or libm */
    char hashes[80];
    snprintf(hashes, sizeof hashes, "hash %016llx, recorded %016llx", (unsigned long long)res.actual,
             (unsigned long long)res.expected);
    CHECK(strstr(res.report, hashes) != NULL);

    /* Recorded and replayed by this build: no line before, and a report
     * that says the builds agree and blames the rest. */
    record_live("test_replay_samefp.trec", 60, TEMPO_LOOP_INTERPOLATED, 600, true, NULL);
    res = replay_logged("test_replay_samefp.trec", 0, &lc);
    CHECK(res.matches);
    CHECK(!res.fingerprint_differs);
    CHECK(!res.build_differs);
    CHECK_EQ_INT(lc.n, 0);
    res = replay_logged("test_replay_samefp.trec", 200, &lc);
    CHECK_EQ_U64(res.diverged_at, 200);
    CHECK_EQ_INT(lc.n, 1);
    CHECK(strstr(res.report, "same floating-point fingerprint") != NULL);
    CHECK(strstr(res.report, want_here) != NULL);
    CHECK(strstr(res.report, TEMPO_BUILD_IDENTITY) != NULL);
    CHECK(strstr(res.report, "libm") != NULL);
}

/* The same non-portable fingerprint from another compiler or CPU (a forged
 * identity here) is refused too: two fused builds fuse other expressions.
 * The opt-in replays it; a portable recording from another compiler
 * replays with no opt-in. */
static void another_build_identity_is_refused(void)
{
    const uint32_t fused = TEMPO_FINGERPRINT_PORTABLE | TEMPO_FINGERPRINT_FUSED_FLOAT | TEMPO_FINGERPRINT_FUSED_DOUBLE;
    const char *forged = "clang 99.0.0, aarch64 +fast-fma, optimized";
    record_as("test_replay_otherid.trec", &(tempo_build){fused, forged, NULL});
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_otherid.trec"});
    CHECK(rp != NULL);
    if (rp != NULL) {
        CHECK_EQ_U64(tempo_replay_get_info(rp)->version, 3);
        CHECK_STR_EQ(tempo_replay_get_info(rp)->identity, forged);
    }
    tempo_replay_destroy(rp);
    /* Replayed as a fused build with this file's identity. */
    tempo_build here = {fused, TEMPO_BUILD_IDENTITY, NULL};
    log_capture lc;
    int rc;
    tempo_replay_result res = replay_logged_as("test_replay_otherid.trec", 0, &lc, &here, false, &rc);
    CHECK_EQ_INT(rc, TEMPO_EBUILD);
    const char *e = refusal;
    tt_note("refused: %s", e);
    CHECK(strstr(e, "tempo_loop_replay: test_replay_otherid.trec: built differently (recorded: fingerprint "
                    "01000003: ") != NULL);
    CHECK(strstr(e, forged) != NULL);
    CHECK(strstr(e, "; this build: fingerprint 01000003: ") != NULL);
    CHECK(strstr(e, TEMPO_BUILD_IDENTITY) != NULL);
    CHECK(strstr(e, "not portable") != NULL);
    CHECK(strstr(e, "-ffp-contract=off") != NULL);
    CHECK(strstr(e, "or set tempo_replay_desc.other_build to replay it anyway") != NULL);
    /* The opt-in replays it (the floats are this build's after all). */
    res = replay_logged_as("test_replay_otherid.trec", 0, &lc, &here, true, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(res.matches);
    CHECK(res.build_differs);
    CHECK(!res.fingerprint_differs);
    CHECK_EQ_INT(lc.n, 1);
    CHECK(strstr(lc.lines[0], forged) != NULL);
    /* The same fused build replays without the opt-in. */
    tempo_build same = {fused, forged, NULL};
    res = replay_logged_as("test_replay_otherid.trec", 0, &lc, &same, false, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(res.matches);
    CHECK(!res.build_differs);
    CHECK_EQ_INT(lc.n, 0);
    /* Portable recordings replay on a portable build of another compiler,
     * and a desync there names both identities before libm. */
    if (tempo_fingerprint() == TEMPO_FINGERPRINT_PORTABLE) {
        record_as("test_replay_otherid.trec", &(tempo_build){TEMPO_FINGERPRINT_PORTABLE, forged, NULL});
        res = replay_logged_as("test_replay_otherid.trec", 0, &lc, NULL, false, &rc);
        CHECK_EQ_INT(rc, 0);
        CHECK(res.matches);
        CHECK(res.build_differs);
        CHECK_EQ_INT(lc.n, 0);
        res = replay_logged_as("test_replay_otherid.trec", 100, &lc, NULL, false, &rc);
        CHECK_EQ_U64(res.diverged_at, 100);
        CHECK(strstr(res.report, "built differently (recorded: clang 99.0.0") != NULL);
        CHECK(strstr(res.report, "both with portable floats") != NULL);
    }
}

/* ---- Events the game consumes on arrival, and tempo_loop_is_replaying ---- */

typedef struct consumer {
    game g;
    uint64_t consumed, consumed_replaying, seen_replaying;
    uint64_t trace; /* order and ticks of what was consumed */
    bool replay_flag_in_update;
} consumer;

/* desc.input_event: keys with a scancode divisible by 5 are the game's
 * "pause/screenshot" keys, consumed on arrival (they never enter the ring). */
static bool consume_keys(tempo_loop *loop, const tempo_input_event *ev, void *user)
{
    consumer *k = user;
    if (tempo_loop_is_replaying(loop))
        k->seen_replaying++;
    if (ev->type != TEMPO_INPUT_KEY || ev->u.key.scancode % 5 != 0)
        return false;
    k->consumed++;
    if (tempo_loop_is_replaying(loop))
        k->consumed_replaying++;
    k->trace = k->trace * 1000003u + (uint64_t)ev->u.key.scancode * 131u + k->g.s.updates;
    return true;
}

static void consumer_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    consumer *k = user;
    if (tempo_loop_is_replaying(loop))
        k->replay_flag_in_update = true;
    on_update(loop, dt_ns, &k->g);
}

static void consumer_render(tempo_loop *loop, float alpha, void *user)
{
    on_render(loop, alpha, &((consumer *)user)->g);
}

static uint64_t consumer_hash(tempo_loop *loop, void *user)
{
    return game_hash(loop, &((consumer *)user)->g);
}

/* Consumed input is recorded and handed to desc.input_event again during
 * a replay, at its tick (documented in tempo/replay.h); the handler can
 * tell with tempo_loop_is_replaying(), and live input does not reach it
 * while the replay runs. */
static void consumed_input_is_replayed_and_is_replaying_says_so(void)
{
    consumer rec;
    memset(&rec, 0, sizeof rec);
    fclock c;
    fclock_init(&c, 17);
    c.live = true;
    tempo_input *in = new_input();
    game_init(&rec.g, 3, in, &c);
    rec.g.stop_after = 1500;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 60, .max_render_hz = 60, .update = consumer_update, .render = consumer_render, .user = &rec,
        .input = in, .input_event = consume_keys, .clock = {fc_now, fc_wait, &c}});
    CHECK(loop != NULL);
    c.loop = loop;
    c.in = in;
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &rec.g), 0);
    CHECK(!tempo_loop_is_replaying(loop));
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_consumed.trec",
                                                              .hash = consumer_hash, .hash_user = &rec,
                                                              .hash_every = 1}),
                 0);
    CHECK(!tempo_loop_is_replaying(loop));
    CHECK_EQ_INT(run(loop), 1);
    uint64_t h = game_hash(loop, &rec.g);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    tt_note("recorded: %llu keys consumed on arrival", (unsigned long long)rec.consumed);
    CHECK_GE_U64(rec.consumed, 10);
    CHECK_EQ_U64(rec.consumed_replaying, 0);
    CHECK_EQ_U64(rec.seen_replaying, 0);
    CHECK(!rec.replay_flag_in_update);

    consumer rp_game;
    memset(&rp_game, 0, sizeof rp_game);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = "test_replay_consumed.trec",
                                                              .hash = consumer_hash, .hash_user = &rp_game});
    CHECK(rp != NULL);
    if (rp == NULL)
        return;
    in = new_input();
    game_init(&rp_game.g, 3, in, NULL);
    loop = tempo_loop_create(&(tempo_loop_desc){.update = consumer_update, .render = consumer_render,
                                                .user = &rp_game, .input = in, .input_event = consume_keys,
                                                .clock = tempo_replay_clock(rp)});
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &rp_game.g), 0);
    CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    CHECK(tempo_loop_is_replaying(loop));
    /* Live input while the replay runs reaches neither the handler nor the ring. */
    tempo_input_event live = {.type = TEMPO_INPUT_KEY};
    live.u.key.scancode = 5;
    live.u.key.down = 1;
    CHECK_EQ_INT(tempo_input_push(in, &live), 0);
    CHECK_EQ_U64(rp_game.consumed, 0);
    CHECK_EQ_INT(run(loop), 1);
    CHECK(tempo_loop_is_replaying(loop)); /* still attached after the run: e.g. to skip saving highscores */
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, h);
    CHECK_EQ_U64(rp_game.consumed, rec.consumed);
    CHECK_EQ_U64(rp_game.consumed_replaying, rec.consumed);
    CHECK_EQ_U64(rp_game.trace, rec.trace); /* the same keys before the same updates */
    CHECK_GE_U64(rp_game.seen_replaying, rp_game.consumed);
    CHECK(rp_game.replay_flag_in_update);
    tempo_replay_destroy(rp);
    CHECK(!tempo_loop_is_replaying(loop)); /* closed: detached */
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
}

/* Messages of an attached tempo_netq are recorded by the framework, and
 * the replay needs no sender: the queue stays empty and the recorded
 * messages reach the same handler at their ticks. */
static uint64_t run_netq_game(const char *path, tempo_replay *rp, tempo_replay_result *res, game *gp)
{
    fclock c;
    fclock_init(&c, 99);
    c.live = rp == NULL;
    game *g = gp;
    tempo_input *in = new_input();
    game_init(g, rp ? tempo_replay_get_info(rp)->seed : 11, in, &c);
    g->stop_after = rp ? 0 : 3000;
    tempo_netq *q = tempo_netq_create(&(tempo_netq_desc){.clock = {.now = fc_now, .user = &c}});
    CHECK(q != NULL);
    c.q = q;
    tempo_loop_clock clk = rp ? tempo_replay_clock(rp) : (tempo_loop_clock){fc_now, fc_wait, &c};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60,
                                                            .update = on_update, .render = on_render, .user = g,
                                                            .input = in, .clock = clk});
    c.loop = loop;
    c.in = in;
    CHECK_EQ_INT(tempo_netq_attach(q, loop, on_netq, g), 0);
    if (rp != NULL) {
        g->clk = NULL; /* renders spend no fake time: the replay's clock is its own */
        CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    } else {
        CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = path, .seed = 11, .hash = game_hash,
                                                                  .hash_user = g, .hash_every = 1}),
                     0);
    }
    CHECK_EQ_INT(run(loop), 1);
    uint64_t h = game_hash(loop, g);
    tempo_netq_stats st;
    tempo_netq_get_stats(q, &st);
    if (rp == NULL) {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(loop, &rs);
        tt_note("recorded %llu netq messages, %llu pushed", (unsigned long long)rs.items,
                (unsigned long long)st.pushed);
        CHECK_GE_U64(rs.items, 100);
        CHECK_LE_U64(rs.items, st.pushed);
    } else {
        CHECK_EQ_U64(st.pushed, 0); /* no sender in the replay */
        tempo_replay_get_result(rp, res);
    }
    tempo_loop_destroy(loop);
    tempo_netq_destroy(q);
    tempo_input_destroy(in);
    return h;
}

/* The shape of run_netq_game and its siblings: records into `path` when
 * `rp` is NULL, else replays `rp` and fills `res`; returns the final hash. */
typedef uint64_t (*game_run_fn)(const char *path, tempo_replay *rp, tempo_replay_result *res, game *g);

/* Replays `path` through `run_game` (the function that recorded it) and
 * checks that it matches: every hash, `ticks` ticks, final hash `h`. */
static tempo_replay_result replay_matches(const char *path, game_run_fn run_game, game *g, uint64_t ticks,
                                          uint64_t h)
{
    tempo_replay_result res;
    memset(&res, 0, sizeof res);
    tempo_replay *rp =
        tempo_replay_create(&(tempo_replay_desc){.path = path, .hash = game_hash, .hash_user = g});
    CHECK(rp != NULL);
    if (rp == NULL)
        return res;
    uint64_t h2 = run_game(NULL, rp, &res, g);
    tempo_replay_destroy(rp);
    CHECK(res.matches);
    if (!res.matches)
        tt_note("diverged at %llu", (unsigned long long)res.diverged_at);
    CHECK_EQ_U64(res.ticks, ticks);
    CHECK_EQ_U64(h2, h);
    return res;
}

static void netq_messages_replay_without_a_sender(void)
{
    game g;
    uint64_t h = run_netq_game("test_replay_netq.trec", NULL, NULL, &g);
    tempo_replay_result res = replay_matches("test_replay_netq.trec", run_netq_game, &g, 3000, h);
    CHECK_EQ_U64(res.checks, 3001);
}

/* Loader completions: the live loader threads finish jobs at timing-
 * dependent ticks; the replay holds each result until its recorded tick
 * (the job itself runs again, live). */
static tempo_loader *test_ld;

static int slow_work(tempo_load_job *job, void **result)
{
    SDL_Delay((Uint32)(job->id * 7 % 4)); /* real time: the tick that sees it varies */
    job->bytes = job->id * 100;
    *result = (void *)(uintptr_t)(job->id * 3);
    return 0;
}

static void load_done(tempo_loader *ld, const tempo_load_result *res, void *user)
{
    (void)ld;
    game *g = user;
    if (res->error == TEMPO_ECANCELED)
        return; /* in flight when the run ended: tempo_loader_destroy */
    CHECK_EQ_INT(res->error, 0);
    CHECK_EQ_U64((uintptr_t)res->custom, res->id * 3);
    g->s.b[res->id & 7].vx += (float)(res->id % 5) + 0.5f;
    g->s.score = g->s.score * 31 + res->id + res->bytes;
}

static void update_with_loads(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    game *g = user;
    if (g->s.updates % 40 == 5)
        CHECK(tempo_loader_submit(test_ld, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = slow_work,
                                                                 .done = load_done, .user = g}) != 0);
    if (g->s.updates % 4 == 0 && g->clk != NULL)
        SDL_Delay(1); /* the live run takes real time, so most jobs finish during it */
    on_update(loop, dt_ns, user);
}

static uint64_t run_loader_game(const char *path, tempo_replay *rp, tempo_replay_result *res, game *g)
{
    fclock c;
    fclock_init(&c, 5);
    game_init(g, 3, NULL, rp ? NULL : &c);
    g->stop_after = rp ? 0 : 2000;
    tempo_loop_clock clk = rp ? tempo_replay_clock(rp) : (tempo_loop_clock){fc_now, fc_wait, &c};
    test_ld = tempo_loader_create(&(tempo_loader_desc){.threads = 2, .clock = {.now = clk.now, .user = clk.user}});
    CHECK(test_ld != NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60,
                                                            .update = update_with_loads, .render = on_render,
                                                            .user = g, .clock = clk});
    CHECK_EQ_INT(tempo_loader_attach(test_ld, loop), 0);
    if (rp != NULL)
        CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    else
        CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = path, .hash = game_hash,
                                                                  .hash_user = g, .hash_every = 1}),
                     0);
    CHECK_EQ_INT(run(loop), 1);
    uint64_t h = game_hash(loop, g);
    if (rp != NULL) {
        tempo_replay_get_result(rp, res);
    } else {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(loop, &rs);
        tt_note("recorded %llu loader completions", (unsigned long long)rs.items);
        CHECK_GE_U64(rs.items, 40);
    }
    tempo_loader_detach(test_ld);
    tempo_loop_destroy(loop);
    tempo_loader_destroy(test_ld);
    test_ld = NULL;
    return h;
}

static void loader_completions_replay_at_their_ticks(void)
{
    game g;
    uint64_t h = run_loader_game("test_replay_loader.trec", NULL, NULL, &g);
    replay_matches("test_replay_loader.trec", run_loader_game, &g, 2000, h);
}

/* Audio notices: the audio thread raises them at real-time moments, so the
 * tick that sees each depends on timing; the replay (which still plays the
 * sounds: the game's code is unchanged) hands over the recorded ones. */
static tempo_audio *test_au;
static Mix_Chunk *test_chunk;

static void on_notice(const tempo_audio_notice *n, void *user)
{
    game *g = user;
    g->s.score = g->s.score * 31 + n->kind * 1000 + n->tag + n->frame;
    g->s.b[n->tag & 7].vy -= 50.0f;
}

static void update_with_sound(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    game *g = user;
    if (g->s.updates % 30 == 2) {
        int ch = tempo_audio_play(test_au, -1, test_chunk, 0);
        if (ch >= 0) {
            tempo_audio_mark(test_au, ch, 480, NULL, g->s.updates);
            tempo_audio_mark_end(test_au, ch, NULL, g->s.updates + 1);
        }
    }
    if (g->clk != NULL)
        SDL_Delay(1); /* live: real time passes, notices arrive during the run */
    on_update(loop, dt_ns, user);
}

static uint64_t run_audio_game(const char *path, tempo_replay *rp, tempo_replay_result *res, game *g,
                               uint64_t *notices)
{
    fclock c;
    fclock_init(&c, 8);
    game_init(g, 4, NULL, rp ? NULL : &c);
    g->stop_after = rp ? 0 : 600;
    tempo_loop_clock clk = rp ? tempo_replay_clock(rp) : (tempo_loop_clock){fc_now, fc_wait, &c};
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.update_hz = 60, .max_render_hz = 60,
                                                            .update = update_with_sound, .render = on_render,
                                                            .user = g, .clock = clk});
    CHECK_EQ_INT(tempo_audio_attach(test_au, loop, on_notice, g), 0);
    if (rp != NULL)
        CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    else
        CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = path, .hash = game_hash,
                                                                  .hash_user = g, .hash_every = 1}),
                     0);
    CHECK_EQ_INT(run(loop), 1);
    uint64_t h = game_hash(loop, g);
    if (rp != NULL) {
        tempo_replay_get_result(rp, res);
    } else {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(loop, &rs);
        *notices = rs.items;
    }
    tempo_audio_detach(test_au);
    tempo_loop_destroy(loop);
    /* Let the plays end and drop their notices before the next run. */
    for (int i = 0; i < 16; i++)
        tempo_audio_stop(test_au, i);
    tempo_audio_notice n;
    while (tempo_audio_poll(test_au, &n) > 0) {
    }
    return h;
}

static uint64_t replay_audio_game(const char *path, tempo_replay *rp, tempo_replay_result *res, game *g)
{
    uint64_t unused;
    return run_audio_game(path, rp, res, g, &unused);
}

static void audio_notices_replay_at_their_ticks(void)
{
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 0);
    test_au = tempo_audio_create(&(tempo_audio_desc){.frequency = 48000, .buffer_frames = 480});
    if (test_au == NULL)
        TT_SKIP("no audio device (SDL_AUDIODRIVER=dummy)");
    static Sint16 pcm[2 * 4800]; /* 0.1 s of silence, stereo */
    test_chunk = Mix_QuickLoad_RAW((Uint8 *)pcm, sizeof pcm);
    CHECK(test_chunk != NULL);
    game g;
    uint64_t notices = 0;
    uint64_t h = run_audio_game("test_replay_audio.trec", NULL, NULL, &g, &notices);
    tt_note("recorded %llu audio notices", (unsigned long long)notices);
    CHECK_GE_U64(notices, 10);
    replay_matches("test_replay_audio.trec", replay_audio_game, &g, 600, h);
    Mix_FreeChunk(test_chunk);
    tempo_audio_destroy(test_au);
    test_au = NULL;
}

/* desc.real_time: the real clock paces the ticks at the recorded rate;
 * the state is the same. (One-sided bound: never faster than recorded.) */
static void a_real_time_replay_keeps_the_rate(void)
{
    record_live("test_replay_rt.trec", 60, TEMPO_LOOP_INTERPOLATED, 30, true, NULL);
    game g;
    game_init(&g, 0, NULL, NULL);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){
        .path = "test_replay_rt.trec", .hash = game_hash, .hash_user = &g, .real_time = true});
    CHECK(rp != NULL);
    if (rp == NULL)
        return;
    tempo_loop_clock clk = tempo_replay_clock(rp);
    CHECK(clk.now == NULL);
    tempo_input *in = new_input();
    game_init(&g, tempo_replay_get_info(rp)->seed, in, NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .max_render_hz = 60, .update = on_update, .render = on_render, .user = &g, .input = in, .clock = clk});
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &g), 0);
    CHECK_EQ_INT(tempo_loop_replay(loop, rp), 0);
    uint64_t t0 = tempo_now_ns();
    CHECK_EQ_INT(run(loop), 1);
    uint64_t took = tempo_now_ns() - t0;
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    CHECK(res.matches);
    CHECK_EQ_U64(res.ticks, 30);
    CHECK_GE_U64(took, 29 * UINT64_C(16666666)); /* tick 0 at once, tick 29 after 29 steps */
    tempo_loop_destroy(loop);
    tempo_replay_destroy(rp);
    tempo_input_destroy(in);
}

static void api_errors(void)
{
    CHECK_EQ_INT(tempo_loop_record(NULL, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_record_stop(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_replay(NULL, NULL), TEMPO_EINVAL);
    CHECK(tempo_replay_create(NULL) == NULL);
    tempo_replay_destroy(NULL);
    fclock c;
    fclock_init(&c, 0);
    game g;
    game_init(&g, 1, NULL, &c);
    tempo_loop *loop = make_loop(&g, &c, NULL, 60, TEMPO_LOOP_INTERPOLATED);
    tempo_replay_item it = {.kind = TEMPO_REPLAY_MESSAGE, .data = "x", .size = 1};
    CHECK_EQ_INT(tempo_loop_deliver(loop, 9, &it), TEMPO_EINVAL); /* no such channel */
    CHECK_EQ_INT(tempo_loop_deliver(loop, 5, &it), 0);             /* live: straight through */
    CHECK_EQ_INT(tempo_loop_record_stop(loop), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_api.trec", .meta_size = 1}),
                 TEMPO_EINVAL); /* a size without bytes */
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_api.trec", .meta = "x",
                                                              .meta_size = TEMPO_RECORD_META_MAX + 1}),
                 TEMPO_ERANGE);
    CHECK(!tempo_loop_is_replaying(NULL));
    CHECK(!tempo_loop_is_replaying(loop));
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_api.trec"}), 0);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "test_replay_api.trec"}), TEMPO_EBUSY);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = "no-such-dir/x.trec"}), TEMPO_EBUSY);
    tempo_loop_destroy(loop); /* stops the recording */
    tempo_replay_result res = replay_file("test_replay_api.trec", false, 0, NULL);
    CHECK(res.finished);
    CHECK_EQ_U64(res.ticks, 0);
}

static atomic_int warn_lines;

static int warns(void)
{
    return atomic_load(&warn_lines);
}

static void count_warn(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user, (void)category, (void)message;
    if (priority >= SDL_LOG_PRIORITY_WARN)
        atomic_fetch_add(&warn_lines, 1);
}

/* A file the OS refuses says the OS's reason (base.h: the native text is
 * kept), and, as the caller has the code and the text, logs no WARN (the
 * level of a replay that cannot be opened). Before: "cannot create PATH"
 * (no reason, a WARN line) and "/tmp: read error" for a directory. */
static void os_failures_carry_the_os_reason(void)
{
    SDL_LogOutputFunction prev;
    void *prev_user;
    SDL_LogGetOutputFunction(&prev, &prev_user);
    SDL_LogPriority prev_priority = SDL_LogGetPriority(SDL_LOG_CATEGORY_APPLICATION);
    SDL_LogSetOutputFunction(count_warn, NULL);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_VERBOSE);
    atomic_store(&warn_lines, 0);

    char dir[512], path[600];
    CHECK(tt_make_temp_dir("tempo_replay_os", dir, sizeof dir));
    snprintf(path, sizeof path, "%s/no-such-dir/x.trec", dir);
    tempo_loop *L = tempo_loop_create(NULL);
    CHECK_EQ_INT(tempo_loop_record(L, &(tempo_record_desc){.path = path}), TEMPO_EIO);
    const char *e = tempo_get_error();
    tt_note("%s", e);
    CHECK(strstr(e, "cannot create") != NULL);
    CHECK(strstr(e, strerror(ENOENT)) != NULL);
    CHECK_EQ_INT(warns(), 0);
    tempo_loop_destroy(L);

    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = dir}); /* a directory */
    CHECK(rp == NULL);
    e = tempo_get_error();
    tt_note("%s", e);
    CHECK(strstr(e, dir) != NULL);
    CHECK(strstr(e, "not a regular file") != NULL);
    CHECK_EQ_INT(warns(), 0);

    snprintf(path, sizeof path, "%s/missing.trec", dir);
    rp = tempo_replay_create(&(tempo_replay_desc){.path = path});
    CHECK(rp == NULL);
    e = tempo_get_error();
    CHECK(strstr(e, strerror(ENOENT)) != NULL);
    CHECK_EQ_INT(warns(), 0);

    remove(dir);
    SDL_LogSetOutputFunction(prev, prev_user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, prev_priority);
}

static const tt_case cases[] = {
    TT_CASE(crc32_matches_the_standard),
    TT_CASE(round_trip_keeps_every_record),
    TT_CASE(empty_ticks_share_one_record),
    TT_CASE(every_truncation_is_an_error_at_the_cut),
    TT_CASE(every_bit_flip_is_caught),
    TT_CASE(a_failing_sink_sticks),
    TT_CASE(bad_headers_are_named),
    TT_CASE(version_1_files_still_read),
    TT_CASE(meta_has_a_limit),
    TT_CASE(os_failures_carry_the_os_reason),
    TT_CASE(fingerprints_are_described),
    TT_CASE(builds_are_compared),
    TT_CASE(version_2_files_still_read),
    TT_CASE(same_constant_at_every_render_rate),
    TT_CASE(live_input_replays_on_another_clock),
    TT_CASE(the_ring_is_replayed_not_just_the_reads),
    TT_CASE(the_first_divergent_tick_is_named),
    TT_CASE(variable_dt_is_replayed),
    TT_CASE(a_cut_recording_replays_up_to_the_cut),
    TT_CASE(a_corrupt_file_names_offset_and_tick),
    TT_CASE(the_committed_recording_replays_to_its_constant),
    TT_CASE(meta_and_fingerprint_reach_the_replay),
    TT_CASE(another_fingerprint_is_refused_or_named_when_asked),
    TT_CASE(another_build_identity_is_refused),
    TT_CASE(consumed_input_is_replayed_and_is_replaying_says_so),
    TT_CASE(netq_messages_replay_without_a_sender),
    TT_CASE(loader_completions_replay_at_their_ticks),
    TT_CASE(audio_notices_replay_at_their_ticks),
    TT_CASE(a_real_time_replay_keeps_the_rate),
    TT_CASE(api_errors),
};

int main(int argc, char **argv)
{
    /* --fixture PATH and --fixture-v1 PATH are ours; the other arguments
     * select cases. */
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fixture") == 0 && i + 1 < argc)
            fixture_path = argv[++i];
        else if (strcmp(argv[i], "--fixture-v1") == 0 && i + 1 < argc)
            fixture_v1_path = argv[++i];
        else
            argv[n++] = argv[i];
    }
    return TT_MAIN(n, argv, cases);
}
