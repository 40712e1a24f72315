/* Input: SDL event translation, the per-frame ring, and controller
 * management with a bounded polling rate.
 *
 * Native input (tempo_input_attach_window) is the backend's plat_input_*:
 * DirectInput8 on win32, TEMPO_ENOTSUP on the sdl backend. While attached,
 * the SDL events of the devices it covers are swallowed here so every key,
 * click and pad report reaches the ring once.
 *
 * Everything here runs on the loop thread; the ring needs no lock. The only
 * cross-thread piece is the poll interval handed to the backend
 * (plat_set_input_poll_interval_ns), which the backend reads atomically. */
#include <stdlib.h>
#include <string.h>

#include "handle_pool.h"
#include "platform.h"
#include "replay_internal.h"
#include "sources_internal.h"
#include "tempo/input.h"
#include "tempo_internal.h"

#define DEFAULT_CAPACITY 1024
#define DEFAULT_POLL_HZ 250u
#define MAX_POLL_HZ 1000u
/* The poll interval while polling is suspended (tempo_input_suspend_polling):
 * longer than any pause, so a paused loop's wait stays on the backend's
 * blocking route with its controllers open, yet sleeps through. (0 would
 * hand joystick waits back to SDL, which polls every millisecond.) */
#define SUSPENDED_POLL_NS (3600 * TEMPO_NS_PER_S)
#define MOUSE_BUTTONS 32

/* The state a controller's events leave behind (tempo_input_pad_down/axis). */
typedef struct pad_state {
    uint32_t id;
    uint32_t buttons; /* bit b: SDL_GameControllerButton b is down */
    int16_t axes[SDL_CONTROLLER_AXIS_MAX];
} pad_state;

typedef struct pad {
    SDL_JoystickID id;
    SDL_GameController *gc; /* opened by us, closed by us */
    char name[sizeof(((tempo_input_device *)0)->name)];
} pad;

struct tempo_input {
    tempo_input_event *ring;
    uint32_t cap, head, count; /* head: index of the oldest event */
    uint64_t last_time_ns;     /* time of the newest pushed event */
    uint64_t pushed, dropped, delivered;
    uint32_t max_queued;
    uint32_t poll_hz;
    bool controllers; /* we initialised SDL_INIT_GAMECONTROLLER and manage pads */
    pad *pads;
    uint32_t npads, pads_cap;
    plat_input *native;    /* attached native devices, or NULL */
    tempo_handle *native_id; /* the public id lent to native's event (handle_pool.h) */
    unsigned native_devs;  /* TEMPO_INPUT_NATIVE_* bits covered by `native` */

    /* state left by the pushed events */
    uint8_t keys[SDL_NUM_SCANCODES / 8];
    uint32_t mouse_buttons; /* bit b-1: button b of the system mouse */
    int32_t mouse_x, mouse_y;
    pad_state *pstate;
    uint32_t npstate, pstate_cap;
    tempo_input_listener_fn listener;
    void *listener_user;
    tempo__input_tap_fn tap; /* the recorder's view of pushed events (replay.c), or NULL */
    void *tap_user;
    bool hold; /* a replay owns the ring: pushes from elsewhere are ignored */
    tempo__attachment at; /* the loop it feeds (tempo_input_attach, loop_events.c) */
};

/* Process-wide, like the backend's poll interval. [loop thread] */
static bool g_polling_suspended;
static char g_auto_update_hint[16]; /* SDL_HINT_AUTO_UPDATE_JOYSTICKS before suspending */
static bool g_had_hint;

#define NATIVE_ALL (TEMPO_INPUT_NATIVE_KEYBOARD | TEMPO_INPUT_NATIVE_MOUSE | TEMPO_INPUT_NATIVE_PADS)

const char *tempo_input_type_name(uint32_t type)
{
    switch (type) {
    case TEMPO_INPUT_NONE: return "none";
    case TEMPO_INPUT_KEY: return "key";
    case TEMPO_INPUT_MOUSE_BUTTON: return "mouse-button";
    case TEMPO_INPUT_MOUSE_MOTION: return "mouse-motion";
    case TEMPO_INPUT_MOUSE_WHEEL: return "mouse-wheel";
    case TEMPO_INPUT_PAD_BUTTON: return "pad-button";
    case TEMPO_INPUT_PAD_AXIS: return "pad-axis";
    case TEMPO_INPUT_DEVICE_ADDED: return "device-added";
    case TEMPO_INPUT_DEVICE_REMOVED: return "device-removed";
    default: return "?";
    }
}

