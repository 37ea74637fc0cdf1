package diagnose

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// Which model runs could have produced a paste. The counters' shape alone
// cannot tell a NIC's pool from the kernel's micro-benchmark, nor mlx5
// from mvpp2; the paste itself often can: its format (netlink lists only
// pools created with a netdev, pp_params.netdev, and only from 6.8), the
// names its counters carry (mlx5's en_stats.c names its own, the generic
// helper's are printed by the drivers that call it), the driver named in
// a comment or a note, the driver's other counters. Constraints reads them
// from the parsed paste; the nearest runs are ranked among the runs that
// meet them, and a constraint that no run meets together with the stronger
// ones is dropped, and said so.

// The rules a constraint follows (Constraint.Rule), strongest first.
const (
	// RuleNIC: every format is a net device's (ethtool -S is its driver's
	// ethtool_ops; netlink lists pools linked to a netdev): driver runs
	// only. The pool micro-benchmarks' pools have no netdev.
	RuleNIC = "nic"
	// RuleNetlinkListed: ynl / ynltool show only the pools netlink lists:
	// a driver that sets pp_params.netdev in that era, from 6.8.
	RuleNetlinkListed = "netlink-listed"
	// RuleNapiID: netlink prints a pool's napi-id only when its driver set
	// pp.napi (page_pool_user.c): live pools with an ifindex and a
	// napi-id are mlx5's or bnxt's (from 6.4 in the model), without one a
	// driver that sets pp.netdev but not pp.napi (lunar).
	RuleNapiID = "napi-id"
	// RuleModelNote: the model's own ethtool -S block says whose run it is
	// ("(mvpp2's ethtool -S shows no page_pool counters; the names are the
	// generic helper's …)"): that driver, whatever the names.
	RuleModelNote = "model-note"
	// RuleDriverNames: counter names only one driver prints (mlx5's
	// rx_pp_alloc_slow_high_order and rx<N>_pp_*, its rx_cache_* before
	// 6.4, its ch_* channel counters): that driver.
	RuleDriverNames = "driver-names"
	// RuleGenericNames: the generic helper's rx_pp_* names
	// (page_pool_ethtool_stats_get_strings): the drivers that print them.
	RuleGenericNames = "generic-names"
	// RuleKernelVersion: the kernel's release in the paste (uname -r or
	// -a, /proc/version, ethtool -i's version line): the model's era for
	// it (the latest era not after it; when the sweep skips that era, the
	// swept eras on either side of it).
	RuleKernelVersion = "kernel-version"
	// RuleDriverNamed: a model driver's name in the paste's prose, a
	// comment or a command line: that driver.
	RuleDriverNamed = "driver-named"
	// RuleXDPAll: an XDP action counter (rx_xdp_drop, rx_xdp_tx,
	// rx_xdp_redirect) counting nearly every frame received (XDPAllShare):
	// the runs of that scenario only, the model's only runs whose frames
	// all meet that action.
	RuleXDPAll = "xdp-all"
	// RuleXDPNone: an XDP action counter at 0 while the device received
	// traffic (XDPTrafficMin frames, or page_pool allocations): no frame
	// met that action, so not the scenario whose model counts it on every
	// frame (rx_xdp_tx 0: not xdp-tx; rx_xdp_drop 0: not xdp-drop;
	// rx_xdp_redirect 0: not xdp-redirect).
	RuleXDPNone = "xdp-none"
	// RuleDriverCounters: the driver's other counters that count an event
	// only some scenarios have (GRO, XDP drop / redirect / TX), nonzero:
	// those scenarios first. A preference, not a filter.
	RuleDriverCounters = "driver-counters"
	// RuleTraffic: the device's frame counters (rx/tx packets and bytes,
	// the Marvell MIB's good_frames_*): every frame sent back out (tx ≈
	// rx) is forward or xdp-tx; full-size frames in and small ones out
	// at a fraction of the rate (ACKs) a TCP receive, tcp-stream. A
	// preference, not a filter.
	RuleTraffic = "traffic"
	// RuleZombies: a destroyed pool still holding pages (netlink's
	// detach-time with pages in flight, ynltool's "detached" or zombies):
	// the destroy scenario first. A preference, not a filter.
	RuleZombies = "zombie-pools"
)

// Constraint is one thing the paste says about the machine that printed
// it, and the model runs it keeps.
type Constraint struct {
	Rule     string `json:"rule"`
	Evidence string `json:"evidence"` // what in the paste says it, with its line
	Keeps    string `json:"keeps"`    // the runs it keeps, in words
	// Prefers: the runs it names are ranked first; the others still follow.
	Prefers bool `json:"prefers,omitempty"`
	// Dropped: no model run meets it together with the constraints before
	// it, so the ranking does without it.
	Dropped bool `json:"dropped,omitempty"`
	// Either: it contradicts another piece of evidence of its kind (its
	// Rule), neither stronger: the runs either keeps are ranked.
	Either bool `json:"either,omitempty"`
	// Device: the evidence is about this device only (a zombie pool), and
	// ranks its run alone; "" for the whole paste.
	Device string `json:"device,omitempty"`

	admit  func(lab.Config) bool
	why    string // why it was dropped
	devKey string // the device's group (devGroup.key)
}

// How says what the constraint does to the runs, before what it keeps
// (Keeps): the text report and the page both say it so.
func (c Constraint) How() string {
	switch {
	case c.Dropped:
		return "no model run meets it with the above, so not applied; it would keep"
	case c.Either:
		return "contradicts the other " + c.Rule + " evidence, neither stronger: the runs either keeps are ranked; this one keeps"
	case c.Prefers:
		return "ranks"
	}
	return "keeps"
}

// driverFacts are what the constraints need of each model driver.
type driverFacts struct {
	name         string
	netdevFrom   string
	napiFrom     string
	rxCacheUntil string
	exposed      bool            // its ethtool -S prints page_pool counters
	names        map[string]bool // the device-total names it prints
	ringSuffixes map[string]bool // rx<N>_pp_<suffix> it prints per ring
}

