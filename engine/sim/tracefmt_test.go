package sim

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// tracepointRow is one row of testdata/tracepoints.tsv: an event's
// TP_STRUCT__entry and TP_printk over a range of era tags, with where it
// was read.
type tracepointRow struct {
	from, to, event, fields, printk, source string
}

func readTracepoints(t *testing.T) []tracepointRow {
	t.Helper()
	f, err := os.Open("testdata/tracepoints.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tracepointRow
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		c := strings.Split(line, "\t")
		if header {
			header = false
			if c[0] == "from_tag" {
				continue
			}
		}
		if len(c) != 6 {
			t.Fatalf("tracepoints.tsv: %d columns in %q", len(c), line)
		}
		rows = append(rows, tracepointRow{c[0], c[1], c[2], c[3], c[4], c[5]})
	}
	return rows
}

// printkRegexp turns a TP_printk format into a regexp of what it prints.
func printkRegexp(f string) *regexp.Regexp {
	r := regexp.QuoteMeta(f)
	for _, s := range []struct{ from, to string }{
		{"0x%lx", "0x[0-9a-f]+"}, {"%p", "[0-9a-f]{16}"}, {"%llu", "[0-9]+"}, {"%lu", "[0-9]+"},
		{"%u", "[0-9]+"}, {"%d", "-?[0-9]+"},
	} {
		r = strings.ReplaceAll(r, s.from, s.to)
	}
	return regexp.MustCompile("^" + r + "$")
}

// TestTracePayload_EachEraPrintsItsOwnTPPrintk renders the four tracepoints
// in every era and matches each line against that era's TP_printk as
// testdata/tracepoints.tsv copies it from include/trace/events/page_pool.h
// (with the commit or mail each row was read in).
func TestTracePayload_EachEraPrintsItsOwnTPPrintk(t *testing.T) {
	rows := readTracepoints(t)
	tagIdx := map[string]int{}
	var tags []string
	for _, e := range Eras {
		if _, ok := tagIdx[e.Tag]; !ok && e.Branch == "" {
			tagIdx[e.Tag] = len(tags)
			tags = append(tags, e.Tag)
		}
	}
	kinds := map[string]EventKind{"page_pool_release": EvPoolRelease, "page_pool_state_release": EvStateRelease,
		"page_pool_state_hold": EvStateHold, "page_pool_update_nid": EvUpdateNid}
	for _, era := range Eras {
		era := era
		for name, kind := range kinds {
			var row *tracepointRow
			for i := range rows {
				r := &rows[i]
				lo, ok1 := tagIdx[r.from]
				hi, ok2 := tagIdx[r.to]
				if !ok1 || !ok2 {
					t.Fatalf("tracepoints.tsv: %s..%s names a tag no era has", r.from, r.to)
				}
				if r.event == name && tagIdx[era.Tag] >= lo && tagIdx[era.Tag] <= hi {
					if row != nil {
						t.Fatalf("tracepoints.tsv: two rows for %s in %s", name, era.Tag)
					}
					row = r
				}
			}
			if row == nil {
				t.Errorf("tracepoints.tsv has no row for %s in %s", name, era.Tag)
				continue
			}
			for _, iov := range []bool{false, true} {
				ev := Event{Kind: kind, Era: &era, Pool: 3, Page: 0x1234, NetIov: iov && era.TraceNetmem, Hold: 70, Release: 66, Inflight: -2, DestroyCnt: 5, Nid: 0, NewNid: 1}
				payload := ev.TracePayload()
				head, body, _ := strings.Cut(payload, ": ")
				if head != name || !printkRegexp(row.printk).MatchString(body) {
					t.Errorf("%s %s: printed %q, the era's TP_printk is %q (%s)", era.Name, name, payload, row.printk, row.source)
				}
			}
		}
	}
}

// TestTraceHead_AsThisMachinesTracefs: the head is the one this machine's
// 6.18 kernel printed in its own capture (testdata/capture-head.txt keeps
// three of its lines).
func TestTraceHead_AsThisMachinesTracefs(t *testing.T) {
	b, err := os.ReadFile("testdata/capture-head.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		real, _, _ := strings.Cut(line, "page_pool_")
		// the real task is python3-7046: same widths, the model's task, the
		// line's CPU and time.
		var cpu, sec, usec int64
		i := strings.Index(real, "[")
		if _, err := fmt.Sscanf(real[i:], "[%d] ..s1. %d.%d:", &cpu, &sec, &usec); err != nil {
			t.Fatalf("%q: %v", real, err)
		}
		want := real[:i] // "         python3-7046    "
		got := TraceHead(int(cpu), (sec*1e6+usec)*1e6)
		if len(got[:strings.Index(got, "[")]) != len(want) || got[strings.Index(got, "["):] != real[i:] {
			t.Errorf("head %q, this machine printed %q", got, real)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no capture lines")
	}
}
