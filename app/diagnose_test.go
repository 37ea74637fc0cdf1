package app

import (
	"os"
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

// TestDiagnosePage_AnswerFirst: the page shows, beside the text box, the
// format read, what the paste says of its source, the best candidates with
// their playground links and what to look at next; the lines as read and
// the counter glossary (folded in a <details>) come below.
func TestDiagnosePage_AnswerFirst(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/ethtool_mlx5_gro.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := ga.HTMLString(p.Render())
	last := -1
	for _, w := range []string{`id="diag-text"`, `id="diag-answer"`, `id="diag-format"`, `id="diag-source"`, `class="diag-match"`, `tcp-stream on mlx5`, `class="btn open-playground"`, `What to look at next`, `id="diag-read"`, `<details id="diag-glossary"`, `class="diag-counter"`} {
		i := strings.Index(html, w)
		if i < 0 {
			t.Fatalf("no %s in the page", w)
		}
		if i < last {
			t.Errorf("%s comes before what should precede it", w)
		}
		last = i
	}
}

// TestDiagnosePage_NonePossibleIsSaid: a paste that contradicts itself (a
// ynl dump from a 6.1 kernel) says so in the answer, before any run.
func TestDiagnosePage_NonePossibleIsSaid(t *testing.T) {
	b, err := os.ReadFile("../engine/diagnose/testdata/pastes/ynl-on-6.1-impossible.txt")
	if err != nil {
		t.Fatal(err)
	}
	d := session.NewDiagnosis(string(b), "", nil)
	for d.Work(0) {
	}
	p := &DiagnosePage{d: d, view: d.View()}
	html := ga.HTMLString(p.Render())
	i, j := strings.Index(html, `id="diag-none-possible"`), strings.Index(html, `class="diag-match"`)
	if i < 0 || j < 0 || i > j || !strings.Contains(html, "no modelled run can have printed this paste") {
		t.Errorf("none-possible at %d, the first match at %d", i, j)
	}
}
