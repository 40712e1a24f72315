/* The loader's loop-thread half (loader_internal.h): process() finalizes
 * and delivers finished requests within a budget or a deadline, uploading
 * large images' textures in strips across calls (each strip sized here to
 * the time left, uploaded by loader_upload.c); and the record/replay hooks
 * that deliver one request by id (sources_internal.h). [loop thread] */

#include "loader_internal.h"
#include "upload_split.h"

/* ---- Delivery ------------------------------------------------------------- */

/* [loop thread] */
void tempo__loader_deliver(tempo_loader *l, load_req *r, bool destroying)
{
    const load_format *fmt = tempo__load_format_of(r->type);
    bool cancelled = r->cancelled || destroying; /* nobody writes it once finished is left */
    if (!cancelled && r->error == 0 && fmt->finalize != NULL)
        fmt->finalize(l, r);
    if (cancelled) {
        fmt->release(r);
        tempo__loader_fail(r, TEMPO_ECANCELED, "%s",
                           r->cancelled ? "cancelled (tempo_loader_cancel)" : "loader destroyed before delivery");
    } else if (r->error != 0) {
        fmt->release(r); /* e.g. a custom result left next to an error */
        /* Expected: the result carries it. A game loading untrusted files
         * must not be flooded (or slowed) by one log line per refusal. */
        tempo__log(TEMPO_LOG_DEBUG, "tempo loader: request %llu (%s) failed: %s: %s", (unsigned long long)r->id,
                   fmt->reads_file ? r->path : fmt->name, tempo_errname(r->error),
                   r->error_text ? r->error_text : "");
    }

    plat_mutex_lock(l->lock);
    load_group *g = tempo__loader_group_find(l, r->group);
    bool batch_done = false;
    tempo_load_progress batch = {0};
    if (g) {
        g->p.items_done++;
        g->p.bytes_done += r->bytes;
        if (r->error == TEMPO_ECANCELED)
            g->p.items_cancelled++;
        else if (r->error != 0)
            g->p.items_failed++;
        /* This delivery completes the batch: a submit from the `done`
         * below starts a new one (as for progress). */
        if (g->p.items_done == g->p.items_total) {
            batch_done = true;
            batch = g->p;
        }
    }
    l->stats.delivered++;
    if (r->error == TEMPO_ECANCELED)
        l->stats.cancelled++;
    else if (r->error != 0)
        l->stats.failed++;
    plat_mutex_unlock(l->lock);

    tempo_load_result res;
    if (r->done != NULL || l->tap != NULL) {
        res = (tempo_load_result){
            .id = r->id,
            .type = r->type,
            .group = r->group,
            .error = r->error,
            .error_text = r->error_text ? r->error_text : "",
            .path = r->path,
            .user = r->user,
            .args = r->type == TEMPO_LOAD_CUSTOM ? r->job.args : NULL,
            .args_size = r->type == TEMPO_LOAD_CUSTOM ? r->job.args_size : 0,
            .bytes = r->bytes,
            .work_ns = r->work_ns,
            .latency_ns = tempo_now_ns() - r->submit_ns,
            .texture = r->texture,
            .surface = r->surface,
            .chunk = r->chunk,
            .music = r->music,
            .data = r->data,
            .size = r->size,
            .custom = r->custom,
        };
        if (l->tap != NULL && !destroying)
            l->tap(l->tap_user, &res);
    }
    if (r->done != NULL) {
        r->done(l, &res, r->user);
    } else {
        fmt->release(r); /* nobody to hand it to */
    }
    uint32_t group = r->group;
    tempo__loader_free_req(r);
    if (batch_done && l->group_done != NULL)
        l->group_done(l, group, &batch, l->group_done_user);
}

/* How process() treats an image upload that does not fit before the deadline. */
typedef enum process_mode {
    WHOLE,     /* tempo_loader_process(): every item whole */
    SPLIT,     /* tempo_loader_process_until(): a strip now, the rest later */
    SPLIT_MUST /* the source's guaranteed unit: one item or one strip at least */
} process_mode;

/* The loop-thread half of process() and process_until(). `deadline`:
 * UINT64_MAX for none. Adds the strips uploaded to *strips. [loop thread] */
