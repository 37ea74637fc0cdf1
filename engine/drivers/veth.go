package drivers

import (
	"fmt"

	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/skb"
)

// VethRingSize is VETH_RING_SIZE (drivers/net/veth.c): the size of a veth
// queue's xdp_ring and of its page_pool's ptr_ring (pool_size).
const VethRingSize = 256

// VethFirstEra is the first era whose veth the model has: veth's
// veth_convert_skb_to_xdp_buff calls skb_pp_cow_data with its own pool
// from v6.9 (27accb3cc08a; the pool itself is v6.5's 0ebab78cbcbf "net:
// veth: add page_pool for page recycling", which copied with its own
// loop before).
const VethFirstEra = "6.9"

// VethRQ models a veth receive queue (struct veth_rq) whose device has an
// XDP program attached: the peer's veth_xmit puts each skb on the queue's
// xdp_ring and schedules its NAPI (on the sending CPU: __veth_xdp_flush),
// whose veth_xdp_rcv → veth_xdp_rcv_skb runs the program on every skb.
// An skb that is nonlinear, shared, or has less than XDP_PACKET_HEADROOM
// of headroom — every skb the TCP stack sends — is first copied into the
// queue's page_pool (veth_convert_skb_to_xdp_buff → skb_pp_cow_data).
//
// What the model leaves out: the xdp_ring itself (an skb goes from the
// sender to the NAPI in one step), GRO (napi_gro_receive of a GSO-sized
// skb aggregates nothing), the sender's own buffers beyond their free.
type VethRQ struct {
	St     *skb.Stack
	Pool   *pagepool.Pool
	CPU    int   // where the NAPI runs
	Passed int64 `pp:"counter"` // skbs the program passed
}

// NewVethRQ models veth_create_page_pool (called by
// __veth_napi_enable_range when XDP is attached): pool_size
// VETH_RING_SIZE, order 0, NUMA_NO_NODE, dev the veth; no PP_FLAG_DMA_MAP
// (nothing to map for), no pp.napi and no pp.netdev — veth sets neither,
// so no skb free recycles into the alloc cache (every page comes back
// through the ptr_ring) and netlink does not list the pool.
func NewVethRQ(st *skb.Stack, reg *pagepool.Registry, cpu int) (*VethRQ, error) {
	e := st.M.Era
	if !since(VethFirstEra, e) {
		return nil, fmt.Errorf("veth: the model's veth is %s's and later (skb_pp_cow_data with the queue's own pool, 27accb3cc08a); era %s is before it", VethFirstEra, e.Name)
	}
	pool, err := reg.Create(cpu, pagepool.Params{Order: 0, PoolSize: VethRingSize, Nid: -1, MaxLen: mm.PageSize})
	if err != nil {
		return nil, fmt.Errorf("veth_create_page_pool: %w", err)
	}
	return &VethRQ{St: st, Pool: pool, CPU: cpu}, nil
}

// XDPRcvSkb models veth_xdp_rcv_skb of a sent skb (the caller is the
// queue's NAPI, in softirq on v.CPU): skb_pp_cow_data(rq->page_pool, &skb,
// XDP_PACKET_HEADROOM) copies it into pool pages — a head of up to 3520
// bytes in a page of its own, the rest in page-sized frags (the last, at
// most half a page, a fragment of the pool's frag page) — and consumes the
// original; the program returns XDP_PASS and the copy, marked for
// recycling, goes up the stack. A failed copy drops the skb (nil, err).
func (v *VethRQ) XDPRcvSkb(sk *skb.SKB) (*skb.SKB, error) {
	nskb, err := v.St.SkbPPCowData(v.CPU, v.Pool, sk, skb.XDPPacketHeadroom)
	if err != nil {
		v.St.KfreeSKB(v.CPU, sk)
		return nil, fmt.Errorf("veth_convert_skb_to_xdp_buff: %w", err)
	}
	v.Passed++
	return nskb, nil
}
