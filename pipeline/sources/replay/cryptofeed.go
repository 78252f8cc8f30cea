package replay

import (
	"github.com/marketintel/mi/pipeline/sources"
)

// cryptofeedRecord is one line of a cryptofeed recorder (format 2) capture:
// {"t": "header"|"http"|"connect"|"send"|"recv", "conn", "ts", "addr", "data"}.
type cryptofeedRecord struct {
	kind, conn, addr, ts, data []byte
}

// readCryptofeed decodes the envelope of a cryptofeed record line. data is
// the raw JSON string value (still escaped); addr is unescaped (URLs).
func readCryptofeed(line []byte) (cryptofeedRecord, bool) {
	var r cryptofeedRecord
	err := eachField(line, func(k, v []byte) bool {
		switch string(k) {
		case "t":
			r.kind, _, _ = jsonString(v, nil)
		case "conn":
			r.conn, _, _ = jsonString(v, nil)
		case "addr":
			r.addr, _, _ = jsonString(v, nil)
		case "ts":
			r.ts = v
		case "data":
			r.data = v
		}
		return true
	})
	return r, err == nil
}

// recvPayload unescapes the data string of a recv record into the parser's
// scratch buffer and returns the raw venue message with its receive time.
func (b *base) recvPayload(line []byte, r cryptofeedRecord, out []sources.Record) (msg []byte, ingest int64, res []sources.Record, ok bool) {
	ingest, ok = secondsToNs(r.ts)
	if !ok {
		return nil, 0, append(out, reject(line, "bad timestamp: ts is not decimal seconds")), false
	}
	b.scratch = b.scratch[:0]
	msg, b.scratch, ok = jsonString(r.data, b.scratch)
	if !ok {
		return nil, 0, append(out, reject(line, "malformed json: data is not a string")), false
	}
	return msg, ingest, out, true
}
