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

// TraceLine renders the event as a line of `perf script`/ftrace text: the four
// page_pool tracepoints in the kernel's TP_printk format of the event's era
// (include/trace/events/page_pool.h), and a readable line for everything
// else, naming each function as the era's kernel does (Sym.NameIn).
//
// page_pool_state_hold / page_pool_state_release print the pfn as the era's
// include/trace/events/page_pool.h does: `pfn=%lu` (decimal) up to v5.13,
// `pfn=0x%lx` from v5.14 (53d884a6675b "mm, tracing: unify PFN format
// strings"; Era.TracePFNHex).
func (e *Event) TraceLine() string {
	era := e.Era
	if era == nil {
		era, _ = EraByName(DefaultEra)
	}
	ts := e.TimePS / PSPerNS
	head := fmt.Sprintf("[%03d] %d.%09d: ", e.CPU, ts/1e9, ts%1e9)
	pfn := "pfn=%d"
	if era.TracePFNHex {
		pfn = "pfn=%#x"
	}
	switch e.Kind {
	case EvStateHold:
		return head + fmt.Sprintf("page_pool_state_hold: page_pool=%#x page=%#x "+pfn+" hold=%d",
			PoolPtr(e.Pool), PagePtr(e.Page), e.Page, e.Hold)
	case EvStateRelease:
		return head + fmt.Sprintf("page_pool_state_release: page_pool=%#x page=%#x "+pfn+" release=%d",
			PoolPtr(e.Pool), PagePtr(e.Page), e.Page, e.Release)
	case EvPoolRelease:
		return head + fmt.Sprintf("page_pool_release: page_pool=%#x inflight=%d hold=%d release=%d cnt=%d",
			PoolPtr(e.Pool), e.Inflight, e.Hold, e.Release, e.DestroyCnt)
	case EvUpdateNid:
		return head + fmt.Sprintf("page_pool_update_nid: page_pool=%#x pool_nid=%d new_nid=%d",
			PoolPtr(e.Pool), e.Nid, e.NewNid)
	case EvWarn:
		return head + e.Func.NameIn(era) + ": " + e.Why
	case EvViolation:
		page := ""
		if e.Page >= 0 {
			page = fmt.Sprintf(" pfn=%#x", e.Page)
		}
		return head + "VIOLATION " + e.Violation.String() + " in " + e.Func.NameIn(era) + page + ": " + e.Why
	}
	s := head + e.Func.NameIn(era) + ":"
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
