/* Native input of the win32 backend: DirectInput8 keyboard, mouse and game
 * controllers, translated to tempo_input_event (tempo/input.h).
 *
 * Every device buffers its data (DIPROP_BUFFERSIZE) and signals one shared
 * auto-reset event (SetEventNotification) when it has some, so input is a
 * handle in the loop's wait set: no polling, and each report carries
 * DirectInput's own timestamp and sequence. Devices use the SDL window's
 * HWND with DISCL_FOREGROUND | DISCL_NONEXCLUSIVE: the game gets input while
 * it has the focus and the rest of the desktop keeps working.
 *
 * Acquisition: losing the focus unacquires the devices (keys and buttons we
 * reported down are released then). They are acquired again by the next
 * read while the window is in front; reads are triggered by the window's
 * focus/show/restore/enter events, by a key or click SDL sees while
 * DirectInput says the device is lost (a secure desktop takes the input
 * without a focus change), and, while an acquire keeps failing in front, by
 * a 250 ms tick. Every acquire and every buffer overflow ends with the
 * device's state (GetDeviceState), reported as changes (sync_device).
 *
 * Controllers come and go: a message-only window registered for HID
 * interface notifications (WM_DEVICECHANGE) asks the enumeration thread for
 * a pass (EnumDevices can take seconds, so it never runs on the loop
 * thread); the thread signals the event and the next read opens what
 * appeared. A controller that fails with DIERR_UNPLUGGED is closed.
 * Controllers that must be polled (DIDC_POLLEDDEVICE) are, on an 8 ms tick.
 *
 * Controller mapping: DirectInput has no notion of a "game controller", only
 * axes, buttons and hats. The default here is the layout XInput pads report
 * through DirectInput (and most PC pads copy): X/Y left stick, Rx/Ry right
 * stick, Z the two triggers on one axis (left positive), buttons 0-9 =
 * A B X Y LB RB Back Start LS RS, hat 0 = D-pad. Pads that differ get
 * different numbering; SDL's GameController database is the fix for those
 * (use the sdl input path). Mouse positions are read with GetCursorPos when
 * the buffer is drained, not when the report happened.
 *
 * Thread: everything runs on the loop thread, except the enumeration thread
 * (win32__dinput_enum_main, its own IDirectInput8, results under enum_lock)
 * and the timer-queue tick; DirectInput, the tick and the enumeration thread
 * set the event from their threads.
 *
 * This file is the object, its signals, the read and the keyboard and
 * mouse; the controllers are win32_dinput_pads.c's, and one device's open
 * and close win32_dinput_device.c's (win32_dinput_internal.h).
 */
#define DIRECTINPUT_VERSION 0x0800
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_syswm.h>

#include "win32_dinput_internal.h"

#include "plat_input.h"
#include "plat_wait.h"
#include "tempo/input.h"
#include "tempo_internal.h"

/* ---- DIK_* (PC set-1 scancodes, 0x80 = E0 prefix) to SDL scancodes ----- */

