/* Tempo: one input event type for every backend, buffered per frame.
 *
 * Keyboard, mouse and game-controller input reaches the game as
 * tempo_input_event values, whatever produced them: SDL events on the sdl
 * backend, DirectInput8 device buffers on the win32 backend. Key codes are
 * SDL scancodes, controller buttons and axes use SDL_GameController
 * numbering, so a game never sees which backend is compiled in.
 *
 * Input never costs a polling wake-up: keyboard and mouse arrive as window
 * messages, which end the loop's wait (TEMPO_WAIT_MESSAGES; on win32 the
 * DirectInput notification events are in the wait set). The loop thread
 * then translates what arrived and pushes it into a tempo_input's bounded
 * ring; the game reads the ring once per frame:
 *
 *   tempo_input *in = tempo_input_create(NULL);
 *   ...
 *   int r = tempo_wait(set, n, timeout, TEMPO_WAIT_MESSAGES);
 *   uint64_t now = tempo_now_ns();
 *   SDL_Event e;
 *   while (SDL_PollEvent(&e))
 *       if (!tempo_input_handle_sdl(in, &e, now))
 *           handle_other(&e);              // window, quit, user events
 *   tempo_input_event ev;
 *   while (tempo_input_poll(in, &ev) > 0)
 *       game_input(&ev);
 *
 * Game controllers are the exception SDL2 imposes: while a joystick is open
 * SDL cannot block and falls back to polling every millisecond. A
 * tempo_input opens controllers as they are attached and replaces that
 * 1000 Hz polling by a bounded, configurable rate (tempo_input_set_poll_hz)
 * applied only while a controller is open.
 *
 * Controllers in the background: SDL drops joystick and controller events
 * while none of the program's windows has input focus, unless
 * SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS is "1". A controller belongs to
 * the player, not to a window, so tempo_input_create (unless
 * desc.no_controllers) sets that hint to "1" at SDL's default priority: a
 * game that wants SDL's behaviour (two programs sharing one pad) sets it to
 * "0" first with SDL_SetHint, or the environment variable
 * SDL_JOYSTICK_ALLOW_BACKGROUND_EVENTS=0, and that wins. (A minimized or
 * hidden game is idle-paused anyway, with controller polling suspended;
 * this matters for a game running unfocused: another window on top, a
 * second monitor, desc.run_while_hidden in tempo/loop.h.)
 *
 * Thread: every function here runs on the loop thread (the thread that
 * initialised SDL video), except tempo_input_from_sdl (Thread: any: it only
 * reads its arguments). A tempo_input is not thread-safe.
 *
 * Create one tempo_input per program: the controller poll rate is a
 * process-wide setting of the wait (the last one set wins; destroying a
 * tempo_input that manages controllers restores SDL's default).
 */
#ifndef TEMPO_INPUT_H
#define TEMPO_INPUT_H

#include <SDL.h>

#include "base.h"
#include "wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an event is. Values are stable. */
typedef enum tempo_input_type {
    TEMPO_INPUT_NONE = 0,
    TEMPO_INPUT_KEY = 1,            /* .key: a key went down, repeated or went up */
    TEMPO_INPUT_MOUSE_BUTTON = 2,   /* .button: a mouse button went down or up */
    TEMPO_INPUT_MOUSE_MOTION = 3,   /* .motion: the pointer moved */
    TEMPO_INPUT_MOUSE_WHEEL = 4,    /* .wheel: the wheel turned */
    TEMPO_INPUT_PAD_BUTTON = 5,     /* .pad_button: a controller button went down or up */
    TEMPO_INPUT_PAD_AXIS = 6,       /* .pad_axis: a controller axis moved */
    TEMPO_INPUT_DEVICE_ADDED = 7,   /* .device: a device appeared (and was opened) */
    TEMPO_INPUT_DEVICE_REMOVED = 8, /* .device: a device went away (and was closed) */
} tempo_input_type;

/* Which kind of device an event comes from (tempo_input_event.device_kind). */
typedef enum tempo_input_device_kind {
    TEMPO_INPUT_KEYBOARD = 1,
    TEMPO_INPUT_MOUSE = 2,
    TEMPO_INPUT_PAD = 3, /* a game controller (SDL_GameController mapping) */
} tempo_input_device_kind;

