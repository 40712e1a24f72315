# ./dev bench's plots, from the data files the benchmarks write when
# TEMPO_BENCH_DATA names a directory. Usage:
#   gnuplot -e "data='build/bench-data'; out='build/bench-plots'" tests/bench/bench_plots.gp
# docs/bench_pacing_slow.png (docs/pacing.md) from bench_pacing alone:
#   mkdir -p build/bench-data build/bench-plots
#   TEMPO_BENCH_DATA=$PWD/build/bench-data build/tests/bench/bench_pacing
#   gnuplot -e "data='build/bench-data'; out='build/bench-plots'; only='pacing'" tests/bench/bench_plots.gp
# Every plot is a small PNG (pngcairo is not in gnuplot-nox; the gd terminal is).
if (!exists("data")) data = 'build/bench-data'
if (!exists("out")) out = 'build/bench-plots'
# only='pacing' (or netq, loader, wait, game, latency): that plot alone, from one benchmark's data.
if (!exists("only")) only = 'all'

set terminal png size 800,360 font ",9"
set grid ytics lc rgb '#dddddd'
set key top right
f(n) = data.'/'.n

# 1. bench_netq: frame time during the 10k-message burst, per drain policy
# (fake clock, deterministic). The classic policy's flush shows as one
# 2-second frame; log scale keeps the 16.7 ms line readable next to it.
if (only eq 'all' || only eq 'netq') {
set output out.'/bench_netq_burst.png'
set title 'bench\_netq: frame time during a burst of 10 000 messages (0.2 ms each), per policy'
set xlabel 'time since the burst (s, simulated 60 Hz loop)'
set ylabel 'frame time (ms, log scale)'
set logscale y
set xrange [0:4]
set arrow 1 from graph 0, first 16.7 to graph 1, first 16.7 nohead dt 2 lc rgb '#888888'
plot f('netq-burst-classic.dat') u 1:2 w steps lw 2 t 'classic', \
     f('netq-burst-fixed.dat') u 1:2 w steps lw 2 t 'fixed 20 ms', \
     f('netq-burst-deadline.dat') u 1:2 w steps lw 2 t 'deadline', \
     f('netq-burst-drain-all.dat') u 1:2 w steps lw 1 dt 3 t 'drain-all'
unset logscale y
unset arrow 1
set xrange [*:*]
}

# 2. bench_loader: frame intervals while 500 PNGs load, synchronously vs
# through the loader (real time, real window under Xvfb).
if (only eq 'all' || only eq 'loader') {
set output out.'/bench_loader_frames.png'
set title 'bench\_loader: frame interval while loading the PNGs (60 Hz loop)'
set xlabel 'time since the load started (s)'
set ylabel 'frame interval (ms, log scale)'
set logscale y
set arrow 1 from graph 0, first 16.7 to graph 1, first 16.7 nohead dt 2 lc rgb '#888888'
plot f('loader-sync-all.dat') u 1:2 w linespoints pt 7 ps 0.6 lw 2 t 'synchronous, all at once', \
     f('loader-sync-budget.dat') u 1:2 w lines lw 1 t 'synchronous, 2 ms per frame', \
     f('loader-loader-1.dat') u 1:2 w lines lw 2 t 'Tempo loader, 1 thread', \
     f('loader-loader-2.dat') u 1:2 w lines lw 2 t 'Tempo loader, 2 threads'
unset logscale y
unset arrow 1
}