static const uint16_t DIK_TO_SDL[256] = {
    [DIK_ESCAPE] = SDL_SCANCODE_ESCAPE, [DIK_1] = SDL_SCANCODE_1, [DIK_2] = SDL_SCANCODE_2,
    [DIK_3] = SDL_SCANCODE_3, [DIK_4] = SDL_SCANCODE_4, [DIK_5] = SDL_SCANCODE_5,
    [DIK_6] = SDL_SCANCODE_6, [DIK_7] = SDL_SCANCODE_7, [DIK_8] = SDL_SCANCODE_8,
    [DIK_9] = SDL_SCANCODE_9, [DIK_0] = SDL_SCANCODE_0, [DIK_MINUS] = SDL_SCANCODE_MINUS,
    [DIK_EQUALS] = SDL_SCANCODE_EQUALS, [DIK_BACK] = SDL_SCANCODE_BACKSPACE,
    [DIK_TAB] = SDL_SCANCODE_TAB, [DIK_Q] = SDL_SCANCODE_Q, [DIK_W] = SDL_SCANCODE_W,
    [DIK_E] = SDL_SCANCODE_E, [DIK_R] = SDL_SCANCODE_R, [DIK_T] = SDL_SCANCODE_T,
    [DIK_Y] = SDL_SCANCODE_Y, [DIK_U] = SDL_SCANCODE_U, [DIK_I] = SDL_SCANCODE_I,
    [DIK_O] = SDL_SCANCODE_O, [DIK_P] = SDL_SCANCODE_P, [DIK_LBRACKET] = SDL_SCANCODE_LEFTBRACKET,
    [DIK_RBRACKET] = SDL_SCANCODE_RIGHTBRACKET, [DIK_RETURN] = SDL_SCANCODE_RETURN,
    [DIK_LCONTROL] = SDL_SCANCODE_LCTRL, [DIK_A] = SDL_SCANCODE_A, [DIK_S] = SDL_SCANCODE_S,
    [DIK_D] = SDL_SCANCODE_D, [DIK_F] = SDL_SCANCODE_F, [DIK_G] = SDL_SCANCODE_G,
    [DIK_H] = SDL_SCANCODE_H, [DIK_J] = SDL_SCANCODE_J, [DIK_K] = SDL_SCANCODE_K,
    [DIK_L] = SDL_SCANCODE_L, [DIK_SEMICOLON] = SDL_SCANCODE_SEMICOLON,
    [DIK_APOSTROPHE] = SDL_SCANCODE_APOSTROPHE, [DIK_GRAVE] = SDL_SCANCODE_GRAVE,
    [DIK_LSHIFT] = SDL_SCANCODE_LSHIFT, [DIK_BACKSLASH] = SDL_SCANCODE_BACKSLASH,
    [DIK_Z] = SDL_SCANCODE_Z, [DIK_X] = SDL_SCANCODE_X, [DIK_C] = SDL_SCANCODE_C,
    [DIK_V] = SDL_SCANCODE_V, [DIK_B] = SDL_SCANCODE_B, [DIK_N] = SDL_SCANCODE_N,
    [DIK_M] = SDL_SCANCODE_M, [DIK_COMMA] = SDL_SCANCODE_COMMA, [DIK_PERIOD] = SDL_SCANCODE_PERIOD,
    [DIK_SLASH] = SDL_SCANCODE_SLASH, [DIK_RSHIFT] = SDL_SCANCODE_RSHIFT,
    [DIK_MULTIPLY] = SDL_SCANCODE_KP_MULTIPLY, [DIK_LMENU] = SDL_SCANCODE_LALT,
    [DIK_SPACE] = SDL_SCANCODE_SPACE, [DIK_CAPITAL] = SDL_SCANCODE_CAPSLOCK,
    [DIK_F1] = SDL_SCANCODE_F1, [DIK_F2] = SDL_SCANCODE_F2, [DIK_F3] = SDL_SCANCODE_F3,
    [DIK_F4] = SDL_SCANCODE_F4, [DIK_F5] = SDL_SCANCODE_F5, [DIK_F6] = SDL_SCANCODE_F6,
    [DIK_F7] = SDL_SCANCODE_F7, [DIK_F8] = SDL_SCANCODE_F8, [DIK_F9] = SDL_SCANCODE_F9,
    [DIK_F10] = SDL_SCANCODE_F10, [DIK_NUMLOCK] = SDL_SCANCODE_NUMLOCKCLEAR,
    [DIK_SCROLL] = SDL_SCANCODE_SCROLLLOCK, [DIK_NUMPAD7] = SDL_SCANCODE_KP_7,
    [DIK_NUMPAD8] = SDL_SCANCODE_KP_8, [DIK_NUMPAD9] = SDL_SCANCODE_KP_9,
    [DIK_SUBTRACT] = SDL_SCANCODE_KP_MINUS, [DIK_NUMPAD4] = SDL_SCANCODE_KP_4,
    [DIK_NUMPAD5] = SDL_SCANCODE_KP_5, [DIK_NUMPAD6] = SDL_SCANCODE_KP_6,
    [DIK_ADD] = SDL_SCANCODE_KP_PLUS, [DIK_NUMPAD1] = SDL_SCANCODE_KP_1,
    [DIK_NUMPAD2] = SDL_SCANCODE_KP_2, [DIK_NUMPAD3] = SDL_SCANCODE_KP_3,
    [DIK_NUMPAD0] = SDL_SCANCODE_KP_0, [DIK_DECIMAL] = SDL_SCANCODE_KP_PERIOD,
    [DIK_OEM_102] = SDL_SCANCODE_NONUSBACKSLASH, [DIK_F11] = SDL_SCANCODE_F11,
    [DIK_F12] = SDL_SCANCODE_F12, [DIK_F13] = SDL_SCANCODE_F13, [DIK_F14] = SDL_SCANCODE_F14,
    [DIK_F15] = SDL_SCANCODE_F15, [DIK_KANA] = SDL_SCANCODE_INTERNATIONAL2,
    [DIK_ABNT_C1] = SDL_SCANCODE_INTERNATIONAL1, [DIK_CONVERT] = SDL_SCANCODE_INTERNATIONAL4,
    [DIK_NOCONVERT] = SDL_SCANCODE_INTERNATIONAL5, [DIK_YEN] = SDL_SCANCODE_INTERNATIONAL3,
    [DIK_ABNT_C2] = SDL_SCANCODE_KP_COMMA, [DIK_NUMPADEQUALS] = SDL_SCANCODE_KP_EQUALS,
    [0x90 /* DIK_PREVTRACK */] = SDL_SCANCODE_AUDIOPREV, [DIK_NEXTTRACK] = SDL_SCANCODE_AUDIONEXT,
    [DIK_NUMPADENTER] = SDL_SCANCODE_KP_ENTER, [DIK_RCONTROL] = SDL_SCANCODE_RCTRL,
    [DIK_MUTE] = SDL_SCANCODE_MUTE, [DIK_CALCULATOR] = SDL_SCANCODE_CALCULATOR,
    [DIK_PLAYPAUSE] = SDL_SCANCODE_AUDIOPLAY, [DIK_MEDIASTOP] = SDL_SCANCODE_AUDIOSTOP,
    [DIK_VOLUMEDOWN] = SDL_SCANCODE_VOLUMEDOWN, [DIK_VOLUMEUP] = SDL_SCANCODE_VOLUMEUP,
    [DIK_WEBHOME] = SDL_SCANCODE_AC_HOME, [DIK_NUMPADCOMMA] = SDL_SCANCODE_KP_COMMA,
    [DIK_DIVIDE] = SDL_SCANCODE_KP_DIVIDE, [DIK_SYSRQ] = SDL_SCANCODE_PRINTSCREEN,
    [DIK_RMENU] = SDL_SCANCODE_RALT, [DIK_PAUSE] = SDL_SCANCODE_PAUSE,
    [DIK_HOME] = SDL_SCANCODE_HOME, [DIK_UP] = SDL_SCANCODE_UP, [DIK_PRIOR] = SDL_SCANCODE_PAGEUP,
    [DIK_LEFT] = SDL_SCANCODE_LEFT, [DIK_RIGHT] = SDL_SCANCODE_RIGHT, [DIK_END] = SDL_SCANCODE_END,
    [DIK_DOWN] = SDL_SCANCODE_DOWN, [DIK_NEXT] = SDL_SCANCODE_PAGEDOWN,
    [DIK_INSERT] = SDL_SCANCODE_INSERT, [DIK_DELETE] = SDL_SCANCODE_DELETE,
    [DIK_LWIN] = SDL_SCANCODE_LGUI, [DIK_RWIN] = SDL_SCANCODE_RGUI,
    [DIK_APPS] = SDL_SCANCODE_APPLICATION, [DIK_POWER] = SDL_SCANCODE_POWER,
    [DIK_SLEEP] = SDL_SCANCODE_SLEEP, [DIK_WEBSEARCH] = SDL_SCANCODE_AC_SEARCH,
    [DIK_WEBFAVORITES] = SDL_SCANCODE_AC_BOOKMARKS, [DIK_WEBREFRESH] = SDL_SCANCODE_AC_REFRESH,
    [DIK_WEBSTOP] = SDL_SCANCODE_AC_STOP, [DIK_WEBFORWARD] = SDL_SCANCODE_AC_FORWARD,
    [DIK_WEBBACK] = SDL_SCANCODE_AC_BACK, [DIK_MYCOMPUTER] = SDL_SCANCODE_COMPUTER,
    [DIK_MAIL] = SDL_SCANCODE_MAIL, [DIK_MEDIASELECT] = SDL_SCANCODE_MEDIASELECT,
};

