/* Error codes and the per-thread native detail, and the log: the basement
 * under both floors (tempo_internal.h). Calls nothing of the framework or
 * the platform: SDL's log and the C library only. */
#include <stdarg.h>
#include <stdatomic.h>
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

/* Relaxed is enough: a level change need not order anything else. */
static atomic_int log_level = TEMPO_LOG_WARN;

int tempo_log_set_level(tempo_log_level level)
{
    if (level < TEMPO_LOG_DEBUG || level > TEMPO_LOG_NONE)
        return TEMPO_EINVAL;
    atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
    return 0;
}

tempo_log_level tempo_log_get_level(void)
{
    return (tempo_log_level)atomic_load_explicit(&log_level, memory_order_relaxed);
}

bool tempo__log_enabled(tempo_log_level level)
{
    return (int)level >= atomic_load_explicit(&log_level, memory_order_relaxed) && level < TEMPO_LOG_NONE;
}

static SDL_LogPriority sdl_priority(tempo_log_level level)
{
    switch (level) {
    case TEMPO_LOG_DEBUG: return SDL_LOG_PRIORITY_DEBUG;
    case TEMPO_LOG_INFO: return SDL_LOG_PRIORITY_INFO;
    case TEMPO_LOG_WARN: return SDL_LOG_PRIORITY_WARN;
    default: return SDL_LOG_PRIORITY_ERROR;
    }
}

void tempo__log(tempo_log_level level, const char *fmt, ...)
{
    if (!tempo__log_enabled(level))
        return;
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    SDL_LogMessage(SDL_LOG_CATEGORY_APPLICATION, sdl_priority(level), "%s", line);
}

static int set_error_v(tempo_log_level level, int code, const char *fmt, va_list ap)
{
    vsnprintf(detail, sizeof detail, fmt, ap);
    detail_code = code;
    if (tempo__log_enabled(level))
        SDL_LogMessage(SDL_LOG_CATEGORY_APPLICATION, sdl_priority(level), "tempo: %s: %s", tempo_strerror(code),
                       detail);
    return code;
}

int tempo__set_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(TEMPO_LOG_WARN, code, fmt, ap);
    va_end(ap);
    return code;
}

int tempo__set_error_at(tempo_log_level level, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(level, code, fmt, ap);
    va_end(ap);
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
