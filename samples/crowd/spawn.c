/* See spawn.h: POSIX (posix_spawn) and Windows (CreateProcessW). */
#ifndef _POSIX_C_SOURCE /* a build's flags may define it already */
#define _POSIX_C_SOURCE 200809L /* posix_spawn, kill, waitpid under -std=c11 */
#endif
#include "spawn.h"

#include <stdio.h>

#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Appends `arg` to `cmd` quoted the way the C runtime's argv parser reads it
 * back (CommandLineToArgvW rules): backslashes are literal except before a
 * quote, where they are doubled, and the quote is escaped. */
static void quote_arg(wchar_t *cmd, size_t *len, const wchar_t *arg)
{
    cmd[(*len)++] = L'"';
    for (const wchar_t *p = arg;; p++) {
        size_t slashes = 0;
        while (*p == L'\\') {
            p++;
            slashes++;
        }
        if (*p == 0) {
            for (size_t i = 0; i < 2 * slashes; i++) /* before the closing quote */
                cmd[(*len)++] = L'\\';
            break;
        }
        size_t n = *p == L'"' ? 2 * slashes + 1 : slashes;
        for (size_t i = 0; i < n; i++)
            cmd[(*len)++] = L'\\';
        cmd[(*len)++] = *p;
    }
    cmd[(*len)++] = L'"';
    cmd[*len] = 0;
}

static wchar_t *widen(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc(sizeof *w * (size_t)n) : NULL;
    if (w != NULL)
        MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
    return w;
}

/* argv[0], or the file of that name next to this program when it has no
 * directory and exists there (with or without ".exe"). Caller frees. */
static wchar_t *program_path(const char *name)
{
    wchar_t *w = widen(name);
    if (w == NULL || wcschr(w, L'\\') != NULL || wcschr(w, L'/') != NULL || wcschr(w, L':') != NULL)
        return w;
    wchar_t self[MAX_PATH + 64];
    DWORD n = GetModuleFileNameW(NULL, self, MAX_PATH);
    wchar_t *slash = n > 0 && n < MAX_PATH ? wcsrchr(self, L'\\') : NULL;
    if (slash == NULL || wcslen(w) > 60)
        return w;
    for (int ext = 0; ext < 2; ext++) {
        swprintf(slash + 1, 64, ext ? L"%ls.exe" : L"%ls", w);
        if (GetFileAttributesW(self) != INVALID_FILE_ATTRIBUTES &&
            !(GetFileAttributesW(self) & FILE_ATTRIBUTE_DIRECTORY)) {
            free(w);
            return _wcsdup(self);
        }
    }
    return w;
}

/* The process handles of running children, by pid (the sample starts one;
 * a pid alone could be reused once the child exits, a handle cannot). */
#define MAX_CHILDREN 8
static struct {
    long pid;
    HANDLE process;
} g_children[MAX_CHILDREN];

int child_start(child *c, char *const argv[])
{
    c->pid = 0;
    c->out_fd = -1;
    int slot = 0;
    while (slot < MAX_CHILDREN && g_children[slot].process != NULL)
        slot++;
    if (slot == MAX_CHILDREN) {
        fprintf(stderr, "crowd: more than %d children\n", MAX_CHILDREN);
        return -1;
    }
    /* The command line: every argument quoted (at most 2n+2 characters each). */
    size_t cap = 1;
    for (int i = 0; argv[i] != NULL; i++)
        cap += 2 * (strlen(argv[i]) + 1) * 2 + 3; /* UTF-8 bytes bound the UTF-16 units */
    wchar_t *cmd = malloc(sizeof *cmd * cap);
    wchar_t *exe = program_path(argv[0]);
    if (cmd == NULL || exe == NULL) {
        fprintf(stderr, "crowd: out of memory\n");
        free(cmd);
        free(exe);
        return -1;
    }
    size_t len = 0;
    cmd[0] = 0;
    for (int i = 0; argv[i] != NULL; i++) {
        wchar_t *w = i == 0 ? _wcsdup(exe) : widen(argv[i]);
        if (w == NULL)
            continue;
        if (i > 0)
            cmd[len++] = L' ';
        quote_arg(cmd, &len, w);
        free(w);
    }

    /* The child's stdout: the write end of a pipe, inheritable; our read end
     * is not, so the child's exit ends our reads (end of output). */
    SECURITY_ATTRIBUTES sa = {.nLength = sizeof sa, .bInheritHandle = TRUE};
    HANDLE rd = NULL, wr = NULL;
    if (!CreatePipe(&rd, &wr, &sa, 0)) {
        fprintf(stderr, "crowd: CreatePipe failed: error %lu\n", (unsigned long)GetLastError());
        free(cmd);
        free(exe);
        return -1;
    }
    SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW si = {.cb = sizeof si, .dwFlags = STARTF_USESTDHANDLES};
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = wr;
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi;
    /* lpApplicationName NULL: CreateProcess finds the program from the
     * command line's first argument and appends ".exe" when it has none. */
    BOOL ok = CreateProcessW(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    DWORD err = GetLastError();
    CloseHandle(wr); /* the child has its copy */
    free(cmd);
    if (!ok) {
        fprintf(stderr, "crowd: cannot start %ls: error %lu\n", exe, (unsigned long)err);
        free(exe);
        CloseHandle(rd);
        return -1;
    }
    free(exe);
    CloseHandle(pi.hThread);
    c->out_fd = _open_osfhandle((intptr_t)rd, _O_RDONLY | _O_BINARY);
    if (c->out_fd < 0) {
        CloseHandle(rd);
        TerminateProcess(pi.hProcess, 1);
        CloseHandle(pi.hProcess);
        fprintf(stderr, "crowd: _open_osfhandle failed\n");
        return -1;
    }
    c->pid = (long)pi.dwProcessId;
    g_children[slot].pid = c->pid;
    g_children[slot].process = pi.hProcess;
    return 0;
}

int child_read_line(child *c, char *buf, size_t n)
{
    size_t len = 0;
    while (len + 1 < n) {
        char ch;
        if (_read(c->out_fd, &ch, 1) != 1)
            return -1; /* end of output (the child exited) or an error */
        if (ch == '\n')
            break;
        if (ch != '\r') /* the server's stdout may be in text mode */
            buf[len++] = ch;
    }
    buf[len] = '\0';
    return 0;
}

void child_stop(child *c)
{
    for (int i = 0; c->pid > 0 && i < MAX_CHILDREN; i++) {
        if (g_children[i].process == NULL || g_children[i].pid != c->pid)
            continue;
        TerminateProcess(g_children[i].process, 0);
        WaitForSingleObject(g_children[i].process, INFINITE);
        CloseHandle(g_children[i].process);
        g_children[i].process = NULL;
        g_children[i].pid = 0;
    }
    if (c->out_fd >= 0)
        _close(c->out_fd); /* closes the pipe handle too */
    c->pid = 0;
    c->out_fd = -1;
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
