package lab

import (
	"bytes"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// TestYNL: the run's pools as netlink shows them, per kind of run.
func TestYNL(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cfg            Config
		pools          int
		napi, noteWant string
	}{
		{"pool benchmark: invisible", Config{Scenario: "pool-ring", Packets: 2000}, 0, "", "no netdev"},
		{"mvpp2 6.8: no pp.netdev, invisible", Config{Scenario: "drop", Packets: 2000}, 0, "", "without pp_params.netdev"},
		{"lunar 6.8: no pp.napi", Config{Scenario: "drop", Driver: "lunar", Packets: 2000}, 1, "", ""},
		{"bnxt 6.8: napi-id", Config{Scenario: "tcp-stream", Packets: 2000}, 1, "napi-id", ""},
		{"6.4: no netlink objects yet", Config{Scenario: "drop", Driver: "mlx5", Era: "6.4", Packets: 2000}, 1, "napi-id", "v6.8"},
		{"5.14: no stats", Config{Scenario: "drop", Driver: "lunar", Era: "5.14", Packets: 2000}, 1, "", "CONFIG_PAGE_POOL_STATS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			l.Run()
			y, r := l.YNL(), l.Results()
			if len(y.Pools) != tc.pools || len(y.Stats) != tc.pools || !strings.Contains(y.Note, tc.noteWant) || (tc.noteWant == "") != (y.Note == "") {
				t.Fatalf("pools %+v stats %+v note %q", y.Pools, y.Stats, y.Note)
			}
			if tc.pools == 0 {
				return
			}
			p := y.Pools[0]
			if p.ID != 1 || p.Ifindex != NICIfindex || int32(p.Inflight) != r.Inflight || p.InflightMem != p.Inflight*4096 || (p.NapiID != 0) != (tc.napi != "") {
				t.Errorf("pool %+v (inflight %d)", p, r.Inflight)
			}
			if y.Stats[0].Stats != r.Stats {
				t.Errorf("stats %v, want %v", y.Stats[0].Stats, r.Stats)
			}
			d := y.Devices[0]
			if d.Ifname != NICIfname || d.PagePools != 1 || d.AllocFast != r.Stats[sim.StatAllocFast]+r.Stats[sim.StatAllocRefill] || d.RecycleCache != r.Stats[sim.StatRecycleCached] {
				t.Errorf("ynltool %+v", d)
			}
		})
	}
}

// From 6.9 the per-CPU system pools take ids 1..cpus (net_dev_init,
// page_pool_create_percpu → page_pool_list), so the driver's pool is
// cpus + 1; before 6.9 it is 1. Netlink lists only the driver's pool, and
// only a driver that links its pools to the netdev (bnxt, mlx5, lunar):
// mvpp2's are not listed.
func TestYNL_SystemPoolsTakeTheFirstIDs(t *testing.T) {
	for _, tc := range []struct {
		era    string
		cpus   int64
		wantID uint32
	}{
		{"6.8", 2, 1},
		{"6.8", 4, 1},
		{"6.9", 2, 3},
		{"6.9", 4, 5},
		{"7.1", 8, 9},
	} {
		l, err := New(Config{Scenario: "drop", Driver: "bnxt", Era: tc.era, Packets: 500, Knobs: sim.KnobOverrides{}.With(sim.KnobCPUs, tc.cpus)})
		if err != nil {
			t.Fatal(err)
		}
		l.Run()
		y := l.YNL()
		if len(y.Pools) != 1 || y.Pools[0].ID != tc.wantID || y.Stats[0].ID != tc.wantID {
			t.Errorf("era %s, %d CPUs: pools %+v, want one with id %d", tc.era, tc.cpus, y.Pools, tc.wantID)
		}
	}
	for _, drv := range []string{"mvpp2", "mvneta", "cpsw", "hns3"} {
		l, err := New(Config{Scenario: "drop", Driver: drv, Era: "6.18", Packets: 100})
		if err != nil {
			t.Fatal(err)
		}
		l.Run()
		if y := l.YNL(); len(y.Pools) != 0 || len(y.Stats) != 0 || !strings.Contains(y.Note, "without pp_params.netdev") {
			t.Errorf("%s: netlink lists %+v; note %q", drv, y.Pools, y.Note)
		}
	}
}

