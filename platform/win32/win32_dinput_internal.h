/* What the files of the win32 backend's native input share (DirectInput8:
 * plat_input.h's contract). Calls point down:
 *
 *   win32_dinput.c         the object: open, close, the signals (hot-plug
 *                          notifications, the window's events, the tick),
 *                          the read (acquire, drain, state sync) and the
 *                          keyboard and mouse translation
 *   win32_dinput_pads.c    the controllers: the enumeration thread, opening
 *                          and dropping them, their reports as pad events
 *   win32_dinput_device.c  one device: open, close, the DirectInput error,
 *                          the module it belongs to
 *
 * win32_dinput.c calls the other two, win32_dinput_pads.c calls
 * win32_dinput_device.c, which calls neither.
 *
 * Include it with DIRECTINPUT_VERSION defined (0x0800), before <dinput.h>. */
#ifndef TEMPO_WIN32_DINPUT_INTERNAL_H
#define TEMPO_WIN32_DINPUT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

#include "win32_internal.h"

#include <dbt.h>
#include <dinput.h>

#include "plat_input.h"
#include "plat_wait.h"
#include "tempo/input.h"

#define BUFFER_RECORDS 256 /* per device, between two reads */
#define READ_CHUNK 64
#define MAX_PADS 16

typedef struct di_device {
    LPDIRECTINPUTDEVICE8W dev;
    uint32_t kind; /* tempo_input_device_kind */
    uint32_t id;
    GUID instance;
    bool acquired;
    bool gone;   /* unplugged: closed at the end of this read */
    bool polled; /* DIDC_POLLEDDEVICE: signals nothing until Poll() */
    char name[sizeof(((tempo_input_device *)0)->name)];
    /* pads: the last D-pad state (hat) and buttons reported down */
    uint8_t dpad; /* bits: up, down, left, right */
    uint32_t pad_buttons; /* bit i: DirectInput button i */
} di_device;

/* One controller the enumeration thread found. */
typedef struct di_found_pad {
    GUID instance;
    WCHAR name[MAX_PATH];
} di_found_pad;

struct plat_input {
    LPDIRECTINPUT8W di;
    HWND hwnd;
    unsigned devices;
    plat_handle *signal; /* auto-reset; plat_input_handle returns it */
    HANDLE signal_os;
    di_device *keyboard, *mouse;
    di_device pads[MAX_PADS];
    int npads;
    uint32_t next_pad_id;
    /* pending DEVICE_ADDED/REMOVED for the next read */
    tempo_input_event pending[2 * MAX_PADS];
    int npending;
    /* keyboard state: to stamp modifiers and release keys lost with focus */
    uint8_t down[256];
    uint16_t mod;
    uint32_t buttons; /* mouse buttons reported down, SDL_BUTTON_LMASK... */
    int32_t wheel_rem; /* wheel movement not yet a whole notch (WHEEL_DELTA units) */
    /* hot-plug */
    HWND notify_window;
    HDEVNOTIFY notify;
    SDL_Window *window;
    /* The enumeration thread (EnumDevices can take seconds): it waits for
     * enum_request, enumerates with its own IDirectInput8, publishes the
     * list under enum_lock and signals `signal`. */
    HANDLE enum_thread, enum_request;
    SRWLOCK enum_lock;
    atomic_bool enum_stop;
    bool enum_ready;              /* [enum_lock] a new list is waiting */
    di_found_pad enum_found[MAX_PADS]; /* [enum_lock] */
    int enum_nfound;              /* [enum_lock] */
    /* The tick: a timer-queue timer that signals `signal` while devices
     * need polling (DIDC_POLLEDDEVICE) or re-acquiring while we are in
     * front; tick_ms is its period, 0 when stopped. */
    HANDLE tick;
    DWORD tick_ms;
    bool quiet; /* counted in win32__quiet_sdl_input */
    DWORD loop_thread; /* the thread that opened `in` */
};

/* One read (plat_input_read): where its events go, and how many went. */
typedef struct di_reader {
    plat_input *in;
    uint64_t now_ns;
    plat_input_fn fn;
    void *user;
    int count;
} di_reader;

static inline void win32__dinput_emit(di_reader *r, tempo_input_event *ev)
{
    ev->time_ns = r->now_ns;
    r->fn(ev, r->user);
    r->count++;
}

/* ---- win32_dinput_device.c ---- */

/* Records a failed DirectInput call (`what`) and its HRESULT with
 * tempo__set_error. Returns TEMPO_EPLATFORM. Thread: any. */
int win32__dinput_error(const char *what, HRESULT hr);

/* Creates, configures (`format`, a buffer of BUFFER_RECORDS, foreground and
 * non-exclusive on in->hwnd, notifications on in->signal_os) one device;
 * NULL on failure, detail set. [loop thread] */
LPDIRECTINPUTDEVICE8W win32__dinput_device_open(plat_input *in, REFGUID guid, LPCDIDATAFORMAT format);

/* Unacquires and releases d->dev, if open. [loop thread] */
void win32__dinput_device_close(di_device *d);

/* ---- win32_dinput_pads.c ---- */

/* [enumeration thread] The thread plat_input_open starts with PLAT_INPUT_PADS
 * (`arg`: the plat_input): a pass of EnumDevices per enum_request. */
DWORD WINAPI win32__dinput_enum_main(LPVOID arg);

/* [loop thread] Applies the enumeration thread's latest list, if any: opens
 * the controllers that appeared (DEVICE_ADDED queued), marks the ones that
 * went away as gone. */
void win32__dinput_apply_enumeration(plat_input *in);

/* [loop thread] Closes the pads marked gone (DEVICE_REMOVED queued). */
void win32__dinput_drop_gone_pads(plat_input *in);

/* [loop thread] A pad's buffered reports, `n` records, as pad events. */
void win32__dinput_read_pad(di_reader *r, di_device *d, const DIDEVICEOBJECTDATA *rec, DWORD n);

/* [loop thread] A pad's state (GetDeviceState), reported as changes. */
void win32__dinput_sync_pad(di_reader *r, di_device *d);

#endif /* TEMPO_WIN32_DINPUT_INTERNAL_H */
