/* The scripted game of test_replay.c as a command, so that one build
 * records and another replays (.ci/cross-replay, issue 38):
 *
 *   replay_cross --record FILE    the fixture's recipe (1000 ticks, seed 7,
 *                                 live input and messages, hash every 10)
 *   replay_cross --replay FILE --expect matches|refused [--hash HEX]
 *   replay_cross --fixture FILE   tests/data/replay_game.trec: matches at
 *                                 FIXTURE_HASH (replay_game_core.h)
 *
 * The game is this file's translation unit, so tempo_loop_record and
 * tempo_loop_replay (inline) store and check the fingerprint and build
 * identity of whatever flags it was compiled with: the same source built
 * with and without the flags, for x86-64, aarch64 and i686, is what the
 * script pairs up. "refused" means tempo_loop_replay returned TEMPO_EBUILD
 * and not one update ran; "matches" that every recorded hash held (and
 * with --hash, the last one is HEX). One line per case says what this
 * build is and what happened; the last line is the harness's tally. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "replay_game.h"
#include "tempo/determinism.h"

static const char *record_path, *replay_path, *fixture_path, *expect, *want_hash;

static void print_build(const char *what)
{
    tt_note("%s: this build: fingerprint %08" PRIx32 ", %s", what, tempo_fingerprint(), TEMPO_BUILD_IDENTITY);
}

static void record(void)
{
    if (record_path == NULL)
        TT_SKIP("no --record FILE");
    print_build("record");
    /* test_replay's record_live_ex(path, 60, INTERPOLATED, 1000, ..., 10, 60):
     * the committed fixture's recipe. */
    fclock c;
    fclock_init(&c, 60);
    c.live = true;
    game g;
    tempo_input *in = new_input();
    game_init(&g, 7, in, &c);
    g.stop_after = 1000;
    tempo_loop *loop = make_loop(&g, &c, in, 60, TEMPO_LOOP_INTERPOLATED);
    CHECK_EQ_INT(tempo_loop_record(loop, &(tempo_record_desc){.path = record_path, .seed = 7, .hash = game_hash,
                                                              .hash_user = &g, .hash_every = 10, .flush_every = 60}),
                 0);
    CHECK_EQ_INT(run(loop), 1);
    CHECK_EQ_U64(g.s.updates, 1000);
    uint64_t h = game_hash(loop, &g);
    tt_note("recorded %s: 1000 ticks, hash %016" PRIx64, record_path, h);
    /* A portable build computes the committed fixture's game, bit for bit. */
    if (tempo_fingerprint() == TEMPO_FINGERPRINT_PORTABLE)
        CHECK_EQ_U64(h, FIXTURE_HASH);
    CHECK_EQ_INT(tempo_loop_record_stop(loop), 0);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
}

/* Replays PATH as test_replay's replay_file does. *rc: tempo_loop_replay's
 * return; *updates: how many updates ran. */
static tempo_replay_result replay(const char *path, int *rc, uint64_t *updates)
{
    tempo_replay_result res;
    memset(&res, 0, sizeof res);
    *updates = 0;
    game g;
    game_init(&g, 0, NULL, NULL);
    tempo_replay *rp = tempo_replay_create(&(tempo_replay_desc){.path = path, .hash = game_hash, .hash_user = &g});
    if (rp == NULL) {
        tt_fail(__FILE__, __LINE__, "tempo_replay_create(%s): %s", path, tempo_get_error());
        *rc = TEMPO_EIO;
        return res;
    }
    const tempo_replay_info *info = tempo_replay_get_info(rp);
    tt_note("%s: recorded by fingerprint %08" PRIx32 ", %s", path, info->fingerprint,
            info->identity[0] ? info->identity : "(no identity: format 2)");
    tempo_input *in = new_input();
    game_init(&g, info->seed, in, NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = 30, .update = on_update, .render = on_render, .user = &g, .input = in,
        .clock = tempo_replay_clock(rp)});
    CHECK(loop != NULL);
    CHECK_EQ_INT(tempo_loop_channel(loop, 5, on_message, &g), 0);
    *rc = tempo_loop_replay(loop, rp);
    if (*rc == 0) {
        CHECK_EQ_INT(run(loop), 1);
        CHECK_EQ_INT(tempo_replay_get_result(rp, &res), 0);
    } else {
        tt_note("refused (%s): %s", *rc == TEMPO_EBUILD ? "TEMPO_EBUILD" : tempo_strerror(*rc), tempo_get_error());
        /* Refused: the loop still runs (live, on the replay's fake clock)
         * if the game goes on; one frame shows no recorded tick reaches it. */
    }
    *updates = g.s.updates;
    tempo_loop_destroy(loop);
    tempo_replay_destroy(rp);
    tempo_input_destroy(in);
    return res;
}

