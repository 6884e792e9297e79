// SPDX-License-Identifier: MIT
/*
 * kplan.c - which clauses of a D program a BPF program can run in the
 * traced thread, and folding what it aggregated back into the
 * program's aggregations (kplan.h); which variables the kernel keeps
 * are kplan_vars.c's, the instructions it runs for one probe
 * kplan_emit.c's (kplan_impl.h is what the three share).
 *
 * It is code generation, so it lives with the consumer, not with the D
 * language (dtrace-G/d/ knows nothing of the kernel: tests/run-layers.sh
 * checks).  It reads the D program's trees (../d/d_impl.h), as a
 * compiler's back end reads its front end's.
 *
 * A clause qualifies when it only aggregates integers (and, asked with
 * D_KPLAN_VARS, stores them in variables, below):
 *
 *	probe /pred/ { @a[k1, ...] = count() | sum(e) | avg(e) | min(e)
 *		| max(e) | quantize(e) | lquantize(e, lo, hi[, step]); ... }
 *
 * (and, with D_KPLAN_VARS, stddev(e) | llquantize(e, f, lo, hi, steps):
 * below)
 *
 * where pred, the keys and e are integer constants, arg0..arg11,
 * args[N] (N a constant) where the probe declares argument N an
 * integer (typed per probe: kp_ty_at(), kplan_emit.c's args_keys()), pid,
 * tid, id, casts, the unary and binary operators but assignment, / and
 * % by a constant (or a negated one) other than 0, && || ^^ and ?: with
 * both branches of one type; a key may also be probeprov, probemod,
 * probefunc or
 * probename, which the kernel keeps as the probe's ID and the merge
 * turns back into the name.  Anything else (a variable, a string, a
 * function, printf() -- but with D_KPLAN_VARS, of values the kernel
 * computes: kplan_out.c --, a quantize() increment, more than
 * UBPF_KMAXKEYS keys) keeps the clause in user space: so does ustack()
 * or ucaller, whose stack only dtrace can unwind (ustack.c).  Such a
 * clause reads nothing another clause writes and writes nothing another
 * clause reads but its
 * aggregations, so it gives the same result wherever it runs, before or
 * after the probe's other clauses: a probe may run some clauses in the
 * kernel and the rest from its record.  What breaks that is a clause of
 * a traced probe that reads or resets an aggregation while tracing goes
 * on (printa(), clear(), trunc()) or stops the run (exit()): a program
 * with one runs nothing in the kernel, but for exit(), printa(),
 * clear() and trunc() in tick-N clauses and exit() decided at the hit
 * in a traced probe's (below).  BEGIN and END run in dtrace; the merge
 * comes before END.
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
 * profile:::tick-N or tick-N) it is, with D_KPLAN_VARS (generated
 * programs): the kernel keeps a horizon H (the map cghzn, bpf_agg.c;
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
 * its own (bpf_agg.c's bpf_kagg_fold(): each entry merged as at the end,
 * then deleted, kflat's slots zeroed), so clear() and trunc() act on
 * everything counted, and the kernel starts again from nothing.  Then
 * its clauses run, and once the read's firings have run H moves to the
 * next such firing.
 * Why each hit before D is counted exactly once, in the interval before
 * D, and none after:
 *  - The barrier.  A hit stamped t < D may still be running when dtrace
 *    reads the firing: preempted between its stamp and its map update
 *    or record.  So when a read takes such a firing from its timer
 *    (kprov_drain(): at or after D), dtrace updates a map of maps
 *    (bpf_agg.c's bpf_kagg_barrier()) before it reads the ring: the
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
 *    a uprobe's such program in its event's arm word too (bpf_agg.c's
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
 *    dtrace writes 2 into cgact (bpf_agg.c's bpf_kagg_exited(); a
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
 *    hits past D in a second set of the kernel's maps, folded at D',
 *    would send none at all, at the cost of a generation in every key
 *    and slot: not done.  The flood is then the wake-up, the barrier
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
 * exit() at a traced probe.  DTrace (illumos dtrace_probe()) checks,
 * for each ECB a firing runs, that the run is ACTIVE and does nothing
 * for it otherwise; the exit() action moves the run from ACTIVE to
 * DRAINING with a compare-and-swap, and one that fails (another CPU
 * exited first) drops its ECB's record, silently: no drop is counted.
 * So the cut is the kernel's order: what ran before the swap counts,
 * whatever its time.  The generated programs do the same with a
 * run-wide u64 (the map cgact, bpf_agg.c), tested at the start of every
 * hit (cgen.c's act_load(), act_test()): not 0, the hit does nothing, no plan,
 * no record.  A clause of probes whose hits all run generated programs (traced,
 * bpf_agg.c's traced_clause(): uprobe sites, USDT and pid, and the kernel
 * providers' probes that fire a program of their own, syscall, proc and
 * profile-N, cgen_kprov.c's; not BEGIN, END, ERROR or tick-N, which fire in
 * dtrace) that calls exit()
 * after nothing that can fault, its predicate integers the hit alone
 * decides (exit_at_hit(); a record gate's, gate_ok()), is tested there
 * too, before anything else of the hit (d_kplan_xtest(): the event's
 * exiting clauses' predicates, a REC where one holds): then the hit
 * does cmpxchg 0 -> 1; the winner goes on and its record says so
 * (UBPF_RF_XWON), a loser does nothing, as a hit that found 1.  Doing
 * the test first, not at the clause's place, moves nothing: the
 * predicate reads no state a clause before it could change, and a hit
 * that lost the swap is one that came after the exit, all of it (in
 * DTrace its ECBs before the exit ran and its exit dropped: the same
 * counts for another interleaving of the two CPUs, which neither
 * orders).  The clauses from the first such clause on run in user
 * space (kp_vars_decide() leaves them out: user[]), so the winner's
 * clauses after its exit clause do not run, there (run_clauses() stops
 * at the exit) or here; its earlier ones ran.  Every record the kernel
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
 * order (tests/run-kagg-kexit.sh).  What keeps the old refusal, the
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
 * A winner's record a full ring dropped is found from cgact itself
 * (bpf_agg.c's bpf_kagg_exit_lost()): the run ends, its status
 * unknown.
 *
 * Same bits.  The user-space evaluator (../d/run.c) computes as DTrace does:
 * 64 bits, the C type of a result deciding only signed or unsigned
 * comparison, division and >>, and narrowing only at casts (and keys);
 * the types follow from the tree alone (the ?: rule above sees to it),
 * so the plan carries them: a cast narrows (UBPF_K_NORM), the
 * operations leave their 64 bits (sz 8), as binop() and reg() do.  Keys
 * keep their type per aggregating statement (the kernel's key names the
 * statement, not the aggregation), so 1 (int)
 * and 1 (long) stay two entries, as d_key_add() makes them.  A
 * statement without keys gets slots of the array kflat instead of hash
 * entries; a constant right operand rides in its operation (UBPF_KF_IMM),
 * already converted.
 *
 * Variables (D_KPLAN_VARS, for the generated programs of
 * ../consumer/cgen.c only).  A clause may also read cpu, uid and gid
 * (UBPF_K_CPU, _UID, _GID: the helpers the record's header and ids come
 * from, so the kernel's value is the one user space would read), ppid
 * where the kernel's BTF says where task_struct keeps the parent
 * (D_KPLAN_PPID; UBPF_K_PPID reads current->real_parent->tgid at the
 * offsets d_kplan_ppid() gives, as cgen.c's u_ppid() and kp_kctx() read
 * it into the record for user space, so a reparented process's is its
 * new parent's in both; without the BTF's offsets, user space's),
 * curpsinfo->pr_euid and pr_egid, pr_pgid and pr_sid where the BTF
 * says where task_struct keeps cred and the process's pids (D_KPLAN_ECRED,
 * D_KPLAN_SESS; UBPF_K_ECRED and UBPF_K_SESS read what cgen.c's
 * u_ecred() and u_sess() read into the record: the cred's euid and
 * egid, the level-0 nr of signal->pids[PIDTYPE_PGID, _SID], the ids of
 * the namespace dtrace prints pid in, a setpgid() or setsid() before
 * the hit seen by both; at a uprobe, the only probe whose plan reads
 * them, the thread is alive in user mode, so its cred, signal and pids
 * are there and no read faults, where the record's would have left
 * them out and user space faulted), errno
 * (run.c's is the firing's errnum, which kprov_syscall.c's sys_fire()
 * sets at a system call's return alone, from arg0, the value the
 * kernel returned: -arg0 where it is -4095..-1, else 0; the plan
 * computes the same from ARG 0, which reads what the record carries,
 * where the probe says so, d_probe's errret, kplan_emit.c's kp_errno(),
 * and is the constant 0 at every other probe),
 * walltimestamp (the hit's timestamp plus the offset records.c's
 * hit_prep() adds, an immediate: d_kplan_wall()), and self-> and this->
 * integer variables and timestamp, and store them (`v = e`, `v op= e`,
 * `v++` and `v--` statements: kp_stored()),
 * when the kernel keeps those variables: kp_vars_decide() takes a variable
 * only if every traced clause that touches it runs in the kernel (else
 * user space and the kernel would each have a copy), taking clauses and
 * variables away until nothing changes, but for a self-> integer that
 * a clause user space runs only reads, whose values at its place the
 * record carries (kplan_vars.c's "Shared self-> variables"); BEGIN and
 * END are dtrace's own thread's, apart.  So the "reads nothing another
 * clause writes" above still holds between the kernel's clauses and user
 * space's.  D types a variable's read dynamically -- what was last
 * stored, or unset its
 * zero's type (d_var_zero()) -- so a variable gets the one type T all
 * its stores give it (a self-> store of the constant 0 deletes and does
 * not count; a store reading the variable itself is tried with T its
 * zero's type), and a clause is taken only if its plan is the same
 * instruction for instruction, with the same key types, whichever of
 * its variables (those whose T differs from their zero's) are set
 * (clause_typed(), up to 4 such variables or element reads).  The
 * generated programs also keep thread-local arrays (self->a[k...],
 * integer keys: each narrowed to its type, the types part of the
 * kernel's key, as d_key_add() keeps them), their elements 8 bytes as
 * stored, an absent one 0, of the one T all stores give them as a
 * variable's; where T is not the zero's (timestamp: KV_ELEMS), one
 * element may be set where another is not, so each read of an element
 * is typed set and unset apart (kplan_vars.c's open_bits(), elem_ty()):
 * `self->s[k] = timestamp` then `/self->s[k]/` and `timestamp -
 * self->s[k]` compute alike either way and are taken; `self->s[k] > 0`
 * (unsigned against signed) is not.  The kernel keeps no type per
 * element: it needs none where no plan depends on it.  They also
 * compare copyinstr(argN) with a string literal (kp_str_cmp(): == !=,
 * and < <= > >= on the string cut to strsize - 1, seq_ord()) and
 * key an aggregation by one copyinstr(argN) (kp_arg_str(): UBPF_K_SKEY,
 * the entries in kaggs_s, merged with the string cut to strsize - 1 as
 * copyinstr() cuts it), also through a this-> string that is
 * copyinstr(argN) wherever it is read (KV_SARG, sarg_var()), or
 * args[N] (N a constant) at a probe declaring that argument a string
 * (run.c reads both with d_arg_str(); at a probe where args[N] is not
 * a string kplan_emit.c leaves the clause to user space), and measure
 * one by strlen(copyinstr(argN)), or by strlen(args[N]) where args[N]
 * is that string (kp_arg_strlen(): UBPF_K_SLEN, the
 * length of the copy cgen_plan.c's seq_read() makes for SEQ and SKEY,
 * cut to strsize - 1; a copy too full to tell its length sends the hit
 * to user space as a fault does), but not
 * in a program whose kernel keeps self->
 * variables: a string that faults, or a key longer than kaggs_s keeps,
 * sends the whole hit to user space (cgen.c), where such a clause
 * cannot run.  Such a program compares strings still, but its faults
 * are the hit's (fmode, fsite_assign()): each comparison is a fault
 * site the kernel flags in the record, and d_kplan_fault() tells the
 * consumer the clause, action and address to report, as run.c would
 * have.  Since a comparison may now fault, one on the right of && or
 * || is skipped as run.c skips it (UBPF_K_SC); one in a branch of ?:
 * is not taken (the kernel computes both branches).
 * A self-> or this-> string variable the kernel keeps as its bytes
 * (KV_STR, kplan_vars.c's str_var()) may be compared with a literal
 * too (kp_svar_cmp(): UBPF_K_VSEQ, the bytes its store copied at the
 * hit; a this-> one at a probe whose plan never stores it is unset
 * there, "", cgen_plan.c's svar_at()) and measured (strlen(),
 * kp_svar_strlen(): UBPF_K_VSLEN), with another such one, self-> or
 * this->, by == != < <= > >= (kp_svar_vv(): UBPF_K_VVEQ, two self->
 * ones' equality; else UBPF_K_VVCMP, strcmp()'s order); none reads
 * user memory, and none can fault.  With copyinstr(argN) or args[N]
 * by == != < <= > >= (kp_svar_acmp(): UBPF_K_VACMP; the order's as
 * VVCMP's, both zero-padded), which reads the
 * argument's string at the hit as SEQ does, d_read_user_str()'s
 * strsize - 1 bytes, and so is a fault site where the kernel keeps
 * self-> variables (and else a string that cannot be read sends the
 * hit to user space), counted with SEQ's by kp_has_str_cmp().  Such a
 * variable, self-> or
 * this->, may be stored from a literal (kp_str_lit_store():
 * UBPF_K_SLIT) or from another the kernel keeps (UBPF_K_SMOV, its
 * bytes copied whole), which cannot fault either, and key an
 * aggregation, whole, one per statement (kp_stmt_ok()'s ks->svar:
 * UBPF_K_VKEY, the entries in kaggs_v, whose keys hold all the
 * strsize - 1 bytes its store kept, so none is cut; merged as kaggs_s's).
 *
 * execname and literals (D_KPLAN_VARS).  execname is the hit's thread's
 * comm, which user space takes from the record (the program's
 * bpf_get_current_comm() at the hit: 16 bytes, read up to the NUL), so
 * the kernel reading it in the plan reads the same bytes, and a thread
 * that renames itself (prctl(PR_SET_NAME), exec) between hits is counted
 * under the name of each hit either way.  It may be an aggregation's
 * string key, one per statement as the others (kp_stmt_ok()'s ks->sx,
 * KSX_COMM: UBPF_K_CKEY, the entries in kaggs_v, the comm cut to
 * strsize - 1 bytes by the helper's size, as agg.c cuts a key; kaggs_v's
 * room, strsize - 1 bytes where a string variable keys it, is else only
 * as long as the longest execname or literal key: kp_vkey_imm(), 16
 * bytes for @[execname]), and so may a literal or a ?: of two literals
 * (or probeprov, probemod, probefunc, probename: the probe's, written
 * into its plan as a literal) whose condition the kernel computes
 * (kp_lit_key(), KSX_LIT:
 * UBPF_K_LKEY, the literal's bytes cut to strsize - 1 in the plan, the
 * condition's truth SEL's; merged untainted, as run.c has the script's
 * strings), strsize fixed for the run (no setopt(): kp_strsize_fixed()),
 * and so may a ?: whose branches are execname and literals
 * (kp_mix_key(), KSX_MIX: UBPF_K_MKEY, the branch the condition chose
 * written as CKEY or LKEY writes it, and the key's own word k[n], 0 for
 * a string key, 1 where execname was taken: run.c's execname is
 * tainted, a literal not, and the merge gives each kernel entry its
 * taint, which d_key_add() ors into the entry of those bytes as it
 * does for the hits in user space).  It may be compared with a literal
 * (kp_comm_cmp(): UBPF_K_CCMP, == != < <= > >=, strcmp()'s order,
 * either way round: neither is cut, as run.c's binop() cuts neither,
 * and 16 bytes of both decide) or with a KV_STR variable (UBPF_K_CVCMP;
 * kplan_vars.c lets such a variable be read so), and measured
 * (kp_comm_strlen(): UBPF_K_CLEN, whole, as run.c's strlen() measures
 * it).  None of these reads user memory or can fault.  execname
 * compared with copyinstr(argN)
 * (kp_comm_arg(): UBPF_K_CACMP, the same six operators either way
 * round) reads the argument's string as SEQ reads it, cut to
 * strsize - 1 bytes as copyinstr() cuts it, against the comm whole (run.c's
 * binop() cuts neither operand: the cut is copyinstr()'s), their first
 * 16 bytes NUL-padded deciding as for a literal; its copy may fault, so
 * only in a program without fault sites (no self-> variable kept: not
 * k->fmode), where a string that cannot be read sends the whole hit to
 * user space before the plan (cgen_plan.c's seq_read()), which reports
 * the fault as before.  execname beside one copyinstr(argN) key, any
 * order, is one kaggs_s key, execname's 16 bytes in two of its words
 * (str_pair_keys(): UBPF_K_CWKEY, merged by d_kplan_merge()), and so
 * are two copyinstr() keys, both strings in its s, the second after
 * the first's NUL (UBPF_K_SKEY2), and so are execname and two
 * copyinstr() (both).  What stays user space's: execname beside
 * another string key in one statement, other three string keys, a
 * ?: key whose branches are not
 * execname and literals nor copyinstr(argN) and a literal or another
 * copyinstr(argM) (kp_smix_key(): UBPF_K_SMKEY, in kaggs_s, tagged as
 * MKEY's; not where the kernel has fault sites, since the arguments'
 * strings are read whichever branch is taken and only a fault that
 * sends the hit to user space is exact; copyinstr() beside execname;
 * probeprov, probemod, probefunc and probename are literals there,
 * each probe's own name in its plan: kp_lit_key()), a literal key over
 * UBPF_KSTRMAX bytes (after the cut),
 * execname compared with copyinstr() in a program whose kernel keeps
 * self-> variables, and every such clause where the kernel runs no plan
 * (DTRACE_CGEN=0's generic program, which knows none of these
 * instructions).
 *
 * stddev() and llquantize() (D_KPLAN_VARS: cgen_plan.c's code only;
 * the generic program, kfix.bpf.h and drti's recorder, whose plans are
 * made without it, never see them, so a clause using one stays in user
 * space there, decided here).  User space (../d/agg.c) keeps stddev()
 * as four words: hits, the sum, and the sum of |v|^2 as 128 bits (low
 * word first), each wrapping as unsigned arithmetic, and prints a
 * value computed from them.  The kernel keeps the same sums in two
 * buckets of the statement's key (kagg_bpf.h): 0 {hits, sum} as avg(),
 * 1 {low, high} of the squares, added at the hit with the carry
 * (cgen_plan.c's stddev_sq(): |v|^2 from v's 32-bit halves, every
 * product exact in 64 bits, |INT64_MIN| = 2^63 included); the merge
 * adds each CPU's pair as one 128-bit number, so sums mod 2^64 and mod
 * 2^128, whatever the order, give agg.c's words exactly.
 * llquantize()'s bucket is agg.c's llq_bucket() with its parameters as
 * constants (packed into the AGG's imm): cgen_plan.c's llq_bucket()
 * compares v with factor^low, then with each factor^(m+1), m = low..
 * high, and divides v - factor^m by the order's width, all 64-bit
 * values the compiler made sure fit, unrolled (at most 63 orders), so
 * the verifier sees no loop.  An increment (the sixth argument) keeps
 * the clause in user space, as quantize()'s does, and so do more than
 * 65,535 buckets (the key's bucket is a __u16).
 *
 * Speculations.  speculation(), speculate(), commit() and discard()
 * are user space's (../d/spec.c keeps the buffers; kp_stmt_ok() takes
 * none of them, kp_ty() no speculation()), so a clause with one runs
 * from the hit's record, and kp_vars_decide() gives user space every
 * variable it touches (the ID's self->s; a sout clause's values',
 * below, stay the kernel's) and every clause touching those.  The
 * program's other clauses still run in the kernel
 * (stmts_stop() lets the three statements through): a speculation
 * reads no aggregation and stops nothing, and what it moves is output
 * only -- a clause's record into a buffer, a buffer's into the output
 * at the commit() -- which user space makes from the records in time
 * order, clause by clause, as it prints the kernel's printf() values
 * (records.c, cgen_out.c): the same order with or without the kernel.
 * -v says how many such clauses there are (bpf_agg.c).
 *
 * What user space cannot do is read the process at the hit.  So a
 * speculating clause of the common shape, speculate(E) and then
 * printf() and trace() only (kplan_vars.c's sout_ok(), k->sout), has
 * its values computed in the generated program, at the probe, as a
 * kernel clause's printf() has (kplan_out.c: OUT, OSTR, OVSTR into the
 * record's out area, then ODONE; kplan_emit.c emits no predicate for
 * it, d_kplan_sout_emit()), while user space runs the rest from the
 * record in time order as before: its predicate, then speculate(E),
 * then the printf() and trace() from the area's values
 * (d_kplan_out_run(), ../d/stmt.c's d_run_spec()).  Why that is exact:
 *  - The buffers, IDs, drops and the order of the output are user
 *    space's, made from the records in time order, as above: nothing
 *    of them moved.
 *  - The values are the kernel's, computed at the clause's place among
 *    the probe's kernel clauses: every variable they read is the
 *    kernel's (kp_out_ok() takes no other), and those only kernel
 *    clauses write, in program order, so each has the value the
 *    clause would have read at the hit; they store nothing and cannot
 *    fault but by a copy, which the area records.
 *  - The kernel computes them whether or not the predicate holds
 *    (nothing it does is seen but through the area): E is user
 *    space's and so is the predicate, but for the case below; they
 *    read no variable the kernel keeps (kp_vars_decide() takes theirs
 *    away from it, as a user space clause's), store nothing and read
 *    no memory by an address (kp_sout_here()), so they give what they
 *    gave at the hit.  A copy
 *    that faulted at the hit faults where the clause reads it: after
 *    the predicate held and speculate() ran (an ID past nspec faults
 *    first), at its argument's action number, and not at all when the
 *    predicate failed (tests/run-cgen-spec.sh's flt.d).  As at the
 *    hit in DTrace, a string not in memory then (a path in a
 *    library's read-only data at its first openat(), no page yet) is
 *    such a fault, where the user space path read it when dtrace ran
 *    the record.
 *  - A hit whose record comes unflagged (a process not armed, a fault
 *    that ends the plan) runs every clause in user space, as for any
 *    kernel clause; one keeping self-> variables puts the program in
 *    fault mode (kp_vars_decide()'s tls) as a kernel clause does, and
 *    where the values do not fit a probe's plan the event is refused
 *    (UBPF_KTLS_UNFIT, bpf_agg.c's plan_of()): the walk of the area
 *    would not know.  No sout clause where a horizon may send a hit's
 *    clauses to user space.
 *  - Where: every probe the clause may fire at runs a generated
 *    program whose record can carry the area (kplan_out.c's
 *    kp_sout_where(): bpf_agg.c's traced_clause(), k->traced).  A
 *    uprobe site's (USDT, pid) puts it after the uid and gid; a kernel
 *    probe's own program (syscall, on the call's tracepoint or the raw
 *    ones, shared or not; profile-N; proc: cgen_kprov.c) after its
 *    kctx, arguments and vtimestamp, where kprov.c's kprov_hit() reads
 *    it (they are the same clauses: the plan, its ODONE bits and
 *    dtrace's walk of them, cgen_out.c's cg_out_run(), know no
 *    provider).  A program the raw tracepoints' calls share (cgen.c's
 *    kp_ident()) is exact too: programs are shared only where their
 *    instructions, so their plans, are the same, and dtrace walks the
 *    area by the probe the record names.  tick-N fires in dtrace with
 *    no program (kprov_tick_clause()), BEGIN, END and ERROR too: a
 *    clause that may fire there stays on the user space path, where
 *    those run exactly (nothing to read at a hit).  An ordinary
 *    printf() clause the kernel runs has the same area at the same
 *    probes (kplan_out.c's kp_out_ok()).
 * A predicate that is an integer the kernel computes and that cannot
 * fault (kplan_vars.c's spred_ok(): kp_ty(), no copy, no string, no
 * division but by a constant other than 0, nothing stored), the
 * kernel computes too (k->spred): its value, an OUT, is the area's
 * first 8 bytes, before the clause's values, and user space tests
 * its truth (d_kplan_out_run(), d_run_spec()'s truth) rather than the
 * predicate.  Its variables then stay the kernel's (kp_vars_decide()
 * marks E's only for user space), so `/self->ts/` or `/self->j == 2/`
 * of a variable a kernel clause stores keeps that clause in the
 * kernel: before, the predicate took the variable to user space, and
 * with it the clause storing it, every clause touching those, and so
 * often the speculating clause's own values (copyinstr(self->p) of
 * an address a clause tied so kept: read late; tests/run-cgen-spec.sh's
 * late2.d).  Exact as the values are: computed at the clause's place
 * among the probe's kernel clauses, it reads what the interpreter
 * would have read at the hit, and, storing nothing and unable to
 * fault, it changes nothing by being computed on every hit.  E stays
 * user space's: it reads an ID speculation() returned, which only
 * user space has.
 * -v says how many speculating clauses print so, how many of them
 * have their predicate computed so, why each other clause with
 * speculate() is not one of them (d_kplan_spec_why(): a store, a
 * statement before speculate() or other than printf() and trace()
 * after it, a predicate or E reading memory by an address, a value
 * the kernel does not compute, a strsize that may change:
 * kp_sout_where()), and how many still read late: a
 * speculated clause on the user space path reads the process when
 * dtrace runs its record, not at the hit
 * (copyinstr(self->p) of an address kept at an earlier probe may find
 * new bytes, or a thread gone, where DTrace reads at the probe; the
 * strings of the probe's own arguments the record carries), and -v
 * says how many of them read so, and how many of the clauses tied to
 * them by a self-> or this-> variable that runs in user space with them
 * (kp_vars_decide(); bpf_agg.c counts only those the plan left out of
 * the kernel; tied.d) (d_kplan_specs_late(): copyinto(), or
 * copyin() or copyinstr() of other than an argument, member access
 * and * through a pointer reading copyin()'s bytes, in a clause that
 * is not a sout one: one whose predicate or E reads so, or whose
 * values the kernel cannot compute; tests/run-cgen-spec.sh's latep.d).
 *
 * What is left (not done here): the buffers themselves in the kernel,
 * which would let the speculated records stay in the kernel until the
 * commit() and spare user space the run of the predicate: an
 * nspec-slot array, a word per slot of generation, count and active
 * bit, allocated by compare-and-swap, counted by fetch-and-add at
 * speculate(), closed by exchange at commit() and discard(), the
 * records tagged with {ID, generation, sequence} and the commit's
 * record carrying the count, so user space holds a generation's
 * records until it has them all, from any CPU, and an ID past nspec
 * made a fault at the hit.  What the records' time order then asks of
 * user space: a commit() whose count says n records and which has
 * fewer must print them right after its own, before any later hit's
 * output, yet a counted record may sort after it in the same read (its
 * hit stamped after the commit's, its fetch-and-add before the
 * commit's exchange) or not be in the ring yet (its hit still
 * running): the first needs a look ahead in the sorted read, the
 * second a barrier (bpf_kagg_barrier(), as a folding tick's) and one
 * more read of the ring whose other records wait for their turn;
 * specsize drops are decided in sequence order, over the records
 * counted so far, and discard() counts them too.  Its gain over the
 * sout clauses is cost only (no record for a speculating clause whose
 * predicate fails, no predicate run in dtrace); what is printed is the
 * same.  Also left, user space's with -v saying why
 * (d_kplan_spec_why()): a speculating clause with a store (DTrace
 * allows stores there: only aggregations, destructive actions and
 * exit() may not follow speculate(), which ../d refuses too; the
 * kernel would have to make the store only where the predicate holds
 * and speculate()'s ID is not past nspec, which it cannot know before
 * dtrace runs the record: the ID is user space's); a predicate or E
 * that reads memory by an address or compares strings
 * (copyinstr(self->p) != "": a compare's fault sites are the hit's,
 * while this fault must be reported only where dtrace runs the
 * record, at action 0; latep.d); a predicate reading a variable user
 * space keeps (speculation()'s ID: then the whole predicate is user
 * space's, and the kernel variables it reads go there too); and E
 * reading a variable the kernel keeps (E is user space's: its
 * variables go there).  Where these read the process late, -v says
 * so (above).
 *
 * Record gates (D_KPLAN_VARS).  A clause that stays in user space
 * still needs its record, but only for the hits where it may run: when
 * its predicate is integers the hit alone decides (gate_ok(): no
 * variable, string or timestamp, nothing that can fault), the
 * generated program tests it (d_kplan_gate(), kplan_emit.c) and writes
 * the record only when some clause's test held (bpf_agg.c's
 * plan_of(), when every such clause of the probe is gated).  User
 * space runs the same clauses from the same records, so nothing it
 * prints changes.  A gate changes nothing a clause sees, so exit(),
 * printa() and the like, which keep every clause out of the kernel,
 * leave gates in.  A clause that reads self-> integers the kernel
 * keeps, whose predicate the kernel tests at its place among the
 * probe's clauses (kplan_vars.c's "Shared self-> variables",
 * d_kplan_vpred()), is a gate of its own: its ODONE asks for the
 * record.
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


/* ------------------------------------------------------------------ */
/* Which clauses */

