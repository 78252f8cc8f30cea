// Package newsclass classifies news items and filings: keyword sentiment
// with negation, the symbols an item names, its category and its
// materiality from 1 to 5, by the rules and versioned word lists documented
// in docs/news.md. It is pure: no I/O, no clock; the same item and
// dictionary always give the same classification. Sentiment here is a
// lightweight keyword measure, not investment advice.
package newsclass

import (
	"fmt"
	"slices"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// Sentiment thresholds: a score of at least PositiveAt is positive, at most
// NegativeAt negative, anything between neutral.
const (
	PositiveAt = 2
	NegativeAt = -2
)

// Sentiment labels.
const (
	Positive = "positive"
	Negative = "negative"
	Neutral  = "neutral"
)

// Document categories (MarketNewsDocument.category) and the extra alert
// categories.
const (
	CategoryCrypto  = "crypto"
	CategoryStocks  = "stocks"
	CategoryFilings = "filings"
	CategoryPolicy  = "policy"
	CategoryEurope  = "europe"
)

// negationReach is how many words before a sentiment term a negator acts.
const negationReach = 3

// maxKeywords bounds the keywords listed per item.
const maxKeywords = 16

// Materiality of an article without a listed term, and of an opinion piece
// or sponsored content (which never goes above OpinionCap).
const (
	BaseArticleMateriality = 2
	OpinionMateriality     = 1
	OpinionCap             = 2
)

// opinionCategories are publisher categories that mark an item as opinion,
// sponsored or promotional content.
var opinionCategories = []string{"opinion", "sponsored", "sponsored content", "press release", "podcast", "video", "op-ed", "commentary"}

// cryptoWords say that a policy or europe item is about crypto.
var cryptoWords = map[string]bool{
	"crypto": true, "cryptocurrency": true, "cryptocurrencies": true, "bitcoin": true, "ether": true,
	"ethereum": true, "stablecoin": true, "stablecoins": true, "blockchain": true, "token": true,
	"tokenized": true, "tokenization": true, "defi": true, "digital": true,
}

// Classifier classifies items with one dictionary. It is safe for
// concurrent use only through separate Classifiers: it keeps scratch
// buffers.
type Classifier struct {
	dict  *Dictionary
	z     tokenizer
	kw    []string
	infos []*wordInfo          // per token of the item being classified
	words map[string]*wordInfo // memo of info
}

// New returns a classifier reading symbols with dict.
func New(dict *Dictionary) *Classifier {
	if dict == nil {
		panic("BUG: newsclass.New without a dictionary")
	}
	return &Classifier{dict: dict, words: map[string]*wordInfo{}}
}

// Dictionary returns the classifier's dictionary.
func (c *Classifier) Dictionary() *Dictionary { return c.dict }

// Classify returns the classification of n; n is not modified.
func (c *Classifier) Classify(n *schemas.NewsItem) *schemas.NewsClassification {
	if n.Kind == schemas.NewsKind_NEWS_KIND_FILING && n.Filing != nil {
		return c.classifyFiling(n)
	}
	return c.classifyArticle(n)
}

func (c *Classifier) classifyArticle(n *schemas.NewsItem) *schemas.NewsClassification {
	c.z.reset()
	c.z.add(n.Title)
	c.z.add(n.Summary)
	toks := c.z.toks
	cl := &schemas.NewsClassification{Version: Version, Summary: n.Summary}

	c.infos = c.infos[:0]
	for i := range toks {
		c.infos = append(c.infos, c.info(toks[i].lower))
	}

	// Sentiment and materiality terms in one pass.
	lex := theLexicon
	score, level := 0, 0
	var levelTerm string
	var pairFound [64][2]bool
	c.kw = c.kw[:0]
	for i := 0; i < len(toks); i++ {
		wi := c.infos[i]
		if wi == emptyInfo {
			continue
		}
		for _, ps := range wi.pairSides {
			if ps.rule < len(pairFound) && matchAt(toks, i, ps.words) {
				pairFound[ps.rule][ps.side] = true
			}
		}
		if t := longest(wi.materiality, toks, i); t != nil && t.value > level {
			level, levelTerm = t.value, t.text
		}
		t := longest(wi.sentiment, toks, i)
		if t == nil {
			continue
		}
		w := t.value
		kw := matchedText(toks, i, len(t.words))
		if c.negated(i) {
			w, kw = -w, "not "+kw
		}
		score += w
		if len(c.kw) < maxKeywords && !slices.Contains(c.kw, kw) {
			c.kw = append(c.kw, kw)
		}
		i += len(t.words) - 1
	}
	for r, p := range lex.pairs {
		if p.level > level && r < len(pairFound) && pairFound[r][0] && pairFound[r][1] {
			level, levelTerm = p.level, p.text
		}
	}
	cl.SentimentScore = int32(score)
	cl.Sentiment = label(score)
	cl.Keywords = slices.Clone(c.kw)

	// Category.
	crypto := n.FeedCategory == CategoryCrypto
	cl.Symbols = c.dict.extractSymbols(toks, c.infos, crypto, c.z.shouting(), nil)
	switch n.FeedCategory {
	case CategoryCrypto, CategoryStocks:
		cl.Category, cl.AlertCategory = n.FeedCategory, n.FeedCategory
	default: // policy, europe
		cl.AlertCategory = n.FeedCategory
		cl.Category = CategoryStocks
		if c.mentionsCrypto(cl.Symbols) {
			cl.Category = CategoryCrypto
		}
	}

	// Materiality.
	m := BaseArticleMateriality
	reasons := []string{fmt.Sprintf("article base %d", BaseArticleMateriality)}
	if level > m {
		m = level
		reasons = []string{fmt.Sprintf("term %q: %d", levelTerm, level)}
	}
	if m >= 3 {
		if big := c.bigSymbol(cl.Symbols); big != "" {
			m++
			reasons = append(reasons, "names "+big+": +1")
		}
	}
	if isOpinion(n.PublisherCategories) {
		if m > OpinionCap {
			m = OpinionCap
		} else {
			m = OpinionMateriality
		}
		reasons = append(reasons, fmt.Sprintf("opinion or sponsored: capped at %d", m))
	}
	cl.Materiality = int32(min(max(m, 1), 5))
	cl.MaterialityReasons = reasons
	return cl
}

// matchedText is the lower-case text of n words from i.
func matchedText(toks []token, i, n int) string {
	if n == 1 {
		return toks[i].lower
	}
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(toks[i+k].lower)
	}
	return b.String()
}

