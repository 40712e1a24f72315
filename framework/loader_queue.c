/* The loader's queue (loader_internal.h): submit in priority order, the
 * progress groups a submit opens, cancel and the queries. Thread: any;
 * everything shared is under the loader's lock. */
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"

/* ---- Priority order and progress groups (under lock) ----------------------- */

/* Priority order: after the last request of equal or higher priority, so
 * equal priorities stay FIFO. Scanning from the tail makes the common case
 * (everything at one priority) O(1). [under lock] */
static void queue_insert(load_list *q, load_req *r)
{
    load_req *at = q->tail;
    while (at != NULL && at->priority < r->priority)
        at = at->prev;
    tempo__loader_list_insert_after(q, at, r);
}

/* [under lock] */
static load_group *get_group(tempo_loader *l, uint32_t id)
{
    load_group *g = tempo__loader_group_find(l, id);
    if (g)
        return g;
    if (l->n_groups == l->cap_groups) {
        int cap = l->cap_groups ? l->cap_groups * 2 : 8;
        load_group *ng = realloc(l->groups, (size_t)cap * sizeof *ng);
        if (ng == NULL)
            return NULL;
        l->groups = ng;
        l->cap_groups = cap;
    }
    g = &l->groups[l->n_groups++];
    memset(g, 0, sizeof *g);
    g->id = id;
    return g;
}

/* ---- Submit and cancel (any thread) ---------------------------------------- */

uint64_t tempo_loader_submit(tempo_loader *l, const tempo_load_request *q)
{
    if (l == NULL || q == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: %s is NULL", l == NULL ? "loader" : "request");
        return 0;
    }
    const load_format *fmt = tempo__load_format_of(q->type);
    if (fmt == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: unknown request type %d", (int)q->type);
        return 0;
    }
    bool file = fmt->reads_file;
    if (file && q->path == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: path is NULL");
        return 0;
    }
    if (q->type == TEMPO_LOAD_CUSTOM && q->work == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: custom request without a work function");
        return 0;
    }
    if (q->args_size > 0 && q->args == NULL) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_submit: args is NULL with args_size %llu",
                         (unsigned long long)q->args_size);
        return 0;
    }

    size_t plen = file ? strlen(q->path) : 0;
    load_req *r = calloc(1, sizeof *r + plen + 1);
    void *args = NULL;
    if (r == NULL || (q->args_size > 0 && (args = malloc(q->args_size)) == NULL)) {
        free(r);
        tempo__set_error(TEMPO_ENOMEM, "tempo_loader_submit: %llu bytes",
                         (unsigned long long)(sizeof *r + plen + 1 + q->args_size));
        return 0;
    }
    if (plen)
        memcpy(r->path, q->path, plen);
    if (args)
        memcpy(args, q->args, q->args_size);
    r->type = q->type;
    r->priority = q->priority;
    r->group = q->group;
    r->done = q->done;
    r->user = q->user;
    r->work = q->work;
    r->finalize = q->finalize;
    r->discard = q->discard;
    r->job.args = args;
    r->job.args_size = q->args_size;
    r->job.user = q->user;
    r->state = REQ_QUEUED;

    int err = 0;
    uint64_t id = 0; /* r belongs to the loader once queued: never read it after unlocking */
    plat_mutex_lock(l->lock);
    load_group *g = NULL;
    uint32_t pending = l->queue.count + l->running.count + l->finished.count;
    if (l->stopping)
        err = TEMPO_ESHUTDOWN;
    else if (pending >= l->max_pending)
        err = TEMPO_EFULL;
    else if ((g = get_group(l, q->group)) == NULL)
        err = TEMPO_ENOMEM;
    if (err == 0) {
        if (g->p.items_done == g->p.items_total) /* everything delivered: a new batch */
            memset(&g->p, 0, sizeof g->p);
        g->p.items_total++;
        g->p.bytes_total += q->size_hint_bytes;
        r->counted_bytes = q->size_hint_bytes;
        r->id = r->job.id = id = ++l->next_id;
        r->submit_ns = tempo_now_ns();
        queue_insert(&l->queue, r);
        l->stats.submitted++;
        tempo_event_reset(l->idle_ev);
    }
    plat_mutex_unlock(l->lock);

    if (err != 0) {
        /* A full queue is expected back-pressure, reported by the return
         * value: debug level, or a producer retrying floods the log. */
        if (err == TEMPO_EFULL)
            tempo__set_error_at(TEMPO_LOG_DEBUG, err, "tempo_loader_submit: %u requests pending (desc.max_pending)",
                                (unsigned)pending);
        else if (err == TEMPO_ESHUTDOWN)
            tempo__set_error_at(TEMPO_LOG_DEBUG, err, "tempo_loader_submit: the loader is being destroyed");
        else
            tempo__set_error(err, "tempo_loader_submit: no memory for progress group %u", (unsigned)q->group);
        free(args);
        free(r);
        return 0;
    }
    tempo_event_set(l->work_ev);
    return id;
}

