package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/replay"
	"pplab/engine/sim"
)

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite engine/replay/examples/synthetic-*.txt from the model")

const replayFixtures = "../../engine/replay/examples"

// fixtureEras are the eras whose tracepoint format differs: pfn in
// decimal and page= (5.12), hex and page= (6.8), netmem= is_net_iov= with
// the hold's stray comma (6.18).
var fixtureEras = []string{"5.12", "6.8", "6.18"}

// syntheticRun is the model's destroy scenario (a pool destroyed while
// pages are still out, its page_pool_release retries until they return)
// written by ppsim run --trace-format tracepoints in era's format.
func syntheticRun(t *testing.T, era string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.txt")
	if code, _, errOut := ppsim("run", "--scenario", "destroy", "--era", era, "--packets", "300", "--set", "rx_descs=64",
		"--trace", path, "--trace-format", "tracepoints"); code != 0 {
		t.Fatalf("ppsim run: %s", errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	headRE  = regexp.MustCompile(`^ *(\S+)-(\d+) +\[(\d+)\] \S+ +(\d+\.\d+): (page_pool_\w+): (.*)$`)
	pfnRE   = regexp.MustCompile(`pfn=(0x[0-9a-f]+|\d+)`)
	hashRE  = regexp.MustCompile(`\b(page_pool|page|netmem)=([0-9a-f]{16})\b`)
	fieldRE = regexp.MustCompile(`(\w+)=(\S+?),?(?: |$)`)
)

// variant rewrites a model trace (tracefs form) as another tool prints it:
//   - perf: `perf script`'s columns and system:event, raw pointers (libtraceevent
//     prints %p unhashed, as recorded);
//   - trace-cmd: `trace-cmd report`'s cpus= header, no latency flags, raw pointers;
//   - bare: the events without any column (grep -o 'page_pool_.*');
//   - bpftrace: a bpftrace script's printf of the probe and its args.
func variant(t *testing.T, trace, kind string) string {
	t.Helper()
	var b strings.Builder
	if kind == "trace-cmd" {
		b.WriteString("cpus=2\n")
	}
	for _, line := range strings.Split(strings.TrimSpace(trace), "\n") {
		if strings.HasPrefix(line, "#") {
			continue // the tracefs header
		}
		m := headRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a trace line: %q", line)
		}
		cpu, _ := strconv.Atoi(m[3])
		ts, ev, payload := m[4], m[5], m[6]
		raw := rawPointers(payload)
		switch kind {
		case "perf":
			fmt.Fprintf(&b, "%16s %6d [%03d] %s: page_pool:%s: %s\n", "swapper", 0, cpu, ts, ev, raw)
		case "trace-cmd":
			fmt.Fprintf(&b, "%16s-%-5d [%03d] %s: %s: %s\n", "<idle>", 0, cpu, ts, ev, raw)
		case "bare":
			fmt.Fprintf(&b, "%s: %s\n", ev, payload)
		case "bpftrace":
			var kv []string
			for _, f := range fieldRE.FindAllStringSubmatch(raw, -1) {
				k := f[1]
				if k == "page_pool" {
					k = "pool"
				}
				if k == "is_net_iov" || k == "page" || k == "netmem" {
					continue
				}
				kv = append(kv, k+"="+f[2])
			}
			fmt.Fprintf(&b, "tracepoint:page_pool:%s %s\n", ev, strings.Join(kv, " "))
		}
	}
	return b.String()
}

// rawPointers puts back the model's addresses for its hashed %p (the
// pool's and the page's: the pfn printed beside it names the page).
func rawPointers(payload string) string {
	pfn := int64(-1)
	if m := pfnRE.FindStringSubmatch(payload); m != nil {
		pfn, _ = strconv.ParseInt(m[1], 0, 64)
	}
	return hashRE.ReplaceAllStringFunc(payload, func(s string) string {
		k, h, _ := strings.Cut(s, "=")
		if k == "page_pool" {
			for id := int32(1); id < 64; id++ {
				if sim.HashPtr(sim.PoolPtr(id)) == h {
					return fmt.Sprintf("%s=%#x", k, sim.PoolPtr(id))
				}
			}
			return s
		}
		if pfn >= 0 && sim.HashPtr(sim.PagePtr(int32(pfn))) == h {
			return fmt.Sprintf("%s=%#x", k, sim.PagePtr(int32(pfn)))
		}
		return s
	})
}

func fixtureHeader(era, kind string) string {
	return fmt.Sprintf("# SYNTHETIC: written by pplab's model, not recorded on a kernel: ppsim run --scenario destroy --era %s --packets 300 --set rx_descs=64 --trace-format tracepoints, in the %s format of the %s era (no public capture in this format exists)\n", era, kind, era)
}

// TestReplay_SyntheticFixturesInEveryFormatAgree writes the model's
// destroy run in each era's format and in each tool's variant of it
// (the fixtures engine/replay/examples/synthetic-*.txt, which the page
// offers as examples), checks the files are what the model writes now,
// and that every variant replays to the same pools, counters, owned pages
// and destroy as the model's own counters say.
func TestReplay_SyntheticFixturesInEveryFormatAgree(t *testing.T) {
	for _, era := range fixtureEras {
		trace := syntheticRun(t, era)
		files := map[string]string{"ftrace": fixtureHeader(era, "tracefs (/sys/kernel/tracing/trace)") + trace}
		if era == "6.18" {
			for _, k := range []string{"perf", "trace-cmd", "bare", "bpftrace"} {
				files[k] = fixtureHeader(era, k) + variant(t, trace, k)
			}
		}
		var want *replay.JSONPool
		for kind, text := range files {
			name := filepath.Join(replayFixtures, fmt.Sprintf("synthetic-%s-%s.txt", era, kind))
			if *updateFixtures {
				if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if b, err := os.ReadFile(name); err != nil || string(b) != text {
				t.Errorf("%s is not what the model writes now (go test ./cmd/ppsim -run TestReplay_Synthetic -update-fixtures rewrites it): %v", name, err)
			}
			tr, err := replay.ParseString(text, replay.PageMaxLines)
			if err != nil {
				t.Fatal(err)
			}
			r := replay.New(tr)
			if tr.UnknownCount != 0 || len(r.Pools) != 1 {
				t.Fatalf("%s %s: %d unknown lines %v, %d pools", era, kind, tr.UnknownCount, tr.Unknown, len(r.Pools))
			}
			j := r.JSON()
			got := j.Pools[0]
			got.Ptr, got.Series, got.DestroyLine = "", nil, 0 // the trace-cmd header moves the lines
			if want == nil {
				want = &got
			} else if fmt.Sprint(got) != fmt.Sprint(*want) {
				t.Errorf("%s %s replays to %+v, another format to %+v", era, kind, got, *want)
			}
			if tr.DecimalPFN != (era == "5.12") {
				t.Errorf("%s %s: decimal pfn read as %v", era, kind, tr.DecimalPFN)
			}
			if r.FreedWhileOwned() != 0 {
				t.Errorf("%s %s: the model's run shows pages freed while owned: %v", era, kind, r.Findings)
			}
		}
		// The model's destroy: page_pool_release until every page came back
		// (6.8 and 6.18 retry: pages were still out at the destroy).
		if want.DestroyChecks < 1 || (era != "5.12" && want.DestroyChecks < 2) || want.Inflight != 0 || int(want.HoldCnt) != want.Holds || int(want.ReleaseCnt) != want.Releases {
			t.Errorf("%s: the destroy run replays as %+v", era, *want)
		}
	}
}

// TestReplay_CLIAndLimits: ppsim replay prints the summary the page shows,
// reads stdin, refuses a file over the limit and names bad input.
func TestReplay_CLIAndLimits(t *testing.T) {
	name := filepath.Join(replayFixtures, "synthetic-6.18-ftrace.txt")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ppsim("replay", name)
	tr, _ := replay.ParseString(string(b), replay.CLIMaxLines)
	if code != 0 || errOut != "" || out != replay.New(tr).Summary() {
		t.Errorf("ppsim replay: exit %d %q\n%s", code, errOut, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "replay: want one FILE"},
		{[]string{"replay", "/nonexistent"}, "replay /nonexistent: no such file"},
		{[]string{"replay", replayFixtures}, "a directory"},
		{[]string{"replay", name, "--era", "6.8"}, "--era goes with --compare-veth"},
		{[]string{"run", "--scenario", "pool-ring", "--trace", "/tmp/x.txt", "--trace-event", "/tmp/./x.txt"}, "--trace and --trace-event name the same file"},
		{[]string{"replay", name, "--compare-veth", "0"}, "--compare-veth \"0\": want the transfer's size in MiB"},
	} {
		if code, _, errOut := ppsim(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	dir := t.TempDir()
	for _, f := range []struct{ name, text, want string }{
		{"empty", "", "empty (want a page_pool:* capture"},
		{"binary", "\x7fELF\x00\x02\x01\x01\n\x00\x00\n", "not text (2 of 2 lines"},
		{"other", "late return pool=0x1 pfn=0x2 release=3\nhello\n", "no page_pool event in 2 lines (line 1: \"late return pool=0x1 pfn=0x2 release=3\")"},
	} {
		path := filepath.Join(dir, f.name)
		os.WriteFile(path, []byte(f.text), 0o644)
		if code, _, errOut := ppsim("replay", path); code != 2 || !strings.Contains(errOut, f.want) {
			t.Errorf("%s: exit %d %q, want %q", f.name, code, errOut, f.want)
		}
	}
	path := filepath.Join(dir, "lines")
	os.WriteFile(path, []byte(strings.Repeat("x\n", 30)+"y"), 0o644)
	if f, err := os.Open(path); err != nil {
		t.Fatal(err)
	} else if n, err := countLines(f, 10); err != nil || n <= 10 {
		t.Errorf("countLines past 10: %d %v", n, err)
	} else if f.Seek(0, 0); true {
		if n, _ := countLines(f, 100); n != 31 {
			t.Errorf("countLines: %d, want 31 (the last line has no newline)", n)
		}
	}
	big := strings.Repeat("x\n", 20)
	if _, err := replay.ParseString(big, 10); err == nil || !strings.Contains(err.Error(), "more than 10 lines") {
		t.Errorf("over the limit: %v", err)
	}
	tr, err = replay.ParseString("garbage\n\x00\x01\npage_pool_state_hold: page_pool=zz pfn=1 hold=1\n", 100)
	if err != nil || tr.UnknownCount != 3 || len(tr.Events) != 0 {
		t.Errorf("garbage: %v %+v", err, tr)
	}
}
