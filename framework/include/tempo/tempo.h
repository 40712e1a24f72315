/* Tempo: a passive game loop for SDL2. This umbrella header includes every
 * public Tempo header; include the individual ones to keep builds lean. */
#ifndef TEMPO_TEMPO_H
#define TEMPO_TEMPO_H

#include "base.h"
#include "loader.h"
#include "wait.h"
#include "netq.h"
#include "loop.h"
#include "input.h"
#include "audio.h"
#include "sources.h"
#include "replay.h"

#endif /* TEMPO_TEMPO_H */
