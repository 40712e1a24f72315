/* The determinism check of the fp matrix (.ci/fp-matrix, docs/determinism.md):
 * the scripted game of test_replay (replay_game_core.h) and the recording
 * reader (framework/replay_file.c) alone, with no loop and no SDL library,
 * so the same file builds with any compiler for any target and runs under
 * qemu-user. Three things must hold on every row built with
 * tempo-deterministic's flags:
 *   - 10 000 ticks of the game (seed 42, 60 Hz, no input) end at
 *     GAME_HASH_10K, test_replay's constant;
 *   - the committed recording (argv[1], tests/data/replay_game.trec)
 *     replays to FIXTURE_HASH, every recorded hash equal on the way: its
 *     inputs and messages are handed to the game before each tick exactly
 *     as tempo_loop_replay() does;
 *   - this build's tempo_fingerprint() is the recording's (which is
 *     TEMPO_FINGERPRINT_PORTABLE).
 * The last case also prints one machine-readable line (indented, as a note),
 *   fp-check: fingerprint=XXXXXXXX recorded=XXXXXXXX hash10k=H fixture=H diverged=N
 * which the matrix script reads (its control rows, built without the
 * flags, are expected to differ and to be caught by the fingerprint). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "replay_file.h"
#include "replay_game_core.h"
#include "tempo/determinism.h"

static const char *fixture_path;
static uint64_t hash10k, fixture_hash, diverged_at;
static uint32_t recorded_fp;

static void the_game_holds_its_10k_constant(void)
{
    game_state s;
    game_state_init(&s, 42);
    for (int i = 0; i < 10000; i++)
        game_state_tick(&s, 16666667); /* 60 Hz: tempo_loop's step, (1e9 + 30) / 60 */
    hash10k = game_state_hash(&s);
    tt_note("hash after 10 000 ticks %016llx, want %016llx", (unsigned long long)hash10k,
            (unsigned long long)GAME_HASH_10K);
    CHECK_EQ_U64(hash10k, GAME_HASH_10K);
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (b == NULL)
                free(buf);
            buf = b;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* An input event the game reads in its next update. */
typedef struct pending {
    uint32_t type;
    int32_t scancode, motion_x, motion_dx;
    bool down;
} pending;

static void the_committed_recording_replays_to_its_constant(void)
{
    if (fixture_path == NULL)
        TT_SKIP("no recording given (argv[1])");
    size_t len = 0;
    uint8_t *buf = read_all(fixture_path, &len);
    if (buf == NULL) {
        tt_fail(__FILE__, __LINE__, "cannot read %s", fixture_path);
        return;
    }
    tempo__rpf_reader r;
    tempo__rpf_error err;
    if (tempo__rpf_reader_init(&r, buf, len, &err) != 0) {
        tt_fail(__FILE__, __LINE__, "%s: byte %zu: %s", fixture_path, err.offset, err.why);
        free(buf);
        return;
    }
    recorded_fp = r.header.fingerprint;
    game_state s;
    game_state_init(&s, r.header.seed);
    static pending q[4096];
    size_t nq = 0;
    uint64_t dt = 0, checks = 0;
    tempo__rpf_record rec;
    int got;
    /* What tempo_loop_replay does: a tick's records reach the game before
     * its update (inputs into the ring, read by the update; messages at
     * once), an ADVANCE runs the update(s), a HASH is compared right away. */
    while ((got = tempo__rpf_next(&r, &rec, &err)) == 1) {
        switch (rec.kind) {
        case TEMPO__RPF_INPUT:
            if (nq < sizeof q / sizeof q[0])
                q[nq++] = (pending){rec.u.input.type, rec.u.input.u.key.scancode, rec.u.input.u.motion.x,
                                    rec.u.input.u.motion.dx, rec.u.input.u.key.down != 0};
            else
                tt_fail(__FILE__, __LINE__, "more than %zu events in one tick", nq);
            break;
        case TEMPO__RPF_MESSAGE:
            CHECK_EQ_U64(rec.u.message.channel, 5);
            game_state_message(&s, rec.u.message.type, rec.u.message.data, rec.u.message.size);
            break;
        case TEMPO__RPF_DT:
            dt = rec.u.dt_ns;
            break;
        case TEMPO__RPF_ADVANCE:
            for (uint32_t k = 0; k < rec.u.advance; k++) {
                for (size_t i = 0; i < nq; i++)
                    game_state_event(&s, q[i].type, q[i].scancode, q[i].down, q[i].motion_x, q[i].motion_dx);
                nq = 0;
                game_state_tick(&s, dt ? dt : r.header.step_ns);
                dt = 0;
            }
            break;
        case TEMPO__RPF_HASH:
        case TEMPO__RPF_END: {
            if (rec.kind == TEMPO__RPF_END && !rec.u.end.has_hash)
                break;
            uint64_t want = rec.kind == TEMPO__RPF_HASH ? rec.u.hash : rec.u.end.hash;
            checks++;
            if (game_state_hash(&s) != want && diverged_at == 0) {
                diverged_at = rec.tick;
                tt_note("diverges at tick %llu: %016llx, recorded %016llx", (unsigned long long)rec.tick,
                        (unsigned long long)game_state_hash(&s), (unsigned long long)want);
            }
            break;
        }
        default:
            tt_fail(__FILE__, __LINE__, "record kind %d in the game's recording", rec.kind);
        }
    }
    CHECK_EQ_INT(got, 0);
    if (got < 0)
        tt_note("%s: byte %zu, tick %llu: %s", fixture_path, err.offset, (unsigned long long)err.tick, err.why);
    fixture_hash = game_state_hash(&s);
    tt_note("%llu ticks, %llu hashes compared, final %016llx, want %016llx", (unsigned long long)r.tick,
            (unsigned long long)checks, (unsigned long long)fixture_hash, (unsigned long long)FIXTURE_HASH);
    CHECK_GE_U64(checks, 100);
    CHECK_EQ_U64(diverged_at, 0);
    CHECK_EQ_U64(fixture_hash, FIXTURE_HASH);
    free(buf);
}

static void the_fingerprint_is_the_recordings(void)
{
    char here[256], rec[256];
    uint32_t fp = tempo_fingerprint();
    tempo_fingerprint_describe(fp, here, sizeof here);
    tempo_fingerprint_describe(recorded_fp, rec, sizeof rec);
    tt_note("this build: %s", here);
    tt_note("recording:  %s", rec);
    tt_note("fp-check: fingerprint=%08x recorded=%08x hash10k=%016llx fixture=%016llx diverged=%llu", (unsigned)fp,
            (unsigned)recorded_fp, (unsigned long long)hash10k, (unsigned long long)fixture_hash,
            (unsigned long long)diverged_at);
    CHECK_EQ_U64(recorded_fp, TEMPO_FINGERPRINT_PORTABLE);
    CHECK_EQ_U64(fp, recorded_fp);
}

static const tt_case cases[] = {
    TT_CASE(the_game_holds_its_10k_constant),
    TT_CASE(the_committed_recording_replays_to_its_constant),
    TT_CASE(the_fingerprint_is_the_recordings),
};

int main(int argc, char **argv)
{
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (fixture_path == NULL && strchr(argv[i], '.') != NULL)
            fixture_path = argv[i]; /* a file name; other arguments select cases */
        else
            argv[n++] = argv[i];
    }
    return TT_MAIN(n, argv, cases);
}