/* The modifier a scancode holds, or 0. */
static uint16_t modifier_of(int scancode)
{
    switch (scancode) {
    case SDL_SCANCODE_LSHIFT: return KMOD_LSHIFT;
    case SDL_SCANCODE_RSHIFT: return KMOD_RSHIFT;
    case SDL_SCANCODE_LCTRL: return KMOD_LCTRL;
    case SDL_SCANCODE_RCTRL: return KMOD_RCTRL;
    case SDL_SCANCODE_LALT: return KMOD_LALT;
    case SDL_SCANCODE_RALT: return KMOD_RALT;
    case SDL_SCANCODE_LGUI: return KMOD_LGUI;
    case SDL_SCANCODE_RGUI: return KMOD_RGUI;
    default: return 0;
    }
}

/* ---- Signals: device changes and focus ---------------------------------- */

/* {4D1E55B2-F16F-11CF-88CB-001111000030}, from hidclass.h */
static const GUID HID_INTERFACE = {0x4d1e55b2, 0xf16f, 0x11cf, {0x88, 0xcb, 0x00, 0x11, 0x11, 0x00, 0x00, 0x30}};
static const WCHAR NOTIFY_CLASS[] = L"tempo-dinput-notify";

/* [loop thread, from SDL_PumpEvents' DispatchMessage] */
static LRESULT CALLBACK notify_proc(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    if (msg == WM_DEVICECHANGE && (wp == DBT_DEVICEARRIVAL || wp == DBT_DEVICEREMOVECOMPLETE)) {
        plat_input *in = (plat_input *)GetWindowLongPtrW(hwnd, GWLP_USERDATA);
        if (in != NULL && in->enum_request != NULL)
            SetEvent(in->enum_request); /* the enumeration thread signals when done */
        return TRUE;
    }
    return DefWindowProcW(hwnd, msg, wp, lp);
}

