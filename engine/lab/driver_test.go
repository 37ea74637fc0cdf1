package lab

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// TestDriverMatrix_ZeroViolations: every driver × scenario pair that ppsim
// list offers runs in every era it supports with zero violations (eras
// where the kernel itself shows the failure excepted). Under -short each
// pair runs in every third of its eras, starting one era further for the
// next pair, so every era still runs a third of the pairs.
func TestDriverMatrix_ZeroViolations(t *testing.T) {
	n := int64(1500)
	if testing.Short() {
		n = 400
	}
	pair := 0
	for _, sc := range Scenarios {
		if !sc.NeedsDriver {
			continue
		}
		for _, d := range sc.Drivers {
			spec, _ := drivers.SpecByName(d)
			pair++
			i := pair // the pair's eras, counted from its offset
			for _, e := range sim.Eras {
				if e.Order < spec.MinEra() || (len(sc.Eras) > 0 && !slices.Contains(sc.Eras, e.Name)) {
					continue
				}
				if i++; testing.Short() && i%3 != 0 {
					continue
				}
				cfg := Config{Driver: d, Scenario: sc.Name, Era: e.Name, Packets: n, Knobs: sim.MustOverrides("check_every=256")}
				if len(cfg.KnownFailure()) > 0 {
					continue
				}
				l, r := run(t, cfg)
				if l.Err() != nil || r.Violations.Total() != 0 {
					t.Errorf("%s/%s/%s: err %v violations %v", d, sc.Name, e.Name, l.Err(), first(r.Violations.List))
				}
			}
		}
	}
}

func first[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

// TestDriverScenarios_EveryRuleBreaks: every breakable rule produces its
// violation in a driver scenario (and the same run with the rule intact has
// none). Some failures need a second rule out of the way first: a foreign
// page reaches the signature check only if coalescing mixed pool and
// non-pool memory.
func TestDriverScenarios_EveryRuleBreaks(t *testing.T) {
	tests := RuleDemos
	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.Rules[len(tc.Rules)-1]] = true
	}
	for _, r := range sim.RuleNames() {
		if !covered[r] {
			t.Errorf("rule %s has no driver scenario here", r)
		}
	}
	for _, tc := range tests {
		t.Run(tc.Rules[len(tc.Rules)-1], func(t *testing.T) {
			_, r := run(t, Config{Driver: tc.Driver, Scenario: tc.Scenario, Era: tc.Era, Packets: 3000, Break: tc.Rules, Knobs: sim.MustOverrides(tc.Set...)})
			if r.Violations.Counts[tc.Kind] == 0 {
				t.Fatalf("no %s: %v", tc.Kind, first(r.Violations.List))
			}
			_, ok := run(t, Config{Driver: tc.Driver, Scenario: tc.Scenario, Era: tc.Era, Packets: 3000, Knobs: sim.MustOverrides(intactSet(tc.Set)...)})
			if ok.Violations.Total() != 0 {
				t.Errorf("intact run: %v", first(ok.Violations.List))
			}
		})
	}
}

// mvpp2 drop: 5.12 releases every page (page_pool_release_page) and
// allocates each from the page allocator; 5.14 recycles every page through
// the ring and releases none.
func TestCounterShape_Mvpp2Drop(t *testing.T) {
	_, old := run(t, Config{Driver: "mvpp2", Scenario: "drop", Era: "5.12", Packets: 5000})
	_, rec := run(t, Config{Driver: "mvpp2", Scenario: "drop", Era: "5.14", Packets: 5000})
	so, sr := old.Stats, rec.Stats
	exactStats(t, "5.12", so, sim.Stats{sim.StatAllocSlow: 6024, sim.StatAllocEmpty: 6024})
	exactStats(t, "5.14", sr, sim.Stats{sim.StatAllocFast: 5929, sim.StatAllocSlow: 17, sim.StatAllocEmpty: 17, sim.StatAllocRefill: 78, sim.StatRecycleRing: 5000})
	if so[sim.StatRecycleRing] != 0 || so[sim.StatAllocFast] != 0 || so[sim.StatAllocSlow] < 5000 {
		t.Errorf("5.12: %v", so)
	}
	if sr[sim.StatRecycleReleasedRefcnt] != 0 || sr[sim.StatRecycleRing] < 5000 || sr[sim.StatAllocSlow] > 64 || sr[sim.StatAllocFast] < 5000 {
		t.Errorf("5.14: %v", sr)
	}
	if rec.Rate.Value < 2*old.Rate.Value {
		t.Errorf("recycling: %.0f → %.0f kpps", old.Rate.Value, rec.Rate.Value)
	}
}

