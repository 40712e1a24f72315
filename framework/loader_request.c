/* The loader's request object and the lists it moves along
 * (loader_internal.h): the list operations, the progress group lookup, the
 * idle signal, a request's failure record and its freeing. The lowest floor
 * of the loader: every other loader file calls down into this one, and it
 * calls none of them. Thread: any, with the lock or ownership each function
 * names. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader_internal.h"

/* ---- Lists (under lock) ----------------------------------------------------- */

void tempo__loader_list_push_back(load_list *l, load_req *r)
{
    r->next = NULL;
    r->prev = l->tail;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
    l->count++;
}

void tempo__loader_list_insert_after(load_list *l, load_req *at, load_req *r)
{
    if (at == NULL) { /* at the front */
        r->prev = NULL;
        r->next = l->head;
        if (l->head)
            l->head->prev = r;
        else
            l->tail = r;
        l->head = r;
    } else {
        r->prev = at;
        r->next = at->next;
        if (at->next)
            at->next->prev = r;
        else
            l->tail = r;
        at->next = r;
    }
    l->count++;
}

void tempo__loader_list_remove(load_list *l, load_req *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        l->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        l->tail = r->prev;
    r->prev = r->next = NULL;
    l->count--;
}

load_req *tempo__loader_list_pop_front(load_list *l)
{
    load_req *r = l->head;
    if (r)
        tempo__loader_list_remove(l, r);
    return r;
}

load_req *tempo__loader_list_find(load_list *list, uint64_t id)
{
    for (load_req *r = list->head; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

/* ---- Progress groups and the idle signal (under lock) ----------------------- */

load_group *tempo__loader_group_find(tempo_loader *l, uint32_t id)
{
    for (int i = 0; i < l->n_groups; i++)
        if (l->groups[i].id == id)
            return &l->groups[i];
    return NULL;
}

void tempo__loader_update_idle(tempo_loader *l)
{
    if (l->queue.count == 0 && l->running.count == 0)
        tempo_event_set(l->idle_ev);
}

void tempo__loader_count_bytes(tempo_loader *l, load_req *r, uint64_t bytes)
{
    load_group *g = tempo__loader_group_find(l, r->group);
    if (g)
        g->p.bytes_total = g->p.bytes_total - r->counted_bytes + bytes;
    r->counted_bytes = bytes;
}

/* ---- Failures and freeing --------------------------------------------------- */

int tempo__loader_fail(load_req *r, int code, const char *fmt, ...)
{
    char buf[1280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    SDL_free(r->error_text);
    r->error_text = buf[0] ? SDL_strdup(buf) : NULL;
    r->error = code;
    return code;
}

const char *tempo__loader_sdl_text(const char *fallback)
{
    const char *e = SDL_GetError();
    return e && e[0] ? e : fallback;
}

void tempo__loader_free_req(load_req *r)
{
    free((void *)r->job.args);
    SDL_free(r->error_text);
    free(r);
}
