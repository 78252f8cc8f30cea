package newsfeed

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

// plainText returns s as one line of plain text: HTML tags removed (the
// text inside script and style elements too), character references
// decoded, control characters dropped and runs of white space collapsed to
// one space.
func plainText(s string) string {
	if strings.ContainsRune(s, '<') {
		s = stripTags(s)
	} else if strings.ContainsRune(s, '&') {
		s = html.UnescapeString(s)
	}
	return collapseSpace(s)
}

// stripTags returns the text of an HTML fragment.
func stripTags(s string) string {
	z := xhtml.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case xhtml.ErrorToken:
			return b.String()
		case xhtml.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case xhtml.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				skip++
			case "br", "p", "div", "li":
				b.WriteByte(' ')
			}
		case xhtml.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style":
				if skip > 0 {
					skip--
				}
			case "p", "div", "li":
				b.WriteByte(' ')
			}
		case xhtml.SelfClosingTagToken:
			b.WriteByte(' ')
		}
	}
}

// collapseSpace replaces every run of white space (including no-break
// spaces) with one space, drops other control and format characters and
// invalid UTF-8, and trims both ends.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r) || r == '\u00a0':
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// truncate returns s cut to at most n runes. A cut string ends at a word
// boundary when one lies in its second half, and ends with "…" (which counts
// in n).
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)[:n-1]
	cut := len(runes)
	for i := len(runes) - 1; i >= len(runes)/2; i-- {
		if runes[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(runes[:cut]), " ,;:-") + "…"
}
