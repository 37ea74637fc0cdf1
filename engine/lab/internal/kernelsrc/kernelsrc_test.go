package kernelsrc

import (
	_ "embed"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"pplab/engine/sim"
)

// identsAsLists is idents.tsv as it was before its lists of eras became
// ranges (issue 30): one comma list of every era per row.
//
//go:embed testdata/idents-as-lists.tsv
var identsAsLists string

// parseLists is the reader of the table as lists (the parser before
// ranges, kept to read the snapshot).
func parseLists(t *testing.T, text string) map[string]map[string]IdentDef {
	t.Helper()
	out := map[string]map[string]IdentDef{}
	for n, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("idents-as-lists.tsv:%d: %d fields", n+1, len(f))
		}
		d := IdentDef{File: f[2], Why: f[3]}
		if id, ok := strings.CutPrefix(f[2], "RFC:"); ok {
			d = IdentDef{MsgID: id, Why: f[3]}
		}
		for _, era := range strings.Split(f[1], ",") {
			if _, err := sim.EraByName(era); err != nil {
				t.Fatalf("idents-as-lists.tsv:%d: %v", n+1, err)
			}
			m := out[era]
			if m == nil {
				m = map[string]IdentDef{}
				out[era] = m
			}
			if _, dup := m[f[0]]; dup {
				t.Fatalf("idents-as-lists.tsv:%d: %s twice in %s", n+1, f[0], era)
			}
			m[f[0]] = d
		}
	}
	return out
}

// The conversion of the lists into ranges lost and invented nothing: for
// every era the lists knew (the 17 of issue 30) and every identifier either
// table names, the lookup gives the same file (or RFC patch) and the same
// reason, and no lookup is left unverified. (An era added since is not in
// the lists: TestIdents_EveryEraIsChecked covers it.)
func TestIdents_RangesSayWhatTheListsSaid(t *testing.T) {
	lists := parseLists(t, identsAsLists)
	if len(lists) != 17 {
		t.Fatalf("the lists name %d eras, want the 17 of issue 30", len(lists))
	}
	idents := map[string]bool{}
	for _, m := range lists {
		for id := range m {
			idents[id] = true
		}
	}
	for _, m := range identTable.at {
		for id := range m {
			idents[id] = true
		}
	}
	n := 0
	for era := range lists {
		e, _ := sim.EraByName(era)
		for id := range idents {
			want, wok := lists[e.Name][id]
			got, gok := Lookup(e.Name, id)
			if st, _ := StatusOf(e.Name, id); st == Unverified {
				t.Errorf("%s in %s: not verified", id, e.Name)
			}
			if got != want || gok != wok {
				t.Errorf("%s in %s: ranges give %+v %v, the lists gave %+v %v", id, e.Name, got, gok, want, wok)
			}
			n++
		}
	}
	if len(idents) < 100 || n != len(idents)*len(lists) {
		t.Errorf("compared %d lookups of %d identifiers: the tables were not read", n, len(idents))
	}
}

// checked, given (-checked=ERA), records that every row the test lists
// for ERA has been read in its release (recordChecked) and rewrites
// idents.tsv before the test runs.
var checked = flag.String("checked", "", "record in idents.tsv that the rows not yet checked in this era were read in its release")

