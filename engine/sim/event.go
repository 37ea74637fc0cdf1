package sim

import "fmt"

// EventKind says how an event renders: the four page_pool tracepoints in the
// kernel's format, or a readable line.
type EventKind uint8

const (
	EvCall         EventKind = iota // a modelled function call (readable line)
	EvStateHold                     // tracepoint page_pool_state_hold
	EvStateRelease                  // tracepoint page_pool_state_release
	EvPoolRelease                   // tracepoint page_pool_release
	EvUpdateNid                     // tracepoint page_pool_update_nid
	EvWarn                          // a kernel WARN / pr_warn / pr_crit line
	EvViolation                     // the invariant checker found a violation
)

// Event is one step of the simulation: which kernel function ran where, what it
// did to which page, what it cost and why. Events are built only when a tracer
// listens (Machine.Tracing), so batch runs allocate nothing per packet.
type Event struct {
	Seq    uint64
	TimePS int64
	CPU    int
	Kind   EventKind
	Func   Sym
	Pool   int32 // pool id, 0 if none
	Page   int32 // PFN, -1 if none
	SKB    int32 // the skb concerned, 0 if none
	N      int32 // pages moved, for bulk operations
	From   Place
	To     Place
	CostPS int64
	Stat   Stat // the counter this step incremented, StatNone if none
	Why    string

	// tracepoint payloads
	Hold, Release uint32
	Inflight      int32
	DestroyCnt    uint64
	Nid, NewNid   int32
	Violation     Kind
	// NetIov: the page is a net_iov (devmem, io_uring zero-copy RX): the
	// tracepoints' is_net_iov=1 and pfn 0.
	NetIov bool
	// Process: the CPU was in process context, not softirq (Machine.Emit
	// sets it from the CPU's state): the trace line's task and flags.
	Process bool

	// Era is the era of the run that emitted the event (Machine.Emit sets
	// it): the trace line prints the era's function names and its
	// tracepoint format. nil renders as the default era.
	Era *Era
}

// Fake kernel addresses, stable per object, so trace lines look like the
// kernel's and a reader can follow one page or pool through a trace.
const (
	poolBase    = 0xffff888100000000
	vmemmapBase = 0xffffea0000000000
	structPage  = 64
)

// PoolPtr is the %p a tracepoint prints for a pool.
func PoolPtr(id int32) uint64 { return poolBase + uint64(id)<<12 }

// PagePtr is the %p a tracepoint prints for a struct page.
func PagePtr(pfn int32) uint64 { return vmemmapBase + uint64(pfn)*structPage }

// Trace lines look like the tracefs `trace` file and `trace-cmd report`:
//
//	<idle>-0       [001] ..s1.     0.000123: page_pool_state_hold: page_pool=00000000899a4a90 netmem=...
//
// the task (comm-pid, the comm right-aligned in 16 columns), the CPU, the
// latency flags (irqs-off, need-resched, hardirq/softirq, preempt-depth,
// migrate-disable), seconds.microseconds, then the event's TP_printk. The
// model has no tasks, only contexts: an event in softirq names the idle
// task the NET_RX softirq interrupted (`<idle>-0 ..s1.`, the commonest
// sight in a NAPI-driven trace); page_pool_release in process context
// names a workqueue worker (`kworker/u8:1-92 .....`: the destroy runs in
// the netns cleanup or the driver's teardown, its retries in
// page_pool_release_retry's delayed work); any other event in process
// context names the model's application (`app-1000 .....`: the socket
// reader, the tap reader). %p prints a hashed pointer, as the kernel does by default
// (lib/vsprintf.c ptr_to_id: the low 32 bits of a boot-keyed siphash of
// the address, zero-padded to 16 hex digits); the model hashes its fake
// addresses with a fixed key, so one page or pool keeps one id through a
// run and across runs.
// TraceHead is the ftrace line head of an event in softirq on cpu at
// time ps.
func TraceHead(cpu int, ps int64) string { return traceHead("<idle>", 0, "..s1.", cpu, ps) }

func traceHead(task string, pid int, flags string, cpu int, ps int64) string {
	us := ps / PSPerNS / 1000
	return fmt.Sprintf("%16s-%-7d [%03d] %s %5d.%06d: ", task, pid, cpu, flags, us/1e6, us%1e6)
}

// TraceFileHeader is what the tracefs trace file prints before its lines
// (the nop tracer's header with its column legend).
const TraceFileHeader = `# tracer: nop
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
`

// HashPtr is %p of a kernel address: the low 32 bits of a keyed hash,
// printed as 16 hex digits (the kernel's ptr_to_id on a 64-bit machine).
func HashPtr(addr uint64) string {
	// splitmix64 with a fixed key stands in for siphash_1u64(ptr, &ptr_key).
	z := addr + 0x9e3779b97f4a7c15 ^ 0x5050_4c41_4200_0000
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return fmt.Sprintf("%016x", z&0xffffffff)
}

