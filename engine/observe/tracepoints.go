package observe

import "pplab/engine/sim"

// Field is one TP_STRUCT__entry field of a page_pool tracepoint.
type Field struct{ Type, Name string }

// The four events of include/trace/events/page_pool.h that every modelled
// era has (TRACE_SYSTEM page_pool): page_pool_release (named
// page_pool_inflight before v5.5, with no cnt), page_pool_state_release,
// page_pool_state_hold and page_pool_update_nid (v5.5).
const (
	EvRelease      = "page_pool_release"
	EvStateRelease = "page_pool_state_release"
	EvStateHold    = "page_pool_state_hold"
	EvUpdateNid    = "page_pool_update_nid"
)

// Events lists the page_pool tracepoints in the order the header defines them.
var Events = []string{EvRelease, EvStateRelease, EvStateHold, EvUpdateNid}

// netmemTP says whether the era's state tracepoints carry the netmem
// (unsigned long netmem) instead of the page (const struct page *page):
// Mina Almasry's netmem conversion of page_pool (v6.11; the model's first
// era with it is 6.12, sim.Era.Naming "netmem"), kept by the netmem_desc
// eras (6.18 on). The 6.18 form is what this machine's
// /sys/kernel/tracing/events/page_pool/*/format shows.
func netmemTP(e *sim.Era) bool { return e.Naming == "netmem" || e.Naming == "netmem_desc" }

// PageField is the name of the state tracepoints' page field in era e:
// args->page up to 6.10, args->netmem from 6.12.
func PageField(e *sim.Era) string {
	if netmemTP(e) {
		return "netmem"
	}
	return "page"
}

// PFNFormat is how the era's kernel prints the state tracepoints' pfn
// (sim.Era.TracePFNHex: decimal before 5.14, 53d884a6675b); the
// scripts print it the same way, so their lines match the kernel's.
func PFNFormat(e *sim.Era) string {
	if e.TracePFNHex {
		return "0x%lx"
	}
	return "%lu"
}

// Fields is the TP_STRUCT__entry of event in era e, as the model's scripts
// rely on it: include/trace/events/page_pool.h (page form: v5.5 to v6.10;
// netmem form from v6.11, read in this machine's 6.18 format files). The
// tests check it against testdata/tracepoints.tsv (and this machine's
// format files for 6.18).
func Fields(e *sim.Era, event string) []Field {
	pool := Field{"const struct page_pool *", "pool"}
	page := Field{"const struct page *", "page"}
	if netmemTP(e) {
		page = Field{"unsigned long", "netmem"}
	}
	pfn := Field{"unsigned long", "pfn"}
	switch event {
	case EvRelease:
		return []Field{pool, {"s32", "inflight"}, {"u32", "hold"}, {"u32", "release"}, {"u64", "cnt"}}
	case EvStateRelease:
		return []Field{pool, page, {"u32", "release"}, pfn}
	case EvStateHold:
		return []Field{pool, page, {"u32", "hold"}, pfn}
	case EvUpdateNid:
		return []Field{pool, {"int", "pool_nid"}, {"int", "new_nid"}}
	}
	return nil
}
