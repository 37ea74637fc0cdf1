package perf

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestShippedProfiles_Parse(t *testing.T) {
	want := map[string]struct {
		driver string
		rates  string
		lines  int
		first  string
	}{
		"mvpp2-v1-before": {"mvpp2", "962 kpps", 10, "page_pool_release_page"},
		"mvpp2-v1-after":  {"mvpp2", "2047 kpps", 10, "mvpp2_rx"},
		"mvpp2-v7-before": {"mvpp2", "1110 kpps", 14, "page_pool_release_page"},
		"mvneta-v1-after": {"mvneta", "296 kpps", 10, "__pi___inval_dcache_area"},
		"cpsw-before":     {"cpsw", "732 mbps", 21, "_raw_spin_unlock_irqrestore"},
		"lunar-baseline":  {"lunar", "TCP 566 mbps, UDP 615 mbps", 16, "lunar_rx_poll_page_pool"},
	}
	if len(ProfileNames()) != 8 {
		t.Fatalf("shipped profiles: %v", ProfileNames())
	}
	for name, w := range want {
		p, _, err := ShippedProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		var rates []string
		for _, r := range p.Rates {
			s := strings.TrimSpace(r.Label + " " + trimFloat(r.Value) + " " + r.Unit)
			rates = append(rates, s)
		}
		if p.Driver != w.driver || strings.Join(rates, ", ") != w.rates || len(p.Lines) != w.lines || p.Lines[0].Symbol != w.first {
			t.Errorf("%s: driver %q rates %q lines %d first %q", name, p.Driver, rates, len(p.Lines), p.Lines[0].Symbol)
		}
	}
	p, _, _ := ShippedProfile("mvneta-v1-before")
	if got := p.Share("kmem_cache_free"); got != 4.44 {
		t.Errorf("kmem_cache_free.part.0 not normalised: share %v", got)
	}
	if _, _, err := ShippedProfile("e1000"); err == nil || !strings.Contains(err.Error(), "shipped: cpsw-before") {
		t.Errorf("unknown profile: %v", err)
	}
}

func trimFloat(v float64) string { return formatF(v) }

func formatF(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestParseProfile_FormatVariations(t *testing.T) {
	text := `
# perf top, some comment
Samples: 12K of event 'cycles'
Overhead  Shared Object     Symbol
--------  ----------------  ------------------------
  12.50%  [kernel]          [k] kmem_cache_free.part.0

   7.00%  [k] page_pool_put_page
   5.00%  [kernel]  dev_gro_receive.isra.0
   3.00%  libc.so.6  [.] memcpy
  20.00%   2.00%  [kernel]  [k] skb_release_data.constprop.0
   1.00%  [mvpp2]  [k] mvpp2_rx.cold
`
	p, err := ParseProfile(text)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, l := range p.Lines {
		got = append(got, l.Object+"|"+l.Symbol+"|"+formatF(l.Pct))
	}
	want := "[kernel]|kmem_cache_free|12.5 |page_pool_put_page|7 [kernel]|dev_gro_receive|5 libc.so.6|memcpy|3 [kernel]|skb_release_data|2 [mvpp2]|mvpp2_rx|1"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if math.Abs(p.Total()-30.5) > 1e-9 {
		t.Errorf("total %v", p.Total())
	}
}

func TestParseProfile_RejectsGarbageWithLineNumber(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", "no profile lines found"},
		{"# only comments\n\n", "no profile lines found"},
		{"  5.00%  [k] a\nhello world\n", "line 2: want a share like"},
		{"  5.00%  [k] a\n  x%  [k] b\n", `line 2: "x%" is not a share`},
		{"  150%  [k] a\n", `line 1: "150%" is not a share from 0% to 100%`},
		{"  60%  [k] a\n  50%  [k] b\n", "line 2: the shares add up to 110.00%, over 100%"},
		{"  5.00%  [kernel]  [k]\n", "line 1: want one symbol"},
		{"  5.00%  [kernel]  [k] a b\n", "line 1: want one symbol"},
		{"# rate: fast\n  5%  [k] a\n", `line 1: rate "fast"`},
		{"# rate: -3 kpps\n  5%  [k] a\n", `line 1: rate "-3 kpps": want a positive value`},
	}
	for _, tc := range tests {
		_, err := ParseProfile(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestNormalizeSymbol(t *testing.T) {
	for in, want := range map[string]string{
		"kmem_cache_free.part.0":          "kmem_cache_free",
		"dev_gro_receive.isra.0":          "dev_gro_receive",
		"skb_release_data.constprop.0":    "skb_release_data",
		"foo.cold":                        "foo",
		"foo.isra.0.part.1":               "foo",
		"__pi___inval_dcache_area":        "__pi___inval_dcache_area",
		".part.0":                         ".part.0",
		"tcp_v4_rcv.llvm.1234567890":      "tcp_v4_rcv",
		"page_pool_refill_alloc_cache":    "page_pool_refill_alloc_cache",
		"_raw_spin_unlock_irqrestore":     "_raw_spin_unlock_irqrestore",
		"nf_conntrack_tcp_packet.isra.12": "nf_conntrack_tcp_packet",
	} {
		if got := NormalizeSymbol(in); got != want {
			t.Errorf("NormalizeSymbol(%q) = %q, want %q", in, got, want)
		}
	}
}