static void notify_open(plat_input *in)
{
    WNDCLASSEXW wc = {.cbSize = sizeof wc, .lpfnWndProc = notify_proc,
                      .hInstance = win32__module(), .lpszClassName = NOTIFY_CLASS};
    RegisterClassExW(&wc); /* fails harmlessly when already registered */
    in->notify_window = CreateWindowExW(0, NOTIFY_CLASS, L"", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL,
                                        wc.hInstance, NULL);
    if (in->notify_window == NULL) {
        win32__error(TEMPO_EPLATFORM, "CreateWindowExW(HWND_MESSAGE): controller hot-plug is off");
        return;
    }
    SetWindowLongPtrW(in->notify_window, GWLP_USERDATA, (LONG_PTR)in);
    DEV_BROADCAST_DEVICEINTERFACE_W filter = {
        .dbcc_size = sizeof filter,
        .dbcc_devicetype = DBT_DEVTYP_DEVICEINTERFACE,
        .dbcc_classguid = HID_INTERFACE,
    };
    in->notify = RegisterDeviceNotificationW(in->notify_window, &filter, DEVICE_NOTIFY_WINDOW_HANDLE);
    if (in->notify == NULL)
        win32__error(TEMPO_EPLATFORM, "RegisterDeviceNotificationW: controller hot-plug is off");
}

/* [loop thread, inside SDL_PumpEvents] Our window's events: the focus coming
 * back (or the window being shown or restored) is when lost devices can be
 * acquired again, which only a read does. */
static int SDLCALL on_sdl_event(void *user, SDL_Event *e)
{
    plat_input *in = user;
    if (e->type == SDL_WINDOWEVENT && e->window.windowID == SDL_GetWindowID(in->window) &&
        (e->window.event == SDL_WINDOWEVENT_FOCUS_GAINED || e->window.event == SDL_WINDOWEVENT_SHOWN ||
         e->window.event == SDL_WINDOWEVENT_RESTORED || e->window.event == SDL_WINDOWEVENT_ENTER))
        SetEvent(in->signal_os);
    /* Windows still sends us keys and clicks that DirectInput no longer
     * reports: it lost the device without a focus change (a secure desktop:
     * Ctrl+Alt+Del, UAC, Win+L). A peek says so without consuming anything;
     * the read it triggers acquires again and reports what is held. */
    di_device *d = NULL;
    if (GetCurrentThreadId() != in->loop_thread)
        return 0; /* an event pushed by another thread: DirectInput is the loop thread's */
    if (e->type == SDL_KEYDOWN || e->type == SDL_KEYUP)
        d = in->keyboard;
    else if (e->type == SDL_MOUSEBUTTONDOWN || e->type == SDL_MOUSEBUTTONUP || e->type == SDL_MOUSEWHEEL)
        d = in->mouse;
    if (d != NULL && d->dev != NULL) {
        DWORD n = INFINITE;
        HRESULT hr = IDirectInputDevice8_GetDeviceData(d->dev, sizeof(DIDEVICEOBJECTDATA), NULL, &n,
                                                       DIGDD_PEEK);
        if (hr == DIERR_INPUTLOST || hr == DIERR_NOTACQUIRED)
            SetEvent(in->signal_os);
    }
    return 0;
}

/* Test seam (win32_internal.h): the devices lose their acquisition behind
 * our back, as a secure desktop makes them. [loop thread] */
void win32__dinput_lose(plat_input *in)
{
    if (in->keyboard != NULL && in->keyboard->dev != NULL)
        IDirectInputDevice8_Unacquire(in->keyboard->dev);
    if (in->mouse != NULL && in->mouse->dev != NULL)
        IDirectInputDevice8_Unacquire(in->mouse->dev);
}

/* [timer-queue thread] */
static VOID CALLBACK on_tick(PVOID arg, BOOLEAN fired)
{
    (void)fired;
    SetEvent(((plat_input *)arg)->signal_os);
}