# 3. bench_wait: how late the 60 Hz ticks were, per waiting method
# (cumulative distribution of the idle phase).
if (only eq 'all' || only eq 'wait') {
set output out.'/bench_wait_lateness.png'
set title 'bench\_wait: tick lateness at 60 Hz, idle, per method (cumulative)'
set xlabel 'tick lateness (ms, log scale)'
set ylabel 'fraction of ticks at most this late'
set logscale x
set xrange [0.001:100]
set yrange [0:1]
set key bottom right
plot f('wait-late-tempo.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 3 t 'Tempo (tempo\_wait)', \
     f('wait-late-tempo-sdl-route.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 2 t 'Tempo, sdl-events route', \
     f('wait-late-delay.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 2 t 'SDL\_Delay loop', \
     f('wait-late-addtimer.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 2 t 'SDL\_AddTimer + WaitEvent', \
     f('wait-late-spin.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 1 dt 2 t 'SDL\_PollEvent spin', \
     f('wait-late-floor.dat') u ($1 > 0.001 ? $1 : 0.001):2 w lines lw 1 dt 3 lc rgb '#000000' t 'kernel floor (timerfd)'
unset logscale x
set xrange [*:*]
set yrange [*:*]
}

# 4. bench_pacing: a slow machine. Game time / wall time against the render
# cost (fake clock, 20 s per point, update 0.1 ms, 60 Hz, max_frameskip 5),
# Tempo next to the textbook deWiTTERS loop, and their ratio (right axis).
if (only eq 'all' || only eq 'pacing') {
set output out.'/bench_pacing_slow.png'
set title 'bench\_pacing: game time / wall time on a slow machine (render cost burnt per frame, 60 Hz updates)'
set xlabel 'render cost (ms)'
set ylabel 'game time / wall time'
set yrange [0:1.05]
set y2label 'Tempo / classic'
set y2range [0.9:1.1]
set y2tics 0.02
set ytics nomirror
set key top right
plot f('pacing-slow.dat') u 1:2 w lines lw 4 lc rgb '#bbbbbb' t 'classic loop (deWiTTERS, MAX\_FRAMESKIP 5)', \
     f('pacing-slow.dat') u 1:3 w linespoints pt 7 ps 0.5 lw 1 lc rgb '#1f77b4' t 'Tempo', \
     f('pacing-slow.dat') u 1:($3/$2) axes x1y2 w lines dt 2 lc rgb '#d62728' t 'Tempo / classic (right axis)'
unset y2label
unset y2tics
set y2range [*:*]
set ytics mirror
}

# 5. bench_game: every render interval around the burst and the load (the
# first round), capped and with the fake vsync: Tempo's sources, the naive
# glue, and the plain loop under the load's threads (the machine's noise).
# Each interval spans the time from one render to the next (fsteps).
if (only eq 'all' || only eq 'game') {
set output out.'/bench_game_frames.png'
set terminal png size 800,560 font ",9"
set multiplot layout 2,1 title 'bench\_game: render intervals through the network burst and the PNG load (60 Hz, software renderer)'
set xlabel 'time since the burst and the load started (s)'
set ylabel 'render interval (ms, log scale)'
set logscale y
set yrange [5:2000]
set xrange [-0.25:1.5]
set arrow 1 from graph 0, first 17.7 to graph 1, first 17.7 nohead dt 2 lc rgb '#888888'
set title 'renders capped at 60 Hz'
plot f('game-cap-machine.dat') u 1:2 w fsteps lw 4 lc rgb '#bbbbbb' t 'plain loop under the load''s threads', \
     f('game-cap-tempo.dat') u 1:2 w fsteps lw 2 lc rgb '#1f77b4' t 'Tempo sources', \
     f('game-cap-naive.dat') u 1:2 w fsteps lw 1 dt 2 lc rgb '#d62728' t 'naive (drain-all, sync load)'
set title 'paced by a 60 Hz fake vsync'
plot f('game-vsync-machine.dat') u 1:2 w fsteps lw 4 lc rgb '#bbbbbb' t 'plain loop under the load''s threads (8.9 ms lead)', \
     f('game-vsync-tempo.dat') u 1:2 w fsteps lw 2 lc rgb '#1f77b4' t 'Tempo sources', \
     f('game-vsync-naive.dat') u 1:2 w fsteps lw 1 dt 2 lc rgb '#d62728' t 'naive (drain-all, sync load)'
unset multiplot
unset logscale y
unset arrow 1
set xrange [*:*]
set yrange [*:*]
set terminal png size 800,360 font ",9"
}

# 6. bench_latency: input-to-screen latency, the cumulative distribution per
# loop (all rounds' inputs), the blocks in bench_latency.c's order (the gd
# terminal draws no dashes: a colour each).
if (only eq 'all' || only eq 'latency') {
set output out.'/bench_latency.png'
set title 'bench\_latency: input to screen, 60 Hz fake vsync, render 2 ms (interleaved rounds)'
set xlabel 'latency (ms)'
set ylabel 'fraction of inputs shown'
set key bottom right
set xrange [0:70]
set yrange [0:1]
plot f('latency.dat') index 0 u 1:2 w l lw 3 lc rgb '#1f77b4' t 'Tempo, vsync pacing', \
     f('latency.dat') index 1 u 1:2 w l lw 2 lc rgb '#9ecae1' t 'Tempo, timer pacing', \
     f('latency.dat') index 2 u 1:2 w l lw 3 lc rgb '#d62728' t 'textbook vsync loop', \
     f('latency.dat') index 3 u 1:2 w l lw 2 lc rgb '#2ca02c' t 'deWiTTERS, 60 ticks/s', \
     f('latency.dat') index 4 u 1:2 w l lw 2 lc rgb '#98df8a' t 'deWiTTERS, 25 ticks/s', \
     f('latency.dat') index 5 u 1:2 w l lw 2 lc rgb '#9467bd' t 'wait-with-timeout (GLFW-style)', \
     f('latency.dat') index 6 u 1:2 w l lw 1 lc rgb '#888888' t 'reference: fixed lead before each vblank', \
     f('latency.dat') index 7 u 1:2 w l lw 1 lc rgb '#17becf' t 'reference: Tempo vsync, VARIABLE policy', \
     f('latency.dat') index 8 u 1:2 w l lw 3 lc rgb '#ff7f0e' t 'Tempo, vsync pacing, low latency'
set key top right
set xrange [*:*]
set yrange [*:*]
}
