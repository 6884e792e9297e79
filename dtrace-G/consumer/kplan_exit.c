// SPDX-License-Identifier: MIT
/*
 * kplan_exit.c - where exit(), and printa(), clear() and trunc() at
 * tick-N, cut what the kernel counts, so that the kernel may run
 * clauses beside them (kplan.c decides which): d_kplan_exits() and
 * d_kplan_folds(), the tick-N clauses the horizon is for
 * (d_kplan_horizon()) or the intervals that replace it (d_kplan_ival(),
 * "Intervals"), and the exit() a traced probe's program decides
 * at the hit (exit_at_hit(), d_kplan_xtest(); d_kplan_xwhy() says why
 * not).  The kernel's side is bpf_agg.c's and cgen.c's, dtrace's
 * kprov.c's and records.c's; the arguments are here.
 *
 * Why exit(), and tick-N's horizon.  User space runs the hits in time
 * order, a tick-N firing stamped with the time it was due
 * (kprov_profile.c), and after the clause that calls exit() it runs
 * nothing more (records.c): it counts the hits stamped before the
 * exiting firing's due time and none after.  The kernel's counts carry
 * no time and are read only after tracing stops, a read and a detach
 * after the exit ran, so stopping the kernel when dtrace runs exit()
 * would count the hits in between: the cut must be told to the kernel
 * before.  For exit() in clauses that fire at tick-N probes alone
 * (ticks, kprov.c's kprov_tick_clause(): every description
 * profile:::tick-N or tick-N, or dtrace:::END beside them, which runs
 * after the last merge) it is, with D_KPLAN_VARS (generated
 * programs): the kernel keeps a horizon H (the map cghzn, bpf_agg_cgen.c;
 * tested in cgen.c's prologue), and a hit stamped t >= H runs no plan
 * and writes its record unflagged, so user space runs all its clauses,
 * as for a hit before its plan arrived.  dtrace sets H to the due time
 * of the next firing of a tick-N probe with a clause that may call
 * exit() (d_kplan_exits(); its predicate may decide: every firing
 * counts) and moves it on once a read has run the firings it drained
 * (kprov.c's kprov_horizon(); records.c, after the read's last
 * firing).  Why that is exact:
 *  - One clock, one stamp.  Firing k's timer expires at the absolute
 *    CLOCK_MONOTONIC time t0 + k * period, the time its record carries;
 *    bpf_ktime_get_ns() reads CLOCK_MONOTONIC too, once per hit,
 *    before the plan: the value compared with H is the one the record
 *    carries, so a hit is before the firing in the kernel's test
 *    exactly when it is in user space's order (at the same
 *    nanosecond the firing sorts first, as t >= H wants).
 *  - H never passes the exiting firing: it takes only the due times of
 *    firings not yet run, and after exit() it is not moved.  A hit the
 *    kernel counted has t < H <= that due time; any other hit has its
 *    record, which user space runs when t is before the due time and
 *    not after it, as in a run without the kernel.  So each hit before
 *    the exit counts once, and none after.
 *  - Per-CPU races.  H is one aligned u64 that dtrace writes and every
 *    CPU reads after stamping its hit; whichever value a hit read, old
 *    or new, was the due time of a firing not yet run, so t < it puts
 *    the hit in the kernel rightly, and else the record goes.  Before
 *    BEGIN H is UINT64_MAX (no firing is set); kprov_start() writes now
 *    + the shortest such period before it reads the timers' t0, so a
 *    hit that read UINT64_MAX was stamped before every firing.
 *  - Several tick-N probes: H is the earliest next firing among those
 *    that may exit; the others' firings do not move it.
 *  - The order in user space: the ticks due are read before the ring
 *    (records.c's drain_buffers()), and a hit stamped at or past a
 *    firing not yet read waits for it (the timer may expire after its
 *    due time), so no hit past the exit runs before it.  What remains
 *    is a record written to the ring after dtrace read the ring for the
 *    exiting firing although its hit was stamped before: a hit of a
 *    clause the kernel runs writes one only when it read an H older
 *    than the exiting firing's, which was set a period before; one of
 *    a clause user space runs is the ring's, as without a horizon.
 *  - Past H every clause of a hit runs in user space, so with a horizon
 *    the kernel keeps no self-> variable (kplan_vars.c); this-> ones are
 *    the hit's own.  A site a tick-N clause matches after all (a USDT
 *    probe named tick-1s) would make its exit() a traced probe's: H
 *    becomes 0 for good before the site is armed (sites.c, kprov.c's
 *    kprov_horizon_off()), and a hit that read an older H was stamped
 *    before the site could fire.
 * The cost is a load of H per hit, and a clock read but where the
 * lease (below) spares it, and a load of the run's activity, which
 * stops every hit once the exit() has run (below, "The flood").  The
 * generic program has neither
 * a horizon nor the activity below: exit(), printa(), clear() and
 * trunc() keep every clause out of its kernel (tests/run-kagg.sh).
 *
 * printa() at tick-N.  The per-interval report, `tick-1s { printa(@);
 * clear(@); }`, reads and resets aggregations while the kernel counts.
 * A tick-N clause that may call printa(), clear() or trunc() (and
 * normalize(), denormalize(), exit(): d_kplan_exits(), KP_ST_TICK) is
 * treated as one that may exit: H is the due time D of the next firing
 * of a tick-N probe with such a clause.  At each firing of one whose
 * clause reads or resets (d_kplan_folds(), kprov.c's kp_tick folds),
 * before its clauses run, dtrace folds the kernel's aggregations into
 * its own (bpf_agg_read.c's bpf_kagg_fold(): each entry merged as at the end,
 * then deleted, kflat's slots zeroed), so clear() and trunc() act on
 * everything counted, and the kernel starts again from nothing.  Then
 * its clauses run, and once the read's firings have run H moves to the
 * next such firing.  A tick-N clause that mentions a global the kernel
 * counts (kplan_gcnt.c) is such a clause too: the fold adds what the
 * kernel counted to the global before the clause reads or resets it.
 * Why each hit before D is counted exactly once, in the interval before
 * D, and none after:
 *  - The barrier.  A hit stamped t < D may still be running when dtrace
 *    reads the firing: preempted between its stamp and its map update
 *    or record.  So when a read takes such a firing from its timer
 *    (kprov_drain(): at or after D), dtrace updates a map of maps
 *    (bpf_agg_read.c's bpf_kagg_barrier()) before it reads the ring: the
 *    kernel's map_update_elem() then waits for every BPF program
 *    running (maybe_wait_bpf_programs(): synchronize_rcu(), since
 *    Linux 4.20; the generated programs are not sleepable and run in
 *    rcu_read_lock()).  A hit stamped before D began before the
 *    barrier, so when it returns the hit has ended: its counts are in
 *    the maps, or its record in the ring, which is read after.
 *  - Nothing writes the maps during the fold.  H <= D until the firing
 *    has run (H is the earliest such firing not yet read, and moves
 *    once the firings of the read that drained it have run).  A hit
 *    the kernel counts
 *    has t < H <= D, and those have all ended (the barrier); any other
 *    hit writes a record.  The fold therefore reads every hit the
 *    kernel counted with t < D since the last fold, and none past D;
 *    deleting what it read loses nothing, since nothing came in
 *    between.  The records of hits before D ran before the firing
 *    (time order, ticks first at the same nanosecond: records.c), so
 *    user space holds exactly the aggregation state of the hits
 *    stamped before D when its clauses run: printa() prints the
 *    interval, clear() and trunc() reset it all.
 *  - After the fold.  Hits stamped at or past D that read the old H
 *    wrote records, run after the firing; once H moves to the next
 *    such firing D', hits with t < D' count in the kernel, to be
 *    folded at D'.  Several firings read at once (dtrace late) fold in
 *    turn: the barrier covered them all (each was due before it), H
 *    stays at or before the first until the last of them has run, and
 *    the hits between them are records, run in their order.
 *  - A site a tick-N clause matches (hz_off, H 0 for good): dtrace
 *    waits at a barrier once H is 0, so the kernel's maps hold hits
 *    stamped before the site was armed, ended; its hits that run such
 *    a clause fold first (kprov.c's kprov_site_fold()), exact as at a
 *    firing, their earlier records run.
 *  - Several tick-N probes, exit() among them, self-> variables: as
 *    for exit() above; a fold at a firing whose
 *    clause does not print (its predicate false) is harmless, since the
 *    kernel's counts at D are exact whenever they are folded.
 * The cost: the barrier (a grace period, some milliseconds) and a read
 * of the maps per folding firing; past D, until H moves, hits come as
 * records (tests/run-kagg-tick.sh; bench/perhit.sh's tickpa row).
 * Clauses of other probes that printa(), clear() or trunc() still keep
 * every clause in user space.
 *
 * The lease.  Reading the clock at every hit to compare it with H cost
 * 30 to 60 ns a hit here (bench/RESULTS.md: tickpa 90-102 ns against
 * count()'s 41-54, the same program without a horizon).  A
 * plan that writes no record and reads no time (cgen.c's hzfree: a
 * uprobe's or a kernel probe's) needs the time only to compare, and
 * only near H; so after
 * a read has moved the horizon on, dtrace lends the kernel the value
 * UINT64_MAX, which no stamp reaches, until hz_margin (half the
 * shortest such period, at most 50 ms) before the next horizon firing
 * D, and then gives the lease back: it writes D (kprov.c's
 * hz_revoke(), from a timerfd for D - hz_margin, and at every read of
 * the ticks before they are read).  Such a program loads H first and
 * skips the clock while it is UINT64_MAX: that hit counts in the
 * kernel, as every program's would (t < UINT64_MAX).  Why that is
 * exact:
 *  - On time.  dtrace reads the clock after writing D; when that is
 *    before D, every hit that read UINT64_MAX read it before the write,
 *    so before D: counted in the kernel, as with H = D.  A hit that
 *    read D compares its stamp as before.
 *  - Late (dtrace did not run between D - hz_margin and D: a loaded
 *    machine).  Hits between D and the give-back may have counted in
 *    the kernel.  Then the firings due at D of the ticks that may exit
 *    or fold are stamped with the give-back's time G (the clock read
 *    after writing D) instead of D, as a timer that expired late: a hit
 *    that read UINT64_MAX read it before G; one that read D and was
 *    stamped t < D counts in the kernel, before D; D <= t < G writes a
 *    record, run before the firing by its stamp (all its clauses in
 *    user space); t >= G, after it.  So each hit is
 *    on the firing's side that its stamp, or for a hit with no stamp
 *    its read of H, puts it, once; kprov_next_due() gives G, so a
 *    record stamped before G does not wait for the firing.  A barrier
 *    (bpf_kagg_barrier()) right after the give-back ends every program
 *    that began before G, so their records are in the ring when it is
 *    read for the firing.  Ticks not the horizon's keep their due
 *    times; one due between D and G now sorts before the late firing,
 *    which is when it ran.
 *  - After exit() nothing is lent (kprov_horizon() does not move H),
 *    nor with H 0 for good (hz_off), and DTRACE_HZ_LEASE=0 turns the
 *    lease off (H written as before); DTRACE_HZ_LEASE=late gives it
 *    back only at D, every firing late (tests/run-kagg-tick.sh checks
 *    both ways that each tick counted by an interval had its pair
 *    printed before it, which a late firing stamped D would break).
 *  - Kernel probes (cgen_kprov.c: syscall, proc, profile-N) take the
 *    lease as uprobes do: their plan runs on every hit, unarmed, but
 *    the argument above asks nothing of the probe but that the hit
 *    read H once, before its plan, and that a hit past H write its
 *    record with a clock of its own, read after; a barrier ends a
 *    perf event's program (hard interrupt or NMI) as it ends a
 *    uprobe's, since the grace period waits for those too.  -v says
 *    how many programs of each kind the lease spares the clock
 *    (kprov_stop(); tests/run-kagg.sh's system call at tick-1s).
 *  - Not a plan that writes a record (pl->record: a printf() the
 *    kernel runs, a clause it leaves to user space behind a record
 *    gate), nor one that reads timestamp, which needs the clock
 *    anyway.  The record's stamp orders its clauses in user space,
 *    and under the lease it would be read after the plan ran: a hit
 *    that read UINT64_MAX before the give-back at D - hz_margin and
 *    was preempted past D would have its kernel clauses before the
 *    firing and its record, stamped past D, after it -- split by an
 *    exit() or a fold.  What would make it exact is a barrier at
 *    every give-back, the firing then stamped with the time after it
 *    when that is past D (as a late give-back): every hit that read
 *    the lease ended before its firing, record and all.  That costs
 *    dtrace a grace period per horizon firing and spares the clock
 *    only to a gated plan's hits whose gates fail (a gated record
 *    needs its stamp); bench/perhit.sh's rows with a horizon (tickpa)
 *    write no record, so it is not done.
 *  - The lease in the arm word.  Where no exit() is decided at a hit
 *    (cgact changes only when dtrace writes it), the lease is told to
 *    a uprobe's such program in its event's arm word too (bpf_agg_cgen.c's
 *    hz_marks(), cgen.c's hzarm): the first armed process's pid, bit
 *    31 set whenever H is not UINT64_MAX or the run has exited, which
 *    dtrace does before it writes H or cgact, and cleared after H is
 *    lent again.  A hit that finds its pid unmarked runs the plan at
 *    once, with no load of H or cgact (count()'s path exactly: the
 *    tickpa row); one that finds it marked takes the hash's path and
 *    tests cgact, then the lease, as above.  Exact for the same
 *    reason: a hit that read the word unmarked read it before the
 *    write that marked it, so before the write of D (or of cgact),
 *    which is all the arguments above ask of a hit that read
 *    UINT64_MAX (and cgact 0).
 * DTrace's own aggregations have no such cut: printa() at a tick prints
 * the consumer's last snapshot, taken when it switched the per-CPU
 * buffers, after the tick; here the cut is the tick's time, or the
 * give-back's when that is later.
 *
 * The flood.  A hit stamped at or past H writes a record.  Two kinds
 * reach the ring for nothing or late: those after an exit() user space
 * ran (at a tick, or BEGIN's), until dtrace detaches -- every hit of a
 * target firing flat out, which user space reads and does not run
 * (records.c), 60,931 records read, all but one after it, once on
 * the idle VM (run-kagg.sh's flat out; 1 with cgact below), and under
 * the sanitizers enough to fill the ring: drops that were no loss, or
 * real losses, said alike -- and those between a firing's due time D
 * and the horizon's move after dtrace ran it.
 *  - After the exit.  Once a clause's exit() returns in user space
 *    (records.c's run_clauses(), an exit() the kernel did not decide),
 *    dtrace writes 2 into cgact (bpf_agg_read.c's bpf_kagg_exited(); a
 *    program with a horizon has it, as one with an exit() decided at
 *    the hit), which every generated program reads first, before its
 *    clock (cgen.c's act_load()): not 0, the hit does nothing, no plan,
 *    no record.  Why that is exact: a hit that read 2 read it after
 *    the write, which came after the exiting firing was read, itself
 *    at or after the time it is stamped with (its due time, or the
 *    give-back's G); its clock, read after, is later still.  User
 *    space runs nothing stamped after the exit's stamp, and the kernel
 *    counts nothing at or past H, which a tick's exit left at or
 *    before it: the hit would have counted nowhere.  (BEGIN's exit()
 *    comes before any horizon: the kernel counted the hits until
 *    dtrace detached, now until the write.)  A hit that read 0 goes on as
 *    before (its record, if it writes one, is read and not run; its
 *    kernel counts, if t < H, are the run's).  An exit the kernel
 *    decided left cgact 1 and the records it let through to run
 *    (kdrain): nothing to write.  Then a barrier (cgbar) ends every
 *    hit that read 0, so no record can be stamped after the clock read
 *    after it: -v says how many records came after the exit and how
 *    many of them were stamped after that time, which must be none
 *    (tests/run-kagg.sh's and run-kagg-tick.sh's flat out).  The cost
 *    is a load of cgact per hit, from the program's own map value.
 *  - Between D and the move.  At an exiting firing those hits run
 *    nothing either; at a folding one they run after its clauses, as
 *    the next interval's.  How many is the time dtrace takes from D to
 *    the move: the timer's wake-up (dtrace polls the timerfd, which
 *    expires at D: waking it earlier would not let it move H sooner),
 *    the barrier at a folding firing (a grace period, some
 *    milliseconds; it must come after D, to end the hits stamped
 *    before), the ring's read, and running the read's hits, those
 *    records among them: the more records, the longer the run and the
 *    more records.  H cannot
 *    move before the firing's clauses ran (they may exit: the exit's
 *    cut is H) nor before the fold (the maps must be still while it
 *    reads and deletes), but it need not wait for the hits behind the
 *    firing: once the read's last tick firing has run, every firing
 *    drained has (H must be the next firing not yet run, and a read
 *    may drain several), so records.c moves H then (kprov_horizon()),
 *    not at the end of the read.  That is what the end of the read
 *    did, earlier: a hit past D that read the old H writes a record
 *    stamped before the next such firing D', run before it; one that
 *    reads the new H counts in the kernel, folded at D'.  Counting the
 *    hits past D in a later interval of the kernel's maps, folded at
 *    D', sends none at all: done where the horizon is only the folds'
 *    ("Intervals" below).  The flood is then the wake-up, the barrier
 *    and the ring's read (tests/run-kagg-tick.sh says how many
 *    records), and on a loaded machine, where dtrace wakes late, it
 *    is most of what is read after the exit (279,549 records of
 *    331,657 once, during check-kmod's guest).  For a firing that
 *    surely exits (`tick-1s { exit(0); }`: no predicate, exit() of a
 *    constant first) dtrace could tell the kernel with the horizon
 *    that a hit at or past it does nothing at all, sending none from
 *    D on; but a run that stops (the target ended, a signal) after D
 *    and before it reads the firing drops that firing unrun
 *    (kprov_stop()) and runs the records past D, which the kernel
 *    would then have withheld: it needs teardown to run the ticks
 *    already due first, a change of what every such run prints at its
 *    end, left for its own round.
 *  - Drops.  A record the ring had no room for is counted per CPU
 *    with no stamp, and dtrace says each drop when it reads the count,
 *    before it runs the read's firings.  Saying instead that the drops
 *    stamped at or past the exit's time were no loss would need the
 *    kernel to keep the stamps it dropped (a per-CPU minimum, which
 *    dtrace could not reset without racing the CPU that writes it)
 *    and dtrace to hold every drop back until the firings before it
 *    ran.  With the exit told to the kernel, what is left to drop past
 *    the exit is what was stamped between its due time and the write
 *    to cgact; drops are still said as drops.
 *
 * Intervals.  Past the horizon every clause of a hit runs in user
 * space, so the kernel keeps no self-> variable, and the most common
 * report of all, `start { self->t = timestamp; } done /self->t/ { @ =
 * quantize(timestamp - self->t); self->t = 0; } tick-1s { printa(@);
 * clear(@); }`, ran every hit as a record (622,172 records read and
 * 217,828 dropped for 400,000 pairs on the 2-vCPU VM), and so did the
 * one-liner that times for ten seconds, `... tick-10s { exit(0); }`.
 * Where the tick-N probes that may exit() or fold (or read a global
 * the kernel counts, kplan_gcnt.c, a sum() keyed by interval as any,
 * folded into the global at the firing) have
 * periods that are multiples of the shortest, P (kprov.c's
 * kprov_fold_period(): their firings all on P's boundaries), nothing
 * speculates, the run is not the in-process activation's, and the
 * program keeps a self-> variable (D_KPLAN_IVAL; DTRACE_KAGG_IVAL=1
 * even without one, =0 never: bpf_agg_cgen.c), the kernel keys its
 * counts by interval instead (kp_ival_decide(): k->ival, no horizon):
 *  - The key.  Every aggregation entry's key begins with struct
 *    ubpf_kkey, whose pad word holds the low 32 bits of the hit's
 *    interval e = (t - B) / P (cgen.c's prologue, after its one clock
 *    read t, the record's stamp too; AGG writes {agg, bucket} alone,
 *    cgen_agg.c); B is read before any program is loaded, an
 *    immediate, so t >= B and BPF's unsigned division is exact.
 *    Statements without keys are in kaggs too (no kflat slot: it has no
 *    key).  Those ticks fire at B + k * their period (kprov_start():
 *    the first such time after the start), stamped so.
 *  - The fold at firing k (due D = B + k * P), after the barrier as
 *    before (every hit stamped before D has ended), takes the entries
 *    whose interval is before k (serial order of the 32 bits: the live
 *    ones are a few apart) and leaves the later ones, which hits past D
 *    are writing (bpf_agg_read.c's fold_ival(): keys listed, then each
 *    merged and deleted).  A hit is in interval e < k exactly when t <
 *    D, the side of the firing its record (if any) is run on by the
 *    same stamp: so printa() prints the hits before D, clear() resets
 *    them, and the hits past D, whenever dtrace reads the firing, are
 *    the next interval's, with no record sent for them.  Several
 *    firings read at once fold in turn, each its own intervals.  The
 *    end (the last merge, before END) takes every interval, as a run
 *    that stops before reading a due firing runs the records past it.
 *  - exit() at a tick firing k (its time on a boundary): user space runs
 *    no record stamped after it, and the last merge leaves the
 *    intervals from k's on (bpf_agg_read.c's bpf_kagg_ival_exit(),
 *    told by kprov.c's kprov_exited() with the firing's time, which
 *    kprov_hit() keeps while the tick's clauses run): a hit is counted
 *    exactly when it is before the exit, in the kernel as in user
 *    space.  cgact then stops every program, as after any exit user
 *    space ran ("The flood"); the hits between the firing and that
 *    write count in intervals nobody merges.  An exit() elsewhere
 *    (BEGIN's, END's, one the kernel decided) cuts as before.
 *  - No horizon, no lease: nothing moves a cut, and the clock is read
 *    at every hit of a plan that aggregates (a timing script reads it
 *    anyway).  cghzn stays UINT64_MAX, tested as before, for the one
 *    case left: a site a tick-N clause matches (hz_off, above) makes
 *    it 0 for good, every hit then user space's; there the self->
 *    variables the kernel kept move to user space after the barrier,
 *    every thread's (bpf_agg_cgen.c's bpf_kagg_tls_move_all(), as a
 *    thread's at its record in "Two copies": a hit that read H
 *    UINT64_MAX ended before the barrier returned, and every later hit
 *    runs no plan), and the site's fold takes every interval.  Global
 *    arrays stay user space's beside intervals (their elements would
 *    not move: kplan_vars.c).
 * Cost: a clock read and a division per hit of a plan that aggregates,
 * entries per live interval (two or three a key), and a key listing per
 * fold.  Periods that are not multiples of the shortest, and
 * speculations, keep the horizon.  tests/run-kagg-ival.sh.
 *
 * exit() at a traced probe.  DTrace (illumos dtrace_probe()) checks,
 * for each ECB a firing runs, that the run is ACTIVE and does nothing
 * for it otherwise; the exit() action moves the run from ACTIVE to
 * DRAINING with a compare-and-swap, and one that fails (another CPU
 * exited first) drops its ECB's record, silently: no drop is counted.
 * So the cut is the kernel's order: what ran before the swap counts,
 * whatever its time.  The generated programs do the same with a
 * run-wide u64 (the map cgact, bpf_agg_cgen.c), tested at the start of every
 * hit (cgen.c's act_load(), act_test()): not 0, the hit does nothing, no plan,
 * no record.  A clause of probes whose hits all run generated programs (traced,
 * bpf_agg_cgen.c's traced_clause(): uprobe sites, USDT and pid, and the kernel
 * providers' probes that fire a program of their own, syscall, proc and
 * profile-N, cgen_kprov.c's; not BEGIN, END, ERROR or tick-N, which fire in
 * dtrace) that calls exit()
 * after nothing that can fault, its predicate integers the hit alone
 * decides (exit_at_hit(); a record gate's, kplan.c's gate_ok()), is tested
 * there too, before anything else of the hit (d_kplan_xtest(): the event's
 * exiting clauses' predicates, a REC where one holds): then the hit
 * does cmpxchg 0 -> 1; the winner goes on and its record says so
 * (UBPF_RF_XWON), a loser does nothing, as a hit that found 1.  Doing
 * the test first, not at the clause's place, moves nothing: the
 * predicate reads no state a clause before it could change, and a hit
 * that lost the swap is one that came after the exit, all of it (in
 * DTrace its ECBs before the exit ran and its exit dropped: the same
 * counts for another interleaving of the two CPUs, which neither
 * orders).  So a hit is one of three: it found the run ended or lost
 * the swap (nothing runs, no record); it won (its clauses up to and
 * including the first exiting clause whose predicate holds, none
 * after); or it found the run active and no exit test held (every
 * clause).  Where a clause runs, kernel or record, changes none of
 * that, so only the exit clauses are user space's (kplan.c's
 * d_kplan_new(): user[], which kp_vars_decide() leaves out, with the
 * variables they touch: none, exit_at_hit() lets no variable in), run
 * from the winner's record: dtrace learns the exit, its status and the
 * run's end from it (records.c's run_clauses(), which sets kdrain
 * when it runs the XWON hit's exit), the clause's statements after
 * exit() are any D, and it is one record a run (its gate holds only at
 * the winner; without a predicate every hit of its probe exits or
 * loses).  Every other clause, before or after an exit clause, is
 * decided as any is.  The winner's plan ends at its exit clause: at
 * each exit clause's place among its probe's clauses (bpf_agg.c's
 * plan_of(), where a clause follows) UBPF_K_XEND, which when S_FLAGS
 * has UBPF_RF_XWON sets REC and jumps to the plan's end
 * (cgen_plan.c), past the kernel's clauses after it and the gates; at
 * a probe with several exit clauses each XEND comes after that
 * clause's predicate, as a PRED past it (d_kplan_xend()), so the
 * winner stops at the first whose predicate holds, which is the one
 * its exit test found: the predicate reads only what the hit alone
 * decides, fetched once (cpu under a program that runs with migration
 * disabled, uid and gid the thread's own, errno from arg0).  Its user
 * space clauses after the exit clause do not run either (run_clauses()
 * and records.c's hit_run_kagg() stop at the exit); its earlier ones
 * ran, in the kernel or from the record.  A hit that read the run
 * active and did not win runs every clause, those after the exit
 * clause in the kernel where before its record ran them under kdrain:
 * the kernel's counts are the ones user space made from those
 * records.  A self-> variable such a clause now keeps in the kernel
 * gets the winner's stores before its exit clause and none after, as
 * DTrace's draining ECBs and run_clauses() give.  An XEND that does
 * not fit the plan (UBPF_KOPS) leaves every later clause of that
 * probe user space's there (kplan_here.c's room trial emits the XENDs
 * as plan_of() does; -v says so), never a plan whose clauses after an
 * exit clause the winner would run.  Every record the kernel
 * wrote while active carries UBPF_RF_ACT; once user space has run the
 * winner's exit it runs every such record, whatever its time (the
 * kernel counted those hits too), and no other (tick-N firings, a
 * hit's that did not test: records.c).  A second exit() is a lost
 * swap: no record, nothing said, as in DTrace.  exit() in tick-N
 * beside it composes: a tick's exit is user space's, cut by time at
 * the horizon; whichever exit comes first ends the run, a later
 * winner's record being past the tick in time, or a tick after the
 * kernel's exit not run.  A kernel probe's hits are every process's
 * and the activity cuts them as it cuts a uprobe's: a system call, a
 * process's end or a profile sample is one more hit in the kernel's
 * order (tests/run-kagg-kexit.sh).  The tests are made from the
 * clauses of the event's probe in one process, and a uprobe event's
 * program also runs at the hits of processes it has not armed (a
 * forked child, which inherited the site; any process, where a
 * description pins none): there they are tested only where every
 * process's probe at the site has those exit clauses (sites.c's
 * exit_scope(): dfz*, no provider); where the exit clauses name the
 * probe's own process (dfz$target, a pid probe) they are tested at its
 * hits alone (cgen_maps' xpid), another's hit writing its record as one
 * that found no exit; where they name some processes and not others (a
 * provider glob over pids) the event is refused, with the reason.
 * What keeps the old refusal, the
 * whole program in user space:
 *  - a predicate the kernel cannot decide at the hit (`/++self->n ==
 *    100/`, or a global, which the kernel does not keep): which hit
 *    exits is known only where the variable is.  A global could not be
 *    kept there exactly either: user space runs the clauses that write
 *    it from the records, one hit after another in time order, so
 *    `/++n == 6/` holds for exactly the sixth hit; a copy in a map that
 *    every CPU reads and writes at the hit lets two racing hits both
 *    read 5 (or neither 5), so that one run exits twice, another
 *    never.  DTrace allows that (its globals are not synchronized
 *    between CPUs: dynamic variables are written with no lock, and a
 *    racing hit may read the value before or after another CPU's
 *    store), but the paths here must print the same bytes, and the
 *    record's run is the one that is exact.  (A global only BEGIN
 *    writes is one value at every traced hit and could be an
 *    immediate: not done.)  -v says which clause and why
 *    (d_kplan_xwhy()).  The other values the generated programs read
 *    at the hit, cpu, uid, gid and errno, decide an exit() as they
 *    decide a record gate (d_kplan_xtest() is the gate's code);
 *  - a clause that fires at tick-N too (kprov.c's kprov_prog_clause()):
 *    a firing dtrace makes from its timer runs no program to test it,
 *    and its exit() would be cut by time, the same clause's kernel
 *    hits in the kernel's order;
 *  - the generic programs (DTRACE_CGEN=0; a stack at a kernel probe,
 *    bpf_cg.c), which test no activity (tests/run-kagg.sh,
 *    run-kagg-kexit.sh).  A system call on the raw tracepoint has its
 *    generated program, reached through the direction's dispatcher
 *    (kprov_syscall.c), which tests it as on the call's own.
 *
 * Aggregations before the exit().  exit_at_hit() takes, before the
 * clause's exit(), aggregations too: keys and values integers the hit
 * alone decides (hit_int(): gate_ok() and kp_ty(), no variable,
 * string or function, / and % by a constant other than 0 only), or a
 * count() keyed by the user stack alone (../d/stmt.c's d_stmt_ukey()),
 * with any aggregating function (lquantize()'s bounds are constants).
 * The exit clause is user space's whatever it holds (above), so such
 * an update is made by the interpreter, from the record, and only
 * from the winner's: a hit that found the run ended or lost the swap
 * wrote no record and ran nothing (the test comes before every clause
 * of the hit), one whose exit test failed did not pass the clause's
 * predicate, and the winner's record is run once, by run_clauses(),
 * which stops at its exit.  So each counts what the runs from every
 * record count (DTRACE_KAGG=0, DTRACE_CGEN=0): the update of the hit
 * that exits, once, and none of a hit after it.  Nothing between such
 * an update and exit() can end the clause: the values cannot fault,
 * and the stack is the record's, which every record of an event
 * whose clauses need ustack() carries (D_NEED_USTACK: bpf_attach.c's
 * ev_spec_make(); a kernel probe's, kprov.c's kp_ustk()), named by the
 * interpreter's ustack() as for any clause user space runs.  The
 * clauses beside it, kernel or user space's, are decided as before; an
 * aggregation the exit clause and a kernel clause share is merged as
 * any user space clause's is (kplan_merge.c).
 * Still refused: an aggregation of anything else (a string, a
 * variable, which an earlier clause of the probe may set in user
 * space, a function's value but the stack key), a store, an if.
 * A winner's record a full ring dropped is found from cgact itself
 * (bpf_agg_read.c's bpf_kagg_exit_lost()): the run ends, its status
 * unknown.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../d/d_impl.h"
#include "kplan.h"
#include "kplan_impl.h"
#include "text.h"

/* printa(), clear() or trunc(), reading or resetting aggregations */
static bool stmts_fold(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (v[i].kind == S_PRINTA || v[i].kind == S_CLEAR ||
		    v[i].kind == S_TRUNC)
			return true;
		if (v[i].kind == S_IF && (stmts_fold(v[i].body, v[i].nbody) ||
					  stmts_fold(v[i].els, v[i].nels)))
			return true;
	}
	return false;
}

