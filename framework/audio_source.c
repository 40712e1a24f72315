/* tempo_audio_attach(): audio notices as a tempo_loop source
 * (tempo/sources.h), built on tempo_audio_poll(). [loop thread] */
#include <stdlib.h>

#include "tempo/loop.h"
#include "tempo/sources.h"
#include "tempo_internal.h"

typedef struct audio_source {
    tempo_audio *au;
    tempo_audio_notice_fn fn;
    void *user;
} audio_source;

static int audio_dispatch(void *self, tempo_source_call *call)
{
    audio_source *a = self;
    /* Notices are tiny and the game reacts to them (a beat, a cue): hand
     * over what waits until the deadline, at least one. Their times are on
     * the real clock (raised by the audio thread), whatever the loop's is,
     * so the budget is relative. */
    uint64_t start = tempo_now_ns();
    uint64_t budget = call->deadline_ns > call->now_ns ? call->deadline_ns - call->now_ns : 0;
    tempo_audio_notice n;
    uint32_t items = 0;
    for (;;) {
        if (items > 0 && tempo_now_ns() - start >= budget)
            return 1; /* more may wait; the handle is still set */
        int r = tempo_audio_poll(a->au, &n);
        if (r < 0)
            return r;
        if (r == 0)
            break;
        uint64_t now = tempo_now_ns();
        uint64_t age = now > n.raised_ns ? now - n.raised_ns : 0;
        if (age > call->oldest_age_ns)
            call->oldest_age_ns = age;
        a->fn(&n, a->user);
        call->items = ++items;
    }
    return 0;
}

static void audio_detached(void *self)
{
    free(self);
}

int tempo_audio_attach(tempo_audio *au, tempo_loop *loop, tempo_audio_notice_fn fn, void *user)
{
    if (au == NULL || loop == NULL || fn == NULL)
        return TEMPO_EINVAL;
    audio_source *a = malloc(sizeof *a);
    if (a == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_audio_attach: out of memory");
    *a = (audio_source){au, fn, user};
    tempo_source_desc d = {.name = "audio",
                           .handle = tempo_audio_handle(au),
                           .dispatch = audio_dispatch,
                           .detach = audio_detached,
                           .self = a};
    int r = tempo_loop_add_source(loop, &d);
    if (r < 0)
        free(a); /* a failed add never calls detach */
    return r;
}

int tempo_audio_detach(tempo_audio *au, tempo_loop *loop)
{
    if (au == NULL || loop == NULL)
        return TEMPO_EINVAL;
    return tempo_loop_remove_source(loop, tempo_audio_handle(au));
}
