package lab

import (
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestKnob_PPNapiGivesTheDriversPoolANapi: pp_napi=1 ties a driver's pool
// to its NAPI where the driver does not (mvpp2, 6.6): the drop test's skb
// pages recycle into the alloc cache, not the ptr_ring; refused before
// 6.4, whose page_pool_params has no napi.
func TestKnob_PPNapiGivesTheDriversPoolANapi(t *testing.T) {
	run := func(era string, v int64) (Results, error) {
		cfg := Config{Driver: "mvpp2", Scenario: "drop", Era: era, Packets: 5000, Seed: 1, Knobs: sim.KnobOverrides{}.With(sim.KnobPPNapi, v)}
		l, err := New(cfg)
		if err != nil {
			return Results{}, err
		}
		l.Run()
		return l.Results(), nil
	}
	def, err := run("6.6", -1)
	if err != nil {
		t.Fatal(err)
	}
	on, err := run("6.6", 1)
	if err != nil {
		t.Fatal(err)
	}
	if def.Stats[sim.StatRecycleCached] != 0 || def.Stats[sim.StatRecycleRing] == 0 {
		t.Errorf("mvpp2 6.6, the driver's pool params: cached %d, ring %d: want every skb page through the ring", def.Stats[sim.StatRecycleCached], def.Stats[sim.StatRecycleRing])
	}
	if on.Stats[sim.StatRecycleRing] != 0 || on.Stats[sim.StatRecycleCached] == 0 {
		t.Errorf("mvpp2 6.6, pp_napi=1: cached %d, ring %d: want every skb page into the alloc cache", on.Stats[sim.StatRecycleCached], on.Stats[sim.StatRecycleRing])
	}
	if _, err := run("6.1", 1); err == nil || !strings.Contains(err.Error(), "page_pool_params has no napi before 6.4") {
		t.Errorf("pp_napi=1 in 6.1: %v", err)
	}
}
