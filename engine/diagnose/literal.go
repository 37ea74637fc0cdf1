package diagnose

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"pplab/engine/sim"
)

// The ynl dumps as ynl prints them: Python literals (pprint: single-quoted
// keys, True/False/None) or with --output-json JSON; and ynltool -j. One
// reader takes both: dicts, lists, strings, numbers, the three names.

type lval struct {
	line int
	kind byte // 'd' dict, 'l' list, 's' string, 'n' number, 'b' name (True/False/None)
	keys []string
	kl   []int // each key's line
	vals []lval
	s    string
	num  string
}

func (v lval) get(k string) (lval, bool) {
	for i, kk := range v.keys {
		if kk == k {
			return v.vals[i], true
		}
	}
	return lval{}, false
}

type lexer struct {
	src  []string // the lines, dequoted
	skip []bool   // lines that are not part of the literal text (commands, blanks)
	ln   int      // 0-based line
	col  int
}

func (x *lexer) errf(format string, args ...any) error {
	n := min(x.ln, len(x.src)-1)
	return &ParseError{Line: n + 1, Text: x.src[n], Msg: fmt.Sprintf(format, args...)}
}

// peek skips blanks (and skipped lines) and returns the next byte, 0 at
// the end.
func (x *lexer) peek() byte {
	for x.ln < len(x.src) {
		if x.skip[x.ln] {
			x.ln, x.col = x.ln+1, 0
			continue
		}
		l := x.src[x.ln]
		for x.col < len(l) && (l[x.col] == ' ' || l[x.col] == '\t') {
			x.col++
		}
		if x.col < len(l) {
			return l[x.col]
		}
		x.ln, x.col = x.ln+1, 0
	}
	return 0
}

func (x *lexer) value() (lval, error) {
	c := x.peek()
	v := lval{line: x.ln + 1}
	switch {
	case c == '{' || c == '[':
		x.col++
		closing := byte('}')
		v.kind = 'd'
		if c == '[' {
			closing, v.kind = ']', 'l'
		}
		for {
			if x.peek() == closing {
				x.col++
				return v, nil
			}
			if v.kind == 'd' {
				kl := x.ln + 1
				k, err := x.value()
				if err != nil {
					return v, err
				}
				if k.kind != 's' {
					return v, x.errf("want a quoted key in a dict")
				}
				if x.peek() != ':' {
					return v, x.errf("want ':' after the key '%s'", k.s)
				}
				x.col++
				v.keys, v.kl = append(v.keys, k.s), append(v.kl, kl)
			}
			e, err := x.value()
			if err != nil {
				return v, err
			}
			v.vals = append(v.vals, e)
			switch x.peek() {
			case ',':
				x.col++
			case closing:
			default:
				return v, x.errf("want ',' or '%c'", closing)
			}
		}
	case c == '\'' || c == '"':
		l := x.src[x.ln]
		end := strings.IndexByte(l[x.col+1:], c)
		if end < 0 {
			return v, x.errf("unterminated string")
		}
		v.kind, v.s = 's', l[x.col+1:x.col+1+end]
		x.col += end + 2
		return v, nil
	case c == '-' || (c >= '0' && c <= '9'):
		l := x.src[x.ln]
		i := x.col + 1
		for i < len(l) && strings.IndexByte("0123456789.eE+-", l[i]) >= 0 {
			i++
		}
		v.kind, v.num = 'n', l[x.col:i]
		x.col = i
		return v, nil
	case c >= 'A' && c <= 'z':
		l := x.src[x.ln]
		i := x.col
		for i < len(l) && (l[i] >= 'A' && l[i] <= 'z') {
			i++
		}
		w := l[x.col:i]
		switch w {
		case "True", "False", "None", "true", "false", "null":
			v.kind, v.s = 'b', w
			x.col = i
			return v, nil
		}
		return v, x.errf("unexpected %q: want a value (a dict, a list, a string, a number)", w)
	case c == 0:
		return v, x.errf("the input ends inside a value: want a closing bracket")
	}
	return v, x.errf("unexpected %q: want a value (a dict, a list, a string, a number)", string(c))
}

func (v lval) u64(field string, x *lexer) (uint64, error) {
	if v.kind != 'n' {
		return 0, &ParseError{Line: v.line, Text: x.src[v.line-1], Msg: fmt.Sprintf("'%s': want an unsigned integer", field)}
	}
	n, err := strconv.ParseUint(v.num, 10, 64)
	if err != nil {
		return 0, &ParseError{Line: v.line, Text: x.src[v.line-1], Msg: fmt.Sprintf("'%s': want an unsigned 64-bit integer, found %s", field, v.num)}
	}
	return n, nil
}

