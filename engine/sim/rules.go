package sim

// Rule is a kernel rule that a run may break on purpose (--break) to see the
// failure it prevents (`ppsim list` names each rule and its violation kinds).
type Rule uint8

const (
	RuleNone Rule = iota
	RuleCoalescePPGuard
	RuleCoalesceClonedGuard
	RuleSignatureCheck
	RuleLastDataref
	RuleRefcntCheck
	RuleFragCount
	RuleNAPILocality
	RulePfmemallocCheck
	RuleBulkMapError
	RuleBulkDMAUnmap
	NumRules
)

// RuleInfo describes a breakable rule.
type RuleInfo struct {
	Name     string
	Prevents string
	Kinds    []Kind // the violation kinds breaking it produces
	Layer    string // the engine package that enforces it
}

var ruleInfo = [NumRules]RuleInfo{
	RuleNone:                {Name: "none"},
	RuleCoalescePPGuard:     {"coalesce-pp-guard", "mixing page_pool and non-page_pool memory in one skb via skb_try_coalesce", []Kind{KindInflightLeak, KindForeignPageInPool}, "skb"},
	RuleCoalesceClonedGuard: {"coalesce-cloned-guard", "coalescing into/from cloned skbs", []Kind{KindUseAfterRecycle, KindDoubleRecycle}, "skb"},
	RuleSignatureCheck:      {"signature-check", "recycling a page the pool never allocated", []Kind{KindForeignPageInPool}, "pagepool"},
	RuleLastDataref:         {"last-dataref", "two clones both recycling the shared head", []Kind{KindDoubleRecycle, KindUseAfterRecycle}, "skb"},
	RuleRefcntCheck:         {"refcnt-check", "recycling a page someone still holds a reference to", []Kind{KindUseAfterRecycle}, "pagepool"},
	RuleFragCount:           {"frag-count", "recycling a split page while the other half is still in use", []Kind{KindUseAfterRecycle}, "pagepool"},
	RuleNAPILocality:        {"napi-locality", "two CPUs touching the lockless alloc cache", []Kind{KindCacheRace}, "pagepool"},
	RulePfmemallocCheck:     {"pfmemalloc-check", "keeping emergency-reserve pages in the pool", []Kind{KindReservePageRetained}, "pagepool"},
	RuleBulkMapError:        {"bulk-map-error", "slow path returning NULL after a mapping failure although pages were cached", []Kind{KindAllocFailureWithCache}, "pagepool"},
	RuleBulkDMAUnmap:        {"bulk-dma-unmap", "freeing a still-mapped page when the cache is full during bulk refill", []Kind{KindDMALeak}, "pagepool"},
}

// Info returns the rule's description.
func (r Rule) Info() RuleInfo { return ruleInfo[r] }

func (r Rule) String() string { return ruleInfo[r].Name }

// AllRules lists the breakable rules (RuleNone excluded).
func AllRules() []Rule {
	out := make([]Rule, 0, NumRules-1)
	for r := RuleNone + 1; r < NumRules; r++ {
		out = append(out, r)
	}
	return out
}

// RuleNames lists the names of the breakable rules.
func RuleNames() []string { return Names(AllRules(), Rule.String) }

// RuleByName resolves a rule name, or returns an error naming the accepted values.
func RuleByName(name string) (Rule, error) {
	return ByName("break", "rule", AllRules(), Rule.String, name)
}

// RuleSet is a set of broken rules.
type RuleSet uint32

// With returns the set with r broken.
func (s RuleSet) With(r Rule) RuleSet { return s | 1<<r }

// Broken reports whether r is broken in this run.
func (s RuleSet) Broken(r Rule) bool { return s&(1<<r) != 0 }

// Names lists the broken rules' names.
func (s RuleSet) Names() []string {
	var out []string
	for _, r := range AllRules() {
		if s.Broken(r) {
			out = append(out, r.String())
		}
	}
	return out
}

// RuleFor returns the broken rule that lists kind among the failures it
// prevents, or RuleNone: lower layers detect a failure without knowing which
// rule was removed, and attribute it this way.
func (m *Machine) RuleFor(kind Kind) Rule {
	for _, r := range AllRules() {
		if !m.Rules.Broken(r) {
			continue
		}
		for _, k := range ruleInfo[r].Kinds {
			if k == kind {
				return r
			}
		}
	}
	return RuleNone
}
