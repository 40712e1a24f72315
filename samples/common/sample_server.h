/* The samples' test servers (crowd_server, duel's relay): BSD sockets on
 * 127.0.0.1, because SDL2_net can neither listen on one interface nor report
 * an ephemeral port. POSIX is what is built and tested; the Winsock
 * spellings are there but untested. Header-only: include it once, in the
 * server's one file, after defining _POSIX_C_SOURCE. */
#ifndef SAMPLE_SERVER_H
#define SAMPLE_SERVER_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET sock_t;
#define BAD_SOCK INVALID_SOCKET
#define close_sock closesocket
#define poll WSAPoll
typedef int addrlen_t;
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
typedef int sock_t;
#define BAD_SOCK (-1)
#define close_sock close
typedef socklen_t addrlen_t;
#endif

/* Starts the sockets (a peer that leaves is then a send error, not
 * SIGPIPE), listens on 127.0.0.1:port (0: an ephemeral one) with `backlog`,
 * and prints "PORT N" on stdout, flushed: the line the test scripts read.
 * Returns the listening socket, or BAD_SOCK after printing why, as `who`. */
static inline sock_t sample_server_listen(const char *who, int port, int backlog)
{
#ifdef _WIN32
    WSADATA wsa;
    WSAStartup(MAKEWORD(2, 2), &wsa);
#else
    signal(SIGPIPE, SIG_IGN);
#endif
    sock_t l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* 127.0.0.1 only */
    a.sin_port = htons((uint16_t)port);
    addrlen_t alen = sizeof a;
    if (l == BAD_SOCK || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, backlog) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &alen) != 0) {
        fprintf(stderr, "%s: listen on 127.0.0.1: %s\n", who, strerror(errno));
        if (l != BAD_SOCK)
            close_sock(l);
        return BAD_SOCK;
    }
    printf("PORT %u\n", ntohs(a.sin_port));
    fflush(stdout);
    return l;
}

#endif
