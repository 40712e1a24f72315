/* What the web backend's files share. */
#ifndef TEMPO_WEB_INTERNAL_H
#define TEMPO_WEB_INTERNAL_H

#include <stdbool.h>

/* [main thread] True while web_loop.c runs a frame: main-thread waits then
 * stay single polls (web_wait.c). */
extern bool web__in_driver_frame;

#endif /* TEMPO_WEB_INTERNAL_H */
