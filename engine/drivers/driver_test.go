package drivers

import (
	"testing"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/sim/simtest"
	"pplab/engine/skb"
)

// newDriver builds one RX queue of the named driver on its platform with a
// small ring, posted and ready.
func newDriver(t *testing.T, name, era string, opts ...string) *Driver {
	t.Helper()
	spec, err := SpecByName(name)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := simtest.Machine(t, era, spec.Platform, append([]string{"cpus=2"}, opts...)...)
	reg := pagepool.NewRegistry(mm.NewAllocator(m))
	d, err := New(skb.NewStack(reg), reg, spec, spec.Buffer, pagepool.NewNAPI(0), 8, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.Refill(); n != 8 {
		t.Fatalf("refill posted %d of 8", n)
	}
	return d
}

// Each RX buffer model hands the stack the skb shape its kernel driver
// builds: build_skb over the buffer (head_frag), further buffers as frags
// (mvneta multi-buffer), or hns3's small copied head with the buffer as a
// page_pool frag; frames up to HNS3_RX_HEAD_SIZE are copied whole and their
// buffer stays on its descriptor.
func TestReceive_BufferModels(t *testing.T) {
	tests := []struct {
		driver, era        string
		length, hdr        int
		headFrag           bool
		headlen, nrFrags   int
		marked, reusesSlot bool
	}{
		{"mvpp2", "5.14", 1514, hdrTCP, true, 1514, 0, true, false},
		{"mvpp2", "5.12", 1514, hdrTCP, true, 1514, 0, false, false},
		{"mvneta", "5.14", 6000, hdrUDP, true, 4096 - skb.ShinfoSize(&sim.Espressobin) - skb.NetSkbPad, 1, true, false},
		{"hns3", "5.15", 1514, hdrTCP, false, hdrTCP, 1, true, false},
		{"hns3", "6.4", 3000, hdrUDP, false, hdrUDP, 2, true, false},
		{"hns3", "6.8", 64, hdrEth, false, 64, 0, false, true},
		{"hns3", "6.8", 256, hdrEth, false, 256, 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.driver+"/"+tc.era, func(t *testing.T) {
			d := newDriver(t, tc.driver, tc.era)
			m := d.S.M
			var before sim.Stats
			d.Pool.GetStats(&before)
			sk, err := d.Receive(tc.length, tc.hdr)
			if err != nil || sk == nil {
				t.Fatalf("receive: %v", err)
			}
			if sk.Len != tc.length || sk.HeadFrag != tc.headFrag || sk.Headlen() != tc.headlen || sk.D.NrFrags != tc.nrFrags || sk.PPRecycle != tc.marked {
				t.Fatalf("got %v headlen %d, want head_frag=%v headlen %d frags %d pp_recycle=%v", sk, sk.Headlen(), tc.headFrag, tc.headlen, tc.nrFrags, tc.marked)
			}
			d.Refill()
			var after sim.Stats
			d.Pool.GetStats(&after)
			allocs := after[sim.StatAllocFast] + after[sim.StatAllocSlow] - before[sim.StatAllocFast] - before[sim.StatAllocSlow]
			if reused := allocs == 0; reused != tc.reusesSlot || d.Posted() != d.RingSize() {
				t.Errorf("refill: %d pool allocations, %d of %d posted; want the buffer reused: %v", allocs, d.Posted(), d.RingSize(), tc.reusesSlot)
			}
			simtest.Clean(t, m)
			m.Begin(0, sim.SymKfreeSKB)
			d.S.KfreeSKB(0, sk)
			d.Unload()
			simtest.Clean(t, m)
		})
	}
}

// dev_page_is_reusable: a pfmemalloc buffer is never kept for reuse; hns3
// hands it back with page_pool_put_full_page and the pool releases it.
func TestReceive_Hns3PfmemallocNotReused(t *testing.T) {
	d := newDriver(t, "hns3", "6.4", "pfmemalloc_ppm=1000000")
	m := d.S.M
	sk, err := d.Receive(64, hdrEth)
	if err != nil || sk == nil {
		t.Fatalf("receive: %v", err)
	}
	if dd := &d.ring[0]; dd.reuse {
		t.Fatal("a pfmemalloc buffer was kept for reuse")
	}
	var st sim.Stats
	d.Pool.GetStats(&st)
	if st[sim.StatRecycleReleasedRefcnt] != 0 { // the other half of the page is still posted
		t.Errorf("released before the page's last fragment came back: %v", st)
	}
	m.Begin(0, sim.SymKfreeSKB)
	d.S.KfreeSKB(0, sk)
	d.Unload()
	d.Pool.GetStats(&st)
	if st[sim.StatRecycleReleasedRefcnt] == 0 {
		t.Errorf("pfmemalloc pages were not released: %v", st)
	}
	simtest.Clean(t, m)
}

// ndo_start_xmit maps the linear part and every frag; TX completion unmaps
// as many. A kmalloc'ed head (hns3, or any skb after skb_cow) is mapped too.
// Header bytes eth_get_headlen finds (the workloads' HdrEth, HdrUDP, HdrTCP).
const (
	hdrEth = 14
	hdrUDP = 42
	hdrTCP = 66
)

func TestMapTX_LinearAndFrags(t *testing.T) {
	d := newDriver(t, "hns3", "6.4")
	m := d.S.M
	dma := &d.S.A.DMA
	sk, _ := d.Receive(3000, hdrUDP)
	if !d.MapTX(0, sk) || dma.TxMapped != 3 {
		t.Fatalf("mapped %d, want head + 2 frags", dma.TxMapped)
	}
	d.UnmapTX(0, sk)
	if dma.TxMapped != 0 {
		t.Fatalf("%d TX mappings left", dma.TxMapped)
	}
	m.Begin(0, sim.SymKfreeSKB)
	d.S.KfreeSKB(0, sk)
	d.Unload()
	simtest.Clean(t, m)
}

// A NAPI poll ends at an empty completion queue, not only at its budget
// (mlx5e_napi_poll: mlx5e_poll_rx_cq processes the CQEs the NIC wrote, then
// mlx5e_post_rx_wqes, then napi_complete_done when work_done < budget;
// mvneta_rx_swbm: min(budget, the filled descriptors), then
// mvneta_rx_refill_queue). With a ring smaller than the budget, a driver
// that refills at the end of its poll must end the poll when the next frame
// finds too few descriptors, refill, and receive the frame — not let the
// NIC drop the rest of a 64-frame budget. A frame that needs two buffers
// (mvneta multi-buffer) ends the poll when one is left. A driver that
// refills per frame never runs dry.
func TestPoll_EndsShortWhenTheRingRunsDry(t *testing.T) {
	const frames = 10 * Budget
	tests := []struct {
		name, driver, era string
		length            int
		xdp               bool
		completions       int64 // polls ended short (napi_complete_done)
	}{
		// 8 descriptors: a poll takes 8 frames, then ends short (the first
		// poll starts with the ring newDriver posted).
		{"mlx5 xdp", "mlx5", "6.8", 64, true, frames/8 - 1},
		{"mvneta xdp", "mvneta", "6.8", 64, true, frames/8 - 1},
		{"mvneta skb", "mvneta", "6.8", 64, false, frames/8 - 1},
		{"mvneta multi-buffer", "mvneta", "6.8", 6000, false, frames/4 - 1},
		{"mvpp2 refills per frame", "mvpp2", "6.8", 64, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, tc.driver, tc.era)
			m := d.S.M
			m.CPUs[0].Softirq = true
			for i := 0; i < frames; i++ {
				d.Poll(tc.length)
				m.Begin(0, sim.SymDrvRx)
				if tc.xdp {
					f, ok := d.ReceiveXDP(tc.length, "the veth")
					if !ok {
						continue
					}
					d.Pool.PutFullPage(0, f.Page, true) // XDP_DROP-like return of the buffer
					continue
				}
				sk, err := d.Receive(tc.length, hdrEth)
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if sk == nil {
					continue
				}
				m.Begin(0, sim.SymKfreeSKB)
				d.S.KfreeSKB(0, sk)
			}
			need := int64(d.Need(tc.length))
			if d.Missed != 0 || d.Dropped != 0 || d.Received != frames*need {
				t.Errorf("missed %d, dropped %d, received %d buffers: want every one of %d frames received (%d buffers each)", d.Missed, d.Dropped, d.Received, frames, need)
			}
			if d.Completions != tc.completions {
				t.Errorf("%d polls ended short, want %d", d.Completions, tc.completions)
			}
			d.Unload()
			simtest.Clean(t, m)
		})
	}
}

// TestSpecs_EraNamesResolve: an era a spec names (from which it marks skbs,
// links its NAPI, lets the pool map) is one of the model's; a misspelt one
// would silently mean "never".
func TestSpecs_EraNamesResolve(t *testing.T) {
	for _, s := range Specs {
		for field, name := range map[string]string{"RecycleFrom": s.RecycleFrom, "PPNapiFrom": s.PPNapiFrom, "NetdevFrom": s.NetdevFrom, "AggFrom": s.AggFrom,
			"PoolDMAFrom": s.PoolDMAFrom, "RxCacheUntil": s.RxCacheUntil, "QueueMgmtFrom": s.QueueMgmtFrom, "UnreadableFrom": s.UnreadableFrom, "TxNapiConsumeFrom": s.TxNapiConsumeFrom, "XDPDropRefillFrom": s.XDPDropRefillFrom, "HeadPoolFrom": s.HeadPoolFrom, "CopybreakZeroFrom": s.CopybreakZeroFrom} {
			if name == "" {
				continue
			}
			if _, err := sim.EraByName(name); err != nil {
				t.Errorf("%s.%s = %q: %v", s.Name, field, name, err)
			}
		}
		if s.XDP != (s.XDPDrop != XDPDropNone) || (s.XDPDrop != XDPDropNone) != (s.XDPDropFn != "") {
			t.Errorf("%s: XDP %v, XDPDrop %v, XDPDropFn %q: a driver with XDP says how it drops and in which function", s.Name, s.XDP, s.XDPDrop, s.XDPDropFn)
		}
		if s.Runs("xdp-drop") != (s.XDPDrop != XDPDropNone) {
			t.Errorf("%s: runs xdp-drop %v, but its XDP_DROP path is %v", s.Name, s.Runs("xdp-drop"), s.XDPDrop)
		}
		if s.XDP != (s.XDPTx != XDPTxNone) || (s.XDPTx != XDPTxNone) != (s.XDPTxFn != "" && s.XDPTxDoneFn != "") {
			t.Errorf("%s: XDP %v, XDPTx %v, XDPTxFn %q, XDPTxDoneFn %q: a driver with XDP says how it sends XDP_TX frames and gives them back, and in which functions", s.Name, s.XDP, s.XDPTx, s.XDPTxFn, s.XDPTxDoneFn)
		}
		if s.Runs("xdp-tx") != (s.XDPTx != XDPTxNone) {
			t.Errorf("%s: runs xdp-tx %v, but its XDP_TX path is %v", s.Name, s.Runs("xdp-tx"), s.XDPTx)
		}
		if s.Runs("xdp-redirect") != (s.XDPNdo != XDPNdoNone) || (s.XDPNdo != XDPNdoNone) != (s.XDPNdoFn != "" && s.XDPNdoDoneFn != "") {
			t.Errorf("%s: runs xdp-redirect %v, XDPNdo %v, XDPNdoFn %q, XDPNdoDoneFn %q: a driver that redirects says how its second port sends a redirected frame and gives it back, and in which functions", s.Name, s.Runs("xdp-redirect"), s.XDPNdo, s.XDPNdoFn, s.XDPNdoDoneFn)
		}
	}
}
