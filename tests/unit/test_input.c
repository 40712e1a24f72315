/* tempo/input.h without devices: SDL event translation and the per-frame
 * ring (order, bounds, overflow accounting, time ordering, dispatch).
 * Synthetic SDL events only, no SDL_Init: runs everywhere, also under
 * valgrind. */
#include <stdio.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/input.h"

static tempo_input_event translate(const SDL_Event *e)
{
    tempo_input_event ev;
    memset(&ev, 0xAB, sizeof ev);
    CHECK_EQ_INT(tempo_input_from_sdl(e, 12345, &ev), 1);
    CHECK_EQ_U64(ev.time_ns, 12345);
    return ev;
}

static void keyboard_events_keep_scancode_state_repeat_and_mods(void)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.timestamp = 777;
    e.key.state = SDL_PRESSED;
    e.key.repeat = 1;
    e.key.keysym.scancode = SDL_SCANCODE_A;
    e.key.keysym.sym = SDLK_q; /* e.g. an AZERTY layout */
    e.key.keysym.mod = KMOD_LSHIFT | KMOD_NUM;
    tempo_input_event ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_KEY);
    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_KEYBOARD);
    CHECK_EQ_INT(ev.device, 0);
    CHECK_EQ_INT(ev.os_time_ms, 777);
    CHECK_EQ_INT(ev.u.key.scancode, SDL_SCANCODE_A);
    CHECK_EQ_INT(ev.u.key.keycode, SDLK_q);
    CHECK_EQ_INT(ev.u.key.mod, KMOD_LSHIFT | KMOD_NUM);
    CHECK_EQ_INT(ev.u.key.down, 1);
    CHECK_EQ_INT(ev.u.key.repeat, 1);

    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    e.key.repeat = 0;
    ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_KEY);
    CHECK_EQ_INT(ev.u.key.down, 0);
    CHECK_EQ_INT(ev.u.key.repeat, 0);
}

static void mouse_buttons_motion_and_wheel(void)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.button = SDL_BUTTON_RIGHT;
    e.button.state = SDL_PRESSED;
    e.button.clicks = 2;
    e.button.x = 10;
    e.button.y = 20;
    tempo_input_event ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_MOUSE_BUTTON);
    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_MOUSE);
    CHECK_EQ_INT(ev.u.button.button, SDL_BUTTON_RIGHT);
    CHECK_EQ_INT(ev.u.button.down, 1);
    CHECK_EQ_INT(ev.u.button.clicks, 2);
    CHECK_EQ_INT(ev.u.button.x, 10);
    CHECK_EQ_INT(ev.u.button.y, 20);

    SDL_zero(e);
    e.type = SDL_MOUSEMOTION;
    e.motion.which = SDL_TOUCH_MOUSEID;
    e.motion.x = 100;
    e.motion.y = 50;
    e.motion.xrel = -3;
    e.motion.yrel = 4;
    e.motion.state = SDL_BUTTON_LMASK;
    ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_MOUSE_MOTION);
    CHECK_EQ_U64(ev.device, TEMPO_INPUT_TOUCH_MOUSE);
    CHECK_EQ_INT(ev.u.motion.x, 100);
    CHECK_EQ_INT(ev.u.motion.y, 50);
    CHECK_EQ_INT(ev.u.motion.dx, -3);
    CHECK_EQ_INT(ev.u.motion.dy, 4);
    CHECK_EQ_INT(ev.u.motion.buttons, SDL_BUTTON_LMASK);

    /* "Natural" (flipped) scrolling is normalised: +y is always away. */
    SDL_zero(e);
    e.type = SDL_MOUSEWHEEL;
    e.wheel.y = 2;
    e.wheel.preciseY = 2.5f;
    e.wheel.direction = SDL_MOUSEWHEEL_FLIPPED;
    ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_MOUSE_WHEEL);
    CHECK_EQ_INT(ev.u.wheel.y, -2);
    CHECK_EQ_DBL(ev.u.wheel.precise_y, -2.5);
    e.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
    ev = translate(&e);
    CHECK_EQ_INT(ev.u.wheel.y, 2);
}

