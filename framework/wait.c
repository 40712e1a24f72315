/* The public handle and wait API: argument checks shared by every backend,
 * so both report the same errors for the same misuse. */
#include "platform.h"
#include "tempo/wait.h"
#include "tempo_internal.h"

static bool is_kind(const tempo_handle *h, int kind)
{
    return h != NULL && plat_handle_kind(h) == kind;
}

uint64_t tempo_now_ns(void)
{
    return plat_now_ns();
}

int tempo_process_usage(tempo_usage *out)
{
    if (out == NULL)
        return TEMPO_EINVAL;
    return plat_process_usage(out);
}

const char *tempo_backend_name(void)
{
    return plat_backend_name();
}

const char *tempo_wait_route(void)
{
    return plat_wait_route();
}

void tempo_shutdown(void)
{
    plat_shutdown();
}

tempo_handle *tempo_event_create(bool manual_reset, bool initially_signaled)
{
    return plat_event_create(manual_reset, initially_signaled);
}

int tempo_event_set(tempo_handle *event)
{
    if (!is_kind(event, PLAT_HANDLE_EVENT))
        return TEMPO_EINVAL;
    plat_event_set(event);
    return 0;
}

int tempo_event_reset(tempo_handle *event)
{
    if (!is_kind(event, PLAT_HANDLE_EVENT))
        return TEMPO_EINVAL;
    plat_event_reset(event);
    return 0;
}

void tempo_event_destroy(tempo_handle *event)
{
    if (is_kind(event, PLAT_HANDLE_EVENT))
        plat_handle_destroy(event);
}

tempo_handle *tempo_timer_create(bool manual_reset)
{
    return plat_timer_create(manual_reset);
}

int tempo_timer_set(tempo_handle *timer, uint64_t due_ns, uint64_t period_ns)
{
    if (!is_kind(timer, PLAT_HANDLE_TIMER))
        return TEMPO_EINVAL;
    plat_timer_set(timer, due_ns, period_ns);
    return 0;
}

int tempo_timer_cancel(tempo_handle *timer)
{
    if (!is_kind(timer, PLAT_HANDLE_TIMER))
        return TEMPO_EINVAL;
    plat_timer_cancel(timer);
    return 0;
}

uint64_t tempo_timer_missed(const tempo_handle *timer)
{
    return is_kind(timer, PLAT_HANDLE_TIMER) ? plat_timer_missed(timer) : 0;
}

void tempo_timer_destroy(tempo_handle *timer)
{
    if (is_kind(timer, PLAT_HANDLE_TIMER))
        plat_handle_destroy(timer);
}

int tempo_wait(tempo_handle *const *handles, int n, uint64_t timeout_ns, unsigned flags)
{
    if (n > TEMPO_WAIT_MAX_HANDLES)
        return TEMPO_ETOOMANY;
    if (n < 0 || (n > 0 && handles == NULL) || (flags & ~(unsigned)TEMPO_WAIT_MESSAGES))
        return TEMPO_EINVAL;
    for (int i = 0; i < n; i++)
        if (handles[i] == NULL || plat_handle_kind(handles[i]) == 0)
            return TEMPO_EINVAL;
    return plat_wait(handles, n, timeout_ns, flags);
}
