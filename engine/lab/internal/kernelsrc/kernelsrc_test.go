package kernelsrc

import (
	_ "embed"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"pplab/engine/sim"
)

// parsedTable is idents.tsv parsed whole (every era built, with the
// checks): what the tests read. The look-ups use identTable, which builds
// an era on its first look-up there.
var parsedTable = sync.OnceValue(func() *table {
	t, err := parseIdents(identsTSV, sim.Eras)
	if err != nil {
		panic(err)
	}
	return t
})

// The look-ups' table, built era by era as each is first looked up, says
// what the whole parse says in every era, whatever the order of the
// look-ups; an era the model does not have has no entries.
func TestIdents_TheLookupsTableIsTheParsedOne(t *testing.T) {
	lazy, err := readIdents(identsTSV, sim.Eras)
	if err != nil {
		t.Fatal(err)
	}
	if len(lazy.at) != 0 {
		t.Fatalf("readIdents built %d eras: the entries are built on look-up", len(lazy.at))
	}
	full := parsedTable()
	for k := range sim.Eras {
		e := sim.Eras[len(sim.Eras)-1-k].Name // newest first: not the parse's order
		if got, want := lazy.entries(e), full.at[e]; !maps.Equal(got, want) || len(want) == 0 {
			t.Errorf("era %s: %d entries looked up, %d parsed (or they differ)", e, len(got), len(want))
		}
	}
	if m := lazy.entries("9.99"); len(m) != 0 {
		t.Errorf("an unknown era has %d entries", len(m))
	}
}