static void controller_buttons_and_axes_use_gamecontroller_numbering(void)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_CONTROLLERBUTTONDOWN;
    e.cbutton.which = 7;
    e.cbutton.button = SDL_CONTROLLER_BUTTON_START;
    e.cbutton.state = SDL_PRESSED;
    tempo_input_event ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_PAD_BUTTON);
    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_PAD);
    CHECK_EQ_INT(ev.device, 7);
    CHECK_EQ_INT(ev.u.pad_button.button, SDL_CONTROLLER_BUTTON_START);
    CHECK_EQ_INT(ev.u.pad_button.down, 1);

    SDL_zero(e);
    e.type = SDL_CONTROLLERAXISMOTION;
    e.caxis.which = 7;
    e.caxis.axis = SDL_CONTROLLER_AXIS_TRIGGERRIGHT;
    e.caxis.value = -32768;
    ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_PAD_AXIS);
    CHECK_EQ_INT(ev.u.pad_axis.axis, SDL_CONTROLLER_AXIS_TRIGGERRIGHT);
    CHECK_EQ_INT(ev.u.pad_axis.value, -32768);

    SDL_zero(e);
    e.type = SDL_CONTROLLERDEVICEREMOVED;
    e.cdevice.which = 7;
    ev = translate(&e);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_DEVICE_REMOVED);
    CHECK_EQ_INT(ev.device_kind, TEMPO_INPUT_PAD);
    CHECK_EQ_INT(ev.device, 7);
    CHECK_STR_EQ(ev.u.dev.name, ""); /* nothing left to name it */
}

static void other_events_are_not_input(void)
{
    static const Uint32 types[] = {SDL_QUIT, SDL_WINDOWEVENT, SDL_TEXTINPUT, SDL_JOYAXISMOTION,
                                   SDL_JOYBUTTONDOWN, SDL_USEREVENT};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        SDL_Event e;
        SDL_zero(e);
        e.type = types[i];
        tempo_input_event ev;
        memset(&ev, 0x5A, sizeof ev);
        CHECK_EQ_INT(tempo_input_from_sdl(&e, 1, &ev), 0);
        CHECK_EQ_INT(ev.type, 0x5A5A5A5A); /* left untouched */
    }
    tempo_input_event ev;
    SDL_Event e;
    SDL_zero(e);
    CHECK_EQ_INT(tempo_input_from_sdl(NULL, 1, &ev), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_from_sdl(&e, 1, NULL), TEMPO_EINVAL);
}

static tempo_input_event key_at(int scancode, uint64_t t)
{
    tempo_input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = TEMPO_INPUT_KEY;
    ev.device_kind = TEMPO_INPUT_KEYBOARD;
    ev.u.key.scancode = scancode;
    ev.u.key.down = 1;
    ev.time_ns = t;
    return ev;
}

static tempo_input *make(int capacity)
{
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.capacity = capacity, .no_controllers = true});
    CHECK(in != NULL);
    return in;
}

static void ring_delivers_in_order_and_wraps(void)
{
    tempo_input *in = make(4);
    tempo_input_event ev;
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 0);
    int next_in = 0, next_out = 0;
    /* Several laps around a 4-slot ring, with the fill level varying. */
    for (int round = 0; round < 10; round++) {
        for (int k = 0; k < 1 + round % 4; k++) {
            tempo_input_event e = key_at(next_in, (uint64_t)next_in * 10);
            CHECK_EQ_INT(tempo_input_push(in, &e), 0);
            next_in++;
        }
        while (tempo_input_poll(in, &ev) == 1) {
            CHECK_EQ_INT(ev.u.key.scancode, next_out);
            CHECK_EQ_U64(ev.time_ns, (uint64_t)next_out * 10);
            next_out++;
        }
    }
    CHECK_EQ_INT(next_in, next_out);
    tempo_input_stats st;
    CHECK_EQ_INT(tempo_input_get_stats(in, &st), 0);
    CHECK_EQ_U64(st.pushed, (uint64_t)next_in);
    CHECK_EQ_U64(st.delivered, (uint64_t)next_out);
    CHECK_EQ_U64(st.dropped, 0);
    CHECK_EQ_INT(st.queued, 0);
    CHECK_EQ_INT(st.max_queued, 4);
    CHECK_EQ_INT(st.pads_open, 0);
    CHECK(!st.polling);
    tempo_input_destroy(in);
}

