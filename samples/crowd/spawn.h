/* Starting the crowd server as a child process and reading its first line.
 *
 * SDL 2.26 has no process API, so this is the sample's own tiny helper:
 * posix_spawn plus a pipe on POSIX, CreateProcessW plus a pipe on Windows
 * (the only platform #ifdef of the samples: framework/ has none). */
#ifndef CROWD_SPAWN_H
#define CROWD_SPAWN_H

#include <stddef.h>

typedef struct child {
    long pid;   /* 0 when not running */
    int out_fd; /* read end of the child's stdout */
} child;

/* Starts argv[0] with arguments argv (NULL-terminated, UTF-8), its stdout on
 * a pipe, stdin and stderr shared with this program. Windows: a program name
 * without a directory is looked for next to this program first (then as
 * CreateProcess searches), ".exe" may be left out. Returns 0, or -1 after
 * printing why. */
int child_start(child *c, char *const argv[]);

/* Reads one line of the child's stdout (blocking; the server prints its port
 * at once). Returns 0, or -1 at end of output. */
int child_read_line(child *c, char *buf, size_t n);

/* Asks the child to stop (POSIX: SIGTERM; Windows: TerminateProcess, which
 * is what SIGTERM does to the server), waits for it and closes the pipe. */
void child_stop(child *c);

#endif /* CROWD_SPAWN_H */
