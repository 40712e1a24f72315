/* The frame decoder of tempo/net.h (framework/net_frame.c), replayed on
 * malformed input: every case must be reported as malformed, never crash
 * and never read past the bytes it was given. Each input is copied into a
 * heap buffer of exactly its length, so under ASan any over-read is caught.
 * Pure code: built in every configuration, with or without SDL2_net. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "net_frame.h"

static const tempo__frame_limits LIM = {.max_payload = 1000, .max_type = 3};

typedef struct collected {
    int frames;
    uint32_t bytes;
    uint16_t last_type;
} collected;

static void collect(const tempo__frame *f, void *user)
{
    collected *c = user;
    c->frames++;
    c->bytes += f->size;
    c->last_type = f->type;
    /* Touch every payload byte: ASan checks the pointer range. */
    volatile uint8_t sink = 0;
    for (uint32_t i = 0; i < f->size; i++)
        sink ^= f->payload[i];
    (void)sink;
}

/* Scans a copy of buf[0, len) in an exact-size heap block. */
static int scan_exact(const uint8_t *buf, size_t len, int at_end, collected *c, const char **why)
{
    uint8_t *copy = malloc(len ? len : 1);
    if (len)
        memcpy(copy, buf, len);
    int r = tempo__frame_scan(copy, len, &LIM, at_end, collect, c, why);
    free(copy);
    return r;
}

static size_t put(uint8_t *out, uint32_t size_field, uint16_t type, const char *payload, uint32_t n)
{
    out[0] = (uint8_t)(size_field >> 24);
    out[1] = (uint8_t)(size_field >> 16);
    out[2] = (uint8_t)(size_field >> 8);
    out[3] = (uint8_t)size_field;
    out[4] = (uint8_t)(type >> 8);
    out[5] = (uint8_t)type;
    out[6] = out[7] = 0;
    if (n)
        memcpy(out + 8, payload, n);
    return 8 + n;
}

static void good_frames_decode(void)
{
    uint8_t buf[2048];
    size_t len = 0;
    len += put(buf + len, 5, 1, "hello", 5);
    len += put(buf + len, 0, 2, NULL, 0);
    static char big[1000];
    memset(big, 'x', sizeof big);
    len += put(buf + len, 1000, 3, big, 1000); /* exactly the limit */
    collected c = {0};
    const char *why = NULL;
    CHECK_EQ_INT(scan_exact(buf, len, 1, &c, &why), 3);
    CHECK_EQ_INT(c.frames, 3);
    CHECK_EQ_INT(c.bytes, 1005);
    CHECK_EQ_INT(c.last_type, 3);

    tempo__frame f;
    CHECK_EQ_INT(tempo__frame_decode(buf, len, &LIM, &f, NULL), 13);
    CHECK_EQ_INT(f.type, 1);
    CHECK_EQ_INT(f.size, 5);
    CHECK(memcmp(f.payload, "hello", 5) == 0);
}

static void header_encoder_matches_decoder(void)
{
    uint8_t h[TEMPO_NET_HEADER_BYTES];
    CHECK_EQ_INT(tempo_net_frame_header(h, 0x0203, 0x01020304), 0);
    static const uint8_t want[8] = {1, 2, 3, 4, 2, 3, 0, 0};
    CHECK(memcmp(h, want, 8) == 0);
    CHECK_EQ_INT(tempo_net_frame_header(h, 0, 1), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_frame_header(h, 1, 0x80000000u), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_frame_header(NULL, 1, 1), TEMPO_EINVAL);
}

typedef struct bad_case {
    const char *name;
    uint32_t size_field;
    uint16_t type;
    uint8_t reserved;
    const char *why_contains;
} bad_case;

