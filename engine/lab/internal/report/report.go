// Package report is the results and the listing of runs as values, and
// their renderings in the CLI's contract (cmd/ppsim's doc: `ppsim run
// --json` and its table, `ppsim list` and --json): the Lab builds the
// values (engine/lab's Results and List), this package says what they mean
// and prints them. It knows the drivers' `ethtool -S` names, since the
// table prints the stats as a driver's ethtool would.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// Rate is a throughput with its unit.
type Rate struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// ProfileEntry is one line of a perf-top style profile.
type ProfileEntry struct {
	Symbol string  `json:"symbol"`
	Pct    float64 `json:"pct"`
}

// Results is what a run reports.
type Results struct {
	Driver, Scenario, Era string
	Packets               int64
	Seed                  uint64
	Rate                  Rate
	NsPerPacket           float64
	Stats                 sim.Stats
	// RingStats are the driver's RX rings' own counters (Lab.RingStats);
	// the table prints them for a driver with per-ring names (mlx5). Not in
	// the JSON.
	RingStats []sim.Stats
	// DriverStats are the driver's own counters beside page_pool's
	// (Lab.DriverStats: mlx5e's RX page cache before 6.4); nil when the
	// driver keeps none in the era. In the JSON as driver_stats.
	DriverStats []DriverStat
	Inflight    int32
	Violations  sim.ViolationLog
	Profile     []ProfileEntry
	// Lost is the packets not delivered: frames the NIC dropped for want of
	// a posted RX buffer, frames the stack dropped for want of memory (an
	// skb), frames dropped at a full TX ring; for the pool scenarios, pairs
	// whose allocation failed. Delivered = Packets - Lost; the rate counts
	// delivered packets only.
	Lost, Delivered int64
	// RxMissed is the frames the NIC dropped because too few RX descriptors
	// were posted: rtnl_link_stats64.rx_missed_errors (mlx5 fills it from
	// its rx_out_of_buffer counter).
	RxMissed int64
	// AllocFailures is page_pool_alloc_pages calls that returned NULL, over
	// the run's pools: the drivers' rx_buff_alloc_err (mlx5) or
	// refill_errors (mvneta); page_pool itself keeps no such counter.
	AllocFailures int64
	// Degenerate says why the run measures something other than its
	// scenario's steady state ("" when it does not): see Degenerate. It is
	// also the first of Notes.
	Degenerate string
	Bottleneck int  // the CPU whose busy time sets the rate
	LinkBound  bool // the rate is the link's, not the CPU's
	Platform   string
	// Notes say what the numbers do not show by themselves, e.g. a broken
	// rule that never decided anything in this run.
	Notes []string
	// YNL is the run's pools as the netdev netlink family shows them
	// (Lab.YNL): in the JSON as "ynl".
	YNL YNL
}

// DriverStat is one of a driver's own counters, by its `ethtool -S` name.
type DriverStat struct {
	Name  string
	Value int64
}

// Degenerate-run thresholds, in parts per million: a run is degenerate
// when more than DegenerateMissedPPM of its packets were dropped by the NIC
// for want of a posted RX buffer (the ring ran dry: the driver is not
// refilling it), when more than DegenerateLostPPM of its packets were lost
// in all, or when more than DegenerateAllocFailPPM of its page allocations
// failed. Failure injection at its usual rates (2 %) stays under the last
// two.
const (
	DegenerateMissedPPM    = 10_000  // 1 %
	DegenerateLostPPM      = 100_000 // 10 %
	DegenerateAllocFailPPM = 100_000 // 10 % of the allocations (alloc_fast + alloc_slow + alloc_slow_ho + the NULLs)
)