/* An integer constant, maybe negated: its value. */
bool kp_const_of(const struct node *n, int64_t *v)
{
	if (n->op == N_UN && n->sub == '-' && n->a->op == N_INT) {
		*v = (int64_t)(0 - (uint64_t)n->a->ival);
		return true;
	}
	if (n->op != N_INT)
		return false;
	*v = n->ival;
	return true;
}

/*
 * The type a read of variable v gives: what every store gave it (its T,
 * see d_kplan_new()) or, unset, its zero's type (d_var_zero()), as
 * k->absent says; false for a variable the kernel does not keep.
 */
static bool var_ty(const struct d_kplan *k, unsigned v, uint8_t *sz,
		   uint8_t *sg)
{
	const struct var *var;

	if (!k || !k->vars || v >= k->prog->nvars || k->vst[v] != KV_KERN)
		return false;
	var = &k->prog->vars[v];
	if (k->vbit[v] >= 0 && (k->absent >> k->vbit[v] & 1)) {
		*sz = var->declared ? var->sz : 8;
		*sg = var->declared ? var->sg : 1;
	} else {
		*sz = k->vsz[v];
		*sg = k->vsg[v];
	}
	return true;
}

/*
 * The type a read n of an element of self->a[] gives: var_ty()'s, or
 * where the array's T differs from its zero's (KV_ELEMS), the zero's
 * when n is a read being typed unset (kplan_vars.c's open_bits()).
 */