static void full_ring_refuses_the_newest_and_counts_it(void)
{
    tempo_input *in = make(3);
    for (int i = 0; i < 5; i++) {
        tempo_input_event e = key_at(i, 100);
        CHECK_EQ_INT(tempo_input_push(in, &e), i < 3 ? 0 : TEMPO_EFULL);
    }
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.pushed, 3);
    CHECK_EQ_U64(st.dropped, 2);
    CHECK_EQ_INT(st.queued, 3);
    /* The oldest are kept: a key-down is never lost behind later events. */
    tempo_input_event ev;
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
        CHECK_EQ_INT(ev.u.key.scancode, i);
    }
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 0);

    /* handle_sdl still consumes the event (it is input) while full. */
    for (int i = 0; i < 3; i++) {
        tempo_input_event e = key_at(i, 100);
        tempo_input_push(in, &e);
    }
    SDL_Event se;
    SDL_zero(se);
    se.type = SDL_KEYDOWN;
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &se, 200), 1);
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.dropped, 3);
    tempo_input_destroy(in);
}

static void times_never_decrease_along_the_ring(void)
{
    tempo_input *in = make(0);
    tempo_input_event a = key_at(1, 1000), b = key_at(2, 900), c = key_at(3, 1100);
    tempo_input_push(in, &a);
    tempo_input_push(in, &b); /* stamped earlier by another source */
    tempo_input_push(in, &c);
    tempo_input_event ev;
    tempo_input_poll(in, &ev);
    CHECK_EQ_U64(ev.time_ns, 1000);
    tempo_input_poll(in, &ev);
    CHECK_EQ_U64(ev.time_ns, 1000);
    tempo_input_poll(in, &ev);
    CHECK_EQ_U64(ev.time_ns, 1100);
    tempo_input_destroy(in);
}

typedef struct collect {
    tempo_input *in;
    int seen[8];
    int n;
} collect;

static void on_event(const tempo_input_event *ev, void *user)
{
    collect *c = user;
    if (c->n < 8)
        c->seen[c->n] = ev->u.key.scancode;
    c->n++;
    if (ev->u.key.scancode == 2) { /* a callback may push; delivered in the same call */
        tempo_input_event e = key_at(9, ev->time_ns);
        tempo_input_push(c->in, &e);
    }
}

static void dispatch_calls_back_oldest_first(void)
{
    tempo_input *in = make(8);
    for (int i = 1; i <= 3; i++) {
        tempo_input_event e = key_at(i, (uint64_t)i);
        tempo_input_push(in, &e);
    }
    collect c = {.in = in};
    CHECK_EQ_INT(tempo_input_dispatch(in, on_event, &c), 4);
    CHECK_EQ_INT(c.n, 4);
    CHECK_EQ_INT(c.seen[0], 1);
    CHECK_EQ_INT(c.seen[1], 2);
    CHECK_EQ_INT(c.seen[2], 3);
    CHECK_EQ_INT(c.seen[3], 9);
    CHECK_EQ_INT(tempo_input_dispatch(in, on_event, &c), 0);
    tempo_input_destroy(in);
}

static void handle_sdl_pushes_input_and_leaves_the_rest(void)
{
    tempo_input *in = make(0);
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_QUIT;
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &e, 5), 0);
    e.type = SDL_MOUSEBUTTONUP;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = SDL_RELEASED;
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &e, 5), 1);
    tempo_input_event ev;
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_MOUSE_BUTTON);
    CHECK_EQ_INT(ev.u.button.down, 0);
    CHECK_EQ_INT(ev.u.button.clicks, 1); /* 0 from the source reads as 1 */
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 0);
    tempo_input_destroy(in);
}

