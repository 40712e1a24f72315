/* Threads and mutexes of the web backend: pthreads, which emscripten runs
 * as Web Workers sharing the wasm memory (a -pthread build; the page must
 * be cross-origin isolated for SharedArrayBuffer, docs/web.md). A worker
 * may block (Atomics.wait); the page's main thread may not, so the loader
 * and network threads block here while the loop thread polls (web_wait.c).
 * A mutex taken on the main thread spins instead of sleeping (emscripten's
 * pthread_mutex_lock there): Tempo holds its locks for microseconds. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plat_thread.h"
#include "tempo_internal.h"

struct plat_thread {
    pthread_t id;
    int (*fn)(void *arg);
    void *arg;
    int result;
};

struct plat_mutex {
    pthread_mutex_t m;
};

/* [the new thread] */
static void *thread_main(void *p)
{
    plat_thread *t = p;
    t->result = t->fn(t->arg);
    return NULL;
}

plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg)
{
    plat_thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "thread %s: out of memory", name);
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
    int e = pthread_create(&t->id, NULL, thread_main, t);
    if (e != 0) {
        /* EAGAIN: no worker left in the pool and the page cannot start one
         * without returning to the browser (-sPTHREAD_POOL_SIZE). */
        tempo__set_error(TEMPO_EPLATFORM, "pthread_create(%s): %s", name, strerror(e));
        free(t);
        return NULL;
    }
    return t;
}

int plat_thread_join(plat_thread *t)
{
    pthread_join(t->id, NULL);
    int r = t->result;
    free(t);
    return r;
}

/* The browser schedules its workers; a page has no say in their priority. */
int plat_thread_set_background(void)
{
    return TEMPO_ENOTSUP;
}

/* The browser schedules its workers: there is nothing to give up. */
void plat_thread_background_yield(bool woke)
{
    (void)woke;
}

plat_mutex *plat_mutex_create(void)
{
    plat_mutex *m = calloc(1, sizeof *m);
    if (m == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "mutex: out of memory");
        return NULL;
    }
    int e = pthread_mutex_init(&m->m, NULL);
    if (e != 0) {
        tempo__set_error(TEMPO_EPLATFORM, "pthread_mutex_init: %s", strerror(e));
        free(m);
        return NULL;
    }
    return m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    if (m == NULL)
        return;
    pthread_mutex_destroy(&m->m);
    free(m);
}

void plat_mutex_lock(plat_mutex *m)
{
    pthread_mutex_lock(&m->m);
}

void plat_mutex_unlock(plat_mutex *m)
{
    pthread_mutex_unlock(&m->m);
}

/* The browser keeps no CPU time per thread (or per page): no number rather
 * than a made-up one. plat_process_usage (platform/common/plat_clock_sdl.c, built
 * without clock_gettime here) says the same. */
int plat_thread_cpu_ns(uint64_t *out_ns)
{
    (void)out_ns;
    return TEMPO_ENOTSUP;
}
