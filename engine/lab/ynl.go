package lab

import (
	"fmt"

	"pplab/engine/lab/internal/report"
	"pplab/engine/mm"
	"pplab/engine/pagepool"
	"pplab/engine/sim"
)

// The run's pools as `ynl --family netdev --dump page-pool-get` and
// `page-pool-stats-get` would print them, and what `ynltool page-pool
// stats` derives (report.YNL renders them).
type (
	YNL           = report.YNL
	YNLPool       = report.YNLPool
	YNLPoolStats  = report.YNLPoolStats
	YnltoolDevice = report.YnltoolDevice
)

// The model's netdevs as netlink numbers them: lo is ifindex 1
// (LOOPBACK_IFINDEX), the NIC the first registered after it.
const (
	NICIfindex = 2
	NICIfname  = "eth0"
	// FirstNapiID is the NIC's NAPI id: napi_hash_add hands out ids above
	// MIN_NAPI_ID (NR_CPUS + 1), with NR_CPUS 8192 as in the distributions'
	// x86-64 configs.
	FirstNapiID = 8193
)

// YNL is the run's pools as the netdev netlink family shows them
// (net/core/page_pool_user.c). Only a pool linked to a netdev at creation
// (pp_params.netdev, Spec.NetdevFrom) is visible: bnxt's and mlx5's (and the
// model's lunar's) pools, on the NIC; mvpp2, mvneta, cpsw and hns3 set no
// netdev, so netlink lists none of theirs, and the pool micro-benchmarks
// create theirs without one, as the kernel's bench does. Once the driver is
// unloaded its netdev unregisters and page_pool_unreg_netdev moves a pool
// still in flight to lo, whose ifindex page_pool_nl_fill leaves out
// (ynltool counts it as <orphan>). Pool ids are the pools' user.id
// (Pool.UserID: xa_alloc_cyclic from 1 in creation order, page_pool_list);
// napi-id is the pool's pp.napi's (omitted without
// one: mlx5 and bnxt set it from 6.4); inflight is page_pool_inflight(pool,
// false) (hold − release, at least 0) and inflight-mem inflight ×
// (PAGE_SIZE << order); detach-time is set once page_pool_destroy deferred
// the release (page_pool_detached) and the pool is listed until it is freed
// (page_pool_unlist); a memory-provider pool ends with its provider's
// attribute: dmabuf (the binding's id, 6.12) or an empty io-uring nest
// (6.15). Stats are page_pool_get_stats of each pool. The dump
// lists a netdev's pools newest first (hlist_add_head).
//
// From 6.9 the system pools take the first ids: net_dev_init creates one per
// possible CPU with page_pool_create_percpu, which runs page_pool_list (the
// xa_alloc_cyclic of the id) for every pool, netdev or not (2b0cfa6e4956
// wraps page_pool_create's body unchanged; read in 6.12.y and 6.18.y
// net/core/page_pool.c), before any driver probes; netlink never lists them
// (no slow.netdev). So the driver's pools are numbered after the machine's
// CPUs: SystemPoolIDs.
func (l *Lab) YNL() YNL {
	var y YNL
	pools := l.reg.Pools()
	ifindex := uint32(NICIfindex)
	if l.a.DMA.Unbound { // unloaded: unregister_netdev moved the pools to lo
		ifindex = 0
	}
	for i := len(pools) - 1; i >= 0; i-- {
		p := pools[i]
		if !l.ynlVisible(p) || p.Freed() {
			continue
		}
		inflight := int64(max(p.Inflight(), 0))
		yp := YNLPool{ID: p.UserID, Ifindex: ifindex, Inflight: inflight, InflightMem: inflight * (mm.PageSize << p.P.Order)}
		if p.P.NAPI != nil {
			yp.NapiID = FirstNapiID
		}
		if at, ok := p.Detached(); ok {
			yp.Detached, yp.DetachTime = true, at/sim.PSPerNS/1_000_000_000
		}
		if mp := p.Provider(); mp != nil { // the provider's nl_fill
			if mp.IOUring() {
				yp.IOUring = true
			} else {
				yp.Dmabuf = uint32(mp.B.ID)
			}
		}
		y.Pools = append(y.Pools, yp)
		var st sim.Stats
		p.GetStats(&st)
		y.Stats = append(y.Stats, YNLPoolStats{ID: yp.ID, Ifindex: ifindex, Stats: st})
	}
	y.IDNote = l.YNLIDNote()
	y.Devices = report.Ynltool(y.Pools, y.Stats, func(ifc uint32) string {
		if ifc == NICIfindex {
			return NICIfname
		}
		return fmt.Sprintf("if%d", ifc)
	})
	switch {
	case l.drv == nil:
		y.Note = "the pool has no netdev (the micro-benchmark creates it without pp_params.netdev): netlink lists no pool"
	case !l.m.Era.Stats:
		y.Note = fmt.Sprintf("era %s: no netdev netlink page-pool objects (v6.8) and no CONFIG_PAGE_POOL_STATS (v5.18); shown as a 6.8 kernel would report this run", l.m.Era.Name)
	case !l.m.Era.PoolNetlink:
		y.Note = fmt.Sprintf("era %s: no netdev netlink page-pool objects (page-pool-get and page-pool-stats-get are v6.8; ethtool -S shows the stats); shown as a 6.8 kernel would report this run", l.m.Era.Name)
	}
	if l.drv != nil && l.drv.Spec.NetdevFrom == "" {
		y.Note = joinNote(y.Note, fmt.Sprintf("%s creates its page_pools without pp_params.netdev (opt-in since v6.8; of the model's drivers only bnxt and mlx5 set it, 7cc9e6d77f85): netlink lists none of its pools and ynltool shows nothing for %s; ethtool -S is its only view", l.drv.Spec.Name, NICIfname))
	}
	if ifindex == 0 && len(y.Pools) > 0 {
		y.Note = joinNote(y.Note, "the driver is unloaded: unregister_netdev moved the pools still in flight to lo (page_pool_unreg_netdev), so no ifindex is reported and ynltool counts them as <orphan>")
	}
	return y
}

