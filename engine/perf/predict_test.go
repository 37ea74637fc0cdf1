package perf

import (
	"math"
	"strings"
	"testing"

	"pplab/engine/lab"
)

// handEstimate is a kernel developer's Amdahl estimate of skb recycling:
// remove the listed symbols recycling removes (the page allocator round trip
// and the DMA mapping), renormalise over the busy share.
func handEstimate(p *Profile, rate float64) float64 {
	removed := 0.0
	for _, g := range []string{"page_pool_release_page", "free_unref_page", "get_page_from_freelist", "__alloc_pages_bulk", "dma_map_page_attrs", "dma_unmap_page_attrs", "page_frag_free"} {
		removed += p.Share(g)
	}
	busy := 100 - idleShare(p)
	return rate * busy / (busy - removed)
}

func predictShipped(t *testing.T, name string, rate float64, unit string) (*Profile, *Prediction) {
	t.Helper()
	p, _, err := ShippedProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Predict(PredictInput{Profile: p, Rate: rate, Unit: unit, Change: "skb-recycle"})
	if err != nil {
		t.Fatal(err)
	}
	return p, pr
}

func after(pr *Prediction, sym string) float64 {
	for _, e := range pr.ProfileAfter {
		if e.Symbol == sym {
			return e.Pct
		}
	}
	return 0
}

// dma_map_page_attrs in NAT forwarding is the pool's RX refill and the TX
// xmit's mapping: recycling removes only the first. The hand estimate
// removes it all; predict keeps the TX part, and says how it split.
func TestPredict_SharedSymbolKeepsItsOtherCallers(t *testing.T) {
	p, pr := predictShipped(t, "lunar-baseline", 566, "mbps")
	if after(pr, "dma_map_page_attrs") == 0 {
		t.Errorf("dma_map_page_attrs gone from the profile after: the TX mapping stays")
	}
	if hand := handEstimate(p, 566); pr.Predicted.Value >= hand {
		t.Errorf("predicted %.1f mbps, the hand estimate %.1f: the TX mapping and the idle time should keep it below", pr.Predicted.Value, hand)
	}
	if !hasNote(pr, "dma_map_page_attrs (2.57% measured) is shared by callers") {
		t.Errorf("no note on the split: %q", pr.Notes)
	}
}

// A listing with idle symbols is not CPU-bound: the idle time per packet is
// kept (as perf would show it after), only the busy part shrinks — a smaller
// gain than if the idle time were spare capacity.
func TestPredict_IdleTimeStaysPerPacket(t *testing.T) {
	p, pr := predictShipped(t, "lunar-baseline", 566, "mbps")
	idle := after(pr, "r4k_wait_irqoff") + after(pr, "cpuidle_enter_state_coupled")
	if idle <= idleShare(p) {
		t.Errorf("idle after %.2f%%, before %.2f%%: the same idle time per packet is a larger share of a shorter packet", idle, idleShare(p))
	}
	if !hasNote(pr, "the CPU was not the only limit") {
		t.Errorf("no note on the idle assumption: %q", pr.Notes)
	}
	// A busy-only listing (no idle) has no such note.
	_, busy := predictShipped(t, "mvpp2-v1-before", 962, "kpps")
	if hasNote(busy, "the CPU was not the only limit") {
		t.Errorf("idle note on a listing without idle symbols")
	}
}

func hasNote(pr *Prediction, s string) bool {
	for _, n := range pr.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// --change bulk on a listing that recycles: the page allocator is off the
// listing because recycling took it off, which is no reason to refuse. The
// prediction runs the simulated change and says what it assumed about the
// allocator's unlisted share; only a listing that shows __alloc_pages_bulk
// (or says bulk in its header) is refused.
func TestPredict_BulkOnARecyclingListing(t *testing.T) {
	p, _, err := ShippedProfile("mvpp2-v1-after")
	if err != nil {
		t.Fatal(err)
	}
	if p.Share("get_page_from_freelist") != 0 || p.Share("__alloc_pages_bulk") != 0 {
		t.Fatal("the shipped recycling listing shows the page allocator: pick one that does not")
	}
	pr, err := Predict(PredictInput{Profile: p, Rate: 2047, Unit: "kpps", Change: "bulk"})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if pr.Speedup < 1 || !hasNote(pr, "allocator's unlisted share") {
		t.Errorf("speedup %.3f, notes %q", pr.Speedup, pr.Notes)
	}
	// The recycling era the listing implies, with its slow path one page
	// per call before and bulk after (lab's
	// TestBulkRefill_PrimesTheCacheOnTopOfRecycling simulates the same).
	if pr.EraBefore != "rfc-v1" || pr.EraAfter != "rfc-v1" || pr.Speedup <= 1 || !strings.Contains(strings.Join(pr.Notes, " "), "bulk_refill=0, then bulk_refill=1") {
		t.Errorf("predict bulk on mvpp2-v1-after: %+v", pr)
	}
	b, _, err := ShippedProfile("mvpp2-v7-before") // lists __alloc_pages_bulk
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Predict(PredictInput{Profile: b, Rate: 1110, Unit: "kpps", Change: "bulk"}); err == nil || !strings.Contains(err.Error(), "already shows bulk allocation") {
		t.Errorf("a listing with __alloc_pages_bulk: %v", err)
	}
}

// TestPredict_TrainingPairs: the training pairs are reproduced within ±3 %,
// by predict and by a simulated run.
func TestPredict_TrainingPairs(t *testing.T) {
	for _, tc := range []struct {
		before         string
		rate, after    float64
		driver, eb, ea string
	}{
		{"mvpp2-v1-before", 962, 2047, "mvpp2", "5.12", "rfc-v1"},
		{"mvneta-v1-before", 269, 296, "mvneta", "5.12", "rfc-v1"},
	} {
		p, _, err := ShippedProfile(tc.before)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := Predict(PredictInput{Profile: p, Rate: tc.rate, Unit: "kpps", Change: "skb-recycle"})
		if err != nil {
			t.Fatal(err)
		}
		if e := pr.Predicted.Value/tc.after - 1; math.Abs(e) > 0.03 || pr.EraBefore != tc.eb || pr.EraAfter != tc.ea {
			t.Errorf("%s: predicted %.1f kpps (%+.1f%%), want %.0f ±3%% (eras %s → %s)", tc.before, pr.Predicted.Value, 100*e, tc.after, pr.EraBefore, pr.EraAfter)
		}
		for era, want := range map[string]float64{tc.eb: tc.rate, tc.ea: tc.after} {
			l, err := lab.New(lab.Config{Driver: tc.driver, Scenario: "drop", Era: era, Packets: 20000})
			if err != nil {
				t.Fatal(err)
			}
			l.Run()
			r := l.Results()
			if e := r.Rate.Value/want - 1; math.Abs(e) > 0.03 {
				t.Errorf("%s drop %s: simulated %.1f kpps, measured %.0f (%+.1f%%)", tc.driver, era, r.Rate.Value, want, 100*e)
			}
		}
	}
}
