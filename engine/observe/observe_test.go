package observe

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// each calls f for every target in every era with its plan.
// The counters' plan (CountersPlan) comes with each era as the target
// "counters" (a zero Target: t.IsCounter() is false for it).
func each(f func(t Target, e *sim.Era, p Plan)) {
	for i := range sim.Eras {
		e := &sim.Eras[i]
		for _, t := range Targets() {
			f(t, e, PlanFor(t, e))
		}
		f(Target{rule: sim.RuleNone, stat: sim.StatNone}, e, CountersPlan(e))
	}
}

// TestCoverage: every rule, counter and the story has a plan in every
// era; a plan no tracepoint sees says so (a Note) and every rule's plan
// names what breaking it shows or why the era lacks it.
func TestCoverage(t *testing.T) {
	n := 0
	each(func(tg Target, e *sim.Era, p Plan) {
		n++
		if p.Note == "" && len(p.Commands) == 0 {
			t.Errorf("%s in %s: no note and no command", tg, e.Name)
		}
		if !p.Tracepoint && p.Note == "" {
			t.Errorf("%s in %s: no tracepoint and no note saying what stands in for one", tg, e.Name)
		}
		for _, c := range p.Commands {
			if c.Text == "" || c.Shows == "" || c.Validated == "" || c.Source == "" {
				t.Errorf("%s in %s: %s command with an empty field: %+v", tg, e.Name, c.Kind, c)
			}
		}
	})
	if want := (len(sim.AllRules()) + int(sim.NumStats) + 2) * len(sim.Eras); n != want {
		t.Errorf("%d plans, want %d", n, want)
	}
	p := PlanFor(Destroy(), mustEra(t, "6.18"))
	if !p.Tracepoint || len(p.Commands) < 4 {
		t.Errorf("destroy in 6.18: %+v", p)
	}
}

func mustEra(t *testing.T, name string) *sim.Era {
	t.Helper()
	e, err := sim.EraByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestByName(t *testing.T) {
	for _, n := range []string{"refcnt-check", "alloc_fast", "rx_pp_alloc_fast", "alloc-fast", "rx_pp_recycle_released_ref", "recycle-released-refcnt", "destroy"} {
		if _, err := ByName(n); err != nil {
			t.Errorf("ByName(%q): %v", n, err)
		}
	}
	_, err := ByName("warp")
	if err == nil || !strings.Contains(err.Error(), `"warp"`) || !strings.Contains(err.Error(), "refcnt-check") || !strings.Contains(err.Error(), "alloc_fast") || !strings.Contains(err.Error(), "destroy") {
		t.Errorf("ByName(warp): %v", err)
	}
}

// probe is one probe block of a bpftrace script.
type probe struct {
	kind, name string // tracepoint page_pool_release; kfunc skb_try_coalesce
	body       string
}

// probes splits a script into its probe blocks (the scripts' own layout:
// a probe line, an optional /predicate/ line, a braced body).
func probes(t *testing.T, script string) []probe {
	var out []probe
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		head := l
		var body strings.Builder
		depth := 0
		for ; i < len(lines); i++ {
			body.WriteString(lines[i] + "\n")
			depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			if depth == 0 && strings.Contains(body.String(), "{") {
				break
			}
		}
		var p probe
		switch {
		case strings.HasPrefix(head, "tracepoint:page_pool:"):
			p = probe{"tracepoint", strings.TrimPrefix(head, "tracepoint:page_pool:"), body.String()}
		case strings.HasPrefix(head, "kfunc:"), strings.HasPrefix(head, "kretfunc:"):
			k, n, _ := strings.Cut(head, ":")
			p = probe{k, n, body.String()}
		case head == "END" || head == "BEGIN":
			p = probe{head, "", body.String()}
		default:
			t.Fatalf("unexpected probe %q in\n%s", head, script)
		}
		out = append(out, p)
	}
	return out
}

var argsRe = regexp.MustCompile(`args->([a-z_]+)`)

// tsvRow is a row of testdata/tracepoints.tsv.
type tsvRow struct {
	from, to, event string
	fields          []string
}

// loadTSV reads engine/sim/testdata/tracepoints.tsv (the formats'
// table, with its citations).
func loadTSV(t *testing.T) []tsvRow {
	f, err := os.Open(filepath.Join("..", "sim", "testdata", "tracepoints.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tsvRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "from_tag") {
			continue
		}
		c := strings.Split(l, "\t")
		if len(c) < 4 {
			t.Fatalf("tracepoints.tsv: %q: want from_tag, to_tag, event, fields, printk, source", l)
		}
		var names []string
		for _, f := range strings.Split(c[3], ";") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			names = append(names, f[strings.LastIndexAny(f, " *")+1:])
		}
		rows = append(rows, tsvRow{strings.TrimSpace(c[0]), strings.TrimSpace(c[1]), strings.TrimSpace(c[2]), names})
	}
	return rows
}

