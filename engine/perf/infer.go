package perf

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"pplab/engine/drivers"
	"pplab/engine/lab"
	"pplab/engine/sim"
	"pplab/engine/workload"
)

// What a listing says without a header: its driver from the driver's own
// symbols, its workload from the stack's, its kernel's era range from the
// names its symbols have in each release (idents.tsv, through
// lab.LookupIdent), and which of its symbols the model runs under any
// era's name.

// driverPrefixes are the symbol prefixes of each modelled driver's own
// functions (its source files' naming: mvpp2_rx, mvneta_poll,
// cpsw_rx_handler / cpdma_chan_process, mlx5e_poll_rx_cq,
// bnxt_rx_pkt, hns3_clean_rx_ring, lunar_poll).
//
// modules are the kernel modules perf names as the object of a driver's
// functions ("[mlx5_core]"; the Kconfig's module names).
var driverPrefixes = []struct {
	driver   string
	prefixes []string
	modules  []string
}{
	{"mvpp2", []string{"mvpp2_"}, []string{"mvpp2"}},
	{"mvneta", []string{"mvneta_"}, []string{"mvneta"}},
	{"cpsw", []string{"cpsw_", "cpdma_", "am65_cpsw_"}, []string{"ti_cpsw", "ti_cpsw_new", "ti_davinci_cpdma", "ti_am65_cpsw_nuss"}},
	{"mlx5", []string{"mlx5e_", "mlx5_"}, []string{"mlx5_core"}},
	{"bnxt", []string{"bnxt_"}, []string{"bnxt_en"}},
	{"hns3", []string{"hns3_", "hclge_"}, []string{"hns3", "hclge"}},
	{"lunar", []string{"lunar_"}, []string{"lunar"}},
}

// ownLine reports whether a listed line is one of d's functions: by its
// symbol's prefix or its module.
func ownLine(prefixes, modules []string, l ProfileLine) bool {
	obj := strings.Trim(l.Object, "[]")
	return slices.Contains(modules, obj) || slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(l.Symbol, pre) })
}

// listingDriver names the driver whose own symbols the listing shows most
// (by share), with the symbols that say so; "" when none does. Two drivers
// in one listing (a forwarding box with two NICs) give the one with the
// larger share, and a note names the other.
func listingDriver(p *Profile) (driver string, evidence []string, note string) {
	share := map[string]float64{}
	syms := map[string][]string{}
	for _, l := range p.Lines {
		// a module's object ("[mvpp2]") names its driver even where the
		// symbols are not resolved
		for _, d := range driverPrefixes {
			if ownLine(d.prefixes, d.modules, l) {
				share[d.driver] += l.Pct
				if !slices.Contains(syms[d.driver], l.Symbol) {
					syms[d.driver] = append(syms[d.driver], l.Symbol)
				}
			}
		}
	}
	best := ""
	for _, d := range driverPrefixes {
		if share[d.driver] > share[best] {
			best = d.driver
		}
	}
	if best == "" {
		return "", nil, ""
	}
	for _, d := range driverPrefixes {
		if d.driver != best && share[d.driver] > 0 {
			note = fmt.Sprintf("the listing also shows %s's functions (%s, %.2f%%): predicted for %s (%.2f%%), the larger share", d.driver, strings.Join(first(syms[d.driver], 3), ", "), share[d.driver], best, share[best])
		}
	}
	return best, first(syms[best], 3), note
}

