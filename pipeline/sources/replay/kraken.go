package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue/kraken"
)

// krakenPages reads pages of Kraken's REST GET /0/public/Trades, one unit
// each, with kraken.Decoder.RESTPage, which drops the trades that
// overlapping pages repeat and records missing trade ids as gaps.
type krakenPages struct {
	*kraken.Decoder
}

func newKrakenPages() *krakenPages { return &krakenPages{kraken.New("")} }

func (p *krakenPages) parse(unit []byte, out []sources.Record) []sources.Record {
	return p.RESTPage(unit, out)
}

// isKrakenPage reports whether a line is a whole Trades page: an object
// with "error" and "result", result an object (an eth_getLogs answer's
// result is an array), or an error answer in Kraken's form
// ({"error":["EGeneral:Too many requests"]}).
func isKrakenPage(line []byte) bool {
	var hasErr, hasResult, krakenErr bool
	err := js.EachField(line, func(k, v []byte) bool {
		switch string(k) {
		case "error":
			hasErr = len(v) > 0 && v[0] == '['
			_ = js.EachElem(v, func(e []byte) bool {
				s, _, _ := js.String(e, nil)
				krakenErr = krakenError.Match(s)
				return false
			})
		case "result":
			hasResult = len(v) > 0 && v[0] == '{'
		}
		return true
	})
	return err == nil && hasErr && (hasResult || krakenErr)
}

// krakenError matches Kraken's error strings: "<severity><category>:<message>".
var krakenError = regexp.MustCompile(`^[EW][A-Z][A-Za-z]+:`)

// krakenPageStart matches the start of a pretty-printed Trades page once
// its white space is removed (after the opening brace).
var krakenPageStart = regexp.MustCompile(`^"error":\[[^\]]*\](,"result":\{"[A-Za-z0-9./_-]+":\[|\})`)

// krakenPageAhead reports whether the input after a first line "{" is the
// rest of a pretty-printed Trades page, looking at the buffered bytes
// without consuming them.
func krakenPageAhead(lr *lineReader) bool {
	ahead, _ := lr.r.Peek(4096)
	var compact []byte
	inStr := false
	for i := 0; i < len(ahead) && len(compact) < 256; i++ {
		c := ahead[i]
		switch {
		case c == '"' && (i == 0 || ahead[i-1] != '\\'):
			inStr = !inStr
		case !inStr && (c == ' ' || c == '\n' || c == '\r' || c == '\t'):
			continue
		}
		compact = append(compact, c)
	}
	return krakenPageStart.Match(compact)
}

// docReader yields the JSON documents of a stream one after another, for
// files of pretty-printed pages. A document that is not valid JSON ends
// the stream: the rest of the input is yielded as one last unit, which
// the parser rejects.
type docReader struct {
	dec  *json.Decoder
	rest bool
}

// newDocReader reads the input of lr, whose first line it has peeked.
func newDocReader(lr *lineReader) *docReader {
	lr.hasPeek = false
	in := io.MultiReader(bytes.NewReader(append(append([]byte(nil), lr.first...), '\n')), lr.r)
	return &docReader{dec: json.NewDecoder(in)}
}

func (r *docReader) next() ([]byte, bool, error) {
	if r.rest {
		return nil, false, io.EOF
	}
	var doc json.RawMessage
	err := r.dec.Decode(&doc)
	switch {
	case err == nil:
		return doc, len(doc) >= maxLine, nil
	case errors.Is(err, io.EOF):
		return nil, false, io.EOF
	}
	r.rest = true
	tail, _ := io.ReadAll(io.LimitReader(io.MultiReader(r.dec.Buffered()), maxLine))
	if len(bytes.TrimSpace(tail)) == 0 {
		tail = []byte(err.Error())
	}
	return tail, false, nil
}
