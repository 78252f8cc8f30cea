package querytest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	valerrors "github.com/pb33f/libopenapi-validator/errors"
)

// OpenAPI is an app and a strict validator of the document that describes
// it.
type OpenAPI struct {
	// App serves the requests Send sends; tests may replace it.
	App *fiber.App
	V   validator.Validator
}

// NewOpenAPI builds a strict validator (format assertions on) of doc.
// Strict mode flags the keys of a map (additionalProperties with a
// schema); ignore lists the JSON paths where that is expected.
func NewOpenAPI(t testing.TB, doc []byte, app *fiber.App, ignore ...string) *OpenAPI {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %s", err)
	}
	v, errs := validator.NewValidator(d, config.WithStrictMode(), config.WithFormatAssertions(), config.WithStrictIgnorePaths(ignore...))
	if len(errs) > 0 {
		t.Fatalf("cannot build the validator: %v", errs)
	}
	return &OpenAPI{App: app, V: v}
}

// Send sends one request through the app and returns it with its response,
// whose body can be read again. It waits up to a minute: an answer built
// on demand (a 5 MB companyfacts file parsed) takes longer than Fiber's
// default second on a loaded machine.
func (f *OpenAPI) Send(t testing.TB, method, target string) (*http.Request, *http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	resp, err := f.App.Test(httptest.NewRequest(method, target, nil), fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		t.Fatalf("cannot send %s %s: %s", method, target, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("cannot read the body of %s %s: %s", method, target, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return req, resp, body
}

// DescribeErrors renders validation errors for a test failure.
func DescribeErrors(errs []*valerrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n  - " + e.Error())
		for _, se := range e.SchemaValidationErrors {
			b.WriteString("\n      " + se.FieldPath + " (" + se.KeywordLocation + "): " + se.Reason)
		}
	}
	return b.String()
}
