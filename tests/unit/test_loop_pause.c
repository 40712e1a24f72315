/* A paused loop is idle (issue 11, problem 5): with a controller open, the
 * paused loop used to wake 250 times a second because the controller poll
 * interval kept running inside its wait. Now a paused loop suspends the
 * polling and sleeps until something real arrives.
 *
 * Real time on a shared machine: wake-ups are the process's voluntary
 * context switches (getrusage) over one second, compared with the same
 * second idle without a controller. Load can only lower a wake-up count
 * (a starved thread wakes less), never raise it, so the bounds hold on a
 * busy machine. Uses SDL's virtual joystick (SDL >= 2.24). */
#include <stdio.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS

static bool video_ok;
static SDL_Window *win;

static Uint32 SDLCALL quit_later(Uint32 interval, void *loop)
{
    (void)interval;
    tempo_loop_quit(loop);
    return 0;
}

/* Runs frames until tempo_loop_quit() arrives from a timer `ms` later;
 * returns the wake-ups per second of the process meanwhile. */
static double run_for(tempo_loop *loop, int ms)
{
    tempo_usage u0, u1;
    SDL_TimerID t = SDL_AddTimer((Uint32)ms, quit_later, loop);
    tempo_process_usage(&u0);
    uint64_t t0 = tempo_now_ns();
    while (tempo_loop_frame(loop) == 0) {
    }
    double s = (double)(tempo_now_ns() - t0) / 1e9;
    tempo_process_usage(&u1);
    SDL_RemoveTimer(t);
    return (double)(u1.voluntary_switches - u0.voluntary_switches) / s;
}

static void paused_loop_with_a_controller_open_does_not_wake(void)
{
    tempo_usage probe;
    tempo_process_usage(&probe);
    if (!probe.has_switches)
        TT_SKIP("the OS does not count context switches");
    if (!video_ok)
        TT_SKIP("no video driver");
    /* The baseline: one second paused, no controller anywhere. */
    tempo_loop *idle = tempo_loop_create(&(tempo_loop_desc){.window = win});
    tempo_loop_pause(idle, true);
    double none = run_for(idle, 1000);
    tempo_loop_destroy(idle);

    SDL_InitSubSystem(SDL_INIT_JOYSTICK);
    int index = SDL_JoystickAttachVirtual(SDL_JOYSTICK_TYPE_GAMECONTROLLER, SDL_CONTROLLER_AXIS_MAX,
                                          SDL_CONTROLLER_BUTTON_MAX, 0);
    if (index < 0) {
        SDL_QuitSubSystem(SDL_INIT_JOYSTICK);
        TT_SKIP("this SDL cannot attach a virtual joystick");
    }
    tempo_input *in = tempo_input_create(NULL);
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.window = win, .input = in, .update_hz = 30,
                                                             .max_render_hz = 30});
    CHECK(in != NULL && loop != NULL);
    /* Running: the controller is opened from its DEVICE_ADDED event. */
    run_for(loop, 300);
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.pads_open, 1);
    bool bounded = strstr(tempo_wait_route(), "pad-poll") != NULL;
    tempo_loop_destroy(loop);

    loop = tempo_loop_create(&(tempo_loop_desc){.window = win, .input = in});
    tempo_loop_pause(loop, true);
    double paused = run_for(loop, 1000);
    const tempo_loop_stats *ls = tempo_loop_get_stats(loop);
    tt_note("route %s: paused wake-ups/s %.0f with a controller open, %.0f without",
            tempo_wait_route(), paused, none);
    if (!bounded)
        tt_note("this wait route hands joystick waits to SDL: polling not bounded here");
    /* Paused: the loop never wakes by itself (no timer, nothing due): one
     * frame ends with the quit. A message the OS or SDL delivers meanwhile
     * (a window or device event, more likely on a loaded machine) may add
     * a frame; each must be a MESSAGES wake, never a poll. */
    const uint64_t *w = ls->total.wakes;
    tt_note("paused frames %llu: due %llu, timer %llu, messages %llu, signal %llu",
            (unsigned long long)ls->total.frames, (unsigned long long)w[TEMPO_LOOP_WAKE_DUE],
            (unsigned long long)w[TEMPO_LOOP_WAKE_TIMER], (unsigned long long)w[TEMPO_LOOP_WAKE_MESSAGES],
            (unsigned long long)w[TEMPO_LOOP_WAKE_SIGNAL]);
    CHECK_EQ_U64(w[TEMPO_LOOP_WAKE_TIMER], 0);
    CHECK_LE_U64(w[TEMPO_LOOP_WAKE_DUE], 1); /* the first frame may find work due */
    CHECK_LE_U64(ls->total.frames, 2 + w[TEMPO_LOOP_WAKE_MESSAGES]);
    CHECK_LE_U64(w[TEMPO_LOOP_WAKE_MESSAGES], 10);
    CHECK_LE_DBL(paused, none + 15.0);
    /* After the pause the controller is polled again. */
    tempo_loop_pause(loop, false);
    tempo_loop_frame(loop);
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.pads_open, 1);
    tempo_loop_destroy(loop);
    tempo_input_destroy(in);
    SDL_JoystickDetachVirtual(index);
    SDL_QuitSubSystem(SDL_INIT_JOYSTICK);
}

/* desc.run_while_hidden (issue 19, item 8) with a real hidden window: the
 * loop is not paused at creation and keeps updating; without it the same
 * window pauses the loop. */
static void count_update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    (void)dt_ns;
    (*(int *)user)++;
}

static void hidden_window_runs_when_asked(void)
{
    if (!video_ok)
        TT_SKIP("no video driver");
    SDL_Window *hidden = SDL_CreateWindow("tempo-hidden", 0, 0, 64, 64, SDL_WINDOW_HIDDEN);
    CHECK(hidden != NULL);
    if (hidden == NULL)
        return;
    tempo_loop *def = tempo_loop_create(&(tempo_loop_desc){.window = hidden});
    CHECK(tempo_loop_is_paused(def)); /* the default: idle while hidden */
    tempo_loop_destroy(def);
    int updates = 0;
    tempo_loop *loop = tempo_loop_create(&(tempo_loop_desc){.window = hidden, .run_while_hidden = true,
                                                             .update = count_update, .user = &updates});
    CHECK(!tempo_loop_is_paused(loop));
    uint64_t t0 = tempo_now_ns();
    while (updates < 10 && tempo_now_ns() - t0 < 20 * TEMPO_NS_PER_S) /* give-up only */
        CHECK_EQ_INT(tempo_loop_frame(loop), 0);
    CHECK_GE_INT(updates, 10);
    CHECK(!tempo_loop_is_paused(loop));
    tempo_loop_destroy(loop);
    SDL_DestroyWindow(hidden);
}

static const tt_case cases[] = {
    TT_CASE(hidden_window_runs_when_asked),
    TT_CASE(paused_loop_with_a_controller_open_does_not_wake),
};

int main(int argc, char **argv)
{
    /* Under the dummy driver no window has focus, and SDL drops controller
     * events of unfocused programs by default. */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    video_ok = SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) == 0;
    win = video_ok ? SDL_CreateWindow("tempo-loop-pause", 0, 0, 64, 64, 0) : NULL;
    printf("# backend %s, video driver %s\n", tempo_backend_name(),
           video_ok ? SDL_GetCurrentVideoDriver() : "(none)");
    int rc = TT_MAIN(argc, argv, cases);
    if (win)
        SDL_DestroyWindow(win);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
