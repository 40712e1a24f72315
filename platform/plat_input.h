/* Native input devices: what every port implements (win32: DirectInput8,
 * win32_dinput.c; sdl, web, fake: common/plat_input_none.c, none).
 * [loop thread] */
#ifndef TEMPO_PLAT_INPUT_H
#define TEMPO_PLAT_INPUT_H

#include <stdint.h>

#include "plat_wait.h"

/* A backend whose input devices can signal a handle reads them itself and
 * produces tempo_input_event values (tempo/input.h: SDL scancodes, SDL
 * button and controller numbering). The win32 backend does, through
 * DirectInput8 with SetEventNotification, and has TEMPO_CAP_NATIVE_INPUT.
 * The sdl, web and fake backends have no native input (it arrives as SDL
 * events): they build the stubs of common/plat_input_none.c, whose
 * plat_input_open fails with TEMPO_ENOTSUP, so no caller needs to know the
 * backend.
 * While keyboard/mouse are open here, SDL still reports the same keys as
 * SDL events: the input layer must take those devices from one source only. */

struct SDL_Window;
struct tempo_input_event;
typedef struct plat_input plat_input;
typedef void (*plat_input_fn)(const struct tempo_input_event *ev, void *user);

enum {
    PLAT_INPUT_KEYBOARD = 1u << 0, /* the system keyboard (device id 0) */
    PLAT_INPUT_MOUSE = 1u << 1,    /* the system mouse (device id 0) */
    PLAT_INPUT_PADS = 1u << 2      /* every game controller, as they come and go */
};

/* Opens the `devices` for `window` (cooperative level on its HWND:
 * foreground, non-exclusive) with buffered data and event notification.
 * Returns NULL with the detail set: TEMPO_ENOTSUP where the backend has no
 * native input, TEMPO_EPLATFORM when DirectInput fails. [loop thread] */
plat_input *plat_input_open(struct SDL_Window *window, unsigned devices);

/* Closes the devices. NULL is a no-op. [loop thread] */
void plat_input_close(plat_input *in);

/* An auto-reset event (plat_event_create), owned by `in` and destroyed by
 * plat_input_close, signalled when a device has buffered data, a controller
 * came or went, or the window got the focus back (the devices must be
 * re-acquired). The framework gives it a public id (tempo__handle_lend,
 * framework/wait.c) for the loop's wait set and calls plat_input_read when
 * it is returned. NULL where the backend has no native input. */
plat_handle *plat_input_handle(plat_input *in);

/* Drains every device's buffer, calling fn for each translated event (per
 * device oldest first, time_ns = now_ns), re-acquires devices lost to a
 * focus change (keys still down when the keyboard was lost are released),
 * and opens/closes controllers that came or went (DEVICE_ADDED/REMOVED).
 * Returns the number of events, or a negative TEMPO_E*. [loop thread] */
int plat_input_read(plat_input *in, uint64_t now_ns, plat_input_fn fn, void *user);

#endif /* TEMPO_PLAT_INPUT_H */
