package session

import (
	"bufio"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// embed=1 is the playground's key: it is parsed into the session, kept out
// of the config, carried by the state's embed link and left out of its full
// link.
func TestEmbed_TheFlagIsTheSessionsNotTheConfigs(t *testing.T) {
	s := New(query(t, "v=1&scenario=drop&rx_descs=16&pool_size=32&node_pages=2048&step=12&embed=1"), nil)
	if !s.Embedded() {
		t.Fatal("embed=1 did not make an embed")
	}
	if len(s.banner) != 0 {
		t.Errorf("banner %v: embed=1 must not be a config error", s.banner)
	}
	if _, ok := s.Config().Values()[EmbedKey]; ok || lab.IsConfigKey(EmbedKey) {
		t.Error("embed reached the config")
	}
	v := verify(t, s, "embed")
	if !v.Embed.On {
		t.Error("view: not an embed")
	}
	q := query(t, v.Link)
	if q.Get(EmbedKey) != "1" || q.Get("step") != "12" {
		t.Errorf("the embed's own link %q: want embed=1 and step=12", v.Link)
	}
	full := query(t, v.Embed.Full)
	if full.Has(EmbedKey) {
		t.Errorf("the full link %q carries embed", v.Embed.Full)
	}
	if eq := query(t, v.Embed.Query); eq.Get(EmbedKey) != "1" {
		t.Errorf("the embed query %q", v.Embed.Query)
	}
	// The full link opens the same state in the full playground.
	f := New(full, nil)
	if f.Embedded() || f.Lab().Ops() != 12 || f.Config().Values().Encode() != s.Config().Values().Encode() {
		t.Errorf("the full link opens op %d of %s (embed %v), want op 12 of %s", f.Lab().Ops(), f.Config().Values().Encode(), f.Embedded(), s.Config().Values().Encode())
	}
	if fv := f.View(); fv.Embed.On || fv.Embed.Query != v.Embed.Query || fv.Embed.Full != v.Embed.Full {
		t.Errorf("the full page's embed links %q / %q, the embed's %q / %q", fv.Embed.Query, fv.Embed.Full, v.Embed.Query, v.Embed.Full)
	}
	for _, tc := range []struct {
		val    string
		embed  bool
		notice bool
	}{{"1", true, false}, {"true", true, false}, {"0", false, false}, {"no", false, false}, {"maybe", false, true}} {
		s := New(url.Values{"v": {"1"}, "scenario": {"drop"}, EmbedKey: {tc.val}}, nil)
		said := len(s.banner) > 0 && strings.Contains(s.banner[0].Text, "embed")
		if s.Embedded() != tc.embed || said != tc.notice {
			t.Errorf("embed=%s: embedded %v (want %v), notice %v (want %v): %v", tc.val, s.Embedded(), tc.embed, said, tc.notice, s.banner)
		}
	}
}

// The snippet is an <iframe> of the state's embed link, titled, sized and
// escaped, with the script that sizes it from its height messages.
func TestEmbed_TheSnippetEmbedsTheState(t *testing.T) {
	s := New(query(t, "v=1&scenario=tcp-stream&era=6.4&rx_descs=16&pool_size=32&node_pages=2048&step=137"), nil)
	v := s.View()
	got := EmbedSnippet("https://docs.example/pplab/", v.Embed)
	want := `<iframe src="https://docs.example/pplab/?embed=1&amp;era=6.4&amp;scenario=tcp-stream&amp;step=137&amp;v=2" title="pplab: tcp-stream on bnxt, kernel 6.4, op 137" width="100%" height="` +
		strconv.Itoa(v.Embed.Height) + `" style="border:0;max-width:100%" loading="lazy" data-pplab></iframe>` + "\n" +
		`<script>addEventListener("message",function(e){if(e.origin!=="https://docs.example"||!e.data||e.data.type!=="pplab:height")return;document.querySelectorAll("iframe[data-pplab]").forEach(function(f){if(f.contentWindow===e.source)f.style.height=e.data.height+"px"})})</script>`
	if got != want {
		t.Errorf("snippet\n%s\nwant\n%s", got, want)
	}
	if v.Embed.Height < 360 || v.Embed.Height > 2400 {
		t.Errorf("height %d", v.Embed.Height)
	}
	// A title that needs escaping stays inside its attribute.
	e := v.Embed
	e.Title = `a "quoted" <b>title</b> & more`
	if sn := EmbedSnippet("http://127.0.0.1:8000/", e); !strings.Contains(sn, `title="a &#34;quoted&#34; &lt;b&gt;title&lt;/b&gt; &amp; more"`) {
		t.Errorf("escaped title: %s", sn)
	}
}

// Embed URLs written in the v=1 form keep opening their state
// (testdata/embed-v1.txt).
func TestEmbed_OldVersionURLsKeepTheirState(t *testing.T) {
	f, err := os.Open("testdata/embed-v1.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		raw, state, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("line %q: want QUERY => STATE", line)
		}
		w := strings.Fields(state)
		if len(w) < 4 {
			t.Fatalf("state %q: want scenario driver era step", state)
		}
		t.Run(w[0]+"@"+w[3], func(t *testing.T) {
			s := New(query(t, raw), nil)
			if len(s.banner) != 0 {
				t.Errorf("notices: %v", s.banner)
			}
			cfg := s.Config()
			step, _ := strconv.ParseUint(w[3], 10, 64)
			driver := w[1]
			if driver == "-" {
				driver = ""
			}
			if !s.Embedded() || cfg.Scenario != w[0] || s.driver() != driver || cfgEra(cfg) != w[2] || s.Lab().Ops() != step {
				t.Errorf("opened %s on %q in %s at op %d (embed %v), want %v", cfg.Scenario, s.driver(), cfgEra(cfg), s.Lab().Ops(), s.Embedded(), w[:4])
			}
			var broken []string
			want := sim.DefaultKnobs()
			sc, _ := lab.ScenarioByName(cfg.Scenario)
			for k, v := range sc.Knobs {
				want[k] = v
			}
			for _, kv := range w[4:] {
				name, val, _ := strings.Cut(kv, "=")
				if name == "break" {
					broken = append(broken, val)
					continue
				}
				k, ok := sim.KnobByName(name)
				if !ok {
					t.Fatalf("testdata names knob %q, which this pplab does not have", name)
				}
				want[k], _ = strconv.ParseInt(val, 10, 64)
			}
			got, err := cfg.EffectiveKnobs()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				for k := sim.Knob(0); k < sim.NumKnobs; k++ {
					if got[k] != want[k] {
						t.Errorf("knob %s = %d, want %d", k, got[k], want[k])
					}
				}
			}
			if !slices.Equal(cfg.Break, broken) {
				t.Errorf("broken rules %q, want %q", cfg.Break, broken)
			}
		})
	}
	if n < 5 {
		t.Errorf("%d URLs in testdata/embed-v1.txt", n)
	}
}
