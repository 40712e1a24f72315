/* The calling thread's scheduler slice: sched_getattr's and sched_setattr's
 * sched_runtime, a fair thread's slice on EEVDF (Linux 6.12 on; the kernel
 * reports 0 before, and there is none elsewhere). test_loop_realtime reads
 * it (a loop leaves it alone); bench_sched sets it (D's "20 ms held" row).
 * glibc declares struct sched_attr and the calls only from 2.41 on, so this
 * is the kernel's first version of the struct (48 bytes). The includer
 * defines _GNU_SOURCE first (syscall). Header-only; thread: the calling
 * one. */
#ifndef TEMPO_TESTS_THREAD_SLICE_H
#define TEMPO_TESTS_THREAD_SLICE_H

#include <stdbool.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__linux__) && defined(SYS_sched_getattr) && defined(SYS_sched_setattr)
#define TT_HAVE_THREAD_SLICE 1
typedef struct tt_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
} tt_sched_attr;

/* The calling thread's attributes into *a; false where the kernel refused. */
static inline bool tt_sched_attr_get(tt_sched_attr *a)
{
    *a = (tt_sched_attr){0};
    return syscall(SYS_sched_getattr, 0, a, sizeof *a, 0) == 0;
}
#endif

/* The calling thread's slice in ns, or 0 where there is none to read. */
static inline uint64_t tt_thread_slice_ns(void)
{
#if defined(TT_HAVE_THREAD_SLICE)
    tt_sched_attr a;
    if (tt_sched_attr_get(&a))
        return a.runtime;
#endif
    return 0;
}

/* Sets the calling thread's slice to `ns`, its other attributes as they
 * are. False where there is no slice to set or the kernel refused. */
static inline bool tt_thread_set_slice_ns(uint64_t ns)
{
#if defined(TT_HAVE_THREAD_SLICE)
    tt_sched_attr a;
    if (!tt_sched_attr_get(&a))
        return false;
    a.size = sizeof a;
    a.runtime = ns;
    return syscall(SYS_sched_setattr, 0, &a, 0) == 0;
#else
    (void)ns;
    return false;
#endif
}

#endif /* TEMPO_TESTS_THREAD_SLICE_H */
