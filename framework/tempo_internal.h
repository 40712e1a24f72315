/* The basement: the error detail and the log, below both the framework and
 * the platform floor (docs/layout.md). Every floor may call these, as every
 * part of SDL calls SDL_SetError; they call nothing of either floor
 * (framework/error.c: SDL's log and the C library only), so no call into
 * them points up. */
#ifndef TEMPO_INTERNAL_H
#define TEMPO_INTERNAL_H

#include "tempo/base.h"

/* The internal name of base.h's TEMPO_PRINTF (the one definition). */
#define TEMPO__PRINTF(fmt, args) TEMPO_PRINTF(fmt, args)

/* Records the native detail of a failure for tempo_get_error() on the
 * calling thread and logs it once at TEMPO_LOG_WARN. Returns `code` so call
 * sites can write `return tempo__set_error(TEMPO_EPLATFORM, "eventfd: %s", ...)`.
 * Thread: any. */
int tempo__set_error(int code, const char *fmt, ...) TEMPO__PRINTF(2, 3);

/* tempo__set_error, logged at `level`: TEMPO_LOG_DEBUG for expected
 * failures the caller sees in a return value anyway (a full queue). */
int tempo__set_error_at(tempo_log_level level, int code, const char *fmt, ...) TEMPO__PRINTF(3, 4);

/* Logs one line at `level` if the level (tempo_log_set_level) lets it
 * through; formats nothing otherwise. Thread: any. */
void tempo__log(tempo_log_level level, const char *fmt, ...) TEMPO__PRINTF(2, 3);

/* True if a message at `level` would be logged (to skip building one). */
bool tempo__log_enabled(tempo_log_level level);

/* The code given to the calling thread's last tempo__set_error (0 after
 * tempo__clear_error or if none): how a NULL-returning platform call says
 * why it failed. */
int tempo__error_code(void);

/* Clears the calling thread's detail. */
void tempo__clear_error(void);

#endif /* TEMPO_INTERNAL_H */
