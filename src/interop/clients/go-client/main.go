// Interop client for the official Go MCP SDK (github.com/modelcontextprotocol/go-sdk).
//
// It follows the contract in ../README.md: input from the environment only, JSON lines on stdout
// (one object per line, every line with "step" and "at"), logs on stderr. It never prints the key
// or the values of INTEROP_HEADERS.
//
// INTEROP_MODE may be http, stdio or http,stdio: with both, the whole script (connect, list, calls,
// bad-key, close) runs for each mode concurrently, one goroutine and one client per mode, and every
// line carries the "mode" it belongs to (only a fatal before any mode started has none).
//
// Build: CGO_ENABLED=0 go build -o /work/main/.tools/bin/interop-go .
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	clientName = "go"
	sdkPath    = "github.com/modelcontextprotocol/go-sdk"
	sdkPinned  = "v1.8.0" // fallback if the build carries no module information
)

var started = time.Now() // time.Since uses the monotonic clock

// ---------------------------------------------------------------------------------------------
// Output: one JSON object per line, keys in the order given, "step" and "at" first.

type kv struct {
	k string
	v any
}

var outMu sync.Mutex

func msSince(t time.Time) float64 {
	return math.Round(float64(time.Since(t).Microseconds())/100) / 10
}

// emit prints one line; mode "" (a fatal before any mode started) prints no mode field. The
// line is built whole and written with one Write under outMu, so concurrent modes never
// interleave inside a line.
func emit(mode, step string, fields ...kv) {
	at := msSince(started)
	if mode != "" {
		fields = append([]kv{{"mode", mode}}, fields...)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	write := func(i int, k string, v any) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encodeJSON(k))
		b.WriteByte(':')
		b.Write(encodeJSON(v))
	}
	write(0, "step", step)
	write(1, "at", at)
	for i, f := range fields {
		write(i+2, f.k, f.v)
	}
	b.WriteString("}\n")
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(b.Bytes())
}

func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fallback, _ := json.Marshal(fmt.Sprint(v))
		return fallback
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "interop-go: "+format+"\n", args...)
}

func fatal(err string) {
	emit("", "fatal", kv{"error", err})
	os.Exit(1)
}

// errText is the SDK's error text as it surfaced it.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ---------------------------------------------------------------------------------------------
// Input.

type planCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Streaming bool           `json:"streaming"`
}

type plan struct {
	Calls     []planCall `json:"calls"`
	TimeoutMs float64    `json:"timeoutMs"`
}

type stdioSpec struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	KeyEnv  string            `json:"keyEnv"`
}

type config struct {
	modes    []string        // in the order INTEROP_MODE gives them
	badModes map[string]bool // modes whose bad-key step runs (INTEROP_BAD_KEY_MODES)
	url      string
	headers  map[string]string
	key      string
	hasKey   bool
	badKey   string
	hasBad   bool
	stdio    stdioSpec
	revision string
	plan     plan
	timeout  time.Duration
}

const (
	modeHTTP  = "http"
	modeStdio = "stdio"
)

// parseModes reads a comma list of modes (http, stdio), each at most once.
func parseModes(name, raw string) ([]string, error) {
	var modes []string
	seen := map[string]bool{}
	for _, part := range strings.Split(raw, ",") {
		m := strings.TrimSpace(part)
		if m != modeHTTP && m != modeStdio {
			return nil, fmt.Errorf("%s must be a comma list of http and stdio (http, stdio or http,stdio), got %q", name, raw)
		}
		if seen[m] {
			return nil, fmt.Errorf("%s names %s twice", name, m)
		}
		seen[m] = true
		modes = append(modes, m)
	}
	return modes, nil
}

func hasMode(modes []string, mode string) bool {
	for _, m := range modes {
		if m == mode {
			return true
		}
	}
	return false
}

