/* The header split (issue 37, CHANGELOG.md) moved declarations between public headers; code
 * written against the old ones still builds. Built twice: with TEMPO_COMPAT_LOOP, including
 * tempo/loop.h alone, which still declares what moved out of it into tempo/source.h,
 * tempo/stats.h and tempo/debugdraw.h (and tempo_input_attach, now in tempo/input.h); without
 * it, including tempo/sources.h alone, which still declares every attach now in its object's
 * header. Each name is used, so a declaration that went missing fails the build. */
#ifdef TEMPO_COMPAT_LOOP
#include <tempo/loop.h>
#else
#include <tempo/sources.h>
#endif

#ifdef TEMPO_COMPAT_LOOP
static int deliver_count;
static void deliver(void *self, const tempo_replay_item *item, const void *live)
{
    (void)self;
    (void)item;
    (void)live;
    deliver_count++;
}
#endif

int main(int argc, char *argv[])
{
    (void)argv;
    void (*volatile fns[])(void) = {
#ifdef TEMPO_COMPAT_LOOP
        /* tempo/source.h */
        (void (*)(void))tempo_loop_watch, (void (*)(void))tempo_loop_unwatch,
        (void (*)(void))tempo_loop_add_source, (void (*)(void))tempo_loop_remove_source,
        (void (*)(void))tempo_loop_source_deliver,
        /* tempo/stats.h */
        (void (*)(void))tempo_loop_get_stats, (void (*)(void))tempo_loop_wake_name,
        (void (*)(void))tempo_loop_pacing_name,
        /* tempo/debugdraw.h */
        (void (*)(void))tempo_loop_draw_stats, (void (*)(void))tempo_loop_draw_stats_scaled,
        (void (*)(void))tempo_loop_stats_height, (void (*)(void))tempo_loop_stats_fit_scale,
        (void (*)(void))tempo_loop_stats_scale,
        /* tempo/input.h */
        (void (*)(void))tempo_input_attach, (void (*)(void))tempo_input_detach,
#else
        (void (*)(void))tempo_loader_attach, (void (*)(void))tempo_loader_detach,
        (void (*)(void))tempo_audio_attach, (void (*)(void))tempo_audio_detach,
        (void (*)(void))tempo_input_attach, (void (*)(void))tempo_input_detach,
        (void (*)(void))tempo_netq_attach, (void (*)(void))tempo_netq_detach,
#if TEMPO_HAVE_NET
        (void (*)(void))tempo_net_attach, (void (*)(void))tempo_net_detach,
#endif
#endif
    };
#ifdef TEMPO_COMPAT_LOOP
    tempo_source_desc desc = {.name = "compat", .deliver = deliver};
    tempo_replay_item item = {.kind = TEMPO_REPLAY_MESSAGE};
    tempo_loop_stats stats = {.pacing = TEMPO_LOOP_PACING_TIMER};
    tempo_source_call call = {.must_progress = true};
    desc.deliver(desc.self, &item, NULL);
    int sizes = (int)sizeof stats.sources / (int)sizeof stats.sources[0] == TEMPO_LOOP_MAX_SOURCES &&
                TEMPO_LOOP_STATS_W > 0 && TEMPO_LOOP_MAX_WATCHES > 0 && TEMPO_LOOP_HISTORY > 0 &&
                TEMPO_LOOP_WAKE_COUNT > 0 && call.must_progress && deliver_count == 1;
    return sizes && fns[argc - 1] ? 0 : 1;
#else
    tempo_audio_notice_fn on_notice = 0;
    return fns[argc - 1] && !on_notice ? 0 : 1;
#endif
}