/*
 * Clause c calls exit() where the kernel can decide it at the hit
 * ("exit() at a traced probe", above): its predicate, if any, and
 * everything before its first exit() -- printf(), trace() and
 * aggregations only ("Aggregations before the exit()", above) --
 * compute integers the hit alone decides and cannot fault, so the
 * clause reaches exit() exactly when its predicate holds.  A count()
 * keyed by the user stack alone (../d/stmt.c's d_stmt_ukey()) is the
 * one key that is not an integer: the interpreter's ustack() reads it
 * from the record's stack, which every record of the event carries
 * (D_NEED_USTACK), the winner's too, and cannot fault.
 */
static bool hit_int(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	return !n || (gate_ok(k, n) && kp_ty(k, n, &sz, &sg));
}

bool exit_at_hit(const struct d_kplan *k, const struct clause *c)
{
	if (!hit_int(k, c->pred))
		return false;
	for (unsigned i = 0; i < c->nstmts; i++) {
		const struct stmt *st = &c->stmts[i];

		if (st->kind != S_EXIT && st->kind != S_PRINTF &&
		    st->kind != S_TRACE && st->kind != S_AGG)
			return false;
		if (!hit_int(k, st->e))
			return false;
		/* (a stack key's count(), made from the record; not beside
		 * pr_psargs, whose absence faults there, before the exit) */
		if (st->kind == S_AGG && d_stmt_ukey(k->prog, st) &&
		    !st->nargs && !d_psargs_key_in(st))
			continue;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (!hit_int(k, st->keys[j]))
				return false;
		for (unsigned j = 0; j < st->nargs; j++)
			if (!hit_int(k, st->args[j]))
				return false;
		if (st->kind == S_EXIT)
			return true;
	}
	return false;
}

