/* See xdo.h. */
#include "xdo.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* wine's path for the Linux root directory. */
static const char XDOTOOL[] = "Z:\\usr\\bin\\xdotool";

static bool under_wine(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll != NULL && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

bool tt_xdotool_available(void)
{
    return under_wine() && GetFileAttributesA(XDOTOOL) != INVALID_FILE_ATTRIBUTES;
}

int tt_xdotool(const char *args)
{
    if (!tt_xdotool_available())
        return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s", XDOTOOL, args);
    STARTUPINFOA si = {.cb = sizeof si};
    PROCESS_INFORMATION pi = {0};
    /* wine execs a Linux binary itself and hands back no process handle. */
    if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
        return -1;
    if (pi.hProcess != NULL) { /* not wine's behaviour today, but cheap to honour */
        DWORD code = 1;
        WaitForSingleObject(pi.hProcess, INFINITE);
        GetExitCodeProcess(pi.hProcess, &code);
        CloseHandle(pi.hProcess);
        CloseHandle(pi.hThread);
        return (int)code;
    }
    return 0;
}

#else

bool tt_xdotool_available(void)
{
    return system("xdotool --version >/dev/null 2>&1") == 0;
}

int tt_xdotool(const char *args)
{
    char cmd[1024];
    /* At most 15 s: `windowfocus --sync` waits for a focus the X server may
     * never report (a window that lost a race under load); a caller that
     * re-sends must get the chance. */
    snprintf(cmd, sizeof cmd, "timeout 15 xdotool %s >/dev/null 2>&1", args);
    int rc = system(cmd);
    return rc == -1 ? -1 : rc;
}

#endif