// negated reports whether a negator stands within negationReach words
// before token i, in the same clause.
func (c *Classifier) negated(i int) bool {
	toks := c.z.toks
	for k := i - 1; k >= 0 && k >= i-negationReach; k-- {
		if toks[k].stop {
			return false
		}
		if c.infos[k].negator {
			return true
		}
	}
	return false
}

func label(score int) string {
	switch {
	case score >= PositiveAt:
		return Positive
	case score <= NegativeAt:
		return Negative
	}
	return Neutral
}

func (c *Classifier) mentionsCrypto(symbols []string) bool {
	for _, s := range symbols {
		if _, ok := c.dict.CoinBySymbol(s); ok {
			return true
		}
	}
	toks := c.z.toks
	for i := range toks {
		if c.infos[i].crypto && (toks[i].lower != "digital" || i+1 < len(toks) && strings.HasPrefix(toks[i+1].lower, "asset")) {
			return true
		}
	}
	return false
}

// bigSymbol returns the first symbol that is BTC, ETH or a large issuer.
func (c *Classifier) bigSymbol(symbols []string) string {
	for _, s := range symbols {
		if s == "BTCUSD" || s == "ETHUSD" {
			return s
		}
		if is, ok := c.dict.IssuerByTicker(s); ok && is.Rank < LargeIssuerRank {
			return s
		}
	}
	return ""
}

func isOpinion(cats []string) bool {
	for _, c := range cats {
		if slices.Contains(opinionCategories, strings.ToLower(c)) {
			return true
		}
	}
	return false
}