func parseLiteral(p *Paste, body []string) error {
	x := &lexer{src: body, skip: make([]bool, len(body))}
	for i := range body {
		x.skip[i] = p.Lines[i].Use != ""
	}
	p.Format, p.Variant = FormatYNL, "Python literals"
	var values []lval
	for {
		c := x.peek()
		if c == 0 {
			break
		}
		if c != '[' && c != '{' {
			// Text between dumps: grey, never dropped.
			p.Lines[x.ln].Use, p.Lines[x.ln].Why = UseGrey, "text outside the dumps"
			x.ln, x.col = x.ln+1, 0
			continue
		}
		start := x.ln
		v, err := x.value()
		if err != nil {
			return err
		}
		end := x.ln
		if x.col == 0 {
			end--
		}
		for l := start; l <= end && l < len(body); l++ {
			if !x.skip[l] && p.Lines[l].Use == "" {
				p.Lines[l].Use = UseKept
			}
		}
		values = append(values, v)
	}
	if strings.Contains(strings.Join(body, "\n"), "\"") {
		p.Variant = "--output-json"
	}
	var cur *Snapshot
	hasPools, hasStats := false, false
	kinds := map[string]bool{}
	for _, v := range values {
		items := v.vals
		if v.kind == 'd' {
			items = []lval{v}
		}
		kind := ""
		for _, it := range items {
			if it.kind != 'd' {
				return &ParseError{Line: it.line, Text: body[it.line-1], Msg: "want a dict per pool (a list of dicts, as ynl --dump prints)"}
			}
			if k := classify(it); k != "" {
				kind = k
				break
			}
		}
		if kind == "" {
			if len(items) == 0 {
				p.Notes = append(p.Notes, fmt.Sprintf("line %d: an empty dump (no page pool is visible: none is linked to a netdev, or CONFIG_PAGE_POOL_STATS is off for page-pool-stats-get)", v.line))
				continue
			}
			return &ParseError{Line: v.line, Text: body[v.line-1], Msg: "a dict that is none of page-pool-get's (id, inflight), page-pool-stats-get's (info, alloc-*, recycle-*) or ynltool -j's (page_pools, refs)"}
		}
		// A new reading starts unless this dump completes the current one
		// (page-pool-get beside page-pool-stats-get).
		if cur == nil || (kind == "stats" && hasStats) || (kind == "pool" && hasPools) || strings.HasPrefix(kind, "ynltool") {
			p.Snapshots = append(p.Snapshots, Snapshot{Line: v.line})
			cur = &p.Snapshots[len(p.Snapshots)-1]
			hasPools, hasStats = false, false
		}
		kinds[kind] = true
		switch kind {
		case "stats":
			hasStats = true
		case "pool":
			hasPools = true
		}
		for _, it := range items {
			if err := p.literalItem(cur, it, kind, x); err != nil {
				return err
			}
		}
	}
	for i := range p.Snapshots {
		sn := &p.Snapshots[i]
		for _, pl := range sn.Pools {
			if pl.HasStats {
				sn.Device.add(pl.Stats)
			}
		}
		for _, d := range sn.Devices {
			sn.Device.add(d.Stats)
		}
	}
	switch {
	case kinds["ynltool"]:
		p.Format, p.Variant, p.Provenance = FormatYnltool, "-j", ynltoolProvenance
	case kinds["ynltool-pp"]:
		p.Format, p.Variant, p.Provenance = FormatYnltool, "-j group-by pp", ynltoolProvenance
	default:
		var what []string
		if kinds["pool"] {
			what = append(what, "page-pool-get")
		}
		if kinds["stats"] {
			what = append(what, "page-pool-stats-get")
		}
		p.Variant = strings.Join(what, " + ") + ", " + p.Variant
		p.Provenance = "ynl, netlink family netdev: one entry per page pool (page_pool_nl_fill, page_pool_nl_stats_fill in net/core/page_pool_user.c); the diagnosis sums each device's pools"
	}
	return nil
}

func classify(d lval) string {
	for _, k := range d.keys {
		switch {
		case k == "info" || strings.HasPrefix(k, "alloc-") || strings.HasPrefix(k, "recycle-"):
			return "stats"
		case k == "page_pools" || k == "zombies" || k == "live":
			return "ynltool"
		case k == "refs" || k == "napi_id" || k == "recycling_pct" || k == "detach_time":
			return "ynltool-pp"
		case k == "inflight" || k == "inflight-mem" || k == "napi-id" || k == "detach-time":
			return "pool"
		}
	}
	if _, ok := d.get("id"); ok {
		return "pool"
	}
	return ""
}

// poolByID finds or adds the pool id in sn.
func (sn *Snapshot) poolByID(id uint64, line int) *Pool {
	for i := range sn.Pools {
		if sn.Pools[i].ID == id {
			return &sn.Pools[i]
		}
	}
	sn.Pools = append(sn.Pools, Pool{ID: id, Line: line})
	return &sn.Pools[len(sn.Pools)-1]
}

