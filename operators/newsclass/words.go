package newsclass

// wordInfo is everything the classifier's lists say about one lower-case
// word: the terms and names that can start at it and its roles. A
// Classifier memoizes it per word, so classifying costs one map lookup per
// word whatever the size of the lists.
type wordInfo struct {
	sentiment   []*term        // sentiment terms whose first word matches
	materiality []*term        // materiality terms whose first word matches
	pairSides   []pairSide     // sides of pair rules whose first word matches
	names       []*namePattern // names starting with the word, longest first
	negator     bool
	crypto      bool // says "crypto" (cryptoWords)
}

// pairSide is one phrase of a pair rule.
type pairSide struct {
	rule, side int
	words      []string
}

// maxWordCache bounds a Classifier's memo; words beyond it are looked up
// every time.
const maxWordCache = 1 << 17

// info returns the wordInfo of a lower-case word.
func (c *Classifier) info(w string) *wordInfo {
	if wi, ok := c.words[w]; ok {
		return wi
	}
	wi := c.lookup(w)
	if len(c.words) < maxWordCache {
		c.words[w] = wi
	}
	return wi
}

var emptyInfo = &wordInfo{}

func (c *Classifier) lookup(w string) *wordInfo {
	lex := theLexicon
	wi := &wordInfo{
		sentiment:   lex.sentiment.starting(w),
		materiality: lex.materiality.starting(w),
		names:       c.dict.names[w],
		negator:     lex.negators[w],
		crypto:      cryptoWords[w],
	}
	for r, p := range lex.pairs {
		if matchWord(w, p.a[0]) {
			wi.pairSides = append(wi.pairSides, pairSide{r, 0, p.a})
		}
		if matchWord(w, p.b[0]) {
			wi.pairSides = append(wi.pairSides, pairSide{r, 1, p.b})
		}
	}
	if wi.sentiment == nil && wi.materiality == nil && wi.pairSides == nil && wi.names == nil && !wi.negator && !wi.crypto {
		return emptyInfo
	}
	return wi
}

// starting returns the terms whose first word matches w, longest first.
func (p *phraseSet) starting(w string) []*term {
	out := append([]*term(nil), p.exact[w]...)
	for _, n := range p.stemLen {
		if n > len(w) {
			break
		}
		out = append(out, p.stem[w[:n]]...)
	}
	if len(out) == 0 {
		return nil
	}
	// Longest first, stable: the file's order among equals.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j].words) > len(out[j-1].words); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// longest returns the first (so longest) of ts that matches toks at i.
func longest(ts []*term, toks []token, i int) *term {
	for _, t := range ts {
		if matchAt(toks, i, t.words) {
			return t
		}
	}
	return nil
}