/* Does n read a variable of scope sc (SC_GLOBAL: a global, its
 * arrays too)? */
static bool reads_scope(const struct d_kplan *k, const struct node *n, int sc)
{
	if (!n)
		return false;
	if ((n->op == N_VAR || n->op == N_ASSOC) &&
	    (unsigned)n->sub < k->prog->nvars) {
		int s = k->prog->vars[n->sub].scope;

		if (s == sc || (sc == SC_GLOBAL && s == SC_ASSOC))
			return true;
	}
	if (reads_scope(k, n->a, sc) || reads_scope(k, n->b, sc) ||
	    reads_scope(k, n->c, sc))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (reads_scope(k, n->args[i], sc))
			return true;
	return false;
}

/*
 * Why clause c's exit() is not decided at the hit (-v: bpf_agg_cgen.c), tr
 * whether its probes are traced ones ("exit() at a traced
 * probe": what keeps the old refusal).
 */
const char *exit_why(const struct d_kplan *k, const struct clause *c, bool tr)
{
	if (!tr)
		return "it fires where no generated program runs (tick-N, "
		       "or in-process activation)";
	if (hit_int(k, c->pred))
		return "a statement before it is not printf(), trace() or "
		       "an aggregation of values the hit decides";
	if (reads_scope(k, c->pred, SC_GLOBAL))
		return "its predicate reads a global variable (but for one "
		       "BEGIN alone stores, a run constant), which only user "
		       "space keeps";
	if (reads_scope(k, c->pred, SC_SELF) ||
	    reads_scope(k, c->pred, SC_SELFASSOC) ||
	    reads_scope(k, c->pred, SC_THIS))
		return "its predicate reads a variable, which may change "
		       "before the exit is reached";
	return "its predicate is not integers the hit alone decides";
}

