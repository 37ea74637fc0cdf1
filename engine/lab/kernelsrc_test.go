package lab

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"pplab/engine/drivers"
	"pplab/engine/sim"
)

// narrated runs every valid scenario × driver × era at teaching sizes with
// step records on and collects, per era, every symbol the narration names
// (each operation's Func and each event's Func) with the driver it ran under.
// Every step is checked fully (step mode), so this is the test's cost: under
// -short each scenario and driver runs in every second one of its eras, the
// other half for the next pair, so every era still runs half the pairs.
func narrated(t *testing.T) map[string]map[[2]string]sim.Sym {
	t.Helper()
	out := map[string]map[[2]string]sim.Sym{}
	packets := int64(48)
	pair := 0
	for _, sc := range Scenarios {
		drvs := sc.Drivers
		if !sc.NeedsDriver {
			drvs = []string{""}
		}
		for _, d := range drvs {
			pair++
			i := pair // the pair's eras, counted from its offset
			for _, e := range sim.Eras {
				if len(sc.Eras) > 0 && !slices.Contains(sc.Eras, e.Name) {
					continue
				}
				if d != "" {
					if spec, _ := drivers.SpecByName(d); e.Order < spec.MinEra() {
						continue
					}
				}
				if i++; testing.Short() && i%2 != 0 {
					continue
				}
				l, err := New(Config{Driver: d, Scenario: sc.Name, Era: e.Name, Packets: packets, Knobs: teaching(sc.Name)})
				if err != nil {
					t.Fatalf("%s/%s/%s: %v", d, sc.Name, e.Name, err)
				}
				l.Record(true)
				if out[e.Name] == nil {
					out[e.Name] = map[[2]string]sim.Sym{}
				}
				add := func(s sim.Sym) { out[e.Name][[2]string{d, s.Name()}] = s }
				for i := 0; i < 4000 && !l.Done(); i++ {
					l.Step()
					rec, ok := l.StepRecord()
					if !ok {
						continue
					}
					add(rec.Op.Func)
					for _, ev := range rec.Events {
						add(ev.Func)
					}
				}
			}
		}
	}
	return out
}

// Every name the narration can show in an era is in that era's table of
// kernel identifiers (internal/kernelsrc/idents.tsv) with its defining file, or is a
// model-only step or an out-of-tree driver's function, which stay unlinked
// and say why.
func TestKernelNames_EveryNarratedNameIsInItsErasTable(t *testing.T) {
	seen := narrated(t)
	for _, e := range sim.Eras {
		var missing []string
		for k, s := range seen[e.Name] {
			if s == sim.SymNone {
				continue
			}
			ref := Source(e.Name, k[0], s)
			if ref.URL != "" {
				continue
			}
			if strings.HasPrefix(ref.Note, "a step of the model") || strings.HasPrefix(ref.Note, "not in the kernel tree") {
				continue
			}
			missing = append(missing, ref.Name+" ("+k[0]+")")
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("era %s narrates names its table lacks: %v", e.Name, missing)
		}
	}
}

