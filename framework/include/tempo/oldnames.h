/* Tempo: the names 0.2.0 renamed or removed, so that a port from 0.1 is told
 * what to write instead.
 *
 * Each old name is a macro that expands to a name saying what replaced it:
 *
 *   tempo_audio *au = tempo_audio_open(NULL);
 *   error: called object 'tempo_audio_open_was_renamed_to_tempo_audio_create'
 *          is not a function or function pointer
 *
 * Without this header, gcc before 14 only warns about an undeclared function
 * (an implicit declaration, its "did you mean" suggestion often wrong) and the
 * build fails at link time with the old name alone. Here the target of every
 * function's macro is declared as an object of an incomplete struct type of
 * the same name, so every use is a compile error in C and C++, whatever the
 * flags: a call ("called object ... is not a function"), and a function
 * pointer initialised with it ("incomplete type"); the compiler names the
 * object (gcc) or its type (clang) in the error, and shows the macro's line.
 * A removed type expands to a type name that does not exist ("unknown type
 * name"), which says what to use instead.
 *
 * tempo/tempo.h includes this header. Opt out by defining TEMPO_NO_OLDNAMES
 * before including any Tempo header: then none of these names is a macro
 * (a game that keeps its own shims under the old names, say). A game that
 * includes the individual headers instead of tempo/tempo.h may include this
 * one itself. The full list of changes, with what did not fit a macro
 * (removed struct fields, changed signatures), is in CHANGELOG.md.
 *
 * Nothing here is part of the library's ABI: no symbol is defined for these
 * declarations, and no valid program refers to them.
 */
#ifndef TEMPO_OLDNAMES_H
#define TEMPO_OLDNAMES_H

#ifndef TEMPO_NO_OLDNAMES

/* Declares the name an old function's macro expands to: an object of an
 * incomplete struct type whose tag is the same name, so that clang's
 * message, which names the type rather than the object, says it too. */
#define TEMPO__OLDNAME(target) extern const struct target target

/* Renamed in 0.2.0: create/destroy pairs (docs/conventions.md). */
TEMPO__OLDNAME(tempo_audio_open_was_renamed_to_tempo_audio_create);
TEMPO__OLDNAME(tempo_audio_close_was_renamed_to_tempo_audio_destroy);
TEMPO__OLDNAME(tempo_replay_open_was_renamed_to_tempo_replay_create);
TEMPO__OLDNAME(tempo_replay_close_was_renamed_to_tempo_replay_destroy);
TEMPO__OLDNAME(tempo_net_connect_was_renamed_to_tempo_net_create);
#define tempo_audio_open tempo_audio_open_was_renamed_to_tempo_audio_create
#define tempo_audio_close tempo_audio_close_was_renamed_to_tempo_audio_destroy
#define tempo_replay_open tempo_replay_open_was_renamed_to_tempo_replay_create
#define tempo_replay_close tempo_replay_close_was_renamed_to_tempo_replay_destroy
#define tempo_net_connect tempo_net_connect_was_renamed_to_tempo_net_create

/* Renamed in 0.2.0: statistics getters are tempo_T_get_stats.
 * tempo_hotreload_stats_get was never in a release (main between 0.1.0 and
 * 0.2.0 only). */
TEMPO__OLDNAME(tempo_loader_stats_get_was_renamed_to_tempo_loader_get_stats);
TEMPO__OLDNAME(tempo_hotreload_stats_get_was_renamed_to_tempo_hotreload_get_stats);
TEMPO__OLDNAME(tempo_loop_record_stats_was_renamed_to_tempo_loop_get_record_stats);
#define tempo_loader_stats_get tempo_loader_stats_get_was_renamed_to_tempo_loader_get_stats
#define tempo_hotreload_stats_get tempo_hotreload_stats_get_was_renamed_to_tempo_hotreload_get_stats
#define tempo_loop_record_stats tempo_loop_record_stats_was_renamed_to_tempo_loop_get_record_stats

/* Removed in 0.2.0: the clock callback of tempo_netq_desc (with its fields
 * now_ns and clock_user, and tempo_loader_desc's now_ns and now_user). Set
 * desc.clock, a tempo_clock (tempo/clock.h), whose `now` has the same
 * signature. Deliberately left undeclared. */
#define tempo_netq_clock_fn tempo_netq_clock_fn_was_removed_use_tempo_clock

#endif /* TEMPO_NO_OLDNAMES */

#endif /* TEMPO_OLDNAMES_H */