var driverFactsOnce = sync.OnceValue(func() []driverFacts {
	var out []driverFacts
	for _, d := range lab.List().DriverModels {
		f := driverFacts{name: d.Name, netdevFrom: d.NetdevFrom, napiFrom: d.PPNapiFrom, rxCacheUntil: d.RxCacheUntil, exposed: lab.EthtoolNote(d.Name) == "",
			names: map[string]bool{}, ringSuffixes: map[string]bool{}}
		if f.exposed {
			for s := sim.Stat(0); s < sim.NumStats; s++ {
				f.names[lab.EthtoolName(d.Name, s, -1)] = true
				if n := lab.EthtoolName(d.Name, s, 0); n != "" {
					if m := ringRe().FindStringSubmatch(n); m != nil {
						f.ringSuffixes[m[2]] = true
					}
				}
			}
		}
		out = append(out, f)
	}
	return out
})

func factsOf(driver string) (driverFacts, bool) {
	for _, f := range driverFactsOnce() {
		if f.name == driver {
			return f, true
		}
	}
	return driverFacts{}, false
}

// since reports whether era is from (or after) the era named from ("" is never).
func since(from, era string) bool {
	return from != "" && eraOrder(era) >= eraOrder(from)
}

// netlinkFrom is the first era whose kernel has the netdev family's
// page-pool objects (page-pool-get, page-pool-stats-get: v6.8).
const netlinkFrom = "6.8"

// printers are the drivers whose ethtool -S prints page_pool counter name.
func printers(name string) []string {
	var out []string
	m := ringRe().FindStringSubmatch(name)
	for _, f := range driverFactsOnce() {
		if f.names[name] || (m != nil && f.ringSuffixes[m[2]]) {
			out = append(out, f.name)
		}
	}
	return out
}

// ownNames are driver counters that are no page_pool counter and that one
// model driver prints.
var ownNames = []struct {
	re      func() *regexp.Regexp
	drivers []string
	cache   bool // only while the driver keeps its own RX page cache
	what    string
}{
	{lazyRegexp(`^rx\d*_cache_(reuse|full|empty|busy|waive)$`), []string{"mlx5"}, true, "mlx5e_rx_cache's counters (en_stats.c; the cache is gone from 6.4)"},
	{lazyRegexp(`^ch\d*_(events|poll|arm|aff_change|force_irq|eq_rearm)$`), []string{"mlx5"}, false, "mlx5e's channel counters (en_stats.c)"},
	// The Marvell MIB counters: mvneta_statistics[] (mvneta.c) and
	// mvpp2_ethtool_mib_regs[] (mvpp2_main.c) name them alike.
	{lazyRegexp(`^(good_octets_received|bad_octets_received|good_frames_received|bad_frames_received|frames_64_octets|frames_65_to_127_octets|good_octets_sent|good_frames_sent|unrec_mac_control_received)$`), []string{"mvneta", "mvpp2"}, false, "the Marvell MIB counters (mvneta.c mvneta_statistics[], mvpp2_main.c mvpp2_ethtool_mib_regs[])"},
}

// eventCounters are driver counters that count an event only some
// scenarios of the model have (nonzero: evidence of those scenarios).
var eventCounters = []struct {
	re        func() *regexp.Regexp
	scenarios []string
	what      string
}{
	{lazyRegexp(`^rx\d*_gro_(packets|bytes|skbs)$`), []string{"tcp-stream"}, "TCP segments aggregated by GRO (the model's GRO runs in tcp-stream)"},
	{lazyRegexp(`^rx\d*_xdp_drop$`), []string{"xdp-drop"}, "frames an XDP program dropped"},
	{lazyRegexp(`^rx\d*_xdp_redirect$`), []string{"xdp-redirect"}, "frames an XDP program redirected"},
	{lazyRegexp(`^rx\d*_xdp_tx(_xmit)?$`), []string{"xdp-tx"}, "frames an XDP program sent back out (XDP_TX)"},
}

// xdpActions are the XDP action counters and the scenario whose model
// runs that action on every frame (its runs count it; no other scenario's
// do).
var xdpActions = []struct {
	re       func() *regexp.Regexp
	scenario string
	action   string
	what     string
}{
	{lazyRegexp(`^rx(\d*)_xdp_drop$`), "xdp-drop", "XDP_DROP", "dropped by an XDP program (XDP_DROP)"},
	{lazyRegexp(`^rx(\d*)_xdp_tx(?:_xmit)?$`), "xdp-tx", "XDP_TX", "sent back out by an XDP program (XDP_TX)"},
	{lazyRegexp(`^rx(\d*)_xdp_redirect$`), "xdp-redirect", "XDP_REDIRECT", "redirected by an XDP program (XDP_REDIRECT)"},
}

// Thresholds of the XDP evidence: the traffic a counter at 0 says
// something of, and the share of the frames an action must count to be
// the whole traffic.
const (
	XDPTrafficMin = 1000
	XDPAllShare   = 0.9
)

// PreferWithin is how near the nearest shape a run the paste's other
// evidence points to (a preference: RuleTraffic, RuleZombies,
// RuleDriverCounters) must be to be ranked first: shapes within it the
// counters do not tell apart, and the other evidence decides; a farther
// one takes its place by distance, as every run does.
const PreferWithin = 0.01

// preferKeeps is what a preference keeps, in words: the runs named
// first, among the shapes as near as the nearest.
func preferKeeps(runs string) string {
	return fmt.Sprintf("%s first among the shapes within %.2f of the nearest (the counters do not tell those apart; a farther one keeps its place by distance)", runs, PreferWithin)
}

