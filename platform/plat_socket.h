/* Non-blocking stream sockets and a readiness wait, for the network thread
 * of tempo/net.h (framework/net.c).
 *
 * SDL2_net connects and owns the sockets' lifetime, but it has neither
 * non-blocking sockets nor a wait for "writable": its send blocks until the
 * OS took every byte, which is what stalled the loop thread (issue 19). So
 * net.c takes the OS socket out of SDL_net's struct and does its reads,
 * writes and waits here. Not a backend function: the OS's socket API is the
 * same under the sdl and win32 backends of one OS, so there is one file per
 * OS (platform/common/plat_socket_posix.c, plat_socket_windows.c), picked
 * by platform/meson.build, compiled only with the `net` option.
 *
 * Thread: any; a socket may be read on one thread while written on another.
 */
#ifndef TEMPO_PLAT_SOCKET_H
#define TEMPO_PLAT_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An OS socket: a descriptor (POSIX) or a SOCKET (Winsock), widened. */
typedef uintptr_t plat_socket;

/* What a plat_socket_send/recv returned besides a byte count. */
enum {
    PLAT_SOCKET_WOULD_BLOCK = -1, /* nothing can move now: wait for readiness */
    PLAT_SOCKET_FAILED = -2       /* *err holds the OS error (errno, WSAGetLastError) */
};

/* plat_socket_wait's result bits. */
enum {
    PLAT_SOCKET_READABLE = 1u << 0, /* `sock`: data, end of stream or an error to read */
    PLAT_SOCKET_WRITABLE = 1u << 1, /* `sock`: room to send, or an error to send into */
    PLAT_SOCKET_WAKE = 1u << 2      /* `wake` is readable */
};

/* Makes `s` non-blocking. 0, or the OS error code (never 0 on failure). */
int plat_socket_set_nonblocking(plat_socket s);

/* Sends up to `n` bytes without blocking (and without SIGPIPE). Returns the
 * bytes the OS took (> 0 when n > 0), PLAT_SOCKET_WOULD_BLOCK, or
 * PLAT_SOCKET_FAILED with *err set. */
long plat_socket_send(plat_socket s, const void *p, size_t n, int *err);

/* Receives up to `n` bytes without blocking. Returns the bytes read, 0 when
 * the peer closed its side (end of stream), PLAT_SOCKET_WOULD_BLOCK, or
 * PLAT_SOCKET_FAILED with *err set. */
long plat_socket_recv(plat_socket s, void *p, size_t n, int *err);

/* Blocks in the OS until `sock` is readable (when want_read) or writable
 * (when want_write), `wake` is readable, or `timeout_ns` passes
 * (UINT64_MAX: no limit; rounded up to the OS's unit). No polling. Returns
 * the PLAT_SOCKET_* bits that are ready (0 on timeout), or
 * PLAT_SOCKET_FAILED with *err set. A socket with an error or a hang-up
 * reports itself as ready for what was asked, so the next recv/send
 * returns the error. */
int plat_socket_wait(plat_socket sock, bool want_read, bool want_write, plat_socket wake, uint64_t timeout_ns,
                     int *err);

/* The calling thread's last OS socket error (errno, WSAGetLastError), and
 * clearing it: around a library call that fails without saying why (SDL_net's
 * connect), clear, call, then read what the failed OS call left. 0 when
 * nothing failed since the clear. */
void plat_socket_clear_error(void);
int plat_socket_last_error(void);

/* Writes English text for OS socket error `err` into buf, e.g.
 * "connection reset by the peer (ECONNRESET, errno 104: Connection reset by
 * peer)": what happened first, then the OS's name, number and text. */
void plat_socket_describe(int err, char *buf, size_t size);

#endif /* TEMPO_PLAT_SOCKET_H */