/* [loop thread] Runs the tick every `ms` (0: stops it). */
static void set_tick(plat_input *in, DWORD ms)
{
    if (ms == in->tick_ms)
        return;
    if (in->tick != NULL) {
        DeleteTimerQueueTimer(NULL, in->tick, INVALID_HANDLE_VALUE); /* waits for a running callback */
        in->tick = NULL;
    }
    in->tick_ms = 0;
    if (ms != 0 && !CreateTimerQueueTimer(&in->tick, NULL, on_tick, in, ms, ms, WT_EXECUTEDEFAULT)) {
        win32__error(TEMPO_EPLATFORM, "CreateTimerQueueTimer: lost devices are re-acquired only on focus");
        in->tick = NULL;
        return;
    }
    in->tick_ms = ms;
}

/* ---- Open / close ------------------------------------------------------- */

plat_input *plat_input_open(SDL_Window *window, unsigned devices)
{
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (window == NULL || !SDL_GetWindowWMInfo(window, &info) || info.subsystem != SDL_SYSWM_WINDOWS) {
        tempo__set_error(TEMPO_EINVAL, "DirectInput needs an SDL window of the windows driver: %s",
                         window == NULL ? "no window" : SDL_GetError());
        return NULL;
    }
    plat_input *in = calloc(1, sizeof *in);
    if (in == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "input: out of memory");
        return NULL;
    }
    in->window = window;
    in->loop_thread = GetCurrentThreadId();
    in->hwnd = info.info.win.window;
    in->devices = devices;
    InitializeSRWLock(&in->enum_lock);
    in->signal = plat_event_create(false, false); /* plat_input_handle returns it */
    if (in->signal == NULL)
        goto fail;
    in->signal_os = win32__event_os(in->signal);
    HRESULT hr = DirectInput8Create(win32__module(), DIRECTINPUT_VERSION, &IID_IDirectInput8W,
                                    (void **)&in->di, NULL);
    if (FAILED(hr)) {
        win32__dinput_error("DirectInput8Create", hr);
        goto fail;
    }
    if (devices & PLAT_INPUT_KEYBOARD) {
        in->keyboard = calloc(1, sizeof *in->keyboard);
        if (in->keyboard == NULL ||
            (in->keyboard->dev = win32__dinput_device_open(in, &GUID_SysKeyboard, &c_dfDIKeyboard)) == NULL)
            goto fail;
        in->keyboard->kind = TEMPO_INPUT_KEYBOARD;
    }
    if (devices & PLAT_INPUT_MOUSE) {
        in->mouse = calloc(1, sizeof *in->mouse);
        if (in->mouse == NULL ||
            (in->mouse->dev = win32__dinput_device_open(in, &GUID_SysMouse, &c_dfDIMouse2)) == NULL)
            goto fail;
        in->mouse->kind = TEMPO_INPUT_MOUSE;
    }
    if (devices & PLAT_INPUT_PADS) {
        in->enum_request = CreateEventW(NULL, FALSE, TRUE, NULL); /* the first pass at once */
        in->enum_thread = in->enum_request == NULL ? NULL
                                                   : CreateThread(NULL, 0, win32__dinput_enum_main, in, 0, NULL);
        if (in->enum_thread == NULL) {
            win32__error(TEMPO_EPLATFORM, "CreateThread (controller enumeration)");
            goto fail;
        }
        notify_open(in);
    }
    /* SDL's own key and mouse events for these devices must not wake a
     * message wait: the device's notification does (win32_wait.c). */
    win32__quiet_sdl_input(in->keyboard != NULL, in->mouse != NULL, 1);
    in->quiet = true;
    SDL_AddEventWatch(on_sdl_event, in);
    /* Acquiring needs the focus; if we have it, the first read should come
     * now rather than with the first report. */
    SetEvent(in->signal_os);
    return in;
fail:
    plat_input_close(in);
    return NULL;
}

void plat_input_close(plat_input *in)
{
    if (in == NULL)
        return;
    if (in->quiet)
        win32__quiet_sdl_input(in->keyboard != NULL, in->mouse != NULL, -1);
    SDL_DelEventWatch(on_sdl_event, in);
    set_tick(in, 0);
    if (in->enum_thread != NULL) {
        /* Waits for an enumeration in progress (it cannot be interrupted). */
        atomic_store(&in->enum_stop, true);
        SetEvent(in->enum_request);
        WaitForSingleObject(in->enum_thread, INFINITE);
        CloseHandle(in->enum_thread);
    }
    if (in->enum_request != NULL)
        CloseHandle(in->enum_request);
    if (in->notify != NULL)
        UnregisterDeviceNotification(in->notify);
    if (in->notify_window != NULL)
        DestroyWindow(in->notify_window);
    for (int i = 0; i < in->npads; i++)
        win32__dinput_device_close(&in->pads[i]);
    if (in->keyboard != NULL)
        win32__dinput_device_close(in->keyboard);
    if (in->mouse != NULL)
        win32__dinput_device_close(in->mouse);
    free(in->keyboard);
    free(in->mouse);
    if (in->di != NULL)
        IDirectInput8_Release(in->di);
    if (in->signal != NULL)
        plat_handle_destroy(in->signal);
    free(in);
}