// mlx5 xdp-redirect: pages never come back; bulk refill (5.13) vs single
// pages (5.12) changes the cost per packet and not where pages go.
func TestCounterShape_Mlx5XDPRedirectBulk(t *testing.T) {
	l12, single := run(t, Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.12", Packets: 5000})
	l13, bulk := run(t, Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.13", Packets: 5000})
	exactStats(t, "5.12", single.Stats, sim.Stats{sim.StatAllocSlow: 6016, sim.StatAllocEmpty: 6016})
	exactStats(t, "5.13", bulk.Stats, sim.Stats{sim.StatAllocFast: 5922, sim.StatAllocSlow: 94, sim.StatAllocEmpty: 94})
	for _, r := range []Results{single, bulk} {
		st := r.Stats
		if st[sim.StatRecycleRing]+st[sim.StatRecycleCached] != 0 || r.Violations.Total() != 0 {
			t.Errorf("%s: pages came back: %v", r.Era, st)
		}
	}
	if l12.pool.Hold() != l13.pool.Hold() || l12.pool.Release() != l13.pool.Release() || l12.a.Frees != l13.a.Frees {
		t.Errorf("bulk changed where pages go: hold %d/%d release %d/%d frees %d/%d", l12.pool.Hold(), l13.pool.Hold(), l12.pool.Release(), l13.pool.Release(), l12.a.Frees, l13.a.Frees)
	}
	cpu := func(l *Lab) (t float64) { // CPU time per packet, all CPUs (the veth side is the bottleneck)
		for _, v := range l.SymbolNS() {
			t += v
		}
		return t
	}
	if single.Stats[sim.StatAllocSlow] <= 10*bulk.Stats[sim.StatAllocSlow] || cpu(l13) >= cpu(l12) {
		t.Errorf("slow calls %d vs %d, CPU ns/pkt %.1f vs %.1f", single.Stats[sim.StatAllocSlow], bulk.Stats[sim.StatAllocSlow], cpu(l12), cpu(l13))
	}
}

// hns3 copies frames up to HNS3_RX_HEAD_SIZE into a small skb and reuses
// the RX buffer in place: after the ring's first fill the pool sees no
// 64-byte drop traffic at all. pfmemalloc buffers are not reusable
// (dev_page_is_reusable): they go back through the pool, which releases
// them. Larger frames reach the stack as page_pool frags.
func TestCounterShape_Hns3HeadSplit(t *testing.T) {
	l, drop := run(t, Config{Driver: "hns3", Scenario: "drop", Era: "6.4", Packets: 5000})
	st := drop.Stats
	exactStats(t, "hns3 drop", st, sim.Stats{sim.StatAllocFast: 1016, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8})
	frags := uint64(l.drv.RingSize()) // one 2 KiB fragment per descriptor
	if st[sim.StatAllocFast]+st[sim.StatAllocSlow] > frags || st[sim.StatRecycleRing]+st[sim.StatRecycleCached] != 0 {
		t.Errorf("drop: the pool saw the copied frames: %v", st)
	}
	_, pf := run(t, Config{Driver: "hns3", Scenario: "pfmemalloc", Era: "6.4", Packets: 5000})
	exactStats(t, "hns3 pfmemalloc", pf.Stats, sim.Stats{sim.StatAllocFast: 1031, sim.StatAllocSlow: 9, sim.StatAllocEmpty: 9, sim.StatRecycleReleasedRefcnt: 8})
	if pf.Stats[sim.StatRecycleReleasedRefcnt] == 0 {
		t.Errorf("pfmemalloc: no reserve page went back to be released: %v", pf.Stats)
	}
	// TCP segments: the header copy and one page_pool frag each; GRO moves
	// the frags into the aggregate (17 of them) and then into its
	// frag_list members, and frees the header-only skbs (NAPI_GRO_FREE).
	// hns3 sets no pp.napi (hns3_alloc_page_pool), so even in 6.4 none of
	// those frees recycles into the alloc cache: every page goes to the ring.
	lt, tcp := run(t, Config{Driver: "hns3", Scenario: "tcp-stream", Era: "6.4", Packets: 5000})
	exactStats(t, "hns3 tcp-stream", tcp.Stats, sim.Stats{sim.StatAllocFast: 5967, sim.StatAllocSlow: 10, sim.StatAllocEmpty: 10, sim.StatAllocRefill: 39, sim.StatRecycleRing: 2475})
	if c, r := tcp.Stats[sim.StatRecycleCached], tcp.Stats[sim.StatRecycleRing]; c != 0 || r == 0 || lt.stack.Coalesced != 0 {
		t.Errorf("tcp-stream: cached %d ring %d (want none cached: no pp.napi), coalesced %d", c, r, lt.stack.Coalesced)
	}
}

// The destroy scenario: deferred release, a warning after 60 s, then the
// pool is freed once the last page comes back, in every era; before 6.16
// the 32 late pages are unmapped on the unbound device, and before 6.10
// also synced for it (mvpp2's device is I/O-coherent: from 6.10 the sync is
// no call): 64, then 32 dma-unmap-after-unbind, the kernel's own, no rule
// broken; from 6.16 page_pool_scrub unmapped them at destroy.
func TestDestroy_DeferredReleaseAndWarning(t *testing.T) {
	for _, tc := range []struct {
		era         string
		afterUnbind int
	}{{"5.14", 64}, {"6.9", 64}, {"6.15", 32}, {"6.16", 0}} {
		l, r := run(t, Config{Driver: "mvpp2", Scenario: "destroy", Era: tc.era, Packets: 2000})
		if !l.pool.Destroyed() || !l.pool.Freed() || r.Inflight != 0 {
			t.Fatalf("%s: destroyed %v freed %v inflight %d", tc.era, l.pool.Destroyed(), l.pool.Freed(), r.Inflight)
		}
		if n := r.Violations.Counts[sim.KindDMAUnmapAfterUnbind]; n != tc.afterUnbind || r.Violations.Total() != n {
			t.Errorf("%s: violations %v, want %d dma-unmap-after-unbind only: %v", tc.era, r.Violations.Counts, tc.afterUnbind, first(r.Violations.List))
		}
		if k := l.KnownFailure(); (len(k) > 0) != (tc.afterUnbind > 0) {
			t.Errorf("%s: known failure %v", tc.era, k)
		}
		if l.m.NowPS()/1e12 < 90 {
			t.Errorf("%s: the run ended after %d s, want the 90 s hold", tc.era, l.m.NowPS()/1e12)
		}
		// DEFER_WARN_INTERVAL is 60 s: one "stalled pool shutdown" warning
		// in a 90 s hold, and it is in the trace.
		if l.pool.Warnings != 1 {
			t.Errorf("%s: %d stalled-shutdown warnings in a 90 s hold, want 1", tc.era, l.pool.Warnings)
		}
	}
	lt := mustNew(t, Config{Driver: "mvpp2", Scenario: "destroy", Era: "5.14", Packets: 2000, Knobs: teaching("destroy")})
	var warns []string
	lt.SetTracer(func(e sim.Event) {
		if e.Kind == sim.EvWarn {
			warns = append(warns, e.TraceLine())
		}
	})
	lt.Run()
	if len(warns) != 1 || !strings.Contains(warns[0], "page_pool_release_retry() stalled pool shutdown") || !strings.Contains(warns[0], "inflight") {
		t.Errorf("warnings %q", warns)
	}
}

// napi_pp_put_page from v6.6 (`napi_safe || in_softirq()`): the drop
// path's kfree_skb runs in the NAPI poll, in softirq on the NAPI's CPU, so
// from 6.8 every page goes straight back to the alloc cache; in 6.4 only a
// NAPI-safe free could, and kfree_skb is not one: the ptr_ring. Either way
// each of the 1024 descriptors' first buffers and each packet's refill is
// one allocation (fast + refill + slow).
func TestSoftirqDirect_DropRecyclesIntoTheCache(t *testing.T) {
	const n = 5000
	// bnxt links its NAPI to its pool (pp.napi, 6.4): drop's kfree_skb is
	// not NAPI-safe, so 6.4 puts the page into the ring; 6.6's in_softirq()
	// arm lets the same free recycle into the alloc cache. Full-size frames
	// in page mode (hw_gro=0): bnxt copies frames of up to 256 bytes and
	// reuses their buffers.
	eraCounters(t, "bnxt", "drop", n, []eraStats{
		{"6.4", sim.Stats{sim.StatAllocFast: 504, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8, sim.StatAllocRefill: 4999, sim.StatRecycleRing: n}, []string{"frame=1514"}},
		{"6.6", sim.Stats{sim.StatAllocFast: 5503, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8, sim.StatRecycleCached: n}, []string{"frame=1514", "hw_gro=0"}},
		{"6.8", sim.Stats{sim.StatAllocFast: 5503, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8, sim.StatRecycleCached: n}, []string{"frame=1514", "hw_gro=0"}},
	}, func(t *testing.T, st sim.Stats) {
		if allocs := st[sim.StatAllocFast] + st[sim.StatAllocRefill] + st[sim.StatAllocSlow]; allocs != 511+n {
			t.Errorf("%d allocations, want the ring's 511 (BNXT_DEFAULT_RX_RING_SIZE) and one per packet", allocs)
		}
	})
}

// TestPPNapi_IsOptIn: page_pool_params.napi is set only by the drivers
// that tie their locking to NAPI (bnxt 294e39e0d034, mlx5 a880f814739c,
// both 6.4); napi_pp_put_page recycles an skb's page into the alloc cache
// only through it. So the default run, mvpp2's drop in 6.8, puts every page
// into the ptr_ring, and its trace says why; bnxt's same run recycles into
// the cache. Before 6.4 no pool has a NAPI.
func TestPPNapi_IsOptIn(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		driver, era  string
		linked       bool
		cached, ring uint64
	}{
		{"mvpp2", "6.8", false, 0, n}, {"mvneta", "6.8", false, 0, n}, {"cpsw", "6.8", false, 0, n},
		{"lunar", "6.8", false, 0, n}, {"hns3", "6.8", false, 0, 0}, // hns3 copies 64-byte frames: the pool never sees them
		{"bnxt", "6.8", true, n, 0}, {"mlx5", "6.8", true, n, 0}, {"bnxt", "6.1", false, 0, n},
	} {
		var set []string
		if tc.driver == "bnxt" {
			set = []string{"frame=1514", "hw_gro=0"} // page mode; bnxt copies frames of up to 256 bytes (rx_copy_thresh)
		}
		l, r := run(t, Config{Driver: tc.driver, Scenario: "drop", Era: tc.era, Packets: n, Knobs: sim.MustOverrides(set...)})
		spec, _ := drivers.SpecByName(tc.driver)
		if got := l.drv.Pool.P.NAPI != nil; got != tc.linked || spec.LinksNAPI(l.m.Era) != tc.linked {
			t.Errorf("%s %s: pool linked to a NAPI %v, want %v", tc.driver, tc.era, got, tc.linked)
		}
		if c, g := r.Stats[sim.StatRecycleCached], r.Stats[sim.StatRecycleRing]; c != tc.cached || g != tc.ring {
			t.Errorf("%s %s drop: recycle_cached %d, recycle_ring %d; want %d, %d", tc.driver, tc.era, c, g, tc.cached, tc.ring)
		}
	}
	// The narration of the default run's recycle names the reason.
	l := mustNew(t, Config{Scenario: "drop", Packets: 200})
	l.Record(true)
	for l.Step() {
		rec, _ := l.StepRecord()
		for _, e := range rec.Events {
			if e.Func == sim.SymReturnSkbPage && strings.Contains(e.Why, "pp.napi") {
				return
			}
		}
	}
	t.Error("no step of the default run says that its pool has no NAPI (pp.napi)")
}

// TestCpsw_PoolMapsOnlyAndTheSubmitSyncs: cpsw's pool is created with
// PP_FLAG_DMA_MAP alone (cpsw_create_page_pool); the device sync happens in
// cpdma_chan_submit_si, once per posted buffer, for rx_packet_max (1522)
// bytes — not for a max_len on every recycle.
func TestCpsw_PoolMapsOnlyAndTheSubmitSyncs(t *testing.T) {
	l, r := run(t, Config{Driver: "cpsw", Scenario: "drop", Era: "6.8", Packets: 2000})
	if f := l.drv.Pool.P.Flags; f&pagepool.FlagDMASyncDev != 0 || f&pagepool.FlagDMAMap == 0 || l.drv.Pool.P.MaxLen != 0 {
		t.Errorf("cpsw's pool: flags %v, max_len %d; want PP_FLAG_DMA_MAP only", f, l.drv.Pool.P.MaxLen)
	}
	posted := r.Stats[sim.StatAllocFast] + r.Stats[sim.StatAllocSlow] + r.Stats[sim.StatAllocRefill]
	if got := l.a.DMA.SyncDevCalls; got != int64(posted) || l.a.DMA.SyncDevBytes != 1522*got {
		t.Errorf("%d syncs for the device (%d bytes), want one of 1522 bytes per posted buffer (%d)", got, l.a.DMA.SyncDevBytes, posted)
	}
	// Forcing the flag on makes the pool sync instead (and the driver not).
	l2, _ := run(t, Config{Driver: "cpsw", Scenario: "drop", Era: "6.8", Packets: 2000, Knobs: sim.MustOverrides("dma_sync_dev=1")})
	if f := l2.drv.Pool.P.Flags; f&pagepool.FlagDMASyncDev == 0 || l2.drv.Pool.P.MaxLen != mm.PageSize {
		t.Errorf("dma_sync_dev=1: flags %v, max_len %d", f, l2.drv.Pool.P.MaxLen)
	}
}

// TestXDPDrop_EachDriverGivesTheBufferBackItsWay: XDP_DROP builds no skb;
// mvpp2 and mvneta put the page into the alloc cache synced for the frame
// (page_pool_put_page(..., sync_len, true)), cpsw recycles the full page
// directly, bnxt reposts the buffer without the pool (after the ring's
// first fill it allocates nothing and recycles nothing), mlx5 from 6.6
// releases the page into the alloc cache at the refill and takes it again
// (one recycle_cached per drop).
func TestXDPDrop_EachDriverGivesTheBufferBackItsWay(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		driver string
		want   sim.Stats
	}{
		{"mvpp2", sim.Stats{sim.StatAllocFast: 6008, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16, sim.StatRecycleCached: n}},
		{"mvneta", sim.Stats{sim.StatAllocFast: 5496, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8, sim.StatRecycleCached: n}},
		{"cpsw", sim.Stats{sim.StatAllocFast: 5244, sim.StatAllocSlow: 4, sim.StatAllocEmpty: 4, sim.StatRecycleCached: n}},
		{"bnxt", sim.Stats{sim.StatAllocFast: 503, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8}},
		{"mlx5", sim.Stats{sim.StatAllocFast: 6000, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16, sim.StatRecycleCached: n}},
	} {
		l, r := run(t, Config{Driver: tc.driver, Scenario: "xdp-drop", Era: "6.8", Packets: n})
		exactStats(t, tc.driver+" xdp-drop", r.Stats, tc.want)
		// The narration names the driver's own function.
		spec, _ := drivers.SpecByName(tc.driver)
		if !narrates(t, Config{Driver: tc.driver, Scenario: "xdp-drop", Era: "6.8", Packets: 50}, spec.XDPDropFn) {
			t.Errorf("%s: no step narrates %s", tc.driver, spec.XDPDropFn)
		}
		if spec.XDPDrop == drivers.XDPDropReuse && narratesAfterOpen(t, Config{Driver: tc.driver, Scenario: "xdp-drop", Era: "6.8", Packets: 50}, sim.SymAllocPages) {
			t.Errorf("%s: a step after the ring's fill narrates page_pool_alloc_pages, but a reused buffer is not allocated", tc.driver)
		}
		if l.stack.Built != 0 {
			t.Errorf("%s: %d skbs built: XDP_DROP builds none", tc.driver, l.stack.Built)
		}
		if tc.driver == "mvpp2" {
			// Every page's first sync (at allocation) is max_len; each
			// XDP_DROP after that syncs the frame's 64 bytes.
			l2, _ := run(t, Config{Driver: tc.driver, Scenario: "xdp-drop", Era: "6.8", Packets: 2 * n})
			if d := l2.a.DMA.SyncDevBytes - l.a.DMA.SyncDevBytes; d != n*64 {
				t.Errorf("mvpp2: %d more bytes synced for the device over %d more drops, want %d (sync_len, not max_len)", d, n, n*64)
			}
		}
	}
}

