/* Stands in for the X11 headers in builds that must not need them (see
 * tests/lint/meson.build: plat_sdl_wait.c with the x11 route off, issue 22). */
#error "<X11/Xlib.h> included by a build whose x11 route is off: the X11 headers must not be required"
