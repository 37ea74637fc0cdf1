package perf

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/drivers"
	"pplab/engine/lab"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// Changes predict knows.
var Changes = []string{"skb-recycle", "bulk", "napi-direct"}

// PredictInput is a measured profile, its rate and the change to predict.
type PredictInput struct {
	Profile  *Profile
	Rate     float64
	Unit     string // kpps, pps, mbps
	Change   string
	Platform string // optional: overrides the profile's
}

// Prediction is what predict returns.
type Prediction struct {
	Before       lab.Rate           `json:"before"`
	Predicted    lab.Rate           `json:"predicted"`
	Speedup      float64            `json:"speedup"`
	ProfileAfter []lab.ProfileEntry `json:"profile_after"`
	Driver       string             `json:"driver"`
	Platform     string             `json:"platform"`
	Workload     string             `json:"workload"`
	EraBefore    string             `json:"era_before"`
	EraAfter     string             `json:"era_after"`
	LinkBound    bool               `json:"link_bound"`
	Notes        []string           `json:"notes,omitempty"`
}

// predictPackets is the measured length of each model run of predict.
const predictPackets = 20_000

// Predict maps the profile's symbols to the model's functions, runs the
// model before and after the change on the profile's platform and workload,
// and carries the change over to the measured profile: each listed symbol
// the model knows is scaled by the model's after/before ratio for it,
// symbols the model does not know stay as measured, the model's functions
// that the listing does not show are taken out of the unlisted remainder
// before the change and put back after it, and the rest stays.
func Predict(in PredictInput) (*Prediction, error) {
	if in.Profile == nil || len(in.Profile.Lines) == 0 {
		return nil, fmt.Errorf("--profile: no parsable lines")
	}
	if !slices.Contains(Changes, in.Change) {
		return nil, fmt.Errorf("--change %q: accepted: %s", in.Change, strings.Join(Changes, ", "))
	}
	prof := in.Profile
	if err := checkListing(prof); err != nil {
		return nil, err
	}
	spec, plat, err := predictTarget(prof, in.Platform)
	if err != nil {
		return nil, err
	}
	wl := workloadOf(prof.Test)
	if !spec.Runs(wl) {
		return nil, fmt.Errorf("driver %s does not run the %s workload the profile's test (%q) implies", spec.Name, wl, prof.Test)
	}
	tBefore, err := rateNS(in.Rate, in.Unit, payloadBytes(wl, rateLabel(prof, in.Rate)))
	if err != nil {
		return nil, fmt.Errorf("--rate: %w", err)
	}
	rateNotes, err := checkRate(prof, plat, wl, in.Rate, in.Unit)
	if err != nil {
		return nil, err
	}
	eb, ea, setB, setA, notes, err := predictEras(prof, spec, in.Change)
	if err != nil {
		return nil, err
	}
	notes = append(rateNotes, notes...)
	pr := &Prediction{Before: lab.Rate{Value: in.Rate, Unit: in.Unit}, Driver: spec.Name, Platform: plat, Workload: wl, EraBefore: eb, EraAfter: ea, Notes: notes}
	b, bc, err := modelRun(spec.Name, wl, eb, plat, setB)
	if err != nil {
		return nil, err
	}
	a, ac, err := modelRun(spec.Name, wl, ea, plat, setA)
	if err != nil {
		return nil, err
	}
	pr.Notes = append(pr.Notes, splitNotes(prof, bc, ac)...)
	for _, u := range unmodelledCallers {
		if sh := prof.Share(u); sh > 0 {
			pr.Notes = append(pr.Notes, fmt.Sprintf("%s (%.2f%%) also allocates and frees pages (get_page_from_freelist, free_unref_page) outside the pool, which the model does not run: the gain on those symbols may be overstated", u, sh))
		}
	}
	if sh := prof.Share("skb_segment"); sh > 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("skb_segment (%.2f%%) is listed: GSO of forwarded TCP aggregates, which the model's %s does not run. Its segments either copy the data (a device without scatter-gather) or take page references on the aggregate's pages (skb_frag_ref), and such pages return to the pool with a refcount above one: released, not recycled. The gain on the page allocator's symbols may be overstated for that traffic", sh, wl))
	}

	idleNS := idleShare(prof) / 100 * tBefore
	busy := tBefore - idleNS
	after := map[string]float64{}
	listed := 0.0
	seen := map[string]bool{}
	for _, l := range prof.Lines {
		g := l.Symbol
		if seen[g] {
			continue
		}
		if idleSymbols[g] { // the idle loop: kept as measured (see below)
			seen[g] = true
			after[g] = prof.Share(g) / 100 * tBefore
			continue
		}
		seen[g] = true
		m := prof.Share(g) / 100 * tBefore
		listed += m
		switch {
		case b[g] > 0:
			after[g] = m * a[g] / b[g]
		default: // unknown to the model (or not in this workload): as measured
			after[g] = m
		}
	}
	rest := busy - listed
	// the model's functions the listing does not show: out of the remainder
	// before the change, in at their modelled cost after it
	var unlistedB float64
	for g, v := range b {
		if !seen[g] && g != sim.RestProfile {
			unlistedB += v
		}
	}
	for g, v := range a {
		if !seen[g] && g != sim.RestProfile {
			after[g] += v
		}
	}
	if in.Change == "bulk" {
		if n := bulkAllocatorNote(plat, seen, b, a); n != "" {
			pr.Notes = append(pr.Notes, n)
		}
	}
	rest -= unlistedB
	if rest < 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("the model's functions the listing does not show (%.0f ns per packet) exceed its unlisted remainder (%.0f ns): the remainder is taken as used up", unlistedB, rest+unlistedB))
		rest = 0
	}
	after[sim.RestProfile] = rest
	var tAfter float64 // per packet after the change, idle included
	for _, v := range after {
		tAfter += v
	}
	pr.Speedup = tBefore / tAfter
	if idleNS > 0 {
		// The CPU idled: it was not the only limit. The idle time per packet
		// is kept — the CPU waits for the same interrupts and the same
		// sender per packet — and only the busy part shrinks; perf would
		// show the idle symbols at their measured time per packet.
		pr.Notes = append(pr.Notes, fmt.Sprintf("the listing shows %.2f%% idle (%s): the CPU was not the only limit. Assumed: the idle time per packet stays as measured (%.0f ns: the same interrupts and the same sender per packet), only the busy part shrinks; were the idle time spare CPU, the busy part alone would give ×%.3f",
			100*idleNS/tBefore, strings.Join(idleListed(prof), ", "), idleNS, busy/(tAfter-idleNS)))
	}
	pr.Predicted = lab.Rate{Value: roundRate(in.Rate * pr.Speedup), Unit: in.Unit}
	if link := linkRate(plat, wl, in.Unit); link > 0 && pr.Predicted.Value > link {
		pr.Predicted.Value, pr.LinkBound = roundRate(link), true
		pr.Notes = append(pr.Notes, fmt.Sprintf("the CPU could do %.0f %s; the link caps it", in.Rate*pr.Speedup, in.Unit))
	}
	pr.Speedup = math.Round(pr.Speedup*1000) / 1000
	for g, v := range after {
		if pct := round2(100 * v / tAfter); pct > 0 {
			pr.ProfileAfter = append(pr.ProfileAfter, lab.ProfileEntry{Symbol: g, Pct: pct})
		}
	}
	sort.Slice(pr.ProfileAfter, func(i, j int) bool {
		if pr.ProfileAfter[i].Pct != pr.ProfileAfter[j].Pct {
			return pr.ProfileAfter[i].Pct > pr.ProfileAfter[j].Pct
		}
		return pr.ProfileAfter[i].Symbol < pr.ProfileAfter[j].Symbol
	})
	return pr, nil
}