const char *d_kplan_xwhy(const struct d_kplan *k, unsigned *clause)
{
	if (k->xwhy && clause)
		*clause = k->xwhyc;
	return k->xwhy;
}

bool d_kplan_horizon(const struct d_kplan *k)
{
	return k->horizon || k->ival;
}

bool d_kplan_ival(const struct d_kplan *k)
{
	return k->ival;
}

/*
 * The horizon made intervals ("Intervals"), after d_kplan_new()'s loop
 * set k->horizon, where the program keeps a self-> variable (or
 * D_KPLAN_IVAL_ALL).  A global the kernel counts (kplan_gcnt.c) is a
 * sum() keyed by interval as any, folded into the global at a firing
 * as before.
 */
void kp_ival_decide(struct d_kplan *k, unsigned flags)
{
	const struct d_prog *p = k->prog;
	bool self = (flags & D_KPLAN_IVAL_ALL) != 0;

	if (!k->horizon || !(flags & D_KPLAN_IVAL) || !k->vars)
		return;
	for (unsigned v = 0; v < p->nvars; v++)
		self |= p->vars[v].scope == SC_SELF ||
			p->vars[v].scope == SC_SELFASSOC;
	if (!self)
		return;
	k->horizon = false;
	k->ival = true;
}

bool d_kplan_kexit(const struct d_kplan *k)
{
	return k->kexit;
}