// netIovPtr is the netmem_ref of a net_iov: its address with NET_IOV
// (bit 0) set; a page's netmem_ref is its struct page pointer.
func netmemPtr(pfn int32, netIov bool) uint64 {
	if netIov {
		return PagePtr(pfn) | 1
	}
	return PagePtr(pfn)
}

// TraceLine renders the event as a line of ftrace text (TraceHead, then
// TracePayload).
func (e *Event) TraceLine() string {
	switch {
	case !e.Process:
		return TraceHead(e.CPU, e.TimePS) + e.TracePayload()
	case e.Kind == EvPoolRelease:
		return traceHead("kworker/u8:1", 92, ".....", e.CPU, e.TimePS) + e.TracePayload()
	}
	return traceHead("app", 1000, ".....", e.CPU, e.TimePS) + e.TracePayload()
}

// TracePayload is the event's line after the ftrace head: the four
// page_pool tracepoints as `name: ` and the kernel's TP_printk of the
// event's era (include/trace/events/page_pool.h; testdata/tracepoints.tsv
// has each era's format strings and where they were read), a readable
// line for everything else, naming each function as the era's kernel does
// (Sym.NameIn).
//
// page_pool_state_hold / page_pool_state_release print the pfn as the era
// does: `pfn=%lu` (decimal) up to v5.13, `pfn=0x%lx` from v5.14
// (53d884a6675b "mm, tracing: unify PFN format strings"; Era.TracePFNHex);
// `page=%p` up to 6.10, `netmem=%p is_net_iov=%lu` from 6.12
// (Era.TraceNetmem; a net_iov prints pfn 0, netmem_pfn_trace).
func (e *Event) TracePayload() string {
	era := e.Era
	if era == nil {
		era, _ = EraByName(DefaultEra)
	}
	pfn := "pfn=%d"
	if era.TracePFNHex {
		pfn = "pfn=%#x"
	}
	page := func() (string, int32) {
		if era.TraceNetmem {
			iov, p := 0, e.Page
			if e.NetIov {
				iov, p = 1, 0
			}
			return fmt.Sprintf("netmem=%s is_net_iov=%d", HashPtr(netmemPtr(e.Page, e.NetIov)), iov), p
		}
		return "page=" + HashPtr(PagePtr(e.Page)), e.Page
	}
	switch e.Kind {
	case EvStateHold:
		pg, n := page()
		sep := " "
		if era.TraceNetmem {
			sep = ", " // the stray comma of the source's format
		}
		return fmt.Sprintf("page_pool_state_hold: page_pool=%s %s%s"+pfn+" hold=%d", HashPtr(PoolPtr(e.Pool)), pg, sep, n, e.Hold)
	case EvStateRelease:
		pg, n := page()
		return fmt.Sprintf("page_pool_state_release: page_pool=%s %s "+pfn+" release=%d", HashPtr(PoolPtr(e.Pool)), pg, n, e.Release)
	case EvPoolRelease:
		return fmt.Sprintf("page_pool_release: page_pool=%s inflight=%d hold=%d release=%d cnt=%d",
			HashPtr(PoolPtr(e.Pool)), e.Inflight, e.Hold, e.Release, e.DestroyCnt)
	case EvUpdateNid:
		return fmt.Sprintf("page_pool_update_nid: page_pool=%s pool_nid=%d new_nid=%d",
			HashPtr(PoolPtr(e.Pool)), e.Nid, e.NewNid)
	case EvWarn:
		return e.Func.NameIn(era) + ": " + e.Why
	case EvViolation:
		page := ""
		if e.Page >= 0 {
			page = fmt.Sprintf(" pfn=%#x", e.Page)
		}
		return "VIOLATION " + e.Violation.String() + " in " + e.Func.NameIn(era) + page + ": " + e.Why
	}
	s := e.Func.NameIn(era) + ":"
	if e.Page >= 0 {
		s += fmt.Sprintf(" pfn=%#x", e.Page)
	}
	if e.N > 0 {
		s += fmt.Sprintf(" n=%d", e.N)
	}
	if e.From != PlaceNone || e.To != PlaceNone {
		s += " " + e.From.String() + "->" + e.To.String()
	}
	if e.Stat != StatNone {
		s += " [" + e.Stat.String() + "++]"
	}
	if e.CostPS > 0 {
		s += fmt.Sprintf(" (%.1f ns)", float64(e.CostPS)/PSPerNS)
	}
	if e.Why != "" {
		s += " — "
		if e.SKB != 0 {
			s += fmt.Sprintf("skb#%d: ", e.SKB)
		}
		s += e.Why
	}
	return s
}

// IsTracepoint reports whether the event is one of the four page_pool
// tracepoints (the lines trace-cmd would show); the rest are the model's
// own events.
func (e *Event) IsTracepoint() bool {
	switch e.Kind {
	case EvStateHold, EvStateRelease, EvPoolRelease, EvUpdateNid:
		return true
	}
	return false
}
