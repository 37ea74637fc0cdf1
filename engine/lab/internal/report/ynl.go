package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// The run's pools as the netdev netlink family shows them: the replies of
// `ynl --family netdev --dump page-pool-get` and `--dump page-pool-stats-get`
// (net/core/page_pool_user.c: page_pool_nl_fill, page_pool_nl_stats_fill;
// Documentation/netlink/specs/netdev.yaml), and what `ynltool page-pool
// stats` derives from the two (tools/net/ynl/ynltool/page-pool.c:
// aggregate_device_stats, print_plain_stats, print_json_stats).

// YNLPool is one pool's page-pool-get reply. Zero ifindex, napi-id and an
// absent detach-time are the attributes page_pool_nl_fill leaves out.
type YNLPool struct {
	ID      uint32
	Ifindex uint32 // 0: the pool is orphaned (its netdev is gone: lo holds it)
	NapiID  uint32 // 0: no pp.napi
	// Inflight is page_pool_inflight(pool, false): hold − release, at least 0;
	// InflightMem is inflight × (PAGE_SIZE << order).
	Inflight, InflightMem int64
	// Detached: page_pool_destroy deferred the release (detach-time is
	// set); DetachTime is ktime_get_boottime_seconds() then — the model's
	// machine boots when the run starts.
	Detached   bool
	DetachTime int64
	// Dmabuf is the id of the dma-buf binding a devmem pool allocates from
	// (0: none): page_pool_nl_fill's NETDEV_A_PAGE_POOL_DMABUF, put after
	// detach-time ("netdev: add dmabuf introspection", devmem TCP, v6.12;
	// from v6.15 the provider's mp_ops->nl_fill, mp_dmabuf_devmem_nl_fill).
	Dmabuf uint32
	// IOUring: the pool is an io_uring zero-copy RX area's, whose nl_fill
	// (io_pp_nl_fill, v6.15) puts an empty io-uring nest.
	IOUring bool
}

// YNLPoolStats is one pool's page-pool-stats-get reply.
type YNLPoolStats struct {
	ID, Ifindex uint32
	Stats       sim.Stats
}

// YnltoolDevice is one device line group of `ynltool page-pool stats`
// (group-by device, its default): every pool of the device counts in
// PagePools and Live, the detached ones also in Zombies and Zombie; fast =
// alloc-fast + alloc-refill, slow = alloc-slow (high-order not counted).
type YnltoolDevice struct {
	Ifname                    string
	Ifindex                   uint32
	PagePools, Zombies        int
	LiveRefs, LiveBytes       int64
	ZombieRefs, ZombieBytes   int64
	AllocSlow, AllocFast      uint64
	RecycleRing, RecycleCache uint64
}

// YnltoolFormula is how `ynltool page-pool stats` derives its recycling
// line (tools/net/ynl/ynltool/page-pool.c, 124dac9b421c, v6.19), as the
// views show it beside the output.
const YnltoolFormula = "recycling % = (recycle-ring + recycle-cached) / (alloc-fast + alloc-refill + alloc-slow) × 100; " +
	"alloc: slow:fast, recycle: ring:cache. alloc-slow counts slow-path refills (up to 64 pages each), not pages, and " +
	"pages still in the alloc cache or the ring are not counted (ynltool: \"we will under-count\"); alloc-slow-high-order is left out"

// RecyclingPct is ynltool's recycling %: (recycle-ring + recycle-cached) /
// (alloc-fast + alloc-refill + alloc-slow) × 100; ok is false when no
// allocation was counted (ynltool then prints no recycling line).
func (d YnltoolDevice) RecyclingPct() (pct float64, ok bool) {
	if d.AllocFast+d.AllocSlow == 0 {
		return 0, false
	}
	return float64(d.RecycleRing+d.RecycleCache) / float64(d.AllocFast+d.AllocSlow) * 100, true
}

// YNL is the run's pools as netlink shows them.
type YNL struct {
	Pools   []YNLPool
	Stats   []YNLPoolStats
	Devices []YnltoolDevice
	// Note says what a real kernel of the era would not show (the netlink
	// page-pool objects are v6.8; the stats need CONFIG_PAGE_POOL_STATS,
	// v5.18; a pool without a netdev is invisible).
	Note string
	// IDNote says which ids the era's kernel gave pools netlink does not
	// list (the per-CPU system pools from 6.9; "" otherwise).
	IDNote string
}

