/* Game controllers as a wait source, with SDL's virtual joystick (SDL >= 2.24
 * API, available in 2.26): a tempo_input opens it, its buttons arrive as
 * Tempo events after a poll, and the polling it forces is bounded. The last
 * case is the measurement behind the README table: CPU and wake-ups per
 * second with a controller open, SDL2 alone (1 ms polling) versus Tempo's
 * bounded rate.
 *
 * Real time on a shared machine: what is checked is what the code does,
 * never how fast the scheduler is. Controller polls are counted where they
 * happen (the virtual pad's Update callback, which SDL_JoystickUpdate calls
 * once per poll), so "never more often than the configured rate" is exact
 * whatever the load; load only makes polls later, so lower bounds are a
 * tenth of the rate. Idle wake-ups are the waiting thread's own voluntary
 * context switches (getrusage RUSAGE_THREAD on Linux; the process's
 * elsewhere), not the other threads'. Latencies and rates are notes. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS

static bool video_ok;
static bool forced_sdl_route;

static uint64_t since(uint64_t t0)
{
    return tempo_now_ns() - t0;
}

/* Moves SDL's queue into the input ring, stamped with the wake time. */
static void pump(tempo_input *in)
{
    uint64_t now = tempo_now_ns();
    SDL_Event e;
    while (SDL_PollEvent(&e))
        tempo_input_handle_sdl(in, &e, now);
}

/* Waits passively (as a loop would) until an event of `type` arrives. */
static bool wait_for(tempo_input *in, uint32_t type, uint64_t timeout_ns, tempo_input_event *out)
{
    uint64_t t0 = tempo_now_ns();
    for (;;) {
        tempo_input_event ev;
        while (tempo_input_poll(in, &ev) > 0)
            if (ev.type == type) {
                if (out)
                    *out = ev;
                return true;
            }
        uint64_t spent = since(t0);
        if (spent >= timeout_ns)
            return false;
        int r = tempo_wait(NULL, 0, timeout_ns - spent, TEMPO_WAIT_MESSAGES);
        if (r == 0)
            pump(in);
        else if (r != TEMPO_ETIMEDOUT)
            return false;
    }
}

/* Controller polls of the attached virtual pads: SDL_JoystickUpdate (run by
 * SDL_PumpEvents) calls each open virtual joystick's Update once. */
static atomic_uint pad_polls;

static void SDLCALL count_pad_poll(void *userdata)
{
    (void)userdata;
    atomic_fetch_add(&pad_polls, 1);
}

static int attach_virtual_pad(void)
{
    SDL_VirtualJoystickDesc d;
    SDL_zero(d);
    d.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    d.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    d.naxes = SDL_CONTROLLER_AXIS_MAX;
    d.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    d.Update = count_pad_poll;
    int index = SDL_JoystickAttachVirtualEx(&d);
    if (index < 0)
        tt_note("SDL_JoystickAttachVirtualEx: %s", SDL_GetError());
    return index;
}

/* Some SDL builds (e.g. Windows ones configured without
 * SDL_VIRTUAL_JOYSTICK) cannot attach one: those skip, others must work. */
static char no_virtual[256];

static void need_virtual_pad(void)
{
    if (no_virtual[0] != '\0')
        tt_skip(no_virtual);
}

static void probe_virtual_pad(void)
{
    if (SDL_InitSubSystem(SDL_INIT_JOYSTICK) != 0)
        return;
    int index = SDL_JoystickAttachVirtual(SDL_JOYSTICK_TYPE_GAMECONTROLLER, 1, 1, 0);
    if (index >= 0)
        SDL_JoystickDetachVirtual(index);
    else if (strstr(SDL_GetError(), "not built") != NULL)
        snprintf(no_virtual, sizeof no_virtual, "this SDL has no virtual joysticks (%s)", SDL_GetError());
    SDL_QuitSubSystem(SDL_INIT_JOYSTICK);
}

static void detach_virtual_pads(void)
{
    for (int i = SDL_NumJoysticks() - 1; i >= 0; i--)
        if (SDL_JoystickIsVirtual(i))
            SDL_JoystickDetachVirtual(i);
}

