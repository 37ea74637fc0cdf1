package session

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// cliJSON is what `ppsim run --json` prints for cfg: the run in batch as
// the CLI runs it (RunFor chunks, then FinalCheck: cmd/ppsim's
// runWithProgress), marshalled as it marshals (json.Marshal, a newline).
// shortPages is the URL parameter that makes a test's machine smaller under
// -short: 1024 pages per node instead of 16384. A step, and every operation
// of a seekable run that can fail (a rule broken, a known failure), checks
// every page; what the tests compare does not depend on the machine's size.
func shortPages() string {
	if testing.Short() {
		return "&node_pages=1024"
	}
	return ""
}

func cliJSON(t *testing.T, cfg lab.Config, ops int64) string {
	t.Helper()
	l, err := lab.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ops < 0 {
		for l.RunFor(1 << 16) {
		}
	} else {
		l.RunFor(ops)
	}
	l.FinalCheck()
	b, err := json.Marshal(l.Results())
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// The JSON export is `ppsim run --json`'s output, byte for byte: at the
// run's end for the same config (also after the run went there by steps,
// seeks back and play), and before it the results of an equal run stopped
// at the same operation (under -short on a smaller machine: shortPages).
func TestExport_JSONIsTheCLIs(t *testing.T) {
	for _, tc := range []struct{ name, q string }{
		{"drop", "v=1&scenario=drop&rx_descs=16&pool_size=32&packets=3000"},
		{"pool-slow", "v=1&scenario=pool-slow&pool_size=128&packets=2000"},
		{"mlx5 tcp-stream 6.1 (its RX page cache: driver_stats)", "v=1&scenario=tcp-stream&driver=mlx5&era=6.1&rx_descs=16&pool_size=32&packets=3000"},
		{"destroy", "v=1&scenario=destroy&rx_descs=16&pool_size=32"},
		{"clone-tap with last-dataref broken (the CLI's check schedule)", "v=1&scenario=clone-tap&rx_descs=16&pool_size=32&break=last-dataref&packets=3000"},
		{"split-page in 5.14 (the era's known failure)", "v=1&scenario=split-page&era=5.14&rx_descs=16&pool_size=32&packets=3000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(query(t, tc.q+shortPages()), nil)
			cfg := s.cfg
			for i := 0; i < 50; i++ {
				s.Step()
			}
			mid := s.Lab().Ops()
			if got, want := s.ResultsJSON(), cliJSON(t, cfg, int64(mid)); got != want {
				t.Errorf("at op %d:\n got %s\nwant %s", mid, got, want)
			}
			s.Seek(1 << 40) // to the end
			s.Back()
			s.Step()
			if !s.Lab().Done() {
				t.Fatalf("not at the end: op %d", s.Lab().Ops())
			}
			want := cliJSON(t, cfg, -1)
			if got := s.ResultsJSON(); got != want {
				t.Errorf("at the end:\n got %s\nwant %s", got, want)
			}
			e, err := s.Export(ExportJSON)
			if err != nil || e.Text != want || !strings.HasSuffix(e.Name, ".json") || e.MIME != "application/json" {
				t.Errorf("Export(json): %q %q %v", e.Name, e.MIME, err)
			}
			// CLIArgs parse back to the same config (what the CLI's flags build).
			args := s.CLIArgs()
			if args[0] != "run" || args[len(args)-1] != "--json" {
				t.Errorf("CLIArgs %v", args)
			}
			back := lab.Config{}
			var sets []string
			for i := 1; i+1 < len(args); i += 2 {
				switch args[i] {
				case "--driver":
					back.Driver = args[i+1]
				case "--scenario":
					back.Scenario = args[i+1]
				case "--era":
					back.Era = args[i+1]
				case "--set":
					sets = append(sets, args[i+1])
				case "--break":
					back.Break = append(back.Break, args[i+1])
				case "--packets":
					back.Packets = cfg.Packets
					if back.Packets == 0 {
						back.Packets = lab.DefaultPackets
					}
				case "--seed":
					back.Seed = cfg.Seed
				}
			}
			back.Knobs = sim.MustOverrides(sets...)
			if got := cliJSON(t, back, -1); got != want {
				t.Errorf("the CLI's args %v run to\n %s\nwant %s", args, got, want)
			}
		})
	}
}

func TestExport_CSV(t *testing.T) {
	s := New(query(t, "v=1&scenario=drop&rx_descs=16&pool_size=32&packets=5000"), nil)
	s.Seek(1 << 40)
	text := s.SeriesCSV()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != "packets,time_ns,kpps,delivered,busy_ps,cached,ring,released,cache_full,ring_full,released_refcnt" {
		t.Fatalf("header %q", lines[0])
	}
	pts, _ := s.Lab().Series()
	if len(pts) == 0 || len(lines) != 1+len(pts) {
		t.Fatalf("%d rows for %d points", len(lines)-1, len(pts))
	}
	for i, line := range lines[1:] {
		f := strings.Split(line, ",")
		if len(f) != 11 {
			t.Fatalf("row %d: %d fields: %q", i, len(f), line)
		}
		p := pts[i]
		if f[0] != itoa(p.Packets) || f[1] != itoa(p.TimeNS) || f[3] != itoa(p.Delivered) || f[5] != utoa(p.Mix.Cached) || f[9] != utoa(p.Mix.RingFull) {
			t.Errorf("row %d %q is not point %+v", i, line, p)
		}
	}
	if last := pts[len(pts)-1]; last.Packets > 5000 || last.Packets < 4000 {
		t.Errorf("the series ends at packet %d of 5000", last.Packets)
	}
}