func TestKernelNames_PerEra(t *testing.T) {
	tests := []struct {
		name, era, driver string
		sym               sim.Sym
		want              SourceRef
	}{
		{"6.6+ skb free path is napi_pp_put_page in skbuff.c", "6.8", "", sim.SymReturnSkbPage,
			SourceRef{Name: "napi_pp_put_page", URL: "https://elixir.bootlin.com/linux/v6.8/source/net/core/skbuff.c", File: "net/core/skbuff.c"}},
		{"6.4 still page_pool_return_skb_page in page_pool.c", "6.4", "", sim.SymReturnSkbPage,
			SourceRef{Name: "page_pool_return_skb_page", URL: "https://elixir.bootlin.com/linux/v6.4/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"rfc-v1 return function links to the RFC patch", "rfc-v1", "", sim.SymReturnSkbPage,
			SourceRef{Name: "page_pool_return_skb_page", URL: "https://lore.kernel.org/netdev/20210322170301.26017-4-mcroce@linux.microsoft.com/", Note: RFCNote}},
		{"rfc-v1 skb_mark_for_recycle is the RFC's, not v5.12's", "rfc-v1", "mvpp2", sim.SymMarkForRecycle,
			SourceRef{Name: "skb_mark_for_recycle", URL: "https://lore.kernel.org/netdev/20210322170301.26017-4-mcroce@linux.microsoft.com/", Note: RFCNote}},
		{"page_pool_release_page is gone in 6.8", "6.8", "", sim.SymReleasePage,
			SourceRef{Name: "__page_pool_release_page_dma", URL: "https://elixir.bootlin.com/linux/v6.8/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"5.14 page_pool_release_page", "5.14", "", sim.SymReleasePage,
			SourceRef{Name: "page_pool_release_page", URL: "https://elixir.bootlin.com/linux/v5.14/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"page_pool_put_page is inline in 6.8's helpers.h", "6.8", "", sim.SymPutPage,
			SourceRef{Name: "page_pool_put_page", URL: "https://elixir.bootlin.com/linux/v6.8/source/include/net/page_pool/helpers.h", File: "include/net/page_pool/helpers.h"}},
		{"v5.12 has no page_pool_dma_map: the slow path maps", "5.12", "", sim.SymPoolDMAMap,
			SourceRef{Name: "__page_pool_alloc_pages_slow", URL: "https://elixir.bootlin.com/linux/v5.12/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"v5.12's allocator entry is __alloc_pages_nodemask", "5.12", "", sim.SymAllocPagesNode,
			SourceRef{Name: "__alloc_pages_nodemask", URL: "https://elixir.bootlin.com/linux/v5.12/source/mm/page_alloc.c", File: "mm/page_alloc.c"}},
		{"GRO lives in net/core/gro.c from v5.18", "6.4", "mlx5", sim.SymGroReceive,
			SourceRef{Name: "dev_gro_receive", URL: "https://elixir.bootlin.com/linux/v6.4/source/net/core/gro.c", File: "net/core/gro.c"}},
		{"a driver symbol takes the driver's name", "5.15", "hns3", sim.SymDrvRx,
			SourceRef{Name: "hns3_clean_rx_ring", URL: "https://elixir.bootlin.com/linux/v5.15/source/drivers/net/ethernet/hisilicon/hns3/hns3_enet.c", File: "drivers/net/ethernet/hisilicon/hns3/hns3_enet.c"}},
		{"an out-of-tree driver links nowhere", "5.15", "lunar", sim.SymDrvRx,
			SourceRef{Name: "lunar_rx_poll_page_pool", Note: "not in the kernel tree: lunar is a work-in-progress driver the model follows"}},
		{"a model-only step stays unlinked", "6.8", "", sim.SymStackRest,
			SourceRef{Name: "rest of the stack", Note: "a step of the model, not one kernel function"}},
		{"6.16 still names the pool's release page_pool_return_page", "6.16", "", sim.SymReturnPage,
			SourceRef{Name: "page_pool_return_page", URL: "https://elixir.bootlin.com/linux/v6.16/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.18: page_pool_return_netmem (renamed in 6.17)", "6.18", "", sim.SymReturnPage,
			SourceRef{Name: "page_pool_return_netmem", URL: "https://elixir.bootlin.com/linux/v6.18/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.18: __page_pool_release_netmem_dma", "6.18", "", sim.SymReleasePage,
			SourceRef{Name: "__page_pool_release_netmem_dma", URL: "https://elixir.bootlin.com/linux/v6.18/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.12 slow path keeps its page name over netmem_ref", "6.12", "", sim.SymAllocPagesSlow,
			SourceRef{Name: "__page_pool_alloc_pages_slow", URL: "https://elixir.bootlin.com/linux/v6.12/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"7.1 slow path is __page_pool_alloc_netmems_slow", "7.1", "", sim.SymAllocPagesSlow,
			SourceRef{Name: "__page_pool_alloc_netmems_slow", URL: "https://elixir.bootlin.com/linux/v7.1/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.12 bulk is still page_pool_put_page_bulk", "6.12", "", sim.SymPutPageBulk,
			SourceRef{Name: "page_pool_put_page_bulk", URL: "https://elixir.bootlin.com/linux/v6.12/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.15 bulk is page_pool_put_netmem_bulk", "6.15", "", sim.SymPutPageBulk,
			SourceRef{Name: "page_pool_put_netmem_bulk", URL: "https://elixir.bootlin.com/linux/v6.15/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.12 names the dma-buf provider's allocator", "6.12", "", sim.SymMPAllocNetmems,
			SourceRef{Name: "mp_dmabuf_devmem_alloc_netmems", URL: "https://elixir.bootlin.com/linux/v6.12/source/net/core/devmem.c", File: "net/core/devmem.c"}},
		{"6.16 DMA index release is inline in __page_pool_release_page_dma (ee62ce7a1d90)", "6.16", "", sim.SymDMAIndexRelease,
			SourceRef{Name: "__page_pool_release_page_dma", URL: "https://elixir.bootlin.com/linux/v6.16/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.18 DMA index release is the PP_MAGIC_MASK fix's page_pool_release_dma_index", "6.18", "", sim.SymDMAIndexRelease,
			SourceRef{Name: "page_pool_release_dma_index", URL: "https://elixir.bootlin.com/linux/v6.18/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.10 bulk allocator is alloc_pages_bulk_noprof", "6.10", "", sim.SymAllocPagesBulk,
			SourceRef{Name: "alloc_pages_bulk_noprof", URL: "https://elixir.bootlin.com/linux/v6.10/source/mm/page_alloc.c", File: "mm/page_alloc.c"}},
		{"the system pool's creator is not in 6.8", "6.8", "", sim.SymPoolCreatePercpu,
			SourceRef{Name: "page_pool_create_percpu", Note: "not in v6.8: a knob adds a later kernel's behaviour to this era"}},
		{"7.1-rc1 links to its own tag", "7.1-rc1", "", sim.SymPoolCreatePercpu,
			SourceRef{Name: "page_pool_create_percpu", URL: "https://elixir.bootlin.com/linux/v7.1-rc1/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.9 skb_release_data unrefs with napi_frag_unref in skbuff.h", "6.9", "", sim.SymFragUnref,
			SourceRef{Name: "napi_frag_unref", URL: "https://elixir.bootlin.com/linux/v6.9/source/include/linux/skbuff.h", File: "include/linux/skbuff.h"}},
		{"6.10 __skb_frag_unref lives in skbuff_ref.h (f6d827b180bd)", "6.10", "", sim.SymFragUnref,
			SourceRef{Name: "__skb_frag_unref", URL: "https://elixir.bootlin.com/linux/v6.10/source/include/linux/skbuff_ref.h", File: "include/linux/skbuff_ref.h"}},
		{"6.1 __skb_frag_unref is still in skbuff.h", "6.1", "", sim.SymFragUnref,
			SourceRef{Name: "__skb_frag_unref", URL: "https://elixir.bootlin.com/linux/v6.1/source/include/linux/skbuff.h", File: "include/linux/skbuff.h"}},
		{"6.12 napi_pp_put_page is still defined in skbuff.c", "6.12", "", sim.SymReturnSkbPage,
			SourceRef{Name: "napi_pp_put_page", URL: "https://elixir.bootlin.com/linux/v6.12/source/net/core/skbuff.c", File: "net/core/skbuff.c"}},
		{"6.1's out-of-line put is page_pool_put_defragged_page (52cc6ffc0ab2, v5.18)", "6.1", "", sim.SymPutUnrefed,
			SourceRef{Name: "page_pool_put_defragged_page", URL: "https://elixir.bootlin.com/linux/v6.1/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.1's page_pool_put_page is an inline of page_pool.h", "6.1", "", sim.SymPutPage,
			SourceRef{Name: "page_pool_put_page", URL: "https://elixir.bootlin.com/linux/v6.1/source/include/net/page_pool.h", File: "include/net/page_pool.h"}},
		{"6.10's out-of-line put is page_pool_put_unrefed_page", "6.10", "", sim.SymPutUnrefed,
			SourceRef{Name: "page_pool_put_unrefed_page", URL: "https://elixir.bootlin.com/linux/v6.10/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"6.12's out-of-line put is page_pool_put_unrefed_netmem", "6.12", "", sim.SymPutUnrefed,
			SourceRef{Name: "page_pool_put_unrefed_netmem", URL: "https://elixir.bootlin.com/linux/v6.12/source/net/core/page_pool.c", File: "net/core/page_pool.c"}},
		{"skb_pp_cow_data's napi_build_skb is skbuff.c's", "6.9", "", sim.SymNapiBuildSKB,
			SourceRef{Name: "napi_build_skb", URL: "https://elixir.bootlin.com/linux/v6.9/source/net/core/skbuff.c", File: "net/core/skbuff.c"}},
		{"a knob's later feature is not in the era's release", "5.12", "", sim.SymAllocPagesBulk,
			SourceRef{Name: "__alloc_pages_bulk", Note: "not in v5.12: a knob adds a later kernel's behaviour to this era"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Source(tt.era, tt.driver, tt.sym); got != tt.want {
				t.Errorf("Source(%s, %q, %s) = %+v, want %+v", tt.era, tt.driver, tt.sym.Name(), got, tt.want)
			}
		})
	}
}

// The step record names the operation as the era's kernel does.
func TestStepRecord_OpNameIsTheErasName(t *testing.T) {
	l := mustNew(t, Config{Scenario: "pool-slow", Era: "5.12", Packets: 100, Knobs: teaching("pool-slow")})
	l.Record(true)
	for i := 0; i < 400 && !l.Done(); i++ {
		l.Step()
		if rec, ok := l.StepRecord(); ok && rec.Op.Name != Source("5.12", "", rec.Op.Func).Name {
			t.Fatalf("op %d: name %q, want the era's %q", i, rec.Op.Name, Source("5.12", "", rec.Op.Func).Name)
		}
	}
}

func TestEthtoolName_PerDriver(t *testing.T) {
	tests := []struct {
		name, driver string
		stat         sim.Stat
		ring         int
		want         string
	}{
		{"mlx5 device total: its own high-order name", "mlx5", sim.StatAllocSlowHighOrder, -1, "rx_pp_alloc_slow_high_order"},
		{"mlx5 per ring", "mlx5", sim.StatRecycleCached, 3, "rx3_pp_recycle_cached"},
		{"mlx5 released ref", "mlx5", sim.StatRecycleReleasedRefcnt, 0, "rx0_pp_recycle_released_ref"},
		{"mvneta: the generic helper's", "mvneta", sim.StatAllocSlowHighOrder, -1, "rx_pp_alloc_slow_ho"},
		{"mvneta has no per-ring counters", "mvneta", sim.StatAllocFast, 0, ""},
		{"pool scenario: generic", "", sim.StatRecycleRing, -1, "rx_pp_recycle_ring"},
		{"mvpp2 shows none: generic names", "mvpp2", sim.StatAllocFast, -1, "rx_pp_alloc_fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EthtoolName(tt.driver, tt.stat, tt.ring); got != tt.want {
				t.Errorf("EthtoolName(%q, %s, %d) = %q, want %q", tt.driver, tt.stat, tt.ring, got, tt.want)
			}
		})
	}
	for _, d := range drivers.Names() {
		note := EthtoolNote(d)
		exposes := d == "mlx5" || d == "mvneta"
		if (note == "") != exposes {
			t.Errorf("%s: note %q, exposes page_pool counters: %v", d, note, exposes)
		}
	}
}

// A modelled kernel function is missing from an era's table exactly when
// the era lacks the feature that calls it (a knob may still add the feature:
// the name then says it is not in the era's release); every other symbol
// that names a kernel function is in every era's table.
func TestKernelNames_AnEraLacksOnlyWhatItsKernelLacks(t *testing.T) {
	gate := map[sim.Sym]func(e *sim.Era) bool{
		sim.SymReturnSkbPage:    func(e *sim.Era) bool { return e.SkbRecycle != sim.SkbRecycleNone },
		sim.SymMarkForRecycle:   func(e *sim.Era) bool { return e.SkbRecycle != sim.SkbRecycleNone },
		sim.SymStoreMemInfo:     func(e *sim.Era) bool { return e.SkbRecycle == sim.SkbRecycleMerged && !e.PPSetAtAlloc }, // 5.14 only
		sim.SymXDPReturn:        func(e *sim.Era) bool { return true },
		sim.SymAllocFrag:        func(e *sim.Era) bool { return e.FragAPI },
		sim.SymDrainFrag:        func(e *sim.Era) bool { return e.FragAPI },
		sim.SymAllocPagesBulk:   func(e *sim.Era) bool { return e.BulkAlloc },
		sim.SymDeferFree:        func(e *sim.Era) bool { return e.DeferFree },
		sim.SymDeferFlush:       func(e *sim.Era) bool { return e.DeferFree },
		sim.SymTriggerRxSoftirq: func(e *sim.Era) bool { return e.DeferFree },
		sim.SymPoolCreatePercpu: func(e *sim.Era) bool { return e.SystemPool },
		sim.SymSkbPPCowData:     func(e *sim.Era) bool { return e.SystemPool },
		sim.SymNapiLocal:        func(e *sim.Era) bool { return e.PoolNapiLocal },
		sim.SymDMAIndexAlloc:    func(e *sim.Era) bool { return e.DMATracking },
		sim.SymDMAIndexRelease:  func(e *sim.Era) bool { return e.DMATracking },
		sim.SymMPAllocNetmems:   func(e *sim.Era) bool { return e.MemProvider != sim.MPNone },
		sim.SymMPReleaseNetmem:  func(e *sim.Era) bool { return e.MemProvider != sim.MPNone },
		sim.SymDevmemRecvmsg:    func(e *sim.Era) bool { return e.MemProvider != sim.MPNone },
		sim.SymDevmemDontneed:   func(e *sim.Era) bool { return e.MemProvider != sim.MPNone },
		sim.SymZcrxRefill:       func(e *sim.Era) bool { return e.MemProvider == sim.MPOps },
		sim.SymZcAllocNetmems:   func(e *sim.Era) bool { return e.MemProvider == sim.MPOps },
		sim.SymZcReleaseNetmem:  func(e *sim.Era) bool { return e.MemProvider == sim.MPOps },
	}
	for i := range sim.Eras {
		e := &sim.Eras[i]
		for s := sim.Sym(1); s < sim.NumSyms; s++ {
			ref := Source(e.Name, "", s)
			if strings.HasPrefix(ref.Note, "a step of the model") {
				continue
			}
			want := true
			if g, ok := gate[s]; ok {
				want = g(e)
			}
			if has := ref.URL != ""; has != want {
				t.Errorf("era %s: %s (%s) linked %v, want %v (note %q)", e.Name, ref.Name, s.Name(), has, want, ref.Note)
			}
		}
	}
}
