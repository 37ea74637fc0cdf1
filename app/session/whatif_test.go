package session

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pplab/engine/perf"
)

var (
	ppsimOnce sync.Once
	ppsimBin  string
	ppsimErr  error
)

// ppsimCLI builds cmd/ppsim once (the CLI is a main package: its output is
// what the page must equal, so the test runs it).
func ppsimCLI(t *testing.T) string {
	t.Helper()
	ppsimOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pplab-whatif-")
		if err != nil {
			ppsimErr = err
			return
		}
		ppsimBin = filepath.Join(dir, "ppsim")
		cmd := exec.Command("go", "build", "-o", ppsimBin, "pplab/cmd/ppsim")
		if out, err := cmd.CombinedOutput(); err != nil {
			ppsimErr = err
			t.Logf("%s", out)
		}
	})
	if ppsimErr != nil {
		t.Fatal(ppsimErr)
	}
	return ppsimBin
}

// TestWhatIf_EveryShippedProfileIsPerfPredictAndTheCLI: for every shipped
// profile and every change, at the profile header's rate, the page's view
// holds exactly the prediction perf.Predict gives (or its refusal, on the
// field it names), and its JSON is byte for byte what `ppsim predict
// --json` prints — given the profile by name and given the pasted text as
// a file. Under -short the CLI runs for one change per profile, the next
// change for the next profile (the view is still compared with
// perf.Predict for every change).
func TestWhatIf_EveryShippedProfileIsPerfPredictAndTheCLI(t *testing.T) {
	bin := ppsimCLI(t)
	dir := t.TempDir()
	predicted := 0
	for i, ex := range WhatIfExamples() {
		prof, text, err := perf.ShippedProfile(ex.Name)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, ex.Name+".txt")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for j, c := range perf.Changes {
			cli := !testing.Short() || j == i%len(perf.Changes)
			in := WhatIfInput{Text: text, Rate: ex.Rate, Unit: ex.Unit, Change: c}
			v := WhatIf(in)
			if v.Example != ex.Name {
				t.Errorf("%s: the view names the text %q", ex.Name, v.Example)
			}
			rate, _ := parseRate(ex.Rate)
			want, werr := perf.Predict(perf.PredictInput{Profile: prof, Rate: rate, Unit: ex.Unit, Change: c})
			args := []string{"predict", "--profile", ex.Name, "--rate", ex.Rate, "--unit", ex.Unit, "--change", c, "--json"}
			var out, outFile []byte
			var cerr error
			if cli {
				out, cerr = exec.Command(bin, args...).Output()
				outFile, _ = exec.Command(bin, "predict", "--profile", file, "--rate", ex.Rate, "--unit", ex.Unit, "--change", c, "--json").Output()
			}
			if werr != nil {
				if v.Err == nil || v.Err.Msg != pageWords(werr.Error()) || v.Pred != nil {
					t.Errorf("%s %s: perf.Predict refuses (%v), the view has %+v", ex.Name, c, werr, v.Err)
				}
				if cli && cerr == nil {
					t.Errorf("%s %s: the CLI predicts what perf.Predict refuses", ex.Name, c)
				}
				continue
			}
			predicted++
			if v.Err != nil {
				t.Errorf("%s %s: %+v", ex.Name, c, v.Err)
				continue
			}
			if !reflect.DeepEqual(v.Pred, want) {
				t.Errorf("%s %s: the view's prediction\n%+v\nperf.Predict's\n%+v", ex.Name, c, v.Pred, want)
			}
			if cli && (cerr != nil || v.JSON != string(out) || v.JSON != string(outFile)) {
				t.Errorf("%s %s: the view's JSON\n%s\nppsim %s (%v)\n%s\nas a file\n%s", ex.Name, c, v.JSON, strings.Join(args, " "), cerr, out, outFile)
			}
			if want := "ppsim " + strings.Join(args, " "); v.Command != want {
				t.Errorf("%s %s: the command is %q, want %q", ex.Name, c, v.Command, want)
			}
			if len(v.Rows) == 0 || v.Chart == "" {
				t.Errorf("%s %s: no table or chart", ex.Name, c)
			}
			// Every symbol of the predicted profile is a row with its share.
			rows := map[string]WhatIfRow{}
			for _, r := range v.Rows {
				rows[r.Symbol] = r
			}
			for _, e := range want.ProfileAfter {
				if r, ok := rows[e.Symbol]; !ok || r.Predicted != e.Pct {
					t.Errorf("%s %s: %s predicted %.2f%%, the row has %+v", ex.Name, c, e.Symbol, e.Pct, r)
				}
			}
			for _, l := range prof.Lines {
				if r := rows[l.Symbol]; !r.HasMeasured || r.Measured != round2(prof.Share(l.Symbol)) {
					t.Errorf("%s %s: %s measured %.2f%%, the row has %+v", ex.Name, c, l.Symbol, prof.Share(l.Symbol), r)
				}
			}
		}
	}
	if predicted < 8 {
		t.Errorf("only %d predictions over the shipped profiles", predicted)
	}
}