func readConfig(modes []string) (*config, error) {
	c := &config{modes: modes, badModes: map[string]bool{}}
	// INTEROP_BAD_KEY_MODES: the modes whose bad-key step runs; unset or empty: every mode run.
	if raw := strings.TrimSpace(os.Getenv("INTEROP_BAD_KEY_MODES")); raw != "" {
		bad, err := parseModes("INTEROP_BAD_KEY_MODES", raw)
		if err != nil {
			return nil, err
		}
		for _, m := range bad {
			c.badModes[m] = true
		}
	} else {
		for _, m := range modes {
			c.badModes[m] = true
		}
	}
	c.key, c.hasKey = os.LookupEnv("MCP_API_KEY")
	c.hasKey = c.hasKey && c.key != ""
	c.badKey, c.hasBad = os.LookupEnv("INTEROP_BAD_KEY")
	c.hasBad = c.hasBad && c.badKey != ""
	c.revision = strings.TrimSpace(os.Getenv("INTEROP_REVISION"))
	if c.revision == "" {
		c.revision = "default"
	}

	if hasMode(modes, modeHTTP) {
		c.url = os.Getenv("INTEROP_URL")
		if c.url == "" {
			return nil, errors.New("INTEROP_URL is not set")
		}
		if u, err := url.Parse(c.url); err != nil || u.Host == "" {
			return nil, errors.New("INTEROP_URL is not an absolute URL")
		}
		c.headers = map[string]string{}
		if raw := strings.TrimSpace(os.Getenv("INTEROP_HEADERS")); raw != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				// The error text of encoding/json may quote the input: do not print it.
				return nil, errors.New("INTEROP_HEADERS is not a JSON object")
			}
			for name, v := range m {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("INTEROP_HEADERS: the value of %q is not a string", name)
				}
				c.headers[name] = s
			}
		}
	}
	if hasMode(modes, modeStdio) {
		raw := os.Getenv("INTEROP_STDIO")
		if raw == "" {
			return nil, errors.New("INTEROP_STDIO is not set")
		}
		if err := json.Unmarshal([]byte(raw), &c.stdio); err != nil {
			return nil, fmt.Errorf("INTEROP_STDIO: %v", err)
		}
		if c.stdio.Command == "" {
			return nil, errors.New("INTEROP_STDIO: command is empty")
		}
	}

	rawPlan := os.Getenv("INTEROP_PLAN")
	if rawPlan == "" {
		rawPlan = `{"calls":[]}`
	}
	if err := json.Unmarshal([]byte(rawPlan), &c.plan); err != nil {
		return nil, fmt.Errorf("INTEROP_PLAN: %v", err)
	}
	for i, call := range c.plan.Calls {
		if call.Tool == "" {
			return nil, fmt.Errorf("INTEROP_PLAN: calls[%d] has no tool", i)
		}
	}
	c.timeout = 30 * time.Second
	if c.plan.TimeoutMs > 0 {
		c.timeout = time.Duration(c.plan.TimeoutMs * float64(time.Millisecond))
	}
	return c, nil
}

// ---------------------------------------------------------------------------------------------
// HTTP: an http.RoundTripper adding the mcpServers entry's headers (INTEROP_HEADERS, then
// Authorization: Bearer <key>) to every request to the endpoint's origin. Requests to another
// origin (a redirect elsewhere) get none of them, so the key never leaves the endpoint's origin.

type headerTransport struct {
	base    http.RoundTripper
	scheme  string
	host    string
	headers map[string]string
	auth    string // "" = no Authorization header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Scheme, t.scheme) || !strings.EqualFold(req.URL.Host, t.host) {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for name, value := range t.headers {
		r.Header.Set(name, value)
	}
	if t.auth != "" {
		r.Header.Set("Authorization", t.auth)
	}
	return t.base.RoundTrip(r)
}