func first(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

// firstOf writes the first n of xs, and how many more there are.
func firstOf(xs []string, n int) string {
	s := strings.Join(first(xs, n), ", ")
	if len(xs) > n {
		s += fmt.Sprintf(" and %d more", len(xs)-n)
	}
	return s
}

// workloadSymbols: stack functions that say which workload a listing
// measured, checked in this order (the first workload with a listed
// symbol wins): XDP redirect, forwarding, TCP receive, a transmit path
// (forwarding); else the drop test.
var workloadSymbols = []struct {
	wl   string
	syms []string
}{
	{workload.WXDPRedirect, []string{"xdp_do_redirect", "veth_xdp_rcv", "veth_xdp_xmit", "__xdp_build_skb_from_frame", "dev_map_enqueue", "cpu_map_kthread_run", "xdp_do_flush"}},
	{workload.WForward, []string{"ip_forward", "ip_forward_finish", "nf_nat_ipv4_fn", "nf_nat_inet_fn", "nf_nat_manip_pkt"}},
	{workload.WTCPStream, []string{"tcp_v4_rcv", "tcp_rcv_established", "tcp_recvmsg", "tcp_recvmsg_locked", "skb_copy_datagram_iter", "__skb_datagram_iter", "_copy_to_iter", "copy_user_enhanced_fast_string", "rep_movs_alternative", "__arch_copy_to_user"}},
	// the transmit path and conntrack a forwarding box runs — and a TCP
	// receiver's ACKs too, so only after the receive path's own functions
	{workload.WForward, []string{"ip_finish_output2", "dev_hard_start_xmit", "__dev_queue_xmit", "skb_cow", "nf_conntrack_in", "nf_conntrack_tcp_packet"}},
	// GRO merges TCP segments that a router forwards as well
	{workload.WTCPStream, []string{"tcp_gro_receive", "tcp4_gro_receive"}},
}

// listingWorkload is the workload the listing's stack shows, and the
// symbol that says so ("" with the drop test, which nothing names).
func listingWorkload(p *Profile) (wl, by string) {
	for _, w := range workloadSymbols {
		for _, s := range w.syms {
			if p.Share(s) > 0 {
				return w.wl, s
			}
		}
	}
	return workload.WDrop, ""
}

// eraRange is the eras a listing's names allow.
type eraRange struct {
	eras []*sim.Era // oldest first; every era when no listed name says
	// branch: the branch eras (rfc-v1) the names allow, a range of their
	// own (evidence picks them when no mainline era fits).
	branch []*sim.Era
	by     []string // the symbols that narrowed it, "name (eras)"
	// conflict names listed symbols whose eras do not meet the rest's
	// (a listing of two kernels, or a backport): left out of the range.
	conflict []string
	// headerKernel is the listing's "# kernel:" line, when it has one
	// (whether the names agree with it or not).
	headerKernel string
}

// narrowed reports whether any listed name narrowed the range.
func (r eraRange) narrowed() bool { return len(r.by) > 0 }

// String says the range: "6.8–6.10, by page_pool_put_unrefed_page: 6.8–6.10".
func (r eraRange) String() string {
	if len(r.eras) == 0 {
		return "no era"
	}
	s := r.eras[0].Name
	if n := len(r.eras); n > 1 {
		s += "–" + r.eras[n-1].Name
	}
	if len(r.by) > 0 {
		s += ", by " + strings.Join(r.by, "; ")
	}
	return s
}

// kernelVersionRe finds a release in a header's kernel: "6.6.30",
// "v6.8", "6.8.0-45-generic", "Linux 6.1.0-18-arm64".
var kernelVersionRe = regexp.MustCompile(`(?:^|[^\d.])v?(\d+)\.(\d+)`)

// kernelEra is the era a release runs as: the newest mainline era (not a
// branch, not a pre-release) at or before it — 6.7 runs as 6.6, 6.11 as
// 6.10. A release after the newest era runs as it (note says so); one
// before the first era, or words with no release, are an error.
func kernelEra(kernel string) (e *sim.Era, note string, err error) {
	m := kernelVersionRe.FindStringSubmatch(kernel)
	if m == nil {
		return nil, "", fmt.Errorf("no release in it (want one like 6.6 or 6.8.0-45-generic)")
	}
	maj, _ := strconv.Atoi(m[1])
	min, _ := strconv.Atoi(m[2])
	v := maj*1000 + min
	var newest *sim.Era
	for i := range sim.Eras {
		x := &sim.Eras[i]
		if x.Branch != "" || x.PreRelease {
			continue
		}
		xv, ok := eraVersion(x.Name)
		if !ok {
			continue
		}
		if xv <= v {
			e = x
		}
		newest = x
	}
	if e == nil {
		return nil, "", fmt.Errorf("release %d.%d is before the model's first era, %s", maj, min, sim.Eras[0].Name)
	}
	if ev, _ := eraVersion(e.Name); ev != v {
		note = fmt.Sprintf("release %d.%d runs as era %s, the model's newest at or before it", maj, min, e.Name)
		if e == newest {
			note = fmt.Sprintf("release %d.%d is after the model's newest era: predicted as %s", maj, min, e.Name)
		}
	}
	return e, note, nil
}

// eraVersion is an era name's release as major*1000+minor ("6.10" →
// 6010); false for a branch or pre-release name.
func eraVersion(name string) (int, bool) {
	a, b, ok := strings.Cut(name, ".")
	if !ok {
		return 0, false
	}
	maj, err1 := strconv.Atoi(a)
	min, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return maj*1000 + min, true
}

// identEras is the mainline eras whose release defines ident (idents.tsv),
// and the branch eras apart; nil when the table does not know it.
//
// A definition in a header is an inline (kfree_skb over kfree_skb_reason
// from 5.17): a profile never shows it, so it says nothing of the eras a
// listing that shows the name comes from.
func identEras(ident string) (main, branch []*sim.Era) {
	for i := range sim.Eras {
		e := &sim.Eras[i]
		if d, ok := lab.LookupIdent(e.Name, ident); ok && !strings.HasSuffix(d.File, ".h") {
			if e.Branch != "" {
				branch = append(branch, e)
			} else {
				main = append(main, e)
			}
		}
	}
	return main, branch
}

// listingEras narrows the mainline eras by each listed symbol the table
// knows, in listing order (the hottest first): a symbol whose eras do not
// meet the range so far is a conflict, left out. The RFC branch (rfc-v1)
// is the range only when the listing's names allow no mainline era but
// allow it.
func listingEras(p *Profile) eraRange {
	var r eraRange
	for i := range sim.Eras {
		if sim.Eras[i].Branch == "" {
			r.eras = append(r.eras, &sim.Eras[i])
		}
	}
	all := len(r.eras)
	seen := map[string]bool{}
	var branchOK []*sim.Era
	branchAll := true
	for _, l := range p.Lines {
		if seen[l.Symbol] {
			continue
		}
		seen[l.Symbol] = true
		main, branch := identEras(l.Symbol)
		if len(main) == 0 && len(branch) == 0 {
			continue
		}
		if branchAll {
			branchOK, branchAll = branch, false
		} else {
			branchOK = intersect(branchOK, branch)
		}
		if len(main) == all {
			continue // every release has it: says nothing
		}
		next := intersect(r.eras, main)
		if len(next) == 0 {
			r.conflict = append(r.conflict, fmt.Sprintf("%s (%s)", l.Symbol, span(main)))
			continue
		}
		if len(next) < len(r.eras) {
			r.by = append(r.by, fmt.Sprintf("%s: %s", l.Symbol, span(main)))
		}
		r.eras = next
	}
	if branchAll { // no listed name the table knows
		for i := range sim.Eras {
			if sim.Eras[i].Branch != "" {
				branchOK = append(branchOK, &sim.Eras[i])
			}
		}
	}
	r.branch = branchOK
	return r
}

// evidence narrows the range by what the listing shows of the kernel's
// behaviour (want: the eras' answer; ok false: the listing does not say);
// a narrowing that leaves no era is not made, and a note says so.
func (r *eraRange) evidence(what string, ok bool, f func(*sim.Era) bool) string {
	if !ok {
		return ""
	}
	keep := func(es []*sim.Era) []*sim.Era {
		var out []*sim.Era
		for _, e := range es {
			if f(e) {
				out = append(out, e)
			}
		}
		return out
	}
	m, b := keep(r.eras), keep(r.branch)
	if len(m) == 0 && len(b) == 0 {
		return fmt.Sprintf("the listing shows %s, which no kernel its names fit (%s) does: the names are kept", what, span(r.eras))
	}
	if len(m) < len(r.eras) || len(b) < len(r.branch) {
		r.by = append(r.by, what)
	}
	r.eras, r.branch = m, b
	if len(r.eras) == 0 {
		r.eras, r.branch = r.branch, nil
	}
	return ""
}

func intersect(a, b []*sim.Era) []*sim.Era {
	var out []*sim.Era
	for _, e := range a {
		if slices.Contains(b, e) {
			out = append(out, e)
		}
	}
	return out
}

// span writes eras as "6.8–6.10" ("6.6 on" when it reaches the newest).
func span(es []*sim.Era) string {
	if len(es) == 0 {
		return ""
	}
	newest := sim.Eras[len(sim.Eras)-1].Name
	if len(es) == 1 {
		return es[0].Name
	}
	last := es[len(es)-1].Name
	if last == newest {
		return es[0].Name + " on"
	}
	return es[0].Name + "–" + last
}

// symAliases: per modelled function, every name a listing may show it
// under on this platform and driver, in any era (the era's profile name,
// the era's kernel name, the first profiles' name).
func symAliases(spec *drivers.Spec, plat *sim.Platform) map[string][]sim.Sym {
	out := map[string][]sim.Sym{}
	add := func(n string, s sim.Sym) {
		if n == "" || n == sim.RestProfile || slices.Contains(out[n], s) {
			return
		}
		out[n] = append(out[n], s)
	}
	// The kernel's out-of-line skb free the model's kfree_skb stands for:
	// kfree_skb_reason from 5.17 (c504e5c2f964; kfree_skb its inline
	// wrapper), sk_skb_reason_drop from 6.11 (ba8de796baf4), and the
	// consume path's consume_skb / __kfree_skb.
	for _, n := range []string{"kfree_skb_reason", "sk_skb_reason_drop", "consume_skb", "__kfree_skb"} {
		add(n, sim.SymKfreeSKB)
	}
	// Callers and bodies the model charges as one function: napi_gro_receive
	// (gro_receive_skb from 6.16) around dev_gro_receive; ip_rcv_core and
	// ip_rcv_finish inside ip_rcv; __build_skb_around inside build_skb;
	// __page_pool_put_page, the put's body (out of line where a compiler
	// does not inline it). A listing that shows two of them gives the
	// model's cost to one (byListedName) and keeps the other as measured.
	for n, s := range map[string]sim.Sym{
		"napi_gro_receive": sim.SymGroReceive, "gro_receive_skb": sim.SymGroReceive,
		"ip_rcv_core": sim.SymIPRcv, "ip_rcv_finish": sim.SymIPRcv,
		"__build_skb_around": sim.SymBuildSKB, "napi_build_skb": sim.SymBuildSKB, "__napi_build_skb": sim.SymBuildSKB,
		"__page_pool_put_page": sim.SymPutPage,
		// the alloc's body over netmem from 6.11 (page_pool_alloc_pages its
		// wrapper), and the skb allocations' NAPI forms
		"page_pool_alloc_netmems": sim.SymAllocPages, "page_pool_alloc_netmem": sim.SymAllocPages,
		"__napi_alloc_skb": sim.SymAllocSKB, "napi_alloc_skb": sim.SymAllocSKB, "__alloc_skb": sim.SymAllocSKB,
		// the copy to user space: rep movsb inline in _copy_to_iter on an
		// x86 CPU with FSRM (from v6.4; copy_user_generic's alternatives
		// before), the out-of-line routines otherwise
		"_copy_to_iter": sim.SymCopyToUser, "copy_user_generic_string": sim.SymCopyToUser,
		"copy_user_generic_unrolled": sim.SymCopyToUser, "copy_user_enhanced_fast_string": sim.SymCopyToUser,
		"rep_movs_alternative": sim.SymCopyToUser, "__arch_copy_to_user": sim.SymCopyToUser,
	} {
		add(n, s)
	}
	add("__page_pool_put_page", sim.SymRecycleInCache) // inlined into it; the ring is its caller's
	for s := sim.Sym(1); s < sim.NumSyms; s++ {
		add(s.Profile(), s)
		add(s.Name(), s)
		for i := range sim.Eras {
			e := &sim.Eras[i]
			add(spec.ProfileName(plat, e, s), s)
			add(s.NameIn(e), s)
		}
	}
	return out
}

// anyAliases: every name any driver on any platform shows a modelled
// function under, in any era (knownAnywhere).
var anyAliases = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, sp := range drivers.Specs {
		for _, p := range sim.Platforms {
			for n := range symAliases(sp, p) {
				out[n] = true
			}
		}
	}
	return out
})

