/* The loop's life (tempo/loop.h): tempo_loop_create is the loop (loop.c)
 * plus what its descriptor attaches (desc.input, through the input's
 * adapter as tempo_input_attach would), and tempo_loop_destroy lets go of
 * everything attached, in the order the layers need, before the loop goes.
 * This file sits above the loop's parts and the adapters: it calls them,
 * and nothing in the framework calls it. [loop thread] */
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

/* The loop thread's scheduler slice (plat_thread_hold_slice): longer than
 * the work of a 60 Hz frame between two waits (a slower update step sets
 * its own), so the tick does not hand the core to a background thread
 * mid-frame. bench_game's burst lost 2-4.7 ms of an 11 ms drain that way,
 * to the loader's thread woken by the frame's own submits. A thread that
 * wakes still preempts the loop thread as before. */
#define LOOP_SLICE_NS (20 * TEMPO_NS_PER_MS)

tempo_loop *tempo_loop_create(const tempo_loop_desc *desc)
{
    tempo_loop *L = tempo__loop_new(desc);
    if (L == NULL)
        return NULL; /* detail set */
    if (desc != NULL && desc->input != NULL && tempo_input_attach(desc->input, L) < 0) {
        tempo__loop_free(L);
        tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EBUSY,
                            "tempo_loop_create: desc.input is attached to another loop");
        return NULL;
    }
    L->slice_held =
        plat_thread_hold_slice(L->sched.step_ns > LOOP_SLICE_NS ? L->sched.step_ns : LOOP_SLICE_NS) == 0;
    return L;
}

void tempo_loop_destroy(tempo_loop *L)
{
    if (L == NULL)
        return;
    if (L->in_frame) {
        /* The frame reads the loop after the callback returns: freeing it
         * here was a use-after-free. Refuse loudly instead. */
        (void)tempo__set_error(TEMPO_EBUSY, "tempo_loop_destroy: called from inside tempo_loop_frame() "
                                            "(a loop callback); quit, and destroy after the loop returns");
        return;
    }
    tempo__loop_detach_all(L);
    if (L->input != NULL)
        tempo__loop_drop_input(L); /* it may outlive the loop: it lets go of it */
    if (L->hooks.loop_destroyed != NULL)
        L->hooks.loop_destroyed(L->hooks.user, L); /* after the sources: their detach may still deliver */
    if (L->slice_held)
        plat_thread_release_slice();
    tempo__loop_free(L);
}