/* Device ids (tempo_input_event.device), unique within one device_kind:
 *  - keyboard: 0 (SDL2 merges every keyboard into one; DirectInput's system
 *    keyboard is also 0);
 *  - mouse: 0 for the system mouse; TEMPO_INPUT_TOUCH_MOUSE for mouse events
 *    SDL synthesised from touch (SDL_TOUCH_MOUSEID);
 *  - pad: the SDL joystick instance id (SDL_JoystickID, never reused while
 *    the program runs); on win32/DirectInput a small counter with the same
 *    property. Use it to tell pads apart and to match ADDED with REMOVED. */
#define TEMPO_INPUT_TOUCH_MOUSE UINT32_C(0xFFFFFFFF)

/* Keyboard: layout-independent scancode plus the key it means under the
 * current layout. */
typedef struct tempo_input_key {
    int32_t scancode; /* SDL_Scancode (physical position, e.g. SDL_SCANCODE_A) */
    int32_t keycode;  /* SDL_Keycode under the current layout (e.g. SDLK_a); 0 if unknown */
    uint16_t mod;     /* SDL_Keymod bits held when the event happened (KMOD_SHIFT ...) */
    uint8_t down;     /* 1 pressed (or repeat), 0 released */
    uint8_t repeat;   /* 1 if this is an auto-repeat of a key already down (the
                         OS's typematic repeat; SDL events only: DirectInput
                         reports none). Repeats are queued like presses but
                         never change the key state (see tempo_input_key_down) */
} tempo_input_key;

/* Mouse button. Positions are in window coordinates (pixels, top-left 0,0). */
typedef struct tempo_input_mouse_button {
    int32_t x, y;    /* pointer position when it happened */
    uint8_t button;  /* SDL_BUTTON_LEFT (1), MIDDLE (2), RIGHT (3), X1 (4), X2 (5) */
    uint8_t down;    /* 1 pressed, 0 released */
    uint8_t clicks;  /* 1 single click, 2 double click, ...; 1 if unknown */
} tempo_input_mouse_button;

/* Mouse motion: both the absolute position and the relative movement (the
 * latter also works in relative mode, where the absolute one is frozen). */
typedef struct tempo_input_mouse_motion {
    int32_t x, y;     /* absolute position in the window */
    int32_t dx, dy;   /* movement since the previous motion event */
    uint32_t buttons; /* SDL_BUTTON_LMASK ... bits held during the motion */
} tempo_input_mouse_motion;

/* Mouse wheel, normalised so positive y is always "away from the user" and
 * positive x "to the right" (SDL's flipped direction is undone). */
typedef struct tempo_input_mouse_wheel {
    int32_t x, y;           /* whole notches */
    float precise_x, precise_y; /* fractional amount (high-resolution wheels, touchpads);
                                   equal to x, y where the source has no finer value */
} tempo_input_mouse_wheel;

/* Controller button, SDL_GameController numbering. */
typedef struct tempo_input_pad_button {
    uint8_t button; /* SDL_GameControllerButton: SDL_CONTROLLER_BUTTON_A (0) ... */
    uint8_t down;   /* 1 pressed, 0 released */
} tempo_input_pad_button;

/* Controller axis, SDL_GameController numbering and range. */
typedef struct tempo_input_pad_axis {
    uint8_t axis;  /* SDL_GameControllerAxis: SDL_CONTROLLER_AXIS_LEFTX (0) ... */
    int16_t value; /* sticks -32768..32767 (0 centred, +y is down), triggers 0..32767 */
} tempo_input_pad_axis;

/* Device added or removed. */
typedef struct tempo_input_device {
    char name[48]; /* human-readable name, truncated, NUL-terminated; "" if unknown
                      (SDL can no longer name a removed device) */
} tempo_input_device;

/* One input event, copied by value. Zero-initialised fields mean "not
 * applicable"; only the union member named by `type` is meaningful. */
