/* tempo_loop_run (tempo/loop.h): the frames, one after another, until the
 * loop quits or fails, then desc.on_stop. Two runners, chosen by what the
 * backend can do (TEMPO_CAP_HOST_LOOP), never by its name:
 *  - blocking: the loop thread may sleep, so this file calls
 *    tempo_loop_frame() until it returns non-zero (each frame sleeps in its
 *    wait) and returns the result;
 *  - hosted: the host owns the thread's event loop (web: the browser's main
 *    thread, which must never block), so the platform's plat_host_run()
 *    (plat_host.h) calls this file's frame, deadline, counts and end from
 *    the host's callbacks, and does not return.
 * This file sits above the loop, like loop_create.c: it calls the loop's
 * public functions, and nothing in the framework calls it. [loop thread] */
#include <stdio.h>

#include "loop_internal.h"
#include "plat_host.h"
#include "platform.h"
#include "tempo_internal.h"

/* desc.on_stop, once the frames ended: may destroy L (nothing touches it
 * after). */
static void run_ended(tempo_loop *L, int result)
{
    tempo_loop_stop_fn fn = L->on_stop;
    if (fn != NULL)
        fn(L, result, L->user);
}

static int run_blocking(tempo_loop *L)
{
    int r;
    while ((r = tempo_loop_frame(L)) == 0) {
    }
    r = r < 0 ? r : 0;
    run_ended(L, r);
    return r;
}

/* ---- The host's calls (plat_host.h) ---- */

static int host_frame(void *user, bool display)
{
    tempo_loop *L = user;
    return display ? tempo_loop_display_frame(L) : tempo_loop_frame(L);
}

static uint64_t host_next_due_ns(void *user)
{
    return tempo_loop_next_due_ns(user);
}

static void host_counts(void *user, plat_host_counts *out)
{
    const tempo_loop_counts *c = &tempo_loop_get_stats(user)->last_second;
    *out = (plat_host_counts){
        .updates_per_s = c->updates_per_s,
        .renders_per_s = c->renders_per_s,
        .frames_per_s = c->frames_per_s,
        .lateness_p50_ns = c->lateness_p50_ns,
        .lateness_p99_ns = c->lateness_p99_ns,
        .lateness_max_ns = c->lateness_max_ns,
    };
}

static void host_stopped(void *user, int result, char *why, size_t size)
{
    (void)user;
    if (result < 0) {
        snprintf(why, size, "%s (%s)", tempo_strerror(result), tempo_get_error());
        tempo__log(TEMPO_LOG_ERROR, "tempo_loop_run: the loop stopped: %s", why);
    } else {
        snprintf(why, size, "quit");
        tempo__log(TEMPO_LOG_INFO, "tempo_loop_run: the loop quit; the host goes on (a page stays as it is)");
    }
}

static void host_ended(void *user, int result)
{
    run_ended(user, result);
}

static const plat_host_calls host_calls = {
    .frame = host_frame,
    .next_due_ns = host_next_due_ns,
    .counts = host_counts,
    .stopped = host_stopped,
    .ended = host_ended,
};

int tempo_loop_run(tempo_loop *L)
{
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loop_run: loop is NULL");
    if (plat_capabilities() & TEMPO_CAP_HOST_LOOP)
        return plat_host_run(&host_calls, L);
    return run_blocking(L);
}
