/* The fault pause of the emulated handles' backends (common/plat_fault.c;
 * the setters are plat_wait.h's plat_fault_set_signal_delay_ns and
 * plat_fault_signal_pauses). Tests only. */
#ifndef TEMPO_PLAT_FAULT_H
#define TEMPO_PLAT_FAULT_H

/* Sleeps for plat_fault_set_signal_delay_ns()'s delay, if one is set, and
 * counts the pause (plat_fault_signal_pauses). Where a backend calls it is
 * where its signals pause: the sdl backend inside its waker's signal
 * (plat_waker_*.c), the fake backend before a set or re-arm takes the lock
 * (fake_wait.c). Thread: any. */
void plat_fault_pause(void);

#endif /* TEMPO_PLAT_FAULT_H */