static void virtual_pad_is_opened_and_reported(void)
{
    need_virtual_pad();
    tempo_input *in = tempo_input_create(NULL);
    CHECK(in != NULL);
    int index = attach_virtual_pad();
    CHECK_GE_INT(index, 0);
    tempo_input_event ev;
    CHECK(wait_for(in, TEMPO_INPUT_DEVICE_ADDED, 20000 * MS, &ev));
    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_PAD);
    CHECK_EQ_INT(ev.device, SDL_JoystickGetDeviceInstanceID(index));
    CHECK(ev.u.dev.name[0] != '\0');
    tt_note("added pad %u \"%s\"", ev.device, ev.u.dev.name);
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.pads_open, 1);
    CHECK(st.polling);
    CHECK_EQ_INT(st.poll_hz, 250);

    /* A message wait now keeps the fd route and polls (see plat_sdl_wait.c). */
    tempo_wait(NULL, 0, 0, TEMPO_WAIT_MESSAGES);
    const char *route = tempo_wait_route();
    tt_note("route with a controller open: %s", route);
    /* Where the fd route exists it must stay on it (the sdl-events route
     * and other backends poll their own way; see the polling case). */
    if (!forced_sdl_route && strstr(route, "eventfd") != NULL)
        CHECK(strstr(route, "pad-poll") != NULL);

    SDL_JoystickDetachVirtual(index);
    uint32_t id = ev.device;
    CHECK(wait_for(in, TEMPO_INPUT_DEVICE_REMOVED, 20000 * MS, &ev));
    CHECK_EQ_INT(ev.device, id);
    CHECK(ev.u.dev.name[0] != '\0'); /* named from the ring's own record */
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.pads_open, 0);
    CHECK(!st.polling);
    tempo_wait(NULL, 0, 0, TEMPO_WAIT_MESSAGES);
    CHECK(strstr(tempo_wait_route(), "pad-poll") == NULL);
    tempo_input_destroy(in);
}

/* ---- Latency: a button pressed on another thread -------------------------- */

#define PRESSES 24

typedef struct presser {
    SDL_Joystick *joy;
    tempo_handle *ack; /* the loop received the previous press */
    _Atomic uint64_t set_at[PRESSES];
} presser;

