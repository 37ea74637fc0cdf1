package lab

import (
	"io"

	"pplab/engine/drivers"
	"pplab/engine/lab/internal/report"
	"pplab/engine/sim"
)

// The results and the listing as values, and their renderings in the
// CLI's contract, are package report's; these are their names here.
type (
	Results      = report.Results      // what a run reports (Lab.Results)
	Rate         = report.Rate         // a throughput with its unit
	ProfileEntry = report.ProfileEntry // one line of a perf-top style profile
	DriverStat   = report.DriverStat   // one of a driver's own counters (Lab.DriverStats)
	ListJSON     = report.ListJSON     // what `ppsim list --json` prints (List)
	DriverJSON   = report.DriverJSON
	ScenarioJSON = report.ScenarioJSON
	EraJSON      = report.EraJSON
	RuleJSON     = report.RuleJSON
	KnobJSON     = report.KnobJSON
)

// Degenerate-run thresholds (report.Degenerate), in parts per million.
const (
	DegenerateMissedPPM    = report.DegenerateMissedPPM
	DegenerateLostPPM      = report.DegenerateLostPPM
	DegenerateAllocFailPPM = report.DegenerateAllocFailPPM
)

// EthtoolName is the `ethtool -S` name the driver's kernel code gives
// page_pool counter s (ring < 0: the device total; report.EthtoolName).
func EthtoolName(driver string, s sim.Stat, ring int) string {
	return report.EthtoolName(driver, s, ring)
}

// EthtoolNote says, for a driver whose `ethtool -S` shows no page_pool
// counters, that the names are the generic helper's ("" otherwise).
func EthtoolNote(driver string) string { return report.EthtoolNote(driver) }

// DriverStatsNote says whose counters DriverStats are.
func DriverStatsNote(driver string) string { return report.DriverStatsNote(driver) }

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
			PPNapiFrom: d.PPNapiFrom, NetdevFrom: d.NetdevFrom, TxFree: tx, TxNapiConsumeFrom: d.TxNapiConsumeFrom, RxCacheUntil: d.RxCacheUntil, AggFrom: d.AggFrom, Scenarios: d.Scenarios})
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
		for _, era := range eras { // on the default driver with the scenario's knobs
			ks := Config{Scenario: s.Name, Era: era}.KnownFailure()
			if len(ks) == 0 {
				continue
			}
			if sj.KnownFailure == nil {
				sj.KnownFailure = map[string]string{}
			}
			sj.KnownFailure[era] = kindList(ks)
		}
		l.Scenarios = append(l.Scenarios, sj)
	}
	for _, e := range sim.Eras {
		l.Eras = append(l.Eras, EraJSON{Name: e.Name, Summary: e.Summary, Tag: e.Tag, Naming: e.Naming, SignatureCheck: e.SignatureCheck()})
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
func WriteListTable(w io.Writer) { report.WriteList(w, List()) }
