/* Absolute timer schedules, shared by every backend.
 *
 * Pure arithmetic on caller-supplied times, so the unit tests drive it with a
 * fake clock. Tick k of an armed schedule is due at first_due + k * period.
 * Nothing here reads a clock or takes a lock: the caller holds whatever lock
 * guards the schedule.
 */
#ifndef TEMPO_PLAT_SCHED_H
#define TEMPO_PLAT_SCHED_H

#include <stdbool.h>
#include <stdint.h>

typedef struct plat_sched {
    uint64_t next_due_ns; /* the earliest tick not yet consumed */
    uint64_t period_ns;   /* 0: one-shot */
    bool armed;
} plat_sched;

static inline void plat_sched_arm(plat_sched *s, uint64_t due_ns, uint64_t period_ns)
{
    s->next_due_ns = due_ns;
    s->period_ns = period_ns;
    s->armed = true;
}

static inline void plat_sched_disarm(plat_sched *s)
{
    s->armed = false;
}

static inline bool plat_sched_is_due(const plat_sched *s, uint64_t now_ns)
{
    return s->armed && now_ns >= s->next_due_ns;
}

/* The absolute time of the next tick, or UINT64_MAX when disarmed. */
static inline uint64_t plat_sched_next(const plat_sched *s)
{
    return s->armed ? s->next_due_ns : UINT64_MAX;
}

/* Consumes every tick due at `now_ns` and returns how many there were (0 if
 * none). A one-shot schedule disarms itself; a periodic one moves to the
 * first tick after now_ns, keeping the phase of the original schedule, so a
 * late consumer never causes drift: ticks are skipped, never shifted. */
static inline uint64_t plat_sched_consume(plat_sched *s, uint64_t now_ns)
{
    if (!plat_sched_is_due(s, now_ns))
        return 0;
    if (s->period_ns == 0) {
        s->armed = false;
        return 1;
    }
    uint64_t ticks = (now_ns - s->next_due_ns) / s->period_ns + 1;
    uint64_t advance = ticks * s->period_ns;
    if (advance > UINT64_MAX - s->next_due_ns) { /* schedule ran off the clock */
        s->armed = false;
        return ticks;
    }
    s->next_due_ns += advance;
    return ticks;
}

#endif /* TEMPO_PLAT_SCHED_H */
