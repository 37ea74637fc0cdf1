package tourprint

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"pplab/app/tour"
)

// maxSize is a picture's budget: each is a file the printed page loads.
const maxSize = 40 << 10

// parsed is what a picture says, read back as XML.
type parsed struct {
	title string
	texts []string            // every <text>'s words, in order
	byCls map[string][]string // the <text>s of each class
	class map[string]int
}

func parse(t *testing.T, svg []byte) parsed {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	p := parsed{class: map[string]int{}, byCls: map[string][]string{}}
	var stack []string
	var text strings.Builder
	cls := ""
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = x.Name.Space + " " + x.Name.Local
			}
			stack = append(stack, x.Name.Local)
			for _, a := range x.Attr {
				if a.Name.Local == "class" {
					for _, c := range strings.Fields(a.Value) {
						p.class[c]++
					}
				}
			}
			if x.Name.Local == "text" {
				text.Reset()
				cls = ""
				for _, a := range x.Attr {
					if a.Name.Local == "class" {
						cls = a.Value
					}
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if x.Name.Local == "text" {
				p.texts = append(p.texts, text.String())
				p.byCls[cls] = append(p.byCls[cls], text.String())
			}
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			switch stack[len(stack)-1] {
			case "title":
				p.title += string(x)
			case "text", "tspan":
				text.Write(x)
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Fatalf("the root element is %q, want an svg element", root)
	}
	return p
}

// TestSVG_EveryPresetDrawsItsStateAndSubject: every preset of every
// chapter draws (the engine's run of its query, as the live figure), as
// well-formed SVG under the size budget; its title and first lines are
// the caption, a line names the subject (its pfn, its skb or its
// structure) and the subject is marked in the drawing (a page's tile
// framed, or the skb's or the structure's frame); the narration's
// headline is the step's; the tiles carry their place's colour class.
func TestSVG_EveryPresetDrawsItsStateAndSubject(t *testing.T) {
	total, largest, name := 0, 0, ""
	for _, c := range tour.Chapters() {
		for _, pr := range c.Presets {
			t.Run(c.Slug+"/"+pr.ID, func(t *testing.T) {
				f, err := New(c, pr)
				if err != nil {
					t.Fatal(err)
				}
				svg := f.SVG()
				total += len(svg)
				if len(svg) > largest {
					largest, name = len(svg), c.Slug+"/"+pr.ID
				}
				if len(svg) > maxSize {
					t.Errorf("%d bytes, over the %d-byte budget", len(svg), maxSize)
				}
				p := parse(t, svg)
				if p.title != pr.Caption {
					t.Errorf("title %q, want the caption %q", p.title, pr.Caption)
				}
				all := strings.Join(p.texts, " ")
				if got := strings.Join(p.byCls["cap"], " "); got != strings.Join(strings.Fields(pr.Caption), " ") {
					t.Errorf("the caption drawn is %q, want %q", got, pr.Caption)
				}
				sub := f.Subject
				if got, want := strings.Join(p.byCls["sub"], " "), "The subject: "+sub.Words(); got != want {
					t.Errorf("the subject's line is %q, want %q", got, want)
				}
				switch {
				case sub.PFN >= 0:
					if !strings.Contains(all, fmt.Sprintf("pfn %#x", sub.PFN)) {
						t.Errorf("the subject's pfn %#x is not named", sub.PFN)
					}
					if p.class["sj"] == 0 {
						t.Errorf("the subject pfn %#x (in %s) is drawn nowhere", sub.PFN, sub.Place)
					}
				case sub.SKB != 0:
					if !strings.Contains(all, fmt.Sprintf("skb#%d", sub.SKB)) || p.class["bxs"] == 0 {
						t.Errorf("the subject skb#%d is not named and framed", sub.SKB)
					}
				default:
					if p.class["bxs"] == 0 {
						t.Errorf("the subject structure %s is not framed", sub.Place)
					}
				}
				_, step, _ := pr.Config()
				if !strings.Contains(all, fmt.Sprintf("op %d on cpu", step)) {
					t.Errorf("no narration of op %d: %q", step, clip(all))
				}
				tiles := 0
				for cl, n := range p.class {
					if strings.HasPrefix(cl, "p-") {
						tiles += n
					}
				}
				if tiles < 10 {
					t.Errorf("%d coloured tiles: the machine is not drawn", tiles)
				}
			})
		}
	}
	t.Logf("%d bytes in all; the largest %s, %d bytes", total, name, largest)
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// TestColours_AreThePlaygrounds: the tiles' fills are the playground's
// light-theme place colours (web/app.css's :root variables through its
// .place-* rules), so that a printed figure reads with the live one's
// legend.
func TestColours_AreThePlaygrounds(t *testing.T) {
	b, err := os.ReadFile("../../web/app.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	root := regexp.MustCompile(`(?s):root\s*\{(.*?)\}`).FindStringSubmatch(css)
	if root == nil {
		t.Fatal("web/app.css has no :root block")
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9A-Fa-f]{6})`).FindAllStringSubmatch(root[1], -1) {
		vars[m[1]] = strings.ToLower(m[2])
	}
	for _, m := range regexp.MustCompile(`\.place-([a-z-]+)\s*\{\s*background:\s*var\(--([a-z]+)\)`).FindAllStringSubmatch(css, -1) {
		place, v := m[1], m[2]
		want, ok := vars[v]
		if !ok {
			t.Errorf(".place-%s: var(--%s) is not in :root", place, v)
			continue
		}
		if got := strings.ToLower(placeFill[place]); got != want {
			t.Errorf("place %s: the figure fills %q, the playground %q (--%s)", place, got, want, v)
		}
	}
	if len(placeFill) < 10 {
		t.Errorf("only %d place colours", len(placeFill))
	}
}
