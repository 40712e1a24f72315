/* refusals.h: a seccomp filter, and Tempo's log lines counted. */
#include "refusals.h"

#include <stdatomic.h>
#include <string.h>

#include <SDL.h>

#if defined(__linux__)
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#endif

#include "tempo/tempo.h"

bool tt_refuse_syscalls(const long *nrs, int n)
{
#if defined(__linux__)
    /* Load the call's number; for each refused one, a match jumps to the
     * EPERM return at the end; no match falls through to ALLOW. */
    struct sock_filter *f = calloc((size_t)n + 3, sizeof *f);
    if (f == NULL)
        return false;
    f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < n; i++)
        f[1 + i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], (unsigned char)(n - i), 0);
    f[1 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[2 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    struct sock_fprog prog = {.len = (unsigned short)(n + 3), .filter = f};
    bool ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
    free(f);
    return ok;
#else
    (void)nrs;
    (void)n;
    return false;
#endif
}

static atomic_int debug_count, warn_count;
static SDL_LogOutputFunction prev_fn;
static void *prev_user;
static SDL_LogPriority prev_priority;

static void count_line(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    if (strstr(message, "tempo") == NULL)
        return;
    if (priority == SDL_LOG_PRIORITY_DEBUG)
        atomic_fetch_add(&debug_count, 1);
    else if (priority >= SDL_LOG_PRIORITY_WARN)
        atomic_fetch_add(&warn_count, 1);
}

void tt_log_count_begin(tempo_log_level level)
{
    SDL_LogGetOutputFunction(&prev_fn, &prev_user);
    prev_priority = SDL_LogGetPriority(SDL_LOG_CATEGORY_APPLICATION);
    atomic_store(&debug_count, 0);
    atomic_store(&warn_count, 0);
    SDL_LogSetOutputFunction(count_line, NULL);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_VERBOSE);
    tempo_log_set_level(level);
}

void tt_log_counted(int *debug_lines, int *warn_lines)
{
    *debug_lines = atomic_exchange(&debug_count, 0);
    *warn_lines = atomic_exchange(&warn_count, 0);
}

void tt_log_count_end(void)
{
    tempo_log_set_level(TEMPO_LOG_WARN);
    SDL_LogSetOutputFunction(prev_fn, prev_user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, prev_priority);
}
