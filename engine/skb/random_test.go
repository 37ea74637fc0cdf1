package skb

import (
	"math/rand"
	"os"
	"strconv"
	"testing"

	"pplab/engine/sim"
)

// TestSkbPrograms_Random runs seeded random skb programs through the same
// player as FuzzSkb (without the fuzzing engine), in every era.
// SKB_PROGRAMS=N runs more.
func TestSkbPrograms_Random(t *testing.T) {
	n := 150
	if v, err := strconv.Atoi(os.Getenv("SKB_PROGRAMS")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 20
	}
	r := rand.New(rand.NewSource(42))
	for i := 0; i < n; i++ {
		data := make([]byte, 1+2*(20+r.Intn(180)))
		r.Read(data)
		era := sim.Eras[int(data[0])%len(sim.Eras)]
		e := newEnv(t, era.Name, "node_pages=512")
		p := &skbProgram{e: e}
		for j := 1; j+1 < len(data); j += 2 {
			p.step(data[j], data[j+1])
			e.check()
			if e.m.Log.Total() != 0 {
				t.Fatalf("program %d era %s, after %v: %v\nprogram: %v", i, era.Name, p.log[max(0, len(p.log)-1):], e.m.Log.List, p.log)
			}
		}
		p.finish()
		e.check()
		if e.m.Log.Total() != 0 || e.s.Live() != 0 {
			t.Fatalf("program %d era %s: after freeing everything: live %d, %v\nprogram: %v", i, era.Name, e.s.Live(), e.m.Log.List, p.log)
		}
	}
}
