package insiders

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrMalformed is wrapped by the decoders' errors: the input is not a
// readable document of its kind. The message is the dead-letter reason.
var ErrMalformed = errors.New("malformed ownership xml")

// node is an element of a parsed document: its local name (prefix
// dropped), attributes, direct text and children.
type node struct {
	name     string
	rawName  string // with its prefix, as written (scanner only)
	attrs    []xml.Attr
	text     []byte
	children []*node
}

// child returns the first child with the given local name.
func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// all returns the children with the given local name.
func (n *node) all(name string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// path follows children by name.
func (n *node) path(names ...string) *node {
	for _, nm := range names {
		n = n.child(nm)
	}
	return n
}

// str is the trimmed text of the node at path, "" when absent.
func (n *node) str(names ...string) string {
	m := n.path(names...)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(string(m.text))
}

func (n *node) attr(name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// walk visits n and its descendants.
func (n *node) walk(f func(*node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

// parse builds the element tree with the one-pass scanner and, when the
// scanner refuses the input, with encoding/xml (which accepts more, e.g.
// a DOCTYPE); the scanner's trees are those encoding/xml would build
// (TestScannerMatchesEncodingXML, FuzzDecodeOwnership).
func parse(b []byte) (*node, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	if root, err := scan(b); err == nil {
		return root, nil
	}
	return parseReference(b)
}

// parseReference builds the element tree with encoding/xml.
func parseReference(b []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "utf-8", "us-ascii", "ascii":
			return r, nil
		case "iso-8859-1", "latin1", "windows-1252":
			return latin1Reader(r), nil
		}
		return nil, fmt.Errorf("unsupported charset %q", charset)
	}
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, attrs: cleanAttrs(t.Attr)}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			} else {
				return nil, fmt.Errorf("%w: a second root element <%s>", ErrMalformed, t.Name.Local)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.text = append(p.text, t...)
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("%w: text outside the root element", ErrMalformed)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no root element", ErrMalformed)
	}
	return root, nil
}

// cleanAttrs drops namespace declarations and keeps local names only.
func cleanAttrs(as []xml.Attr) []xml.Attr {
	var out []xml.Attr
	for _, a := range as {
		if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
			continue
		}
		out = append(out, xml.Attr{Name: xml.Name{Local: a.Name.Local}, Value: a.Value})
	}
	return out
}

