package app

import (
	"html"
	"regexp"
	"strings"
	"testing"

	ga "github.com/maxence-charriere/go-app/v10/pkg/app"

	"pplab/app/session"
)

func replayHTML(t *testing.T, p *ReplayPage) string {
	t.Helper()
	out := ga.HTMLString(p.Render())
	if m := regexp.MustCompile(`\s(selected|checked|open|hidden|disabled)="false"`).FindString(out); m != "" {
		t.Errorf("a false boolean attribute: %s", m)
	}
	if strings.Contains(out, "render-error") {
		t.Fatalf("a render failed: %s", out)
	}
	return out
}

// inOrder checks that each of wants is in s, each after the one before.
func inOrder(t *testing.T, s string, wants ...string) {
	t.Helper()
	last := -1
	for _, w := range wants {
		i := strings.Index(s, w)
		if i < 0 {
			t.Fatalf("no %s in the page", w)
		}
		if i < last {
			t.Errorf("%s comes before what should precede it", w)
		}
		last = i
	}
}

// TestReplayPage_BeforeTheAppIsUp: the prerendered page offers the file
// input, the text box, the examples and the limits, and no replay.
func TestReplayPage_BeforeTheAppIsUp(t *testing.T) {
	out := replayHTML(t, &ReplayPage{})
	inOrder(t, out, `id="replay-file"`, `data-example="veth-6.18-capture"`, `recorded on a 6.18 machine`, `id="replay-text"`, `id="replay-limits"`, `1 000 000 lines`, `ppsim replay FILE`)
	if strings.Contains(out, `id="replay-step"`) || strings.Contains(out, `id="replay-msg"`) {
		t.Error("a replay before any capture")
	}
}

// TestReplayPage_TheCaptureAtItsEnd: the 6.18 capture at its last step:
// the step control, the pool (one page owned, its destroy waiting, one
// owned tile of 320), the chart, the findings, the summary as ppsim
// replay prints it, the limits.
func TestReplayPage_TheCaptureAtItsEnd(t *testing.T) {
	text, _ := session.ReplayExampleText("veth-6.18-capture")
	s := session.NewReplayState()
	s.Load("the example", text)
	s.Seek(s.Events())
	p := &ReplayPage{s: s, view: s.View()}
	out := replayHTML(t, p)
	inOrder(t, out, `id="replay-input"`, `id="replay-source"`, `id="replay-step"`, `id="replay-slider"`, `class="rp-line rp-cur"`,
		`id="replay-pool-1"`, `id="replay-pool-1-owned"`, `rp-destroy rp-waiting`, `destroy waiting`, `class="rp-tiles"`,
		`id="replay-chart"`, `id="replay-findings"`, `data-kind="destroy-stalled"`, `id="replay-summary"`, `id="replay-limits"`)
	if n := strings.Count(out, `rp-tile rp-owned`); n != 3 { // the tile and the legend's two
		t.Errorf("%d owned tiles (with the legend's two), want 3", n)
	}
	if n := strings.Count(out, `class="rp-tile rp-`); n != 320+5 {
		t.Errorf("%d tiles (with the legend's 5), want 325", n)
	}
	if !strings.Contains(out, html.EscapeString(s.Summary())) {
		t.Error("the summary is not ppsim replay's text")
	}
	if !regexp.MustCompile(`<dd[^>]*id="replay-pool-1-owned"[^>]*>1</dd>`).MatchString(out) {
		t.Error("pool 1 does not show 1 page owned")
	}
	if !regexp.MustCompile(`<button[^>]*(id="replay-next"[^>]*disabled|disabled[^>]*id="replay-next")`).MatchString(out) {
		t.Error("step forward is not disabled at the last step")
	}
}

// TestReplayPage_ARefusalSaysWhatIsRead: garbage gets the message (an
// alert) naming what the page reads; nothing else.
func TestReplayPage_ARefusalSaysWhatIsRead(t *testing.T) {
	s := session.NewReplayState()
	s.Load("the pasted text", "hello\nworld\n")
	out := replayHTML(t, &ReplayPage{s: s, view: s.View()})
	if !regexp.MustCompile(`<div[^>]*(id="replay-msg"[^>]*role="alert"|role="alert"[^>]*id="replay-msg")`).MatchString(out) {
		t.Error("the message is not an alert")
	}
	inOrder(t, out, `id="replay-msg"`, `The pasted text: `, `No page_pool tracepoint line in 2 lines`, html.EscapeString("The page reads text captures"))
	if strings.Contains(out, `id="replay-step"`) {
		t.Error("a step control without a capture")
	}
}
