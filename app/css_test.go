package app

import (
	"os"
	"strings"
	"testing"
)

// TestCSS_BlocksClose: every block of web/app.css closes where it opened.
// A merge that appends two blocks at the file's end can drop a media
// query's closing brace; the browser then silently ignores everything
// after it (a whole page unstyled, which no layout assertion noticed).
func TestCSS_BlocksClose(t *testing.T) {
	b, err := os.ReadFile("../web/app.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	depth, line, openedAt := 0, 1, []int{}
	for i := 0; i < len(css); i++ {
		switch c := css[i]; {
		case c == '\n':
			line++
		case strings.HasPrefix(css[i:], "/*"):
			end := strings.Index(css[i+2:], "*/")
			if end < 0 {
				t.Fatalf("web/app.css:%d: a comment that never ends", line)
			}
			line += strings.Count(css[i:i+2+end], "\n")
			i += end + 3
		case c == '"' || c == '\'':
			end := strings.IndexByte(css[i+1:], c)
			if end < 0 {
				t.Fatalf("web/app.css:%d: a string that never ends", line)
			}
			i += end + 1
		case c == '{':
			depth++
			openedAt = append(openedAt, line)
		case c == '}':
			if depth == 0 {
				t.Fatalf("web/app.css:%d: a } that closes nothing", line)
			}
			depth--
			openedAt = openedAt[:len(openedAt)-1]
		}
	}
	if depth != 0 {
		t.Fatalf("web/app.css: %d block(s) never close (opened at lines %v)", depth, openedAt)
	}
}