plat_handle *plat_input_handle(plat_input *in)
{
    return in->signal;
}

/* ---- Reading: the keyboard and the mouse ------------------------------- */

static void emit_key(di_reader *r, int dik, bool down, DWORD time_ms)
{
    plat_input *in = r->in;
    int sc = DIK_TO_SDL[dik & 0xff];
    if (sc == SDL_SCANCODE_UNKNOWN || (in->down[dik & 0xff] != 0) == down)
        return; /* unmapped, or no change (a release we already synthesised) */
    in->down[dik & 0xff] = down;
    uint16_t m = modifier_of(sc);
    if (down)
        in->mod |= m;
    else
        in->mod &= (uint16_t)~m;
    /* Lock keys: the system's toggle state, as SDL reports it. */
    uint16_t locks = (uint16_t)(((GetKeyState(VK_CAPITAL) & 1) ? KMOD_CAPS : 0) |
                                ((GetKeyState(VK_NUMLOCK) & 1) ? KMOD_NUM : 0));
    tempo_input_event ev = {
        .type = TEMPO_INPUT_KEY,
        .device_kind = TEMPO_INPUT_KEYBOARD,
        .os_time_ms = time_ms,
    };
    ev.u.key.scancode = sc;
    ev.u.key.keycode = SDL_GetKeyFromScancode((SDL_Scancode)sc);
    ev.u.key.mod = (uint16_t)(in->mod | locks);
    ev.u.key.down = down;
    ev.u.key.repeat = 0; /* DirectInput reports state changes only */
    win32__dinput_emit(r, &ev);
}

static void pointer_position(plat_input *in, int32_t *x, int32_t *y)
{
    POINT p = {0, 0};
    GetCursorPos(&p);
    ScreenToClient(in->hwnd, &p);
    *x = p.x;
    *y = p.y;
}

static void read_keyboard(di_reader *r, const DIDEVICEOBJECTDATA *rec, DWORD n)
{
    for (DWORD i = 0; i < n; i++)
        emit_key(r, (int)rec[i].dwOfs, (rec[i].dwData & 0x80) != 0, rec[i].dwTimeStamp);
}

/* A button change, as SDL numbers buttons. An up without a down we reported
 * is dropped: the down happened before we acquired the mouse (the click
 * that activated the window, as SDL drops it without
 * SDL_HINT_MOUSE_FOCUS_CLICKTHROUGH) or was released already by a sync. */
static void emit_mouse_button(di_reader *r, uint8_t b, bool down, DWORD time_ms)
{
    plat_input *in = r->in;
    if (((in->buttons & SDL_BUTTON(b)) != 0) == down)
        return;
    if (down)
        in->buttons |= SDL_BUTTON(b);
    else
        in->buttons &= ~(uint32_t)SDL_BUTTON(b);
    tempo_input_event ev = {.type = TEMPO_INPUT_MOUSE_BUTTON, .device_kind = TEMPO_INPUT_MOUSE,
                            .os_time_ms = time_ms};
    pointer_position(in, &ev.u.button.x, &ev.u.button.y);
    ev.u.button.button = b;
    ev.u.button.down = down;
    ev.u.button.clicks = 1;
    win32__dinput_emit(r, &ev);
}

/* DirectInput: left, right, middle, X1, X2; SDL: 1 left, 2 middle, 3 right, 4, 5 */
static const uint8_t SDL_BUTTON_OF[] = {SDL_BUTTON_LEFT, SDL_BUTTON_RIGHT, SDL_BUTTON_MIDDLE,
                                        SDL_BUTTON_X1, SDL_BUTTON_X2};

/* Whole notches of a wheel movement of `dz` (WHEEL_DELTA = 120 per notch):
 * high-resolution wheels and touchpads send a fraction of a notch at a
 * time, so the remainder carries over to the next movement in the same
 * direction (as Windows' own WM_MOUSEWHEEL users are told to do). */
int win32__wheel_notches(int32_t *rem, int32_t dz)
{
    if ((*rem > 0 && dz < 0) || (*rem < 0 && dz > 0))
        *rem = 0; /* the direction changed: the old remainder is void */
    *rem += dz;
    int notches = *rem / WHEEL_DELTA; /* toward zero */
    *rem -= notches * WHEEL_DELTA;
    return notches;
}