static void replay_expected(void)
{
    if (replay_path == NULL)
        TT_SKIP("no --replay FILE");
    print_build("replay");
    int rc;
    uint64_t updates;
    tempo_replay_result res = replay(replay_path, &rc, &updates);
    if (rc == 0)
        tt_note("replayed %" PRIu64 " ticks, hash %016" PRIx64 ", %s", res.ticks, res.hash,
                res.matches ? "matches" : "diverged");
    if (expect != NULL && strcmp(expect, "refused") == 0) {
        CHECK_EQ_INT(rc, TEMPO_EBUILD);
        CHECK_EQ_U64(updates, 0);
        CHECK(strstr(tempo_get_error(), "built differently") != NULL);
    } else {
        CHECK_EQ_INT(rc, 0);
        CHECK(res.matches);
        CHECK_EQ_U64(res.diverged_at, 0);
        CHECK_EQ_U64(res.ticks, 1000);
        CHECK_EQ_U64(updates, 1000);
        if (want_hash != NULL)
            CHECK_EQ_U64(res.hash, strtoull(want_hash, NULL, 16));
    }
}

static void fixture_replays_to_its_constant(void)
{
    if (fixture_path == NULL)
        TT_SKIP("no --fixture FILE");
    print_build("fixture");
    int rc;
    uint64_t updates;
    tempo_replay_result res = replay(fixture_path, &rc, &updates);
    tt_note("replayed %" PRIu64 " ticks, hash %016" PRIx64 ", %s", res.ticks, res.hash,
            res.matches ? "matches" : "diverged");
    CHECK_EQ_INT(rc, 0);
    CHECK(res.matches);
    CHECK_EQ_U64(res.hash, FIXTURE_HASH);
    CHECK_EQ_U64(res.ticks, 1000);
}

static const tt_case cases[] = {
    TT_CASE(record),
    TT_CASE(replay_expected),
    TT_CASE(fixture_replays_to_its_constant),
};

int main(int argc, char **argv)
{
    (void)on_netq; /* replay_game.h's queue handler: test_replay's */
    for (int i = 1; i < argc; i++) {
        const char **opt = strcmp(argv[i], "--record") == 0    ? &record_path
                           : strcmp(argv[i], "--replay") == 0  ? &replay_path
                           : strcmp(argv[i], "--fixture") == 0 ? &fixture_path
                           : strcmp(argv[i], "--expect") == 0  ? &expect
                           : strcmp(argv[i], "--hash") == 0    ? &want_hash
                                                               : NULL;
        if (opt == NULL || i + 1 == argc) {
            fprintf(stderr, "usage: %s [--record FILE] [--replay FILE --expect matches|refused [--hash HEX]] "
                            "[--fixture FILE]\n", argv[0]);
            return 2;
        }
        *opt = argv[++i];
    }
    if (expect != NULL && strcmp(expect, "matches") != 0 && strcmp(expect, "refused") != 0) {
        fprintf(stderr, "%s: --expect matches or refused\n", argv[0]);
        return 2;
    }
    /* The cases run in order: --record and --replay may name one file. */
    return TT_MAIN(1, argv, cases);
}
