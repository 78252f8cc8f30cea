package kraken

import (
	"strconv"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/schemas"
)

// Kraken REST GET /0/public/Trades pages.
//
// A page is {"error":[...],"result":{"<PAIR>":[[price, volume, time, side,
// ordertype, misc, trade_id], ...], "last":"<ns>"}}: price and volume are
// decimal strings, time is decimal seconds (100 ns resolution, converted
// exactly), side "b"/"s" is the side of the taker ("triggering") order, so
// the aggressor as is, trade_id is sequential per pair (pages recorded
// before Kraken added it have six members). last is the cursor the next
// request passes as since: the time in ns of the page's last trade.
//
// Paging. A crawl asks since=last again and again, and since is a time,
// not an id, so consecutive pages overlap (a re-asked page repeats
// trades). RESTPage remembers, per pair, the highest trade id it emitted:
// a trade at or below it is a duplicate and skipped; a trade id more than
// one above it means trades between the pages are missing (a page was
// lost, or since skipped ahead), recorded as a gap record of the symbol
// between the previous trade's time and this one's. Trades without ids are
// told apart by their whole entry, against the previous page of the pair.
// A page whose last goes back before the previous page's last is out of
// order: its trades are still read (ids drop the repeated ones).

// restPair is the paging state of one pair.
type restPair struct {
	lastID   int64 // highest trade id emitted
	lastTime int64 // event time of that trade
	last     int64 // the previous page's last (ns), 0 if none
	prev     map[string]struct{}
	cur      map[string]struct{} // id-less entries of the current page
	// seqNs and seqK number id-less trades of one time: "t<ns>.<k>".
	seqNs int64
	seqK  int
}

// RESTStats are the paging counters of a sequence of REST pages.
type RESTStats struct {
	Pages, Duplicates, Gaps, OutOfOrder uint64
}

// RESTStats returns the paging counters so far.
func (d *Decoder) RESTStats() RESTStats { return d.rest }

// LegacyPair maps a REST pair key to a symbol the registry normalizes:
// Kraken's legacy names of X-prefixed crypto and Z-prefixed fiat assets
// ("XXBTZUSD" → "XBT/USD", "XETHZUSD" → "ETH/USD"); any other key
// ("XBTUSDT", "SOLUSD") is returned as is.
func LegacyPair(key string) string {
	if len(key) == 8 && key[0] == 'X' && key[4] == 'Z' {
		return key[1:4] + "/" + key[5:8]
	}
	return key
}

// RESTPage decodes one Trades page into out: its trades (a bad entry as a
// rejected record carrying that entry), paging as described above. A page
// with errors is rejected as "venue error: ..." (Kraken's error strings,
// e.g. "EGeneral:Too many requests"); a page that is not such an object as
// "malformed json" or "malformed page: ...". A valid page without trades
// is skipped and counted.
func (d *Decoder) RESTPage(page []byte, out []sources.Record) []sources.Record {
	var errs, result []byte
	if js.EachField(page, func(k, v []byte) bool {
		switch string(k) {
		case "error":
			errs = v
		case "result":
			result = v
		}
		return true
	}) != nil {
		return append(out, venue.Reject(page, "malformed json"))
	}
	if len(errs) > 0 && string(errs) != "[]" && string(errs) != "null" {
		detail := ""
		_ = js.EachElem(errs, func(v []byte) bool {
			if detail != "" {
				detail += "; "
			}
			detail += venue.Text(v)
			return true
		})
		if detail == "" {
			detail = venue.Text(errs)
		}
		return append(out, venue.VenueError(page, detail))
	}
	if len(result) == 0 || result[0] != '{' {
		return append(out, venue.Reject(page, "malformed page: result is not an object"))
	}
	var pairKey, trades, last []byte
	pairs := 0
	_ = js.EachField(result, func(k, v []byte) bool {
		if string(k) == "last" {
			last, _ = js.NumOrString(v)
			return true
		}
		pairs++
		pairKey, trades = k, v
		return true
	})
	switch {
	case pairs == 0:
		return append(out, venue.Reject(page, "malformed page: result names no pair"))
	case pairs > 1:
		return append(out, venue.Reject(page, "malformed page: result names several pairs"))
	}
	var lastNs int64
	if len(last) > 0 {
		var ok bool
		if lastNs, ok = js.ParseInt(last); !ok || lastNs < 0 {
			return append(out, venue.Reject(page, "malformed page: last is not an integer"))
		}
	}
	if d.restPairs == nil {
		d.restPairs = map[string]*restPair{}
	}
	pk := string(pairKey)
	st := d.restPairs[pk]
	if st == nil {
		if len(d.restPairs) >= 1<<12 {
			return append(out, venue.Reject(page, "malformed page: too many pairs"))
		}
		st = &restPair{}
		d.restPairs[pk] = st
	}
	d.rest.Pages++
	if lastNs != 0 && st.last != 0 && lastNs < st.last {
		d.rest.OutOfOrder++
	}
	sym := d.Symbol(Venue, []byte(LegacyPair(pk)))
	n := len(out)
	st.cur = map[string]struct{}{}
	entries := 0
	if js.EachElem(trades, func(e []byte) bool {
		entries++
		out = d.restTrade(e, pk, sym, st, out)
		return true
	}) != nil {
		st.cur = nil
		return append(out[:n], venue.Reject(page, "malformed page: trades are not an array"))
	}
	st.prev, st.cur = st.cur, nil
	if lastNs != 0 && lastNs > st.last {
		st.last = lastNs
	}
	if entries == 0 {
		return d.Skip(out)
	}
	return out
}