func newHTTPTransport(c *config, key string, withKey bool) mcp.Transport {
	u, _ := url.Parse(c.url)
	rt := &headerTransport{
		base:    http.DefaultTransport.(*http.Transport).Clone(),
		scheme:  u.Scheme,
		host:    u.Host,
		headers: c.headers,
	}
	if withKey {
		rt.auth = "Bearer " + key
	}
	return &mcp.StreamableClientTransport{
		Endpoint:             c.url,
		HTTPClient:           &http.Client{Transport: rt},
		DisableStandaloneSSE: true,
	}
}

// ---------------------------------------------------------------------------------------------
// stdio: the proxy command, with the parent's environment plus env plus keyEnv=key.

func newStdioTransport(c *config, key string, withKey bool) mcp.Transport {
	cmd := exec.Command(c.stdio.Command, c.stdio.Args...)
	env := os.Environ()
	for name, value := range c.stdio.Env {
		env = append(env, name+"="+value)
	}
	if withKey && c.stdio.KeyEnv != "" {
		env = append(env, c.stdio.KeyEnv+"="+key) // later entries win in os/exec
	}
	cmd.Env = env
	cmd.Stderr = os.Stderr // the proxy's logs go to our stderr, never to stdout
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

// ---------------------------------------------------------------------------------------------
// One mode's run: its own clients, connections and progress book; every line it prints carries
// its mode.

type runner struct {
	c    *config
	mode string
	book *progressBook
}

func newRunner(c *config, mode string) *runner {
	return &runner{c: c, mode: mode, book: &progressBook{calls: map[int64]*activeCall{}}}
}

func (r *runner) emit(step string, fields ...kv) { emit(r.mode, step, fields...) }

func (r *runner) logf(format string, args ...any) { logf(r.mode+": "+format, args...) }

func (r *runner) newTransport(key string, withKey bool) mcp.Transport {
	if r.mode == modeStdio {
		return newStdioTransport(r.c, key, withKey)
	}
	return newHTTPTransport(r.c, key, withKey)
}

// ---------------------------------------------------------------------------------------------
// transport-error lines: what the SDK logs at Warn or above, and a connection that breaks
// (ClientSession.Wait returning an error) before we close it.

type transportErrorHandler struct {
	r     *runner
	attrs []slog.Attr
}

func (h *transportErrorHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn
}

func (h *transportErrorHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Any())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	rec.Attrs(add)
	h.r.emit("transport-error", kv{"error", b.String()})
	return nil
}

func (h *transportErrorHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &transportErrorHandler{r: h.r, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *transportErrorHandler) WithGroup(string) slog.Handler { return h }

type session struct {
	cs      *mcp.ClientSession
	closing atomic.Bool
}

func (r *runner) watch(s *session) {
	go func() {
		err := s.cs.Wait()
		if err != nil && !s.closing.Load() {
			r.emit("transport-error", kv{"error", errText(err)})
		}
	}()
}

// closeSession closes within the timeout; the returned error is the SDK's.
func closeSession(s *session, timeout time.Duration) error {
	s.closing.Store(true)
	done := make(chan error, 1)
	go func() { done <- s.cs.Close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return fmt.Errorf("close did not finish within %v", timeout)
	}
}

// ---------------------------------------------------------------------------------------------
// Progress: every call carries its own numeric progress token; the client-wide handler files each
// notification under the call whose token it carries (in its own mode's book: a token is only
// ever matched within the connection-side that sent it).

type progressRecord struct {
	Progress    float64  `json:"progress"`
	Total       *float64 `json:"total,omitempty"`
	At          float64  `json:"at"`
	AfterResult bool     `json:"afterResult"`
	// DeliveredAt is set only when At was clamped to resultAt (see runCall): the time the SDK
	// actually ran the handler.
	DeliveredAt *float64 `json:"deliveredAt,omitempty"`
}

type activeCall struct {
	sent     time.Time
	returned bool    // CallTool has returned
	resultAt float64 // valid once returned
	resulted bool    // the dispatch settle is over: what arrives now is after the result
	progress []progressRecord
}

type progressBook struct {
	mu    sync.Mutex
	calls map[int64]*activeCall
}

// tokenOf returns the numeric token a notification carries; a string token (even "1") is not
// our numeric token and does not match.
func tokenOf(t any) (int64, bool) {
	switch v := t.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), true
		}
	case json.Number:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return n, true
		}
	case int:
		return int64(v), true
	case int64:
		return v, true
	case int32:
		return int64(v), true
	}
	return 0, false
}