/* The opt-in native path: arguments, the detached state, and on the sdl
 * backend the TEMPO_ENOTSUP fallback that leaves every SDL event flowing.
 * (The win32 backend's DirectInput side needs a real window and focus:
 * tests/unit/test_dinput.c.) */
static void native_attach_reports_enotsup_on_sdl_and_events_still_flow(void)
{
    tempo_input *in = make(0);
    /* Never dereferenced: argument checks come first, and the sdl backend
     * has no native input to open on it. */
    SDL_Window *fake = (SDL_Window *)(void *)&in;
    CHECK_EQ_INT(tempo_input_attach_window(NULL, fake, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_attach_window(in, NULL, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_attach_window(in, fake, 1u << 7), TEMPO_EINVAL);
    CHECK(tempo_input_native_handle(in) == NULL);
    CHECK(tempo_input_native_handle(NULL) == NULL);
    CHECK_EQ_INT(tempo_input_read_native(in, 5), 0);
    CHECK_EQ_INT(tempo_input_read_native(NULL, 5), TEMPO_EINVAL);
    tempo_input_detach_window(in); /* not attached: no-op */
    tempo_input_detach_window(NULL);

    if (!tempo_backend_has(TEMPO_CAP_NATIVE_INPUT)) {
        CHECK_EQ_INT(tempo_input_attach_window(in, fake, 0), TEMPO_ENOTSUP);
        CHECK_EQ_INT(tempo_input_attach_window(in, fake,
                                               TEMPO_INPUT_NATIVE_KEYBOARD | TEMPO_INPUT_NATIVE_MOUSE |
                                                   TEMPO_INPUT_NATIVE_PADS),
                     TEMPO_ENOTSUP);
        CHECK(strstr(tempo_get_error(), "sdl backend") != NULL);
        CHECK(tempo_input_native_handle(in) == NULL);
        CHECK_EQ_INT(tempo_input_read_native(in, 5), 0);
        tempo_input_stats st;
        CHECK_EQ_INT(tempo_input_get_stats(in, &st), 0);
        CHECK_EQ_INT(st.native, 0);
    } else {
        tt_note("backend %s: native attach is tested by test_dinput", tempo_backend_name());
    }

    /* Keyboard and mouse still come from SDL events, once each. */
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.scancode = SDL_SCANCODE_Q;
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &e, 7), 1);
    SDL_zero(e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.state = SDL_PRESSED;
    e.button.button = SDL_BUTTON_LEFT;
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &e, 8), 1);
    tempo_input_event ev;
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_KEY);
    CHECK_EQ_INT(ev.u.key.scancode, SDL_SCANCODE_Q);
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
    CHECK_EQ_INT(ev.type, TEMPO_INPUT_MOUSE_BUTTON);
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 0);
    tempo_input_destroy(in);
}


/* ---- State queries (issue 11) ---------------------------------------------- */

static SDL_Event sdl_key(SDL_Scancode sc, bool down)
{
    SDL_Event e;
    SDL_zero(e);
    e.type = down ? SDL_KEYDOWN : SDL_KEYUP;
    e.key.state = down ? SDL_PRESSED : SDL_RELEASED;
    e.key.keysym.scancode = sc;
    return e;
}

