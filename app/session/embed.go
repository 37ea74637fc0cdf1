package session

import (
	"fmt"
	"html"
	"net/url"
	"strings"
)

// Embed mode: ?embed=1 shows only the figure — the machine at the state,
// the step controls and the narration line — for an <iframe> in docs and
// courses, with an "open in pplab" link to the same state in the full
// playground. The embed tells its host page how tall it is by
// postMessage (HeightMessage). The flag is the playground's, not the
// config's: it never reaches lab.ParseConfig, and the links of a state
// carry it or not (EmbedView.Full, EmbedView.Query).

// EmbedKey is the URL key of embed mode.
const EmbedKey = "embed"

// HeightMessage is the type of the message an embedded pplab posts to its
// parent window on load and whenever its height changes:
//
//	{type: "pplab:height", height: N}
//
// N is the page's content height in CSS pixels (an integer). The message
// is posted with target origin "*" (it says nothing but a height); a host
// checks event.origin against the pplab it embeds and event.source
// against the iframe's contentWindow.
const HeightMessage = "pplab:height"

// parseEmbed reads embed's value: 1/true/yes is the embed, 0/false/no the
// full page; anything else is the full page and not ok.
func parseEmbed(s string) (embed, ok bool) {
	switch strings.ToLower(s) {
	case "1", "true", "yes":
		return true, true
	case "0", "false", "no":
		return false, true
	}
	return false, false
}

// EmbedView is embed mode as the page shows it, and the links of the
// state with and without it.
type EmbedView struct {
	On     bool   // the page is the embed
	Full   string // the URL query of this state in the full playground (no embed key)
	Query  string // the URL query of this state as an embed (embed=1)
	Title  string // what the figure shows: the iframe's title
	Height int    // the iframe's height until the embed reports its own, in px
}

// Embedded reports whether the session is an embed (?embed=1).
func (s *Session) Embedded() bool { return s.embed }

// FullQuery is the URL query of the current state without embed: the full
// playground at the same state.
func (s *Session) FullQuery() url.Values {
	q := s.Query()
	q.Del(EmbedKey)
	return q
}

func (s *Session) embedView(v *View) {
	q := s.FullQuery()
	full := q.Encode()
	q.Set(EmbedKey, "1")
	v.Embed = EmbedView{On: s.embed, Full: full, Query: q.Encode(), Title: s.embedTitle(), Height: embedHeight(v)}
}

// embedTitle names what the embedded figure shows.
func (s *Session) embedTitle() string {
	what := s.snap.Scenario
	if d := s.driver(); d != "" {
		what += " on " + d
	}
	return fmt.Sprintf("pplab: %s, kernel %s, op %d", what, s.snap.Era, s.snap.Op)
}

// embedHeight estimates the embed's height in px at about 720 px wide:
// the controls and the narration line, then the machine's boxes (the
// drawn tiles, 16 to a row, and their captions). The embed reports its
// real height once loaded; this keeps the first paint close to it.
func embedHeight(v *View) int {
	// A row of tiles in the alloc cache; a ring's (its P/C or N/F marks
	// under it); a box's heading and notes; a row of skb cards.
	const top, cacheRow, ringRow, perBox, perCards = 300, 24, 34, 70, 70
	rows := func(n int) int { return (max(n, 1) + 15) / 16 }
	snap := &v.Machine.Snap
	h := top + perBox + 40 // the allocator box and the text equivalent's summary
	for _, p := range snap.Pools {
		h += perBox + 8*cacheRow + rows(min(len(p.Ring), 128))*ringRow
	}
	if snap.NIC != nil {
		h += perBox + rows(min(len(snap.NIC.Descs), 128))*ringRow
	}
	groups := map[string]int{}
	for _, k := range snap.SKBs {
		groups[k.Where]++
	}
	h += perBox
	for _, n := range groups {
		h += 24 + perCards*((min(n, 12)+2)/3)
	}
	h += perBox // elsewhere
	return min(max(h, 360), 2400)
}

// EmbedSnippet is the HTML a docs page pastes to embed the state: an
// <iframe> whose src is page (the playground's URL, without a query) with
// the embed query, titled and sized, and a script that sizes it from the
// embed's HeightMessage (optional: without it the iframe keeps its
// height and scrolls).
func EmbedSnippet(page string, e EmbedView) string {
	u, err := url.Parse(page)
	if err != nil {
		u = &url.URL{Path: "/"}
	}
	u.RawQuery, u.Fragment = e.Query, ""
	origin := u.Scheme + "://" + u.Host
	attr := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<iframe src="%s" title="%s" width="100%%" height="%d" style="border:0;max-width:100%%" loading="lazy" data-pplab></iframe>`,
		attr(u.String()), attr(e.Title), e.Height)
	b.WriteString("\n")
	fmt.Fprintf(&b, `<script>addEventListener("message",function(e){if(e.origin!==%q||!e.data||e.data.type!==%q)return;document.querySelectorAll("iframe[data-pplab]").forEach(function(f){if(f.contentWindow===e.source)f.style.height=e.data.height+"px"})})</script>`,
		origin, HeightMessage)
	return b.String()
}