func (r *runner) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	p := req.Params
	token, ok := tokenOf(p.ProgressToken)
	book := r.book
	book.mu.Lock()
	var call *activeCall
	if ok {
		call = book.calls[token]
	}
	if call != nil {
		rec := progressRecord{Progress: p.Progress, At: msSince(call.sent), AfterResult: call.resulted}
		if call.returned && !call.resulted && rec.At > call.resultAt {
			// Read by the SDK before the response, dispatched just after CallTool returned.
			delivered := rec.At
			rec.DeliveredAt = &delivered
			rec.At = call.resultAt
		}
		if p.Total != 0 {
			total := p.Total
			rec.Total = &total
		}
		call.progress = append(call.progress, rec)
	}
	book.mu.Unlock()
	if call == nil {
		r.logf("progress notification with token %s (%T) matches no call in flight; ignored", encodeJSON(p.ProgressToken), p.ProgressToken)
	}
}

// ---------------------------------------------------------------------------------------------

func (r *runner) newClient() *mcp.Client {
	return mcp.NewClient(
		&mcp.Implementation{Name: "interop-go", Version: "1.0.0"},
		&mcp.ClientOptions{
			Logger:                      slog.New(&transportErrorHandler{r: r}),
			ProgressNotificationHandler: r.onProgress,
		},
	)
}

func sessionOptions(c *config) *mcp.ClientSessionOptions {
	if c.revision == "default" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: c.revision}
}

func (r *runner) connect(key string, withKey bool) (*session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.c.timeout)
	defer cancel()
	cs, err := r.newClient().Connect(ctx, r.newTransport(key, withKey), sessionOptions(r.c))
	if err != nil {
		return nil, err
	}
	s := &session{cs: cs}
	r.watch(s)
	return s, nil
}

func listTools(s *session, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	names := []string{}
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return names, err
		}
		names = append(names, tool.Name)
	}
	return names, nil
}

func firstText(res *mcp.CallToolResult) string {
	for _, content := range res.Content {
		if t, ok := content.(*mcp.TextContent); ok {
			runes := []rune(t.Text)
			if len(runes) > 500 {
				runes = runes[:500]
			}
			return string(runes)
		}
	}
	return ""
}

var nextToken atomic.Int64 // shared by the modes: a token is unique in the process

// dispatchSettle: see runCall.
const dispatchSettle = 10 * time.Millisecond

func (r *runner) runCall(s *session, call planCall) {
	token := nextToken.Add(1)
	args := call.Arguments
	if args == nil {
		args = map[string]any{}
	}
	params := &mcp.CallToolParams{Name: call.Tool, Arguments: args}
	params.SetProgressToken(token)

	book := r.book
	ac := &activeCall{}
	book.mu.Lock()
	book.calls[token] = ac
	ac.sent = time.Now()
	book.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), r.c.timeout)
	res, err := s.cs.CallTool(ctx, params)
	cancel()

	book.mu.Lock()
	resultAt := msSince(ac.sent)
	ac.returned, ac.resultAt = true, resultAt
	book.mu.Unlock()
	// The SDK's jsonrpc2 layer reads messages in wire order, but runs notification handlers on a
	// goroutine of their own (a FIFO queue) while the response goes straight to CallTool: a
	// notification it read before the response can reach onProgress a little after CallTool
	// returned (observed: about 0.1 ms, when the last progress and the result share a chunk).
	// What lands within dispatchSettle is counted as read before the result: afterResult false
	// and "at" clamped to resultAt (the handler's own time kept in "deliveredAt").
	time.Sleep(dispatchSettle)
	book.mu.Lock()
	ac.resulted = true
	book.mu.Unlock()

	time.Sleep(100*time.Millisecond - dispatchSettle) // progress arriving now is recorded with afterResult: true

	book.mu.Lock()
	delete(book.calls, token)
	progress := ac.progress
	book.mu.Unlock()
	if progress == nil {
		progress = []progressRecord{}
	}

	if err != nil {
		r.emit("call", kv{"tool", call.Tool}, kv{"ok", false}, kv{"progress", progress}, kv{"error", errText(err)})
		return
	}
	if res == nil {
		r.emit("call", kv{"tool", call.Tool}, kv{"ok", false}, kv{"progress", progress}, kv{"error", "the SDK returned no result and no error"})
		return
	}
	r.emit("call", kv{"tool", call.Tool}, kv{"ok", true}, kv{"progress", progress}, kv{"resultAt", resultAt},
		kv{"isError", res.IsError}, kv{"text", firstText(res)})
}