// idleListed names the idle symbols a listing shows, in listing order.
func idleListed(p *Profile) []string {
	var out []string
	for _, l := range p.Lines {
		if idleSymbols[l.Symbol] && !slices.Contains(out, l.Symbol) {
			out = append(out, l.Symbol)
		}
	}
	return out
}

// modelRun runs the workload and returns ns per packet per profile symbol,
// and per modelled function with the profile symbol it shows as.
func modelRun(driver, wl, era, plat string, knobs sim.KnobOverrides) (map[string]float64, callers, error) {
	m, err := lab.Measure(lab.Config{Driver: driver, Scenario: wl, Era: era, Platform: plat, Packets: predictPackets, Seed: 1, Knobs: knobs}, nil)
	if err != nil {
		return nil, nil, err
	}
	c := callers{}
	for s, ns := range m.FuncNS {
		c[s] = callerNS{profile: m.ProfileName[s], ns: ns}
	}
	return m.SymbolNS, c, nil
}

// callers: per modelled function, the profile symbol it shows as and its
// ns per packet.
type callers map[sim.Sym]callerNS

type callerNS struct {
	profile string
	ns      float64
}

// splitNotes says, for each listed symbol that several modelled callers
// share (dma_map_page_attrs: the pool's RX refill and the TX xmit;
// free_unref_page: the pool's release and a page_frag head), how its
// measured cost splits by caller in the model's run of this workload on
// this platform and how the change scales each part: only the pool's part
// changes. (The prediction scales each part by its own after/before ratio:
// the symbol's total follows.)
func splitNotes(prof *Profile, b, a callers) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range prof.Lines {
		g := l.Symbol
		if seen[g] {
			continue
		}
		seen[g] = true
		var parts []sim.Sym
		total := 0.0
		for s, c := range b {
			if c.profile == g {
				parts = append(parts, s)
				total += c.ns
			}
		}
		if len(parts) < 2 || total <= 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range parts {
			r := a[s].ns / b[s].ns
			lo, hi = math.Min(lo, r), math.Max(hi, r)
		}
		if hi-lo < 0.01 { // the change scales every caller alike: nothing to split
			continue
		}
		sort.Slice(parts, func(i, j int) bool { return b[parts[i]].ns > b[parts[j]].ns })
		var ps []string
		for _, s := range parts {
			ps = append(ps, fmt.Sprintf("%.0f%% %s (×%.2f)", 100*b[s].ns/total, s.Name(), a[s].ns/b[s].ns))
		}
		out = append(out, fmt.Sprintf("%s (%.2f%% measured) is shared by callers: %s", g, prof.Share(g), strings.Join(ps, ", ")))
	}
	sort.Strings(out)
	return out
}