func latin1Reader(r io.Reader) io.Reader {
	b, err := io.ReadAll(r)
	if err != nil {
		return errReader{err}
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return bytes.NewReader(out)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// errScan is the scanner's refusal; parse then asks encoding/xml.
var errScan = errors.New("scanner refused")

// scan is the one-pass element-tree builder for the XML EDGAR writes:
// elements, attributes in quotes, text with the five predefined entities
// and character references, comments, processing instructions and CDATA.
// Anything else (a DOCTYPE, an unknown entity, a non-ASCII name, an
// encoding other than UTF-8) is refused and left to encoding/xml. It
// accepts only what encoding/xml accepts, with the same tree.
func scan(b []byte) (*node, error) {
	if !validChars(b) {
		return nil, errScan
	}
	var stack []*node
	var root *node
	var nodes slab
	var names interner
	i := 0
	for i < len(b) {
		if b[i] != '<' {
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				j = len(b) - i
			}
			txt := b[i : i+j]
			i += j
			if len(stack) == 0 {
				if len(bytes.TrimSpace(txt)) > 0 {
					return nil, errScan
				}
				continue
			}
			p := stack[len(stack)-1]
			if len(p.text) == 0 && bytes.IndexByte(txt, '&') < 0 && bytes.IndexByte(txt, '\r') < 0 && !bytes.Contains(txt, []byte("]]>")) {
				p.text = txt[:len(txt):len(txt)] // no copy; a later append copies
				continue
			}
			var ok bool
			if p.text, ok = appendUnescaped(p.text, txt); !ok {
				return nil, errScan
			}
			continue
		}
		switch {
		case bytes.HasPrefix(b[i:], []byte("<?")):
			j := bytes.Index(b[i+2:], []byte("?>"))
			if j < 0 {
				return nil, errScan
			}
			pi := b[i+2 : i+2+j]
			target, k, ok := readName(pi, 0)
			if !ok || (k < len(pi) && pi[k] != ' ' && pi[k] != '\t' && pi[k] != '\n' && pi[k] != '\r') {
				return nil, errScan
			}
			if string(target) == "xml" && !xmlDeclOK(pi[k:]) {
				return nil, errScan
			}
			i += 2 + j + 2
		case bytes.HasPrefix(b[i:], []byte("<!--")):
			j := bytes.Index(b[i+4:], []byte("-->"))
			if j < 0 || bytes.Contains(b[i+4:i+4+j], []byte("--")) {
				return nil, errScan
			}
			i += 4 + j + 3
		case bytes.HasPrefix(b[i:], []byte("<![CDATA[")):
			j := bytes.Index(b[i+9:], []byte("]]>"))
			if j < 0 || len(stack) == 0 {
				return nil, errScan
			}
			p := stack[len(stack)-1]
			p.text = append(p.text, b[i+9:i+9+j]...)
			i += 9 + j + 3
		case bytes.HasPrefix(b[i:], []byte("</")):
			j := i + 2
			name, k, ok := readName(b, j)
			if !ok {
				return nil, errScan
			}
			k = skipSpace(b, k)
			if k >= len(b) || b[k] != '>' || len(stack) == 0 {
				return nil, errScan
			}
			top := stack[len(stack)-1]
			if top.rawName != string(name) {
				return nil, errScan
			}
			stack = stack[:len(stack)-1]
			i = k + 1
		case i+1 < len(b) && isNameStart(b[i+1]):
			name, k, ok := readName(b, i+1)
			if !ok {
				return nil, errScan
			}
			n := nodes.new()
			n.rawName = names.of(name)
			n.name = n.rawName
			if c := bytes.IndexByte(name, ':'); c >= 0 {
				n.name = names.of(name[c+1:])
			}
			for {
				k2 := skipSpace(b, k)
				if k2 >= len(b) {
					return nil, errScan
				}
				if b[k2] == '>' || b[k2] == '/' {
					k = k2
					break
				}
				if k2 == k {
					return nil, errScan // attributes need a space before them
				}
				an, k3, ok := readName(b, k2)
				if !ok {
					return nil, errScan
				}
				k3 = skipSpace(b, k3)
				if k3 >= len(b) || b[k3] != '=' {
					return nil, errScan
				}
				k3 = skipSpace(b, k3+1)
				if k3 >= len(b) || (b[k3] != '"' && b[k3] != '\'') {
					return nil, errScan
				}
				q := b[k3]
				e := bytes.IndexByte(b[k3+1:], q)
				if e < 0 {
					return nil, errScan
				}
				raw := b[k3+1 : k3+1+e]
				if bytes.IndexByte(raw, '<') >= 0 {
					return nil, errScan
				}
				val, ok := appendUnescaped(nil, raw)
				if !ok {
					return nil, errScan
				}
				if an2 := string(an); an2 != "xmlns" && !strings.HasPrefix(an2, "xmlns:") {
					n.attrs = append(n.attrs, xml.Attr{Name: xml.Name{Local: localName(an)}, Value: normalizeAttr(val)})
				}
				k = k3 + 1 + e + 1
			}
			selfClosing := false
			if b[k] == '/' {
				if k+1 >= len(b) || b[k+1] != '>' {
					return nil, errScan
				}
				selfClosing = true
				k++
			}
			i = k + 1
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root == nil {
				root = n
			} else {
				return nil, errScan
			}
			if !selfClosing {
				stack = append(stack, n)
			}
		default:
			return nil, errScan // <!DOCTYPE, a stray '<', ...
		}
	}
	if root == nil || len(stack) > 0 {
		return nil, errScan
	}
	return root, nil
}

// xmlDeclOK accepts declarations whose encoding, if any, is UTF-8 (the
// scanner reads bytes as UTF-8).
func xmlDeclOK(content []byte) bool {
	s := string(content)
	if v := procInst("version", s); v != "" && v != "1.0" {
		return false
	}
	if v := procInst("encoding", s); v != "" && !strings.EqualFold(v, "utf-8") {
		return false
	}
	return true
}

// procInst is encoding/xml's reading of a declaration parameter
// (name="value" with no space around '='), so both accept the same
// declarations.
func procInst(param, s string) string {
	param += "="
	lenp := len(param)
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || lenp+k >= len(sub) {
			return ""
		}
		i += lenp + k + 1
		if c := sub[lenp+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

func normalizeAttr(v []byte) string { return string(v) }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// readName reads an ASCII XML name at i.
func readName(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || !isNameStart(b[i]) {
		return nil, i, false
	}
	j := i + 1
	for j < len(b) && isNameChar(b[j]) {
		j++
	}
	if j < len(b) && b[j] >= utf8.RuneSelf {
		return nil, i, false
	}
	name := b[i:j]
	// encoding/xml splits at the first colon: "a:b:c" is space "a",
	// local "b:c"; a name ending in ':' or starting with one is refused.
	if c := bytes.IndexByte(name, ':'); c == 0 || c == len(name)-1 {
		return nil, i, false
	}
	return name, j, true
}

func localName(name []byte) string {
	if c := bytes.IndexByte(name, ':'); c >= 0 {
		return string(name[c+1:])
	}
	return string(name)
}

// appendUnescaped appends text with its entity and character references
// resolved and raw line ends normalized ("\r\n" and "\r" to "\n", as
// encoding/xml does); ok is false for an unknown or malformed reference or
// "]]>" outside CDATA.
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	if bytes.Contains(s, []byte("]]>")) {
		return dst, false
	}
	for len(s) > 0 {
		i := bytes.IndexByte(s, '&')
		if i < 0 {
			return appendNewlines(dst, s), true
		}
		dst = appendNewlines(dst, s[:i])
		s = s[i+1:]
		j := bytes.IndexByte(s, ';')
		if j <= 0 || j > 10 {
			return dst, false
		}
		ref := string(s[:j])
		s = s[j+1:]
		switch ref {
		case "amp":
			dst = append(dst, '&')
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			if len(ref) < 2 || ref[0] != '#' {
				return dst, false
			}
			var n uint64
			var err error
			if ref[1] == 'x' {
				n, err = strconv.ParseUint(ref[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(ref[1:], 10, 32)
			}
			if err != nil || !inCharRange(rune(n)) {
				return dst, false
			}
			dst = utf8.AppendRune(dst, rune(n))
		}
	}
	return dst, true
}

// validChars reports whether b is UTF-8 of characters XML allows.
func validChars(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || !inCharRange(r) {
			return false
		}
		i += size
	}
	return true
}

func inCharRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// appendNewlines appends s with "\r\n" and a lone "\r" written as "\n".
func appendNewlines(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, '\r')
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(append(dst, s[:i]...), '\n')
		s = s[i+1:]
		if len(s) > 0 && s[0] == '\n' {
			s = s[1:]
		}
	}
}

// slab hands out nodes from chunks, one allocation per 64 nodes; a chunk
// is never grown, so the pointers stay valid.
type slab struct{ chunk []node }

func (s *slab) new() *node {
	if len(s.chunk) == cap(s.chunk) {
		s.chunk = make([]node, 0, 64)
	}
	s.chunk = s.chunk[:len(s.chunk)+1]
	return &s.chunk[len(s.chunk)-1]
}

// interner shares the strings of repeated element names.
type interner map[string]string

func (m *interner) of(b []byte) string {
	if v, ok := (*m)[string(b)]; ok {
		return v
	}
	if *m == nil {
		*m = interner{}
	}
	v := string(b)
	(*m)[v] = v
	return v
}
