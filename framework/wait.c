/* The public handle and wait API: argument checks shared by every backend,
 * so both report the same errors for the same misuse. Handles are ids looked
 * up in the handle table (handle_pool.h), so a destroyed or never-issued
 * handle is TEMPO_EINVAL every time, never a read of freed memory. */
#include "handle_pool.h"
#include "platform.h"
#include "tempo/wait.h"
#include "tempo_internal.h"

uint64_t tempo_now_ns(void)
{
    return plat_now_ns();
}

int tempo_process_usage(tempo_usage *out)
{
    if (out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_process_usage: out is NULL");
    return plat_process_usage(out);
}

const char *tempo_backend_name(void)
{
    return plat_backend_name();
}

bool tempo_backend_has(unsigned caps)
{
    return caps != 0 && (plat_capabilities() & caps) == caps;
}

const char *tempo_wait_route(void)
{
    return plat_wait_route();
}

int tempo_video_prepare(void)
{
    return plat_video_prepare();
}

void tempo_shutdown(void)
{
    plat_shutdown();
    tempo__handle_shutdown();
}

/* Registers a new backend object; on failure destroys it. */
static tempo_handle *add(plat_handle *obj, int kind)
{
    if (obj == NULL)
        return NULL;
    tempo_handle *id = tempo__handle_add(obj, kind);
    if (id == NULL)
        plat_handle_destroy(obj);
    return id;
}

/* Both destroy functions. A stale id or the other kind's destroy is a bug in
 * the caller that must not pass silently: it is logged (and recorded for
 * tempo_get_error()). A handle of the other kind is destroyed all the same,
 * as CloseHandle closes any kernel object: refusing would leak it. */
static void destroy(tempo_handle *h, int kind, const char *fn)
{
    if (h == NULL)
        return;
    int actual = 0;
    plat_handle *obj = tempo__handle_remove(h, &actual);
    if (obj == NULL) {
        tempo__set_error(TEMPO_EINVAL, "%s(%p): not a live handle (destroyed twice?); ignored", fn, (void *)h);
        return;
    }
    if (actual != kind)
        tempo__set_error(TEMPO_EINVAL, "%s(%p): the handle is %s; destroyed it anyway", fn, (void *)h,
                         actual == PLAT_HANDLE_TIMER ? "a timer (use tempo_timer_destroy)"
                                                     : "an event (use tempo_event_destroy)");
    plat_handle_destroy(obj);
}

/* The detail for a handle tempo__handle_get refused: NULL, destroyed (or
 * never created), or a live handle of the other kind. */
static int not_live(const char *fn, const tempo_handle *h, int kind)
{
    if (h == NULL)
        return tempo__set_error(TEMPO_EINVAL, "%s: the handle is NULL", fn);
    int actual = tempo__handle_kind(h);
    if (actual != 0 && actual != kind)
        return tempo__set_error(TEMPO_EINVAL, "%s(%p): the handle is %s, not %s", fn, (const void *)h,
                                actual == PLAT_HANDLE_TIMER ? "a timer" : "an event",
                                kind == PLAT_HANDLE_TIMER ? "a timer" : "an event");
    return tempo__set_error(TEMPO_EINVAL, "%s(%p): not a live handle (destroyed?)", fn, (const void *)h);
}

tempo_handle *tempo_event_create(bool manual_reset, bool initially_signaled)
{
    return add(plat_event_create(manual_reset, initially_signaled), PLAT_HANDLE_EVENT);
}

int tempo_event_set(tempo_handle *event)
{
    plat_handle *h = tempo__handle_get(event, PLAT_HANDLE_EVENT);
    if (h == NULL)
        return not_live("tempo_event_set", event, PLAT_HANDLE_EVENT);
    plat_event_set(h);
    plat_handles_release(&h, 1);
    return 0;
}

int tempo_event_reset(tempo_handle *event)
{
    plat_handle *h = tempo__handle_get(event, PLAT_HANDLE_EVENT);
    if (h == NULL)
        return not_live("tempo_event_reset", event, PLAT_HANDLE_EVENT);
    plat_event_reset(h);
    plat_handles_release(&h, 1);
    return 0;
}

void tempo_event_destroy(tempo_handle *event)
{
    destroy(event, PLAT_HANDLE_EVENT, "tempo_event_destroy");
}

tempo_handle *tempo_timer_create(bool manual_reset)
{
    return add(plat_timer_create(manual_reset), PLAT_HANDLE_TIMER);
}

int tempo_timer_set(tempo_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    plat_handle *h = tempo__handle_get(timer, PLAT_HANDLE_TIMER);
    if (h == NULL)
        return not_live("tempo_timer_set", timer, PLAT_HANDLE_TIMER);
    plat_timer_set(h, due_ns, period_ns);
    plat_handles_release(&h, 1);
    return 0;
}

int tempo_timer_cancel(tempo_handle *timer)
{
    plat_handle *h = tempo__handle_get(timer, PLAT_HANDLE_TIMER);
    if (h == NULL)
        return not_live("tempo_timer_cancel", timer, PLAT_HANDLE_TIMER);
    plat_timer_cancel(h);
    plat_handles_release(&h, 1);
    return 0;
}

uint64_t tempo_timer_missed(const tempo_handle *timer)
{
    plat_handle *h = tempo__handle_get(timer, PLAT_HANDLE_TIMER);
    if (h == NULL)
        return 0;
    uint64_t missed = plat_timer_missed(h);
    plat_handles_release(&h, 1);
    return missed;
}

void tempo_timer_destroy(tempo_handle *timer)
{
    destroy(timer, PLAT_HANDLE_TIMER, "tempo_timer_destroy");
}

int tempo_wait(tempo_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    if (n > TEMPO_WAIT_MAX_HANDLES)
        return tempo__set_error(TEMPO_ETOOMANY, "tempo_wait: n is %d, above %d", n, TEMPO_WAIT_MAX_HANDLES);
    if (n < 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_wait: n is %d, negative", n);
    if (n > 0 && handles == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_wait: handles is NULL with n %d", n);
    if (flags & ~(unsigned)TEMPO_WAIT_MESSAGES)
        return tempo__set_error(TEMPO_EINVAL, "tempo_wait: unknown flags 0x%x", flags & ~(unsigned)TEMPO_WAIT_MESSAGES);
    /* The references keep each object valid for the whole wait even if its
     * handle is destroyed meanwhile (then the wait never returns it). */
    plat_handle *objs[TEMPO_WAIT_MAX_HANDLES];
    int rc = tempo__handle_retain(handles, n, objs);
    if (rc < 0)
        return rc;
    int r = plat_wait(objs, n, timeout_ns, flags);
    plat_handles_release(objs, n);
    return r;
}
