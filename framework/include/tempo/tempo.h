/* Tempo: a passive game loop for SDL2. This umbrella header includes every
 * public Tempo header this build installed: tempo/net.h only when the
 * library has the network thread (TEMPO_HAVE_NET, from the generated
 * tempo/config.h). Include the individual ones to keep builds lean. */
#ifndef TEMPO_TEMPO_H
#define TEMPO_TEMPO_H

#include <tempo/config.h>

#include "base.h"
#include "clock.h"
#include "wait.h"
#include "loop.h"
#include "source.h"
#include "stats.h"
#include "input.h"
#include "audio.h"
#include "loader.h"
#include "hotreload.h"
#include "netq.h"
#include "debugdraw.h"
#include "sources.h" /* compatibility: its attaches are in the objects' headers */
#include "replay.h"
#include "determinism.h"
#if TEMPO_HAVE_NET
#include "net.h"
#endif
#include "oldnames.h" /* 0.1 names as errors that name their replacement; TEMPO_NO_OLDNAMES: off */

#endif /* TEMPO_TEMPO_H */
