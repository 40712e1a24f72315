/* The loop's events: SDL's queue after each wait (window state that
 * pauses, resumes or re-measures the presents; everything to the game's
 * event callback and desc.input), and the loop's side of the input
 * attached to it (tempo_input_attach in input_source.c: the listener, the
 * pause and the hooks told, and the native devices' handle as a source of
 * the loop). [loop thread] */
#include <SDL.h>

#include "handle_pool.h"
#include "loop_internal.h"
#include "sources_internal.h"
#include "tempo_internal.h"

/* Most SDL events one frame dispatches. An event callback that pushes an
 * event for every event it gets would otherwise keep the frame forever; the
 * rest stay queued and make the next wait return at once. */
#define MAX_EVENTS_PER_FRAME 1024

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

/* Window state that pauses, resumes or dirties the loop. */
static void window_event(tempo_loop *L, const SDL_WindowEvent *we)
{
    if (L->window != NULL && we->windowID != SDL_GetWindowID(L->window))
        return;
    switch (we->event) {
    case SDL_WINDOWEVENT_MINIMIZED:
        if (!L->run_hidden)
            L->pause_mask |= PAUSE_MINIMIZED;
        break;
    case SDL_WINDOWEVENT_HIDDEN:
        if (!L->run_hidden)
            L->pause_mask |= PAUSE_HIDDEN;
        break;
    case SDL_WINDOWEVENT_RESTORED:
    case SDL_WINDOWEVENT_MAXIMIZED:
    case SDL_WINDOWEVENT_EXPOSED: /* an exposed window is visible, whatever we missed */
        L->pause_mask &= ~(unsigned)PAUSE_MINIMIZED;
        L->sched.dirty = true;
        L->sched.withheld_probe_ns = 0; /* withheld presents: probe at once */
        if (we->event == SDL_WINDOWEVENT_RESTORED)
            tempo__loop_reprobe_soon(L);
        break;
    case SDL_WINDOWEVENT_SHOWN:
        L->pause_mask &= ~(unsigned)PAUSE_HIDDEN;
        L->sched.dirty = true;
        L->sched.withheld_probe_ns = 0;
        tempo__loop_reprobe_soon(L);
        break;
    case SDL_WINDOWEVENT_SIZE_CHANGED:
        L->sched.dirty = true;
        break;
    case SDL_WINDOWEVENT_FOCUS_LOST:
        if (L->pause_on_focus)
            L->pause_mask |= PAUSE_FOCUS;
        break;
    case SDL_WINDOWEVENT_FOCUS_GAINED:
        /* A window with keyboard focus is shown, so it is not minimized,
         * whatever we missed: SDL3 (sdl2-compat) on Wayland sends MINIMIZED
         * but, when weston's switcher brings the window back, only
         * FOCUS_GAINED (weston sends no new configure to a surface that has
         * not committed since, and a paused loop commits nothing), so the
         * minimized pause never ended (issue 36, item 9). */
        L->pause_mask &= ~(unsigned)(PAUSE_FOCUS | PAUSE_MINIMIZED);
        L->sched.dirty = true;
        L->sched.withheld_probe_ns = 0;
        break;
    case SDL_WINDOWEVENT_DISPLAY_CHANGED:
        /* Another monitor: another refresh rate and another vblank phase. */
        if (!L->display_hz_given) {
            L->sched.display_hz = tempo__loop_display_hz(L->window);
            tempo__pacer_init(&L->pacer, step_of(L->sched.display_hz), 0);
            L->pause_mask &= ~(unsigned)PAUSE_WITHHELD;
            tempo__loop_set_pacing(L, tempo__loop_initial_pacing(L)); /* measure the new display's presents */
        } else {
            tempo__loop_reprobe_soon(L);
        }
        break;
    default:
        break;
    }
}

/* Dispatches SDL's queue. `pump`: read new window-system input first
 * (SDL_PollEvent). Without it the queue is drained as it is: the message
 * wait pumped it just before deciding why it returned. Input events are
 * stamped `wake_ns`, when the wait returned: that is when the loop learnt
 * of them, and the same instant for all of a frame's events, so a slow
 * event callback does not skew the later ones. */
void tempo__loop_dispatch_events(tempo_loop *L, bool pump, uint64_t wake_ns)
{
    if (!SDL_WasInit(SDL_INIT_EVENTS))
        return;
    SDL_Event e;
    for (int i = 0; i < MAX_EVENTS_PER_FRAME; i++) {
        int got = pump ? SDL_PollEvent(&e) : SDL_PeepEvents(&e, 1, SDL_GETEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT);
        if (got <= 0)
            break;
        if (e.type == SDL_WINDOWEVENT)
            window_event(L, &e.window);
        L->sched.event_dirty = true;
        if (L->input != NULL) {
            /* Input reaches desc.input_event through the input's listener. */
            tempo_input_handle_sdl(L->input, &e, wake_ns); /* 0 for non-input events */
        } else if (L->input_event != NULL) {
            tempo_input_event ev;
            if (tempo_input_from_sdl(&e, wake_ns, &ev) > 0) {
                uint64_t a = loop_now(L);
                L->input_event(L, &ev, L->user); /* nothing to consume it from */
                L->frame_game_ns += loop_now(L) - a;
            }
        }
        call_event(L, &e);
        if (e.type == SDL_QUIT)
            atomic_store(&L->quit, true);
    }
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