static int press_thread(void *p)
{
    presser *ps = p;
    unsigned seed = 12345;
    for (int k = 0; k < PRESSES; k++) {
        /* Random phase against the poll schedule: 3..11 ms after the ack. */
        seed = seed * 1103515245u + 12345u;
        SDL_Delay(3 + (seed >> 16) % 9);
        atomic_store(&ps->set_at[k], tempo_now_ns());
        SDL_JoystickSetVirtualButton(ps->joy, SDL_CONTROLLER_BUTTON_A, (Uint8)(k % 2 == 0));
        if (tempo_wait(&ps->ack, 1, 20000 * MS, 0) != 0)
            return 1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void pad_button_presses_arrive_in_order_by_polling(void)
{
    need_virtual_pad();
    const uint32_t hz = 250;
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.poll_hz = hz});
    int index = attach_virtual_pad();
    CHECK_GE_INT(index, 0);
    if (index < 0 || !wait_for(in, TEMPO_INPUT_DEVICE_ADDED, 20000 * MS, NULL)) {
        tt_fail(__FILE__, __LINE__, "virtual pad not added");
        tempo_input_destroy(in);
        return;
    }
    presser ps = {.joy = SDL_JoystickFromInstanceID(SDL_JoystickGetDeviceInstanceID(index)),
                  .ack = tempo_event_create(false, false)};
    CHECK(ps.joy != NULL);
    SDL_Thread *th = SDL_CreateThread(press_thread, "presser", &ps);
    uint64_t lat[PRESSES];
    int got = 0;
    while (got < PRESSES) {
        tempo_input_event ev;
        if (!wait_for(in, TEMPO_INPUT_PAD_BUTTON, 20000 * MS, &ev))
            break;
        CHECK_EQ_INT(ev.u.pad_button.button, SDL_CONTROLLER_BUTTON_A);
        CHECK_EQ_INT(ev.u.pad_button.down, got % 2 == 0);
        uint64_t set_at = atomic_load(&ps.set_at[got]);
        CHECK(ev.time_ns >= set_at);
        lat[got++] = ev.time_ns - set_at;
        tempo_event_set(ps.ack);
    }
    int rc = -1;
    SDL_WaitThread(th, &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(got, PRESSES);
    if (got > 0) {
        qsort(lat, (size_t)got, sizeof lat[0], cmp_u64);
        uint64_t p50 = lat[got / 2], max = lat[got - 1];
        tt_note("button latency at %u Hz polling: p50 %.2f ms, max %.2f ms (%d presses)", hz,
                (double)p50 / 1e6, (double)max / 1e6, got);
        /* Expected: uniform over one interval (p50 ~ half of it) plus the
         * wake-up latency, which is the scheduler's: not checked. That every
         * press arrived at all, with no other wake source, is the proof that
         * the pad is polled. */
    }
    tempo_event_destroy(ps.ack);
    detach_virtual_pads();
    pump(in);
    tempo_input_destroy(in);
}

/* ---- The cost of polling --------------------------------------------------- */

typedef struct cost {
    double cpu_pct, wakeups_per_s; /* wake-ups: the waiting thread's (see the top) */
    double polls_per_s;            /* controller polls (Update callbacks) */
    unsigned polls;
} cost;

/* An idle that has not seen its polls by then ends anyway (and fails). */
#define IDLE_BACKSTOP_NS (60 * TEMPO_NS_PER_S)

/* Voluntary context switches of the calling thread where the OS counts them
 * per thread (Linux), else of the process (other threads add to it). */
static uint64_t own_switches(const tempo_usage *process)
{
    uint64_t n;
    return tt_thread_switches(&n) ? n : process->voluntary_switches;
}

/* Idles for `ns`, and on until `min_polls` controller polls (a machine
 * too loaded to run the thread for the whole span), in the way named by
 * `mode`, measuring the process. */
enum idle_mode { IDLE_TEMPO, IDLE_SDL_WAIT };

static cost idle_for(tempo_input *in, enum idle_mode mode, uint64_t ns, unsigned min_polls)
{
    tempo_usage u0, u1;
    tempo_process_usage(&u0);
    uint64_t sw0 = own_switches(&u0);
    unsigned polls0 = atomic_load(&pad_polls);
    uint64_t t0 = tempo_now_ns();
    for (uint64_t spent;
         (spent = since(t0)) < ns || (atomic_load(&pad_polls) - polls0 < min_polls && spent < IDLE_BACKSTOP_NS);) {
        uint64_t left = spent < ns ? ns - spent : 100 * MS;
        if (mode == IDLE_TEMPO) {
            if (tempo_wait(NULL, 0, left, TEMPO_WAIT_MESSAGES) == 0)
                pump(in);
        } else {
            SDL_Event e;
            int ms = (int)((left + MS - 1) / MS);
            if (SDL_WaitEventTimeout(&e, ms))
                tempo_input_handle_sdl(in, &e, tempo_now_ns());
        }
        tempo_input_event ev;
        while (tempo_input_poll(in, &ev) > 0) {
        }
    }
    unsigned polls1 = atomic_load(&pad_polls);
    tempo_process_usage(&u1);
    uint64_t sw1 = own_switches(&u1);
    double s = (double)since(t0) / 1e9;
    return (cost){
        .cpu_pct = (double)(u1.cpu_ns - u0.cpu_ns) / 1e7 / s,
        .wakeups_per_s = (double)(sw1 - sw0) / s,
        .polls_per_s = (double)(polls1 - polls0) / s,
        .polls = polls1 - polls0,
    };
}

static void polling_cost_with_a_controller_open(void)
{
    tempo_usage probe;
    tempo_process_usage(&probe);
    if (!probe.has_switches)
        TT_SKIP("the OS does not count context switches");
    need_virtual_pad();
    const uint64_t span = 1000 * MS;
    tempo_input *in = tempo_input_create(NULL);
    pump(in);
    cost none = idle_for(in, IDLE_TEMPO, span, 0);

    int index = attach_virtual_pad();
    if (index < 0 || !wait_for(in, TEMPO_INPUT_DEVICE_ADDED, 20000 * MS, NULL)) {
        tt_fail(__FILE__, __LINE__, "virtual pad not added");
        tempo_input_destroy(in);
        return;
    }
    /* The lower bounds below: a tenth of the rate, idling on to them. */
    cost sdl = idle_for(in, IDLE_SDL_WAIT, span, 100);
    tempo_input_set_poll_hz(in, 1000);
    cost t1000 = idle_for(in, IDLE_TEMPO, span, 0);
    bool polled = strstr(tempo_wait_route(), "pad-poll") != NULL; /* else polls may not come */
    tempo_input_set_poll_hz(in, 250);
    cost t250 = idle_for(in, IDLE_TEMPO, span, polled ? 25 : 0);
    bool bounded = strstr(tempo_wait_route(), "pad-poll") != NULL;
    tempo_input_set_poll_hz(in, 60);
    cost t60 = idle_for(in, IDLE_TEMPO, span, polled ? 6 : 0);
    detach_virtual_pads();
    pump(in);
    tempo_input_set_poll_hz(in, 0);
    cost after = idle_for(in, IDLE_TEMPO, span, 0);

    const char *drv = video_ok ? SDL_GetCurrentVideoDriver() : "none";
    tt_note("idle for 1 s each, video driver %s, route %s:", drv, tempo_wait_route());
    tt_note("| what                                    | CPU %%  | wake-ups/s | polls/s |");
#define ROW(what, c) tt_note("| %-39s | %6.2f | %10.0f | %7.0f |", what, c.cpu_pct, c.wakeups_per_s, c.polls_per_s)
    ROW("no controller, tempo_wait", none);
    ROW("controller open, SDL_WaitEventTimeout", sdl);
    ROW("controller open, Tempo 1000 Hz", t1000);
    ROW("controller open, Tempo 250 Hz (default)", t250);
    ROW("controller open, Tempo 60 Hz", t60);
    ROW("controller removed, tempo_wait", after);
#undef ROW

    /* The premise: SDL2 polls every ~1 ms while a joystick is attached (on
     * an idle machine ~1000/s; a tenth of a second's worth, however long the
     * load made the idle). */
    CHECK_GE_U64(sdl.polls, 100);
    /* Idle without a controller: the waiting thread sleeps through the
     * second (a handful of wakes for window events at most), before and
     * after a controller came and went. */
    if (!forced_sdl_route) { /* SDL's own wait polls under some drivers (dummy) */
        CHECK_LE_DBL(none.wakeups_per_s, 20.0);
        CHECK_LE_DBL(after.wakeups_per_s, 20.0);
    }
    CHECK_EQ_DBL(after.polls_per_s, 0.0); /* the pad is gone */
    if (!bounded)
        tt_note("route %s cannot bound controller polling (no fd route): not checked",
                tempo_wait_route());
    if (bounded) {
        /* Bounded: never more often than the configured rate (+15% and a few
         * event-driven pumps), whatever the load: a late wake only delays
         * the next poll. The lower bounds prove controllers are still
         * polled: a tenth of a second's worth, the idle going on until
         * then (before the backstop). */
        CHECK_LE_DBL(t1000.polls_per_s, 1000 * 1.15 + 10);
        CHECK_LE_DBL(t250.polls_per_s, 250 * 1.15 + 10);
        CHECK_GE_U64(t250.polls, 250 / 10);
        CHECK_LE_DBL(t60.polls_per_s, 60 * 1.15 + 10);
        CHECK_GE_U64(t60.polls, 60 / 10);
    }
    tempo_input_destroy(in);
}

static const tt_case cases[] = {
    TT_CASE(virtual_pad_is_opened_and_reported),
    TT_CASE(pad_button_presses_arrive_in_order_by_polling),
    TT_CASE(polling_cost_with_a_controller_open),
};

int main(int argc, char **argv)
{
    /* Under the dummy/offscreen drivers no window ever has keyboard focus,
     * and SDL drops controller events of unfocused programs by default. */
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    video_ok = SDL_Init(SDL_INIT_VIDEO) == 0;
    const char *forced = SDL_getenv("TEMPO_SDL_WAIT_ROUTE");
    forced_sdl_route = forced != NULL && strcmp(forced, "sdl") == 0;
    /* A window, as in a game: on x11 the wait then also watches the display. */
    SDL_Window *win = video_ok ? SDL_CreateWindow("tempo-input-pads", 0, 0, 64, 64, 0) : NULL;
    printf("# backend %s, video driver %s\n", tempo_backend_name(),
           video_ok ? SDL_GetCurrentVideoDriver() : "(none)");
    probe_virtual_pad();
    int rc = TT_MAIN(argc, argv, cases);
    if (win)
        SDL_DestroyWindow(win);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
