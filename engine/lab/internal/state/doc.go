// Package state walks a run's object graph: the one reflective walker
// behind a Lab's keyframes (Copy: a deep copy of the run) and its
// fast-forward (Walk: the run's state written out as a shape and its
// counters). Both walk the graph by per-type plans a Schema compiles once,
// and both know the allocator's page array the same way: a pointer into it
// is a page frame, not an object of its own (pages.go).
//
// # Field policies
//
// Each field's fast-forward policy is a struct tag on the field itself,
// `pp:"..."` (comma-separated words), read when a type's plan is compiled;
// a field without one is shape (it decides what the run does next). The
// copier copies every field whatever its tag: a keyframe holds the whole
// run. The vocabulary:
//
//   - counter: the field only accumulates (a statistic, a clock, per-symbol
//     spend, an id allocator or an id, compared only with others of its
//     kind): the walk lists it among the counters, never in the shape; an
//     array or struct tagged counter makes every integer inside one.
//   - time: a counter the run compares with the CPUs' clocks (the tcp
//     workload's scheduler): listed apart (Walk.Times) so a skip moves it
//     with the clocks.
//   - pfn: the field's integers (a slice's elements, a map's keys) name page
//     frames. The walk renames pages it reaches through pointers, never
//     these: a renaming must leave every page they name where it is
//     (Walk.RawPFNs).
//   - frame (struct page only): the field stays with the page frame when a
//     renaming moves the page's role to another frame: its identity (PFN),
//     its place in the free list, its DMA address relative to the frame
//     (mm.Page.DMARel), and how often it was recycled (also a counter,
//     summed along its orbit). Every other field of a page is the role's.
//   - index: an integer that is an index into a slice the walk sees whole
//     (an skb's slot in the live list), not a page frame: said so the
//     completeness test does not take it for one.
//   - upto=F: an array whose elements at or past the count field F are
//     stale and never read (an skb's frag slots past nr_frags): the walk
//     stops at the count.
//   - observer: the field belongs to whoever watches the run (a tracer, step
//     records, keyframes, the series, the fast-forward itself): not walked.
//     A func or chan field must be one.
//   - scratch: checker bookkeeping rebuilt at every check: not walked.
//   - inert: contents that never steer the run (the freed-object
//     quarantine, which only makes a stale pointer read as freed; its size
//     field is shape): not walked.
//
// The lab's TestFFTags_EveryReachableFieldHasItsPolicy checks the tags over
// every type a run reaches. A field the walk treats as shape that changes
// every cycle (a counter without its tag) keeps the fast-forward from
// finding a cycle: FirstDifference names it and the tag to add.
//
// # Unsafe
//
// The walks read and write memory through unsafe pointers by the compiled
// plans (reflection per value would cost as much as simulating a few
// hundred thousand packets). Every use of package unsafe is in this
// package's *_unsafe.go files; the plans (plan.go) are offsets and kinds.
package state
