/* The loop's life (tempo/loop.h): tempo_loop_create is the loop (loop.c)
 * plus what its descriptor attaches (desc.input, through the input's
 * adapter as tempo_input_attach would), and tempo_loop_destroy lets go of
 * everything attached, in the order the layers need, before the loop goes.
 * This file sits above the loop's parts and the adapters: it calls them,
 * and nothing in the framework calls it. [loop thread] */
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

/* The loop leaves its thread's scheduler slice alone. It held 20 ms for a
 * while (issue 39), so that the tick would not hand the core to the
 * loader's freshly woken thread mid-drain; the loader's threads now give
 * that turn up themselves (plat_thread_background_yield), and on EEVDF a
 * long slice also makes a thread's own wake-ups wait behind busy threads
 * of normal priority (bench_sched, D: beside one such thread, 41 of 240
 * wake-ups over 1 ms late, up to 2.7 ms; none with the kernel's slice). */

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
    tempo__loop_free(L);
}