func (p *Paste) literalItem(sn *Snapshot, d lval, kind string, x *lexer) error {
	mark := func(i int, use, why string) {
		if l := d.kl[i] - 1; l >= 0 && (p.Lines[l].Use == UseKept || p.Lines[l].Use == "") {
			if use == UseCounter || p.Lines[l].Use != UseCounter {
				p.Lines[l].Use, p.Lines[l].Why = use, why
			}
		}
	}
	var unknown []string
	switch kind {
	case "stats":
		var c Counters
		var id, ifc uint64
		hasIf := false
		for i, k := range d.keys {
			v := d.vals[i]
			if k == "info" {
				if idv, ok := v.get("id"); ok {
					id, _ = idv.u64("id", x)
				}
				if iv, ok := v.get("ifindex"); ok {
					ifc, _ = iv.u64("ifindex", x)
					hasIf = true
				}
				continue
			}
			st, _, ok := StatByName(k)
			if !ok {
				unknown = append(unknown, k)
				mark(i, UseGrey, "not a page-pool-stats-get attribute")
				continue
			}
			n, err := v.u64(k, x)
			if err != nil {
				return err
			}
			c.set(st, n)
			p.noteUnderflow(k, v.line, n)
			mark(i, UseCounter, "")
		}
		pl := sn.poolByID(id, d.line)
		pl.Stats, pl.HasStats = c, true
		if hasIf {
			pl.Ifindex, pl.HasIfindex = ifc, true
		}
	case "pool":
		var id uint64
		if v, ok := d.get("id"); ok {
			id, _ = v.u64("id", x)
		}
		pl := sn.poolByID(id, d.line)
		pl.HasPoolFields = true
		for i, k := range d.keys {
			v := d.vals[i]
			var n uint64
			if v.kind == 'n' {
				var err error
				if n, err = v.u64(k, x); err != nil {
					return err
				}
			}
			switch k {
			case "id":
			case "ifindex":
				pl.Ifindex, pl.HasIfindex = n, true
			case "napi-id":
				pl.NapiID = n
			case "inflight":
				pl.Inflight, pl.HasInflight = n, true
			case "inflight-mem":
				pl.InflightMem, pl.HasMem = n, true
			case "detach-time":
				pl.DetachTime, pl.Detached = n, true
			case "dmabuf":
				pl.Dmabuf, pl.HasDmabuf = n, true
			case "io_uring", "io-uring":
				pl.IOUring = true
			default:
				unknown = append(unknown, k)
				mark(i, UseGrey, "not a page-pool-get attribute")
			}
		}
	case "ynltool":
		dev := Device{Line: d.line}
		for i, k := range d.keys {
			v := d.vals[i]
			switch k {
			case "ifname":
				dev.Ifname = v.s
			case "ifindex":
				dev.Ifindex, _ = v.u64(k, x)
			case "page_pools":
				dev.PagePools, _ = v.u64(k, x)
			case "zombies":
				dev.Zombies, _ = v.u64(k, x)
			case "live", "zombie":
				r, _ := v.get("refs")
				b, _ := v.get("bytes")
				rv, _ := r.u64("refs", x)
				bv, _ := b.u64("bytes", x)
				if k == "live" {
					dev.LiveRefs, dev.LiveBytes = rv, bv
				} else {
					dev.ZombieRefs, dev.ZombieBytes = rv, bv
				}
			case "recycling_pct":
			case "alloc", "recycle":
				if err := p.ynltoolJSONStats(&dev.Stats, k, v, x); err != nil {
					return err
				}
				mark(i, UseCounter, "")
			default:
				unknown = append(unknown, k)
			}
		}
		sn.Devices = append(sn.Devices, dev)
	case "ynltool-pp":
		pl := Pool{Line: d.line, HasPoolFields: true}
		for i, k := range d.keys {
			v := d.vals[i]
			var n uint64
			if v.kind == 'n' && k != "recycling_pct" {
				n, _ = v.u64(k, x)
			}
			switch k {
			case "id":
				pl.ID = n
			case "ifname":
				pl.Ifname = v.s
			case "ifindex":
				pl.Ifindex, pl.HasIfindex = n, true
			case "napi_id":
				pl.NapiID = n
			case "refs":
				pl.Inflight, pl.HasInflight = n, true
			case "bytes":
				pl.InflightMem, pl.HasMem = n, true
			case "detach_time":
				pl.DetachTime, pl.Detached = n, true
			case "dmabuf":
				pl.Dmabuf, pl.HasDmabuf = n, true
			case "recycling_pct":
			case "alloc", "recycle":
				if err := p.ynltoolJSONStats(&pl.Stats, k, v, x); err != nil {
					return err
				}
				pl.HasStats = true
				mark(i, UseCounter, "")
			default:
				unknown = append(unknown, k)
			}
		}
		sn.Pools = append(sn.Pools, pl)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		p.Notes = append(p.Notes, fmt.Sprintf("line %d: keys not understood, kept and not used: %s", d.line, strings.Join(unknown, ", ")))
	}
	return nil
}

func (p *Paste) ynltoolJSONStats(c *Counters, k string, v lval, x *lexer) error {
	c.FastHasRefill = true
	pairs := map[string]sim.Stat{"slow": sim.StatAllocSlow, "fast": sim.StatAllocFast}
	if k == "recycle" {
		pairs = map[string]sim.Stat{"ring": sim.StatRecycleRing, "cache": sim.StatRecycleCached}
	}
	for name, st := range pairs {
		if e, ok := v.get(name); ok {
			n, err := e.u64(k+"."+name, x)
			if err != nil {
				return err
			}
			c.set(st, n)
			p.noteUnderflow(k+"."+name, e.line, n)
		}
	}
	return nil
}
