/* The loop's events: what a window event asks of the loop (a verdict:
 * pause, resume, a render, the pacing told; loop.c reads SDL's queue and
 * applies it), each event handed to desc.input and the game's event
 * callback, and the loop's side of the input
 * attached to it (tempo_input_attach in input_source.c: the listener, the
 * pause and the hooks told, and the native devices' handle as a source of
 * the loop). [loop thread] */
#include <SDL.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

/* [loop thread] desc.input's listener: every input event on arrival. */
static bool input_listener(const tempo_input_event *ev, void *user)
{
    tempo_loop *L = user;
    uint64_t a = loop_now(L);
    bool consumed = L->input_event(L, ev, L->user);
    L->frame_game_ns += loop_now(L) - a;
    return consumed;
}

static void call_event(tempo_loop *L, const SDL_Event *e)
{
    if (L->event == NULL)
        return;
    uint64_t a = loop_now(L);
    L->event(L, e, L->user);
    L->frame_game_ns += loop_now(L) - a;
}

/* ---- Events -------------------------------------------------------------------- */

/* What a window event asks of the loop: pause or resume, a render, the
 * pacing told (loop.c applies it, then hands the event on with
 * tempo__loop_deliver_event). */
tempo__window_verdict tempo__loop_window_event(const tempo_loop *L, const SDL_WindowEvent *we)
{
    tempo__window_verdict v = {0};
    if (L->window != NULL && we->windowID != SDL_GetWindowID(L->window))
        return v;
    switch (we->event) {
    case SDL_WINDOWEVENT_MINIMIZED:
        if (!L->run_hidden)
            v.pause_set = PAUSE_MINIMIZED;
        break;
    case SDL_WINDOWEVENT_HIDDEN:
        if (!L->run_hidden)
            v.pause_set = PAUSE_HIDDEN;
        break;
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_MAXIMIZED:
    case SDL_WINDOWEVENT_EXPOSED: /* an exposed window is visible, whatever we missed */
        v.pause_clear = PAUSE_MINIMIZED;
        v.dirty = true;
        v.shown = true; /* withheld presents: probe at once */
        v.reprobe = we->event == SDL_WINDOWEVENT_RESTORED;
        break;
    case SDL_WINDOWEVENT_SHOWN:
        v.pause_clear = PAUSE_HIDDEN;
        v.dirty = true;
        v.shown = true;
        v.reprobe = true;
        break;
    case SDL_WINDOWEVENT_SIZE_CHANGED:
        v.dirty = true;
        break;
    case SDL_WINDOWEVENT_FOCUS_LOST:
        if (L->pause_on_focus)
            v.pause_set = PAUSE_FOCUS;
        break;
    case SDL_WINDOWEVENT_FOCUS_GAINED:
        /* A window with keyboard focus is shown, so it is not minimized,
         * whatever we missed: SDL3 (sdl2-compat) on Wayland sends MINIMIZED
         * but, when weston's switcher brings the window back, only
         * FOCUS_GAINED (weston sends no new configure to a surface that has
         * not committed since, and a paused loop commits nothing), so the
         * minimized pause never ended (issue 36, item 9). */
        v.pause_clear = PAUSE_FOCUS | PAUSE_MINIMIZED;
        v.dirty = true;
        v.shown = true;
        break;
    case SDL_WINDOWEVENT_DISPLAY_CHANGED:
        /* Another monitor: another refresh rate and another vblank phase. */
        v.display_changed = true;
        break;
    default:
        break;
    }
    return v;
}

/* Hands one of SDL's events on: input to desc.input (whose listener is
 * desc.input_event) or straight to desc.input_event, then the game's event
 * callback. Input events are stamped `wake_ns`, when the wait returned:
 * that is when the loop learnt of them, and the same instant for all of a
 * frame's events, so a slow event callback does not skew the later ones. */