static void read_mouse(di_reader *r, const DIDEVICEOBJECTDATA *rec, DWORD n)
{
    plat_input *in = r->in;
    /* X and Y of one movement share a sequence number: join them. */
    int32_t dx = 0, dy = 0;
    DWORD seq = 0, t = 0;
    bool moving = false;
    for (DWORD i = 0; i <= n; i++) {
        bool axis = i < n && (rec[i].dwOfs == DIMOFS_X || rec[i].dwOfs == DIMOFS_Y);
        if (moving && (i == n || !axis || rec[i].dwSequence != seq)) {
            tempo_input_event ev = {.type = TEMPO_INPUT_MOUSE_MOTION,
                                    .device_kind = TEMPO_INPUT_MOUSE, .os_time_ms = t};
            pointer_position(in, &ev.u.motion.x, &ev.u.motion.y);
            ev.u.motion.dx = dx;
            ev.u.motion.dy = dy;
            ev.u.motion.buttons = in->buttons;
            win32__dinput_emit(r, &ev);
            dx = dy = 0;
            moving = false;
        }
        if (i == n)
            break;
        const DIDEVICEOBJECTDATA *d = &rec[i];
        if (axis) {
            if (d->dwOfs == DIMOFS_X)
                dx += (int32_t)d->dwData;
            else
                dy += (int32_t)d->dwData;
            seq = d->dwSequence;
            t = d->dwTimeStamp;
            moving = true;
        } else if (d->dwOfs == DIMOFS_Z) {
            int32_t dz = (int32_t)d->dwData; /* WHEEL_DELTA (120) per notch, + away from the user */
            tempo_input_event ev = {.type = TEMPO_INPUT_MOUSE_WHEEL,
                                    .device_kind = TEMPO_INPUT_MOUSE, .os_time_ms = d->dwTimeStamp};
            ev.u.wheel.y = win32__wheel_notches(&in->wheel_rem, dz);
            ev.u.wheel.precise_y = (float)dz / WHEEL_DELTA;
            win32__dinput_emit(r, &ev);
        } else if (d->dwOfs >= DIMOFS_BUTTON0 && d->dwOfs <= DIMOFS_BUTTON4) {
            emit_mouse_button(r, SDL_BUTTON_OF[d->dwOfs - DIMOFS_BUTTON0], (d->dwData & 0x80) != 0,
                              d->dwTimeStamp);
        }
    }
}

/* ---- Acquiring and state sync --------------------------------------------- */

/* While a device is unacquired DirectInput records nothing: keys released
 * then would stick, keys pressed then would never be down. So every acquire,
 * and every buffer overflow (reports were dropped), ends with the device's
 * current state, and the difference is reported as changes:
 *  - keyboard: both ways (a key held when the window gains the focus reads
 *    as down, with repeat 0);
 *  - mouse: releases only, plus presses after an overflow; a button held at
 *    acquire is the activating click, whose up is then dropped;
 *  - pads: buttons and the hat both ways, and every axis's value. */
static void sync_device(di_reader *r, di_device *d, bool overflow)
{
    plat_input *in = r->in;
    if (d == in->keyboard) {
        BYTE keys[256];
        if (FAILED(IDirectInputDevice8_GetDeviceState(d->dev, sizeof keys, keys)))
            return;
        for (int dik = 0; dik < 256; dik++)
            emit_key(r, dik, (keys[dik] & 0x80) != 0, 0); /* no change: nothing */
    } else if (d == in->mouse) {
        DIMOUSESTATE2 st;
        if (FAILED(IDirectInputDevice8_GetDeviceState(d->dev, sizeof st, &st)))
            return;
        for (int i = 0; i < (int)sizeof SDL_BUTTON_OF; i++) {
            bool down = (st.rgbButtons[i] & 0x80) != 0;
            if (!down || overflow)
                emit_mouse_button(r, SDL_BUTTON_OF[i], down, 0);
        }
    } else {
        win32__dinput_sync_pad(r, d);
    }
}

/* The keyboard or mouse was lost: release what we reported down, as SDL
 * does when a window loses the focus (a sync at the next acquire presses
 * what is still held). */
static void release_all(di_reader *r, di_device *d)
{
    plat_input *in = r->in;
    if (d == in->keyboard) {
        for (int dik = 0; dik < 256; dik++)
            if (in->down[dik])
                emit_key(r, dik, false, 0);
    } else if (d == in->mouse) {
        for (int i = 0; i < (int)sizeof SDL_BUTTON_OF; i++)
            emit_mouse_button(r, SDL_BUTTON_OF[i], false, 0);
        in->wheel_rem = 0;
    }
}

/* Foreground devices can only be acquired while our window is in front. */
static bool in_front(const plat_input *in)
{
    return GetForegroundWindow() == in->hwnd;
}

typedef enum { ACQ_OK, ACQ_LATER, ACQ_UNPLUGGED } acq_result;