static void key_state_follows_the_events(void)
{
    tempo_input *in = make(0);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_SPACE));
    SDL_Event e = sdl_key(SDL_SCANCODE_SPACE, true);
    tempo_input_handle_sdl(in, &e, 10);
    e = sdl_key(SDL_SCANCODE_LEFT, true);
    tempo_input_handle_sdl(in, &e, 10);
    /* The state is the latest known, before the game reads the ring. */
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_SPACE));
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_LEFT));
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_RIGHT));
    e = sdl_key(SDL_SCANCODE_SPACE, false);
    tempo_input_handle_sdl(in, &e, 20);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_SPACE));
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_LEFT));
    /* ...and the ring still has every event, in order. */
    tempo_input_event ev;
    int n = 0;
    while (tempo_input_poll(in, &ev) > 0)
        n++;
    CHECK_EQ_INT(n, 3);
    /* The last scancode and out-of-range ones. */
    e = sdl_key(SDL_NUM_SCANCODES - 1, true);
    tempo_input_handle_sdl(in, &e, 30);
    CHECK(tempo_input_key_down(in, SDL_NUM_SCANCODES - 1));
    CHECK(!tempo_input_key_down(in, SDL_NUM_SCANCODES));
    CHECK(!tempo_input_key_down(in, -1));
    CHECK(!tempo_input_key_down(NULL, SDL_SCANCODE_LEFT));
    tempo_input_clear_state(in);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_LEFT));
    tempo_input_destroy(in);
}

static SDL_Event sdl_repeat(SDL_Scancode sc)
{
    SDL_Event e = sdl_key(sc, true);
    e.key.repeat = 1;
    return e;
}

/* Clear and repeat (issue 19, item 10): a key the game cleared stays up
 * while the OS auto-repeats it, until a new press; repeats never set a
 * key; the ring still carries every repeat, flagged. */
static void cleared_key_stays_up_through_auto_repeat(void)
{
    tempo_input *in = make(0);
    SDL_Event e = sdl_key(SDL_SCANCODE_P, true);
    tempo_input_handle_sdl(in, &e, 10);
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_P));
    CHECK_EQ_INT(tempo_input_clear_key(in, SDL_SCANCODE_P), 0); /* the pause key is used */
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_P));
    for (int i = 0; i < 5; i++) {
        e = sdl_repeat(SDL_SCANCODE_P);
        tempo_input_handle_sdl(in, &e, 20 + (uint64_t)i);
        CHECK(!tempo_input_key_down(in, SDL_SCANCODE_P));
    }
    /* The same through tempo_input_clear_state. */
    e = sdl_key(SDL_SCANCODE_A, true);
    tempo_input_handle_sdl(in, &e, 30);
    tempo_input_clear_state(in);
    e = sdl_repeat(SDL_SCANCODE_A);
    tempo_input_handle_sdl(in, &e, 31);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_A));
    /* A new press after the release sets it again. */
    e = sdl_key(SDL_SCANCODE_P, false);
    tempo_input_handle_sdl(in, &e, 40);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_P));
    e = sdl_key(SDL_SCANCODE_P, true);
    tempo_input_handle_sdl(in, &e, 41);
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_P));
    /* Repeats of a held key keep it down (they change nothing). */
    e = sdl_repeat(SDL_SCANCODE_P);
    tempo_input_handle_sdl(in, &e, 42);
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_P));
    /* The ring has every event; the repeats say so. */
    tempo_input_event ev;
    int n = 0, repeats = 0;
    while (tempo_input_poll(in, &ev) > 0) {
        n++;
        repeats += ev.u.key.repeat;
        CHECK_EQ_INT(ev.u.key.down, ev.time_ns != 40);
    }
    CHECK_EQ_INT(n, 11);
    CHECK_EQ_INT(repeats, 7);
    CHECK_EQ_INT(tempo_input_clear_key(in, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_clear_key(in, SDL_NUM_SCANCODES), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_clear_key(NULL, SDL_SCANCODE_P), TEMPO_EINVAL);
    tempo_input_destroy(in);
}

/* Item 11: controllers deliver in the background by default; a game's own
 * setting wins. */
static void controllers_deliver_in_the_background_unless_the_game_says_no(void)
{
    SDL_ResetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS);
    if (SDL_getenv("SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS") != NULL)
        TT_SKIP("SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS is set in the environment");
    tempo_input *in = tempo_input_create(NULL);
    if (in == NULL)
        TT_SKIP("no game-controller subsystem here");
    const char *h = SDL_GetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS);
    CHECK_STR_EQ(h, "1");
    tempo_input_destroy(in);
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "0");
    in = tempo_input_create(NULL);
    CHECK(in != NULL);
    CHECK_STR_EQ(SDL_GetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS), "0");
    tempo_input_destroy(in);
    SDL_ResetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS);
    /* Without controllers Tempo leaves the hint alone. */
    in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    CHECK(SDL_GetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS) == NULL);
    tempo_input_destroy(in);
}

