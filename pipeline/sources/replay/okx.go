package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/okx"
)

// okxCapture frames an OKX v5 WebSocket capture and hands each message to
// okx.Decoder.Recorded. A line is one of:
//
//   - a cryptofeed format-2 record (JSONL {"t", "conn", "ts", "data"}):
//     recv records are messages, http records of the instruments endpoint
//     load contract values, the rest is skipped;
//   - a cryptofeed format-1 line: `<ts>: <json>` (a received message,
//     ts decimal seconds), `<url> -> <ts>: <body>` (an HTTP answer: the
//     instruments endpoint's loads contract values), `<url> <-> <ts>` and
//     `<url> <- <ts>: <sent>` (connect, send: skipped);
//   - `<local_recv_ts> <json>` (a raw capture, the unit told by magnitude);
//   - a bare message (no receive time: ingest = event time).
type okxCapture struct {
	*okx.Decoder
}

func newOKXCapture() *okxCapture { return &okxCapture{okx.New("")} }

// cryptofeed format-1 lines other than received messages.
var (
	cf1HTTP    = regexp.MustCompile(`^(\S+) -> ([0-9]+(?:\.[0-9]+)?): `)
	cf1Connect = regexp.MustCompile(`^(wss?|https?)://\S+ <-> [0-9.]+$`)
	cf1Send    = regexp.MustCompile(`^(wss?|https?)://\S+ <- [0-9.]+: `)
)

func (p *okxCapture) parse(line []byte, out []sources.Record) []sources.Record {
	switch {
	case len(line) > 0 && line[0] == '{':
		if !bytes.HasPrefix(line, []byte(`{"t":`)) {
			return p.Recorded(line, line, 0, out)
		}
		r, ok := readCryptofeed(line)
		if !ok {
			return append(out, venue.Reject(line, "malformed json"))
		}
		switch string(r.kind) {
		case "http":
			if !bytes.Contains(r.url, []byte("/public/instruments")) {
				return p.Skip(out)
			}
			body, _, ok := js.String(r.data, nil)
			if !ok {
				return append(out, venue.Reject(line, "malformed json: data is not a string"))
			}
			return p.instruments(line, body, out)
		case "recv":
		default:
			return p.Skip(out)
		}
		if !okx.MayHoldTrades(r.data) {
			return p.Skip(out)
		}
		msg, ingest, out, ok := recvPayload(&p.Base, line, r, out)
		if !ok {
			return out
		}
		return p.Recorded(line, msg, ingest, out)
	case bytes.HasPrefix(line, []byte("configuration: ")), cf1Connect.Match(line), cf1Send.Match(line):
		return p.Skip(out)
	}
	if m := cf1HTTP.FindSubmatchIndex(line); m != nil {
		if !bytes.Contains(line[m[2]:m[3]], []byte("/public/instruments")) {
			return p.Skip(out)
		}
		return p.instruments(line, line[m[1]:], out)
	}
	i := 0
	for i < len(line) && (line[i] >= '0' && line[i] <= '9' || line[i] == '.') {
		i++
	}
	switch {
	case i > 0 && bytes.HasPrefix(line[i:], []byte(": ")):
		ingest, ok := venue.SecondsToNs(line[:i])
		if !ok {
			return append(out, venue.Reject(line, "bad timestamp: receive time is not decimal seconds"))
		}
		return p.Recorded(line, line[i+2:], ingest, out)
	case i > 0 && i < len(line) && line[i] == ' ':
		ts, ok := js.ParseInt(line[:i])
		if !ok {
			return append(out, venue.Reject(line, "bad timestamp: local receive time is not an integer"))
		}
		ingest, ok := venue.LocalTsNs(ts)
		if !ok {
			return append(out, venue.Reject(line, "bad timestamp: local receive time out of range"))
		}
		return p.Recorded(line, line[i+1:], ingest, out)
	}
	if tl := bytes.TrimSpace(line); len(tl) > 0 && tl[0] == '{' || string(tl) == "pong" {
		return p.Recorded(line, line, 0, out)
	}
	return append(out, venue.Reject(line, "malformed line: not a cryptofeed record, `<ts>: <json>`, `<ts> <json>` or a message"))
}

// instruments loads an instruments answer recorded in a capture; a bad
// answer is rejected with its reason, a good one skipped.
func (p *okxCapture) instruments(line, body []byte, out []sources.Record) []sources.Record {
	if _, err := p.Instruments(body); err != nil {
		return append(out, venue.Reject(line[:min(len(line), 4096)], err.Error()))
	}
	return p.Skip(out)
}

// cf1Stream matches the file name of a cryptofeed format-1 WebSocket
// recording ("OKX.ws.1.0"); its HTTP answers are in "<prefix>.0".
var cf1Stream = regexp.MustCompile(`^(.+)\.ws\.[0-9]+\.[0-9]+$`)

// loadInstruments reads contract values for the capture at path: from the
// file instruments when given (PATH#instruments=FILE), else from the
// recording's own HTTP file when the capture is a cryptofeed format-1
// WebSocket file with one beside it. The file's lines are framed as the
// capture's are (an answer a line, `<url> -> <ts>: <body>` lines,
// format-2 http records); lines of other kinds are passed over.
func (p *okxCapture) loadInstruments(path, instruments string) error {
	if instruments == "" {
		m := cf1Stream.FindStringSubmatch(filepath.Base(path))
		if m == nil {
			return nil
		}
		sibling := filepath.Join(filepath.Dir(path), m[1]+".0")
		if _, err := os.Stat(sibling); err != nil {
			return nil
		}
		instruments = sibling
	}
	f, err := os.Open(instruments)
	if err != nil {
		return fmt.Errorf("cannot read OKX instruments: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxLine)
	skipped := p.Skipped()
	var out []sources.Record
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		switch {
		case len(line) == 0:
		case line[0] == '{' && !bytes.HasPrefix(line, []byte(`{"t":`)):
			if _, err := p.Instruments(line); err != nil {
				return fmt.Errorf("cannot read OKX instruments from %s: %w", instruments, err)
			}
		default:
			out = p.parse(line, out[:0])
			for _, r := range out {
				if r.Trade == nil && r.Gap == nil && r.Reason != "" {
					return fmt.Errorf("cannot read OKX instruments from %s: %s", instruments, r.Reason)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("cannot read OKX instruments from %s: %w", instruments, err)
	}
	for p.Skipped() > skipped { // the instruments file's lines are not the capture's
		p.Unskip()
	}
	return nil
}

// cf1Recv matches a received message of a cryptofeed format-1 file.
var cf1Recv = regexp.MustCompile(`^[0-9]+\.[0-9]+: [{\[]`)

// isCryptofeed1 reports whether a first line is of a cryptofeed format-1
// recording: a connect, send, HTTP or received-message line.
func isCryptofeed1(line []byte) bool {
	return cf1Connect.Match(line) || cf1Send.Match(line) || cf1HTTP.Match(line) || cf1Recv.Match(line)
}
