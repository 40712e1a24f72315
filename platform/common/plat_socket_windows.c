/* plat_socket.h on Winsock: ioctlsocket(FIONBIO), send/recv and select().
 * Winsock's fd_set is a list of up to FD_SETSIZE sockets of any value, and
 * select() is the readiness wait that works on every Windows and on wine
 * (WSAPoll has known gaps). Compiled for Windows hosts with the `net`
 * option (platform/meson.build); SDL_net has started Winsock. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <windows.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "plat_socket.h"

int plat_socket_set_nonblocking(plat_socket s)
{
    u_long on = 1;
    if (ioctlsocket((SOCKET)s, FIONBIO, &on) != 0)
        return WSAGetLastError();
    return 0;
}

long plat_socket_send(plat_socket s, const void *p, size_t n, int *err)
{
    int k = send((SOCKET)s, (const char *)p, n > INT_MAX ? INT_MAX : (int)n, 0);
    if (k != SOCKET_ERROR)
        return k;
    int e = WSAGetLastError();
    if (e == WSAEWOULDBLOCK)
        return PLAT_SOCKET_WOULD_BLOCK;
    *err = e;
    return PLAT_SOCKET_FAILED;
}

long plat_socket_recv(plat_socket s, void *p, size_t n, int *err)
{
    int k = recv((SOCKET)s, (char *)p, n > INT_MAX ? INT_MAX : (int)n, 0);
    if (k != SOCKET_ERROR)
        return k;
    int e = WSAGetLastError();
    if (e == WSAEWOULDBLOCK)
        return PLAT_SOCKET_WOULD_BLOCK;
    *err = e;
    return PLAT_SOCKET_FAILED;
}

int plat_socket_wait(plat_socket sock, bool want_read, bool want_write, plat_socket wake, uint64_t timeout_ns,
                     int *err)
{
    /* No exceptfds: on a connected socket it reports only out-of-band data,
     * which recv never consumes here, so it would stay set and every wait
     * would return at once. A reset or close shows in readfds (recv then
     * fails or returns 0), and a send into a dead connection fails at once. */
    fd_set rd, wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    FD_SET((SOCKET)wake, &rd);
    if (want_read)
        FD_SET((SOCKET)sock, &rd);
    if (want_write)
        FD_SET((SOCKET)sock, &wr);
    struct timeval tv, *ptv = NULL;
    if (timeout_ns != UINT64_MAX) {
        uint64_t us = (timeout_ns + 999) / 1000;
        if (us > (uint64_t)INT_MAX * 1000000)
            us = (uint64_t)INT_MAX * 1000000;
        tv.tv_sec = (long)(us / 1000000);
        tv.tv_usec = (long)(us % 1000000);
        ptv = &tv;
    }
    int r = select(0, &rd, &wr, NULL, ptv); /* the first argument is ignored by Winsock */
    if (r == SOCKET_ERROR) {
        *err = WSAGetLastError();
        return PLAT_SOCKET_FAILED;
    }
    int ready = 0;
    if (FD_ISSET((SOCKET)wake, &rd))
        ready |= PLAT_SOCKET_WAKE;
    if (want_read && FD_ISSET((SOCKET)sock, &rd))
        ready |= PLAT_SOCKET_READABLE;
    if (want_write && FD_ISSET((SOCKET)sock, &wr))
        ready |= PLAT_SOCKET_WRITABLE;
    return ready;
}

static const char *what_happened(int err, const char **name)
{
    switch (err) {
    case WSAECONNREFUSED: *name = "WSAECONNREFUSED"; return "connection refused (nothing listens there)";
    case WSAECONNRESET: *name = "WSAECONNRESET"; return "connection reset by the peer";
    case WSAESHUTDOWN: *name = "WSAESHUTDOWN"; return "connection closed by the peer";
    case WSAETIMEDOUT: *name = "WSAETIMEDOUT"; return "connection timed out";
    case WSAECONNABORTED: *name = "WSAECONNABORTED"; return "connection aborted";
    case WSAENETUNREACH: *name = "WSAENETUNREACH"; return "network unreachable";
    case WSAEHOSTUNREACH: *name = "WSAEHOSTUNREACH"; return "host unreachable";
    case WSAENETDOWN: *name = "WSAENETDOWN"; return "network down";
    case WSAENETRESET: *name = "WSAENETRESET"; return "connection reset by the network";
    case WSAENOTCONN: *name = "WSAENOTCONN"; return "socket not connected";
    default: *name = "WSA error"; return "socket error";
    }
}

void plat_socket_clear_error(void)
{
    WSASetLastError(0);
}

int plat_socket_last_error(void)
{
    return WSAGetLastError();
}

void plat_socket_describe(int err, char *buf, size_t size)
{
    char text[256] = "";
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, (DWORD)err, 0, text,
                   sizeof text, NULL);
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
                       text[len - 1] == '.'))
        text[--len] = '\0';
    const char *name;
    const char *what = what_happened(err, &name);
    snprintf(buf, size, "%s (%s %d: %s)", what, name, err, text[0] ? text : "no system text");
}
