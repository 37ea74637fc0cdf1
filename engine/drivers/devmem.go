package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
	"pplab/engine/skb"
)

// BindRxQueue says whether the driver's RX queue can be bound to a memory
// provider in era e (netdev_nl_bind_rx_doit → net_devmem_bind_dmabuf_to_queue
// / __net_mp_open_rxq, then netdev_rx_queue_restart and
// page_pool_check_memory_provider), nil when it can, else the one reason it
// cannot, in the order the kernel checks (docs/eras-after-6.8.md §3.2):
//   - no memory providers before 6.12 (8ab79ed50cf1), no io_uring
//     zero-copy RX before 6.15;
//   - a driver without netdev_queue_mgmt_ops cannot restart the queue:
//     netdev_rx_queue_restart returns -EOPNOTSUPP (7c88f86576f3);
//   - a driver that creates no pool with PP_FLAG_ALLOW_UNREADABLE_NETMEM
//     for the queue: page_pool_check_memory_provider returns -ENODATA;
//   - then what the model's driver does not implement.
func (s *Spec) BindRxQueue(e *sim.Era, ioUring bool) error {
	switch {
	case e.MemProvider == sim.MPNone:
		return fmt.Errorf("memory providers are v6.12: 8ab79ed50cf1 (era %s has none: no queue can be bound to a dma-buf)", e.Name)
	case ioUring && e.MemProvider != sim.MPOps:
		return fmt.Errorf("io_uring zero-copy RX is v6.15 (memory_provider_ops, 57afb4830157, and io_uring/zcrx.c): era %s has only the dma-buf provider (provider=0)", e.Name)
	case !since(s.QueueMgmtFrom, e) && e.MemProvider == sim.MPOps:
		// 6.15 (the netdev instance lock, Kicinski,
		// <20250312223507.805719-6-kuba@kernel.org>): the bind is refused
		// up front, `if (!netdev_need_ops_lock(dev)) return -EOPNOTSUPP;`,
		// in netdev_nl_bind_rx_doit and __net_mp_open_rxq (io_uring's
		// net_mp_open_rxq).
		return fmt.Errorf("__net_mp_open_rxq: -EOPNOTSUPP: %s has no queue management ops (netdev_queue_mgmt_ops), so netdev_need_ops_lock() is false and no queue of it can take a memory provider", s.Name)
	case !since(s.QueueMgmtFrom, e):
		return fmt.Errorf("netdev_rx_queue_restart: -EOPNOTSUPP: %s has no queue management ops (netdev_queue_mgmt_ops), so its queue cannot be restarted onto the provider", s.Name)
	case !since(s.UnreadableFrom, e):
		return fmt.Errorf("page_pool_check_memory_provider: -ENODATA: %s creates no page_pool with PP_FLAG_ALLOW_UNREADABLE_NETMEM for the queue in era %s: %s", s.Name, e.Name, s.UnreadableWhy)
	case s.DevmemUnmodelled != "":
		return fmt.Errorf("%s: %s", s.Name, s.DevmemUnmodelled)
	}
	return nil
}

// Devmem is a driver RX queue bound to a memory provider with header
// split, as devmem TCP requires (tcp-data-split on, hds-thresh 0): the
// NIC writes each frame's headers into a buffer of the driver's header
// pool — its ordinary pool of host pages, which must not set
// PP_FLAG_ALLOW_UNREADABLE_NETMEM — and the payload into a net_iov of the
// payload pool, created on the bound queue with the flag (slow.netdev,
// slow.queue_idx), whose memory is the provider's. Posted payload buffers
// are the NIC's (PageHolder).
type Devmem struct {
	d       *Driver
	Payload *pagepool.Pool
	Queue   pagepool.RxQueue
	ring    []*mm.Page // payload descriptors: the net_iov posted on each (nil: empty)
	next    int        // next payload descriptor the NIC fills
	fill    int        // next one to refill
	posted  int

	PayloadMissed int64 `pp:"counter"` // frames dropped for want of a posted payload buffer
}

