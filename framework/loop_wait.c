/* The frame's wait (loop.c's tempo_loop_frame calls it through L->wait):
 * sleep until the deadline or until a handle of the wait set fires, then
 * look at every handle without blocking, and say why it woke. Two ways,
 * chosen once at create: the platform's (tempo__loop_wait_real: the wake
 * event, the one-shot timer armed at the absolute deadline, the watched
 * handles, and window messages), or desc.clock's adapter
 * (tempo__loop_wait_clock). It reads the registry's snapshot the frame took
 * and writes only what it owns: the timer's armed deadline and the
 * struct tempo__frame_wait it fills. [loop thread] */
#include <string.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "tempo_internal.h"

typedef struct tempo__frame_wait frame_wait;

/* Polls the snapshot's handles that have not fired yet, without waiting.
 * Each zero-timeout wait reports the lowest signalled one, which is then
 * left out, so this costs one call plus one per signalled handle. */
static int poll_watches(frame_wait *fw)
{
    tempo_handle *sub[TEMPO_LOOP_MAX_WATCHES];
    int map[TEMPO_LOOP_MAX_WATCHES], m = 0;
    for (int j = 0; j < fw->nsnap; j++)
        if (!fw->fired[j]) {
            sub[m] = fw->snap[j].handle;
            map[m++] = j;
        }
    while (m > 0) {
        int q = tempo_wait(sub, m, 0, 0);
        if (q == TEMPO_ETIMEDOUT)
            break;
        if (q < 0)
            return q;
        fw->fired[map[q]] = true;
        memmove(&sub[q], &sub[q + 1], sizeof sub[0] * (size_t)(m - q - 1));
        memmove(&map[q], &map[q + 1], sizeof map[0] * (size_t)(m - q - 1));
        m--;
    }
    return 0;
}

/* The wait refused a handle: say which watch or source it was (the wake
 * event and the timer are the loop's own and stay alive). */
void tempo__loop_name_dead_watch(const frame_wait *fw)
{
    for (int j = 0; j < fw->nsnap; j++)
        if (tempo__handle_kind(fw->snap[j].handle) == 0) {
            tempo__set_error(TEMPO_EINVAL,
                             "tempo_loop_frame: the %s handle %p was destroyed while in the loop's wait set "
                             "(unwatch or remove it first)",
                             fw->snap[j].source >= 0 ? "source's" : "watched", (void *)fw->snap[j].handle);
            return;
        }
}

/* Sleeps until `deadline` (TEMPO_INFINITE: no timeout; <= now: do not
 * sleep) or until something arrives, on the real wait. */
int tempo__loop_wait_real(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline)
{
    tempo_handle *set[TEMPO_WAIT_MAX_HANDLES];
    set[0] = L->wake;
    set[1] = L->timer;
    for (int j = 0; j < fw->nsnap; j++)
        set[2 + j] = fw->snap[j].handle;
    int n = 2 + fw->nsnap;

    uint64_t timeout = TEMPO_INFINITE;
    if (deadline == TEMPO_INFINITE) {
        if (L->timer_due != 0) {
            tempo_timer_cancel(L->timer);
            L->timer_due = 0;
        }
    } else if (deadline <= now) {
        timeout = 0;
    } else if (L->timer_due != deadline) {
        tempo_timer_set(L->timer, deadline, 0);
        L->timer_due = deadline;
    }
    int r = tempo_wait(set, n, timeout, TEMPO_WAIT_MESSAGES);
    fw->slept = timeout != 0;
    if (r == TEMPO_ETIMEDOUT) {
        fw->wake = TEMPO_LOOP_WAKE_DUE;
        return poll_watches(fw);
    }
    if (r < 0)
        return r;
    if (r == 0) {
        fw->wake = TEMPO_LOOP_WAKE_SIGNAL;
    } else if (r == 1) {
        fw->wake = TEMPO_LOOP_WAKE_TIMER;
        L->timer_due = 0; /* the one-shot fired and disarmed itself */
    } else if (r < n) {
        fw->wake = fw->snap[r - 2].source >= 0 ? TEMPO_LOOP_WAKE_SOURCE : TEMPO_LOOP_WAKE_WATCH;
        fw->fired[r - 2] = true; /* its signal is consumed: remember it */
    } else {
        fw->wake = TEMPO_LOOP_WAKE_MESSAGES;
        fw->messages = true;
    }
    if (!fw->slept)
        fw->wake = TEMPO_LOOP_WAKE_DUE;
    return poll_watches(fw); /* the wait returned one: the others too */
}

/* desc.clock's wait, the same contract as wait_real: hand the deadline to
 * the clock (which moves its time there, or as far as it likes), then look
 * at what arrived meanwhile without blocking. A wake is reported as the
 * real wait would: the first fired watch or source, else pending SDL
 * events, else the timer. */
int tempo__loop_wait_clock(tempo_loop *L, frame_wait *fw, uint64_t now, uint64_t deadline)
{
    fw->slept = deadline > now;
    if (fw->slept && L->clock.wait_until != NULL)
        L->clock.wait_until(L->clock.user, deadline);
    fw->messages = SDL_WasInit(SDL_INIT_EVENTS) != 0; /* pump: nobody else did */
    fw->wake = fw->slept ? TEMPO_LOOP_WAKE_TIMER : TEMPO_LOOP_WAKE_DUE;
    int rc = poll_watches(fw);
    if (rc < 0 || fw->wake != TEMPO_LOOP_WAKE_TIMER)
        return rc;
    for (int j = 0; j < fw->nsnap; j++)
        if (fw->fired[j]) { /* the first, as the real wait reports the lowest */
            fw->wake = fw->snap[j].source >= 0 ? TEMPO_LOOP_WAKE_SOURCE : TEMPO_LOOP_WAKE_WATCH;
            return 0;
        }
    if (fw->messages && SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT))
        fw->wake = TEMPO_LOOP_WAKE_MESSAGES;
    return 0;
}
