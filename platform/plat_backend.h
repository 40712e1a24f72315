/* The backend itself: its name, what it can do, and the process-wide end.
 * What every port implements (sdl: sdl/sdl_wait.c; win32: win32_wait.c;
 * web: web_wait.c; plat_shutdown: the wait's file, or common/plat_sdl_wait.c
 * where the port builds it). See platform.h for the rules of the floor.
 * Thread: any, except where it says otherwise. */
#ifndef TEMPO_PLAT_BACKEND_H
#define TEMPO_PLAT_BACKEND_H

/* "sdl", "win32" or "web". */
const char *plat_backend_name(void);

/* TEMPO_CAP_* bits (tempo/base.h) of this backend: what callers and tests
 * check instead of comparing backend names. */
unsigned plat_capabilities(void);

/* Frees process-wide resources; see tempo_shutdown(). [loop thread] */
void plat_shutdown(void);

#endif /* TEMPO_PLAT_BACKEND_H */