// restTrade decodes one entry of a page.
func (d *Decoder) restTrade(e []byte, pair string, sym venue.Sym, st *restPair, out []sources.Record) []sources.Record {
	var m [7][]byte
	k := 0
	if js.EachElem(e, func(v []byte) bool {
		if k < len(m) {
			m[k] = v
		}
		k++
		return true
	}) != nil {
		return append(out, venue.Reject(e, "malformed json"))
	}
	if k < 6 {
		return append(out, venue.Reject(e, "malformed trade: "+strconv.Itoa(k)+" members, want 6 or 7"))
	}
	t := d.NewTrade() // from the slab: a page is up to 1,000 trades
	t.Venue, t.VenueKind, t.Market = Venue, schemas.VenueKind_VENUE_KIND_CEX, pair
	var ok bool
	price, ok1 := js.NumOrString(m[0])
	vol, ok2 := js.NumOrString(m[1])
	if t.Price, ok = js.ParseDecimal(price); !ok || !ok1 {
		return append(out, venue.Reject(e, "bad price: price is not a decimal"))
	}
	if t.Size, ok = js.ParseDecimal(vol); !ok || !ok2 {
		return append(out, venue.Reject(e, "bad size: volume is not a decimal"))
	}
	tm, _ := js.NumOrString(m[2])
	if t.EventTimeNs, ok = venue.SecondsToNs(tm); !ok || t.EventTimeNs == 0 {
		return append(out, venue.Reject(e, "bad timestamp: time is not decimal seconds"))
	}
	switch string(m[3]) {
	case `"b"`:
		t.Side = schemas.Side_SIDE_BUY
	case `"s"`:
		t.Side = schemas.Side_SIDE_SELL
	default:
		return append(out, venue.Reject(e, "bad side: "+venue.Text(m[3])))
	}
	t.NotionalUsd = t.Price * t.Size
	if k >= 7 {
		idText, _ := js.NumOrString(m[6])
		id, ok := js.ParseInt(idText)
		if !ok || id < 0 {
			return append(out, venue.Reject(e, "bad trade id: trade_id is not an integer"))
		}
		if id > 0 { // Kraken sent 0 for some trades of 2023-24: no id
			if id <= st.lastID {
				d.rest.Duplicates++
				return d.Skip(out)
			}
			if st.lastID > 0 && id > st.lastID+1 && sym.OK {
				d.rest.Gaps++
				out = append(out, sources.Record{Symbol: sym.Symbol, Gap: &schemas.Gap{FromNs: min(st.lastTime, t.EventTimeNs), ToNs: max(st.lastTime, t.EventTimeNs),
					Reason: "missed trades: ids " + strconv.FormatInt(st.lastID+1, 10) + "-" + strconv.FormatInt(id-1, 10) + " of " + pair + " are in no page"}})
			}
			st.lastID, st.lastTime = id, t.EventTimeNs
			if idText[0] != '0' && idText[0] != '+' && idText[0] != '-' {
				t.TradeId = d.Str(idText) // canonical digits: copied into the arena
			} else {
				t.TradeId = strconv.FormatInt(id, 10)
			}
			return d.Emit(out, e, t, sym)
		}
	}
	// No id: the entry itself tells a repeat of the previous page.
	key := string(e)
	if _, dup := st.prev[key]; dup {
		d.rest.Duplicates++
		return d.Skip(out)
	}
	if len(st.cur) < 1<<16 {
		st.cur[key] = struct{}{}
	}
	if t.EventTimeNs == st.seqNs {
		st.seqK++
	} else {
		st.seqNs, st.seqK = t.EventTimeNs, 0
	}
	t.TradeId = "t" + strconv.FormatInt(t.EventTimeNs, 10) + "." + strconv.Itoa(st.seqK)
	return d.Emit(out, e, t, sym)
}
