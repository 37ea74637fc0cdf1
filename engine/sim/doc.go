// Package sim is the foundation of the pplab engine. It imports no other engine
// package. It holds what every layer shares:
//
//   - the simulated machine: CPUs with a per-CPU clock in integer time, NUMA nodes;
//   - cost accounting: every modelled kernel function charges its cost on the CPU
//     that runs it (Machine.Charge), which yields throughput and a perf-top style
//     profile;
//   - events and the tracer: events are materialised only when someone listens,
//     and render in the kernel's tracepoint format for the page_pool tracepoints;
//   - the violation log with the fixed vocabulary of violation kinds;
//   - the registries of eras, breakable rules and knobs.
//
// Time is kept in picoseconds internally so that sub-nanosecond per-operation
// costs add up exactly; NowNS reports the integer-nanosecond clock.
package sim
