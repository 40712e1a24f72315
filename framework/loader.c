/* The background loader (tempo/loader.h): the object's lifecycle. How the
 * work is split between the loader's files, and the lock and event rules
 * they share, is in loader_internal.h. [loop thread] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_internal.h"

#define DEFAULT_BUDGET_NS (2 * TEMPO_NS_PER_MS)
#define DEFAULT_MAX_PENDING 8192
/* Without a renderer's limit: the common GPU maximum, and a 1 GiB RGBA
 * surface at most, whatever a lying header claims. */
#define DEFAULT_MAX_IMAGE_SIDE 16384

static uint64_t default_now(void *user)
{
    (void)user;
    return tempo_now_ns();
}

static void stop_threads(tempo_loader *l)
{
    plat_mutex_lock(l->lock);
    l->stopping = true;
    plat_mutex_unlock(l->lock);
    tempo_event_set(l->stop_ev);
    for (int i = 0; i < l->n_threads; i++)
        plat_thread_join(l->threads[i]);
    l->n_threads = 0;
}

static void free_loader(tempo_loader *l)
{
    tempo_event_destroy(l->work_ev);
    tempo_event_destroy(l->done_ev);
    tempo_event_destroy(l->idle_ev);
    tempo_event_destroy(l->stop_ev);
    if (l->lock)
        plat_mutex_destroy(l->lock);
    free(l->groups);
    if (l->formats_held)
        tempo__load_formats_unref();
    free(l);
}

tempo_loader *tempo_loader_create(const tempo_loader_desc *desc)
{
    tempo_loader_desc d = desc ? *desc : (tempo_loader_desc){0};
    /* One message per wrong field, naming it and its range. */
    if (d.threads < 0 || d.threads > TEMPO__LOADER_MAX_THREADS) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.threads is %d, outside 0..%d", d.threads,
                         TEMPO__LOADER_MAX_THREADS);
        return NULL;
    }
    if (d.max_pending < 0) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.max_pending is %d, must be >= 0", d.max_pending);
        return NULL;
    }
    if (d.max_texture_size < 0) {
        tempo__set_error(TEMPO_EINVAL, "tempo_loader_create: desc.max_texture_size is %d, must be >= 0",
                         d.max_texture_size);
        return NULL;
    }
    tempo_loader *l = calloc(1, sizeof *l);
    if (l == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_loader_create");
        return NULL;
    }
    if (tempo__load_formats_ref() < 0) {
        free_loader(l);
        return NULL;
    }
    l->formats_held = true;
    l->renderer = d.renderer;
    l->low_priority = d.low_priority;
    l->budget_ns = d.finalize_budget_ns ? d.finalize_budget_ns : DEFAULT_BUDGET_NS;
    l->max_pending = d.max_pending ? (uint32_t)d.max_pending : DEFAULT_MAX_PENDING;
    l->now_ns = d.clock.now != NULL ? d.clock.now : default_now;
    l->now_user = d.clock.now != NULL ? d.clock.user : NULL;
    l->max_pixels = d.max_image_pixels ? d.max_image_pixels : TEMPO_LOADER_DEFAULT_MAX_PIXELS;
    l->allow_unchecked = d.allow_unchecked_formats;
    l->group_done = d.group_done;
    l->group_done_user = d.group_done_user;
    if (d.renderer != NULL) {
        SDL_RendererInfo info;
        if (SDL_GetRendererInfo(d.renderer, &info) != 0) {
            tempo__set_error(TEMPO_EPLATFORM, "tempo_loader_create: SDL_GetRendererInfo: %s", SDL_GetError());
            free_loader(l);
            return NULL;
        }
        l->n_tex_formats = (int)SDL_min(info.num_texture_formats, SDL_arraysize(l->tex_formats));
        memcpy(l->tex_formats, info.texture_formats, sizeof l->tex_formats);
        l->max_tex_w = info.max_texture_width;
        l->max_tex_h = info.max_texture_height;
    }
    if (d.max_texture_size > 0)
        l->max_tex_w = l->max_tex_h = d.max_texture_size;
    if (l->max_tex_w <= 0)
        l->max_tex_w = DEFAULT_MAX_IMAGE_SIDE;
    if (l->max_tex_h <= 0)
        l->max_tex_h = DEFAULT_MAX_IMAGE_SIDE;

    l->lock = plat_mutex_create();
    l->work_ev = tempo_event_create(false, false);
    l->done_ev = tempo_event_create(true, false);
    l->idle_ev = tempo_event_create(true, true);
    l->stop_ev = tempo_event_create(true, false);
    if (!l->lock || !l->work_ev || !l->done_ev || !l->idle_ev || !l->stop_ev) {
        free_loader(l);
        return NULL;
    }
    int want = d.threads ? d.threads : 1;
    for (int i = 0; i < want; i++) {
        char name[32];
        snprintf(name, sizeof name, "tempo-loader-%d", i);
        l->threads[i] = plat_thread_create(tempo__loader_reader_main, name, l);
        if (l->threads[i] == NULL) {
            stop_threads(l);
            free_loader(l);
            return NULL;
        }
        l->n_threads = i + 1;
    }
    return l;
}

void tempo_loader_destroy(tempo_loader *l)
{
    if (l == NULL)
        return;
    if (l->in_process) {
        tempo__set_error(TEMPO_EBUSY, "tempo_loader_destroy called from a done callback: ignored");
        return;
    }
    if (tempo__attachment_leave(&l->at, l, "tempo_loader_destroy") < 0)
        return;
    stop_threads(l);
    /* No loader thread is left: the lists are ours. Deliver what finished
     * first (that is the order it would have been delivered in), then what
     * never started, all as cancelled. */
    l->in_process = true;
    for (;;) {
        plat_mutex_lock(l->lock);
        load_req *r = tempo__loader_list_pop_front(&l->finished);
        if (r == NULL)
            r = tempo__loader_list_pop_front(&l->queue);
        plat_mutex_unlock(l->lock);
        if (r == NULL)
            break;
        tempo__loader_deliver(l, r, true);
    }
    l->in_process = false;
    free_loader(l);
}

tempo__attachment *tempo__loader_attachment(tempo_loader *l)
{
    return &l->at;
}
