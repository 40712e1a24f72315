/* The host's loop: what a port whose host owns the thread's event loop
 * implements (TEMPO_CAP_HOST_LOOP; the web backend, platform/web/web_loop.c,
 * where the browser owns the main thread and it must never block).
 *
 * tempo_loop_run() is the framework's (framework/loop_run.c). Where the
 * loop thread may block it runs the frames itself, one after another; with
 * TEMPO_CAP_HOST_LOOP it hands them to the host here: the framework fills a
 * plat_host_calls with its frame, deadline, statistics and end, and the
 * port calls them from the host's callbacks. So the port decides when a
 * frame runs, and the framework what a frame is: the port calls no Tempo
 * function (only the basement's error detail and log, tempo_internal.h).
 * A backend without the capability links platform/common/plat_host_none.c,
 * whose plat_host_run is never called.
 *
 * [loop thread] everything here. */
#ifndef TEMPO_PLAT_HOST_H
#define TEMPO_PLAT_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The loop's counts of its last whole second, for what the host shows of
 * it (the web page's Module.tempoStats). */
typedef struct plat_host_counts {
    double updates_per_s, renders_per_s, frames_per_s;
    uint64_t lateness_p50_ns, lateness_p99_ns, lateness_max_ns;
} plat_host_counts;

/* What the framework lends the port for one run; `user` is passed back to
 * each. Valid until `ended` returns. */
typedef struct plat_host_calls {
    /* Runs one frame: `display` true for the host's display frame (its
     * vsync: a wanted render happens there and only there), false for a
     * frame at the loop's deadline. Returns 0 (go on), 1 (the loop quit) or
     * a negative TEMPO_E* (the loop failed); after non-zero the port calls
     * no more frames. */
    int (*frame)(void *user, bool display);
    /* The loop's next deadline on plat_now_ns()'s clock (an update tick or
     * source work, never a render); UINT64_MAX when nothing is due (paused:
     * input and display frames wake it). */
    uint64_t (*next_due_ns)(void *user);
    /* The loop's last-second counts. */
    void (*counts)(void *user, plat_host_counts *out);
    /* The frames stopped with `result` (1: quit, negative: the error): logs
     * it and writes one line for the host into why ("quit" or the error's
     * text and detail). Called once, before `ended`. */
    void (*stopped)(void *user, int result, char *why, size_t size);
    /* Called once after the last frame, outside every frame, with 0 (quit)
     * or the negative error: runs desc.on_stop, which may destroy the loop;
     * the port calls nothing of `calls` afterwards. */
    void (*ended)(void *user, int result);
} plat_host_calls;

/* Hands the frames to the host and returns to it: TEMPO_EBUSY (detail set)
 * if a run is already going; otherwise runs the first frame at once, and if
 * it ended the run there (`ended` has run) returns its result (0 or the
 * error); else registers the host's callbacks and does not return (web:
 * emscripten unwinds to the browser). Only with TEMPO_CAP_HOST_LOOP. */
int plat_host_run(const plat_host_calls *calls, void *user);

#endif /* TEMPO_PLAT_HOST_H */
