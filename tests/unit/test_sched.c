/* Unit tests of the absolute timer schedule (platform/plat_sched.h) on a
 * fake clock: every time below is a number the test chooses. */
#include "harness.h"
#include "plat_sched.h"

#define MS UINT64_C(1000000)

static void one_shot_fires_once_not_early(void)
{
    plat_sched s = {0};
    plat_sched_arm(&s, 100 * MS, 0);
    CHECK_EQ_U64(plat_sched_next(&s), 100 * MS);
    CHECK(!plat_sched_is_due(&s, 100 * MS - 1));
    CHECK_EQ_U64(plat_sched_consume(&s, 100 * MS - 1), 0);
    CHECK_EQ_U64(plat_sched_consume(&s, 100 * MS), 1);
    CHECK(!s.armed);
    CHECK_EQ_U64(plat_sched_consume(&s, 500 * MS), 0);
    CHECK_EQ_U64(plat_sched_next(&s), UINT64_MAX);
}

static void periodic_keeps_absolute_phase(void)
{
    /* 60 Hz as integer ns: 16'666'666 per tick; consuming 1 us late every
     * tick must not shift the schedule by even one nanosecond. */
    const uint64_t period = 16666666, start = 1000 * MS;
    plat_sched s = {0};
    plat_sched_arm(&s, start, period);
    for (uint64_t k = 0; k < 36000; k++) { /* 10 minutes of ticks */
        uint64_t due = start + k * period;
        if (plat_sched_consume(&s, due - 1) != 0) {
            tt_fail(__FILE__, __LINE__, "tick %llu consumed early", (unsigned long long)k);
            return;
        }
        CHECK_EQ_U64(plat_sched_consume(&s, due + 1000), 1);
        if (tt_failed())
            return;
    }
    CHECK_EQ_U64(plat_sched_next(&s), start + 36000 * period);
}

static void late_consumer_gets_missed_ticks_coalesced(void)
{
    plat_sched s = {0};
    plat_sched_arm(&s, 0, 10 * MS);
    /* Ticks at 0,10,..,50 ms have passed at 55 ms: six at once. */
    CHECK_EQ_U64(plat_sched_consume(&s, 55 * MS), 6);
    CHECK_EQ_U64(plat_sched_next(&s), 60 * MS);
    CHECK_EQ_U64(plat_sched_consume(&s, 59 * MS), 0);
    CHECK_EQ_U64(plat_sched_consume(&s, 60 * MS), 1);
    /* Exactly on a boundary counts that tick. */
    CHECK_EQ_U64(plat_sched_consume(&s, 100 * MS), 4);
    CHECK_EQ_U64(plat_sched_next(&s), 110 * MS);
}

static void disarm_and_rearm(void)
{
    plat_sched s = {0};
    CHECK(!plat_sched_is_due(&s, UINT64_MAX));
    plat_sched_arm(&s, 5, 5);
    plat_sched_disarm(&s);
    CHECK_EQ_U64(plat_sched_consume(&s, 1000), 0);
    plat_sched_arm(&s, 2000, 0);
    CHECK_EQ_U64(plat_sched_consume(&s, 1999), 0);
    CHECK_EQ_U64(plat_sched_consume(&s, 2000), 1);
}

static void schedule_near_end_of_clock_disarms(void)
{
    plat_sched s = {0};
    plat_sched_arm(&s, UINT64_MAX - 10, 100);
    CHECK_EQ_U64(plat_sched_consume(&s, UINT64_MAX - 5), 1);
    CHECK(!s.armed);
}

static const tt_case cases[] = {
    TT_CASE(one_shot_fires_once_not_early),
    TT_CASE(periodic_keeps_absolute_phase),
    TT_CASE(late_consumer_gets_missed_ticks_coalesced),
    TT_CASE(disarm_and_rearm),
    TT_CASE(schedule_near_end_of_clock_disarms),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