/* A full ring drops the event but not what it did to the state: a key-up
 * refused by the ring must not leave the key held forever. */
static void state_updates_even_when_the_ring_is_full(void)
{
    tempo_input *in = make(1);
    SDL_Event e = sdl_key(SDL_SCANCODE_A, true);
    tempo_input_handle_sdl(in, &e, 1);
    e = sdl_key(SDL_SCANCODE_A, false);
    tempo_input_handle_sdl(in, &e, 2); /* dropped */
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_U64(st.dropped, 1);
    CHECK(!tempo_input_key_down(in, SDL_SCANCODE_A));
    tempo_input_destroy(in);
}

static void mouse_state_and_position(void)
{
    tempo_input *in = make(0);
    SDL_Event e;
    SDL_zero(e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = 40;
    e.motion.y = 50;
    tempo_input_handle_sdl(in, &e, 1);
    int32_t x = -1, y = -1;
    tempo_input_mouse_position(in, &x, &y);
    CHECK_EQ_INT(x, 40);
    CHECK_EQ_INT(y, 50);
    SDL_zero(e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.button = SDL_BUTTON_RIGHT;
    e.button.state = SDL_PRESSED;
    e.button.x = 41;
    e.button.y = 52;
    tempo_input_handle_sdl(in, &e, 2);
    CHECK(tempo_input_mouse_down(in, SDL_BUTTON_RIGHT));
    CHECK(!tempo_input_mouse_down(in, SDL_BUTTON_LEFT));
    tempo_input_mouse_position(in, &x, NULL);
    CHECK_EQ_INT(x, 41);
    /* Touch-synthesised mouse events are not the system mouse. */
    e.button.which = SDL_TOUCH_MOUSEID;
    e.button.button = SDL_BUTTON_LEFT;
    tempo_input_handle_sdl(in, &e, 3);
    CHECK(!tempo_input_mouse_down(in, SDL_BUTTON_LEFT));
    e.button.which = 0;
    e.button.button = SDL_BUTTON_RIGHT;
    e.type = SDL_MOUSEBUTTONUP;
    e.button.state = SDL_RELEASED;
    tempo_input_handle_sdl(in, &e, 4);
    CHECK(!tempo_input_mouse_down(in, SDL_BUTTON_RIGHT));
    CHECK(!tempo_input_mouse_down(in, 0));
    CHECK(!tempo_input_mouse_down(in, 200));
    tempo_input_destroy(in);
}

static tempo_input_event pad_event(uint32_t type, uint32_t pad, uint8_t what, int value)
{
    tempo_input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.device_kind = TEMPO_INPUT_PAD;
    ev.device = pad;
    if (type == TEMPO_INPUT_PAD_BUTTON) {
        ev.u.pad_button.button = what;
        ev.u.pad_button.down = (uint8_t)value;
    } else if (type == TEMPO_INPUT_PAD_AXIS) {
        ev.u.pad_axis.axis = what;
        ev.u.pad_axis.value = (int16_t)value;
    }
    return ev;
}

static void pad_buttons_and_axes_per_pad_and_any(void)
{
    tempo_input *in = make(0);
    tempo_input_event ev = pad_event(TEMPO_INPUT_PAD_BUTTON, 7, SDL_CONTROLLER_BUTTON_A, 1);
    tempo_input_push(in, &ev);
    ev = pad_event(TEMPO_INPUT_PAD_AXIS, 7, SDL_CONTROLLER_AXIS_LEFTX, -20000);
    tempo_input_push(in, &ev);
    ev = pad_event(TEMPO_INPUT_PAD_AXIS, 9, SDL_CONTROLLER_AXIS_LEFTX, 25000);
    tempo_input_push(in, &ev);
    ev = pad_event(TEMPO_INPUT_PAD_AXIS, 9, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, 32767);
    tempo_input_push(in, &ev);
    CHECK(tempo_input_pad_down(in, 7, SDL_CONTROLLER_BUTTON_A));
    CHECK(!tempo_input_pad_down(in, 9, SDL_CONTROLLER_BUTTON_A));
    CHECK(tempo_input_pad_down(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_BUTTON_A));
    CHECK(!tempo_input_pad_down(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_BUTTON_B));
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 7, SDL_CONTROLLER_AXIS_LEFTX), -20000);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 9, SDL_CONTROLLER_AXIS_LEFTX), 25000);
    /* Any pad: the one furthest from centre. */
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_AXIS_LEFTX), 25000);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 9, SDL_CONTROLLER_AXIS_TRIGGERRIGHT), 32767);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 3, SDL_CONTROLLER_AXIS_LEFTX), 0);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 7, SDL_CONTROLLER_AXIS_MAX), 0);
    ev = pad_event(TEMPO_INPUT_PAD_BUTTON, 7, SDL_CONTROLLER_BUTTON_A, 0);
    tempo_input_push(in, &ev);
    CHECK(!tempo_input_pad_down(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_BUTTON_A));
    /* A removed pad is forgotten: its stick no longer counts. */
    ev = pad_event(TEMPO_INPUT_DEVICE_REMOVED, 9, 0, 0);
    tempo_input_push(in, &ev);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_AXIS_LEFTX), -20000);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 9, SDL_CONTROLLER_AXIS_TRIGGERRIGHT), 0);
    tempo_input_clear_state(in);
    CHECK_EQ_INT(tempo_input_pad_axis_value(in, 7, SDL_CONTROLLER_AXIS_LEFTX), 0);
    tempo_input_destroy(in);
}

