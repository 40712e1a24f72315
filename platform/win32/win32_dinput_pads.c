/* The controllers of the win32 backend's native input: found by the
 * enumeration thread, opened and dropped on the loop thread as they come
 * and go, and their reports translated to pad events (the XInput-through-
 * DirectInput layout: win32_dinput.c's opening comment). Called by
 * win32_dinput.c; calls only win32_dinput_device.c
 * (win32_dinput_internal.h).
 *
 * Thread: the loop thread, except win32__dinput_enum_main (the enumeration
 * thread: its own IDirectInput8, results under enum_lock). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DIRECTINPUT_VERSION 0x0800
#include "win32_dinput_internal.h"

#include "tempo_internal.h"

static void utf8_name(char *dst, size_t size, const WCHAR *src)
{
    if (WideCharToMultiByte(CP_UTF8, 0, src, -1, dst, (int)size, NULL, NULL) == 0) {
        /* Too long for the field: WideCharToMultiByte wrote nothing useful. */
        dst[0] = '\0';
        WCHAR cut[sizeof(((tempo_input_device *)0)->name) / 2];
        wcsncpy(cut, src, sizeof cut / sizeof cut[0] - 1);
        cut[sizeof cut / sizeof cut[0] - 1] = 0;
        WideCharToMultiByte(CP_UTF8, 0, cut, -1, dst, (int)size, NULL, NULL);
    }
    dst[size - 1] = '\0';
}

static void queue_device_event(plat_input *in, uint32_t type, const di_device *d)
{
    if (in->npending >= (int)(sizeof in->pending / sizeof in->pending[0]))
        return;
    tempo_input_event *ev = &in->pending[in->npending++];
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    ev->device_kind = d->kind;
    ev->device = d->id;
    memcpy(ev->u.dev.name, d->name, sizeof ev->u.dev.name);
}

/* Sets every axis to SDL's range, so values need no scaling. */
static BOOL CALLBACK set_axis_range(LPCDIDEVICEOBJECTINSTANCEW obj, LPVOID p)
{
    LPDIRECTINPUTDEVICE8W dev = p;
    DIPROPRANGE range = {
        .diph = {.dwSize = sizeof range, .dwHeaderSize = sizeof range.diph,
                 .dwObj = obj->dwType, .dwHow = DIPH_BYID},
        .lMin = -32768,
        .lMax = 32767,
    };
    IDirectInputDevice8_SetProperty(dev, DIPROP_RANGE, &range.diph);
    return DIENUM_CONTINUE;
}

static void set_axis_ranges(LPDIRECTINPUTDEVICE8W dev)
{
    IDirectInputDevice8_EnumObjects(dev, set_axis_range, dev, DIDFT_AXIS);
}

/* True for devices that must be polled (DIDC_POLLEDDEVICE): they report and
 * signal only after Poll(). */
static bool device_is_polled(LPDIRECTINPUTDEVICE8W dev)
{
    DIDEVCAPS caps = {.dwSize = sizeof caps};
    return SUCCEEDED(IDirectInputDevice8_GetCapabilities(dev, &caps)) &&
           (caps.dwFlags & DIDC_POLLEDDEVICE) != 0;
}

/* [enumeration thread] Collects attached controllers. */
typedef struct enum_ctx {
    di_found_pad found[MAX_PADS];
    int n;
} enum_ctx;

static BOOL CALLBACK on_pad(LPCDIDEVICEINSTANCEW inst, LPVOID p)
{
    enum_ctx *ctx = p;
    if (ctx->n >= MAX_PADS)
        return DIENUM_STOP;
    di_found_pad *f = &ctx->found[ctx->n++];
    f->instance = inst->guidInstance;
    wcsncpy(f->name, inst->tszProductName, MAX_PATH - 1);
    f->name[MAX_PATH - 1] = 0;
    return DIENUM_CONTINUE;
}

void (*win32__enum_hook)(void); /* test seam (win32_internal.h) */

/* [enumeration thread] EnumDevices walks every HID device and can take 100 ms
 * to seconds on real machines (wireless receivers, sleeping USB hubs): on the
 * loop thread that would be a frame that long at attach and at every
 * arrival. Requests that come while it runs coalesce into one more pass. */
