/* Unit tests of the cross-thread push announcements (platform/plat_announce.h)
 * on a fake clock: the re-check schedule both backends' message waits use. */
#include "harness.h"
#include "plat_announce.h"

#define US UINT64_C(1000)
#define MS UINT64_C(1000000)
#define NEVER UINT64_MAX

static void nothing_announced_changes_nothing(void)
{
    plat_announce a = {0};
    unsigned snap = plat_announce_snapshot(&a);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 1000 * MS, NEVER), NEVER);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 1000 * MS, 1005 * MS), 1005 * MS);
}

static void an_unseen_push_brings_the_wake_forward_three_times(void)
{
    plat_announce a = {0};
    plat_announce_push(&a);
    unsigned snap = plat_announce_snapshot(&a);
    /* Queue empty each time: re-check after 50 us, 1 ms, 10 ms, then give up. */
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 0, NEVER), 50 * US);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 50 * US, NEVER), 50 * US + 1 * MS);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 2 * MS, NEVER), 12 * MS);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 12 * MS, NEVER), NEVER);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 13 * MS, NEVER), NEVER); /* settled */
    /* An earlier wake (a timer) is kept. */
    plat_announce_push(&a);
    snap = plat_announce_snapshot(&a);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 0, 10 * US), 10 * US);
}

static void a_landed_push_needs_no_recheck(void)
{
    plat_announce a = {0};
    plat_announce_push(&a);
    plat_announce_push(&a);
    unsigned snap = plat_announce_snapshot(&a);
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 0, NEVER), 50 * US); /* one re-check spent */
    plat_announce_landed(&a, snap);                                  /* then the queue had it */
    CHECK_EQ_U64(plat_announce_recheck(&a, snap, 100 * US, NEVER), NEVER);
    /* A new push starts a fresh schedule. */
    plat_announce_push(&a);
    CHECK_EQ_U64(plat_announce_recheck(&a, plat_announce_snapshot(&a), 200 * US, NEVER), 250 * US);
}

static const tt_case cases[] = {
    TT_CASE(nothing_announced_changes_nothing),
    TT_CASE(an_unseen_push_brings_the_wake_forward_three_times),
    TT_CASE(a_landed_push_needs_no_recheck),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