/* [under lock] Marks r cancelled; a queued request moves straight to
 * finished so the next process() reports it. Returns true if newly cancelled. */
static bool cancel_locked(tempo_loader *l, load_req *r)
{
    bool fresh = !r->cancelled;
    r->cancelled = true;
    if (r->state == REQ_QUEUED) {
        tempo__loader_list_remove(&l->queue, r);
        r->state = REQ_FINISHED;
        tempo__loader_list_push_back(&l->finished, r);
        tempo_event_set(l->done_ev);
        tempo__loader_update_idle(l);
    }
    return fresh;
}

int tempo_loader_cancel(tempo_loader *l, uint64_t id)
{
    if (l == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_cancel: loader is NULL");
    plat_mutex_lock(l->lock);
    load_req *r = tempo__loader_list_find(&l->queue, id);
    if (r == NULL)
        r = tempo__loader_list_find(&l->running, id);
    if (r == NULL)
        r = tempo__loader_list_find(&l->finished, id);
    if (r != NULL)
        cancel_locked(l, r);
    plat_mutex_unlock(l->lock);
    if (r == NULL) /* delivered already, most often: an expected outcome */
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOENT, "tempo_loader_cancel: no request %llu pending",
                                   (unsigned long long)id);
    return 0;
}

int tempo_loader_cancel_group(tempo_loader *l, uint32_t group)
{
    if (l == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_cancel_group: loader is NULL");
    int n = 0;
    plat_mutex_lock(l->lock);
    load_list *lists[3] = {&l->queue, &l->running, &l->finished};
    for (int i = 0; i < 3; i++) {
        load_req *next;
        for (load_req *r = lists[i]->head; r; r = next) {
            next = r->next; /* cancel_locked may move a queued r to finished */
            if (r->group == group && cancel_locked(l, r))
                n++;
        }
    }
    plat_mutex_unlock(l->lock);
    return n;
}

/* ---- Queries -------------------------------------------------------------- */

tempo_handle *tempo_loader_handle(tempo_loader *l)
{
    return l ? l->done_ev : NULL;
}

int tempo_loader_wait_idle(tempo_loader *l, uint64_t timeout_ns)
{
    if (l == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_wait_idle: loader is NULL");
    int r = tempo_wait(&l->idle_ev, 1, timeout_ns, 0);
    return r == 0 ? 0 : r;
}

int tempo_loader_progress(tempo_loader *l, uint32_t group, tempo_load_progress *out)
{
    if (l == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_progress: %s is NULL", l == NULL ? "loader" : "out");
    plat_mutex_lock(l->lock);
    load_group *g = tempo__loader_group_find(l, group);
    if (g)
        *out = g->p;
    else
        memset(out, 0, sizeof *out);
    plat_mutex_unlock(l->lock);
    return 0;
}

int tempo_loader_get_stats(tempo_loader *l, tempo_loader_stats *out)
{
    if (l == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_get_stats: %s is NULL", l == NULL ? "loader" : "out");
    plat_mutex_lock(l->lock);
    *out = l->stats;
    out->queued = l->queue.count;
    out->running = l->running.count;
    out->finished = l->finished.count;
    plat_mutex_unlock(l->lock);
    return 0;
}

int tempo_loader_pending(tempo_loader *l)
{
    if (l == NULL)
        return 0;
    plat_mutex_lock(l->lock);
    int n = (int)(l->queue.count + l->running.count + l->finished.count);
    plat_mutex_unlock(l->lock);
    return n;
}