// tagKey orders kernel tags: v5.12 < v6.18 < v7.1-rc1 < v7.1.
func tagKey(tag string) [3]int {
	tag = strings.TrimPrefix(tag, "v")
	base, rc, hasRC := strings.Cut(tag, "-rc")
	maj, min, _ := strings.Cut(base, ".")
	a, _ := strconv.Atoi(maj)
	b, _ := strconv.Atoi(min)
	r := 1000
	if hasRC {
		r, _ = strconv.Atoi(rc)
	}
	return [3]int{a, b, r}
}

func tagLE(a, b string) bool {
	x, y := tagKey(a), tagKey(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return true
}

// tsvFields is the field names of event at tag, ok false when no row covers it.
func tsvFields(rows []tsvRow, event, tag string) ([]string, bool) {
	for _, r := range rows {
		if r.event != event || !tagLE(r.from, tag) {
			continue
		}
		if r.to != "" && r.to != "-" && !tagLE(tag, r.to) {
			continue
		}
		return r.fields, true
	}
	return nil, false
}

// formatFields reads this machine's format file of event (6.18 truth).
func formatFields(event string) ([]string, bool) {
	b, err := os.ReadFile("/sys/kernel/tracing/events/page_pool/" + event + "/format")
	if err != nil {
		return nil, false
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "field:") || strings.Contains(l, "common_") {
			continue
		}
		decl, _, _ := strings.Cut(strings.TrimPrefix(l, "field:"), ";")
		out = append(out, decl[strings.LastIndexAny(decl, " *")+1:])
	}
	return out, true
}

func runningRelease() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}

func names(fs []Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// TestTracepointFields checks Fields against testdata/tracepoints.tsv
// (every era whose tag a row covers) and, on a 6.18 kernel, against its
// format files.
func TestTracepointFields(t *testing.T) {
	rows := loadTSV(t)
	checked := 0
	for i := range sim.Eras {
		e := &sim.Eras[i]
		for _, ev := range Events {
			want, ok := tsvFields(rows, ev, e.Tag)
			if !ok {
				t.Errorf("%s %s: no row in tracepoints.tsv for %s", e.Name, ev, e.Tag)
				continue
			}
			checked++
			if got := names(Fields(e, ev)); !sameSet(got, want) {
				t.Errorf("%s %s: Fields %v, tracepoints.tsv %v", e.Name, ev, got, want)
			}
		}
	}
	if strings.HasPrefix(runningRelease(), "6.18") {
		e := mustEra(t, "6.18")
		for _, ev := range Events {
			if want, ok := formatFields(ev); ok {
				checked++
				if got := names(Fields(e, ev)); !sameSet(got, want) {
					t.Errorf("6.18 %s: Fields %v, this kernel's format %v", ev, got, want)
				}
			}
		}
	}
	t.Logf("%d (era, event) field lists checked", checked)
}

func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, ",") == strings.Join(y, ",")
}

// TestBpftraceScripts checks every script of every target and era: its
// tracepoint probes are page_pool events, each args->field of a
// tracepoint block is in the era's TP_STRUCT__entry (Fields, checked
// above against the tsv and the format files), a kfunc probes the era's
// name of a modelled function, and the pfn is printed the era's way.
func TestBpftraceScripts(t *testing.T) {
	n := 0
	known := map[string]bool{}
	for s := sim.Sym(1); s < sim.NumSyms; s++ {
		for i := range sim.Eras {
			known[s.NameIn(&sim.Eras[i])] = true
		}
	}
	each(func(tg Target, e *sim.Era, p Plan) {
		for _, c := range p.Commands {
			if c.Kind != Bpftrace {
				continue
			}
			n++
			for _, pr := range probes(t, c.Text) {
				switch pr.kind {
				case "tracepoint":
					fs := Fields(e, pr.name)
					if fs == nil {
						t.Errorf("%s in %s: no tracepoint page_pool:%s", tg, e.Name, pr.name)
					}
					for _, m := range argsRe.FindAllStringSubmatch(pr.body, -1) {
						if !contains(names(fs), m[1]) {
							t.Errorf("%s in %s: page_pool:%s has no field %s (fields %v)", tg, e.Name, pr.name, m[1], names(fs))
						}
					}
				case "kfunc", "kretfunc":
					if !known[pr.name] {
						t.Errorf("%s in %s: %s:%s is no modelled function's name in any era", tg, e.Name, pr.kind, pr.name)
					}
				}
			}
			if strings.Contains(c.Text, "pfn=") && !strings.Contains(c.Text, "pfn="+PFNFormat(e)) {
				t.Errorf("%s in %s: pfn not printed as %s", tg, e.Name, PFNFormat(e))
			}
		}
	})
	t.Logf("%d bpftrace scripts checked", n)
}

// TestDrgnSnippets compiles every drgn snippet with python3's py_compile.
func TestDrgnSnippets(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the drgn snippets are not compiled")
	}
	dir := t.TempDir()
	seen := map[string]string{}
	each(func(tg Target, e *sim.Era, p Plan) {
		for _, c := range p.Commands {
			if c.Kind == Drgn {
				if _, ok := seen[c.Text]; !ok {
					seen[c.Text] = fmt.Sprintf("%s in %s", tg, e.Name)
				}
			}
		}
	})
	var files []string
	where := map[string]string{}
	i := 0
	for text, at := range seen {
		f := filepath.Join(dir, fmt.Sprintf("s%d.py", i))
		i++
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		where[f] = at
	}
	sort.Strings(files)
	for _, f := range files {
		if out, err := exec.Command(py, "-m", "py_compile", f).CombinedOutput(); err != nil {
			t.Errorf("%s: drgn snippet does not compile: %v\n%s", where[f], err, out)
		}
	}
	t.Logf("%d distinct drgn snippets compiled", len(files))
}