static bool elem_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
		    uint8_t *sg)
{
	const struct var *var;
	unsigned v = (unsigned)n->sub;

	if (!var_ty(k, v, sz, sg))
		return false;
	if (k->vbit[v] != KV_ELEMS)
		return true;
	var = &k->prog->vars[v];
	for (unsigned i = 0; i < k->nelem; i++)
		if (k->elem[i] == n && (k->absent >> (k->nbits + (int)i) & 1)) {
			*sz = var->declared ? var->sz : 8;
			*sg = var->declared ? var->sg : 1;
		}
	return true;
}

static int sarg_of(const struct d_kplan *k, const struct node *n);

/*
 * copyinstr(argN) == "string" (or !=, either way round; copyinstr(argN)
 * or a this-> variable that is it, sarg_of()), which generated
 * programs compare at the probe (UBPF_K_SEQ): the argument's N and
 * the literal into *arg, *lit.  The string copied at the hit is what
 * user space would read (d_arg_str()), cut to strsize - 1 bytes, which
 * changes no comparison with a literal shorter than that
 * (kp_seq_prefix(); a longer one is compared whole, below).
 * Ordered, < <= > >= (either way round: SEQ's levels the order + 1,
 * kp_ord(), cgen_plan.c's seq_ord()), the literal at most UBPF_KSTRMAX
 * bytes, any strsize from 2 to UBPF_STRMAX (the copy whole in cgbuf, as
 * VACMP's): run.c's binop() cuts neither side, and the argument's
 * string is copyinstr()'s, at most strsize - 1 bytes, so within them
 * and the byte after, both zero-padded, the two order as strcmp()
 * orders them, a literal longer than the cut included (as
 * kp_svar_olit()'s); so are == and != where kp_seq_prefix() cannot
 * tell them.
 */
bool kp_str_cmp(const struct d_kplan *k, const struct node *n, int *arg,
		const struct node **lit)
{
	const struct node *f, *l;
	bool ord;
	int a;

	if (!k || !k->vars || k->nostr || n->op != N_BIN)
		return false;
	ord = kp_ord(n->sub, true) != 0;
	if (!ord && n->sub != OP_EQ && n->sub != OP_NE)
		return false;
	f = sarg_of(k, n->a) >= 0 ? n->a : n->b;
	l = f == n->a ? n->b : n->a;
	a = sarg_of(k, f);
	if (a < 0 || l->op != N_STR || !l->sval ||
	    strlen(l->sval) > UBPF_KSTRMAX)
		return false;
	/* == and != the prefix test cannot tell: whole, as an order */
	if ((ord || !kp_seq_prefix(k, strlen(l->sval))) &&
	    (k->prog->strsize < 2 || k->prog->strsize > UBPF_STRMAX))
		return false;
	if (arg)
		*arg = a;
	if (lit)
		*lit = l;
	return true;
}

/*
 * Can SEQ tell == from != of a literal of len bytes by the copy's
 * length and the literal's bytes alone (cgen_plan.c's seq())?  Where
 * the literal is shorter than strsize - 1, so the cut user space makes
 * changes no result; and where faults are the hit's, the kernel reading
 * strsize - 1 bytes as d_read_user_str() does, only where a string of
 * the literal's length is told from a longer one cut there
 * (fsite_assign()).  Else SEQ compares whole (levels: seq_ord()), the
 * string cut as copyinstr() cuts it, where strsize is at most
 * UBPF_STRMAX (kp_str_cmp()): before, such a clause was user space's,
 * its strings read after the hit.
 */
bool kp_seq_prefix(const struct d_kplan *k, size_t len)
{
	if (len + 1 >= k->prog->strsize)
		return false;
	return !k->fmode || (k->prog->strsize <= UBPF_STRMAX + 1 &&
			     len + 3 <= k->prog->strsize);
}

/*
 * v == "string" or v != "string" (either way round), v a self-> or
 * this-> string variable, the literal at most UBPF_KSTRMAX bytes and
 * strsize - 3 (so a string the store cut at strsize - 1 bytes is never
 * equal, and the kernel's copy tells equal from longer by its length
 * alone):
 * v's index and the literal into *v, *lit, whatever the kernel keeps.
 * kplan_vars.c's str_var() lets a KV_STR variable be read so.
 */
bool kp_svar_lit(const struct d_prog *p, const struct node *n, int *v,
		 const struct node **lit)
{
	const struct node *f, *l;

	if (n->op != N_BIN || (n->sub != OP_EQ && n->sub != OP_NE))
		return false;
	f = n->a->op == N_VAR ? n->a : n->b;
	l = f == n->a ? n->b : n->a;
	if (f->op != N_VAR || f->sub < 0 || (unsigned)f->sub >= p->nvars ||
	    (p->vars[f->sub].scope != SC_SELF &&
	     p->vars[f->sub].scope != SC_THIS) ||
	    p->vars[f->sub].kind != T_STR ||
	    l->op != N_STR || !l->sval || strlen(l->sval) > UBPF_KSTRMAX ||
	    strlen(l->sval) + 3 > p->strsize)
		return false;
	if (v)
		*v = f->sub;
	if (lit)
		*lit = l;
	return true;
}

/* VVCMP's order of comparison sub (2 <, 3 >, 4 <=, 5 >=), as written
 * where left (the string variable on the left), else its two sides
 * swapped; 0 for other than an order */
unsigned kp_ord(int sub, bool left)
{
	switch (sub) {
	case '<':
		return left ? 2 : 3;
	case '>':
		return left ? 3 : 2;
	case OP_LE:
		return left ? 4 : 5;
	case OP_GE:
		return left ? 5 : 4;
	default:
		return 0;
	}
}

/*
 * v OP "string", OP < <= > >= (either way round), v a self-> or this->
 * string variable, the literal at most UBPF_KSTRMAX bytes (run.c's
 * binop() cuts neither: the variable holds at most strsize - 1 bytes,
 * so within them and the byte after, zero-padded, the two order as
 * strcmp() orders them; a literal longer than strsize - 1 bytes is
 * never equal to it, and orders it by those bytes alone, the
 * variable's NUL below the literal's byte there: cgen_plan.c's
 * vseq_ord()): v's index, the literal and the order (VVCMP's agg, v on
 * the left) into *v, *lit, *op, whatever the kernel keeps.
 * kplan_vars.c's str_var() lets a KV_STR variable be read so.
 */
bool kp_svar_olit(const struct d_prog *p, const struct node *n, int *v,
		  const struct node **lit, unsigned *op)
{
	const struct node *f, *l;
	bool left;

	if (n->op != N_BIN || (n->sub != '<' && n->sub != '>' &&
			       n->sub != OP_LE && n->sub != OP_GE))
		return false;
	left = n->a->op == N_VAR;
	f = left ? n->a : n->b;
	l = left ? n->b : n->a;
	if (kp_str_var_of(p, f) < 0 || l->op != N_STR || !l->sval ||
	    strlen(l->sval) > UBPF_KSTRMAX)
		return false;
	if (v)
		*v = f->sub;
	if (lit)
		*lit = l;
	if (op)
		*op = kp_ord(n->sub, left);
	return true;
}

/* ... of a KV_STR variable: UBPF_K_VSEQ with the order (cgen_plan.c's
 * vseq_ord()) */
bool kp_svar_ocmp(const struct d_kplan *k, const struct node *n, int *v,
		  const struct node **lit, unsigned *op)
{
	int w;

	if (!k || !k->vars || !kp_svar_olit(k->prog, n, &w, lit, op) ||
	    k->vst[w] != KV_STR || k->prog->strsize > UBPF_STRMAX)
		return false;
	if (v)
		*v = w;
	return true;
}

/* ... of a KV_STR variable: the generated program compares the bytes
 * its store kept (UBPF_K_VSEQ, cgen_plan.c's vseq()), which no fault
 * can stop */
bool kp_svar_cmp(const struct d_kplan *k, const struct node *n, int *v,
		 const struct node **lit)
{
	int w;

	if (!k || !k->vars || !kp_svar_lit(k->prog, n, &w, lit) ||
	    k->vst[w] != KV_STR)
		return false;
	if (v)
		*v = w;
	return true;
}

/*
 * v OP copyinstr(argN), OP == != < <= > >= (strcmp()'s order, as
 * run.c's binop()), either way round, v a self-> or this-> string
 * variable and the other side copyinstr(argN) or args[N] (N a
 * constant, maybe in stringof()): v's index, whatever the kernel
 * keeps, else -1.  kplan_vars.c's str_var() lets a KV_STR variable be
 * read so.
 */
int kp_svar_arg(const struct d_prog *p, const struct node *n)
{
	const struct node *f, *o;

	if (n->op != N_BIN ||
	    (n->sub != OP_EQ && n->sub != OP_NE && n->sub != '<' &&
	     n->sub != '>' && n->sub != OP_LE && n->sub != OP_GE))
		return -1;
	f = kp_str_var_of(p, n->a) >= 0 ? n->a : n->b;
	o = f == n->a ? n->b : n->a;
	if (kp_str_var_of(p, f) < 0 ||
	    (kp_copyinstr_arg(o) < 0 && kp_args_index(o) < 0))
		return -1;
	return f->sub;
}

/*
 * ... of a KV_STR variable: generated programs compare the bytes its
 * store kept with the argument's string as copyinstr() gives it
 * (UBPF_K_VACMP, cgen_plan.c's vacmp()): read at the hit as SEQ reads
 * it (seq_read()), which is d_read_user_str()'s rule -- at most
 * strsize - 1 bytes, up to the first NUL, the string cut there -- and,
 * where the kernel keeps self-> variables (fmode), a fault site
 * (fsite_assign()) whose read touches exactly the bytes run.c's does
 * (the NUL's included, or the strsize - 1 read), so it faults exactly
 * where that would; elsewhere a string that cannot be read sends the
 * hit to user space whole.  The variable and N into *v, *arg.
 */
bool kp_svar_acmp(const struct d_kplan *k, const struct node *n, int *v,
		  int *arg)
{
	int w = k && k->vars && !k->nostr ? kp_svar_arg(k->prog, n) : -1;
	int a;

	if (w < 0 || k->vst[w] != KV_STR || k->prog->strsize < 2 ||
	    k->prog->strsize > UBPF_STRMAX)
		return false;
	a = sarg_of(k, n->a->op == N_VAR && n->a->sub == w ? n->b : n->a);
	if (a < 0)
		return false;
	if (v)
		*v = w;
	if (arg)
		*arg = a;
	return true;
}

/* v OP w, OP == != < <= > >= (strcmp()'s order, as run.c's binop()),
 * both self-> or this-> string variables: their indexes into *v and
 * *w, whatever the kernel keeps */
bool kp_svar_pair(const struct d_prog *p, const struct node *n, int *v, int *w)
{
	const struct node *s[2];

	if (n->op != N_BIN ||
	    (n->sub != OP_EQ && n->sub != OP_NE && n->sub != '<' &&
	     n->sub != '>' && n->sub != OP_LE && n->sub != OP_GE))
		return false;
	s[0] = n->a;
	s[1] = n->b;
	for (unsigned i = 0; i < 2; i++)
		if (s[i]->op != N_VAR || s[i]->sub < 0 ||
		    (unsigned)s[i]->sub >= p->nvars ||
		    (p->vars[s[i]->sub].scope != SC_SELF &&
		     p->vars[s[i]->sub].scope != SC_THIS) ||
		    p->vars[s[i]->sub].kind != T_STR)
			return false;
	if (v)
		*v = s[0]->sub;
	if (w)
		*w = s[1]->sub;
	return true;
}

