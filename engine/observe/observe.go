// Package observe answers "check it on your machine": for every breakable
// rule (sim.AllRules), every page_pool counter the diagnosis reads
// (sim.Stat: ethtool -S, ynl page-pool-stats-get, ynltool) and the destroy
// story (a pool destroyed while pages are in flight), the commands that
// observe the same on a live kernel of a chosen era: a bpftrace script on
// the era's page_pool:* tracepoints (include/trace/events/page_pool.h:
// args->page up to 6.10, args->netmem from 6.12, the pfn printed decimal
// before 5.14), kfunc/kretfunc probes where no tracepoint sees it (the
// function named per era by sim.Sym.NameIn), ynl (tools/net/ynl, the
// netdev family of Documentation/netlink/specs/netdev.yaml, from 6.8:
// sim.Era.PoolNetlink) and ynltool (from 6.19), ethtool -S (pp_stats[] of
// net/core/page_pool.c, from 5.18 with CONFIG_PAGE_POOL_STATS), a drgn
// snippet (a pool's inflight, a page's pp_magic), or the dmesg line
// (page_pool_release_retry's "stalled pool shutdown"). A rule no
// tracepoint can observe says so in its Plan's Note and names its proxy.
//
// What the tests validate (observe_test.go), and nothing more:
//
//   - every bpftrace script of every target and era: each tracepoint probe
//     is a page_pool event of that era and each args->field it reads is in
//     the event's TP_STRUCT__entry for that era, read from
//     engine/sim/testdata/tracepoints.tsv (per tag, with the header's
//     source), and from this machine's
//     /sys/kernel/tracing/events/page_pool/*/format for the 6.18 era when
//     the machine runs a 6.18 kernel; the pfn format is the era's;
//   - the 6.18 era's scripts under Debian's bpftrace (0.17) on this
//     machine's 6.18 kernel, as root: a tracepoint-only script is run with
//     an added `interval:s:1 { exit(); }` and must attach and exit 0; a
//     script with kfunc/kretfunc probes must get past bpftrace's parser
//     (the test kernel gives no fentry: available_filter_functions is not
//     readable) and every function it probes must be a text symbol of
//     /proc/kallsyms (so not inlined); struct members a kfunc script reads
//     are not checked. Skipped, saying why, when bpftrace is missing, the
//     test does not run as root or the kernel is not 6.18;
//   - every drgn snippet compiles under python3's py_compile (never run
//     against a kernel);
//   - every ynl command's op and attribute names against a subset of the
//     era's netdev.yaml (testdata/netdev-*.txt, each citing the repository
//     and commit it was read at); ynl and ynltool appear only from 6.8
//     (ynltool from 6.19);
//   - every ethtool counter name is the era's pp_stats[] string (or the
//     model's driver's name for it), and no counter command exists for an
//     era without CONFIG_PAGE_POOL_STATS (before 5.18);
//   - dmesg lines are the era's page_pool_release_retry format.
//
// Not validated: that a script's output means what Shows says on a given
// driver (no NIC traffic runs in the tests), kfunc argument names and
// struct members, any era's kernel other than this machine's 6.18, ynl
// against a live kernel (the test kernel has no netdev with a pool).
package observe

import (
	"fmt"
	"strings"

	"pplab/engine/sim"
)

// Kind is the tool a command runs.
type Kind string

const (
	Bpftrace Kind = "bpftrace"
	YNL      Kind = "ynl"
	Ynltool  Kind = "ynltool"
	Ethtool  Kind = "ethtool"
	Drgn     Kind = "drgn"
	Dmesg    Kind = "dmesg"
)

// Command is one way to observe a target on a live kernel.
type Command struct {
	Kind Kind `json:"kind"`
	// Text is the command: a shell line, or a whole script (bpftrace,
	// drgn) to save and run as Run says.
	Text string `json:"text"`
	// Run is how to run Text when it is a script ("" for a shell line).
	Run string `json:"run,omitempty"`
	// Shows says what the output shows and how it relates to the model.
	Shows string `json:"shows"`
	// Validated says what pplab's tests checked about this command.
	Validated string `json:"validated"`
	// Source is the kernel source it follows.
	Source string `json:"source"`
}

// Plan is what observes a target in an era.
type Plan struct {
	Target string `json:"target"`
	Era    string `json:"era"`
	// Tracepoint: one of the era's page_pool tracepoints sees it.
	Tracepoint bool `json:"tracepoint"`
	// Note says what can and cannot be observed, and names the proxy when
	// no tracepoint sees it.
	Note     string    `json:"note"`
	Commands []Command `json:"commands"`
}

// Target is what to observe: a rule, a counter or the destroy story.
type Target struct {
	rule  sim.Rule
	stat  sim.Stat
	story bool
}

// Rule is the target of breakable rule r.
func Rule(r sim.Rule) Target { return Target{rule: r, stat: sim.StatNone} }

// Counter is the target of counter s.
func Counter(s sim.Stat) Target { return Target{stat: s} }

// Destroy is the destroy story: a pool destroyed while pages are in
// flight (page_pool_release, "stalled pool shutdown", netlink's
// detach-time and inflight).
func Destroy() Target { return Target{stat: sim.StatNone, story: true} }

// StoryName is the destroy story's name for ByName.
const StoryName = "destroy"