// xdpCount is a snapshot's count of an XDP action: the device's total, or
// the sum of its rings' (rx<N>_…); the line and name it cites; ok false
// when the snapshot shows none.
func xdpCount(sn Snapshot, re *regexp.Regexp) (v float64, name string, line int, ok bool) {
	var rings float64
	ringLine, ringName := 0, ""
	for _, o := range sn.Other {
		m := re.FindStringSubmatch(o.Name)
		if m == nil {
			continue
		}
		if m[1] == "" {
			return o.Value, o.Name, o.Line, true
		}
		if ringName == "" {
			ringName, ringLine = o.Name, o.Line
		}
		rings += o.Value
		ok = true
	}
	if ok {
		return rings, "the rings' " + ringName + "…", ringLine, true
	}
	return 0, "", 0, false
}

// rxFrames is the frames the device received, as its counters say: the
// PHY's or the MAC's count (rx_packets_phy, good_frames_received), else
// rx_packets plus the frames XDP consumed (mlx5's rx_packets leaves
// those out; a driver whose rx_packets counts them counts them twice
// here, which only makes an action's share smaller); what names them.
func rxFrames(sn Snapshot) (float64, string) {
	get := func(name string) (float64, bool) {
		if j := slices.IndexFunc(sn.Other, func(o Named) bool { return o.Name == name }); j >= 0 {
			return sn.Other[j].Value, true
		}
		return 0, false
	}
	for _, n := range []string{"rx_packets_phy", "good_frames_received"} {
		if v, ok := get(n); ok && v > 0 {
			return v, fmt.Sprintf("%s %s", n, human(v))
		}
	}
	v, ok := get("rx_packets")
	what := fmt.Sprintf("rx_packets %s", human(v))
	for _, a := range xdpActions {
		if x, name, _, okX := xdpCount(sn, a.re()); okX && x > 0 {
			v += x
			ok = true
			what += " + " + name
		}
	}
	if !ok {
		return 0, ""
	}
	return v, what
}

// xdpConstraints read the XDP action counters of the paste's last
// snapshot: one that counts nearly every frame keeps its scenario's runs
// (RuleXDPAll); ones at 0 while the device had traffic leave their
// scenarios out (RuleXDPNone).
func xdpConstraints(p *Paste) []Constraint {
	last := p.Snapshots[len(p.Snapshots)-1]
	frames, framesWhat := rxFrames(last)
	var out []Constraint
	var none, noneEv, noneAct []string
	for _, a := range xdpActions {
		v, name, line, ok := xdpCount(last, a.re())
		if !ok {
			continue
		}
		switch {
		case v > 0 && frames > 0 && v >= XDPAllShare*frames:
			scen := a.scenario
			out = append(out, Constraint{Rule: RuleXDPAll,
				Evidence: fmt.Sprintf("%s %s (line %d) of %s received: %.1f %% of the frames %s", name, human(v), line, framesWhat, 100*min(v/frames, 1), a.what),
				Keeps:    scen + "'s runs: the model's only runs whose every frame meets it",
				admit:    func(c lab.Config) bool { return c.Scenario == scen }})
		case v == 0:
			none = append(none, a.scenario)
			noneEv = append(noneEv, fmt.Sprintf("%s 0 (line %d)", name, line))
			noneAct = append(noneAct, a.action)
		}
	}
	if len(none) > 0 {
		traffic := ""
		switch {
		case frames >= XDPTrafficMin:
			traffic = "of " + framesWhat + " received"
		case allocs(last.Device.V) >= XDPTrafficMin:
			traffic = fmt.Sprintf("while the pool handed out %s pages", human(float64(allocs(last.Device.V))))
		}
		if traffic != "" {
			set := map[string]bool{}
			for _, s := range none {
				set[s] = true
			}
			out = append(out, Constraint{Rule: RuleXDPNone,
				Evidence: strings.Join(noneEv, ", ") + ": no frame met " + orList(noneAct) + ", " + traffic,
				Keeps:    "runs other than " + andList(none) + " (in the model each of them meets its action on every frame)",
				admit:    func(c lab.Config) bool { return !set[c.Scenario] }})
		}
	}
	return out
}