DWORD WINAPI win32__dinput_enum_main(LPVOID arg)
{
    plat_input *in = arg;
    LPDIRECTINPUT8W di = NULL;
    HRESULT hr = DirectInput8Create(win32__module(), DIRECTINPUT_VERSION, &IID_IDirectInput8W,
                                    (void **)&di, NULL);
    if (FAILED(hr)) {
        win32__dinput_error("DirectInput8Create (enumeration thread): controller hot-plug is off", hr);
        return 1;
    }
    for (;;) {
        WaitForSingleObject(in->enum_request, INFINITE);
        if (atomic_load(&in->enum_stop))
            break;
        if (win32__enum_hook != NULL)
            win32__enum_hook();
        enum_ctx ctx = {.n = 0};
        hr = IDirectInput8_EnumDevices(di, DI8DEVCLASS_GAMECTRL, on_pad, &ctx, DIEDFL_ATTACHEDONLY);
        if (FAILED(hr)) {
            win32__dinput_error("EnumDevices", hr);
            continue;
        }
        AcquireSRWLockExclusive(&in->enum_lock);
        memcpy(in->enum_found, ctx.found, sizeof ctx.found[0] * (size_t)ctx.n);
        in->enum_nfound = ctx.n;
        in->enum_ready = true;
        ReleaseSRWLockExclusive(&in->enum_lock);
        SetEvent(in->signal_os);
    }
    IDirectInput8_Release(di);
    return 0;
}

/* [loop thread] Opens one controller the enumeration found. */
static void open_pad(plat_input *in, const di_found_pad *f)
{
    if (in->npads >= MAX_PADS)
        return;
    LPDIRECTINPUTDEVICE8W dev = win32__dinput_device_open(in, &f->instance, &c_dfDIJoystick2);
    if (dev == NULL)
        return; /* logged; the other pads still work */
    set_axis_ranges(dev);
    di_device *d = &in->pads[in->npads++];
    memset(d, 0, sizeof *d);
    d->dev = dev;
    d->kind = TEMPO_INPUT_PAD;
    d->id = in->next_pad_id++;
    d->instance = f->instance;
    d->polled = device_is_polled(dev);
    utf8_name(d->name, sizeof d->name, f->name);
    queue_device_event(in, TEMPO_INPUT_DEVICE_ADDED, d);
}

/* [loop thread] Applies the enumeration thread's latest list, if any:
 * opens controllers that appeared, marks the ones that went away. */
void win32__dinput_apply_enumeration(plat_input *in)
{
    static di_found_pad found[MAX_PADS];
    AcquireSRWLockExclusive(&in->enum_lock);
    bool ready = in->enum_ready;
    int n = in->enum_nfound;
    if (ready)
        memcpy(found, in->enum_found, sizeof found[0] * (size_t)n);
    in->enum_ready = false;
    ReleaseSRWLockExclusive(&in->enum_lock);
    if (!ready)
        return;
    bool seen[MAX_PADS] = {false};
    int before = in->npads;
    for (int k = 0; k < n; k++) {
        int i = 0;
        while (i < before && !IsEqualGUID(&in->pads[i].instance, &found[k].instance))
            i++;
        if (i < before)
            seen[i] = true;
        else
            open_pad(in, &found[k]);
    }
    for (int i = 0; i < before; i++)
        if (!seen[i])
            in->pads[i].gone = true;
}

/* Closes pads marked gone and compacts the array. */
void win32__dinput_drop_gone_pads(plat_input *in)
{
    int k = 0;
    for (int i = 0; i < in->npads; i++) {
        di_device *d = &in->pads[i];
        if (d->gone) {
            queue_device_event(in, TEMPO_INPUT_DEVICE_REMOVED, d);
            win32__dinput_device_close(d);
        } else {
            in->pads[k++] = *d;
        }
    }
    in->npads = k;
}

static void emit_pad_button(di_reader *r, const di_device *d, int button, bool down, DWORD t)
{
    tempo_input_event ev = {.type = TEMPO_INPUT_PAD_BUTTON, .device_kind = TEMPO_INPUT_PAD,
                            .device = d->id, .os_time_ms = t};
    ev.u.pad_button.button = (uint8_t)button;
    ev.u.pad_button.down = down;
    win32__dinput_emit(r, &ev);
}

static void emit_pad_axis(di_reader *r, const di_device *d, int axis, int32_t value, DWORD t)
{
    tempo_input_event ev = {.type = TEMPO_INPUT_PAD_AXIS, .device_kind = TEMPO_INPUT_PAD,
                            .device = d->id, .os_time_ms = t};
    ev.u.pad_axis.axis = (uint8_t)axis;
    ev.u.pad_axis.value = (int16_t)(value < -32768 ? -32768 : value > 32767 ? 32767 : value);
    win32__dinput_emit(r, &ev);
}

