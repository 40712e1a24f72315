/* Error codes and the per-thread native detail. */
#include <stdarg.h>
#include <stdio.h>

#include <SDL.h>

#include "tempo_internal.h"

/* Big enough for any SDL_GetError() text (SDL keeps 1 KiB) plus a prefix. */
static _Thread_local char detail[1280];
static _Thread_local int detail_code; /* the code of the last tempo__set_error */

const char *tempo_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define TEMPO_STRERROR_CASE_(name, value, text) \
    case TEMPO_##name:                          \
        return text;
        TEMPO_ERRNO_MAP(TEMPO_STRERROR_CASE_)
#undef TEMPO_STRERROR_CASE_
    default:
        return "unknown error";
    }
}

const char *tempo_errname(int code)
{
    switch (code) {
    case 0:
        return "0";
#define TEMPO_ERRNAME_CASE_(name, value, text) \
    case TEMPO_##name:                         \
        return "TEMPO_" #name;
        TEMPO_ERRNO_MAP(TEMPO_ERRNAME_CASE_)
#undef TEMPO_ERRNAME_CASE_
    default:
        return "TEMPO_E?";
    }
}

const char *tempo_get_error(void)
{
    return detail;
}

int tempo__set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    detail_code = code;
    SDL_LogWarn(SDL_LOG_CATEGORY_APPLICATION, "tempo: %s: %s", tempo_strerror(code), detail);
    return code;
}

int tempo__error_code(void)
{
    return detail_code;
}

void tempo__clear_error(void)
{
    detail_code = 0;
    detail[0] = '\0';
}