typedef struct tempo_input_event {
    uint32_t type;        /* tempo_input_type */
    uint32_t device_kind; /* tempo_input_device_kind */
    uint32_t device;      /* device id within device_kind (see above) */
    uint32_t os_time_ms;  /* the source's own timestamp in milliseconds, for ordering
                             only: SDL's event timestamp (SDL_GetTicks when SDL queued
                             it) or DirectInput's dwTimeStamp; 0 if unknown */
    uint64_t time_ns;     /* when Tempo received it, on the tempo_now_ns() clock: the
                             `now_ns` given to the translation, normally the time the
                             loop's wait returned for it. Never decreases along a ring. */
    union {
        tempo_input_key key;
        tempo_input_mouse_button button;
        tempo_input_mouse_motion motion;
        tempo_input_mouse_wheel wheel;
        tempo_input_pad_button pad_button;
        tempo_input_pad_axis pad_axis;
        tempo_input_device dev;
    } u;
} tempo_input_event;

/* Static lower-case name of an event type ("key", "mouse-motion", ...), or
 * "?" for an unknown value. Thread: any. */
TEMPO_API const char *tempo_input_type_name(uint32_t type);

/* Translates one SDL event into a Tempo input event stamped `now_ns`.
 * Handles SDL_KEYDOWN/UP, SDL_MOUSEMOTION, SDL_MOUSEBUTTONDOWN/UP,
 * SDL_MOUSEWHEEL, SDL_CONTROLLERBUTTONDOWN/UP, SDL_CONTROLLERAXISMOTION and
 * SDL_CONTROLLERDEVICEADDED/REMOVED (SDL's ADDED event carries a device
 * index; it is translated to the instance id used everywhere else). Mouse
 * and keyboard device ids follow the rules above. Everything else (window,
 * quit, text, raw joystick events) is not input here.
 * Returns 1 and fills *out if `e` was translated, 0 if it is not an input
 * event (*out is then left untouched), TEMPO_EINVAL if `e` or `out` is NULL.
 * Ownership: reads `e` during the call only. Thread: any (it calls only
 * SDL's thread-safe controller-name lookup). */
TEMPO_API int tempo_input_from_sdl(const SDL_Event *e, uint64_t now_ns, tempo_input_event *out);

/* ---- The per-frame input buffer ---------------------------------------- */

typedef struct tempo_input tempo_input;
typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

typedef struct tempo_input_desc {
    int capacity;       /* events the ring holds between two reads; 0 = 1024.
                           At 1000 Hz mouse reports and 60 fps that is ~60 frames. */
    uint32_t poll_hz;   /* controller polling rate while at least one controller is
                           open; 0 = 250 (a 4 ms wake-up cadence instead of SDL's 1 ms).
                           Clamped to 1..1000. Keyboard and mouse are never polled. */
    bool no_controllers; /* false (default): initialise SDL's game-controller subsystem
                            and open every controller as it is attached. true: ignore
                            controllers entirely (no polling ever). */
} tempo_input_desc;

/* Counters for overlays and tests. */
typedef struct tempo_input_stats {
    uint64_t pushed;       /* events accepted into the ring */
    uint64_t dropped;      /* events refused because the ring was full */
    uint64_t delivered;    /* events read by poll/dispatch */
    uint32_t queued;       /* events in the ring now */
    uint32_t max_queued;   /* high-water mark of `queued` */
    uint32_t pads_open;    /* controllers open now */
    uint32_t poll_hz;      /* the configured controller polling rate */
    bool polling;          /* true while controllers force periodic wake-ups */
    unsigned native;       /* TEMPO_INPUT_NATIVE_* devices attached now; 0: SDL events only */
} tempo_input_stats;

/* Creates an input buffer. `desc` may be NULL (all defaults). Unless
 * desc->no_controllers, sets SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS to
 * "1" at default priority (see the top of this header) and initialises
 * SDL_INIT_GAMECONTROLLER (SDL counts the references; destroy quits it
 * again).
 * Returns the object, owned by the caller, or NULL (TEMPO_ENOMEM, or
 * TEMPO_EPLATFORM when SDL's controller subsystem fails; see
 * tempo_get_error()). Thread: loop thread, after SDL_Init(SDL_INIT_VIDEO). */