typedef struct listen_log {
    int calls;
    bool consume_escape;
    bool key_was_down; /* the state seen from inside the listener */
} listen_log;

static bool listener(const tempo_input_event *ev, void *user)
{
    listen_log *l = user;
    l->calls++;
    if (ev->type == TEMPO_INPUT_KEY && ev->u.key.scancode == SDL_SCANCODE_ESCAPE) {
        l->key_was_down = ev->u.key.down;
        return l->consume_escape;
    }
    return false;
}

static void listener_sees_every_event_on_arrival_and_may_consume(void)
{
    tempo_input *in = make(0);
    listen_log l = {.consume_escape = true};
    CHECK_EQ_INT(tempo_input_set_listener(in, listener, &l), 0);
    SDL_Event e = sdl_key(SDL_SCANCODE_ESCAPE, true);
    CHECK_EQ_INT(tempo_input_handle_sdl(in, &e, 1), 1);
    e = sdl_key(SDL_SCANCODE_W, true);
    tempo_input_handle_sdl(in, &e, 2);
    CHECK_EQ_INT(l.calls, 2);
    CHECK(l.key_was_down);
    /* The consumed key still counts in the state. */
    CHECK(tempo_input_key_down(in, SDL_SCANCODE_ESCAPE));
    tempo_input_event ev;
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
    CHECK_EQ_INT(ev.u.key.scancode, SDL_SCANCODE_W);
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 0);
    /* Not consuming: queued as usual. Removing: not called again. */
    l.consume_escape = false;
    e = sdl_key(SDL_SCANCODE_ESCAPE, false);
    tempo_input_handle_sdl(in, &e, 3);
    CHECK_EQ_INT(tempo_input_poll(in, &ev), 1);
    CHECK_EQ_INT(ev.u.key.scancode, SDL_SCANCODE_ESCAPE);
    CHECK_EQ_INT(tempo_input_set_listener(in, NULL, NULL), 0);
    tempo_input_handle_sdl(in, &e, 4);
    CHECK_EQ_INT(l.calls, 3);
    CHECK_EQ_INT(tempo_input_set_listener(NULL, listener, &l), TEMPO_EINVAL);
    tempo_input_destroy(in);
}

