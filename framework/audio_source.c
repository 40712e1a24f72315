/* tempo_audio_attach(): audio notices as a tempo_loop source
 * (tempo/audio.h), built on tempo_audio_poll(). [loop thread] */
#include <stdlib.h>

#include "audio_internal.h"
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo/audio.h"
#include "tempo/loop.h"
#include "tempo_internal.h"

typedef struct audio_source {
    tempo_audio *au;
    tempo_audio_notice_fn fn;
    void *user;
    tempo_loop *loop;
} audio_source;

/* [loop thread] The source's deliver (tempo/loop.h): a notice as it came
 * (live), or rebuilt from a recording (kind, channel, tag, frame; the times
 * are 0). */
static void audio_deliver(void *self, const tempo_replay_item *it, const void *live)
{
    audio_source *a = self;
    if (live != NULL) {
        a->fn(live, a->user);
        return;
    }
    tempo_audio_notice n = {.kind = it->type, .channel = it->audio_channel, .tag = it->id, .frame = it->value};
    a->fn(&n, a->user);
}

static void deliver(audio_source *a, const tempo_audio_notice *n)
{
    tempo_replay_item it = {.kind = TEMPO_REPLAY_AUDIO, .type = n->kind, .audio_channel = n->channel,
                            .id = n->tag, .value = n->frame};
    tempo_loop_source_deliver(a->loop, tempo_audio_handle(a->au), &it, n);
}

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
        deliver(a, &n);
        call->items = ++items;
    }
    /* An idle pause with desc.quiet_when_idle: the device gets its silent
     * buffers, one look per paused frame, before its thread is stopped. */
    return tempo__audio_settle(a->au);
}

/* The loop's pauses, for desc.pause_with_game and desc.quiet_when_idle. */
static void audio_pause_hook(void *self, bool idle_paused, bool game_paused, bool quitting)
{
    audio_source *a = self;
    tempo__audio_follow_loop(a->au, idle_paused, game_paused, quitting);
}

static void audio_detached(void *self)
{
    audio_source *a = self;
    tempo__audio_follow_loop(a->au, false, false, false); /* no loop pauses it now */
    *tempo__audio_attachment(a->au) = (tempo__attachment){0};
    free(self);
}

/* Its destroy leaves the loop (tempo__attachment). */
static int audio_leave(tempo_loop *loop, void *object, const char *what)
{
    return tempo__leave_loop(loop, tempo_audio_handle(object), what);
}

int tempo_audio_attach(tempo_audio *au, tempo_loop *loop, tempo_audio_notice_fn fn, void *user)
{
    if (au == NULL || loop == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_attach: the %s is NULL",
                                au == NULL ? "audio" : loop == NULL ? "loop" : "notice callback");
    if (tempo__audio_attachment(au)->loop != NULL)
        return tempo__set_error(TEMPO_EBUSY, "tempo_audio_attach: the audio is already attached to a loop");
    audio_source *a = malloc(sizeof *a);
    if (a == NULL)
        return tempo__set_error(TEMPO_ENOMEM, "tempo_audio_attach: out of memory");
    *a = (audio_source){au, fn, user, loop};
    tempo_source_desc d = {.name = TEMPO__AUDIO_SOURCE,
                           .handle = tempo_audio_handle(au),
                           .dispatch = audio_dispatch,
                           .detach = audio_detached,
                           .self = a,
                           .deliver = audio_deliver};
    int r = tempo_loop_add_source(loop, &d);
    if (r < 0) {
        free(a); /* a failed add never calls detach */
        return r;
    }
    *tempo__audio_attachment(au) = (tempo__attachment){loop, audio_leave};
    tempo__loop_source_pause_hook(loop, d.handle, audio_pause_hook);
    return 0;
}

int tempo_audio_detach(tempo_audio *au)
{
    if (au == NULL || tempo__audio_attachment(au)->loop == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_audio_detach: %s",
                                au == NULL ? "the audio is NULL" : "the audio is not attached");
    return tempo_loop_remove_source(tempo__audio_attachment(au)->loop, tempo_audio_handle(au));
}
