/* Uses the installed-style include path and a real wait. */
#include <stdio.h>

#include <tempo/tempo.h>

int main(void)
{
    tempo_handle *t = tempo_timer_create(false);
    uint64_t due = tempo_now_ns() + TEMPO_NS_PER_MS;
    tempo_timer_set(t, due, 0);
    int r = tempo_wait(&t, 1, TEMPO_INFINITE, 0);
    int ok = r == 0 && tempo_now_ns() >= due;
    tempo_timer_destroy(t);
    tempo_shutdown();
    printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
