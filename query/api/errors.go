package api

import (
	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/schema"
)

// Error codes shared by the rooms (docs/api.md). Every error body has
// "error" (a code), "message" and "charged": false.
const (
	CodeInvalidParameter = "invalid_parameter"
	CodeNoData           = "no_data"
	CodeNotFound         = "not_found"
	CodeInternal         = "internal"
)

// AppendErrorBody appends {"error":code,"message":msg,"charged":false}.
func AppendErrorBody(b []byte, code, msg string) []byte {
	b = append(b, `{"error":`...)
	b = jsonw.AppendString(b, code)
	b = append(b, `,"message":`...)
	b = jsonw.AppendString(b, msg)
	return append(b, `,"charged":false}`...)
}

// ParamError is a rejected parameter: the 400 body names the parameter and
// what it accepts.
type ParamError struct {
	Param   string
	Message string
	// Exactly one of Accepted and Range is set: the accepted values, or a
	// description of the accepted range.
	Accepted []string
	Range    string
	// NotFound marks a path parameter whose value makes the path no route
	// at all (a symbol segment that cannot be a symbol): the server
	// answers 404 not_found instead of 400.
	NotFound bool
}

// Error implements error.
func (e *ParamError) Error() string { return "invalid parameter " + e.Param + ": " + e.Message }

// AppendBody appends the 400 body of e:
// {"error":"invalid_parameter","parameter":…,"message":…,"accepted":…,"charged":false}.
func (e *ParamError) AppendBody(b []byte) []byte {
	b = append(b, `{"error":"`+CodeInvalidParameter+`","parameter":`...)
	b = jsonw.AppendString(b, e.Param)
	b = append(b, `,"message":`...)
	b = jsonw.AppendString(b, e.Message)
	b = append(b, `,"accepted":`...)
	if e.Accepted != nil {
		b = jsonw.AppendStrings(b, e.Accepted)
	} else {
		b = jsonw.AppendString(b, e.Range)
	}
	return append(b, `,"charged":false}`...)
}

// ErrorSchema is the body AppendErrorBody writes for the errors of the
// server itself (unknown route, wrong method, server error).
var ErrorSchema = schema.Named{Name: "Error", Schema: schema.Object("Error body of routes without a more specific one.", schema.Obj{
	{"error", schema.Enum(CodeNotFound, "method_not_allowed", "bad_request", CodeInternal)},
	{"message", schema.String},
	{"charged", schema.Const(false)},
})}

// InvalidParameterSchema is the body of a 400 ParamError; names are every
// parameter (and body field) a 400 may name.
func InvalidParameterSchema(names []string) schema.Named {
	return schema.Named{Name: "InvalidParameterError", Schema: schema.Object("400: a parameter failed validation.", schema.Obj{
		{"error", schema.Const(CodeInvalidParameter)},
		{"parameter", schema.Described(schema.Enum(names...), "The rejected parameter.")},
		{"message", schema.String},
		{"accepted", schema.Obj{{"description", "The accepted values, or a description of the accepted range."},
			{"oneOf", []schema.Obj{schema.Array(schema.String), schema.String}}}},
		{"charged", schema.Const(false)},
	})}
}
