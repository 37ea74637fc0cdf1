package perf

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// shippedBare is a shipped listing and the same listing without its
// header lines.
func shippedBare(t *testing.T, name string) (with, bare *Profile) {
	t.Helper()
	p, text, err := ShippedProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	bare, err = ParseProfile(strings.Join(body, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return p, bare
}

func readListing(t *testing.T, name string) *Profile {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseProfile(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPredict_AChangeTheListingsKernelHasIsRefusedAsApplied: an mlx5
// listing with 6.8–6.10 names (page_pool_put_unrefed_page,
// napi_pp_put_page) and no header. Before, napi-direct was predicted from
// 5.14 to 6.4 as a 26 % slowdown (the model's 5.14 names added on top of
// the listing's 6.8 ones); mlx5's pool sets pp.napi from 6.4, so the
// listing's kernel already recycles NAPI-locally, and it has bulk refill
// and skb recycling too.
func TestPredict_AChangeTheListingsKernelHasIsRefusedAsApplied(t *testing.T) {
	p := readListing(t, "mlx5-6.8-xdp-redirect-noheader.txt")
	for _, tc := range []struct{ change, want string }{
		{"napi-direct", "napi-direct is already applied: in the listing's kernel (6.8–6.10"},
		{"bulk", "bulk is already applied"},
		{"skb-recycle", "skb-recycle is already applied"},
	} {
		_, err := Predict(PredictInput{Profile: p, Rate: 12000, Unit: "kpps", Change: tc.change})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.change, err, tc.want)
		}
	}
}

// TestPredict_NapiDirectNeedsTheDriversPPNapi: an mvpp2 listing of 6.6
// (napi_pp_put_page, page_pool_put_defragged_page) has the mechanism in
// its kernel but not applied: mvpp2 never sets pp.napi. The refusal says
// so and names the change that would apply.
func TestPredict_NapiDirectNeedsTheDriversPPNapi(t *testing.T) {
	p := readListing(t, "mvpp2-6.6-drop-noheader.txt")
	_, err := Predict(PredictInput{Profile: p, Rate: 900, Unit: "kpps", Change: "napi-direct"})
	if err == nil || !strings.Contains(err.Error(), "napi-direct does not apply to mvpp2") || !strings.Contains(err.Error(), "pp-napi") {
		t.Errorf("napi-direct on mvpp2 6.6: %v", err)
	}
	// The change that applies: the driver gives its pool a NAPI, in the
	// listing's own kernel (pp_napi=1): skb pages freed in the NAPI
	// recycle into the alloc cache, not the ptr_ring.
	pr, err := Predict(PredictInput{Profile: p, Rate: 900, Unit: "kpps", Change: "pp-napi"})
	if err != nil {
		t.Fatalf("pp-napi on mvpp2 6.6: %v", err)
	}
	if pr.EraBefore != "6.6" || pr.EraAfter != "6.6" || pr.Speedup <= 1 || !hasNote(pr, "pp_napi=0, then pp_napi=1") {
		t.Errorf("pp-napi on mvpp2 6.6: %s → %s ×%.3f, notes %q", pr.EraBefore, pr.EraAfter, pr.Speedup, pr.Notes)
	}
	// A driver that sets it itself: already applied.
	m := readListing(t, "mlx5-6.8-xdp-redirect-noheader.txt")
	if _, err := Predict(PredictInput{Profile: m, Rate: 12000, Unit: "kpps", Change: "pp-napi"}); err == nil || !strings.Contains(err.Error(), "pp-napi is already applied: mlx5's driver sets page_pool_params.napi itself from 6.4") {
		t.Errorf("pp-napi on mlx5 6.8: %v", err)
	}
}

// TestPredict_TheDriverComesFromTheListing: a listing without a header is
// read as the same listing with its header: the driver from its own
// functions (mvpp2_rx …), the platform from the driver, the same
// prediction. Before, it was refused: "--platform: the profile names no
// driver".
func TestPredict_TheDriverComesFromTheListing(t *testing.T) {
	type row struct {
		name, change string
		rate         float64
		unit         string
	}
	var rows []row
	for _, name := range ProfileNames() {
		p, _, _ := ShippedProfile(name)
		for _, c := range Changes {
			rows = append(rows, row{name, c, p.Rates[0].Value, p.Rates[0].Unit})
		}
	}
	for _, tc := range rows {
		p, bare := shippedBare(t, tc.name)
		with, errW := Predict(PredictInput{Profile: p, Rate: tc.rate, Unit: tc.unit, Change: tc.change})
		without, err := Predict(PredictInput{Profile: bare, Rate: tc.rate, Unit: tc.unit, Change: tc.change})
		if (errW == nil) != (err == nil) {
			t.Errorf("%s %s: with its header %v, without it %v", tc.name, tc.change, errW, err)
			continue
		}
		if err != nil {
			continue
		}
		if without.Driver != with.Driver || without.Platform != with.Platform || without.EraBefore != with.EraBefore || without.EraAfter != with.EraAfter || without.Speedup != with.Speedup {
			t.Errorf("%s %s: without the header %s/%s %s→%s ×%.3f, with it %s/%s %s→%s ×%.3f", tc.name, tc.change,
				without.Driver, without.Platform, without.EraBefore, without.EraAfter, without.Speedup, with.Driver, with.Platform, with.EraBefore, with.EraAfter, with.Speedup)
		}
	}
}

// TestPredict_AListingOfNothingTheModelRunsIsRefused: no listed symbol is
// a modelled function in any era: one line says so and names them.
func TestPredict_AListingOfNothingTheModelRunsIsRefused(t *testing.T) {
	p := readListing(t, "unknown-symbols.txt")
	_, err := Predict(PredictInput{Profile: p, Rate: 900, Unit: "kpps", Change: "bulk", Platform: "x86-server"})
	if err == nil || !strings.Contains(err.Error(), "none of the listing's 3 symbols is a function the model runs") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unknown symbols: %v", err)
	}
	// Partly known: the share it places is said.
	p.Lines = append(p.Lines, ProfileLine{Pct: 5, Symbol: "page_pool_alloc_pages", Raw: "page_pool_alloc_pages"}, ProfileLine{Pct: 5, Symbol: "get_page_from_freelist", Raw: "get_page_from_freelist"})
	p.shares = nil
	pr, err := Predict(PredictInput{Profile: p, Rate: 900, Unit: "kpps", Change: "bulk", Platform: "x86-server"})
	if err == nil && !hasNote(pr, "the model places 10.00% of the listing's 80.00%") {
		t.Errorf("partly known: notes %q", pr.Notes)
	}
}

// TestSaysBulk_ReadsNegations: "bulk refill: off" is off (the header was
// read as bulk because it contains the word).
func TestSaysBulk_ReadsNegations(t *testing.T) {
	for _, tc := range []struct {
		text      string
		yes, said bool
	}{
		{"bulk refill: off", false, true},
		{"bulk refill: on", true, true},
		{"off (later net-next, with bulk page allocation in the pool refill)", true, true},
		{"on (without bulk refill)", false, true},
		{"off (no bulk)", false, true},
		{"bulk: 0", false, true},
		{"on (first version of the series)", false, false},
	} {
		if yes, said := saysBulk(tc.text); yes != tc.yes || said != tc.said {
			t.Errorf("%q: %v %v, want %v %v", tc.text, yes, said, tc.yes, tc.said)
		}
	}
	// In a header: a recycling listing that says bulk refill off is not
	// refused as bulk.
	p, _, err := ShippedProfile("mvpp2-v1-after")
	if err != nil {
		t.Fatal(err)
	}
	p.Bulk = "bulk refill: off"
	if _, err := Predict(PredictInput{Profile: p, Rate: 2047, Unit: "kpps", Change: "bulk"}); err != nil {
		t.Errorf("bulk refill: off, --change bulk: %v", err)
	}
}

// TestPredict_RemovingWorkNeverSlowsWithoutSayingWhy: every shipped
// listing, with and without its header, and every change: an accepted
// prediction is not a slowdown unless a note names the functions the
// model's run after the change spends more in.
func TestPredict_RemovingWorkNeverSlowsWithoutSayingWhy(t *testing.T) {
	// every listing of the corpus too, at its stated rate
	for _, c := range readCorpusExpect(t, "testdata/listings/EXPECT") {
		b, err := os.ReadFile("testdata/listings/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := ParseProfile(string(b))
		if err != nil {
			continue // a bad input
		}
		var rate float64
		var unit string
		if _, err := fmt.Sscanf(c.fields["rate"], "%g %s", &rate, &unit); err != nil {
			continue
		}
		for _, ch := range Changes {
			in := PredictInput{Profile: prof, Rate: rate, Unit: unit, Change: ch}
			if p := c.fields["platform"]; p != "" && p != "ask" {
				in.Platform = p
			}
			pr, err := Predict(in)
			if err == nil && pr.Speedup < 1 && !hasNote(pr, "spends more in") {
				t.Errorf("%s %s: ×%.3f with no note naming the mechanism: %q", c.file, ch, pr.Speedup, pr.Notes)
			}
		}
	}
	for _, name := range ProfileNames() {
		p, bare := shippedBare(t, name)
		rate := 100.0
		unit := "kpps"
		if len(p.Rates) > 0 {
			rate, unit = p.Rates[0].Value, p.Rates[0].Unit
		}
		for _, prof := range []*Profile{p, bare} {
			for _, c := range Changes {
				pr, err := Predict(PredictInput{Profile: prof, Rate: rate, Unit: unit, Change: c})
				if err != nil {
					continue
				}
				if pr.Speedup < 1 && !hasNote(pr, "spends more in") {
					t.Errorf("%s %s: ×%.3f with no note naming the mechanism: %q", name, c, pr.Speedup, pr.Notes)
				}
			}
		}
	}
}