// knownAnywhere reports whether any listed symbol is a modelled function
// under some driver, platform and era: a listing with none is refused
// before anything is asked about it.
func knownAnywhere(p *Profile) (bool, []string) {
	var names []string
	for _, l := range p.Lines {
		if anyAliases()[l.Symbol] || idleSymbols[l.Symbol] {
			return true, nil
		}
		if !slices.Contains(names, l.Symbol) {
			names = append(names, l.Symbol)
		}
	}
	return false, names
}

// placed is the share of the listing the model can place: listed symbols
// that are a modelled function's name in some era (or the idle loop),
// against those it cannot.
//
// The driver's own functions the model does not name (mvpp2_poll,
// mvpp2_rx_refill) are neither: the model charges the driver's work only
// as its RX, transmit and TX-completion functions, so they are kept as
// measured and returned apart (own, ownSyms).
func placed(p *Profile, aliases map[string][]sim.Sym, driver string) (known, own, unknown float64, ownSyms, unknownSyms []string) {
	seen := map[string]bool{}
	for _, l := range p.Lines {
		if seen[l.Symbol] {
			continue
		}
		seen[l.Symbol] = true
		switch {
		case len(aliases[l.Symbol]) > 0 || idleSymbols[l.Symbol]:
			known += p.Share(l.Symbol)
		case driverOwn(driver, l):
			own += p.Share(l.Symbol)
			ownSyms = append(ownSyms, l.Symbol)
		default:
			unknown += p.Share(l.Symbol)
			unknownSyms = append(unknownSyms, l.Symbol)
		}
	}
	return known, own, unknown, ownSyms, unknownSyms
}