/* A paused loop suspends controller polling: SDL's automatic joystick
 * updates go off (where SDL itself would poll every millisecond) and come
 * back as they were on resume. (The wake-ups are measured in
 * test_loop_pause.) */
static void suspend_polling_switches_sdl_joystick_updates_and_back(void)
{
    tempo_input *in = make(0);
    SDL_SetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS, "1");
    CHECK_EQ_INT(tempo_input_suspend_polling(in, true), 0);
    CHECK_STR_EQ(SDL_GetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS), "0");
    CHECK_EQ_INT(tempo_input_suspend_polling(in, true), 0); /* idempotent */
    CHECK_EQ_INT(tempo_input_suspend_polling(in, false), 0);
    CHECK_STR_EQ(SDL_GetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS), "1");
    CHECK_EQ_INT(tempo_input_suspend_polling(NULL, true), TEMPO_EINVAL);
    tempo_input_stats st;
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.poll_hz, 250); /* the configured rate is kept */
    tempo_input_destroy(in);
}

static void invalid_arguments(void)
{
    tempo_input_event ev;
    memset(&ev, 0, sizeof ev);
    tempo_input_stats st;
    CHECK(tempo_input_create(&(tempo_input_desc){.capacity = -1}) == NULL);
    CHECK_EQ_INT(tempo_input_push(NULL, &ev), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_poll(NULL, &ev), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_dispatch(NULL, on_event, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_set_poll_hz(NULL, 100), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_get_stats(NULL, &st), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_handle_sdl(NULL, NULL, 0), TEMPO_EINVAL);
    tempo_input_destroy(NULL);
    tempo_input *in = make(2);
    CHECK_EQ_INT(tempo_input_push(in, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_poll(in, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_input_dispatch(in, NULL, NULL), TEMPO_EINVAL);
    /* Poll rates are clamped to 1..1000 Hz; 0 restores the default. */
    CHECK_EQ_INT(tempo_input_set_poll_hz(in, 5000), 0);
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.poll_hz, 1000);
    CHECK_EQ_INT(tempo_input_set_poll_hz(in, 0), 0);
    tempo_input_get_stats(in, &st);
    CHECK_EQ_INT(st.poll_hz, 250);
    tempo_input_destroy(in);
}

static void type_names(void)
{
    CHECK_STR_EQ(tempo_input_type_name(TEMPO_INPUT_KEY), "key");
    CHECK_STR_EQ(tempo_input_type_name(TEMPO_INPUT_PAD_AXIS), "pad-axis");
    CHECK_STR_EQ(tempo_input_type_name(TEMPO_INPUT_DEVICE_REMOVED), "device-removed");
    CHECK_STR_EQ(tempo_input_type_name(99), "?");
}

static const tt_case cases[] = {
    TT_CASE(keyboard_events_keep_scancode_state_repeat_and_mods),
    TT_CASE(mouse_buttons_motion_and_wheel),
    TT_CASE(controller_buttons_and_axes_use_gamecontroller_numbering),
    TT_CASE(other_events_are_not_input),
    TT_CASE(ring_delivers_in_order_and_wraps),
    TT_CASE(full_ring_refuses_the_newest_and_counts_it),
    TT_CASE(times_never_decrease_along_the_ring),
    TT_CASE(dispatch_calls_back_oldest_first),
    TT_CASE(handle_sdl_pushes_input_and_leaves_the_rest),
    TT_CASE(native_attach_reports_enotsup_on_sdl_and_events_still_flow),
    TT_CASE(key_state_follows_the_events),
    TT_CASE(state_updates_even_when_the_ring_is_full),
    TT_CASE(mouse_state_and_position),
    TT_CASE(pad_buttons_and_axes_per_pad_and_any),
    TT_CASE(listener_sees_every_event_on_arrival_and_may_consume),
    TT_CASE(suspend_polling_switches_sdl_joystick_updates_and_back),
    TT_CASE(invalid_arguments),
    TT_CASE(type_names),
    TT_CASE(cleared_key_stays_up_through_auto_repeat),
    TT_CASE(controllers_deliver_in_the_background_unless_the_game_says_no),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