// TestYNL_Zombie: after the driver's teardown, while sockets hold pages,
// the pool is detached (detach-time) with pages in flight and, its netdev
// unregistered, on lo: no ifindex, ynltool's <orphan>; once the last page
// is back it is freed and netlink no longer lists it.
func TestYNL_Zombie(t *testing.T) {
	l, err := New(Config{Scenario: "destroy", Driver: "bnxt", Packets: 2000})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	l.RunN(1990) // the teardown is at the 2000th packet
	for !l.Done() {
		l.RunN(1)
		if y := l.YNL(); len(y.Pools) == 1 && y.Pools[0].Detached && y.Pools[0].Inflight > 0 {
			seen = true
			if y.Devices[0].Zombies != 1 || y.Devices[0].ZombieRefs != y.Pools[0].Inflight || y.Devices[0].Ifindex != 0 {
				t.Errorf("ynltool %+v", y.Devices[0])
			}
			var b bytes.Buffer
			y.WritePagePoolGet(&b, false)
			if !strings.Contains(b.String(), "'detach-time': ") || strings.Contains(b.String(), "'ifindex'") {
				t.Errorf("page-pool-get:\n%s", b.String())
			}
			b.Reset()
			y.WriteYnltool(&b, false)
			if !strings.HasPrefix(b.String(), "<orphan>") || !strings.Contains(y.Note, "<orphan>") {
				t.Errorf("ynltool:\n%s\nnote %q", b.String(), y.Note)
			}
		}
	}
	if !seen {
		t.Error("never saw the zombie pool")
	}
	if y := l.YNL(); len(y.Pools) != 0 {
		t.Errorf("freed pool still listed: %+v", y.Pools)
	}
}

// TestYNL_Renderings: ynl's pprint layout (one line when it fits in 80
// columns, else a key per line) and --output-json, ynltool's plain and -j.
func TestYNL_Renderings(t *testing.T) {
	var st sim.Stats
	st[sim.StatAllocFast], st[sim.StatAllocSlow], st[sim.StatRecycleRing] = 3024, 48, 3000
	y := YNL{Pools: []YNLPool{{ID: 1, Ifindex: 2, NapiID: 8193, Inflight: 3, InflightMem: 12288}}, Stats: []YNLPoolStats{{ID: 1, Ifindex: 2, Stats: st}}}
	y.Devices = []YnltoolDevice{{Ifname: "eth0", Ifindex: 2, PagePools: 1, LiveRefs: 3, LiveBytes: 12288, AllocFast: 3024, AllocSlow: 48, RecycleRing: 3000}}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer)
		want  string
	}{
		{"page-pool-get", func(b *bytes.Buffer) { y.WritePagePoolGet(b, false) },
			"[{'id': 1, 'ifindex': 2, 'inflight': 3, 'inflight-mem': 12288, 'napi-id': 8193}]\n"},
		{"page-pool-get json", func(b *bytes.Buffer) { y.WritePagePoolGet(b, true) },
			`[{"id": 1, "ifindex": 2, "napi-id": 8193, "inflight": 3, "inflight-mem": 12288}]` + "\n"},
		{"page-pool-stats-get", func(b *bytes.Buffer) { y.WritePagePoolStatsGet(b, false) },
			"[{'alloc-empty': 0,\n  'alloc-fast': 3024,\n  'alloc-refill': 0,\n  'alloc-slow': 48,\n  'alloc-slow-high-order': 0,\n  'alloc-waive': 0,\n  'info': {'id': 1, 'ifindex': 2},\n  'recycle-cache-full': 0,\n  'recycle-cached': 0,\n  'recycle-released-refcnt': 0,\n  'recycle-ring': 3000,\n  'recycle-ring-full': 0}]\n"},
		{"ynltool", func(b *bytes.Buffer) { y.WriteYnltool(b, false) },
			"    eth0[2]\tpage pools: 1 (zombies: 0)\n\t\trefs: 3 bytes: 12288 (refs: 0 bytes: 0)\n\t\trecycling: 97.7% (alloc: 48:3024 recycle: 3000:0)\n"},
		{"ynltool -j", func(b *bytes.Buffer) { y.WriteYnltool(b, true) },
			`[{"ifname":"eth0","ifindex":2,"page_pools":1,"zombies":0,"live":{"refs":3,"bytes":12288},"zombie":{"refs":0,"bytes":0},"recycling_pct":97.65625,"alloc":{"slow":48,"fast":3024},"recycle":{"ring":3000,"cache":0}}]` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.write(&b)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