// Degenerate is the notice for a run that does not measure its scenario's
// steady state (the rule and the thresholds above); it names the rule and
// the numbers. "" when the run is not degenerate.
func Degenerate(r Results) string {
	allocs := int64(r.Stats[sim.StatAllocFast]+r.Stats[sim.StatAllocSlow]+r.Stats[sim.StatAllocSlowHighOrder]) + r.AllocFailures
	over := func(n, of, ppm int64) bool { return of > 0 && n*1_000_000 > ppm*of }
	missedBad := over(r.RxMissed, r.Packets, DegenerateMissedPPM)
	lostBad := over(r.Lost, r.Packets, DegenerateLostPPM)
	allocBad := over(r.AllocFailures, allocs, DegenerateAllocFailPPM)
	if !missedBad && !lostBad && !allocBad {
		return ""
	}
	pct := func(a, b int64) string { return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 1, 64) + " %" }
	var why []string
	if r.RxMissed > 0 {
		why = append(why, fmt.Sprintf("%d dropped by the NIC for want of a posted RX buffer, rx_missed_errors", r.RxMissed))
	}
	if other := r.Lost - r.RxMissed; other > 0 {
		if r.Driver == "" {
			why = append(why, fmt.Sprintf("%d whose page allocation failed", other))
		} else {
			why = append(why, fmt.Sprintf("%d dropped after the NIC: no memory for an skb, a full TX ring or a TX mapping error", other))
		}
	}
	var b strings.Builder
	b.WriteString("degenerate run: ")
	if r.Lost > 0 {
		fmt.Fprintf(&b, "%s of the packets were lost (%d of %d", pct(r.Lost, r.Packets), r.Lost, r.Packets)
		if len(why) > 0 {
			fmt.Fprintf(&b, "; %s", strings.Join(why, "; "))
		}
		b.WriteString(")")
	}
	if allocBad {
		if r.Lost > 0 {
			b.WriteString(", and ")
		}
		fmt.Fprintf(&b, "%s of the page allocations failed (%d of %d page_pool_alloc_pages calls returned NULL, rx_buff_alloc_err)", pct(r.AllocFailures, allocs), r.AllocFailures, allocs)
	}
	fmt.Fprintf(&b, " — over the limits of a steady-state run (1 %% of the packets missed for want of an RX buffer, 10 %% lost in all, 10 %% of the allocations failed); the rate counts the %d delivered packets only", r.Delivered)
	return b.String()
}

