package newsclass

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of an item's text.
type token struct {
	// raw is the word as written (apostrophes normalized to '); lower is
	// its lower-case form, what the lexicons match.
	raw, lower string
	// cashtag marks a word written with a leading '$' ($BTC); raw and
	// lower do not include the '$'.
	cashtag bool
	// stop marks a word followed by a sentence or clause end (. ! ? ; :),
	// or the end of a field: phrases and negations do not reach across it.
	stop bool
	// upper marks a word of two or more letters, all upper case.
	upper bool
	// capital marks a word whose first letter is upper case.
	capital bool
	// colon marks a word followed by ':' (NYSE: ADBE).
	colon bool
	// titleCase marks a word of a field written in Title Case, where a
	// capital says nothing about a word being a name.
	titleCase bool
}

// tokenizer splits text into words. Words are runs of letters, digits and
// apostrophes (’ is read as '); '&' joins letters (AT&T, S&P); a '$'
// directly before a letter makes a cashtag. Everything else separates
// words, so "all-time" is two words. It keeps its buffers between calls.
type tokenizer struct {
	toks []token
	buf  []byte // scratch for lower-casing
	// upperLetters and letters count the letters of the text, to tell a
	// headline in capitals (where every word looks like a ticker).
	upperLetters, letters int
}

// reset empties the tokenizer for a new item.
func (z *tokenizer) reset() {
	z.toks = z.toks[:0]
	z.upperLetters, z.letters = 0, 0
}

// add tokenizes one field of text and appends its words; the last word of
// the field ends a clause.
func (z *tokenizer) add(s string) {
	first := len(z.toks)
	start := -1 // byte offset in s of the current word, -1 = none
	cash := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		z.word(s[start:end], cash)
		start, cash = -1, false
	}
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
			if unicode.IsLetter(r) {
				z.letters++
				if unicode.IsUpper(r) {
					z.upperLetters++
				}
			}
		case (r == '\'' || r == '’' || r == '&') && start >= 0 && i+n < len(s) && isWordStart(s[i+n:]):
			// Inside a word: don't, AT&T.
		case r == '$' && start < 0 && i+1 < len(s) && isASCIILetter(s[i+1]):
			cash = true
			start = i + 1
		default:
			flush(i)
			if isStop(r) && len(z.toks) > first {
				z.toks[len(z.toks)-1].stop = true
				z.toks[len(z.toks)-1].colon = r == ':'
			}
		}
		i += n
	}
	flush(len(s))
	if len(z.toks) > first {
		z.toks[len(z.toks)-1].stop = true
	}
	if isTitleCase(z.toks[first:]) {
		for i := first; i < len(z.toks); i++ {
			z.toks[i].titleCase = true
		}
	}
}

// isTitleCase reports whether most words of four letters or more after
// the first one start with a capital: "Bitcoin Trades Near Record High".
func isTitleCase(toks []token) bool {
	long, capital := 0, 0
	for i := 1; i < len(toks); i++ {
		if len(toks[i].lower) >= 4 && !toks[i].cashtag {
			long++
			if toks[i].capital {
				capital++
			}
		}
	}
	return long >= 2 && capital*10 > long*6
}

// word appends one word. A possessive "'s" is dropped: "Tesla's" is the
// word "Tesla".
func (z *tokenizer) word(w string, cash bool) {
	if n := len(w); n > 2 && (w[n-2] == '\'' && (w[n-1] == 's' || w[n-1] == 'S')) {
		w = w[:n-2]
	} else if n > 4 && (w[n-1] == 's' || w[n-1] == 'S') && strings.HasSuffix(w[:n-1], "’") {
		w = w[:n-4]
	}
	t := token{raw: w, cashtag: cash}
	ascii := true
	upper, letters := 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if c >= 'A' && c <= 'Z' {
			upper++
			letters++
		} else if c >= 'a' && c <= 'z' {
			letters++
		}
	}
	if ascii {
		// Most words are lower case already and share the text's memory.
		if upper == 0 {
			t.lower = w
		} else {
			z.buf = z.buf[:0]
			for i := 0; i < len(w); i++ {
				c := w[i]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				z.buf = append(z.buf, c)
			}
			t.lower = string(z.buf)
		}
		t.upper = letters >= 2 && upper == letters
		t.capital = w[0] >= 'A' && w[0] <= 'Z'
	} else {
		var b []rune
		for _, r := range w {
			if r == '’' {
				r = '\''
			}
			b = append(b, unicode.ToLower(r))
		}
		t.lower = string(b)
		t.raw = normalizeApostrophes(w)
		first, _ := utf8.DecodeRuneInString(w)
		t.capital = unicode.IsUpper(first)
		up, lt := 0, 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				lt++
				if unicode.IsUpper(r) {
					up++
				}
			}
		}
		t.upper = lt >= 2 && up == lt
	}
	z.toks = append(z.toks, t)
}

// shouting reports whether most letters of the text are capitals (a
// headline in upper case), where an upper-case word says nothing.
func (z *tokenizer) shouting() bool {
	return z.letters >= 12 && z.upperLetters*10 > z.letters*6
}

func normalizeApostrophes(w string) string {
	out := make([]rune, 0, len(w))
	for _, r := range w {
		if r == '’' {
			r = '\''
		}
		out = append(out, r)
	}
	return string(out)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isWordStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isStop(r rune) bool {
	switch r {
	case '.', '!', '?', ';', ':', '|', '…', '—', '–':
		return true
	}
	return false
}
