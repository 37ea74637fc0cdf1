package skb

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/sim"
)

// Each breakable rule of the skb layer (and signature-check / refcnt-check seen
// from the skb side): the shortest sequence that shows the failure with the
// rule broken, and the same sequence with the rule intact (zero violations).
func TestBrokenRules(t *testing.T) {
	tests := []struct {
		rule, era string
		kind      sim.Kind
		run       func(e *env)
	}{
		{"coalesce-pp-guard", "5.14", sim.KindInflightLeak, func(e *env) {
			to, _ := e.s.AllocSKB(0, 1500, false) // slab-backed, pp_recycle 0
			from, _ := e.fragsOnly(3000)          // page_pool frags
			r := e.coalesce(to, from)             // broken: the pool page moves into the slab skb
			e.t.Logf("coalesced: %v", r.OK)
			if !r.OK {
				e.kfree(from)
			}
			e.kfree(to) // pp_recycle 0: put_page on a pool page, the pool never sees it again
		}},
		{"coalesce-cloned-guard", "6.4", sim.KindUseAfterRecycle, func(e *env) {
			to, _ := e.rx(1500)
			from, _ := e.fragsOnly(3000)
			tap, _ := e.s.SkbClone(0, from)
			if r := e.coalesce(to, from); !r.OK {
				e.kfree(from)
			}
			e.kfree(to)  // broken: recycles the frag the tap clone still reads
			e.kfree(tap) // …and the tap's release recycles it a second time
		}},
		{"coalesce-cloned-guard", "6.8", sim.KindDoubleRecycle, func(e *env) {
			to, _ := e.rx(1500)
			from, _ := e.fragsOnly(3000)
			tap, _ := e.s.SkbClone(0, from)
			if r := e.coalesce(to, from); !r.OK {
				e.kfree(from)
			}
			e.kfree(tap, to)
		}},
		{"last-dataref", "5.14", sim.KindDoubleRecycle, func(e *env) {
			x, _ := e.rx(200)
			y, _ := e.s.SkbClone(0, x)
			e.kfree(x) // broken: the first clone releases the shared head…
			e.kfree(y) // …and so does the second
		}},
		{"last-dataref", "6.8", sim.KindDoubleRecycle, func(e *env) {
			x, _ := e.rx(200)
			e.frag(x, 1000)
			y, _ := e.s.SkbClone(0, x)
			e.kfree(y, x)
		}},
		{"signature-check", "5.14", sim.KindForeignPageInPool, func(e *env) {
			sk, _ := e.rx(100)
			plain := e.a.AllocPagesNode(0, -1, 0)
			e.s.StoreMemInfo(0, sk, plain, e.p) // a driver bug: page->pp set on a page the pool never allocated
			e.s.AddRxFrag(0, sk, plain, 0, 1000, mm.PageSize)
			e.kfree(sk)
		}},
		{"refcnt-check", "5.14", sim.KindUseAfterRecycle, func(e *env) {
			x, _ := e.rx(200)
			e.frag(x, 1000)
			y, _ := e.s.SkbClone(0, x)
			e.s.PskbExpandHead(0, y, 0) // y's frags now hold page references
			e.kfree(x)                  // broken: recycles the frag page y still uses
			e.kfree(y)
		}},
	}
	for _, tc := range tests {
		for _, broken := range []bool{false, true} {
			name := tc.rule + "/" + tc.era + map[bool]string{false: "/intact", true: "/broken"}[broken]
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, tc.era, brk(broken, tc.rule)...)
				tc.run(e)
				verdict(t, e, broken, tc.kind)
			})
		}
	}
}