static const int8_t PAD_BUTTON_OF[] = {
        SDL_CONTROLLER_BUTTON_A, SDL_CONTROLLER_BUTTON_B, SDL_CONTROLLER_BUTTON_X,
        SDL_CONTROLLER_BUTTON_Y, SDL_CONTROLLER_BUTTON_LEFTSHOULDER,
        SDL_CONTROLLER_BUTTON_RIGHTSHOULDER, SDL_CONTROLLER_BUTTON_BACK,
        SDL_CONTROLLER_BUTTON_START, SDL_CONTROLLER_BUTTON_LEFTSTICK,
        SDL_CONTROLLER_BUTTON_RIGHTSTICK,
};
#define PAD_BUTTONS ((int)sizeof PAD_BUTTON_OF)

/* DirectInput button i; a change we already reported (or an up we never
 * reported the down of) is dropped. */
static void pad_button(di_reader *r, di_device *d, int i, bool down, DWORD t)
{
    if (((d->pad_buttons >> i) & 1u) == down)
        return;
    d->pad_buttons ^= 1u << i;
    emit_pad_button(r, d, PAD_BUTTON_OF[i], down, t);
}

/* A hat position (hundredths of a degree clockwise from up; 0xFFFF in the
 * low word when centred) as D-pad button changes. */
static void pad_hat(di_reader *r, di_device *d, DWORD pov, DWORD t)
{
    static const int8_t dpad_buttons[4] = {SDL_CONTROLLER_BUTTON_DPAD_UP, SDL_CONTROLLER_BUTTON_DPAD_DOWN,
                                           SDL_CONTROLLER_BUTTON_DPAD_LEFT,
                                           SDL_CONTROLLER_BUTTON_DPAD_RIGHT};
    uint8_t dirs = 0;
    if (LOWORD(pov) != 0xFFFF) {
        DWORD deg = pov / 100;
        if (deg >= 315 || deg <= 45) dirs |= 1;
        if (deg >= 135 && deg <= 225) dirs |= 2;
        if (deg >= 225 && deg <= 315) dirs |= 4;
        if (deg >= 45 && deg <= 135) dirs |= 8;
    }
    for (int k = 0; k < 4; k++)
        if (((dirs ^ d->dpad) >> k) & 1)
            emit_pad_button(r, d, dpad_buttons[k], (dirs >> k) & 1, t);
    d->dpad = dirs;
}

static void pad_triggers(di_reader *r, di_device *d, int32_t v, DWORD t)
{
    /* One axis for both triggers: left pulls it up, right down. */
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_TRIGGERLEFT, v > 0 ? v : 0, t);
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, v < 0 ? -(v + 1) : 0, t);
}

void win32__dinput_read_pad(di_reader *r, di_device *d, const DIDEVICEOBJECTDATA *rec, DWORD n)
{
    for (DWORD i = 0; i < n; i++) {
        DWORD ofs = rec[i].dwOfs, t = rec[i].dwTimeStamp;
        int32_t v = (int32_t)rec[i].dwData;
        if (ofs == DIJOFS_X)
            emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_LEFTX, v, t);
        else if (ofs == DIJOFS_Y)
            emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_LEFTY, v, t);
        else if (ofs == DIJOFS_RX)
            emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_RIGHTX, v, t);
        else if (ofs == DIJOFS_RY)
            emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_RIGHTY, v, t);
        else if (ofs == DIJOFS_Z)
            pad_triggers(r, d, v, t);
        else if (ofs == DIJOFS_POV(0))
            pad_hat(r, d, rec[i].dwData, t);
        else if (ofs >= DIJOFS_BUTTON(0) && ofs < DIJOFS_BUTTON(0) + PAD_BUTTONS)
            pad_button(r, d, (int)(ofs - DIJOFS_BUTTON(0)), (rec[i].dwData & 0x80) != 0, t);
    }
}

/* A pad's state as changes (win32_dinput.c's sync_device): buttons and the
 * hat both ways, and every axis's value. */
void win32__dinput_sync_pad(di_reader *r, di_device *d)
{
    DIJOYSTATE2 st;
    if (FAILED(IDirectInputDevice8_GetDeviceState(d->dev, sizeof st, &st)))
        return;
    for (int i = 0; i < PAD_BUTTONS; i++)
        pad_button(r, d, i, (st.rgbButtons[i] & 0x80) != 0, 0);
    pad_hat(r, d, st.rgdwPOV[0], 0);
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_LEFTX, st.lX, 0);
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_LEFTY, st.lY, 0);
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_RIGHTX, st.lRx, 0);
    emit_pad_axis(r, d, SDL_CONTROLLER_AXIS_RIGHTY, st.lRy, 0);
    pad_triggers(r, d, st.lZ, 0);
}
