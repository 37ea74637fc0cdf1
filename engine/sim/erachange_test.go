package sim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestEraFields_CarryRuleAndCommit: every behaviour field of Era says what
// it decides (rule) and carries a commit tag whose hashes are 12 hex digits
// (or "-" / "" where the doc comment names an unpinned series), so a
// comparison of two eras can name the commit of each change.
func TestEraFields_CarryRuleAndCommit(t *testing.T) {
	hash := regexp.MustCompile(`^[0-9a-f]{12}$`)
	typ := reflect.TypeOf(Era{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if eraIdentity[f.Name] {
			continue
		}
		if f.Tag.Get("rule") == "" {
			t.Errorf("Era.%s: no rule tag", f.Name)
		}
		if len(f.Tag.Get("rule")) > 60 {
			t.Errorf("Era.%s: rule tag over 60 characters (it goes into 72-column text)", f.Name)
		}
		for _, tok := range strings.Fields(f.Tag.Get("commit")) {
			_, h, ok := strings.Cut(tok, "=")
			if !ok {
				h = tok
			}
			if h != "-" && !hash.MatchString(h) {
				t.Errorf("Era.%s: commit tag token %q: want a 12-digit hash or -", f.Name, tok)
			}
		}
	}
}

// TestEraChanges_NameTheNewerErasCommit: the changes between adjacent eras
// the comparison issue's cases use, with the commit of the newer value.
func TestEraChanges_NameTheNewerErasCommit(t *testing.T) {
	era := func(n string) *Era {
		e, err := EraByName(n)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for _, tc := range []struct {
		a, b   string
		field  string
		commit string
	}{
		{"6.18", "6.19", "ConsumeAlienDefers", "e20dfbad8aab"},
		{"6.18", "6.19", "SkbDeferMaxDefault", "b61785852ed0"},
		{"6.19", "6.18", "SkbDeferMaxDefault", "b61785852ed0"}, // the newer era's value, either order
		{"6.9", "6.10", "PoolNapiLocal", "4a96a4e807c3"},
		{"5.15", "6.8", "Coalesce", "f7dc3248dcfb"},
		{"7.1-rc1", "7.1", "PageType", "54cf41c969da"},
		{"7.1", "7.3", "BulkStatAfterUnlock", "bdea4980182e"},
	} {
		var got *EraChange
		chs := EraChanges(era(tc.a), era(tc.b))
		for i := range chs {
			if chs[i].Field == tc.field {
				got = &chs[i]
			}
		}
		if got == nil {
			t.Errorf("%s vs %s: no change of %s in %+v", tc.a, tc.b, tc.field, chs)
			continue
		}
		if got.Commit != tc.commit {
			t.Errorf("%s vs %s: %s's commit %q, want %q", tc.a, tc.b, tc.field, got.Commit, tc.commit)
		}
	}
	if chs := EraChanges(era("6.18"), era("6.18")); len(chs) != 0 {
		t.Errorf("an era against itself: %+v", chs)
	}
}

// TestEraWithField_ChangesOneBehaviour: WithField copies one field and
// leaves the rest (EraChanges between the copy and the source era is that
// one field).
func TestEraWithField_ChangesOneBehaviour(t *testing.T) {
	a, _ := EraByName("6.18")
	b, _ := EraByName("6.19")
	c := a.WithField("ConsumeAlienDefers", b)
	chs := EraChanges(a, c)
	if len(chs) != 1 || chs[0].Field != "ConsumeAlienDefers" {
		t.Errorf("6.18 with 6.19's ConsumeAlienDefers differs from 6.18 in %+v", chs)
	}
	if a.ConsumeAlienDefers {
		t.Error("WithField changed the era it copied")
	}
}

// TestEraFields_CommitTagsAreInTheirDocComments: a field's commit tag
// names only commits its doc comment cites (where the sources are said),
// so the tag cannot drift from what the field was read against.
func TestEraFields_CommitTagsAreInTheirDocComments(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "era.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Era" {
			return true
		}
		for _, fld := range ts.Type.(*ast.StructType).Fields.List {
			if fld.Tag == nil || len(fld.Names) == 0 {
				continue
			}
			tag := reflect.StructTag(strings.Trim(fld.Tag.Value, "`"))
			doc := fld.Doc.Text()
			for _, tok := range strings.Fields(tag.Get("commit")) {
				_, h, ok := strings.Cut(tok, "=")
				if !ok {
					h = tok
				}
				if h == "-" {
					continue
				}
				checked++
				if !strings.Contains(doc, h) {
					t.Errorf("Era.%s: commit %s is not cited in its doc comment", fld.Names[0].Name, h)
				}
			}
		}
		return false
	})
	if checked < 30 {
		t.Errorf("only %d commit hashes checked", checked)
	}
}