// TestXDPTx_EachDriverReturnsTheFrameItsWay: XDP_TX builds no skb and maps
// nothing; the TX completion in the next poll gives each page back the
// driver's way: mvpp2 in bulk through the ptr_ring (page_pool_put_page_bulk,
// allow_direct false), mvneta into the alloc cache
// (xdp_return_frame_rx_napi), cpsw through the ring (xdp_return_frame),
// mlx5 into the alloc cache (page_pool_recycle_direct), bnxt not to the pool
// at all (its buffer waits on the RX ring for the completion's doorbell).
// 5000 frames are 78 full polls and 8 frames: the last 8 are still on the
// TX ring, so 4992 come back. A driver that refills at the end of its poll
// (mvneta, cpsw, mlx5) refills before the next poll's TX completion, so
// its pool hands out one more slow-path bulk (64 pages) than xdp-drop's.
func TestXDPTx_EachDriverReturnsTheFrameItsWay(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		driver string
		want   sim.Stats
		// syncBack: the bytes synced for the device each time a page comes
		// back, besides the submit's sync of the frame's 64 bytes: the
		// pool's max_len when the put has dma_sync_size -1 on a
		// PP_FLAG_DMA_SYNC_DEV pool (mvpp2, mvneta), cpsw's own sync of
		// rx_packet_max when it posts the buffer again.
		syncBack int64
	}{
		{"mvpp2", sim.Stats{sim.StatAllocFast: 5929, sim.StatAllocSlow: 17, sim.StatAllocEmpty: 17, sim.StatAllocRefill: 78, sim.StatRecycleRing: 4992}, 2048},
		{"mvneta", sim.Stats{sim.StatAllocFast: 5495, sim.StatAllocSlow: 9, sim.StatAllocEmpty: 9, sim.StatRecycleCached: 4992}, mm.PageSize - 256 - 320},
		{"cpsw", sim.Stats{sim.StatAllocFast: 5166, sim.StatAllocSlow: 5, sim.StatAllocEmpty: 5, sim.StatAllocRefill: 77, sim.StatRecycleRing: 4992}, 1522},
		{"bnxt", sim.Stats{sim.StatAllocFast: 503, sim.StatAllocSlow: 8, sim.StatAllocEmpty: 8}, 0},
		{"mlx5", sim.Stats{sim.StatAllocFast: 5999, sim.StatAllocSlow: 17, sim.StatAllocEmpty: 17, sim.StatRecycleCached: 4992}, mm.PageSize}, // PP_FLAG_DMA_SYNC_DEV, max_len PAGE_SIZE (4a5c5e25008f)
	} {
		cfg := Config{Driver: tc.driver, Scenario: "xdp-tx", Era: "6.8", Packets: n}
		l, r := run(t, cfg)
		exactStats(t, tc.driver+" xdp-tx", r.Stats, tc.want)
		if r.Violations.Total() != 0 || r.Lost != 0 {
			t.Errorf("%s: %d violations, %d lost", tc.driver, r.Violations.Total(), r.Lost)
		}
		if l.stack.Built != 0 || l.drv.Transmitted != n {
			t.Errorf("%s: %d skbs built, %d frames sent: XDP_TX builds none and sends every frame", tc.driver, l.stack.Built, l.drv.Transmitted)
		}
		// The narration names the driver's own submit and completion.
		spec, _ := drivers.SpecByName(tc.driver)
		short := Config{Driver: tc.driver, Scenario: "xdp-tx", Era: "6.8", Packets: 100}
		for _, fn := range []string{spec.XDPTxFn, spec.XDPTxDoneFn} {
			if !narrates(t, short, fn) {
				t.Errorf("%s: no step narrates %s", tc.driver, fn)
			}
		}
		if spec.XDPTx == drivers.XDPTxReuse && narratesAfterOpen(t, short, sim.SymAllocPages) {
			t.Errorf("%s: a step after the ring's fill narrates page_pool_alloc_pages, but the buffer is reused", tc.driver)
		}
		// The page is the pool's and stays mapped: no mapping per frame.
		// Each frame syncs its 64 bytes for the device at the submit, and
		// its page syncs syncBack more when it comes back (the 5000 more
		// frames bring 4992 more pages back).
		l2, _ := run(t, Config{Driver: tc.driver, Scenario: "xdp-tx", Era: "6.8", Packets: 2 * n})
		if d := l2.a.DMA.Maps - l.a.DMA.Maps; d != 0 {
			t.Errorf("%s: %d more DMA mappings over %d more frames, want none", tc.driver, d, n)
		}
		if d, want := l2.a.DMA.SyncDevBytes-l.a.DMA.SyncDevBytes, n*64+4992*tc.syncBack; d != want {
			t.Errorf("%s: %d more bytes synced for the device over %d more frames, want %d", tc.driver, d, n, want)
		}
	}
}

