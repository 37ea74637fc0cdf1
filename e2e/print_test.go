//go:build e2e

package e2e

import (
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"

	"pplab/app/tour"
	"pplab/app/tourprint"
)

// printed is one print of a page: its PDF, the text of each page
// (pdftotext) and each page as an image (pdftoppm at 60 dpi).
type printed struct {
	pdf   string
	pages []string
	pngs  []string
}

// printPDF prints the page as the browser's print does (A4, the
// default margins, no backgrounds) and reads the PDF back with poppler.
func (p *page) printPDF(name string) printed {
	p.t.Helper()
	for _, tool := range []string{"pdftoppm", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			p.t.Fatalf("%s is missing: install Debian's poppler-utils (make e2e does)", tool)
		}
	}
	b, err := chromedp.Run(p.ctx, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4)))
	if err != nil {
		p.t.Fatalf("printing to PDF: %v", err)
	}
	dir := p.t.TempDir()
	out := printed{pdf: filepath.Join(dir, name+".pdf")}
	if err := os.WriteFile(out.pdf, b, 0o644); err != nil {
		p.t.Fatal(err)
	}
	text, err := exec.Command("pdftotext", "-enc", "UTF-8", out.pdf, "-").Output()
	if err != nil {
		p.t.Fatalf("pdftotext: %v", err)
	}
	out.pages = strings.Split(strings.TrimSuffix(string(text), "\f"), "\f")
	if o, err := exec.Command("pdftoppm", "-r", "60", "-png", out.pdf, filepath.Join(dir, name)).CombinedOutput(); err != nil {
		p.t.Fatalf("pdftoppm: %v\n%s", err, o)
	}
	for i := range out.pages {
		// pdftoppm numbers the pages with as many digits as the last needs.
		png := filepath.Join(dir, fmt.Sprintf("%s-%0*d.png", name, len(fmt.Sprint(len(out.pages))), i+1))
		if _, err := os.Stat(png); err != nil {
			p.t.Fatalf("pdftoppm wrote no page %d: %v", i+1, err)
		}
		out.pngs = append(out.pngs, png)
	}
	if shots := os.Getenv("PPLAB_SHOTS"); shots != "" {
		for _, f := range append([]string{out.pdf}, out.pngs...) {
			b, err := os.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(shots, "print-"+filepath.Base(f)), b, 0o644)
			}
			if err != nil {
				p.t.Fatal(err)
			}
		}
	}
	return out
}

// waitPrintFigures waits for the n print figures' pictures to load.
func (p *page) waitPrintFigures(n int) {
	p.t.Helper()
	cond := fmt.Sprintf(`(() => { const im = [...document.querySelectorAll('figure.print-fig img')];
		return im.length === %d && im.every(i => i.complete && i.naturalWidth > 0); })()`, n)
	if err := p.pollNavigated(cond, 60*time.Second); err != nil {
		var got []string
		p.eval(`[...document.querySelectorAll('figure.print-fig img')].map(i => i.getAttribute('src') + ' complete=' + i.complete + ' w=' + i.naturalWidth)`, &got)
		p.t.Fatalf("the %d print figures did not load: %v (%q)", n, err, got)
	}
}

// squeeze drops every space (a printed line breaks where the page's
// width says) and undoes the PDF's ligatures.
func squeeze(s string) string {
	// pdftotext joins a word the line broke after its hyphen ("stats-" /
	// "enabled" comes out "statsenabled"): hyphens are not compared.
	s = strings.NewReplacer("ﬁ", "fi", "ﬂ", "fl", "ﬀ", "ff", "ﬃ", "ffi", "ﬄ", "ffl", "\u00ad", "", "-", "", "\u2010", "").Replace(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// paraText is a paragraph's words as the page shows them.
func paraText(in []tour.Inline) string {
	var b strings.Builder
	for _, x := range in {
		b.WriteString(strings.ReplaceAll(x.Text, "`", "")) // a link's code spans
	}
	return b.String()
}

// placeColours are the tile colours the pictures print in (the
// playground's place colours), which nothing else on a printed chapter
// uses.
func placeColours(t *testing.T) [][3]uint8 {
	var out [][3]uint8
	for _, place := range []string{"cache", "ring", "nic-ring", "skb", "socket", "tx-ring"} {
		hex, ok := tourprint.PlaceFill(place)
		var c [3]uint8
		if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &c[0], &c[1], &c[2]); !ok || err != nil {
			t.Fatalf("no colour for %s: %q %v", place, hex, err)
		}
		out = append(out, c)
	}
	return out
}

// colourPixels counts the pixels of png within a small distance of one of
// colours.
func colourPixels(t *testing.T, file string, colours [][3]uint8) int {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d > -14 && d < 14 }
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for _, c := range colours {
				if near(r, c[0]) && near(g, c[1]) && near(b, c[2]) {
					n++
					break
				}
			}
		}
	}
	return n
}

