/* Compiled once per public header (TEMPO_HEADER): each must stand alone. */
#include TEMPO_HEADER

/* SDL's signature: where sdl2.pc renames main to SDL_main (Windows), it
 * must match SDL_main's prototype. */
int main(int argc, char *argv[])
{
    (void)argc;
    (void)argv;
    return 0;
}