// TestXDPTx_BnxtBufferWaitsForTheDoorbell: at teaching sizes (16 RX
// descriptors) bnxt's buffers wait on the RX ring after XDP_TX; the poll
// ends short when none is posted, and the next poll's TX completion rings
// the doorbell before the NIC needs them: nothing is missed or allocated.
func TestXDPTx_BnxtBufferWaitsForTheDoorbell(t *testing.T) {
	l, r := run(t, Config{Driver: "bnxt", Scenario: "xdp-tx", Era: "6.8", Packets: 2000, Knobs: teaching("xdp-tx")})
	if r.Lost != 0 || l.drv.Missed != 0 || r.Violations.Total() != 0 {
		t.Fatalf("lost %d, missed %d, violations %d", r.Lost, l.drv.Missed, r.Violations.Total())
	}
	if narratesAfterOpen(t, Config{Driver: "bnxt", Scenario: "xdp-tx", Era: "6.8", Packets: 100, Knobs: teaching("xdp-tx")}, sim.SymAllocPages) {
		t.Errorf("a step after the ring's fill allocates: the held buffers should be reused")
	}
	if l.drv.Completions == 0 {
		t.Errorf("no poll ended short: the held buffers should empty the posted ring every 16 frames")
	}
}

// narrates reports whether a recorded step of cfg explains itself with text.
func narrates(t *testing.T, cfg Config, text string) bool {
	t.Helper()
	l := mustNew(t, cfg)
	l.Record(true)
	for l.Step() {
		rec, _ := l.StepRecord()
		for _, e := range rec.Events {
			if strings.Contains(e.Why, text) {
				return true
			}
		}
	}
	return false
}