func itoa(n int64) string  { return strconv.FormatInt(n, 10) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }

// The ethtool block: `ethtool -S`'s form with the driver's names — the
// generic helper's (rx_pp_alloc_slow_ho) for mvneta, mlx5's own
// (rx_pp_alloc_slow_high_order) and its per-ring rx0_pp_*, and a note
// where the driver shows none — and the counters' values.
func TestExport_Ethtool(t *testing.T) {
	for _, tc := range []struct {
		name, q string
		want    []string
	}{
		{"mvneta", "v=1&scenario=drop&driver=mvneta&rx_descs=16&pool_size=32", []string{"NIC statistics:\n", "     rx_pp_alloc_fast: ", "     rx_pp_alloc_slow_ho: ", "     rx_pp_recycle_released_ref: "}},
		{"mlx5", "v=1&scenario=drop&driver=mlx5&rx_descs=16&pool_size=32", []string{"     rx_pp_alloc_slow_high_order: ", "     rx0_pp_alloc_fast: ", "     rx0_pp_recycle_ring_full: "}},
		{"mvpp2", "v=1&scenario=drop&driver=mvpp2&rx_descs=16&pool_size=32", []string{"     rx_pp_alloc_fast: ", "     (" + lab.EthtoolNote("mvpp2") + ")\n"}},
		{"pool-slow", "v=1&scenario=pool-slow&pool_size=128", []string{"     rx_pp_alloc_slow: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(query(t, tc.q), nil)
			s.Seek(500)
			text := s.EthtoolText()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("no %q in\n%s", w, text)
				}
			}
			r := s.Lab().Results()
			d := s.driver()
			for st := sim.Stat(0); st < sim.NumStats; st++ {
				line := "     " + lab.EthtoolName(d, st, -1) + ": " + utoa(r.Stats[st]) + "\n"
				if !strings.Contains(text, line) {
					t.Errorf("no line %q", line)
				}
			}
			if !strings.HasPrefix(text, "# pplab (a simulated run") || !strings.Contains(text, "$ ethtool -S eth0\nNIC statistics:\n") {
				t.Errorf("head of\n%s", text)
			}
		})
	}
}

func TestExport_TraceAndKinds(t *testing.T) {
	s := New(query(t, "v=1&scenario=drop&rx_descs=16&pool_size=32"), nil)
	for i := 0; i < 5; i++ {
		s.Step()
	}
	text := s.TraceText()
	if !strings.HasPrefix(text, "# pplab trace: drop on ") || len(s.trace) == 0 {
		t.Fatalf("trace %q", text)
	}
	for _, l := range s.trace {
		if !strings.Contains(text, l+"\n") {
			t.Fatalf("line %q missing", l)
		}
	}
	for _, k := range ExportKinds {
		e, err := s.Export(k)
		if err != nil || e.Text == "" || !strings.HasPrefix(e.Name, "pplab-drop-") {
			t.Errorf("Export(%s): %q %v", k, e.Name, err)
		}
	}
	if _, err := s.Export("pdf"); err == nil || !strings.Contains(err.Error(), "json, csv, trace, perfetto, ethtool, netdev") {
		t.Errorf("Export(pdf): %v", err)
	}
}

// TestExport_NetdevTextLinksTheStateShown: the netdev text keeps to 72
// columns, carries the build id and every counter, and its link (wrapped
// as RFC 3986 appendix C asks when long) opens a session at the same
// config and operation; at the run's end its counters are the CLI's
// (the results ResultsJSON gives).
func TestExport_NetdevTextLinksTheStateShown(t *testing.T) {
	for _, tc := range []struct{ name, q string }{
		{"drop-teaching", "scenario=drop&rx_descs=16&pool_size=32&packets=3000"},
		{"forward-kernel-sizes", "scenario=forward&driver=mlx5&era=6.19&sizes=kernel&tx_cpu=1&packets=3000"},
		{"rule-broken", "scenario=clone-tap&driver=bnxt&era=6.1&break=last-dataref&packets=2000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(query(t, tc.q), nil)
			s.SetPageURL("https://example.org/some/sub/path/")
			for i := 0; i < 40; i++ {
				s.Step()
			}
			text := s.NetdevText()
			for i, line := range strings.Split(text, "\n") {
				if len([]rune(line)) > lab.TextWidth {
					t.Errorf("line %d has %d columns: %q", i+1, len([]rune(line)), line)
				}
			}
			if !strings.Contains(text, lab.BuildID()) || !strings.Contains(text, "rx_pp_recycle_released_ref") {
				t.Errorf("no build id or counters:\n%s", text)
			}
			link := text
			if i, j := strings.LastIndex(text, "<"), strings.LastIndex(text, ">"); i >= 0 && j > i {
				link = strings.Join(strings.Fields(text[i+1:j]), "")
			} else {
				lines := strings.Split(strings.TrimSpace(text), "\n")
				link = lines[len(lines)-1]
			}
			u, err := url.Parse(link)
			if err != nil || !strings.HasPrefix(link, "https://example.org/some/sub/path/?") {
				t.Fatalf("link %q: %v", link, err)
			}
			back := New(u.Query(), nil)
			if back.Config().Values().Encode() != s.Config().Values().Encode() || back.Lab().Ops() != s.Lab().Ops() {
				t.Errorf("the link opens %s at op %d, the page showed %s at op %d", back.Config().Values().Encode(), back.Lab().Ops(), s.Config().Values().Encode(), s.Lab().Ops())
			}
		})
	}
}
