/* BSD sockets for the network tests' own peers and servers (on 127.0.0.1,
 * ephemeral ports): SDL2_net can only listen on all interfaces and cannot
 * report an ephemeral port. Winsock spells a few things differently; those
 * are the only #ifdefs. Header-only: each test program includes it once. */
#ifndef TEMPO_TEST_SOCKETS_H
#define TEMPO_TEST_SOCKETS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET sock_t;
#define BAD_SOCK INVALID_SOCKET
#define close_sock closesocket
typedef int socklen_t_;
#else
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
typedef int sock_t;
#define BAD_SOCK (-1)
#define close_sock close
typedef socklen_t socklen_t_;
#endif

/* A listening socket on 127.0.0.1 at an ephemeral port (*port), or BAD_SOCK. */
static inline sock_t listen_loopback(uint16_t *port)
{
    sock_t s = socket(AF_INET, SOCK_STREAM, 0);
    if (s == BAD_SOCK)
        return BAD_SOCK;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0; /* ephemeral */
    socklen_t_ alen = sizeof a;
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 1) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &alen) != 0) {
        close_sock(s);
        return BAD_SOCK;
    }
    *port = ntohs(a.sin_port);
    return s;
}

/* Sends all n bytes (blocking); false when the connection failed first. */
static inline bool send_all(sock_t s, const uint8_t *p, size_t n)
{
    while (n > 0) {
        int k = (int)send(s, (const char *)p, n > 65536 ? 65536 : (int)n, 0);
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* Receives exactly n bytes (blocking); false when the connection ended first. */
static inline bool recv_all(sock_t s, uint8_t *p, size_t n)
{
    while (n > 0) {
        int k = (int)recv(s, (char *)p, (int)n, 0);
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

#endif
