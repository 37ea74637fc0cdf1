package sim

import "fmt"

// Kind is a violation kind: the fixed vocabulary used by the CLI, the UI and the
// tests.
type Kind uint8

const (
	KindUseAfterRecycle Kind = iota
	KindDoubleRecycle
	KindForeignPageInPool
	KindInflightLeak
	KindDMALeak
	KindCacheRace
	KindReservePageRetained
	KindAllocFailureWithCache
	KindRefcountUnderflow
	KindPageInTwoPlaces
	KindStalledShutdown
	KindDMAUnmapAfterUnbind
	KindPoolUseAfterFree
	KindUnreadableRead
	NumKinds
)

var kindNames = [NumKinds]string{
	"use-after-recycle", "double-recycle", "foreign-page-in-pool", "inflight-leak",
	"dma-leak", "cache-race", "reserve-page-retained", "alloc-failure-with-cache",
	"refcount-underflow", "page-in-two-places", "stalled-shutdown",
	"dma-unmap-after-unbind", "pool-use-after-free", "unreadable-frag-read",
}

func (k Kind) String() string { return kindNames[k] }

// KindNames lists all kinds in their fixed order.
func KindNames() []string { return append([]string(nil), kindNames[:]...) }

// Violation is one detected breach of a kernel rule.
type Violation struct {
	Seq    uint64 // operation sequence number when detected
	Kind   Kind
	Op     Sym   // the operation during (or after) which it was detected
	CPU    int   // CPU of that operation
	Page   int32 // PFN of the page concerned, -1 if none
	Rule   Rule  // the rule that would have prevented it (RuleNone: an invariant with no breakable rule)
	Detail string
	// At is the run's operation count when the log first lists it: the
	// operation during which, or after which, the checker reported it (0:
	// set-up). The lab sets it (the machine does not count the lab's
	// operations); seeking to At shows it.
	At uint64
}

func (v Violation) String() string {
	page := "-"
	if v.Page >= 0 {
		page = fmt.Sprintf("pfn=0x%x", v.Page)
	}
	rule := ""
	if v.Rule != RuleNone {
		rule = " (rule " + v.Rule.String() + ")"
	}
	return fmt.Sprintf("#%d %s in %s on cpu%d %s%s: %s", v.Seq, v.Kind, v.Op.Name(), v.CPU, page, rule, v.Detail)
}

// MaxViolationsKept bounds the detailed list; counts are always exact.
const MaxViolationsKept = 1000

// ViolationLog records violations. It never panics and allocates only when a
// violation is recorded.
type ViolationLog struct {
	Counts [NumKinds]int
	List   []Violation // the first MaxViolationsKept
}

// Total is the number of violations of all kinds.
func (l *ViolationLog) Total() int {
	n := 0
	for _, c := range l.Counts {
		n += c
	}
	return n
}

func (l *ViolationLog) add(v Violation) {
	l.Counts[v.Kind]++
	if len(l.List) < MaxViolationsKept {
		l.List = append(l.List, v)
	}
}
