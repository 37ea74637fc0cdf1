package lab

import (
	"slices"

	"pplab/engine/sim"
)

// RuleDemo is a config where a broken rule shows its violation: on a
// driver scenario (some need a second rule out of the way first).
type RuleDemo struct {
	Rules                 []string // the last is the rule shown; the others clear its way
	Driver, Scenario, Era string
	Set                   []string // knob assignments as --set takes them (RuleExercisedIn names the demo by them, in this order)
	Kind                  sim.Kind // the violation breaking it produces
}

// RuleDemos (TestDriverScenarios_EveryRuleBreaks checks each): every breakable rule shows its violation in a driver scenario.
var RuleDemos = []RuleDemo{
	{[]string{"coalesce-pp-guard"}, "mvpp2", "coalesce-mixed", "5.14", nil, sim.KindInflightLeak},
	{[]string{"last-dataref"}, "bnxt", "clone-tap", "6.1", nil, sim.KindDoubleRecycle},
	{[]string{"frag-count"}, "hns3", "split-page", "5.15", nil, sim.KindUseAfterRecycle},
	{[]string{"napi-locality"}, "mlx5", "forward", "6.4", []string{"tx_cpu=1"}, sim.KindCacheRace},
	{[]string{"pfmemalloc-check"}, "mvpp2", "pfmemalloc", "5.14", nil, sim.KindReservePageRetained},
	{[]string{"bulk-map-error"}, "mvpp2", "drop", "5.13", []string{"dma_map_fail_ppm=200000"}, sim.KindAllocFailureWithCache},
	// A pool that maps its pages (mlx5's does not before 6.4: the driver
	// maps them itself) in the era of the bulk refill.
	{[]string{"bulk-dma-unmap"}, "mvpp2", "xdp-redirect", "5.13", []string{"bulk=256"}, sim.KindDMALeak},
	// A loopback page stolen into a page_pool skb's frags reaches
	// page_pool_return_skb_page.
	{[]string{"coalesce-pp-guard", "signature-check"}, "mvpp2", "coalesce-mixed", "5.14", nil, sim.KindForeignPageInPool},
	// hns3 skbs carry page_pool memory only in frags once TCP pulled the
	// headers: a tapped (cloned) one is coalesced into the queue tail,
	// and the pages' pp_frag_count drops twice (the walkthrough in 1effe8ca4e34's commit message). It
	// takes a queue tail to coalesce into — a reader slower than the NIC —
	// and segments without a frag_list: GRO off.
	{[]string{"coalesce-cloned-guard"}, "hns3", "tcp-stream", "5.15", []string{"tap_every=2", "gro=0", "read_ns=2000"}, sim.KindUseAfterRecycle},
	// mvneta jumbo frames: skb_cow on a tapped skb takes page references
	// on its frags; the tap's free is the last pp user, with refcount 2.
	{[]string{"refcnt-check"}, "mvneta", "forward", "5.14", []string{"tap_every=4", "frame=6000"}, sim.KindUseAfterRecycle},
	// 6.10: the locality test moved into the pool (page_pool_napi_local,
	// 4a96a4e807c3); it still breaks there.
	{[]string{"napi-locality"}, "mlx5", "forward", "6.10", []string{"tx_cpu=1"}, sim.KindCacheRace},
	// 7.1-rc1: the signature check is PageNetpp(page) (db359fccf212).
	{[]string{"coalesce-pp-guard", "signature-check"}, "mvpp2", "coalesce-mixed", "7.1-rc1", nil, sim.KindForeignPageInPool},
	// 6.16's page_pool_scrub unmapped the pages in flight at destroy; with
	// the slot test gone their late return unmaps them again, on the
	// device the driver unbound. A 64-descriptor ring (ethtool -G rx 64)
	// unloads after 256 packets.
	{[]string{"dma-mapped-cmpxchg"}, "mvpp2", "destroy", "6.16", []string{"rx_descs=64"}, sim.KindDMAUnmapAfterUnbind},
	// The last free stops inside page_pool_recycle_in_ring while the
	// release retry frees the pool; without the barrier nothing waits.
	{[]string{"release-producer-barrier"}, "mvpp2", "destroy", "6.16", []string{"rx_descs=64", "release_race=1"}, sim.KindPoolUseAfterFree},
	// devmem TCP: a TPACKET tap of an unreadable skb copies the payload
	// frag (a net_iov) when snaplen is not cut to the headers.
	{[]string{"frags-readable"}, "lunar", "devmem-rx", "6.12", []string{"tap_every=4"}, sim.KindUnreadableRead},
}

// Config is the demo's configuration (packets: the default).
func (d RuleDemo) Config() Config {
	return Config{Driver: d.Driver, Scenario: d.Scenario, Era: d.Era, Knobs: sim.MustOverrides(d.Set...), Break: slices.Clone(d.Rules)}
}