// TestPrint_AChapterPrintsItsProseWithStaticFigures: a chapter printed
// (Page.printToPDF, as the browser's print) is its prose in order, each
// preset's static picture (app/tourprint, drawn at the site's build) and
// caption after the paragraph that links it, and nothing of the live
// figure, its buttons, the navigation or the loader; the pictures print
// (the pages that carry a caption have the tiles' colours, the others
// none). The prerendered page (app.wasm held back) prints the same as the
// mounted one. Every chapter's figures exist in the site natively: wasm's
// TestGenerate_EveryPrintFigureIsInTheSite; what each draws:
// app/tourprint's TestSVG_EveryPresetDrawsItsStateAndSubject.
func TestPrint_AChapterPrintsItsProseWithStaticFigures(t *testing.T) {
	t.Parallel()
	c := tour.Chapters()[0]
	type fig struct {
		para    int
		caption string
	}
	var figs []fig
	seen := map[string]bool{}
	for i, para := range c.Paras {
		for _, in := range tour.MustParse(para, c.Era) {
			if pr, ok := c.Preset(in.Preset); in.Kind == tour.KindPreset && ok && !seen[pr.ID] {
				seen[pr.ID] = true
				figs = append(figs, fig{i, pr.Caption})
			}
		}
	}
	p := newPage(t, 1280, 800)
	release := p.holdWasm()
	p.openHeld(rootURL+strings.TrimPrefix(c.Path(), "/"), "tour-title")
	p.waitPrintFigures(len(figs))
	var up bool
	p.eval(`window.__pplabTour !== undefined`, &up)
	if up {
		t.Fatal("the tour was up with app.wasm held back: the first print is not the prerendered page's")
	}
	pre := p.printPDF("prerendered")
	release()
	p.waitTour(c.Slug, -1)
	p.waitPrintFigures(len(figs))
	p.shot("print-chapter-screen")
	mounted := p.printPDF("mounted")

	all := squeeze(strings.Join(mounted.pages, ""))
	// The prose in order, each preset's caption after its paragraph and
	// before the next.
	at := 0
	for i, para := range c.Paras {
		want := squeeze(paraText(tour.MustParse(para, c.Era)))
		j := strings.Index(all[at:], want)
		if j < 0 {
			k := 0
			for k < len(want) && strings.Contains(all[at:], want[:k+1]) {
				k++
			}
			t.Fatalf("paragraph %d is not printed after the one before; it is printed up to %q, then not %q", i+1, want[max(0, k-60):k], want[k:min(len(want), k+60)])
		}
		at += j + len(want)
		next := len(all)
		if i+1 < len(c.Paras) {
			if k := strings.Index(all[at:], squeeze(paraText(tour.MustParse(c.Paras[i+1], c.Era)))); k >= 0 {
				next = at + k
			}
		}
		for _, f := range figs {
			if f.para == i && !strings.Contains(all[at:next], squeeze(f.caption)) {
				t.Errorf("the caption %q is not printed after paragraph %d", f.caption, i+1)
			}
		}
	}
	for _, gone := range []string{"step ▶", "◀ back", "packet ▶▶", "try it in the playground", "The figure:", "skip to the chapter", "Loading the", "the page inspector"} {
		if strings.Contains(all, squeeze(gone)) {
			t.Errorf("the print shows %q (the live figure, the navigation or the loader)", gone)
		}
	}
	// The pictures printed: the pages with a caption have the tiles'
	// colours; the others none (nothing else is printed in them).
	colours := placeColours(t)
	var counts []int
	for i, pg := range mounted.pages {
		n := colourPixels(t, mounted.pngs[i], colours)
		counts = append(counts, n)
		figsHere := 0
		for _, f := range figs {
			if strings.Contains(squeeze(pg), squeeze(f.caption)) {
				figsHere++
			}
		}
		switch {
		case figsHere > 0 && n < 60*figsHere:
			t.Errorf("page %d has %d figure(s) but %d pixels of the tiles' colours: the pictures did not print", i+1, figsHere, n)
		case figsHere == 0 && n > 20:
			t.Errorf("page %d has no figure but %d pixels of the tiles' colours", i+1, n)
		}
	}
	t.Logf("%d pages, %d figures; pixels of the tiles' colours per page at 60 dpi: %v", len(mounted.pages), len(figs), counts)
	// The prerendered page prints the same.
	if len(pre.pages) != len(mounted.pages) || squeeze(strings.Join(pre.pages, "")) != all {
		t.Errorf("the prerendered page prints %d pages, the mounted %d, or other text:\nprerendered %q\nmounted     %q", len(pre.pages), len(mounted.pages), clipText(strings.Join(pre.pages, " "), 600), clipText(strings.Join(mounted.pages, " "), 600))
	}
	for i := range min(len(pre.pngs), len(mounted.pngs)) {
		if a, b := colourPixels(t, pre.pngs[i], colours), counts[i]; a != b {
			t.Errorf("page %d: %d pixels of the tiles' colours printed from the prerendered page, %d from the mounted one", i+1, a, b)
		}
	}
	p.noErrors()
}
