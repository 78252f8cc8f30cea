package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/binance"
	"github.com/marketintel/mi/pipeline/sources/venue/hyperliquid"
)

// recorder is a venue decoder's side for captures: one recorded message,
// received at ingest; raw is the capture's unit, which the rejection of a
// whole message carries.
type recorder interface {
	Recorded(raw, msg []byte, ingest int64, out []sources.Record) []sources.Record
	Skipped() uint64
	SetSource(name string)
	SetFastPath(on bool)
	FastPath() bool
}

// timestamped frames a raw WebSocket capture, one `<local_recv_ts> <json>`
// line per message (Binance, Hyperliquid), and hands each message with its
// receive time to the venue's decoder. The local timestamp's unit is told
// by magnitude (venue.LocalTsNs).
type timestamped struct {
	recorder
}

func newBinanceCapture(lname string) *timestamped {
	d, err := binance.New(binance.VenueOfName(lname), "")
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return &timestamped{d}
}

func newHyperliquidCapture() *timestamped { return &timestamped{hyperliquid.New("")} }

func (p *timestamped) parse(line []byte, out []sources.Record) []sources.Record {
	tsText, msg, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return append(out, venue.Reject(line, "malformed line: no `<timestamp> <json>`"))
	}
	ts, ok := js.ParseInt(tsText)
	if !ok {
		return append(out, venue.Reject(line, "bad timestamp: local receive time is not an integer"))
	}
	ingest, ok := venue.LocalTsNs(ts)
	if !ok {
		return append(out, venue.Reject(line, "bad timestamp: local receive time out of range"))
	}
	return p.Recorded(line, msg, ingest, out)
}