/* Acquires `d` if it is not, then reports its state (see sync_device). */
static acq_result acquire(di_reader *r, di_device *d)
{
    if (d->acquired)
        return ACQ_OK;
    if (!in_front(r->in))
        return ACQ_LATER;
    HRESULT hr = IDirectInputDevice8_Acquire(d->dev);
    if (hr == (HRESULT)DIERR_UNPLUGGED)
        return ACQ_UNPLUGGED;
    if (FAILED(hr))
        return ACQ_LATER; /* e.g. a secure desktop still has the input: the tick retries */
    d->acquired = true;
    if (d->polled)
        IDirectInputDevice8_Poll(d->dev);
    sync_device(r, d, false);
    return ACQ_OK;
}

/* Drains one device, re-acquiring it when it was lost; false if it is
 * unplugged. */
static bool drain(di_reader *r, di_device *d)
{
    DIDEVICEOBJECTDATA rec[READ_CHUNK];
    for (int attempt = 0;; attempt++) {
        acq_result a = acquire(r, d);
        if (a != ACQ_OK)
            return a != ACQ_UNPLUGGED;
        if (d->polled)
            IDirectInputDevice8_Poll(d->dev); /* fills the buffer */
        HRESULT hr;
        bool overflow = false;
        for (;;) {
            DWORD n = READ_CHUNK;
            hr = IDirectInputDevice8_GetDeviceData(d->dev, sizeof rec[0], rec, &n, 0);
            if (FAILED(hr))
                break;
            overflow |= hr == DI_BUFFEROVERFLOW;
            if (d == r->in->keyboard)
                read_keyboard(r, rec, n);
            else if (d == r->in->mouse)
                read_mouse(r, rec, n);
            else
                win32__dinput_read_pad(r, d, rec, n);
            if (n < READ_CHUNK)
                break;
        }
        if (overflow)
            sync_device(r, d, true); /* the oldest reports were dropped */
        if (hr == (HRESULT)DIERR_UNPLUGGED)
            return false;
        if (hr != DIERR_INPUTLOST && hr != DIERR_NOTACQUIRED) {
            if (FAILED(hr))
                win32__dinput_error("GetDeviceData", hr);
            return true;
        }
        /* Lost without a focus change we saw (a secure desktop: Ctrl+Alt+Del,
         * UAC, Win+L; another program taking exclusive access): release what
         * is down, then acquire again at once if we are in front; if that
         * fails, the tick retries. */
        d->acquired = false;
        release_all(r, d);
        if (attempt > 0)
            return true;
    }
}

static void emit_pending(di_reader *r)
{
    for (int i = 0; i < r->in->npending; i++)
        win32__dinput_emit(r, &r->in->pending[i]);
    r->in->npending = 0;
}

/* Polled devices every 8 ms (125 Hz, a common pad report rate) while one is
 * acquired; lost devices every 250 ms while our window is in front (an
 * acquire that failed there, e.g. while a secure desktop still holds the
 * input, has nothing else to retry it); otherwise no tick: in the
 * background the focus coming back is the signal. */
#define POLL_TICK_MS 8
#define RETRY_TICK_MS 250

unsigned win32__input_tick_ms(bool polled_acquired, bool lost, bool in_front)
{
    if (polled_acquired)
        return POLL_TICK_MS;
    return lost && in_front ? RETRY_TICK_MS : 0;
}

int plat_input_read(plat_input *in, uint64_t now_ns, plat_input_fn fn, void *user)
{
    di_reader r = {in, now_ns, fn, user, 0};
    if (in->devices & PLAT_INPUT_PADS)
        win32__dinput_apply_enumeration(in);
    emit_pending(&r); /* a pad's ADDED before its first report */
    di_device *all[2 + MAX_PADS];
    int n = 0;
    if (in->keyboard != NULL)
        all[n++] = in->keyboard;
    if (in->mouse != NULL)
        all[n++] = in->mouse;
    for (int i = 0; i < in->npads; i++)
        all[n++] = &in->pads[i];
    bool polled = false, lost = false;
    for (int i = 0; i < n; i++) {
        if (!drain(&r, all[i]))
            all[i]->gone = true;
        polled |= all[i]->polled && all[i]->acquired;
        lost |= !all[i]->acquired && !all[i]->gone;
    }
    win32__dinput_drop_gone_pads(in);
    emit_pending(&r); /* REMOVED after the pad's last report */
    /* "In front" by SDL's account too: a secure desktop takes the input
     * without a focus change, so SDL still says we have it. */
    bool front = in_front(in) || (SDL_GetWindowFlags(in->window) & SDL_WINDOW_INPUT_FOCUS) != 0;
    set_tick(in, win32__input_tick_ms(polled, lost, front));
    return r.count;
}