// Every era of the model has been checked in every row that could hold in
// it: an era added to engine/sim fails here, naming the rows to read in its
// release, until each row's "checked through" says it was (adding-an-era.md).
func TestIdents_EveryEraIsChecked(t *testing.T) {
	tb, src := identTable, identsTSV
	if *checked != "" {
		text, n, err := recordChecked(src, sim.Eras, *checked)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("idents.tsv", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("idents.tsv: %d rows checked through %s", n, *checked)
		if tb, err = parseIdents(text, sim.Eras); err != nil {
			t.Fatal(err)
		}
		src = text
	}
	lines := slices.Sorted(maps.Keys(tb.pending))
	text := strings.Split(src, "\n")
	for _, l := range lines {
		f := strings.Split(text[l-1], "\t")
		t.Errorf("idents.tsv:%d: %s (%s, checked through %s) not checked in %s", l, f[0], f[1], f[2], strings.Join(tb.pending[l], ", "))
	}
	if len(lines) > 0 {
		t.Errorf("%d rows to read in the release of each era named; then go test ./engine/lab/internal/kernelsrc -run TestIdents_EveryEraIsChecked -checked=ERA records it (docs/adding-an-era.md)", len(lines))
	}
	for _, e := range sim.Eras {
		for id, en := range tb.at[e.Name] {
			if en.status == Unverified && !slices.Contains(tb.pending[en.line], e.Name) {
				t.Errorf("%s in %s: not verified, and its line %d does not say so", id, e.Name, en.line)
			}
		}
	}
}

// withEra is the model's era list with a made-up era (a copy of era
// after, renamed, on branch if not "") inserted after era after: what
// engine/sim looks like once someone adds it.
func withEra(t *testing.T, eras []sim.Era, name, after, branch string) []sim.Era {
	t.Helper()
	i := slices.IndexFunc(eras, func(e sim.Era) bool { return e.Name == after })
	if i < 0 {
		t.Fatalf("no era %s", after)
	}
	e := eras[i]
	e.Name, e.Tag, e.Branch = name, "v"+name, branch
	out := slices.Insert(slices.Clone(eras), i+1, e)
	for k := range out {
		out[k].Order = k
	}
	return out
}

func status(t *testing.T, tb *table, era, ident string) Status {
	t.Helper()
	if _, ok := tb.at[era]; !ok {
		t.Fatalf("no era %s in the table", era)
	}
	return tb.at[era][ident].status
}

// An era inserted inside a range (6.13 between 6.12 and 6.15, 6.19 between
// 6.18 and 7.1-rc1) inherits no row until someone records that the row was
// checked there: the lookup says Unverified for a row that covers the era
// or lies next to it, Absent only where the rows on both sides lack the
// identifier; the eras already checked read as before. Recording the
// check (the era at the end of @checked, the row's checked through set
// to it) makes the row hold there, with the eras it then names.
func TestIdents_AnEraInsertedInARangeIsNotVerifiedUntilChecked(t *testing.T) {
	eras := withEra(t, withEra(t, sim.Eras, "6.13", "6.12", ""), "6.19", "6.18", "")
	tb, err := parseIdents(identsTSV, eras)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		era, ident string
		want       Status
	}{
		{"6.13", "page_pool_create", Unverified},             // 5.12-,rfc-v1: inside the range
		{"6.13", "page_frag_free", Unverified},               // 5.12-6.12 in mm/page_alloc.c, 6.15- in mm/page_frag_cache.c: next to both
		{"6.13", "page_pool_put_page_bulk", Unverified},      // 5.12-6.12: next to the range's end
		{"6.13", "page_pool_put_netmem_bulk", Unverified},    // 6.15-: next to the range's start
		{"6.13", "__alloc_pages_nodemask", Absent},           // 5.12,rfc-v1: far from it
		{"6.13", "page_pool_release_dma_index", Absent},      // 6.18 only
		{"6.19", "page_pool_release_dma_index", Unverified},  // 6.18 only: next to it
		{"6.19", "__page_pool_unmap_netmem_dma", Unverified}, // 7.1-rc1-: next to the range's start
		{"6.19", "page_pool_return_page", Absent},            // 5.12-6.16,rfc-v1
		{"6.19", "page_pool_create", Unverified},
	} {
		if got := status(t, tb, tt.era, tt.ident); got != tt.want {
			t.Errorf("%s in the inserted era %s: status %d, want %d", tt.ident, tt.era, got, tt.want)
		}
	}
	for _, e := range sim.Eras {
		for id, want := range identTable.at[e.Name] {
			if got := tb.at[e.Name][id]; got != want {
				t.Errorf("%s in %s: %+v with the eras inserted, %+v without", id, e.Name, got, want)
			}
		}
		if len(tb.at[e.Name]) != len(identTable.at[e.Name]) {
			t.Errorf("era %s: %d identifiers with the eras inserted, %d without", e.Name, len(tb.at[e.Name]), len(identTable.at[e.Name]))
		}
	}

	// Someone reads v6.13's source for every row listed: page_frag_free
	// moved to mm/page_frag_cache.c in 6.13 (65941f10caf2), the others
	// hold as their eras say (a made-up reading: the test is about the
	// table, not about 6.13). The check is recorded, the moved row fixed.
	text, n, err := recordChecked(identsTSV, eras, "6.13")
	if err != nil || n < 100 || !strings.Contains(text, "\n@checked\t5.12 5.13 rfc-v1 5.14 5.15 6.1 6.4 6.6 6.8 6.9 6.10 6.12 6.15 6.16 6.18 7.1-rc1 7.1 6.13\n") {
		t.Fatalf("recording 6.13: %d rows, %v", n, err)
	}
	text = strings.Replace(text, "page_frag_free\t6.15-\t6.13\t", "page_frag_free\t6.13-\t6.13\t", 1)
	tb, err = parseIdents(text, eras)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		era, ident, file string // "" file: Absent
	}{
		{"6.13", "page_pool_create", "net/core/page_pool.c"},
		{"6.13", "page_frag_free", "mm/page_frag_cache.c"},
		{"6.12", "page_frag_free", "mm/page_alloc.c"},
		{"6.13", "page_pool_put_page_bulk", ""},
		{"6.13", "page_pool_put_netmem_bulk", ""},
	} {
		e := tb.at[tt.era][tt.ident]
		if want := map[bool]Status{true: Defined, false: Absent}[tt.file != ""]; e.status != want || e.def.File != tt.file {
			t.Errorf("%s in %s once 6.13 is checked: %+v, want file %q", tt.ident, tt.era, e, tt.file)
		}
	}
	for l, p := range tb.pending {
		if slices.Contains(p, "6.13") {
			t.Errorf("line %d still waits for 6.13: %v", l, p)
		}
	}
	if st := status(t, tb, "6.19", "page_pool_create"); st != Unverified {
		t.Errorf("page_pool_create in 6.19, checked through 6.13 only: status %d", st)
	}
	if text, _, err = recordChecked(text, eras, "6.19"); err != nil {
		t.Fatal(err)
	}
	if tb, err = parseIdents(text, eras); err != nil || len(tb.pending) != 0 {
		t.Errorf("6.13 and 6.19 recorded: %v, still waiting %v", err, tb.pending)
	}

	// 6.13 on the @checked line with no row checked there: recording 6.19
	// would say the rows were checked in 6.13 too, and is refused.
	skip := strings.Replace(identsTSV, " 7.1-rc1 7.1\n", " 7.1-rc1 7.1 6.13\n", 1)
	if _, _, err := recordChecked(skip, eras, "6.19"); err == nil || !strings.Contains(err.Error(), "record 6.13 first") {
		t.Errorf("recording 6.19 over an unchecked 6.13: %v", err)
	}
	// A row may not name an era it was not checked in.
	bad := strings.Replace(skip, "page_pool_destroy\t5.12-,rfc-v1\t7.1\t", "page_pool_destroy\t5.12-6.13,rfc-v1\t7.1\t", 1)
	if _, err := parseIdents(bad, eras); err == nil || !strings.Contains(err.Error(), "names era 6.13, in which it was not checked") {
		t.Errorf("a row naming an era it was not checked in: %v", err)
	}
}

