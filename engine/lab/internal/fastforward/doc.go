// Package fastforward is the Lab's steady-state fast-forward.
//
// A run is a pure function of its config, and most scenarios settle into a
// cycle: after some P operations the machine is back in the same state (the
// same containers holding pages with the same fields in the same order, the
// same pending work), up to which page frame plays which role (a recycled
// page moves one descriptor on each lap of the RX ring: drop repeats every
// 2048 operations with its pages renamed, exactly only after a million
// laps), and except for its counters, which have all grown by the same
// amounts they grew by in the cycle before. From such a
// state every later cycle repeats exactly, so k cycles can be run at once by
// adding k times each counter's per-cycle growth (package state says what a
// counter is). That is what this package does, in three steps, in the
// Lab's batch mode only (its RunN, RunWhile, RunFor, Run and Seek's replay
// call Point at every 64th operation; a Step never does):
//
//  1. Search. Every `every` operations (a multiple of the light check's 64,
//     right after the check ran, so the checker's own bookkeeping is the
//     same at every sample) the Lab walks its state without the page array
//     and hashes the shape. A hash seen before names a candidate period: the
//     operations between the two samples.
//  2. Verify. At the candidate, one cycle later and two cycles later, a full
//     walk (pages included) must give the same shape, each counter must
//     have grown by the same amount in both cycles, and the renaming of
//     page frames must be the same permutation in both (the run is blind
//     to which frame plays a role) and leave every frame the state names by
//     number (free lists, slab indexes) where it is. Clocks that the run
//     compares with each other (the tcp workload's two CPUs and its window
//     times) must all advance together, so no comparison between them can
//     flip later. Both cycles ran for real, with every check.
//  3. Skip. At the cycle's phase (every P operations from then on) the Lab
//     adds k·growth to every counter and moves each renamed page's role k
//     cycles on (rename), where k keeps every horizon ahead: the run's
//     last packet, the caller's operation budget, a workload's scheduled
//     change (numa migration), a u32 counter's wrap in the series. The
//     series' windows that close inside are closed from a recorded cycle; a
//     keyframe that falls due inside is taken after. The operations before
//     each horizon run for real; the next phase skips again. The checks of
//     the skipped operations are those of the verified cycles (with no rule
//     broken and nothing logged, a state the full check passes repeats); the
//     run's own full checks go on where its operations run.
//
// What is not a symmetry: the ptr_ring's indexes are absolute (its lazy
// zeroing flushes at the array's end), so a cycle must bring them back to
// the same slot; runs whose indexes advance by an amount prime to the ring
// repeat only after a long cycle (clone-tap: 253 952 operations) or not
// within the search (coalesce-mixed, and tcp-stream, whose receive queue
// also varies).
//
// It never applies while someone listens to events (a tracer; step
// records while they are made: a batch run pauses them, so a run that
// records its Steps still skips in batch), with a rule broken or a violation logged, while a timer is
// pending, before measuring starts, in a run that ends on its own
// (destroy), or with check_every not a multiple of 64. Randomness needs no
// rule of its own: the random source's state is part of the shape, so a
// cycle that draws numbers never repeats. fast_forward=0 turns it off;
// cmd/ppsim's TestFastForward_GoldenCorpus runs the golden corpus both ways
// at 10^5 and 10^6 packets and compares the JSON byte for byte.
package fastforward