// narratesAfterOpen reports whether a recorded step of cfg after the first
// (the ring's fill at open) has an event of function fn.
func narratesAfterOpen(t *testing.T, cfg Config, fn sim.Sym) bool {
	t.Helper()
	l := mustNew(t, cfg)
	l.Record(true)
	for l.Step() {
		rec, _ := l.StepRecord()
		if rec.Op.Index == 0 {
			continue
		}
		for _, e := range rec.Events {
			if e.Func == fn {
				return true
			}
		}
	}
	return false
}

// exactStats: runs are deterministic, so a scenario test states its
// counters exactly (the shape checks beside it say why they are so).
func exactStats(t *testing.T, what string, got, want sim.Stats) {
	t.Helper()
	if got != want {
		t.Errorf("%s: stats\n got %v\nwant %v", what, got, want)
	}
}

// eraStats is a run's exact counters in one era.
type eraStats struct {
	era  string
	want sim.Stats
	set  []string
}

// eraCounters runs driver/scenario for n packets in each era and compares
// the counters exactly (runs are deterministic) and the violations with
// none; also, when given, a check of what the counters must satisfy.
func eraCounters(t *testing.T, driver, scenario string, n int64, rows []eraStats, also func(*testing.T, sim.Stats)) {
	t.Helper()
	for _, tc := range rows {
		t.Run(tc.era, func(t *testing.T) {
			_, r := run(t, Config{Driver: driver, Scenario: scenario, Era: tc.era, Packets: n, Knobs: sim.MustOverrides(tc.set...)})
			exactStats(t, tc.era, r.Stats, tc.want)
			if v := r.Violations.Total(); v != 0 {
				t.Errorf("%d violations", v)
			}
			if also != nil {
				also(t, r.Stats)
			}
		})
	}
}

// 9c94bbf9a87b (v6.4): __xdp_build_skb_from_frame marks the skb built from
// a page_pool XDP frame for recycling instead of releasing the page: from
// 6.4 every page comes back and the pool stops living on its slow path.
// Before it, every page is a slow-path allocation (one bulk per 64). The
// veth NAPI runs on the redirecting CPU (the pool's NAPI CPU), in softirq:
// 6.4 returns the pages through the ring (the free is not NAPI-safe), 6.8
// straight into the cache (napi_safe || in_softirq(), v6.6).
func TestXDPFrameSkbRecycle_MarkedFrom6_4(t *testing.T) {
	const n = 20000
	eraCounters(t, "mlx5", "xdp-redirect", n, []eraStats{
		{"5.15", sim.Stats{sim.StatAllocFast: 20664, sim.StatAllocSlow: 328, sim.StatAllocEmpty: 328}, nil},
		{"6.4", sim.Stats{sim.StatAllocFast: 20664, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16, sim.StatAllocRefill: 312, sim.StatRecycleRing: n}, nil},
		{"6.8", sim.Stats{sim.StatAllocFast: 20976, sim.StatAllocSlow: 16, sim.StatAllocEmpty: 16, sim.StatRecycleCached: n}, nil},
	}, nil)
	if doc := List().Scenarios; !strings.Contains(fmt.Sprint(doc), "before 6.4 (9c94bbf9a87b marks it for recycling)") {
		t.Error("ppsim list does not say from when XDP-built skbs recycle")
	}
}