func (r *runner) badKeyStep() {
	c := r.c
	if !c.badModes[r.mode] {
		r.emit("bad-key", kv{"skipped", "not asked in this mode"})
		return
	}
	if !c.hasBad {
		r.emit("bad-key", kv{"skipped", "no bad key given"})
		return
	}
	deadline := time.Now().Add(c.timeout)
	s, err := r.connect(c.badKey, true)
	if err != nil {
		r.emit("bad-key", kv{"ok", true}, kv{"error", errText(err)})
		return
	}
	remaining := time.Until(deadline)
	if remaining < time.Millisecond {
		remaining = time.Millisecond
	}
	_, err = listTools(s, remaining)
	if cerr := closeSession(s, c.timeout); cerr != nil {
		r.logf("closing the bad-key session: %v", cerr)
	}
	if err != nil {
		r.emit("bad-key", kv{"ok", true}, kv{"error", errText(err)})
		return
	}
	r.emit("bad-key", kv{"ok", false}, kv{"accepted", true})
}

// run is the whole script for one mode: connect, list, calls, bad-key, close.
func (r *runner) run() {
	c := r.c
	s, err := r.connect(c.key, c.hasKey)
	if err != nil {
		r.emit("connect", kv{"ok", false}, kv{"error", errText(err)})
	} else {
		version := ""
		if init := s.cs.InitializeResult(); init != nil {
			version = init.ProtocolVersion
		}
		r.emit("connect", kv{"ok", true}, kv{"protocolVersion", version}, kv{"pinned", c.revision != "default"})

		names, err := listTools(s, c.timeout)
		if err != nil {
			r.emit("list", kv{"ok", false}, kv{"error", errText(err)})
		} else {
			r.emit("list", kv{"ok", true}, kv{"tools", names})
		}

		for _, call := range c.plan.Calls {
			r.runCall(s, call)
		}
	}

	r.badKeyStep()

	if s != nil {
		if err := closeSession(s, c.timeout); err != nil {
			r.emit("close", kv{"ok", false}, kv{"error", errText(err)})
			return
		}
	}
	r.emit("close", kv{"ok", true})
}

func sdkVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == sdkPath {
				if dep.Replace != nil && dep.Replace.Version != "" {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return sdkPinned
}

func main() {
	start := []kv{{"client", clientName}, {"sdk", sdkPath}, {"version", sdkVersion()}}
	modes, err := parseModes("INTEROP_MODE", os.Getenv("INTEROP_MODE"))
	if err != nil {
		// No mode to run: the start line (the program and its SDK are there) and the fatal carry none.
		emit("", "start", start...)
		fatal(err.Error())
	}
	for _, mode := range modes {
		emit(mode, "start", start...)
	}

	c, err := readConfig(modes)
	if err != nil {
		fatal(err.Error())
	}

	// Each mode runs the whole script in a goroutine of its own; the process exits (0) once every
	// mode has closed.
	var wg sync.WaitGroup
	for _, mode := range modes {
		r := newRunner(c, mode)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run()
		}()
	}
	wg.Wait()
}
