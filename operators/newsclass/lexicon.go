package newsclass

import (
	"bufio"
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Version names the classifier rules and the lexicon files together; it is
// stamped on every classification. A change to a rule or a list is a new
// version.
const Version = "mi-news/1.0.0"

//go:embed lexicon/*.tsv lexicon/*.txt
var lexiconFS embed.FS

// Lexicon file names (in lexicon/), versioned with Version.
const (
	sentimentFile   = "lexicon/sentiment-v1.tsv"
	negatorFile     = "lexicon/negators-v1.txt"
	materialityFile = "lexicon/materiality-v1.tsv"
	coinNamesFile   = "lexicon/coin-names-v1.tsv"
	issuerNamesFile = "lexicon/issuer-names-v1.tsv"
	ambiguousFile   = "lexicon/ambiguous-v1.txt"
)

// term is one lexicon entry: a phrase and its value.
type term struct {
	text  string   // the phrase as in the file
	words []string // lower-case words; a word ending in '*' is a stem
	value int      // sentiment weight or materiality level
}

// matchWord reports whether a text word matches a pattern word.
func matchWord(w, pat string) bool {
	if n := len(pat) - 1; n >= 0 && pat[n] == '*' {
		return len(w) >= n && w[:n] == pat[:n]
	}
	return w == pat
}

// phraseSet finds, at a place in the text, the longest term that starts
// there.
type phraseSet struct {
	exact   map[string][]*term // first word → terms, longest first
	stem    map[string][]*term // stem of the first word (without '*') → terms
	stemLen []int              // lengths of the stems in stem, ascending
}

func (p *phraseSet) add(t *term) {
	if p.exact == nil {
		p.exact, p.stem = map[string][]*term{}, map[string][]*term{}
	}
	first := t.words[0]
	if strings.HasSuffix(first, "*") {
		s := strings.TrimSuffix(first, "*")
		p.stem[s] = append(p.stem[s], t)
		if !containsInt(p.stemLen, len(s)) {
			p.stemLen = append(p.stemLen, len(s))
			sort.Ints(p.stemLen)
		}
	} else {
		p.exact[first] = append(p.exact[first], t)
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// matchAt reports whether the words of toks from i on match words, without
// crossing a clause end.
func matchAt(toks []token, i int, words []string) bool {
	if i+len(words) > len(toks) {
		return false
	}
	for k, pat := range words {
		if !matchWord(toks[i+k].lower, pat) || k < len(words)-1 && toks[i+k].stop {
			return false
		}
	}
	return true
}

// pairRule is a materiality rule on two phrases that must both occur.
type pairRule struct {
	text  string
	a, b  []string
	level int
}

// lexicon is the parsed content of the lexicon files.
type lexicon struct {
	sentiment   phraseSet
	negators    map[string]bool
	materiality phraseSet
	pairs       []pairRule
	coinNames   []nameEntry
	issuerNames []nameEntry
	ambiguous   map[string]bool
}

// nameEntry is a line of coin-names or issuer-names.
type nameEntry struct {
	name, ticker string
	ambiguous    bool
}

// theLexicon is parsed once from the embedded files.
var theLexicon = mustLoadLexicon()

func mustLoadLexicon() *lexicon {
	l, err := loadLexicon()
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return l
}

func loadLexicon() (*lexicon, error) {
	l := &lexicon{negators: map[string]bool{}, ambiguous: map[string]bool{}}
	err := eachLine(sentimentFile, func(f []string) error {
		t, err := parseTerm(f, -3, 3)
		if err == nil {
			l.sentiment.add(t)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := eachLine(negatorFile, func(f []string) error { l.negators[f[0]] = true; return nil }); err != nil {
		return nil, err
	}
	err = eachLine(materialityFile, func(f []string) error {
		if a, b, ok := strings.Cut(f[0], " & "); ok {
			t, err := parseTerm(f, 1, 5)
			if err != nil {
				return err
			}
			l.pairs = append(l.pairs, pairRule{text: f[0], a: strings.Fields(a), b: strings.Fields(b), level: t.value})
			return nil
		}
		t, err := parseTerm(f, 1, 5)
		if err == nil {
			l.materiality.add(t)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	names := func(file string, dst *[]nameEntry) error {
		return eachLine(file, func(f []string) error {
			if len(f) < 2 || len(f) > 3 || len(f) == 3 && f[2] != "ambiguous" {
				return fmt.Errorf("want name, ticker and optionally ambiguous")
			}
			*dst = append(*dst, nameEntry{name: f[0], ticker: f[1], ambiguous: len(f) == 3})
			return nil
		})
	}
	if err := names(coinNamesFile, &l.coinNames); err != nil {
		return nil, err
	}
	if err := names(issuerNamesFile, &l.issuerNames); err != nil {
		return nil, err
	}
	if err := eachLine(ambiguousFile, func(f []string) error { l.ambiguous[f[0]] = true; return nil }); err != nil {
		return nil, err
	}
	return l, nil
}

// eachLine calls fn with the tab-separated fields of every line of file
// that is neither empty nor a comment.
func eachLine(file string, fn func(fields []string) error) error {
	f, err := lexiconFS.Open(file)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", file, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(strings.Split(line, "\t")); err != nil {
			return fmt.Errorf("cannot read %s line %d %q: %w", file, n, line, err)
		}
	}
	return sc.Err()
}

// parseTerm reads "phrase<TAB>value" with value in [lo, hi].
func parseTerm(f []string, lo, hi int) (*term, error) {
	if len(f) != 2 {
		return nil, fmt.Errorf("want phrase<TAB>value")
	}
	v, err := strconv.Atoi(f[1])
	if err != nil || v < lo || v > hi || v == 0 {
		return nil, fmt.Errorf("value must be a non-zero integer from %d to %d", lo, hi)
	}
	words := strings.Fields(f[0])
	if len(words) == 0 || strings.ToLower(f[0]) != f[0] {
		return nil, fmt.Errorf("phrase must be lower-case words")
	}
	return &term{text: f[0], words: words, value: v}, nil
}