// rfc-v1 runs on its v5.12-rc base's single-page slow path: the alloc cache
// is never primed, so a driver that refills per frame (mvpp2) refills one
// page from the ring for every packet. Bulk refill (bulk_refill=1, v5.13)
// primes the cache with the rest of a 64-page bulk and the ring then hands
// back 64 pages at a time.
func TestBulkRefill_PrimesTheCacheOnTopOfRecycling(t *testing.T) {
	const n = 20000
	_, single := run(t, Config{Driver: "mvpp2", Scenario: "drop", Era: "rfc-v1", Packets: n})
	_, bulk := run(t, Config{Driver: "mvpp2", Scenario: "drop", Era: "rfc-v1", Packets: n, Knobs: sim.MustOverrides("bulk_refill=1")})
	want := sim.Stats{sim.StatAllocSlow: 1025, sim.StatAllocEmpty: 1025, sim.StatAllocRefill: n - 1, sim.StatRecycleRing: n}
	if single.Stats != want {
		t.Errorf("rfc-v1:\n got %v\nwant %v", single.Stats, want)
	}
	want = sim.Stats{sim.StatAllocFast: 20695, sim.StatAllocSlow: 17, sim.StatAllocEmpty: 17, sim.StatAllocRefill: 312, sim.StatRecycleRing: n}
	if bulk.Stats != want {
		t.Errorf("rfc-v1 with bulk_refill=1:\n got %v\nwant %v", bulk.Stats, want)
	}
	if bulk.Rate.Value <= single.Rate.Value {
		t.Errorf("bulk refill on top of recycling: %.1f -> %.1f kpps", single.Rate.Value, bulk.Rate.Value)
	}
	// predict --change bulk works on a profile that already recycles:
	// engine/perf's TestPredict_BulkOnARecyclingListing.
}

