/* Tempo: a compatibility header. Up to 0.2 it declared the one-call
 * attaches of the framework's objects to a tempo_loop; each is now
 * declared in its object's own header, which this includes:
 *
 *   tempo_loader_attach, _detach           tempo/loader.h
 *   tempo_audio_attach, _detach,
 *   tempo_audio_notice_fn                  tempo/audio.h
 *   tempo_input_attach, _detach            tempo/input.h
 *   tempo_net_attach, _detach              tempo/net.h (builds with the
 *                                          network thread: TEMPO_HAVE_NET)
 *   tempo_netq_attach, _detach             tempo/netq.h (always was)
 *
 * New code includes those headers (or tempo/tempo.h). The rules every
 * attach shares (one shape, destroy in any order, never watch these
 * objects' handles) are in tempo/source.h.
 */
#ifndef TEMPO_SOURCES_H
#define TEMPO_SOURCES_H

#include <tempo/config.h>

#include "audio.h"
#include "input.h"
#include "loader.h"
#include "netq.h"
#if TEMPO_HAVE_NET
#include "net.h"
#endif

#endif /* TEMPO_SOURCES_H */