TEMPO_API tempo_input *tempo_input_create(const tempo_input_desc *desc);

/* Leaves the loop it feeds (tempo_input_detach, below; so it may
 * be destroyed before its loop), closes the controllers it opened, lifts
 * the controller polling, frees the ring (queued events are discarded).
 * Not from its own listener. NULL is a no-op. Thread: loop thread. */
TEMPO_API void tempo_input_destroy(tempo_input *in);

/* Makes `in` the loop's input buffer: what tempo_loop_desc.input does
 * at create, later. Every SDL event the loop takes goes to
 * tempo_input_handle_sdl(in, ...) first, desc.input_event becomes the
 * input's listener, a paused loop suspends its controller polling, native
 * input (tempo_input_attach_window) becomes one of the loop's sources, and
 * a recording or replay takes its ring over from the attach on (see
 * desc.input in tempo/loop.h). One input per loop, one loop per input.
 * tempo_input_destroy() detaches it first, and tempo_loop_destroy() lets
 * go of it: destroy them in any order (not the input from its own
 * listener). Returns 0 (also when already attached to this loop),
 * TEMPO_EINVAL (NULL) or TEMPO_EBUSY (attached to another loop, or the loop
 * has another input). Thread: loop thread. */
TEMPO_API int tempo_input_attach(tempo_input *in, tempo_loop *loop);
/* Leaves the loop: SDL events reach the event callback only, the listener
 * and any polling suspension of the loop's are lifted, native input leaves
 * the wait set, and a recording or replay lets go of the ring. Events in
 * the ring stay. Returns 0 or TEMPO_EINVAL (NULL, not attached).
 * Thread: loop thread. */
TEMPO_API int tempo_input_detach(tempo_input *in);

/* Feeds one SDL event from the loop's event pump: opens/closes controllers
 * on SDL_CONTROLLERDEVICEADDED/REMOVED (adjusting the polling), translates
 * the event with tempo_input_from_sdl and pushes the result.
 * Returns 1 if the event was input (consumed, even if the ring was full:
 * stats.dropped counts that), 0 if it is not input (the caller handles it),
 * TEMPO_EINVAL on NULL arguments. Thread: loop thread. */
TEMPO_API int tempo_input_handle_sdl(tempo_input *in, const SDL_Event *e, uint64_t now_ns);

/* Appends a translated event to the ring (the backends' path: the SDL pump
 * via tempo_input_handle_sdl, the win32 DirectInput reader directly). The
 * event is copied. If ev->time_ns is older than the last queued event's it
 * is raised to it, so times never decrease along the ring.
 * Returns 0, TEMPO_EFULL (ring full: the event is dropped and counted in
 * stats.dropped; the events already queued are kept, so a key-up is never
 * lost behind a later event) or TEMPO_EINVAL. Thread: loop thread. */
TEMPO_API int tempo_input_push(tempo_input *in, const tempo_input_event *ev);

/* Takes the oldest queued event into *out. Returns 1 if one was taken, 0 if
 * the ring is empty, TEMPO_EINVAL on NULL arguments. Thread: loop thread. */
TEMPO_API int tempo_input_poll(tempo_input *in, tempo_input_event *out);

/* Calls fn(ev, user) for every queued event, oldest first, emptying the
 * ring; events pushed by fn itself are delivered in the same call.
 * `ev` is valid during the callback only. Returns the number delivered or
 * TEMPO_EINVAL. Thread: loop thread. */
typedef void (*tempo_input_fn)(const tempo_input_event *ev, void *user);
TEMPO_API int tempo_input_dispatch(tempo_input *in, tempo_input_fn fn, void *user);

/* ---- State queries -------------------------------------------------------
 * Next to the ring, a tempo_input keeps the state every event leaves
 * behind: which keys, mouse buttons and controller buttons are down, where
 * the pointer is, where each controller axis stands. It is updated when an
 * event is pushed (tempo_input_handle_sdl, native input, tempo_input_push),
 * also when the ring is full and the event itself is dropped, so it is the
 * latest state known, like SDL_GetKeyboardState, including events still
 * waiting in the ring. A game that needs every press (a tap shorter than a
 * frame) reads the ring; one that asks "is jump held?" asks here:
 *
 *   if (tempo_input_key_down(in, SDL_SCANCODE_SPACE)) jump(g);
 *   int16_t x = tempo_input_pad_axis_value(in, TEMPO_INPUT_ANY_PAD, SDL_CONTROLLER_AXIS_LEFTX);
 *
 * All return "up" / 0 for a NULL `in` or out-of-range arguments.
 * Thread: loop thread. */

