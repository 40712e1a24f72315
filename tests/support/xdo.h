/* Real X11 input for tests: runs xdotool, natively or from a Windows test
 * program running under wine (wine can start Linux programs, and its
 * windows are X11 windows, so keys typed by xdotool reach the Windows
 * program through the same path as a real keyboard).
 *
 *   if (!tt_xdotool_available()) TT_SKIP("needs xdotool");
 *   tt_xdotool("search --sync --name 'my window' windowfocus --sync key q");
 *
 * Without a window manager (Xvfb) keys reach a window only after
 * `windowfocus`. */
#ifndef TEMPO_TEST_XDO_H
#define TEMPO_TEST_XDO_H

#include <stdbool.h>

/* True when xdotool can be run from this program: on Linux when it is on
 * PATH, on Windows only under wine with /usr/bin/xdotool present (a real
 * Windows system has no X server). */
bool tt_xdotool_available(void);

/* Runs `xdotool <args>` (args are passed through a shell on Linux; keep
 * them simple). Linux: waits, at most 15 s, and returns xdotool's exit
 * status (0 = ok; timeout's 124 when it took longer).
 * Under wine: wine starts Linux programs detached, with no process handle,
 * so it returns 0 once started and the caller must observe the effect
 * (with a time limit). -1 if it could not be started. */
int tt_xdotool(const char *args);

#endif /* TEMPO_TEST_XDO_H */