/* ... both KV_STR: the generated program compares the bytes their
 * stores kept (UBPF_K_VVEQ, cgen_plan.c's vveq(), for two self-> ones
 * and == or !=; else UBPF_K_VVCMP, vvcmp()) */
bool kp_svar_vv(const struct d_kplan *k, const struct node *n, int *v, int *w)
{
	int a, b;

	if (!k || !k->vars || !kp_svar_pair(k->prog, n, &a, &b) ||
	    k->vst[a] != KV_STR || k->vst[b] != KV_STR)
		return false;
	if (v)
		*v = a;
	if (w)
		*w = b;
	return true;
}

/* strlen(v), v a self-> or this-> string variable: v's index into *v */
bool kp_svar_len(const struct d_prog *p, const struct node *n, int *v)
{
	const struct node *a;

	if (n->op != N_FUNC || d_funcs[n->sub].id != F_STRLEN || n->nargs != 1)
		return false;
	a = n->args[0];
	if (a->op != N_VAR || a->sub < 0 || (unsigned)a->sub >= p->nvars ||
	    (p->vars[a->sub].scope != SC_SELF &&
	     p->vars[a->sub].scope != SC_THIS) ||
	    p->vars[a->sub].kind != T_STR)
		return false;
	if (v)
		*v = a->sub;
	return true;
}

/* ... of a KV_STR variable: UBPF_K_VSLEN, from the copy its store kept */
bool kp_svar_strlen(const struct d_kplan *k, const struct node *n, int *v)
{
	int w;

	if (!k || !k->vars || !kp_svar_len(k->prog, n, &w) ||
	    k->vst[w] != KV_STR)
		return false;
	if (v)
		*v = w;
	return true;
}

/* execname */
bool kp_is_comm(const struct node *n)
{
	return n->op == N_BUILTIN && d_builtins[n->sub].id == B_EXECNAME;
}

/*
 * strlen(execname) (D_KPLAN_VARS): UBPF_K_CLEN counts the bytes before
 * the NUL of the comm bpf_get_current_comm() gives at the hit, the
 * bytes the record's execname is read from; run.c measures that string
 * whole (execname is not cut by strsize), and nothing can fault.
 */
bool kp_comm_strlen(const struct d_kplan *k, const struct node *n)
{
	return k && k->vars && n && n->op == N_FUNC &&
	       d_funcs[n->sub].id == F_STRLEN && n->nargs == 1 &&
	       kp_is_comm(n->args[0]);
}

/* A literal as a key: its bytes cut to strsize - 1, as agg.c cuts a
 * key, at most UBPF_KSTRMAX of them (its SDATA) */
static bool lit_key1(const struct d_kplan *k, const struct node *n)
{
	size_t len;

	if (n->op != N_STR || !n->sval)
		return false;
	len = strlen(n->sval);
	if (len > k->prog->strsize - 1)
		len = k->prog->strsize - 1;
	return len <= UBPF_KSTRMAX;
}

static int ident(const struct node *n);

/*
 * probeprov, probemod, probefunc or probename at probe pr: its string
 * (run.c's, untainted: d_dv_str()), else NULL when n is none of them
 */
const char *kp_ident_str(const struct d_probe *pr, const struct node *n)
{
	const char *s;

	switch (ident(n)) {
	case B_PROBEPROV:
		s = pr->prov;
		break;
	case B_PROBEMOD:
		s = pr->mod;
		break;
	case B_PROBEFUNC:
		s = pr->func;
		break;
	case B_PROBENAME:
		s = pr->name;
		break;
	default:
		return NULL;
	}
	return s ? s : "";
}

/*
 * A key that is a literal or c ? "a" : "b" (c an integer the kernel
 * computes): generated programs write its bytes into a kaggs_v key
 * (UBPF_K_LKEY), strsize fixed for the run (kp_strsize_fixed()).  The
 * kernel computes c as SEL does (its 64 bits' truth, run.c's
 * d_truth()); c cannot fault (kp_ty() takes no comparison that can).
 * A branch may also be probeprov, probemod, probefunc or probename,
 * which run.c gives as the probe's string, untainted as a literal:
 * each probe has a plan of its own (kplan_emit.c's lit_key() writes
 * that probe's string as the literal; a program several kernel probes
 * share is one only where their instructions, these bytes among them,
 * are the same: cgen_kprov.c), and one longer than UBPF_KSTRMAX bytes
 * after the cut leaves the clause to user space at that probe.
 */
bool kp_lit_key(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	if (!k || !k->vars || !kp_strsize_fixed(k))
		return false;
	if (n->op == N_TERN)
		return (lit_key1(k, n->b) || ident(n->b) >= 0) &&
		       (lit_key1(k, n->c) || ident(n->c) >= 0) &&
		       kp_ty(k, n->a, &sz, &sg) &&
		       !(k->fmode && kp_has_str_cmp(k, n->a));
	return lit_key1(k, n);
}

/*
 * A key c ? a : b whose branches are execname or literals, one of them
 * execname at least (both literals: kp_lit_key()), c as kp_lit_key()'s:
 * generated programs write the branch c chooses into the kaggs_v key
 * (UBPF_K_MKEY), execname as CKEY writes it, a literal as LKEY does,
 * and mark the key's word k[n] where execname was taken, since run.c's
 * execname is tainted and a literal is not: an entry with the same
 * bytes from both is two entries in the kernel, one each, merged into
 * one whose taint is their or, as d_key_add() ors a key's.
 */
bool kp_mix_key(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	if (!k || !k->vars || !kp_strsize_fixed(k) || n->op != N_TERN ||
	    (!kp_is_comm(n->b) && !kp_is_comm(n->c)) ||
	    (!kp_is_comm(n->b) && !lit_key1(k, n->b)) ||
	    (!kp_is_comm(n->c) && !lit_key1(k, n->c)))
		return false;
	return kp_ty(k, n->a, &sz, &sg) &&
	       !(k->fmode && kp_has_str_cmp(k, n->a));
}

/*
 * A key c ? copyinstr(argN) : "lit" (or the literal first), c as
 * kp_lit_key()'s, the literal at most UBPF_KSKEY - 1 bytes: generated
 * programs write the branch c chooses into the kaggs_s key
 * (UBPF_K_SMKEY), the argument's string as SKEY writes it, the literal
 * NUL-padded, both cut at the merge as SKEY's are, and mark the key's
 * word k[n] where the string was taken (run.c's copyinstr() is tainted,
 * a literal not: as MKEY's).  Or c ? copyinstr(argN) : copyinstr(argM)
 * (SMKEY's agg 3): either branch the argument's string as SKEY writes
 * it, k[n] 1 (both tainted).  Where kaggs_s keys are taken
 * (kp_arg_str(): no fault sites): the arguments' strings are read at
 * every hit, whichever branch c chooses, and one that cannot be read,
 * or is longer than kaggs_s keeps, sends the hit to user space whole,
 * which evaluates only the branch c chose, as run.c does.  N (the
 * first branch's where both are strings), or -1.
 */
int kp_smix_key(const struct d_kplan *k, const struct node *n)
{
	const struct node *s, *l;
	uint8_t sz, sg;
	int a;

	if (!k || !k->vars || k->nostr || k->fmode || n->op != N_TERN)
		return -1;
	s = kp_copyinstr_arg(n->b) >= 0 ? n->b : n->c;
	l = s == n->b ? n->c : n->b;
	a = kp_copyinstr_arg(s);
	if (a < 0 ||
	    (kp_copyinstr_arg(l) < 0 && (l->op != N_STR || !l->sval ||
					 strlen(l->sval) > UBPF_KSKEY - 1)) ||
	    !kp_ty(k, n->a, &sz, &sg) || kp_has_str_cmp(k, n->a))
		return -1;
	return a;
}

/*
 * execname OP "literal" or execname OP v, v a KV_STR variable, OP == !=
 * < <= > >= (either way round: *op is OP's number as VVCMP's agg, 0 ==
 * 1 != 2 < 3 > 4 <= 5 >=, for execname on the left).  run.c compares
 * the record's comm whole with strcmp(), which is what the kernel's
 * bpf_get_current_comm() reads at the hit (the record's own comm);
 * the literal is never cut, and neither is execname (at most 15
 * bytes), whatever strsize is.
 */
bool kp_comm_cmp(const struct d_kplan *k, const struct node *n,
		 const struct node **lit, int *v, unsigned *op)
{
	static const unsigned turned[] = { 0, 1, 3, 2, 5, 4 };
	const struct node *o;
	unsigned x;
	bool left;

	if (!k || !k->vars || n->op != N_BIN)
		return false;
	switch (n->sub) {
	case OP_EQ: x = 0; break;
	case OP_NE: x = 1; break;
	case '<': x = 2; break;
	case '>': x = 3; break;
	case OP_LE: x = 4; break;
	case OP_GE: x = 5; break;
	default: return false;
	}
	left = kp_is_comm(n->a);
	if (!left && !kp_is_comm(n->b))
		return false;
	o = left ? n->b : n->a;
	if (o->op == N_STR) {
		if (!o->sval)
			return false;
		if (lit)
			*lit = o;
	} else if (kp_out_svar(k, o)) {
		if (lit)
			*lit = NULL;
		if (v)
			*v = o->sub;
	} else {
		return false;
	}
	if (op)
		*op = left ? x : turned[x];
	return true;
}

/*
 * execname OP copyinstr(argN) (or a this-> variable that is it, or
 * args[N]: sarg_of()), OP == != < <= > >=, either way round (*op as
 * kp_comm_cmp()'s): generated programs compare the comm the kernel
 * reads at the hit with the argument's string as run.c compares the
 * record's (UBPF_K_CACMP), the string cut to strsize - 1 bytes as
 * copyinstr() cuts it, execname whole.  The copy may fault: only where
 * a string that faults sends the whole hit to user space (no fault
 * sites: not k->fmode), as kp_arg_str()'s keys.
 */
bool kp_comm_arg(const struct d_kplan *k, const struct node *n, int *arg,
		 unsigned *op)
{
	static const unsigned turned[] = { 0, 1, 3, 2, 5, 4 };
	static const int subs[] = { OP_EQ, OP_NE, '<', '>', OP_LE, OP_GE };
	unsigned x;
	bool left;
	int a;

	if (!k || !k->vars || k->nostr || k->fmode || n->op != N_BIN)
		return false;
	for (x = 0; x < 6 && subs[x] != n->sub; x++)
		;
	if (x == 6)
		return false;
	left = kp_is_comm(n->a);
	if (!left && !kp_is_comm(n->b))
		return false;
	a = sarg_of(k, left ? n->b : n->a);
	if (a < 0)
		return false;
	if (arg)
		*arg = a;
	if (op)
		*op = left ? x : turned[x];
	return true;
}

/* copyinstr(E), one argument (strsize's bytes) */
bool kp_copyinstr_of(const struct node *n)
{
	return n->op == N_FUNC && d_funcs[n->sub].id == F_COPYINSTR &&
	       n->nargs == 1;
}

/* 0 or "": what a string variable set to it reads ("") */
bool kp_str_clear(const struct node *n)
{
	return (n->op == N_INT && n->ival == 0) ||
	       (n->op == N_STR && n->sval && !n->sval[0]);
}

/*
 * A literal stored into a string variable (not "": kp_str_clear()): at
 * most UBPF_KSTRMAX bytes and strsize - 3, as kp_svar_lit()'s, so the
 * copy's length tells it from a string an SSTR cut (VSLEN, VSEQ read
 * only the length then), and printed the same whether tainted or not:
 * the kernel's bytes print as a traced process's (kplan_out.c's
 * d_kplan_out_run()), where run.c prints the script's own as they are.
 */
bool kp_str_lit_store(const struct d_prog *p, const struct node *n)
{
	char safe[TXT_SAFE_MAX(UBPF_KSTRMAX)];
	size_t len;

	if (n->op != N_STR || !n->sval || !n->sval[0])
		return false;
	len = strlen(n->sval);
	return len <= UBPF_KSTRMAX && len + 3 <= p->strsize &&
	       !strcmp(txt_safe(n->sval, safe, sizeof(safe)), n->sval);
}

/* A self-> or this-> string variable read whole: its index, else -1 */
int kp_str_var_of(const struct d_prog *p, const struct node *n)
{
	const struct var *v;

	if (n->op != N_VAR || n->sub < 0 || (unsigned)n->sub >= p->nvars)
		return -1;
	v = &p->vars[n->sub];
	if ((v->scope != SC_SELF && v->scope != SC_THIS) || v->kind != T_STR ||
	    v->ptr || v->psou)
		return -1;
	return n->sub;
}

/* copyinstr(argN): N, else -1 */
int kp_copyinstr_arg(const struct node *n)
{
	if (n->op != N_FUNC || d_funcs[n->sub].id != F_COPYINSTR ||
	    n->nargs != 1 || n->args[0]->op != N_ARGN || n->args[0]->sub < 0 ||
	    n->args[0]->sub >= D_MAXARGS)
		return -1;
	return n->args[0]->sub;
}

/* stringof(E): E (of a string it is the string itself, func.c) */
static const struct node *unstringof(const struct node *n)
{
	while (n->op == N_FUNC && d_funcs[n->sub].id == F_STRINGOF &&
	       n->nargs == 1)
		n = n->args[0];
	return n;
}

/* args[N], N a constant, maybe in stringof(): N, else -1 */
int kp_args_index(const struct node *n)
{
	n = unstringof(n);
	if (n->op != N_ARGS || n->a->op != N_INT || n->a->ival < 0 ||
	    n->a->ival >= D_MAXARGS)
		return -1;
	return (int)n->a->ival;
}

