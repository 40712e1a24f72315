/* Backend capabilities (tempo_backend_has): what each TEMPO_CAP_* bit
 * promises is what the backend does. Backend-agnostic: the same checks run
 * on every backend, without comparing names. */
#include <stdio.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/input.h"
#include "tempo/tempo.h"

#define MS TEMPO_NS_PER_MS

static void no_capability_is_had_for_zero(void)
{
    CHECK(!tempo_backend_has(0));
    const unsigned all[] = {TEMPO_CAP_NATIVE_INPUT, TEMPO_CAP_OS_MESSAGE_WAIT, TEMPO_CAP_SDL_ROUTE,
                            TEMPO_CAP_HOST_LOOP};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            CHECK_EQ_INT(tempo_backend_has(all[i] | all[j]),
                         tempo_backend_has(all[i]) && tempo_backend_has(all[j]));
}

/* The route a message wait takes follows the capabilities: the OS message
 * wait ("msgwait"), or with TEMPO_SDL_WAIT_ROUTE=sdl the pure-SDL route. */
static void message_wait_route_follows_the_capabilities(void)
{
    CHECK_EQ_INT(tempo_wait(NULL, 0, 1 * MS, TEMPO_WAIT_MESSAGES), TEMPO_ETIMEDOUT);
    const char *route = tempo_wait_route();
    tt_note("backend %s, route %s", tempo_backend_name(), route);
    if (tempo_backend_has(TEMPO_CAP_OS_MESSAGE_WAIT))
        CHECK(strncmp(route, "msgwait", 7) == 0);
    else
        CHECK(strncmp(route, "msgwait", 7) != 0);
    if (tempo_backend_has(TEMPO_CAP_SDL_ROUTE))
        CHECK_STR_EQ(route, "sdl-events"); /* TEMPO_SDL_WAIT_ROUTE=sdl, set in main */
}

static void native_input_is_refused_without_the_capability(void)
{
    if (tempo_backend_has(TEMPO_CAP_NATIVE_INPUT))
        TT_SKIP("native input attaches on real windows: test_dinput, test_win32");
    tempo_input *in = tempo_input_create(&(tempo_input_desc){.no_controllers = true});
    CHECK(in != NULL);
    /* Any non-NULL pointer: the backend refuses before looking at it. */
    CHECK_EQ_INT(tempo_input_attach_window(in, (SDL_Window *)(void *)&in, 0), TEMPO_ENOTSUP);
    tempo_input_destroy(in);
}

static const tt_case cases[] = {
    TT_CASE(no_capability_is_had_for_zero),
    TT_CASE(message_wait_route_follows_the_capabilities),
    TT_CASE(native_input_is_refused_without_the_capability),
};

int main(int argc, char **argv)
{
    /* Read once, at the first message wait: select the pure-SDL route where
     * it exists (and is not already the only one). */
    SDL_setenv("TEMPO_SDL_WAIT_ROUTE", "sdl", 1);
    if (SDL_Init(SDL_INIT_EVENTS) != 0) {
        printf("# SDL: %s\n", SDL_GetError());
        return 1;
    }
    int rc = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
