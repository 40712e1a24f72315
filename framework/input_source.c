/* tempo_input_attach(): the input buffer as the loop's input
 * (tempo/input.h), beside the loader's and the audio's adapters. The
 * loop's side (SDL events into the input, the listener, native devices as a
 * source) is the loop's own (loop_events.c: tempo__loop_take_input); this
 * file decides what the input does with the loop's pauses and how it leaves
 * the loop when destroyed. [loop thread] */
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo/input.h"
#include "tempo_internal.h"

/* A paused loop suspends the input's controller polling (SDL2 can only
 * poll them, and the poll interval would wake the paused loop hundreds of
 * times a second). */
static void input_paused(tempo_input *in, bool idle_paused)
{
    tempo_input_suspend_polling(in, idle_paused);
}

static void input_detached(tempo_input *in)
{
    *tempo__input_attachment(in) = (tempo__attachment){0};
}

/* Its destroy leaves the loop (tempo__attachment): never refused (from its
 * own listener the native handle leaves at the next frame). */
static int input_leave(tempo_loop *L, void *object, const char *what)
{
    (void)object;
    (void)what;
    tempo__loop_drop_input(L);
    return 0;
}

int tempo_input_attach(tempo_input *in, tempo_loop *L)
{
    if (in == NULL || L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_attach: %s is NULL", in == NULL ? "input" : "loop");
    tempo__attachment *at = tempo__input_attachment(in);
    if (at->loop == L && L->input == in)
        return 0;
    if (at->loop != NULL || L->input != NULL)
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EBUSY, "tempo_input_attach: %s",
                                   at->loop != NULL ? "the input is attached to another loop"
                                                    : "the loop has another input attached");
    *at = (tempo__attachment){L, input_leave};
    tempo__loop_take_input(L, in, input_paused, input_detached);
    return 0;
}

int tempo_input_detach(tempo_input *in)
{
    tempo_loop *L = in != NULL ? tempo__input_attachment(in)->loop : NULL;
    if (L == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_detach: %s", in == NULL ? "input is NULL"
                                                                                : "the input is not attached to a loop");
    tempo__loop_drop_input(L); /* input_detached runs last */
    return 0;
}
