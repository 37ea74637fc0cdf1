package session

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"pplab/engine/lab"
	"pplab/engine/sim"
)

// The URL form of a session: the config's Values (lab.Config.Values, the
// versioned form v=1) plus the playground's own keys: step (the operation
// shown), cmp (the comparison run), speed and embed (embed.go: the page
// shows only the figure).

// uiKeys are the URL keys that belong to the playground, not the config.
var uiKeys = []string{"step", "cmp", "speed", "show", EmbedKey}

// uiParams are the playground's keys of a query, parsed, and the rest (the
// config's part).
type uiParams struct {
	step    uint64
	cmp     string
	speed   int    // -1: not given (or bad)
	show    string // the rule the rules view's "show me" shows (rules.go)
	embed   bool
	notices []string
	rest    url.Values
}

// takeUIParams splits q into the playground's keys and the config's part;
// a bad value falls back with a notice naming it.
func takeUIParams(q url.Values) uiParams {
	u := uiParams{speed: -1, rest: url.Values{}}
	for k, v := range q {
		if !slices.Contains(uiKeys, k) {
			u.rest[k] = v
		}
	}
	one := func(key string) string {
		vals := q[key]
		if len(vals) > 1 {
			u.notices = append(u.notices, dupNotice(key, vals))
		}
		if len(vals) == 0 {
			return ""
		}
		return vals[len(vals)-1]
	}
	if s := one("step"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			u.notices = append(u.notices, fmt.Sprintf("step %q: want a non-negative integer — starting at op 0", clip(s)))
		} else {
			u.step = n
		}
	}
	u.cmp = one("cmp")
	u.show = one("show")
	if s := one("speed"); s != "" {
		u.speed = speedIndex(s)
		if u.speed < 0 {
			keys := make([]string, len(Speeds))
			for i, sp := range Speeds {
				keys[i] = sp.Key
			}
			u.notices = append(u.notices, fmt.Sprintf("speed %q: want one of %s — using the default", clip(s), strings.Join(keys, ", ")))
		}
	}
	if s := one(EmbedKey); s != "" {
		e, ok := parseEmbed(s)
		if !ok {
			u.notices = append(u.notices, fmt.Sprintf("embed %q: want 1 or 0 — showing the full playground", clip(s)))
		}
		u.embed = e
	}
	return u
}

// speedIndex is the index of the speed whose URL key is s, or whose index
// s is (links written before "max" had a name) (-1: none).
func speedIndex(s string) int {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < len(Speeds) {
		return n
	}
	for i, sp := range Speeds {
		if sp.Key == s {
			return i
		}
	}
	return -1
}

// dupNotice says that a URL key came more than once and which value was
// used (the last, as url.Values and lab.ParseConfig read it).
func dupNotice(key string, vals []string) string {
	return fmt.Sprintf("%s given %d times (%s): using the last one, %q", key, len(vals), clip(strings.Join(vals, ", ")), clip(vals[len(vals)-1]))
}

// urlFieldNotice is the notice for a bad config field of the URL: what is
// wrong (the value cut to a readable length) and what was used instead.
func urlFieldNotice(fe *sim.FieldError, q url.Values, c lab.Config) string {
	if vals := q[fe.Field]; len(vals) > 1 {
		return dupNotice(fe.Field, vals)
	}
	if fe.Field == "v" {
		return fmt.Sprintf("v=%s: %s — read as v=%s", clip(fe.Value), fe.Msg, lab.ConfigVersion)
	}
	if !lab.IsConfigKey(fe.Field) {
		// A key neither the config's nor the page's: every key a link
		// may carry, the nearest first.
		all := append(slices.Clone(uiKeys), lab.ConfigKeys()...)
		return fmt.Sprintf("%s=%s: unknown parameter%s — ignored (accepted: %s)", clip(fe.Field), clip(fe.Value), lab.DidYouMean(fe.Field, all), strings.Join(all, ", "))
	}
	return errText(fe) + " — " + openedAs(fe.Field, q, c)
}

// openedAs says what the link's config fields became in the config opened
// (c, after ParseConfig's repairs): "opened with era=6.12 instead" where a
// refused field moved another (devmem-rx in era 6.8 keeps the scenario and
// takes its first era), "using the default instead" for the field itself.
func openedAs(field string, q url.Values, c lab.Config) string {
	if c.Scenario == "" {
		return "using the default instead"
	}
	got := pinned(c).Values()
	var moved []string
	keys := slices.Sorted(maps.Keys(q))
	for _, k := range keys {
		if k == "v" || !lab.IsConfigKey(k) || len(q[k]) == 0 {
			continue
		}
		want := q[k][len(q[k])-1]
		g := got.Get(k)
		if k == "driver" && g == "" { // the scenario's own driver, by name
			if sc, err := lab.ScenarioByName(c.Scenario); err == nil {
				g = sc.DefaultDriver
			}
		}
		switch {
		case g == want:
		case g == "":
			moved = append(moved, k+" at its default")
		default:
			moved = append(moved, k+"="+g)
		}
	}
	if len(moved) == 0 {
		return "using the default instead"
	}
	return "opened with " + strings.Join(moved, ", ") + " instead"
}

// Query is the URL query of the current state: the config, the step, the
// comparison and the speed. Opening it gives the same state (the same
// counters, pages and violation log).
func (s *Session) Query() url.Values {
	v := s.cfg.Values()
	if s.lab != nil && s.lab.Ops() > 0 {
		v.Set("step", strconv.FormatUint(s.lab.Ops(), 10))
	}
	if s.cmpMode != "" {
		v.Set("cmp", s.cmpMode)
	}
	if s.speed != DefaultSpeed {
		v.Set("speed", Speeds[s.speed].Key)
	}
	if s.show != "" {
		v.Set("show", s.show)
	}
	if s.embed {
		v.Set(EmbedKey, "1")
	}
	return v
}

// Config is the config the run was built from.
func (s *Session) Config() lab.Config { return s.cfg }