/* Any open controller: buttons are down if down on any pad, an axis is the
 * value furthest from centre among the pads. */
#define TEMPO_INPUT_ANY_PAD UINT32_C(0xFFFFFFFE)

/* True while the key with this SDL_Scancode is down. Clear and repeat
 * rules: a press (down, not repeat) sets the key, a release clears it, and
 * an auto-repeat changes nothing: it never sets a key again. So a key the
 * game cleared (tempo_input_clear_key, tempo_input_clear_state: "this press
 * is used up", e.g. a menu key held on into the game) stays released until
 * it is released and pressed anew, however long the OS keeps repeating it.
 * The ring still delivers every repeat event, with repeat = 1, for text
 * fields and menus that want the typematic rate. */
TEMPO_API bool tempo_input_key_down(const tempo_input *in, int32_t scancode);

/* True while mouse button `button` (SDL_BUTTON_LEFT = 1 ... X2 = 5) of
 * the system mouse (device 0) is down. */
TEMPO_API bool tempo_input_mouse_down(const tempo_input *in, uint8_t button);

/* The last pointer position seen (window coordinates); 0, 0 before any.
 * Either pointer may be NULL. */
TEMPO_API void tempo_input_mouse_position(const tempo_input *in, int32_t *x, int32_t *y);

/* True while button `button` (SDL_GameControllerButton) of controller `pad`
 * (its device id, see above, or TEMPO_INPUT_ANY_PAD) is down. */
TEMPO_API bool tempo_input_pad_down(const tempo_input *in, uint32_t pad, uint8_t button);

/* Where axis `axis` (SDL_GameControllerAxis) of controller `pad` (or
 * TEMPO_INPUT_ANY_PAD) stands: -32768..32767, 0 centred or unknown. A
 * controller's state is forgotten when it is removed. */
TEMPO_API int16_t tempo_input_pad_axis_value(const tempo_input *in, uint32_t pad, uint8_t axis);

/* Releases every key, button and axis in the state (not the ring): for a
 * game that knows input stopped reaching it (e.g. after a long pause).
 * SDL already sends key-ups when the window loses focus. A cleared key
 * stays up until a new press (repeats do not set it; see
 * tempo_input_key_down); a button or axis takes the value of its next
 * event. NULL: no-op. Thread: loop thread. */
TEMPO_API void tempo_input_clear_state(tempo_input *in);

/* Releases one key in the state (not the ring): the game has used this
 * press (a pause key, a menu confirm) and must not see it held on. It stays
 * released until the key is released and pressed again; auto-repeats of
 * the held key do not set it. Returns 0 or TEMPO_EINVAL (NULL, scancode
 * out of 1..SDL_NUM_SCANCODES-1). Thread: loop thread. */
TEMPO_API int tempo_input_clear_key(tempo_input *in, int32_t scancode);

/* ---- Seeing input as it arrives ------------------------------------------
 * The ring is read by update(), which does not run while the loop is
 * paused: a pause key must be seen on arrival. A listener is called for
 * every event pushed, before it enters the ring (after the state update);
 * returning true consumes it (it is not queued), false queues it as usual.
 * tempo_loop installs one for desc.input_event; set your own only on a
 * tempo_input no loop was given. */
typedef bool (*tempo_input_listener_fn)(const tempo_input_event *ev, void *user);

/* Sets (fn non-NULL) or removes (fn NULL) the listener. Returns 0 or
 * TEMPO_EINVAL (NULL `in`). Thread: loop thread. */
TEMPO_API int tempo_input_set_listener(tempo_input *in, tempo_input_listener_fn fn, void *user);

