package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// value is a JSON value decoded with the order of its object keys, so a
// page can show whatever a JSON route answers in the order the route wrote
// it (the status page shows fields added to /status without a change
// here).
type value struct {
	// Kind is object, array, string, number, bool or null.
	Kind string
	Keys []string          // object: keys in order
	Obj  map[string]*value // object
	Arr  []*value          // array
	Str  string            // string; number (its literal); bool ("true"/"false")
}

// decodeOrdered decodes one JSON document.
func decodeOrdered(b []byte) (*value, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// maxDepth bounds nesting.
const maxDepth = 64

func decodeValue(d *json.Decoder, depth int) (*value, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deep")
	}
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			v := &value{Kind: "object", Obj: map[string]*value{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				e, err := decodeValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				if _, dup := v.Obj[k]; !dup {
					v.Keys = append(v.Keys, k)
				}
				v.Obj[k] = e
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '[':
			v := &value{Kind: "array"}
			for d.More() {
				e, err := decodeValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				v.Arr = append(v.Arr, e)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
		return nil, fmt.Errorf("unexpected %v", x)
	case string:
		return &value{Kind: "string", Str: x}, nil
	case json.Number:
		return &value{Kind: "number", Str: x.String()}, nil
	case bool:
		return &value{Kind: "bool", Str: strconv.FormatBool(x)}, nil
	case nil:
		return &value{Kind: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// get returns the member k of an object, nil when v is not an object or
// has no k.
func (v *value) get(k string) *value {
	if v == nil || v.Kind != "object" {
		return nil
	}
	return v.Obj[k]
}

// text is a string's or number's text, "" otherwise.
func (v *value) text() string {
	if v == nil {
		return ""
	}
	return v.Str
}

// int is a number's integer value (0 when it is not one).
func (v *value) int() int64 {
	if v == nil || v.Kind != "number" {
		return 0
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(v.Str, 64)
		return int64(f)
	}
	return n
}

// compact is v as compact JSON, for nested values shown as text.
func (v *value) compact() string {
	var b bytes.Buffer
	v.appendJSON(&b)
	return b.String()
}

func (v *value) appendJSON(b *bytes.Buffer) {
	switch v.Kind {
	case "object":
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			v.Obj[k].appendJSON(b)
		}
		b.WriteByte('}')
	case "array":
		b.WriteByte('[')
		for i, e := range v.Arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.appendJSON(b)
		}
		b.WriteByte(']')
	case "string":
		sb, _ := json.Marshal(v.Str)
		b.Write(sb)
	case "null":
		b.WriteString("null")
	default:
		b.WriteString(v.Str)
	}
}