/*
 * copyinstr(argN), a read of a KV_SARG variable that is it, or args[N]
 * (N a constant), which is it at a probe declaring that argument a
 * string (run.c's d_args_str(): both read d_arg_str()); kplan_emit.c
 * leaves the clause to user space at a probe where it is not (an
 * integer there, whose stringof() is its digits, or no such
 * argument); any of them in stringof(), which returns a string as it
 * is: N, else -1
 */
static int sarg_of(const struct d_kplan *k, const struct node *n)
{
	n = unstringof(n);
	if (n->op == N_VAR && k->vst[n->sub] == KV_SARG)
		return k->varg[n->sub];
	if (n->op == N_ARGS)
		return kp_args_index(n);
	return kp_copyinstr_arg(n);
}

/* copyinstr(argN) as a key (kaggs_s, generated programs): N, else -1 */
int kp_arg_str(const struct d_kplan *k, const struct node *n)
{
	if (!k || !k->vars || k->nostr || k->fmode)
		return -1;
	return sarg_of(k, n);
}

/*
 * strlen(copyinstr(argN)), or strlen(args[N]) (N a constant, maybe in
 * stringof()), where the kernel reads arguments' strings as
 * kp_arg_str()'s keys (no fault sites: a string that cannot be read
 * sends the hit to user space whole, which faults as it would have):
 * UBPF_K_SLEN, the length of cgen_plan.c's seq_read() copy, cut to
 * strsize - 1 as copyinstr() cuts it.  args[N] is that string at a
 * probe declaring argument N a string (run.c's N_ARGS and func.c's
 * copyinstr() both read d_arg_str(x, N, strsize)); kp_ty_at() takes it
 * only there (at KP_ANYPROBE, for kplan_emit.c to type at each probe,
 * which leaves the clause to user space where it is not).  N, else -1.
 */
int kp_arg_strlen(const struct d_kplan *k, const struct node *n)
{
	if (!n || n->op != N_FUNC || d_funcs[n->sub].id != F_STRLEN ||
	    n->nargs != 1 ||
	    (kp_copyinstr_arg(n->args[0]) < 0 && kp_args_index(n->args[0]) < 0))
		return -1;
	if (k && kp_args_index(n->args[0]) >= 0 && k->prog->nvars)
		return -1; /* not with variables: below */
	return kp_arg_str(k, n->args[0]);
}

/*
 * Why strlen(args[N]) only in a program with no variable: a clause
 * spanning probes that declare argument N a string and probes that do
 * not runs in the kernel at the first and in user space at the others
 * (kplan_emit.c types it at each probe), which a clause touching a
 * variable the kernel keeps cannot (bpf_agg.c's plan_of(): the event
 * refused, "do not fit one plan"), and which variables the kernel keeps
 * is decided before any probe is known.  So in a program with
 * variables, such a clause is user space's at every probe, as before
 * kp_arg_strlen() took args[N] (kplan_why.c says why).
 */

/* strlen(args[N]) of kp_arg_strlen() typed at probe pr (kp_ty_at()):
 * a string there (pr NULL: no args[N]; KP_ANYPROBE: typed later) */
static bool arg_strlen_at(const struct d_probe *pr, const struct node *n)
{
	int a = kp_args_index(n->args[0]);

	return a < 0 ||
	       (pr && (pr == KP_ANYPROBE || d_args_str(pr, (unsigned)a)));
}

/* Does n compare an argument's string, a read of the process that may
 * fault (kp_str_cmp(), kp_svar_acmp()), or measure one
 * (kp_arg_strlen())? */
bool kp_has_str_cmp(const struct d_kplan *k, const struct node *n)
{
	if (!n)
		return false;
	if (kp_str_cmp(k, n, NULL, NULL) || kp_svar_acmp(k, n, NULL, NULL) ||
	    kp_arg_strlen(k, n) >= 0)
		return true;
	if (kp_has_str_cmp(k, n->a) || kp_has_str_cmp(k, n->b) ||
	    kp_has_str_cmp(k, n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (kp_has_str_cmp(k, n->args[i]))
			return true;
	return false;
}

const struct d_probe kp_anyprobe;

/*
 * The type of an integer expression the kernel can compute; false if
 * none.  args[N] (N a constant) has its declared type at probe pr
 * (run.c's d_args_int(): what the record's argument N reads as there);
 * pr KP_ANYPROBE, deciding a clause before any probe is known, types it
 * int64_t, and kplan_emit.c types the clause again at each probe,
 * leaving it to user space where that fails; pr NULL: no args[N].
 */
bool kp_ty_at(const struct d_kplan *k, const struct d_probe *pr,
	      const struct node *n, uint8_t *sz, uint8_t *sg)
{
	uint8_t az, ag, bz, bg, cz, cg;

	switch (n->op) {
	case N_INT:
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_ARGN:
		*sz = 8;
		*sg = 1;
		return n->sub >= 0 && n->sub < D_MAXARGS;
	case N_ARGS: /* an integer where the probe declares one */
		if (!pr || kp_args_index(n) < 0 || n->a->op != N_INT)
			return false;
		if (pr == KP_ANYPROBE) {
			*sz = 8;
			*sg = 1;
			return true;
		}
		return d_args_int(pr, (unsigned)n->a->ival, sz, sg);
	case N_VAR:
		return var_ty(k, (unsigned)n->sub, sz, sg);
	case N_ASSOC: /* self->a[k...]: integer keys */
		if (!n->nargs || n->nargs > UBPF_KMAXKEYS)
			return false;
		for (unsigned i = 0; i < n->nargs; i++) /* no args[N] */
			if (!kp_ty(k, n->args[i], &az, &ag))
				return false;
		return elem_ty(k, n, sz, sg);
	case N_BUILTIN:
		switch (d_builtins[n->sub].id) {
		case B_TIMESTAMP:
		case B_WALLTIMESTAMP: /* timestamp + k->wall, as hit_prep() */
			*sz = 8;
			*sg = 0;
			return k && k->vars;
		case B_PID:
		case B_TID:
			*sz = 4;
			*sg = 1;
			return true;
		case B_ID:
			*sz = 4;
			*sg = 0;
			return true;
		case B_CPU: /* the generated program's helpers: */
			*sz = 4;
			*sg = 1;
			return k && k->vars;
		case B_UID: /* the record's values, read as it reads them */
		case B_GID:
			*sz = 4;
			*sg = 0;
			return k && k->vars;
		case B_PPID: /* read as the record's (UBPF_K_PPID) */
			*sz = 4;
			*sg = 1;
			return k && k->ppid;
		case B_EUID: /* read as the record's (UBPF_K_ECRED) */
		case B_EGID:
			*sz = 4;
			*sg = 0;
			return k && k->ecred;
		case B_PGID: /* ... (UBPF_K_SESS) */
		case B_SID:
			*sz = 4;
			*sg = 1;
			return k && k->sess;
		case B_ERRNO: /* from arg0 at a system call's return, else 0
			       * (kp_errno(): d_probe's errret) */
			*sz = 4;
			*sg = 1;
			return k && k->vars;
		}
		return false;
	case N_UN:
		if (!kp_ty_at(k, pr, n->a, &az, &ag))
			return false;
		if (n->sub == '!') {
			*sz = 4;
			*sg = 1;
			return true;
		}
		if (n->sub != '~' && n->sub != '-' && n->sub != '+')
			return false;
		*sz = az < 4 ? 4 : az;
		*sg = az < 4 ? 1 : ag;
		return true;
	case N_CAST:
		if (!kp_ty_at(k, pr, n->a, &az, &ag))
			return false;
		*sz = n->sz;
		*sg = n->sg;
		return true;
	case N_BIN:
		if (kp_str_cmp(k, n, NULL, NULL) ||
		    kp_svar_cmp(k, n, NULL, NULL) ||
		    kp_svar_ocmp(k, n, NULL, NULL, NULL) ||
		    kp_svar_vv(k, n, NULL, NULL) ||
		    kp_svar_acmp(k, n, NULL, NULL) ||
		    kp_comm_cmp(k, n, NULL, NULL, NULL) ||
		    kp_comm_arg(k, n, NULL, NULL)) {
			*sz = 4;
			*sg = 1;
			return true;
		}
		if (n->ptr || (n->sub == '-' && n->a->ptr && n->b->ptr) ||
		    !kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg))
			return false; /* pointer arithmetic scales: mem.c */
		switch (n->sub) {
		case OP_SHL:
		case OP_SHR:
			*sz = az < 4 ? 4 : az;
			*sg = az < 4 ? 1 : ag;
			return true;
		case OP_EQ:
		case OP_NE:
		case '<':
		case '>':
		case OP_LE:
		case OP_GE:
			*sz = 4;
			*sg = 1;
			return true;
		case '+':
		case '-':
		case '*':
		case '&':
		case '|':
		case '^':
		case '/':
		case '%':
			break;
		default:
			return false;
		}
		/* run.c's common_type() */
		{
			unsigned sa = az < 4 ? 4 : az, sb = bz < 4 ? 4 : bz;
			bool ga = az < 4 ? true : ag, gb = bz < 4 ? true : bg;

			if (sa != sb) {
				*sz = (uint8_t)(sa > sb ? sa : sb);
				*sg = sa > sb ? ga : gb;
			} else {
				*sz = (uint8_t)sa;
				*sg = ga && gb;
			}
		}
		/* no division that could fault */
		if (n->sub == '/' || n->sub == '%') {
			int64_t v;

			return kp_const_of(n->b, &v) && d_dv_int(v, *sz, *sg).i != 0;
		}
		return true;
	case N_LAND:
	case N_LOR:
	case N_LXOR:
		if (!kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg))
			return false;
		*sz = 4;
		*sg = 1;
		return true;
	case N_FUNC: /* strlen() of a self-> string the kernel keeps, of
		      * copyinstr(argN) or args[N] (kp_arg_strlen()) or of
		      * execname */
		if (!kp_svar_strlen(k, n, NULL) &&
		    (kp_arg_strlen(k, n) < 0 || !arg_strlen_at(pr, n)) &&
		    !kp_comm_strlen(k, n))
			return false;
		*sz = d_funcs[n->sub].sz; /* size_t, as func.c has it */
		*sg = d_funcs[n->sub].sg;
		return true;
	case N_TERN:
		if (!kp_ty_at(k, pr, n->a, &az, &ag) ||
		    !kp_ty_at(k, pr, n->b, &bz, &bg) ||
		    !kp_ty_at(k, pr, n->c, &cz, &cg) || bz != cz || bg != cg)
			return false;
		/* the kernel computes both branches; a comparison that
		 * faults at the hit must not run where run.c's would not */
		if (k && k->fmode &&
		    (kp_has_str_cmp(k, n->b) || kp_has_str_cmp(k, n->c)))
			return false;
		*sz = bz;
		*sg = bg;
		return true;
	}
	return false;
}

bool kp_ty(const struct d_kplan *k, const struct node *n, uint8_t *sz,
	   uint8_t *sg)
{
	return kp_ty_at(k, NULL, n, sz, sg);
}