// unmodelledCallers are kernel callers of the page allocator the model
// does not run; a listing that shows one spends part of the page
// allocator's listed cost outside the pool, which no change to the pool
// removes.
var unmodelledCallers = []string{"skb_page_frag_refill", "sk_page_frag_refill", "page_frag_alloc", "__page_frag_alloc_align", "__netdev_alloc_skb", "__napi_alloc_skb", "netdev_alloc_frag"}

// checkListing refuses listings there is nothing to scale in: shares that
// add up to nothing, or only idle loops (the CPU was not busy).
func checkListing(p *Profile) error {
	total := p.Total()
	if total < 0.005 {
		return fmt.Errorf("--profile: the listed shares add up to %.2f%%: there is no measured cost to scale", total)
	}
	if idle := idleShare(p); total-idle < 0.005 {
		return fmt.Errorf("--profile: every listed symbol is an idle loop (%.2f%% idle): the CPU was not busy, so a change to the receive path cannot be predicted from it", idle)
	}
	return nil
}

// checkRate refuses rates the platform's link cannot carry (or a packet
// rate below one per second, which no profile of a receive path describes)
// and notes a unit or a value that contradicts the profile's header.
func checkRate(p *Profile, plat, wl string, v float64, unit string) ([]string, error) {
	if link := linkRate(plat, wl, unit); link > 0 && v > link*1.0001 {
		return nil, fmt.Errorf("--rate %g %s: more than platform %s's link carries with the %s workload's frames (%.1f %s)", v, unit, plat, wl, link, unit)
	}
	ns, err := rateNS(v, unit, payloadBytes(wl, ""))
	if err != nil {
		return nil, fmt.Errorf("--rate: %w", err)
	}
	if ns > 1e9 {
		return nil, fmt.Errorf("--rate %g %s: under one packet per second; a perf top listing of a receive path describes a busy CPU", v, unit)
	}
	var notes []string
	if len(p.Rates) > 0 {
		same := false
		for _, r := range p.Rates {
			if r.Unit == unit {
				same = true
				if r.Value == v {
					return notes, nil
				}
			}
		}
		if !same {
			notes = append(notes, fmt.Sprintf("the profile's header states its rate in %s; --rate is in %s", p.Rates[0].Unit, unit))
		} else {
			var stated []string
			for _, r := range p.Rates {
				stated = append(stated, strconv.FormatFloat(r.Value, 'g', -1, 64)+" "+r.Unit)
			}
			notes = append(notes, fmt.Sprintf("the profile's header measured %s; --rate is %g %s: the prediction scales the listing by the rate given", strings.Join(stated, ", "), v, unit))
		}
	}
	return notes, nil
}

