/* Record and replay costs (tempo/replay.h), on the scripted game of
 * replay_game.h with live input and messages on a fake clock, so only the
 * CPU work is timed (real time of the whole run, best of 3):
 *   - the cost of recording per tick: the same run with and without
 *     tempo_loop_record (flushing every tick, the default, and every 60),
 *   - the replay speed in ticks per second (fake clock, as fast as possible).
 * Usage: bench_replay [--ticks N] [--dir DIR] (files are written in DIR,
 * default the working directory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_game.h"

static uint64_t ticks = 20000;
static char dir[512] = ".";

/* One live run; flush_every 0: not recorded. Returns the elapsed ns. */
static uint64_t live_run(const char *path, uint32_t flush_every, uint64_t *bytes, uint64_t *inputs, uint64_t *items)
{
    fclock c;
    fclock_init(&c, 60);
    c.live = true;
    tempo_input *in = new_input();
    game g;
    game_init(&g, 7, in, &c);
    g.stop_after = ticks;
    tempo_loop *loop = make_loop(&g, &c, in, 60, TEMPO_LOOP_INTERPOLATED);
    uint64_t t0 = tempo_now_ns();
    if (flush_every)
        tempo_loop_record(loop, &(tempo_record_desc){.path = path, .seed = 7, .hash = game_hash, .hash_user = &g,
                                                     .hash_every = 60, .flush_every = flush_every});
    run(loop);
    if (flush_every) {
        tempo_record_stats st;
        tempo_loop_get_record_stats(loop, &st);
        tempo_loop_record_stop(loop);
        *bytes = st.bytes;
        *inputs = st.inputs;
        *items = st.items;
    }
    uint64_t dt = tempo_now_ns() - t0;
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    return dt;
}

static uint64_t replay_run(const char *path, uint64_t *replayed, bool *matches)
{
    game g;
    game_init(&g, 0, NULL, NULL);
    uint64_t t0 = tempo_now_ns();
    tempo_replay *rp =
        tempo_replay_create(&(tempo_replay_desc){.path = path, .hash = game_hash, .hash_user = &g});
    if (rp == NULL) {
        fprintf(stderr, "bench_replay: %s\n", tempo_get_error());
        exit(1);
    }
    tempo_input *in = new_input();
    game_init(&g, tempo_replay_get_info(rp)->seed, in, NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){
        .update = on_update, .render = on_render, .user = &g, .input = in, .clock = tempo_replay_clock(rp)});
    tempo_loop_channel(loop, 5, on_message, &g);
    tempo_loop_replay(loop, rp);
    run(loop);
    uint64_t dt = tempo_now_ns() - t0;
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    *replayed = res.ticks;
    *matches = res.matches;
    tempo_loop_destroy(loop);
    tempo_replay_destroy(rp);
    tempo_input_destroy(in);
    return dt;
}

int main(int argc, char **argv)
{
    (void)on_netq; /* replay_game.h's queue handler: test_replay's */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ticks") == 0 && i + 1 < argc)
            ticks = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            snprintf(dir, sizeof dir, "%s", argv[++i]);
    }
    char path1[600], path60[600];
    snprintf(path1, sizeof path1, "%s/bench_replay_1.trec", dir);
    snprintf(path60, sizeof path60, "%s/bench_replay_60.trec", dir);
    uint64_t best_plain = UINT64_MAX, best_rec1 = UINT64_MAX, best_rec60 = UINT64_MAX, best_replay = UINT64_MAX;
    uint64_t bytes1 = 0, bytes60 = 0, inputs = 0, items = 0, replayed = 0;
    bool matches = false;
    for (int round = 0; round < 3; round++) {
        uint64_t b, t;
        t = live_run(NULL, 0, &b, &b, &b);
        best_plain = t < best_plain ? t : best_plain;
        t = live_run(path1, 1, &bytes1, &inputs, &items);
        best_rec1 = t < best_rec1 ? t : best_rec1;
        t = live_run(path60, 60, &bytes60, &b, &b);
        best_rec60 = t < best_rec60 ? t : best_rec60;
        t = replay_run(path1, &replayed, &matches);
        best_replay = t < best_replay ? t : best_replay;
    }
    double per_tick = 1.0 / (double)ticks;
    printf("bench_replay: %llu ticks at 60 Hz, %llu input events and %llu messages recorded (best of 3)\n",
           (unsigned long long)ticks, (unsigned long long)inputs, (unsigned long long)items);
    printf("| run | total ms | per tick µs | file bytes per tick |\n|---|---|---|---|\n");
    printf("| live, not recorded | %.1f | %.2f | - |\n", best_plain / 1e6, best_plain * per_tick / 1e3);
    printf("| live, recorded, flush every tick | %.1f | %.2f (+%.2f) | %.0f |\n", best_rec1 / 1e6,
           best_rec1 * per_tick / 1e3, ((double)best_rec1 - (double)best_plain) * per_tick / 1e3,
           (double)bytes1 * per_tick);
    printf("| live, recorded, flush every 60 ticks | %.1f | %.2f (+%.2f) | %.0f |\n", best_rec60 / 1e6,
           best_rec60 * per_tick / 1e3, ((double)best_rec60 - (double)best_plain) * per_tick / 1e3,
           (double)bytes60 * per_tick);
    printf("| replay, fake clock (open + run) | %.1f | %.2f | %.0f ticks/s, %s |\n", best_replay / 1e6,
           best_replay * per_tick / 1e3, (double)replayed / (best_replay / 1e9), matches ? "matches" : "DIVERGED");
    return matches && replayed == ticks ? 0 : 1;
}