// ynlVisible says whether netlink lists pool p: a pool created with
// pp_params.netdev; before 6.8 (no netlink objects), the driver's pool if
// its 6.8 driver links it, as that kernel would report the run.
func (l *Lab) ynlVisible(p *pagepool.Pool) bool {
	if l.drv == nil {
		return false
	}
	if l.m.Era.PoolNetlink {
		return p.P.Netdev
	}
	return p == l.drv.Pool && l.drv.Spec.NetdevFrom != ""
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// YnltoolFormula is how ynltool derives its recycling line.
const YnltoolFormula = report.YnltoolFormula

// YNLIDNote says where the listed pools' ids come from when the era's
// kernel numbers pools netlink does not list ("" before 6.9).
func (l *Lab) YNLIDNote() string {
	n := SystemPoolIDs(l.m.Era, len(l.m.CPUs))
	if n == 0 || l.drv == nil {
		return ""
	}
	return fmt.Sprintf("ids 1..%d are the %d per-CPU system page_pools (v6.9: net_dev_init creates one per possible CPU, page_pool_create_percpu → page_pool_list), which netlink never lists (no netdev): the driver's pools are numbered from %d", n, n, n+1)
}

// SystemPoolIDs is how many page-pool ids the era's kernel hands out
// before any driver's pool (pagepool.SystemPoolIDs).
func SystemPoolIDs(e *sim.Era, cpus int) int { return pagepool.SystemPoolIDs(e, cpus) }

// YNLStatKey is the netdev family's attribute name of counter s
// (page-pool-stats: alloc-fast … recycle-released-refcnt).
func YNLStatKey(s sim.Stat) string { return report.YNLStatKey(s) }