/* Stops controller polling while the game is idle (a paused or minimized
 * loop calls it with true, and with false on resume): SDL2 can only poll
 * controllers, so while paused nothing should. Keyboard, mouse and window
 * events still wake the waits; controller input while suspended is not
 * seen (controller state is read afresh on resume). Process-wide, like
 * the poll rate. Returns 0 or TEMPO_EINVAL. Thread: loop thread. */
TEMPO_API int tempo_input_suspend_polling(tempo_input *in, bool suspend);

/* Sets the controller polling rate (see tempo_input_desc.poll_hz; 0 means
 * the default 250). Takes effect at once if a controller is open. A higher
 * rate lowers controller latency (at most 1/hz) and costs one wake-up per
 * period while a controller is connected. Returns 0 or TEMPO_EINVAL.
 * Thread: loop thread. */
TEMPO_API int tempo_input_set_poll_hz(tempo_input *in, uint32_t hz);

/* ---- Native input (opt-in) ---------------------------------------------- */

/* Devices for tempo_input_attach_window (bits; 0 = KEYBOARD | MOUSE). */
enum {
    TEMPO_INPUT_NATIVE_KEYBOARD = 1u << 0, /* the system keyboard */
    TEMPO_INPUT_NATIVE_MOUSE = 1u << 1,    /* the system mouse */
    TEMPO_INPUT_NATIVE_PADS = 1u << 2      /* every controller, as they come and go. Opt-in:
                                              the native mapping is the XInput layout, while
                                              SDL's path has the GameController database */
};

/* Reads `devices` of `window` through the backend's native input instead
 * of SDL events: on win32, DirectInput8 devices (foreground, non-exclusive,
 * buffered) with an event notification handle. While attached,
 * tempo_input_handle_sdl ignores SDL's own events for those devices
 * (keyboard: SDL_KEYDOWN/UP; mouse: motion, buttons, wheel; pads: every
 * SDL_CONTROLLER* event, and the controllers it had opened are closed) and
 * still returns 1 for them, so nothing arrives twice. The game (or a
 * tempo_loop with desc.input = in, which does this by itself) waits on
 * tempo_input_native_handle() and calls tempo_input_read_native() when it
 * is signalled. Attaching again first detaches.
 * Returns 0; TEMPO_ENOTSUP where the backend has no native input (the sdl
 * backend: input stays on SDL events, nothing changed); TEMPO_EPLATFORM
 * when the native API fails; TEMPO_EINVAL (NULL `in`/`window`, unknown
 * bits, or a window of another video driver). On any error `in` is left
 * detached and works on SDL events. Ownership: `window` is not owned and
 * must outlive the attachment (detach, or destroy `in`, before destroying
 * it). Thread: loop thread. */
TEMPO_API int tempo_input_attach_window(tempo_input *in, SDL_Window *window, unsigned devices);

/* Closes the native devices; SDL events carry all input again. Events
 * already in the ring stay. NULL or not attached: no-op. Thread: loop
 * thread. */
TEMPO_API void tempo_input_detach_window(tempo_input *in);

/* The native input's handle (auto-reset, owned by `in`, valid until detach
 * or destroy). With a loop, give `in` as tempo_loop_desc.input: the loop
 * then waits on this handle and reads it itself (do not watch it too).
 * Without one, put it in your wait set and call tempo_input_read_native
 * when it is returned. NULL when not attached (or `in` is NULL). Thread: loop
 * thread. */
TEMPO_API tempo_handle *tempo_input_native_handle(const tempo_input *in);

/* Drains the native devices into the ring, every event stamped `now_ns`
 * (normally when the wait returned for the handle). Also re-acquires
 * devices after a focus change and reports controllers that came or went.
 * Returns the number of events read (those refused by a full ring are
 * counted in stats.dropped), 0 when not attached, or a negative TEMPO_E*
 * (TEMPO_EINVAL for NULL, TEMPO_EPLATFORM from the native API).
 * Thread: loop thread. */
TEMPO_API int tempo_input_read_native(tempo_input *in, uint64_t now_ns);

/* Fills *out. Returns 0 or TEMPO_EINVAL. Thread: loop thread. */
TEMPO_API int tempo_input_get_stats(const tempo_input *in, tempo_input_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_INPUT_H */
