/* What a test needs to show that an OS refusing a call costs a debug line,
 * not a warning (a sandbox's seccomp filter; issue 39's scheduling hints,
 * desc.low_priority): a filter that makes chosen system calls fail, and a
 * count of Tempo's log lines by priority. Thread: the calling thread,
 * except the counts, which lines from any thread reach. */
#ifndef TEMPO_TEST_REFUSALS_H
#define TEMPO_TEST_REFUSALS_H

#include <stdbool.h>

#include "tempo/base.h"

/* Makes the system calls numbered nrs[0..n) fail with EPERM on the calling
 * thread and the threads it starts from now on (a seccomp filter; for
 * good: run it on a thread of its own). False where no filter can be
 * installed (not Linux, or the kernel refuses one): the caller skips. */
bool tt_refuse_syscalls(const long *nrs, int n);

/* From here to tt_log_count_end(), Tempo logs at `level` and its lines
 * (SDL_Log messages that name "tempo") are counted instead of printed. */
void tt_log_count_begin(tempo_log_level level);
/* The debug and the warning-or-worse lines counted since the begin or the
 * last call; the counts start again from 0. */
void tt_log_counted(int *debug_lines, int *warn_lines);
/* Puts SDL's log output, its priority and Tempo's level (WARN) back. */
void tt_log_count_end(void);

#endif /* TEMPO_TEST_REFUSALS_H */
