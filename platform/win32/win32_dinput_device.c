/* The DirectInput devices of the win32 backend's native input, one at a
 * time: open (created, configured for buffered data and the shared
 * notification event), close, and the error detail of a failed call; the
 * module they belong to. The floor under win32_dinput.c and
 * win32_dinput_pads.c (win32_dinput_internal.h); it calls neither.
 * [loop thread], except win32__module and win32__dinput_error (any). */
#define DIRECTINPUT_VERSION 0x0800
#include "win32_dinput_internal.h"

#include "tempo_internal.h"

/* The module this code is linked into: libtempo-0.dll when Tempo is a DLL,
 * the program otherwise. Window classes and DirectInput belong to it, not to
 * the program (GetModuleHandleW(NULL)): a class registered under the
 * program's instance outlives an unloaded DLL's window procedure. */
HINSTANCE win32__module(void)
{
    HMODULE m = NULL;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)(void *)win32__module, &m))
        m = GetModuleHandleW(NULL);
    return m;
}

int win32__dinput_error(const char *what, HRESULT hr)
{
    return tempo__set_error(TEMPO_EPLATFORM, "DirectInput %s: HRESULT 0x%08lx", what,
                            (unsigned long)hr);
}

/* Creates, configures and (if we have the focus) acquires one device. */
LPDIRECTINPUTDEVICE8W win32__dinput_device_open(plat_input *in, REFGUID guid, LPCDIDATAFORMAT format)
{
    LPDIRECTINPUTDEVICE8W dev = NULL;
    HRESULT hr = IDirectInput8_CreateDevice(in->di, guid, &dev, NULL);
    if (FAILED(hr)) {
        win32__dinput_error("CreateDevice", hr);
        return NULL;
    }
    DIPROPDWORD size = {
        .diph = {.dwSize = sizeof size, .dwHeaderSize = sizeof size.diph, .dwHow = DIPH_DEVICE},
        .dwData = BUFFER_RECORDS,
    };
    const char *what = "SetDataFormat";
    if (FAILED(hr = IDirectInputDevice8_SetDataFormat(dev, format)))
        goto fail;
    what = "SetCooperativeLevel";
    if (FAILED(hr = IDirectInputDevice8_SetCooperativeLevel(dev, in->hwnd,
                                                            DISCL_FOREGROUND | DISCL_NONEXCLUSIVE)))
        goto fail;
    what = "SetProperty(DIPROP_BUFFERSIZE)";
    if (FAILED(hr = IDirectInputDevice8_SetProperty(dev, DIPROP_BUFFERSIZE, &size.diph)))
        goto fail;
    what = "SetEventNotification";
    if (FAILED(hr = IDirectInputDevice8_SetEventNotification(dev, in->signal_os)))
        goto fail;
    return dev;
fail:
    win32__dinput_error(what, hr);
    IDirectInputDevice8_Release(dev);
    return NULL;
}

void win32__dinput_device_close(di_device *d)
{
    if (d->dev == NULL)
        return;
    IDirectInputDevice8_Unacquire(d->dev);
    IDirectInputDevice8_SetEventNotification(d->dev, NULL);
    IDirectInputDevice8_Release(d->dev);
    d->dev = NULL;
}