// plural is "1 zombie pool", "2 zombie pools".
func plural(n uint64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orList(xs []string) string { return joinLast(xs, " or ") }

func andList(xs []string) string { return joinLast(xs, " and ") }

func joinLast(xs []string, last string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + last + xs[len(xs)-1]
}

var (
	modelNoteRe    = lazyRegexp(`(\w+)'s ethtool -S shows no page_pool counters`)
	driverMentionR = sync.OnceValue(func() *regexp.Regexp {
		var alt []string
		for _, f := range driverFactsOnce() {
			alt = append(alt, regexp.QuoteMeta(f.name))
		}
		return regexp.MustCompile(`(?:^|[^A-Za-z0-9])(` + strings.Join(alt, "|") + `)(?:$|[^A-Za-z0-9])`)
	})
)

var (
	unameRe       = lazyRegexp(`^\s*(\d)\.(\d{1,2})(?:\.\d+)?(?:[-+~][\w.+~-]*)?\s*$`)                 // uname -r's output
	unameARe      = lazyRegexp(`^\s*Linux\s+\S+\s+(\d)\.(\d{1,2})(?:\.\d+)?\S*\s+#`)                   // uname -a
	procVersionRe = lazyRegexp(`Linux version (\d)\.(\d{1,2})(?:\.\d+)?`)                              // /proc/version, dmesg
	distroRelRe   = lazyRegexp(`(?:^|[^\w.])(\d)\.(\d{1,2})\.\d+-\d+(?:\.\d+)?(?:-[a-z][a-z0-9]*)+\b`) // a distribution kernel's release in prose: 6.1.0-25-arm64
	ethtoolIVerRe = lazyRegexp(`^\s*version:\s*(\d)\.(\d{1,2})(?:\.\d+)?(?:[-+~][\w.+~-]*)?\s*$`)      // ethtool -i: an in-tree driver reports the kernel's release
)

// kernelVersion finds the kernel's release in the paste's lines that are
// no counter: its major and minor, the line, the text.
func kernelVersion(p *Paste) (major, minor, line int, text string, ok bool) {
	for _, l := range p.Lines {
		if l.Use == UseCounter || l.Use == UseAside {
			continue
		}
		for _, re := range []*regexp.Regexp{unameARe(), procVersionRe(), ethtoolIVerRe(), unameRe(), distroRelRe()} {
			if m := re.FindStringSubmatch(l.Text); m != nil {
				fmt.Sscan(m[1], &major)
				fmt.Sscan(m[2], &minor)
				return major, minor, l.N, strings.TrimSpace(l.Text), true
			}
		}
	}
	return 0, 0, 0, "", false
}

// erasForKernel are the swept eras that stand for kernel major.minor: the
// model's era in effect there (the latest not after it) when the sweep
// runs it, else the swept eras either side of it; inEffect is that era
// ("" when the kernel is older than every era).
func erasForKernel(major, minor int) (eras []string, inEffect string) {
	ver := func(name string) (int, bool) {
		var a, b int
		if n, err := fmt.Sscanf(name, "%d.%d", &a, &b); n != 2 || err != nil || strings.ContainsAny(name, "-r") {
			return 0, false
		}
		return a*100 + b, true
	}
	k := major*100 + minor
	var below, above *sim.Era
	for i := range sim.Eras {
		e := &sim.Eras[i]
		v, ok := ver(e.Name)
		if !ok {
			continue
		}
		if v <= k {
			inEffect = e.Name
			if Swept(e) {
				below = e
			}
		} else if above == nil && Swept(e) {
			above = e
		}
	}
	if inEffect == "" {
		return nil, ""
	}
	if e, _ := sim.EraByName(inEffect); Swept(e) {
		return []string{inEffect}, inEffect
	}
	if below != nil {
		eras = append(eras, below.Name)
	}
	if above != nil {
		eras = append(eras, above.Name)
	}
	return eras, inEffect
}

// boards are the boards and NICs of the model's drivers' platforms, as a
// poster names the machine.
var boards = []struct {
	re     func() *regexp.Regexp
	driver string
}{
	{lazyRegexp(`(?i)espressobin|armada[ -]?37[0-9]0`), "mvneta"},
	{lazyRegexp(`(?i)macchiato ?bin|armada[ -]?80[0-9]0`), "mvpp2"},
	{lazyRegexp(`(?i)connectx`), "mlx5"},
	{lazyRegexp(`(?i)netxtreme|\bbcm57[0-9]{3}`), "bnxt"},
	{lazyRegexp(`(?i)kunpeng|hisilicon`), "hns3"},
}

func admitDrivers(ds []string) func(lab.Config) bool {
	set := map[string]bool{}
	for _, d := range ds {
		set[d] = true
	}
	return func(c lab.Config) bool { return set[c.Driver] }
}

// Constraints reads what the paste says about where it comes from.
func Constraints(p *Paste) []Constraint {
	var out []Constraint
	// The format: a net device's counters, or pools netlink lists.
	nic := Constraint{Rule: RuleNIC, Keeps: "driver runs only: the pool micro-benchmarks (pool-direct, pool-ring, pool-slow) create a pool with no netdev, which neither ethtool -S nor netlink shows",
		admit: func(c lab.Config) bool { return c.Driver != "" }}
	switch p.Format {
	case FormatEthtool:
		nic.Evidence = "ethtool -S prints a net device's counters (its driver's ethtool_ops)"
	case FormatTable:
		nic.Evidence = "a table of ethtool -S counters: a net device's"
	case FormatYNL, FormatYnltool:
		nic.Evidence = "netlink lists only pools created with a netdev"
		if ifx := ifindexes(p); ifx != "" {
			nic.Evidence += " (" + ifx + ")"
		}
	}
	out = append(out, nic)
	if p.Format == FormatYNL || p.Format == FormatYnltool {
		var listed []string
		for _, f := range driverFactsOnce() {
			if f.netdevFrom != "" {
				listed = append(listed, fmt.Sprintf("%s from %s", f.name, f.netdevFrom))
			}
		}
		ev := "the netdev netlink family's page-pool dumps (page-pool-get, page-pool-stats-get: v6.8, 7cc9e6d77f85 ff.)"
		if p.Format == FormatYnltool {
			ev = "ynltool page-pool stats (tools/net/ynl, in the tree from 6.19) reads the netdev family's page-pool dumps, which kernels have from v6.8 (a ynltool built from a newer tree reads an older kernel too)"
		}
		out = append(out, Constraint{Rule: RuleNetlinkListed, Evidence: ev,
			Keeps: "runs whose pool netlink lists: a driver that sets pp_params.netdev (" + strings.Join(listed, ", ") + "), in eras with netlink page-pool objects (" + netlinkFrom + " on)",
			admit: func(c lab.Config) bool {
				f, ok := factsOf(c.Driver)
				return ok && since(f.netdevFrom, c.Era) && since(netlinkFrom, c.Era)
			}})
	}
	if c, ok := napiConstraint(p); ok {
		out = append(out, c)
	}
	// The model's own note names its driver.
	noted := ""
	for _, l := range p.Lines {
		if m := modelNoteRe().FindStringSubmatch(l.Text); m != nil {
			if _, ok := factsOf(m[1]); ok {
				noted = m[1]
				out = append(out, Constraint{Rule: RuleModelNote, Evidence: fmt.Sprintf("line %d: the model's note: %s prints no page_pool counters, the names stand in for them", l.N, m[1]),
					Keeps: m[1] + "'s runs", admit: admitDrivers([]string{m[1]})})
				break
			}
		}
	}
	// The names the counters carry.
	if noted == "" && len(p.names) > 0 {
		var cand []string
		first := true
		var own []string // names one driver alone prints
		ownMore := 0
		for _, n := range p.names {
			ps := printers(n.name)
			if len(ps) == 0 {
				continue // ppsim's or netlink's spelling in a table: says nothing of the driver
			}
			if len(ps) == 1 && n.name != statNameGeneric(n.name) {
				if len(own) < 3 {
					own = append(own, fmt.Sprintf("%s (line %d)", n.name, n.line))
				} else {
					ownMore++
				}
			}
			if first {
				cand, first = ps, false
				continue
			}
			cand = intersect(cand, ps)
		}
		if !first {
			c := Constraint{admit: admitDrivers(cand)}
			switch {
			case len(own) > 0 && len(cand) == 1:
				more := ""
				if ownMore > 0 {
					more = fmt.Sprintf(" and %d more", ownMore)
				}
				c.Rule, c.Evidence = RuleDriverNames, strings.Join(own, ", ")+more+": "+cand[0]+"'s own ethtool -S names"
				c.Keeps = cand[0] + "'s runs"
			default:
				c.Rule = RuleGenericNames
				c.Evidence = fmt.Sprintf("the generic helper's rx_pp_* names (page_pool_ethtool_stats_get_strings, v5.19), e.g. %s (line %d)", p.names[0].name, p.names[0].line)
				if len(cand) == 0 {
					c.Keeps = "no model driver prints all of these names"
				} else {
					c.Keeps = "the model drivers whose ethtool -S prints these names: " + strings.Join(cand, ", ") + " (mvpp2, cpsw, bnxt, hns3 and lunar print no page_pool counters)"
				}
			}
			out = append(out, c)
		}
	}
	// The driver's own counters.
	var pp []string // the paste's page_pool counter names some model driver prints
	for _, n := range p.names {
		if len(printers(n.name)) > 0 {
			pp = append(pp, n.name)
		}
	}
	for _, on := range ownNames {
		var found []string
		n := 0
		for _, sn := range p.Snapshots {
			for _, o := range sn.Other {
				if on.re().MatchString(o.Name) {
					if n < 3 {
						found = append(found, fmt.Sprintf("%s (line %d)", o.Name, o.Line))
					}
					n++
				}
			}
		}
		if n == 0 {
			continue
		}
		name := strings.Join(found, ", ")
		if n > 3 {
			name += fmt.Sprintf(" and %d more", n-3)
		}
		drivers := on.drivers
		why := ""
		if noted == "" && len(pp) > 0 {
			// Beside page_pool counters: only the drivers whose ethtool -S
			// prints them (mvneta, not mvpp2).
			var printing, silent []string
			for _, d := range drivers {
				if f, ok := factsOf(d); ok && f.exposed {
					printing = append(printing, d)
				} else {
					silent = append(silent, d)
				}
			}
			if len(printing) > 0 && len(silent) > 0 {
				drivers = printing
				why = fmt.Sprintf(", beside page_pool counters (%s prints none)", strings.Join(silent, ", "))
			}
		}
		drv := drivers[0]
		f, _ := factsOf(drv)
		c := Constraint{Rule: RuleDriverNames, Evidence: fmt.Sprintf("%s: %s%s", name, on.what, why), Keeps: strings.Join(drivers, " or ") + "'s runs", admit: admitDrivers(drivers)}
		if on.cache && f.rxCacheUntil != "" {
			until := f.rxCacheUntil
			c.Keeps = fmt.Sprintf("%s's runs in eras before %s (it keeps its own RX page cache until then)", drv, until)
			c.admit = func(cfg lab.Config) bool { return cfg.Driver == drv && !since(until, cfg.Era) }
		}
		out = append(out, c)
	}
	// A whole mlx5 listing (its channel counters are there) without the RX
	// cache's counters, which sit beside them in sw_stats_desc: from 6.4.
	if hasOther(p, ownNames[1].re()) && !hasOther(p, ownNames[0].re()) {
		if f, ok := factsOf("mlx5"); ok && f.rxCacheUntil != "" {
			until := f.rxCacheUntil
			out = append(out, Constraint{Rule: RuleDriverNames, Evidence: "mlx5's channel counters (ch_*) without rx_cache_*: a whole listing of sw_stats_desc, which has no RX cache counters from " + until + " (4a5c5e25008f)",
				Keeps: "mlx5's runs from " + until, admit: func(cfg lab.Config) bool { return cfg.Driver == "mlx5" && since(until, cfg.Era) }})
		}
	}
	// The kernel's release.
	if major, minor, line, text, ok := kernelVersion(p); ok {
		eras, inEffect := erasForKernel(major, minor)
		c := Constraint{Rule: RuleKernelVersion, Evidence: fmt.Sprintf("line %d: %s: kernel %d.%d", line, text, major, minor)}
		switch {
		case inEffect == "":
			c.Keeps = "no run: the model's eras begin later"
			c.admit = func(lab.Config) bool { return false }
		case len(eras) == 1:
			c.Keeps = "runs of era " + inEffect
		default:
			c.Keeps = fmt.Sprintf("runs of the eras the sweep has either side of %s (the model's era for %d.%d): %s", inEffect, major, minor, strings.Join(eras, ", "))
		}
		if c.admit == nil {
			c.admit = func(cfg lab.Config) bool { return contains(eras, cfg.Era) }
		}
		out = append(out, c)
	}
	// A driver named in the prose, a comment, a note or a command line.
	var named []string
	var namedAt []int
	for _, l := range p.Lines {
		if l.Use != UseHeader && l.Use != UseGrey {
			continue
		}
		for _, m := range driverMentionR().FindAllStringSubmatch(l.Text, -1) {
			if !contains(named, m[1]) {
				named = append(named, m[1])
				namedAt = append(namedAt, l.N)
			}
		}
	}
	for _, l := range p.Lines {
		if l.Use != UseHeader && l.Use != UseGrey {
			continue
		}
		for _, b := range boards {
			if b.re().MatchString(l.Text) && !contains(named, b.driver) {
				named = append(named, b.driver)
				namedAt = append(namedAt, l.N)
			}
		}
	}
	if len(named) > 0 {
		var ev []string
		for i, d := range named {
			ev = append(ev, fmt.Sprintf("%s (line %d)", d, namedAt[i]))
		}
		out = append(out, Constraint{Rule: RuleDriverNamed, Evidence: "the paste names " + strings.Join(ev, ", "), Keeps: strings.Join(named, ", ") + "'s runs", admit: admitDrivers(named)})
	}
	// The XDP action counters: the whole traffic, or none of it.
	out = append(out, xdpConstraints(p)...)
	// Event counters: evidence of a scenario.
	last := p.Snapshots[len(p.Snapshots)-1]
	var scen, ev []string
	for _, ec := range eventCounters {
		for _, o := range last.Other {
			if ec.re().MatchString(o.Name) && o.Value > 0 {
				ev = append(ev, fmt.Sprintf("%s %s (line %d): %s", o.Name, human(o.Value), o.Line, ec.what))
				for _, s := range ec.scenarios {
					if !contains(scen, s) {
						scen = append(scen, s)
					}
				}
				break
			}
		}
	}
	if c, ok := trafficConstraint(last); ok {
		out = append(out, c)
	}
	// A zombie pool: evidence of destroy for its own device (DiagnosePaste
	// applies it to that device's run only).
	for _, z := range zombies(p) {
		out = append(out, Constraint{Rule: RuleZombies, Evidence: strings.Join(z.what, "; ") + ": a destroyed pool whose pages have not all come back (page_pool_release_retry keeps it)", Keeps: preferKeeps("destroy"), Prefers: true,
			Device: z.name, devKey: z.key,
			admit: func(c lab.Config) bool { return c.Scenario == "destroy" }})
	}
	if len(scen) > 0 {
		set := map[string]bool{}
		for _, s := range scen {
			set[s] = true
		}
		out = append(out, Constraint{Rule: RuleDriverCounters, Evidence: strings.Join(ev, "; "), Keeps: preferKeeps(strings.Join(scen, ", ")), Prefers: true,
			admit: func(c lab.Config) bool { return set[c.Scenario] }})
	}
	return out
}

func hasOther(p *Paste, re *regexp.Regexp) bool {
	for _, sn := range p.Snapshots {
		for _, o := range sn.Other {
			if re.MatchString(o.Name) {
				return true
			}
		}
	}
	return false
}

// trafficNames: the frames and bytes received and sent, by the names the
// drivers give them (the PHY's count first: mlx5's rx_packets leaves out
// the frames XDP consumed).
var trafficNames = [4][]string{
	{"rx_packets_phy", "good_frames_received", "rx_packets"},
	{"rx_bytes_phy", "good_octets_received", "rx_bytes"},
	{"tx_packets_phy", "good_frames_sent", "tx_packets"},
	{"tx_bytes_phy", "good_octets_sent", "tx_bytes"},
}

func trafficConstraint(sn Snapshot) (Constraint, bool) {
	var v [4]float64
	var n [4]string
	for i, names := range trafficNames {
		for _, name := range names {
			if j := slices.IndexFunc(sn.Other, func(o Named) bool { return o.Name == name }); j >= 0 {
				v[i], n[i] = sn.Other[j].Value, name
				break
			}
		}
	}
	rxP, rxB, txP, txB := v[0], v[1], v[2], v[3]
	if rxP < 1000 {
		return Constraint{}, false
	}
	set := func(ev string, scen ...string) (Constraint, bool) {
		return Constraint{Rule: RuleTraffic, Evidence: ev, Keeps: preferKeeps(strings.Join(scen, ", ")), Prefers: true,
			admit: func(c lab.Config) bool { return slices.Contains(scen, c.Scenario) }}, true
	}
	switch {
	case txP >= 0.8*rxP && txP <= 1.2*rxP:
		return set(fmt.Sprintf("%s %s ≈ %s %s: the frames received are sent back out", n[2], human(txP), n[0], human(rxP)), "forward", "xdp-tx")
	case rxB > 0 && txB > 0 && txP > 0.01*rxP && txP < 0.5*rxP && rxB/rxP >= 1000 && txB/txP <= 100:
		return set(fmt.Sprintf("%s / %s = %.0f bytes in, %s / %s = %.0f bytes out at %.2f frames per frame in: full-size segments received, ACKs sent", n[1], n[0], rxB/rxP, n[3], n[2], txB/txP, txP/rxP), "tcp-stream")
	}
	return Constraint{}, false
}

// napiConstraint reads the live pools' napi-ids (page-pool-get, ynltool
// group-by pp): all set, or none.
func napiConstraint(p *Paste) (Constraint, bool) {
	with, without := 0, 0
	var first Pool
	for _, pl := range p.Snapshots[len(p.Snapshots)-1].Pools {
		if pl.HasPoolFields && !pl.HasIfindex {
			// An orphan: a pool of a device that is gone, which the live
			// pools' NAPI says nothing of.
			return Constraint{}, false
		}
		if !pl.HasPoolFields || pl.Detached {
			continue // a destroyed pool has lost its NAPI
		}
		if with+without == 0 {
			first = pl
		}
		if pl.NapiID != 0 {
			with++
		} else {
			without++
		}
	}
	switch {
	case with > 0 && without == 0:
		return Constraint{Rule: RuleNapiID, Evidence: fmt.Sprintf("every live pool has a napi-id (pool %d, line %d: napi-id %d): its driver set pp.napi", first.ID, first.Line, first.NapiID),
			Keeps: "runs of a driver that sets pp.napi in that era",
			admit: func(c lab.Config) bool { f, ok := factsOf(c.Driver); return ok && since(f.napiFrom, c.Era) }}, true
	case without > 0 && with == 0:
		return Constraint{Rule: RuleNapiID, Evidence: fmt.Sprintf("no live pool has a napi-id (pool %d, line %d): its driver set pp.netdev but not pp.napi", first.ID, first.Line),
			Keeps: "runs of a driver that does not set pp.napi in that era",
			admit: func(c lab.Config) bool { f, ok := factsOf(c.Driver); return ok && !since(f.napiFrom, c.Era) }}, true
	}
	return Constraint{}, false
}

// zombieDev is the destroyed pools of one device that still hold pages.
type zombieDev struct {
	key, name string
	what      []string
}

// zombies are the paste's destroyed pools that still hold pages, by
// device, in the paste's order.
func zombies(p *Paste) []zombieDev {
	var out []zombieDev
	add := func(key, name, what string) {
		for i := range out {
			if out[i].key == key {
				out[i].what = append(out[i].what, what)
				return
			}
		}
		out = append(out, zombieDev{key: key, name: name, what: []string{what}})
	}
	sn := p.Snapshots[len(p.Snapshots)-1]
	for _, pl := range sn.Pools {
		if pl.Detached && (!pl.HasInflight || pl.Inflight > 0) {
			name := "no ifindex (orphaned)"
			switch {
			case pl.HasIfindex && pl.Ifname != "":
				name = fmt.Sprintf("%s[%d]", pl.Ifname, pl.Ifindex)
			case pl.HasIfindex:
				name = fmt.Sprintf("ifindex %d", pl.Ifindex)
			}
			add(poolKey(pl), name, fmt.Sprintf("pool %d (line %d) detached with %d pages in flight", pl.ID, pl.Line, pl.Inflight))
		}
	}
	for _, d := range sn.Devices {
		if d.Zombies > 0 && d.ZombieRefs > 0 {
			add(deviceKey(d), fmt.Sprintf("%s[%d]", d.Ifname, d.Ifindex), fmt.Sprintf("%s[%d] (line %d): %s holding %d pages", d.Ifname, d.Ifindex, d.Line, plural(d.Zombies, "zombie pool"), d.ZombieRefs))
		}
	}
	for i := range out {
		if z := out[i].what; len(z) > 2 {
			out[i].what = append(z[:2], fmt.Sprintf("%d more", len(z)-2))
		}
	}
	return out
}

// notCompared names the paste's counters that are no page_pool counter
// and that no constraint read (the model does not count them).
func notCompared(p *Paste, cs []Constraint) []string {
	traffic := slices.ContainsFunc(cs, func(c Constraint) bool { return c.Rule == RuleTraffic })
	xdp := slices.ContainsFunc(cs, func(c Constraint) bool { return c.Rule == RuleXDPNone || c.Rule == RuleXDPAll })
	var out []string
	seen := map[string]bool{}
	for _, sn := range p.Snapshots {
	next:
		for _, o := range sn.Other {
			if seen[o.Name] {
				continue
			}
			seen[o.Name] = true
			for _, on := range ownNames {
				if on.re().MatchString(o.Name) {
					continue next
				}
			}
			for _, ec := range eventCounters {
				if ec.re().MatchString(o.Name) && o.Value > 0 {
					continue next
				}
			}
			for _, a := range xdpActions {
				if xdp && a.re().MatchString(o.Name) {
					continue next // read by the XDP evidence, at 0 too
				}
			}
			if o.Value > 0 && isLoss(o.Name) {
				continue // read by the advice (what to look at next)
			}
			for _, names := range trafficNames {
				if traffic && slices.Contains(names, o.Name) {
					continue next
				}
			}
			out = append(out, o.Name)
		}
	}
	return out
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.3g G", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.3g M", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3g k", v/1e3)
	}
	return fmt.Sprint(v)
}