// Ynltool derives ynltool's per-device view from the replies, as
// aggregate_device_stats does (devices in the order they are met; ifname
// names an ifindex).
func Ynltool(pools []YNLPool, stats []YNLPoolStats, ifname func(uint32) string) []YnltoolDevice {
	var out []YnltoolDevice
	find := func(ifc uint32) *YnltoolDevice {
		for i := range out {
			if out[i].Ifindex == ifc {
				return &out[i]
			}
		}
		name := "<orphan>"
		if ifc != 0 {
			name = ifname(ifc)
		}
		out = append(out, YnltoolDevice{Ifindex: ifc, Ifname: name})
		return &out[len(out)-1]
	}
	for _, p := range pools {
		d := find(p.Ifindex)
		d.PagePools++
		d.LiveRefs += p.Inflight
		d.LiveBytes += p.InflightMem
		if p.Detached {
			d.Zombies++
			d.ZombieRefs += p.Inflight
			d.ZombieBytes += p.InflightMem
		}
	}
	for _, s := range stats {
		d := find(s.Ifindex)
		d.AllocFast += s.Stats[sim.StatAllocFast] + s.Stats[sim.StatAllocRefill]
		d.AllocSlow += s.Stats[sim.StatAllocSlow]
		d.RecycleRing += s.Stats[sim.StatRecycleRing]
		d.RecycleCache += s.Stats[sim.StatRecycleCached]
	}
	return out
}

// YNLStatKey is the netdev family's attribute name of counter s
// (attribute-set page-pool-stats).
func YNLStatKey(s sim.Stat) string {
	if s == sim.StatRecycleReleasedRefcnt {
		return "recycle-released-refcnt"
	}
	return strings.ReplaceAll(s.String(), "_", "-")
}

// pyValue is a reply as ynl holds it: an ordered dict, an int, a list.
type pyDict []pyKV
type pyKV struct {
	k string
	v any // int64, uint64, pyDict
}

func (p YNLPool) dict() pyDict {
	d := pyDict{{"id", int64(p.ID)}}
	if p.Ifindex != 0 {
		d = append(d, pyKV{"ifindex", int64(p.Ifindex)})
	}
	if p.NapiID != 0 {
		d = append(d, pyKV{"napi-id", int64(p.NapiID)})
	}
	d = append(d, pyKV{"inflight", p.Inflight}, pyKV{"inflight-mem", p.InflightMem})
	if p.Detached {
		d = append(d, pyKV{"detach-time", p.DetachTime})
	}
	if p.Dmabuf != 0 {
		d = append(d, pyKV{"dmabuf", int64(p.Dmabuf)})
	}
	if p.IOUring {
		d = append(d, pyKV{"io-uring", pyDict{}})
	}
	return d
}

func (s YNLPoolStats) dict() pyDict {
	info := pyDict{{"id", int64(s.ID)}}
	if s.Ifindex != 0 {
		info = append(info, pyKV{"ifindex", int64(s.Ifindex)})
	}
	d := pyDict{{"info", info}}
	for i := sim.Stat(0); i < sim.NumStats; i++ {
		d = append(d, pyKV{YNLStatKey(i), s.Stats[i]})
	}
	return d
}

// WritePagePoolGet prints the page-pool-get dump as ynl does: Python
// literals through pprint (sorted keys, 80 columns), or with
// --output-json one JSON document in attribute order.
func (y YNL) WritePagePoolGet(w io.Writer, asJSON bool) {
	var ds []pyDict
	for _, p := range y.Pools {
		ds = append(ds, p.dict())
	}
	writeDump(w, ds, asJSON)
}

// WritePagePoolStatsGet prints the page-pool-stats-get dump as ynl does.
func (y YNL) WritePagePoolStatsGet(w io.Writer, asJSON bool) {
	var ds []pyDict
	for _, s := range y.Stats {
		ds = append(ds, s.dict())
	}
	writeDump(w, ds, asJSON)
}

func writeDump(w io.Writer, ds []pyDict, asJSON bool) {
	if asJSON {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, d := range ds {
			if i > 0 {
				b.WriteString(", ")
			}
			d.json(&b, ", ", ": ")
		}
		b.WriteByte(']')
		fmt.Fprintln(w, b.String())
		return
	}
	reprs := make([]string, len(ds))
	for i, d := range ds {
		reprs[i] = pyRepr(d)
	}
	if one := "[" + strings.Join(reprs, ", ") + "]"; len(one) <= 80 {
		fmt.Fprintln(w, one)
		return
	}
	items := make([]string, len(ds))
	for i, d := range ds {
		items[i] = d.pformat(1, 1)
	}
	fmt.Fprintf(w, "[%s]\n", strings.Join(items, ",\n "))
}

// json writes d in its own key order with the given separators (Python's
// json.dumps uses ", " and ": ").
func (d pyDict) json(b *bytes.Buffer, sep, colon string) {
	b.WriteByte('{')
	for i, kv := range d {
		if i > 0 {
			b.WriteString(sep)
		}
		q, _ := json.Marshal(kv.k)
		b.Write(q)
		b.WriteString(colon)
		switch v := kv.v.(type) {
		case pyDict:
			v.json(b, sep, colon)
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case uint64:
			b.WriteString(strconv.FormatUint(v, 10))
		}
	}
	b.WriteByte('}')
}

// sorted is d with its keys sorted (pprint sorts dicts).
func (d pyDict) sorted() pyDict {
	s := append(pyDict(nil), d...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].k < s[j].k })
	return s
}

