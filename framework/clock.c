/* The shared clock shape and the ready-made fake clock (tempo/clock.h).
 *
 * The fake time is one atomic: producer threads stamp netq messages while
 * the loop thread advances it in its waits, and a test thread may move it
 * too. Advancing is a compare-and-swap loop taking the maximum, so two
 * threads moving it at once never move it backwards. The wait hook and the
 * counters belong to the loop thread (the only caller of wait_until). */
#include <stdatomic.h>
#include <stdlib.h>

#include "tempo/clock.h"
#include "tempo/wait.h"
#include "tempo_internal.h"

struct tempo_fake_clock {
    _Atomic(uint64_t) now_ns;
    tempo_fake_clock_wait_fn hook; /* [loop thread] */
    void *hook_user;
    tempo_fake_clock_stats st;     /* [loop thread] */
};

uint64_t tempo_clock_now(const tempo_clock *clock)
{
    return clock != NULL && clock->now != NULL ? clock->now(clock->user) : tempo_now_ns();
}

bool tempo_clock_is_fake(const tempo_clock *clock)
{
    return clock != NULL && clock->now != NULL;
}

tempo_fake_clock *tempo_fake_clock_create(uint64_t start_ns)
{
    tempo_fake_clock *fc = calloc(1, sizeof *fc);
    if (fc == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_fake_clock_create: out of memory");
        return NULL;
    }
    atomic_init(&fc->now_ns, start_ns);
    return fc;
}

void tempo_fake_clock_destroy(tempo_fake_clock *fc)
{
    free(fc);
}

uint64_t tempo_fake_clock_now(const tempo_fake_clock *fc)
{
    return fc != NULL ? atomic_load(&((tempo_fake_clock *)fc)->now_ns) : 0;
}

/* Raises the time to at least `t`; returns the time after the call. */
static uint64_t raise_to(tempo_fake_clock *fc, uint64_t t)
{
    uint64_t cur = atomic_load(&fc->now_ns);
    while (cur < t && !atomic_compare_exchange_weak(&fc->now_ns, &cur, t)) {
    }
    return cur < t ? t : cur;
}

uint64_t tempo_fake_clock_advance(tempo_fake_clock *fc, uint64_t ns)
{
    if (fc == NULL)
        return 0;
    uint64_t cur = atomic_load(&fc->now_ns), next;
    do {
        next = ns > UINT64_MAX - cur ? UINT64_MAX : cur + ns;
    } while (!atomic_compare_exchange_weak(&fc->now_ns, &cur, next));
    return next;
}

int tempo_fake_clock_set(tempo_fake_clock *fc, uint64_t t_ns)
{
    if (fc == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_fake_clock_set: clock is NULL");
    uint64_t now = atomic_load(&fc->now_ns);
    if (t_ns < now)
        return tempo__set_error(TEMPO_ERANGE, "tempo_fake_clock_set: %llu ns is before the clock's %llu ns (it never "
                                              "goes back)", (unsigned long long)t_ns, (unsigned long long)now);
    raise_to(fc, t_ns);
    return 0;
}

void tempo_fake_clock_on_wait(tempo_fake_clock *fc, tempo_fake_clock_wait_fn fn, void *user)
{
    if (fc == NULL)
        return;
    fc->hook = fn;
    fc->hook_user = user;
}

int tempo_fake_clock_get_stats(const tempo_fake_clock *fc, tempo_fake_clock_stats *out)
{
    if (fc == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_fake_clock_get_stats: %s is NULL", fc == NULL ? "clock" : "out");
    *out = fc->st;
    return 0;
}

static uint64_t fake_now(void *user)
{
    return atomic_load(&((tempo_fake_clock *)user)->now_ns);
}

/* [loop thread] */
static void fake_wait_until(void *user, uint64_t deadline_ns)
{
    tempo_fake_clock *fc = user;
    uint64_t before = atomic_load(&fc->now_ns);
    fc->st.waits++;
    if (deadline_ns == TEMPO_INFINITE)
        fc->st.infinite_waits++;
    uint64_t to;
    if (fc->hook != NULL)
        to = fc->hook(fc->hook_user, before, deadline_ns);
    else
        to = deadline_ns == TEMPO_INFINITE ? before : deadline_ns;
    uint64_t after = raise_to(fc, to);
    fc->st.slept_ns += after - before;
}

tempo_clock tempo_fake_clock_get(tempo_fake_clock *fc)
{
    if (fc == NULL)
        return (tempo_clock){0};
    return (tempo_clock){fake_now, fake_wait_until, fc};
}
