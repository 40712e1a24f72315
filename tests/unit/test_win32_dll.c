/* The win32 backend inside libtempo-0.2.dll (issue 13): window classes and
 * DirectInput belong to the DLL's own module, not to the program
 * (GetModuleHandleW(NULL)). Linked against the shared library on purpose;
 * public API only. */
#include <stdio.h>

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/input.h"
#include "tempo/tempo.h"

static void notify_class_belongs_to_the_dll(void)
{
    HMODULE dll = GetModuleHandleW(TEMPO_DLL_NAME); /* libtempo-<soversion>.dll, from meson */
    CHECK(dll != NULL && dll != GetModuleHandleW(NULL)); /* really the DLL */
    SDL_Window *win = SDL_CreateWindow("tempo-win32-dll", 0, 0, 160, 120, SDL_WINDOW_HIDDEN);
    CHECK(win != NULL);
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    CHECK(in != NULL);
    if (win == NULL || in == NULL)
        return;
    /* Controllers: the hot-plug window (and DirectInput) are created. */
    int r = tempo_input_attach_window(in, win, TEMPO_INPUT_NATIVE_PADS);
    CHECK_EQ_INT(r, 0);
    WNDCLASSEXW wc = {.cbSize = sizeof wc};
    CHECK(GetClassInfoExW(dll, L"tempo-dinput-notify", &wc));
    CHECK(!GetClassInfoExW(GetModuleHandleW(NULL), L"tempo-dinput-notify", &wc));
    tempo_input_destroy(in);
    SDL_DestroyWindow(win);
}

static const tt_case cases[] = {
    TT_CASE(notify_class_belongs_to_the_dll),
};

int main(int argc, char **argv)
{
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        printf("# SDL video: %s\n", SDL_GetError());
        puts("0 passed, 0 failed, 1 skipped");
        return 0;
    }
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