func ifindexes(p *Paste) string {
	var s []string
	for _, sn := range p.Snapshots {
		for _, pl := range sn.Pools {
			if pl.HasIfindex {
				s = append(s, fmt.Sprintf("pool %d: ifindex %d, line %d", pl.ID, pl.Ifindex, pl.Line))
			}
		}
		for _, d := range sn.Devices {
			if d.Ifname != "<orphan>" {
				s = append(s, fmt.Sprintf("%s[%d], line %d", d.Ifname, d.Ifindex, d.Line))
			}
		}
		if len(s) > 0 {
			break
		}
	}
	if len(s) > 2 {
		s = append(s[:2], "…")
	}
	return strings.Join(s, "; ")
}

// statNameGeneric is the generic helper's name of the counter name spells.
func statNameGeneric(name string) string {
	s, ring, ok := StatByName(name)
	if !ok || ring >= 0 {
		return ""
	}
	return s.Ethtool()
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Rank is Nearest among the runs the constraints admit: each scenario ×
// driver once, at its nearest era's distance (with every era at that
// distance), nearest first, the runs a preferring constraint names before
// the others; runs at one distance are one Match, every one named. A
// filtering constraint that no run meets together with the ones before it
// is marked Dropped; notes say so, and name the nearest runs the
// constraints left out when they are nearer than the nearest kept.
func Rank(sweep []Candidate, c Counts, sh Shape, n int, cs []Constraint) ([]Match, []string) {
	v := c.PP
	var notes []string
	type scored struct {
		c    Candidate
		d    float64
		pref bool
	}
	all := make([]scored, len(sweep))
	pa := float64(allocsOf(v))
	for i, cand := range sweep {
		all[i] = scored{c: cand, d: roundDist(sh.Distance(c, cand.ScaledCounts(pa)))}
	}
	kept := make([]bool, len(all))
	for i := range kept {
		kept[i] = true
	}
	for ci := range cs {
		c := &cs[ci]
		if c.admit == nil || c.Prefers {
			continue
		}
		any := false
		for i, s := range all {
			if kept[i] && c.admit(s.c.Config) {
				any = true
				break
			}
		}
		if !any {
			cfgs := make([]lab.Config, len(all))
			for i := range all {
				cfgs[i] = all[i].c.Config
			}
			oi, why := contradiction(cfgs, cs, ci)
			if oi >= 0 && cs[oi].Rule == c.Rule && !cs[oi].Either {
				// Two pieces of evidence of one kind, neither stronger (mlx5's
				// counter name beside the Marvell MIB): the runs either keeps.
				o := &cs[oi]
				oa, ca := o.admit, c.admit
				o.admit = func(cfg lab.Config) bool { return oa(cfg) || ca(cfg) }
				for i := range kept {
					kept[i] = true
					for _, f := range cs[:ci] {
						if f.admit != nil && !f.Prefers && !f.Dropped {
							kept[i] = kept[i] && f.admit(all[i].c.Config)
						}
					}
				}
				o.Either, c.Either = true, true
				c.why = fmt.Sprintf("the paste contradicts itself: %s (%s: %s) and %s (%s: %s) — no kernel the model knows prints both; neither is stronger (both are %s), so the runs either keeps are ranked: %s or %s", c.Evidence, c.Rule, c.Keeps, o.Evidence, o.Rule, o.Keeps, c.Rule, o.Keeps, c.Keeps)
				o.why = c.why
				notes = append(notes, c.why)
				continue
			}
			c.Dropped, c.why = true, why
			notes = append(notes, c.why)
			continue
		}
		for i, s := range all {
			kept[i] = kept[i] && c.admit(s.c.Config)
		}
	}
	for ci := range cs {
		c := &cs[ci]
		if c.admit == nil || !c.Prefers {
			continue
		}
		for i := range all {
			if c.admit(all[i].c.Config) {
				all[i].pref = true
			}
		}
	}
	var in []scored
	bestOut := -1
	for i, s := range all {
		if kept[i] {
			in = append(in, s)
		} else if bestOut < 0 || s.d < all[bestOut].d {
			bestOut = i
		}
	}
	if len(in) == 0 { // no constraint at all could be met: every run
		in = all
		notes = append(notes, "nothing the paste says fits any model run: every run is ranked, the driverless micro-benchmarks included")
	} else if nicDropped(cs) {
		notes = append(notes, "no driver run fits: the driverless micro-benchmarks are ranked too")
	}
	// One entry per scenario × driver: its nearest eras.
	type pair struct {
		scored
		eras  []string
		order int
		first bool // ranked first: preferred, and as near as the nearest
	}
	byKey := map[string]*pair{}
	var pairs []*pair
	for i, s := range in {
		k := s.c.Config.Scenario + "\x00" + s.c.Config.Driver
		p := byKey[k]
		switch {
		case p == nil:
			p = &pair{scored: s, eras: []string{s.c.Config.Era}, order: i}
			byKey[k] = p
			pairs = append(pairs, p)
		case s.d < p.d:
			p.scored, p.eras = s, []string{s.c.Config.Era}
		case s.d == p.d:
			p.eras = append(p.eras, s.c.Config.Era)
			if eraOrder(s.c.Config.Era) >= eraOrder(p.c.Config.Era) {
				p.c = s.c // the link opens the newest era at that distance
			}
		}
	}
	if noShape := !sh.any(v); noShape {
		// No counter to compare: only the runs the paste's other evidence
		// prefers are candidates (all at distance 1).
		var pref []*pair
		for _, p := range pairs {
			if p.pref {
				pref = append(pref, p)
			}
		}
		pairs = pref
	}
	// Distance ranks; the runs the paste's other evidence points to come
	// first only among the shapes the counters do not tell apart from the
	// nearest (PreferWithin of it): a run far from the counters' shape
	// is not put above nearer ones because the evidence prefers it.
	nearest := math.Inf(1)
	for _, p := range pairs {
		nearest = min(nearest, p.d)
	}
	for _, p := range pairs {
		p.first = p.pref && p.d <= nearest+PreferWithin+1e-9
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if a.first != b.first {
			return a.first
		}
		return a.d < b.d
	})
	var out []Match
	var lastPref bool
	for _, p := range pairs {
		if len(out) == 0 || out[len(out)-1].Distance != p.d || lastPref != p.pref {
			if len(out) == n {
				break
			}
			out = append(out, Match{Distance: p.d, Preferred: p.pref, NoShape: !sh.any(v), Stats: statsMap(p.c.Stats), counts: p.c.ScaledCounts(pa)})
			lastPref = p.pref
		}
		m := &out[len(out)-1]
		sort.Slice(p.eras, func(a, b int) bool { return eraOrder(p.eras[a]) < eraOrder(p.eras[b]) })
		m.Runs = append(m.Runs, MatchRun{Scenario: p.c.Config.Scenario, Driver: p.c.Config.Driver, Eras: p.eras, URL: "/?" + p.c.Config.Values().Encode()})
	}
	if bestOut >= 0 && len(out) > 0 && all[bestOut].d < out[0].Distance && sh.any(v) {
		b := all[bestOut]
		drv := b.c.Config.Driver
		if drv == "" {
			drv = "no driver"
		}
		var why []string
		for _, c := range cs {
			if c.admit != nil && !c.Prefers && !c.Dropped && !c.admit(b.c.Config) && !contains(why, c.Rule) {
				why = append(why, c.Rule)
			}
		}
		notes = append(notes, fmt.Sprintf("the nearest shape of all is %s on %s, era %s, at %.4f, left out (%s): it could not have printed this paste", b.c.Config.Scenario, drv, b.c.Config.Era, b.d, strings.Join(why, ", ")))
	}
	return out, notes
}