/* Does n read args[N]? */
bool kp_has_args(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_ARGS || kp_has_args(n->a) || kp_has_args(n->b) ||
	    kp_has_args(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (kp_has_args(n->args[i]))
			return true;
	return false;
}

/* probeprov and the like: the B_ id, else -1 */
static int ident(const struct node *n)
{
	if (n->op != N_BUILTIN)
		return -1;
	switch (d_builtins[n->sub].id) {
	case B_PROBEPROV:
	case B_PROBEMOD:
	case B_PROBEFUNC:
	case B_PROBENAME:
		return d_builtins[n->sub].id;
	}
	return -1;
}

/* self->v = e or this->v = e, v OP= e, v++, ++v, v--, --v (v also an
 * element self->a[k...]): v's index, else -1 */
int kp_assigned_var(const struct stmt *st)
{
	const struct node *e = st->e;

	if (st->kind != S_EXPR || !e ||
	    (e->op != N_ASSIGN && e->op != N_INCDEC) || !e->a ||
	    (e->a->op != N_VAR && e->a->op != N_ASSOC))
		return -1;
	return e->a->sub;
}

/*
 * The value the store st (kp_assigned_var()) gives its variable: e of
 * v = e; v OP e of v OP= e and v + 1, v - 1 of ++ and -- (pre- or
 * postfix: a statement's value is not used), as run.c computes them
 * (var_get(), binop() with the int 1, var_set()), built in *bin, *one.
 */
const struct node *kp_stored(const struct stmt *st, struct node *bin,
			     struct node *one)
{
	const struct node *e = st->e;

	if (e->op == N_ASSIGN && e->sub == '=')
		return e->b;
	memset(bin, 0, sizeof(*bin));
	bin->op = N_BIN;
	bin->a = e->a;
	bin->line = e->line;
	bin->col = e->col;
	if (e->op == N_ASSIGN) {
		bin->sub = d_compound_op(e->sub);
		bin->b = e->b;
		return bin;
	}
	memset(one, 0, sizeof(*one));
	one->op = N_INT;
	one->ival = 1;
	one->sz = 4;
	one->sg = 1;
	bin->sub = e->sub == OP_INC ? '+' : '-';
	bin->b = one;
	return bin;
}

/* Can the kernel run st?  Its key types into ks. */
/*
 * Keys of one execname and one copyinstr(argN) (or a this-> string
 * that is it, KV_SARG, or stringof(args[N]), the clause user space's
 * at a probe where args[N] is no string: kplan_emit.c; with bare,
 * args[N] itself, the statement's layout at a probe where it is a
 * string: bare_alts()), or of two
 * copyinstr() (argN and argM, N and M maybe the same), the others
 * integers the kernel computes or the probe's names, in any order:
 * one key of kaggs_s (generated
 * programs).  Two strings: both in its s, the first key's as SKEY
 * copies it, the second's right after its NUL (UBPF_K_SKEY2), both
 * with their NULs at most UBPF_KSKEY bytes (else the hit is user
 * space's whole, as a string key too long for kaggs_s is: seq_read());
 * a string has no NUL, so the bytes up to the first NUL are the first
 * and the next up to the second NUL the second, and the merge splits
 * them so, each cut to strsize - 1 and tainted as SKEY's.
 * execname: the string copied as SKEY copies it into its s, execname
 * (16 bytes, its NUL and the zeros after it included) into two of its
 * words, execname's own k[] and the string key's (0 for SKEY; both
 * are a key's words, so the map tells entries apart by all of it),
 * UBPF_K_CWKEY.  The merge (d_kplan_merge()) makes execname's string
 * of the two words, cut to strsize - 1 as agg.c cuts a key, and
 * tainted, as run.c's execname is.  Both (three string keys:
 * execname and two copyinstr()): the two strings in s, execname in
 * the two words, the merge splitting each as above.  Where kp_arg_str() takes a
 * string key (no fault sites: a string that cannot be read, or longer
 * than kaggs_s keeps, sends the hit to user space whole) and strsize
 * is fixed for the run, as for execname's own key (CKEY).  Into ks
 * (skey, sarg, kcomm), else false and ks as it was.
 */
static bool str_pair_keys(const struct d_kplan *k, const struct stmt *st,
			  struct kstmt *ks, bool bare)
{
	int c = -1, s = -1, sa = -1, s2 = -1, sa2 = -1;
	uint8_t sz, sg;

	if (!k->vars || !kp_strsize_fixed(k))
		return false;
	for (unsigned i = 0; i < st->nkeys; i++) {
		/* stringof(args[N]) too (kplan_emit.c leaves the clause
		 * to user space at a probe where args[N] is no string, as
		 * for a lone one); args[N] bare only with bare, an integer
		 * key at a probe declaring an integer (kargs) in the
		 * statement's other layout (bare_alts()) */
		int a = kp_arg_str(k, st->keys[i]);
		bool plain = a >= 0 && (st->keys[i]->op != N_ARGS || bare);

		if (kp_is_comm(st->keys[i]) && c < 0)
			c = (int)i;
		else if (plain && s < 0)
			s = (int)i, sa = a;
		else if (plain && s2 < 0)
			s2 = (int)i, sa2 = a;
		else if (ident(st->keys[i]) < 0 &&
			 !kp_ty_at(k, KP_ANYPROBE, st->keys[i], &sz, &sg))
			return false;
	}
	if ((c < 0 && s2 < 0) || s < 0)
		return false;
	for (unsigned i = 0; i < st->nkeys; i++) {
		ks->kid[i] = ident(st->keys[i]);
		ks->ksz[i] = 8;
		ks->ksg[i] = 0;
		if ((int)i == c || (int)i == s || (int)i == s2)
			continue;
		if (ks->kid[i] < 0 && kp_has_args(st->keys[i]))
			ks->kargs |= (uint8_t)(1u << i); /* typed per probe */
		if (ks->kid[i] < 0)
			(void)kp_ty_at(k, KP_ANYPROBE, st->keys[i], &ks->ksz[i],
				       &ks->ksg[i]);
	}
	ks->skey = s;
	ks->sarg = (uint8_t)sa;
	ks->kcomm = (uint8_t)(c + 1);
	ks->skey2 = (uint8_t)(s2 + 1);
	ks->sarg2 = (uint8_t)(sa2 < 0 ? 0 : sa2);
	if (st->keys[s]->op == N_ARGS)
		ks->sbare |= (uint8_t)(1u << s);
	if (s2 >= 0 && st->keys[s2]->op == N_ARGS)
		ks->sbare |= (uint8_t)(1u << s2);
	return true;
}

/*
 * args[N] bare beside another string key (D_KPLAN_VARS).  A string key
 * that is args[N] at a probe declaring argument N a string, an integer
 * at one declaring an integer: a lone one is kaggs_s's key at the
 * first and kaggs' at the second (kplan_emit.c's skey_int()), but a
 * statement's layout beside another string key (str_pair_keys(): SKEY2
 * or CWKEY, in one kaggs_s key) is fixed before the probes are known,
 * and its bare args[N] can be no integer there.  So str_pair_keys()
 * takes it (k->bare) and each such statement gets a second layout, the
 * one it had without (args[N] an integer key typed per probe, the
 * other string key alone: CKEY, SKEY), as a statement of its own
 * appended to k->st (kstmt's alt) with its own number: at a probe
 * where each bare args[N] of the pair is a string the plan runs the
 * first, elsewhere the second (kp_stmt_at(); kplan_emit.c), and the
 * merge reads each entry by its statement's layout into the one
 * aggregation.  A probe where neither fits (args[N] undeclared) runs
 * the clause in user space, as for a lone one.
 */
static void bare_alts(struct d_kplan *k)
{
	const struct d_prog *p = k->prog;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		for (unsigned i = 0; k->ok[ci] && i < p->clauses[ci].nflat;
		     i++) {
			unsigned at = k->first[ci] + i;
			struct kstmt alt;

			if (k->st[at].assign || !k->st[at].sbare ||
			    k->nst + 1 > UINT16_MAX)
				continue;
			k->bare = false;
			if (kp_stmt_ok(k, k->st[at].st, &alt)) {
				xgrow(&k->st, &k->stcap, (size_t)k->nst + 1,
				      sizeof(*k->st));
				k->st[k->nst] = alt;
				k->st[at].alt = ++k->nst;
			}
			k->bare = true;
		}
	}
}

struct kstmt *kp_stmt_at(const struct d_kplan *k, unsigned clause,
			 unsigned i, const struct d_probe *probe,
			 unsigned *at)
{
	unsigned n = k->first[clause] + i;
	const struct kstmt *ks = &k->st[n];
	bool here = true;

	if (ks->skey >= 0 && (ks->sbare >> ks->skey & 1))
		here = d_args_str(probe, ks->sarg);
	if (ks->skey2 && (ks->sbare >> (ks->skey2 - 1) & 1))
		here = here && d_args_str(probe, ks->sarg2);
	if (!here && ks->alt)
		n = ks->alt - 1;
	if (at)
		*at = n;
	return &k->st[n];
}

bool kp_stmt_ok(const struct d_kplan *k, const struct stmt *st,
		    struct kstmt *ks)
{
	const struct d_prog *p = k->prog;
	const struct agg *a;
	uint8_t sz, sg;
	int v = k->vars ? kp_assigned_var(st) : -1;

	memset(ks, 0, sizeof(*ks));
	ks->st = st;
	ks->slot = -1;
	ks->svar = -1;
	if (v >= 0) { /* a store: of a variable kept, of a value it can have */
		struct node bin, one;

		ks->assign = true;
		ks->agg = ~0u;
		if (k->vst[v] == KV_SARG) /* sarg_var() saw it */
			return true;
		if (k->vst[v] == KV_STR) /* kplan_out.c's kp_sstr_ok() */
			return false;
		return var_ty(k, (unsigned)v, &sz, &sg) &&
		       kp_ty(k, st->e->a, &sz, &sg) && /* self->a[k]'s keys */
		       kp_ty(k, kp_stored(st, &bin, &one), &sz, &sg);
	}
	if (st->kind != S_AGG || st->nkeys > UBPF_KMAXKEYS)
		return false;
	a = &p->aggs[st->agg];
	switch (a->fn) {
	case AG_COUNT:
		break;
	case AG_SUM:
	case AG_AVG:
	case AG_MIN:
	case AG_MAX:
		if (st->nargs != 1)
			return false;
		break;
	case AG_QUANTIZE:
		if (st->nargs != 1) /* an increment */
			return false;
		break;
	case AG_LQUANTIZE:
		if (st->nargs > 4 || a->lq_levels >= UINT16_MAX)
			return false;
		break;
	case AG_STDDEV: /* generated programs only ("stddev() and ...") */
		if (!k->vars || st->nargs != 1)
			return false;
		break;
	case AG_LLQUANTIZE: /* no increment; a bucket is a __u16 */
		if (!k->vars || st->nargs != 5 ||
		    a->llq_nbuckets > UINT16_MAX)
			return false;
		break;
	default:
		return false;
	}
	/* the value, as d_agg_update() aggregates it: int64_t */
	if (st->nargs && !kp_ty_at(k, KP_ANYPROBE, st->args[0], &sz, &sg))
		return false;
	ks->agg = st->agg;
	ks->nslots = a->fn == AG_QUANTIZE	? QZ_NBUCKETS
		     : a->fn == AG_LQUANTIZE	? a->lq_levels + 2u
		     : a->fn == AG_LLQUANTIZE	? a->llq_nbuckets
		     : a->fn == AG_STDDEV	? 2
						: 1;
	ks->skey = -1;
	ks->svar = -1;
	/* execname or copyinstr(), and one; args[N] bare in the pair
	 * where that takes, else an integer key beside another pair */
	if (str_pair_keys(k, st, ks, k->bare) ||
	    (k->bare && str_pair_keys(k, st, ks, false)))
		return true;
	for (unsigned i = 0; i < st->nkeys; i++) {
		int sa = kp_arg_str(k, st->keys[i]);

		ks->kid[i] = ident(st->keys[i]);
		ks->ksz[i] = 8;
		ks->ksg[i] = 0;
		if (ks->skey < 0 && kp_smix_key(k, st->keys[i]) >= 0) {
			/* c ? copyinstr(argN) : "lit" (SMKEY, kaggs_s) */
			ks->skey = (int)i;
			ks->sarg = (uint8_t)kp_smix_key(k, st->keys[i]);
			ks->sx = KSX_SMIX;
			continue;
		}
		if (sa >= 0 && ks->skey < 0) { /* one string key */
			ks->skey = (int)i;
			ks->sarg = (uint8_t)sa;
			/* args[N] bare: an integer at a probe declaring one
			 * (kplan_emit.c's skey_int(), kaggs' key) */
			if (st->keys[i]->op == N_ARGS)
				ks->kargs |= (uint8_t)(1u << i);
			continue;
		}
		if (ks->skey < 0 && kp_out_svar(k, st->keys[i])) {
			/* ... or a string variable's bytes (VKEY) */
			ks->skey = (int)i;
			ks->svar = st->keys[i]->sub;
			continue;
		}
		if (ks->skey < 0 &&
		    ((kp_is_comm(st->keys[i]) && kp_strsize_fixed(k)) ||
		     kp_lit_key(k, st->keys[i]) ||
		     kp_mix_key(k, st->keys[i]))) {
			/* ... or execname's, or a literal's, or a ?: of
			 * them (CKEY, LKEY, MKEY) */
			ks->skey = (int)i;
			ks->sx = kp_is_comm(st->keys[i])      ? KSX_COMM
				 : kp_lit_key(k, st->keys[i]) ? KSX_LIT
							      : KSX_MIX;
			continue;
		}
		if (ks->kid[i] < 0 && kp_has_args(st->keys[i]))
			ks->kargs |= (uint8_t)(1u << i); /* typed per probe */
		if (ks->kid[i] < 0 &&
		    !kp_ty_at(k, KP_ANYPROBE, st->keys[i], &ks->ksz[i],
			      &ks->ksg[i]))
			return false;
	}
	return true;
}

/* Does the clause fire only for dtrace:::BEGIN and dtrace:::END? */
bool kp_dtrace_only(const struct clause *c)
{
	if (c->spec != 0 && c->spec != 4)
		return false;
	for (unsigned j = 0; j < c->ndescs; j++) {
		const char *d = c->descs[j], *name = strrchr(d, ':');
		unsigned colons = 0;

		name = name ? name + 1 : d;
		if (strcmp(name, "BEGIN") && strcmp(name, "END"))
			return false;
		for (const char *q = d; *q; q++)
			colons += *q == ':';
		if (colons == 3 && strncmp(d, ":", 1) &&
		    strncmp(d, "dtrace:", 7))
			return false;
	}
	return true;
}

/*
 * The first statement of v that is printa(), clear(), trunc(),
 * normalize(), exit() (but those ok lets through) or what kplan.c does
 * not know, or NULL (kplan_why.c names it).  ok: nothing of its own
 * (KP_ST_NONE); exit() (KP_ST_EXIT: a traced probe's, decided at the
 * hit); exit() and what reads, resets or scales aggregations
 * (KP_ST_TICK: a tick-N clause's, cut at the horizon, the kernel's
 * aggregations folded in at its firing)
 */
const struct stmt *kp_stmts_stop(const struct stmt *v, unsigned n, int ok)
{
	const struct stmt *s;

	for (unsigned i = 0; i < n; i++) {
		switch (v[i].kind) {
		case S_EXPR:
		case S_PRINTF:
		case S_TRACE:
		case S_TRACEMEM:
		case S_AGG:
		/* user space's clauses, which touch no aggregation and
		 * stop nothing (kplan.c's "Speculations") */
		case S_SPECULATE:
		case S_COMMIT:
		case S_DISCARD:
			break;
		case S_EXIT:
			if (ok == KP_ST_NONE)
				return &v[i];
			break;
		case S_PRINTA:
		case S_CLEAR:
		case S_TRUNC:
		case S_NORMALIZE:
		case S_DENORMALIZE:
			if (ok != KP_ST_TICK)
				return &v[i];
			break;
		case S_IF:
			if ((s = kp_stmts_stop(v[i].body, v[i].nbody, ok)) ||
			    (s = kp_stmts_stop(v[i].els, v[i].nels, ok)))
				return s;
			break;
		default:
			return &v[i];
		}
	}
	return NULL;
}

static bool stmts_stop(const struct stmt *v, unsigned n, int ok)
{
	return kp_stmts_stop(v, n, ok) != NULL;
}

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

static bool gate_ok(const struct node *n);

/*
 * Clause c calls exit() where the kernel can decide it at the hit
 * (kplan.c's "exit() at a traced probe"): its predicate, if any, and
 * everything before its first exit() -- printf() and trace() only --
 * compute integers the hit alone decides and cannot fault, so the
 * clause reaches exit() exactly when its predicate holds.
 */
static bool hit_int(const struct d_kplan *k, const struct node *n)
{
	uint8_t sz, sg;

	return !n || (gate_ok(n) && kp_ty(k, n, &sz, &sg));
}