// BindDevmem models binding the driver's RX queue to the provider mp and
// the queue restart that follows (netdev_rx_queue_restart →
// ndo_queue_mem_alloc): the driver creates the queue's payload pool with
// PP_FLAG_ALLOW_UNREADABLE_NETMEM and the queue index, and
// page_pool_check_memory_provider finds it carrying the provider. The
// payload pool maps (PP_FLAG_DMA_MAP) and, from b400f4b87430 (6.14), asks
// for PP_FLAG_DMA_SYNC_DEV, which the provider turns off; in 6.12 the
// devmem provider refuses a pool that asks for it. Then the payload ring is
// filled (ndo_queue_start).
func (d *Driver) BindDevmem(mp *pagepool.Provider, queue int) (*Devmem, error) {
	m := d.S.M
	if err := d.Spec.BindRxQueue(m.Era, mp.IOUring()); err != nil {
		return nil, err
	}
	p := pagepool.Params{Flags: pagepool.FlagDMAMap | pagepool.FlagAllowUnreadable, PoolSize: len(d.ring), Nid: pagepool.NumaNoNode,
		DMADir: mm.DMAFromDevice, MaxLen: mm.PageSize, NAPI: d.Pool.P.NAPI, Netdev: true}
	if m.Era.MemProvider == sim.MPOps {
		p.Flags |= pagepool.FlagDMASyncDev
	}
	dm := &Devmem{d: d, Queue: pagepool.RxQueue{Index: queue, MP: mp}, ring: make([]*mm.Page, len(d.ring))}
	p.Queue = &dm.Queue
	pool, err := d.S.Reg.Create(d.CPU(), p)
	if err != nil {
		return nil, fmt.Errorf("%s: ndo_queue_mem_alloc: %w", d.Spec.Name, err)
	}
	if pool.Provider() != mp { // page_pool_check_memory_provider
		return nil, fmt.Errorf("%s: page_pool_check_memory_provider: -ENODATA: no pool of queue %d carries the provider", d.Spec.Name, queue)
	}
	dm.Payload = pool
	d.S.AddHolder(dm)
	return dm, nil
}

// Refill posts a payload buffer (a net_iov from the payload pool:
// page_pool_alloc_netmems) on every empty payload descriptor. Returns the
// buffers posted; it stops when the pool has none.
func (dm *Devmem) Refill() int {
	m := dm.d.S.M
	cpu := dm.d.CPU()
	n := 0
	for dm.posted < len(dm.ring) {
		pg := dm.Payload.AllocPages(cpu)
		if pg == nil {
			break
		}
		dm.ring[dm.fill] = pg
		pg.MoveTo(m, sim.PlaceNICRing, int32(dm.fill))
		pg.Users++
		if dm.fill++; dm.fill == len(dm.ring) {
			dm.fill = 0
		}
		dm.posted++
		n++
	}
	return n
}

// Posted is the payload buffers the NIC may fill.
func (dm *Devmem) Posted() int { return dm.posted }

// AddPayload puts the frame's payload, which the NIC wrote into the next
// posted net_iov, into sk as a frag (skb_add_rx_frag of a netmem: the skb
// becomes unreadable), then refills that descriptor. sk is the skb the
// driver built around the frame's headers (header split). false: no
// payload buffer was posted (the caller drops the frame).
func (dm *Devmem) AddPayload(sk *skb.SKB, n int) (bool, error) {
	if n <= 0 || n > mm.PageSize {
		panic(fmt.Sprintf("drivers: AddPayload of %d bytes (a payload of 1..%d fits one net_iov)", n, mm.PageSize))
	}
	if dm.posted == 0 {
		dm.PayloadMissed++
		return false, nil
	}
	pg := dm.ring[dm.next]
	dm.ring[dm.next] = nil
	if dm.next++; dm.next == len(dm.ring) {
		dm.next = 0
	}
	dm.posted--
	pg.Users--
	if err := dm.d.S.AddRxFrag(dm.d.CPU(), sk, pg, 0, n, mm.PageSize); err != nil {
		return false, err
	}
	if m := dm.d.S.M; m.Tracing() {
		m.Emit(sim.Event{CPU: dm.d.CPU(), Func: sim.SymDrvRx, Pool: dm.Payload.ID, Page: pg.PFN, SKB: sk.ID, From: sim.PlaceNICRing, To: sim.PlaceSKB, Stat: sim.StatNone,
			Why: "header split: the headers are in a host page of the header pool, the payload in a net_iov of the bound queue's payload pool, added as a frag: the skb is unreadable"})
	}
	dm.Refill()
	return true, nil
}

// HeldPages reports the posted payload buffers (the NIC will write them).
func (dm *Devmem) HeldPages(v skb.PageVisitor) {
	for _, pg := range dm.ring {
		if pg != nil {
			v.HeldPage(pg, 0, mm.PageSize, "a posted payload descriptor of the bound queue")
		}
	}
}
