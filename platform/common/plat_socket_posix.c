/* plat_socket.h on POSIX sockets: fcntl(O_NONBLOCK), send/recv and poll().
 * poll() takes descriptors of any value, so unlike SDL_net's select() there
 * is no FD_SETSIZE limit. Compiled for non-Windows hosts with the `net`
 * option (platform/meson.build). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "plat_socket.h"

int plat_socket_set_nonblocking(plat_socket s)
{
    int fd = (int)s;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return errno ? errno : EINVAL;
    return 0;
}

long plat_socket_send(plat_socket s, const void *p, size_t n, int *err)
{
    /* MSG_NOSIGNAL: a peer that reset must give EPIPE, not kill the process
     * (SDLNet_Init also ignores SIGPIPE; this does not depend on it). */
#ifdef MSG_NOSIGNAL
    const int flags = MSG_NOSIGNAL;
#else
    const int flags = 0;
#endif
    for (;;) {
        ssize_t k = send((int)s, p, n, flags);
        if (k >= 0)
            return (long)k;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return PLAT_SOCKET_WOULD_BLOCK;
        *err = errno;
        return PLAT_SOCKET_FAILED;
    }
}

long plat_socket_recv(plat_socket s, void *p, size_t n, int *err)
{
    for (;;) {
        ssize_t k = recv((int)s, p, n, 0);
        if (k >= 0)
            return (long)k;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return PLAT_SOCKET_WOULD_BLOCK;
        *err = errno;
        return PLAT_SOCKET_FAILED;
    }
}

int plat_socket_wait(plat_socket sock, bool want_read, bool want_write, plat_socket wake, uint64_t timeout_ns,
                     int *err)
{
    /* A socket waited for nothing is left out (fd -1): poll reports
     * POLLHUP and POLLERR whatever the events, and a hung-up socket nobody
     * reads would make every wait return at once. */
    struct pollfd p[2] = {
        {.fd = (int)wake, .events = POLLIN},
        {.fd = want_read || want_write ? (int)sock : -1,
         .events = (short)((want_read ? POLLIN : 0) | (want_write ? POLLOUT : 0))},
    };
    int timeout_ms = -1;
    if (timeout_ns != UINT64_MAX) {
        uint64_t ms = (timeout_ns + 999999) / 1000000; /* round up: never wake before it */
        timeout_ms = ms > INT_MAX ? INT_MAX : (int)ms;
    }
    int r;
    do
        r = poll(p, 2, timeout_ms);
    while (r < 0 && errno == EINTR); /* a signal: wait again (the timeout restarts; only destroy's flush has one) */
    if (r < 0) {
        *err = errno;
        return PLAT_SOCKET_FAILED;
    }
    int ready = 0;
    if (p[0].revents)
        ready |= PLAT_SOCKET_WAKE;
    short bad = (short)(p[1].revents & (POLLERR | POLLHUP | POLLNVAL));
    if (want_read && (p[1].revents & POLLIN || bad))
        ready |= PLAT_SOCKET_READABLE;
    if (want_write && (p[1].revents & POLLOUT || bad))
        ready |= PLAT_SOCKET_WRITABLE;
    return ready;
}

static const char *what_happened(int err)
{
    switch (err) {
    case ECONNREFUSED: return "connection refused (nothing listens there)";
    case ECONNRESET: return "connection reset by the peer";
    case EPIPE: return "connection closed by the peer (broken pipe)";
    case ETIMEDOUT: return "connection timed out";
    case ECONNABORTED: return "connection aborted";
    case ENETUNREACH: return "network unreachable";
    case EHOSTUNREACH: return "host unreachable";
    case ENETDOWN: return "network down";
    case ENOTCONN: return "socket not connected";
    default: return "socket error";
    }
}

static const char *errno_name(int err)
{
    switch (err) {
    case ECONNREFUSED: return "ECONNREFUSED";
    case ECONNRESET: return "ECONNRESET";
    case EPIPE: return "EPIPE";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ECONNABORTED: return "ECONNABORTED";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case ENETDOWN: return "ENETDOWN";
    case ENOTCONN: return "ENOTCONN";
    case EBADF: return "EBADF";
    case ENOMEM: return "ENOMEM";
    case ENOBUFS: return "ENOBUFS";
    default: return "errno";
    }
}

void plat_socket_clear_error(void)
{
    errno = 0;
}

int plat_socket_last_error(void)
{
    return errno;
}

void plat_socket_describe(int err, char *buf, size_t size)
{
    /* strerror: glibc and musl return static text for known codes. */
    snprintf(buf, size, "%s (%s, errno %d: %s)", what_happened(err), errno_name(err), err, strerror(err));
}