static bool exit_at_hit(const struct d_kplan *k, const struct clause *c)
{
	if (!hit_int(k, c->pred))
		return false;
	for (unsigned i = 0; i < c->nstmts; i++) {
		const struct stmt *st = &c->stmts[i];

		if (st->kind != S_EXIT && st->kind != S_PRINTF &&
		    st->kind != S_TRACE)
			return false;
		if (!hit_int(k, st->e))
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
 * Why clause c's exit() is not decided at the hit (-v: bpf_agg.c), tr
 * whether its probes are traced ones (kplan.c's "exit() at a traced
 * probe": what keeps the old refusal).
 */
static const char *exit_why(const struct d_kplan *k, const struct clause *c,
			    bool tr)
{
	if (!tr)
		return "it fires where no generated program runs (tick-N, "
		       "or in-process activation)";
	if (hit_int(k, c->pred))
		return "a statement before it is not printf() or trace() of "
		       "values the hit decides";
	if (reads_scope(k, c->pred, SC_GLOBAL))
		return "its predicate reads a global variable, which only "
		       "user space keeps";
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

void d_kplan_wall(struct d_kplan *k, int64_t off)
{
	k->wall = off;
}

void d_kplan_ppid(struct d_kplan *k, const uint32_t o[2])
{
	k->ppid1[0] = o[0];
	k->ppid1[1] = o[1];
}

void d_kplan_ecred(struct d_kplan *k, const uint32_t o[3])
{
	memcpy(k->ecred1, o, sizeof(k->ecred1));
}

void d_kplan_sess(struct d_kplan *k, const uint32_t o[4])
{
	memcpy(k->sess1, o, sizeof(k->sess1));
}

struct d_kplan *d_kplan_new(struct d_prog *p, unsigned flags, const bool *user,
			    const bool *ticks, const bool *traced)
{
	struct d_kplan *k = xcalloc(1, sizeof(*k));
	unsigned ci, i, nv = p->nvars ? p->nvars : 1;
	bool *xuser = NULL;

	k->prog = p;
	k->ok = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->ok));
	k->sout = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->sout));
	k->spred = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->spred));
	k->vin = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->vin));
	k->vpred = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->vpred));
	k->first = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->first));
	k->tls = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->tls));
	k->kv = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->kv));
	k->untyped =
		xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->untyped));
	k->user = user; /* read by kp_vars_decide() only, below */
	k->vst = xcalloc(nv, sizeof(*k->vst));
	k->vsz = xcalloc(nv, sizeof(*k->vsz));
	k->vsg = xcalloc(nv, sizeof(*k->vsg));
	k->vbit = xcalloc(nv, sizeof(*k->vbit));
	k->vslot = xcalloc(nv, sizeof(*k->vslot));
	k->varg = xcalloc(nv, sizeof(*k->varg));
	/* a predicate that gates the record changes nothing a clause
	 * sees, so exit() and printa() do not rule gates out */
	k->gates = (flags & D_KPLAN_VARS) != 0;
	k->xcl = xcalloc(p->nclauses ? p->nclauses : 1, sizeof(*k->xcl));
	/* before exit_at_hit(): the generated programs' values (cpu, uid,
	 * gid, errno) decide an exit() as they decide a gate, which
	 * d_kplan_xtest() makes of its predicate */
	k->vars = (flags & D_KPLAN_VARS) != 0;
	k->ppid = k->vars && (flags & D_KPLAN_PPID);
	k->ecred = k->vars && (flags & D_KPLAN_ECRED);
	k->sess = k->vars && (flags & D_KPLAN_SESS);
	if (k->vars && traced) { /* kplan_out.c's kp_sout_where() */
		k->traced = xcalloc(p->nclauses ? p->nclauses : 1,
				    sizeof(*k->traced));
		memcpy(k->traced, traced, p->nclauses * sizeof(*traced));
	}
	k->bare = k->vars; /* args[N] bare in a string pair: bare_alts() */
	for (ci = 0; ci < p->nclauses; ci++) {
		const struct clause *c = &p->clauses[ci];
		bool tick = ticks && ticks[ci] && (flags & D_KPLAN_VARS);
		bool tr = traced && traced[ci] && (flags & D_KPLAN_VARS);

		if (kp_dtrace_only(c) ||
		    !stmts_stop(c->stmts, c->nstmts, KP_ST_NONE))
			continue;
		if (tick && !stmts_stop(c->stmts, c->nstmts, KP_ST_TICK)) {
			/* exit(), printa(), clear(), trunc() at a tick-N
			 * firing: cut at the horizon, folded there */
			k->horizon = true;
			continue;
		}
		if (stmts_stop(c->stmts, c->nstmts, KP_ST_EXIT)) {
			/* printa(), clear(), trunc(): -v says which */
			k->awhy = true;
			k->awhyc = ci;
			goto none;
		}
		if (!tr || !exit_at_hit(k, c)) {
			if (flags & D_KPLAN_VARS) {
				k->xwhy = exit_why(k, c, tr);
				k->xwhyc = ci;
			}
			goto none;
		}
		if (!k->kexit)
			k->xfirst = ci;
		k->kexit = k->xcl[ci] = true; /* decided at the hit */
	}
	if (k->kexit) {
		/* the clauses from the first exit() on run in user space:
		 * the hit that exits runs none after it (DTrace's ECBs
		 * after the exit see the run draining) */
		xuser = xcalloc(p->nclauses, sizeof(*xuser));
		for (ci = 0; ci < p->nclauses; ci++)
			xuser[ci] = (user && user[ci]) || ci >= k->xfirst;
		k->user = xuser;
	}
	if (k->vars) {
		kp_vars_decide(k);
		bare_alts(k);
		k->user = NULL;
		free(xuser);
	} else {
		for (ci = 0; ci < p->nclauses; ci++)
			if (kp_clause_ok(k, ci))
				k->nst += p->clauses[ci].nflat;
	}
	/* no keys: slots of kflat while they last */
	for (ci = 0; ci < p->nclauses; ci++) {
		if (!k->ok[ci])
			continue;
		for (i = 0; i < p->clauses[ci].nflat; i++) {
			struct kstmt *ks = &k->st[k->first[ci] + i];

			if (ks->assign || ks->st->nkeys ||
			    k->nflat + ks->nslots > UBPF_KFLAT)
				continue;
			ks->slot = (int)k->nflat;
			k->nflat += ks->nslots;
		}
	}
	return k;
none: /* nothing in the kernel but gates, no exit() decided there */
	k->kexit = false;
	memset(k->xcl, 0, (p->nclauses ? p->nclauses : 1) * sizeof(*k->xcl));
	return k;
}

/*
 * Record gates.  An integer predicate reads nothing a clause can
 * change: no variable (which an earlier clause of the probe may have
 * set in user space), no string (whose copy in the record is a second
 * read of memory another thread may be writing), only the firing's
 * arguments, pid, tid, id, cpu, uid, gid (in the generated programs,
 * which alone have gates) and constants; and nothing it computes can
 * fault (kp_ty() takes / and % by a constant other than 0 only).
 */
static bool gate_ok(const struct node *n)
{
	if (!n)
		return true;
	if (n->op == N_VAR || n->op == N_ASSOC || n->op == N_ASSIGN ||
	    n->op == N_INCDEC || n->op == N_FUNC || n->op == N_STR ||
	    (n->op == N_BUILTIN && (d_builtins[n->sub].id == B_TIMESTAMP ||
				    d_builtins[n->sub].id == B_WALLTIMESTAMP)))
		return false;
	if (!gate_ok(n->a) || !gate_ok(n->b) || !gate_ok(n->c))
		return false;
	for (unsigned i = 0; i < n->nargs; i++)
		if (!gate_ok(n->args[i]))
			return false;
	return true;
}

bool d_kplan_gated(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c;
	uint8_t sz, sg;

	if (!k->gates || clause >= k->prog->nclauses ||
	    d_kplan_clause(k, clause))
		return false;
	c = &k->prog->clauses[clause];
	return c->pred && !kp_dtrace_only(c) && gate_ok(c->pred) &&
	       kp_ty(k, c->pred, &sz, &sg);
}

void d_kplan_free(struct d_kplan *k)
{
	if (!k)
		return;
	free(k->ok);
	free(k->sout);
	free(k->spred);
	free(k->vin);
	free(k->vpred);
	free(k->first);
	free(k->st);
	free(k->tls);
	free(k->kv);
	free(k->untyped);
	free(k->vst);
	free(k->vsz);
	free(k->vsg);
	free(k->vbit);
	free(k->vslot);
	free(k->varg);
	free(k->xcl);
	free(k->tied);
	free(k->traced);
	free(k);
}

bool d_kplan_horizon(const struct d_kplan *k)
{
	return k->horizon;
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

bool d_kplan_exits(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	return stmts_stop(c->stmts, c->nstmts, KP_ST_NONE) &&
	       !stmts_stop(c->stmts, c->nstmts, KP_ST_TICK);
}

bool d_kplan_folds(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (!d_kplan_exits(p, clause))
		return false;
	c = &p->clauses[clause];
	return stmts_fold(c->stmts, c->nstmts);
}

/* Does n call speculation()? */
static bool node_spec(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_FUNC && d_funcs[n->sub].id == F_SPECULATION)
		return true;
	if (node_spec(n->a) || node_spec(n->b) || node_spec(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_spec(n->args[i]))
			return true;
	return false;
}

/* speculation(), speculate(), commit() or discard() in v[0..n) */
static bool stmts_spec(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];

		if (st->kind == S_SPECULATE || st->kind == S_COMMIT ||
		    st->kind == S_DISCARD || node_spec(st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_spec(st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_spec(st->keys[j]))
				return true;
		if (st->kind == S_IF && (stmts_spec(st->body, st->nbody) ||
					 stmts_spec(st->els, st->nels)))
			return true;
	}
	return false;
}

bool d_kplan_specs(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	return node_spec(c->pred) || stmts_spec(c->stmts, c->nstmts);
}

/*
 * Does n read the traced process's memory by an address when it is
 * evaluated: copyinto(), copyin() of anything but argN (whose bytes
 * the record may carry: bpf.c's ev_mem(), mem.c's d_copyin()), or
 * copyinstr() of anything but an argument (arg0..arg11, args[N]),
 * whose string the record carries (run.c's d_arg_str())?  Member
 * access and * through a pointer read copyin()'s bytes (mem.c), so
 * copyin() covers them.
 */
static bool node_late(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_FUNC) {
		int id = d_funcs[n->sub].id;

		if (id == F_COPYINTO ||
		    (id == F_COPYIN && n->nargs && n->args[0]->op != N_ARGN))
			return true;
		if (id == F_COPYINSTR && n->nargs &&
		    n->args[0]->op != N_ARGN && n->args[0]->op != N_ARGS)
			return true;
	}
	if (node_late(n->a) || node_late(n->b) || node_late(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_late(n->args[i]))
			return true;
	return false;
}

static bool stmts_late(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct stmt *st = &v[i];

		if (node_late(st->e))
			return true;
		for (unsigned j = 0; j < st->nargs; j++)
			if (node_late(st->args[j]))
				return true;
		for (unsigned j = 0; j < st->nkeys; j++)
			if (node_late(st->keys[j]))
				return true;
		if (st->kind == S_IF && (stmts_late(st->body, st->nbody) ||
					 stmts_late(st->els, st->nels)))
			return true;
	}
	return false;
}

bool kp_late(const struct clause *c)
{
	return node_late(c->pred) || stmts_late(c->stmts, c->nstmts);
}

/*
 * Which clauses are tied to one with speculations: does a clause touch
 * a self-> or this-> variable one of them touches, or one a clause so
 * tied touches?  kp_vars_decide() gives user space every variable a
 * clause it runs touches and every clause touching those, so such a
 * clause runs from the records too.  dtrace:::BEGIN and END clauses
 * are dtrace's own (kp_vars_decide() leaves their variables alone).
 * A sout clause's value variables stay the kernel's, so a clause tied
 * through one of them may run in the kernel: the caller asks the plan
 * (bpf_agg.c's d_kplan_clause()).  The closure is over the whole
 * program, so it is computed once, into tied[] (p->nclauses), at
 * d_kplan_specs_late()'s first ask, not once a clause.
 */
static void specs_tied(const struct d_prog *p, bool *tied)
{
	bool *vars, *mark, changed = false;
	size_t nv = p->nvars ? p->nvars : 1;

	for (unsigned ci = 0; ci < p->nclauses; ci++) {
		tied[ci] = d_kplan_specs(p, ci) &&
			   !kp_dtrace_only(&p->clauses[ci]);
		changed |= tied[ci];
	}
	/* no speculating clause: none is tied (the walk below would
	 * find none) */
	if (!changed)
		return;
	vars = xcalloc(nv, sizeof(*vars));
	mark = xcalloc(nv, sizeof(*mark));
	while (changed) {
		changed = false;
		for (unsigned ci = 0; ci < p->nclauses; ci++) {
			bool shares = false;

			if (kp_dtrace_only(&p->clauses[ci]))
				continue;
			kp_clause_vars(p, &p->clauses[ci], mark);
			for (unsigned v = 0; v < p->nvars; v++)
				mark[v] = mark[v] &&
					  p->vars[v].scope != SC_GLOBAL &&
					  p->vars[v].scope != SC_ASSOC;
			for (unsigned v = 0; v < p->nvars; v++)
				shares |= mark[v] && vars[v];
			if (!tied[ci] && !shares)
				continue;
			changed |= !tied[ci];
			tied[ci] = true;
			for (unsigned v = 0; v < p->nvars; v++) {
				changed |= mark[v] && !vars[v];
				vars[v] |= mark[v];
			}
		}
	}
	free(vars);
	free(mark);
}

/* Does n store anything (=, the compound ones, ++, --)? */
static bool node_stores(const struct node *n)
{
	if (!n)
		return false;
	if (n->op == N_ASSIGN || n->op == N_INCDEC)
		return true;
	if (node_stores(n->a) || node_stores(n->b) || node_stores(n->c))
		return true;
	for (unsigned i = 0; i < n->nargs; i++)
		if (node_stores(n->args[i]))
			return true;
	return false;
}

