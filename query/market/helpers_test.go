package market

import (
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/querytest"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// Fixtures of package querytest.
var (
	testNow  = querytest.Now
	fullDoc  = querytest.FullDoc
	smallDoc = querytest.SmallDoc
	do       = querytest.Do
)

// testServer is the live routes mounted on a Fiber app as the server
// mounts them: every parameter validated before its handler.
type testServer struct {
	*Routes
	app *fiber.App
}

func (s *testServer) App() *fiber.App { return s.app }

// newServer mounts the live routes of c.
func newServer(c Config) *testServer {
	rt := New(c)
	app := fiber.New()
	api.Mount(app, rt.Operations(), rt.now, nil)
	return &testServer{Routes: rt, app: app}
}

// newTestServer returns the live routes over views holding docs, with the
// fixed clock testNow.
func newTestServer(docs ...*schemas.IntelligenceDocument) *testServer {
	v := views.New()
	for _, d := range docs {
		v.Apply(d)
	}
	return newServer(Config{Views: v, Now: func() time.Time { return testNow }})
}

// newOpenAPIFixture validates answers against the document of the live
// routes as the server renders it.
func newOpenAPIFixture(t *testing.T) *openAPIFixture {
	t.Helper()
	s := newTestServer()
	f := querytest.NewOpenAPI(t, openapi.Build(s.Operations(), paywall.Responses()), s.App())
	return &openAPIFixture{OpenAPI: f, v: f.V}
}

// openAPIFixture keeps the names the tests use.
type openAPIFixture struct {
	*querytest.OpenAPI
	app *fiber.App
	v   validator.Validator
}

func (f *openAPIFixture) send(t *testing.T, method, target string) (*http.Request, *http.Response, []byte) {
	if f.app != nil {
		f.OpenAPI.App = f.app
	}
	return f.Send(t, method, target)
}

var describeErrors = querytest.DescribeErrors