// MarshalJSON renders the results in the `ppsim run --json` contract
// (cmd/ppsim's doc), with the stats and violations keys in their fixed order.
func (r Results) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	str := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	fmt.Fprintf(&b, `{"driver":%s,"scenario":%s,"era":%s,"packets":%d,"seed":%d,`, str(r.Driver), str(r.Scenario), str(r.Era), r.Packets, r.Seed)
	fmt.Fprintf(&b, `"rate":{"value":%s,"unit":%s,"link_bound":%t},"stats":{`, strconv.FormatFloat(Round2(r.Rate.Value), 'f', -1, 64), str(r.Rate.Unit), r.LinkBound)
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s:%d`, str(i.String()), r.Stats[i])
	}
	fmt.Fprintf(&b, `},"inflight":%d,"delivered":%d,"lost":%d,"rx_missed_errors":%d,"rx_buff_alloc_err":%d,"violations":{`, r.Inflight, r.Delivered, r.Lost, r.RxMissed, r.AllocFailures)
	for k := sim.Kind(0); k < sim.NumKinds; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s:%d`, str(k.String()), r.Violations.Counts[k])
	}
	b.WriteString(`},"profile":[`)
	for i, p := range r.Profile {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"symbol":%s,"pct":%s}`, str(p.Symbol), strconv.FormatFloat(p.Pct, 'f', -1, 64))
	}
	b.WriteString(`]`)
	if len(r.DriverStats) > 0 {
		b.WriteString(`,"driver_stats":{`)
		for i, st := range r.DriverStats {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `%s:%d`, str(st.Name), st.Value)
		}
		b.WriteByte('}')
	}
	b.WriteString(`,"ynl":`)
	r.YNL.marshal(&b)
	if len(r.Notes) > 0 {
		b.WriteString(`,"notes":[`)
		for i, n := range r.Notes {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(str(n))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WriteTable prints the results as a readable table, stats in `ethtool -S`
// form.
func (r Results) WriteTable(w io.Writer) {
	drv := r.Driver
	if drv == "" {
		drv = "-"
	}
	fmt.Fprintf(w, "scenario %s  driver %s  era %s  packets %d  seed %d\n", r.Scenario, drv, r.Era, r.Packets, r.Seed)
	if r.LinkBound {
		// The CPUs have time to spare: the NIC's line rate is the rate.
		fmt.Fprintf(w, "rate: %.1f %s  (the link's line rate; the busiest CPU, cpu%d, spends %.2f ns per packet)\n", r.Rate.Value, r.Rate.Unit, r.Bottleneck, r.NsPerPacket)
	} else {
		fmt.Fprintf(w, "rate: %.1f %s  (%.2f ns per packet on cpu%d)\n", r.Rate.Value, r.Rate.Unit, r.NsPerPacket, r.Bottleneck)
	}
	if r.Lost > 0 || r.RxMissed > 0 || r.AllocFailures > 0 {
		fmt.Fprintf(w, "delivered: %d of %d packets (lost %d; rx_missed_errors %d: no RX buffer posted; rx_buff_alloc_err %d: page_pool_alloc_pages returned NULL)\n",
			r.Delivered, r.Packets, r.Lost, r.RxMissed, r.AllocFailures)
	}
	fmt.Fprintf(w, "inflight: %d\n\n", r.Inflight)
	r.WriteEthtool(w)
	fmt.Fprintf(w, "\nviolations: %d\n", r.Violations.Total())
	for k := sim.Kind(0); k < sim.NumKinds; k++ {
		if c := r.Violations.Counts[k]; c > 0 {
			fmt.Fprintf(w, "  %-26s %d\n", k.String()+":", c)
		}
	}
	for i, v := range r.Violations.List {
		if i == 10 {
			fmt.Fprintf(w, "  … %d more\n", r.Violations.Total()-10)
			break
		}
		fmt.Fprintf(w, "  %s\n", v)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "\nprofile (share of simulated CPU time):\n  Overhead  Symbol\n")
	for _, p := range r.Profile {
		fmt.Fprintf(w, "  %7.2f%%  %s\n", p.Pct, p.Symbol)
	}
}

// ListJSON is what `ppsim list --json` prints.
type ListJSON struct {
	Drivers      []string       `json:"drivers"`
	DriverModels []DriverJSON   `json:"driver_models"`
	Scenarios    []ScenarioJSON `json:"scenarios"`
	Eras         []EraJSON      `json:"eras"`
	Rules        []RuleJSON     `json:"rules"`
	Knobs        []KnobJSON     `json:"knobs"`
	Platforms    []string       `json:"platforms"`
}

// DriverJSON describes a driver model.
type DriverJSON struct {
	Name        string   `json:"name"`
	Platform    string   `json:"platform"`
	Doc         string   `json:"doc"`
	Eras        []string `json:"eras"`
	RecycleFrom string   `json:"marks_skbs_from"`
	// PPNapiFrom is the first era in which the driver sets
	// page_pool_params.napi ("" = never: its skb pages always recycle
	// through the ptr_ring).
	PPNapiFrom string `json:"pp_napi_from"`
	// NetdevFrom is the first era in which the driver sets
	// page_pool_params.netdev, so netlink lists its pools ("" = never;
	// an added key).
	NetdevFrom string `json:"pp_netdev_from"`
	// TxFree is how its TX completion frees an skb: "napi_consume_skb" or
	// "dev_kfree_skb_any".
	TxFree string `json:"tx_free"`
	// TxNapiConsumeFrom is the first era from which a driver whose TxFree
	// is "dev_kfree_skb_any" frees with napi_consume_skb instead (omitted
	// for none; an added key).
	TxNapiConsumeFrom string `json:"tx_napi_consume_from,omitempty"`
	// RxCacheUntil is the first era without the driver's own RX page cache
	// (Spec.RxCacheUntil; omitted for a driver that never has one).
	RxCacheUntil string `json:"rx_cache_until,omitempty"`
	// AggFrom is the first era in which the driver's normal RX path (no
	// XDP program, hardware GRO: the hw_gro knob) takes its aggregation
	// ring's buffers from page_pool (Spec.AggFrom; omitted for a driver
	// without one): before it the model runs its XDP page mode, the only
	// path whose buffers are pool pages; hw_gro=1 on 6.4 runs the 6.4 core
	// with the 6.6 RX path, the configuration the NAPI-local patches were
	// measured with.
	AggFrom   string   `json:"hw_gro_from,omitempty"`
	Scenarios []string `json:"scenarios"`
}

type ScenarioJSON struct {
	Name          string   `json:"name"`
	Doc           string   `json:"doc"`
	NeedsDriver   bool     `json:"needs_driver"`
	DefaultDriver string   `json:"default_driver,omitempty"`
	Drivers       []string `json:"drivers"`
	Eras          []string `json:"eras"`
	// KnownFailure: era -> the violation kinds the kernel of that era shows
	// in this scenario with no rule broken, on the default driver with the
	// scenario's knobs (e.g. the 5.14 split-page caveat; destroy's unmap
	// after unbind before 6.16). Other drivers and knobs may differ.
	KnownFailure map[string]string `json:"known_failure,omitempty"`
	// Knobs are the knobs that change what the scenario does, most telling first.
	Knobs []string `json:"knobs"`
}

type EraJSON struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// Tag is the kernel release whose source the era follows (the
	// narration's links point into it; rfc-v1: its v5.12 base).
	Tag string `json:"tag"`
	// Naming is the name family the narration uses for the pool's
	// functions and memory, as the era's kernel does: "page", "netmem"
	// (the netmem conversion, v6.11) or "netmem_desc" (v6.17). A rename,
	// not a behaviour.
	Naming string `json:"naming"`
	// SignatureCheck is the test the era's kernel uses to recognise a
	// page_pool page ("" when its pages carry no mark: 5.12, 5.13).
	SignatureCheck string `json:"signature_check"`
}

type RuleJSON struct {
	Name     string   `json:"name"`
	Prevents string   `json:"prevents"`
	Kinds    []string `json:"violations"`
	// DecidesIn: the scenarios where the rule's check decides something
	// (breaking it elsewhere changes nothing), with what they need.
	DecidesIn []string `json:"decides_in"`
}

type KnobJSON struct {
	Name    string `json:"name"`
	Default int64  `json:"default"`
	Min     int64  `json:"min"`
	Max     int64  `json:"max"`
	Doc     string `json:"doc"`
}

// WriteList prints a listing readably (`ppsim list`).
func WriteList(w io.Writer, l ListJSON) {
	fmt.Fprintf(w, "drivers:\n")
	for _, d := range l.DriverModels {
		napi := "no pp.napi: skb pages recycle through the ptr_ring in every era"
		if d.PPNapiFrom != "" {
			napi = "pp.napi from " + d.PPNapiFrom + ": NAPI-local skb recycling"
		}
		if d.NetdevFrom != "" {
			napi += "; pp.netdev from " + d.NetdevFrom + ": netlink (ynl) lists its pools"
		} else {
			napi += "; no pp.netdev: netlink (ynl) lists none of its pools"
		}
		cache := ""
		if d.RxCacheUntil != "" {
			cache = "; its own RX page cache before " + d.RxCacheUntil + " (the driver's rx_cache_* counters)"
		}
		if d.AggFrom != "" {
			cache += "; RX path: hardware GRO (TPA) over a page_pool-fed aggregation ring from " + d.AggFrom + " (hw_gro=1, the default there), XDP page mode before it and with hw_gro=0; hw_gro=1 on 6.4 is the 6.4 core with the " + d.AggFrom + " RX path, as the 6.4 NAPI-local patches were measured"
		}
		tx := d.TxFree
		if d.TxNapiConsumeFrom != "" {
			tx += ", napi_consume_skb from " + d.TxNapiConsumeFrom
		}
		fmt.Fprintf(w, "  %-7s %s (platform %s; marks skbs for recycling from %s%s; %s; TX completion frees with %s; eras: %s)\n",
			d.Name, d.Doc, d.Platform, d.RecycleFrom, cache, napi, tx, strings.Join(d.Eras, ", "))
	}
	fmt.Fprintf(w, "\nscenarios:\n")
	for _, s := range l.Scenarios {
		drv := "no driver"
		if len(s.Drivers) > 0 {
			drv = "drivers: " + strings.Join(s.Drivers, ", ") + "; default " + s.DefaultDriver
		}
		known := ""
		if len(s.KnownFailure) > 0 {
			var eras []string
			for era := range s.KnownFailure {
				eras = append(eras, era)
			}
			sort.Strings(eras)
			known = fmt.Sprintf("; the kernel's own %s in %s, with no rule broken", s.KnownFailure[eras[0]], strings.Join(eras, ", "))
		}
		fmt.Fprintf(w, "  %-14s %s (%s; eras: %s%s)\n", s.Name, s.Doc, drv, strings.Join(s.Eras, ", "), known)
	}
	fmt.Fprintf(w, "\neras:\n")
	for _, e := range l.Eras {
		sig := e.SignatureCheck
		if sig == "" {
			sig = "none: pages carry no page_pool mark"
		}
		fmt.Fprintf(w, "  %-8s %s\n  %-8s follows %s; names: %s; signature check: %s\n", e.Name, e.Summary, "", e.Tag, e.Naming, sig)
	}
	fmt.Fprintf(w, "\nrules (--break):\n")
	for _, r := range l.Rules {
		fmt.Fprintf(w, "  %-22s prevents %s -> %s\n  %-22s decides in: %s\n", r.Name, r.Prevents, strings.Join(r.Kinds, " / "), "", strings.Join(r.DecidesIn, ", "))
	}
	fmt.Fprintf(w, "\nknobs (--set name=value):\n")
	for _, k := range l.Knobs {
		fmt.Fprintf(w, "  %-16s default %-6d range %d..%d  %s\n", k.Name, k.Default, k.Min, k.Max, k.Doc)
	}
	fmt.Fprintf(w, "\nplatforms: %s\n", strings.Join(l.Platforms, ", "))
}

// Scenario is the listing of the named scenario (zero when unknown).
func (list ListJSON) Scenario(name string) ScenarioJSON {
	for _, s := range list.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return ScenarioJSON{}
}

// EthtoolName is the `ethtool -S` name the driver's kernel code gives
// page_pool counter s: ring < 0 names the device total, ring >= 0 that RX
// ring's own counter, which only mlx5 has (rx<N>_pp_*: "" for the other
// drivers). A pool scenario (driver "") and a driver whose ethtool code shows
// no page_pool counters get the generic helper's names (EthtoolNote says
// so). The JSON `stats` keys are not these: they stay the CLI contract's.
func EthtoolName(driver string, s sim.Stat, ring int) string {
	sp, err := drivers.SpecByName(driver)
	if err != nil {
		if ring >= 0 {
			return ""
		}
		return s.Ethtool()
	}
	name, _, perRing := sp.EthtoolName(s, ring)
	if ring >= 0 && !perRing {
		return ""
	}
	return name
}

// EthtoolNote says, for a driver whose `ethtool -S` shows no page_pool
// counters, that the names are the generic helper's ("" otherwise).
func EthtoolNote(driver string) string {
	sp, err := drivers.SpecByName(driver)
	if err != nil {
		return ""
	}
	if _, exposed, _ := sp.EthtoolName(0, -1); !exposed {
		return driver + "'s ethtool -S shows no page_pool counters; the names are the generic helper's (page_pool_ethtool_stats_get_strings)"
	}
	return ""
}

// DriverStatsNote says whose counters DriverStats are: the cache model is
// mlx5e's (engine/drivers/mlx5cache.go).
func DriverStatsNote(driver string) string {
	return "mlx5e_rx_cache, " + driver + "'s own RX page cache in front of the pool (en_stats.c's rx_cache_*): the driver's counters, not page_pool's"
}

// Round2 rounds to two decimals, as the JSON shows rates and shares.
func Round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
