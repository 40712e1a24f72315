/* Internal helpers shared by framework/ and platform/ (tempo__ prefix). */
#ifndef TEMPO_INTERNAL_H
#define TEMPO_INTERNAL_H

#include "tempo/base.h"

/* The internal name of base.h's TEMPO_PRINTF (the one definition). */
#define TEMPO__PRINTF(fmt, args) TEMPO_PRINTF(fmt, args)

/* Records the native detail of a failure for tempo_get_error() on the
 * calling thread and logs it once (SDL_LogWarn). Returns `code` so call sites
 * can write `return tempo__set_error(TEMPO_EPLATFORM, "eventfd: %s", ...)`.
 * Thread: any. */
int tempo__set_error(int code, const char *fmt, ...) TEMPO__PRINTF(2, 3);

/* The code given to the calling thread's last tempo__set_error (0 after
 * tempo__clear_error or if none): how a NULL-returning platform call says
 * why it failed. */
int tempo__error_code(void);

/* Clears the calling thread's detail. */
void tempo__clear_error(void);

#endif /* TEMPO_INTERNAL_H */
