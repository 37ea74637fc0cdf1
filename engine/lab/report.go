package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"pplab/engine/drivers"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// MarshalJSON renders the results in the `ppsim run --json` contract
// (cmd/ppsim's doc), with the stats and violations keys in their fixed order.
func (r Results) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	str := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	fmt.Fprintf(&b, `{"driver":%s,"scenario":%s,"era":%s,"packets":%d,"seed":%d,`, str(r.Driver), str(r.Scenario), str(r.Era), r.Packets, r.Seed)
	fmt.Fprintf(&b, `"rate":{"value":%s,"unit":%s},"stats":{`, strconv.FormatFloat(round2(r.Rate.Value), 'f', -1, 64), str(r.Rate.Unit))
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
	fmt.Fprintf(w, "rate: %.1f %s  (%.2f ns per packet on cpu%d)\n", r.Rate.Value, r.Rate.Unit, r.NsPerPacket, r.Bottleneck)
	if r.Lost > 0 || r.RxMissed > 0 || r.AllocFailures > 0 {
		fmt.Fprintf(w, "delivered: %d of %d packets (lost %d; rx_missed_errors %d: no RX buffer posted; rx_buff_alloc_err %d: page_pool_alloc_pages returned NULL)\n",
			r.Delivered, r.Packets, r.Lost, r.RxMissed, r.AllocFailures)
	}
	fmt.Fprintf(w, "inflight: %d\n\nNIC statistics:\n", r.Inflight)
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		fmt.Fprintf(w, "     %s: %d\n", EthtoolName(r.Driver, i, -1), r.Stats[i])
	}
	for ring, st := range r.RingStats {
		if EthtoolName(r.Driver, 0, ring) == "" {
			break
		}
		for i := sim.Stat(0); i < sim.NumStats; i++ {
			fmt.Fprintf(w, "     %s: %d\n", EthtoolName(r.Driver, i, ring), st[i])
		}
	}
	if n := EthtoolNote(r.Driver); n != "" {
		fmt.Fprintf(w, "     (%s)\n", n)
	}
	if len(r.DriverStats) > 0 {
		fmt.Fprintf(w, "     (%s:)\n", DriverStatsNote(r.Driver))
		for _, st := range r.DriverStats {
			fmt.Fprintf(w, "     %s: %d\n", st.Name, st.Value)
		}
	}
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
	// TxFree is how its TX completion frees an skb: "napi_consume_skb" or
	// "dev_kfree_skb_any".
	TxFree string `json:"tx_free"`
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
	// KnownFailure: era -> the violation kind the kernel of that era shows in
	// this scenario with no rule broken (e.g. the 5.14 split-page caveat).
	KnownFailure map[string]string `json:"known_failure,omitempty"`
	// Knobs are the knobs that change what the scenario does, most telling first.
	Knobs []string `json:"knobs"`
}

type EraJSON struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
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

// List describes everything a run can be configured with.
func List() ListJSON {
	l := ListJSON{Drivers: drivers.Names()}
	for _, d := range drivers.Specs {
		var eras []string
		for _, e := range sim.Eras {
			if e.Order >= d.MinEra() {
				eras = append(eras, e.Name)
			}
		}
		tx := "dev_kfree_skb_any"
		if d.TxNapiConsume {
			tx = "napi_consume_skb"
		}
		l.DriverModels = append(l.DriverModels, DriverJSON{Name: d.Name, Platform: d.Platform, Doc: d.Doc, Eras: eras, RecycleFrom: d.RecycleFrom,
			PPNapiFrom: d.PPNapiFrom, TxFree: tx, RxCacheUntil: d.RxCacheUntil, AggFrom: d.AggFrom, Scenarios: d.Scenarios})
	}
	for _, s := range Scenarios {
		eras := s.Eras
		if len(eras) == 0 {
			eras = sim.EraNames()
		}
		sj := ScenarioJSON{Name: s.Name, Doc: s.Doc, NeedsDriver: s.NeedsDriver, DefaultDriver: s.DefaultDriver, Drivers: append([]string{}, s.Drivers...), Eras: eras}
		for _, k := range s.Matters {
			sj.Knobs = append(sj.Knobs, k.String())
		}
		for era, k := range s.KnownFailure {
			if sj.KnownFailure == nil {
				sj.KnownFailure = map[string]string{}
			}
			sj.KnownFailure[era] = k.String()
		}
		l.Scenarios = append(l.Scenarios, sj)
	}
	for _, e := range sim.Eras {
		l.Eras = append(l.Eras, EraJSON{Name: e.Name, Summary: e.Summary})
	}
	for _, r := range sim.AllRules() {
		info := r.Info()
		rj := RuleJSON{Name: info.Name, Prevents: info.Prevents, DecidesIn: append([]string{}, RuleExercisedIn[info.Name]...)}
		for _, k := range info.Kinds {
			rj.Kinds = append(rj.Kinds, k.String())
		}
		l.Rules = append(l.Rules, rj)
	}
	for _, k := range sim.AllKnobs() {
		l.Knobs = append(l.Knobs, KnobJSON{Name: k.Name, Default: k.Default, Min: k.Min, Max: k.Max, Doc: k.Doc})
	}
	for _, p := range sim.Platforms {
		l.Platforms = append(l.Platforms, p.Name)
	}
	return l
}

// WriteListTable prints List() readably.
func WriteListTable(w io.Writer) {
	l := List()
	fmt.Fprintf(w, "drivers:\n")
	for _, d := range l.DriverModels {
		napi := "no pp.napi: skb pages recycle through the ptr_ring in every era"
		if d.PPNapiFrom != "" {
			napi = "pp.napi from " + d.PPNapiFrom + ": NAPI-local skb recycling"
		}
		cache := ""
		if d.RxCacheUntil != "" {
			cache = "; its own RX page cache before " + d.RxCacheUntil + " (the driver's rx_cache_* counters)"
		}
		if d.AggFrom != "" {
			cache += "; RX path: hardware GRO (TPA) over a page_pool-fed aggregation ring from " + d.AggFrom + " (hw_gro=1, the default there), XDP page mode before it and with hw_gro=0; hw_gro=1 on 6.4 is the 6.4 core with the " + d.AggFrom + " RX path, as the 6.4 NAPI-local patches were measured"
		}
		fmt.Fprintf(w, "  %-7s %s (platform %s; marks skbs for recycling from %s%s; %s; TX completion frees with %s; eras: %s)\n",
			d.Name, d.Doc, d.Platform, d.RecycleFrom, cache, napi, d.TxFree, strings.Join(d.Eras, ", "))
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
		fmt.Fprintf(w, "  %-8s %s\n", e.Name, e.Summary)
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
