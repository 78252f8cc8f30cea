// Package schema writes JSON Schema (the OpenAPI 3.1 dialect) as ordered Go
// values, so that an operation's declaration carries its bodies field by
// field and openapi.json renders them deterministically in the order they
// are declared. A Named schema renders as a $ref and carries its
// definition: package openapi collects the definitions of every Named
// schema an operation reaches into components.schemas.
package schema

import (
	"bytes"
	"encoding/json"
)

// Obj is a JSON object that keeps its keys in insertion order.
type Obj []KV

// KV is one member of an Obj. V is any value encoding/json can encode,
// including Obj, Named and slices of them. It is an unnamed struct type so
// that declarations elsewhere may write Obj{{"type", "string"}}.
type KV = struct {
	K string
	V any
}

// MarshalJSON implements json.Marshaler.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Get returns the value of key k and whether o has it.
func (o Obj) Get(k string) (any, bool) {
	for _, e := range o {
		if e.K == k {
			return e.V, true
		}
	}
	return nil, false
}

// Named is a component schema: it renders as
// {"$ref":"#/components/schemas/<Name>"} and its Schema is the definition.
// Two Named values with one Name must have the same Schema.
type Named struct {
	Name   string
	Schema Obj
}

// MarshalJSON implements json.Marshaler: the reference.
func (n Named) MarshalJSON() ([]byte, error) {
	return json.Marshal(Ref(n.Name))
}

// Ref is a reference to the component schema name.
func Ref(name string) Obj { return Obj{{"$ref", "#/components/schemas/" + name}} }

// Common schemas.
var (
	String   = Obj{{"type", "string"}}
	Number   = Obj{{"type", "number"}}
	Integer  = Obj{{"type", "integer"}}
	Count    = Obj{{"type", "integer"}, {"minimum", 0}}
	Bool     = Obj{{"type", "boolean"}}
	DateTime = Obj{{"type", "string"}, {"format", "date-time"}}
	Date     = Obj{{"type", "string"}, {"format", "date"}}
	// NullableDateTime is a date-time or null.
	NullableDateTime = Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}
)

// Percent is a number from 0 to 100.
func Percent() Obj { return Obj{{"type", "number"}, {"minimum", 0}, {"maximum", 100}} }

// Enum is a string with one of values.
func Enum(values ...string) Obj { return Obj{{"type", "string"}, {"enum", values}} }

// Array is an array of items (an Obj or a Named).
func Array(items any) Obj { return Obj{{"type", "array"}, {"items", items}} }

// Const is exactly v.
func Const(v any) Obj { return Obj{{"const", v}} }

// Nullable is a value of JSON type typ (e.g. "string") or null.
func Nullable(typ string) Obj { return Obj{{"type", []string{typ, "null"}}} }

// Described is s with a description first.
func Described(s Obj, desc string) Obj { return append(Obj{{"description", desc}}, s...) }

// Object is a closed object with exactly props, all required.
func Object(desc string, props Obj) Obj { return closedOrOpen(desc, props, false) }

// OpenObject is an object with props, all required, that may carry
// further fields (a free-form object whose known fields are listed).
func OpenObject(desc string, props Obj) Obj { return closedOrOpen(desc, props, true) }

// ObjectRequiring is a closed object with props of which only required
// must be present.
func ObjectRequiring(desc string, props Obj, required ...string) Obj {
	return Obj{{"description", desc}, {"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}
}

func closedOrOpen(desc string, props Obj, open bool) Obj {
	req := make([]string, len(props))
	for i, p := range props {
		req[i] = p.K
	}
	o := Obj{{"type", "object"}}
	if desc != "" {
		o = append(Obj{{"description", desc}}, o...)
	}
	return append(o, KV{"properties", props}, KV{"required", req}, KV{"additionalProperties", open})
}