// contradiction says why constraint ci meets no run with the ones kept
// before it: the first of them that no run meets together with it (its
// index; -1 when it is their combination).
func contradiction(all []lab.Config, cs []Constraint, ci int) (int, string) {
	c := cs[ci]
	for oi, o := range cs[:ci] {
		if o.admit == nil || o.Prefers || o.Dropped {
			continue
		}
		both := false
		for _, s := range all {
			if o.admit(s) && c.admit(s) {
				both = true
				break
			}
		}
		if !both {
			return oi, fmt.Sprintf("the paste contradicts itself: %s (%s: %s) and %s (%s: %s) — no kernel the model knows prints both; %s is the stronger evidence, so the ranking does without this %s (it would keep %s)", c.Evidence, c.Rule, c.Keeps, o.Evidence, o.Rule, o.Keeps, o.Rule, c.Rule, c.Keeps)
		}
	}
	return -1, fmt.Sprintf("no model run meets %s (%s: %s) together with the constraints before it: ranked without it", c.Rule, c.Evidence, c.Keeps)
}

func nicDropped(cs []Constraint) bool {
	for _, c := range cs {
		if c.Rule == RuleNIC && c.Dropped {
			return true
		}
	}
	return false
}

func roundDist(d float64) float64 { return math.Round(d*1e4) / 1e4 }