static void malformed_headers_are_rejected(void)
{
    static const bad_case cases[] = {
        {"negative length -1", 0xFFFFFFFFu, 1, 0, "negative"},
        {"negative length INT_MIN", 0x80000000u, 1, 0, "negative"},
        {"oversized by one", 1001, 1, 0, "above the limit"},
        {"oversized INT_MAX", 0x7FFFFFFFu, 1, 0, "above the limit"},
        {"type 0", 4, 0, 0, "unknown"},
        {"type above max", 4, 4, 0, "unknown"},
        {"type 0xFFFF", 4, 0xFFFF, 0, "unknown"},
        {"reserved bits", 4, 1, 0x80, "reserved"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *k = &cases[i];
        uint8_t buf[64];
        size_t len = put(buf, 3, 2, "abc", 3); /* one good frame first */
        size_t at = len;
        len += put(buf + len, k->size_field, k->type, "abcd", 4);
        buf[at + 7] = k->reserved;
        /* Header alone, at the very end of the buffer: rejected without
         * waiting for (or reading) any payload. */
        for (int with_payload = 0; with_payload < 2; with_payload++) {
            collected c = {0};
            const char *why = NULL;
            int r = scan_exact(buf, with_payload ? len : at + 8, 0, &c, &why);
            if (r != TEMPO_EFORMAT || c.frames != 1 || why == NULL || strstr(why, k->why_contains) == NULL)
                tt_fail(__FILE__, __LINE__, "%s: r=%d frames=%d why=%s", k->name, r, c.frames, why ? why : "(null)");
        }
    }
}

static void truncated_frames(void)
{
    uint8_t buf[64];
    size_t len = put(buf, 10, 1, "0123456789", 10);
    /* Every proper prefix is "need more" mid-stream and "truncated" at the
     * end of the stream; the empty stream is fine. */
    for (size_t cut = 0; cut < len; cut++) {
        collected c = {0};
        const char *why = NULL;
        CHECK_EQ_INT(scan_exact(buf, cut, 0, &c, &why), 0);
        int r = scan_exact(buf, cut, 1, &c, &why);
        if (cut == 0)
            CHECK_EQ_INT(r, 0);
        else if (r != TEMPO_EFORMAT || why == NULL || strstr(why, "truncated") == NULL)
            tt_fail(__FILE__, __LINE__, "cut %zu: r=%d why=%s", cut, r, why ? why : "(null)");
        tempo__frame f;
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, buf, cut);
        CHECK_EQ_INT(tempo__frame_decode(copy, cut, &LIM, &f, NULL), 0);
        free(copy);
    }
}

static void scan_clamps_absurd_limits(void)
{
    /* A caller passing a limit above TEMPO_NET_MAX_PAYLOAD still gets it
     * enforced, so a frame's total length always fits an int. */
    tempo__frame_limits huge = {.max_payload = UINT32_MAX, .max_type = 1};
    uint8_t buf[8];
    put(buf, TEMPO_NET_MAX_PAYLOAD + 1, 1, NULL, 0);
    const char *why = NULL;
    CHECK_EQ_INT(tempo__frame_scan(buf, 8, &huge, 0, NULL, NULL, &why), TEMPO_EFORMAT);
}

/* A deterministic mini-fuzz in every build: random and mutated streams
 * (libFuzzer explores far more in tests/fuzz/fuzz_net_frame.c). */
static uint32_t rng = 2463534242u;
static uint32_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void random_streams_never_misbehave(void)
{
    uint8_t seed[256];
    size_t seed_len = 0;
    seed_len += put(seed + seed_len, 3, 1, "abc", 3);
    seed_len += put(seed + seed_len, 0, 2, NULL, 0);
    seed_len += put(seed + seed_len, 7, 3, "1234567", 7);
    int good = 0, bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        uint8_t buf[256];
        size_t len;
        if (iter % 2 == 0) {
            len = xorshift() % sizeof buf;
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)xorshift();
        } else {
            len = seed_len;
            memcpy(buf, seed, len);
            int flips = 1 + xorshift() % 4;
            for (int k = 0; k < flips; k++)
                buf[xorshift() % len] ^= (uint8_t)(1u << (xorshift() % 8));
            len -= xorshift() % 3;
        }
        collected c = {0};
        const char *why = NULL;
        int r = scan_exact(buf, len, (int)(iter & 2), &c, &why);
        if (r >= 0 && r != c.frames)
            tt_fail(__FILE__, __LINE__, "iteration %d: returned %d, saw %d frames", iter, r, c.frames);
        if (r < 0 && (r != TEMPO_EFORMAT || why == NULL))
            tt_fail(__FILE__, __LINE__, "iteration %d: returned %d", iter, r);
        if (tt_failed())
            return;
        r >= 0 ? good++ : bad++;
    }
    tt_note("%d streams decoded, %d rejected as malformed", good, bad);
    CHECK(good > 0 && bad > 0);
}

static const tt_case cases[] = {
    TT_CASE(good_frames_decode),
    TT_CASE(header_encoder_matches_decoder),
    TT_CASE(malformed_headers_are_rejected),
    TT_CASE(truncated_frames),
    TT_CASE(scan_clamps_absurd_limits),
    TT_CASE(random_streams_never_misbehave),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
