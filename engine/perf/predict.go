package perf

import (
	"fmt"
	"maps"
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
var Changes = []string{"skb-recycle", "bulk", "napi-direct", "pp-napi"}

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

// Applies reports whether Predict would predict the change for the input,
// and why not: everything Predict checks before it runs the model (the
// page marks the changes a listing cannot take with it).
func Applies(in PredictInput) error {
	_, err := planPredict(in)
	return err
}

// predictPlan is what Predict runs: the driver, platform and workload the
// listing shows, the eras and knobs before and after the change.
type predictPlan struct {
	spec       *drivers.Spec
	plat, wl   string
	eb, ea     string
	setB, setA sim.KnobOverrides
	aliases    map[string][]sim.Sym
	tBefore    float64
	frame      int // the frame size the model runs (checkRate)
	notes      []string
}

// planPredict reads the listing and checks the change (Predict's first
// half).
func planPredict(in PredictInput) (*predictPlan, error) {
	if in.Profile == nil || len(in.Profile.Lines) == 0 {
		return nil, fmt.Errorf("--profile: no parsable lines")
	}
	if !slices.Contains(Changes, in.Change) && !slices.Contains(EraChanges(), in.Change) {
		return nil, fmt.Errorf("--change %q: accepted: %s, or era:E for a move to era E (E one of %s)", in.Change, strings.Join(Changes, ", "), strings.Join(sim.Names(EraChanges(), func(s string) string { return strings.TrimPrefix(s, "era:") }), ", "))
	}
	prof := in.Profile
	if err := checkListing(prof); err != nil {
		return nil, err
	}
	if ok, names := knownAnywhere(prof); !ok {
		return nil, fmt.Errorf("none of the listing's %d symbols is a function the model runs, in any era (%s): there is nothing to carry the change over to", len(names), firstOf(names, 5))
	}
	spec, plat, targetNotes, err := predictTarget(prof, in.Platform)
	if err != nil {
		return nil, err
	}
	platform, _ := sim.PlatformByName(plat)
	aliases := symAliases(spec, platform)
	known, own, unknown, ownSyms, unknownSyms := placed(prof, aliases, spec.Name)
	if known == 0 {
		all := append(ownSyms, unknownSyms...)
		return nil, fmt.Errorf("none of the listing's %d symbols is a function the model runs, in any era (%s): there is nothing to carry the change over to", len(all), firstOf(all, 5))
	}
	// The workload: the listing's functions say it when they show one
	// (tcp_v4_rcv, ip_forward, xdp_do_redirect); the header's test line
	// otherwise. A header the functions contradict is named, and the
	// functions decide.
	wlL, byL := listingWorkload(prof)
	wl := ""
	if prof.Test != "" {
		if h, ok := workloadOf(prof.Test); !ok {
			targetNotes = append(targetNotes, fmt.Sprintf("the header's test %q names no workload the model runs (drop, TCP, forwarding or NAT, XDP redirect): the workload is read from the listing", prof.Test))
		} else if byL != "" && wlL != h {
			targetNotes = append(targetNotes, fmt.Sprintf("the header's test %q says %s, but the listing shows %s (%s): predicted for what the functions show", prof.Test, h, wlL, byL))
		} else {
			wl = h
		}
	}
	if wl == "" {
		switch {
		case byL != "":
			wl = wlL
			targetNotes = append(targetNotes, fmt.Sprintf("workload %s, from %s in the listing", wl, byL))
		case in.Unit == "mbps" && !dropListed(prof):
			wl = workload.WTCPStream
			targetNotes = append(targetNotes, "workload tcp-stream: the rate is a throughput (Mbit/s), and no TCP, forwarding, XDP-redirect or dropping function (kfree_skb) is listed")
		default:
			wl = workload.WDrop
			targetNotes = append(targetNotes, "workload drop (no TCP, forwarding or XDP-redirect function listed)")
		}
	}
	if !spec.Runs(wl) {
		return nil, fmt.Errorf("driver %s does not run the %s workload the listing shows", spec.Name, wl)
	}
	if own > 0 {
		targetNotes = append(targetNotes, fmt.Sprintf("%.2f%% (%s) is %s's own code, which the model charges as its RX, transmit or TX-completion function (%s, %s, %s; by the name's xmit or tx): those symbols change as it does", own, firstOf(ownSyms, 4), spec.Name, spec.Names[sim.SymDrvRx], spec.Names[sim.SymDrvXmit], spec.Names[sim.SymDrvTxClean]))
	}
	if unknown > 0 {
		targetNotes = append(targetNotes, fmt.Sprintf("the model places %.2f%% of the listing's %.2f%%; %.2f%% (%s) is no function it runs and is kept as measured, so the change acts on at most the placed share", known+own, known+own+unknown, unknown, firstOf(unknownSyms, 4)))
	}
	payload := payloadBytes(wl, rateLabel(prof, in.Rate))
	if f := prof.Frame(); f > 0 {
		payload = payloadOf(wl, f) // the listing's frames carry the Mbit/s
	}
	tBefore, err := rateNS(in.Rate, in.Unit, payload)
	if err != nil {
		return nil, fmt.Errorf("--rate: %w", err)
	}
	rateNotes, frame, err := checkRate(prof, plat, wl, in.Rate, in.Unit)
	if err != nil {
		return nil, err
	}
	eb, ea, setB, setA, notes, err := predictEras(prof, spec, in.Change)
	if err != nil {
		return nil, err
	}
	if frame != workload.DefaultFrame(wl) {
		// the model runs the listing's frames: a copy or a cache
		// invalidation scales with them
		setB, setA = setB.With(sim.KnobFrame, int64(frame)), setA.With(sim.KnobFrame, int64(frame))
	}
	notes = append(append(targetNotes, rateNotes...), notes...)
	return &predictPlan{spec: spec, plat: plat, wl: wl, eb: eb, ea: ea, setB: setB, setA: setA, aliases: aliases, tBefore: tBefore, frame: frame, notes: notes}, nil
}

// Predict maps the profile's symbols to the model's functions, runs the
// model before and after the change on the profile's platform and workload,
// and carries the change over to the measured profile: each listed symbol
// the model knows is scaled by the model's after/before ratio for it,
// symbols the model does not know stay as measured, the model's functions
// that the listing does not show are taken out of the unlisted remainder
// before the change and put back after it, and the rest stays.
func Predict(in PredictInput) (pr *Prediction, err error) {
	pl, err := planPredict(in)
	if err != nil {
		return nil, err
	}
	prof, spec, plat, wl, eb, ea, setB, setA, aliases, tBefore, frame := in.Profile, pl.spec, pl.plat, pl.wl, pl.eb, pl.ea, pl.setB, pl.setA, pl.aliases, pl.tBefore, pl.frame
	pr = &Prediction{Before: lab.Rate{Value: in.Rate, Unit: in.Unit}, Driver: spec.Name, Platform: plat, Workload: wl, EraBefore: eb, EraAfter: ea, Notes: pl.notes}
	_, bc, err := modelRun(spec.Name, wl, eb, plat, setB)
	if err != nil {
		return nil, err
	}
	_, ac, err := modelRun(spec.Name, wl, ea, plat, setA)
	if err != nil {
		return nil, err
	}
	// Both runs' functions under one name each: the listed symbol that is
	// one of its names in some era, else its name in the before era (the
	// listing's kernel). A function the listing shows under another era's
	// name (page_pool_return_skb_page in a run of 6.6, which names it
	// napi_pp_put_page) is that listed symbol's, never also an unlisted
	// model function besides it; and the after run's functions keep the
	// listing's names when the change moves to an era that renamed them.
	b, a, named := byListedName(prof, aliases, bc, ac)
	pr.Notes = append(pr.Notes, splitNotes(prof, bc, ac)...)
	// A rate that leaves far more time per packet than the model spends
	// says the CPU mostly waited (or the rate is not the listing's): the
	// listing's shares are of a CPU that was not busy with these packets.
	var modelNS float64
	for s := sim.Sym(1); s < sim.NumSyms; s++ {
		modelNS += bc[s].ns
	}
	if modelNS > 0 && tBefore > 20*modelNS {
		pr.Notes = append(pr.Notes, fmt.Sprintf("the rate given leaves %.0f ns per packet, %.0f times what the model's run spends (%.0f ns): at that rate the CPU mostly waited, or the rate is not the one measured with this listing — a listing of a busy CPU at a low rate is no packet's cost", tBefore, tBefore/modelNS, modelNS))
	}
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
	ownSeen := map[string]bool{}
	var gone, added, stopped []string
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
		case b[g] > 0 && a[g] > 2*b[g] && b[g] < m/2:
			// The model's cost here is a small part of what the listing
			// measured and grows many times over: a ratio would multiply
			// the listing's whole share by it (mlx5 6.1's slow path, 0.3
			// ns in the model beside 6 ns measured, ×22 into 6.16, whose
			// pool refills without the driver's RX cache). The model's
			// difference is carried over instead.
			after[g] = m + a[g] - b[g]
			added = append(added, fmt.Sprintf("%s (%.0f ns measured; the model %.1f → %.1f ns: +%.1f ns, not ×%.1f)", g, m, b[g], a[g], a[g]-b[g], a[g]/b[g]))
		case b[g] > 0:
			after[g] = m * a[g] / b[g]
			if a[g] == 0 {
				stopped = append(stopped, g)
			}
		case len(aliases[g]) == 0 && driverOwn(spec.Name, l) && goneIn(g, eb, ea):
			// the driver's function is gone in the after era (mlx5's RX
			// page cache, mlx5e_page_release_dynamic, removed in 6.4): its
			// work is what replaces it, which the model runs
			after[g] = 0
			gone = append(gone, g)
			ownSeen[named[ownSym(g)]] = true
		case len(aliases[g]) == 0 && driverOwn(spec.Name, l) && b[named[ownSym(g)]] > 0:
			// the driver's own code the model charges as its RX, transmit
			// or TX-completion function (mlx5e_rx_cache_get in
			// mlx5e_poll_rx_cq's cost): it changes as that does
			k := named[ownSym(g)]
			after[g] = m * a[k] / b[k]
			ownSeen[k] = true
		default: // unknown to the model (or not in this workload): as measured
			after[g] = m
		}
	}
	if strings.HasPrefix(in.Change, "era:") {
		// The profile after keeps the listing's names (its rows are the
		// listed symbols); a name the later kernel no longer has is
		// translated in a note.
		var ren []string
		for _, l := range prof.Lines {
			g := l.Symbol
			if slices.Contains(ren, g) || !goneIn(g, eb, ea) {
				continue
			}
			best, bestNS := "", 0.0
			for sy, c := range ac {
				if named[sy] == g && c.profile != g && c.ns > bestNS {
					best, bestNS = c.profile, c.ns
				}
			}
			if best != "" {
				ren = append(ren, g+" is "+best)
			}
		}
		if len(ren) > 0 {
			pr.Notes = append(pr.Notes, fmt.Sprintf("the profile after keeps the listing's names; in era %s %s", ea, strings.Join(ren, ", ")))
		}
	}
	if len(stopped) > 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("%s: the model's run after the change does not call %s, so the listed time goes to 0 — where the kernel would still run it, the gain is overstated", strings.Join(stopped, ", "), map[bool]string{true: "it", false: "them"}[len(stopped) == 1]))
	}
	if len(added) > 0 {
		pr.Notes = append(pr.Notes, "where the model's cost is a small part of a listed symbol's and grows many times over, its difference is added, not its ratio: "+strings.Join(added, "; "))
	}
	if len(gone) > 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("%s: the driver's own code that era %s no longer has (idents.tsv), at 0 after the change; the model runs what replaces it", strings.Join(gone, ", "), ea))
	}
	for k := range ownSeen {
		// the listing shows that driver work under its own names, not the
		// model's: the model's function is not also unlisted work
		seen[k] = true
	}
	rest := busy - listed
	// the model's functions the listing does not show: out of the remainder
	// before the change, in at their modelled cost after it
	// A function perf did not list cost less than the listing's smallest
	// share (its cut-off): a model function above it is taken at the
	// cut-off before the change, and changes by its own ratio after (a
	// move of era made eth_type_trans 5.7 % of a listing whose cut-off was
	// 0.31 %).
	cutoff := math.Inf(1)
	for _, l := range prof.Lines {
		cutoff = math.Min(cutoff, l.Pct)
	}
	capNS := cutoff / 100 * tBefore
	if !strings.HasPrefix(in.Change, "era:") {
		// The four changes are fitted with the model's unlisted costs as
		// they are (the measured pairs of TestPredict_TrainingPairs); the
		// cut-off bounds a move of era, whose after run is another
		// kernel's.
		capNS = math.Inf(1)
	}
	factor := map[string]float64{} // per before-name: the cap over the model's cost
	var unlistedB float64
	var capped []string
	for _, g := range slices.Sorted(maps.Keys(b)) {
		if v := b[g]; !seen[g] && g != sim.RestProfile {
			f := 1.0
			if v > capNS && capNS > 0 {
				f = capNS / v
				capped = append(capped, g)
			}
			factor[g] = f
			unlistedB += v * f
		}
	}
	if len(capped) > 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("the model's %s cost more than the listing's smallest share (%.2f%%, %.1f ns) although perf did not list them: each is taken at that cut-off before the change and changes by the model's ratio after", firstOf(capped, 4), cutoff, capNS))
	}
	// When they cost more than the remainder has, the remainder is theirs
	// and they keep the model's ratio: taken out at the remainder, put back
	// at the remainder times their after/before cost (were they added at
	// the model's absolute cost, a model slower than the listed machine
	// would turn any change into a slowdown).
	scale := 1.0
	if unlistedB > rest && unlistedB > 0 {
		scale = math.Max(rest, 0) / unlistedB
		pr.Notes = append(pr.Notes, fmt.Sprintf("the model's functions the listing does not show (%.0f ns per packet) exceed its unlisted remainder (%.0f ns): the remainder is taken as theirs, and it changes as they do in the model", unlistedB, math.Max(rest, 0)))
	}
	// each unlisted function after the change: the after run's cost, times
	// its before name's cut-off factor (a function new in the after run
	// keeps the model's cost), times the remainder's scale; in Sym order,
	// so that the float sums do not follow a map's order
	for sy := sim.Sym(1); sy < sim.NumSyms; sy++ {
		c, ok := ac[sy]
		if !ok || c.ns == 0 {
			continue
		}
		g := c.profile
		if n, claimed := named[sy]; claimed && seen[n] {
			continue
		}
		if seen[g] || g == sim.RestProfile {
			continue
		}
		f := 1.0
		if _, inB := bc[sy]; inB {
			if x, ok := factor[named[sy]]; ok {
				f = x
			}
		}
		after[g] += c.ns * f * scale
	}
	if n := unlistedGainNote(seen, bc, ac, named, scale, tBefore); n != "" {
		pr.Notes = append(pr.Notes, n)
	}
	if in.Change == "bulk" {
		if n := bulkAllocatorNote(plat, seen, b, a); n != "" {
			pr.Notes = append(pr.Notes, n)
		}
	}
	rest -= unlistedB * scale
	if rest < 0 {
		rest = 0
	}
	after[sim.RestProfile] = rest
	var tAfter float64                                  // per packet after the change, idle included
	for _, g := range slices.Sorted(maps.Keys(after)) { // in one order: a float sum's last bit must not follow the map's
		tAfter += after[g]
	}
	pr.Speedup = tBefore / tAfter
	if pr.Speedup < 1 {
		// Where the predicted packet spends more: each listed symbol's
		// predicted time against its measured time, the model's functions
		// the listing does not show, and the rest.
		before := map[string]float64{sim.RestProfile: after[sim.RestProfile]} // the rest stays as it was
		for g := range seen {
			if !idleSymbols[g] {
				before[g] = prof.Share(g) / 100 * tBefore
			}
		}
		type d struct {
			name string
			ns   float64
		}
		var ds []d
		var unl float64
		for g, v := range after {
			if idleSymbols[g] {
				continue
			}
			if _, ok := before[g]; ok {
				if v-before[g] > 0.05 {
					ds = append(ds, d{g, v - before[g]})
				}
			} else {
				unl += v
			}
		}
		if x := unl - unlistedB*scale; x > 0.05 {
			ds = append(ds, d{"the model's functions the listing does not show", x})
		}
		sort.Slice(ds, func(i, j int) bool {
			if ds[i].ns != ds[j].ns {
				return ds[i].ns > ds[j].ns
			}
			return ds[i].name < ds[j].name
		})
		var parts []string
		for _, x := range ds[:min(len(ds), 4)] {
			parts = append(parts, fmt.Sprintf("%s (+%.1f ns)", x.name, x.ns))
		}
		if len(parts) == 0 {
			parts = append(parts, "no one symbol by more than 0.05 ns: the small increases of many")
		}
		what := "the change removes work, yet the predicted packet spends more in: "
		if strings.HasPrefix(in.Change, "era:") {
			what = fmt.Sprintf("after the move to era %s the predicted packet spends more in: ", ea)
		}
		pr.Notes = append(pr.Notes, what+strings.Join(parts, ", ")+fmt.Sprintf(" — per packet, against its %.0f ns measured", tBefore))
	}
	if idleNS > 0 {
		// The CPU idled: it was not the only limit. The idle time per packet
		// is kept — the CPU waits for the same interrupts and the same
		// sender per packet — and only the busy part shrinks; perf would
		// show the idle symbols at their measured time per packet.
		pr.Notes = append(pr.Notes, fmt.Sprintf("the listing shows %.2f%% idle (%s): the CPU was not the only limit. Assumed: the idle time per packet stays as measured (%.0f ns: the same interrupts and the same sender per packet), only the busy part shrinks; were the idle time spare CPU, the busy part alone would give ×%.3f",
			100*idleNS/tBefore, strings.Join(idleListed(prof), ", "), idleNS, busy/(tAfter-idleNS)))
	}
	pr.Predicted = lab.Rate{Value: roundRate(in.Rate * pr.Speedup), Unit: in.Unit}
	// The link caps at the listing's frames; when it does not say them, a
	// packet rate at the smallest frame (the most packets the link
	// carries) and a throughput at the frames the model ran (a throughput
	// at the smallest frames would be the least).
	capFrame := frame
	if in.Profile.Frame() == 0 && in.Unit != "mbps" {
		capFrame = minFrame(wl)
	}
	if link := linkRate(plat, wl, in.Unit, capFrame); link > 0 && pr.Predicted.Value > link {
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

// byListedName sums both runs' functions per profile name, each function
// under the listed symbol that is one of its names in some era (the first
// such in listing order), else under its name in the before run's era.
//
// named is the name each function was summed under.
func byListedName(prof *Profile, aliases map[string][]sim.Sym, bc, ac callers) (b, a map[string]float64, named map[sim.Sym]string) {
	claim := map[sim.Sym]string{}
	for _, l := range prof.Lines {
		for _, s := range aliases[l.Symbol] {
			if _, ok := claim[s]; !ok {
				claim[s] = l.Symbol
			}
		}
	}
	// A function the before run names as a listed symbol keeps that one.
	for s, c := range bc {
		if prof.Share(c.profile) > 0 {
			claim[s] = c.profile
		}
	}
	// A function a run's profile folds into a claimed function's own name
	// (skb_mark_for_recycle's store in build_skb's time) goes where that
	// function went: build_skb's time listed as napi_build_skb is not also
	// an unlisted build_skb.
	byName := map[string]string{}
	for s, n := range claim {
		byName[s.Name()] = n
	}
	for _, run := range []callers{bc, ac} {
		for s, c := range run {
			if _, ok := claim[s]; !ok {
				if n, ok := byName[c.profile]; ok {
					claim[s] = n
				}
			}
		}
	}
	name := func(s sim.Sym) string {
		if n, ok := claim[s]; ok {
			return n
		}
		if c, ok := bc[s]; ok {
			return c.profile
		}
		return ac[s].profile
	}
	// A function no listed symbol claims is summed under its name in each
	// run's era: the profile after a move of era shows that era's names
	// (page_pool_put_unrefed_netmem in 7.3, not 6.1's
	// page_pool_put_defragged_page beside it).
	nameAfter := func(s sim.Sym) string {
		if n, ok := claim[s]; ok {
			return n
		}
		return ac[s].profile
	}
	b, a, named = map[string]float64{}, map[string]float64{}, map[sim.Sym]string{}
	for s, c := range bc {
		b[name(s)] += c.ns
		named[s] = name(s)
	}
	for s, c := range ac {
		a[nameAfter(s)] += c.ns
		if _, ok := named[s]; !ok {
			named[s] = nameAfter(s)
		}
	}
	return b, a, named
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
		sort.Slice(parts, func(i, j int) bool {
			if b[parts[i]].ns != b[parts[j]].ns {
				return b[parts[i]].ns > b[parts[j]].ns
			}
			return parts[i] < parts[j] // a tie in a fixed order: the JSON is the same on every run
		})
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
//
// A packet rate is checked at the frame the listing's header states ("test:
// forward 64B") or, when it states none, at the smallest Ethernet frame:
// the model's workload frame is a default, not a fact about the listing,
// and a 64-byte forwarding test at 800 kpps on a 1 Gbit/s link is real.
//
// It returns the frame the model runs: the stated one, else the
// workload's, or the smallest where the workload's cannot reach the rate.
func checkRate(p *Profile, plat, wl string, v float64, unit string) ([]string, int, error) {
	var notes []string
	frame, stated := p.Frame(), true
	if frame == 0 {
		frame, stated = workload.DefaultFrame(wl), false
	}
	if link := linkRate(plat, wl, unit, frame); link > 0 && v > link*1.0001 {
		if stated {
			return nil, 0, fmt.Errorf("--rate %g %s: more than platform %s's link carries with the listing's %d-byte frames (%.1f %s)", v, unit, plat, frame, link, unit)
		}
		// The same number in the header in another unit: a unit slipped
		// (732 kpps typed for the 732 Mbit/s the header measured).
		for _, r := range p.Rates {
			if r.Value == v && r.Unit != unit {
				return nil, 0, fmt.Errorf("--rate %g %s: more than platform %s's link carries with the %s workload's %d-byte frames (%.1f %s), and the listing's header measured %g %s: did you mean %s?", v, unit, plat, wl, frame, link, unit, r.Value, r.Unit, r.Unit)
			}
		}
		if unit == "mbps" {
			return nil, 0, fmt.Errorf("--rate %g %s: more than platform %s's link carries (%.1f %s)", v, unit, plat, link, unit)
		}
		smallest := minFrame(wl)
		small := linkRate(plat, wl, unit, smallest)
		if v > small*1.0001 {
			return nil, 0, fmt.Errorf("--rate %g %s: more than platform %s's link carries even with %d-byte frames (%.1f %s)", v, unit, plat, smallest, small, unit)
		}
		pl, _ := sim.PlatformByName(plat)
		most := int(float64(pl.LinkMbps)*1e6/(v*unitPPS(unit)*8)) - 24
		notes = append(notes, fmt.Sprintf("%g %s needs frames of at most %d bytes on platform %s's link (the %s workload's are %d): the model runs %d-byte frames, the smallest; a header such as \"test: forward 64B\" states the listing's", v, unit, most, plat, wl, frame, smallest))
		frame = smallest
	}
	ns, err := rateNS(v, unit, payloadBytes(wl, ""))
	if err != nil {
		return nil, 0, fmt.Errorf("--rate: %w", err)
	}
	if ns > 1e9 {
		return nil, 0, fmt.Errorf("--rate %g %s: under one packet per second; a perf top listing of a receive path describes a busy CPU", v, unit)
	}
	if len(p.Rates) > 0 {
		same := false
		for _, r := range p.Rates {
			if r.Unit == unit {
				same = true
				if r.Value == v {
					return notes, frame, nil
				}
			}
		}
		if !same {
			notes = append(notes, fmt.Sprintf("the profile's header states its rate in %s; the rate given is in %s", p.Rates[0].Unit, unit))
		} else {
			var stated []string
			for _, r := range p.Rates {
				stated = append(stated, strconv.FormatFloat(r.Value, 'g', -1, 64)+" "+r.Unit)
			}
			notes = append(notes, fmt.Sprintf("the profile's header measured %s; the rate given is %g %s: the prediction scales the listing by the rate given", strings.Join(stated, ", "), v, unit))
		}
	}
	return notes, frame, nil
}

// predictTarget picks the driver model and platform: the header's, else
// the driver whose own symbols the listing shows (its platform), else the
// platform given (then the first driver on it). The message asking for a
// platform names no flag: the page shows it too.
func predictTarget(prof *Profile, platform string) (*drivers.Spec, string, []string, error) {
	var notes []string
	if prof.Platform != "" {
		if _, err := sim.PlatformByName(prof.Platform); err != nil {
			return nil, "", nil, fmt.Errorf("the listing's header names platform %q, which the model does not have: %w", prof.Platform, err)
		}
		if platform == "" {
			platform = prof.Platform
		}
	}
	var spec *drivers.Spec
	name, evidence, note := listingDriver(prof)
	switch {
	case prof.Driver != "":
		s, err := drivers.SpecByName(prof.Driver)
		if err != nil {
			return nil, "", nil, fmt.Errorf("the listing's header names driver %q, which the model does not have: %w", prof.Driver, err)
		}
		spec = s
		if name != "" && name != s.Name {
			// A box with two NICs shows both drivers: the header picks
			// one. A header whose driver has no function in the listing
			// while another driver's fill it is wrong, or about another
			// listing: predicting for it would scale the wrong driver.
			if !slices.ContainsFunc(prof.Lines, func(l ProfileLine) bool { return driverOwn(s.Name, l) }) {
				return nil, "", nil, fmt.Errorf("the listing's header names driver %s, but its driver functions are %s's (%s) and none is %s's: correct the header's driver line or remove it (the driver is read from the functions)", s.Name, name, strings.Join(evidence, ", "), s.Name)
			}
			notes = append(notes, fmt.Sprintf("the header names driver %s; the listing also shows %s's functions (%s): predicted for the header's", s.Name, name, strings.Join(evidence, ", ")))
		}
	case name != "":
		spec, _ = drivers.SpecByName(name)
		notes = append(notes, fmt.Sprintf("driver %s, from its functions in the listing (%s)", name, strings.Join(evidence, ", ")))
		if note != "" {
			notes = append(notes, note)
		}
	}
	if platform == "" && spec != nil {
		platform = spec.Platform
	}
	if platform == "" {
		var names []string
		for _, d := range driverPrefixes {
			names = append(names, d.prefixes[0]+"…")
		}
		return nil, "", nil, fmt.Errorf("the listing shows no driver's functions (%s) and no header names one: say which platform it was measured on (one of: %s)", strings.Join(names, ", "), strings.Join(sim.PlatformNames()[1:], ", "))
	}
	if _, err := sim.PlatformByName(platform); err != nil {
		return nil, "", nil, fmt.Errorf("platform: %w", err)
	}
	if spec == nil {
		for _, s := range drivers.Specs {
			if s.Platform == platform {
				spec = s
				break
			}
		}
		if spec == nil {
			return nil, "", nil, fmt.Errorf("platform %s: no driver model runs on it, and the listing names no driver", platform)
		}
		notes = append(notes, fmt.Sprintf("the listing names no driver: %s, the model's driver on %s", spec.Name, platform))
	} else if spec.Platform != platform {
		notes = append(notes, fmt.Sprintf("driver %s on platform %s (the model's %s runs on %s)", spec.Name, platform, spec.Name, spec.Platform))
	}
	return spec, platform, notes, nil
}

// workloadOf maps a profile's test line to a workload.
// (false: the words name none of the workloads a listing is predicted
// with).
func workloadOf(test string) (string, bool) {
	t := strings.ToLower(test)
	switch {
	case strings.Contains(t, "forward") || strings.Contains(t, "nat"):
		return workload.WForward, true
	case strings.Contains(t, "xdp"):
		return workload.WXDPRedirect, true
	case strings.Contains(t, "tcp"):
		return workload.WTCPStream, true
	case strings.Contains(t, "drop"):
		return workload.WDrop, true
	}
	return workload.WDrop, false
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
// leads to. A listing whose names narrow its kernel to a range of eras
// (listingEras) is predicted from that range: a change the range's
// kernels already have for this driver is refused as applied, and one
// that does not apply to the driver (NAPI-local recycling for a pool
// without pp.napi) with the reason. A listing whose names do not say is
// read by what it shows, as the shipped listings are: recycling
// symbols, the page allocator's, the header's words.
func predictEras(p *Profile, spec *drivers.Spec, change string) (eb, ea string, setB, setA sim.KnobOverrides, notes []string, err error) {
	var none sim.KnobOverrides
	recycling := false
	for _, s := range recyclingSymbols {
		if p.Share(s) > 0 {
			recycling = true
		}
	}
	if on, said := saysRecycling(p.Recycling); said {
		recycling = on
	}
	// A listing that does not show the page allocator's get_page_from_freelist
	// allocates in bulk — unless its pages recycle, when the allocator is simply
	// not hot: then only __alloc_pages_bulk (or the header) says bulk.
	bulk := p.Share("__alloc_pages_bulk") > 0 || p.Share("alloc_pages_bulk_noprof") > 0
	bulkSaid := false
	for _, h := range []string{p.Bulk, p.Recycling} {
		if yes, said := saysBulk(h); said {
			bulk, bulkSaid = yes, true
			break
		}
	}
	if !recycling && !bulkSaid {
		bulk = bulk || p.Share("get_page_from_freelist") == 0
	}
	r := listingEras(p)
	if p.Kernel != "" {
		// The header's kernel narrows the names' range to its era; a
		// kernel the names contradict is a distribution's with backported
		// code (RHEL 9's 5.14 has napi_pp_put_page): its names say what it
		// runs.
		e, note, kerr := kernelEra(p.Kernel)
		if kerr != nil {
			return "", "", none, none, nil, fmt.Errorf("kernel %q in the listing's header: %w", p.Kernel, kerr)
		}
		if note != "" {
			notes = append(notes, note)
		}
		r.headerKernel = p.Kernel
		if r.narrowed() && !slices.Contains(r.eras, e) {
			notes = append(notes, fmt.Sprintf("the header says kernel %s (era %s), but the listing's names are of %s: a kernel with backported code runs what its names show, so predicted from the names", p.Kernel, e.Name, r))
		} else {
			r.eras, r.branch = []*sim.Era{e}, nil
			r.by = append(r.by, fmt.Sprintf("the header's kernel %s", p.Kernel))
		}
	}
	if r.narrowed() {
		if len(r.conflict) > 0 {
			notes = append(notes, fmt.Sprintf("names of other releases in the listing, left out of its era: %s", strings.Join(r.conflict, ", ")))
		}
		// What the listing shows of the kernel narrows the names' range:
		// skbs recycled or not (a driver marks them from its era), the
		// allocator in bulk or one page per call.
		// (page_pool_release_page hot: the driver releases each page from
		// the pool as it builds the skb, the kernels before recycling)
		recyclingSaid := recycling || p.Share("page_pool_release_page") > 0
		if _, said := saysRecycling(p.Recycling); said {
			recyclingSaid = true
		}
		word := map[bool]string{true: "skb recycling", false: "no skb recycling"}[recycling]
		if n := r.evidence(word, recyclingSaid || recycling, func(e *sim.Era) bool { return spec.Marks(e) == recycling }); n != "" {
			notes = append(notes, n)
		}
		// The first RFC returned an skb's page through __xdp_return; the
		// merged series (5.14) through page_pool_return_skb_page: on a
		// path without XDP, __xdp_return beside the recycling says which.
		if recycling {
			xdp := p.Share("__xdp_return") > 0 && !strings.HasPrefix(listingWorkloadName(p), "xdp")
			word := map[bool]string{true: "skb pages returned through __xdp_return (the first RFC)", false: "skb pages returned without __xdp_return (the merged series)"}[xdp]
			if n := r.evidence(word, true, func(e *sim.Era) bool { return (e.SkbRecycle == sim.SkbRecycleRFC) == xdp }); n != "" {
				notes = append(notes, n)
			}
		}
		bulkKnown := bulkSaid || p.Share("__alloc_pages_bulk") > 0 || p.Share("alloc_pages_bulk_noprof") > 0 || (!recycling && p.Share("get_page_from_freelist") > 0)
		word = map[bool]string{true: "bulk refill", false: "one page per slow-path call (get_page_from_freelist, no __alloc_pages_bulk)"}[bulk]
		if bulkSaid {
			word = map[bool]string{true: "bulk refill (its header)", false: "one page per slow-path call (its header)"}[bulk]
		}
		if n := r.evidence(word, bulkKnown, func(e *sim.Era) bool { return e.BulkAlloc == bulk }); n != "" {
			notes = append(notes, n)
		}
		if change == "bulk" && bulkKnown && bulk {
			return "", "", none, none, nil, fmt.Errorf("bulk is already applied: the listing already shows bulk allocation (__alloc_pages_bulk, or its header says bulk refill on)")
		}
		return rangeEras(r, spec, change, recycling, bulkSaid && !bulk, recyclingShown(p), notes)
	}
	// The eras a prediction runs in, each the first era with what it
	// brings: the 5.12 allocator without skb recycling, bulk refill (5.13),
	// the RFC's recycling (rfc-v1), recycling as merged (5.14), the same
	// in the driver's first era (5.15 for hns3's frag API), NAPI-direct
	// recycling (6.4).
	if t, ok := strings.CutPrefix(change, "era:"); ok {
		return "", "", none, none, nil, fmt.Errorf("era:%s: the listing's names do not say its kernel, so there is no era to move from; a header line such as \"# kernel: 6.1\" says it", t)
	}
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
			return "", "", none, none, nil, fmt.Errorf("skb-recycle is already applied: the listing's pages go back to their pool (it shows %s, or its header says recycling on)", recyclingShown(p))
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
			return "", "", none, none, nil, fmt.Errorf("bulk is already applied: the listing shows bulk allocation (__alloc_pages_bulk, no get_page_from_freelist, or its header says so)")
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
	if change == "pp-napi" {
		if spec.PPNapiFrom != "" {
			return "", "", none, none, nil, ppNapiAlready(spec)
		}
		notes = append(notes, fmt.Sprintf("the listing's names do not say its kernel: predicted in %s, the first whose page_pool_params has napi, with pp_napi=0 and then pp_napi=1", direct.Name))
		return direct.Name, direct.Name, none.With(sim.KnobPPNapi, 0), none.With(sim.KnobPPNapi, 1), notes, nil
	}
	if !recycling {
		return "", "", none, none, nil, fmt.Errorf("napi-direct needs a listing with skb recycling on (page_pool_put_page, page_pool_return_skb_page or napi_pp_put_page listed, or a header that says recycling on)")
	}
	if spec.PPNapiFrom == "" {
		return "", "", none, none, nil, noPPNapi(spec)
	}
	return mergedDrv.Name, direct.Name, none, none, nil, nil
}

// recyclingShown names the listed symbols that put pages back into their
// pool (recyclingSymbols), or says none is.
func recyclingShown(p *Profile) string {
	var out []string
	for _, s := range recyclingSymbols {
		if p.Share(s) > 0 {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "none of " + strings.Join(recyclingSymbols, ", ")
	}
	return strings.Join(out, ", ")
}

// listingWorkloadName is the workload the listing's stack shows.
func listingWorkloadName(p *Profile) string {
	wl, _ := listingWorkload(p)
	return wl
}

// noPPNapi is the refusal of napi-direct for a driver whose pool never
// sets pp.napi.
func noPPNapi(spec *drivers.Spec) error {
	return fmt.Errorf("napi-direct does not apply to %s: its driver never sets page_pool_params.napi, so no era recycles its skbs' pages NAPI-locally (they go through the ptr_ring); the change that would is the driver giving its pool a NAPI: pp-napi", spec.Name)
}

// ppNapiAlready refuses pp-napi for a driver that sets pp.napi itself.
func ppNapiAlready(spec *drivers.Spec) error {
	return fmt.Errorf("pp-napi is already applied: %s's driver sets page_pool_params.napi itself from %s (napi-direct is the change that brings the kernel's NAPI-local recycling to an older listing)", spec.Name, spec.PPNapiFrom)
}

// rangeEras is predictEras for a listing whose names narrow its kernel to
// r: the before era is the range's newest era (the newest kernel with
// those names; a change that a later era of the range brings is named),
// and the change's era the first that brings it.
//
// bulkOff: the listing's header says its allocator takes one page per call
// ("bulk refill: off"), whatever its kernel does: the change is then
// predicted in the names' kernel with the model's bulk_refill knob.
func rangeEras(r eraRange, spec *drivers.Spec, change string, recycling, bulkOff bool, recShown string, notes []string) (eb, ea string, setB, setA sim.KnobOverrides, _ []string, err error) {
	var none sim.KnobOverrides
	first, last := r.eras[0], r.eras[len(r.eras)-1]
	notes = append(notes, fmt.Sprintf("the listing's kernel: %s", r))
	if spec.MinEra() > last.Order {
		return "", "", none, none, nil, fmt.Errorf("the listing's names are of kernels %s, before the model's %s driver exists", span(r.eras), spec.Name)
	}
	// has: whether every era of the range has it; some: whether one does.
	has := func(f func(*sim.Era) bool) (all, some bool) {
		all = true
		for _, e := range r.eras {
			if f(e) {
				some = true
			} else {
				all = false
			}
		}
		return all, some
	}
	// before: the newest era of the range without f (the listing's
	// kernel before the change); then the first era with f after it.
	before := func(f func(*sim.Era) bool) (*sim.Era, *sim.Era) {
		var b *sim.Era
		for _, e := range r.eras {
			if !f(e) && e.Order >= spec.MinEra() {
				b = e
			}
		}
		if b == nil {
			return nil, nil
		}
		// the first era after b with f: on the mainline, or a branch off
		// b (rfc-v1, the RFC's recycling over 5.12, which the first
		// series measured)
		return b, sim.FirstEra(func(e *sim.Era) bool {
			return e.Order > b.Order && (e.Branch == "" || e.Branch == b.Name) && f(e) && e.Order >= spec.MinEra()
		})
	}
	ambiguous := func(name string, from *sim.Era, b *sim.Era) {
		notes = append(notes, fmt.Sprintf("the listing's names fit kernels with and without %s (%s has it): predicted from %s; on %s or later the change is already in the kernel", name, from.Name, b.Name, from.Name))
	}
	if t, ok := strings.CutPrefix(change, "era:"); ok {
		return eraMove(r, spec, t, notes)
	}
	var f func(*sim.Era) bool
	switch change {
	case "bulk":
		f = func(e *sim.Era) bool { return e.BulkAlloc }
		allB := true
		for _, e := range r.branch {
			allB = allB && f(e)
		}
		if all, _ := has(f); all && allB && !bulkOff {
			return "", "", none, none, nil, fmt.Errorf("bulk is already applied: the listing shows bulk allocation, or its kernel (%s) refills the pool with alloc_pages_bulk, as every release from 5.13 does", r)
		}
	case "skb-recycle":
		f = func(e *sim.Era) bool { return spec.Marks(e) }
		if recycling {
			return "", "", none, none, nil, fmt.Errorf("skb-recycle is already applied: the listing's pages go back to their pool (it shows %s, or its header says recycling on)", recShown)
		}
		if all, _ := has(f); all {
			return "", "", none, none, nil, fmt.Errorf("skb-recycle is already applied: %s marks its skbs for recycling in every kernel the listing's names fit (%s)", spec.Name, r)
		}
	case "pp-napi":
		// The driver gives its pool a NAPI: the same kernel, pp.napi set.
		if spec.PPNapiFrom != "" {
			if all, _ := has(func(e *sim.Era) bool { return spec.LinksNAPI(e) }); all {
				return "", "", none, none, nil, ppNapiAlready(spec)
			}
		}
		var b *sim.Era
		for _, e := range r.eras {
			if e.NAPIDirect && !spec.LinksNAPI(e) && spec.Marks(e) {
				b = e
			}
		}
		if b == nil {
			return "", "", none, none, nil, fmt.Errorf("pp-napi: the listing's kernel (%s) has no napi in page_pool_params (v6.4 on): the change era:%s moves it to a kernel that has", r, sim.FirstEra(func(e *sim.Era) bool { return e.NAPIDirect }).Name)
		}
		if b != last {
			notes = append(notes, fmt.Sprintf("predicted in %s, the newest of the range where the driver does not set pp.napi itself", b.Name))
		}
		notes = append(notes, fmt.Sprintf("the driver gives its pool a NAPI in the listing's kernel: era %s with pp_napi=0, then pp_napi=1; the pool must then be used only from that NAPI (pp_params.napi's contract: \"only if locking is tied to NAPI\")", b.Name))
		return b.Name, b.Name, none.With(sim.KnobPPNapi, 0), none.With(sim.KnobPPNapi, 1), notes, nil
	default: // napi-direct
		if spec.PPNapiFrom == "" {
			return "", "", none, none, nil, noPPNapi(spec)
		}
		f = func(e *sim.Era) bool { return e.NAPIDirect && spec.LinksNAPI(e) && spec.Marks(e) }
		if all, _ := has(f); all {
			return "", "", none, none, nil, fmt.Errorf("napi-direct is already applied: in the listing's kernel (%s) %s's pool sets pp.napi and its skb pages recycle NAPI-locally into the alloc cache (v6.4 on)", r, spec.Name)
		}
	}
	if change == "bulk" {
		// Bulk refill is a knob in every era: the listing's newest era
		// without it, one page per call before and bulk after.
		// The mainline era the names fit; a branch (rfc-v1) only when no
		// mainline one does — it is a series over 5.12, not a later kernel.
		var b *sim.Era
		for _, es := range [][]*sim.Era{r.eras, r.branch} {
			for _, e := range es {
				if (!e.BulkAlloc || bulkOff) && e.Order >= spec.MinEra() && (b == nil || e.Order > b.Order) {
					b = e
				}
			}
			if b != nil {
				break
			}
		}
		if bulkOff && b != nil && b.BulkAlloc {
			notes = append(notes, fmt.Sprintf("the header says the allocator takes one page per call, which the kernel the names fit (%s) never does: predicted there with the model's bulk_refill=0 before the change", b.Name))
		}
		if b != nil {
			var with []string
			for _, e := range append(append([]*sim.Era(nil), r.eras...), r.branch...) {
				if e.BulkAlloc {
					with = append(with, e.Name)
				}
			}
			if len(with) > 0 && !bulkOff {
				notes = append(notes, fmt.Sprintf("the listing's names and what it shows also fit kernels that refill in bulk already (%s): on those the change is in the kernel", span(r.eras)))
			}
		}
		if b == nil {
			return "", "", none, none, nil, fmt.Errorf("bulk: the listing's kernel (%s) is before the model's %s driver", r, spec.Name)
		}
		notes = append(notes, fmt.Sprintf("bulk refill in the listing's kernel: era %s with bulk_refill=0, then bulk_refill=1", b.Name))
		return b.Name, b.Name, none.With(sim.KnobBulkRefill, 0), none.With(sim.KnobBulkRefill, 1), notes, nil
	}
	b, a := before(f)
	if b == nil || a == nil {
		return "", "", none, none, nil, fmt.Errorf("%s: no era of the model leads from the listing's kernel (%s) to the change for %s", change, r, spec.Name)
	}
	if spec.HasRxCache(b) != spec.HasRxCache(a) {
		// The change comes to this driver with a rework of its RX path
		// (mlx5 6.4: its own page cache gone, pages mapped by the pool,
		// skbs marked, pp.napi): not a change of its own.
		return "", "", none, none, nil, fmt.Errorf("%s does not come to %s on its own: in %s the driver's RX path was reworked with it (its own RX page cache removed, the pool mapping its pages, skbs marked, pp.napi), so the listing's kernel (%s) moves to %s with every part of that: a move of era, not this change (the change era:%s predicts it)", change, spec.Name, a.Name, r, a.Name, a.Name)
	}
	if !b.BulkAlloc && a.BulkAlloc {
		// the listing's allocator is one page per call: keep it so
		setA = none.With(sim.KnobBulkRefill, 0)
		notes = append(notes, fmt.Sprintf("the listing's allocator takes one page per slow-path call: %s with bulk_refill=0", a.Name))
	}
	if _, some := has(f); some {
		ambiguous(change, a, b)
	}
	if b != last && b != first {
		notes = append(notes, fmt.Sprintf("predicted from %s, the newest of the range without the change", b.Name))
	}
	return b.Name, a.Name, none, setA, notes, nil
}

// eraMove is the change "era:T": the listing's kernel (the newest era of
// its range) moved to era T, each run with its era's defaults — every
// change between the two is in it, a slowdown included where a later
// kernel does more per packet.
func eraMove(r eraRange, spec *drivers.Spec, target string, notes []string) (eb, ea string, setB, setA sim.KnobOverrides, _ []string, err error) {
	var none sim.KnobOverrides
	t, err := sim.EraByName(target)
	if err != nil {
		return "", "", none, none, nil, fmt.Errorf("change era:%s: %w", target, err)
	}
	if t.Branch != "" {
		return "", "", none, none, nil, fmt.Errorf("era:%s is a branch off %s (a series that was not merged as such), not a kernel to move to", t.Name, t.Branch)
	}
	b := r.eras[len(r.eras)-1]
	if t.Order <= b.Order {
		if len(r.eras) == 1 && t == b {
			return "", "", none, none, nil, fmt.Errorf("era:%s is the listing's kernel already (%s): a move goes to a later era", t.Name, r)
		}
		if t.Order >= r.eras[0].Order {
			hint := fmt.Sprintf(" unless a header line such as \"# kernel: %s\" says which it is", r.eras[0].Name)
			if r.headerKernel != "" {
				hint = fmt.Sprintf(" (the header's kernel %s is not among them)", r.headerKernel)
			}
			return "", "", none, none, nil, fmt.Errorf("era:%s: the listing's names fit kernels %s, so it may run %s already; a move starts from the newest they fit (%s)%s", t.Name, span(r.eras), t.Name, b.Name, hint)
		}
		return "", "", none, none, nil, fmt.Errorf("era:%s is before the listing's kernel (%s): a move goes to a later era", t.Name, r)
	}
	if len(r.eras) > 1 && r.headerKernel == "" {
		notes = append(notes, fmt.Sprintf("moved from %s, the newest kernel the listing's names fit (%s); a header line such as \"# kernel: %s\" moves from another", b.Name, span(r.eras), r.eras[0].Name))
	} else if len(r.eras) > 1 {
		notes = append(notes, fmt.Sprintf("moved from %s, the newest kernel the listing's names fit (%s)", b.Name, span(r.eras)))
	}
	notes = append(notes, fmt.Sprintf("the move runs %s in era %s and then in era %s, each with its own defaults: every change between them is in it", spec.Name, b.Name, t.Name))
	return b.Name, t.Name, none, none, notes, nil
}

// goneIn reports whether the table defines ident out of line in era eb
// and not in era ea.
func goneIn(ident, eb, ea string) bool {
	main, _ := identEras(ident)
	in := func(name string) bool {
		return slices.ContainsFunc(main, func(e *sim.Era) bool { return e.Name == name })
	}
	return in(eb) && !in(ea)
}

// ownSym is the driver function the model charges a driver's own listed
// symbol as: its transmit function for an xmit, its TX completion for
// another tx, else its RX.
func ownSym(symbol string) sim.Sym {
	switch {
	case strings.Contains(symbol, "xmit"):
		return sim.SymDrvXmit
	case strings.Contains(symbol, "_tx"), strings.Contains(symbol, "tx_"):
		return sim.SymDrvTxClean
	}
	return sim.SymDrvRx
}

// EraChanges are the era moves a prediction takes besides Changes:
// "era:" and a mainline era.
func EraChanges() []string {
	var out []string
	for i := range sim.Eras {
		if e := &sim.Eras[i]; e.Branch == "" {
			out = append(out, "era:"+e.Name)
		}
	}
	return out
}

// unlistedGainNote says where the change acts when most of what it
// saves (or costs) per packet is in the model's functions the listing does
// not show: the prediction takes it from the listing's unlisted remainder,
// and the predicted profile shows it there, not on a listed symbol.
func unlistedGainNote(seen map[string]bool, bc, ac callers, named map[sim.Sym]string, scale, tBefore float64) string {
	type d struct {
		name string
		ns   float64
	}
	var ds []d
	var unlisted, listed float64
	for s := sim.Sym(1); s < sim.NumSyms; s++ {
		delta := ac[s].ns - bc[s].ns
		if delta == 0 || named[s] == sim.RestProfile {
			continue
		}
		if seen[named[s]] {
			listed += math.Abs(delta)
			continue
		}
		unlisted += math.Abs(delta * scale)
		if math.Abs(delta*scale) >= 0.5 {
			n := ac[s].profile
			if n == "" {
				n = bc[s].profile
			}
			ds = append(ds, d{n, delta * scale})
		}
	}
	if unlisted < 1 || unlisted <= listed {
		return ""
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if math.Abs(ds[i].ns) != math.Abs(ds[j].ns) {
			return math.Abs(ds[i].ns) > math.Abs(ds[j].ns)
		}
		return ds[i].name < ds[j].name
	})
	var parts []string
	for _, x := range ds[:min(len(ds), 4)] {
		parts = append(parts, fmt.Sprintf("%s %+.0f ns", x.name, x.ns))
	}
	return fmt.Sprintf("most of what the change moves per packet is in the model's functions the listing does not show (%s; %.1f%% of the packet's %.0f ns): taken from the listing's unlisted remainder, shown as [rest of stack] and those names", strings.Join(parts, ", "), 100*unlisted/tBefore, tBefore)
}

// linkRate is the line rate in the unit of a prediction (0: not capped).
func linkRate(plat, wl, unit string, frame int) float64 {
	p, err := sim.PlatformByName(plat)
	if err != nil || p.LinkMbps == 0 {
		return 0
	}
	pps := p.LinkPPS(frame)
	switch unit {
	case "kpps":
		return pps / 1e3
	case "pps":
		return pps
	case "mbps":
		return pps * float64(payloadOf(wl, frame)*8) / 1e6
	}
	return 0
}

// payloadOf is the payload a frame of the workload carries, what a rate in
// Mbit/s counts: a TCP segment's 66 bytes of Ethernet, IP and TCP (with
// timestamps) headers off (1514 → 1448), a UDP datagram's 42 (1512 →
// 1470); the frame itself for the others.
func payloadOf(wl string, frame int) int {
	switch wl {
	case workload.WTCPStream:
		return max(frame-66, 1)
	case workload.WForward:
		return max(frame-42, 1)
	}
	return frame
}

// dropListed reports whether the listing shows the stack dropping its
// frames (kfree_skb and its later names, 1 % or more: a drop test frees
// every frame there, a receiver only the odd one): a drop test, even one
// reported in Mbit/s as pktgen does.
func dropListed(p *Profile) bool {
	var sh float64
	for _, n := range []string{"kfree_skb", "kfree_skb_reason", "sk_skb_reason_drop"} {
		sh += p.Share(n)
	}
	return sh >= 1
}

// minFrame is the smallest frame the workload runs: a TCP segment's
// headers alone are 66 bytes; the Ethernet minimum for the others.
func minFrame(wl string) int {
	if wl == workload.WTCPStream {
		return 66
	}
	return workload.FrameSmall
}

// unitPPS is packets per second in one unit of a packet rate.
func unitPPS(unit string) float64 {
	if unit == "kpps" {
		return 1e3
	}
	return 1
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