// driverOwn reports whether a listed line is one of the driver's own
// functions (by its prefix or its module).
func driverOwn(driver string, l ProfileLine) bool {
	for _, d := range driverPrefixes {
		if d.driver == driver {
			return ownLine(d.prefixes, d.modules, l)
		}
	}
	return false
}

// saysBulk reads a header's words on bulk refill: yes or no, and whether
// it says at all. "bulk refill: off", "without bulk", "no bulk" say no;
// "with bulk page allocation", "bulk refill: on", "bulk" alone say yes.
func saysBulk(text string) (yes, said bool) {
	t := strings.ToLower(text)
	i := strings.Index(t, "bulk")
	if i < 0 {
		return false, false
	}
	before := strings.TrimSpace(t[:i])
	after := strings.TrimSpace(t[i+len("bulk"):])
	for _, neg := range []string{"without", "no", "not", "non", "non-"} {
		if strings.HasSuffix(before, neg) {
			return false, true
		}
	}
	after = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(after, "refill"), " allocation"), " :=")
	for _, off := range []string{"off", "no", "disabled", "0", "false", "none"} {
		if after == off || strings.HasPrefix(after, off+" ") || strings.HasPrefix(after, off+",") || strings.HasPrefix(after, off+")") {
			return false, true
		}
	}
	return true, true
}

// saysRecycling reads a header's "recycling:" words: on or off, and
// whether it says.
func saysRecycling(text string) (on, said bool) {
	r := strings.ToLower(strings.TrimSpace(text))
	switch {
	case strings.HasPrefix(r, "on"), strings.HasPrefix(r, "yes"), strings.HasPrefix(r, "enabled"):
		return true, true
	case strings.HasPrefix(r, "off"), strings.HasPrefix(r, "no"), strings.HasPrefix(r, "disabled"):
		return false, true
	}
	return false, false
}