// A new era at the end of the mainline inherits only the open ranges'
// rows, unverified; a new branch only what its base has, unverified; the
// branch rfc-v1 holds only where a row names it.
func TestIdents_NewErasAtTheEndAndOnABranch(t *testing.T) {
	eras := withEra(t, withEra(t, sim.Eras, "7.3", "7.1", ""), "rfc-v2", "5.13", "5.13")
	tb, err := parseIdents(identsTSV, eras)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		era, ident string
		want       Status
	}{
		{"7.3", "page_pool_create_percpu", Unverified}, // 6.9-
		{"7.3", "page_pool_put_page_bulk", Absent},     // 5.12-6.12
		{"rfc-v2", "page_pool_create", Unverified},     // 5.13 has it
		{"rfc-v2", "page_pool_dma_map", Unverified},    // 5.13- : its base has it
		{"rfc-v2", "skb_mark_for_recycle", Absent},     // rfc-v1 (the RFC's) and 5.14-: not in its base
		{"rfc-v1", "page_pool_dma_map", Absent},        // 5.13-: a range takes no branch
		{"rfc-v1", "page_pool_create", Defined},        // 5.12-,rfc-v1
	} {
		if got := status(t, tb, tt.era, tt.ident); got != tt.want {
			t.Errorf("%s in %s: status %d, want %d", tt.ident, tt.era, got, tt.want)
		}
	}
}