// veth_xdp_xmit → __veth_xdp_flush napi_schedule()s the veth's NAPI on the
// CPU that redirected into it: the NIC's RX, the redirect, the veth poll,
// __xdp_build_skb_from_frame and the free all run on the NAPI's CPU, which
// sets the rate — so the page allocator's cost there, and bulk refill
// (v5.13), change the rate while pages never come back (before 6.4).
// veth_cpu moves the veth NAPI (RPS, threaded NAPI): then the veth side
// bounds the rate on its own CPU.
func TestVethNAPI_RunsOnTheRedirectingCPU(t *testing.T) {
	_, r12 := run(t, Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.12", Packets: 20000})
	_, r13 := run(t, Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.13", Packets: 20000})
	_, moved := run(t, Config{Driver: "mlx5", Scenario: "xdp-redirect", Era: "5.13", Packets: 20000, Knobs: sim.MustOverrides("veth_cpu=1")})
	if r12.Bottleneck != 0 || r13.Bottleneck != 0 {
		t.Errorf("bottleneck cpu%d / cpu%d, want cpu0: everything runs where the frame was redirected", r12.Bottleneck, r13.Bottleneck)
	}
	if r13.Rate.Value <= r12.Rate.Value*1.02 {
		t.Errorf("bulk refill on the redirecting CPU: %.1f -> %.1f kpps, want a gain (pages never come back before 6.4)", r12.Rate.Value, r13.Rate.Value)
	}
	if moved.Bottleneck != 1 {
		t.Errorf("veth_cpu=1: bottleneck cpu%d, want the veth's cpu1", moved.Bottleneck)
	}
}

// Processes are not softirq: the socket reader (tcp_recvmsg) runs in
// process context, the NAPI poll in softirq — on two CPUs, and on one CPU
// that does both in turn. So a reader's ring put takes spin_lock_bh, and
// the 6.6 softirq rule never applies to it.
func TestContext_ReaderInProcessNAPIInSoftirq(t *testing.T) {
	for _, cpus := range []string{"cpus=2", "cpus=1"} {
		t.Run(cpus, func(t *testing.T) {
			l := mustNew(t, Config{Driver: "mvpp2", Scenario: "tcp-stream", Era: "5.14", Packets: 2000, Knobs: teaching("tcp-stream", cpus, "numa_nodes=1")})
			l.Record(true)
			seen := map[sim.Sym]bool{}
			for i := 0; i < 400 && l.Step(); i++ {
				rec, _ := l.StepRecord()
				op := rec.Op
				switch op.Func {
				case sim.SymTCPRecvmsg:
					if l.m.CPUs[op.CPU].Softirq {
						t.Fatalf("op %d: tcp_recvmsg on cpu%d in softirq", op.Index, op.CPU)
					}
					seen[op.Func] = true
				case sim.SymDrvRx, sim.SymAllocPages:
					if !l.m.CPUs[op.CPU].Softirq {
						t.Fatalf("op %d: %s on cpu%d in process context", op.Index, op.Name, op.CPU)
					}
					seen[op.Func] = true
				}
			}
			if !seen[sim.SymTCPRecvmsg] || !seen[sim.SymDrvRx] {
				t.Fatalf("saw %v", seen)
			}
		})
	}
	// The reader's ring puts pay spin_lock_bh: per put, the lock plus the
	// _bh part (33 cycles, pagepool's bhCycles) on the reader's CPU.
	l, r := run(t, Config{Driver: "mvpp2", Scenario: "tcp-stream", Era: "5.14", Packets: 8000})
	puts := float64(r.Stats[sim.StatRecycleRing])
	perPut := float64(l.m.SpentPS(1, sim.SymProducerLock)) / puts
	plat := l.m.Platform
	lock := float64(plat.Cycles[sim.SymProducerLock].Fixed * 1_000_000 / plat.MHz)
	bh := float64(33 * 1_000_000 / plat.MHz)
	if perPut < lock+0.9*bh {
		t.Errorf("reader's producer lock %.0f ps per put; the lock is %.0f and its _bh part %.0f: the reader is not in process context", perPut, lock, bh)
	}
}

// "bnxt_en: Let the page pool manage the DMA mapping" (v6.6): before it
// bnxt maps every RX buffer when it posts it and unmaps it when the frame
// arrives — a map and an unmap per packet even when every page recycles;
// from 6.6 the pool keeps the mapping. Full-size frames: a copied small
// frame's buffer stays mapped (bnxt_reuse_rx_data).
func TestBnxt_MapsAndUnmapsEachBufferBefore66(t *testing.T) {
	l64, r64 := run(t, Config{Driver: "bnxt", Scenario: "drop", Era: "6.4", Packets: 20000, Knobs: sim.MustOverrides("frame=1514")})
	l68, r68 := run(t, Config{Driver: "bnxt", Scenario: "drop", Era: "6.6", Packets: 20000, Knobs: sim.MustOverrides("frame=1514", "hw_gro=0")})
	n64, n68 := l64.SymbolNS(), l68.SymbolNS()
	if n64["dma_map_page_attrs"] == 0 || n64["dma_unmap_page_attrs"] == 0 || n68["dma_map_page_attrs"] != 0 || n68["dma_unmap_page_attrs"] != 0 {
		t.Errorf("map/unmap ns per packet: 6.4 %.1f/%.1f, 6.8 %.1f/%.1f", n64["dma_map_page_attrs"], n64["dma_unmap_page_attrs"], n68["dma_map_page_attrs"], n68["dma_unmap_page_attrs"])
	}
	if r64.Stats[sim.StatRecycleCached]+r64.Stats[sim.StatRecycleRing] < 19000 || r68.Rate.Value <= r64.Rate.Value || r64.Violations.Total()+r68.Violations.Total() != 0 {
		t.Errorf("6.4 %.1f kpps (recycled %d), 6.8 %.1f kpps: violations %d", r64.Rate.Value, r64.Stats[sim.StatRecycleCached]+r64.Stats[sim.StatRecycleRing], r68.Rate.Value, r64.Violations.Total()+r68.Violations.Total())
	}
	if err := (Config{Driver: "bnxt", Scenario: "drop", Era: "6.4", Knobs: sim.MustOverrides("dma_sync_dev=1")}).Validate(); err == nil {
		t.Errorf("dma_sync_dev=1 accepted on bnxt 6.4, whose pool does not map")
	}
}

// TestBnxtTxInt_NapiConsumeSkbFrom6_19: bnxt's TX completion frees the
// forwarded skbs with dev_kfree_skb_any until "eth: bnxt: make use of
// napi_consume_skb()" (362a161b2582, v6.19), with napi_consume_skb after
// it: 6.18 names the one, 6.19 and the eras after it the other, and never
// both in one run.
func TestBnxtTxInt_NapiConsumeSkbFrom6_19(t *testing.T) {
	for _, tc := range []struct {
		era     string
		consume bool
	}{{"6.18", false}, {"6.19", true}, {"7.1-rc1", true}, {"7.1", true}} {
		l := mustNew(t, Config{Driver: "bnxt", Scenario: "forward", Era: tc.era, Packets: 400})
		frees := map[sim.Sym]int{}
		l.SetTracer(func(e sim.Event) {
			if e.Func == sim.SymNapiConsumeSKB || e.Func == sim.SymKfreeSKB {
				frees[e.Func]++
			}
		})
		l.Run()
		if got := frees[sim.SymNapiConsumeSKB] > 0; got != tc.consume || len(frees) != 1 {
			t.Errorf("%s: bnxt's TX completion frees %v, want napi_consume_skb %v only", tc.era, frees, tc.consume)
		}
	}
}

// TestMlx5XDPDrop_ThroughThePoolFrom6_6: mlx5's XDP_DROP leaves the page's
// fragment where it was, and the WQE refill releases it into the pool's
// alloc cache and takes it again (read in 7.3's en_rx.c, docs/era-7.3.md
// part 2 §k; the frag_page release is in 6.6.y, Spec.XDPDropRefillFrom):
// one recycle_cached and one alloc_fast per dropped frame after the fill.
// 6.4 keeps the page on the RQ (not pinned otherwise): the pool idles.
func TestMlx5XDPDrop_ThroughThePoolFrom6_6(t *testing.T) {
	const n = 3000
	for _, tc := range []struct {
		era  string
		pool bool
	}{{"6.4", false}, {"6.6", true}, {"7.1", true}, {"7.3", true}} {
		l := mustNew(t, Config{Driver: "mlx5", Scenario: "xdp-drop", Era: tc.era, Packets: n})
		l.Run()
		st := l.Results().Stats
		if got := st[sim.StatRecycleCached] >= n-64 && st[sim.StatAllocFast] >= n-64; got != tc.pool {
			t.Errorf("%s: %d frames dropped, recycle_cached %d, alloc_fast %d: through the pool %v, want %v", tc.era, n, st[sim.StatRecycleCached], st[sim.StatAllocFast], got, tc.pool)
		}
		if !tc.pool && st[sim.StatRecycleCached] != 0 {
			t.Errorf("%s: recycle_cached %d, want 0 (the page stays on the RQ)", tc.era, st[sim.StatRecycleCached])
		}
	}
}

// TestBnxtHeadFrags_FromThePool: bnxt's head buffers are page_pool
// fragments from 6.13 ("eth: bnxt: use page pool for head frags",
// 7ed816be35ab): its 511 RX descriptors' heads are filled at open, six to
// a page in 6.13 (640-byte rx_buf_size: 86 pages) and four from 6.15
// (1024: 128 pages), beside the aggregation ring's 2012 fast allocations
// (6.12's total); then the 256 TPA contexts' spare heads
// (bnxt_alloc_one_tpa_info_data, MAX_TPA_P5): the last head page's free
// fragments first (five in 6.13, one from 6.15), then 42 and 63 fast
// allocations more (64 pages from 6.15, the first of them the pool's
// slow path). A head of up to the copybreak (256) is copied and its
// fragment stays on its slot: drop's 64-byte frames then take nothing
// more. 7.3 copies nothing (rx_copybreak 0, read in its
// bnxt_init_ring_params): every frame is built over its head fragment and
// the slot gets a new one, a page per four frames, back into the cache
// when the fourth skb is freed — but for the page the last three head
// slots share with the first spare, which the spare holds all run (drop
// sends no TCP: no aggregation rotates the spares).
func TestBnxtHeadFrags_FromThePool(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		era                 string
		allocFast, recycled uint64
	}{{"6.12", 2012, 0}, {"6.13", 2012 + 84 + 42, 0}, {"7.1", 2012 + 126 + 63, 0}, {"7.3", 2012 + 126 + 63 + n/4, n/4 - 1}} {
		l := mustNew(t, Config{Driver: "bnxt", Scenario: "drop", Era: tc.era, Packets: n})
		l.Run()
		st := l.Results().Stats
		if st[sim.StatAllocFast] != tc.allocFast || st[sim.StatRecycleCached] != tc.recycled {
			t.Errorf("%s: alloc_fast %d, recycle_cached %d; want %d, %d", tc.era, st[sim.StatAllocFast], st[sim.StatRecycleCached], tc.allocFast, tc.recycled)
		}
	}
}

// TestBnxtHeadRing_From6_13: with hardware GRO off (hw_gro=0) and no XDP
// program, bnxt from 6.13 (7ed816be35ab) runs its normal path without an
// aggregation ring: every RX buffer a 2112-byte page_pool fragment
// (rx_buf_size at MTU 1500, one to a page), a frame over the copybreak
// built over it (bnxt_rx_skb), one under it copied and its buffer reused
// (bnxt_copy_skb). 6.12 runs page mode there (its normal path's buffers are
// page_frag memory the pool never sees), with its XDP program per frame.
func TestBnxtHeadRing_From6_13(t *testing.T) {
	const n = 20_000
	for _, tc := range []struct {
		era, scenario string
		mode          drivers.BufferMode
		xdpRuns       bool
		perFrame      bool // a pool allocation per frame
	}{
		{"6.12", "drop", drivers.PagePerFrame, true, false},    // page mode: 64-byte frames copied, buffer reused
		{"6.13", "drop", drivers.HeadFrags, false, false},      // copybreak 256: copied, buffer reused
		{"7.3", "drop", drivers.HeadFrags, false, true},        // copybreak 0: every frame built over its fragment
		{"6.13", "tcp-stream", drivers.HeadFrags, false, true}, // 1514-byte frames built over their fragments
		{"6.13", "xdp-drop", drivers.PagePerFrame, true, false},
	} {
		l, r := run(t, Config{Driver: "bnxt", Scenario: tc.scenario, Era: tc.era, Packets: n, Knobs: sim.MustOverrides("hw_gro=0")})
		if l.drv.Mode != tc.mode {
			t.Errorf("%s %s: buffer mode %s, want %s", tc.scenario, tc.era, l.drv.Mode, tc.mode)
		}
		if ran := l.spentBySymbol()["bpf_prog_run_xdp"] > 0; ran != tc.xdpRuns {
			t.Errorf("%s %s: an XDP program ran %v, want %v", tc.scenario, tc.era, ran, tc.xdpRuns)
		}
		allocs := r.Stats[sim.StatAllocFast] + r.Stats[sim.StatAllocSlow] + r.Stats[sim.StatAllocRefill]
		if perFrame := allocs >= n; perFrame != tc.perFrame {
			t.Errorf("%s %s: %d pool allocations for %d frames: per frame %v, want %v", tc.scenario, tc.era, allocs, n, perFrame, tc.perFrame)
		}
		if r.Violations.Total() != 0 {
			t.Errorf("%s %s: %v", tc.scenario, tc.era, first(r.Violations.List))
		}
	}
}

// spareVisitor collects what a driver reports holding as TPA contexts'
// spare heads (Driver.HeldPages).
type spareVisitor struct{ at []string }

func (v *spareVisitor) HeldPage(pg *mm.Page, off, size int, what string) {
	if strings.Contains(what, "spare head buffer") {
		v.at = append(v.at, fmt.Sprintf("%d+%d", pg.PFN, off))
	}
}

// TestBnxtTPASpares_bnxt_alloc_one_tpa_info_data: from 6.13 (7ed816be35ab)
// each of bnxt's TPA contexts holds a spare head fragment from open
// (bnxt_alloc_one_tpa_info_data; MAX_TPA_P5 = 256 at kernel sizes, one per
// RX descriptor below that). TPA_START gives the first segment's ring slot
// the context's spare and the context takes the frame's buffer
// (bnxt_tpa_start); bnxt_tpa_end builds over it and gives the context a
// new fragment. The one flow uses context 0 (bnxt_alloc_agg_idx: the lowest
// free index), whose spare changes with every aggregation, while the
// others' stay the ones allocated at open. 6.12's heads are page_frag
// memory: no spares.
func TestBnxtTPASpares_bnxt_alloc_one_tpa_info_data(t *testing.T) {
	for _, tc := range []struct {
		era, sizes string
		spares     int
	}{{"6.12", "", 0}, {"6.13", "", 256}, {"7.1", "", 256}, {"7.1", "rx_descs=16", 16}} {
		cfg := Config{Driver: "bnxt", Scenario: "tcp-stream", Era: tc.era, Packets: 5000, Knobs: sim.MustOverrides("hw_gro=1")}
		if tc.sizes != "" {
			cfg.Knobs = sim.MustOverrides("hw_gro=1", tc.sizes, "pool_size=32")
		}
		l := mustNew(t, cfg)
		l.RunN(1)
		var open spareVisitor
		l.drv.HeldPages(&open)
		if len(open.at) != tc.spares {
			t.Fatalf("%s %s: %d spares held after open, want %d", tc.era, tc.sizes, len(open.at), tc.spares)
		}
		l.Run()
		var end spareVisitor
		l.drv.HeldPages(&end)
		r := l.Results()
		if r.Violations.Total() != 0 {
			t.Errorf("%s %s: %v", tc.era, tc.sizes, first(r.Violations.List))
		}
		if tc.spares == 0 {
			continue
		}
		if len(end.at) != tc.spares || end.at[0] == open.at[0] || !slices.Equal(end.at[1:], open.at[1:]) {
			t.Errorf("%s %s: spares %v… at open, %v… at the end: want context 0's changed and the others' kept", tc.era, tc.sizes, open.at[:2], end.at[:2])
		}
	}
}

// TestBnxtHDSThreshold_640From6_14_99d028c63457: on bnxt's path with an
// aggregation ring a frame up to the header-data split threshold lands
// whole in its head buffer, a larger one is split (its head in the head
// buffer, the rest in an aggregation buffer). The threshold was
// rx_copy_thresh, 256, until "eth: bnxt: update header sizing defaults"
// (99d028c63457, v6.14: the model's 6.15) raised it to 640 ("300-400B RPC
// requests are fairly common ... bnxt ends up splitting those"). 4 000
// dropped frames, hw_gro=1; the allocations beyond the fill at open
// (2 138 fast in 6.13, 2 201 from 6.15): a 400-byte frame takes an
// aggregation buffer per frame in 6.13 (its 256-byte head copied) and
// none in 6.15 (built over its head fragment, four to a page: 1 000); a
// 700-byte one is split in both.
func TestBnxtHDSThreshold_640From6_14_99d028c63457(t *testing.T) {
	for _, tc := range []struct {
		era, frame string
		allocFast  uint64
	}{
		{"6.13", "frame=400", 2138 + 4000},
		{"6.15", "frame=400", 2201 + 1000},
		{"6.15", "frame=700", 2201 + 4000},
		{"6.13", "frame=200", 2138},
	} {
		_, r := run(t, Config{Driver: "bnxt", Scenario: "drop", Era: tc.era, Packets: 4000, Knobs: sim.MustOverrides("hw_gro=1", tc.frame)})
		if got := r.Stats[sim.StatAllocFast]; got != tc.allocFast || r.Violations.Total() != 0 {
			t.Errorf("%s %s: alloc_fast %d (violations %d), want %d", tc.era, tc.frame, got, r.Violations.Total(), tc.allocFast)
		}
	}
}