// predictTarget picks the driver model and platform: the profile's header,
// or --platform (then the first driver on it).
func predictTarget(prof *Profile, platform string) (*drivers.Spec, string, error) {
	if prof.Platform != "" {
		if _, err := sim.PlatformByName(prof.Platform); err != nil {
			return nil, "", fmt.Errorf("--profile header platform: %w", err)
		}
		if platform == "" {
			platform = prof.Platform
		}
	}
	var spec *drivers.Spec
	if prof.Driver != "" {
		s, err := drivers.SpecByName(prof.Driver)
		if err != nil {
			return nil, "", fmt.Errorf("--profile header driver: %w", err)
		}
		spec = s
	}
	if platform == "" && spec != nil {
		platform = spec.Platform
	}
	if platform == "" {
		return nil, "", fmt.Errorf("--platform: the profile names no driver; give one of: %s", strings.Join(sim.PlatformNames()[1:], ", "))
	}
	if _, err := sim.PlatformByName(platform); err != nil {
		return nil, "", fmt.Errorf("--platform: %w", err)
	}
	if spec == nil {
		for _, s := range drivers.Specs {
			if s.Platform == platform {
				spec = s
				break
			}
		}
		if spec == nil {
			return nil, "", fmt.Errorf("--platform %s: no driver model runs on it (the profile names no driver)", platform)
		}
	}
	return spec, platform, nil
}

// workloadOf maps a profile's test line to a workload.
func workloadOf(test string) string {
	t := strings.ToLower(test)
	switch {
	case strings.Contains(t, "forward") || strings.Contains(t, "nat"):
		return workload.WForward
	case strings.Contains(t, "xdp"):
		return workload.WXDPRedirect
	case strings.Contains(t, "tcp"):
		return workload.WTCPStream
	}
	return workload.WDrop
}

func rateLabel(p *Profile, v float64) string {
	for _, r := range p.Rates {
		if r.Value == v {
			return r.Label
		}
	}
	return ""
}

// bulkAllocatorNote says what --change bulk assumed about a listing that
// shows no page-allocator symbol (the usual case when it recycles:
// recycling took the allocator off it). The model's own allocator calls
// come out of the unlisted remainder before and go in at their modelled
// cost after; with none (every page recycles once warm) the allocator's
// unlisted share is taken as nil. "" when the listing shows the allocator.
func bulkAllocatorNote(plat string, listed map[string]bool, b, a map[string]float64) string {
	p, err := sim.PlatformByName(plat)
	if err != nil {
		return ""
	}
	var names []string
	var nb, na float64
	for _, s := range []sim.Sym{sim.SymAllocPagesNode, sim.SymAllocPagesBulk} {
		g := p.ProfileName(s)
		if listed[g] {
			return ""
		}
		names = append(names, g)
		nb, na = nb+b[g], na+a[g]
	}
	if nb == 0 && na == 0 {
		return "the listing shows no page allocator symbol, and the model's runs of this workload allocate no page from it once warm (every page recycles): assumed the allocator's unlisted share is nil; what changes is the pool's own work around its slow path"
	}
	return fmt.Sprintf("the listing shows no %s: assumed that the page allocator's share is unlisted (below perf's cut-off), at the model's cost: %.1f ns per packet before bulk refill, %.1f ns after, taken out of and put back into the unlisted remainder",
		strings.Join(names, " or "), nb, na)
}

// recyclingSymbols show that skbs already recycle.
var recyclingSymbols = []string{"page_pool_put_page", "page_pool_return_skb_page", "__xdp_return", "napi_pp_put_page", "page_pool_refill_alloc_cache"}