// spec is one netdev.yaml subset: sets and ops' reply attributes.
type spec struct {
	from string
	sets map[string][]string
	ops  map[string][]string
}

func loadSpecs(t *testing.T) []spec {
	files, _ := filepath.Glob(filepath.Join("testdata", "netdev-*.txt"))
	var out []spec
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := spec{from: strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "netdev-"), ".txt"), sets: map[string][]string{}, ops: map[string][]string{}}
		for _, l := range strings.Split(string(b), "\n") {
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			head, attrs, _ := strings.Cut(l, ":")
			h := strings.Fields(head)
			switch h[0] {
			case "set":
				s.sets[h[1]] = strings.Fields(attrs)
			case "op":
				s.ops[h[1]] = strings.Fields(attrs)
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no testdata/netdev-*.txt")
	}
	sort.Slice(out, func(i, j int) bool { return tagLE("v"+out[i].from, "v"+out[j].from) })
	return out
}

// specFor is the newest subset at or before the era's tag.
func specFor(specs []spec, e *sim.Era) (spec, bool) {
	var got spec
	ok := false
	for _, s := range specs {
		if tagLE("v"+s.from, e.Tag) {
			got, ok = s, true
		}
	}
	return got, ok
}

// TestYNLCommands checks each ynl command's op, and the attributes its
// plan names, against the era's netdev.yaml subset; none before 6.8.
func TestYNLCommands(t *testing.T) {
	specs := loadSpecs(t)
	n := 0
	each(func(tg Target, e *sim.Era, p Plan) {
		for _, c := range p.Commands {
			if c.Kind != YNL && c.Kind != Ynltool {
				continue
			}
			if !e.PoolNetlink {
				t.Errorf("%s in %s: %s command in an era without netlink page pools", tg, e.Name, c.Kind)
			}
			if c.Kind == Ynltool {
				if !HasYnltool(e) {
					t.Errorf("%s in %s: ynltool before 6.19", tg, e.Name)
				}
				continue
			}
			n++
			s, ok := specFor(specs, e)
			if !ok {
				t.Errorf("%s in %s: no netdev.yaml subset at or before %s", tg, e.Name, e.Tag)
				continue
			}
			f := strings.Fields(c.Text)
			op := f[len(f)-1]
			reply, ok := s.ops[op]
			if !ok {
				t.Errorf("%s in %s: op %s not in netdev.yaml %s", tg, e.Name, op, s.from)
				continue
			}
			if tg.IsCounter() && !contains(reply, ynlKey(tg.stat)) {
				t.Errorf("%s in %s: %s's reply has no %s", tg, e.Name, op, ynlKey(tg.stat))
			}
			for _, a := range []string{"inflight", "detach-time", "dmabuf", "io-uring"} {
				if op == "page-pool-get" && strings.Contains(c.Shows, a) != contains(reply, a) && !(a == "inflight" && contains(reply, a)) {
					t.Errorf("%s in %s: shows mention %s = %v, netdev.yaml %s has it = %v", tg, e.Name, a, strings.Contains(c.Shows, a), s.from, contains(reply, a))
				}
			}
		}
	})
	t.Logf("%d ynl commands checked against %d netdev.yaml subsets", n, len(specs))
}

// TestEthtoolAndDmesg: ethtool names are the counters' and only in eras
// with stats; dmesg patterns match the model's own warning.
func TestEthtoolAndDmesg(t *testing.T) {
	each(func(tg Target, e *sim.Era, p Plan) {
		for _, c := range p.Commands {
			switch c.Kind {
			case Ethtool:
				if !e.Stats {
					t.Errorf("%s in %s: ethtool -S counter before CONFIG_PAGE_POOL_STATS", tg, e.Name)
				}
				if tg.IsCounter() && !strings.Contains(c.Text, tg.stat.Ethtool()) {
					t.Errorf("%s in %s: %q lacks %s", tg, e.Name, c.Text, tg.stat.Ethtool())
				}
			case Dmesg:
				if !strings.Contains(c.Text, "stalled") {
					continue
				}
				pat, _ := stalledLine(e)
				line := fmt.Sprintf("page_pool_release_retry() stalled pool shutdown %d inflight %d sec", 3, 60)
				if e.PoolNetlink {
					line = fmt.Sprintf("page_pool_release_retry() stalled pool shutdown: id %d, %d inflight %d sec", 9, 3, 60)
				}
				if !regexp.MustCompile(pat).MatchString(line) {
					t.Errorf("%s in %s: %q does not match %q", tg, e.Name, pat, line)
				}
			}
		}
	})
}