static void copy_name(char *dst, size_t size, const char *src)
{
    if (src == NULL)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static uint32_t mouse_id(Uint32 which)
{
    return which == SDL_TOUCH_MOUSEID ? TEMPO_INPUT_TOUCH_MOUSE : (uint32_t)which;
}

int tempo_input_from_sdl(const SDL_Event *e, uint64_t now_ns, tempo_input_event *out)
{
    if (e == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_from_sdl: %s is NULL", e == NULL ? "event" : "out");
    tempo_input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.time_ns = now_ns;
    ev.os_time_ms = e->common.timestamp;
    switch (e->type) {
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        ev.type = TEMPO_INPUT_KEY;
        ev.device_kind = TEMPO_INPUT_KEYBOARD;
        ev.u.key.scancode = (int32_t)e->key.keysym.scancode;
        ev.u.key.keycode = (int32_t)e->key.keysym.sym;
        ev.u.key.mod = e->key.keysym.mod;
        ev.u.key.down = e->key.state == SDL_PRESSED;
        ev.u.key.repeat = e->key.repeat != 0;
        break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        ev.type = TEMPO_INPUT_MOUSE_BUTTON;
        ev.device_kind = TEMPO_INPUT_MOUSE;
        ev.device = mouse_id(e->button.which);
        ev.u.button.x = e->button.x;
        ev.u.button.y = e->button.y;
        ev.u.button.button = e->button.button;
        ev.u.button.down = e->button.state == SDL_PRESSED;
        ev.u.button.clicks = e->button.clicks > 0 ? e->button.clicks : 1;
        break;
    case SDL_MOUSEMOTION:
        ev.type = TEMPO_INPUT_MOUSE_MOTION;
        ev.device_kind = TEMPO_INPUT_MOUSE;
        ev.device = mouse_id(e->motion.which);
        ev.u.motion.x = e->motion.x;
        ev.u.motion.y = e->motion.y;
        ev.u.motion.dx = e->motion.xrel;
        ev.u.motion.dy = e->motion.yrel;
        ev.u.motion.buttons = e->motion.state;
        break;
    case SDL_MOUSEWHEEL: {
        /* Undo "natural scrolling" so the sign means the same everywhere. */
        int sign = e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -1 : 1;
        ev.type = TEMPO_INPUT_MOUSE_WHEEL;
        ev.device_kind = TEMPO_INPUT_MOUSE;
        ev.device = mouse_id(e->wheel.which);
        ev.u.wheel.x = sign * e->wheel.x;
        ev.u.wheel.y = sign * e->wheel.y;
        ev.u.wheel.precise_x = (float)sign * e->wheel.preciseX;
        ev.u.wheel.precise_y = (float)sign * e->wheel.preciseY;
        break;
    }
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP:
        ev.type = TEMPO_INPUT_PAD_BUTTON;
        ev.device_kind = TEMPO_INPUT_PAD;
        ev.device = (uint32_t)e->cbutton.which;
        ev.u.pad_button.button = e->cbutton.button;
        ev.u.pad_button.down = e->cbutton.state == SDL_PRESSED;
        break;
    case SDL_CONTROLLERAXISMOTION:
        ev.type = TEMPO_INPUT_PAD_AXIS;
        ev.device_kind = TEMPO_INPUT_PAD;
        ev.device = (uint32_t)e->caxis.which;
        ev.u.pad_axis.axis = e->caxis.axis;
        ev.u.pad_axis.value = e->caxis.value;
        break;
    case SDL_CONTROLLERDEVICEADDED:
        /* SDL gives the device index here, the instance id everywhere else. */
        ev.type = TEMPO_INPUT_DEVICE_ADDED;
        ev.device_kind = TEMPO_INPUT_PAD;
        ev.device = (uint32_t)SDL_JoystickGetDeviceInstanceID(e->cdevice.which);
        copy_name(ev.u.dev.name, sizeof ev.u.dev.name,
                  SDL_GameControllerNameForIndex(e->cdevice.which));
        break;
    case SDL_CONTROLLERDEVICEREMOVED: {
        ev.type = TEMPO_INPUT_DEVICE_REMOVED;
        ev.device_kind = TEMPO_INPUT_PAD;
        ev.device = (uint32_t)e->cdevice.which;
        SDL_GameController *gc = SDL_GameControllerFromInstanceID(e->cdevice.which);
        copy_name(ev.u.dev.name, sizeof ev.u.dev.name, gc ? SDL_GameControllerName(gc) : NULL);
        break;
    }
    default:
        return 0;
    }
    *out = ev;
    return 1;
}

/* ---- The ring ------------------------------------------------------------ */

static void apply_poll_rate(const tempo_input *in)
{
    /* The backend applies it only while a joystick is open. Native pads
     * are not SDL joysticks: they signal the native handle instead. */
    bool sdl_pads = in->controllers && !(in->native_devs & TEMPO_INPUT_NATIVE_PADS);
    uint64_t ns = g_polling_suspended ? SUSPENDED_POLL_NS : TEMPO_NS_PER_S / in->poll_hz;
    plat_set_input_poll_interval_ns(sdl_pads ? ns : 0);
}

tempo_input *tempo_input_create(const tempo_input_desc *desc)
{
    tempo_input_desc d = desc ? *desc : (tempo_input_desc){0};
    if (d.capacity < 0) {
        tempo__set_error(TEMPO_EINVAL, "tempo_input_create: capacity %d < 0", d.capacity);
        return NULL;
    }
    tempo_input *in = calloc(1, sizeof *in);
    if (in == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "tempo_input_create: out of memory");
        return NULL;
    }
    in->cap = d.capacity > 0 ? (uint32_t)d.capacity : DEFAULT_CAPACITY;
    in->ring = calloc(in->cap, sizeof *in->ring);
    if (in->ring == NULL) {
        free(in);
        tempo__set_error(TEMPO_ENOMEM, "tempo_input_create: out of memory");
        return NULL;
    }
    in->poll_hz = d.poll_hz == 0 ? DEFAULT_POLL_HZ : d.poll_hz > MAX_POLL_HZ ? MAX_POLL_HZ : d.poll_hz;
    if (!d.no_controllers) {
        /* A controller is not the window's: without this SDL drops its
         * events while the window has no focus (another window on top, a
         * second monitor, a desktop with no window manager), buttons
         * included, so a game running unfocused loses its pad. At the
         * default priority: a game's own SDL_SetHint or the environment
         * variable wins. */
        SDL_SetHintWithPriority(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1", SDL_HINT_DEFAULT);
        /* SDL then queues SDL_CONTROLLERDEVICEADDED for every controller
         * already attached, so they are opened by tempo_input_handle_sdl like
         * hot-plugged ones. */
        if (SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) != 0) {
            tempo__set_error(TEMPO_EPLATFORM, "SDL_InitSubSystem(GAMECONTROLLER): %s",
                             SDL_GetError());
            free(in->ring);
            free(in);
            return NULL;
        }
        in->controllers = true;
        apply_poll_rate(in);
    }
    return in;
}

tempo__attachment *tempo__input_attachment(tempo_input *in)
{
    return &in->at;
}

void tempo_input_destroy(tempo_input *in)
{
    if (in == NULL)
        return;
    (void)tempo__attachment_leave(&in->at, in, "tempo_input_destroy"); /* no destroy order */
    plat_input_close(in->native);
    for (uint32_t i = 0; i < in->npads; i++)
        SDL_GameControllerClose(in->pads[i].gc);
    free(in->pads);
    free(in->pstate);
    if (in->controllers) {
        plat_set_input_poll_interval_ns(0);
        SDL_QuitSubSystem(SDL_INIT_GAMECONTROLLER);
    }
    free(in->ring);
    free(in);
}

/* ---- State ------------------------------------------------------------------ */

static pad_state *find_pstate(const tempo_input *in, uint32_t id)
{
    for (uint32_t i = 0; i < in->npstate; i++)
        if (in->pstate[i].id == id)
            return &in->pstate[i];
    return NULL;
}

static pad_state *get_pstate(tempo_input *in, uint32_t id)
{
    pad_state *s = find_pstate(in, id);
    if (s != NULL)
        return s;
    if (in->npstate == in->pstate_cap) {
        uint32_t cap = in->pstate_cap ? in->pstate_cap * 2 : 4;
        pad_state *p = realloc(in->pstate, cap * sizeof *p);
        if (p == NULL)
            return NULL; /* the state of this pad stays unknown (0) */
        in->pstate = p;
        in->pstate_cap = cap;
    }
    s = &in->pstate[in->npstate++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

/* The state `ev` leaves behind. */
static void track_state(tempo_input *in, const tempo_input_event *ev)
{
    switch (ev->type) {
    case TEMPO_INPUT_KEY: {
        int32_t sc = ev->u.key.scancode;
        if (sc > 0 && sc < SDL_NUM_SCANCODES) {
            uint8_t bit = (uint8_t)(1u << (sc & 7));
            /* Only a press sets a key: an auto-repeat of a key the game
             * cleared (tempo_input_clear_key) must not bring it back. */
            if (ev->u.key.down && !ev->u.key.repeat)
                in->keys[sc >> 3] |= bit;
            else if (!ev->u.key.down)
                in->keys[sc >> 3] &= (uint8_t)~bit;
        }
        break;
    }
    case TEMPO_INPUT_MOUSE_BUTTON:
        if (ev->device == 0 && ev->u.button.button >= 1 && ev->u.button.button <= MOUSE_BUTTONS) {
            uint32_t bit = 1u << (ev->u.button.button - 1);
            in->mouse_buttons = ev->u.button.down ? in->mouse_buttons | bit : in->mouse_buttons & ~bit;
            in->mouse_x = ev->u.button.x;
            in->mouse_y = ev->u.button.y;
        }
        break;
    case TEMPO_INPUT_MOUSE_MOTION:
        if (ev->device == 0) {
            in->mouse_x = ev->u.motion.x;
            in->mouse_y = ev->u.motion.y;
        }
        break;
    case TEMPO_INPUT_PAD_BUTTON:
        if (ev->u.pad_button.button < 32) {
            pad_state *s = get_pstate(in, ev->device);
            uint32_t bit = 1u << ev->u.pad_button.button;
            if (s != NULL)
                s->buttons = ev->u.pad_button.down ? s->buttons | bit : s->buttons & ~bit;
        }
        break;
    case TEMPO_INPUT_PAD_AXIS:
        if (ev->u.pad_axis.axis < SDL_CONTROLLER_AXIS_MAX) {
            pad_state *s = get_pstate(in, ev->device);
            if (s != NULL)
                s->axes[ev->u.pad_axis.axis] = ev->u.pad_axis.value;
        }
        break;
    case TEMPO_INPUT_DEVICE_REMOVED:
        if (ev->device_kind == TEMPO_INPUT_PAD) {
            pad_state *s = find_pstate(in, ev->device);
            if (s != NULL)
                *s = in->pstate[--in->npstate];
        }
        break;
    default:
        break;
    }
}

bool tempo_input_key_down(const tempo_input *in, int32_t scancode)
{
    if (in == NULL || scancode <= 0 || scancode >= SDL_NUM_SCANCODES)
        return false;
    return (in->keys[scancode >> 3] >> (scancode & 7)) & 1u;
}

bool tempo_input_mouse_down(const tempo_input *in, uint8_t button)
{
    if (in == NULL || button < 1 || button > MOUSE_BUTTONS)
        return false;
    return (in->mouse_buttons >> (button - 1)) & 1u;
}

void tempo_input_mouse_position(const tempo_input *in, int32_t *x, int32_t *y)
{
    if (x != NULL)
        *x = in != NULL ? in->mouse_x : 0;
    if (y != NULL)
        *y = in != NULL ? in->mouse_y : 0;
}

bool tempo_input_pad_down(const tempo_input *in, uint32_t pad, uint8_t button)
{
    if (in == NULL || button >= 32)
        return false;
    for (uint32_t i = 0; i < in->npstate; i++)
        if ((pad == TEMPO_INPUT_ANY_PAD || in->pstate[i].id == pad) &&
            ((in->pstate[i].buttons >> button) & 1u))
            return true;
    return false;
}

int16_t tempo_input_pad_axis_value(const tempo_input *in, uint32_t pad, uint8_t axis)
{
    if (in == NULL || axis >= SDL_CONTROLLER_AXIS_MAX)
        return 0;
    int16_t best = 0;
    for (uint32_t i = 0; i < in->npstate; i++) {
        if (pad != TEMPO_INPUT_ANY_PAD && in->pstate[i].id != pad)
            continue;
        int16_t v = in->pstate[i].axes[axis];
        if ((v < 0 ? -(int32_t)v : v) > (best < 0 ? -(int32_t)best : best))
            best = v;
    }
    return best;
}

int tempo_input_clear_key(tempo_input *in, int32_t scancode)
{
    if (in == NULL || scancode <= 0 || scancode >= SDL_NUM_SCANCODES)
        return in == NULL ? tempo__set_error(TEMPO_EINVAL, "tempo_input_clear_key: input is NULL")
                          : tempo__set_error(TEMPO_EINVAL, "tempo_input_clear_key: scancode %d outside 1..%d",
                                             (int)scancode, SDL_NUM_SCANCODES - 1);
    in->keys[scancode >> 3] &= (uint8_t) ~(1u << (scancode & 7));
    return 0;
}

void tempo_input_clear_state(tempo_input *in)
{
    if (in == NULL)
        return;
    memset(in->keys, 0, sizeof in->keys);
    in->mouse_buttons = 0;
    for (uint32_t i = 0; i < in->npstate; i++) {
        in->pstate[i].buttons = 0;
        memset(in->pstate[i].axes, 0, sizeof in->pstate[i].axes);
    }
}

int tempo_input_set_listener(tempo_input *in, tempo_input_listener_fn fn, void *user)
{
    if (in == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_set_listener: input is NULL");
    in->listener = fn;
    in->listener_user = fn != NULL ? user : NULL;
    return 0;
}

int tempo_input_suspend_polling(tempo_input *in, bool suspend)
{
    if (in == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_suspend_polling: input is NULL");
    if (suspend == g_polling_suspended)
        return 0;
    g_polling_suspended = suspend;
    /* Where the wait hands joystick waits to SDL (other video drivers),
     * SDL polls every millisecond while joysticks are updated
     * automatically: switch that off too while suspended. */
    if (suspend) {
        const char *h = SDL_GetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS);
        g_had_hint = h != NULL;
        if (h != NULL)
            SDL_strlcpy(g_auto_update_hint, h, sizeof g_auto_update_hint);
        SDL_SetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS, "0");
    } else {
        SDL_SetHint(SDL_HINT_AUTO_UPDATE_JOYSTICKS, g_had_hint ? g_auto_update_hint : "1");
    }
    apply_poll_rate(in);
    return 0;
}

/* ---- The ring (continued) ------------------------------------------------------ */

int tempo_input_push(tempo_input *in, const tempo_input_event *ev)
{
    if (in == NULL || ev == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_push: %s is NULL", in == NULL ? "input" : "event");
    if (in->hold)
        return 0; /* live input during a replay: the recorded input stands in for it */
    track_state(in, ev);
    if (in->listener != NULL && in->listener(ev, in->listener_user)) {
        if (in->tap != NULL)
            in->tap(in->tap_user, ev); /* consumed on arrival, but it reached the game */
        return 0;
    }
    if (in->count == in->cap) {
        in->dropped++;
        /* A full queue is an expected outcome the caller sees: DEBUG. */
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EFULL, "tempo_input_push: the queue holds %d events", in->cap);
    }
    tempo_input_event *slot = &in->ring[(in->head + in->count) % in->cap];
    *slot = *ev;
    /* Sources stamp at different moments (a DirectInput buffer read after
     * the SDL pump); keep the ring ordered in time for the game. */
    if (slot->time_ns < in->last_time_ns)
        slot->time_ns = in->last_time_ns;
    in->last_time_ns = slot->time_ns;
    in->count++;
    in->pushed++;
    if (in->count > in->max_queued)
        in->max_queued = in->count;
    if (in->tap != NULL)
        in->tap(in->tap_user, slot);
    return 0;
}

int tempo_input_poll(tempo_input *in, tempo_input_event *out)
{
    if (in == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_poll: %s is NULL", in == NULL ? "input" : "out");
    if (in->count == 0)
        return 0;
    *out = in->ring[in->head];
    in->head = (in->head + 1) % in->cap;
    in->count--;
    in->delivered++;
    return 1;
}

void tempo__input_set_tap(tempo_input *in, tempo__input_tap_fn tap, void *user)
{
    in->tap = tap;
    in->tap_user = user;
}

void tempo__input_set_hold(tempo_input *in, bool hold)
{
    in->hold = hold;
}

void tempo__input_each(const tempo_input *in, tempo__input_tap_fn fn, void *user)
{
    for (uint32_t i = 0; i < in->count; i++)
        fn(user, &in->ring[(in->head + i) % in->cap]);
}

void tempo__input_clear(tempo_input *in)
{
    in->head = 0;
    in->count = 0;
    in->last_time_ns = 0;
    /* The state queries answer from the replayed events alone. */
    memset(in->keys, 0, sizeof in->keys);
    in->mouse_buttons = 0;
    in->mouse_x = in->mouse_y = 0;
    in->npstate = 0;
}

int tempo_input_dispatch(tempo_input *in, tempo_input_fn fn, void *user)
{
    if (in == NULL || fn == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_dispatch: %s is NULL", in == NULL ? "input" : "fn");
    int n = 0;
    tempo_input_event ev;
    while (tempo_input_poll(in, &ev) > 0) {
        fn(&ev, user);
        n++;
    }
    return n;
}

/* ---- Controllers --------------------------------------------------------- */

static pad *find_pad(tempo_input *in, SDL_JoystickID id)
{
    for (uint32_t i = 0; i < in->npads; i++)
        if (in->pads[i].id == id)
            return &in->pads[i];
    return NULL;
}

/* Opens the controller at device index `index` unless we already have it. */
static void open_pad(tempo_input *in, int index)
{
    SDL_JoystickID id = SDL_JoystickGetDeviceInstanceID(index);
    if (id < 0 || find_pad(in, id) != NULL)
        return;
    if (in->npads == in->pads_cap) {
        uint32_t cap = in->pads_cap ? in->pads_cap * 2 : 4;
        pad *p = realloc(in->pads, cap * sizeof *p);
        if (p == NULL) {
            tempo__set_error(TEMPO_ENOMEM, "input: out of memory opening a controller");
            return;
        }
        in->pads = p;
        in->pads_cap = cap;
    }
    SDL_GameController *gc = SDL_GameControllerOpen(index);
    if (gc == NULL) {
        /* Still reported as ADDED; it just produces no input. */
        tempo__set_error(TEMPO_EPLATFORM, "SDL_GameControllerOpen(%d): %s", index, SDL_GetError());
        return;
    }
    pad *p = &in->pads[in->npads++];
    p->id = id;
    p->gc = gc;
    copy_name(p->name, sizeof p->name, SDL_GameControllerName(gc));
}

static void close_pad(tempo_input *in, SDL_JoystickID id, char *name, size_t name_size)
{
    pad *p = find_pad(in, id);
    if (p == NULL)
        return;
    copy_name(name, name_size, p->name);
    SDL_GameControllerClose(p->gc);
    *p = in->pads[--in->npads];
}

/* True if `e` is input from a device the native path reads. */
static bool native_covers(const tempo_input *in, const SDL_Event *e)
{
    if (in->native == NULL)
        return false;
    switch (e->type) {
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        return (in->native_devs & TEMPO_INPUT_NATIVE_KEYBOARD) != 0;
    case SDL_MOUSEMOTION:
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
    case SDL_MOUSEWHEEL:
        /* SDL's touch-synthesised mouse is not the system mouse DirectInput reads. */
        return (in->native_devs & TEMPO_INPUT_NATIVE_MOUSE) != 0 &&
               e->button.which != SDL_TOUCH_MOUSEID; /* `which` is at the same offset in all four */
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP:
    case SDL_CONTROLLERAXISMOTION:
    case SDL_CONTROLLERDEVICEADDED:
    case SDL_CONTROLLERDEVICEREMOVED:
    case SDL_CONTROLLERDEVICEREMAPPED:
        return (in->native_devs & TEMPO_INPUT_NATIVE_PADS) != 0;
    default:
        return false;
    }
}

int tempo_input_handle_sdl(tempo_input *in, const SDL_Event *e, uint64_t now_ns)
{
    if (in == NULL || e == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_handle_sdl: %s is NULL", in == NULL ? "input" : "event");
    if (native_covers(in, e))
        return 1; /* input, but the native path delivers it */
    if (in->controllers && e->type == SDL_CONTROLLERDEVICEADDED)
        open_pad(in, e->cdevice.which);
    tempo_input_event ev;
    int r = tempo_input_from_sdl(e, now_ns, &ev);
    if (r <= 0)
        return r;
    if (in->controllers && e->type == SDL_CONTROLLERDEVICEREMOVED)
        close_pad(in, e->cdevice.which, ev.u.dev.name, sizeof ev.u.dev.name);
    tempo_input_push(in, &ev); /* a full ring is counted in stats.dropped */
    return 1;
}

/* ---- Native input ---------------------------------------------------------- */

int tempo_input_attach_window(tempo_input *in, SDL_Window *window, unsigned devices)
{
    if (in == NULL || window == NULL || (devices & ~NATIVE_ALL) != 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_attach_window: bad arguments");
    tempo_input_detach_window(in);
    if (devices == 0)
        devices = TEMPO_INPUT_NATIVE_KEYBOARD | TEMPO_INPUT_NATIVE_MOUSE;
    unsigned plat = 0;
    if (devices & TEMPO_INPUT_NATIVE_KEYBOARD)
        plat |= PLAT_INPUT_KEYBOARD;
    if (devices & TEMPO_INPUT_NATIVE_MOUSE)
        plat |= PLAT_INPUT_MOUSE;
    if (devices & TEMPO_INPUT_NATIVE_PADS)
        plat |= PLAT_INPUT_PADS;
    tempo__clear_error(); /* so the code read below is plat_input_open's */
    plat_input *p = plat_input_open(window, plat);
    if (p == NULL) {
        int code = tempo__error_code();
        return code < 0 ? code : TEMPO_EPLATFORM;
    }
    /* The backend's event stays the backend's: the game and the loop get a
     * public id lent to it, taken back before the backend destroys it. */
    tempo_handle *id = tempo__handle_lend(plat_input_handle(p), PLAT_HANDLE_EVENT);
    if (id == NULL) {
        int code = tempo__error_code();
        plat_input_close(p);
        return code < 0 ? code : TEMPO_EPLATFORM;
    }
    in->native = p;
    in->native_id = id;
    in->native_devs = devices;
    if (devices & TEMPO_INPUT_NATIVE_PADS) {
        /* The native side opens (and reports) every controller itself:
         * close SDL's handles so SDL stops polling them. */
        for (uint32_t i = 0; i < in->npads; i++)
            SDL_GameControllerClose(in->pads[i].gc);
        in->npads = 0;
        apply_poll_rate(in);
    }
    return 0;
}

void tempo_input_detach_window(tempo_input *in)
{
    if (in == NULL || in->native == NULL)
        return;
    bool pads = (in->native_devs & TEMPO_INPUT_NATIVE_PADS) != 0;
    tempo__handle_unlend(in->native_id);
    in->native_id = NULL;
    plat_input_close(in->native);
    in->native = NULL;
    in->native_devs = 0;
    if (pads && in->controllers) {
        /* SDL announced the attached controllers long ago: open them again
         * without new DEVICE_ADDED events. */
        for (int i = 0; i < SDL_NumJoysticks(); i++)
            if (SDL_IsGameController(i))
                open_pad(in, i);
        apply_poll_rate(in);
    }
}

tempo_handle *tempo_input_native_handle(const tempo_input *in)
{
    return in != NULL ? in->native_id : NULL;
}

static void push_native(const tempo_input_event *ev, void *user)
{
    tempo_input_push(user, ev); /* a full ring is counted in stats.dropped */
}

int tempo_input_read_native(tempo_input *in, uint64_t now_ns)
{
    if (in == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_read_native: input is NULL");
    if (in->native == NULL)
        return 0;
    return plat_input_read(in->native, now_ns, push_native, in);
}

int tempo_input_set_poll_hz(tempo_input *in, uint32_t hz)
{
    if (in == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_set_poll_hz: input is NULL");
    in->poll_hz = hz == 0 ? DEFAULT_POLL_HZ : hz > MAX_POLL_HZ ? MAX_POLL_HZ : hz;
    apply_poll_rate(in);
    return 0;
}

int tempo_input_get_stats(const tempo_input *in, tempo_input_stats *out)
{
    if (in == NULL || out == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_input_get_stats: %s is NULL", in == NULL ? "input" : "out");
    memset(out, 0, sizeof *out);
    out->pushed = in->pushed;
    out->dropped = in->dropped;
    out->delivered = in->delivered;
    out->queued = in->count;
    out->max_queued = in->max_queued;
    out->pads_open = in->npads;
    out->poll_hz = in->poll_hz;
    out->polling = in->controllers && in->npads > 0;
    out->native = in->native != NULL ? in->native_devs : 0;
    return 0;
}