// identsAsLists is idents.tsv as it was before its lists of eras became
// ranges: one comma list of every era per row.
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
// every era the lists knew (the 17 eras of the last list form) and every identifier either
// table names, the lookup gives the same file (or RFC patch) and the same
// reason, and no lookup is left unverified. (An era added since is not in
// the lists: TestIdents_EveryEraIsChecked covers it.)
func TestIdents_RangesSayWhatTheListsSaid(t *testing.T) {
	lists := parseLists(t, identsAsLists)
	if len(lists) != 17 {
		t.Fatalf("the lists name %d eras, want the 17 eras of the list form", len(lists))
	}
	idents := map[string]bool{}
	for _, m := range lists {
		for id := range m {
			idents[id] = true
		}
	}
	// (rows added after the conversion, kfree_skb_reason,
	// sk_skb_reason_drop and page_pool_store_mem_info, are not the conversion's: TestIdents_EveryEraIsChecked
	// covers them)
	for _, m := range parsedTable().at {
		for id := range m {
			if id == "kfree_skb_reason" || id == "sk_skb_reason_drop" || id == "page_pool_store_mem_info" || id == "mlx5e_rx_cache_get" || id == "mlx5e_rx_cache_put" {
				continue
			}
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
	tb, src := parsedTable(), identsTSV
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

// withEra is eras with a made-up era (a copy of era after, renamed, on
// branch if not "") inserted after era after: what engine/sim looks like
// once someone adds it.
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

// An era inserted between any two eras of the mainline, or added after the
// last, inherits no row of idents.tsv until its check is recorded: where a
// row defines the identifier in an era next to it, the lookup says
// Unverified; elsewhere Absent; never Defined; the eras already checked
// read as before. Once recorded (-checked), nothing waits and every
// identifier it has is one of its neighbours' rows.
func TestIdents_AnEraInsertedAnywhereIsNotVerifiedUntilChecked(t *testing.T) {
	const x = "x-inserted"
	var mainline []string
	for _, e := range sim.Eras {
		if e.Branch == "" {
			mainline = append(mainline, e.Name)
		}
	}
	for k, prev := range mainline {
		next := ""
		if k+1 < len(mainline) {
			next = mainline[k+1]
		}
		eras := withEra(t, sim.Eras, x, prev, "")
		tb, err := parseIdents(identsTSV, eras)
		if err != nil {
			t.Fatal(err)
		}
		unverified := 0
		for _, e := range sim.Eras {
			if !maps.Equal(tb.at[e.Name], parsedTable().at[e.Name]) {
				t.Errorf("%s after %s: era %s reads otherwise", x, prev, e.Name)
			}
		}
		idents := map[string]bool{}
		for _, m := range []map[string]entry{parsedTable().at[prev], parsedTable().at[next], tb.at[x]} {
			for id := range m {
				idents[id] = true
			}
		}
		for id := range idents {
			en := tb.at[x][id]
			want := Absent
			if parsedTable().at[prev][id].status == Defined || parsedTable().at[next][id].status == Defined {
				want = Unverified
				unverified++
			}
			if en.status != want {
				t.Errorf("%s between %s and %q: %s has status %d, want %d", x, prev, next, id, en.status, want)
			}
		}
		if unverified < 100 {
			t.Errorf("%s after %s: %d identifiers unverified", x, prev, unverified)
		}
		text, n, err := recordChecked(identsTSV, eras, x)
		if err != nil || n < 100 {
			t.Fatalf("recording %s after %s: %d rows, %v", x, prev, n, err)
		}
		if tb, err = parseIdents(text, eras); err != nil || len(tb.pending) != 0 {
			t.Fatalf("recorded %s after %s: %v, waiting %v", x, prev, err, tb.pending)
		}
		for id, en := range tb.at[x] {
			if en.status == Defined && en.def != parsedTable().at[prev][id].def && en.def != parsedTable().at[next][id].def {
				t.Errorf("recorded %s after %s: %s is %+v, in neither neighbour", x, prev, id, en.def)
			}
		}
	}
}

// The table's rules on a small era line of its own: 1.0, 1.1, a branch
// rfc off 1.0, 1.3, the pre-release 2.0-rc1 and 2.0; 1.2 inserted between
// 1.1 and 1.3, 2.1 added at the end, rfc2 branching off 1.1.
func TestIdents_RangesBranchesAndChecks(t *testing.T) {
	eras := []sim.Era{{Name: "1.0"}, {Name: "1.1"}, {Name: "rfc", Branch: "1.0"}, {Name: "1.3"}, {Name: "2.0-rc1"}, {Name: "2.0"}}
	const text = "# a table\n" +
		"@checked\t1.0 1.1 rfc 1.3 2.0-rc1 2.0\n" +
		"everywhere\t1.0-,rfc\t2.0\ta.c\t-\n" +
		"moved\t1.0-1.1,rfc\t2.0\ta.c\t-\n" +
		"moved\t1.3-\t2.0\tb.c\tmoved\n" +
		"gone\t-1.1\t2.0\ta.c\t-\n" +
		"old\t1.0\t2.0\ta.c\t-\n" +
		"late\t2.0-rc1-\t2.0\tc.c\t-\n" +
		"rc\t2.0-rc1\t2.0\tc.c\t-\n" +
		"onrfc\trfc\t2.0\tRFC:1@x\t-\n" +
		"after\t1.1-\t2.0\ta.c\t-\n"
	tb, err := parseIdents(text, eras)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		era, ident, file string // file: Defined there ("" Absent)
	}{
		{"1.1", "moved", "a.c"}, {"1.3", "moved", "b.c"}, {"2.0-rc1", "moved", "b.c"},
		{"rfc", "everywhere", "a.c"}, {"rfc", "moved", "a.c"}, {"1.0", "onrfc", ""},
		{"rfc", "after", ""},   // a range takes no branch
		{"rfc", "gone", ""},    // -1.1 neither
		{"2.0", "late", "c.c"}, // 2.0-rc1- runs on to its release
		{"2.0", "rc", ""},      // 2.0-rc1 alone
		{"1.0", "after", ""},   // 1.1- starts at 1.1
		{"1.3", "gone", ""},    // -1.1 ends there
	} {
		en := tb.at[tt.era][tt.ident]
		if tt.file == "" && en.status != Absent || tt.file != "" && (en.status != Defined || en.def.File != tt.file) {
			t.Errorf("%s in %s: %+v, want file %q", tt.ident, tt.era, en, tt.file)
		}
	}
	if d := tb.at["rfc"]["onrfc"]; d.status != Defined || d.def.MsgID != "1@x" {
		t.Errorf("onrfc in rfc: %+v", d)
	}

	eras = withEra(t, withEra(t, withEra(t, eras, "1.2", "1.1", ""), "2.1", "2.0", ""), "rfc2", "1.1", "1.1")
	if tb, err = parseIdents(text, eras); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		era, ident string
		want       Status
	}{
		{"1.2", "everywhere", Unverified}, // inside 1.0-
		{"1.2", "moved", Unverified},      // next to both its rows
		{"1.2", "gone", Unverified},       // next to the end of -1.1
		{"1.2", "after", Unverified},
		{"1.2", "old", Absent},      // 1.0 alone, far from it
		{"1.2", "late", Absent},     // 2.0-rc1- starts after 1.3
		{"2.1", "late", Unverified}, // an open range
		{"2.1", "everywhere", Unverified},
		{"2.1", "rc", Absent}, // 2.0-rc1 alone: its release lacks it
		{"2.1", "moved", Unverified},
		{"rfc2", "after", Unverified}, // its base 1.1 has it
		{"rfc2", "old", Absent},       // its base lacks it
		{"rfc2", "onrfc", Absent},     // another branch's
		{"rfc", "after", Absent},      // an old branch stays as checked
	} {
		if got := status(t, tb, tt.era, tt.ident); got != tt.want {
			t.Errorf("%s in %s: status %d, want %d", tt.ident, tt.era, got, tt.want)
		}
	}

	// Recording 2.1 before 1.2 is refused once 1.2 is on the @checked line:
	// its rows would then claim 1.2 too.
	early := strings.Replace(text, " 2.0\n", " 2.0 1.2\n", 1)
	if _, _, err := recordChecked(early, eras, "2.1"); err == nil || !strings.Contains(err.Error(), "record 1.2 first") {
		t.Errorf("recording 2.1 over an unchecked 1.2: %v", err)
	}
	// A row may not name an era it was not checked in.
	if _, err := parseIdents(strings.Replace(early, "old\t1.0\t", "old\t1.0-1.2\t", 1), eras); err == nil || !strings.Contains(err.Error(), "names era 1.2, in which it was not checked") {
		t.Errorf("a row naming an era it was not checked in: %v", err)
	}

	// Someone reads 1.2: moved is already in b.c there, gone is gone, the
	// rest hold as their eras say. Record, fix the moved row, record the
	// others.
	rec, n, err := recordChecked(text, eras, "1.2")
	if err != nil || n != 5 || !strings.Contains(rec, "\n@checked\t1.0 1.1 rfc 1.3 2.0-rc1 2.0 1.2\n") {
		t.Fatalf("recording 1.2: %d rows, %v\n%s", n, err, rec)
	}
	rec = strings.Replace(rec, "moved\t1.3-\t1.2\t", "moved\t1.2-\t1.2\t", 1)
	if tb, err = parseIdents(rec, eras); err != nil {
		t.Fatal(err)
	}
	for id, file := range map[string]string{"everywhere": "a.c", "moved": "b.c", "after": "a.c", "gone": "", "old": ""} {
		if en := tb.at["1.2"][id]; file == "" && en.status != Absent || file != "" && (en.status != Defined || en.def.File != file) {
			t.Errorf("%s in 1.2 once checked: %+v, want %q", id, en, file)
		}
	}
	if got := status(t, tb, "2.1", "everywhere"); got != Unverified {
		t.Errorf("everywhere in 2.1, checked through 1.2: status %d", got)
	}
	for _, era := range []string{"2.1", "rfc2"} {
		if rec, _, err = recordChecked(rec, eras, era); err != nil {
			t.Fatal(err)
		}
	}
	if tb, err = parseIdents(rec, eras); err != nil || len(tb.pending) != 0 {
		t.Errorf("every era recorded: %v, still waiting %v", err, tb.pending)
	}
}

// The lookup of a row not checked in an era says so instead of linking:
// the table as it reads once an era is added after the last, before anyone
// checked its rows there.
func TestSource_NotVerified(t *testing.T) {
	last := sim.Eras[len(sim.Eras)-1]
	eras := withEra(t, sim.Eras, "x-new", last.Name, "")
	tb, err := parseIdents(identsTSV, eras)
	if err != nil {
		t.Fatal(err)
	}
	got := tb.source(&eras[len(eras)-1], "", sim.SymPoolCreate)
	if got.URL != "" || !strings.HasPrefix(got.Note, "not verified in vx-new: idents.tsv's row for page_pool_create was checked through ") {
		t.Errorf("got %+v", got)
	}
	if got := tb.source(&eras[len(eras)-2], "", sim.SymPoolCreate); got.URL == "" {
		t.Errorf("%s, checked: %+v", last.Name, got)
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

// An era whose release could not be read (@unread) inherits a row it was
// not checked in only where the checked eras on both sides hold it in the
// same file: the lookup links that file and says it was not read there.
// Where the sides differ (a move or a rename at the era) it stays
// unverified until someone settles it.
func TestIdents_AnUnreadEraInfersOnlyWhatBothSidesSay(t *testing.T) {
	eras := withEra(t, sim.Eras, "x-mid", "6.12", "")
	text := "@checked\t5.12 5.13 rfc-v1 5.14 5.15 6.1 6.4 6.6 6.8 6.9 6.10 6.12 6.15\n@unread\tx-mid\n" +
		"both\t5.12-6.15\t6.15\tf.c\t-\n" +
		"ends\t5.12-6.12\t6.15\tf.c\t-\n" +
		"starts\t6.15\t6.15\tg.c\t-\n"
	tb, err := parseIdents(text, eras)
	if err != nil {
		t.Fatal(err)
	}
	if en := tb.at["x-mid"]["both"]; en.status != Inferred || en.def.File != "f.c" || en.sides != [2]string{"6.12", "6.15"} {
		t.Errorf("both in x-mid: %+v, want inferred from 6.12 and 6.15", en)
	}
	for _, id := range []string{"ends", "starts"} {
		if got := status(t, tb, "x-mid", id); got != Unverified {
			t.Errorf("%s in x-mid: status %d, want unverified", id, got)
		}
	}
	if slices.Contains(tb.pending[3], "x-mid") {
		t.Errorf("the inferred row is listed as waiting in x-mid: %v", tb.pending[3])
	}
	mid := &eras[slices.IndexFunc(eras, func(e sim.Era) bool { return e.Name == "x-mid" })]
	text = strings.Replace(text, "both\t", "page_pool_create\t", 1)
	if tb, err = parseIdents(text, eras); err != nil {
		t.Fatal(err)
	}
	got := tb.source(mid, "", sim.SymPoolCreate)
	if got.URL != "https://elixir.bootlin.com/linux/vx-mid/source/f.c" || !strings.Contains(got.Note, "not read in vx-mid") || !strings.Contains(got.Note, "assumed from 6.12 and 6.15") {
		t.Errorf("inferred source: %+v", got)
	}
	if _, err := parseIdents(strings.Replace(text, "@unread\tx-mid", "@unread\trfc-v1", 1), eras); err == nil || !strings.Contains(err.Error(), "a branch") {
		t.Errorf("@unread naming a branch: %v", err)
	}
}

// 680ee0456a57 "net: invert the netdevice.h vs xdp.h dependency" (the 6.6
// merge window) moved bpf_prog_run_xdp from include/linux/filter.h to
// include/net/xdp.h: the narration's link follows it from 6.6 (it pointed
// at filter.h through 7.1), and the unread 6.13 and 6.19 infer xdp.h from
// both sides.
func TestIdents_BpfProgRunXdpInXdpHFrom6_6_680ee0456a57(t *testing.T) {
	for _, tc := range []struct {
		era, file string
		status    Status
	}{
		{"5.12", "include/linux/filter.h", Defined},
		{"rfc-v1", "include/linux/filter.h", Defined},
		{"6.4", "include/linux/filter.h", Defined},
		{"6.6", "include/net/xdp.h", Defined},
		{"6.12", "include/net/xdp.h", Defined},
		{"6.13", "include/net/xdp.h", Inferred},
		{"6.19", "include/net/xdp.h", Inferred},
		{"7.1", "include/net/xdp.h", Defined},
		{"7.3", "include/net/xdp.h", Defined},
	} {
		def, ok := Lookup(tc.era, "bpf_prog_run_xdp")
		st, _ := StatusOf(tc.era, "bpf_prog_run_xdp")
		if !ok || def.File != tc.file || st != tc.status {
			t.Errorf("%s: %q (found %v, status %v), want %q (%v)", tc.era, def.File, ok, st, tc.file, tc.status)
		}
	}
}