func parseRate(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// TestWhatIf_ExampleFillsTheFormWithAChangeThatApplies: each example's
// one-click form predicts (the first change Predict accepts for it), and
// a paste of one's own that an example replaced is kept and restored.
func TestWhatIf_ExampleFillsTheFormWithAChangeThatApplies(t *testing.T) {
	for _, ex := range WhatIfExamples() {
		in, err := WhatIfLoadExample(ex.Name, WhatIfInput{})
		if err != nil {
			t.Fatal(err)
		}
		v := WhatIf(in)
		if v.Err != nil || v.Pred == nil {
			t.Errorf("%s: the example's form (change %s) does not predict: %+v", ex.Name, in.Change, v.Err)
		}
		if in.Rate != ex.Rate || in.Unit != ex.Unit || v.Example != ex.Name {
			t.Errorf("%s: form %+v", ex.Name, in)
		}
	}
	mine := "  40.00%  [kernel]  [k] page_pool_release_page\n  20.00%  [kernel]  [k] get_page_from_freelist\n"
	in, _ := WhatIfLoadExample("mvneta-v1-before", WhatIfInput{Text: mine, Rate: "300", Unit: "kpps", Change: "bulk"})
	if in.Previous != mine {
		t.Fatalf("the replaced paste is not kept: %+v", in)
	}
	in2, _ := WhatIfLoadExample("mvpp2-v1-before", in) // an example replacing an example keeps the paste
	if in2.Previous != mine {
		t.Fatalf("a second example lost the paste: %+v", in2)
	}
	if back := WhatIfRestore(in2); back.Text != mine || back.Previous != "" {
		t.Errorf("restore: %+v", back)
	}
}

// TestWhatIf_BadPasteNamesTheLineAndKeepsTheText: each unreadable listing
// gives the line number, the line as pasted and what was expected, on the
// text field, and the view keeps the text as it was.
func TestWhatIf_BadPasteNamesTheLineAndKeepsTheText(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		field, msg string
	}{
		{"not a listing", "# perf top\n  30.00%  [kernel]  [k] mvpp2_rx\nhello world\n", 3, "text", `line 3: want a share like "7.36%" first, got "hello world"`},
		{"a bad share", "  abc%  [kernel] [k] x\n", 1, "text", `line 1: "abc%" is not a share from 0% to 100%`},
		{"two symbols", "\n\n  5.00%  [kernel] [k] kfree_skb extra\n", 3, "text", "line 3: want one symbol after the share"},
		{"over 100%", "  60% [kernel] [k] a\n  50% [kernel] [k] b\n", 2, "text", "line 2: the shares add up to 110.00%, over 100%"},
		{"a NUL", "  5.00% [k] a\n x\x00y\n", 2, "text", "not text: a NUL byte at offset"},
		{"a header rate", "# rate: lots kpps\n  5.00% [k] a\n", 1, "text", `line 1: rate "lots kpps"`},
		{"an unknown header platform", "# driver: mvpp2  platform: vax11\n  5.00% [k] mvpp2_rx\n", 1, "text", "the listing's header names platform \"vax11\""},
		{"nothing", "   \n", 0, "text", "paste a perf top listing"},
		{"no lines", "# only a header\n", 0, "text", "no profile lines found"},
		{"a header kernel with no release", "# kernel: latest\n  30.00%  [kernel]  [k] mvpp2_rx\n", 1, "text", `kernel "latest" in the listing's header: no release in it`},
		{"a header driver the functions contradict", "# driver: mlx5\n  30.00%  [kernel]  [k] mvpp2_rx\n  5.00%  [kernel]  [k] napi_pp_put_page\n", 1, "text", "the listing's header names driver mlx5, but its driver functions are mvpp2's"},
	} {
		in := WhatIfInput{Text: tc.text, Rate: "100", Unit: "kpps", Change: "skb-recycle"}
		v := WhatIf(in)
		if v.Err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if v.Err.Line != tc.line || v.Err.Field != tc.field || !strings.Contains(v.Err.Msg, tc.msg) {
			t.Errorf("%s: %+v, want line %d field %s %q", tc.name, v.Err, tc.line, tc.field, tc.msg)
		}
		if tc.line > 0 && v.Err.LineText == "" {
			t.Errorf("%s: the line's text is not given", tc.name)
		}
		if v.Input.Text != tc.text || v.Pred != nil || v.JSON != "" {
			t.Errorf("%s: the view lost the text or kept a prediction", tc.name)
		}
	}
	_, mvpp2, _ := perf.ShippedProfile("mvpp2-v1-before")
	for _, tc := range []struct{ name, rate, unit, change, platform, field, msg string }{
		{"rate over the link, no flag in the page", "1e7", "kpps", "bulk", "", "rate", "rate 1e+07 kpps: more than platform macchiatobin's link"},
		{"rate text", "fast", "kpps", "bulk", "", "rate", `rate "fast": want a positive number`},
		{"rate zero", "0", "kpps", "bulk", "", "rate", "want a positive number"},
		{"rate beyond the link", "1e9", "kpps", "skb-recycle", "", "rate", "more than platform macchiatobin's link"},
		{"unit", "962", "gbps", "bulk", "", "unit", "accepted: kpps, pps, mbps"},
		{"change", "962", "kpps", "magic", "", "change", `change "magic"`},
		{"napi-direct on a driver without pp.napi", "962", "kpps", "napi-direct", "", "change", "napi-direct does not apply to mvpp2"},
		{"an era move of no era, quoted once", "962", "kpps", "era:9.9", "", "change", "change “move to era 9.9”: accepted"},
		{"an era move to the listing's own, as the select words it", "962", "kpps", "era:5.12", "", "change", "“move to era 5.12” is the listing's kernel already"},
		{"napi-direct on mlx5 before 6.4 offers the era move", "900", "kpps", "napi-direct", "", "change", "(the change “move to era 6.4” predicts it)"},
	} {
		text := mvpp2
		if strings.Contains(tc.name, "mlx5") {
			b, err := os.ReadFile("../../engine/perf/testdata/listings/mlx5-6.1-tcp.txt")
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		v := WhatIf(WhatIfInput{Text: text, Rate: tc.rate, Unit: tc.unit, Change: tc.change, Platform: tc.platform})
		if v.Err == nil || v.Err.Field != tc.field || !strings.Contains(v.Err.Msg, tc.msg) || v.Input.Text != text {
			t.Errorf("%s: %+v, want field %s %q", tc.name, v.Err, tc.field, tc.msg)
		}
		if v.Err != nil && (strings.Contains(v.Err.Msg, "--") || strings.Contains(v.Err.Msg, "era:")) {
			t.Errorf("%s: the page's message names a command-line flag: %q", tc.name, v.Err.Msg)
		}
	}
}

// TestWhatIf_ALinkToNoExampleSaysSo: profile=nope was dropped without a
// word (the page asked for a paste).
func TestWhatIf_ALinkToNoExampleSaysSo(t *testing.T) {
	in, ok := WhatIfFromQuery(url.Values{"profile": {"nope"}, "rate": {"1"}})
	v := WhatIf(in)
	if !ok || v.Err == nil || !strings.Contains(v.Err.Msg, `the link's profile "nope" is none of the examples (`) {
		t.Errorf("%v %+v", ok, v.Err)
	}
}

// TestWhatIf_URLAndStorage: an example is in the URL by name, a short
// paste as itself, a long one not at all; the storage keeps any paste;
// both read back to the same form.
func TestWhatIf_URLAndStorage(t *testing.T) {
	ex, _ := WhatIfLoadExample("mvpp2-v1-before", WhatIfInput{})
	q := WhatIfQuery(ex, whatIfShipped(ex.Text))
	if !strings.Contains(q, "profile=mvpp2-v1-before") || strings.Contains(q, "text=") {
		t.Errorf("an example's query: %s", q)
	}
	vals, _ := url.ParseQuery(q)
	back, ok := WhatIfFromQuery(vals)
	if !ok || back.Text != ex.Text || back.Rate != ex.Rate || back.Unit != ex.Unit || back.Change != ex.Change {
		t.Errorf("an example back from the URL: %+v", back)
	}
	short := WhatIfInput{Text: "  40.00%  [kernel]  [k] page_pool_release_page\n", Rate: "300", Unit: "kpps", Change: "bulk", Platform: "espressobin"}
	vals, _ = url.ParseQuery(WhatIfQuery(short, ""))
	if back, ok := WhatIfFromQuery(vals); !ok || back != short {
		t.Errorf("a short paste back from the URL: %+v", back)
	}
	long := short
	long.Text = strings.Repeat("  1.00%  [kernel]  [k] some_kernel_function_with_a_long_name\n", 40)
	if q := WhatIfQuery(long, ""); q != "" {
		t.Errorf("a long paste went into the URL (%d bytes)", len(q))
	}
	long.Previous = "mine"
	if back, ok := WhatIfLoad(WhatIfStored(long)); !ok || back != long {
		t.Errorf("the stored form back: %+v", back)
	}
	if _, ok := WhatIfLoad("{not json"); ok {
		t.Error("a broken stored value reads as a form")
	}
	if _, ok := WhatIfFromQuery(url.Values{"rate": {"3"}}); ok {
		t.Error("a query without a listing reads as a form")
	}
}

// FuzzWhatIf: whatever is pasted and typed, the view is made without a
// panic, the text is kept, and an error or a prediction (with its JSON)
// results, never both.
func FuzzWhatIf(f *testing.F) {
	_, mvpp2, _ := perf.ShippedProfile("mvpp2-v1-before")
	f.Add(mvpp2, "962", "kpps", "skb-recycle", "")
	f.Add(mvpp2, "962", "kpps", "bulk", "espressobin")
	f.Add("  5% x\n", "1e-300", "pps", "bulk", "")
	f.Add("# driver: mlx5\n 50%  [k] mlx5e_skb_from_cqe_mpwrq_linear\n", "100", "mbps", "napi-direct", "x86-server")
	f.Add("\ufeff# rate: 3 kpps\n100% [k] cpu_idle\n", "3", "kpps", "skb-recycle", "")
	f.Add("   \x00", "", "", "", "vax")
	f.Fuzz(func(t *testing.T, text, rate, unit, change, platform string) {
		in := WhatIfInput{Text: text, Rate: rate, Unit: unit, Change: change, Platform: platform}
		v := WhatIf(in)
		if v.Input != in {
			t.Fatalf("the view changed the form")
		}
		if (v.Err == nil) == (v.Pred == nil) || (v.Pred != nil) != (v.JSON != "") {
			t.Fatalf("error %+v and prediction %v", v.Err, v.Pred != nil)
		}
	})
}

// TestWhatIf_MarksTheChangesAListingCannotTake: the change select marks
// what perf.Applies refuses for the listing — "already" for a change its
// kernel has, "✕" for one that does not apply to its driver — and leaves
// the others bare.
func TestWhatIf_MarksTheChangesAListingCannotTake(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../engine/perf/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		file, rate string
		want       map[string]string
	}{
		// era moves: an era before the listing's kernel cannot be moved to
		// (✕), one its names fit may be its kernel (already)
		{"mlx5-6.8-xdp-redirect-noheader.txt", "4900", map[string]string{"skb-recycle": "already", "bulk": "already", "napi-direct": "already", "pp-napi": "already",
			"era:5.12": "✕", "era:5.13": "✕", "era:5.14": "✕", "era:5.15": "✕", "era:6.1": "✕", "era:6.4": "✕", "era:6.6": "✕", "era:6.8": "already", "era:6.9": "already", "era:6.10": "already"}},
		{"mvpp2-6.6-drop-noheader.txt", "900", map[string]string{"skb-recycle": "already", "bulk": "already", "napi-direct": "✕",
			"era:5.12": "✕", "era:5.13": "✕", "era:5.14": "✕", "era:5.15": "✕", "era:6.1": "✕", "era:6.4": "✕", "era:6.6": "already"}},
	} {
		v := WhatIf(WhatIfInput{Text: read(tc.file), Rate: tc.rate, Unit: "kpps", Change: "pp-napi"})
		if !reflect.DeepEqual(v.ChangeMarks, tc.want) {
			t.Errorf("%s: marks %v, want %v", tc.file, v.ChangeMarks, tc.want)
		}
	}
}