// predictEras infers the kernel behind the profile and the era the change
// leads to.
func predictEras(p *Profile, spec *drivers.Spec, change string) (eb, ea string, setB, setA sim.KnobOverrides, notes []string, err error) {
	var none sim.KnobOverrides
	recycling := false
	for _, s := range recyclingSymbols {
		if p.Share(s) > 0 {
			recycling = true
		}
	}
	if r := strings.ToLower(p.Recycling); strings.HasPrefix(r, "on") {
		recycling = true
	} else if strings.HasPrefix(r, "off") {
		recycling = false
	}
	// A listing that does not show the page allocator's get_page_from_freelist
	// allocates in bulk — unless its pages recycle, when the allocator is simply
	// not hot: then only __alloc_pages_bulk (or the header) says bulk.
	bulk := p.Share("__alloc_pages_bulk") > 0 || strings.Contains(strings.ToLower(p.Recycling), "bulk")
	if !recycling {
		bulk = bulk || p.Share("get_page_from_freelist") == 0
	}
	// The eras a prediction runs in, each the first era with what it
	// brings: the 5.12 allocator without skb recycling, bulk refill (5.13),
	// the RFC's recycling (rfc-v1), recycling as merged (5.14), the same
	// in the driver's first era (5.15 for hns3's frag API), NAPI-direct
	// recycling (6.4).
	var (
		single    = sim.FirstEra(func(e *sim.Era) bool { return !e.BulkAlloc && e.SkbRecycle == sim.SkbRecycleNone })
		bulkE     = sim.FirstEra(func(e *sim.Era) bool { return e.BulkAlloc && e.SkbRecycle == sim.SkbRecycleNone })
		rfc       = sim.FirstEra(func(e *sim.Era) bool { return e.SkbRecycle == sim.SkbRecycleRFC })
		merged    = sim.FirstEra(func(e *sim.Era) bool { return e.SkbRecycle == sim.SkbRecycleMerged })
		mergedDrv = sim.FirstEra(func(e *sim.Era) bool { return e.SkbRecycle == sim.SkbRecycleMerged && e.Order >= spec.MinEra() })
		direct    = sim.FirstEra(func(e *sim.Era) bool { return e.NAPIDirect })
	)
	switch change {
	case "skb-recycle":
		if recycling {
			return "", "", none, none, nil, fmt.Errorf("--change skb-recycle: the profile already recycles skbs (it shows page_pool_put_page / the header says recycling on)")
		}
		if !bulk {
			after := rfc
			if !spec.Marks(after) {
				after = merged
				setA = none.With(sim.KnobBulkRefill, 0) // recycling on the 5.12 allocator, as the first series measured
			}
			notes = append(notes, "no __alloc_pages_bulk and get_page_from_freelist listed: the 5.12 allocator (one page per slow-path call)")
			return single.Name, after.Name, none, setA, notes, nil
		}
		return bulkE.Name, merged.Name, none, none, notes, nil
	case "bulk":
		if bulk {
			return "", "", none, none, nil, fmt.Errorf("--change bulk: the profile already shows bulk allocation (__alloc_pages_bulk, or no get_page_from_freelist)")
		}
		if recycling {
			// Bulk refill on top of recycling: the recycling era the profile
			// implies, its slow path one page per call before and bulk after.
			era := rfc
			if !spec.Marks(era) {
				era = merged
			}
			notes = append(notes, fmt.Sprintf("bulk refill on top of skb recycling: era %s with bulk_refill=0, then bulk_refill=1", era.Name))
			return era.Name, era.Name, none.With(sim.KnobBulkRefill, 0), none.With(sim.KnobBulkRefill, 1), notes, nil
		}
		return single.Name, bulkE.Name, none, none, nil, nil
	}
	if !recycling {
		return "", "", none, none, nil, fmt.Errorf("--change napi-direct: needs a profile with skb recycling on (page_pool_put_page or page_pool_return_skb_page listed)")
	}
	return mergedDrv.Name, direct.Name, none, none, nil, nil
}

// linkRate is the line rate in the unit of a prediction (0: not capped).
func linkRate(plat, wl, unit string) float64 {
	p, err := sim.PlatformByName(plat)
	if err != nil || p.LinkMbps == 0 {
		return 0
	}
	pps := p.LinkPPS(workload.DefaultFrame(wl))
	switch unit {
	case "kpps":
		return pps / 1e3
	case "pps":
		return pps
	case "mbps":
		return pps * float64(payloadBytes(wl, "")*8) / 1e6
	}
	return 0
}

// roundRate rounds a rate to two decimals, or to four significant digits
// when it is small (0.001866, not 0).
func roundRate(v float64) float64 {
	if v >= 100 || v == 0 {
		return round2(v)
	}
	e := math.Pow(10, 3-math.Floor(math.Log10(v)))
	return math.Round(v*e) / e
}

// round2 rounds to two decimals, as the lab's results do.
func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }
