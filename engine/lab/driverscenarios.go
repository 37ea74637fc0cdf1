package lab

import (
	"pplab/engine/drivers"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
	"pplab/engine/workload"
	"slices"
)

// The driver scenarios run a driver model (engine/drivers)
// with its NAPI on cpu0 and the application (socket reader, tap reader, veth
// peer) on cpu1. The driver's platform sets the costs unless --platform says
// otherwise; the driver's pool parameters apply unless a knob overrides them.

// driverKnobs matter to every driver scenario.
var driverKnobs = []sim.Knob{sim.KnobRxDescs, sim.KnobPoolSize, sim.KnobFrame, sim.KnobBulk, sim.KnobCoherent, sim.KnobIOMMU,
	sim.KnobAllocFailPPM, sim.KnobDMAMapFailPPM, sim.KnobPreemptRT, sim.KnobSRSO, sim.KnobPPNapi}

func init() {
	type sc struct {
		name, def, doc string
		eras           []string
		known          func(KnownCase) []sim.Kind
		knobs          map[sim.Knob]int64
		matters        []sim.Knob // before the knobs every driver scenario has
		refuses        func(*drivers.Spec, *sim.Era) *sim.FieldError
	}
	for _, s := range []sc{
		{name: workload.WDrop, def: "mvpp2", matters: []sim.Knob{sim.KnobHWGRO}, doc: "64-byte frames with an invalid ethertype: RX, build_skb, eth_type_trans, dropped early in __netif_receive_skb_core, kfree_skb in NAPI context"},
		{name: workload.WTCPStream, def: "bnxt", matters: []sim.Knob{sim.KnobGRO, sim.KnobHWGRO, sim.KnobReadNS, sim.KnobSkbDeferMax, sim.KnobRcvbuf, sim.KnobTapEvery}, doc: "TCP receive of one flow: GRO aggregates segments (heads stolen into frags, then a frag_list, up to 64 KB), tcp_v4_rcv queues the aggregate; the application reads and frees each skb on its own CPU — from 5.19 through skb_attempt_defer_free, flushed NAPI-safe by net_rx_action on the NAPI CPU; a slower reader closes the window and the NAPI completes (list_owner = -1); with hardware GRO (bnxt from 6.6, hw_gro) the NIC aggregates 33 segments itself and bnxt_tpa_end builds one skb with no frag_list"},
		{name: workload.WForward, def: "lunar", matters: []sim.Knob{sim.KnobTxCPU, sim.KnobTapEvery, sim.KnobMaxLen, sim.KnobDMASyncDev, sim.KnobHWGRO}, doc: "NAT forwarding: RX, header rewrite (skb_cow), TX with a DMA mapping, TX completion frees the skb (napi_consume_skb where the driver uses it)"},
		{name: workload.WXDPRedirect, def: "mlx5", matters: []sim.Knob{sim.KnobRedirectTo, sim.KnobBulkRefill, sim.KnobVethCPU, sim.KnobTxCPU, sim.KnobBulk},
			doc: "XDP_REDIRECT into a veth whose NAPI runs on the redirecting CPU (veth_cpu moves it); XDP_PASS there builds an skb from the frame, which cannot return its page to the pool before 6.4 (9c94bbf9a87b marks it for recycling): the pool refills from the page allocator. redirect_to=1 redirects to a second port of the same driver instead: its ndo_xdp_xmit maps each frame for transmit on its own device, and its TX completion (its NAPI, on tx_cpu: the redirecting CPU by default) unmaps it and returns the page — mvpp2, mvneta and mlx5 through xdp_return_frame_bulk (page_pool_put_page_bulk), bnxt through xdp_return_frame — into the ptr_ring before 6.10; from 6.10 page_pool_napi_local sends mlx5's and bnxt's pages into the alloc cache while their RX NAPI is scheduled on that CPU (direct bulk recycling, 39806b96c89a; 4a96a4e807c3), mvpp2's and mvneta's (no pp.napi) still to the ring"},
		{name: workload.WXDPDrop, def: "mvpp2", doc: "the XDP program drops every frame (XDP_DROP) in the NAPI poll, page_pool's canonical use: no skb; mvpp2 and mvneta put the page straight into the alloc cache synced for the frame's length (page_pool_put_page(..., true)), cpsw recycles it directly (page_pool_recycle_direct), bnxt and mlx5 hand the buffer back to the NIC without the pool (bnxt_reuse_rx_data; mlx5e_xdp_handle keeps the page on its RQ) — mlx5 before 6.4 through its own RX page cache (mlx5e_free_rx_wqe puts the page there, the refill reuses it: rx_cache_reuse), and from 6.6 through the pool: the WQE refill releases the dropped page into the alloc cache and takes it again (recycle_cached and alloc_fast per drop)"},
		{name: workload.WXDPTx, def: "mvpp2", doc: "the XDP program sends every frame back out of the same NIC (XDP_TX) from the page it arrived in (synced for the device, not mapped), and the TX completion in the same NAPI gives the page back the driver's way: mvpp2 in bulk into the ptr_ring (xdp_return_frame_bulk → page_pool_put_page_bulk), mvneta into the alloc cache (xdp_return_frame_rx_napi), cpsw into the ptr_ring (xdp_return_frame), mlx5 into the alloc cache (page_pool_recycle_direct), bnxt not to the pool: bnxt_reuse_rx_data put the buffer back on the RX ring and the completion's RX doorbell gives it to the NIC"},
		{name: workload.WSplitPage, def: "mlx5", eras: erasWhere(func(e *sim.Era) bool { return e.SkbRecycle != sim.SkbRecycleNone }),
			known: splitPageCaveat,
			doc:   "the driver splits each page into two RX buffers: half-page flip before 5.15 (the split-page caveat: freeing one half recycles the page under the NIC), page_pool_alloc_frag from 5.15; both marking skbs in every era that can — for mlx5 before 6.4 a model construction, not its code (mlx5 split its pages with page_ref_inc per fragment behind its own RX cache and never marked skbs, so it never met the caveat): the run has no driver cache and the pool maps"},
		{name: workload.WCloneTap, def: "bnxt", matters: []sim.Knob{sim.KnobTapEvery, sim.KnobHWGRO}, doc: "an AF_PACKET tap (packet_rcv) clones every 4th packet: the original is consumed in NAPI context, the clone freed 8 packets later by the tap reader on cpu1"},
		{name: workload.WCoalesceMixed, def: "mvpp2", matters: []sim.Knob{sim.KnobHWGRO}, doc: "skbs from a page_pool driver and from loopback (page_frag heads) meet in one receive queue, two of each in turn: skb_try_coalesce into the tail, the reader drains the queue on cpu1"},
		{name: workload.WDestroy, def: "mvpp2", known: destroyUnbindFailure, matters: []sim.Knob{sim.KnobReleaseRace, sim.KnobHeld, sim.KnobTxCPU, sim.KnobHWGRO},
			doc: "the driver is unloaded while a socket still holds 32 skbs, and the device unbound: page_pool_destroy defers the release, retries every 1 s, warns every 60 s; the reader frees one a second, the last after 90 s. Before 6.16 each late page is unmapped on the unbound device, and synced for it first where the sync is a call (a non-coherent device, or any device before 6.10's dma_dev_need_sync) (the IOMMU crash ee62ce7a1d90 fixed: from 6.16 page_pool_scrub unmaps every page still mapped at destroy); release_race=1 stops the last free inside page_pool_recycle_in_ring while the retry frees the pool (fixed by 271683bb2cf3 in 6.16). held=1: the 32 pages are XDP frames redirected to a second port (xdp-redirect's redirect_to=1) whose TX its link partner's flow control stalls; the unload runs from cpu1, and the port's TX completion returns one frame a second through xdp_return_frame_bulk → page_pool_put_page_bulk (mvpp2, mvneta, mlx5) or xdp_return_frame (bnxt); with release_race=1 the last put stops in its producer window while the retry on cpu1 frees the pool — a bulk put inside the lock up to 6.13 and after the unlock, before recycle_stat_add, from 6.14 (page_pool_recycle_ring_bulk): a use-after-free in every era up to 7.1, which the 6.16 barrier does not prevent (fixed by bdea4980182e: 7.3 counts the stat inside the lock); bnxt's page_pool_recycle_in_ring inside the lock, as for skbs (fixed in 6.16)"},
		{name: workload.WNumaMigrate, def: "mlx5", knobs: map[sim.Knob]int64{sim.KnobNumaNodes: 2, sim.KnobCPUs: 2},
			matters: []sim.Knob{sim.KnobNumaNodes, sim.KnobCPUs, sim.KnobNid},
			doc:     "drop traffic whose NAPI moves to a CPU on another NUMA node: page_pool_nid_changed → page_pool_update_nid, remote pages waived during refill (and, in mlx5 before 6.4, by its own RX cache: rx_cache_waive)"},
		{name: workload.WPfmemalloc, def: "mvpp2", knobs: map[sim.Knob]int64{sim.KnobPfmemallocPPM: 20000}, matters: []sim.Knob{sim.KnobPfmemallocPPM, sim.KnobHWGRO},
			doc: "drop traffic where 2% of the pages come from emergency reserves (pfmemalloc): the pool must not keep them"},
		{name: workload.WGenericXDP, def: "lunar", matters: []sim.Knob{sim.KnobXDPFrags},
			doc: "drop traffic (1514-byte frames: a copy's head is SKB_HEAD_ALIGN(1514) + XDP_PACKET_HEADROOM, 2112 bytes with hns3's 64-bit skb_shared_info (320), more than half a page, so a whole page; 2048 with lunar's 32-bit one (256), half a page, so a fragment and two copies share a page; frame=1000 puts two copies in one frag page on both) on a driver without native XDP, with an XDP program attached in generic (skb) mode that passes every frame: netif_receive_generic_xdp finds each skb short of XDP_PACKET_HEADROOM (or non-linear); from 6.9, for a frags-aware program (xdp_frags=1), skb_pp_cow_data copies it into this CPU's system page_pool and consumes the original, and the copy's kfree_skb in the NAPI poll recycles into that pool's alloc cache (pp->cpuid == cpuid); before 6.9, or with xdp_frags=0, pskb_expand_head + skb_linearize and no page_pool. The system pools are the run's own pools after the driver's: neither ethtool -S nor netlink shows them, and their recycle counters are one set shared by every CPU's system pool (f853fa5c54e7)"},
		{name: workload.WDevmemRx, def: "lunar", eras: erasWhere(func(e *sim.Era) bool { return e.MemProvider != sim.MPNone }), knobs: map[sim.Knob]int64{sim.KnobFastForward: 0},
			matters: []sim.Knob{sim.KnobProvider, sim.KnobDmabufPages, sim.KnobTapEvery}, refuses: devmemRefuses,
			doc: "devmem TCP (6.12) / io_uring zero-copy RX (6.15, provider=1): one RX queue bound to a dma-buf, header split: headers in host pages of the driver's pool, payload in net_iovs of the queue's provider pool (mp_ops->alloc_netmems, one per call, no 'slow' stat); the reader gets one token per frag (recvmsg(MSG_SOCK_DEVMEM), no copy) and gives them back every 64 segments (SO_DEVMEM_DONTNEED: napi_pp_put_page in process context, so the ptr_ring; io_uring: the refill queue, straight into the alloc cache); a tap captures the headers only (the frags are unreadable)"},
	} {
		s := s
		var drv []string
		for _, sp := range drivers.Specs {
			if sp.Runs(s.name) {
				drv = append(drv, sp.Name)
			}
		}
		// The scenario's own first (its order is the controls'), then each
		// knob of every driver scenario it does not list already (bulk is
		// xdp-redirect's and every driver's: it was listed twice, and
		// the playground drew two #f-bulk inputs).
		matters := slices.Clone(s.matters)
		for _, k := range driverKnobs {
			if !slices.Contains(matters, k) {
				matters = append(matters, k)
			}
		}
		Scenarios = append(Scenarios, &Scenario{Name: s.name, Doc: s.doc, NeedsDriver: true, Drivers: drv, DefaultDriver: s.def,
			Eras: s.eras, Known: s.known, Knobs: s.knobs, Matters: matters, Refuses: s.refuses,
			newRun: func(l *Lab) (runner, error) { return newDriverRun(l, s.name) }})
	}
}

// splitPageCaveat: before the frag API (5.15) a half-page-flip driver that
// marks its skbs recycles the page when either half's skb is freed, under
// the NIC still writing the other half (the kernel comment in
// page_pool_return_skb_page).
func splitPageCaveat(c KnownCase) []sim.Kind {
	if c.Era.SkbRecycle != sim.SkbRecycleNone && !c.Era.FragAPI {
		return []sim.Kind{sim.KindUseAfterRecycle}
	}
	return nil
}

// destroyUnbindFailure: the kernel's own failures in destroy.
//   - A page still in flight at unload comes back to its pool — an skb's
//     only if the driver marks its skbs, a redirected XDP frame's (held=1)
//     in every era — and the pool unmaps it (when the pool maps, not the
//     driver) at the next release retry, on the device that is gone: before
//     6.16, and from 6.16 on a platform whose PP_DMA_INDEX_BITS is 0
//     (docs/eras-after-6.8.md §4.5, §10.8).
//   - release_race=1: the last page's put stops in its producer window
//     while the retry frees the pool. page_pool_recycle_in_ring (an skb's
//     free; bnxt's xdp_return_frame) is inside the producer lock: before
//     6.16 nothing makes the release wait (271683bb2cf3, §7.1). A bulk put
//     (held=1: xdp_return_frame_bulk of mvpp2, mvneta, mlx5) is inside the
//     lock up to 6.13, with no barrier either, and from 6.14 after the
//     unlock, where the 6.16 barrier does not wait: every era up to 7.1
//     (bdea4980182e puts the stat back inside the lock: the 7.3 era). (A put that found the ptr_ring full
//     would leave no producer in the window, and no race.)
func destroyUnbindFailure(c KnownCase) []sim.Kind {
	xdp := c.Knobs[sim.KnobHeld] == 1
	if c.Spec == nil || (!xdp && !c.Spec.Marks(c.Era)) || (xdp && c.Spec.XDPNdo == drivers.XDPNdoNone) {
		return nil
	}
	var out []sim.Kind
	if c.Spec.PoolMaps(c.Era) && !(c.Era.DMATracking && pagepool.DMAIndexBits(c.Platform) > 0) {
		out = append(out, sim.KindDMAUnmapAfterUnbind)
	}
	bulk := xdp && c.Spec.XDPNdo == drivers.XDPNdoReturnBulk
	if c.Knobs[sim.KnobReleaseRace] != 0 && (!c.Era.ReleaseProducerBarrier || (bulk && c.Era.BulkStatAfterUnlock)) {
		out = append(out, sim.KindPoolUseAfterFree)
	}
	return out
}

// erasWhere lists the eras, oldest first, whose features satisfy keep.
func erasWhere(keep func(*sim.Era) bool) []string {
	var out []string
	for i := range sim.Eras {
		if keep(&sim.Eras[i]) {
			out = append(out, sim.Eras[i].Name)
		}
	}
	return out
}

// bufferMode is how the driver carves RX buffers in a scenario: its own
// model, except split-page, which splits pages the era's way (the half-page
// flip before 5.15, the frag API from 5.15).
func bufferMode(spec *drivers.Spec, scenario string, era *sim.Era, k *sim.Knobs) drivers.BufferMode {
	if scenario != workload.WSplitPage {
		if spec.HeadRing(era, k, workload.AttachesXDP(scenario, k)) {
			return drivers.HeadFrags // bnxt from 6.13 with hardware GRO off
		}
		return spec.Buffer
	}
	if era.FragAPI {
		return drivers.FragAPI
	}
	return drivers.HalfPageFlip
}

// driverRun adapts a workload.Workload to the Lab.
type driverRun struct {
	env     *workload.Env
	w       workload.Workload
	ender   workload.Ender   // non-nil: the workload, not the packet count, ends the run
	warm    int64            // packets before measuring starts
	settler workload.Settler // non-nil: measuring also waits for it to settle
	n       int64            `pp:"counter"`
	opened  bool             // the interface is open: its RX ring was filled (the run's first operation)
	lost0   int64            // env.Lost when measuring started
}

func newDriverRun(l *Lab, name string) (runner, error) {
	m := l.m
	napi := pagepool.NewNAPI(0)
	st := skb.NewStack(l.reg)
	mode := bufferMode(l.spec, name, m.Era, &m.Knobs)
	descs := l.spec.RxDescs
	if v := m.Knobs[sim.KnobRxDescs]; v != 0 {
		if v%2 != 0 && mode != drivers.PagePerFrame && mode != drivers.HeadFrags {
			return nil, knobErr(sim.KnobRxDescs, &m.Knobs, "want an even number: %s's %s buffers come two to a page", l.spec.Name, mode)
		}
		descs = int(v)
	}
	agg, err := l.spec.AggMode(m.Era, &m.Knobs, workload.AttachesXDP(name, &m.Knobs))
	if err != nil {
		return nil, knobErr(sim.KnobHWGRO, &m.Knobs, "%v", err)
	}
	d, err := drivers.New(st, l.reg, l.spec, mode, napi, descs, agg)
	if err != nil {
		return nil, err
	}
	if name == workload.WSplitPage {
		d.MarkWheneverPossible()
	}
	l.pool, l.stack, l.drv = d.Pool, st, d
	env := &workload.Env{M: m, A: l.a, Reg: l.reg, S: st, Drv: d, App: 1 % len(m.CPUs)}
	w, err := workload.NewWorkload(name, env)
	if err != nil {
		return nil, err
	}
	r := &driverRun{env: env, w: w, warm: workload.WarmPackets(d)}
	r.ender, _ = w.(workload.Ender)
	if name == workload.WDestroy {
		workload.SetUnloadAt(w, min(l.cfg.Packets, int64(4*d.RingSize())))
		r.warm = 0
	}
	r.settler, _ = w.(workload.Settler)
	if r.settler != nil && l.cfg.Packets < r.warm+2*r.settler.SettleBound() {
		r.settler = nil // too short to wait: measured from the ring's warm-up
	}
	if r.warm >= l.cfg.Packets {
		r.warm, r.settler = 0, nil // a short run (stepping in the UI) measures everything
	}
	return r, nil
}

func (r *driverRun) measuring() bool { return r.n >= r.warm }
func (r *driverRun) next() string {
	if !r.opened {
		return "open: fill the RX ring (ndo_open posts a page_pool buffer to every descriptor)"
	}
	return r.w.Next()
}

func (r *driverRun) finished() bool  { return r.ender != nil && r.ender.Finished() }
func (r *driverRun) ownsEnd() bool   { return r.ender != nil }
func (r *driverRun) warmup() int64   { return r.warm }
func (r *driverRun) frameBytes() int { return r.env.Frame }
func (r *driverRun) settling() bool  { return r.settler != nil }

func (r *driverRun) measured(*Lab) (completed, delivered int64) {
	completed = r.n - r.warm
	return completed, completed - (r.env.Lost - r.lost0)
}

func (r *driverRun) changesIn() int64 {
	if hz, ok := r.w.(workload.Horizon); ok {
		return hz.ChangesIn()
	}
	return -1
}

func (r *driverRun) step(l *Lab) bool {
	if !r.opened {
		// The interface opens before traffic: the ring fill is an operation
		// of its own, not part of the first receive.
		r.opened = true
		r.env.Drv.Open()
		return false
	}
	done := r.w.Step(r.env)
	if r.env.Err != nil {
		l.fail(r.env.Err)
	}
	l.lost = r.env.Lost
	if done {
		r.n++
	}
	if r.settler != nil && r.n >= r.warm {
		if r.settler.Settled() {
			r.settler = nil // measuring starts now
		} else {
			r.warm = r.n + 1 // not settled yet: measuring starts later
		}
	}
	if r.n <= r.warm {
		r.lost0 = r.env.Lost // packets warm+1… are measured: losses up to here are not
	}
	return done
}

// quiet is Lab.runQuiet with step's work inlined: once the interface is
// open and measuring has started (settled, past the warm-up), step's only
// effects are the workload's step, an error, the losses and the packet
// count.
func (r *driverRun) quiet(l *Lab, k int64) int64 {
	if !r.opened || r.settler != nil || r.n <= r.warm {
		return l.runQuiet(k)
	}
	m, env, w := l.m, r.env, r.w
	for j := int64(0); j < k; j++ {
		if l.done {
			return j
		}
		done := w.Step(env)
		if env.Err != nil {
			l.fail(env.Err)
		}
		l.lost = env.Lost
		if done {
			r.n++
			l.packets++
			if l.packets >= l.series.Next() {
				l.sample()
			}
			if l.packets >= l.cfg.Packets {
				l.done = true
			}
		}
		// The rest is runQuiet's end of an operation, written out: as a
		// shared method it is not inlined and costs 40 instructions per
		// packet (2.3 %, callgrind).
		l.ops++
		if m.PendingTimers() > 0 {
			m.RunTimers()
		}
		l.sinceCheck++
		if len(m.Log.List) != l.stamped {
			l.stampLog()
		}
	}
	return k
}

// devmemRefuses is devmem-rx's refusal of a driver in an era: the reason
// its queue cannot be bound to a dma-buf (drivers.Spec.BindRxQueue).
func devmemRefuses(spec *drivers.Spec, era *sim.Era) *sim.FieldError {
	err := spec.BindRxQueue(era, false)
	switch {
	case err == nil:
		return nil
	case era.MemProvider == sim.MPNone:
		return named("era", era.Name, "scenario devmem-rx: %v", err)
	}
	return named("driver", spec.Name, "scenario devmem-rx in era %s: %v", era.Name, err)
}
