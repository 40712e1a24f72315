/* What the web backend does differently, checked inside a browser page
 * (tests/web_test.js loads it in Chromium; docs/web.md): a page has no TCP
 * sockets and keeps no CPU statistics, so
 *   - tempo/net.h is in the build (TEMPO_HAVE_NET, tempo/tempo.h includes it:
 *     one game source builds for every backend) over a WebSocket:
 *     tempo_net_create() returns a net that connects later, the calls
 *     return TEMPO_EINVAL for NULL, and the frame header works as
 *     everywhere;
 *   - tempo_process_usage() returns TEMPO_ENOTSUP, not made-up numbers.
 * Built only by -Dplatform=web (tests/web/meson.build). */
#include <string.h>

#include "harness.h"
#include "tempo/tempo.h"
#include "tempo_internal.h"

#if !TEMPO_HAVE_NET
#error "tests/web needs tempo/net.h (framework/net_ws.c): configure with -Dnet=auto, as ./dev web does"
#endif

static void the_backend_is_the_webs(void)
{
    CHECK_STR_EQ(tempo_backend_name(), "web");
}

/* A page has no TCP sockets: tempo/net.h speaks WebSocket to a bridge
 * (framework/net_ws.c; tests/web/net_ws_check.c checks it against one).
 * Created, it is a net that connects later: the outcome arrives in the
 * queue. */
static void tempo_net_create_makes_a_websocket(void)
{
    tempo_netq *q = tempo_netq_create(NULL);
    CHECK(q != NULL);
    tempo__clear_error();
    tempo_net *net = tempo_net_create(&(tempo_net_desc){.host = "127.0.0.1", .port = 7777, .queue = q});
    tt_note("tempo_net_create: %s (%s)", net ? "a net" : "NULL", net ? "a WebSocket" : tempo_get_error());
    CHECK(net != NULL);
    CHECK_EQ_INT(tempo_net_error(net), 0);
    CHECK_EQ_INT(tempo_net_send(net, 1, "x", 1), TEMPO_EBUSY); /* not connected yet */
    tempo_net_destroy(net);
    tempo_netq_destroy(q);
}

static void the_calls_that_need_a_net_return_einval(void)
{
    tempo_net_stats st;
    CHECK_EQ_INT(tempo_net_send(NULL, 1, "x", 1), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_error(NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_get_stats(NULL, &st), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_attach(NULL, NULL, NULL, NULL), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_net_detach(NULL), TEMPO_EINVAL);
}

static void the_frame_header_is_the_wire_formats(void)
{
    uint8_t h[TEMPO_NET_HEADER_BYTES];
    CHECK_EQ_INT(tempo_net_frame_header(h, 0x0102, 0x030405), 0);
    static const uint8_t want[TEMPO_NET_HEADER_BYTES] = {0, 3, 4, 5, 1, 2, 0, 0};
    for (int i = 0; i < TEMPO_NET_HEADER_BYTES; i++)
        CHECK_EQ_INT(h[i], want[i]);
}

static void process_usage_reports_not_supported(void)
{
    tempo_usage u;
    memset(&u, 0x5a, sizeof u);
    CHECK_EQ_INT(tempo_process_usage(&u), TEMPO_ENOTSUP);
}

static const tt_case cases[] = {
    TT_CASE(the_backend_is_the_webs),
    TT_CASE(tempo_net_create_makes_a_websocket),
    TT_CASE(the_calls_that_need_a_net_return_einval),
    TT_CASE(the_frame_header_is_the_wire_formats),
    TT_CASE(process_usage_reports_not_supported),
};

int main(int argc, char **argv)
{
    return TT_MAIN(argc, argv, cases);
}
