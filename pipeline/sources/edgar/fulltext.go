package edgar

import (
	"bytes"
	"strconv"
)

// Document is one <DOCUMENT> of a complete submission text file.
type Document struct {
	// Type is the document type: the form ("4", "8-K") for the primary
	// document, "EX-99.1", "GRAPHIC", "EX-101.SCH", ...
	Type        string `json:"type"`
	Sequence    int    `json:"sequence"`
	Filename    string `json:"filename"`
	Description string `json:"description,omitempty"`
	// Text is the document body between <TEXT> and </TEXT>, as filed.
	Text []byte `json:"-"`
}

// XML returns the body of an <XML>…</XML> block inside the document's text
// (ownership forms, XBRL), trimmed; ok is false when there is none or it is
// not closed.
func (d Document) XML() (body []byte, ok bool) {
	i := bytes.Index(d.Text, []byte("<XML>"))
	if i < 0 {
		return nil, false
	}
	rest := d.Text[i+len("<XML>"):]
	j := bytes.Index(rest, []byte("</XML>"))
	if j < 0 {
		return nil, false
	}
	return bytes.TrimSpace(rest[:j]), true
}

// ParseDocuments splits a complete submission text file into its
// documents. A document cut off by the end of the input (a truncated file)
// is dropped and reported by truncated.
func ParseDocuments(b []byte) (docs []Document, truncated bool) {
	for {
		i := bytes.Index(b, []byte("<DOCUMENT>"))
		if i < 0 {
			return docs, false
		}
		b = b[i+len("<DOCUMENT>"):]
		j := bytes.Index(b, []byte("</DOCUMENT>"))
		if j < 0 {
			return docs, true
		}
		docs = append(docs, parseDocument(b[:j]))
		b = b[j+len("</DOCUMENT>"):]
	}
}

func parseDocument(b []byte) Document {
	var d Document
	text := b
	if i := bytes.Index(b, []byte("<TEXT>")); i >= 0 {
		head := b[:i]
		text = b[i+len("<TEXT>"):]
		if j := bytes.LastIndex(text, []byte("</TEXT>")); j >= 0 {
			text = text[:j]
		}
		for _, line := range bytes.Split(head, []byte("\n")) {
			line = bytes.TrimSpace(line)
			tag, val, ok := bytes.Cut(line, []byte(">"))
			if !ok || len(tag) == 0 || tag[0] != '<' {
				continue
			}
			v := string(bytes.TrimSpace(val))
			switch string(tag[1:]) {
			case "TYPE":
				d.Type = v
			case "SEQUENCE":
				d.Sequence, _ = strconv.Atoi(v)
			case "FILENAME":
				d.Filename = v
			case "DESCRIPTION":
				d.Description = v
			}
		}
	}
	d.Text = text
	return d
}
