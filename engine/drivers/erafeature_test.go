package drivers

import (
	"testing"

	"pplab/engine/sim"
)

// TestSpecEraFields_SayWhatTheyDecide: every …From / …Until field of Spec
// carries a rule tag (what a comparison of two eras says changed), and a
// Commits key names one of them.
func TestSpecEraFields_SayWhatTheyDecide(t *testing.T) {
	names := map[string]bool{}
	for _, f := range eraFields() {
		names[f.Name] = true
		if f.Tag.Get("rule") == "" {
			t.Errorf("Spec.%s: no rule tag", f.Name)
		}
	}
	for _, s := range Specs {
		for k := range s.Commits {
			if !names[k] {
				t.Errorf("%s: Commits[%q] is no era-name field", s.Name, k)
			}
		}
	}
}

// TestEraFeatures_BnxtAt6_19: bnxt's TX completion takes napi_consume_skb
// from 6.19 (362a161b2582); mlx5 differs in no driver behaviour there.
func TestEraFeatures_BnxtAt6_19(t *testing.T) {
	a, _ := sim.EraByName("6.18")
	b, _ := sim.EraByName("6.19")
	bnxt, _ := SpecByName("bnxt")
	got := bnxt.EraFeatures(a, b)
	if len(got) != 1 || got[0].Field != "TxNapiConsumeFrom" || got[0].Commit != "362a161b2582" || got[0].A || !got[0].B {
		t.Errorf("bnxt 6.18 vs 6.19: %+v", got)
	}
	mlx5, _ := SpecByName("mlx5")
	if got := mlx5.EraFeatures(a, b); len(got) != 0 {
		t.Errorf("mlx5 6.18 vs 6.19: %+v", got)
	}
	// The one-change driver: bnxt with 6.19's TX completion in 6.18.
	on := bnxt.WithFeatureAs("TxNapiConsumeFrom", true)
	if !on.TxConsumes(a) || bnxt.TxConsumes(a) {
		t.Errorf("WithFeatureAs(TxNapiConsumeFrom, true): TxConsumes(6.18) %v (the spec's own %v)", on.TxConsumes(a), bnxt.TxConsumes(a))
	}
	cache, _ := SpecByName("bnxt")
	for _, s := range Specs {
		if s.RxCacheUntil != "" {
			cache = s
		}
	}
	old, _ := sim.EraByName("5.15")
	if off := cache.WithFeatureAs("RxCacheUntil", false); off.HasRxCache(old) {
		t.Errorf("%s without its RX cache still has it in 5.15", cache.Name)
	}
	if on := cache.WithFeatureAs("RxCacheUntil", true); !on.HasRxCache(b) {
		t.Errorf("%s with its RX cache in every era lacks it in 6.19", cache.Name)
	}
}
