/* Compiled once per public header (TEMPO_HEADER): each must stand alone. */
#include TEMPO_HEADER

int main(void)
{
    return 0;
}
