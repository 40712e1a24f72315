/* The loader's reader threads (loader_internal.h): each takes the next
 * request in priority order, runs its format's decoder (loader_formats.c:
 * it reads the file through loader_io.c), then moves it to `finished` for
 * the loop thread. [loader thread] */
#include "loader_internal.h"

/* Each thread keeps one reusable file buffer (load_scratch), which the
 * decoders read files into (loader_io.c). Decoders only read the file's
 * bytes, so images and sounds reuse one buffer instead of a fresh
 * allocation per request: fresh memory costs a page fault per 4 KiB on first
 * touch, ~12 us each on the VM bench_loader was developed on (30 faults for
 * a 120 KB PNG). Buffers above SCRATCH_KEEP_BYTES are released after the
 * request so one huge file does not pin memory. */
#define SCRATCH_KEEP_BYTES ((size_t)8 << 20)

/* ---- The thread ------------------------------------------------------------ */

/* [loader thread] */
static void run(tempo_loader *l, load_req *r, load_scratch *sc)
{
    uint64_t t0 = tempo_now_ns();
    tempo__load_format_of(r->type)->decode(l, r, sc); /* submit checked the type */
    r->work_ns = tempo_now_ns() - t0;
}

/* [loader thread] Takes requests in priority order until told to stop;
 * sleeps in tempo_wait when the queue is empty. */
int tempo__loader_reader_main(void *arg)
{
    tempo_loader *l = arg;
    tempo_handle *wake[2] = {l->stop_ev, l->work_ev}; /* stop wins: lowest index */
    load_scratch sc = {0};
    /* Opt-in (desc.low_priority): a contended core then goes to the loop
     * thread first, and waking this thread (a submit) does not take the
     * loop thread's core. Not fatal if the OS refuses (a debug line says
     * so): the jobs run at the priority the thread has. */
    if (l->low_priority)
        plat_thread_set_background();
    for (;;) {
        plat_mutex_lock(l->lock);
        if (l->stopping) {
            plat_mutex_unlock(l->lock);
            SDL_free(sc.buf);
            return 0;
        }
        load_req *r = tempo__loader_list_pop_front(&l->queue);
        if (r != NULL) {
            r->state = REQ_RUNNING;
            tempo__loader_list_push_back(&l->running, r);
            /* One signal woke one thread: pass it on while work remains. */
            if (l->queue.count > 0)
                tempo_event_set(l->work_ev);
        }
        plat_mutex_unlock(l->lock);

        if (r == NULL) {
            int w = tempo_wait(wake, 2, TEMPO_INFINITE, 0);
            if (w == 0) {
                SDL_free(sc.buf);
                return 0;
            }
            if (w < 0) {
                tempo__set_error(w, "loader thread: tempo_wait failed: %s", tempo_get_error());
                SDL_free(sc.buf);
                return w;
            }
            /* A submit's wake-up would otherwise win this thread the next
             * pick on the loop thread's core, for a tick (plat_thread.h). */
            if (l->low_priority)
                plat_thread_background_yield(true);
            continue;
        }

        if (l->low_priority)
            plat_thread_background_yield(false);
        run(l, r, &sc);
        if (sc.cap > SCRATCH_KEEP_BYTES) {
            SDL_free(sc.buf);
            sc = (load_scratch){0};
        }

        plat_mutex_lock(l->lock);
        tempo__loader_list_remove(&l->running, r);
        r->state = REQ_FINISHED;
        tempo__loader_list_push_back(&l->finished, r);
        tempo_event_set(l->done_ev);
        tempo__loader_update_idle(l);
        plat_mutex_unlock(l->lock);
    }
}