// The lookup of a row not checked in an era says so instead of linking:
// the table as it would read just after 7.1 was added to engine/sim, before
// anyone checked its rows there.
func TestSource_NotVerified(t *testing.T) {
	text := strings.Replace(identsTSV, " 7.1\n", "\n", 1)
	text = strings.ReplaceAll(text, "\t7.1\t", "\t7.1-rc1\t")
	tb, err := parseIdents(text, sim.Eras)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old *table) { identTable = old }(identTable)
	identTable = tb
	got := Source("7.1", "", sim.SymPoolCreate)
	want := SourceRef{Name: "page_pool_create", Note: "not verified in v7.1: idents.tsv's row for page_pool_create was checked through 7.1-rc1 only"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, ok := Lookup("7.1", "page_pool_create"); ok {
		t.Error("Lookup gives an unverified row")
	}
	if got := Source("7.1-rc1", "", sim.SymPoolCreate); got.URL == "" {
		t.Errorf("7.1-rc1, checked: %+v", got)
	}
}

// A malformed row stops the table from loading, naming its line.
func TestIdents_BadRowsAreRefused(t *testing.T) {
	const head = "@checked\t5.12 5.13 rfc-v1 5.14 5.15 6.1 6.4 6.6 6.8 6.9 6.10 6.12 6.15 6.16 6.18 7.1-rc1 7.1\n"
	for _, tt := range []struct{ text, want string }{
		{head + "x\t5.12-\t7.1\tf.c\n", "4 fields, want 5"},
		{head + "x\t5.11-\t7.1\tf.c\t-\n", `unknown era or range "5.11-"`},
		{head + "x\t5.12-rfc-v1\t7.1\tf.c\t-\n", "rfc-v1 is a branch"},
		{head + "x\t6.8-5.14\t7.1\tf.c\t-\n", "runs backwards"},
		{head + "x\t5.12-\t7.2\tf.c\t-\n", `checked through "7.2"`},
		{head + "x\t5.12-6.8\t7.1\tf.c\t-\nx\t6.8-\t7.1\tg.c\t-\n", "x in era 6.8 is defined by line 2 too"},
		{"x\t5.12-\t7.1\tf.c\t-\n", `checked through "7.1", which is no era of the @checked line`},
		{head + head, "want one @checked line"},
		{"@checked\t5.12 5.12\n", `era "5.12" unknown or repeated`},
		{"# nothing\n", "no @checked line"},
		{strings.Replace(head, " 7.1\n", "\n", 1) + "x\t6.9-7.1\t7.1-rc1\tf.c\t-\n", "x names era 7.1, in which it was not checked"},
	} {
		if _, err := parseIdents(tt.text, sim.Eras); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}