func (t Target) String() string {
	switch {
	case t.story:
		return StoryName
	case t.rule != sim.RuleNone:
		return t.rule.String()
	}
	return t.stat.String()
}

// IsRule, IsCounter say which kind of target t is.
func (t Target) IsRule() bool    { return t.rule != sim.RuleNone }
func (t Target) IsCounter() bool { return !t.story && t.rule == sim.RuleNone && t.stat < sim.NumStats }

// Targets lists every target: the rules, the counters, the story.
func Targets() []Target {
	var out []Target
	for _, r := range sim.AllRules() {
		out = append(out, Rule(r))
	}
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		out = append(out, Counter(s))
	}
	return append(out, Destroy())
}

// Names lists the targets' names (a counter by ppsim's name).
func Names() []string {
	var out []string
	for _, t := range Targets() {
		out = append(out, t.String())
	}
	return out
}

// ByName resolves a rule's name, a counter's name in any of its spellings
// (ppsim's alloc_fast, ethtool's rx_pp_alloc_fast, netlink's alloc-fast)
// or "destroy"; the error names the input and what is accepted.
// perRing turns a per-queue ethtool name (mlx5's rx<N>_pp_alloc_fast) into
// the device-wide one (rx_pp_alloc_fast); any other name is returned as is.
func perRing(name string) string {
	if rest, ok := strings.CutPrefix(name, "rx"); ok {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && strings.HasPrefix(rest[i:], "_pp_") {
			return "rx" + rest[i:]
		}
	}
	return name
}

func ByName(name string) (Target, error) {
	for _, t := range Targets() {
		if t.String() == name {
			return t, nil
		}
	}
	for s := sim.Stat(0); s < sim.NumStats; s++ {
		if name == s.Ethtool() || name == ynlKey(s) || name == "rx_pp_"+s.String() || perRing(name) == s.Ethtool() {
			return Counter(s), nil
		}
	}
	var rules, counters []string
	for _, t := range Targets() {
		switch {
		case t.IsRule():
			rules = append(rules, t.String())
		case t.IsCounter():
			counters = append(counters, t.String())
		}
	}
	return Target{}, fmt.Errorf("unknown rule or counter %q (accepted: a rule: %s; a counter, by ppsim's, ethtool's or netlink's name: %s; or %s)",
		name, strings.Join(rules, ", "), strings.Join(counters, ", "), StoryName)
}

// For is the commands that observe t on a live kernel of era e.
func For(t Target, e *sim.Era) []Command { return PlanFor(t, e).Commands }

// PlanFor is For with what it can and cannot see.
func PlanFor(t Target, e *sim.Era) Plan {
	var p Plan
	switch {
	case t.story:
		p = destroyPlan(e)
	case t.rule != sim.RuleNone:
		p = rulePlan(t.rule, e)
	default:
		p = counterPlan(t.stat, e)
	}
	p.Target, p.Era = t.String(), e.Name
	if e.PreRelease || e.Branch != "" {
		p.Note = strings.TrimSpace(p.Note + " " + fmt.Sprintf("Era %s follows %s, not a release: build that tree to run these.", e.Name, e.Tag))
	}
	return p
}

// HasYnltool says whether the era's tree has tools/net/ynl's ynltool
// (page-pool stats: <20251104232348.1954349-4-kuba@kernel.org>, v6.19).
func HasYnltool(e *sim.Era) bool {
	y, err := sim.EraByName("6.19")
	return err == nil && e.Branch == "" && e.Order >= y.Order
}

// ynlKey is counter s's page-pool-stats attribute.
func ynlKey(s sim.Stat) string {
	if s == sim.StatRecycleReleasedRefcnt {
		return "recycle-released-refcnt"
	}
	return strings.ReplaceAll(s.String(), "_", "-")
}

// What the tests validate, per kind of command (the package doc says how).
const (
	validTP    = "probes and args-> fields checked against the era's TP_STRUCT__entry (engine/sim/testdata/tracepoints.tsv; 6.18 also against this machine's format files); the 6.18 script attached and ran for 1 s under bpftrace 0.17 on a 6.18 kernel"
	validKfunc = "tracepoint probes and fields checked as for the tracepoint scripts; the probed functions are the era's names (sim.Sym.NameIn); for 6.18 each is a text symbol of a 6.18 kernel's /proc/kallsyms and bpftrace 0.17 parsed the script (the test kernel allows no fentry attach); struct members not checked"
	validYNL   = "op and attribute names checked against the era's netdev.yaml subset (testdata/netdev-*.txt); not run"
	validEth   = "counter names are pp_stats[] of net/core/page_pool.c (and the model's driver tables); not run"
	validDrgn  = "compiled with python3 -m py_compile; not run against a kernel"
	validDmesg = "the era's format string of page_pool_release_retry (net/core/page_pool.c), as the model prints it; not run"
)

const runBpftrace = "save as pp.bt; sudo bpftrace pp.bt (Ctrl-C prints the maps)"

// runRecord is how to run RecordScript.
const runRecord = "save as record.bt; sudo bpftrace -o capture.txt record.bt; Ctrl-C stops it; then ppsim replay capture.txt (or open it in the page's replay)"
const runDrgn = "sudo drgn (then paste), or sudo drgn script.py; replace the placeholders first"