static int process(tempo_loader *l, uint64_t deadline, process_mode mode, uint32_t *strips)
{
    if (l == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_loader_process: loader is NULL");
    if (l->in_process)
        return tempo__set_error(TEMPO_EBUSY, "tempo_loader_process: called from a done callback");
    const uint64_t t0 = l->now_ns(l->now_user);
    /* With a deadline, do not start an item that would probably end after
     * it: the estimate is the running average of recent items (texture
     * uploads apart: those are sized to the time left below). */
    if (mode != SPLIT_MUST && deadline != UINT64_MAX && (t0 >= deadline || deadline - t0 < l->item_avg_ns))
        return 0;
    l->in_process = true;
    /* Where a strip must end: the deadline or the budget, whichever is first. */
    uint64_t limit = t0 + l->budget_ns < deadline ? t0 + l->budget_ns : deadline;
    uint64_t t = t0, item_max = 0, over = 0;
    int n = 0;
    uint32_t split = 0;
    for (;;) {
        plat_mutex_lock(l->lock);
        load_req *r = l->finished.head;
        bool stream = r != NULL && mode != WHOLE && !r->cancelled && r->error == 0 &&
                      (r->texture != NULL || tempo__loader_streamable(l, r));
        plat_mutex_unlock(l->lock);
        if (r == NULL)
            break;
        if (stream) {
            /* Leave room for the rest of the delivery (the item average),
             * and for the texture's creation before its first strip. */
            uint64_t left = limit > t ? limit - t : 0;
            left = left > l->item_avg_ns ? left - l->item_avg_ns : 0;
            SDL_Surface *sf = r->surface;
            int rows_left = sf->h - (r->texture != NULL ? r->rows_done : 0);
            uint64_t row_bytes = tempo__loader_row_bytes(sf);
            if (r->texture == NULL) {
                uint64_t create = tempo__upload_create_ns(l->create_ns_per_byte, row_bytes * (uint64_t)sf->h);
                left = left > create ? left - create : 0;
            }
            bool must = mode == SPLIT_MUST && n == 0 && split == 0;
            int rows = tempo__upload_rows(l->upload_ns_per_byte, left, row_bytes, rows_left, must);
            if (rows == 0)
                break; /* not even a strip fits: the next call */
            if (rows < rows_left) {
                uint64_t ti = t;
                tempo__loader_upload_rows(l, r, rows);
                t = l->now_ns(l->now_user);
                split++;
                if (t - ti > item_max)
                    item_max = t - ti;
                if (r->error == 0)
                    break; /* the time is used: the rest next call */
                /* A failed upload: deliver the error now. */
            }
            /* Otherwise the rest fits: delivered whole below. */
        }
        plat_mutex_lock(l->lock);
        load_req *front = tempo__loader_list_pop_front(&l->finished);
        if (l->finished.count == 0)
            tempo_event_reset(l->done_ev);
        plat_mutex_unlock(l->lock);
        SDL_assert(front == r); /* loader threads only append; cancel does not move finished ones */
        (void)front;
        uint64_t ti = t;
        l->upload_ns = 0;
        tempo__loader_deliver(l, r, false);
        n++;
        t = l->now_ns(l->now_user);
        uint64_t took = t - ti;
        if (took > item_max)
            item_max = took;
        if (took > l->budget_ns)
            over++;
        /* An exponential average over ~8 items follows a change of asset
         * size quickly without trusting one outlier. Uploads are learnt
         * apart (per byte), so one large image does not make every later
         * item look too big for the time left. */
        uint64_t cost = took > l->upload_ns ? took - l->upload_ns : 0;
        l->item_avg_ns = l->item_avg_ns ? l->item_avg_ns - l->item_avg_ns / 8 + cost / 8 : cost;
        if (t - t0 >= l->budget_ns)
            break; /* the rest waits for the next call; done_ev stays signalled */
        if (deadline != UINT64_MAX && (t >= deadline || deadline - t < l->item_avg_ns))
            break;
    }
    l->in_process = false;
    if (n > 0 || split > 0) {
        plat_mutex_lock(l->lock);
        l->stats.process_calls++;
        l->stats.items_over_budget += over;
        l->stats.upload_strips += split;
        if (t - t0 > l->stats.process_max_ns)
            l->stats.process_max_ns = t - t0;
        if (item_max > l->stats.item_max_ns)
            l->stats.item_max_ns = item_max;
        plat_mutex_unlock(l->lock);
    }
    if (strips != NULL)
        *strips += split;
    return n;
}

int tempo_loader_process(tempo_loader *l)
{
    return process(l, UINT64_MAX, WHOLE, NULL);
}

int tempo_loader_process_until(tempo_loader *l, uint64_t deadline_ns)
{
    return process(l, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns, SPLIT, NULL);
}

int tempo__loader_process_step(tempo_loader *l, uint64_t deadline_ns, bool must_progress, uint32_t *strips)
{
    return process(l, deadline_ns == UINT64_MAX ? UINT64_MAX - 1 : deadline_ns, must_progress ? SPLIT_MUST : SPLIT,
                   strips);
}

/* ---- The loader source's hooks (sources_internal.h) ------------------------------ */

void tempo__loader_set_tap(tempo_loader *l, tempo__loader_tap_fn tap, void *user)
{
    l->tap = tap;
    l->tap_user = user;
}

int tempo__loader_deliver_id(tempo_loader *l, uint64_t id, uint64_t timeout_ns)
{
    if (l->in_process)
        return TEMPO_EBUSY;
    uint64_t give_up = tempo_now_ns() + timeout_ns;
    int rc = 0;
    for (;;) {
        plat_mutex_lock(l->lock);
        load_req *r = tempo__loader_list_find(&l->finished, id);
        if (r != NULL) {
            tempo__loader_list_remove(&l->finished, r);
            if (l->finished.count == 0)
                tempo_event_reset(l->done_ev);
            plat_mutex_unlock(l->lock);
            l->in_process = true;
            tempo__loader_deliver(l, r, false);
            l->in_process = false;
            return 0;
        }
        bool pending =
            tempo__loader_list_find(&l->queue, id) != NULL || tempo__loader_list_find(&l->running, id) != NULL;
        if (!pending) {
            rc = TEMPO_ENOENT; /* never submitted, or delivered already */
        } else {
            /* Wait for the next item to finish. The reset is under the lock
             * the worker sets the event under, so no finish is missed; the
             * signal is restored below for the items left waiting. */
            tempo_event_reset(l->done_ev);
        }
        plat_mutex_unlock(l->lock);
        if (rc != 0)
            break;
        uint64_t now = tempo_now_ns();
        if (now >= give_up) {
            rc = TEMPO_ETIMEDOUT;
            break;
        }
        tempo_handle *h = l->done_ev;
        tempo_wait(&h, 1, give_up - now, 0);
    }
    plat_mutex_lock(l->lock);
    if (l->finished.count > 0)
        tempo_event_set(l->done_ev);
    plat_mutex_unlock(l->lock);
    return rc;
}