void tempo__loop_deliver_event(tempo_loop *L, const SDL_Event *e, uint64_t wake_ns)
{
    if (L->input != NULL) {
        /* Input reaches desc.input_event through the input's listener. */
        tempo_input_handle_sdl(L->input, e, wake_ns); /* 0 for non-input events */
    } else if (L->input_event != NULL) {
        tempo_input_event ev;
        if (tempo_input_from_sdl(e, wake_ns, &ev) > 0) {
            uint64_t a = loop_now(L);
            L->input_event(L, &ev, L->user); /* nothing to consume it from */
            L->frame_game_ns += loop_now(L) - a;
        }
    }
    call_event(L, e);
    if (e->type == SDL_QUIT)
        atomic_store(&L->quit, true);
}

/* ---- Native input --------------------------------------------------------------- */

/* [loop thread] desc.input's native devices signalled: drain them into the
 * ring with the time this frame's wait returned, like SDL's events. One read
 * takes everything buffered, so nothing remains. */
static int native_input_dispatch(void *self, tempo_source_call *call)
{
    tempo_loop *L = self;
    if (L->input == NULL)
        return 0;
    /* A failed read (a device lost for a moment) is the input's to report
     * (tempo_get_error): it must not end the game's loop. */
    int n = tempo_input_read_native(L->input, L->wake_ns);
    call->items = n > 0 ? (uint32_t)n : 0;
    return 0;
}

/* ---- The loop's input (desc.input, tempo_input_attach: input_source.c) ------------- */

void tempo__loop_take_input(tempo_loop *L, tempo_input *in, tempo__input_pause_fn paused,
                            void (*detached)(tempo_input *in))
{
    L->input = in;
    L->input_paused = paused;
    L->input_detached = detached;
    if (L->input_event != NULL)
        tempo_input_set_listener(in, input_listener, L);
    if (L->notified_paused)
        paused(in, true); /* as the loop told it when it paused */
    if (L->hooks.input_changed != NULL)
        L->hooks.input_changed(L->hooks.user, L, in, true);
    /* Its native handle joins the sources at the next frame (tempo__loop_sync_native_input). */
}

void tempo__loop_drop_input(tempo_loop *L)
{
    tempo_input *in = L->input;
    void (*detached)(tempo_input *) = L->input_detached;
    /* Its native handle is the input's: it leaves the wait set now, or,
     * from inside its own dispatch (the listener), at the start of the next
     * frame (tempo__loop_sync_native_input), before the loop waits again. */
    if (L->input_watch != NULL && tempo__loop_remove_source(L, L->input_watch) != TEMPO_EBUSY)
        L->input_watch = NULL;
    if (L->input_event != NULL)
        tempo_input_set_listener(in, NULL, NULL);
    if (L->notified_paused)
        L->input_paused(in, false);
    if (L->hooks.input_changed != NULL)
        L->hooks.input_changed(L->hooks.user, L, in, false);
    L->input = NULL;
    L->input_paused = NULL;
    L->input_detached = NULL;
    detached(in);
}

/* [loop thread] Keeps desc.input's native handle (tempo_input_attach_window)
 * among the sources, so a game attaches or detaches at any time and the
 * loop follows at the next frame. As a source on purpose: it then gets the
 * same wait, progress and statistics as every other one. If no slot is free
 * the input is detached instead: it falls back to SDL events rather than
 * going deaf. */
void tempo__loop_sync_native_input(tempo_loop *L)
{
    tempo_handle *h = L->input != NULL ? tempo_input_native_handle(L->input) : NULL;
    if (L->input_watch != NULL && L->input_watch != h) {
        tempo__loop_remove_source(L, L->input_watch); /* detached: the handle may be gone */
        L->input_watch = NULL;
    }
    if (h == NULL || tempo__loop_find_watch(L, h) >= 0)
        return;
    tempo_source_desc d = {.name = "input", .handle = h, .dispatch = native_input_dispatch, .self = L};
    if (tempo_loop_add_source(L, &d) == 0) {
        L->input_watch = h;
    } else {
        tempo__set_error(TEMPO_EFULL, "loop: no source slot for native input, using SDL events");
        tempo_input_detach_window(L->input);
    }
}

