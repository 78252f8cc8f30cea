package api

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/gofiber/fiber/v3"
)

// SendJSON answers with status and a copy of body as application/json.
func SendJSON(c fiber.Ctx, status int, body []byte) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBody(body)
	return nil
}

// bufPool holds response buffers; a body is rendered into one, copied into
// the response and the buffer returned.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// SendRendered renders a body with render into a pooled buffer and answers
// with it as JSON.
func SendRendered(c fiber.Ctx, status int, render func([]byte) []byte) error {
	bp := bufPool.Get().(*[]byte)
	b := render((*bp)[:0])
	err := SendJSON(c, status, b)
	if cap(b) <= 1<<20 { // keep the occasional huge buffer out of the pool
		*bp = b
		bufPool.Put(bp)
	}
	return err
}

// SendOwned answers status with the JSON body render appends to b, and
// hands the result to the response without copying it: b must not be
// used after the call. It is for bodies too large for the pooled buffers
// of SendRendered.
func SendOwned(c fiber.Ctx, status int, b []byte, render func([]byte) []byte) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBodyRaw(render(b))
	return nil
}

// SendParamError answers 400 with the body of e.
func SendParamError(c fiber.Ctx, e *ParamError) error {
	return SendRendered(c, fiber.StatusBadRequest, e.AppendBody)
}

// SendError answers status with {"error":code,"message":msg,"charged":false}.
func SendError(c fiber.Ctx, status int, code, msg string) error {
	return SendRendered(c, status, func(b []byte) []byte { return AppendErrorBody(b, code, msg) })
}

// SendValue answers status with v encoded by encoding/json, whose numbers
// follow the same rule as package jsonw for every finite value.
func SendValue(c fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot encode the response: %w", err)
	}
	return SendJSON(c, status, b)
}