bool kp_sout_here(const struct node *n)
{
	return !node_spec(n) && !node_late(n) && !node_stores(n);
}

bool d_kplan_sout(const struct d_kplan *k, unsigned clause)
{
	return k && k->sout && clause < k->prog->nclauses &&
	       k->sout[clause];
}

bool d_kplan_spred(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_sout(k, clause) && k->spred && k->spred[clause];
}

/* Does v[0..n) hold a statement that stores (outside its keys)? */
static bool stmts_store(const struct stmt *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (node_stores(v[i].e) || stmts_store(v[i].body, v[i].nbody) ||
		    stmts_store(v[i].els, v[i].nels))
			return true;
		for (unsigned j = 0; j < v[i].nargs; j++)
			if (node_stores(v[i].args[j]))
				return true;
	}
	return false;
}

const char *d_kplan_spec_why(const struct d_kplan *k, unsigned clause)
{
	const struct clause *c;
	const struct node *e;
	bool spec = false, first;

	if (!k || clause >= k->prog->nclauses || d_kplan_sout(k, clause) ||
	    d_kplan_clause(k, clause))
		return NULL;
	c = &k->prog->clauses[clause];
	for (unsigned i = 0; i < c->nstmts; i++)
		spec |= c->stmts[i].kind == S_SPECULATE;
	if (!spec || kp_dtrace_only(c))
		return NULL; /* commit(), discard(), speculation(): dtrace's */
	first = c->stmts[0].kind == S_SPECULATE;
	e = first ? c->stmts[0].e : NULL;
	if (!k->vars)
		return "no variable is the kernel's in this plan";
	if (stmts_store(c->stmts, c->nstmts) || node_stores(c->pred))
		return "it stores a variable (a store the kernel would have "
		       "to make only where the predicate holds and "
		       "speculate() does not fault)";
	if (!first)
		return "a statement before speculate()";
	if (node_spec(c->pred) || node_spec(e))
		return "its predicate or speculate()'s argument calls "
		       "speculation()";
	if (node_late(c->pred) || node_late(e))
		return "its predicate or speculate()'s argument reads the "
		       "process's memory by an address";
	for (unsigned i = 1; i < c->nstmts; i++)
		if (c->stmts[i].kind != S_PRINTF &&
		    c->stmts[i].kind != S_TRACE)
			return "a statement other than printf() and trace() "
			       "after speculate()";
	if (k->user && k->user[clause])
		return "it fires in user space (dtrace:::ERROR)";
	if (k->horizon)
		return "a hit may go to user space past the horizon";
	if (kp_sout_where(k, clause))
		return kp_sout_where(k, clause);
	return "a printf() or trace() value the kernel does not compute "
	       "(a string it does not copy, a variable user space keeps, "
	       "more than the out area holds)";
}

bool d_kplan_late(const struct d_prog *p, unsigned clause)
{
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	return node_late(c->pred) || stmts_late(c->stmts, c->nstmts);
}

bool d_kplan_specs_late(struct d_kplan *k, unsigned clause)
{
	const struct d_prog *p = k->prog;
	const struct clause *c;

	if (clause >= p->nclauses)
		return false;
	c = &p->clauses[clause];
	/* the walk first: specs_tied() is the closure over the program,
	 * made at the first clause that reads late and kept in the plan */
	if (!node_late(c->pred) && !stmts_late(c->stmts, c->nstmts))
		return false;
	if (d_kplan_specs(p, clause))
		return true;
	if (!k->tied) {
		k->tied = xcalloc(p->nclauses, sizeof(*k->tied));
		specs_tied(p, k->tied);
	}
	return k->tied[clause];
}

bool d_kplan_clause(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses && k->ok[clause];
}

bool d_kplan_tls(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_clause(k, clause) && k->tls[clause];
}

uint16_t d_kplan_strargs(const struct d_kplan *k, unsigned clause)
{
	return clause < k->prog->nclauses ? d_clause_strargs(k->prog, clause)
					  : 0xffff;
}

bool d_kplan_vin(const struct d_kplan *k, unsigned clause)
{
	return k && k->vin && clause < k->prog->nclauses && k->vin[clause];
}

bool d_kplan_vpred(const struct d_kplan *k, unsigned clause)
{
	return d_kplan_vin(k, clause) && k->vpred[clause];
}

bool d_kplan_kvars(const struct d_kplan *k, unsigned clause)
{
	return (d_kplan_clause(k, clause) || d_kplan_sout(k, clause)) &&
	       k->kv[clause];
}

bool d_kplan_tlsvar(const struct d_kplan *k, unsigned var)
{
	return k->vars && var < k->prog->nvars && k->vst[var] == KV_KERN &&
	       (k->prog->vars[var].scope == SC_SELF ||
		k->prog->vars[var].scope == SC_SELFASSOC);
}

unsigned d_kplan_nvars(const struct d_kplan *k)
{
	return k->prog->nvars;
}

bool d_kplan_isagg(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign;
}

unsigned d_kplan_nstmts(const struct d_kplan *k)
{
	return k->nst;
}

bool d_kplan_flat(const struct d_kplan *k, unsigned st, unsigned *slot,
		  unsigned *nslots)
{
	if (st >= k->nst || k->st[st].slot < 0)
		return false;
	*slot = (unsigned)k->st[st].slot;
	*nslots = k->st[st].nslots;
	return true;
}

/* ------------------------------------------------------------------ */
/* Merging */

bool d_kplan_fault(const struct d_kplan *k, unsigned clause, uint64_t mask,
		   int *action, unsigned *arg, bool *next)
{
	for (unsigned i = 0; i < k->nfs; i++) {
		unsigned b = (unsigned)(mask >> (2 * i)) & 3;

		if (k->fs[i].clause != clause || !b)
			continue;
		*action = k->fs[i].action;
		*arg = k->fs[i].arg;
		*next = (b & 2) != 0;
		return true;
	}
	return false;
}

unsigned d_kplan_nkeys(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign ? k->st[st].st->nkeys : 0;
}

bool d_kplan_skey(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign && k->st[st].skey >= 0 &&
	       k->st[st].svar < 0 &&
	       (k->st[st].sx == KSX_NONE || k->st[st].sx == KSX_SMIX);
}

bool d_kplan_vkey(const struct d_kplan *k, unsigned st)
{
	return st < k->nst && !k->st[st].assign && k->st[st].skey >= 0 &&
	       (k->st[st].svar >= 0 ||
		(k->st[st].sx != KSX_NONE && k->st[st].sx != KSX_SMIX));
}

/*
 * The bytes of string kaggs_v's keys need (their room is UBPF_KVROOM()
 * of it): strsize - 1 where a string variable keys it (VKEY: all its
 * store kept), else the longest execname (15 bytes at most: 16 with
 * its NUL) or literal (cut to strsize - 1) a key has.  A smaller room
 * is a shorter key to hash at every hit: 16 bytes for @[execname]
 * where strsize 256 would make 256.
 */
int64_t kp_vkey_imm(const struct d_kplan *k)
{
	size_t max = k->prog->strsize - 1, need = 1;

	for (unsigned i = 0; i < k->nst; i++) {
		const struct kstmt *ks = &k->st[i];
		const struct node *n;
		size_t l;

		if (!d_kplan_vkey(k, i))
			continue;
		if (ks->svar >= 0)
			return (int64_t)max;
		n = ks->st->keys[ks->skey];
		if (ks->sx == KSX_COMM) {
			l = UBPF_KCOMM - 1;
		} else if (n->op == N_TERN) {
			/* a probe's name: whatever a probe's is (lit_key()
			 * takes no longer one) */
			size_t lc = kp_is_comm(n->c)   ? UBPF_KCOMM - 1
				    : ident(n->c) >= 0 ? UBPF_KSTRMAX
						       : strlen(n->c->sval);

			l = kp_is_comm(n->b)   ? UBPF_KCOMM - 1
			    : ident(n->b) >= 0 ? UBPF_KSTRMAX
					       : strlen(n->b->sval);
			if (lc > l)
				l = lc;
		} else {
			l = strlen(n->sval);
		}
		if (l > need)
			need = l;
	}
	return (int64_t)(need < max ? need : max);
}

unsigned d_kplan_vkey_room(const struct d_kplan *k)
{
	return k->prog->strsize < 2 ? 0 : UBPF_KVROOM(kp_vkey_imm(k));
}

void d_kplan_merge(const struct d_kplan *k, const struct ubpf_kkey *key,
		   const struct ubpf_kval *vals, unsigned ncpus,
		   d_kplan_probe_fn probe_of, void *ctx, const char *str)
{
	const struct kstmt *ks;
	struct dv keys[UBPF_KMAXKEYS];
	char kbuf[UBPF_KMAXKEYS][D_STRSIZE];
	struct agg *a;
	int64_t *d, sa = 0, sb = 0;
	unsigned i;

	if (key->agg >= k->nst || k->st[key->agg].assign)
		return;
	ks = &k->st[key->agg];
	a = &k->prog->aggs[ks->agg];
	for (i = 0; i < ks->st->nkeys; i++) {
		const struct d_probe *pr;
		const char *s = "";
		size_t max;
		bool tagged;

		if (ks->skey2 && str &&
		    ((int)i == ks->skey || i == ks->skey2 - 1u)) {
			/* two strings in kaggs_s's s: the first up to its
			 * NUL, the second after it (SKEY2) */
			size_t l1 = strnlen(str, UBPF_KSKEY);
			const char *s2 = l1 < UBPF_KSKEY ? str + l1 + 1 : "";

			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			snprintf(kbuf[i], max, "%s",
				 (int)i == ks->skey ? str : s2);
			keys[i] = d_dv_tstr(kbuf[i]);
			continue;
		}
		if ((int)i == ks->skey && (str || ks->svar >= 0)) {
			/* kaggs_s, kaggs_v: as copyinstr() cuts it (kaggs:
			 * an args[N] key that was an integer, below) */
			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			snprintf(kbuf[i], max, "%s", str ? str : "");
			/* a literal's is the script's own (run.c: untainted);
			 * MKEY's, SMKEY's k[i] says execname or the
			 * argument's string was taken */
			tagged = ks->sx == KSX_MIX || ks->sx == KSX_SMIX;
			keys[i] = ks->sx == KSX_LIT || (tagged && !key->k[i])
					  ? d_dv_str(kbuf[i])
					  : d_dv_tstr(kbuf[i]);
			continue;
		}
		if (ks->kcomm && i == ks->kcomm - 1u && ks->skey >= 0) {
			/* execname: 16 bytes in two words (CWKEY) */
			char comm[UBPF_KCOMM + 1];

			memcpy(comm, &key->k[i], 8);
			memcpy(comm + 8, &key->k[ks->skey], 8);
			comm[UBPF_KCOMM] = '\0';
			max = k->prog->strsize < sizeof(kbuf[i])
				      ? k->prog->strsize
				      : sizeof(kbuf[i]);
			snprintf(kbuf[i], max, "%s", comm);
			keys[i] = d_dv_tstr(kbuf[i]);
			continue;
		}
		if (ks->kid[i] < 0) {
			keys[i] = d_dv_int(key->k[i], ks->ksz[i], ks->ksg[i]);
			continue;
		}
		pr = probe_of(ctx, (unsigned)key->k[i]);
		if (pr)
			s = ks->kid[i] == B_PROBEPROV	? pr->prov
			    : ks->kid[i] == B_PROBEMOD	? pr->mod
			    : ks->kid[i] == B_PROBEFUNC ? pr->func
							: pr->name;
		/* as d_agg_update(): a key is at most strsize - 1 bytes */
		max = k->prog->strsize < sizeof(kbuf[i]) ? k->prog->strsize
							 : sizeof(kbuf[i]);
		snprintf(kbuf[i], max, "%s", s ? s : "");
		keys[i] = d_dv_str(kbuf[i]);
	}
	for (i = 0; i < ncpus; i++) {
		sa = (int64_t)((uint64_t)sa + (uint64_t)vals[i].a);
		sb = (int64_t)((uint64_t)sb + (uint64_t)vals[i].b);
	}
	d = d_agg_entry(a, keys, ks->st->nkeys)->data;
	switch (a->fn) {
	case AG_COUNT:
	case AG_SUM:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		break;
	case AG_AVG:
		d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
		d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)sb);
		break;
	case AG_MIN:
	case AG_MAX:
		/* b 2: claimed by a hit still writing a (cgen_plan.c's
		 * minmax()) */
		for (i = 0; i < ncpus; i++)
			if (vals[i].b == 1 &&
			    (a->fn == AG_MIN ? vals[i].a < d[0]
					     : vals[i].a > d[0]))
				d[0] = vals[i].a;
		break;
	case AG_QUANTIZE:
		if (key->bucket < QZ_NBUCKETS)
			d[key->bucket] += sa;
		break;
	case AG_LQUANTIZE:
		if (key->bucket <= a->lq_levels + 1u)
			d[key->bucket] += sa;
		break;
	case AG_LLQUANTIZE:
		if (key->bucket < a->llq_nbuckets)
			d[key->bucket] += sa;
		break;
	case AG_STDDEV:
		if (key->bucket == 0) { /* hits, sum: as avg() */
			d[0] = (int64_t)((uint64_t)d[0] + (uint64_t)sa);
			d[1] = (int64_t)((uint64_t)d[1] + (uint64_t)sb);
		} else if (key->bucket == 1) { /* squares: 128 bits */
			unsigned __int128 acc =
				((unsigned __int128)(uint64_t)d[3] << 64) |
				(uint64_t)d[2];

			for (i = 0; i < ncpus; i++)
				acc += ((unsigned __int128)(uint64_t)vals[i].b
					<< 64) |
				       (uint64_t)vals[i].a;
			d[2] = (int64_t)(uint64_t)acc;
			d[3] = (int64_t)(uint64_t)(acc >> 64);
		}
		break;
	}
}
