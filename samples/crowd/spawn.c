/* See spawn.h. POSIX only; the Windows branch is a clearly marked stub. */
#define _POSIX_C_SOURCE 200809L /* posix_spawn, kill, waitpid under -std=c11 */
#include "spawn.h"

#include <stdio.h>

#ifdef _WIN32

int child_start(child *c, char *const argv[])
{
    /* TODO(windows): CreateProcess with a pipe for stdout. */
    (void)argv;
    c->pid = 0;
    c->out_fd = -1;
    fprintf(stderr, "crowd: starting the server is not implemented on Windows yet; "
                    "run crowd_server yourself and pass --port N\n");
    return -1;
}

int child_read_line(child *c, char *buf, size_t n)
{
    (void)c;
    (void)buf;
    (void)n;
    return -1;
}

void child_stop(child *c)
{
    (void)c;
}

#else

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int child_start(child *c, char *const argv[])
{
    int fds[2];
    c->pid = 0;
    c->out_fd = -1;
    if (pipe(fds) != 0) {
        perror("crowd: pipe");
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (r != 0) {
        fprintf(stderr, "crowd: cannot start %s: %s\n", argv[0], strerror(r));
        close(fds[0]);
        return -1;
    }
    c->pid = pid;
    c->out_fd = fds[0];
    return 0;
}

int child_read_line(child *c, char *buf, size_t n)
{
    size_t len = 0;
    while (len + 1 < n) {
        char ch;
        ssize_t k = read(c->out_fd, &ch, 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        if (ch == '\n')
            break;
        buf[len++] = ch;
    }
    buf[len] = '\0';
    return 0;
}

void child_stop(child *c)
{
    if (c->pid > 0) {
        kill((pid_t)c->pid, SIGTERM);
        waitpid((pid_t)c->pid, NULL, 0);
    }
    if (c->out_fd >= 0)
        close(c->out_fd);
    c->pid = 0;
    c->out_fd = -1;
}

#endif