bool d_kplan_xclause(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses && k->xcl[clause];
}

bool d_kplan_xtest(const struct d_kplan *k, unsigned clause,
		   const struct d_probe *probe, struct ubpf_kplan *pl)
{
	if (!d_kplan_xclause(k, clause))
		return false;
	if (k->prog->clauses[clause].pred)
		return d_kplan_gate(k, clause, probe, pl);
	if (pl->nops >= UBPF_KOPS)
		return false;
	memset(&pl->ops[pl->nops], 0, sizeof(pl->ops[0]));
	pl->ops[pl->nops++].op = UBPF_K_REC;
	return true;
}

bool d_kplan_xend(const struct d_kplan *k, unsigned clause,
		  const struct d_probe *probe, struct ubpf_kplan *pl,
		  bool several)
{
	struct ubpf_kplan t;
	unsigned from = pl->nops;

	if (!d_kplan_xclause(k, clause))
		return false;
	if (!several || !k->prog->clauses[clause].pred) {
		if (pl->nops >= UBPF_KOPS)
			return false;
		memset(&pl->ops[pl->nops], 0, sizeof(pl->ops[0]));
		pl->ops[pl->nops++].op = UBPF_K_XEND;
		return true;
	}
	/* the exit test's code (d_kplan_xtest()): its predicate, a PRED
	 * past its REC, which becomes XEND (an argument the site lacks
	 * reads 0, as in the record) */
	t = *pl;
	if (!d_kplan_gate(k, clause, probe, &t) || t.nops <= from ||
	    t.ops[t.nops - 1].op != UBPF_K_REC)
		return false;
	t.ops[t.nops - 1].op = UBPF_K_XEND;
	*pl = t;
	return true;
}

/* Clause c stops or reads the run itself (exit(), printa(), clear(),
 * trunc(), ...) and nothing else keeps it from the kernel */
static bool own_stop(const struct clause *c)
{
	return stmts_stop(c->stmts, c->nstmts, KP_ST_NONE) &&
	       !stmts_stop(c->stmts, c->nstmts, KP_ST_TICK);
}

bool d_kplan_exits(const struct d_prog *p, const bool *ticks, unsigned clause)
{
	return clause < p->nclauses && (own_stop(&p->clauses[clause]) ||
					kp_gcnt_folds(p, ticks, clause));
}

bool d_kplan_folds(const struct d_prog *p, const bool *ticks, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	/* (the globals' walk once: a fold for either reason) */
	return (own_stop(c) && stmts_fold(c->stmts, c->nstmts)) ||
	       kp_gcnt_folds(p, ticks, clause);
}
