package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestDegenerate_Thresholds: a run is degenerate just past each threshold
// and not at it; the notice names the numbers.
func TestDegenerate_Thresholds(t *testing.T) {
	base := func() Results {
		r := Results{Packets: 1_000_000, Driver: "mlx5"}
		r.Stats[sim.StatAllocFast] = 1_000_000
		return r
	}
	for _, c := range []struct {
		name string
		edit func(*Results)
		want string // "" = not degenerate
	}{
		{"clean", func(r *Results) {}, ""},
		{"missed at 1 %", func(r *Results) { r.RxMissed, r.Lost = 10_000, 10_000 }, ""},
		{"missed past 1 %", func(r *Results) { r.RxMissed, r.Lost = 10_001, 10_001 }, "10001 dropped by the NIC for want of a posted RX buffer"},
		{"lost past 10 %", func(r *Results) { r.Lost = 100_001 }, "10.0 % of the packets were lost"},
		{"allocations failing past 10 %", func(r *Results) { r.AllocFailures = 120_000 }, "page_pool_alloc_pages calls returned NULL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := base()
			c.edit(&r)
			r.Delivered = r.Packets - r.Lost
			got := Degenerate(r)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("Degenerate = %q, want %q", got, c.want)
			}
		})
	}
}

// TestMarshalJSON_FixedKeyOrder: the stats and violations keys come in
// their fixed order, every one present, and the output is JSON.
func TestMarshalJSON_FixedKeyOrder(t *testing.T) {
	b, err := Results{Scenario: "drop", Rate: Rate{Value: 12.346, Unit: "kpps"}}.MarshalJSON()
	if err != nil || !json.Valid(b) {
		t.Fatalf("%s: not JSON (%v)", b, err)
	}
	s := string(b)
	last := -1
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		at := strings.Index(s, `"`+i.String()+`":`)
		if at <= last {
			t.Fatalf("stat %s out of order or missing in %s", i, s)
		}
		last = at
	}
	if !strings.Contains(s, `"rate":{"value":12.35,"unit":"kpps","link_bound":false}`) {
		t.Errorf("rate not rounded to two decimals: %s", s)
	}
}

// TestEthtoolName_PerRingOnlyWhereTheDriverHasThem: the device totals
// always have a name; a ring's own counter only for a driver whose
// ethtool code prints per-ring page_pool counters.
func TestEthtoolName_PerRingOnlyWhereTheDriverHasThem(t *testing.T) {
	if n := EthtoolName("", sim.StatAllocFast, -1); n != sim.StatAllocFast.Ethtool() {
		t.Errorf("pool scenario: %q", n)
	}
	if n := EthtoolName("", sim.StatAllocFast, 0); n != "" {
		t.Errorf("pool scenario ring 0: %q, want none", n)
	}
	if n := EthtoolName("mlx5", sim.StatAllocFast, 0); !strings.HasPrefix(n, "rx0_") {
		t.Errorf("mlx5 ring 0: %q, want rx0_*", n)
	}
	var w bytes.Buffer
	WriteList(&w, ListJSON{Platforms: []string{"x"}})
	if !strings.Contains(w.String(), "platforms: x") {
		t.Errorf("WriteList: %s", w.String())
	}
}
