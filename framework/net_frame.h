/* The frame decoder of tempo/net.h as pure functions: no sockets, no
 * allocation, no globals, so the network thread, the unit tests and the
 * libFuzzer target (tests/fuzz/fuzz_net_frame.c) all run the same code. The wire
 * format is described in tempo/net.h. */
#ifndef TEMPO_NET_FRAME_H
#define TEMPO_NET_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "tempo/net.h"

typedef struct tempo__frame_limits {
    uint32_t max_payload; /* a larger length is malformed */
    uint16_t max_type;    /* types 1..max_type are valid */
} tempo__frame_limits;

typedef struct tempo__frame {
    uint16_t type;
    uint32_t size;
    const uint8_t *payload; /* points into the decoded buffer */
} tempo__frame;

/* Decodes the frame at the start of buf[0, len). Reads only those bytes.
 * Returns:
 *   > 0            a whole frame: *out is filled, the return value is its
 *                  length in bytes (header + payload);
 *   0              not enough bytes yet for the header, or for the payload
 *                  it announces (a valid prefix of a frame);
 *   TEMPO_EFORMAT  malformed header; *why (if why is not NULL) is set to a
 *                  static English reason, and out->type and out->size hold
 *                  the header as read (for the report; payload NULL).
 *                  Nothing after it can be trusted.
 * The header is validated as soon as its 8 bytes are there, so a bad length
 * is rejected before any payload is waited for. */
int tempo__frame_decode(const uint8_t *buf, size_t len, const tempo__frame_limits *lim, tempo__frame *out,
                        const char **why);

/* Decodes a whole stream the way the network thread does, calling
 * fn(frame, user) for each complete frame in order (fn may be NULL).
 * `at_end`: the stream ends here (the peer closed), so a partial frame left
 * over is malformed ("truncated"). Returns the number of frames, or
 * TEMPO_EFORMAT (after calling fn for the good frames before the bad one),
 * with *why set as above. */
int tempo__frame_scan(const uint8_t *buf, size_t len, const tempo__frame_limits *lim, int at_end,
                      void (*fn)(const tempo__frame *frame, void *user), void *user, const char **why);

#endif /* TEMPO_NET_FRAME_H */