func pyRepr(v any) string {
	switch v := v.(type) {
	case pyDict:
		parts := make([]string, 0, len(v))
		for _, kv := range v.sorted() {
			parts = append(parts, "'"+kv.k+"': "+pyRepr(kv.v))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	}
	return ""
}

// pformat is pprint's layout of d at column indent (pprint.PrettyPrinter,
// width 80; _format, _pprint_dict): on one line when it fits with
// allowance columns after it (the closing brackets that follow), else one
// key per line, each value at the column after its key.
func (d pyDict) pformat(indent, allowance int) string {
	if r := pyRepr(d); indent+len(r)+allowance <= 80 {
		return r
	}
	s := d.sorted()
	parts := make([]string, len(s))
	for i, kv := range s {
		key := "'" + kv.k + "': "
		if sub, ok := kv.v.(pyDict); ok {
			a := 1
			if i == len(s)-1 {
				a = allowance + 1
			}
			parts[i] = key + sub.pformat(indent+1+len(key), a)
		} else {
			parts[i] = key + pyRepr(kv.v)
		}
	}
	return "{" + strings.Join(parts, ",\n"+strings.Repeat(" ", indent+1)) + "}"
}

// WriteYnltool prints `ynltool page-pool stats` (group-by device) in its
// plain form (print_plain_stats) or with -j (print_json_stats).
func (y YNL) WriteYnltool(w io.Writer, asJSON bool) {
	if asJSON {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, d := range y.Devices {
			if i > 0 {
				b.WriteByte(',')
			}
			d.json(&b)
		}
		b.WriteByte(']')
		fmt.Fprintln(w, b.String())
		return
	}
	for _, d := range y.Devices {
		if d.Ifindex == 0 {
			fmt.Fprint(w, "<orphan>\t")
		} else {
			fmt.Fprintf(w, "%8s[%d]\t", d.Ifname, d.Ifindex)
		}
		fmt.Fprintf(w, "page pools: %d (zombies: %d)\n", d.PagePools, d.Zombies)
		fmt.Fprintf(w, "\t\trefs: %d bytes: %d (refs: %d bytes: %d)\n", d.LiveRefs, d.LiveBytes, d.ZombieRefs, d.ZombieBytes)
		if pct, ok := d.RecyclingPct(); ok {
			fmt.Fprintf(w, "\t\trecycling: %.1f%% (alloc: %d:%d recycle: %d:%d)\n", pct, d.AllocSlow, d.AllocFast, d.RecycleRing, d.RecycleCache)
		}
	}
}

// json writes d as print_json_stats does (json_writer's compact form).
func (d YnltoolDevice) json(b *bytes.Buffer) {
	name, _ := json.Marshal(d.Ifname)
	fmt.Fprintf(b, `{"ifname":%s,"ifindex":%d,"page_pools":%d,"zombies":%d,"live":{"refs":%d,"bytes":%d},"zombie":{"refs":%d,"bytes":%d}`,
		name, d.Ifindex, d.PagePools, d.Zombies, d.LiveRefs, d.LiveBytes, d.ZombieRefs, d.ZombieBytes)
	if pct, ok := d.RecyclingPct(); ok {
		fmt.Fprintf(b, `,"recycling_pct":%s`, strconv.FormatFloat(pct, 'f', -1, 64))
	}
	if d.AllocFast+d.AllocSlow > 0 {
		fmt.Fprintf(b, `,"alloc":{"slow":%d,"fast":%d},"recycle":{"ring":%d,"cache":%d}`, d.AllocSlow, d.AllocFast, d.RecycleRing, d.RecycleCache)
	}
	b.WriteByte('}')
}

// marshal is the "ynl" key of `ppsim run --json`: the two dumps as
// `ynl --output-json` gives them and ynltool's -j view, with the note.
func (y YNL) marshal(b *bytes.Buffer) {
	b.WriteString(`{`)
	if y.Note != "" {
		q, _ := json.Marshal(y.Note)
		fmt.Fprintf(b, `"note":%s,`, q)
	}
	b.WriteString(`"page-pool-get":[`)
	for i, p := range y.Pools {
		if i > 0 {
			b.WriteByte(',')
		}
		p.dict().json(b, ",", ":")
	}
	b.WriteString(`],"page-pool-stats-get":[`)
	for i, s := range y.Stats {
		if i > 0 {
			b.WriteByte(',')
		}
		s.dict().json(b, ",", ":")
	}
	b.WriteString(`],"ynltool-page-pool-stats":[`)
	for i, d := range y.Devices {
		if i > 0 {
			b.WriteByte(',')
		}
		d.json(b)
	}
	b.WriteString(`]`)
	if y.IDNote != "" {
		q, _ := json.Marshal(y.IDNote)
		fmt.Fprintf(b, `,"id-note":%s`, q)
	}
	q, _ := json.Marshal(YnltoolFormula)
	fmt.Fprintf(b, `,"ynltool-formula":%s}`, q)
}
